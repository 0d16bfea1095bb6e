"""PyTorch's behaviour where a learner's code meets NumPy (issue 29, an outside attacker's kinds):
floating-point overflow and division by zero under `warnings.simplefilter("always")`, NumPy arrays
and ufuncs with a tensor, nested lists and NumPy bools as indices, and numbers that are not bools
as backward's flags. Each kind run on both libraries (PyTorch 2.13.0, measured).
"""

import operator

import numpy as np
import pytest

from .conftest import no_warnings, raises_exactly, record_warnings, show


# -- NumPy's floating-point warnings: PyTorch computes inf and nan silently -----------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.exp(tg.tensor([1000.0])), "tensor([inf])"),
    (lambda tg: tg.tensor([1000.0]).exp(), "tensor([inf])"),
    (lambda tg: tg.log(tg.tensor([-1.0, 0.0])), "tensor([nan, -inf])"),
    (lambda tg: tg.tensor([1.0]) / 0, "tensor([inf])"),
    (lambda tg: tg.tensor([0.0]) / tg.tensor([0.0]), "tensor([nan])"),
    (lambda tg: tg.tensor([float("inf")]) * 0, "tensor([nan])"),
    (lambda tg: tg.tensor([3e38]) * tg.tensor([10.0]), "tensor([inf])"),
    (lambda tg: tg.tensor([1.0, 0.0]).reciprocal(), "tensor([1., inf])"),
    (lambda tg: tg.tensor([[1000.0]]) @ tg.tensor([[3e38]]), "tensor([[inf]])"),
    (lambda tg: tg.tensor([3e38, 3e38]).sum(), "tensor(inf)"),
])
def test_overflow_and_division_by_zero_do_not_warn_under_always(tg, call, text):
    with no_warnings(tg):
        assert show(call(tg)) == text


def test_backward_through_an_overflow_does_not_warn_under_always(tg):
    x = tg.tensor([1000.0, 0.0], requires_grad=True)
    with no_warnings(tg):
        (tg.exp(x) * tg.log(x)).sum().backward()
    assert show(x.grad) == "tensor([inf, nan])"


def test_the_learners_own_numpy_still_warns(tg):
    tg.exp(tg.tensor([1000.0]))
    with record_warnings(tg) as log:
        np.exp(np.array([1000.0]))
    assert log.messages(RuntimeWarning) == ["overflow encountered in exp"]


# -- NumPy arrays and ufuncs with a tensor ----------------------------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda a: a + np.ones(3), "tensor([2., 3., 4.], dtype=tensorgrad.float64)"),
    (lambda a: a * np.array(2.0), "tensor([2., 4., 6.], dtype=tensorgrad.float64)"),
    (lambda a: np.exp(a), "tensor([ 2.7183,  7.3891, 20.0855])"),
    (lambda a: np.add(a, a), "tensor([2., 4., 6.])"),
    (lambda a: a * np.float64(2), "tensor([2., 4., 6.])"),
    (lambda a: np.float64(2) * a, "tensor([2., 4., 6.])"),
    (lambda a: np.int64(2) * a, "tensor([2., 4., 6.])"),
])
def test_numpy_arrays_and_ufuncs_give_a_tensor(tg, call, text):
    a = tg.tensor([1.0, 2.0, 3.0])
    assert show(call(a)) == text


def test_asarray_shares_a_tensors_memory(tg):
    a = tg.tensor([1.0, 2.0, 3.0])
    array = np.asarray(a)
    array[0] = 5.0
    assert array.dtype == np.float32 and show(a) == "tensor([5., 2., 3.])"


NUMPY_REQUIRES_GRAD = ("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                       "instead.")


@pytest.mark.parametrize("call", [
    lambda r: np.asarray(r), lambda r: np.exp(r), lambda r: r + np.ones(3)])
def test_numpy_on_a_tensor_that_requires_grad_is_refused(tg, call):
    r = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with raises_exactly(tg, RuntimeError, NUMPY_REQUIRES_GRAD):
        call(r)


def test_a_numpy_number_times_a_tensor_that_requires_grad_is_recorded(tg):
    r = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert show(np.float64(2) * r) == "tensor([2., 4., 6.], grad_fn=<MulBackward0>)"


@pytest.mark.parametrize("call", [lambda a: np.ones(3) + a, lambda a: np.array(2.0) + a])
def test_an_array_on_the_left_of_plus_is_numpys_error(tg, call):
    with raises_exactly(tg, TypeError, (
            "Concatenation operation is not implemented for NumPy arrays, use np.concatenate() "
            "instead. Please do not rely on this error; it may not be given on all Python "
            "implementations.")):
        call(tg.tensor([1.0, 2.0, 3.0]))


# -- nested lists and NumPy bools as indices --------------------------------------------------------
NON_TUPLE = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
             "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this "
             "will be interpreted as tensor index, x[tensorgrad.tensor(seq)], which will result either "
             "in an error or a different result")


@pytest.mark.parametrize("index, text", [
    ([[0, 1]], "tensor([[0., 1., 2.],\n        [3., 4., 5.]])"),
    ([0, [1]], "tensor([1.])"),
    ([[0], [1]], "tensor([1.])"),
    ([[0, 1], [1, 2]], "tensor([1., 5.])"),
])
def test_a_list_holding_a_sequence_is_a_tuple_of_indices(tg, index, text):
    x = tg.arange(6.0).reshape(2, 3)
    with record_warnings(tg) as log:
        assert show(x[index]) == text
    assert log.messages(UserWarning) == [NON_TUPLE]


def test_a_flat_list_is_one_index_without_warning(tg):
    x = tg.arange(6.0).reshape(2, 3)
    with no_warnings(tg):
        assert show(x[[1, 0]]) == "tensor([[3., 4., 5.],\n        [0., 1., 2.]])"


@pytest.mark.parametrize("index", [np.bool_(True), np.bool_(False), (0, np.bool_(True))])
def test_a_numpy_bool_is_not_an_index(tg, index):
    x = tg.arange(6.0).reshape(2, 3)
    with raises_exactly(tg, IndexError, (
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
            "valid indices (got numpy.bool)")):
        x[index]


# -- backward's flags: a number where a bool goes ---------------------------------------------------
def _backward(tg, **flags):
    leaf = tg.ones(3, requires_grad=True)
    (leaf * 2).sum().backward(**flags)
    return leaf


def _grad(tg, **flags):
    leaf = tg.ones(3, requires_grad=True)
    return tg.autograd.grad((leaf * 2).sum(), leaf, **flags)


@pytest.mark.parametrize("run", [_backward, _grad])
@pytest.mark.parametrize("flags, error, text", [
    ({"retain_graph": -1}, OverflowError, "unsigned byte integer is less than minimum"),
    ({"retain_graph": 256}, OverflowError, "unsigned byte integer is greater than maximum"),
    ({"create_graph": 2 ** 70}, OverflowError, "Python int too large to convert to C long"),
    ({"retain_graph": 2.0}, TypeError, "'float' object cannot be interpreted as an integer"),
    ({"create_graph": "a"}, TypeError, "'str' object cannot be interpreted as an integer"),
])
def test_a_flag_that_no_byte_holds_is_refused(tg, run, flags, error, text):
    with raises_exactly(tg, error, text):
        run(tg, **flags)


@pytest.mark.parametrize("run", [_backward, _grad])
def test_a_small_int_is_a_flag(tg, run):
    assert show(_grad(tg, retain_graph=0, create_graph=2)[0]) == "tensor([2., 2., 2.])"


# -- //=, %= and **= are in place, as += is -----------------------------------------------------------
AUGMENTED = {"//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow}  # `a //= b` is
# `a = operator.ifloordiv(a, b)`


@pytest.mark.parametrize("name, text", [
    ("//=", "tensor([0, 1, 1])"), ("%=", "tensor([1, 0, 1])"), ("**=", "tensor([1, 4, 9])")])
def test_augmented_operators_change_the_tensor_itself(tg, name, text):
    a = tg.tensor([1, 2, 3])
    assert AUGMENTED[name](a, 2) is a
    assert show(a) == text


@pytest.mark.parametrize("name", ["//=", "%=", "**="])
def test_augmented_operators_on_a_leaf_that_requires_grad_are_refused(tg, name):
    a = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with raises_exactly(tg, RuntimeError,
                        "a leaf Variable that requires grad is being used in an in-place operation."):
        AUGMENTED[name](a, 2)


def test_floor_division_in_place_keeps_the_int_dtype(tg):
    a = tg.tensor([1, 2, 3])
    with raises_exactly(tg, RuntimeError,
                        "result type Float can't be cast to the desired output type Long"):
        a //= 2.5


def test_power_in_place_does_not_grow_the_tensor(tg):
    a = tg.tensor(2.0)
    with raises_exactly(tg, RuntimeError,
                        "output with shape [] doesn't match the broadcast shape [2, 3]"):
        a **= tg.ones(2, 3)


# -- copy_ from a source that would have to grow the tensor ------------------------------------------
@pytest.mark.parametrize("shape, source, text", [
    ((3,), (2, 3), "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ((), (2,), "output with shape [] doesn't match the broadcast shape [2]"),
])
def test_copy_does_not_grow_the_tensor(tg, shape, source, text):
    with raises_exactly(tg, RuntimeError, text):
        tg.ones(shape).copy_(tg.ones(source))


# -- a fill value the dtype cannot hold ---------------------------------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.full((2,), 1e308), "float"),
    (lambda tg: tg.full((2,), -1e39), "float"),
    (lambda tg: tg.full_like(tg.ones(2), 1e308), "float"),
    (lambda tg: tg.full_like(tg.ones(2, dtype=tg.int64), float("nan")), "int64_t"),
    (lambda tg: tg.full((2,), float("nan"), dtype=tg.int64), "int64_t"),
    (lambda tg: tg.full((2,), 1e19, dtype=tg.int64), "int64_t"),
    (lambda tg: tg.ones(2).fill_(1e308), "float"),
    (lambda tg: tg.ones(2).__setitem__(0, -1e308), "float"),
])
def test_a_fill_value_that_does_not_fit_is_refused(tg, call, text):
    with raises_exactly(tg, RuntimeError, f"value cannot be converted to type {text} without overflow"):
        call(tg)


@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.full((2,), float("inf")), "tensor([inf, inf])"),
    (lambda tg: tg.full((2,), 1e308, dtype=tg.float64), "tensor([1.0000e+308, 1.0000e+308], dtype=tensorgrad.float64)"),
    (lambda tg: tg.full((2,), 3.5, dtype=tg.int64), "tensor([3, 3])"),
    (lambda tg: tg.full((2,), 5, dtype=tg.bool), "tensor([True, True])"),
])
def test_a_fill_value_that_fits_is_taken(tg, call, text):
    assert show(call(tg)) == text


def test_a_tensor_written_into_a_row_is_not_a_fill_value(tg):
    j = tg.zeros(2, 2)
    j[0] = tg.tensor([4.0, 3.0])
    assert show(j) == "tensor([[4., 3.],\n        [0., 0.]])"
