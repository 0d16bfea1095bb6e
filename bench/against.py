"""tensorgrad against an earlier tensorgrad: is this checkout slower than another one?

    ./run bench --against ../other-checkout     # every row, 15 rounds
    python bench/against.py PATH [--rounds N] [--only per_op mlp ...]

The main benchmark compares tensorgrad with other libraries, whose own times move from one
run to the next; to tell whether tensorgrad itself got slower, this runs the same workloads on
two checkouts of tensorgrad side by side. Two worker processes, one per checkout, each import
their own tensorgrad (the worker checks which one it got) and build every workload once; then
each round asks both to run one workload, one after the other (the order alternates between
rounds), and the figure is the median of the per-round ratios of CPU time, this checkout's
over the other's, with the interquartile range: "1.03x (0.99-1.06)" means this checkout took
3% more time than the other. The depth chain and the import run in fresh processes, paired by
round the same way (the imports from bytecode compiled for the run, `current_bytecode`). Nothing in the library depends on this file.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

# Every measure the main benchmark takes on tensorgrad, by the name of its table row
MEASURES = ["per_op", "mlp_256", "mlp_32", "mlp_own_256", "mlp_own_32", "loss_own", "loss_engine",
            "hvp"]
CALLS = {"per_op": 3, "mlp_256": 20, "mlp_32": 160, "mlp_own_256": 20, "mlp_own_32": 160,
         "loss_own": 200, "loss_engine": 200, "hvp": 50}
GROUPS = {"per_op": ["per_op"], "mlp": ["mlp_256", "mlp_32", "mlp_own_256", "mlp_own_32"],
          "loss": ["loss_own", "loss_engine"], "hvp": ["hvp"], "depth": [], "import": []}


# ----------------------------------------------------------------------------- the worker
def import_tensorgrad_from(root):
    """Import tensorgrad from `root`, before bench_core puts this checkout on the path, and
    refuse to go on if another copy answered (an installed one, say)."""
    sys.path.insert(0, str(root))
    import tensorgrad

    where = Path(tensorgrad.__file__).resolve()
    if Path(root).resolve() not in where.parents:
        raise SystemExit(f"wanted tensorgrad from {root}, imported {where}")
    return tensorgrad


def workloads():
    """Each measure's function, built as bench_core builds tensorgrad's own."""
    import numpy as np

    import bench_core as b

    tg = b.tg
    ops = b.chain_ops(2000)
    x = tg.tensor(np.linspace(-1, 1, 4, dtype=np.float32).tolist(), requires_grad=True)
    seed = tg.ones(4)
    fns = {"per_op": lambda: b.autograd_chain(x, ops, seed)}
    for loss, prefix in (("engine", "mlp_"), ("own", "mlp_own_")):
        for batch in (256, 32):
            xs, ys, params = b.mlp_data(batch)
            fns[f"{prefix}{batch}"], _ = b.make_autograd_step(tg, xs, ys, [p.copy() for p in params],
                                                              loss=loss)
    z, y = b.loss_data()
    fns["loss_own"] = b.make_loss_and_grad(tg, z, y, "own")
    fns["loss_engine"] = b.make_loss_and_grad(tg, z, y, "engine")
    rng = np.random.default_rng(0)
    x_h = tg.from_numpy(rng.standard_normal(1000).astype(np.float32)).requires_grad_()
    v_h = tg.from_numpy(rng.standard_normal(1000).astype(np.float32))

    def hvp():
        f = (x_h.tanh() ** 2).sum()
        (g,) = tg.autograd.grad(f, x_h, create_graph=True)
        return tg.autograd.grad(g, x_h, grad_outputs=v_h)

    fns["hvp"] = hvp
    return fns


def worker(root):
    """Answer `NAME CALLS` lines on stdin with the CPU and wall seconds per call, as JSON."""
    import gc

    tensorgrad = import_tensorgrad_from(root)
    sys.path.insert(0, str(BENCH))
    fns = workloads()
    for fn in fns.values():
        fn()  # warm-up
    print(json.dumps({"ready": tensorgrad.__file__}), flush=True)
    for line in sys.stdin:
        name, calls = line.split()
        fn, calls = fns[name], int(calls)
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(calls):
            fn()
        print(json.dumps({"cpu_s": (time.process_time() - c0) / calls,
                          "wall_s": (time.perf_counter() - t0) / calls}), flush=True)


# ----------------------------------------------------------------------------- fresh processes
DEPTH = r"""
import gc, json, sys, time
sys.setrecursionlimit(1000)
sys.argv = [sys.argv[0]]
sys.path.insert(0, {bench!r})
from against import import_tensorgrad_from
tg = import_tensorgrad_from({root!r})
import numpy as np
import bench_core as b
ops = b.chain_ops({depth})
x = tg.tensor(np.linspace(-1, 1, 4, dtype=np.float32).tolist(), requires_grad=True)
gc.collect()
c0 = time.process_time()
b.chain_forward(x, ops).backward(tg.ones(4))
print("RESULT " + json.dumps({{"cpu_s": time.process_time() - c0}}))
"""

IMPORT = r"""
import json, os, sys, time
sys.path.insert(0, {bench!r})
from against import import_tensorgrad_from
c0 = time.process_time()
import_tensorgrad_from({root!r})
pages = int(open("/proc/self/statm").read().split()[1])  # resident pages (Linux)
print("RESULT " + json.dumps({{"cpu_s": time.process_time() - c0,
                              "rss_bytes": pages * os.sysconf("SC_PAGE_SIZE")}}))
"""


def fresh(code, root, bytecode=None, **fields):
    env = dict(os.environ, TG_BENCH_NO_TORCH="1", TG_BENCH_PEERS="")
    if bytecode:
        env.update(current_bytecode(bytecode))
    proc = subprocess.run([sys.executable, "-c", code.format(bench=str(BENCH), root=str(root), **fields)],
                          capture_output=True, text=True, cwd="/", timeout=1800, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"worker for {root} failed: {proc.stderr.strip()[-500:]}")


def current_bytecode(folder):
    """The environment in which an import reads bytecode compiled into `folder`, written there
    when it is missing or out of date. Where PYTHONDONTWRITEBYTECODE is set (as on this project's
    machines), a checkout whose __pycache__ is older than its sources compiles every changed
    module on every import: one checkout with 46 stale files read 1.94x the other's import time.
    Both checkouts' imports read from the same fresh folder instead, filled by an untimed import
    of each first, and nothing is written into either checkout."""
    return {"PYTHONPYCACHEPREFIX": str(folder), "PYTHONDONTWRITEBYTECODE": ""}


# ----------------------------------------------------------------------------- the comparison
class Worker:
    """One checkout's worker process."""

    def __init__(self, root):
        env = dict(os.environ, TG_BENCH_NO_TORCH="1", TG_BENCH_PEERS="")
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker", str(root)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     cwd="/", env=env)
        ready = self.proc.stdout.readline()
        if not ready:
            raise RuntimeError(f"the worker for {root} did not start")
        self.imported = json.loads(ready)["ready"]

    def run(self, name):
        self.proc.stdin.write(f"{name} {CALLS[name]}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def summary(ratios):
    q1, median, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
    return {"median": median, "q1": q1, "q3": q3, "min": min(ratios), "max": max(ratios),
            "rounds": len(ratios)}


def paired(run_mine, run_base, rounds, key="cpu_s"):
    """Per-round ratios mine / base, the order alternating from one round to the next."""
    ratios, mine, base = [], [], []
    for r in range(rounds):
        if r % 2:
            b_, m_ = run_base(), run_mine()
        else:
            m_, b_ = run_mine(), run_base()
        mine.append(m_[key])
        base.append(b_[key])
        ratios.append(m_[key] / b_[key])
    return {"ratio": summary(ratios), "mine_s": statistics.median(mine),
            "base_s": statistics.median(base), "ratios": ratios}


def compare(base_root, rounds, only):
    measures = [m for g in only for m in GROUPS[g]]
    results = {}
    if measures:
        mine, base = Worker(ROOT), Worker(base_root)
        print(f"this checkout: {mine.imported}\nagainst:       {base.imported}", flush=True)
        try:
            for name in measures:
                results[name] = paired(lambda n=name: mine.run(n), lambda n=name: base.run(n), rounds)
                report(name, results[name])
        finally:
            mine.close()
            base.close()
    if "depth" in only:
        results["depth_1e5"] = paired(lambda: fresh(DEPTH, ROOT, depth=100_000),
                                      lambda: fresh(DEPTH, base_root, depth=100_000), max(3, rounds // 3))
        report("depth_1e5", results["depth_1e5"])
    if "import" in only:
        with tempfile.TemporaryDirectory(prefix="tg-bench-bytecode-") as bytecode:
            def mine():
                return fresh(IMPORT, ROOT, bytecode=bytecode)

            def base():
                return fresh(IMPORT, base_root, bytecode=bytecode)

            mine(), base()  # (untimed: compiles both checkouts' bytecode)
            results["import"] = paired(mine, base, rounds)
            report("import", results["import"])
            results["import_rss"] = paired(mine, base, 3, key="rss_bytes")
            report("import_rss", results["import_rss"], unit="MB")
    return results


def report(name, result, unit="time"):
    r = result["ratio"]
    if unit == "MB":
        figures = f"{result['mine_s'] / 1e6:8.1f} MB vs {result['base_s'] / 1e6:8.1f} MB"
    else:
        figures = f"{result['mine_s'] * 1e3:8.3f} ms vs {result['base_s'] * 1e3:8.3f} ms CPU"
    print(f"{name:12s} {figures}   {r['median']:.3f}x ({r['q1']:.2f}-{r['q3']:.2f}), "
          f"{r['rounds']} rounds", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("against", metavar="PATH", help="the other checkout (its folder holds tensorgrad/)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only", nargs="*", default=list(GROUPS), choices=list(GROUPS))
    parser.add_argument("--threads", type=int, default=None, help="BLAS threads in both workers")
    parser.add_argument("--json", metavar="FILE", help="also write every round's figures here")
    args = parser.parse_args(argv)
    if args.threads:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)  # inherited by the workers
    if not (Path(args.against) / "tensorgrad" / "__init__.py").is_file():
        parser.error(f"{args.against} holds no tensorgrad/")
    print("CPU time per call, this checkout vs the other; ratio = median of per-round ratios "
          "(interquartile range)", flush=True)
    results = compare(Path(args.against).resolve(), args.rounds, args.only)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2])
    else:
        sys.exit(main())
