"""``tensorgrad-course``: build the exercises and grade submissions.

Usage::

    tensorgrad-course build [--solutions DIR] [--exercises DIR] [--check]
    tensorgrad-course grade [--solutions DIR] [--exercises DIR] SUBMISSION... [--out DIR]
                            [--jobs N] [--timeout S] [--timeout-notebook S] [--memory MB]

Exit codes: 0 success; 1 the command ran and found problems (a bad source
notebook, stale exercises for ``--check``, a submission the grader could not
handle); 2 bad usage (unknown option, missing folder or file). Student
failures are *not* errors of the command: they are in the reports.

User errors are printed as one line (``error: ...``), never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .errors import BuildError, CourseError, UsageError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return value

    return parse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensorgrad-course", description="Build exercises from solutions/ and grade submissions."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{build,grade}")

    build = sub.add_parser("build", help="write exercises/ from solutions/")
    build.add_argument("--solutions", type=Path, default=Path("solutions"), metavar="DIR")
    build.add_argument("--exercises", type=Path, default=Path("exercises"), metavar="DIR")
    build.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 with a diff if exercises/ is stale"
    )

    grade = sub.add_parser("grade", help="grade submissions with the instructor's tests")
    grade.add_argument("submissions", nargs="+", metavar="SUBMISSION", help="notebooks or folders of them")
    grade.add_argument("--solutions", type=Path, default=Path("solutions"), metavar="DIR")
    grade.add_argument(
        "--exercises", type=Path, default=Path("exercises"), metavar="DIR",
        help="the released notebooks, used to detect edited test cells",
    )
    grade.add_argument("--out", type=Path, default=Path("grades"), metavar="DIR")
    grade.add_argument("--jobs", type=_positive(int), default=1, metavar="N", help="notebooks graded in parallel")
    grade.add_argument(
        "--timeout", "--timeout-cell", dest="timeout", type=_positive(float), default=60.0, metavar="S",
        help="seconds per cell (default 60)",
    )
    grade.add_argument(
        "--timeout-notebook", type=_positive(float), default=600.0, metavar="S",
        help="seconds per notebook, hard limit (default 600)",
    )
    grade.add_argument(
        "--memory", type=_positive(int), default=2048, metavar="MB", help="memory limit per kernel (default 2048)"
    )
    return parser


def _build(args) -> int:
    from . import generate

    if args.check:
        report = generate.check(args.solutions, args.exercises)
        if report.ok:
            print(f"{generate.display_path(args.exercises)} is up to date")
            return EXIT_OK
        for problem in report.problems:
            print(f"error: {problem}", file=sys.stderr)
        if report.diff:
            print(report.diff, file=sys.stderr)
        return EXIT_FAILED
    report = generate.build(args.solutions, args.exercises)
    for path in report.written:
        print(f"wrote {generate.display_path(path)}")
    for path in report.removed:
        print(f"removed {generate.display_path(path)} (no source in {generate.display_path(args.solutions)})")
    print(f"build: {report.summary()}")
    return EXIT_OK


def _grade(args) -> int:
    from . import grade, reports
    from .kernel import Limits

    submissions = grade.discover(args.submissions)
    if not submissions:
        raise UsageError("no notebooks found in the given submissions")
    limits = Limits(
        cell_timeout=args.timeout, notebook_timeout=args.timeout_notebook, memory_mb=args.memory
    )
    exercises = args.exercises if args.exercises.is_dir() else None
    if exercises is None:
        print(
            f"warning: {args.exercises} not found; edited test cells are detected against "
            "a freshly generated release",
            file=sys.stderr,
        )
    show_progress = sys.stderr.isatty()

    def progress(result, done: int, total: int) -> None:
        if show_progress:
            line = f"[{done}/{total}] {result.student} {result.notebook}: {result.status}"
            print(f"\r\x1b[K{line}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    start = time.monotonic()
    results = grade.grade_batch(
        submissions, args.solutions, exercises, limits, jobs=args.jobs, on_result=progress
    )
    seconds = time.monotonic() - start
    reports.write_reports(results, args.out, limits)
    print(reports.summary(results, seconds=seconds, jobs=args.jobs), end="")
    print(f"Reports written to {args.out}/ (grades.csv, report.json, results/, summary.txt)")
    return EXIT_FAILED if any(r.status == "grader_error" for r in results) else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _build(args) if args.command == "build" else _grade(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BuildError as exc:
        for error in exc.errors:
            print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except CourseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
