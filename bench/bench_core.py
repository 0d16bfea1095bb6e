"""Benchmark of the tensorgrad core against plain NumPy (hand-written gradients), PyTorch,
and two other NumPy autograds, MyGrad and HIPS autograd (bench/peers.py).

    ./run bench                 # full run (about 9 minutes), writes bench/results/*.json
    ./run bench --peers         # first install MyGrad and HIPS autograd into the venv
    ./run bench --quick         # fewer rounds, no 1e6 chain
    ./run bench --against PATH  # tensorgrad only: this checkout against another (bench/against.py)
    python bench/bench_core.py  # the same with any interpreter that has numpy (and torch)

Every figure is a median over rounds, and the implementations are timed interleaved in each
round (NumPy, tensorgrad, torch, MyGrad, autograd, NumPy, ...). Each ratio is the median of
per-round ratios, tensorgrad's time over the other's in the same round, so that a slow moment
of the machine, which hits both, cancels; the table gives their interquartile range beside it,
and the JSON every round's ratio (bench/README.md says how far to trust them). PyTorch, MyGrad and
autograd are optional: a missing one is named in a line at the start and its columns read
"-"; without torch the per-op target is judged against the figure issue 2 measured for
torch on these machines (6.4 us/op).

What is measured (issue 2; the targets are issue 11's):
  per-op     a 2,000-op chain of add/mul/tanh on a shape-(4,) float32 tensor, forward +
             backward, reported per op; also run on bench/floor_autograd.py, the smallest
             autograd with tensorgrad's design and none of PyTorch's behaviour, as a yardstick
  mlp        one training step (forward, backward, SGD update) of 784->128 relu->10 with
             softmax cross-entropy, batch 256 and 32, twice: the loss written with the same
             core ops in every library (matmul, relu, log_softmax, integer-array indexing,
             mean: "the engine"), and with each library's own cross-entropy, what learners
             write (F.cross_entropy; MyGrad's softmax_crossentropy; autograd: logsumexp)
  loss       that cross-entropy alone, forward and backward, batch 256, 10 classes; and
             tensorgrad's F.cross_entropy against its log_softmax formulation
  depth      1e5 and 1e6-op chains: forward+backward time, and bytes per graph node
             (tracemalloc for all but torch, RSS growth for all), each in a fresh
             process with Python's default recursion limit (the peers: 1e5 only)
  hvp        Hessian-vector product of sum(tanh(x)**2), n = 1000: grad(create_graph=True)
             then grad of that with grad_outputs=v (MyGrad cannot: no second derivatives)
  import     `import tensorgrad` in a fresh interpreter: RSS and time

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, set on some of these machines for old OpenBLAS
builds, slow current NumPy down; `./run bench` unsets both for this command only.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # benchmark this checkout


def _threads_from_argv(argv):
    """--threads N must act before NumPy's BLAS starts, so it is read before the imports."""
    for i, arg in enumerate(argv):
        if arg == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--threads="):
            return arg.split("=", 1)[1]
    return None


_THREADS = _threads_from_argv(sys.argv[1:]) if __name__ == "__main__" else None
if _THREADS:
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _THREADS  # inherited by the worker processes too

import numpy as np  # noqa: E402

import tensorgrad as tg  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import floor_autograd  # noqa: E402  (bench/floor_autograd.py, the per-op yardstick)
from against import current_bytecode  # noqa: E402  (bench/against.py)

if __name__ == "__main__" and "--no-peers" in sys.argv[1:]:
    os.environ["TG_BENCH_PEERS"] = ""  # read by bench/peers.py as it is imported
import peers  # noqa: E402  (bench/peers.py: MyGrad and HIPS autograd, when installed)

torch = None
if not os.environ.get("TG_BENCH_NO_TORCH"):  # set in worker processes that don't need it
    try:
        import torch
    except ImportError:  # optional
        torch = None
if torch is not None and os.environ.get("OMP_NUM_THREADS"):
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))

ROUNDS, QUICK_ROUNDS = 21, 15  # --quick: how far two runs agree, by load: bench/README.md
ISSUE_TORCH_US_PER_OP = 6.4  # what issue 2 measured for PyTorch on these machines
TARGETS = {  # issue 11's ("Performance"); the 1e6 row keeps issue 2's; the loss rows issue 32's
    "per_op": "<= 1.0x torch",
    "mlp_256": "<= 1.0x MyGrad",
    "mlp_32": "<= 1.0x MyGrad",
    "mlp_own_256": "<= 1.25x MyGrad",
    "mlp_own_32": "<= 1.25x MyGrad",
    "loss": "<= 1.15x the log_softmax formulation",
    "depth_1e5": "<= 1.0x torch",
    "depth_1e6": "works, <= 1 KB/node",
    "hvp": "<= 1.5x torch",
    "import": "<= 60 MB RSS",
}


# ----------------------------------------------------------------------------- helpers
def rss_bytes() -> int:
    """Current resident set size of this process."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource  # macOS and friends: peak, not current (best we have)

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


@dataclass(frozen=True)
class Rounds:
    """How many rounds a measure takes. At least `least`; then one more at a time until the 95%
    interval of the median of every judged per-round ratio (wall and CPU time) lies within
    `tolerance` of that median (median_interval), or `most` rounds, or the measure's time
    budget is spent, whichever comes first. The budget is `budget_s` seconds or `grow` times
    what the least rounds took, whichever is more: on a busy machine, where the ratios need
    more rounds, a round takes longer too, and a fixed budget would stop at the least. Each sample of an implementation lasts at least
    `min_sample_s` (its calls per sample are raised to that from a timed warm-up): a sample of
    a millisecond is mostly the scheduler's and the timer's noise, not the library's time."""

    least: int
    most: int | None = None  # None: exactly `least` rounds
    tolerance: float = 0.04
    budget_s: float = float("inf")
    grow: float = 0.0
    min_sample_s: float = 0.0

    def enough(self, rounds, elapsed_s, least_s, tight):
        """Whether `rounds` rounds, which took `elapsed_s` (the least of them `least_s`), are
        enough; `tight()` says whether the ratios are known well enough (called only once it
        matters)."""
        if rounds >= (self.most or self.least):
            return True
        if rounds < self.least:
            return False
        return elapsed_s > max(self.budget_s, self.grow * least_s) or tight()


# --quick: 15 rounds at least, intervals within 4%, at most 101 rounds or 4x the time of the
# least rounds (25 s if that is more); the full run 21, within 3%, at most 151 or 4x (60 s). bench/README.md says what these cost and how far two
# quick runs agree (bench/agreement.py measures it).
QUICK = Rounds(least=QUICK_ROUNDS, most=101, tolerance=0.04, budget_s=25.0, grow=4.0,
               min_sample_s=0.02)
FULL = Rounds(least=ROUNDS, most=151, tolerance=0.03, budget_s=60.0, grow=4.0, min_sample_s=0.03)
# the depth chains: one fresh process per implementation and round, about 17 s a round
DEPTH_QUICK = Rounds(least=5, most=7, tolerance=0.04, budget_s=90.0)
DEPTH_FULL = Rounds(least=5, most=9, tolerance=0.03, budget_s=200.0)
IMPORT_ROUNDS = 9  # fresh interpreters, about 3 s a round (torch's import is most of it)


def as_rounds(rounds) -> Rounds:
    """A Rounds policy from a policy or a plain number of rounds (exactly that many)."""
    return rounds if isinstance(rounds, Rounds) else Rounds(least=int(rounds))


def median_interval(values, z=1.96):
    """The distribution-free 95% interval of the median of `values`: the order statistics of
    ranks n/2 -+ z*sqrt(n)/2 (the binomial count of values below the median, in its normal
    approximation). It needs no assumption about the shape of the rounds' spread, which on a
    shared machine has a long tail of slow rounds."""
    xs = sorted(values)
    n = len(xs)
    half = z * n ** 0.5 / 2
    low = max(0, math.floor(n / 2 - half) - 1)  # ranks counted from 1, rounded outward
    high = min(n - 1, math.ceil(n / 2 + 1 + half) - 1)
    return xs[low], xs[high]


def interval_width(values):
    """Half the width of median_interval, relative to the median: 0.04 = the median is known
    to about 4% either way."""
    low, high = median_interval(values)
    median = statistics.median(values)
    return (high - low) / (2 * median) if median else float("inf")


def _calls_per_sample(fn, number, min_sample_s):
    """`number` calls, or as many as make a sample last min_sample_s (CPU time of a timed
    warm-up of `number` calls). The warm-up also pays any first-call cost outside the samples."""
    if min_sample_s <= 0:
        fn()
        return number
    c0 = time.process_time()
    for _ in range(number):
        fn()
    per_call = (time.process_time() - c0) / number
    return max(number, math.ceil(min_sample_s / per_call)) if per_call > 0 else number


def interleaved(fns: dict, repeats, number: int, judged=("tensorgrad",)) -> dict:
    """Median seconds per call of each fn, timed in rounds: every fn once per round, the order
    rotated by one place each round, so that no library always runs right after the same other
    one (what one leaves in the caches, or a slow moment of the machine, falls on each in turn).
    Before each sample the garbage of the last one is collected (gc.collect()), for every
    library alike; the collections a library's own work triggers are part of its time.

    `repeats`: a number of rounds, or a Rounds policy; with one, rounds are added until the
    per-round ratios of each `judged` implementation to every other are tight (Rounds)."""
    policy = as_rounds(repeats)
    calls = {name: _calls_per_sample(fn, number, policy.min_sample_s) for name, fn in fns.items()}
    samples = {name: [] for name in fns}
    cpu = {name: [] for name in fns}
    started = time.perf_counter()
    round_nr, least_s = 0, None
    while True:
        for name in rotated(list(fns), round_nr):
            fn, n = fns[name], calls[name]
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - t0) / n)
            cpu[name].append((time.process_time() - c0) / n)
        round_nr += 1
        elapsed = time.perf_counter() - started
        least_s = elapsed if round_nr == policy.least else least_s
        if policy.enough(round_nr, elapsed, least_s,
                         lambda: _tight(samples, cpu, judged, policy.tolerance)):
            break
    widths = _widths(samples, cpu, judged)
    # process time (all threads of this process) is less sensitive to other load on the
    # machine than wall time; for single-threaded work it is the better figure on a busy box.
    return {name: {"median_s": statistics.median(s), "min_s": min(s),
                   "cpu_median_s": statistics.median(cpu[name]), "samples_s": s,
                   "cpu_samples_s": cpu[name], "calls_per_sample": calls[name],
                   "rounds": round_nr, "interval": widths.get(name)}
            for name, s in samples.items()}


def _widths(samples, cpu, judged):
    """{judged: the widest relative interval of its per-round ratios to any other, wall or CPU}."""
    out = {}
    for mine in judged:
        if mine not in samples:
            continue
        widths = [interval_width([a / b for a, b in zip(clock[mine], clock[other])])
                  for clock in (samples, cpu) for other in clock if other != mine]
        out[mine] = max(widths, default=0.0)
    return out


def _tight(samples, cpu, judged, tolerance):
    return all(w <= tolerance for w in _widths(samples, cpu, judged).values())


def rotated(names, round_nr):
    """The order of one round: `names` started at place `round_nr` (modulo their number)."""
    start = round_nr % len(names) if names else 0
    return names[start:] + names[:start]


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def round_ratios(timings, mine="tensorgrad", samples="samples_s"):
    """{other: [mine / other in round 1, round 2, ...]}: each ratio taken within one round, where
    the two ran one after the other, so a slow moment of the machine hits both. Their median is
    the table's ratio, their spread says how sure it is."""
    own = timings[mine][samples]
    return {other: [a / b for a, b in zip(own, t[samples])]
            for other, t in timings.items() if other != mine and samples in t}


def spread(ratios):
    """The median of per-round ratios, and the quartiles and extremes of their spread."""
    q1, median, q3 = statistics.quantiles(ratios, n=4, method="inclusive") if len(ratios) > 1 \
        else (ratios[0],) * 3
    return {"median": statistics.median(ratios), "q1": q1, "q3": q3, "min": min(ratios),
            "max": max(ratios), "rounds": len(ratios)}


# ----------------------------------------------------------------------------- per-op chain
def chain_ops(n):
    """The op of each chain step: 0 = add 0.5, 1 = mul 0.9, 2 = tanh."""
    return [i % 3 for i in range(n)]


def chain_forward(x, ops, tanh=None):
    """The chain's forward pass on a tensor of tensorgrad or torch (the same code runs on both).

    `tanh` is the function to use for a library whose tensors have no .tanh() method
    (MyGrad's mygrad.tanh, HIPS autograd's autograd.numpy.tanh)."""
    y = x
    for k in ops:
        if k == 0:
            y = y + 0.5
        elif k == 1:
            y = y * 0.9
        elif tanh is None:
            y = y.tanh()
        else:
            y = tanh(y)
    return y


def autograd_chain(x, ops, seed_grad):
    """Forward and backward of the chain on a leaf `x`; returns (and clears) x.grad."""
    chain_forward(x, ops).backward(seed_grad)
    g = x.grad
    x.grad = None
    return g


def mygrad_chain(x, ops, seed_grad):
    """The chain on a MyGrad tensor; returns x.grad (a NumPy array). MyGrad frees the graph
    after backward, and a new operation on `x` clears its gradient: nothing accumulates."""
    chain_forward(x, ops, tanh=peers.mygrad.tanh).backward(seed_grad)
    return x.grad


def hips_chain(x, ops, seed_grad):
    """The chain as a function of an array, traced by HIPS autograd's make_vjp (the forward),
    then its vjp applied to the seed (the backward)."""
    vjp, _ = peers.autograd.make_vjp(lambda y: chain_forward(y, ops, tanh=peers.anp.tanh))(x)
    return vjp(seed_grad)


def np_chain(x, ops, seed_grad):
    """The same chain with hand-written reverse mode: keep tanh outputs, walk back."""
    y = x
    saved = []
    for k in ops:
        if k == 0:
            y = y + np.float32(0.5)
        elif k == 1:
            y = y * np.float32(0.9)
        else:
            y = np.tanh(y)
            saved.append(y)
    g = seed_grad
    for k in reversed(ops):
        if k == 1:
            g = g * np.float32(0.9)
        elif k == 2:
            t = saved.pop()
            g = g * (1 - t * t)
    return g


def bench_per_op(repeats, n=2000):
    ops = chain_ops(n)
    x_np = np.linspace(-1, 1, 4, dtype=np.float32)
    seed_np = np.ones(4, np.float32)
    fns = {"numpy": lambda: np_chain(x_np, ops, seed_np)}
    x_tg = tg.tensor(x_np.tolist(), requires_grad=True)
    seed_tg = tg.ones(4)
    fns["tensorgrad"] = lambda: autograd_chain(x_tg, ops, seed_tg)
    x_floor, seed_floor = floor_autograd.leaf(x_np), floor_autograd.ones(4)
    fns["floor"] = lambda: autograd_chain(x_floor, ops, seed_floor)
    # 2,000 steps drive the gradient to 0, so the check also runs a 30-step chain
    short = chain_ops(30)
    check = {"tensorgrad_vs_numpy_max_abs_diff": float(
        np.abs(autograd_chain(x_tg, ops, seed_tg).numpy() - np_chain(x_np, ops, seed_np)).max()),
        "short_chain_tensorgrad_vs_numpy_max_abs_diff": float(
        np.abs(autograd_chain(x_tg, short, seed_tg).numpy() - np_chain(x_np, short, seed_np)).max()),
        "short_chain_floor_vs_numpy_max_abs_diff": float(
        np.abs(autograd_chain(x_floor, short, seed_floor).data - np_chain(x_np, short, seed_np)).max())}
    if torch is not None:
        x_t = torch.tensor(x_np.tolist(), requires_grad=True)
        seed_t = torch.ones(4)
        fns["torch"] = lambda: autograd_chain(x_t, ops, seed_t)
    if peers.mygrad is not None:
        x_mg = peers.mygrad.tensor(x_np)
        fns["mygrad"] = lambda: mygrad_chain(x_mg, ops, seed_np)
        check["short_chain_mygrad_vs_numpy_max_abs_diff"] = float(
            np.abs(mygrad_chain(x_mg, short, seed_np) - np_chain(x_np, short, seed_np)).max())
    if peers.autograd is not None:
        fns["autograd"] = lambda: hips_chain(x_np, ops, seed_np)
        check["short_chain_autograd_vs_numpy_max_abs_diff"] = float(
            np.abs(hips_chain(x_np, short, seed_np) - np_chain(x_np, short, seed_np)).max())
    res = interleaved(fns, repeats=repeats, number=3, judged=("tensorgrad", "floor"))
    us = {k: v["median_s"] / n * 1e6 for k, v in res.items()}
    cpu_us = {k: v["cpu_median_s"] / n * 1e6 for k, v in res.items()}
    return {"n_ops": n, "us_per_op": us, "cpu_us_per_op": cpu_us, "timings": res, "check": check,
            "ratios": round_ratios(res)}


# ----------------------------------------------------------------------------- MLP step
LR = 0.01


def mlp_data(batch, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int64)
    w1 = (rng.standard_normal((784, 128)) / np.sqrt(784)).astype(np.float32)
    b1 = np.zeros(128, np.float32)
    w2 = (rng.standard_normal((128, 10)) / np.sqrt(128)).astype(np.float32)
    b2 = np.zeros(10, np.float32)
    return x, y, [w1, b1, w2, b2]


def make_np_step(x, y, params):
    w1, b1, w2, b2 = params
    batch = x.shape[0]
    rows = np.arange(batch)

    def step():
        h_pre = x @ w1 + b1
        h = np.maximum(h_pre, 0)
        logits = h @ w2 + b2
        z = logits - logits.max(axis=1, keepdims=True)
        lse = np.log(np.exp(z).sum(axis=1, keepdims=True))
        logp = z - lse
        loss = -logp[rows, y].mean()
        # backward, by hand
        dlogits = np.exp(logp)
        dlogits[rows, y] -= 1
        dlogits /= batch
        dw2 = h.T @ dlogits
        db2 = dlogits.sum(axis=0)
        dh = dlogits @ w2.T
        dh *= h_pre > 0
        dw1 = x.T @ dh
        db1 = dh.sum(axis=0)
        for p, g in ((w1, dw1), (b1, db1), (w2, dw2), (b2, db2)):
            p -= LR * g
        return loss

    return step


def make_autograd_step(lib, x, y, params, backward=None, loss="engine"):
    """The same training step for tensorgrad and torch (`lib`): their APIs are the same.
    `backward(loss)` replaces `loss.backward()` (bench/what_if_numpy_rules.py). `loss` is
    "engine", the cross-entropy written with core operations, the same in every library
    (log_softmax, integer-array indexing, mean), or "own", the library's own cross-entropy,
    what a learner writes: `F.cross_entropy(logits, y)`."""
    x = lib.from_numpy(x)
    y = lib.from_numpy(y)
    ps = [lib.from_numpy(p).requires_grad_() for p in params]
    w1, b1, w2, b2 = ps
    rows = lib.arange(x.shape[0])
    own_loss = {"engine": False, "own": True}[loss]

    def step():
        h = (x @ w1 + b1).relu()
        logits = h @ w2 + b2
        if own_loss:
            loss = lib.nn.functional.cross_entropy(logits, y)
        else:
            loss = -logits.log_softmax(dim=1)[rows, y].mean()
        if backward is None:
            loss.backward()
        else:
            backward(loss)
        with lib.no_grad():
            for p in ps:
                p.sub_(LR * p.grad)
                p.grad = None
        return loss.item()

    return step, ps


def bench_mlp(batch, repeats, loss="engine"):
    """One training step in each implementation, its cross-entropy written with the same core
    operations everywhere (loss="engine") or as each library's own (loss="own"); NumPy's
    hand-written step is the same in both."""
    number = max(5, 5120 // batch)
    x, y, params = mlp_data(batch)
    np_params = [p.copy() for p in params]
    tg_params = [p.copy() for p in params]
    fns = {"numpy": make_np_step(x, y, np_params)}
    tg_step, tg_ps = make_autograd_step(tg, x, y, tg_params, loss=loss)
    fns["tensorgrad"] = tg_step
    # correctness: one step each from the same weights gives the same loss and weights
    loss_np, loss_tg = float(fns["numpy"]()), tg_step()
    check = {"loss_numpy": loss_np, "loss_tensorgrad": loss_tg,
             "max_abs_weight_diff": max(float(np.abs(a - b.detach().numpy()).max())
                                        for a, b in zip(np_params, tg_ps))}
    if torch is not None:
        torch_params = [p.copy() for p in params]
        fns["torch"], _ = make_autograd_step(torch, x, y, torch_params, loss=loss)
        check["loss_torch"] = fns["torch"]()
    for key, make in (("mygrad", peers.make_mygrad_step), ("autograd", peers.make_autograd_step)):
        if peers.supports(key, loss):
            fns[key], weights = make(x, y, params, LR, loss=loss)
            check[f"loss_{key}"] = fns[key]()
            check[f"max_abs_weight_diff_{key}"] = max(float(np.abs(a - b).max())
                                                      for a, b in zip(np_params, weights))
    res = interleaved(fns, repeats=repeats, number=number)
    ms = {k: v["median_s"] * 1e3 for k, v in res.items()}
    return {"cpu_ms_per_step": {k: v["cpu_median_s"] * 1e3 for k, v in res.items()},
            "batch": batch, "loss": loss, "steps_per_sample": number, "ms_per_step": ms,
            "timings": res, "ratios": round_ratios(res), "check": check}


# ----------------------------------------------------------------------------- the loss alone
def loss_data(batch=256, classes=10, seed=1):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((batch, classes)).astype(np.float32),
            rng.integers(0, classes, batch).astype(np.int64))


def np_loss_and_grad(z, y):
    """Softmax cross-entropy and its gradient by hand: (softmax(z) - onehot(y)) / N."""
    rows = np.arange(len(y))
    shifted = z - z.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    grad = np.exp(logp)
    grad[rows, y] -= 1
    return -logp[rows, y].mean(), grad / len(y)


def make_loss_and_grad(lib, z, y, loss):
    """Forward and backward of the cross-entropy alone, on a leaf of logits, in tensorgrad or
    torch; "own" is `F.cross_entropy`, "engine" the log_softmax formulation."""
    z = lib.from_numpy(z.copy()).requires_grad_()
    y = lib.from_numpy(y)
    rows = lib.arange(len(y))
    cross_entropy = lib.nn.functional.cross_entropy

    def run():
        if loss == "own":
            value = cross_entropy(z, y)
        else:
            value = -z.log_softmax(dim=1)[rows, y].mean()
        value.backward()
        grad, z.grad = z.grad, None
        return value.item(), grad.numpy()

    return run


def bench_loss(repeats, batch=256, classes=10, number=200):
    """The cross-entropy alone, forward and backward, batch 256 and 10 classes: each library's
    own, and tensorgrad's `F.cross_entropy` against the same loss written with core ops."""
    fns, check = loss_case(batch, classes)
    res = interleaved(fns, repeats=repeats, number=number, judged=("tensorgrad", "tensorgrad_engine"))
    us = {k: v["median_s"] * 1e6 for k, v in res.items()}
    return {"batch": batch, "classes": classes, "us": us, "timings": res,
            "ratios": round_ratios(res), "check": check}


def loss_case(batch=256, classes=10):
    """The functions bench_loss times, and how far each one's loss and gradient are from
    NumPy's hand-written ones (checked before anything is timed; tests/test_bench.py too)."""
    z, y = loss_data(batch, classes)
    fns = {"numpy": lambda: np_loss_and_grad(z, y),
           "tensorgrad": make_loss_and_grad(tg, z, y, "own"),
           "tensorgrad_engine": make_loss_and_grad(tg, z, y, "engine")}
    if torch is not None:
        fns["torch"] = make_loss_and_grad(torch, z, y, "own")
    for key in peers.available():
        if peers.supports(key, "own"):
            fns[key] = peers.make_loss_and_grad(key, z, y)
    expected_loss, expected_grad = np_loss_and_grad(z, y)
    check = {}
    for key, fn in fns.items():
        value, grad = fn()
        check[f"{key}_loss_diff"] = abs(float(value) - float(expected_loss))
        check[f"{key}_grad_max_abs_diff"] = float(np.abs(grad - expected_grad).max())
    return fns, check


# ----------------------------------------------------------------------------- depth
DEPTH_WORKER = r"""
import gc, json, sys, time, tracemalloc
sys.path.insert(0, {root!r})
sys.setrecursionlimit(1000)  # the default: the engine must not recurse
import numpy as np
sys.path.insert(0, {bench!r})
import bench_core as b
impl, depth, mode = {impl!r}, {depth}, {mode!r}
ops = b.chain_ops(depth)
xn = np.linspace(-1, 1, 4, dtype=np.float32)
seedn = np.ones(4, np.float32)
if impl in ("tensorgrad", "torch"):
    lib = __import__(impl)
    x = lib.tensor(xn.tolist(), requires_grad=True)
    seed = lib.ones(4)
    def forward():
        return b.chain_forward(x, ops)
    def backward(y):
        y.backward(seed)
        return x.grad
elif impl == "mygrad":
    x = b.peers.mygrad.tensor(xn)
    def forward():
        return b.chain_forward(x, ops, tanh=b.peers.mygrad.tanh)
    def backward(y):
        y.backward(seedn)
        return x.grad
elif impl == "autograd":
    def forward():  # the graph is recorded while make_vjp traces the function
        return b.peers.autograd.make_vjp(lambda t: b.chain_forward(t, ops, tanh=b.peers.anp.tanh))(xn)[0]
    def backward(vjp):
        return vjp(seedn)

out = {{}}
gc.collect()
if impl == "numpy":
    if mode == "tracemalloc":
        tracemalloc.start()
        # forward of the hand-written version: what it keeps is the tanh outputs
        y, saved = xn, []
        for k in ops:
            if k == 0: y = y + np.float32(0.5)
            elif k == 1: y = y * np.float32(0.9)
            else:
                y = np.tanh(y); saved.append(y)
        out["retained_bytes"] = tracemalloc.get_traced_memory()[0]
        del y, saved
        tracemalloc.reset_peak()
        b.np_chain(xn, ops, seedn)
        out["peak_bytes"] = tracemalloc.get_traced_memory()[1]
    else:
        r0 = b.rss_bytes()
        c0, t0 = time.process_time(), time.perf_counter()
        b.np_chain(xn, ops, seedn)
        out["total_s"] = time.perf_counter() - t0
        out["total_cpu_s"] = time.process_time() - c0
        out["rss_growth_bytes"] = b.rss_bytes() - r0
else:
    if mode == "tracemalloc":
        tracemalloc.start()
        y = forward()
        out["retained_bytes"] = tracemalloc.get_traced_memory()[0]
        backward(y)
        out["peak_bytes"] = tracemalloc.get_traced_memory()[1]
    else:
        r0 = b.rss_bytes()
        c0, t0 = time.process_time(), time.perf_counter()
        y = forward()
        c1, t1 = time.process_time(), time.perf_counter()
        r1 = b.rss_bytes()
        grad = backward(y)
        c2, t2 = time.process_time(), time.perf_counter()
        out.update(forward_s=t1 - t0, backward_s=t2 - t1, total_s=t2 - t0,
                   forward_cpu_s=c1 - c0, backward_cpu_s=c2 - c1, total_cpu_s=c2 - c0,
                   rss_growth_bytes=r1 - r0)
        del y
        t3 = time.perf_counter()
        gc.collect()
        out["teardown_s"] = time.perf_counter() - t3
        out["grad_finite"] = bool(np.isfinite(np.asarray(grad.tolist())).all())
print("RESULT " + json.dumps(out))
"""


def depth_worker(impl, depth, mode):
    code = DEPTH_WORKER.format(root=str(ROOT), bench=str(Path(__file__).resolve().parent),
                               impl=impl, depth=depth, mode=mode)
    env = dict(os.environ)
    if impl != "torch":
        env["TG_BENCH_NO_TORCH"] = "1"
    env["TG_BENCH_PEERS"] = impl if impl in peers.PEERS else ""  # load only what runs
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=1800, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]}


def bench_depth(depth, repeats, with_peers=True):
    """Each implementation's chain in a fresh process, once per round, in an order rotated
    from round to round; `repeats` a number of rounds or a Rounds policy, whose stopping rule
    reads tensorgrad's per-round ratios of wall and CPU time."""
    policy = as_rounds(repeats)
    impls = (["numpy", "tensorgrad"] + (["torch"] if torch is not None else [])
             + (peers.available() if with_peers else []))
    runs = {impl: [] for impl in impls}
    started = time.perf_counter()
    round_nr, least_s = 0, None
    while True:
        for impl in rotated(impls, round_nr):
            runs[impl].append(depth_worker(impl, depth, "time"))
        round_nr += 1
        elapsed = time.perf_counter() - started
        least_s = elapsed if round_nr == policy.least else least_s
        if policy.enough(round_nr, elapsed, least_s, lambda: _depth_tight(runs, policy.tolerance)):
            break
    result = {"depth": depth, "repeats": round_nr, "runs": runs, "impls": {}}
    for impl in impls:
        ok = [r for r in runs[impl] if "error" not in r]
        entry = {"error": runs[impl][0].get("error")} if not ok else {
            "total_s": statistics.median(r["total_s"] for r in ok),
            "rss_bytes_per_node": statistics.median(r["rss_growth_bytes"] for r in ok) / depth,
        }
        if ok and "total_cpu_s" in ok[0]:
            entry["total_cpu_s"] = statistics.median(r["total_cpu_s"] for r in ok)
        if ok and "forward_s" in ok[0]:
            for key in ("forward_s", "backward_s", "teardown_s"):
                entry[key] = statistics.median(r[key] for r in ok)
            entry["grad_finite"] = all(r["grad_finite"] for r in ok)
        if impl != "torch":  # tracemalloc does not see torch's C++ allocations
            tm = depth_worker(impl, depth, "tracemalloc")
            if "error" in tm:
                entry["tracemalloc_error"] = tm["error"]
            else:
                entry["bytes_per_node"] = tm["retained_bytes"] / depth
                entry["peak_bytes_per_node"] = tm["peak_bytes"] / depth
        result["impls"][impl] = entry
    return result


def _depth_tight(runs, tolerance):
    """Whether tensorgrad's per-round ratios to every other implementation, wall and CPU, have
    a median known within `tolerance` (interval_width; with few rounds that is their range)."""
    for key in ("total_s", "total_cpu_s"):
        for ratios in _depth_round_ratios(runs, key).values():
            if ratios and interval_width(ratios) > tolerance:
                return False
    return True


# ----------------------------------------------------------------------------- HVP
def bench_hvp(repeats, n=1000):
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(n).astype(np.float32)
    v_np = rng.standard_normal(n).astype(np.float32)

    def np_hvp():
        t = np.tanh(x_np)
        s = 1 - t * t
        # f = sum(t^2); f' = 2 t s; f'' = 2 s^2 - 4 t^2 s (diagonal Hessian)
        return (2 * s * s - 4 * t * t * s) * v_np

    x_tg = tg.from_numpy(x_np.copy()).requires_grad_()
    v_tg = tg.from_numpy(v_np.copy())

    def tg_hvp():
        f = (x_tg.tanh() ** 2).sum()
        (g,) = tg.autograd.grad(f, x_tg, create_graph=True)
        (hv,) = tg.autograd.grad(g, x_tg, grad_outputs=v_tg)
        return hv

    fns = {"numpy": np_hvp, "tensorgrad": tg_hvp}
    check = {"tensorgrad_vs_numpy_max_abs_diff": float(np.abs(tg_hvp().numpy() - np_hvp()).max())}
    if torch is not None:
        x_t = torch.from_numpy(x_np.copy()).requires_grad_()
        v_t = torch.from_numpy(v_np.copy())

        def torch_hvp():
            f = (x_t.tanh() ** 2).sum()
            (g,) = torch.autograd.grad(f, x_t, create_graph=True)
            (hv,) = torch.autograd.grad(g, x_t, grad_outputs=v_t)
            return hv

        fns["torch"] = torch_hvp
        check["torch_vs_numpy_max_abs_diff"] = float(np.abs(torch_hvp().numpy() - np_hvp()).max())
    if peers.autograd is not None:
        fns["autograd"] = peers.make_autograd_hvp(x_np.copy(), v_np.copy())
        check["autograd_vs_numpy_max_abs_diff"] = float(np.abs(fns["autograd"]() - np_hvp()).max())
    unsupported = {key: why for (key, measure), why in peers.UNSUPPORTED.items()
                   if measure == "hvp" and key in peers.available()}
    res = interleaved(fns, repeats=repeats, number=50)
    us = {k: v["median_s"] * 1e6 for k, v in res.items()}
    cpu_us = {k: v["cpu_median_s"] * 1e6 for k, v in res.items()}
    return {"n": n, "us_per_hvp": us, "cpu_us_per_hvp": cpu_us, "timings": res, "check": check,
            "ratios": round_ratios(res), "unsupported": unsupported}


# ----------------------------------------------------------------------------- import
IMPORT_WORKER = r"""
import json, sys, time
sys.path.insert(0, {root!r})
def rss():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
r0 = rss(); c0 = time.process_time(); t0 = time.perf_counter()
import {module}
t1 = time.perf_counter(); c1 = time.process_time(); r1 = rss()
print("RESULT " + json.dumps({{"time_s": t1 - t0, "cpu_s": c1 - c0, "rss_bytes": r1,
                              "rss_growth_bytes": r1 - r0}}))
"""


def bench_import(repeats):
    """Each library's import in fresh processes, from bytecode compiled for the run (see
    bench/against.py's current_bytecode: a stale __pycache__ where bytecode is not written
    would time the compiler), by an untimed first round. Each round imports every module once,
    in an order rotated from round to round; `runs` keeps each round's result (None where an
    import failed), so that the time ratios are paired by round like every other."""
    modules = ["numpy", "tensorgrad"] + (["torch"] if torch is not None else []) + peers.available()
    runs = {m: [] for m in modules}
    with tempfile.TemporaryDirectory(prefix="tg-bench-bytecode-") as bytecode:
        env = dict(os.environ, **current_bytecode(bytecode))
        for round_nr in range(-1, repeats):  # round -1: compiles the bytecode, not timed
            for m in rotated(modules, max(round_nr, 0)):
                proc = subprocess.run([sys.executable, "-c", IMPORT_WORKER.format(root=str(ROOT), module=m)],
                                      capture_output=True, text=True, cwd="/", timeout=300, env=env)
                line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
                if round_nr >= 0:
                    runs[m].append(json.loads(line[0][7:]) if line else None)
    out = {}
    for m, rounds in runs.items():
        s = [r for r in rounds if r]
        if s:
            out[m] = {key: statistics.median(r[key] for r in s)
                      for key in ("time_s", "cpu_s", "rss_bytes", "rss_growth_bytes")}
    return {"repeats": repeats, "modules": out, "runs": runs}


# ----------------------------------------------------------------------------- report
def environment():
    env = {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": _cpu_name(),
        "cores": os.cpu_count(),
        "numpy": np.__version__,
        "torch": getattr(torch, "__version__", None),
        "torch_threads": torch.get_num_threads() if torch is not None else None,
        "peers": peers.versions(),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "OPENBLAS_L2_SIZE": os.environ.get("OPENBLAS_L2_SIZE"),
        "blas_threads_requested": os.environ.get("OPENBLAS_NUM_THREADS"),
    }
    try:
        env["git_commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                           capture_output=True, text=True).stdout.strip() or None
        env["git_worktree_dirty"] = bool(subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "tensorgrad"],
            cwd=ROOT, capture_output=True, text=True).stdout.strip())
    except OSError:
        env["git_commit"] = None
    try:
        cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        env["numpy_blas"] = f"{cfg.get('name')} {cfg.get('version')}"
    except Exception:  # older numpy: no dict mode
        env["numpy_blas"] = None
    try:
        from threadpoolctl import threadpool_info

        env["blas_kernels"] = [{k: i.get(k) for k in ("internal_api", "version", "architecture",
                                                       "num_threads")} for i in threadpool_info()]
    except ImportError:
        pass
    return env


def _loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def fmt(v, unit="", digits=2):
    if v is None:
        return "-"
    return f"{v:.{digits}f}{unit}"


def met(ok):
    return "-" if ok is None else ("yes" if ok else "NO")


# The columns: tensorgrad's figure, then each implementation it is compared with, then
# tensorgrad's ratio to each of those.
OTHERS = ("numpy", "torch", "mygrad", "autograd")
HEADER = (["measure", "tensorgrad", "NumPy", "torch", "MyGrad", "autograd"]
          + ["tg/NumPy", "tg/torch", "tg/MyGrad", "tg/autograd", "target", "met"])


def _cells(vals, digits=2, marks=None, ratios=None):
    """Cells of one row: tensorgrad's value, the others' values, tensorgrad / each other.

    `vals` maps an implementation to its figure (missing: "-"); `marks` puts a text in
    place of a value, for a peer that cannot run the measure or that failed. `ratios` maps an
    implementation to tensorgrad's per-round ratios to it (round_ratios): the cell is then
    their median with their interquartile range, "1.05x (0.98-1.12)"; without them it is the
    ratio of the two figures."""
    marks, ratios = marks or {}, ratios or {}
    mine = vals.get("tensorgrad")
    cells = [fmt(mine, digits=digits)]
    cells += [marks.get(k) or fmt(vals.get(k), digits=digits) for k in OTHERS]
    cells += [fmt_spread(ratios[k]) if ratios.get(k) and k not in marks
              else fmt(ratio(mine, vals.get(k)), "x") for k in OTHERS]
    return cells


def fmt_spread(ratios):
    s = spread(ratios)
    return f"{s['median']:.2f}x ({s['q1']:.2f}-{s['q3']:.2f})"


def paired(ratios, other):
    """The median of the per-round ratios to `other`, or None when it was not measured."""
    return statistics.median(ratios[other]) if ratios.get(other) else None


def build_rows(r):
    rows = []
    if "per_op" in r:
        rows += _per_op_rows(r)
    rows += _mlp_rows(r)
    if "loss" in r:
        rows += _loss_rows(r)
    rows += _depth_rows(r)
    if "hvp" in r:
        rows += _hvp_rows(r)
    if "import" in r:
        rows += _import_rows(r)
    return rows


def table_notes(r):
    """Footnotes of the table: what a peer cannot do, what was not run, what failed."""
    notes = []
    for key, why in r.get("hvp", {}).get("unsupported", {}).items():
        notes.append(f"(n/a) HVP, {peers.PEERS[key][0]}: {why}.")
    shallow = r.get("depth_1e5", {}).get("impls", {})
    if "depth_1e6" in r and any(k in shallow for k in peers.PEERS):
        mygrad_s = shallow.get("mygrad", {}).get("total_s")
        detail = "MyGrad's time per node grows with depth" if mygrad_s is None else (
            f"MyGrad took {mygrad_s:.1f} s at 1e5, and its time per node grows with depth")
        notes.append(f"The peers run the 1e5 chain only ({detail}); their 1e6 cells read '-'.")
    for (key, measure), why in peers.UNSUPPORTED.items():
        if measure == "own" and any(k.startswith("mlp_own") or k == "loss" for k in r):
            notes.append(f"(-) own cross-entropy, {peers.PEERS[key][0]}: {why}.")
    for key in ("depth_1e5", "depth_1e6"):
        for impl, entry in r.get(key, {}).get("impls", {}).items():
            if "error" in entry:
                notes.append(f"{key}, {impl}: {entry['error']}")
    rounds = _rounds_note(r)
    if rounds:
        notes.append(rounds)
    return notes


ROUND_LABELS = {"per_op": "per-op", "mlp_256": "MLP 256", "mlp_32": "MLP 32",
                "mlp_own_256": "MLP 256 own", "mlp_own_32": "MLP 32 own", "loss": "loss",
                "hvp": "HVP", "depth_1e5": "depth 1e5"}


def _rounds_note(r):
    """How many rounds each measure took and how well its least sure judged ratio is known
    (the half-width of the 95% interval of its median, relative: interval_width)."""
    parts = []
    for key, label in ROUND_LABELS.items():
        entry = r.get(key)
        if not entry:
            continue
        if key == "depth_1e5":
            runs = entry.get("runs", {})
            widths = [interval_width(q) for k in ("total_s", "total_cpu_s")
                      for q in _depth_round_ratios(runs, k).values() if q]
            rounds = entry.get("repeats")
        else:
            timings = entry.get("timings", {})
            widths = [t["interval"] for t in timings.values() if t.get("interval") is not None]
            rounds = len(timings.get("tensorgrad", {}).get("samples_s", []))
        if widths:
            parts.append(f"{label} {rounds} (±{max(widths):.0%})")
        elif rounds:
            parts.append(f"{label} {rounds}")
    return ("Rounds per measure (and the widest 95% interval of a judged ratio's median, "
            "relative): " + ", ".join(parts) + ".") if parts else ""


def _error_marks(entries):
    """{impl: short error name} for the implementations whose run raised."""
    return {impl: e["error"].split(":", 1)[0][:22] for impl, e in entries.items() if "error" in e}


def _timed_ratios(entry, mine="tensorgrad", samples="samples_s"):
    """Per-round ratios of an interleaved measure; {} for results that have no samples."""
    timings = entry.get("timings", {})
    return round_ratios(timings, mine, samples) if mine in timings else {}


def _per_op_rows(r):
    """The per-op row judged on CPU time (per-round ratios), the design floor's row, and the
    wall-time figures on the line below, not judged."""
    rows = []
    entry = r["per_op"]
    wall = entry["us_per_op"]
    po, ratios, clock = _judged(entry, wall, 1e6 / entry["n_ops"])
    samples = "cpu_samples_s" if clock == "CPU" else "samples_s"
    tg_po, torch_po = po["tensorgrad"], po.get("torch")
    to_torch = paired(ratios, "torch") or tg_po / (torch_po or ISSUE_TORCH_US_PER_OP)
    rows.append([f"per-op (2,000-op chain), us/op, {clock} time", *_cells(po, ratios=ratios),
                 TARGETS["per_op"] + ("" if torch_po is not None else " (6.4 us: issue 2's figure)"),
                 met(to_torch <= 1.0)])
    floor = po.get("floor")
    if floor is not None:
        to_floor = _timed_ratios(entry, mine="floor", samples=samples)
        floor_ratios = {k: v for k, v in to_floor.items() if k != "tensorgrad"}
        to_tg = [1 / q for q in to_floor.get("tensorgrad", [])]
        rows.append(["  design floor (bench/floor_autograd.py)",
                     *_cells({**po, "tensorgrad": floor}, ratios=floor_ratios),
                     "tensorgrad = " + (fmt_spread(to_tg) if to_tg
                                        else f"{ratio(tg_po, floor):.2f}x") + " this", ""])
    if clock == "CPU":
        rows.append(_wall_row("not judged", wall, entry, 2))
    return rows


def _judged(entry, figures, scale):
    """What the timed rows judge: CPU time, per-round ratios of it, and the figures in it,
    when the run kept CPU samples (process time leaves out the time the process waits for a
    core, which on a busy machine is most of the wall time); else (an older JSON) wall time.
    `figures`: the entry's wall-time figures, which the row's "same, wall time" line shows."""
    timings = entry.get("timings", {})
    if all("cpu_samples_s" in t for t in timings.values()) and "tensorgrad" in timings:
        cpu = {k: t["cpu_median_s"] * scale for k, t in timings.items()}
        return cpu, _timed_ratios(entry, samples="cpu_samples_s"), "CPU"
    return figures, _timed_ratios(entry), "wall"


def _wall_row(label, figures, entry, digits):
    """The wall-time line under a row judged on CPU time: shown, not judged."""
    return [f"  same, wall time ({label})", *_cells(figures, digits=digits,
                                                     ratios=_timed_ratios(entry)), "", ""]


def _mlp_rows(r):
    """The MLP step rows, judged on CPU time per round (one BLAS thread), wall time below."""
    rows = []
    for loss, what in (("engine", "log_softmax"), ("own", "own cross-entropy")):
        for b in (256, 32):
            key = f"mlp_{b}" if loss == "engine" else f"mlp_own_{b}"
            if key not in r:
                continue
            wall = r[key]["ms_per_step"]
            m, ratios, clock = _judged(r[key], wall, 1e3)
            to_mygrad = paired(ratios, "mygrad") or ratio(m["tensorgrad"], m.get("mygrad"))
            limit = 1.0 if loss == "engine" else 1.25
            rows.append([f"MLP step batch {b} ({what}), ms, {clock} time",
                         *_cells(m, digits=3, ratios=ratios),
                         TARGETS[key], met(None if to_mygrad is None else to_mygrad <= limit)])
            if clock == "CPU":
                rows.append(_wall_row("not judged", wall, r[key], 3))
    return rows


def _loss_rows(r):
    """The loss alone: each library's own cross-entropy, and tensorgrad's two ways to write it."""
    entry = r["loss"]
    us, ratios, clock = _judged(entry, entry["us"], 1e6)
    samples = "cpu_samples_s" if clock == "CPU" else "samples_s"
    to_engine = ratios.get("tensorgrad_engine")
    label = f"cross-entropy alone, fwd+bwd, {entry['batch']}x{entry['classes']}, us, {clock} time"
    rows = [[label, *_cells(us, digits=1, ratios=ratios),
             TARGETS["loss"] + (f": {fmt_spread(to_engine)}" if to_engine else ""),
             met(None if not to_engine else statistics.median(to_engine) <= 1.15)]]
    if clock == "CPU":
        rows.append(_wall_row("not judged", entry["us"], entry, 1))
    if "tensorgrad_engine" in us:
        engine_ratios = _timed_ratios(entry, mine="tensorgrad_engine", samples=samples)
        engine_ratios.pop("tensorgrad", None)
        rows.append(["  tensorgrad's log_softmax formulation (the same loss)",
                     *_cells({**us, "tensorgrad": us["tensorgrad_engine"]}, digits=1,
                             ratios=engine_ratios), "", ""])
    return rows


def _depth_rows(r):
    rows = []
    for key, label in (("depth_1e5", "1e5"), ("depth_1e6", "1e6")):
        if key not in r:
            continue
        d = r[key]["impls"]
        marks = _error_marks(d)
        wall = {impl: e.get("total_s") for impl, e in d.items()}
        runs = r[key].get("runs", {})
        # judged on CPU time when the run kept it (the chain runs on one thread), wall below
        cpu_kept = "total_cpu_s" in d.get("tensorgrad", {})
        clock_key = "total_cpu_s" if cpu_kept else "total_s"
        total = {impl: e.get(clock_key) for impl, e in d.items()}
        t, th = total.get("tensorgrad"), total.get("torch")
        ratios = _depth_round_ratios(runs, clock_key)
        if key == "depth_1e5":
            to_torch = paired(ratios, "torch") or ratio(t, th)
            ok = None if to_torch is None else to_torch <= 1.0
        else:
            ok = None if t is None else d["tensorgrad"].get("grad_finite")
        rows.append([f"depth {label} chain fwd+bwd, s" + (", CPU time" if cpu_kept else ""),
                     *_cells(total, digits=3, marks=marks, ratios=ratios),
                     TARGETS["depth_1e5"] if key == "depth_1e5" else "works", met(ok)])
        if cpu_kept:
            rows.append(["  same, wall time (not judged)",
                         *_cells(wall, digits=3, marks=marks, ratios=_depth_round_ratios(runs)),
                         "", ""])
        traced = {impl: e.get("bytes_per_node") for impl, e in d.items()}
        bt = traced.get("tensorgrad")
        rows.append([f"depth {label}: bytes/node (tracemalloc)", *_cells(traced, digits=0, marks=marks),
                     "<= 1 KB/node" if key == "depth_1e6" else "",
                     met(None if bt is None else bt <= 1024) if key == "depth_1e6" else ""])
        rss = {impl: e.get("rss_bytes_per_node") for impl, e in d.items()}
        rows.append([f"depth {label}: bytes/node (RSS growth)", *_cells(rss, digits=0, marks=marks), "", ""])
    return rows


def _depth_round_ratios(runs, key="total_s"):
    """The depth chains run each implementation once per round, in fresh processes: tensorgrad's
    time over each other's, round by round (rounds where either failed are left out). `key`:
    "total_s" (wall) or "total_cpu_s" (CPU time)."""
    mine = runs.get("tensorgrad", [])
    return {impl: [a[key] / b[key] for a, b in zip(mine, theirs) if key in a and key in b]
            for impl, theirs in runs.items() if impl != "tensorgrad"}


def _hvp_rows(r):
    """The HVP row judged on CPU time (per-round ratios), wall time on the line below."""
    rows = []
    entry = r["hvp"]
    wall = entry["us_per_hvp"]
    h, ratios, clock = _judged(entry, wall, 1e6)
    marks = {key: "n/a" for key in entry.get("unsupported", {})}
    to_torch = paired(ratios, "torch") or ratio(h["tensorgrad"], h.get("torch"))
    rows.append([f"HVP sum(tanh(x)^2), n=1000, us, {clock} time",
                 *_cells(h, digits=1, marks=marks, ratios=ratios),
                 TARGETS["hvp"], met(None if to_torch is None else to_torch <= 1.5)])
    if clock == "CPU":
        rows.append(["  same, wall time (not judged)",
                     *_cells(wall, digits=1, marks=marks, ratios=_timed_ratios(entry)), "", ""])
    return rows


def _import_rows(r):
    rows = []
    im = r["import"]["modules"]
    mb = {k: v["rss_bytes"] / 2**20 for k, v in im.items()}
    ms = {k: v["time_s"] * 1e3 for k, v in im.items()}
    rows.append(["import: process RSS after, MB", *_cells(mb, digits=1), TARGETS["import"],
                 met(None if "tensorgrad" not in mb else mb["tensorgrad"] <= 60)])
    runs = r["import"].get("runs")
    if runs and all("cpu_s" in v for v in im.values()):  # CPU time, paired by round; wall below
        cpu_ms = {k: v["cpu_s"] * 1e3 for k, v in im.items()}
        rows.append(["import: time, ms, CPU time", *_cells(cpu_ms, digits=0,
                                                         ratios=_import_ratios(runs, "cpu_s")), "", ""])
        rows.append(["  same, wall time", *_cells(ms, digits=0, ratios=_import_ratios(runs, "time_s")),
                     "", ""])
    else:  # an older JSON: medians only
        rows.append(["import: time, ms", *_cells(ms, digits=0), "", ""])
    return rows


def _import_ratios(runs, key):
    """tensorgrad's import time over each other module's, round by round."""
    return {m: [a[key] / b[key] for a, b in zip(runs["tensorgrad"], theirs) if a and b]
            for m, theirs in runs.items() if m != "tensorgrad"}


def _policy_text(policy):
    if policy.most is None or policy.most <= policy.least:
        return f"{policy.least} rounds, medians"
    return (f"{policy.least}-{policy.most} rounds (more until each judged ratio's median is known "
            f"within {policy.tolerance:.0%}, in at most {policy.grow:g}x the time of the first "
            f"{policy.least} or {policy.budget_s:.0f} s a measure), medians")


def markdown_table(rows, notes=()):
    """The table as Markdown, for bench/README.md: numbers right-aligned, notes below it."""
    lines = ["| " + " | ".join(HEADER) + " |",
             "| " + " | ".join("---" if i in (0, len(HEADER) - 2, len(HEADER) - 1) else "---:"
                               for i in range(len(HEADER))) + " |"]
    lines += ["| " + " | ".join(("↳ " + str(c).strip()) if i == 0 and str(c).startswith(" ") else str(c).strip()
                                for i, c in enumerate(row)) + " |" for row in rows]
    return "\n".join(lines + ([""] + [f"- {note}" for note in notes] if notes else []))


def print_table(rows, notes=()):
    widths = [max(len(str(row[i])) for row in rows + [HEADER]) for i in range(len(HEADER))]
    line = " | ".join(h.ljust(w) for h, w in zip(HEADER, widths))
    print(line)
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(row, widths)))
    for note in notes:
        print(note)


def main(argv=None):
    parser = argparse.ArgumentParser(description="tensorgrad core benchmark")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, skip the 1e6 chain")
    parser.add_argument("--repeats", type=int, default=None,
                        help=f"exactly this many timing rounds (default: at least {ROUNDS}, quick "
                             f"{QUICK_ROUNDS}, more until the ratios are tight: Rounds)")
    parser.add_argument("--threads", type=int, default=None,
                        help="BLAS and torch threads (default: theirs; 1 is steadier on a busy machine)")
    parser.add_argument("--only", nargs="*", default=None,
                        choices=["per_op", "mlp", "loss", "depth", "hvp", "import"])
    peer_group = parser.add_mutually_exclusive_group()
    peer_group.add_argument("--peers", action="store_true",
                            help="require MyGrad and HIPS autograd (./run bench --peers installs them first)")
    peer_group.add_argument("--no-peers", action="store_true", help="leave MyGrad and HIPS autograd out")
    parser.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="also write the results to FILE (bench/agreement.py compares two)")
    parser.add_argument("--table-of", metavar="JSON", default=None,
                        help="measure nothing: print the table of an earlier run (bench/results/*.json)")
    parser.add_argument("--against", metavar="PATH", default=None,
                        help="time tensorgrad only, this checkout against the one at PATH, in paired "
                             "rounds (bench/against.py): is this code slower than that one?")
    args = parser.parse_args(argv)
    if args.against:
        import against  # bench/against.py

        return against.main([args.against, "--rounds", str(args.repeats or QUICK_ROUNDS), "--only",
                             *(args.only or against.GROUPS)])
    if args.table_of:
        old = json.loads(Path(args.table_of).read_text())
        print(f"{args.table_of}: {old['environment']['date']}, commit {old['environment'].get('git_commit')}, "
              f"load average {old.get('loadavg_start')} -> {old.get('loadavg_end')}")
        rows, notes = build_rows(old), table_notes(old)
        print_table(rows, notes)
        if args.markdown:
            print("\n" + markdown_table(rows, notes))
        return 0
    missing = [peers.PEERS[k][1] for k in peers.PEERS if k not in peers.available()]
    if args.peers and missing:
        parser.error(f"--peers: {', '.join(missing)} not importable; install with {peers.INSTALL_HINT}")
    repeats = args.repeats or (QUICK if args.quick else FULL)
    depth_rounds = args.repeats or (DEPTH_QUICK if args.quick else DEPTH_FULL)
    only = set(args.only or ["per_op", "mlp", "loss", "depth", "hvp", "import"])
    env = environment()
    print(f"tensorgrad benchmark, {env['date']}: Python {env['python']}, NumPy {env['numpy']} "
          f"({env.get('numpy_blas')}), torch {env['torch'] or 'not installed'}, "
          f"{env['cores']} cores, {env['cpu']}; {_policy_text(as_rounds(repeats))}", flush=True)
    for line in peers.status_lines():
        print(line, flush=True)
    results = {"environment": env, "targets": TARGETS, "repeats": vars(as_rounds(repeats)),
               "loadavg_start": _loadavg(), "loadavg_before": {}}
    t_start = time.perf_counter()

    def section(key, title):
        results["loadavg_before"][key] = _loadavg()
        print(f"{title} ... (load average {results['loadavg_before'][key]})", flush=True)

    if "per_op" in only:
        section("per_op", "per-op chain")
        results["per_op"] = bench_per_op(repeats)
    if "mlp" in only:
        for loss, what in (("engine", "log_softmax in every library"),
                           ("own", "each library's own cross-entropy")):
            for b in (256, 32):
                key = f"mlp_{b}" if loss == "engine" else f"mlp_own_{b}"
                section(key, f"MLP step, batch {b}, {what}")
                results[key] = bench_mlp(b, repeats, loss=loss)
    if "loss" in only:
        section("loss", "cross-entropy alone, batch 256, 10 classes")
        results["loss"] = bench_loss(repeats)
    if "hvp" in only:
        section("hvp", "HVP")
        results["hvp"] = bench_hvp(repeats)
    if "depth" in only:
        section("depth_1e5", "depth 1e5")
        results["depth_1e5"] = bench_depth(100_000, depth_rounds)
        if not args.quick:
            section("depth_1e6", "depth 1e6 (about a minute per implementation; not the peers)")
            results["depth_1e6"] = bench_depth(1_000_000, 1, with_peers=False)
    if "import" in only:
        section("import", "import")
        results["import"] = bench_import(IMPORT_ROUNDS)
    results["bench_seconds"] = time.perf_counter() - t_start
    results["loadavg_end"] = _loadavg()
    print()
    print(f"load average (1, 5, 15 min) at start {results['loadavg_start']}, "
          f"at end {results['loadavg_end']} on {env['cores']} cores")
    rows = build_rows(results)  # only the measures that ran (--only)
    notes = table_notes(results)
    results["table"], results["table_notes"] = rows, notes
    print_table(rows, notes)
    if args.markdown:
        print("\n" + markdown_table(rows, notes))
    out_dir = ROOT / "bench" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = out_dir / f"bench_core-{stamp}.json"
    text = json.dumps(results, indent=1, default=str)
    path.write_text(text)
    (out_dir / "latest.json").write_text(text)
    if args.json:
        Path(args.json).write_text(text)
    print(f"\nwrote {path.relative_to(ROOT)} (and bench/results/latest.json); "
          f"{results['bench_seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
