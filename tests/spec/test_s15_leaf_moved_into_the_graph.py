"""A leaf that stopped requiring grad (`requires_grad_(False)` after the forward pass) and was
then moved into the graph by an in-place operation with an input that requires grad: when
backward reaches the leaf's old AccumulateGrad, PyTorch refuses ("leaf variable has been moved
into the graph interior"), where tensorgrad used to write a `.grad` into what is now a non-leaf
(issue 30, outside review s14b, F1). A backward that does not reach that node (only the new
graph, autograd.grad or backward(inputs=) elsewhere) runs, as in PyTorch. Each case runs on
both libraries (PyTorch 2.13.0, measured).
"""

import pytest

from .conftest import raises_exactly, show

MOVED = "leaf variable has been moved into the graph interior"


def _moved(tg, change=lambda x, b: x.mul_(b)):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    b = tg.tensor([3.0, 4.0], requires_grad=True)
    y = x * 2  # (x's AccumulateGrad is in y's graph)
    x.requires_grad_(False)
    change(x, b)
    return x, b, y


@pytest.mark.parametrize("change", [
    lambda x, b: x.mul_(b), lambda x, b: x.add_(b), lambda x, b: x.__setitem__(0, b[0]),
    lambda x, b: x.copy_(b),
], ids=["mul_", "add_", "x[0] = b[0]", "copy_"])
def test_backward_into_the_old_accumulator_is_refused(tg, change):
    x, b, y = _moved(tg, change)
    assert not x.is_leaf
    with raises_exactly(tg, RuntimeError, MOVED):
        y.sum().backward()
    assert x.grad is None


def test_also_with_the_new_graph_in_the_same_backward(tg):
    x, b, y = _moved(tg)
    with raises_exactly(tg, RuntimeError, MOVED):
        (y.sum() + x.sum()).backward()


def test_a_backward_that_does_not_reach_the_old_accumulator_runs(tg):
    x, b, y = _moved(tg)
    x.sum().backward()  # only the new graph: x = x_old * b
    assert show(b.grad) == "tensor([1., 2.])"
    assert x.grad is None


def test_autograd_grad_does_not_run_the_accumulator(tg):
    x, b, y = _moved(tg)
    (g,) = tg.autograd.grad(y.sum() + x.sum(), b)
    assert show(g) == "tensor([1., 2.])"


def test_backward_with_inputs_elsewhere_does_not_run_it(tg):
    x, b, y = _moved(tg)
    y.sum().backward(inputs=[b])
    assert b.grad is None and x.grad is None


def test_without_the_in_place_op_the_leaf_takes_nothing(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    x.requires_grad_(False)
    y.sum().backward()
    assert x.grad is None and x.is_leaf


def test_under_no_grad_the_leaf_stays_a_leaf_and_takes_nothing(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    b = tg.tensor([3.0, 4.0], requires_grad=True)
    y = x * 2
    x.requires_grad_(False)
    with tg.no_grad():
        x.mul_(b)
    y.sum().backward()
    assert x.grad is None and x.is_leaf
