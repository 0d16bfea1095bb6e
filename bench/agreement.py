"""Do two runs of the benchmark agree? Runs `bench/bench_core.py --quick` twice, one after the
other, and compares their tables cell by cell (issue 32: "two --quick runs agree within 10%").

    .venv/bin/python bench/agreement.py                  # two runs of --quick --threads 1 --peers
    .venv/bin/python bench/agreement.py -- --no-peers    # other options for bench_core.py
    .venv/bin/python bench/agreement.py --compare A.json B.json   # two runs made before

A cell agrees when the larger of its two figures is at most 10% above the smaller. The cells
compared are every ratio of the table (each "1.05x (0.98-1.12)" or "1.05x", in the ratio
columns, and the ratio the target column quotes): the figures the verdicts read. The absolute
times (ms, us) are listed too, for information: they move with the machine's state from run
to run (another job's use of the shared caches, the clock), which pairing by round cancels in
the ratios only. Each disagreement is printed with the load average before its measure in
each run, since the machine is shared. This script times nothing itself and is not a test
(the unit tests never time anything); it takes two benchmark runs, about 10-20 minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
AGREE = 0.10  # issue 32: two quick runs agree within 10%
DEFAULT_ARGS = ["--quick", "--threads", "1", "--peers"]
RATIO_COLUMNS = ("tg/NumPy", "tg/torch", "tg/MyGrad", "tg/autograd", "target")
VALUE_COLUMNS = ("tensorgrad", "NumPy", "torch", "MyGrad", "autograd")
HEADER = (["measure", *VALUE_COLUMNS, "tg/NumPy", "tg/torch", "tg/MyGrad", "tg/autograd",
           "target", "met"])
# a ratio figure: "1.05x" (a median of per-round ratios, or a ratio of medians); not a target's
# constant ("<= 1.15x ...")
RATIO = re.compile(r"(?<!<= )(?<![\d.])(\d+\.\d+)x")
# the measure a row belongs to (its load average is recorded before each measure)
MEASURES = (("per-op", "per_op"), ("MLP step batch 256 (log", "mlp_256"),
            ("MLP step batch 32 (log", "mlp_32"), ("MLP step batch 256 (own", "mlp_own_256"),
            ("MLP step batch 32 (own", "mlp_own_32"), ("cross-entropy", "loss"),
            ("depth 1e5", "depth_1e5"), ("depth 1e6", "depth_1e6"), ("HVP", "hvp"),
            ("import", "import"))


def ratio_figure(cell):
    """The ratio a cell gives (the median before its interquartile range), or None."""
    found = RATIO.search(str(cell))
    return float(found.group(1)) if found else None


def value_figure(cell):
    try:
        return float(cell)
    except (TypeError, ValueError):
        return None


def apart(a, b):
    """How far two positive figures are apart: the larger over the smaller, minus 1."""
    low, high = sorted((a, b))
    return float("inf") if low <= 0 else high / low - 1


def measure_of(label, parent):
    for prefix, key in MEASURES:
        if label.startswith(prefix):
            return key
    return parent


def compare_tables(first, second, limit=AGREE):
    """Every cell both tables have, row by row (matched by the measure's label), as dicts:
    measure, row, column, kind ("ratio" or "value"), the two figures, how far apart, agrees."""
    cells, parent = [], None
    rows_b = dict(keyed_rows(second["table"]))
    for key, row in keyed_rows(first["table"]):
        label = str(row[0])
        if not label.startswith(" "):
            parent = measure_of(label.strip(), parent)
        other = rows_b.get(key)
        if other is None:
            continue
        for column, a, b in zip(HEADER[1:], row[1:], other[1:]):
            kind = "ratio" if column in RATIO_COLUMNS else "value" if column in VALUE_COLUMNS else None
            read = ratio_figure if kind == "ratio" else value_figure
            x, y = (read(a), read(b)) if kind else (None, None)
            if x is None or y is None:
                continue
            gap = apart(x, y)
            cells.append({"measure": parent, "row": key, "column": column, "kind": kind,
                          "first": x, "second": y, "apart": gap, "agrees": gap <= limit + 1e-12})
    return cells


def keyed_rows(table):
    """(name, row) for each row: a row's label, and for an indented row ("same, wall time")
    also the label of the row it belongs to, so that every name is unique."""
    parent = ""
    for row in table:
        label = str(row[0])
        if label.startswith(" "):
            yield f"{parent} / {label.strip()}", row
        else:
            parent = label.strip()
            yield parent, row


def verdict_flips(first, second):
    rows_b = dict(keyed_rows(second["table"]))
    return [(key, row[-1], rows_b[key][-1]) for key, row in keyed_rows(first["table"])
            if key in rows_b and row[-1] != rows_b[key][-1]]


def missing_rows(first, second):
    """Rows one run has and the other has not (a measure that failed, or a peer missing)."""
    return sorted({key for key, _ in keyed_rows(first["table"])}
                  ^ {key for key, _ in keyed_rows(second["table"])})


def report(first, second, names=("run 1", "run 2")):
    """The comparison as text lines."""
    cells = compare_tables(first, second)
    lines = []
    for name, run in zip(names, (first, second)):
        env = run.get("environment", {})
        lines.append(f"{name}: {env.get('date')}, commit {env.get('git_commit')}, "
                     f"{run.get('bench_seconds', 0):.0f} s, load average "
                     f"{run.get('loadavg_start')} -> {run.get('loadavg_end')}")
    for kind, what in (("ratio", "ratio cells (what the verdicts read)"),
                       ("value", "absolute figures (information only)")):
        mine = [c for c in cells if c["kind"] == kind]
        agree = sum(c["agrees"] for c in mine)
        worst = max((c["apart"] for c in mine), default=0.0)
        lines.append(f"{what}: {agree} of {len(mine)} within {AGREE:.0%} (the worst {worst:.1%} apart)")
    rounds = [(key, _rounds(first, key), _rounds(second, key)) for key in dict(MEASURES).values()]
    lines.append("rounds per measure: " + ", ".join(f"{key} {a}/{b}" for key, a, b in rounds if a or b))
    for row, a, b in verdict_flips(first, second):
        lines.append(f"VERDICT FLIPS: {row}: {a} / {b}")
    for row in missing_rows(first, second):
        lines.append(f"only in one run: {row}")
    bad = [c for c in cells if c["kind"] == "ratio" and not c["agrees"]]
    if bad:
        lines.append(f"ratio cells more than {AGREE:.0%} apart (load average 1/5/15 min before the "
                     "measure in each run):")
    for c in sorted(bad, key=lambda c: -c["apart"]):
        loads = [run.get("loadavg_before", {}).get(c["measure"]) for run in (first, second)]
        lines.append(f"  {c['row'][:70]:70s} {c['column']:11s} {c['first']:.2f}x / {c['second']:.2f}x "
                     f"{c['apart']:+.1%}   load {loads[0]} / {loads[1]}")
    return lines


def _rounds(run, key):
    entry = run.get(key) or {}
    if "timings" in entry:
        return len(entry["timings"].get("tensorgrad", {}).get("samples_s", []))
    return entry.get("repeats")


def loadavg():
    try:
        return Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        return [f"{x:.2f}" for x in os.getloadavg()]


def run_bench(args, out):
    """One run of bench_core.py with `args`, its results written to `out`."""
    print(f"bench_core.py {' '.join(args)}: load average {' '.join(loadavg())}", flush=True)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    proc = subprocess.run([sys.executable, str(BENCH / "bench_core.py"), *args, "--json", str(out)],
                          env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench_core.py failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    print(f"  done, load average {' '.join(loadavg())}", flush=True)
    return json.loads(Path(out).read_text())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", nargs=2, metavar="JSON", default=None,
                        help="compare two results files (bench/results/*.json) instead of running")
    parser.add_argument("--keep", metavar="DIR", default=None,
                        help="keep the two runs' results files in DIR")
    parser.add_argument("bench_args", nargs="*", help=f"for bench_core.py (default: {' '.join(DEFAULT_ARGS)})")
    args = parser.parse_args(argv)
    if args.compare:
        runs = [json.loads(Path(p).read_text()) for p in args.compare]
        names = args.compare
    else:
        bench_args = args.bench_args or DEFAULT_ARGS
        folder = Path(args.keep or tempfile.mkdtemp(prefix="tg-agreement-"))
        folder.mkdir(parents=True, exist_ok=True)
        names = [str(folder / f"run{i}.json") for i in (1, 2)]
        runs = [run_bench(bench_args, name) for name in names]
    print("\n".join(report(*runs, names=names)))
    cells = [c for c in compare_tables(*runs) if c["kind"] == "ratio"]
    return 0 if all(c["agrees"] for c in cells) else 1


if __name__ == "__main__":
    sys.exit(main())
