"""Python opcodes per phase of the MLP step at batch 32 with F.cross_entropy (issue 32): how
much Python each phase runs, exactly, on any machine (sys.settrace's opcode events).

    .venv/bin/python bench/opcodes_per_step.py                   # this checkout
    .venv/bin/python bench/opcodes_per_step.py ../other -v       # another one, top functions

Time moves with the machine's load; opcode counts do not. On a step whose NumPy work is the
same in every library, the Python it runs around that work is most of what separates them:
the figures for MyGrad (when installed) are printed too, for the same step written in MyGrad.
A count is one run of each phase after two warm-up steps; the tracer's own frames are left out.
"""

from __future__ import annotations

import collections
import os
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def count(phases, verbose=False, strip=""):
    """{phase: opcodes} for each (name, function) in `phases`, run once each, in order."""
    counts = collections.Counter()

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode" and frame.f_code.co_filename != __file__:
            code = frame.f_code
            counts[(code.co_filename.replace(strip, ""), code.co_firstlineno, code.co_name)] += 1
        return tracer

    totals = {}
    for name, function in phases:
        counts.clear()
        sys.settrace(tracer)
        try:
            function()
        finally:
            sys.settrace(None)
        totals[name] = sum(counts.values())
        if verbose:
            print(f"  {name}: {totals[name]} opcodes in {len(counts)} functions")
            for (path, line, function_name), n in counts.most_common(12):
                print(f"    {n:6d} {path}:{line}({function_name})")
    return totals


def tensorgrad_phases(root):
    sys.path.insert(0, str(root))
    import tensorgrad as tg

    if Path(root).resolve() not in Path(tg.__file__).resolve().parents:
        raise SystemExit(f"wanted tensorgrad from {root}, imported {tg.__file__}")
    import bench_core

    x, y, params = bench_core.mlp_data(32)
    x, y = tg.from_numpy(x), tg.from_numpy(y)
    ps = [tg.from_numpy(p.copy()).requires_grad_() for p in params]
    w1, b1, w2, b2 = ps
    holder = {}

    def forward():
        h = (x @ w1 + b1).relu()
        holder["loss"] = tg.nn.functional.cross_entropy(h @ w2 + b2, y)

    def update():
        with tg.no_grad():
            for p in ps:
                p.sub_(bench_core.LR * p.grad)
                p.grad = None

    return tg.__file__, forward, lambda: holder["loss"].backward(), update


def mygrad_phases():
    import peers

    if peers.mygrad is None:
        return None
    import bench_core
    import numpy as np

    x, y, params = bench_core.mlp_data(32)
    ps = [peers.mygrad.tensor(p) for p in params]
    w1, b1, w2, b2 = ps
    rows, holder = np.arange(32), {}

    def forward():
        h = peers.mg_relu(x @ w1 + b1)
        holder["loss"] = peers.mygrad_cross_entropy(h @ w2 + b2, y, rows, "own")

    def update():
        for p in ps:
            p.data -= bench_core.LR * p.grad

    return forward, lambda: holder["loss"].backward(), update


def main(argv):
    verbose = "-v" in argv
    paths = [a for a in argv if a != "-v"]
    root = Path(paths[0] if paths else BENCH.parent).resolve()
    os.environ.setdefault("TG_BENCH_NO_TORCH", "1")
    sys.path.insert(0, str(BENCH))
    where, *tg_phases = tensorgrad_phases(root)
    runs = [(f"tensorgrad ({where})", tg_phases, str(root) + "/")]
    mg = mygrad_phases()
    if mg is not None:
        runs.append(("MyGrad", mg, ""))
    for title, (forward, backward, update), strip in runs:
        for _ in range(2):  # warm-up: leaves' nodes made, caches filled
            forward(), backward(), update()
        print(title)
        totals = count([("forward", forward), ("backward", backward), ("update", update)],
                       verbose, strip)
        print("  opcodes: " + ", ".join(f"{k} {v}" for k, v in totals.items())
              + f", step {sum(totals.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
