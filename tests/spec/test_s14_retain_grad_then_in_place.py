"""retain_grad() and then an in-place change: `.grad` is the gradient of the value the tensor
holds now, as in PyTorch, which moves the retained-gradient registration to the new grad_fn
(issue 30, outside review s14, F1). Before, tensorgrad stored the gradient of the value before
the change, and `backward(inputs=[h])` stored nothing. Each case runs on both libraries
(PyTorch 2.13.0, measured).
"""

import pytest

from .conftest import show


def _doubled(tg):
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    h = a * 2
    h.retain_grad()
    return a, h


@pytest.mark.parametrize("change, loss, grad", [
    (lambda h: h.mul_(3), lambda h: (h * h).sum(), "tensor([12., 24.])"),  # 2h, h = [6, 12]
    (lambda h: h.__setitem__(0, 7.0), lambda h: (h * h).sum(), "tensor([14.,  8.])"),
    (lambda h: h.exp_(), lambda h: h.sum(), "tensor([1., 1.])"),
    (lambda h: h.add_(1), lambda h: (h * h).sum(), "tensor([ 6., 10.])"),
])
def test_grad_is_the_gradient_of_the_changed_value(tg, change, loss, grad):
    a, h = _doubled(tg)
    change(h)
    loss(h).backward()
    assert show(h.grad) == grad
    assert h.retains_grad


def test_the_gradient_through_the_old_value_still_reaches_the_leaf(tg):
    a, h = _doubled(tg)
    h.mul_(3)
    (h * h).sum().backward()
    assert show(a.grad) == "tensor([ 72., 144.])"


def test_backward_with_inputs_stores_the_changed_values_gradient(tg):
    a, h = _doubled(tg)
    h.mul_(3)
    (h * h).sum().backward(inputs=[h])
    assert show(h.grad) == "tensor([12., 24.])"
    assert a.grad is None


def test_two_changes_in_a_row(tg):
    a, h = _doubled(tg)
    h.mul_(3)
    h.add_(1)
    (h * h).sum().backward()
    assert show(h.grad) == "tensor([14., 26.])"


def test_autograd_grad_fills_the_retained_grad_too(tg):
    a, h = _doubled(tg)  # (PyTorch: a retained tensor's .grad is filled by autograd.grad too)
    h.mul_(3)
    (g,) = tg.autograd.grad((h * h).sum(), a)
    assert show(g) == "tensor([ 72., 144.])"
    assert show(h.grad) == "tensor([12., 24.])"


def test_a_custom_function_that_marks_its_input_dirty(tg):
    class Double(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    a, h = _doubled(tg)
    Double.apply(h)
    (h * h).sum().backward()
    assert show(h.grad) == "tensor([ 8., 16.])"  # 2h, h = [4, 8]
    assert show(a.grad) == "tensor([32., 64.])"
