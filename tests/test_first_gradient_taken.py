"""A leaf's first gradient: taken without a copy when nobody else holds it, copied otherwise.

AccumulateGrad (core/node.py) stores the first gradient that reaches a leaf as its `.grad`. When
that gradient is a fresh array that nothing else holds (what a derivative formula just computed),
it is taken as it is, as PyTorch's AccumulateGrad "steals" it; when anything else may hold it (a
hook, the user, a saved value, another tensor, a view), it is copied. Either way `.grad` shares
memory with nothing: writing into it changes no other tensor and no later gradient.
"""

import sys
import warnings

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad.core import node

F = tg.nn.functional


def shares(a, b):
    return np.shares_memory(a._data, b._data)


def copies_made_by_accumulate_grad(function):
    """How many arrays AccumulateGrad.apply copies while `function()` runs."""
    copies = []
    source = node.__file__

    def profile(frame, event, arg):
        if (event == "c_call" and getattr(arg, "__name__", None) == "copy"
                and frame.f_code.co_name == "apply" and frame.f_code.co_filename == source):
            copies.append(frame.f_lineno)

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return len(copies)


# -- taken ------------------------------------------------------------------------------------
def test_a_fresh_gradient_nobody_holds_is_taken_without_a_copy():
    """A matrix product's gradient for its weight is a fresh array: the weight's `.grad` is that
    array, not a copy of it (an MLP step's largest copy, 784x128 floats, is gone)."""
    x = tg.randn(5, 4)
    w = tg.randn(4, 3, requires_grad=True)
    loss = (x @ w).relu().sum()
    assert copies_made_by_accumulate_grad(loss.backward) == 0
    assert np.allclose(w.grad._data, x._data.T @ ((x._data @ w._data) > 0))


@pytest.mark.parametrize("layer", ["nn.Linear without bias (mm)", "F.linear, a constant bias (addmm)"])
def test_a_linear_layers_weight_gradient_is_taken_in_its_layout(layer):
    """y = x Wᵀ: the product's rule computes W's gradient as (Gᵀ x)ᵀ, so that the transpose's
    rule hands W a matrix in W's own layout (the transpose of a transpose of a fresh array),
    which W.grad takes without a copy, as PyTorch does (784x128 floats in an MNIST MLP)."""
    x = tg.randn(5, 4)
    if layer.startswith("nn.Linear"):
        module = tg.nn.Linear(4, 3, bias=False)
        w, forward = module.weight, module
    else:
        w, b = tg.randn(3, 4, requires_grad=True), tg.randn(3)
        forward = lambda x: F.linear(x, w, b)  # noqa: E731
    loss = forward(x).relu().sum()
    assert copies_made_by_accumulate_grad(loss.backward) == 0
    assert w.grad._data.flags.c_contiguous and w.grad.stride() == w.stride()
    expected = (((forward(x) > 0).float()).t() @ x)._data
    assert np.allclose(w.grad._data, expected)
    assert not any(shares(w.grad, t) for t in (x, w))


def test_a_linear_weight_gradient_whose_transpose_a_hook_kept_is_copied():
    """The hook on Wᵀ keeps the gradient that reaches Wᵀ, a view of the array W's gradient is
    made from: that array is then not taken."""
    x = tg.randn(5, 4)
    w = tg.randn(3, 4, requires_grad=True)
    kept = []
    wt = w.t()
    wt.register_hook(kept.append)
    (x @ wt).sum().backward()
    assert not shares(w.grad, kept[0])
    with tg.no_grad():
        w.grad.add_(100)
    assert np.allclose(kept[0]._data, (x.t() @ tg.ones(5, 3))._data)


# -- copied: anything else may hold it ------------------------------------------------------------
def test_a_gradient_the_user_gave_is_copied():
    a = tg.randn(3, requires_grad=True)
    b = tg.randn(3, requires_grad=True)
    g = tg.tensor([1., 2., 3.])
    (a + b).backward(g)  # AddBackward0 hands g itself to both leaves
    a.backward(g)  # and a leaf's own backward hands it straight to its AccumulateGrad
    assert not shares(a.grad, g) and not shares(b.grad, g) and not shares(a.grad, b.grad)
    with tg.no_grad():
        a.grad.add_(100)
        b.grad.mul_(0)
    assert g.tolist() == [1., 2., 3.]


def test_one_gradient_sent_to_two_leaves_is_taken_at_most_once():
    a = tg.randn(3, requires_grad=True)
    b = tg.randn(3, requires_grad=True)
    ((a + b) * 2).backward(tg.ones(3))  # the product's fresh gradient goes to a and to b
    assert not shares(a.grad, b.grad)
    with tg.no_grad():
        a.grad.add_(1)
    assert b.grad.tolist() == [2., 2., 2.] and a.grad.tolist() == [3., 3., 3.]


def test_a_gradient_a_hook_kept_is_copied():
    a = tg.randn(3, requires_grad=True)
    b = tg.randn(3, requires_grad=True)
    kept = []
    y = a + b
    y.register_hook(kept.append)  # the hook keeps the gradient that reaches y
    (y * 3).backward(tg.ones(3))
    assert not shares(a.grad, kept[0]) and not shares(b.grad, kept[0])
    with tg.no_grad():
        a.grad.add_(1)
    assert kept[0].tolist() == [3., 3., 3.]


@pytest.mark.parametrize("on", ["leaf", "non-leaf"])
def test_a_tensor_a_hook_returns_is_copied(on):
    a = tg.randn(3, requires_grad=True)
    stored = tg.tensor([5., 6., 7.])
    y = a * 1 if on == "non-leaf" else a
    y.register_hook(lambda grad: stored)
    (y * 2).backward(tg.ones(3))
    assert not shares(a.grad, stored)
    with tg.no_grad():
        a.grad.add_(1)
    assert stored.tolist() == [5., 6., 7.]


class ReturnsWhatItKeeps(tg.autograd.Function):
    kept = None
    transposed_twice = False

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        kept = ReturnsWhatItKeeps.kept  # a tensor the Function holds on to, or a view of all of it
        return kept.t().t() if ReturnsWhatItKeeps.transposed_twice else kept


def test_a_tensor_a_custom_function_keeps_is_copied():
    a = tg.randn(3, requires_grad=True)
    ReturnsWhatItKeeps.kept = tg.tensor([1., 1., 1.])
    ReturnsWhatItKeeps.apply(a).sum().backward()
    assert not shares(a.grad, ReturnsWhatItKeeps.kept)
    with tg.no_grad():
        a.grad.add_(1)
    assert ReturnsWhatItKeeps.kept.tolist() == [1., 1., 1.]


def test_a_view_of_all_of_a_tensor_someone_holds_is_copied():
    """The view is all of the array under it, in its layout, as nn.Linear's weight gradient is;
    but the Function keeps the tensor under it, so the array is not taken."""
    a = tg.randn(2, 3, requires_grad=True)
    kept = ReturnsWhatItKeeps.kept = tg.ones(2, 3)
    ReturnsWhatItKeeps.transposed_twice = True
    try:
        ReturnsWhatItKeeps.apply(a).sum().backward()
    finally:
        ReturnsWhatItKeeps.transposed_twice = False
    assert not shares(a.grad, kept)
    with tg.no_grad():
        a.grad.add_(1)
    assert kept.tolist() == [[1., 1., 1.]] * 2


class ReturnsAnArrayItKeeps(tg.autograd.Function):
    kept = None
    as_view = False

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        kept = ReturnsAnArrayItKeeps.kept  # a new tensor over a kept array, or over a view of it
        return tg.from_numpy(kept[:] if ReturnsAnArrayItKeeps.as_view else kept)


@pytest.mark.parametrize("as_view", [False, True], ids=["array", "view"])
def test_a_new_tensor_over_an_array_someone_holds_is_copied(as_view):
    a = tg.randn(3, requires_grad=True)
    ReturnsAnArrayItKeeps.kept = np.ones(3, np.float32)
    ReturnsAnArrayItKeeps.as_view = as_view
    ReturnsAnArrayItKeeps.apply(a).sum().backward()
    assert not np.shares_memory(a.grad._data, ReturnsAnArrayItKeeps.kept)
    with tg.no_grad():
        a.grad.add_(1)
    assert ReturnsAnArrayItKeeps.kept.tolist() == [1., 1., 1.]


def test_a_retained_gradient_and_a_leaf_gradient_share_nothing():
    a = tg.randn(3, requires_grad=True)
    y = a * 2
    y.retain_grad()
    z = y + 0  # AddBackward0 hands y's gradient on to y's own node
    (z * 3).backward(tg.ones(3))
    assert not shares(y.grad, a.grad)
    with tg.no_grad():
        y.grad.add_(100)
    assert a.grad.tolist() == [6., 6., 6.]


def test_a_captured_gradient_and_a_leaf_gradient_share_nothing():
    x = tg.randn(4, 3, requires_grad=True)
    w = tg.randn(3, 2, requires_grad=True)
    loss = (x @ w).sum()
    (gw,) = tg.autograd.grad(loss, w, retain_graph=True)
    loss.backward()
    assert not shares(gw, w.grad)
    assert np.array_equal(gw._data, w.grad._data)


# -- over many operations: nothing shared, saved values intact, a second backward doubles -------
def _cases():
    x = tg.randn(4, 3)
    y = tg.tensor([0, 2, 1, 1])
    rows = tg.arange(4)
    return {
        "mul": lambda a, b: a * b,
        "add": lambda a, b: a + b,
        "sub-broadcast": lambda a, b: a - b[0],
        "div": lambda a, b: a / (b * b + 1),
        "matmul": lambda a, b: a @ b.t(),
        "exp": lambda a, b: a.exp() + b.exp(),
        "tanh-sigmoid": lambda a, b: a.tanh() * b.sigmoid(),
        "relu": lambda a, b: (a + b).relu(),
        "pow": lambda a, b: a ** 2 + b ** 3,
        "sum-mean": lambda a, b: a.sum(0) * b.mean(),
        "reshape-view": lambda a, b: a.reshape(12) * b.view(12),
        "transpose": lambda a, b: a.t() * b.t(),
        "clone-to": lambda a, b: a.clone() * b.to(tg.float64).to(tg.float32),
        "expand": lambda a, b: a[:1].expand(4, 3) * b,
        "index": lambda a, b: a[rows, y] * b[1:3].sum(),
        "cat-stack": lambda a, b: tg.cat([a, b]) * tg.stack([a, b]).sum(0).repeat(2, 1),
        "log_softmax": lambda a, b: -(a + b).log_softmax(dim=1)[rows, y].mean(),
        "cross_entropy": lambda a, b: F.cross_entropy(a * x + b, y),
        "linear": lambda a, b: F.linear(x, a, b[:, 0]).relu(),
    }


def _graph_tensors(output):
    """The output and every saved tensor of every node behind it."""
    found, stack, seen = [output], [output.grad_fn], set()
    while stack:
        current = stack.pop()
        if current is None or current in seen:
            continue
        seen.add(current)
        try:
            found += [v for v in current.saved_tensors if isinstance(v, tg.Tensor)]
        except (RuntimeError, AttributeError):
            pass
        stack += [n for n, _ in current.next_functions]
    return found


@pytest.mark.parametrize("name", list(_cases()))
def test_a_gradient_shares_memory_with_nothing_and_a_second_backward_adds_it_again(name):
    """After backward with retain_graph, no leaf's `.grad` shares memory with an input, the
    output, a saved value or the other leaf's `.grad`; writing into it changes none of them; a
    second backward through the same graph adds exactly the same gradients again."""
    tg.manual_seed(0)
    a = tg.randn(4, 3, requires_grad=True)
    b = tg.randn(4, 3, requires_grad=True)
    out = _cases()[name](a, b)
    out.backward(tg.ones_like(out), retain_graph=True)
    first = [a.grad.clone(), b.grad.clone()]
    others = [a, b, *_graph_tensors(out)]
    before = [t._data.copy() for t in others]
    for leaf, other_leaf in ((a, b), (b, a)):
        assert not shares(leaf.grad, other_leaf.grad)
        assert not any(shares(leaf.grad, t) for t in others), name
    with tg.no_grad():
        a.grad.add_(1000.)
        b.grad.add_(1000.)
    assert all(np.array_equal(t._data, old, equal_nan=True) for t, old in zip(others, before))
    with tg.no_grad():
        a.grad.copy_(first[0])
        b.grad.copy_(first[1])
    out.backward(tg.ones_like(out))
    assert np.allclose(a.grad._data, 2 * first[0]._data)
    assert np.allclose(b.grad._data, 2 * first[1]._data)


def test_under_create_graph_the_first_gradient_is_a_recorded_copy():
    """create_graph=True: `.grad` is a recorded copy (CopyBackwards) that can be differentiated
    again, never the gradient itself."""
    x = tg.tensor([1., 2.], requires_grad=True)
    y = (x ** 3).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's warning about the cycle this makes)
        y.backward(create_graph=True)
    assert x.grad.grad_fn is not None and x.grad.tolist() == [3., 12.]
    (g2,) = tg.autograd.grad(x.grad.sum(), x)
    assert g2.tolist() == [6., 12.]
