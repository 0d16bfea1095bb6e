"""The backward engine under stress, and its order and bookkeeping compared with PyTorch.

* deep graphs: a 100,000-op chain backpropagates, and is torn down, with the default
  recursion limit (the engine and the graph's teardown are iterative);
* garbage: a training step leaves nothing for the cycle collector (`gc.collect() == 0`);
* order: tensor hooks run in the same order as in PyTorch;
* bookkeeping: second backward after freeing, retain_graph, `inputs=`, `autograd.grad` with
  non-leaf inputs, diamonds, several roots, a value used twice, deep fan-out;
* parity: gradients (and Hessian-vector products) of random compositions equal PyTorch's.

Tests that compare with PyTorch skip when torch is not installed
(`pip install torch==2.13.0`, a CPU build).
"""

import contextlib
import gc
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from fd import REPO_ROOT

import tensorgrad as tg
from tensorgrad.autograd import messages

try:
    import torch
except ImportError:  # the parity tests skip
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
LIBRARIES = ["tensorgrad", pytest.param("torch", marks=needs_torch)]


def library(name):
    return tg if name == "tensorgrad" else torch


def as_numpy(t):
    if t is None:
        return None
    if torch is not None and isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True).astype(np.float64)  # (also torch's ZeroTensors)
    return np.array(t.detach().numpy(), dtype=np.float64)


# -- deep graphs ------------------------------------------------------------------------------
DEPTH = 100_000


def test_100k_op_chain_backpropagates_with_the_default_recursion_limit():
    limit = sys.getrecursionlimit()
    assert limit <= 3000, "the test must run with Python's default recursion limit"
    start = np.array([0.5, -0.3, 1.2, 0.0])
    x = tg.tensor(start, requires_grad=True)
    y, value, derivative = x, start.copy(), np.ones(4)
    for i in range(DEPTH):  # add, mul, tanh, mul, sub in turn; the reference follows in NumPy
        step = i % 5
        if step == 0:
            y, value = y + 0.001, value + 0.001
        elif step == 1:
            y, value, derivative = y * 2.0, value * 2.0, derivative * 2.0
        elif step == 2:
            y, value = y.tanh(), np.tanh(value)
            derivative = derivative * (1 - value * value)
        elif step == 3:
            y, value, derivative = y * 0.5, value * 0.5, derivative * 0.5
        else:
            y, value = y - 0.001, value - 0.001
    y.sum().backward()
    assert sys.getrecursionlimit() == limit
    assert np.all(derivative > 1e-12)  # the reference is not trivially 0
    np.testing.assert_allclose(x.grad.numpy(), derivative, rtol=1e-9)
    np.testing.assert_allclose(y.detach().numpy(), value, rtol=1e-9)
    del y  # tearing the (freed) graph down must not recurse either
    assert sys.getrecursionlimit() == limit


def test_deleting_a_deep_live_graph_does_not_crash():
    """Deallocating a 100,000-node graph whose saved tensors are all alive (no backward ran).

    Run in a fresh interpreter: if teardown recursed in C it would crash the process, which
    shows here as a non-zero return code instead of taking pytest down with it.
    """
    code = textwrap.dedent(f"""
        import gc, sys
        sys.path.insert(0, {str(REPO_ROOT)!r})
        import tensorgrad as tg
        x = tg.ones(4, dtype=tg.float64, requires_grad=True)
        w = tg.full((4,), 1.0001, dtype=tg.float64, requires_grad=True)
        y = x
        for i in range({DEPTH}):
            y = y * w if i % 2 else (y + x).tanh()  # both save tensors
        del y
        assert gc.collect() == 0
        print("deleted", sys.getrecursionlimit())
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.split() == ["deleted", str(sys.getrecursionlimit())]


CHAIN = 10_000


def test_deep_chain_retain_graph_and_second_order():
    x = tg.tensor([0.3, -0.2], dtype=tg.float64, requires_grad=True)
    y = x
    for _ in range(CHAIN):
        y = (y * 1.0001).sin()
    out = y.sum()
    (g,) = tg.autograd.grad(out, x, create_graph=True)
    (h,) = tg.autograd.grad(g.sum(), x, retain_graph=True)  # g's graph runs through out's
    # a reference for both orders, by forward-mode in NumPy
    value, d1, d2 = np.array([0.3, -0.2]), np.ones(2), np.zeros(2)
    for _ in range(CHAIN):
        u = value * 1.0001
        d2 = np.cos(u) * 1.0001 * d2 - np.sin(u) * (1.0001 * d1) ** 2
        d1 = np.cos(u) * 1.0001 * d1
        value = np.sin(u)
    np.testing.assert_allclose(g.detach().numpy(), d1, rtol=1e-9)
    np.testing.assert_allclose(h.numpy(), d2, rtol=1e-8)
    out.backward(retain_graph=True)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * d1, rtol=1e-9)


def test_wide_and_deep_fan_out():
    """Every layer uses the previous one three times: 3^200 paths, each layer summed once."""
    start = np.array([0.1, 0.2, -0.3])
    x = tg.tensor(start, requires_grad=True)
    _fan_out(x).backward()
    eps = 1e-6
    expected = []
    for i in range(3):
        step = np.zeros(3)
        step[i] = eps
        with tg.no_grad():
            plus = _fan_out(tg.tensor(start + step)).item()
            minus = _fan_out(tg.tensor(start - step)).item()
        expected.append((plus - minus) / (2 * eps))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, atol=1e-9)


def _fan_out(t):
    for _ in range(200):
        t = (t.sin() + t * 0.5 + t.tanh() * t) * 0.5
    return t.sum()


# -- garbage ----------------------------------------------------------------------------------
@contextlib.contextmanager
def collector_off():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def make_model(seed=0):
    rng = np.random.default_rng(seed)
    params = [tg.tensor(rng.standard_normal(shape) * 0.3, dtype=tg.float32, requires_grad=True)
              for shape in [(8, 16), (16,), (16, 3)]]
    x = tg.tensor(rng.standard_normal((5, 8)), dtype=tg.float32)
    labels = tg.tensor([0, 2, 1, 1, 0])
    return params, x, labels


def loss_of(params, x, labels, keep=None):
    w1, b1, w2 = params
    hidden = (x @ w1 + b1).relu()
    if keep is not None:
        keep(hidden)
    logits = hidden @ w2
    return -logits.log_softmax(1)[tg.arange(5), labels].mean()


def sgd_update(params, lr=0.1, zero_in_place=False):
    with tg.no_grad():
        for p in params:
            p -= lr * p.grad
    for p in params:
        if zero_in_place:
            p.grad.zero_()
        else:
            p.grad = None


def _plain(params, x, labels):
    loss_of(params, x, labels).backward()
    sgd_update(params)


def _zero_grad_in_place(params, x, labels):
    loss_of(params, x, labels).backward()
    sgd_update(params, zero_in_place=True)


def _retain_graph(params, x, labels):
    loss = loss_of(params, x, labels)
    loss.backward(retain_graph=True)
    loss.backward()
    sgd_update(params)


def _retain_grad(params, x, labels):
    kept = []
    loss = loss_of(params, x, labels, keep=lambda h: (h.retain_grad(), kept.append(h)))
    loss.backward()
    assert kept[0].grad is not None
    sgd_update(params)


def _hooks(params, x, labels):
    seen = []
    handles = [params[0].register_hook(lambda g: seen.append(g.shape))]
    loss = loss_of(params, x, labels,
                   keep=lambda h: handles.append(h.register_hook(lambda g: g * 2)))
    loss.backward()
    assert seen == [(8, 16)]
    handles[0].remove()
    sgd_update(params)


def _create_graph_with_autograd_grad(params, x, labels):
    loss = loss_of(params, x, labels)
    grads = tg.autograd.grad(loss, params, create_graph=True)
    penalty = sum((g * g).sum() for g in grads)
    hvps = tg.autograd.grad(penalty, params)
    with tg.no_grad():
        for p, g, h in zip(params, grads, hvps):
            p -= 0.1 * (g + h)


def _in_place_and_views(params, x, labels):
    w1, b1, w2 = params
    hidden = x @ w1 + b1
    hidden.mul_(0.5)
    hidden[:, 0] = 0.0
    hidden.add_(1.0)
    hidden = hidden.relu()
    rows = hidden.view(5, 4, 4).transpose(1, 2).reshape(5, 16)
    loss = -(rows @ w2).log_softmax(1)[tg.arange(5), labels].mean()
    loss.backward()
    sgd_update(params)


def _backward_create_graph_then_reset_grads(params, x, labels):
    """backward(create_graph=True) makes param -> .grad -> graph -> param cycles (PyTorch warns
    about it); setting .grad to None, as the warning recommends, must break them all."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss_of(params, x, labels).backward(create_graph=True)
    sgd_update(params)


TRAINING_STEPS = {
    "plain": _plain,
    "zero_grad_in_place": _zero_grad_in_place,
    "retain_graph": _retain_graph,
    "retain_grad": _retain_grad,
    "hooks": _hooks,
    "create_graph_autograd_grad": _create_graph_with_autograd_grad,
    "in_place_and_views": _in_place_and_views,
    "backward_create_graph_then_reset": _backward_create_graph_then_reset_grads,
}


@pytest.mark.parametrize("name", list(TRAINING_STEPS))
def test_training_step_leaves_nothing_for_the_garbage_collector(name):
    params, x, labels = make_model()
    TRAINING_STEPS[name](params, x, labels)  # a first step: warm-up (caches, warnings, ...)
    with collector_off():
        for _ in range(3):
            TRAINING_STEPS[name](params, x, labels)
        found = gc.collect()
    assert found == 0, f"{name}: {found} objects were only reachable through cycles"


def test_backward_create_graph_without_reset_leaves_the_documented_cycle():
    """The cycle PyTorch's warning describes, shown to exist (so that the check above can see
    cycles at all) and to be the only one: resetting .grad removes it."""
    params, x, labels = make_model()
    with collector_off(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss_of(params, x, labels).backward(create_graph=True)
        assert all(p.grad.grad_fn is not None for p in params)
        del params, x, labels
        assert gc.collect() > 0


def test_a_hook_that_holds_its_tensor_is_a_user_made_cycle():
    with collector_off():
        x = tg.ones(3, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g, held=y: g * held.detach())  # y -> node -> hook -> y
        y.sum().backward()
        del x, y
        assert gc.collect() > 0


def test_graph_objects_are_freed_by_reference_counting():
    import weakref

    x = tg.ones(3, requires_grad=True)
    y = (x * 2).exp()
    node = weakref.ref(y.grad_fn)
    accumulate = weakref.ref(y.grad_fn.next_functions[0][0].next_functions[0][0])
    with collector_off():
        del y
        assert node() is None and accumulate() is None


# -- order: hooks run as in PyTorch ----------------------------------------------------------
def _diamond(lib, tag):
    x = tag(lib.tensor([0.5, -1.0, 2.0], requires_grad=True), "x")
    a = tag(x * 2, "a")
    b = tag(a.sin(), "b")
    c = tag(a.cos(), "c")
    d = tag(b * c, "d")
    return [(d + a).sum()]


def _two_leaves(lib, tag):
    x = tag(lib.tensor([1.0, 2.0], requires_grad=True), "x")
    w = tag(lib.tensor([0.5, -0.5], requires_grad=True), "w")
    c = tag(x * w, "c")
    d = tag(c + x, "d")
    e = tag(d.exp() * w, "e")
    return [e.sum() + c.sum()]


def _interleaved_branches(lib, tag):
    x = tag(lib.tensor([1.0, 2.0], requires_grad=True), "x")
    y = tag(lib.tensor([3.0, 4.0], requires_grad=True), "y")
    a1 = tag(x * 1.5, "a1")
    b1 = tag(y * 0.5, "b1")
    a2 = tag(a1.exp(), "a2")
    b2 = tag(b1.tanh(), "b2")
    a3 = tag(a2 - 1, "a3")
    return [(a3 + b2).sum()]


def _fan_out_layers(lib, tag):
    x = tag(lib.tensor([0.1, 0.2, 0.3], requires_grad=True), "x")
    h = x
    for i in range(3):
        left = tag(h.tanh(), f"left{i}")
        right = tag(h * h, f"right{i}")
        h = tag(left + right * 0.1, f"h{i}")
    return [h.sum()]


def _multi_input_nodes(lib, tag):
    x = tag(lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True), "x")
    y = tag(lib.tensor([[0.5, 0.5], [1.0, 1.0]], requires_grad=True), "y")
    s = tag(lib.stack([x, y, x * y]), "s")
    c = tag(lib.cat([s[0], s[2]], 1), "c")
    m = tag(x @ y, "m")
    return [c.sum() + m.sum() + s.max()]


def _several_roots(lib, tag):
    x = tag(lib.tensor([1.0, -2.0], requires_grad=True), "x")
    a = tag(x.exp(), "a")
    b = tag(a * x, "b")
    c = tag(x.sin(), "c")
    return [b.sum(), c.sum(), (a * c).sum()]


def _in_place(lib, tag):
    x = tag(lib.tensor([1.0, -2.0, 3.0], requires_grad=True), "x")
    y = x * 2
    y.mul_(3)
    tag(y, "y_after_mul_")
    z = tag(y[1:].sum() * 2, "z")
    y[0] = 0.0
    tag(y, "y_after_setitem")
    return [z + y.sum()]


HOOK_GRAPHS = {
    "diamond": _diamond,
    "two_leaves": _two_leaves,
    "interleaved_branches": _interleaved_branches,
    "fan_out_layers": _fan_out_layers,
    "multi_input_nodes": _multi_input_nodes,
    "several_roots": _several_roots,
    "in_place": _in_place,
}


def run_with_hooks(lib, build, backward="backward"):
    calls = []
    leaves = {}

    def tag(t, name):
        def hook(grad):
            calls.append((name, np.round(as_numpy(grad), 10).tolist()))
        t.register_hook(hook)
        if t.is_leaf:
            leaves[name] = t
        return t

    roots = build(lib, tag)
    if backward == "backward":
        lib.autograd.backward(roots)
        grads = {name: as_numpy(t.grad).tolist() for name, t in leaves.items()}
    else:
        names = sorted(leaves)
        found = lib.autograd.grad(roots, [leaves[n] for n in names])
        grads = {n: as_numpy(g).tolist() for n, g in zip(names, found)}
    return calls, grads


@needs_torch
@pytest.mark.parametrize("how", ["backward", "autograd.grad"])
@pytest.mark.parametrize("graph", list(HOOK_GRAPHS))
def test_hooks_run_in_pytorchs_order(graph, how):
    ours = run_with_hooks(tg, HOOK_GRAPHS[graph], how)
    theirs = run_with_hooks(torch, HOOK_GRAPHS[graph], how)
    assert [name for name, _ in ours[0]] == [name for name, _ in theirs[0]]
    for (name, ours_grad), (_, their_grad) in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(ours_grad, their_grad, rtol=1e-5, err_msg=name)
    for name in theirs[1]:
        np.testing.assert_allclose(ours[1][name], theirs[1][name], rtol=1e-5, err_msg=name)


def test_hook_order_without_torch():
    """A fixed expectation (PyTorch's order), so that the order is checked without torch too."""
    calls, _ = run_with_hooks(tg, _diamond)
    assert [name for name, _ in calls] == ["d", "c", "b", "a", "x"]
    calls, _ = run_with_hooks(tg, _interleaved_branches)  # newest node first; leaves at once
    assert [name for name, _ in calls] == ["a3", "b2", "a2", "b1", "y", "a1", "x"]
    calls, _ = run_with_hooks(tg, _fan_out_layers)
    assert [name for name, _ in calls] == ["h2", "right2", "left2", "h1", "right1", "left1",
                                           "h0", "right0", "left0", "x"]


# -- second backward, retain_graph ---------------------------------------------------------
def _setitem(lib, x):
    y = x.clone()
    y[[0, 2]] = 5.0
    return y.sum()


def _setitem_basic(lib, x):
    y = x.clone()
    y[1:] = x[:2] * 1
    return y.sum()


SECOND_BACKWARD_CASES = {
    # name: (builder, does the graph save something, so that a second backward fails?)
    "add": (lambda lib, x: (x + 1).sum(), False),
    "neg_sub_rsub": (lambda lib, x: (1 - (-x) - 2).sum(), False),
    "sum_mean": (lambda lib, x: x.sum() + x.mean(), False),
    "views": (lambda lib, x: x.reshape(3, 1).t().unsqueeze(0).squeeze().sum(), False),
    "expand_repeat": (lambda lib, x: x.expand(2, 3).sum() + x.repeat(2).sum(), False),
    "basic_indexing": (lambda lib, x: x[1:].sum() + x[0] + x[None].sum(), False),
    "cat_stack_clone": (lambda lib, x: lib.cat([x, x.clone()]).sum() + lib.stack([x]).sum(),
                        False),
    "cast": (lambda lib, x: x.double().sum(), False),
    "mul_scalar": (lambda lib, x: (x * 2).sum(), True),
    "div_scalar": (lambda lib, x: (x / 2).sum(), True),
    "mul": (lambda lib, x: (x * x).sum(), True),
    "pow": (lambda lib, x: (x ** 2).sum(), True),
    "exp": (lambda lib, x: x.exp().sum(), True),
    "relu": (lambda lib, x: x.relu().sum(), True),
    "max": (lambda lib, x: x.max(), True),
    "softmax": (lambda lib, x: x.softmax(0)[0], True),
    "matmul": (lambda lib, x: x @ x, True),
    "advanced_indexing": (lambda lib, x: x[[0, 0, 2]].sum(), True),
    "mask_indexing": (lambda lib, x: x[x > 0].sum(), True),
    "setitem": (_setitem, True),
    "setitem_basic": (_setitem_basic, True),
    "where": (lambda lib, x: lib.where(x > 0, x, 0.0).sum(), True),
    "gather": (lambda lib, x: x.gather(0, lib.tensor([0, 0])).sum(), True),
}


@pytest.mark.parametrize("lib_name", LIBRARIES)
@pytest.mark.parametrize("case", list(SECOND_BACKWARD_CASES))
def test_second_backward_fails_exactly_when_something_saved_was_freed(case, lib_name):
    lib = library(lib_name)
    build, saves = SECOND_BACKWARD_CASES[case]
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    out = build(lib, x)
    out.backward()
    first = as_numpy(x.grad)
    if saves:
        with pytest.raises(RuntimeError) as error:
            out.backward()
        assert str(error.value).split(" (Triggered internally")[0] == messages.SECOND_BACKWARD
        np.testing.assert_array_equal(as_numpy(x.grad), first)  # unchanged by the failed call
    else:
        out.backward()
        np.testing.assert_allclose(as_numpy(x.grad), 2 * first)


@pytest.mark.parametrize("lib_name", LIBRARIES)
def test_retain_graph(lib_name):
    lib = library(lib_name)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    out = (x * x).sum()
    out.backward(retain_graph=True)
    out.backward(retain_graph=True)
    (g,) = lib.autograd.grad(out, x, retain_graph=True)
    out.backward()
    np.testing.assert_allclose(as_numpy(x.grad), 3 * as_numpy(g))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        lib.autograd.grad(out, x)


@pytest.mark.parametrize("lib_name", LIBRARIES)
def test_autograd_grad_frees_the_graph_and_create_graph_keeps_it(lib_name):
    lib = library(lib_name)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    out = (x.exp() * x).sum()
    (g,) = lib.autograd.grad(out, x, create_graph=True)  # retain_graph defaults to True here
    (h,) = lib.autograd.grad(g.sum(), x, retain_graph=True)
    np.testing.assert_allclose(as_numpy(h), np.exp([1.0, 2.0]) * ([1.0, 2.0] + np.array(2.0)),
                               rtol=1e-6)
    (g_again,) = lib.autograd.grad(out, x)  # this one frees out's graph
    np.testing.assert_allclose(as_numpy(g), as_numpy(g_again))
    with pytest.raises(RuntimeError, match="second time"):
        lib.autograd.grad(out, x)
    with pytest.raises(RuntimeError, match="second time"):
        lib.autograd.grad(g.sum(), x)  # g's graph leads through the freed nodes of out's


@pytest.mark.parametrize("lib_name", [
    pytest.param("tensorgrad"),
    pytest.param("torch", marks=needs_torch),
])
def test_first_order_backward_adds_in_place_into_a_grad_with_a_graph(lib_name):
    lib = library(lib_name)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x * x).sum().backward(create_graph=True)
    first = x.grad
    (x * 3).sum().backward()
    np.testing.assert_allclose(as_numpy(x.grad), [5.0, 7.0])
    assert x.grad is first
    assert type(x.grad.grad_fn).__name__ == "CopyBackwards"


FIRST_GRADIENT_CASES = {
    "relu": lambda lib, x: x.relu(),
    "abs": lambda lib, x: x.abs(),
    "mul_scalar": lambda lib, x: x * 2,
    "clamp": lambda lib, x: x.clamp(0, 1),
    "maximum": lambda lib, x: lib.maximum(x, lib.zeros(3)),
    "max": lambda lib, x: x.max(),
    "where": lambda lib, x: lib.where(x > 0, x, 0.0),
    "index": lambda lib, x: x[[0, 0]],
    "sum": lambda lib, x: x.sum(),
    "norm_1": lambda lib, x: x.norm(p=1),
    "norm_inf": lambda lib, x: x.norm(p=float("inf")),
    "exp": lambda lib, x: x.exp(),
    "sign": lambda lib, x: x.sign() * x,
    "reshape_t": lambda lib, x: x.reshape(3, 1).t(),
    "expand_repeat": lambda lib, x: x.expand(2, 3) + x.repeat(2, 1),
    "cat_stack": lambda lib, x: lib.cat([x, x]).sum() + lib.stack([x, x]).sum(),
    "mean_dim": lambda lib, x: x.reshape(3, 1).mean(1),
    "max_dim": lambda lib, x: x.reshape(3, 1).max(1)[0],
    "amax": lambda lib, x: x.amax(0),
    "gather": lambda lib, x: x.gather(0, lib.tensor([2, 2, 0])),
    "softmax": lambda lib, x: x.softmax(0),
    "sub_neg": lambda lib, x: 1 - (-x),
    "div_scalar": lambda lib, x: x / 3,
    "sigmoid": lambda lib, x: x.sigmoid(),
}


@needs_torch
@pytest.mark.parametrize("case", list(FIRST_GRADIENT_CASES))
def test_create_graph_gradient_has_a_graph_exactly_when_pytorchs_does(case):
    """With create_graph=True, PyTorch records a gradient's graph only when it depends on x
    (not for linear ops, nor for piecewise-constant derivatives other than relu's)."""
    found = []
    for lib in (tg, torch):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        (g,) = lib.autograd.grad(FIRST_GRADIENT_CASES[case](lib, x).sum(), x, create_graph=True)
        found.append(g.requires_grad)
    assert found[0] == found[1]


LAYOUT_CASES = {
    "reshape_after_transpose": (lambda lib, a: a.t().reshape(2, 2, 4), "ReshapeAliasBackward0"),
    "reshape_after_permute": (lambda lib, a: a.reshape(2, 2, 4).permute(2, 0, 1).reshape(4, 4),
                              "ReshapeAliasBackward0"),
    "reshape_of_a_column_slice": (lambda lib, a: a[:, :2].reshape(2, 2, 2),
                                  "ReshapeAliasBackward0"),
    "reshape_that_copies": (lambda lib, a: a.t().reshape(16), "UnsafeViewBackward0"),
    "reshape_contiguous": (lambda lib, a: a.reshape(2, 8), "ViewBackward0"),
    "view_after_transpose": (lambda lib, a: a.t().view(4, 2, 2), "ViewBackward0"),
    "exp_keeps_the_layout": (lambda lib, a: a.t().exp().reshape(16), "UnsafeViewBackward0"),
}


@pytest.mark.parametrize("lib_name", LIBRARIES)
@pytest.mark.parametrize("case", list(LAYOUT_CASES))
def test_reshape_node_names_follow_the_memory_layout(case, lib_name):
    """reshape is a view (ViewBackward0), a view of a non-contiguous tensor
    (ReshapeAliasBackward0), or a copy (UnsafeViewBackward0), as in PyTorch."""
    lib = library(lib_name)
    build, name = LAYOUT_CASES[case]
    assert build(lib, lib.ones(4, 4, requires_grad=True)).grad_fn.name() == name


@pytest.mark.parametrize("build", [
    lambda lib, a: lib.cat([a.t(), a.t()]).reshape(2, 16),
    lambda lib, a: lib.stack([a.t(), a.t()]).reshape(2, 16),
    lambda lib, a: a.t().softmax(1).reshape(16),
], ids=["cat", "stack", "softmax"])
def test_reshape_after_ops_whose_pytorch_result_is_contiguous(build):
    assert build(tg, tg.ones(4, 4, requires_grad=True)).grad_fn.name() == "ViewBackward0"


# -- inputs=, autograd.grad with non-leaf inputs ---------------------------------------------
@pytest.mark.parametrize("lib_name", LIBRARIES)
def test_backward_inputs_restricts_accumulation(lib_name):
    lib = library(lib_name)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, -1.0], requires_grad=True)
    b = lib.tensor(0.5, requires_grad=True)
    calls = []
    b.register_hook(lambda g: calls.append("b"))
    out = ((x * w).sum() + b) * 2
    out.backward(inputs=[w], retain_graph=True)
    assert x.grad is None and b.grad is None
    np.testing.assert_allclose(as_numpy(w.grad), [2.0, 4.0])
    assert calls == []  # the branch to b did not lead to an input: it did not run
    out.backward(inputs=x, retain_graph=True)
    np.testing.assert_allclose(as_numpy(x.grad), [6.0, -2.0])
    np.testing.assert_allclose(as_numpy(w.grad), [2.0, 4.0])
    out.backward()
    np.testing.assert_allclose(as_numpy(x.grad), [12.0, -4.0])
    np.testing.assert_allclose(as_numpy(w.grad), [4.0, 8.0])
    np.testing.assert_allclose(as_numpy(b.grad), 2.0)
    assert calls == ["b"]


@pytest.mark.parametrize("lib_name", LIBRARIES)
def test_backward_inputs_with_a_non_leaf(lib_name):
    lib = library(lib_name)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    out = (h * h).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out.backward(inputs=[h])
        np.testing.assert_allclose(as_numpy(h.grad), [6.0, 12.0])
    assert x.grad is None


@pytest.mark.parametrize("lib_name", LIBRARIES)
@pytest.mark.parametrize("how", ["retained", "listed_twice", "retained_two_backwards"])
def test_a_non_leaf_named_in_inputs_accumulates_once_per_backward(lib_name, how):
    """Retained, or named twice, a non-leaf in backward(inputs=) still takes its gradient once
    per backward, as in PyTorch (where inputs= retains the non-leaf's gradient)."""
    lib = library(lib_name)
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    h = a * b
    out = (h * h).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if how != "listed_twice":
            h.retain_grad()
        out.backward(inputs=[h, h] if how == "listed_twice" else [h], retain_graph=True)
        if how == "retained_two_backwards":
            out.backward(inputs=[h])
        expected = [12.0, 32.0] if how == "retained_two_backwards" else [6.0, 16.0]
        np.testing.assert_allclose(as_numpy(h.grad), expected)
    assert h.retains_grad and a.grad is None and b.grad is None


@pytest.mark.parametrize("lib_name", LIBRARIES)
def test_a_retained_gradient_is_a_copy_of_the_one_given(lib_name):
    """Under create_graph, a retained non-leaf's first .grad is a copy of the gradient given to
    backward, as a leaf's is: the user's tensor is neither aliased nor written into later."""
    lib = library(lib_name)
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    h = a * 3
    h.retain_grad()
    given = lib.tensor([1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h.backward(given, create_graph=True, retain_graph=True)
        assert h.grad is not given
        h.backward(given)
    np.testing.assert_allclose(as_numpy(a.grad.detach()), [6.0, 6.0])
    np.testing.assert_allclose(as_numpy(given), [1.0, 1.0])
    given.mul_(10)
    np.testing.assert_allclose(as_numpy(h.grad.detach()), [2.0, 2.0])


@pytest.mark.parametrize("accumulate", [True, False])
def test_the_engine_decides_what_a_captured_input_accumulates(accumulate):
    """The engine takes the tensors to capture and decides, once, what accumulates: with
    accumulate=True (backward(inputs=...)) a non-leaf's gradient goes into its .grad as a leaf's
    does, inside the engine; with accumulate=False (autograd.grad) nothing does."""
    from tensorgrad.core import engine
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    out = (h * h).sum()
    (captured,) = engine.execute([engine.gradient_edge(out)], [tg.tensor(1.0)], keep_graph=False,
                                 create_graph=False, capture=[h], accumulate=accumulate)
    assert captured.tolist() == [6.0, 12.0] and x.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (.grad of a non-leaf warns)
        assert (h.grad.tolist() if accumulate else h.grad) == ([6.0, 12.0] if accumulate else None)


@pytest.mark.parametrize("lib_name", LIBRARIES)
def test_autograd_grad_with_non_leaf_inputs(lib_name):
    lib = library(lib_name)
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    h = x.exp()
    k = h * x
    out = (k * h).sum()
    g_h, g_k, g_x = lib.autograd.grad(out, [h, k, x], retain_graph=True)
    e = np.exp([0.5, 1.5])
    xs = np.array([0.5, 1.5])
    np.testing.assert_allclose(as_numpy(g_k), e)
    np.testing.assert_allclose(as_numpy(g_h), 2 * e * xs)  # via k = h·x and directly
    np.testing.assert_allclose(as_numpy(g_x), e * e * (2 * xs + 1))
    assert x.grad is None
    (only_h,) = lib.autograd.grad(out, h)
    np.testing.assert_allclose(as_numpy(only_h), 2 * e * xs)


# -- shapes of graphs ------------------------------------------------------------------------
def test_diamond_gradients():
    x = tg.tensor([0.5, -1.0, 2.0], dtype=tg.float64, requires_grad=True)
    a = x * 2
    out = (a.sin() * a.cos() + a).sum()
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(2 * x.detach().numpy() * 2) + 2)


def test_a_value_used_twice_by_one_node():
    x = tg.tensor([1.0, 2.0, 3.0], dtype=tg.float64, requires_grad=True)
    h = x.exp()
    out = (h * h).sum() + (h @ h) + tg.stack([h, h]).sum()
    out.backward()
    e = np.exp(x.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), (2 * e + 2 * e + 2) * e)


def test_several_roots_with_their_own_gradients():
    x = tg.tensor([1.0, -2.0], dtype=tg.float64, requires_grad=True)
    a = x.exp()
    b = a * x
    c = x.sin()
    tg.autograd.backward([b, c, a.sum()], [tg.tensor([1.0, 2.0], dtype=tg.float64),
                                           tg.tensor([3.0, 4.0], dtype=tg.float64), None])
    xs = x.detach().numpy()
    expected = np.array([1.0, 2.0]) * np.exp(xs) * (xs + 1) + np.array([3.0, 4.0]) * np.cos(xs)
    np.testing.assert_allclose(x.grad.numpy(), expected + np.exp(xs))
    (g1, g2) = tg.autograd.grad([(x * x).sum(), x.prod()], [x, x])
    np.testing.assert_allclose(g1.numpy(), 2 * xs + xs[::-1])
    np.testing.assert_allclose(g2.numpy(), g1.numpy())


def test_a_root_that_is_also_inside_the_graph():
    x = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    a = (x * x).sum()
    b = a * 3
    tg.autograd.backward([a, b])
    np.testing.assert_allclose(x.grad.numpy(), 4 * 2 * x.detach().numpy())


def test_leaf_as_root_and_unused_leaves():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    tg.autograd.backward([x], [tg.tensor([0.5, 0.25])])
    np.testing.assert_allclose(x.grad.numpy(), [0.5, 0.25])
    y = tg.tensor(1.0, requires_grad=True)
    g = tg.autograd.grad((x * 2).sum(), [x, y], allow_unused=True)
    assert g[1] is None
    g = tg.autograd.grad((x * 2).sum(), [x, y], materialize_grads=True)
    assert g[1].shape == () and g[1].item() == 0.0


# -- parity with PyTorch on random compositions -------------------------------------------------
UNARY = [
    ("tanh", lambda lib, a: a.tanh()),
    ("sigmoid", lambda lib, a: a.sigmoid()),
    ("sin", lambda lib, a: a.sin()),
    ("exp_tanh", lambda lib, a: a.tanh().exp()),
    ("log", lambda lib, a: (a * a + 1).log()),
    ("sqrt", lambda lib, a: (a * a + 0.5).sqrt()),
    ("relu", lambda lib, a: a.relu()),
    ("abs", lambda lib, a: a.abs()),
    ("square", lambda lib, a: a ** 2),
    ("cube", lambda lib, a: a.pow(3) * 0.1),
    ("clamp", lambda lib, a: a.clamp(-0.5, 0.7)),
    ("transpose", lambda lib, a: a.t()),
    ("softmax", lambda lib, a: a.softmax(1)),
    ("log_softmax", lambda lib, a: a.log_softmax(0)),
    ("sum_keepdim", lambda lib, a: a.sum(1, keepdim=True) * 0.1 + a),
    ("mean", lambda lib, a: a - a.mean(0)),
    ("max_dim", lambda lib, a: a - a.max(1, keepdim=True)[0]),
    ("amax", lambda lib, a: a * a.amax(0)),
    ("logsumexp", lambda lib, a: a.logsumexp(1, keepdim=True) - a),
    ("var", lambda lib, a: a * a.var(1, keepdim=True)),
    ("norm", lambda lib, a: a / (a.norm() + 1)),
    ("prod", lambda lib, a: a * a[0].prod() * 0.1),
    ("index", lambda lib, a: a[[1, 0, 0, 3]]),
    ("slice_cat", lambda lib, a: lib.cat([a[2:], a[:2]])),
    ("flip_rows", lambda lib, a: a[lib.tensor([3, 2, 1, 0])]),
    ("reshape", lambda lib, a: a.reshape(2, 8).t().reshape(4, 4)),
    ("permute", lambda lib, a: a.reshape(2, 2, 4).permute(2, 0, 1).reshape(4, 4)),
    ("expand", lambda lib, a: a[:, :1].expand(4, 4) * a),
    ("where", lambda lib, a: lib.where(a > 0, a, a * 0.1)),
    ("gather", lambda lib, a: a.gather(1, lib.tensor([[0, 0, 1, 3]] * 4))),
]

BINARY = [
    ("add", lambda lib, a, b: a + b),
    ("sub", lambda lib, a, b: a - b * 0.5),
    ("mul", lambda lib, a, b: a * b),
    ("div", lambda lib, a, b: a / (b * b + 1)),
    ("matmul", lambda lib, a, b: a @ b * 0.5),
    ("maximum", lambda lib, a, b: lib.maximum(a, b)),
    ("minimum", lambda lib, a, b: lib.minimum(a, b.t())),
    ("broadcast_row", lambda lib, a, b: a * b[0]),
    ("broadcast_column", lambda lib, a, b: a + b[:, 1:2]),
    ("stack_sum", lambda lib, a, b: lib.stack([a, b], 2).sum(2)),
    ("pow", lambda lib, a, b: (a * a + 0.5) ** (b * 0.5)),
]


def random_program(seed, length=12):
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(length):
        if rng.random() < 0.5:
            steps.append(("unary", int(rng.integers(len(UNARY))), int(rng.integers(1 << 30))))
        else:
            steps.append(("binary", int(rng.integers(len(BINARY))), int(rng.integers(1 << 30))))
    leaves = [rng.standard_normal((4, 4)) for _ in range(3)]
    return steps, leaves


def run_program(lib, steps, leaves, second_order=False):
    xs = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in leaves]
    pool = list(xs)
    names = []
    for kind, op, pick in steps:
        if kind == "unary":
            name, fn = UNARY[op]
            value = fn(lib, pool[pick % len(pool)])
        else:
            name, fn = BINARY[op]
            value = fn(lib, pool[pick % len(pool)], pool[(pick // 7) % len(pool)])
        names.append(value.grad_fn.name() if value.grad_fn is not None else None)
        pool.append(value)
    out = sum((t * (i + 1) * 0.1).sum() for i, t in enumerate(pool[3:]))
    grads = lib.autograd.grad(out, xs, create_graph=second_order, allow_unused=True)
    result = [as_numpy(g) for g in grads]
    if second_order:
        usable = [g for g in grads if g is not None and g.requires_grad]
        if usable:
            total = sum((g * g).sum() for g in usable)
            result += [as_numpy(h) for h in lib.autograd.grad(total, xs, allow_unused=True)]
    return names, result


@needs_torch
@pytest.mark.parametrize("seed", range(40))
def test_random_compositions_match_pytorch(seed):
    steps, leaves = random_program(seed)
    names_ours, ours = run_program(tg, steps, leaves, second_order=seed % 2 == 0)
    names_theirs, theirs = run_program(torch, steps, leaves, second_order=seed % 2 == 0)
    names_theirs = [n.replace("torch::", "tensorgrad::") for n in names_theirs]
    assert names_ours == names_theirs
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a is None or b is None:
            assert a is None and b is None or np.all((a if a is not None else b) == 0), i
            continue
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=f"result {i}: {steps}")


@pytest.mark.parametrize("lib_name", LIBRARIES)
def test_writing_through_an_index_array_is_an_index_put(lib_name):
    lib = library(lib_name)
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = lib.tensor(5.0, requires_grad=True)
    y = x * 1
    y[[0, 2]] = v * 1
    assert y.grad_fn.name() == "IndexPutBackward0"
    y.sum().backward()
    np.testing.assert_allclose(as_numpy(x.grad), [0.0, 1.0, 0.0])
    np.testing.assert_allclose(as_numpy(v.grad), 2.0)
