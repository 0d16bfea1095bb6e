"""Names learners use that PyTorch has and tensorgrad lacked (issue 29, an outside attacker's
MISSING API cases), each run on both libraries (PyTorch 2.13.0, measured): `masked_fill` and
`masked_fill_`, the `new_*` constructors, rounding (`round` with `decimals=`, `floor`, `ceil`,
`trunc`), a tensor's memory layout (`stride`, `is_contiguous`, `element_size`,
`storage_offset`), and `nn.ParameterList` / `nn.ModuleDict`. (`inference_mode` is deliberately
absent: docs/library.md, "Not supported".)
"""

import numpy as np
import pytest

from .conftest import raises_exactly, show

MASK = [True, False, True]


# -- masked_fill ----------------------------------------------------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg, x, m: x.masked_fill(m, 0), "tensor([0., 2., 0.])"),
    (lambda tg, x, m: x.masked_fill(m, value=-1.5), "tensor([-1.5000,  2.0000, -1.5000])"),
    (lambda tg, x, m: x.masked_fill(mask=m, value=True), "tensor([1., 2., 1.])"),
    (lambda tg, x, m: tg.masked_fill(x, m, 7), "tensor([7., 2., 7.])"),
    (lambda tg, x, m: x.masked_fill(m, tg.tensor(5.)), "tensor([5., 2., 5.])"),
    (lambda tg, x, m: x.masked_fill(m, np.float64(2.5)), "tensor([2.5000, 2.0000, 2.5000])"),
    (lambda tg, x, m: x.masked_fill(m, float("nan")), "tensor([nan, 2., nan])"),
    (lambda tg, x, m: x.masked_fill(m, 2 ** 63), "tensor([9.2234e+18, 2.0000e+00, 9.2234e+18])"),
    (lambda tg, x, m: x.masked_fill(m, 1e-50), "tensor([0., 2., 0.])"),
    (lambda tg, x, m: x.masked_fill(tg.tensor(True), 7), "tensor([7., 7., 7.])"),
    (lambda tg, x, m: x.masked_fill(tg.tensor([[True], [False]]), 0),
     "tensor([[0., 0., 0.],\n        [1., 2., 3.]])"),
    (lambda tg, x, m: tg.tensor(1.).masked_fill(m, 7), "tensor([7., 1., 7.])"),
    (lambda tg, x, m: tg.tensor([1, 2, 3]).masked_fill(m, 2.5), "tensor([2, 2, 2])"),
    (lambda tg, x, m: tg.tensor([1, 2, 3]).masked_fill(m, -2 ** 63),
     "tensor([-9223372036854775808,                    2, -9223372036854775808])"),
    (lambda tg, x, m: tg.tensor([1, 2, 3]).masked_fill(m, tg.tensor(2.5)), "tensor([2, 2, 2])"),
    (lambda tg, x, m: tg.tensor(MASK).masked_fill(m, float("nan")), "tensor([ True, False,  True])"),
    (lambda tg, x, m: tg.tensor([True, False]).masked_fill(tg.tensor([False, True]), 5),
     "tensor([True, True])"),
    (lambda tg, x, m: tg.ones(2, dtype=tg.float64).masked_fill(tg.ones(2) > 0, 1e308),
     "tensor([1.0000e+308, 1.0000e+308], dtype=tensorgrad.float64)"),
])
def test_masked_fill(tg, call, text):
    assert show(call(tg, tg.tensor([1., 2., 3.]), tg.tensor(MASK))) == text


@pytest.mark.parametrize("call, error, message", [
    (lambda tg, x, m: x.masked_fill(tg.tensor([1, 0, 1]), 0), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype long int"),
    (lambda tg, x, m: x.masked_fill(tg.tensor([1., 0., 1.]), 0), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype float"),
    (lambda tg, x, m: x.masked_fill(m, tg.tensor([5.])), RuntimeError,
     "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
    (lambda tg, x, m: x.masked_fill(m, tg.tensor([[2.]])), RuntimeError,
     "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 2 dimension(s)."),
    (lambda tg, x, m: x.masked_fill(tg.tensor([True, False]), 0), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda tg, x, m: x.masked_fill(m, 1e39), RuntimeError,
     "value cannot be converted to type float without overflow"),
    (lambda tg, x, m: x.masked_fill(m, tg.tensor(1e39, dtype=tg.float64)), RuntimeError,
     "value cannot be converted to type float without overflow"),
    (lambda tg, x, m: tg.tensor([1, 2, 3]).masked_fill(m, float("inf")), RuntimeError,
     "value cannot be converted to type int64_t without overflow"),
    (lambda tg, x, m: tg.tensor([1, 2, 3]).masked_fill(m, 2 ** 63), RuntimeError,
     "value cannot be converted to type int64_t without overflow"),
    (lambda tg, x, m: x.masked_fill(m, 2 ** 64), OverflowError, "int too big to convert"),
    (lambda tg, x, m: x.masked_fill(m, -2 ** 63 - 1), OverflowError,
     "can't convert negative int to unsigned"),
    (lambda tg, x, m: x.masked_fill(tg.tensor([1, 0]), tg.tensor([1.])), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda tg, x, m: x.masked_fill(tg.tensor([1., 0., 1.]), tg.tensor([1.])), RuntimeError,
     "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
    (lambda tg, x, m: x.masked_fill(tg.tensor([1, 0]), 1e39), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda tg, x, m: x.masked_fill(tg.tensor([1, 0, 1]), 1e39), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype long int"),
    (lambda tg, x, m: tg.tensor([1, 2, 3]).masked_fill(m, tg.tensor(2., requires_grad=True)),
     RuntimeError, "Autograd not support dtype: Long"),
    (lambda tg, x, m: x.masked_fill(m), TypeError,
     "masked_fill() received an invalid combination of arguments - got (Tensor), but expected one of:\n"
     " * (Tensor mask, Tensor value)\n * (Tensor mask, Number value)\n"),
])
def test_masked_fill_refusals(tg, call, error, message):
    with raises_exactly(tg, error, message):
        call(tg, tg.tensor([1., 2., 3.]), tg.tensor(MASK))


def test_masked_fill_gradients(tg):
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    value = tg.tensor(2., requires_grad=True)
    y = x.masked_fill(tg.tensor(MASK), 0)
    assert show(y) == "tensor([0., 2., 0.], grad_fn=<MaskedFillBackward0>)"
    assert show(y.grad_fn._saved_mask) == "tensor([ True, False,  True])"
    z = x.masked_fill(tg.tensor(MASK), value)
    assert show(z) == "tensor([2., 2., 2.], grad_fn=<MaskedFillBackward1>)"
    (y * tg.tensor([1., 2., 3.]) + z).sum().backward()
    assert show(x.grad) == "tensor([0., 3., 0.])"
    assert show(value.grad) == "tensor(2.)"
    # a smaller input broadcast to the mask: its gradient is summed back to its shape
    w = tg.ones(2, 1, requires_grad=True)
    w.masked_fill(tg.tensor(MASK), 5.).sum().backward()
    assert show(w.grad) == "tensor([[1.],\n        [1.]])"


def test_masked_fill_in_place(tg):
    x = tg.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    alias = y
    assert y.masked_fill_(tg.tensor(MASK), 0) is alias
    assert show(y) == "tensor([0., 2., 0.], grad_fn=<MaskedFillBackward0>)"
    y.sum().backward()
    assert show(x.grad) == "tensor([0., 1., 0.])"
    i = tg.tensor([1, 2, 3])
    i.masked_fill_(tg.tensor(MASK), 2.5)
    assert show(i) == "tensor([2, 2, 2])"


@pytest.mark.parametrize("call, error, message", [
    (lambda tg, x: x.masked_fill_(tg.tensor(MASK), 0), RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
    (lambda tg, x: tg.ones(3).masked_fill_(tg.ones(2, 3) > 0, 1), RuntimeError,
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (lambda tg, x: x.masked_fill_(tg.tensor([True]), tg.tensor([1.])), RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
    (lambda tg, x: tg.ones(3).masked_fill_(tg.ones(2, 3) > 0, 1e39), RuntimeError,
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (lambda tg, x: tg.ones(3).masked_fill_(tg.ones(2, 3), 1), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype float"),
    (lambda tg, x: tg.ones(3).masked_fill_(tg.ones(2, 3) > 0, tg.tensor([1.])), RuntimeError,
     "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
    (lambda tg, x: tg.ones(3).masked_fill_(tg.tensor([1, 0, 1]), 1), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype long int"),
    (lambda tg, x: tg.ones(3).masked_fill_(tg.tensor(MASK), 1e39), RuntimeError,
     "value cannot be converted to type float without overflow"),
])
def test_masked_fill_in_place_refusals(tg, call, error, message):
    with raises_exactly(tg, error, message):
        call(tg, tg.tensor([1., 2., 3.], requires_grad=True))


# -- new_full, new_zeros, new_ones, new_empty, new_tensor ------------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg, x, i: x.new_full((2,), 3), "tensor([3., 3.])"),
    (lambda tg, x, i: x.new_full([2, 3], 1.5),
     "tensor([[1.5000, 1.5000, 1.5000],\n        [1.5000, 1.5000, 1.5000]])"),
    (lambda tg, x, i: x.new_full(size=(2,), fill_value=True), "tensor([1., 1.])"),
    (lambda tg, x, i: x.new_full((2,), 3, dtype=tg.int64), "tensor([3, 3])"),
    (lambda tg, x, i: x.new_full((2,), 3, dtype=float), "tensor([3., 3.], dtype=tensorgrad.float64)"),
    (lambda tg, x, i: i.new_full((2,), 2.5), "tensor([2, 2])"),
    (lambda tg, x, i: x.new_full((2,), 2 ** 63), "tensor([9.2234e+18, 9.2234e+18])"),
    (lambda tg, x, i: x.new_full((2,), tg.tensor(True)), "tensor([1., 1.])"),
    (lambda tg, x, i: x.new_full((2,), np.int8(3)), "tensor([3., 3.])"),
    (lambda tg, x, i: x.new_full((2,), float("nan"), device="cpu"), "tensor([nan, nan])"),
    (lambda tg, x, i: x.new_full((2,), 3, requires_grad=True), "tensor([3., 3.], requires_grad=True)"),
    (lambda tg, x, i: x.new_zeros(2, 3), "tensor([[0., 0., 0.],\n        [0., 0., 0.]])"),
    (lambda tg, x, i: x.new_zeros([1, 2]), "tensor([[0., 0.]])"),
    (lambda tg, x, i: x.new_zeros(size=(2,), dtype=tg.int64), "tensor([0, 0])"),
    (lambda tg, x, i: x.new_zeros(tg.tensor(2), requires_grad=True), "tensor([0., 0.], requires_grad=True)"),
    (lambda tg, x, i: i.new_ones(2), "tensor([1, 1])"),
    (lambda tg, x, i: x.new_ones((2,), dtype=tg.bool), "tensor([True, True])"),
    (lambda tg, x, i: (x.new_empty(2, 3).shape, x.new_empty((2,), dtype=tg.int64).dtype),
     "(tensorgrad.Size([2, 3]), tensorgrad.int64)"),
    (lambda tg, x, i: x.new_tensor([1, 2]), "tensor([1., 2.])"),
    (lambda tg, x, i: i.new_tensor([1.5, 2]), "tensor([1, 2])"),
    (lambda tg, x, i: x.new_tensor(data=3, dtype=tg.float64, requires_grad=True),
     "tensor(3., dtype=tensorgrad.float64, requires_grad=True)"),
    (lambda tg, x, i: x.new_tensor(np.array([1, 2])), "tensor([1., 2.])"),
])
def test_new_tensors_take_this_tensors_dtype(tg, call, text):
    assert show(call(tg, tg.zeros(2, 2), tg.tensor([1, 2]))) == text


@pytest.mark.parametrize("call, error, message", [
    (lambda tg, x, i: x.new_full(2, 3), TypeError,
     "new_full(): argument 'size' (position 1) must be tuple of ints, not int"),
    (lambda tg, x, i: x.new_full((2,)), TypeError,
     'new_full() missing 1 required positional arguments: "fill_value"'),
    (lambda tg, x, i: x.new_full((2,), 3, 4), TypeError,
     "new_full() takes 2 positional arguments but 3 were given"),
    (lambda tg, x, i: x.new_full((2,), "a"), TypeError,
     "new_full(): argument 'fill_value' (position 2) must be Number, not str"),
    (lambda tg, x, i: x.new_full((2,), tg.tensor([3])), TypeError,
     "new_full(): argument 'fill_value' (position 2) must be Number, not Tensor"),
    (lambda tg, x, i: x.new_full((2,), tg.tensor(2.5, requires_grad=True)), TypeError,
     "new_full(): argument 'fill_value' (position 2) must be Number, not Tensor"),
    (lambda tg, x, i: x.new_full((2,), 1e39), RuntimeError,
     "value cannot be converted to type float without overflow"),
    (lambda tg, x, i: i.new_full((2,), 2 ** 63), RuntimeError,
     "value cannot be converted to type int64_t without overflow"),
    (lambda tg, x, i: x.new_full((2,), 2 ** 64), OverflowError, "int too big to convert"),
    (lambda tg, x, i: x.new_full((-1,), 3), RuntimeError,
     "Trying to create tensor with negative dimension -1: [-1]"),
    (lambda tg, x, i: i.new_full((2,), 3, requires_grad=True), RuntimeError,
     "Only Tensors of floating point and complex dtype can require gradients"),
    (lambda tg, x, i: x.new_zeros(), TypeError, 'new_zeros() missing 1 required positional arguments: "size"'),
    (lambda tg, x, i: x.new_zeros(-1), RuntimeError,
     "Trying to create tensor with negative dimension -1: [-1]"),
    (lambda tg, x, i: x.new_zeros(2.5), TypeError,
     "new_zeros(): argument 'size' (position 1) must be tuple of ints, not float"),
    (lambda tg, x, i: x.new_zeros((2,), 3), TypeError,
     "new_zeros() takes 1 positional argument but 2 were given"),
    (lambda tg, x, i: i.new_ones(2, requires_grad=True), RuntimeError,
     "Only Tensors of floating point and complex dtype can require gradients"),
    (lambda tg, x, i: x.new_ones(2, dtype="float"), TypeError,
     "new_ones(): argument 'dtype' must be tensorgrad.dtype, not str"),
    (lambda tg, x, i: x.new_empty(-2), RuntimeError,
     "Trying to create tensor with negative dimension -2: [-2]"),
    (lambda tg, x, i: x.new_tensor(), TypeError,
     'new_tensor() missing 1 required positional arguments: "data"'),
    (lambda tg, x, i: x.new_tensor([1, 2], tg.int64), TypeError,
     "new_tensor() takes 1 positional argument but 2 were given"),
    (lambda tg, x, i: x.new_tensor("a"), TypeError, "new(): invalid data type 'str'"),
    (lambda tg, x, i: x.new_tensor([[1], [2, 3]]), ValueError,
     "expected sequence of length 1 at dim 1 (got 2)"),
])
def test_new_tensors_refusals(tg, call, error, message):
    with raises_exactly(tg, error, message):
        call(tg, tg.zeros(2, 2), tg.tensor([1, 2]))


def test_new_tensor_of_a_tensor_warns_and_copies(tg):
    from .conftest import warns_exactly

    x, i = tg.zeros(2), tg.tensor([1, 2])
    with warns_exactly(tg, UserWarning, "To copy construct from a tensor, it is recommended to use "
                       "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                       "requires_grad_(True), rather than tensor.new_tensor(sourceTensor)."):
        copy = x.new_tensor(i)
    assert show(copy) == "tensor([1., 2.])"
    with raises_exactly(tg, TypeError, "new_tensor() got an unexpected keyword argument 'pin_memory'"):
        x.new_tensor([1.], pin_memory=False)


@pytest.mark.parametrize("call, message", [
    (lambda tg, x: x.new_tensor(None), "must be real number, not NoneType"),
    (lambda tg, x: x.new_tensor([1, {}]), "must be real number, not dict"),
    (lambda tg, x: x.new_tensor(tg.float32), "must be real number, not tensorgrad.dtype"),
    (lambda tg, x: x.new_tensor(1j), "must be real number, not complex"),
    (lambda tg, x: tg.tensor(None, dtype=tg.float64), "must be real number, not NoneType"),
    (lambda tg, x: tg.tensor([object()], dtype=tg.int64), "'object' object cannot be interpreted as an integer"),
    (lambda tg, x: tg.tensor(None, dtype=tg.bool), "'NoneType' object cannot be interpreted as an integer"),
])
def test_data_that_is_no_number_in_a_dtype_asked_for(tg, call, message):
    """With a dtype given (new_tensor always gives its own), PyTorch converts each element to it
    and says which is no number; without one it cannot infer a dtype."""
    with raises_exactly(tg, TypeError, message):
        call(tg, tg.zeros(2))


# -- how a tensor lies in memory: stride, is_contiguous, element_size, storage_offset --------------
@pytest.mark.parametrize("make, text", [
    (lambda x, tg: x, "((12, 4, 1), True, 0)"),
    (lambda x, tg: x.transpose(0, 2), "((1, 4, 12), False, 0)"),
    (lambda x, tg: x.permute(2, 0, 1), "((1, 12, 4), False, 0)"),
    (lambda x, tg: x[:, ::2], "((12, 8, 1), False, 0)"),
    (lambda x, tg: x[1:], "((12, 4, 1), True, 12)"),
    (lambda x, tg: x[:, 1], "((12, 1), False, 4)"),
    (lambda x, tg: x[..., 1:3], "((12, 4, 1), False, 1)"),
    (lambda x, tg: x[0].expand(5, 3, 4), "((0, 4, 1), False, 0)"),
    (lambda x, tg: x.unsqueeze(1), "((12, 12, 4, 1), True, 0)"),
    (lambda x, tg: x[None], "((24, 12, 4, 1), True, 0)"),
    (lambda x, tg: x[:, None], "((12, 12, 4, 1), True, 0)"),
    (lambda x, tg: x[:, :, 0:1], "((12, 4, 1), False, 0)"),
    (lambda x, tg: x.reshape(6, 4), "((4, 1), True, 0)"),
    (lambda x, tg: x.transpose(0, 1).contiguous(), "((8, 4, 1), True, 0)"),
    (lambda x, tg: x.transpose(0, 1).clone(), "((4, 12, 1), False, 0)"),
    (lambda x, tg: x.flip(0), "((12, 4, 1), True, 0)"),
    (lambda x, tg: x.chunk(2, 2)[1], "((12, 4, 1), False, 2)"),
    (lambda x, tg: x[:, [0, 2]], "((8, 4, 1), True, 0)"),
    (lambda x, tg: tg.ones(3, 1).expand(3, 4), "((1, 0), False, 0)"),
    (lambda x, tg: tg.zeros(0, 3), "((3, 1), True, 0)"),
    (lambda x, tg: tg.zeros(3, 0), "((1, 1), True, 0)"),
    (lambda x, tg: tg.tensor(2.), "((), True, 0)"),
])
def test_stride_contiguity_and_offset(tg, make, text):
    y = make(tg.arange(24.).reshape(2, 3, 4), tg)
    assert str((y.stride(), y.is_contiguous(), y.storage_offset())) == text


@pytest.mark.parametrize("call, text", [
    (lambda x, tg: x.stride(0), "12"),
    (lambda x, tg: x.stride(dim=-1), "1"),
    (lambda x, tg: x.stride(None), "(12, 4, 1)"),
    (lambda x, tg: x.stride(tg.tensor(1)), "4"),
    (lambda x, tg: x.stride(np.int64(1)), "4"),
    (lambda x, tg: (x.element_size(), x.double().element_size(), tg.tensor([1]).element_size(),
                    tg.tensor([True]).element_size()), "(4, 8, 8, 1)"),
])
def test_stride_of_one_dim_and_element_size(tg, call, text):
    assert str(call(tg.arange(24.).reshape(2, 3, 4), tg)) == text


@pytest.mark.parametrize("call, error, message", [
    (lambda x, tg: x.stride(3), IndexError,
     "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda x, tg: x.stride(1.5), TypeError, "stride(): argument 'dim' (position 1) must be int, not float"),
    (lambda x, tg: x.stride(0, 1), TypeError, "stride() takes from 0 to 1 positional arguments but 2 were given"),
    (lambda x, tg: x.size(0, 1), TypeError, "size() takes from 0 to 1 positional arguments but 2 were given"),
    (lambda x, tg: tg.tensor(2.).stride(0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (lambda x, tg: x.is_contiguous(1), TypeError, "is_contiguous() takes 0 positional arguments but 1 was given"),
    (lambda x, tg: x.element_size(1), TypeError, "TensorBase.element_size() takes no arguments (1 given)"),
    (lambda x, tg: x.storage_offset(1), TypeError, "TensorBase.storage_offset() takes no arguments (1 given)"),
])
def test_memory_layout_refusals(tg, call, error, message):
    with raises_exactly(tg, error, message):
        call(tg.arange(24.).reshape(2, 3, 4), tg)


# -- nn.ParameterList and nn.ModuleDict ------------------------------------------------------------
def _model(tg):
    class M(tg.nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = tg.nn.ParameterList([tg.nn.Parameter(tg.ones(2))])
            self.d = tg.nn.ModuleDict({"a": tg.nn.Linear(2, 1), "b": tg.nn.ReLU()})

        def forward(self, x):
            return self.d["b"](self.d["a"](x * self.ps[0]))

    tg.manual_seed(0)
    return M()


def test_parameter_list_and_module_dict_show_their_contents(tg):
    m = _model(tg)
    assert show(m) == ("M(\n  (ps): ParameterList(  (0): Parameter containing: [tensorgrad.float32 of size 2])\n"
                       "  (d): ModuleDict(\n    (a): Linear(in_features=2, out_features=1, bias=True)\n"
                       "    (b): ReLU()\n  )\n)")
    assert [name for name, _ in m.named_parameters()] == ["ps.0", "d.a.weight", "d.a.bias"]
    assert list(m.state_dict()) == ["ps.0", "d.a.weight", "d.a.bias"]
    opt = tg.optim.SGD(m.parameters(), lr=0.1)
    m(tg.ones(3, 2)).sum().backward()
    opt.step()
    assert show(m.ps[0]) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"  # (ReLU: 0 here)
    m.eval()
    assert (m.training, m.d.training, m.ps.training) == (False, False, False)


def test_parameter_list_as_a_list(tg):
    nn = tg.nn
    ps = nn.ParameterList([nn.Parameter(tg.ones(2)), tg.zeros(2, 3), 5])
    assert show(ps) == ("ParameterList(\n    (0): Parameter containing: [tensorgrad.float32 of size 2]\n"
                        "    (1): Parameter containing: [tensorgrad.float32 of size 2x3]\n"
                        "    (2): Object of type: int\n)")
    assert [type(v).__name__ for v in ps] == ["Parameter", "Parameter", "int"]
    assert show(ps[-3]) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert show(ps[1:]) == ("ParameterList(\n    (0): Parameter containing: [tensorgrad.float32 of size 2x3]\n"
                            "    (1): Object of type: int\n)")
    assert ps.append(tg.ones(1)) is ps and len(ps) == 4
    assert [name for name, _ in ps.named_parameters()] == ["0", "1", "3"]
    assert show(nn.ParameterList()) == "ParameterList()"


@pytest.mark.parametrize("call, error, message", [
    (lambda nn, tg, ps: ps[3], IndexError, "index 3 is out of range"),
    (lambda nn, tg, ps: ps["a"], TypeError, "'str' object cannot be interpreted as an integer"),
    (lambda nn, tg, ps: ps(1), RuntimeError, "ParameterList should not be called."),
    (lambda nn, tg, ps: ps.extend(tg.ones(2)), TypeError,
     "ParameterList.extend should be called with an iterable, but got Tensor"),
    (lambda nn, tg, ps: nn.ParameterList([tg.tensor([1, 2])]), RuntimeError,
     "Only Tensors of floating point and complex dtype can require gradients"),
    (lambda nn, tg, ps: nn.ModuleDict({"a": nn.ReLU()})["c"], KeyError, "'c'"),
    (lambda nn, tg, ps: nn.ModuleDict(3), TypeError,
     "ModuleDict.update should be called with an iterable of key/value pairs, but got int"),
    (lambda nn, tg, ps: nn.ModuleDict([1]), TypeError,
     "ModuleDict update sequence element #0 should be Iterable; isint"),
    (lambda nn, tg, ps: nn.ModuleDict([("x",)]), ValueError,
     "ModuleDict update sequence element #0 has length 1; 2 is required"),
    (lambda nn, tg, ps: nn.ModuleDict({1: nn.ReLU()}), TypeError, "module name should be a string. Got int"),
    (lambda nn, tg, ps: nn.ModuleDict({"a": 3}), TypeError, "int is not a Module subclass"),
    (lambda nn, tg, ps: nn.ModuleDict({"a": nn.ReLU()})(tg.ones(2)), NotImplementedError,
     'Module [ModuleDict] is missing the required "forward" function'),
])
def test_parameter_list_and_module_dict_refusals(tg, call, error, message):
    with raises_exactly(tg, error, message):
        call(tg.nn, tg, tg.nn.ParameterList([tg.nn.Parameter(tg.ones(2))]))


def test_module_dict_as_a_dict(tg):
    nn = tg.nn
    d = nn.ModuleDict([("x", nn.Tanh()), ["y", nn.ReLU()]])
    assert list(d) == ["x", "y"] and "x" in d and len(d) == 2
    assert show(d.pop("x")) == "Tanh()"
    d.update({"z": nn.Sigmoid()})
    assert [(k, show(v)) for k, v in d.items()] == [("y", "ReLU()"), ("z", "Sigmoid()")]
    d["w"] = nn.Tanh()
    del d["y"]
    assert show(d) == "ModuleDict(\n  (z): Sigmoid()\n  (w): Tanh()\n)"
    d.clear()
    assert show(d) == "ModuleDict()"


# -- rounding: round (halves to even, decimals=), floor, ceil, trunc -------------------------------
VALUES = [0.5, 1.5, 2.5, -0.5, -1.5, 1.25, -2.675, 2.675, 1234.5678, float("nan"), float("inf"), -0.0]


@pytest.mark.parametrize("call, text", [
    (lambda tg, x: x.round(), "tensor([ 0.0000e+00,  2.0000e+00,  2.0000e+00, -0.0000e+00, -2.0000e+00,\n"
     "         1.0000e+00, -3.0000e+00,  3.0000e+00,  1.2350e+03,         nan,\n                inf, -0.0000e+00])"),
    (lambda tg, x: tg.round(x, decimals=2), "tensor([ 5.0000e-01,  1.5000e+00,  2.5000e+00, -5.0000e-01, -1.5000e+00,\n"
     "         1.2500e+00, -2.6800e+00,  2.6800e+00,  1.2346e+03,         nan,\n                inf, -0.0000e+00])"),
    (lambda tg, x: x.double().round(decimals=2)[6:8], "tensor([-2.6700,  2.6700], dtype=tensorgrad.float64)"),
    (lambda tg, x: x.round(decimals=-2)[8], "tensor(1200.)"),
    (lambda tg, x: x[:3].round(decimals=40), "tensor([nan, nan, nan])"),
    (lambda tg, x: x[:3].round(decimals=-40), "tensor([nan, nan, nan])"),
    (lambda tg, x: tg.tensor(1e30).round(decimals=10), "tensor(inf)"),
    (lambda tg, x: x.floor()[:6], "tensor([ 0.,  1.,  2., -1., -2.,  1.])"),
    (lambda tg, x: x.ceil()[:6], "tensor([ 1.,  2.,  3., -0., -1.,  2.])"),
    (lambda tg, x: tg.trunc(x)[:6], "tensor([ 0.,  1.,  2., -0., -1.,  1.])"),
    (lambda tg, x: tg.tensor([-17, 25]).round(), "tensor([-17,  25])"),
    (lambda tg, x: tg.tensor([-17, 25]).floor(), "tensor([-17,  25])"),
    (lambda tg, x: tg.round_(x[:3].clone(), decimals=0), "tensor([0., 2., 2.])"),
    (lambda tg, x: tg.floor_(x[:3].clone()), "tensor([0., 1., 2.])"),
])
def test_rounding(tg, call, text):
    assert show(call(tg, tg.tensor(VALUES))) == text


def test_rounding_records_a_flat_gradient(tg):
    x = tg.tensor([0.4, 1.6, -2.5], requires_grad=True)
    for name, node in [("round", "RoundBackward0"), ("floor", "FloorBackward0"),
                       ("ceil", "CeilBackward0"), ("trunc", "TruncBackward0")]:
        y = getattr(x, name)()
        assert type(y.grad_fn).__name__ == node
        assert show(tg.autograd.grad(y.sum(), x)[0]) == "tensor([0., 0., 0.])"
    assert type(x.round(decimals=1).grad_fn).__name__ == "RoundBackward1"
    z = x * 1
    assert z.round_(decimals=1) is z and type(z.grad_fn).__name__ == "RoundBackward1"


@pytest.mark.parametrize("call, error, message", [
    (lambda tg, x, i, b: x.round(decimals=1.5), TypeError, "round(): argument 'decimals' must be int, not float"),
    (lambda tg, x, i, b: x.round(decimals=True), TypeError, "round(): argument 'decimals' must be int, not bool"),
    (lambda tg, x, i, b: tg.round(x, 1), TypeError,
     "round() received an invalid combination of arguments - got (Tensor, int), but expected one of:\n"
     " * (Tensor input, *, Tensor out = None)\n * (Tensor input, *, int decimals, Tensor out = None)\n"),
    (lambda tg, x, i, b: x.round(1), TypeError, "round() takes from 1 to 0 positional arguments but 1 were given"),
    (lambda tg, x, i, b: x.nonzero(True), TypeError,
     "nonzero() takes from 1 to 0 positional arguments but 1 were given"),
    (lambda tg, x, i, b: x.sort(0, True, 1), TypeError, "sort() takes from 1 to 0 positional arguments but 3 were given"),
    (lambda tg, x, i, b: tg.round_(x, 1), TypeError, "round_() takes from 2 to 1 positional arguments but 2 were given"),
    (lambda tg, x, i, b: i.round(decimals=1), NotImplementedError, "\"round_cpu\" not implemented for 'Long'"),
    (lambda tg, x, i, b: i.round(decimals=0), NotImplementedError, "\"round_vml_cpu\" not implemented for 'Long'"),
    (lambda tg, x, i, b: b.round(), NotImplementedError, "\"round_vml_cpu\" not implemented for 'Bool'"),
    (lambda tg, x, i, b: b.floor(), NotImplementedError, "\"floor_vml_cpu\" not implemented for 'Bool'"),
    (lambda tg, x, i, b: b.ceil(), NotImplementedError, "\"ceil_vml_cpu\" not implemented for 'Bool'"),
    (lambda tg, x, i, b: b.trunc(), NotImplementedError, "\"trunc_vml_cpu\" not implemented for 'Bool'"),
    (lambda tg, x, i, b: x.floor(1), TypeError, "TensorBase.floor() takes no arguments (1 given)"),
    (lambda tg, x, i, b: tg.floor(x, 1), TypeError, "floor() takes 1 positional argument but 2 were given"),
    (lambda tg, x, i, b: tg.round(1.5), TypeError, "round(): argument 'input' (position 1) must be Tensor, not float"),
    (lambda tg, x, i, b: x.requires_grad_().round_(), RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
])
def test_rounding_refusals(tg, call, error, message):
    with raises_exactly(tg, error, message):
        call(tg, tg.tensor([1.25, 2.5]), tg.tensor([1, 2]), tg.tensor([True]))




# -- sort, argsort, index_select, nonzero, ravel, swapaxes (texts measured on PyTorch 2.13.0) -----
SORTING_AND_SELECTING = {
    'x.sort()':
        'tensorgrad.return_types.sort(\nvalues=tensor([[ 0.0000,  0.0000,  1.5000],\n        [-1.0000,  0.0000,  2.0000]], grad_fn=<SortBackward0>),\nindices=tensor([[0, 2, 1],\n        [2, 1, 0]]))',
    'x.sort(dim=0, descending=True)':
        'tensorgrad.return_types.sort(\nvalues=tensor([[ 2.0000,  1.5000,  0.0000],\n        [ 0.0000,  0.0000, -1.0000]], grad_fn=<SortBackward0>),\nindices=tensor([[1, 0, 0],\n        [0, 1, 1]]))',
    'x.sort(stable=True)':
        'tensorgrad.return_types.sort(\nvalues=tensor([[ 0.0000,  0.0000,  1.5000],\n        [-1.0000,  0.0000,  2.0000]], grad_fn=<SortBackward1>),\nindices=tensor([[0, 2, 1],\n        [2, 1, 0]]))',
    'L.sort(x, 1)':
        'tensorgrad.return_types.sort(\nvalues=tensor([[ 0.0000,  0.0000,  1.5000],\n        [-1.0000,  0.0000,  2.0000]], grad_fn=<SortBackward0>),\nindices=tensor([[0, 2, 1],\n        [2, 1, 0]]))',
    'x.sort(0, True)':
        'tensorgrad.return_types.sort(\nvalues=tensor([[ 2.0000,  1.5000,  0.0000],\n        [ 0.0000,  0.0000, -1.0000]], grad_fn=<SortBackward0>),\nindices=tensor([[1, 0, 0],\n        [0, 1, 1]]))',
    'x.argsort()':
        'tensor([[0, 2, 1],\n        [2, 1, 0]])',
    'L.argsort(x, dim=0, descending=True)':
        'tensor([[1, 0, 0],\n        [0, 1, 1]])',
    'x.argsort(stable=True)':
        'tensor([[0, 2, 1],\n        [2, 1, 0]])',
    'x.argsort(0, True)':
        'tensor([[1, 0, 0],\n        [0, 1, 1]])',
    'L.tensor(3.).sort()':
        'tensorgrad.return_types.sort(\nvalues=tensor(3.),\nindices=tensor(0))',
    'L.tensor([1, 3, 2]).sort()':
        'tensorgrad.return_types.sort(\nvalues=tensor([1, 2, 3]),\nindices=tensor([0, 2, 1]))',
    'L.tensor([True, False]).sort()':
        'tensorgrad.return_types.sort(\nvalues=tensor([False,  True]),\nindices=tensor([1, 0]))',
    "L.tensor([2., float('nan'), 1.]).sort()":
        'tensorgrad.return_types.sort(\nvalues=tensor([1., 2., nan]),\nindices=tensor([2, 0, 1]))',
    "L.tensor([2., float('nan'), 1.]).sort(descending=True)":
        'tensorgrad.return_types.sort(\nvalues=tensor([nan, 2., 1.]),\nindices=tensor([1, 0, 2]))',
    'L.tensor([2., 1., 2., 1.]).argsort()':
        'tensor([1, 3, 0, 2])',
    'L.tensor([2., 1., 2., 1.]).argsort(descending=True)':
        'tensor([0, 2, 1, 3])',
    'L.autograd.grad((x.sort(dim=1).values * L.tensor([1., 2., 3.])).sum(), x)':
        '(tensor([[1., 3., 2.],\n        [3., 2., 1.]]),)',
    'x.index_select(1, L.tensor([2, 0]))':
        'tensor([[ 0.,  0.],\n        [-1.,  2.]], grad_fn=<IndexSelectBackward0>)',
    'L.index_select(x, 0, L.tensor([1, 1]))':
        'tensor([[ 2.,  0., -1.],\n        [ 2.,  0., -1.]], grad_fn=<IndexSelectBackward0>)',
    'x.index_select(1, L.tensor(1))':
        'tensor([[1.5000],\n        [0.0000]], grad_fn=<IndexSelectBackward0>)',
    'L.tensor(3.).index_select(0, L.tensor([0]))':
        'tensor(3.)',
    'x.index_select(1, L.tensor([], dtype=L.int64))':
        'tensor([], size=(2, 0), grad_fn=<IndexSelectBackward0>)',
    'L.autograd.grad(x.index_select(1, L.tensor([2, 0, 2])).sum(), x)':
        '(tensor([[1., 0., 2.],\n        [1., 0., 2.]]),)',
    'x.nonzero()':
        'tensor([[0, 1],\n        [1, 0],\n        [1, 2]])',
    'L.nonzero(x, as_tuple=True)':
        '(tensor([0, 1, 1]), tensor([1, 0, 2]))',
    'L.tensor(5.).nonzero()':
        'tensor([], size=(1, 0), dtype=tensorgrad.int64)',
    'L.tensor(0.).nonzero()':
        'tensor([], size=(0, 0), dtype=tensorgrad.int64)',
    'L.tensor(5.).nonzero(as_tuple=True)':
        '(tensor([0]),)',
    'L.zeros(0, 2).nonzero()':
        'tensor([], size=(0, 2), dtype=tensorgrad.int64)',
    'L.tensor([True, False]).nonzero()':
        'tensor([[0]])',
    'x.ravel()':
        'tensor([ 0.0000,  1.5000,  0.0000,  2.0000,  0.0000, -1.0000],\n       grad_fn=<ViewBackward0>)',
    'L.ravel(x.t())':
        'tensor([ 0.0000,  2.0000,  1.5000,  0.0000,  0.0000, -1.0000],\n       grad_fn=<ViewBackward0>)',
    'x.swapaxes(0, 1)':
        'tensor([[ 0.0000,  2.0000],\n        [ 1.5000,  0.0000],\n        [ 0.0000, -1.0000]], grad_fn=<TransposeBackward0>)',
    'L.swapaxes(x, 1, 0)':
        'tensor([[ 0.0000,  2.0000],\n        [ 1.5000,  0.0000],\n        [ 0.0000, -1.0000]], grad_fn=<TransposeBackward0>)',
}


@pytest.mark.parametrize("call", list(SORTING_AND_SELECTING))
def test_sorting_selecting_and_reshaping(tg, call):
    x = tg.tensor([[0., 1.5, 0.], [2., 0., -1.]], requires_grad=True)
    assert show(eval(call, {"L": tg, "x": x})) == SORTING_AND_SELECTING[call]  # noqa: S307


@pytest.mark.parametrize("call, error, message", [
    (lambda tg, x: x.sort(dim=2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda tg, x: x.sort(descending=1), TypeError,
     "sort() received an invalid combination of arguments - got (descending=int, ), but expected one of:\n"
     " * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim = -1, bool descending = False)\n"),
    (lambda tg, x: x.index_select(1, tg.tensor([3])), RuntimeError, "INDICES element is out of DATA bounds, id=3 axis_dim=3"),
    (lambda tg, x: x.index_select(1, tg.tensor([-1])), RuntimeError, "INDICES element is out of DATA bounds, id=-1 axis_dim=3"),
    (lambda tg, x: x.index_select(1, tg.tensor([[0]])), IndexError, "index_select(): Index is supposed to be a vector"),
    (lambda tg, x: x.index_select(1, tg.tensor([0.])), RuntimeError, "index_select(): Expected dtype int32 or int64 for index"),
    (lambda tg, x: x.index_select(5, tg.tensor([[0.]])), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda tg, x: x.index_select(1, [0]), TypeError, "index_select(): argument 'index' (position 2) must be Tensor, not list"),
    (lambda tg, x: tg.tensor(3.).index_select(0, tg.tensor([1])), IndexError, "index out of range in self"),
    (lambda tg, x: tg.tensor(3.).index_select(0, tg.tensor([0, 0])), RuntimeError,
     "index_select(): Index to scalar can have only 1 value, got 2 value(s)"),
    (lambda tg, x: x.nonzero(as_tuple=1), TypeError, "nonzero(): argument 'as_tuple' must be bool, not int"),
    (lambda tg, x: tg.nonzero([1]), TypeError, "nonzero(): argument 'input' (position 1) must be Tensor, not list"),
    (lambda tg, x: x.ravel(0), TypeError, "TensorBase.ravel() takes no arguments (1 given)"),
    (lambda tg, x: x.swapaxes(0, 2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda tg, x: x.swapaxes(0), TypeError, 'swapaxes() missing 1 required positional arguments: "axis1"'),
])
def test_sorting_selecting_and_reshaping_refusals(tg, call, error, message):
    with raises_exactly(tg, error, message):
        call(tg, tg.tensor([[0., 1.5, 0.], [2., 0., -1.]]))


# -- finfo and iinfo -------------------------------------------------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.finfo(tg.float32), "finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, "
     "eps=1.19209e-07, smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)"),
    (lambda tg: tg.finfo(float), "finfo(resolution=1e-15, min=-1.79769e+308, max=1.79769e+308, "
     "eps=2.22045e-16, smallest_normal=2.22507e-308, tiny=2.22507e-308, dtype=float64)"),
    (lambda tg: tg.finfo().dtype, "'float32'"),
    (lambda tg: tg.iinfo(tg.int64), "iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)"),
    (lambda tg: (tg.finfo(tg.float32).eps, tg.finfo(type=tg.float32).tiny, tg.finfo(tg.float64).max,
                 tg.finfo(tg.float32).resolution, tg.finfo(tg.float32).bits),
     "(1.1920928955078125e-07, 1.1754943508222875e-38, 1.7976931348623157e+308, 1e-06, 32)"),
    (lambda tg: (tg.iinfo(int).min, tg.iinfo(tg.int64).max, tg.iinfo(tg.int64).bits),
     "(-9223372036854775808, 9223372036854775807, 64)"),
    (lambda tg: tg.finfo(tg.float32) == tg.finfo(tg.float32), "True"),
])
def test_finfo_and_iinfo(tg, call, text):
    assert show(call(tg)) == text


@pytest.mark.parametrize("call, error, message", [
    (lambda tg: tg.finfo(tg.int64), TypeError,
     "tensorgrad.finfo() requires a floating point input type. Use tensorgrad.iinfo to handle 'tensorgrad.finfo'"),
    (lambda tg: tg.iinfo(tg.float32), TypeError,
     "tensorgrad.iinfo() requires an integer input type. Use tensorgrad.finfo to handle 'tensorgrad.iinfo'"),
    (lambda tg: tg.iinfo(tg.bool), TypeError, "tensorgrad.bool is not supported by tensorgrad.iinfo"),
    (lambda tg: tg.finfo("float32"), TypeError, "finfo(): argument 'type' (position 1) must be tensorgrad.dtype, not str"),
    (lambda tg: tg.iinfo(), TypeError, 'iinfo() missing 1 required positional arguments: "type"'),
    (lambda tg: tg.finfo(tg.float32, 1), TypeError,
     "finfo() received an invalid combination of arguments - got (tensorgrad.dtype, int), but expected one of:\n"
     " * (tensorgrad.dtype type)\n * ()\n"),
])
def test_finfo_and_iinfo_refusals(tg, call, error, message):
    with raises_exactly(tg, error, message):
        call(tg)


def test_advanced_indexing_in_row_order_keeps_a_0d_result(tg):
    """x[np.array(1)] is 0-d (made row-ordered, an advanced index's result must keep its shape)."""
    a = tg.tensor([1., 2., 3.])
    assert show(a[np.array(1)]) == "tensor(2.)"
    assert a.reshape(3, 1)[[0, 2]].T.stride() == (1, 1)
