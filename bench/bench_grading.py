"""Benchmark of the grader's throughput: submissions graded per minute at --jobs 2.

    python bench/bench_grading.py                 # 12 copies of every solution notebook, jobs 2
    python bench/bench_grading.py --copies 30 --jobs 4
    python bench/bench_grading.py --quick         # 4 copies: a smoke run
    python bench/bench_grading.py --no-sandbox    # kernels without bubblewrap, for comparison
    python bench/bench_grading.py --class         # 2 copies of the self-test's realistic class of 60 files

What is measured (issues 6 and 13): for every exercise set, the released exercise with the
solution's answers typed into its answer cells (what a student who got everything right
hands in), copied as if each copy were a different student's submission, graded by
``grade_batch`` exactly as ``tensorgrad-course grade`` does: a fresh resource-limited
kernel per submission, in the bubblewrap sandbox (unless ``--no-sandbox``), the
instructor's test cells, the guard cells, values compared in the grader's process. The instructor's solutions are run once first (the expected-values
cache); that time is reported separately and not counted in the throughput, as in a real
batch, where it is paid once per exercise set.

Every copy must score full marks, or the benchmark fails: a fast grader that grades
wrongly is no use.

With ``--class`` the submissions are instead copies of the realistic class that
``tests/course/test_course_selftest.py`` grades (``tests/course/realistic_class.py``: 60 files
per copy, from every set: right, partial and wrong answers, an infinite loop that costs a cell
timeout, a crash, renamed and LMS-named files, Colab and JupyterLab 4 files, files that are not
notebooks...), graded with that test's limits (15 s per cell); every file must get the status
and score a careful human gives, or the benchmark fails. Files that are not notebooks cost almost
nothing, so the rate of notebooks run is reported next to the rate of files. The figure depends on how busy the machine is, so the load average
before and after is recorded next to it. The target is >= 150 submissions per minute on
2 cores at --jobs 2, with the sandbox. Results go to ``bench/results/grading-<date>.json`` and ``grading-latest.json``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _folder in (ROOT / "course", ROOT):  # benchmark this checkout: the grader and the library
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from tensorgrad_course import sandbox  # noqa: E402
from tensorgrad_course.exercise_set import load_exercise_sets  # noqa: E402
from tensorgrad_course.grade import Submission, grade_batch, prepare_expected  # noqa: E402
from tensorgrad_course.kernel import Limits  # noqa: E402
from tensorgrad_course.notebooks import find_notebooks  # noqa: E402
from tensorgrad_course.version import GRADER_VERSION  # noqa: E402

TARGET_PER_MINUTE = 150.0  # issue 20


def answered(source: Path, release: Path) -> str:
    """The released notebook with the solution's answers in its answer cells (marker lines left out)."""
    solution = json.loads(source.read_text(encoding="utf-8"))
    nb = json.loads(release.read_text(encoding="utf-8"))
    answers = {}
    for cell in solution["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            answers[meta["grade_id"]] = "\n".join(
                line for line in text.splitlines() if not line.strip().startswith(("### BEGIN", "### END")))
    for cell in nb["cells"]:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell["source"] = answers[gid]
    return json.dumps(nb, indent=1)


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def about(load_before: list[float], load_after: list[float]) -> dict:
    """The date, the grader's version and the machine, for a report."""
    return {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "grader_version": GRADER_VERSION,
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": sys.platform,
                        "load_average_before": load_before, "load_average_after": load_after}}


def finish(args, report: dict, name: str, wrong: list[str]) -> int:
    """Exit status 1 with the first wrong grades, else 0 after writing ``name-<date>.json`` and ``name-latest.json``."""
    if wrong:
        for line in wrong[:5]:
            print(f"  {line}", file=sys.stderr)
        return 1
    if not args.no_save:
        args.out.mkdir(parents=True, exist_ok=True)
        text = json.dumps(report, indent=1, sort_keys=True) + "\n"
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        (args.out / f"{name}-{stamp}.json").write_text(text)
        (args.out / f"{name}-latest.json").write_text(text)
        print(f"  written to {args.out / f'{name}-latest.json'}")
    return 0


def realistic(args) -> int:
    """``--class``: copies of the realistic class, each file judged as a careful human would."""
    import dataclasses

    sys.path.insert(0, str(ROOT / "tests" / "course"))
    import realistic_class as rc  # noqa: E402 (the self-test's class, with its expected grades)

    copies = 1 if args.quick else args.copies or 2
    limits = dataclasses.replace(rc.LIMITS, sandbox=not args.no_sandbox)
    work = Path(tempfile.mkdtemp(prefix="tg-bench-class-"))
    try:
        sets = load_exercise_sets(rc.SOLUTIONS, rc.EXERCISES)
        built = [rc.build(work / f"copy{i}", sets) for i in range(copies)]
        submissions = [Submission(f"copy{i}-{path.parent.name}", str(path))
                       for i, per_set in enumerate(built) for paths in per_set.values() for path in paths.values()]
        load_before = load_average()
        start = time.monotonic()
        prepare_expected(sorted(sets), sets, rc.SOLUTIONS, rc.EXERCISES, limits, jobs=args.jobs, cache_dir=work / "cache")
        solutions_seconds = time.monotonic() - start
        start = time.monotonic()
        results = grade_batch(submissions, rc.SOLUTIONS, rc.EXERCISES, limits, jobs=args.jobs, cache_dir=work / "cache")
        seconds = time.monotonic() - start
        load_after = load_average()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    by_path = {r.path: r for r in results}
    wrong = [line for per_set in built for line in rc.mismatches(
        {name: {kind: by_path[str(path)] for kind, path in paths.items()} for name, paths in per_set.items()}, sets)]
    ran = [r for r in results if r.status not in ("invalid_notebook", "unmatched")]
    per_minute, ran_per_minute = 60 * len(results) / seconds, 60 * len(ran) / seconds
    report = {
        "benchmark": "grading throughput, realistic class",
        **about(load_before, load_after),
        "jobs": args.jobs, "sandbox": sandbox.describe(limits.sandbox), "copies": copies,
        "files": len(results), "notebooks_run": len(ran), "seconds": round(seconds, 2),
        "files_per_minute": round(per_minute, 1), "notebooks_run_per_minute": round(ran_per_minute, 1),
        "target_per_minute": TARGET_PER_MINUTE, "meets_target": ran_per_minute >= TARGET_PER_MINUTE,
        "solution_runs_seconds": round(solutions_seconds, 2), "graded_as_a_careful_human": not wrong,
    }
    print(f"graded {len(results)} files ({copies} copies of the realistic class; {len(ran)} notebooks run) in "
          f"{seconds:.1f} s at --jobs {args.jobs}, {'sandbox on' if limits.sandbox else 'NO sandbox'}: "
          f"{per_minute:.1f} files/minute, {ran_per_minute:.1f} notebooks run/minute "
          f"(target >= {TARGET_PER_MINUTE:g}; {'met' if ran_per_minute >= TARGET_PER_MINUTE else 'NOT met'})")
    print(f"  solutions run once first: {solutions_seconds:.1f} s; {os.cpu_count()} CPUs, "
          f"load average before {load_before}, after {load_after}")
    return finish(args, report, "grading-class", [f"NOT AS A CAREFUL HUMAN: {line}" for line in wrong])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--solutions", type=Path, default=ROOT / "solutions")
    parser.add_argument("--exercises", type=Path, default=ROOT / "exercises")
    parser.add_argument("--copies", type=int, default=None,
                        help="copies of each solution notebook (default 12), or of the class with --class (default 2)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="4 copies: a smoke run")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--no-save", action="store_true", help="print only, write no result file")
    parser.add_argument("--no-sandbox", action="store_true", help="kernels without bubblewrap")
    parser.add_argument("--class", dest="realistic", action="store_true",
                        help="copies of the self-test's realistic class of 60 files (default 2 copies)")
    args = parser.parse_args(argv)
    if args.realistic:
        return realistic(args)
    copies = 4 if args.quick else args.copies or 12

    sources = find_notebooks(args.solutions)
    if not sources:
        print(f"no solution notebooks in {args.solutions}", file=sys.stderr)
        return 2
    limits = Limits(cell_timeout=60, notebook_timeout=300, sandbox=not args.no_sandbox)
    work = Path(tempfile.mkdtemp(prefix="tg-bench-grading-"))
    try:
        submissions = []
        for i in range(copies):
            student = f"student{i:03d}"
            for src in sources:
                dest = work / "submissions" / student / src.relative_to(args.solutions)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(answered(src, args.exercises / src.relative_to(args.solutions)), encoding="utf-8")
                submissions.append(Submission(student, str(dest)))

        sets = load_exercise_sets(args.solutions, args.exercises)
        load_before = load_average()
        start = time.monotonic()
        prepare_expected(sorted(sets), sets, args.solutions, args.exercises, limits, jobs=args.jobs,
                         cache_dir=work / "cache")
        solutions_seconds = time.monotonic() - start

        start = time.monotonic()
        results = grade_batch(submissions, args.solutions, args.exercises, limits, jobs=args.jobs,
                              cache_dir=work / "cache")
        seconds = time.monotonic() - start
        load_after = load_average()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    wrong = [r for r in results if r.status != "graded" or r.score != r.max_score or r.integrity]
    per_minute = 60 * len(results) / seconds
    durations = [r.duration for r in results]
    report = {
        "benchmark": "grading throughput",
        **about(load_before, load_after),
        "jobs": args.jobs,
        "sandbox": sandbox.describe(limits.sandbox),
        "exercise_sets": [s.relative_to(args.solutions).as_posix() for s in sources],
        "submissions": len(results),
        "seconds": round(seconds, 2),
        "submissions_per_minute": round(per_minute, 1),
        "target_per_minute": TARGET_PER_MINUTE,
        "meets_target": per_minute >= TARGET_PER_MINUTE,
        "per_submission_seconds": {
            "median": round(statistics.median(durations), 2),
            "max": round(max(durations), 2),
        },
        "solution_runs_seconds": round(solutions_seconds, 2),
        "all_full_marks": not wrong,
    }
    print(f"graded {len(results)} submissions ({copies} copies of {len(sources)} answered exercises) "
          f"in {seconds:.1f} s at --jobs {args.jobs}, {'sandbox on' if limits.sandbox else 'NO sandbox'}: "
          f"{per_minute:.1f} submissions/minute "
          f"(target >= {TARGET_PER_MINUTE:g}; {'met' if per_minute >= TARGET_PER_MINUTE else 'NOT met'})")
    print(f"  per submission: median {report['per_submission_seconds']['median']} s, "
          f"max {report['per_submission_seconds']['max']} s; solutions run once first: {solutions_seconds:.1f} s")
    print(f"  {os.cpu_count()} CPUs, load average before {load_before}, after {load_after}")
    return finish(args, report, "grading", [f"NOT FULL MARKS: {r.path}: {r.status} {r.score}/{r.max_score} {r.reason}"
                                            for r in wrong])


if __name__ == "__main__":
    sys.exit(main())
