"""PyTorch's behaviour on what an outside review found after session 15 (issue 29, session 16):
sizes given one by one to an operation with several overloads (`x.view(2, "a")`), a bool among
them after the first (`zeros(2, True)` is `zeros(2, 1)`), the legacy constructors `Tensor`,
`FloatTensor` and `DoubleTensor` with keywords and tensors of another dtype, `copy.copy` of a
non-leaf, and retain_grad() on a tensor detached in place. Each runs on both libraries
(PyTorch 2.13.0, measured).

PyTorch's parser chooses the overload that takes sizes one by one from the first size alone
(an int, or what Python can use as an index, or a one-element integer tensor; not a bool) and
checks the others as it unpacks them, where a Python bool is read as an int and anything else
is refused: "failed to unpack the object at pos N".
"""

import copy

import numpy as np
import pytest

from .conftest import raises_exactly, show


def _unpack(name, argument, pos, got):
    return (f"{name}(): argument '{argument}' failed to unpack the object at pos {pos} with error "
            f"\"type must be tuple of ints,but got {got}\"")


# -- sizes one by one, in an operation with several overloads ---------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg, x: x.view(2, "a"), _unpack("view", "size", 2, "str")),
    (lambda tg, x: x.view(2, None), _unpack("view", "size", 2, "NoneType")),
    (lambda tg, x: x.view(2, 3.5), _unpack("view", "size", 2, "float")),
    (lambda tg, x: x.view(2, tg.Size([3])), _unpack("view", "size", 2, "tensorgrad.Size")),
    (lambda tg, x: x.view(2, tg.float32), _unpack("view", "size", 2, "tensorgrad.dtype")),
    (lambda tg, x: x.view(2, 3, "a"), _unpack("view", "size", 3, "str")),
    (lambda tg, x: x.view(2, True, "a"), _unpack("view", "size", 3, "str")),
    (lambda tg, x: x.new(2, "a"), _unpack("new", "size", 2, "str")),
    (lambda tg, x: x.new(2, None), _unpack("new", "size", 2, "NoneType")),
    (lambda tg, x: x.new(2, tg.Size([3])), _unpack("new", "size", 2, "tensorgrad.Size")),
    (lambda tg, x: x.new(2, "a", device="cpu"), _unpack("new", "size", 2, "str")),
    (lambda tg, x: x.new(2, np.True_), _unpack("new", "size", 2, "numpy.bool")),
    (lambda tg, x: tg.Tensor(2, 3.5), _unpack("new", "size", 2, "float")),
    (lambda tg, x: tg.FloatTensor(2, "a"), _unpack("new", "size", 2, "str")),
    (lambda tg, x: tg.randn(2, "a"), _unpack("randn", "size", 2, "str")),
    (lambda tg, x: tg.zeros(2, tg.tensor(3.0)), _unpack("zeros", "size", 2, "Tensor")),
    (lambda tg, x: tg.zeros(2, np.float64(3)), _unpack("zeros", "size", 2, "numpy.float64")),
    # (a one-element integer tensor first is the input here, not a size)
    (lambda tg, x: tg.flip(tg.tensor([1]), (0, "a")), _unpack("flip", "dims", 2, "str")),
])
def test_a_later_size_is_refused_as_the_sizes_are_unpacked(tg, call, text):
    with raises_exactly(tg, TypeError, text):
        call(tg, tg.ones(6))


def test_a_first_value_that_is_no_size_is_still_an_invalid_combination(tg):
    with raises_exactly(tg, TypeError, "view() received an invalid combination of arguments - got "
                        "(bool, int), but expected one of:\n * (tensorgrad.dtype dtype)\n"
                        " * (tuple of ints size)\n"):
        tg.ones(6).view(True, 6)


# -- a bool among the sizes: an int after the first ---------------------------------------------------
@pytest.mark.parametrize("call, shape", [
    (lambda tg, x: tg.zeros(2, True), "tensorgrad.Size([2, 1])"),
    (lambda tg, x: tg.zeros(2, True, True), "tensorgrad.Size([2, 1, 1])"),
    (lambda tg, x: tg.zeros((2, True)), "tensorgrad.Size([2, 1])"),
    (lambda tg, x: tg.zeros([2, False]), "tensorgrad.Size([2, 0])"),
    (lambda tg, x: tg.zeros(size=(2, True)), "tensorgrad.Size([2, 1])"),
    (lambda tg, x: tg.randn(2, True), "tensorgrad.Size([2, 1])"),
    (lambda tg, x: x.new(2, True), "tensorgrad.Size([2, 1])"),
    (lambda tg, x: x.new(size=(2, True)), "tensorgrad.Size([2, 1])"),
    (lambda tg, x: x.new_zeros(2, True), "tensorgrad.Size([2, 1])"),
    (lambda tg, x: x.view(-1, True), "tensorgrad.Size([6, 1])"),
    (lambda tg, x: x.view((6, True)), "tensorgrad.Size([6, 1])"),
    (lambda tg, x: x.repeat(2, True), "tensorgrad.Size([2, 6])"),
    (lambda tg, x: tg.Tensor(2, True), "tensorgrad.Size([2, 1])"),
    (lambda tg, x: tg.FloatTensor(2, True), "tensorgrad.Size([2, 1])"),
    # what Python can use as an index, and a one-element integer tensor, are ints there too
    (lambda tg, x: tg.zeros(2, tg.tensor([3])), "tensorgrad.Size([2, 3])"),
    (lambda tg, x: tg.zeros(tg.tensor([2]), 3), "tensorgrad.Size([2, 3])"),
    (lambda tg, x: tg.zeros(np.array(2), 3), "tensorgrad.Size([2, 3])"),
    (lambda tg, x: tg.zeros((2, np.array(3))), "tensorgrad.Size([2, 3])"),
    (lambda tg, x: x.view(tg.tensor([2]), 3), "tensorgrad.Size([2, 3])"),
    (lambda tg, x: x.new(2, tg.tensor([[3]])), "tensorgrad.Size([2, 3])"),
])
def test_a_bool_after_the_first_size_is_an_int(tg, call, shape):
    assert show(call(tg, tg.ones(6)).shape) == shape


@pytest.mark.parametrize("call, error, text", [
    (lambda tg, x: x.reshape(2, True), RuntimeError, "shape '[2, 1]' is invalid for input of size 6"),
    (lambda tg, x: x.view(2, True), RuntimeError, "shape '[2, 1]' is invalid for input of size 6"),
    (lambda tg, x: x.sum((0, True)), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda tg, x: tg.zeros(True, 2), TypeError, "zeros() takes 1 positional argument but 2 were given"),
    (lambda tg, x: tg.zeros(True), TypeError,
     "zeros(): argument 'size' (position 1) must be tuple of ints, not bool"),
    (lambda tg, x: tg.zeros((True, 2)), TypeError, "zeros(): argument 'size' (position 1) must be "
                                                   "tuple of ints, but found element of type bool at pos 0"),
    (lambda tg, x: tg.zeros(size=(True, 2)), TypeError,
     "zeros(): argument 'size' must be tuple of ints, not tuple"),
    (lambda tg, x: tg.zeros(2, np.True_), TypeError, _unpack("zeros", "size", 2, "numpy.bool")),
    (lambda tg, x: tg.zeros(size=[2, np.True_]), TypeError, _unpack("zeros", "size", 2, "numpy.bool")),
    (lambda tg, x: x.sum((0, np.True_)), TypeError, _unpack("sum", "dim", 2, "numpy.bool")),
    # a bool tensor passes for an int until PyTorch reads an int64 out of it
    (lambda tg, x: tg.zeros(2, tg.tensor(True)), RuntimeError,
     "Expected scalar.isIntegral( false) to be true, but got false.  (Could this error message be "
     "improved?  If so, please report an enhancement request to PyTorch.)"),
    (lambda tg, x: x.new(tg.tensor([True]), 3), RuntimeError,
     "Expected scalar.isIntegral( false) to be true, but got false.  (Could this error message be "
     "improved?  If so, please report an enhancement request to PyTorch.)"),
])
def test_a_bool_first_or_numpys_bool_is_no_size(tg, call, error, text):
    with raises_exactly(tg, error, text):
        call(tg, tg.ones(6))


# -- the legacy constructors: new's declaration, checked at their own door ----------------------------
@pytest.mark.parametrize("call, shown", [
    (lambda tg: tg.Tensor(2, 3, device="cpu").shape, "tensorgrad.Size([2, 3])"),
    (lambda tg: tg.Tensor([1, 2], device="cpu"), "tensor([1., 2.])"),
    (lambda tg: tg.Tensor(device="cpu"), "tensor([])"),
    (lambda tg: tg.Tensor(data=[1]), "tensor([1.])"),
    (lambda tg: tg.Tensor(size=(2,)).shape, "tensorgrad.Size([2])"),
    (lambda tg: tg.FloatTensor(2, 3, device="cpu").shape, "tensorgrad.Size([2, 3])"),
    (lambda tg: tg.FloatTensor(data=[1]), "tensor([1.])"),
    (lambda tg: tg.FloatTensor(size=[2]).dtype, "tensorgrad.float32"),
    (lambda tg: tg.DoubleTensor(2).dtype, "tensorgrad.float64"),
    (lambda tg: tg.DoubleTensor(other=tg.ones(1, dtype=tg.float64)), "tensor([1.], dtype=tensorgrad.float64)"),
])
def test_the_legacy_constructors_take_news_keywords(tg, call, shown):
    assert show(call(tg)) == shown


_OPTIONS = ("TensorOptions(dtype={}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


@pytest.mark.parametrize("call, text", [
    (lambda tg: tg.FloatTensor(tg.ones(2, dtype=tg.int64)),
     f"expected {_OPTIONS.format('float')} (got {_OPTIONS.format('long int')})"),
    (lambda tg: tg.FloatTensor(tg.ones(2, dtype=tg.float64)),
     f"expected {_OPTIONS.format('float')} (got {_OPTIONS.format('double')})"),
    (lambda tg: tg.DoubleTensor(tg.ones(2)),
     f"expected {_OPTIONS.format('double')} (got {_OPTIONS.format('float')})"),
    (lambda tg: tg.FloatTensor(2, dtype=tg.float32),
     "new() received an invalid combination of arguments - got (int, dtype=tensorgrad.dtype), but "
     "expected one of:\n * (*, tensorgrad.device device = None)\n      didn't match because some of "
     "the keywords were incorrect: dtype\n * (tensorgrad.Storage storage)\n * (Tensor other)\n"
     " * (tuple of ints size, *, tensorgrad.device device = None)\n"
     " * (object data, *, tensorgrad.device device = None)\n"),
])
def test_a_typed_legacy_constructor_refuses_a_tensor_of_another_dtype(tg, call, text):
    with raises_exactly(tg, TypeError, text):
        call(tg)


def test_a_typed_legacy_constructor_of_a_tensor_of_its_dtype_shares_its_memory(tg):
    x = tg.zeros(2)
    y = tg.FloatTensor(x)
    y[0] = 5
    assert show(x) == "tensor([5., 0.])"


# -- copy.copy: a leaf on the same memory ------------------------------------------------------------
def test_a_copy_of_a_non_leaf_is_a_leaf_on_the_same_memory(tg):
    a = tg.ones(2, requires_grad=True)
    h = a * 2
    h.retain_grad()
    h.label = "doubled"
    c = copy.copy(h)
    assert (c.grad_fn, c.is_leaf, c.requires_grad, c.retains_grad) == (None, True, True, False)
    assert c.label == "doubled" and c is not h
    with tg.no_grad():
        h.add_(1)
    assert show(c) == "tensor([3., 3.], requires_grad=True)" and c._version == h._version == 1
    c.sum().backward()
    assert show(c.grad) == "tensor([1., 1.])" and a.grad is None


def test_a_copy_keeps_the_type_and_not_the_grad(tg):
    p = tg.nn.Parameter(tg.ones(2))
    (p * 2).sum().backward()
    c = copy.copy(p)
    assert type(c).__name__ == "Parameter" and c.grad is None and c.requires_grad
    assert copy.copy(tg.tensor([1, 2])).dtype is tg.int64


# -- retain_grad(), then detach_(): the flag stays, and a recorded change is refused -----------------
def _retained_then_detached(tg):
    a = tg.ones(2, requires_grad=True)
    h = a * 2
    h.retain_grad()
    h.detach_()
    return a, h


def test_a_tensor_detached_in_place_keeps_its_retains_grad_flag(tg):
    a, h = _retained_then_detached(tg)
    assert (h.grad_fn, h.is_leaf, h.retains_grad, h.requires_grad) == (None, True, True, False)
    h.mul_(3)  # nothing recorded: nothing to move
    assert show(h) == "tensor([6., 6.])"


@pytest.mark.parametrize("change", [lambda a, h: h.mul_(a), lambda a, h: h.add_(a)])
def test_a_recorded_change_after_detach_is_refused_as_pytorch_refuses_it(tg, change):
    a, h = _retained_then_detached(tg)
    with raises_exactly(tg, RuntimeError, 'old_fn INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/'
                        'torch/csrc/autograd/variable.cpp":205, please report a bug to PyTorch. '):
        change(a, h)
    assert h.retains_grad
