"""PyTorch's behaviour where an outside attacker's 20,389 independent cases (session 16) found
tensorgrad letting a NumPy or Python error out, succeeding where PyTorch refuses, or printing
another result (issue 29), by the mechanism that decides each kind: the value a write takes
(a NumPy scalar, leading 1s dropped, index_put's shape refusal), the shapes an nll_loss target
may have, batch_norm's pair of running statistics, state_dict's prefix, a loss weighed in
place, the sizes an allocation may have, Unflatten's sizes, an optimizer's settings read
before its gradients, the pieces of an empty dim, gather's result shape, an integer result
recording no graph, and the dtype that printing leaves unnamed. Each runs on both libraries
(PyTorch 2.13.0, measured).
"""

import numpy as np
import pytest

from .conftest import raises_exactly, show


# -- `x[index] = value`: the value as PyTorch takes it --------------------------------------------
@pytest.mark.parametrize("make_value", [
    lambda: np.complex64(1 + 2j), lambda: np.float32(2.5), lambda: np.float16(1.),
    lambda: np.bool_(True), lambda: np.longdouble(2.5)])
@pytest.mark.parametrize("index", [0, slice(0, 1), (Ellipsis,), "mask"])
def test_a_numpy_scalar_that_is_no_python_number_is_not_written(tg, make_value, index):
    x = tg.tensor([1., 2.], requires_grad=True).clone()
    value = make_value()
    with raises_exactly(tg, TypeError, f"can't assign a numpy.{type(value).__name__} to a "
                                       "tensorgrad.FloatTensor"):
        x[x > 0 if index == "mask" else index] = value


@pytest.mark.parametrize("make_value, kept", [
    (lambda: np.float64(2.5), "tensor([2.5000, 2.0000])"),  # a Python float
    (lambda: np.int16(7), "tensor([7., 2.])"),             # reads as an index
])
def test_a_numpy_scalar_that_is_a_python_number_is_written(tg, make_value, kept):
    x = tg.tensor([1., 2.])
    x[0] = make_value()
    assert show(x) == kept


@pytest.mark.parametrize("index", ["mask", "bools", "ints"])
def test_an_index_put_value_drops_its_leading_ones(tg, index):
    x = tg.tensor([1., 2., 3.])
    v = tg.tensor([[7.]], requires_grad=True)
    y = x * 1
    where = {"mask": y > 1, "bools": tg.tensor([False, True, True]),
             "ints": tg.tensor([1, 2])}[index]
    y[where] = v
    y.sum().backward()
    assert show(y) == "tensor([1., 7., 7.], grad_fn=<IndexPutBackward0>)"
    assert show(v.grad) == "tensor([[2.]])"  # the value's own shape


def test_a_slice_write_gives_the_value_its_own_shape_of_gradient(tg):
    v = tg.tensor([[7., 8.]], requires_grad=True)
    y = tg.tensor([1., 2., 3.]) * 1
    y[:2] = v
    y.sum().backward()
    assert show(v.grad) == "tensor([[1., 1.]])"


@pytest.mark.parametrize("index, value, value_shape, places", [
    ("mask", (2, 2), [2, 2], [2]),
    ("mask", (3,), [3], [2]),
    ("ints", (2, 1), [2, 1], [2]),
])
def test_an_index_put_value_that_does_not_fit_is_refused_in_pytorchs_words(
        tg, index, value, value_shape, places):
    x = tg.tensor([1., 2., 3.])
    where = x > 1 if index == "mask" else tg.tensor([0, 1])
    with raises_exactly(tg, RuntimeError, f"shape mismatch: value tensor of shape {value_shape} "
                                          f"cannot be broadcast to indexing result of shape "
                                          f"{places}"):
        x[where] = tg.ones(*value)


@pytest.mark.parametrize("write", [
    lambda tg, x, v: x.__setitem__(slice(1, None), v),  # fill_ with a 0-d value
    lambda tg, x, v: x.__setitem__(None, v),
    lambda tg, x, v: x.fill_(v)])
def test_filling_an_integer_tensor_with_a_0d_tensor_is_recorded_as_pytorch_records_it(tg, write):
    x = tg.tensor([1, 2, 3])
    write(tg, x, tg.tensor(2.5, requires_grad=True))
    assert x.grad_fn is not None


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_writing_into_an_integer_tensor_records_no_graph(tg, dtype):
    x = tg.tensor([1, 2, 3], dtype=getattr(tg, dtype))
    x[0] = tg.tensor(2.5, requires_grad=True)
    x.copy_(x.clone() if dtype == "bool" else tg.tensor([2.5, 1., 1.], requires_grad=True))
    assert x.grad_fn is None and not x.requires_grad


# -- losses --------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda tg, x, t: tg.nn.CrossEntropyLoss()(x, t),
    lambda tg, x, t: tg.nn.NLLLoss()(x, t),
    lambda tg, x, t: tg.nn.functional.nll_loss(x, t, weight=tg.ones(3)),  # before the weight
    lambda tg, x, t: tg.nn.functional.cross_entropy(x, t, label_smoothing=0.1),
])
def test_an_empty_batch_with_a_0d_target_is_refused_as_pytorch_refuses_it(tg, call):
    with raises_exactly(tg, IndexError, "Dimension specified as 0 but tensor has no dimensions"):
        call(tg, tg.zeros(0, 2), tg.tensor(1))


@pytest.mark.parametrize("call, shape, broadcast", [
    (lambda tg, w: tg.nn.BCELoss(weight=w)(tg.tensor(0.3), tg.tensor(1.)), [], [3]),
    (lambda tg, w: tg.nn.functional.binary_cross_entropy(
        tg.tensor([0.3]), tg.tensor([1.]), weight=w, reduction="none"), [1], [3]),
    (lambda tg, w: tg.nn.functional.binary_cross_entropy_with_logits(
        tg.tensor([0.3]), tg.tensor([1.]), weight=w), [1], [3]),
    (lambda tg, w: tg.nn.functional.binary_cross_entropy_with_logits(
        tg.tensor([0.3]), tg.tensor([1.]), pos_weight=w), [1], [3]),
])
def test_a_loss_weight_may_not_make_the_losses_grow(tg, call, shape, broadcast):
    with raises_exactly(tg, RuntimeError, f"output with shape {shape} doesn't match the "
                                          f"broadcast shape {broadcast}"):
        call(tg, tg.tensor([1., 2., 3.]))


# -- batch_norm, state_dict, Unflatten -----------------------------------------------------------
@pytest.mark.parametrize("stats", ["mean", "var", "mean float64"])
def test_batch_norm_takes_both_running_statistics_or_neither(tg, stats):
    x = tg.arange(12.).reshape(4, 3)
    one = tg.zeros(3, dtype=tg.float64 if "float64" in stats else tg.float32)
    mean, var = (one, None) if stats.startswith("mean") else (None, one)
    with raises_exactly(tg, ValueError, "running_mean and running_var must either both be None "
                                        "or neither be None"):
        tg.nn.functional.batch_norm(x, mean, var, training=True)


def test_batch_norm_of_an_empty_batch_returns_before_the_pair_is_checked(tg):
    out = tg.nn.functional.batch_norm(tg.zeros(0, 3), tg.zeros(3), None, training=True)
    assert show(out) == "tensor([], size=(0, 3))"


@pytest.mark.parametrize("prefix, error, text", [
    (1, TypeError, "'int' object is not subscriptable"),
    (None, TypeError, "'NoneType' object is not subscriptable"),
    (["a"], TypeError, "unhashable type: 'list'"),
])
def test_state_dict_refuses_a_prefix_that_is_not_a_str_as_pytorch_does(tg, prefix, error, text):
    with raises_exactly(tg, error, text):
        tg.nn.Linear(3, 2).state_dict(prefix=prefix)


@pytest.mark.parametrize("prefix, keys", [
    ("a", ["a0.weight", "a0.bias"]), ("a.", ["a.0.weight", "a.0.bias"]),
    ("a..", ["a..0.weight", "a..0.bias"])])
def test_state_dict_writes_its_prefix_as_given(tg, prefix, keys):
    assert list(tg.nn.Sequential(tg.nn.Linear(1, 1)).state_dict(prefix=prefix)) == keys


@pytest.mark.parametrize("dim, sizes, shape, text", [
    (1, (2, 2), (0, 3), "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 "
                        "(3) in the input tensor"),
    (0, (2, 2), (0, 4), "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 0 "
                        "(0) in the input tensor"),
])
def test_unflatten_checks_its_sizes_against_the_dim_not_the_element_count(
        tg, dim, sizes, shape, text):
    with raises_exactly(tg, RuntimeError, text):
        tg.nn.Unflatten(dim, sizes)(tg.zeros(*shape))


def test_reshape_of_nothing_with_an_inferred_size_is_ambiguous(tg):
    with raises_exactly(tg, RuntimeError, "cannot reshape tensor of 0 elements into shape "
                                          "[0, -1] because the unspecified dimension size -1 "
                                          "can be any value and is ambiguous"):
        tg.zeros(0).reshape(0, -1)


# -- sizes an allocation may have ----------------------------------------------------------------
SYMINT = "IntArrayRef contains an int that cannot be represented as a SymInt: -9223372036854775808"


@pytest.mark.parametrize("make, text", [
    (lambda tg: tg.arange(2 ** 63 - 1), SYMINT),  # a double count of 2 ** 63, cast to int64
    (lambda tg: tg.arange(2. ** 63), SYMINT),
    (lambda tg: tg.ones(2).repeat(2 ** 62), SYMINT),  # 2 ** 63 elements in int64
    (lambda tg: tg.arange(2 ** 62),
     "Storage size calculation overflowed with sizes=[4611686018427387904]"),
    (lambda tg: tg.linspace(0, 1, 2 ** 63 - 1),
     "Storage size calculation overflowed with sizes=[9223372036854775807]"),
    (lambda tg: tg.ones(2).repeat(2 ** 61, 2),
     "Storage size calculation overflowed with sizes=[2305843009213693952, 4]"),
    (lambda tg: tg.ones(2 ** 32, 2 ** 32),
     "Storage size calculation overflowed with sizes=[4294967296, 4294967296]"),
])
def test_sizes_beyond_int64_are_refused_before_anything_is_made(tg, make, text):
    with raises_exactly(tg, RuntimeError, text):
        make(tg)


# -- an optimizer's settings ---------------------------------------------------------------------
@pytest.mark.parametrize("make, key", [
    (lambda tg, p: tg.optim.SGD(p, lr=0.1), "lr"),
    (lambda tg, p: tg.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True), "momentum"),
    (lambda tg, p: tg.optim.Adam(p, lr=0.1), "betas"),
    (lambda tg, p: tg.optim.Adam(p, lr=0.1, amsgrad=True), "eps"),
])
def test_a_deleted_setting_is_missed_even_before_any_gradient(tg, make, key):
    optimizer = make(tg, tg.nn.Linear(3, 1).parameters())
    del optimizer.param_groups[0][key]
    with raises_exactly(tg, KeyError, repr(key)):
        optimizer.step()


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_hands_eps_to_its_addition_as_a_scalar(tg, amsgrad):
    model = tg.nn.Linear(3, 1)
    optimizer = tg.optim.Adam(model.parameters(), eps=10 ** 20, amsgrad=amsgrad)
    model(tg.ones(3, 3)).sum().backward()
    with raises_exactly(tg, OverflowError, "int too big to convert"):
        optimizer.step()


# -- results learners print ----------------------------------------------------------------------
@pytest.mark.parametrize("make, pieces", [
    (lambda tg: tg.zeros(0, 3).split(1), "(tensor([], size=(0, 3)),)"),
    (lambda tg: tg.zeros(0, 3).split(5), "(tensor([], size=(0, 3)),)"),
    (lambda tg: tg.zeros(0).chunk(2), "(tensor([]), tensor([]))"),
    (lambda tg: tg.zeros(2, 0).chunk(3, 1),
     "(tensor([], size=(2, 0)), tensor([], size=(2, 0)), tensor([], size=(2, 0)))"),
    (lambda tg: tg.zeros(0).split([]), "()"),
    (lambda tg: tg.arange(7).split(3), "(tensor([0, 1, 2]), tensor([3, 4, 5]), tensor([6]))"),
])
def test_an_empty_dim_splits_into_empty_pieces(tg, make, pieces):
    assert show(make(tg)) == pieces


def test_chunks_of_an_empty_dim_need_their_list_of_sizes(tg):
    with raises_exactly(tg, RuntimeError, "std::bad_alloc"):
        tg.zeros(2, 0).chunk(10 ** 10, dim=1)


@pytest.mark.parametrize("input, index, result, grad", [
    ("0d", [0], "tensor([2.], grad_fn=<GatherBackward0>)", "tensor(1.)"),
    ("0d", [0, 0], "tensor([2., 2.], grad_fn=<GatherBackward0>)", "tensor(2.)"),
    ("0d", [], "tensor([], grad_fn=<GatherBackward0>)", "tensor(0.)"),
    ("1d", 1, "tensor(3., grad_fn=<GatherBackward0>)", "tensor([0., 1.])"),
])
def test_gather_gives_the_index_its_shape(tg, input, index, result, grad):
    x = (tg.tensor(2.) if input == "0d" else tg.tensor([2., 3.])).requires_grad_()
    y = x.gather(0, tg.tensor(index, dtype=tg.int64))
    y.sum().backward()
    assert (show(y), show(x.grad)) == (result, grad)


def test_printing_leaves_the_default_dtype_unnamed(tg):
    tg.set_default_dtype(tg.float64)
    try:
        shown = [show(t) for t in (tg.tensor([1., 2.]), tg.tensor([1., 2.]).float(),
                                   tg.zeros(0), tg.zeros(0, dtype=tg.float32))]
    finally:
        tg.set_default_dtype(tg.float32)
    assert shown == ["tensor([1., 2.])", "tensor([1., 2.], dtype=tensorgrad.float32)",
                     "tensor([])", "tensor([], dtype=tensorgrad.float32)"]


# -- tensor(data, dtype=...): a NumPy scalar read into an integer or bool tensor -----------------
@pytest.mark.parametrize("make_value, dtype, refused", [
    (lambda: np.float32(2.5), "bool", "numpy.float32"),
    (lambda: np.longdouble(2.5), "bool", "numpy.longdouble"),
    (lambda: np.complex64(1 + 2j), "bool", "numpy.complex64"),
    (lambda: np.float32(2.5), "int64", "numpy.float32"),
    (lambda: np.bool_(True), "int64", "numpy.bool"),
    (lambda: np.complex128(1 + 2j), "int64", "numpy.complex128"),
    (lambda: [[np.float32(1.)]], "bool", "numpy.float32"),
    (lambda: np.float64(2.5), "int64", None),  # a Python float
    (lambda: np.bool_(True), "bool", None),
    (lambda: np.complex128(1 + 2j), "bool", None),  # a Python complex
    (lambda: np.int32(2), "bool", None),
])
def test_a_numpy_scalar_goes_into_an_integer_tensor_only_as_an_index(tg, make_value, dtype,
                                                                     refused):
    if refused is None:
        assert tg.tensor(make_value(), dtype=getattr(tg, dtype)).dtype is getattr(tg, dtype)
        return
    with raises_exactly(tg, TypeError, f"'{refused}' object cannot be interpreted as an integer"):
        tg.tensor(make_value(), dtype=getattr(tg, dtype))


# -- indexing a 0-d tensor: the message is decided by the index, reading or writing --------------
INVALID_0_DIM = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                 "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")


@pytest.mark.parametrize("write", [False, True])
@pytest.mark.parametrize("make_index, error, text", [
    (lambda tg: 0, IndexError, INVALID_0_DIM),
    (lambda tg: np.int64(0), IndexError, INVALID_0_DIM),
    (lambda tg: 2, IndexError, "index 2 is out of bounds for dimension 0 with size 0"),
    (lambda tg: -1, IndexError, "index -1 is out of bounds for dimension 0 with size 0"),
    (lambda tg: np.int64(1), IndexError, "index 1 is out of bounds for dimension 0 with size 0"),
    (lambda tg: 2 ** 70, ValueError, "Overflow when unpacking long long"),
    (lambda tg: slice(0, 1), IndexError, "slice() cannot be applied to a 0-dim tensor."),
    (lambda tg: slice(None, None, -1), ValueError, "step must be greater than zero"),
    (lambda tg: slice(1.5, 2), TypeError,
     "slice indices must be integers or None or have an __index__ method"),
    (lambda tg: tg.tensor(0), IndexError, "too many indices for tensor of dimension 0"),
    (lambda tg: (0, None), IndexError, "too many indices for tensor of dimension 0"),
    (lambda tg: (Ellipsis, 1), IndexError, "too many indices for tensor of dimension 0"),
    (lambda tg: [0], IndexError, "too many indices for tensor of dimension 0"),
    (lambda tg: 1.5, IndexError, "too many indices for tensor of dimension 0"),
    (lambda tg: np.bool_(True), IndexError, "too many indices for tensor of dimension 0"),
])
def test_a_0d_tensors_index_is_refused_by_what_it_is(tg, write, make_index, error, text):
    x = tg.tensor(3.)
    with raises_exactly(tg, error, text):
        if write:
            x[make_index(tg)] = 5.
        else:
            x[make_index(tg)]


def test_indices_that_take_no_dim_read_a_0d_tensor(tg):
    x = tg.tensor(3.)
    assert [show(x[i]) for i in (None, Ellipsis, True, False, x > 0)] == [
        "tensor([3.])", "tensor(3.)", "tensor([3.])", "tensor([])", "tensor([3.])"]


@pytest.mark.parametrize("dim, index", [(0, 0), (0, 5), (1, 0)])
def test_select_cannot_be_applied_to_a_0d_tensor(tg, dim, index):
    with raises_exactly(tg, IndexError, "select() cannot be applied to a 0-dim tensor."):
        tg.tensor(3.).select(dim, index)


@pytest.mark.parametrize("make_data, first, second", [
    (lambda tg: [np.uint32(3), 1], "UInt32", "Long"),
    (lambda tg: [1, np.uint32(3)], "Long", "UInt32"),
    (lambda tg: [np.uint16(3), True], "UInt16", "Bool"),
    (lambda tg: [[np.int8(3)], [np.uint32(1)]], "Char", "UInt32"),
    (lambda tg: [tg.tensor(1), np.uint32(2)], "Long", "UInt32"),
    (lambda tg: [np.uint8(3), np.int8(1), np.uint16(3)], "Short", "UInt16"),
])
def test_a_list_does_not_promote_uint16_to_uint64_with_another_integer(tg, make_data, first,
                                                                       second):
    with raises_exactly(tg, RuntimeError, "Promotion for uint16, uint32, uint64 types is not "
                                          f"supported, attempted to promote {first} and {second}"):
        tg.tensor(make_data(tg))


@pytest.mark.parametrize("make_data, shown", [
    (lambda: [np.uint8(3), 1], "tensor([3, 1])"),
    (lambda: [np.uint16(3), 1.5], "tensor([3.0000, 1.5000])"),  # a float promotes it
])
def test_a_list_promotes_a_byte_or_with_a_float(tg, make_data, shown):
    assert show(tg.tensor(make_data())) == shown
