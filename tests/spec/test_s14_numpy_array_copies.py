"""`np.array(t)` is a copy, `np.asarray(t)` shares the tensor's memory, and `copy=False` is
refused, as with PyTorch 2.13 under NumPy 2 (issue 30, outside review s14, F2). Before,
`np.array(t)` handed out the tensor's own memory: writing to the "copy" changed the tensor, and
a value saved for backward, with no version bump to notice it.

PyTorch's `__array__` takes no `copy` keyword, so NumPy warns (DeprecationWarning) and copies
itself; tensorgrad's takes the keyword. The warning is NumPy's about PyTorch's signature, not
behaviour to copy, so these tests ignore it.
"""

import warnings

import numpy as np
import pytest

from .conftest import raises_exactly, show

COPY_REFUSED = (  # NumPy's words
    "Unable to avoid copy while creating an array as requested.\n"
    "If using `np.array(obj, copy=False)` replace it with `np.asarray(obj)` to allow a copy when "
    "needed (no behavior change in NumPy 1.x).\n"
    "For more details, see https://numpy.org/devdocs/numpy_2_0_migration_guide.html"
    "#adapting-to-changes-in-the-copy-keyword.")


@pytest.fixture(autouse=True)
def _numpy_about_torchs_signature():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


@pytest.mark.parametrize("convert, shares", [
    (lambda t: np.array(t), False),
    (lambda t: np.array(t, copy=True), False),
    (lambda t: np.asarray(t, copy=True), False),
    (lambda t: np.array(t, dtype=np.float32), False),
    (lambda t: np.array(t, dtype=np.float64), False),
    (lambda t: np.asarray(t), True),
    (lambda t: np.array(t, copy=None), True),
    (lambda t: np.asarray(t, dtype=np.float32), True),
    (lambda t: np.asarray(t, dtype=np.float64), False),
])
def test_which_conversions_share_memory(tg, convert, shares):
    t = tg.ones(3)
    array = convert(t)
    array[0] = 5
    assert show(t) == ("tensor([5., 1., 1.])" if shares else "tensor([1., 1., 1.])")
    assert np.shares_memory(array, t.numpy()) is shares


@pytest.mark.parametrize("convert", [
    lambda t: np.array(t, copy=False),
    lambda t: np.asarray(t, copy=False),
    lambda t: np.asarray(t, dtype=np.float64, copy=False),
])
def test_copy_false_is_refused(tg, convert):
    with raises_exactly(tg, ValueError, COPY_REFUSED):
        convert(tg.ones(3))


def test_a_copy_cannot_change_a_saved_value(tg):
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    b = tg.tensor([3.0, 4.0])
    y = a * b
    np.array(b)[:] = 100.0
    y.sum().backward()
    assert show(a.grad) == "tensor([3., 4.])" and show(b) == "tensor([3., 4.])"


def test_a_tensor_that_requires_grad_is_refused(tg):
    t = tg.ones(2, requires_grad=True)
    for convert in (np.array, np.asarray):
        with pytest.raises(RuntimeError, match="^Can't call numpy"):
            convert(t)


def test_a_zero_dimensional_tensor(tg):
    array = np.array(tg.tensor(3.0))
    assert array.shape == () and array.dtype == np.float32 and array == 3.0
