"""The benchmark's optional peers: MyGrad and HIPS autograd, two other NumPy autograds.

Neither is needed by tensorgrad or its tests; they are installed for the benchmark only
(`./run bench --peers`, or `.venv/bin/pip install -e ".[bench]"`). Each workload here is the
one `bench_core.py` times for tensorgrad and torch, written the way each library is meant
to be used (the per-op chain is bench_core's own chain_forward, given the peer's tanh):

  MyGrad (mygrad)       tensors with `.backward()`, like tensorgrad and torch; its gradients
                        are NumPy arrays (`x.grad`), not tensors, so it has no second
                        derivatives and no Hessian-vector product.
  HIPS autograd         functions of NumPy arrays, differentiated with `make_vjp` /
                        `value_and_grad` / `grad`; `autograd.numpy` wraps NumPy.

Both keep float32 throughout, as the other implementations do. In the autograd MLP, that
asks for two choices: relu is `h * (h > 0)` and the row maximum subtracted before the
log-sum-exp is a constant (`getval`), as in the NumPy version and in a fused log_softmax.
With `anp.maximum(h, 0)` and a differentiated `anp.max`, autograd's derivative rules of
those two return float64 (a bool divided by a count), and the 784x128 weight gradient
becomes a float64 matmul: about 2x slower at batch 256, for a reason that is not autograd's
per-operation cost.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os

import numpy as np


def _selected(key):
    """TG_BENCH_PEERS, when set, names the peers to load (comma-separated; empty: none)."""
    chosen = os.environ.get("TG_BENCH_PEERS")
    return chosen is None or key in chosen.split(",")


def _optional(module):
    """The module, or None when it is not installed or not selected."""
    if not _selected(module):
        return None
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


mygrad = _optional("mygrad")
autograd = _optional("autograd")
if autograd is not None:
    import autograd.numpy as anp
    from autograd.tracer import getval
    try:
        from autograd.scipy.special import logsumexp as ag_logsumexp
    except ImportError:  # SciPy is missing (an older install of the bench extra)
        ag_logsumexp = None
if mygrad is not None:
    from mygrad.nnet.activations import logsoftmax as mg_logsoftmax
    from mygrad.nnet.activations import relu as mg_relu
    from mygrad.nnet.losses import softmax_crossentropy as mg_softmax_crossentropy

# key in the results -> (name in the table, PyPI name, module)
PEERS = {"mygrad": ("MyGrad", "mygrad", mygrad), "autograd": ("HIPS autograd", "autograd", autograd)}
INSTALL_HINT = './run bench --peers (or .venv/bin/pip install -e ".[bench]")'

# What a peer cannot do at all, per measure: the table shows a dash and this footnote.
UNSUPPORTED = {
    ("mygrad", "hvp"): "MyGrad has no second derivatives: its gradients are NumPy arrays "
                       "(x.grad), not tensors that record, so there is nothing to "
                       "differentiate again",
}


if autograd is not None and ag_logsumexp is None:
    UNSUPPORTED[("autograd", "own")] = ("HIPS autograd's cross-entropy is written with "
                                        "autograd.scipy.special.logsumexp, and SciPy is not "
                                        "installed: ./run bench --peers installs it")


def supports(key, measure):
    """Whether peer `key` is loaded and can run `measure` ("own": its own cross-entropy)."""
    return PEERS[key][2] is not None and (key, measure) not in UNSUPPORTED


def available():
    """The peers that are installed, in table order."""
    return [key for key, (_, _, module) in PEERS.items() if module is not None]


def status_lines():
    """One line per peer: its version, or that it is skipped and how to install it."""
    lines = []
    for key, (name, pypi, module) in PEERS.items():
        if module is None:
            why = "not installed" if _selected(key) else "left out (--no-peers or TG_BENCH_PEERS)"
            lines.append(f"peer {name} ({pypi}): {why}, skipped; its columns read '-'. "
                         f"Install: {INSTALL_HINT}")
        else:
            lines.append(f"peer {name} ({pypi}) {_version(pypi)}: included")
    return lines


def _version(pypi):
    try:
        return importlib.metadata.version(pypi)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def versions():
    """{key: version} of the peers, None for those not loaded."""
    return {key: (_version(pypi) if module is not None else None)
            for key, (_, pypi, module) in PEERS.items()}


# ----------------------------------------------------------------------------- the losses
# Each peer's cross-entropy, written two ways: "engine", the same core operations as in every
# library (log_softmax, integer-array indexing, mean), and "own", the way the library's users
# write it: MyGrad's fused `softmax_crossentropy`; for HIPS autograd, which has no loss
# functions, the form of its own examples (examples/neural_net.py), `logits - logsumexp(...)`
# with `autograd.scipy.special.logsumexp`, then the picked labels' mean.
def mygrad_cross_entropy(logits, y, rows, loss):
    if loss == "own":
        return mg_softmax_crossentropy(logits, y)
    return -mg_logsoftmax(logits, axis=1)[rows, y].mean()


def autograd_cross_entropy(logits, y, rows, loss):
    if loss == "own":
        logp = logits - ag_logsumexp(logits, axis=1, keepdims=True)
    else:
        z = logits - np.max(getval(logits), axis=1, keepdims=True)  # a constant shift
        logp = z - anp.log(anp.sum(anp.exp(z), axis=1, keepdims=True))
    return -anp.mean(logp[rows, y])


def make_loss_and_grad(key, z, y):
    """The peer's own cross-entropy alone, forward and backward, on logits `z`: (loss, dL/dz)."""
    rows = np.arange(len(y))
    if key == "mygrad":
        leaf = mygrad.tensor(z)

        def run():
            value = mygrad_cross_entropy(leaf, y, rows, "own")
            value.backward()
            return value.item(), leaf.grad

        return run
    value_and_grad = autograd.value_and_grad(lambda t: autograd_cross_entropy(t, y, rows, "own"))
    return lambda: value_and_grad(z)


# ----------------------------------------------------------------------------- MLP step
def make_mygrad_step(x, y, params, lr, loss="engine"):
    """bench_core's training step in MyGrad: the same ops, backward, an in-place SGD update."""
    ps = [mygrad.tensor(p) for p in params]  # copies
    w1, b1, w2, b2 = ps
    rows = np.arange(x.shape[0])

    def step():
        h = mg_relu(x @ w1 + b1)
        logits = h @ w2 + b2
        loss_value = mygrad_cross_entropy(logits, y, rows, loss)
        loss_value.backward()  # frees the graph, which lets go of the arrays' write locks
        for p in ps:
            p.data -= lr * p.grad
        return loss_value.item()

    return step, [p.data for p in ps]


def make_autograd_step(x, y, params, lr, loss="engine"):
    """The same step in HIPS autograd: a loss function of the weights, value_and_grad."""
    ps = [p.copy() for p in params]
    rows = np.arange(x.shape[0])

    def loss_fn(weights):
        w1, b1, w2, b2 = weights
        h_pre = x @ w1 + b1
        h = h_pre * (h_pre > 0)  # relu; see the module docstring
        return autograd_cross_entropy(h @ w2 + b2, y, rows, loss)

    value_and_grad = autograd.value_and_grad(loss_fn)

    def step():
        loss, grads = value_and_grad(ps)
        for p, g in zip(ps, grads):
            p -= lr * g
        return float(loss)

    return step, ps


# ----------------------------------------------------------------------------- HVP
def make_autograd_hvp(x, v):
    """grad of f, then the vjp of that gradient applied to v: torch's grad(g, x, grad_outputs=v)."""
    grad_f = autograd.grad(lambda t: anp.sum(anp.tanh(t) ** 2))

    def hvp():
        vjp, _ = autograd.make_vjp(grad_f)(x)
        return vjp(v)

    return hvp
