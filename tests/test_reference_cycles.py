"""core/node.py's module docstring, held to its words (the outside review s15, F3): recording
operations forms no reference cycle, except an in-place change of a tensor that a node keeps as
a saved value, and backward refuses every graph of that kind."""

import gc
import weakref

import pytest

import tensorgrad as tg

CYCLES = {
    "h.copy_(h * b)": lambda h, b: h.copy_(h * b),
    "h[0] = h[1] * b": lambda h, b: h.__setitem__(0, h[1] * b[0]),
    "h.mul_(h.view(2))": lambda h, b: h.mul_(h.view(2)),
    "h.mul_(h)": lambda h, b: h.mul_(h),
}
NO_CYCLES = {
    "h * b": lambda h, b: h * b,
    "h.exp_()": lambda h, b: h.exp_(),
    "h[0] = h[1]": lambda h, b: h.__setitem__(0, h[1]),
    "y = h * h; h.mul_(2)": lambda h, b: (h * h, h.mul_(2)),
}


def _node_outlives_its_names(program):
    """Is h's last node still alive when every name is gone, with the cycle collector off?"""
    gc.collect()
    gc.disable()
    try:
        a = tg.tensor([1., 2.], requires_grad=True)
        b = tg.tensor([3., 4.], requires_grad=True)
        h = a * 2
        program(h, b)
        node = weakref.ref(h.grad_fn)
        del a, b, h
        return node() is not None
    finally:
        gc.enable()
        gc.collect()


@pytest.mark.parametrize("name", NO_CYCLES)
def test_recording_forms_no_cycle(name):
    assert not _node_outlives_its_names(NO_CYCLES[name])


@pytest.mark.parametrize("name", CYCLES)
def test_an_in_place_change_of_a_saved_tensor_forms_one_that_backward_refuses(name):
    assert _node_outlives_its_names(CYCLES[name])
    a = tg.tensor([1., 2.], requires_grad=True)
    b = tg.tensor([3., 4.], requires_grad=True)
    h = a * 2
    CYCLES[name](h, b)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        h.sum().backward()
