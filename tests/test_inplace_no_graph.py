"""add_, sub_ and mul_ when no graph is recorded (an optimizer step under no_grad).

tensorgrad writes these straight into the tensor's memory (`ufunc(data, other, out=data)`).
These tests pin down that the shortcut behaves exactly like the general path: same memory, the
version counter bumped once, views and aliases see the change, and every case the shortcut does
not take (dtype changes, shapes that do not fit, bools) still gives PyTorch's result or message.
"""

import numpy as np
import pytest

from parity import lib, raises, show  # noqa: F401  (lib is a fixture)


def test_sub_under_no_grad_writes_into_the_same_memory(lib):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    before = w.data_ptr()
    with lib.no_grad():
        w.sub_(lib.tensor([0.5, 0.5, 0.5]) * 0.1)
    assert w.data_ptr() == before
    assert w._version == 1
    assert show(w) == "tensor([0.9500, 1.9500, 2.9500], requires_grad=True)"


def test_add_with_alpha_and_a_number(lib):
    x = lib.tensor([1.0, 2.0])
    x.add_(lib.tensor([1.0, 1.0]), alpha=-0.5)
    x.add_(1)
    x.mul_(2.0)
    assert show(x) == "tensor([3., 5.])"
    assert x._version == 3


def test_views_and_detached_aliases_see_the_change(lib):
    base = lib.zeros(2, 3)
    row = base[1]
    alias = base.detach()
    row.add_(lib.ones(3))
    assert show(base) == "tensor([[0., 0., 0.],\n        [1., 1., 1.]])"
    assert alias._version == base._version == row._version == 1


def test_broadcast_other_is_fine_but_growing_self_is_not(lib):
    x = lib.zeros(2, 3)
    x.add_(lib.tensor([1.0, 2.0, 3.0]))
    assert show(x) == "tensor([[1., 2., 3.],\n        [1., 2., 3.]])"
    small = lib.zeros(3)
    raises(RuntimeError,
           "output with shape [3] doesn't match the broadcast shape [2, 3]",
           lambda: small.add_(lib.zeros(2, 3)))
    assert small._version == 0


def test_integer_tensor_rules(lib):
    n = lib.tensor([1, 2, 3])
    n.add_(2)
    n.mul_(3)
    assert show(n) == "tensor([ 9, 12, 15])"
    raises(RuntimeError, "result type Float can't be cast to the desired output type Long",
           lambda: n.add_(0.5))
    raises(RuntimeError, "result type Float can't be cast to the desired output type Long",
           lambda: n.add_(lib.tensor([1.0, 1.0, 1.0])))


def test_float32_tensor_with_a_float64_other_stays_float32(lib):
    x = lib.ones(2)
    x.add_(lib.tensor([0.25, 0.5], dtype=lib.float64))
    assert show(x) == "tensor([1.2500, 1.5000])"


def test_a_leaf_that_requires_grad_still_refuses_with_grad_on(lib):
    w = lib.ones(2, requires_grad=True)
    raises(RuntimeError,
           "a leaf Variable that requires grad is being used in an in-place operation.",
           lambda: w.sub_(1.0))


def test_in_place_on_a_result_with_grad_on_is_recorded(lib):
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    y.mul_(3.0)
    assert show(y.grad_fn.name()) == "MulBackward0"
    y.sum().backward()
    assert show(x.grad) == "tensor([6., 6.])"


def test_the_shortcut_saves_a_step_of_memory_traffic():
    """Not a timing test: the shortcut must not allocate a result array the size of the tensor."""
    import tracemalloc

    import tensorgrad as tg

    w = tg.zeros(1000, 1000)
    g = tg.ones(1000, 1000)
    with tg.no_grad():
        tracemalloc.start()
        w.sub_(g)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 1_000_000  # the general path would allocate 4 MB for the result
    assert np.all(w.numpy() == -1)


def test_the_optimizers_quick_test_lets_no_refusal_through():
    """The optimizer's case (float tensors owning their memory, under no_grad) is decided by
    one test before the refusals; arrays that pass most of that test still get them: memory
    owned but with one element used three times (strides (0,)), and owned but read-only."""
    import tensorgrad as tg

    repeated = tg.from_numpy(np.ndarray((3,), strides=(0,)))
    read_only = np.ones(3)
    read_only.flags.writeable = False
    with tg.no_grad():
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            repeated.sub_(tg.ones(3, dtype=tg.float64))
        with pytest.raises(RuntimeError, match="memory is read-only"):
            tg.from_numpy(read_only).sub_(tg.ones(3, dtype=tg.float64))
        with pytest.raises(RuntimeError, match="Boolean alpha"):
            tg.ones(3).sub_(tg.ones(3), alpha=True)
