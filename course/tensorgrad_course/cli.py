"""``tensorgrad-course``: build the exercises and grade submissions.

Usage::

    tensorgrad-course build [--solutions DIR] [--exercises DIR] [--check] [--graded]
    tensorgrad-course grade SUBMISSION... [--solutions DIR] [--exercises DIR] [--out DIR]
                            [--jobs N] [--timeout-cell S] [--timeout-notebook S] [--memory MB]
                            [--processes N] [--disk MB] [--disk-files N] [--file-size MB]
                            [--format json|csv|gradescope]... [--shard K/N] [--cache DIR] [--no-sandbox]
    tensorgrad-course gradescope SOLUTION.ipynb... [--out autograder.zip] [--hidden-visibility after_published|hidden]
    tensorgrad-course nbgrader --out DIR [--solutions DIR] [--exercises DIR]
    tensorgrad-course report OUT [--format json|csv|gradescope]...

``report`` merges the results of ``grade --shard K/N`` runs (all writing to
``OUT``) into the class's CSV, Gradescope files and summary.

Exit codes: 0 success; 1 the command ran and found problems (a bad source
notebook, a solution failing its own tests, stale exercises for ``--check``, a
submission the grader could not handle, a shard missing for ``report``); 2 bad
usage or set-up (unknown option or format, missing folder or file, a missing
dependency, no tensorgrad library to grade with). Student failures are *not*
errors of the command: they are in the reports.

User errors are printed as one line (``error: ...``), never as a traceback.
This module imports nothing but the standard library at first, so that even a
missing dependency is reported in one line.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
import time
from pathlib import Path

from . import defaults as _LIMITS  # the per-kernel limits' defaults (standard library only)
from .errors import BuildError, CourseError, UsageError

FORMATS = ("json", "csv", "gradescope")

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: The modules this tooling imports that are not in the standard library, and the distribution
#: each comes from (course/pyproject.toml declares them all): missing, one error line, not a traceback.
DEPENDENCIES = {"numpy": "numpy", "nbformat": "nbformat", "nbclient": "nbclient", "jupyter_client": "jupyter_client",
                "ipykernel": "ipykernel", "IPython": "ipython", "zmq": "pyzmq", "traitlets": "traitlets"}


def _require_dependencies() -> None:
    """Raise ModuleNotFoundError for the first dependency that is missing: grading checks them all
    before anything runs, since kernels import some that this process does not."""
    for name in DEPENDENCIES:
        if importlib.util.find_spec(name) is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


#: The per-kernel limits that are flags of ``grade`` besides time and memory: (flag, Limits field, unit, meaning).
_LIMIT_FLAGS = (
    ("--processes", "processes", "N", "processes and threads one kernel may run at once"),
    ("--disk", "disk_mb", "MB", "megabytes one kernel may write into its folder, /tmp and /dev/shm together"),
    ("--disk-files", "disk_files", "N", "files and folders one kernel may make in its folder, /tmp and /dev/shm together"),
    ("--file-size", "file_mb", "MB", "size of any one file a kernel writes"),
)


def _limit(text: str) -> int:
    """A per-kernel limit: a whole number >= 0, where 0 means no limit."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0 (0: no limit), got {text}")
    return value


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


def _shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected K/N such as 2/8, got {text!r}") from None
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"K/N needs 1 <= K <= N, got {text}")
    return k, n


def shard_of(submissions: list, shard: tuple[int, int] | None) -> list:
    """The submissions of shard K of N: every N-th *student* (sorted), starting at the K-th.

    Students are dealt whole, so that one student's files never land in two
    shards (their report files would share a name).
    """
    if shard is None:
        return submissions
    k, n = shard
    students = sorted({s.student for s in submissions})
    mine = {student for i, student in enumerate(students) if i % n == k - 1}
    return [s for s in submissions if s.student in mine]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensorgrad-course", description="Build exercises from solutions/ and grade submissions."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{build,grade,gradescope,nbgrader,report}")

    build = sub.add_parser("build", help="write exercises/ from solutions/")
    build.add_argument("--solutions", type=Path, default=Path("solutions"), metavar="DIR")
    build.add_argument("--exercises", type=Path, default=Path("exercises"), metavar="DIR")
    build.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 with a diff if exercises/ is stale"
    )
    build.add_argument(
        "--graded", action="store_true",
        help="an edition for graded work: no self-study feedback on predictions (no fingerprints)")

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
        "--timeout-cell", "--timeout", dest="timeout", type=_positive(float), default=60.0, metavar="S",
        help="seconds per cell (default 60)",
    )
    grade.add_argument(
        "--timeout-notebook", type=_positive(float), default=600.0, metavar="S",
        help="seconds per notebook, hard limit (default 600)",
    )
    grade.add_argument(
        "--memory", type=_positive(int), default=_LIMITS.memory_mb, metavar="MB",
        help=f"memory limit per kernel: each process's address space, all its processes' resident memory together (default {_LIMITS.memory_mb})",
    )
    for flag, field, unit, what in _LIMIT_FLAGS:
        default = getattr(_LIMITS, field)
        grade.add_argument(flag, dest=field, type=_limit, default=default, metavar=unit,
                           help=f"{what} (default {default}; 0: no limit)")
    grade.add_argument(
        "--format", dest="formats", action="append", choices=FORMATS, metavar="FORMAT",
        help="json, csv or gradescope; repeat for several (default: all three)",
    )
    grade.add_argument(
        "--shard", type=_shard, metavar="K/N",
        help="grade only shard K of N (students dealt round-robin); merge with `tensorgrad-course report OUT`",
    )
    grade.add_argument(
        "--cache", type=Path, metavar="DIR",
        help="where the solutions' expected values are cached (default OUT/.cache)",
    )
    grade.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    grade.add_argument(
        "--no-sandbox", action="store_true",
        help="run kernels without bubblewrap (they can then read and write everything you can); every report says so",
    )

    scope = sub.add_parser("gradescope", help="write a Gradescope autograder zip for exercise sets")
    scope.add_argument("solutions", nargs="+", type=Path, metavar="SOLUTION", help="the sets' source notebooks")
    scope.add_argument("--out", type=Path, default=Path("autograder.zip"), metavar="ZIP")
    scope.add_argument("--hidden-visibility", choices=("after_published", "hidden"), default="after_published",
                       help="when students see the results of hidden tests (default after_published)")
    scope.add_argument("--timeout-cell", type=_positive(float), default=60.0, metavar="S")
    scope.add_argument("--timeout-notebook", type=_positive(float), default=600.0, metavar="S")
    scope.add_argument("--memory", type=_positive(int), default=2048, metavar="MB")

    nbg = sub.add_parser("nbgrader", help="write nbgrader source notebooks whose checks compare values")
    nbg.add_argument("--solutions", type=Path, default=Path("solutions"), metavar="DIR")
    nbg.add_argument("--exercises", type=Path, default=Path("exercises"), metavar="DIR")
    nbg.add_argument("--out", type=Path, required=True, metavar="DIR", help="where the source notebooks go")

    report = sub.add_parser("report", help="merge the results of sharded grade runs")
    report.add_argument("out", type=Path, metavar="OUT", help="the --out folder the shards wrote to")
    report.add_argument("--format", dest="formats", action="append", choices=FORMATS, metavar="FORMAT",
                        help="json, csv or gradescope; repeat for several (default: all three)")
    return parser


def _build(args) -> int:
    from . import generate

    if args.check:
        report = generate.check(args.solutions, args.exercises, feedback=not args.graded)
        if report.ok:
            print(f"{generate.display_path(args.exercises)} is up to date")
            return EXIT_OK
        for problem in report.problems:
            print(f"error: {problem}", file=sys.stderr)
        if report.diff:
            print(report.diff, file=sys.stderr)
        return EXIT_FAILED
    report = generate.build(args.solutions, args.exercises, feedback=not args.graded)
    for path in report.written:
        print(f"wrote {generate.display_path(path)}")
    for path in report.removed:
        print(f"removed {generate.display_path(path)} (no source in {generate.display_path(args.solutions)})")
    print(f"build: {report.summary()}")
    return EXIT_OK


class _Progress:
    """A one-line progress bar on stderr, redrawn in place (only on a terminal)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.monotonic()

    def __call__(self, result, done: int, total: int) -> None:
        if not self.enabled:
            return
        width = 24
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        rate = done / max(time.monotonic() - self.start, 1e-9) * 60
        status = result.status if result.status != "graded" else f"{result.score:g}/{result.max_score:g}"
        line = f"[{bar}] {done}/{total} {rate:.0f}/min  {result.student} {result.notebook}: {status}"
        columns = shutil.get_terminal_size((100, 20)).columns
        print(f"\r\x1b[K{line[: columns - 1]}", end="" if done < total else "\n", file=sys.stderr, flush=True)


def _fingerprinted(exercises: Path) -> list[str]:
    """The released notebooks under ``exercises`` whose check cells carry prediction fingerprints
    (the default build's self-study feedback, :func:`.generate.add_fingerprints`)."""
    from .notebooks import find_notebooks

    found = []
    for path in find_notebooks(exercises):
        try:
            if b".fingerprints({" in path.read_bytes():
                found.append(str(path.relative_to(exercises)))
        except OSError:
            pass
    return found


def _grade(args) -> int:
    from . import grade, library, reports, sandbox
    from .kernel import Limits
    from .notebooks import find_notebooks

    _require_dependencies()
    if Path(args.solutions).is_dir():  # notebooks that import the library: say so in one line, before anything runs
        library.require_for(find_notebooks(args.solutions))

    formats = tuple(dict.fromkeys(args.formats or reports.FORMATS))
    if not Path(args.solutions).is_dir():
        raise UsageError(f"solutions folder not found: {args.solutions}")
    submissions = shard_of(grade.discover(args.submissions), args.shard)
    if not submissions and args.shard is None:
        raise UsageError("no notebooks found in the given submissions")
    limits = Limits(
        cell_timeout=args.timeout, notebook_timeout=args.timeout_notebook, memory_mb=args.memory,
        **{field: getattr(args, field) for _, field, _, _ in _LIMIT_FLAGS},
        sandbox=not args.no_sandbox,
    )
    if limits.sandbox:
        sandbox.require()  # refuses, in one line, before anything runs
    else:
        print(f"warning: no sandbox: {sandbox.describe(False)}", file=sys.stderr)
    exercises = args.exercises if args.exercises.is_dir() else None
    if exercises is None:
        print(
            f"warning: {args.exercises} not found; edited test cells are detected against "
            "a freshly generated release",
            file=sys.stderr,
        )
    else:
        marked = _fingerprinted(exercises)
        if marked:
            print(f"warning: the released exercises carry self-study fingerprints of the predictions' answers "
                  f"({', '.join(marked[:3])}{', ...' if len(marked) > 3 else ''}): with the salt beside them, "
                  "anyone can hash guesses offline and find such an answer; for graded work release "
                  "`tensorgrad-course build --graded`'s edition", file=sys.stderr)
    progress = _Progress(sys.stderr.isatty() and not args.no_progress)
    cache = args.cache if args.cache is not None else args.out / ".cache"
    start = time.monotonic()
    results = grade.grade_batch(
        submissions, args.solutions, exercises, limits, jobs=args.jobs, on_result=progress, cache_dir=cache
    )
    seconds = time.monotonic() - start
    if args.shard is not None:
        manifest = reports.write_shard(results, args.out, limits, args.shard)
        k, n = args.shard
        print(f"shard {k}/{n}: " + reports.one_line(results, seconds=seconds, jobs=args.jobs))
        print(f"Results written to {args.out}/json/ and {manifest}; when every shard is done, "
              f"run: tensorgrad-course report {args.out}")
    else:
        reports.write_reports(results, args.out, limits, formats, seconds=seconds, jobs=args.jobs)
        print(reports.one_line(results, seconds=seconds, jobs=args.jobs))
        written = {"json": "json/, report.json", "csv": "csv/", "gradescope": "gradescope/"}
        print(f"Reports written to {args.out}/ ({', '.join(written[f] for f in formats)}, summary.txt)")
    return EXIT_FAILED if any(r.status == "grader_error" for r in results) else EXIT_OK


def _gradescope(args) -> int:
    from . import gradescope

    out = gradescope.build_zip(args.solutions, args.out, hidden_visibility=args.hidden_visibility,
                               cell_timeout=args.timeout_cell, notebook_timeout=args.timeout_notebook,
                               memory_mb=args.memory)
    print(f"wrote {out}: upload it as the autograder of a Gradescope programming assignment")
    return EXIT_OK


def _nbgrader(args) -> int:
    from . import grade, library, nbgrader_source, sandbox
    from .exercise_set import load_exercise_sets
    from .kernel import Limits
    from .notebooks import find_notebooks

    _require_dependencies()
    library.require_for(find_notebooks(args.solutions), "writing nbgrader sources")  # it runs the solutions

    exercises = args.exercises if args.exercises.is_dir() else None
    sets = load_exercise_sets(args.solutions, exercises)
    limits = Limits(sandbox=sandbox.bwrap()[0] is not None)  # the instructor's own code runs here
    expected = grade.prepare_expected(sorted(sets), sets, args.solutions, exercises, limits)
    for path in nbgrader_source.write(sets, expected, args.out):
        print(f"wrote {path}")
    print("Copy each to source/<assignment>/ in your nbgrader course; its checks compare the solution's values.")
    return EXIT_OK


def _report(args) -> int:
    from . import reports

    formats = tuple(dict.fromkeys(args.formats or reports.FORMATS))
    if not args.out.is_dir():
        raise UsageError(f"folder not found: {args.out}")
    results, limits, problems = reports.merge(args.out)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    reports.write_collected(results, args.out, limits, formats)
    print(reports.one_line(results))
    print(f"Reports written to {args.out}/ from {len(results)} submission report(s)")
    return EXIT_FAILED if problems else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return {"build": _build, "grade": _grade, "gradescope": _gradescope, "nbgrader": _nbgrader,
                "report": _report}[args.command](args)
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        if top not in DEPENDENCIES:
            raise
        print(f"error: tensorgrad-course needs {top}, which is not installed (pip install {DEPENDENCIES[top]}; "
              "installing tensorgrad-course with pip brings every dependency)", file=sys.stderr)
        return EXIT_USAGE
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
