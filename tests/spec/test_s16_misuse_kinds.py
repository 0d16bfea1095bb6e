"""PyTorch's behaviour where the last of an outside attacker's findings (session 15's set of
10,072 cases, issue 29) still differed after session 15: a function PyTorch writes in C that
takes no arguments, given some; a tensor of a NumPy integer dtype tensorgrad has not (int8,
uint8, int16, int32, uint16, uint32, uint64); index_select's out-of-range texts; Adam's step with betas edited
into its group; add's alpha times a narrower tensor; `copy.deepcopy` of a tensor
that is not a leaf; a complex number where PyTorch's kernel has no complex version. Each runs on both libraries (PyTorch 2.13.0,
measured).
"""

import copy

import numpy as np
import pytest

from .conftest import raises_exactly, show, warns_exactly


# -- a function that takes no arguments, given some ------------------------------------------------
@pytest.mark.parametrize("name", ["is_grad_enabled", "get_default_dtype"])
@pytest.mark.parametrize("args, kwargs, text", [
    ((True,), {}, "tensorgrad.{name}() takes no arguments (1 given)"),
    ((1, 2), {}, "tensorgrad.{name}() takes no arguments (2 given)"),
    ((), {"enabled": True}, "tensorgrad.{name}() takes no keyword arguments"),
    ((1,), {"mode": 2}, "tensorgrad.{name}() takes no keyword arguments"),
])
def test_a_function_without_parameters_given_arguments_says_so_in_pytorchs_words(
        tg, name, args, kwargs, text):
    with raises_exactly(tg, TypeError, text.format(name=name)):
        getattr(tg, name)(*args, **kwargs)


@pytest.mark.parametrize("name", ["is_grad_enabled", "get_default_dtype"])
def test_a_function_without_parameters_still_answers(tg, name):
    assert getattr(tg, name)() in (True, tg.float32)


# -- a tensor of a NumPy integer dtype tensorgrad has not -------------------------------------------
NARROW = ["int8", "uint8", "int16", "int32", "uint16", "uint32", "uint64"]


ARRAYS = [lambda tg, w: tg.tensor(np.array([1, 2], dtype=w)),
          lambda tg, w: tg.as_tensor(np.array([1, 2], dtype=w)),
          lambda tg, w: tg.from_numpy(np.array([1, 2], dtype=w))]
SCALARS = [lambda tg, w: tg.tensor(np.dtype(w).type(1)),  # (a NumPy uint64 scalar is refused by
           lambda tg, w: tg.tensor([np.dtype(w).type(1)]),  # both: "an integer is required")
           lambda tg, w: tg.tensor([[np.dtype(w).type(1)], [np.dtype(w).type(2)]])]


@pytest.mark.parametrize("make, width", [(make, width) for make in ARRAYS for width in NARROW]
                         + [(make, width) for make in SCALARS for width in NARROW[:-1]])
def test_a_tensor_of_an_integer_dtype_tensorgrad_has_not_is_refused_not_widened(tg, make, width):
    """PyTorch makes a tensor of that dtype (and refuses it later where it takes only int64: as an
    index, `x[torch.tensor([np.int8(-1)])]`, as a target); tensorgrad, whose one integer dtype is
    int64, refuses to make it, as it refuses float16, rather than widening it to int64, which
    would then succeed where PyTorch refuses (or index otherwise: a uint8 index is a mask)."""
    if tg.__name__ == "torch":
        assert make(tg, width).dtype == getattr(tg, width)
        return
    advice = ". Convert the array first, for example with array.astype(np.int64)."
    with raises_exactly(tg, TypeError, "tensorgrad supports the dtypes float32, float64, int64 "
                                       f"and bool, not NumPy's {width}{advice}"):
        make(tg, width)


@pytest.mark.parametrize("make", [
    lambda tg: tg.tensor([1, 2])[tg.tensor([np.int8(1)])],
    lambda tg: tg.tensor([1, 2])[tg.as_tensor(np.array([1], dtype=np.int16))],
])
def test_an_index_of_an_integer_dtype_other_than_int64_and_int32_is_refused(tg, make):
    with pytest.raises((IndexError, TypeError)):
        make(tg)


@pytest.mark.parametrize("code, text", [
    ("tg.tensor(np.array([1], dtype=np.int32), dtype=tg.int64)", "tensor([1])"),
    ("tg.tensor(np.array([1], dtype=np.int8), dtype=tg.float32)", "tensor([1.])"),
    ("tg.as_tensor(np.array([1], dtype=np.int16), dtype=tg.int64)", "tensor([1])"),
    ("tg.tensor([np.int16(1)], dtype=tg.int64)", "tensor([1])"),
    ("tg.tensor([np.int32(1), 2])", "tensor([1, 2])"),
    ("tg.tensor([np.int8(1), 2.5])", "tensor([1.0000, 2.5000])"),
    ("tg.tensor([[1, 2]]).new_tensor(np.array([1], dtype=np.int32))", "tensor([1])"),
    ("tg.Tensor(np.array([1, 2], dtype=np.int32))", "tensor([1., 2.])"),
    ("tg.tensor([1., 2., 3.]) + np.array([1, 2, 3], dtype=np.int32)",
     "tensor([2., 4., 6.], dtype=tensorgrad.float64)"),
    ("tg.tensor([1, 2, 3]) + np.array([1, 2, 3], dtype=np.int8)", "tensor([2, 4, 6])"),
    ("tg.tensor([1., 2., 3.]) == np.array([1, 0, 3], dtype=np.int32)",
     "tensor([ True, False,  True])"),
    ("tg.tensor([1., 2., 3.])[np.array([2, 0], dtype=np.int16)]", "tensor([3., 1.])"),
    ("tg.tensor([1., 2., 3.])[np.array([2, 0], dtype=np.int32)]", "tensor([3., 1.])"),
    ("tg.tensor([1., 2., 3.]) * np.int32(2)", "tensor([2., 4., 6.])"),
])
def test_integer_data_of_another_width_asked_for_as_a_dtype_tensorgrad_has_or_used_as_an_operand(
        tg, code, text):
    """Where the result has a dtype tensorgrad has (one asked for, or one an operation computes),
    NumPy's other integer widths are taken as in PyTorch."""
    assert show(eval(code, {"tg": tg, "np": np})) == text


BYTE_INDEX = ("indexing with dtype tensorgrad.uint8 is now deprecated, please use a dtype "
              "tensorgrad.bool instead.")


@pytest.mark.parametrize("code, text", [
    ("x[np.array([1, 0], dtype=np.uint8)]", "tensor([[ 1., -2.,  3.]])"),
    ("x[np.array([1, 2], dtype=np.uint8)]", "tensor([[ 1., -2.,  3.],\n        [ 4.,  5., -6.]])"),
    ("x[[np.uint8(0), np.uint8(1)]]", "tensor([[ 4.,  5., -6.]])"),
    ("x[:, np.array([1, 0, 1], dtype=np.uint8)]", "tensor([[ 1.,  3.],\n        [ 4., -6.]])"),
])
def test_a_numpy_uint8_index_is_a_mask_as_in_pytorch(tg, code, text):
    x = tg.tensor([[1., -2., 3.], [4., 5., -6.]])
    with warns_exactly(tg, UserWarning, BYTE_INDEX):
        result = eval(code, {"x": x, "np": np})
    assert show(result) == text


def test_a_numpy_uint8_index_of_the_wrong_shape_is_refused_as_a_mask(tg):
    x = tg.tensor([[1., -2., 3.], [4., 5., -6.]])
    with raises_exactly(tg, IndexError, "The shape of the mask [3] at index 0 does not match the "
                                        "shape of the indexed tensor [2, 3] at index 0"):
        x[np.array([1, 0, 1], dtype=np.uint8)]


@pytest.mark.parametrize("value", [0, "tg.tensor(5.)", "tg.tensor([5.])"])
def test_a_number_written_through_a_numpy_uint8_mask_is_refused_by_masked_fill(tg, value):
    x = tg.tensor([1., 2., 3.])
    with raises_exactly(tg, RuntimeError, "masked_fill_ only supports boolean masks, but got mask "
                                          "with dtype unsigned char"):
        x[np.array([1, 0, 1], dtype=np.uint8)] = eval(str(value), {"tg": tg})


def test_values_written_through_a_numpy_uint8_mask(tg):
    x = tg.tensor([1., 2., 3.])
    with warns_exactly(tg, UserWarning, BYTE_INDEX):
        x[np.array([1, 0, 1], dtype=np.uint8)] = tg.tensor([5., 6.])
    assert show(x) == "tensor([5., 2., 6.])"


# -- index_select out of range: PyTorch's CPU kernels word it by dim (measured) --------------------
IN_SELF = "index out of range in self"


@pytest.mark.parametrize("shape, dim, index, error, text", [
    ((2,), 0, [5], IndexError, IN_SELF),  # a vector: its one loop
    ((2,), -1, [-1], IndexError, IN_SELF),
    ((0,), 0, [0], IndexError, IN_SELF),
    ((2, 3), 0, [2], IndexError, IN_SELF),  # dim 0, or a last dim beyond 1: the slice loop
    ((2, 3), -2, [-1], IndexError, IN_SELF),
    ((2, 3, 4), 2, [4], IndexError, IN_SELF),
    ((2, 3, 4, 5), 3, [5], IndexError, IN_SELF),
    ((2, 3), 1, [5], RuntimeError, "INDICES element is out of DATA bounds, id=5 axis_dim=3"),
    ((2, 3, 4), 1, [0, 3, 9], RuntimeError, "INDICES element is out of DATA bounds, id=3 axis_dim=3"),
    ((2, 3, 4, 5), -3, [-1], RuntimeError, "INDICES element is out of DATA bounds, id=-1 axis_dim=3"),
    ((3, 0), 0, [3], RuntimeError, "INDICES element is out of DATA bounds, id=3 axis_dim=3"),
    ((2, 0, 3), 0, [5], RuntimeError, "INDICES element is out of DATA bounds, id=5 axis_dim=2"),
    ((0, 3), 0, [0], RuntimeError, "index_select(): self indexing axis dim should be positive"),
    ((2, 0, 3), 1, [0], RuntimeError, "index_select(): self indexing axis dim should be positive"),
])
def test_index_select_out_of_range_in_pytorchs_words_for_each_dim(tg, shape, dim, index, error,
                                                                 text):
    with raises_exactly(tg, error, text):
        tg.ones(shape).index_select(dim, tg.tensor(index))


def test_index_select_of_a_transposed_matrix_along_dim_0(tg):
    with raises_exactly(tg, IndexError, IN_SELF):
        tg.ones(2, 3).t().index_select(0, tg.tensor([5]))


def test_index_select_of_an_empty_tensor_with_no_positions_is_empty(tg):
    assert tg.zeros(0, 3).index_select(0, tg.tensor([], dtype=tg.int64)).shape == (0, 3)
    assert tg.zeros(0, 3).index_select(1, tg.tensor([0, 2])).shape == (0, 2)


# -- Adam's step with betas edited into its group: computed as PyTorch's step computes them ---------
BOOL_SUBTRACTION = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                    "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _adam_step(tg, betas):
    w = tg.tensor([1., 2., 3.], requires_grad=True)
    optimizer = tg.optim.Adam([w])
    optimizer.param_groups[0]["betas"] = betas(tg)
    (w ** 2).sum().backward()
    optimizer.step()
    return w


@pytest.mark.parametrize("betas", [
    lambda tg: (0.9, tg.tensor(True)),  # 1 - beta2, of the tensor
    lambda tg: (tg.tensor(0.5), tg.tensor(True)),
])
def test_adam_refuses_a_bool_tensor_beta2_at_its_subtraction(tg, betas):
    with raises_exactly(tg, RuntimeError, BOOL_SUBTRACTION):
        _adam_step(tg, betas)


@pytest.mark.parametrize("betas", [
    lambda tg: (tg.tensor(True), 0.9),  # 1 - beta1 ** step is a tensor: lr / 0 is inf, not an error
    lambda tg: (tg.tensor(1.), 0.9),
    lambda tg: (np.bool_(True), 0.9),
    lambda tg: (0.9, 1.0),
])
def test_adam_with_a_first_beta_of_one_as_a_tensor_gives_nan(tg, betas):
    assert show(_adam_step(tg, betas)) == "tensor([nan, nan, nan], requires_grad=True)"


@pytest.mark.parametrize("betas", [lambda tg: (1.0, 0.9), lambda tg: (True, 0.9)])
def test_adam_with_a_first_beta_of_one_as_a_number_divides_by_zero_in_python(tg, betas):
    with raises_exactly(tg, ZeroDivisionError, "float division by zero"):
        _adam_step(tg, betas)


def test_adam_with_tensor_betas_steps_as_with_numbers(tg):
    assert show(_adam_step(tg, lambda tg: (tg.tensor(0.5), tg.tensor(0.8)))) == \
        show(_adam_step(tg, lambda tg: (0.5, 0.8))) == \
        "tensor([0.9990, 1.9990, 2.9990], requires_grad=True)"


# -- add's alpha: alpha·other computed in the result's dtype ----------------------------------------
@pytest.mark.parametrize("code, text", [
    ("x.double().add(v, alpha=1e308)", "tensor([1.0000e+308,         inf,         inf], "
                                       "dtype=tensorgrad.float64)"),
    ("x.double().sub(v, alpha=1e308)", "tensor([-1.0000e+308,         -inf,         -inf], "
                                       "dtype=tensorgrad.float64)"),
    ("x.double().add(v, alpha=1e39)", "tensor([1.0000e+39, 2.0000e+39, 3.0000e+39], "
                                      "dtype=tensorgrad.float64)"),
    ("x.double().add(tg.tensor([1, 2, 3]), alpha=1e308)",
     "tensor([1.0000e+308,         inf,         inf], dtype=tensorgrad.float64)"),
    ("x.double().add(tg.tensor(1.), alpha=1e308)",
     "tensor([1.0000e+308, 1.0000e+308, 1.0000e+308], dtype=tensorgrad.float64)"),
    ("tg.add(x.double(), v, alpha=1e308)", "tensor([1.0000e+308,         inf,         inf], "
                                           "dtype=tensorgrad.float64)"),
    ("x.double().add_(v, alpha=1e308)", "tensor([1.0000e+308,         inf,         inf], "
                                        "dtype=tensorgrad.float64)"),
    ("x.add(tg.tensor([1, 2, 3]), alpha=2.5)", "tensor([2.5000, 5.0000, 7.5000])"),
])
def test_alpha_times_other_is_computed_in_the_results_dtype(tg, code, text):
    namespace = {"tg": tg, "x": tg.zeros(3), "v": tg.tensor([1., 2., 3.])}
    assert show(eval(code, namespace)) == text


# -- copy.deepcopy of a tensor that is not a leaf ---------------------------------------------------
DEEPCOPY = ("Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
            "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
            "tensorgrad.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")


@pytest.mark.parametrize("make", [
    lambda w: w * 2,
    lambda w: [w * 2],
    lambda w: w[0],  # (a view of a leaf that requires grad: not a leaf)
    lambda w: {"out": w.exp()},
])
def test_deepcopy_of_a_tensor_that_is_not_a_leaf_is_refused(tg, make):
    w = tg.tensor([1., 2.], requires_grad=True)
    value = make(w)
    with raises_exactly(tg, RuntimeError, DEEPCOPY):
        copy.deepcopy(value)


def test_deepcopy_of_leaves_copies(tg):
    w = tg.tensor([1., 2.], requires_grad=True)
    (w * 2).sum().backward()
    w2 = copy.deepcopy(w)
    assert show(w2) == "tensor([1., 2.], requires_grad=True)" and show(w2.grad) == "tensor([2., 2.])"
    assert w2 is not w and w2.grad is not w.grad
    assert show(copy.deepcopy((w * 2).detach())) == "tensor([2., 4.])"
    with tg.no_grad():
        assert show(copy.deepcopy(w * 2)) == "tensor([2., 4.])"
    model = tg.nn.Linear(2, 2)
    assert type(copy.deepcopy(model).weight) is tg.nn.Parameter


# -- a complex number where PyTorch's kernel has no complex version ---------------------------------
@pytest.mark.parametrize("tensor, dtype", [
    ("tg.tensor([1., -2., 3.])", "ComplexFloat"), ("tg.tensor([1, 2, 3])", "ComplexFloat"),
    ("tg.tensor([True, False, True])", "ComplexFloat"),
    ("tg.tensor([1., 2.], dtype=tg.float64)", "ComplexDouble")])
@pytest.mark.parametrize("code, kernel", [
    ("a < c", "lt_cpu"), ("a <= c", "le_cpu"), ("a > c", "gt_cpu"), ("c < a", "gt_cpu"),
    ("a >= c", "ge_cpu"), ("tg.lt(a, c)", "lt_cpu"), ("a.ge(c)", "ge_cpu"),
    ("a // c", "div_floor_cpu"), ("c // a", "div_floor_cpu"), ("a.floor_divide(c)", "div_floor_cpu"),
    ("a.div(c, rounding_mode='floor')", "div_floor_cpu"),
    ("a.div(c, rounding_mode='trunc')", "div_trunc_cpu"),
    ("a % c", "remainder_cpu"), ("c % a", "remainder_cpu"), ("tg.remainder(a, c)", "remainder_cpu"),
    ("a & c", "bitwise_and_cpu"), ("a | c", "bitwise_or_cpu"), ("a ^ c", "bitwise_xor_cpu"),
    ("a << c", "lshift_cpu"), ("c >> a", "rshift_cpu"), ("a.bitwise_and(c)", "bitwise_and_cpu"),
    ("tg.bitwise_left_shift(a, c)", "lshift_cpu"),
])
@pytest.mark.parametrize("number", ["1j", "(2+0j)"])
def test_a_complex_number_where_the_kernel_has_no_complex_version(tg, tensor, dtype, code, kernel,
                                                                  number):
    namespace = {"tg": tg, "a": eval(tensor, {"tg": tg}), "c": eval(number)}
    with raises_exactly(tg, NotImplementedError, f"\"{kernel}\" not implemented for '{dtype}'"):
        eval(code, namespace)


@pytest.mark.parametrize("code", ["a.__ifloordiv__(c)", "a.__imod__(c)", "a.__ipow__(c)"])
def test_a_complex_number_into_a_real_tensor_in_place_is_refused_at_the_cast(tg, code):
    namespace = {"a": tg.tensor([1., -2., 3.]), "c": 1j}
    with raises_exactly(tg, RuntimeError, "result type ComplexFloat can't be cast to the desired "
                                          "output type Float"):
        eval(code, namespace)


# -- inference mode: deliberately absent (docs/library.md, "Not supported") -------------------------
@pytest.mark.parametrize("name", ["inference_mode", "is_inference_mode_enabled"])
def test_inference_mode_is_absent_rather_than_half_there(tg, name):
    """PyTorch's inference tensors are refused later (saved for backward, changed in place
    outside the mode); a tensorgrad that only switched gradients off would let those through."""
    if tg.__name__ == "torch":
        assert callable(getattr(tg, name)) and tg.ones(1).is_inference() is False
        return
    with raises_exactly(tg, AttributeError, f"module 'tensorgrad' has no attribute '{name}'"):
        getattr(tg, name)
    assert not hasattr(tg.ones(1), "is_inference")


@pytest.mark.parametrize("code, text", [
    ("a == 1j", "tensor([False, False, False])"),
    ("a == (1+0j)", "tensor([ True, False, False])"),
    ("(3+0j) == a", "tensor([False, False,  True])"),
    ("a != (1+0j)", "tensor([False,  True,  True])"),
    ("a.eq(complex(3, 1e-9))", "tensor([False, False, False])"),
    ("tg.eq(a, 3+0j)", "tensor([False, False,  True])"),
    ("tg.ne(a.double(), -2+0j)", "tensor([ True, False,  True])"),
    ("a.long().eq(1+0j)", "tensor([ True, False, False])"),
    ("(a > 0) == (1+0j)", "tensor([ True, False,  True])"),
])
def test_equality_with_a_complex_number_is_computed(tg, code, text):
    """PyTorch compares in complex and gives a bool tensor, which tensorgrad has."""
    assert show(eval(code, {"tg": tg, "a": tg.tensor([1., -2., 3.])})) == text



@pytest.mark.parametrize("code, text", [
    ("t.all(x=1)", "all() received an invalid combination of arguments - got (x=int, ), but "
                   "expected one of:\n * ()\n      didn't match because some of the keywords were "
                   "incorrect: x\n * (tuple of ints dim = None, bool keepdim = False)\n"
                   " * (int dim, bool keepdim = False)\n"),
    ("t.max(1, x=1)", "max() got an unexpected keyword argument 'x'"),
])
def test_a_call_that_fits_no_overload_names_its_keywords_as_given(tg, code, text):
    """(NumPy's `x=` is read as `input=` to find an overload; refused, it is named as given.)"""
    with raises_exactly(tg, TypeError, text):
        eval(code, {"t": tg.ones(2, 3)})
