"""Where one submission's wall time goes when grading with the sandbox (issue 31).

    python bench/grading_timeline.py                       # set 03, 6 answered copies, --jobs 2
    python bench/grading_timeline.py --set 12 --copies 4 --jobs 1

Grades answered copies of one exercise set (as ``bench/bench_grading.py`` builds them) with
``grade_batch``, after wrapping the grader's steps with time stamps (``time.monotonic``, one
clock for every process) in the grading processes: the submission's start, the fork server's
spawn request and its answer (fork, namespaces, mounts: ``_isolate``), the kernel's first
answer, each cell's request and reply by its role (setup, guard, answer, test...), the kill
and reap of the kernel, the scratch folder's removal and the scoring. A submission whose kernel
was started ahead, while the submission before it ran (``kernel.run_notebook``'s ``prestart``),
has no spawn of its own: its row says how long after its run began its kernel answered, and the
spawns made meanwhile for the next submission are left out of its steps. The kernel's own CPU
(utime + stime from ``/proc/PID/stat`` just before it is killed) and the grading process's
CPU per submission are recorded next to the wall time, so that the table shows which steps
are waiting rather than computing. Below the table, all the CPU a submission costs: the grading
process's and everything below it (the fork server, its sandbox, every kernel with its start and
its end, a kernel started ahead), from the first submission of each grading process to its last;
on 2 busy cores 120 s divided by it bounds the submissions a minute, whatever the machine's load
does to the wall time. ``--profile N`` runs cProfile in the grading processes (the grading of each
submission) and prints their N costliest functions. Nothing here changes what the grader does.

    python bench/grading_timeline.py --copies 16 --profile 40
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _folder in (ROOT / "course", ROOT, ROOT / "bench"):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from bench_grading import answered  # noqa: E402
from tensorgrad_course import grade, kernel  # noqa: E402
from tensorgrad_course.exercise_set import load_exercise_sets  # noqa: E402

_TICK = os.sysconf("SC_CLK_TCK")
_events: list[tuple[str, float]] = []
_cells: list[tuple[int, float, float]] = []
_kernel_cpu: list[float] = []


def _mark(name: str) -> None:
    _events.append((name, time.monotonic()))


def _cpu_of(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def _tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid``'s descendants (not ``pid`` itself), with what each has reaped of its
    own children (cutime + cstime): the fork server, its sandbox and every kernel it forked."""
    total, stack = 0.0, kernel.sandbox.children(pid)
    while stack:
        current = stack.pop()
        stack.extend(kernel.sandbox.children(current))
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15]) / _TICK
        except (OSError, IndexError, ValueError):
            pass
    return total


def _wrap(owner, name: str, before: str, after: str):
    original = getattr(owner, name)

    def wrapped(*args, **kwargs):
        _mark(before)
        try:
            return original(*args, **kwargs)
        finally:
            _mark(after)

    setattr(owner, name, wrapped)


def _wrap_async(owner, name: str, before: str, after: str):
    original = getattr(owner, name)

    async def wrapped(*args, **kwargs):
        _mark(before)
        try:
            return await original(*args, **kwargs)
        finally:
            _mark(after)

    setattr(owner, name, wrapped)


def instrument(log: Path, profile: Path | None = None) -> None:
    """Wrap the grader's steps in this process (forked grading workers inherit the wrappers);
    with ``profile``, cProfile the grading of each submission into ``profile.PID``."""
    _wrap(kernel._Zygote, "spawn", "spawn_request", "spawn_reply")
    ready = kernel._QuickClient._async_wait_for_ready

    async def wait_for_ready(self, *args, **kwargs):
        _mark("wait_ready")
        try:
            return await ready(self, *args, **kwargs)
        finally:
            _mark("kernel_ready")
            pid = kernel._kernel_pgid(getattr(self, "parent", None))
            if pid and not _kernel_cpu:
                _kernel_cpu.append(_cpu_of(pid))

    kernel._QuickClient._async_wait_for_ready = kernel._QuickClient.wait_for_ready = wait_for_ready
    _wrap(kernel, "_reap", "reap", "reaped")
    claim = kernel._claim

    def claimed(*args, **kwargs):
        km = claim(*args, **kwargs)
        if km is not None:
            _mark("claimed")
        return km

    kernel._claim = claimed
    _wrap(grade, "score", "score", "scored")
    _wrap(grade.shutil, "rmtree", "rmtree", "rmtree_done")

    execute = kernel._CappedClient.async_execute_cell

    async def execute_cell(self, cell, index, **kwargs):
        start = time.monotonic()
        try:
            return await execute(self, cell, index, **kwargs)
        finally:
            _cells.append((index, start, time.monotonic()))

    kernel._CappedClient.async_execute_cell = execute_cell

    kill = kernel.kill_kernel

    def kill_kernel(km, pgid=None):
        pid = pgid or kernel._kernel_pgid(km)
        if pid and len(_kernel_cpu) < 2:
            _kernel_cpu.append(_cpu_of(pid))
            _mark("kill")
        return kill(km, pgid)

    kernel.kill_kernel = kill_kernel

    run = grade.run_notebook

    def run_notebook(nb, *args, **kwargs):
        _mark("run_notebook")
        try:
            return run(nb, *args, **kwargs)
        finally:
            _mark("run_done")

    grade.run_notebook = run_notebook

    one = grade._grade

    profiler = None
    if profile is not None:
        import cProfile

        profiler = cProfile.Profile(time.process_time)  # (CPU, not wall: the machine is shared)

    def graded(sub, sets, limits, expected, *more):
        _events.clear()
        _cells.clear()
        _kernel_cpu.clear()
        cpu = time.process_time()
        below = _tree_cpu(os.getpid())
        _mark("start")
        if profiler is not None:
            profiler.enable()
        try:
            result = one(sub, sets, limits, expected, *more)
        finally:
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(f"{profile}.{os.getpid()}")
        _mark("end")
        row = {"pid": os.getpid(), "path": sub.path, "events": list(_events), "cells": list(_cells),
               "kernel_cpu": _kernel_cpu[-1] if _kernel_cpu else None,
               "kernel_cpu_ready": _kernel_cpu[0] if len(_kernel_cpu) == 2 else None, "grader_cpu": time.process_time() - cpu,
               "cpu_at": [cpu, below, time.process_time(), _tree_cpu(os.getpid())],
               "status": result.status, "score": result.score, "max": result.max_score}
        with open(log, "a") as fh:
            fh.write(json.dumps(row) + "\n")
        return result

    grade._grade = graded


def roles_of(exset) -> list[str]:
    """Each cell's role in the notebook the grader runs (guard.py's setup first)."""
    from tensorgrad_course import assemble as asm

    return [role for role, _ in asm.assemble(exset, asm.submitted_cells(json.loads(
        exset.source_path.read_text(encoding="utf-8"))), nonce="0" * 32).roles]


def table(rows: list[dict], roles: list[str]) -> str:
    """The median of each step over the submissions, in ms."""
    steps: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        steps.setdefault(name, []).append(1000 * value)

    gaps: list[float] = []
    for row in rows:
        first: dict[str, float] = {}
        for name, t in row["events"]:
            first.setdefault(name, t)
        at = first.get
        add("read, assemble, scratch folder", at("run_notebook") - at("start"))
        if at("claimed") is not None:  # (its spawn happened during the submission before it)
            add("kernel started ahead: run start until first kernel_info reply", at("kernel_ready") - at("run_notebook"))
        else:
            add("kernel manager set-up until spawn request", at("spawn_request") - at("run_notebook"))
            add("spawn: fork, namespaces, mounts (server's answer)", at("spawn_reply") - at("spawn_request"))
            add("server's answer until first kernel_info reply", at("kernel_ready") - at("spawn_reply"))
        add("  of which the client's wait_for_ready", at("kernel_ready") - at("wait_ready"))
        cells = sorted(row["cells"])
        add("kernel ready until first cell request", cells[0][1] - at("kernel_ready"))
        by_role: dict[str, float] = {}
        for index, start, end in cells:
            by_role[roles[index]] = by_role.get(roles[index], 0.0) + (end - start)
        for role in sorted(by_role):
            add(f"cells: {role} ({roles.count(role)})", by_role[role])
        between = sum(b[1] - a[2] for a, b in zip(cells, cells[1:]))
        gaps.append(1000 * between / max(1, len(cells) - 1))
        add("between cells (all gaps)", between)
        add("last reply until kill", at("kill") - cells[-1][2])
        add("kill until the kernel is reaped", at("reaped") - at("kill"))
        add("reaped until nbclient's shutdown is done", at("run_done") - at("reaped"))
        add("remove scratch folder", at("rmtree_done") - at("rmtree"))
        add("score, findings", at("end") - at("rmtree_done"))
        add("WHOLE submission (wall)", at("end") - at("start"))
        add("kernel CPU (utime+stime)", row["kernel_cpu"] or 0.0)
        if row.get("kernel_cpu_ready") is not None:
            add("  of which until its first kernel_info reply", row["kernel_cpu_ready"])
        add("grading process CPU", row["grader_cpu"])
        add("waiting: wall not covered by kernel or grader CPU",
            at("end") - at("start") - (row["kernel_cpu"] or 0.0) - row["grader_cpu"])
    lines = [f"{'step':62s} {'n':>3s} {'median ms':>10s} {'min':>8s} {'max':>8s}"]
    for name, values in steps.items():
        lines.append(f"{name:62s} {len(values):3d} {statistics.median(values):10.1f} {min(values):8.1f} "
                     f"{max(values):8.1f}")
    lines.append(f"(cells per submission: {len(rows[0]['cells'])}; median gap between cells {statistics.median(gaps):.2f} ms)")
    lines.append(cpu_per_submission(rows))
    return "\n".join(lines)


def cpu_per_submission(rows: list[dict]) -> str:
    """All the CPU a submission costs, from the first submission of each grading process to its last:
    that process's own and everything below it (the fork server, its sandbox, every kernel and what
    a kernel started ahead cost). On 2 cores kept busy, 120 s / this is the most submissions a minute."""
    grader = below = 0.0
    count = 0
    for pid in {row["pid"] for row in rows}:
        mine = [row for row in rows if row["pid"] == pid]
        grader += mine[-1]["cpu_at"][2] - mine[0]["cpu_at"][0]
        below += mine[-1]["cpu_at"][3] - mine[0]["cpu_at"][1]
        count += len(mine)
    per = 1000 * (grader + below) / count
    return (f"CPU per submission, all processes: {per:.0f} ms (grading process {1000 * grader / count:.0f}, "
            f"fork server and kernels {1000 * below / count:.0f}); at 2 busy cores at most "
            f"{120_000 / per:.0f} a minute")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="03", help="the exercise set's number (English edition)")
    parser.add_argument("--copies", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-sandbox", action="store_true")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="cProfile the grading processes and print their N costliest functions")
    args = parser.parse_args(argv)
    solutions, exercises = ROOT / "solutions", ROOT / "exercises"
    source = next(solutions.glob(f"{args.set}_*.ipynb"))
    work = Path(tempfile.mkdtemp(prefix="tg-timeline-"))
    log = work / "log.jsonl"
    subs = []
    for i in range(args.copies):
        dest = work / "subs" / f"s{i:03d}" / source.name
        dest.parent.mkdir(parents=True)
        dest.write_text(answered(source, exercises / source.name), encoding="utf-8")
        subs.append(grade.Submission(f"s{i:03d}", str(dest)))
    limits = kernel.Limits(cell_timeout=60, notebook_timeout=300, sandbox=not args.no_sandbox)
    instrument(log, work / "profile" if args.profile else None)
    load = os.getloadavg()
    start = time.monotonic()
    results = grade.grade_batch(subs, solutions, exercises, limits, jobs=args.jobs, cache_dir=work / "cache")
    seconds = time.monotonic() - start
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    rows = [r for r in rows if r["path"].startswith(str(work / "subs"))]
    exset = load_exercise_sets(solutions, exercises)[source.stem]
    print(f"{source.name}: {len(results)} submissions at --jobs {args.jobs}, "
          f"{'sandbox' if limits.sandbox else 'NO sandbox'}, load {[round(x, 2) for x in load]} -> "
          f"{[round(x, 2) for x in os.getloadavg()]}; batch {seconds:.1f} s (solutions included); "
          f"all full marks: {all(r['score'] == r['max'] and r['status'] == 'graded' for r in rows)}")
    print(table(rows, roles_of(exset)))
    if args.profile:
        import pstats

        stats = pstats.Stats(*map(str, work.glob("profile.*")), stream=sys.stdout)
        stats.sort_stats("tottime").print_stats(args.profile)
        stats.sort_stats("cumulative").print_stats(args.profile)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"(children CPU of this process: {usage.ru_utime + usage.ru_stime:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
