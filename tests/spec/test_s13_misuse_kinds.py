"""PyTorch's behaviour on the kinds of misuse an outside attacker's 28,072 cases still found
leaking or silently accepted (issue 29, session 13): NumPy bools and uint64s as numbers, NumPy
arrays PyTorch refuses, sizes and values that do not fit, flags and dims of the wrong kind, and a
few operators. Each kind is decided in one place (the checking layer, the operand check, the
array check, the allocation) and run here on both libraries (PyTorch 2.13.0, measured).
"""

import numpy as np
import pytest

from .conftest import no_warnings, raises_exactly, record_warnings, show

NP_TRUE = np.bool_(True)
UINT64_MAX = np.uint64(2 ** 64 - 1)


# -- a NumPy bool is a float number to PyTorch (its Scalar holds it as a double) -------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.tensor([1, 2]) + NP_TRUE, "tensor([2., 3.])"),
    (lambda tg: tg.tensor([1, 2]) - NP_TRUE, "tensor([0., 1.])"),
    (lambda tg: NP_TRUE * tg.tensor([1, 2]), "tensor([1., 2.])"),
    (lambda tg: tg.tensor([1]).add(NP_TRUE, alpha=2), "tensor([3.])"),
    (lambda tg: tg.full((2,), NP_TRUE), "tensor([1., 1.])"),
    (lambda tg: tg.where(tg.tensor([True]), tg.tensor([1]), NP_TRUE), "tensor([1.])"),
    (lambda tg: tg.tensor([1]) // np.bool_(False), "tensor([inf])"),
])
def test_a_numpy_bool_is_a_float_number(tg, call, text):
    assert show(call(tg)) == text


def test_a_numpy_bool_cannot_be_cast_into_an_integer_tensor_in_place(tg):
    a = tg.tensor([1, 2, 3])
    with raises_exactly(tg, RuntimeError, "result type Float can't be cast to the desired output "
                                          "type Long"):
        a *= NP_TRUE


def test_bitwise_operators_refuse_a_numpy_bool_as_a_float(tg):
    with raises_exactly(tg, NotImplementedError, "\"bitwise_and_cpu\" not implemented for 'Float'"):
        tg.tensor([True, False]) & NP_TRUE


# -- NumPy uint64 numbers beyond int64: PyTorch reads them as a C long long -------------------------
@pytest.mark.parametrize("call", [
    lambda tg: tg.ones(2).add_(UINT64_MAX),
    lambda tg: tg.ones(2).mul(UINT64_MAX),
    lambda tg: tg.full((2,), UINT64_MAX, dtype=tg.float32),
    lambda tg: tg.clamp(tg.ones(2), max=UINT64_MAX),
    lambda tg: tg.tensor(np.uint64(3)),
    lambda tg: tg.tensor([np.uint64(3)]),
])
def test_a_numpy_uint64_is_not_an_integer_pytorch_takes(tg, call):
    with raises_exactly(tg, TypeError, "an integer is required"):
        call(tg)


@pytest.mark.parametrize("call", [
    lambda tg: tg.tensor(UINT64_MAX, dtype=tg.int64),
    lambda tg: tg.tensor([UINT64_MAX, 1], dtype=tg.int64),
    lambda tg: tg.ones(3)[2 ** 63],
    lambda tg: tg.ones(3)[-2 ** 63 - 1],
    lambda tg: tg.manual_seed(2 ** 64),
])
def test_integers_beyond_64_bits_overflow_as_in_pytorch(tg, call):
    with raises_exactly(tg, ValueError, "Overflow when unpacking long long"):
        call(tg)


def test_a_small_numpy_uint64_with_a_dtype_is_taken(tg):
    assert show(tg.tensor(np.uint64(3), dtype=tg.int64)) == "tensor(3)"
    assert show(tg.ones(2).add_(np.uint64(3))) == "tensor([4., 4.])"


def test_a_negative_seed_is_its_unsigned_twin(tg):
    assert tg.manual_seed(-1).initial_seed() == 2 ** 64 - 1


# -- values that do not fit the dtype -----------------------------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.tensor([1e20, 1], dtype=tg.int64),
     "value cannot be converted to type int64 without overflow"),
    (lambda tg: tg.tensor(np.float64(1e308), dtype=tg.int64),
     "value cannot be converted to type int64 without overflow"),
    (lambda tg: tg.ones(2, dtype=tg.int64).new_tensor(-3.5e38),
     "value cannot be converted to type int64 without overflow"),
    (lambda tg: tg.linspace(0, 1e39, 3), "value cannot be converted to type float without overflow"),
    (lambda tg: tg.arange(2 ** 63), "value cannot be converted to type int64_t without overflow"),
    (lambda tg: tg.arange(0, 5, 2 ** 63), "value cannot be converted to type int64_t without overflow"),
    (lambda tg: tg.arange(1e308), "invalid size, possible overflow?"),
    (lambda tg: tg.arange(0, 3.5e38, 10 ** 17, dtype=tg.float32), "invalid size, possible overflow?"),
])
def test_values_that_do_not_fit_are_refused(tg, call, text):
    with raises_exactly(tg, RuntimeError, text):
        call(tg)


@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.full((2,), 2 ** 63, dtype=tg.bool), "tensor([True, True])"),
    (lambda tg: tg.full_like(tg.ones(2, dtype=tg.bool), 2 ** 63), "tensor([True, True])"),
    (lambda tg: tg.ones(2, dtype=tg.int64).add_(2 ** 63),
     "tensor([-9223372036854775807, -9223372036854775807])"),
    (lambda tg: tg.ones(2, dtype=tg.int64).mul_(2 ** 63),
     "tensor([-9223372036854775808, -9223372036854775808])"),
])
def test_a_uint64_sized_python_int_is_taken_as_pytorch_takes_it(tg, call, text):
    assert show(call(tg)) == text


# -- sizes beyond what memory counts or holds --------------------------------------------------------
@pytest.mark.parametrize("make", ["zeros", "ones", "empty", "rand", "randn"])
def test_a_size_whose_bytes_overflow_is_refused(tg, make):
    with raises_exactly(tg, RuntimeError,
                        "Storage size calculation overflowed with sizes=[4611686018427387904]"):
        getattr(tg, make)(2 ** 62)


def test_memory_the_machine_has_not_is_refused_in_pytorchs_words(tg):
    with raises_exactly(tg, RuntimeError,
                        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
                        "allocate memory: you tried to allocate 9223372036854775804 bytes. Error "
                        "code 12 (Cannot allocate memory)"):
        tg.zeros(2 ** 61 - 1, 4, dtype=tg.bool)


# -- NumPy arrays PyTorch does not make tensors of ------------------------------------------------
NUMPY_TYPE = ("can't convert np.ndarray of type {}. The only supported types are: float64, "
              "float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
              "uint16, uint8, and bool.")


@pytest.mark.parametrize("array, type_name", [
    (np.array([1, 2], dtype=object), "numpy.object_"),
    (np.array([2 ** 64]), "numpy.object_"),
    (np.array([2 ** 63]), "numpy.ulonglong"),
    (np.ones(3, dtype=np.longdouble), "numpy.longdouble"),
])
def test_arrays_of_types_pytorch_has_not_are_refused_whatever_dtype_is_asked(tg, array, type_name):
    with raises_exactly(tg, TypeError, NUMPY_TYPE.format(type_name)):
        tg.tensor(array, dtype=tg.float32)


@pytest.mark.parametrize("convert", [
    lambda tg, a: tg.from_numpy(a), lambda tg, a: tg.as_tensor(a),
    lambda tg, a: tg.tensor(a, dtype=tg.float32)])
def test_arrays_in_another_byte_order_or_with_negative_strides_are_refused(tg, convert):
    with raises_exactly(tg, ValueError, "given numpy array has byte order different from the "
                        "native byte order. Conversion between byte orders is currently not "
                        "supported."):
        convert(tg, np.ones(3, dtype=">f4"))
    with raises_exactly(tg, ValueError, "At least one stride in the given numpy array is negative, "
                        "and tensors with negative strides are not currently supported. (You can "
                        "probably work around this by making a copy of your array  with "
                        "array.copy().) "):
        convert(tg, np.ones(3, dtype=np.float32)[::-1])


def test_an_array_compares_with_a_tensor_as_a_tensor(tg):
    assert show(tg.ones(3) == np.array([1.0, 2.0, 3.0])) == "tensor([ True, False, False])"
    assert show(np.array([1.0, 2.0, 3.0]) == tg.ones(3)) == "tensor([ True, False, False])"
    assert (tg.ones(3) != np.ones(3)) is True  # (torch's `!=` does not take the array: identity)
    with raises_exactly(tg, RuntimeError, "The size of tensor a (3) must match the size of tensor "
                                          "b (2) at non-singleton dimension 0"):
        np.ones(2) == tg.ones(3)  # noqa: B015


# -- operators ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("other", [False, 0])
def test_integer_division_by_false_is_division_by_zero(tg, other):
    with raises_exactly(tg, RuntimeError, "ZeroDivisionError"):
        tg.tensor([1, 2]) // other
    with raises_exactly(tg, RuntimeError, "ZeroDivisionError"):
        tg.tensor([1, 2]) % other


def test_three_argument_pow_is_refused_in_pythons_words(tg):
    with raises_exactly(tg, TypeError, "unsupported operand type(s) for ** or pow(): 'Tensor', "
                                       "'int', 'int'"):
        pow(tg.tensor([1.0, 2.0]), 2, 3)


def test_unary_plus_refuses_a_bool_tensor(tg):
    with raises_exactly(tg, RuntimeError, "The `+` operator, on a bool tensor is not supported."):
        +tg.tensor([True])  # noqa: B018
    assert show(+tg.tensor([1.5])) == "tensor([1.5000])"


# -- arguments of the wrong kind -------------------------------------------------------------------
@pytest.mark.parametrize("value, text", [
    (2.5, "'float' object cannot be interpreted as an integer"),
    ("tensor", "only integer tensors of a single element can be converted to an index"),
    (np.array([1.0, 2.0]), "only integer scalar arrays can be converted to a scalar index"),
])
def test_backward_flags_are_refused_in_the_values_own_words(tg, value, text):
    if isinstance(value, str):
        value = tg.tensor(2.5)
    x = tg.ones(2, requires_grad=True)
    with raises_exactly(tg, TypeError, text):
        (x * 2).sum().backward(retain_graph=value)


@pytest.mark.parametrize("dim, type_name", [("3", "str"), (True, "bool"), (None, "NoneType"),
                                            ((3,), "tuple")])
def test_unflatten_checks_its_dim_as_tensor_unflatten(tg, dim, type_name):
    with raises_exactly(tg, TypeError, f"unflatten(): argument 'dim' (position 1) must be int, not "
                                       f"{type_name}"):
        tg.nn.Unflatten(dim, (3, 2))(tg.ones(2, 6))


@pytest.mark.parametrize("argnums, text", [
    (1.0, "argnums must be int or Tuple[int, ...], got: <class 'float'>"),
    ([0], "argnums must be int or Tuple[int, ...], got: <class 'list'>"),
    ((0, 1.0), "argnum must be int, got: <class 'float'>"),
    ((0, 0), "argnums elements must be unique, got (0, 0)"),
])
def test_func_grad_checks_argnums(tg, argnums, text):
    grad = tg.func.grad(lambda x, y: (x * y).sum(), argnums=argnums)
    with raises_exactly(tg, RuntimeError, text):
        grad(tg.tensor([1.0, 2.0]), tg.tensor([3.0, 4.0]))


@pytest.mark.parametrize("items, type_name", [([2.0], "float"), ([np.float64(2)], "numpy.float64"),
                                              ([2, "a"], "str")])
def test_size_takes_ints_only(tg, items, type_name):
    position = len(items) - 1
    with raises_exactly(tg, TypeError, f"tensorgrad.Size() takes an iterable of 'int' (item "
                                       f"{position} is '{type_name}')"):
        tg.Size(items)
    assert show(tg.Size([np.int64(2), tg.tensor(3), True])) == "tensorgrad.Size([2, 3, 1])"


# -- norm's dtype, and orders without an identity on empty tensors ---------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda t: t.norm(dtype=int),
     "linalg.vector_norm: dtype should be floating point or complex, but got Long"),
    (lambda t: t.norm(dtype=complex),
     "linalg.vector_norm: dtype should be real for real inputs, but got ComplexDouble"),
    (lambda t: t.long().norm(0, dtype=bool),
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda t: t[:0].norm(-3), "linalg.vector_norm cannot compute the -3 norm on an empty tensor "
                               "because the operation does not have an identity"),
    (lambda t: t[:0].norm(float("inf")), "linalg.vector_norm cannot compute the inf norm on an "
                                         "empty tensor because the operation does not have an "
                                         "identity"),
    (lambda t: t[:0].norm(-1, dim=0), "linalg.vector_norm cannot compute the -1 norm on the "
                                      "dimension 0because this dimension is empty and the "
                                      "operation does not have an identity"),
])
def test_norm_refuses_as_linalg_vector_norm(tg, call, text):
    with raises_exactly(tg, RuntimeError, text):
        call(tg.arange(6.0).reshape(2, 3))


def test_norm_computes_in_the_dtype_asked_for(tg):
    t = tg.arange(6.0).reshape(2, 3).requires_grad_()
    norm = t.norm(dtype=tg.float64)
    assert show(norm) == "tensor(7.4162, dtype=tensorgrad.float64, grad_fn=<LinalgVectorNormBackward0>)"
    norm.backward()
    assert t.grad.dtype == tg.float32
    assert show(tg.norm(t.detach(), 1, 1, dtype=tg.float64)) == \
        "tensor([ 3., 12.], dtype=tensorgrad.float64)"


@pytest.mark.parametrize("dim, text", [("a", "linalg_vector_norm(): argument 'dim' (position 3) "
                                              "must be tuple of ints, not str"),
                                       (np.array(0), "len() of unsized object"),
                                       (2.5, "object of type 'float' has no len()")])
def test_norms_dim_is_taken_as_torch_norm_takes_it(tg, dim, text):
    with raises_exactly(tg, TypeError, text):
        tg.norm(tg.arange(6.0).reshape(2, 3), dim=dim)


# -- t[index] = value: the value first, then the index (torch's order) -----------------------------
@pytest.mark.parametrize("index, value, error, text", [
    (3, "x", TypeError, "can't assign a str to a tensorgrad.FloatTensor"),
    ("a", None, TypeError, "can't assign a NoneType to a tensorgrad.FloatTensor"),
    (3, 1e39, RuntimeError, "value cannot be converted to type float without overflow"),
    (0, UINT64_MAX, ValueError, "Overflow when unpacking long long"),
    ("long", "long", RuntimeError, "Index put requires the source and destination dtypes match, "
                                   "got Float for the destination and Long for the source."),
])
def test_an_assignment_checks_its_value_before_its_index(tg, index, value, error, text):
    target = tg.ones(2, 3)
    if index == "long":
        target, index, value = tg.ones(3), tg.tensor([0, 5]), tg.tensor([1, 2])
    with raises_exactly(tg, error, text):
        target[index] = value


def test_an_assignment_through_a_basic_index_casts_a_tensor_value(tg):
    a = tg.ones(3)
    a[0:2] = tg.tensor([7, 8])
    assert show(a) == "tensor([7., 8., 1.])"


# -- kernels refusing bools, and losses refusing an ignore_index they cannot apply ----------------
@pytest.mark.parametrize("call, kernel", [
    (lambda t: t.clamp(True), "clamp_min_scalar_cpu"),
    (lambda t: t.clamp_(max=False), "clamp_max_scalar_cpu"),
])
def test_clamping_a_bool_tensor_to_a_bool_is_refused(tg, call, kernel):
    with raises_exactly(tg, NotImplementedError, f"\"{kernel}\" not implemented for 'Bool'"):
        call(tg.tensor([True, False]))
    assert show(tg.tensor([True, False]).clamp(0.5)) == "tensor([1.0000, 0.5000])"


def test_cross_entropy_with_probabilities_refuses_an_ignore_index(tg):
    probabilities = tg.softmax(tg.arange(6.0).reshape(2, 3), 1)
    with raises_exactly(tg, RuntimeError, "ignore_index is not supported for floating point target"):
        tg.nn.functional.cross_entropy(tg.zeros(2, 3), probabilities, ignore_index=0)
    assert show(tg.nn.functional.cross_entropy(tg.zeros(2, 3), probabilities)) == "tensor(1.0986)"


@pytest.mark.parametrize("make", [lambda nn: nn.Linear(2, 3, device="cuda"),
                                  lambda nn: nn.BatchNorm1d(2, device="cuda")])
def test_modules_made_on_a_gpu_fail_as_without_one(tg, make):
    with raises_exactly(tg, AssertionError, "tensorgrad not compiled with CUDA enabled"):
        make(tg.nn)


# -- data of the wrong kind for the dtype asked for -------------------------------------------------
@pytest.mark.parametrize("data, dtype, text", [
    (None, "int64", "'NoneType' object cannot be interpreted as an integer"),
    (1 + 2j, "int64", "'complex' object cannot be interpreted as an integer"),
    (1 + 2j, "float32", "must be real number, not complex"),
    ([1 + 2j], "float32", "must be real number, not complex"),
    (None, "bool", "'NoneType' object cannot be interpreted as an integer"),
])
def test_data_is_read_as_the_kind_of_number_the_dtype_asks_for(tg, data, dtype, text):
    with raises_exactly(tg, TypeError, text):
        tg.tensor(data, dtype=getattr(tg, dtype))


@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.arange(0, 5.5, 1, dtype=tg.int64), "tensor([0, 1, 2, 3, 4])"),
    (lambda tg: tg.arange(0.5, 5.5, 1.5, dtype=tg.int64), "tensor([0, 1, 2, 3, 4])"),
    (lambda tg: tg.arange(0, 1e-50, 10 ** 17, dtype=tg.int64), "tensor([], dtype=tensorgrad.int64)"),
    (lambda tg: tg.linspace(0, 1, 3, dtype=tg.int64), "tensor([0, 0, 1])"),
    (lambda tg: tg.linspace(0, 10, 4, dtype=tg.int64), "tensor([ 0,  3,  6, 10])"),
    (lambda tg: tg.ones(2).fill_(2 ** 63), "tensor([9.2234e+18, 9.2234e+18])"),
    (lambda tg: tg.ones(2, dtype=tg.bool).fill_(2 ** 63), "tensor([True, True])"),
])
def test_integer_ranges_and_fills_as_pytorch_computes_them(tg, call, text):
    assert show(call(tg)) == text


def test_filling_an_integer_tensor_with_a_uint64_overflows(tg):
    with raises_exactly(tg, RuntimeError, "value cannot be converted to type int64_t without overflow"):
        tg.ones(2, dtype=tg.int64).fill_(2 ** 63)


# -- texts of Python's protocols and of the methods that make tensors -------------------------------
def test_an_empty_tensor_has_no_truth_value(tg):
    with raises_exactly(tg, RuntimeError, "Boolean value of Tensor with no values is ambiguous"):
        bool(tg.zeros(2, 0))


@pytest.mark.parametrize("value, type_name", [(np.float32(7), "numpy.float32"),
                                              (np.bool_(True), "numpy.bool"), ([1], "list")])
def test_from_numpy_names_what_it_was_given(tg, value, type_name):
    with raises_exactly(tg, TypeError, f"expected np.ndarray (got {type_name})"):
        tg.from_numpy(value)


def test_iterating_a_tensor_iterates_its_rows(tg):
    rows = iter(tg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert type(rows).__name__ == "tuple_iterator"
    assert show(list(rows)) == "[tensor([1., 2.]), tensor([3., 4.])]"


@pytest.mark.parametrize("name, size, type_name", [("new_ones", "a", "str"),
                                                   ("new_zeros", np.float32(1), "numpy.float32"),
                                                   ("new_ones", 2.5, "float")])
def test_new_ones_and_new_zeros_name_themselves(tg, name, size, type_name):
    with raises_exactly(tg, TypeError, f"{name}(): argument 'size' (position 1) must be tuple of "
                                       f"ints, not {type_name}"):
        getattr(tg.ones(2), name)(size)


@pytest.mark.parametrize("data, text", [("a", "new(): invalid data type 'str'"),
                                        (np.float32(1), "new(): data must be a sequence (got "
                                                        "numpy.float32)")])
def test_the_legacy_constructor_names_what_it_cannot_take(tg, data, text):
    with raises_exactly(tg, TypeError, text):
        tg.Tensor(data)


# -- NumPy's warnings from NumPy's own modules: PyTorch warns its own words, or nothing ------------
DEGREES_OF_FREEDOM = ("{}(): degrees of freedom is <= 0. Correction should be strictly less than "
                      "the reduction factor (input numel divided by output numel).")


@pytest.mark.parametrize("name, call, text", [
    ("std", lambda t: t.reshape(6)[:1].std(), "tensor(nan)"),
    ("var", lambda t: t[:0].var(0), "tensor([nan, nan, nan])"),
    ("std", lambda t: t[:0].std(1), "tensor([])"),
    ("std", lambda t: t.reshape(6)[:0].std(), "tensor(nan)"),
    ("var", lambda t: t[0].var(correction=5), "tensor(inf)"),
])
def test_variance_without_degrees_of_freedom_warns_as_pytorch(tg, name, call, text):
    with record_warnings(tg) as log:
        result = call(tg.arange(6.0).reshape(2, 3))
    assert log.messages(UserWarning) == [DEGREES_OF_FREEDOM.format(name)]
    assert log.messages(RuntimeWarning) == []
    assert show(result) == text


def test_the_mean_of_nothing_is_nan_without_a_warning(tg):
    with no_warnings(tg):
        assert show(tg.zeros(0, 3).mean(0)) == "tensor([nan, nan, nan])"
    with no_warnings(tg):
        assert show(tg.arange(6.0).reshape(2, 3).var(1)) == "tensor([1., 1.])"


# -- t[index] = value: PyTorch's order after the value (index, shape, in-place rules, dtype) -------
LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF = ("a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.")


@pytest.mark.parametrize("index, text", [(slice(None), LEAF), (Ellipsis, LEAF),
                                         (slice(0, 2), VIEW_OF_LEAF), (0, VIEW_OF_LEAF)])
def test_writing_all_of_a_leaf_is_writing_the_leaf_itself(tg, index, text):
    with raises_exactly(tg, RuntimeError, text):
        tg.ones(3, requires_grad=True)[index] = 5.5


@pytest.mark.parametrize("index, text", [
    (3, "index 3 is out of bounds for dimension 0 with size 0"),
    (-1, "index -1 is out of bounds for dimension 0 with size 0"),
    (slice(None), "slice() cannot be applied to a 0-dim tensor."),
    (1.0, "too many indices for tensor of dimension 0"),
])
def test_writing_into_a_0_dim_tensor_through_an_index(tg, index, text):
    with raises_exactly(tg, IndexError, text):
        tg.tensor(3.0)[index] = 1.0
    a = tg.tensor(3.0)
    a[...] = 2.0
    assert show(a) == "tensor(2.)"


def test_index_put_checks_masks_then_the_leaf_then_dtypes_then_indices(tg):
    with raises_exactly(tg, IndexError, "The shape of the mask [3] at index 0 does not match the "
                                        "shape of the indexed tensor [2, 3, 4] at index 0"):
        tg.arange(24).reshape(2, 3, 4)[[True, False, True]] = tg.tensor([7.0, 8.0])
    with raises_exactly(tg, RuntimeError, LEAF):
        tg.ones(3, requires_grad=True)[tg.tensor([0, 2])] = tg.tensor([1, 2])
    with raises_exactly(tg, IndexError, "index is out of bounds for dimension with size 0"):
        tg.zeros(0, 3)[tg.tensor([0, 2])] = float("nan")
