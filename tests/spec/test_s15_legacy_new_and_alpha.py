"""PyTorch's behaviour on two names learners meet in older code (issue 29, session 15): the
legacy constructor on a tensor, `t.new(...)` (with `Tensor(...)`, one mechanism), and a complex
`alpha` given to add or sub, refused by PyTorch's alpha check; and NumPy's complex64, which
PyTorch's Scalar reads as its real part. Each runs on both libraries (PyTorch 2.13.0, measured).
"""

import warnings

import numpy as np
import pytest

from .conftest import raises_exactly, show


# -- t.new(...): the legacy constructor in t's dtype ------------------------------------------------
@pytest.mark.parametrize("call, shown, dtype", [
    (lambda tg, t: t.new(), "tensor([])", "float32"),
    (lambda tg, t: t.new(2, 3).shape, "tensorgrad.Size([2, 3])", None),
    (lambda tg, t: t.new((2, 3)), "tensor([2., 3.])", "float32"),  # a tuple by position: data
    (lambda tg, t: t.new([1.5, 2]), "tensor([1.5000, 2.0000])", "float32"),
    (lambda tg, t: t.new(np.ones(2)), "tensor([1., 1.])", "float32"),
    (lambda tg, t: t.new(range(3)), "tensor([0., 1., 2.])", "float32"),
    (lambda tg, t: t.new(size=(2,)).shape, "tensorgrad.Size([2])", None),  # by keyword: a size
    (lambda tg, t: t.new(tg.Size([2, 0])).shape, "tensorgrad.Size([2, 0])", None),
    (lambda tg, t: t.new(np.int64(2)).shape, "tensorgrad.Size([2])", None),
    (lambda tg, t: t.new(2, device="cpu").shape, "tensorgrad.Size([2])", None),
    (lambda tg, t: t.long().new([1.5]), "tensor([1])", "int64"),
])
def test_new_makes_a_tensor_in_its_tensors_dtype(tg, call, shown, dtype):
    t = tg.ones(2)
    result = call(tg, t)
    assert show(result) == shown
    if dtype is not None:
        assert str(result.dtype).split(".")[1] == dtype


def test_new_of_a_tensor_is_that_tensor_aliased(tg):
    x = tg.ones(2, requires_grad=True)
    y = tg.ones(2).new(x)
    assert y.grad_fn.name() == "AliasBackward0" and y._base is x and not y.is_leaf
    (y * 3).sum().backward()
    assert show(x.grad) == "tensor([3., 3.])"
    z = tg.zeros(2)
    alias = tg.ones(3).new(z)
    alias[0] = 5  # the same memory
    assert show(z) == "tensor([5., 0.])"


def test_the_legacy_tensor_of_a_tensor_is_that_tensor_in_any_dtype(tg):
    x = tg.tensor([1])
    y = tg.Tensor(x)
    y[0] = 5
    assert show(x) == "tensor([5])" and y.dtype is tg.int64 and y is not x


_OPTIONS = ("TensorOptions(dtype={}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


@pytest.mark.parametrize("call, error, text", [
    (lambda tg: tg.ones(2).new(2.5), TypeError, "new(): data must be a sequence (got float)"),
    (lambda tg: tg.ones(2).new(True), TypeError, "new(): data must be a sequence (got bool)"),
    (lambda tg: tg.ones(2).new(None), TypeError, "new(): data must be a sequence (got NoneType)"),
    (lambda tg: tg.ones(2).new("a"), TypeError, "new(): invalid data type 'str'"),
    (lambda tg: tg.ones(2).new(-1), RuntimeError,
     "Trying to create tensor with negative dimension -1: [-1]"),
    (lambda tg: tg.ones(2).new(2, device="meta"), RuntimeError,
     "legacy constructor expects device type: cpu but device type: meta was passed"),
    (lambda tg: tg.ones(2).new([1], device="cuda"), RuntimeError,
     "legacy constructor expects device type: cpu but device type: cuda was passed"),
    (lambda tg: tg.ones(2).new(tg.tensor([1, 2])), TypeError,
     f"expected {_OPTIONS.format('float')} (got {_OPTIONS.format('long int')})"),
    (lambda tg: tg.ones(2, dtype=tg.float64).new(tg.ones(2)), TypeError,
     f"expected {_OPTIONS.format('double')} (got {_OPTIONS.format('float')})"),
    (lambda tg: tg.ones(2).new(tg.tensor([True])), TypeError,
     f"expected {_OPTIONS.format('float')} (got {_OPTIONS.format('bool')})"),
    (lambda tg: tg.ones(2).new(data=2), TypeError, "new(): data must be a sequence (got int)"),
    (lambda tg: tg.ones(2).new(data=tg.ones(2)), TypeError,
     "new(): data must be a sequence (got Tensor)"),
    (lambda tg: tg.ones(2).new(other=tg.ones(2).double()), TypeError,
     f"expected {_OPTIONS.format('float')} (got {_OPTIONS.format('double')})"),
    (lambda tg: tg.ones(2).new(2, device=-1), RuntimeError, "Device index must not be negative"),
    (lambda tg: tg.Tensor(tg.ones(2), "a"), TypeError,
     "new() received an invalid combination of arguments - got (Tensor, str), but expected one "
     "of:\n * (*, tensorgrad.device device = None)\n      didn't match because some of the "
     "arguments have invalid types: (!Tensor!, !str!)\n * (tensorgrad.Storage storage)\n"
     " * (Tensor other)\n * (tuple of ints size, *, tensorgrad.device device = None)\n"
     " * (object data, *, tensorgrad.device device = None)\n"),
    (lambda tg: tg.ones(2).new(2, dtype=tg.int64), TypeError,
     "new() received an invalid combination of arguments - got (int, dtype=tensorgrad.dtype), but "
     "expected one of:\n * (*, tensorgrad.device device = None)\n      didn't match because some of "
     "the keywords were incorrect: dtype\n * (tensorgrad.Storage storage)\n * (Tensor other)\n"
     " * (tuple of ints size, *, tensorgrad.device device = None)\n"
     " * (object data, *, tensorgrad.device device = None)\n"),
])
def test_new_refuses_what_pytorch_refuses(tg, call, error, text):
    with raises_exactly(tg, error, text):
        call(tg)


# -- a complex alpha: PyTorch's alpha check, after its float rule ------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg, t, i: t.add(t, alpha=1j), "For non-complex input tensors, argument alpha must not be "
                                          "a complex number."),
    (lambda tg, t, i: tg.sub(t, 2, alpha=1 + 0j), "For non-complex input tensors, argument alpha "
                                                  "must not be a complex number."),
    (lambda tg, t, i: t.add_(t, alpha=complex(2, 0)), "For non-complex input tensors, argument "
                                                      "alpha must not be a complex number."),
    (lambda tg, t, i: t.sub(t, alpha=np.complex128(1)), "For non-complex input tensors, argument "
                                                        "alpha must not be a complex number."),
    (lambda tg, t, i: i.add(i, alpha=1j), "For integral input tensors, argument alpha must not be "
                                          "a floating point number."),
    (lambda tg, t, i: i.sub_(i, alpha=1j), "For integral input tensors, argument alpha must not "
                                           "be a floating point number."),
    (lambda tg, t, i: i.bool().add(True, alpha=1j), "For integral input tensors, argument alpha "
                                                    "must not be a floating point number."),
])
def test_a_complex_alpha_is_refused_by_the_alpha_check(tg, call, text):
    with raises_exactly(tg, RuntimeError, text):
        call(tg, tg.ones(2), tg.ones(2, dtype=tg.int64))


# -- NumPy's complex64: PyTorch's Scalar reads its real part (NumPy warns about the rest) -----------
@pytest.mark.parametrize("call, shown", [
    (lambda tg, t: t.add(t, alpha=np.complex64(2 + 1j)), "tensor([3., 3.])"),
    (lambda tg, t: t.mul(np.complex64(1j)), "tensor([0., 0.])"),
    (lambda tg, t: t.clamp(max=np.complex64(0.5)), "tensor([0.5000, 0.5000])"),
    (lambda tg, t: t + np.complex64(1 + 2j), "tensor([2., 2.])"),
    (lambda tg, t: t < np.complex64(2), "tensor([True, True])"),
    (lambda tg, t: tg.full((2,), np.complex64(2)), "tensor([2., 2.])"),
    (lambda tg, t: t.masked_fill(t > 0, np.complex64(3)), "tensor([3., 3.])"),
])
def test_numpy_complex64_is_its_real_part_as_a_scalar(tg, call, shown):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        assert show(call(tg, tg.ones(2))) == shown


# -- a complex number into a real tensor, in place: PyTorch refuses the cast of the result ----------
_CAST = "result type {} can't be cast to the desired output type {}"


@pytest.mark.parametrize("call, text", [
    (lambda tg, t, i, d: t.add_(1j), _CAST.format("ComplexFloat", "Float")),
    (lambda tg, t, i, d: t.sub_(np.complex128(1)), _CAST.format("ComplexFloat", "Float")),
    (lambda tg, t, i, d: t.add_(1j, alpha=2.5), _CAST.format("ComplexFloat", "Float")),
    (lambda tg, t, i, d: d.mul_(1j), _CAST.format("ComplexDouble", "Double")),
    (lambda tg, t, i, d: i.div_(1j), _CAST.format("ComplexFloat", "Long")),
    (lambda tg, t, i, d: t.div_(1j, rounding_mode="floor"), _CAST.format("ComplexFloat", "Float")),
    (lambda tg, t, i, d: t.pow_(complex(2, 0)), _CAST.format("ComplexFloat", "Float")),
    (lambda tg, t, i, d: t.pow_(exponent=1j), _CAST.format("ComplexFloat", "Float")),
    (lambda tg, t, i, d: t.floor_divide_(1j), _CAST.format("ComplexFloat", "Float")),
    (lambda tg, t, i, d: t.remainder_(other=np.complex128(1)), _CAST.format("ComplexFloat", "Float")),
    (lambda tg, t, i, d: i.bitwise_and_(complex(1, 0)), _CAST.format("ComplexFloat", "Long")),
    (lambda tg, t, i, d: i.bitwise_left_shift_(1j), _CAST.format("ComplexFloat", "Long")),
    # the in-place rules come first, as in PyTorch
    (lambda tg, t, i, d: tg.ones(2, requires_grad=True).add_(1j),
     "a leaf Variable that requires grad is being used in an in-place operation."),
    (lambda tg, t, i, d: tg.ones(2, requires_grad=True).pow_(1j),
     "a leaf Variable that requires grad is being used in an in-place operation."),
])
def test_a_complex_number_into_a_real_tensor_in_place_is_refused_at_the_cast(tg, call, text):
    with raises_exactly(tg, RuntimeError, text):
        call(tg, tg.ones(2), tg.ones(2, dtype=tg.int64), tg.ones(2, dtype=tg.float64))


# -- mv of a 0-d tensor: PyTorch reads the matrix's first size before its check -----------------------
@pytest.mark.parametrize("vec", [lambda tg: tg.ones(3), lambda tg: tg.tensor(1.), lambda tg: tg.ones(2, 3)])
def test_mv_of_a_0d_matrix_names_its_missing_dimension(tg, vec):
    with raises_exactly(tg, IndexError, "Dimension specified as 0 but tensor has no dimensions"):
        tg.mv(tg.tensor(0.5), vec(tg))


# -- number slots of nn.functional's C functions: the number a 0-d tensor or NumPy scalar holds -----
@pytest.mark.parametrize("call, shown", [
    (lambda tg, x: tg.nn.functional.batch_norm(x, tg.zeros(3), tg.ones(3), eps=tg.tensor(2.)),
     "tensor([[0.5774, 1.1547, 1.7321],\n        [2.3094, 2.8868, 4.0415]])"),
    (lambda tg, x: tg.nn.functional.batch_norm(x, tg.zeros(3), tg.ones(3), eps=np.float32(2.)),
     "tensor([[0.5774, 1.1547, 1.7321],\n        [2.3094, 2.8868, 4.0415]])"),
    (lambda tg, x: tg.nn.BatchNorm1d(3, eps=tg.tensor(2.))(x),
     "tensor([[-0.7276, -0.7276, -0.8165],\n        [ 0.7276,  0.7276,  0.8165]], "
     "grad_fn=<NativeBatchNormBackward0>)"),
    (lambda tg, x: tg.nn.BatchNorm1d(3, momentum=tg.tensor(0.5))(x).shape, "tensorgrad.Size([2, 3])"),
    (lambda tg, x: tg.nn.functional.dropout(x, tg.tensor(0.)), "tensor([[1., 2., 3.],\n        [4., 5., 7.]])"),
    (lambda tg, x: tg.nn.Dropout(tg.tensor(0.5))(x).shape, "tensorgrad.Size([2, 3])"),
    (lambda tg, x: tg.nn.functional.dropout(x, np.float64(0.5)).shape, "tensorgrad.Size([2, 3])"),
])
def test_a_number_slot_takes_the_number_a_0d_tensor_holds(tg, call, shown):
    assert show(call(tg, tg.tensor([[1., 2, 3], [4, 5, 7]]))) == shown


@pytest.mark.parametrize("make", [
    lambda tg, w: (lambda o: (o.param_groups[0].update(lr=1j), o)[1])(tg.optim.SGD([w], lr=0.1)),
    lambda tg, w: tg.optim.SGD([w], lr=np.complex128(1 + 0j)),
])
def test_a_complex_learning_rate_is_refused_by_the_steps_alpha_check(tg, make):
    w = tg.tensor([1., 2, 3], requires_grad=True)
    optimizer = make(tg, w)
    (w ** 2).sum().backward()
    with raises_exactly(tg, RuntimeError, "For non-complex input tensors, argument alpha must not "
                                          "be a complex number."):
        optimizer.step()


# -- alpha as the result's C type: a float32 result takes no finite alpha beyond float's range ---------
@pytest.mark.parametrize("call", [
    lambda tg, x: x.add(x, alpha=1e308), lambda tg, x: x.sub(1, alpha=1e308),
    lambda tg, x: x.add_(x, alpha=-1e39), lambda tg, x: tg.add(x, 2, alpha=np.float64(1e39)),
])
def test_an_alpha_a_float_cannot_hold_is_refused(tg, call):
    with raises_exactly(tg, RuntimeError, "value cannot be converted to type float without overflow"):
        call(tg, tg.ones(2))


def test_an_alpha_the_result_holds_is_taken(tg):
    x = tg.ones(2)
    assert show(x.add(x.double(), alpha=1e308)) == "tensor([1.0000e+308, 1.0000e+308], dtype=tensorgrad.float64)"
    assert show(x.add(x, alpha=float("inf"))) == "tensor([inf, inf])"


def test_sgd_with_a_learning_rate_beyond_float_refuses_at_the_step(tg):
    w = tg.tensor([1., 2, 3], requires_grad=True)
    optimizer = tg.optim.SGD([w], lr=1e308)
    (w ** 2).sum().backward()
    with raises_exactly(tg, RuntimeError, "value cannot be converted to type float without overflow"):
        optimizer.step()


# -- sizes beyond what memory can count: PyTorch's words, not NumPy's "array is too big" -------------
@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.full((2 ** 62,), 1.), "Storage size calculation overflowed with sizes=[4611686018427387904]"),
    (lambda tg: tg.eye(2 ** 31), "Storage size calculation overflowed with sizes=[2147483648, 2147483648]"),
])
def test_a_size_beyond_memory_is_refused_in_pytorchs_words(tg, call, text):
    with raises_exactly(tg, RuntimeError, text):
        call(tg)
