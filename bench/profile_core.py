"""Where tensorgrad's time goes in two of the benchmark's workloads: the per-op chain and the
MLP step at batch 32 (issue 11, "Performance").

    .venv/bin/python bench/profile_core.py              # counts and timings, a minute or two
    .venv/bin/python bench/profile_core.py --cprofile   # also cProfile's top functions
    .venv/bin/python bench/profile_core.py --loss own   # the MLP step with F.cross_entropy

It prints three kinds of figures, from the most to the least repeatable:
  * Python function calls per operation, per backward node and per MLP step (cProfile's
    call counts: exact, the same on every machine);
  * each part of one chain step timed alone in a loop (CPU time, best of several repeats),
    forward with and without grad mode, each node's derivative rule, and the engine around it;
  * each forward op and backward node of the MLP step, timed inside real steps (CPU time,
    median over 360 steps): what the step pays, caches and allocations included.
CPU time leaves out the time this process waits for a core; on a busy machine the figures
still move by 10-20% from run to run, the call counts not at all.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import statistics
import sys
import time
import timeit
from pathlib import Path

if __name__ == "__main__":  # bench_core: no torch, no peers in this process
    os.environ.setdefault("TG_BENCH_NO_TORCH", "1")
    os.environ.setdefault("TG_BENCH_PEERS", "")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_core  # noqa: E402  (imports this checkout's tensorgrad)
import numpy as np  # noqa: E402

tg = bench_core.tg
from tensorgrad.core.node import AccumulateGrad  # noqa: E402
from tensorgrad.core.rule import Rule  # noqa: E402
from tensorgrad.core.tensor import Tensor  # noqa: E402

STEPS = {"add": lambda y: y + 0.5, "mul": lambda y: y * 0.9, "tanh": lambda y: y.tanh()}


def _leaf():
    return tg.tensor(np.linspace(-1, 1, 4, dtype=np.float32).tolist(), requires_grad=True)


def _calls(fn):
    profiler = cProfile.Profile()
    profiler.enable()
    fn()
    profiler.disable()
    return pstats.Stats(profiler).total_calls


def chain_call_counts(n=999):
    """{op: (calls per forward op, calls per backward node)} on a chain of that op alone."""
    counts = {}
    for name, step in STEPS.items():
        x, holder = _leaf(), {}

        def forward():
            y = x
            for _ in range(n):
                y = step(y)
            holder["y"] = y

        forward_calls = _calls(forward)
        backward_calls = _calls(lambda: holder["y"].backward(tg.ones(4)))
        counts[name] = (forward_calls / n - 1, backward_calls / n)  # - 1: the step's lambda
    return counts


def _mlp(batch=32, loss="engine"):
    """The MLP step's parts: its cross-entropy written with core ops ("engine", the benchmark's
    log_softmax row) or `F.cross_entropy` ("own", what learners write: its own-loss row)."""
    x, y, params = bench_core.mlp_data(batch)
    x, y = tg.from_numpy(x), tg.from_numpy(y)
    ps = [tg.from_numpy(p.copy()).requires_grad_() for p in params]
    rows = tg.arange(batch)
    w1, b1, w2, b2 = ps

    def forward():
        h = (x @ w1 + b1).relu()
        if loss == "own":
            return tg.nn.functional.cross_entropy(h @ w2 + b2, y)
        return -(h @ w2 + b2).log_softmax(dim=1)[rows, y].mean()

    def update():
        with tg.no_grad():
            for p in ps:
                p.sub_(bench_core.LR * p.grad)
                p.grad = None

    return forward, update


def mlp_call_counts(batch=32, steps=20, loss="engine"):
    """Python calls per MLP step: forward, backward, update."""
    forward, update = _mlp(batch, loss)
    totals = {"forward": 0, "backward": 0, "update": 0}
    for _ in range(steps):
        holder = {}
        totals["forward"] += _calls(lambda: holder.update(loss=forward()))
        totals["backward"] += _calls(lambda: holder["loss"].backward())
        totals["update"] += _calls(update)
    return {k: v / steps for k, v in totals.items()}


def _best_us(fn, number=5000, repeat=7):
    gc.collect()
    timer = timeit.Timer(fn, timer=time.process_time)
    return min(timer.repeat(number=number, repeat=repeat)) / number * 1e6


def chain_part_timings():
    """Microseconds for each part of one chain step, each timed alone."""
    y = _leaf() * 1.0  # a non-leaf, as inside the chain
    a = y._data
    out = {"numpy alone: a + 0.5": _best_us(lambda: a + 0.5),
           "numpy alone: np.tanh(a)": _best_us(lambda: np.tanh(a)),
           "Tensor._make(a)": _best_us(lambda: Tensor._make(a))}
    for name, step in STEPS.items():
        out[f"forward {name}, recording"] = _best_us(lambda: step(y))
        with tg.no_grad():
            out[f"forward {name}, no_grad"] = _best_us(lambda: step(y))
    seed = [tg.ones(4)]
    nodes = {name: step(y).grad_fn for name, step in STEPS.items()}
    with tg.no_grad():  # the engine runs derivative rules with grad mode off
        for node in nodes.values():
            out[f"rule {type(node).__name__}.apply"] = _best_us(lambda: node.apply(seed))
        out["  its saved_tensors, tanh (the output is rebuilt)"] = _best_us(
            lambda: nodes["tanh"].saved_tensors)
        out["  its saved_tensors, mul (a number)"] = _best_us(lambda: nodes["mul"].saved_tensors)
        out["  mul's `grad * 0.9`, a Tensor op under no_grad"] = _best_us(lambda: seed[0] * 0.9)
    for name, step in STEPS.items():
        out[f"backward per node, {name} chain (engine + rule)"] = _backward_per_node(step)
    return out


def _backward_per_node(step, n=2000, rounds=9):
    x, seed, best = _leaf(), tg.ones(4), float("inf")
    for _ in range(rounds):
        y = x
        for _ in range(n):
            y = step(y)
        gc.collect()
        t0 = time.process_time()
        y.backward(seed)
        best = min(best, time.process_time() - t0)
        x.grad = None
    return best / n * 1e6


def mlp_node_timings(batch=32, steps=360, loss="engine"):
    """Median microseconds of each forward op and backward node inside real MLP steps."""
    forward, update = _mlp(batch, loss)
    samples = {}

    def add(key, seconds):
        samples.setdefault(key, []).append(seconds)

    clock = time.process_time
    apply, accumulate = Rule.apply, AccumulateGrad.apply
    inside = [0.0]  # seconds spent in rules and accumulation during the current backward

    def label(node):
        name = type(node).__name__
        if name == "MmBackward0":
            name += " (x @ w1)" if node.next_functions[0][0] is None else " (h @ w2)"
        if name == "AddBackward0":
            name += f" (+ b{1 if node._input_meta[1][0] == (128,) else 2})"
        return name

    def timed_apply(node, grads):
        t0 = clock()
        result = apply(node, grads)
        seconds = clock() - t0
        inside[0] += seconds
        add("backward " + label(node) + ": rule", seconds)
        return result

    def timed_accumulate(node, grads):
        t0 = clock()
        result = accumulate(node, grads)
        seconds = clock() - t0
        inside[0] += seconds
        add(f"backward AccumulateGrad {tuple(node.variable._data.shape)}", seconds)
        return result

    Rule.apply, AccumulateGrad.apply = timed_apply, timed_accumulate
    try:
        for i in range(steps + 5):
            t0 = clock()
            loss = forward()
            t1 = clock()
            inside[0] = 0.0
            loss.backward()
            t2 = clock()
            update()
            t3 = clock()
            if i >= 5:  # warm-up steps are not counted
                add("forward (every op)", t1 - t0)
                add("backward total (every node)", t2 - t1)
                add("backward: the engine around the rules (walk, buffers, fitting)",
                    t2 - t1 - inside[0])
                add("update (4 parameters)", t3 - t2)
    finally:
        Rule.apply, AccumulateGrad.apply = apply, accumulate
    return {k: statistics.median(v) * 1e6 for k, v in samples.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cprofile", action="store_true", help="also print cProfile's top functions")
    parser.add_argument("--loss", choices=["engine", "own"], default="engine",
                        help="the MLP step's cross-entropy: core ops (engine) or F.cross_entropy (own)")
    args = parser.parse_args(argv)
    print(f"tensorgrad {tg.__file__}; load average {os.getloadavg()}")
    print("\nPython calls, per-op chain (a chain of one op, 999 long):")
    for name, (fwd, bwd) in chain_call_counts().items():
        print(f"  {name:5s} forward {fwd:5.1f} per op, backward {bwd:5.1f} per node")
    print(f"Python calls per MLP step, batch 32, {args.loss} cross-entropy: " + ", ".join(
        f"{k} {v:.0f}" for k, v in mlp_call_counts(loss=args.loss).items()))
    print("\nParts of one chain step, timed alone (CPU us, best of 7):")
    for name, us in chain_part_timings().items():
        print(f"  {name:55s} {us:6.2f}")
    print(f"\nMLP step at batch 32, {args.loss} cross-entropy, inside real steps (CPU us, median"
          " of 360 steps):")
    for name, us in mlp_node_timings(loss=args.loss).items():
        print(f"  {name:55s} {us:7.1f}")
    if args.cprofile:
        ops = bench_core.chain_ops(2000)
        x, seed = _leaf(), tg.ones(4)
        forward, update = _mlp(32, args.loss)

        def mlp_steps():
            for _ in range(100):
                forward().backward()
                update()

        for title, fn in (("per-op chain, 10 runs", lambda: [bench_core.autograd_chain(x, ops, seed)
                                                             for _ in range(10)]),
                          ("MLP step batch 32, 100 steps", mlp_steps)):
            profiler = cProfile.Profile()
            profiler.enable()
            fn()
            profiler.disable()
            print(f"\ncProfile, {title} (times inflated by the profiler):")
            pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
