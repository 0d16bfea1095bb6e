"""A view whose base was changed in place afterwards (a deliberate difference from PyTorch).

PyTorch rebuilds such a view's graph (AsStridedBackward0 of the base's new grad_fn);
tensorgrad refuses to use it, because its old grad_fn would skip the in-place operation and
give a wrong gradient without a word.
"""

import pytest

import tensorgrad as tg
from tensorgrad.autograd import messages


def make_view():
    x = tg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    base = x * 1
    return x, base, base.view(2, 2)


def test_using_the_view_in_an_operation_is_refused():
    x, base, view = make_view()
    base.mul_(3)
    with pytest.raises(RuntimeError) as info:
        view.sum()
    assert str(info.value) == messages.STALE_VIEW


def test_backward_from_the_view_is_refused():
    x, base, view = make_view()
    base.add_(1)
    with pytest.raises(RuntimeError, match="changed in place after the view was taken"):
        view.backward(tg.ones(2, 2))


def test_a_view_taken_after_the_change_is_fine_and_correct():
    x, base, _ = make_view()
    base.mul_(3)
    base.view(2, 2).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0, 3.0]  # torch gives the same


def test_views_of_views_are_checked_against_the_root():
    x, base, view = make_view()
    row = view[0]
    base.mul_(3)
    with pytest.raises(RuntimeError, match="changed in place after the view was taken"):
        row * 2


def test_a_change_under_no_grad_keeps_the_graph_so_the_view_is_still_usable():
    x, base, view = make_view()
    with tg.no_grad():
        base.mul_(3)  # not recorded: base keeps its grad_fn, as the view's graph assumes
    view.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0, 1.0]  # torch gives the same


def test_views_of_a_leaf_and_views_without_grad_are_not_affected():
    x = tg.tensor([1.0, 2.0])
    v = x.view(2, 1)
    x.add_(1)
    assert (v * 2).tolist() == [[4.0], [6.0]]
    leaf = tg.tensor([1.0, 2.0], requires_grad=True)
    w = leaf.view(2, 1)
    with tg.no_grad():
        leaf.mul_(2)
    (w * 1).sum().backward()
    assert leaf.grad.tolist() == [1.0, 1.0]


def test_a_view_taken_before_its_base_needed_gradients_is_refused_too():
    # PyTorch gives such a view a graph through the in-place op; without one, its gradient
    # would be missing without a word
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    base = tg.zeros(2)
    view = base[:1]
    base.add_(w)
    with pytest.raises(RuntimeError, match="changed in place after the view was taken"):
        view.sum()
