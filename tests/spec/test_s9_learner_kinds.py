"""PyTorch's behaviour on the kinds of values learners pass (issue 29): Python types as dtypes, a
0-d tensor where a number goes, NumPy scalars, complex numbers, huge ints, zero-size and 0-d
tensors, Tensor.roll, and nn.DataParallel on a machine without GPUs. Each example of the issue's
"Why", run on both libraries.
"""

import numpy as np
import pytest

from .conftest import raises_exactly, show


@pytest.fixture
def x(tg):
    return tg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


# -- Python types as dtypes ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind, dtype, text", [
    (int, "int64", "tensor(21)"), (float, "float64", "tensor(21., dtype=tensorgrad.float64)"),
    (bool, "bool", "tensor(True)")])
def test_a_python_type_is_a_dtype(tg, x, kind, dtype, text):
    total = x.sum(dtype=kind)
    assert show(total.dtype) == f"tensorgrad.{dtype}"
    assert show(total) == text


def test_a_numpy_type_is_not_a_dtype(tg, x):
    with raises_exactly(tg, TypeError, "zeros(): argument 'dtype' must be tensorgrad.dtype, not type"):
        tg.zeros(2, dtype=np.float32)


@pytest.mark.parametrize("kind, name", [(float, "float"), (int, "int"), (np.float32, "numpy.float32")])
def test_type_refuses_a_python_type(tg, x, kind, name):
    with raises_exactly(tg, ValueError, f"invalid type: '{name}'"):
        x.type(kind)


def test_type_refuses_what_is_not_a_type_a_name_or_a_dtype(tg, x):
    with raises_exactly(tg, TypeError, "dtype must be a type, str, or dtype object"):
        x.type(3)


# -- a 0-d tensor (or a NumPy integer) where a number goes -------------------------------------------
def test_arange_of_a_0d_tensor(tg):
    assert show(tg.arange(tg.tensor(3))) == "tensor([0, 1, 2])"
    assert show(tg.arange(np.int64(3))) == "tensor([0, 1, 2])"


def test_reshape_with_a_0d_tensor_among_the_sizes(tg, x):
    assert show(x.reshape(tg.tensor(3), 2).shape) == "tensorgrad.Size([3, 2])"
    assert show(x.reshape(np.int64(2), 3).shape) == "tensorgrad.Size([2, 3])"


def test_a_float_0d_tensor_is_not_a_size(tg, x):
    with raises_exactly(tg, TypeError, "reshape() takes 1 positional argument but 2 were given"):
        x.reshape(tg.tensor(3.0), 2)


def test_std_correction_as_a_0d_tensor(tg, x):
    assert show(x.std(1, correction=tg.tensor(1))) == "tensor([0.7071, 0.7071, 0.7071])"


def test_sub_alpha_as_a_0d_tensor(tg, x):
    assert show(x.sub(x, alpha=tg.tensor(2))) == show(-x)


def test_a_0d_tensor_that_requires_grad_is_not_a_number(tg, x):
    with raises_exactly(tg, TypeError, "sub(): argument 'alpha' must be Number, not Tensor"):
        x.sub(x, alpha=tg.tensor(2.0, requires_grad=True))


def test_a_one_element_integer_tensor_as_a_dim(tg, x):
    assert show(x.sum(tg.tensor([1]))) == "tensor([ 3.,  7., 11.])"


# -- a NumPy bool is not a Python bool ----------------------------------------------------------------
def test_requires_grad_refuses_a_numpy_bool(tg, x):
    with raises_exactly(tg, TypeError, "requires_grad_(): argument 'requires_grad' (position 1) "
                                       "must be bool, not numpy.bool"):
        x.requires_grad_(np.bool_(True))


@pytest.mark.parametrize("flag", ["retain_graph", "create_graph"])
def test_backward_refuses_a_numpy_bool(tg, flag):
    y = (tg.ones(2, requires_grad=True) * 2).sum()
    with raises_exactly(tg, TypeError, "'numpy.bool' object cannot be interpreted as an integer"):
        y.backward(**{flag: np.bool_(True)})


def test_keepdim_refuses_a_numpy_bool(tg, x):
    with raises_exactly(tg, TypeError, "mean(): argument 'keepdim' must be bool, not numpy.bool"):
        x.mean(1, keepdim=np.bool_(True))


# -- complex numbers and huge ints --------------------------------------------------------------------
def test_clamp_to_a_complex_bound(tg, x):
    with raises_exactly(tg, RuntimeError, "value cannot be converted to type double without overflow"):
        x.clamp(max=complex(1, 1))


@pytest.mark.parametrize("operation", [lambda x: x - 2 ** 70, lambda x: x * 2 ** 70,
                                       lambda x: 2 ** 70 + x, lambda x: x.pow(2 ** 70),
                                       lambda x: x.add(2 ** 64), lambda x: x < 2 ** 70])
def test_an_int_too_big_for_a_scalar(tg, x, operation):
    with raises_exactly(tg, OverflowError, "int too big to convert"):
        operation(x)


def test_an_int_too_negative_for_a_scalar(tg, x):
    with raises_exactly(tg, OverflowError, "can't convert negative int to unsigned"):
        x + (-2 ** 63 - 1)


def test_the_largest_scalar_int(tg, x):
    assert show((x * (2 ** 64 - 1))[0, 0]) == "tensor(1.8447e+19)"


# -- zero-size and 0-d tensors ------------------------------------------------------------------------
def test_flip_of_a_0d_tensor_returns_it(tg):
    assert show(tg.tensor(1.0).flip(0)) == "tensor(1.)"
    assert show(tg.tensor(1.0).flip(-1)) == "tensor(1.)"


def test_flip_takes_dims_one_by_one(tg, x):
    assert show(x.flip(0, 1)) == show(x.flip((0, 1)))


def test_allclose_of_shapes_that_do_not_broadcast(tg, x):
    with raises_exactly(tg, RuntimeError, "The size of tensor a (0) must match the size of tensor "
                                          "b (2) at non-singleton dimension 1"):
        tg.allclose(tg.ones(2, 0), x)


def test_max_of_no_elements(tg):
    with raises_exactly(tg, RuntimeError, "amax(): Expected reduction dim to be specified for "
                                          "input.numel() == 0. Specify the reduction dim with the "
                                          "'dim' argument."):
        tg.amax(tg.ones(2, 0))
    with raises_exactly(tg, IndexError, "argmax(): Expected reduction dim 1 to have non-zero size."):
        tg.ones(2, 0).argmax(1)


def test_logsumexp_of_no_elements_is_minus_infinity(tg):
    assert show(tg.ones(2, 0).logsumexp(1)) == "tensor([-inf, -inf])"


def test_unbind_of_a_0d_tensor(tg):
    with raises_exactly(tg, IndexError, "Dimension specified as 0 but tensor has no dimensions"):
        tg.tensor(1.0).unbind()


# -- roll ---------------------------------------------------------------------------------------------
def test_roll(tg):
    m = tg.arange(6.0).view(3, 2)
    assert show(m.roll(1)) == "tensor([[5., 0.],\n        [1., 2.],\n        [3., 4.]])"
    assert show(tg.roll(m, (1, -1), (0, 1))) == "tensor([[5., 4.],\n        [1., 0.],\n        [3., 2.]])"
    assert show(tg.tensor(1.0).roll(1)) == "tensor(1.)"


def test_roll_backward(tg):
    w = tg.arange(3.0, requires_grad=True)
    y = w.roll(1, 0)
    (y * tg.arange(3.0)).sum().backward()
    assert show(y.grad_fn) == "<RollBackward0 object at 0x…>"
    assert show(w.grad) == "tensor([1., 2., 0.])"


@pytest.mark.parametrize("call, error, text", [
    (lambda t: t.roll(()), RuntimeError, "`shifts` required"),
    (lambda t: t.roll((1, 2), 0), RuntimeError, "shifts and dimensions must align. shifts: 2, dims:1"),
    (lambda t: t.roll(1, 5), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda t: t.roll(1.5), TypeError, "roll(): argument 'shifts' (position 1) must be tuple of ints, not float")])
def test_roll_refuses(tg, x, call, error, text):
    with raises_exactly(tg, error, text):
        call(x)


# -- nn.DataParallel without GPUs ---------------------------------------------------------------------
def test_data_parallel_runs_its_module(tg, x):
    tg.manual_seed(0)
    linear = tg.nn.Linear(2, 1)
    net = tg.nn.DataParallel(linear)
    assert net.module is linear
    assert net.device_ids == []
    assert show(net(x)) == show(linear(x))
    assert sorted(net.state_dict()) == ["module.bias", "module.weight"]
    assert show(net) == ("DataParallel(\n  (module): Linear(in_features=2, out_features=1, "
                         "bias=True)\n)")


def test_data_parallel_passes_its_module_errors_on(tg, x):
    net = tg.nn.DataParallel(tg.nn.Linear(3, 1))
    with raises_exactly(tg, RuntimeError, "mat1 and mat2 shapes cannot be multiplied (3x2 and 3x1)"):
        net(x)
