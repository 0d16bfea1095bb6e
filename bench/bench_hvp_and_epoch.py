"""A Hessian-vector product through `autograd.functional.hvp`, and one training epoch of a small
MLP with Adam, each timed against plain NumPy with hand-written derivatives (and against
PyTorch when it is importable), in the same run.

    python bench/bench_hvp_and_epoch.py            # about a minute
    python bench/bench_hvp_and_epoch.py --quick    # a smoke run
    python bench/bench_hvp_and_epoch.py --json out.json

What is measured:
  hvp     f(x) = ½‖tanh(A x)‖² with A of shape (200, 100); H·v through
          tensorgrad.autograd.functional.hvp (three backward passes: PyTorch's double-VJP
          trick) and torch.autograd.functional.hvp. NumPy evaluates the closed form
          H·v = Aᵀ[(1 - t²)(1 - 3t²) ⊙ (A v)], t = tanh(A x).
  epoch   one epoch of a 2-64-2 ReLU MLP on 400 two-moons points with cross-entropy and Adam
          (torch's update formulas), minibatches of 32 (13 steps) and the full batch (1 step).
          NumPy runs the same forward, hand-written backward and Adam update.

Before timing, each pair of implementations is checked to agree (same H·v; same weights after
the epoch, from the same initial weights and batch order). Figures are medians over rounds in
which NumPy, tensorgrad and torch run one after another, so a slow moment of the machine hits
all three alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # benchmark this checkout

import numpy as np  # noqa: E402

import tensorgrad as tg  # noqa: E402

try:
    import torch
    torch.set_num_threads(1)  # NumPy and tensorgrad run on one thread too (small matrices)
except ImportError:  # optional
    torch = None


def median_seconds(fn, rounds, inner):
    """Median over `rounds` of the time per call, each round timing `inner` calls."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) / inner)
    return statistics.median(samples)


def interleaved(functions, rounds, inner):
    """Time several implementations round by round, one after another, and take medians."""
    samples = {name: [] for name in functions}
    for _ in range(rounds):
        for name, fn in functions.items():
            samples[name].append(median_seconds(fn, 1, inner))
    return {name: statistics.median(values) for name, values in samples.items()}


# -- HVP ---------------------------------------------------------------------------------------------
def hvp_case():
    rng = np.random.default_rng(0)
    a = rng.normal(0, 0.1, size=(200, 100))
    x = rng.normal(size=100)
    v = rng.normal(size=100)

    def numpy_hvp():
        t = np.tanh(a @ x)
        return a.T @ ((1 - t * t) * (1 - 3 * t * t) * (a @ v))

    a_tg, x_tg, v_tg = tg.tensor(a), tg.tensor(x), tg.tensor(v)

    def tg_hvp():
        return tg.autograd.functional.hvp(
            lambda p: 0.5 * (tg.tanh(a_tg @ p) ** 2).sum(), x_tg, v_tg)[1]

    functions = {"numpy": numpy_hvp, "tensorgrad": tg_hvp}
    check = {"tensorgrad": float(np.abs(tg_hvp().numpy() - numpy_hvp()).max())}
    if torch is not None:
        a_t, x_t, v_t = (torch.tensor(arr) for arr in (a, x, v))

        def torch_hvp():
            return torch.autograd.functional.hvp(
                lambda p: 0.5 * (torch.tanh(a_t @ p) ** 2).sum(), x_t, v_t)[1]

        functions["torch"] = torch_hvp
        check["torch"] = float(np.abs(torch_hvp().numpy() - numpy_hvp()).max())
    return functions, check


# -- one training epoch ---------------------------------------------------------------------------------
def two_moons(n_per_class, noise, seed):
    rng = np.random.default_rng(seed)
    angle_a, angle_b = rng.uniform(0, np.pi, n_per_class), rng.uniform(0, np.pi, n_per_class)
    upper = np.stack([np.cos(angle_a), np.sin(angle_a)], axis=1)
    lower = np.stack([1 - np.cos(angle_b), 0.5 - np.sin(angle_b)], axis=1)
    points = np.concatenate([upper, lower]) + rng.normal(0, noise, (2 * n_per_class, 2))
    labels = np.concatenate([np.zeros(n_per_class), np.ones(n_per_class)]).astype(np.int64)
    return points.astype(np.float32), labels


HIDDEN = 64
LR, BETAS, EPS = 0.01, (0.9, 0.999), 1e-8


def initial_weights(seed=0):
    rng = np.random.default_rng(seed)
    bound1, bound2 = 1 / np.sqrt(2), 1 / np.sqrt(HIDDEN)
    return [rng.uniform(-bound1, bound1, (HIDDEN, 2)).astype(np.float32),
            rng.uniform(-bound1, bound1, HIDDEN).astype(np.float32),
            rng.uniform(-bound2, bound2, (2, HIDDEN)).astype(np.float32),
            rng.uniform(-bound2, bound2, 2).astype(np.float32)]


class NumpyMLP:
    """The same network with its derivatives written by hand, and Adam written out."""

    def __init__(self, weights):
        self.params = [w.copy() for w in weights]
        self.m = [np.zeros_like(w) for w in weights]
        self.v = [np.zeros_like(w) for w in weights]
        self.t = 0

    def step(self, x, y):
        w1, b1, w2, b2 = self.params
        h_pre = x @ w1.T + b1
        h = np.maximum(h_pre, 0)
        logits = h @ w2.T + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(shifted)
        p /= p.sum(axis=1, keepdims=True)
        g_logits = p
        g_logits[np.arange(len(y)), y] -= 1
        g_logits /= len(y)
        g_w2, g_b2 = g_logits.T @ h, g_logits.sum(0)
        g_h = g_logits @ w2 * (h_pre > 0)
        g_w1, g_b1 = g_h.T @ x, g_h.sum(0)
        self.t += 1
        correction1, correction2 = 1 - BETAS[0] ** self.t, np.sqrt(1 - BETAS[1] ** self.t)
        for i, g in enumerate((g_w1, g_b1, g_w2, g_b2)):
            self.m[i] = BETAS[0] * self.m[i] + (1 - BETAS[0]) * g
            self.v[i] = BETAS[1] * self.v[i] + (1 - BETAS[1]) * g * g
            self.params[i] -= (LR / correction1) * self.m[i] / (np.sqrt(self.v[i]) / correction2 + EPS)


def library_mlp(lib, weights):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(2, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 2))
    with lib.no_grad():
        for param, value in zip(model.parameters(), weights):
            param.copy_(lib.tensor(value))
    optimizer = lib.optim.Adam(model.parameters(), lr=LR, betas=BETAS, eps=EPS)
    return model, optimizer


def epoch_case(batch_size):
    points, labels = two_moons(200, noise=0.1, seed=0)
    order = np.random.default_rng(1).permutation(len(points))
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    weights = initial_weights()

    def numpy_epoch(state=None):
        mlp = state or NumpyMLP(weights)
        for batch in batches:
            mlp.step(points[batch], labels[batch])
        return mlp.params

    def make_library_epoch(lib):
        x_all, y_all = lib.tensor(points), lib.tensor(labels)
        batch_tensors = [(x_all[lib.tensor(b)], y_all[lib.tensor(b)]) for b in batches]
        model, optimizer = library_mlp(lib, weights)

        def run_epoch():
            for x, y in batch_tensors:
                optimizer.zero_grad()
                lib.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            return [p.detach().numpy().copy() for p in model.parameters()]

        return run_epoch

    reference = numpy_epoch()
    functions = {"numpy": numpy_epoch, "tensorgrad": make_library_epoch(tg)}
    check = {"tensorgrad": max(float(np.abs(a - b).max())
                               for a, b in zip(make_library_epoch(tg)(), reference))}
    if torch is not None:
        functions["torch"] = make_library_epoch(torch)
        check["torch"] = max(float(np.abs(a - b).max())
                             for a, b in zip(make_library_epoch(torch)(), reference))
    return functions, check, len(batches)


# -- report -----------------------------------------------------------------------------------------------
def fmt_time(seconds):
    return f"{seconds * 1e3:8.3f} ms" if seconds >= 1e-4 else f"{seconds * 1e6:8.1f} us"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else 15

    rows, checks = [], {}
    functions, checks["hvp"] = hvp_case()
    rows.append(("hvp  n=100, A 200x100 (float64)", interleaved(functions, rounds, inner=10)))
    for batch_size in (32, 400):
        functions, check, steps = epoch_case(batch_size)
        checks[f"epoch_{batch_size}"] = check
        label = f"epoch 2-64-2 MLP, Adam, batch {batch_size} ({steps} step{'s' * (steps > 1)})"
        rows.append((label, interleaved(functions, rounds, inner=3)))

    print(f"tensorgrad HVP and training-epoch benchmark (median of {rounds} interleaved rounds; "
          f"torch {'%s, 1 thread' % torch.__version__ if torch else 'not installed'})")
    header = f"{'measure':<46} {'numpy':>11} {'tensorgrad':>11} {'torch':>11} {'tg/numpy':>9} {'tg/torch':>9}"
    print(header)
    print("-" * len(header))
    for label, times in rows:
        ours, numpy_time, torch_time = times["tensorgrad"], times["numpy"], times.get("torch")
        torch_text = fmt_time(torch_time) if torch_time else "-"
        vs_torch = f"{ours / torch_time:.2f}x" if torch_time else "-"
        print(f"{label:<46} {fmt_time(numpy_time):>11} {fmt_time(ours):>11} {torch_text:>11} "
              f"{ours / numpy_time:>8.1f}x {vs_torch:>9}")
    print("agreement with NumPy (max abs difference):",
          ", ".join(f"{case} {lib} {diff:.1e}" for case, per_lib in checks.items()
                    for lib, diff in per_lib.items()))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rows": dict(rows), "check": checks,
                                         "rounds": rounds, "torch": getattr(torch, "__version__", None)},
                                        indent=2))


if __name__ == "__main__":
    main()
