"""PyTorch's behaviour on more of the values learners pass (issue 29, second part): a bool where
std's and var's `unbiased` goes, keepdim with no dim, values that do not fit the tensor they are
written into, a float alpha for an integer result, the requires_grad flag and `.data` of a
non-leaf, the 0-norm, the size of a 0-d tensor. Each kind run on both libraries.
"""

import numpy as np
import pytest

from .conftest import raises_exactly, show


@pytest.fixture
def v(tg):
    return tg.tensor([1.0, 2.0, 3.0, 4.0])


@pytest.fixture
def a(tg):
    return tg.arange(6.0).reshape(2, 3)


@pytest.fixture
def i(tg):
    return tg.arange(6).reshape(2, 3)


# -- std and var: a bool in dim's place is `unbiased` -------------------------------------------
@pytest.mark.parametrize("name, unbiased, text", [
    ("std", False, "tensor(1.1180)"), ("std", True, "tensor(1.2910)"),
    ("var", False, "tensor(1.2500)"), ("var", True, "tensor(1.6667)")])
def test_unbiased_alone_positional_or_keyword(tg, v, name, unbiased, text):
    assert show(getattr(v, name)(unbiased)) == text
    assert show(getattr(v, name)(unbiased=unbiased)) == text
    assert show(getattr(tg, name)(v, unbiased)) == text


def test_unbiased_alone_on_a_matrix_reduces_everything(tg, a):
    assert show(a.std(False)) == "tensor(1.7078)"
    assert show(a.var(unbiased=False)) == "tensor(2.9167)"


def test_unbiased_with_a_dim_is_still_the_second_argument(tg, a):
    assert show(a.var(1, False)) == "tensor([0.6667, 0.6667])"


# -- keepdim with every dim ------------------------------------------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda a: a.sum(dim=None, keepdim=True), "tensor([[15.]])"),
    (lambda a: a.mean(dim=None, keepdim=True), "tensor([[2.5000]])"),
    (lambda a: a.argmax(keepdim=True), "tensor([[5]])"),
    (lambda a: a.argmin(dim=None, keepdim=True), "tensor([[0]])"),
    (lambda a: a.all(keepdim=True), "tensor([[False]])"),
    (lambda a: a.any(dim=None, keepdim=True), "tensor([[True]])"),
    (lambda a: a.sum(dim=None, keepdim=False), "tensor(15.)")])
def test_keepdim_without_a_dim_keeps_every_dim(tg, a, call, text):
    assert show(call(a)) == text


def test_sum_keepdim_without_a_dim_backward(tg):
    x = tg.ones(2, 3, requires_grad=True)
    x.sum(dim=None, keepdim=True).backward(tg.full((1, 1), 2.0))
    assert show(x.grad) == "tensor([[2., 2., 2.],\n        [2., 2., 2.]])"


# -- a Python number that does not fit the tensor it is written into -----------------------------
INT64_OVERFLOW = "value cannot be converted to type int64_t without overflow"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 1e19])
def test_fill_an_int_tensor_with_what_int64_cannot_hold(tg, i, value):
    with raises_exactly(tg, RuntimeError, INT64_OVERFLOW):
        i.fill_(value)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_assign_to_an_int_tensor_what_int64_cannot_hold(tg, i, value):
    with raises_exactly(tg, RuntimeError, INT64_OVERFLOW):
        i[0, 0] = value
    assert show(i[0, 0]) == "tensor(0)"


def test_an_int_beyond_int64_written_into_a_float_tensor(tg, v):
    with raises_exactly(tg, ValueError, "Overflow when unpacking long long"):
        v[0] = 2**70
    with raises_exactly(tg, OverflowError, "int too big to convert"):  # (fill_'s Scalar)
        v.fill_(2**70)


def test_a_float_written_into_an_int_tensor_is_truncated(tg, i):
    i[0, 0] = 2.7
    i[0, 1] = -2.7
    assert show(i[0]) == "tensor([ 2, -2,  2])"


# -- alpha -------------------------------------------------------------------------------------
FLOAT_ALPHA = "For integral input tensors, argument alpha must not be a floating point number."


@pytest.mark.parametrize("call", [lambda i: i.add(1, alpha=2.5), lambda i: i.sub(i, alpha=0.5),
                                  lambda i: i.add_(i, alpha=2.0)])
def test_a_float_alpha_for_an_integer_result(tg, i, call):
    with raises_exactly(tg, RuntimeError, FLOAT_ALPHA):
        call(i)


def test_a_float_alpha_for_a_floating_result(tg, i):
    assert show(i.add(1.0, alpha=2.5)) == "tensor([[2.5000, 3.5000, 4.5000],\n        [5.5000, 6.5000, 7.5000]])"
    assert show(i.add(i, alpha=2)) == "tensor([[ 0,  3,  6],\n        [ 9, 12, 15]])"


# -- requires_grad and .data of a non-leaf ----------------------------------------------------------
def test_the_requires_grad_attribute_of_a_non_leaf_cannot_be_set_at_all(tg):
    y = tg.tensor([1.0, 2.0], requires_grad=True) * 2
    with raises_exactly(tg, RuntimeError, "you can only change requires_grad flags of leaf variables."):
        y.requires_grad = True


def test_data_of_a_leaf_that_requires_grad_must_stay_floating(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    with raises_exactly(tg, RuntimeError, "data set to a tensor that requires gradients must be "
                                          "floating point or complex dtype"):
        x.data = tg.ones(2, dtype=tg.int64)
    x.data = tg.ones(2, dtype=tg.float64)
    assert show(x) == "tensor([1., 1.], dtype=tensorgrad.float64, requires_grad=True)"


# -- the 0-norm, and the size of a 0-d tensor -------------------------------------------------------
def test_the_zero_norm_counts_non_zero_values(tg):
    x = tg.tensor([[0.0, 1.0, -2.0], [3.0, 0.0, 4.0]], requires_grad=True)
    assert show(x.norm(p=0)) == "tensor(4., grad_fn=<LinalgVectorNormBackward0>)"
    assert show(x.norm(0, dim=1)) == "tensor([2., 2.], grad_fn=<LinalgVectorNormBackward0>)"
    x.norm(p=0).backward()
    assert x.grad is None


@pytest.mark.parametrize("dim", [0, -1, 1])
def test_size_of_a_dim_of_a_0d_tensor(tg, dim):
    with raises_exactly(tg, IndexError, f"Dimension specified as {dim} but tensor has no dimensions"):
        tg.tensor(2.0).size(dim)


# -- a number on the left of // and %; shapes that do not broadcast; a bool to a negative power ----
def test_a_number_floor_divided_or_remaindered_by_a_tensor(tg, a):
    assert show(2.5 // a) == "tensor([[inf, 2., 1.],\n        [0., 0., 0.]])"
    assert show(7 % (a + 1)) == "tensor([[0., 1., 1.],\n        [3., 2., 1.]])"


def test_where_meets_its_shapes_in_order(tg, a):
    with raises_exactly(tg, RuntimeError, "The size of tensor a (3) must match the size of tensor b "
                                          "(2) at non-singleton dimension 1"):
        tg.where(a > 2, tg.ones(3), tg.ones(2, 2))


def test_a_bool_tensor_to_a_negative_integer_power(tg):
    with raises_exactly(tg, RuntimeError, "Integers to negative integer powers are not allowed."):
        tg.tensor([True, False]) ** -1


def test_remainder_is_differentiable(tg):
    x = tg.tensor([2.0, -1.0, 4.0], requires_grad=True)
    y = x % 1.5
    assert show(y) == "tensor([0.5000, 0.5000, 1.0000], grad_fn=<RemainderBackward0>)"
    y.sum().backward()
    assert show(x.grad) == "tensor([1., 1., 1.])"
    b = tg.tensor([1.5, 1.5, 1.5], requires_grad=True)
    (tg.tensor([2.0, -1.0, 4.0]) % b).sum().backward()
    assert show(b.grad) == "tensor([-1.,  1., -2.])"


# -- NumPy's names for dim and keepdim; a number as the first operand -------------------------------
def test_numpy_names_for_dim_and_keepdim(tg, a):
    assert show(a.sum(axis=1)) == "tensor([ 3., 12.])"
    assert show(a.mean(axis=0, keepdims=True)) == "tensor([[1.5000, 2.5000, 3.5000]])"
    assert show(tg.sum(a, axis=0)) == "tensor([3., 5., 7.])"


def test_a_number_as_the_first_operand(tg, a):
    assert show(tg.mul(2, a)) == "tensor([[ 0.,  2.,  4.],\n        [ 6.,  8., 10.]])"
    assert show(tg.add(1, a)) == "tensor([[1., 2., 3.],\n        [4., 5., 6.]])"


def test_a_huge_int_in_a_tensor_of_a_floating_dtype(tg):
    assert show(tg.tensor(2**70, dtype=tg.float32)) == "tensor(1.1806e+21)"
    assert show(tg.tensor([1, 2**70], dtype=tg.float64)) == \
        "tensor([1.0000e+00, 1.1806e+21], dtype=tensorgrad.float64)"
    with raises_exactly(tg, ValueError, "Overflow when unpacking long long"):
        tg.tensor(2**70)


@pytest.mark.parametrize("value, name", [
    (np.float32(2), "numpy.float32"), (np.bool_(True), "numpy.bool"), (np.ones(3), "numpy.ndarray")])
def test_assign_a_numpy_value_that_is_not_a_python_number(tg, a, value, name):
    with raises_exactly(tg, TypeError, f"can't assign a {name} to a tensorgrad.FloatTensor"):
        a[0] = value


def test_assign_a_numpy_value_that_is_a_python_number_or_an_index(tg, a):
    a[0] = np.float64(2)
    a[1] = np.int64(3)
    assert show(a) == "tensor([[2., 2., 2.],\n        [3., 3., 3.]])"


# -- to(tensor=...): the third form of `to`, by keyword -------------------------------------------
@pytest.mark.parametrize("other, text", [
    (lambda tg: tg.arange(2), "tensor([1, 1])"),
    (lambda tg: tg.ones(1, dtype=tg.float64), "tensor([1., 1.], dtype=tensorgrad.float64)")])
def test_to_another_tensors_dtype_by_keyword(tg, other, text):
    assert show(tg.ones(2).to(tensor=other(tg))) == text


# -- binary_cross_entropy's range check: element by element, the input's value first ---------------
@pytest.mark.parametrize("input, target, which", [
    (lambda tg: tg.arange(6.0).reshape(2, 3), lambda tg: tg.ones(2, 3) * 2, "target"),
    (lambda tg: tg.arange(6.0).reshape(2, 3), lambda tg: tg.arange(6.0).reshape(2, 3), "input"),
    (lambda tg: tg.tensor([0.5, 2.0]), lambda tg: tg.tensor([3.0, 0.5]), "target")])
def test_bce_names_the_first_element_out_of_range(tg, input, target, which):
    with raises_exactly(tg, RuntimeError, f"all elements of {which} should be between 0 and 1"):
        tg.nn.functional.binary_cross_entropy(input(tg), target(tg))
