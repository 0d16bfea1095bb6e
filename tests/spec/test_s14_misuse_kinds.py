"""PyTorch's behaviour on what an outside attacker's 28,072 cases still found silently accepted,
leaking or named otherwise after session 13 (issue 29, session 14), by kind: an optimizer's
settings as its step hands them to PyTorch's operations, a module whose __init__ skipped
Module.__init__(), the size of an int64 arange counted in int64, ModuleList's `+`, `+=` and
insert, and the nodes PyTorch names (div with a rounding_mode, fill_ with a number). Each runs
on both libraries (PyTorch 2.13.0, measured).
"""

import numpy as np
import pytest

from .conftest import raises_exactly, show


def _stepped(tg, make_optimizer, steps=1):
    """A Linear layer with gradients, and `steps` steps of the optimizer `make_optimizer` makes."""
    model = tg.nn.Linear(2, 1)
    model(tg.ones(1, 2)).sum().backward()
    optimizer = make_optimizer(tg, model.parameters())
    for _ in range(steps):
        optimizer.step()
    return model, optimizer


# -- an optimizer's settings, as its step hands them to an operation as a Scalar ------------------
@pytest.mark.parametrize("make, steps, error, text", [
    (lambda tg, p: tg.optim.SGD(p, lr=2 ** 70), 1, OverflowError,
     "can't convert negative int to unsigned"),  # param.add_(grad, alpha=-lr)
    (lambda tg, p: tg.optim.SGD(p, lr=0.1, weight_decay=2 ** 70), 1, OverflowError,
     "int too big to convert"),  # grad.add(param, alpha=weight_decay)
    (lambda tg, p: tg.optim.SGD(p, lr=0.1, momentum=2 ** 70), 2, OverflowError,
     "int too big to convert"),  # buf.mul_(momentum), from the second step
    (lambda tg, p: tg.optim.SGD(p, lr=0.1, momentum=0.5, dampening=2 ** 70), 2, OverflowError,
     "can't convert negative int to unsigned"),  # alpha=1 - dampening
    (lambda tg, p: tg.optim.Adam(p, weight_decay=2 ** 70), 1, OverflowError,
     "int too big to convert"),
    (lambda tg, p: tg.optim.Adam(p, betas=(0.9, 0.99, 0.9)), 1, ValueError,
     "too many values to unpack (expected 2)"),
    (lambda tg, p: tg.optim.Adam(p, capturable=True), 1, AssertionError,
     "If capturable=True, params and state_steps must be on supported devices: "
     "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']."),
])
def test_an_optimizer_step_refuses_what_pytorchs_step_refuses(tg, make, steps, error, text):
    with raises_exactly(tg, error, text):
        _stepped(tg, make, steps)


@pytest.mark.parametrize("make", [
    lambda tg, p: tg.optim.SGD(p, lr=2 ** 63),  # alpha=-2 ** 63 fits int64
    lambda tg, p: tg.optim.SGD(p, lr=0.1, weight_decay=2 ** 64 - 1),  # a uint64 Scalar
    lambda tg, p: tg.optim.Adam(p, lr=2 ** 70),  # lr / bias_correction is a float
])
def test_settings_a_scalar_holds_are_taken(tg, make):
    model, _ = _stepped(tg, make, 2)
    assert model.weight.grad is not None


def test_adam_keeps_the_state_it_made_before_refusing_capturable(tg):
    model = tg.nn.Linear(2, 1)
    model(tg.ones(1, 2)).sum().backward()
    optimizer = tg.optim.Adam(model.parameters(), capturable=True)
    with pytest.raises(AssertionError):
        optimizer.step()
    assert sorted(optimizer.state[model.weight]) == ["exp_avg", "exp_avg_sq", "step"]


# -- a module whose __init__ skipped super().__init__() ------------------------------------------
def _without_init(tg, body):
    class M(tg.nn.Module):
        def __init__(self):
            body(self)

        def forward(self, x):
            return x * 2
    return M


@pytest.mark.parametrize("body, text", [
    (lambda self: setattr(self, "w", 3), "'M' object has no attribute '_modules'"),
    (lambda self: None, "'M' object has no attribute '_modules'"),
])
def test_a_module_without_module_init_fails_where_pytorchs_does(tg, body, text):
    with raises_exactly(tg, AttributeError, text):
        repr(_without_init(tg, body)())


def test_calling_a_module_without_module_init_fails_on_its_first_hook_dict(tg):
    module = _without_init(tg, lambda self: setattr(self, "w", tg.ones(2)))()
    with raises_exactly(tg, AttributeError, "'M' object has no attribute '_backward_hooks'"):
        module(tg.ones(1, 2))
    with raises_exactly(tg, AttributeError, "'M' object has no attribute '_parameters'"):
        list(module.parameters())


@pytest.mark.parametrize("body, text", [
    (lambda self, tg: setattr(self, "l", tg.nn.Linear(2, 2)),
     "cannot assign module before Module.__init__() call"),
    (lambda self, tg: setattr(self, "w", tg.nn.Parameter(tg.zeros(2))),
     "cannot assign parameters before Module.__init__() call"),
    (lambda self, tg: self.register_buffer("b", tg.zeros(2)),
     "cannot assign buffer before Module.__init__() call"),
])
def test_registering_before_module_init_is_refused(tg, body, text):
    with raises_exactly(tg, AttributeError, text):
        _without_init(tg, lambda self: body(self, tg))()


# -- an int64 arange is counted in int64, which wraps ----------------------------------------------
@pytest.mark.parametrize("args", [
    (0, 2 ** 63 - 1, 10 ** 17), (1, 2 ** 63 - 1, 10 ** 17), (0, 2 ** 63 - 1, 2 ** 62),
    (0, -2 ** 63, -2 ** 62),
])
def test_an_int64_range_whose_count_overflows_is_refused(tg, args):
    with raises_exactly(tg, RuntimeError, "invalid size, possible overflow?"):
        tg.arange(*args)


@pytest.mark.parametrize("args, kwargs, text", [
    ((-2 ** 63, 2 ** 63 - 1, 2 ** 62), {}, "tensor([], dtype=tensorgrad.int64)"),  # wraps to -1
    ((2 ** 62 + 1, 2 ** 62 + 10, 3), {},  # each value exact: computed in int64, not in double
     "tensor([4611686018427387905, 4611686018427387908, 4611686018427387911])"),
    ((5 * 10 ** 18, 9 * 10 ** 18, 10 ** 18), {}, "tensor([5000000000000000000, "
     "6000000000000000000, 7000000000000000000,\n        8000000000000000000])"),
    ((10, 0, -3), {}, "tensor([10,  7,  4,  1])"),
    ((0.5, 10, 2), {"dtype": "int64"}, "tensor([0, 2, 4, 6, 8])"),
    ((0, 2 ** 63 - 1, 10 ** 17), {"dtype": "float32"}, None),  # counted in double: 93 values
])
def test_an_int64_range_is_as_pytorchs(tg, args, kwargs, text):
    kwargs = {key: getattr(tg, value) for key, value in kwargs.items()}
    result = tg.arange(*args, **kwargs)
    if text is None:
        assert result.shape == (93,)
    else:
        assert show(result) == text


# -- ModuleList: `+` (a new list), `+=` (extends), insert -------------------------------------------
def test_modulelist_plus_is_a_new_modulelist(tg):
    nn = tg.nn
    first = nn.ModuleList([nn.ReLU()])
    combined = first + nn.ModuleList([nn.Tanh()])
    assert show(combined) == "ModuleList(\n  (0): ReLU()\n  (1): Tanh()\n)"
    assert len(first) == 1
    assert show(first + [nn.Tanh(), nn.ReLU()]) == (
        "ModuleList(\n  (0): ReLU()\n  (1): Tanh()\n  (2): ReLU()\n)")


@pytest.mark.parametrize("other, error, text", [
    ([3], TypeError, "int is not a Module subclass"),
    (3, TypeError, "'int' object is not iterable"),
])
def test_modulelist_plus_refuses_what_is_not_modules(tg, other, error, text):
    with raises_exactly(tg, error, text):
        tg.nn.ModuleList([tg.nn.ReLU()]) + other


def test_modulelist_plus_equals_extends_the_same_list(tg):
    modules = tg.nn.ModuleList([tg.nn.ReLU()])
    same = modules
    modules += [tg.nn.Tanh()]
    assert same is modules and len(modules) == 2


@pytest.mark.parametrize("index, names", [
    (1, ["ReLU", "Sigmoid", "Tanh"]),
    (0, ["Sigmoid", "ReLU", "Tanh"]),
    (2, ["ReLU", "Tanh", "Sigmoid"]),
])
def test_modulelist_insert_puts_the_module_before_index(tg, index, names):
    nn = tg.nn
    modules = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    assert modules.insert(index, nn.Sigmoid()) is None
    assert [type(m).__name__ for m in modules] == names
    assert [name for name, _ in modules.named_children()] == ["0", "1", "2"]


def test_modulelist_insert_takes_a_negative_index_as_pytorch_does(tg):
    modules = tg.nn.ModuleList([tg.nn.ReLU(), tg.nn.Tanh()])
    with raises_exactly(tg, KeyError, "'-1'"):
        modules.insert(-1, tg.nn.Sigmoid())


# -- the nodes PyTorch names --------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda tg, x: x.div(x * 2, rounding_mode="floor"),
    lambda tg, x: tg.div(x, 2, rounding_mode="trunc"),
    lambda tg, x: (x * 1).div_(2, rounding_mode="floor"),
    lambda tg, x: (x * 1).div_(tg.tensor(2.), rounding_mode="trunc"),
])
def test_div_with_a_rounding_mode_records_divbackward2_with_a_zero_gradient(tg, call):
    x = tg.tensor([1.5, -3.0], requires_grad=True)
    y = call(tg, x)
    assert type(y.grad_fn).__name__ == "DivBackward2"
    y.sum().backward()
    assert show(x.grad) == "tensor([0., 0.])"


def test_div_in_place_takes_a_rounding_mode(tg):
    x = tg.tensor([5, -3])
    x.div_(2, rounding_mode="trunc")
    assert show(x) == "tensor([ 2, -1])"
    with raises_exactly(tg, TypeError,
                        "div_() received an invalid combination of arguments - got (int, "
                        "rounding_mode=int), but expected one of:\n * (Tensor other)\n"
                        " * (Tensor other, *, str rounding_mode)\n"
                        " * (Number other, *, str rounding_mode)\n"):
        x.div_(2, rounding_mode=3)


def test_fill_with_a_number_records_fillbackward2(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.fill_(3.0)
    assert show(y) == "tensor([3., 3.], grad_fn=<FillBackward2>)"
    z = x * 1
    z.fill_(tg.tensor(3.0))
    assert show(z) == "tensor([3., 3.], grad_fn=<FillBackward3>)"


# -- numbers where PyTorch's parser takes them for tensors: its list adds floor_divide ------------
@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.floor_divide(3, tg.tensor([1, 2])), "tensor([3, 1])"),
    (lambda tg: tg.floor_divide(2.5, tg.tensor([1, 2])), "tensor([2., 1.])"),
    (lambda tg: tg.floor_divide(True, tg.tensor([1., 2.])), "tensor([1., 0.])"),
    (lambda tg: tg.floor_divide(3, 2), "tensor(1)"),
    (lambda tg: tg.tensor([5., 3.]).floor_divide_(2), "tensor([2., 1.])"),
])
def test_floor_divide_takes_numbers_for_tensors(tg, call, text):
    assert show(call(tg)) == text


def test_floor_divide_of_a_number_by_a_bool_tensor_divides_by_zero(tg):
    with raises_exactly(tg, RuntimeError, "ZeroDivisionError"):
        tg.floor_divide(3, tg.tensor([True, False]))


# -- an int of any size is a bool, where a bool tensor is made ------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.tensor(2 ** 63, dtype=tg.bool), "tensor(True)"),
    (lambda tg: tg.tensor([2 ** 70, 0, -2 ** 80], dtype=tg.bool), "tensor([ True, False,  True])"),
    (lambda tg: tg.ones(2, dtype=tg.bool).new_tensor(-2 ** 63 - 1), "tensor(True)"),
    (lambda tg: tg.tensor(np.uint64(2 ** 64 - 1), dtype=tg.bool), "tensor(True)"),
])
def test_any_int_is_a_bool_in_a_bool_tensor(tg, call, text):
    assert show(call(tg)) == text


def test_an_int_beyond_64_bits_still_overflows_an_int64_tensor(tg):
    with raises_exactly(tg, ValueError, "Overflow when unpacking long long"):
        tg.tensor([2 ** 63], dtype=tg.int64)


# -- Module.cpu(), cuda() and type(): every parameter and buffer converted, as Tensor's are ---------
def test_module_cpu_is_the_module_and_cuda_is_refused_by_its_first_tensor(tg):
    model = tg.nn.Linear(2, 1)
    assert model.cpu() is model
    assert show(tg.nn.ReLU().cuda()) == "ReLU()"  # (no tensor to refuse)
    with raises_exactly(tg, AssertionError, "tensorgrad not compiled with CUDA enabled"):
        model.cuda()


@pytest.mark.parametrize("dst_type", ["float64", "tensorgrad.DoubleTensor"])
def test_module_type_converts_every_parameter_buffer_and_grad(tg, dst_type):
    dst_type = getattr(tg, dst_type) if dst_type == "float64" else dst_type.replace(
        "tensorgrad", tg.__name__)
    model = tg.nn.Sequential(tg.nn.Linear(2, 1), tg.nn.BatchNorm1d(1))
    weight = model[0].weight
    model(tg.ones(3, 2)).sum().backward()
    assert model.type(dst_type) is model
    assert model[0].weight is weight and weight.requires_grad
    assert show(weight.grad.dtype) == "tensorgrad.float64"
    assert [show(t.dtype) for t in model.state_dict().values()] == ["tensorgrad.float64"] * 7


@pytest.mark.parametrize("dst_type, error, text", [
    ("int64", RuntimeError,
     "data set to a tensor that requires gradients must be floating point or complex dtype"),
    (float, ValueError, "invalid type: 'float'"),
])
def test_module_type_refuses_what_tensor_type_and_data_refuse(tg, dst_type, error, text):
    dst_type = getattr(tg, dst_type) if isinstance(dst_type, str) else dst_type
    with raises_exactly(tg, error, text):
        tg.nn.Linear(2, 1).type(dst_type)


# -- PyTorch's order of checks, and its names for what was given -------------------------------------
@pytest.mark.parametrize("call, error, text", [
    (lambda tg: tg.nn.NLLLoss()(tg.tensor([[0.1, 0.9], [0.8, 0.2]]), tg.tensor([[0., 1.], [1., 0.]])),
     RuntimeError, "0D or 1D target tensor expected, multi-target not supported"),
    (lambda tg: tg.nn.CrossEntropyLoss()(tg.tensor([0.2, 0.7]), tg.tensor([[1., 0.]])),
     RuntimeError, "0D or 1D target tensor expected, multi-target not supported"),
    (lambda tg: tg.nn.functional.nll_loss(tg.ones(2, 3), tg.ones(4)), ValueError,
     "Expected input batch_size (2) to match target batch_size (4)."),
    (lambda tg: tg.nn.functional.nll_loss(tg.ones(2, 3, 4), tg.ones(3, 4)), ValueError,
     "Expected input batch_size (2) to match target batch_size (3)."),
    (lambda tg: tg.nn.functional.nll_loss(tg.ones(3), tg.ones(2)), RuntimeError,
     "expected target dtype to be Long or Byte, but got Float"),
    (lambda tg: tg.tensor(1.).chunk(0, 0), RuntimeError,
     "chunk expects at least a 1-dimensional tensor"),
    (lambda tg: tg.set_default_dtype(float), TypeError,
     "invalid dtype object: only floating-point types are supported as the default type"),
    (lambda tg: tg.set_default_dtype(tg.int64), TypeError,
     "only floating-point types are supported as the default type"),
])
def test_the_first_check_pytorch_makes_decides(tg, call, error, text):
    with raises_exactly(tg, error, text):
        call(tg)


@pytest.mark.parametrize("param, name", [
    (lambda tg: tg.nn.Linear(1, 1).parameters(), "Module.parameters"),  # (a generator's name)
    (lambda tg: np.float64(3), "numpy.float64"),
    (lambda tg: 3.0, "float"),
    (lambda tg: None, "NoneType"),
])
def test_an_optimizer_names_what_is_not_a_tensor_as_torch_typename_does(tg, param, name):
    with raises_exactly(tg, TypeError,
                        f"optimizer can only optimize Tensors, but one of the params is {name}"):
        tg.optim.SGD([param(tg)], lr=0.1)


# -- a NumPy function of a tensor that NumPy computes in a dtype tensorgrad has not ----------------
@pytest.mark.parametrize("call, dtype", [
    (lambda tg: np.exp(tg.tensor([True])), "float16"),  # (NumPy's dtype for a bool's exp)
    (lambda tg: tg.tensor([1.]) + np.array([1j]), "complex128"),
])
def test_a_numpy_result_in_a_dtype_tensorgrad_has_not_is_refused_saying_so(tg, call, dtype):
    if tg.__name__ == "torch":  # (torch has these dtypes: the tensor is made)
        assert str(call(tg).dtype) == f"torch.{dtype}"
        return
    with pytest.raises(TypeError) as refusal:  # (not an internal error: where it came from)
        call(tg)
    assert str(refusal.value).startswith(f"NumPy computed this result from a tensor in {dtype}, "
                                         "which tensorgrad does not have")


@pytest.mark.parametrize("dtype, text", [
    ("float32", "result type ComplexFloat can't be cast to the desired output type Float"),
    ("float64", "result type ComplexDouble can't be cast to the desired output type Double"),
    ("int64", "result type ComplexFloat can't be cast to the desired output type Long"),
])
def test_floor_divide_in_place_by_a_complex_number_cannot_cast(tg, dtype, text):
    with raises_exactly(tg, RuntimeError, text):
        tg.ones(2, dtype=getattr(tg, dtype)).floor_divide_(1j)
