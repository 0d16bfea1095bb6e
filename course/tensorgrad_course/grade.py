"""The grader: score submissions with the instructor's tests, one bad notebook at a time.

For each submission:

1. read its bytes (never written to) and their sha256; parse leniently;
2. identify its exercise set by content: metadata, then cell ids, then file
   name (:mod:`.identify`); never a guess;
3. build the notebook to run: the instructor's source with the student's
   answer cells put in (:mod:`.assemble`), plus the guard cells (:mod:`.guard`),
   armed with a fresh nonce;
4. run it in a fresh temporary directory, in a fresh kernel with per-cell and
   per-notebook time limits and memory/CPU limits, continuing after errors
   (:mod:`.kernel`);
5. score each task, test by test (:func:`score`).

Scoring
    A task's test cell either declares **named tests** (``check(...)``, see
    :mod:`.checks`) or is **assert-style** (plain code; nbgrader's way).

    * Named tests share the task's points (by their weights). A test passes
      when its block ran without error in the kernel *and* every value the
      instructor's solution submitted for it (:mod:`.expected`) was submitted
      by the student too and matches it, compared here, in the grader's
      process, with the tolerances of the solution's run. Records count only
      if a test cell of the instructor sent them with this run's nonce
      (:func:`.expected.collect`).
    * An assert-style test cell is one test: full points if its execute_reply
      says ``ok``, else 0.

    Test and task statuses: ``passed``, ``failed`` (a wrong value or a failed
    assertion), ``error`` (any other exception, or the kernel died before or
    while running it), ``not_attempted`` (the answer still raises the stub's
    NotImplementedError), ``timeout``, ``missing`` (the answer cell was
    deleted). A task whose tests partly pass is ``failed`` with partial points.
    Manually graded answer cells are listed with status ``manual`` and are not
    part of the score.

Submission statuses: ``graded``, ``timeout``, ``kernel_died``,
``invalid_notebook`` (not a notebook: a ``.py``, a PDF, an empty or truncated
file), ``unmatched`` (a notebook whose exercise set cannot be told for sure,
:mod:`.identify`), ``grader_error`` (a bug in the grader, reported instead of
stopping the batch).

Nothing a student does stops the batch: every failure mode becomes a status
and a reason for that submission only. Batches run in a process pool
(``jobs``); if a worker process itself dies, the submissions it may have held
are re-run one per fresh pool, and only one that kills its pool again is
reported as ``grader_error``. The instructor's solutions are run first (once
per exercise set, cached): a solution that fails its own tests stops the
command with a :class:`~.expected.SolutionError` before any student is graded.
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing
import os
import re
import secrets
import shutil
import stat
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from . import assemble as asm
from . import expected as exp
from . import identify, library, measures, sandbox
from .errors import CourseError, NotebookError, UsageError
from .exercise_set import ExerciseSet, load_exercise_sets
from .kernel import CellResult, Limits, RunResult, kernel_env, new_scratch, prestart_pays, run_notebook
from .notebooks import grade_id, parse_json, shape_problem, source_of
from .values import compare, record_problem, share_of_points
from .version import GRADER_VERSION

__all__ = ["GRADER_VERSION", "Submission", "SubmissionResult", "TaskResult", "TestResult",
           "discover", "grade_batch", "grade_submission", "score"]

#: Exception names that mean "the test ran and the answer is wrong".
_FAILURE_NAMES = {"AssertionError", "CheckFailure"}


@dataclass
class Submission:
    student: str
    path: str
    #: Why nothing of this entry is graded (a student folder holding only files the grader skips):
    #: the row says so instead of the student vanishing from the report (:func:`discover`).
    skipped: str = ""


@dataclass
class TestResult:
    name: str
    status: str
    points: float
    max_points: float
    message: str = ""
    duration: float = 0.0
    hidden: bool = False


@dataclass
class TaskResult:
    grade_id: str
    points: float
    max_points: float
    status: str
    reason: str = ""
    hidden: bool = False
    duration: float = 0.0
    check: str | None = None
    tests: list[TestResult] = field(default_factory=list)


@dataclass
class SubmissionResult:
    student: str
    path: str
    notebook: str  # the exercise set's name, or the file name if it matched none
    sha256: str
    status: str
    reason: str = ""
    score: float = 0.0
    max_score: float = 0.0
    tasks: list[TaskResult] = field(default_factory=list)
    integrity: list[dict] = field(default_factory=list)
    duration: float = 0.0
    solution_sha256: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "SubmissionResult":
        data = dict(data)
        tasks = []
        for t in data["tasks"]:
            t = dict(t)
            t["tests"] = [TestResult(**x) for x in t.get("tests", [])]
            tasks.append(TaskResult(**t))
        data["tasks"] = tasks
        return cls(**data)


# ------------------------------------------------------------------ discovery


def _class_files(root: Path) -> list[Path]:
    """Every file below ``root`` a student may have handed in, sorted.

    Not only notebooks: a ``.py``, a PDF or an empty upload gets its own row
    (``invalid_notebook``) instead of vanishing. Hidden files and folders
    (``.ipynb_checkpoints``, ``.DS_Store``) and macOS's ``__MACOSX`` are skipped.
    Everything that is not a plain folder is a file handed in, so that a symbolic link,
    a FIFO or a device gets a row of its own (refused, :func:`refusal`) instead of being
    followed, read (a FIFO would block the grader) or skipped unseen. Links to folders
    are not followed.
    """
    found = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if any(part.startswith(".") or part == "__MACOSX" for part in rel.parts):
            continue
        try:
            mode = path.lstat().st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            continue
        found.append(path)
    return sorted(found)


#: Entries of a class folder that are nobody's hand-in: macOS's and Jupyter's own.
_NOT_A_STUDENT = (".DS_Store", ".ipynb_checkpoints", "__MACOSX")


def _skipped_entries(root: Path, graded: set[str]) -> list[Submission]:
    """A row for every entry of the class folder ``root`` that gave no submission (a student folder
    holding only a Jupyter checkpoint, a ``__MACOSX`` copy or hidden files; a hidden file; an empty
    folder): the student is in the report, the row says what was found and that nothing was graded."""
    rows = []
    try:
        entries = sorted(root.iterdir())
    except OSError:
        return rows
    for entry in entries:
        if entry.name in graded or entry.name in _NOT_A_STUDENT or entry.name.startswith("._"):
            continue
        try:
            folder = stat.S_ISDIR(entry.lstat().st_mode)
        except OSError:
            continue
        files = sorted(p for p in entry.rglob("*") if not p.is_dir()) if folder else [entry]
        shown = ", ".join(str(p.relative_to(root)) for p in files[:3]) + (" ..." if len(files) > 3 else "")
        reason = (f"nothing graded: only files the grader skips were found ({shown}: Jupyter checkpoints, "
                  "macOS copies and hidden files are not hand-ins); ask the student for the notebook itself"
                  if files else "nothing graded: the folder is empty")
        student = entry.name if folder else entry.stem
        rows.append(Submission(student_id(student), str(files[0] if files else entry), skipped=reason))
    return rows


def refusal(path: str | Path) -> tuple[str, bool]:
    """(why the file is refused, whether that is tampering), or ("", False) for a plain file.

    A submission must be a regular file with one name: not a symbolic link (to the
    instructor's solution, to /dev/zero...), not a hard link (another name for a file
    elsewhere), not a FIFO, device or socket. Checked with ``lstat``, never following a link.
    """
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"cannot read the file: {exc.strerror or exc}", False
    if stat.S_ISLNK(info.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"refused: the file is a symbolic link (to {target!r}), not a file; it was not followed", True
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(info.st_mode) else "a device" if stat.S_ISCHR(info.st_mode)
                or stat.S_ISBLK(info.st_mode) else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        return f"refused: the file is {kind}, not a regular file; it was not read", True
    if info.st_nlink > 1:
        return (f"refused: the file is a hard link (it has {info.st_nlink} names, so its content is a file "
                "elsewhere too); it was not read"), True
    return "", False


def student_id(name: str) -> str:
    """A student's id from a file or folder name, as text every report can hold.

    A name that is not valid UTF-8 (Python holds its odd bytes as lone surrogates, which no
    UTF-8 file can store) is shown with those bytes as ``\\xNN`` escapes, plus a short hash of
    the raw bytes, so that it never becomes the id of another name (``caf\\xe9`` typed out).
    Other characters, control characters included, are kept: every report escapes them.
    """
    raw = os.fsencode(name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "backslashreplace") + "-" + hashlib.sha1(raw).hexdigest()[:6]


def discover(paths: list[str | Path]) -> list[Submission]:
    """Submissions from files and folders.

    A file is one submission; its student is the file's stem. A folder holds
    one file per student (``alice.ipynb``) or one folder per student
    (``alice/set1.ipynb``): the student is the first folder below it, else the
    stem. Every file in a folder is a submission, notebook or not. Raises
    :class:`UsageError` for a path that does not exist.
    """
    found: dict[Path, Submission] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            tops = set()
            for nb in _class_files(path):
                rel = nb.relative_to(path)
                tops.add(rel.parts[0])
                student = rel.parts[0] if len(rel.parts) > 1 else rel.stem
                found.setdefault(Path(os.path.abspath(nb)), Submission(student_id(student), str(nb)))
            for sub in _skipped_entries(path, tops):
                found.setdefault(Path(os.path.abspath(sub.path)), sub)
        elif path.is_file() or path.is_symlink() or path.exists():
            found.setdefault(Path(os.path.abspath(path)), Submission(student_id(path.stem), str(path)))
        else:
            raise UsageError(f"submission not found: {path}")
    return sorted(found.values(), key=lambda s: (s.student, s.path))


# -------------------------------------------------------------------- scoring


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,79}")
_RAISED = re.compile(r"^your code raised ([A-Za-z_][A-Za-z0-9_.]{0,79})\b")
_THEIRS_LIMIT = 300


def theirs(text: str, limit: int = _THEIRS_LIMIT) -> str:
    """Text that came from the student's kernel, for a report: one line, bounded, quoted.

    Anything the kernel sends (exception messages, the messages of a test
    block) is the student's to choose, so it is never shown as the grader's
    own words: control characters become spaces, it is cut at ``limit``
    characters, and it is put in quotes.
    """
    clean = " ".join("".join(ch if ch.isprintable() else " " for ch in str(text)).split())
    if len(clean) > limit:
        clean = clean[: limit - 3] + "..."
    return '"' + clean.replace('"', "'") + '"'


def _exception_name(ename: str) -> str:
    """An exception's class name from the kernel, if it is a plain (bounded) name."""
    return ename if _IDENTIFIER.fullmatch(ename or "") else "an exception"


#: (exception name, words of its message) -> the per-kernel limit it means (kernel.Limits).
_LIMIT_ERRORS = (
    ("MemoryError", "", "the kernel's memory limit"),
    ("OSError", "File too large", "the limit on the size of one file"),
    ("OSError", "No space left on device", "the kernel's disk limit"),
    ("BlockingIOError", "Resource temporarily unavailable", "the process limit"),
)


def _raised(ename: str, evalue: str) -> str:
    """``ValueError: "its message"`` (the message quoted as the student's text), and the
    per-kernel limit that the error means, if it means one."""
    name = _exception_name(ename)
    text = f"{name}: {theirs(evalue)}" if evalue else name
    for error, words, limit in _LIMIT_ERRORS:
        if ename == error and words in (evalue or ""):
            return f"{text} (the code reached {limit})"
    return text


def _describe(assembly: asm.Assembly, index: int | None) -> str:
    """Where a run stopped, as " (at your answer cell 'mean')"."""
    if index is None or not 0 <= index < len(assembly.roles):
        return ""
    cell_role, gid = assembly.roles[index]
    where = {
        asm.ANSWER_CELL: f"your answer cell {gid!r}",
        asm.TEST_CELL: f"test {gid!r}",
        asm.GUARD: f"the grader's check before test {gid!r}",
        asm.GUARD_AFTER: f"the grader's check after test {gid!r}",
        asm.SETUP: "the grader's setup",
    }.get(cell_role, f"setup cell {index}")
    return f" (at {where})"


def _answer_note(task, assembly: asm.Assembly, run: RunResult) -> tuple[str | None, str]:
    """Why the task's answer cells may explain a failure: (status override, note)."""
    notes, status = [], None
    for gid in task.answers:
        for index in assembly.indexes(asm.ANSWER_CELL, gid):
            result = run.cells.get(index)
            if result is None or result.status == "ok":
                continue
            if result.status == "timeout":
                status = status or "timeout"
                notes.append(f"your answer cell {gid!r} timed out and was interrupted")
            elif result.ename == "NotImplementedError" and gid not in assembly.missing_answers:
                status = status or "not_attempted"
                notes.append(f"your answer cell {gid!r} still raises NotImplementedError")
            elif gid not in assembly.missing_answers:
                notes.append(f"your answer cell {gid!r} raised {_raised(result.ename, result.evalue)}")
        if gid in assembly.retyped_answers:
            notes.append(f"answer cell {gid!r} was not a code cell in your notebook; it was run as code")
    missing = [gid for gid in task.answers if gid in assembly.missing_answers]
    if missing:
        status = "missing"
        notes.insert(0, "answer cell " + ", ".join(repr(g) for g in missing) + " is missing from your notebook")
    return status, "; ".join(notes)


def _cell_status(outcome: CellResult, hidden: bool = False) -> tuple[str, str]:
    """(status, message) for a test cell that ended with an error or a timeout.

    The exception's message comes from the kernel: quoted, and left out
    altogether for a cell with hidden tests (it could show their code or values).
    """
    if outcome.status == "timeout":
        return "timeout", f"the test {outcome.evalue}"
    if outcome.ename == "NotImplementedError":
        return "not_attempted", "your answer still raises NotImplementedError"
    if hidden:
        name = _exception_name(outcome.ename)
        status = "failed" if outcome.ename in _FAILURE_NAMES else "error"
        return status, f"the test stopped with {name} (hidden tests show no details)"
    if outcome.ename in _FAILURE_NAMES:
        return "failed", theirs(outcome.evalue) if outcome.evalue else f"{outcome.ename} (no message)"
    return "error", _raised(outcome.ename, outcome.evalue)


def _not_run(run: RunResult, index: int, stop_note: str) -> tuple[str, str] | None:
    if run.stopped_at is not None and index >= run.stopped_at:
        return ("timeout" if run.outcome == "timeout" else "error"), f"not run: {stop_note}"
    return None


def _judge(record: dict, test: exp.ExpectedTest) -> tuple[str, str]:
    """A named test's (status, message) from the student's record and the solution's values."""
    # A value is shown only where the student's self-check shows it too: in a public test that
    # gives expected= (never for a prediction, whose self-check checks only its form).
    def reveal(wanted: dict) -> bool:
        return not test.hidden and bool(wanted.get("expected_given"))

    submitted: dict[str, dict] = {}
    unreadable: dict[str, str] = {}
    for value in record["values"]:
        name = value["name"]
        if name not in submitted and name not in unreadable:
            # Only plain data from the kernel, checked before it is compared (values.record_problem).
            problem = record_problem(value["value"])
            if problem:
                unreadable[name] = problem
            else:
                submitted[name] = value["value"]
    for wanted in test.values:
        if wanted["name"] in unreadable:
            return "failed", (f"the grader could not read your {wanted['name']}: {unreadable[wanted['name']]}; "
                              "a value must be plain data (numbers, arrays, tensors, strings, lists)")
    if record["outcome"] != "passed":
        status = record["outcome"]
        message = _kernel_message(status, record.get("message", ""), test.hidden)
        failed = record.get("failed_value")
        if failed and failed in submitted:
            # Recompute the message here, so that a hidden test never shows its
            # expected value (the kernel's message may, from an expected= literal).
            wanted = next((v for v in test.values if v["name"] == failed), None)
            if wanted is not None:
                regraded = _compare_safely(wanted, submitted[failed], reveal(wanted))
                if regraded:
                    message = regraded
                elif test.hidden:
                    message = f"your {failed} is not the expected kind of value"
        return status, message
    for wanted in test.values:
        name = wanted["name"]
        if name not in submitted:
            return "failed", f"your code did not produce {name}"
        message = _compare_safely(wanted, submitted[name], reveal(wanted))
        if message:
            return "failed", message
    return "passed", ""


def _compare_safely(wanted: dict, actual: dict, reveal: bool) -> str | None:
    """:func:`.values.compare`, where a value that cannot be compared (an int too large for a float...)
    fails its test instead of stopping the grader."""
    try:
        if wanted.get("options", {}).get("measure") in measures.KINDS:
            # A trained network: measured here, with the solution's layers, data and targets.
            return measures.judge(wanted, actual, name=wanted["name"], reveal=reveal)
        return compare(wanted["value"], actual, name=wanted["name"], reveal=reveal, **_options(wanted))
    except Exception as exc:  # noqa: BLE001 - the student's value, not the grader, is at fault
        return f"the grader could not compare your {wanted['name']} with the expected value ({type(exc).__name__})"


def _kernel_message(status: str, message: str, hidden: bool) -> str:
    """A failed test's message as the kernel sent it: quoted; for a hidden test, only what kind of failure."""
    if not hidden:
        return theirs(message) if message else ""
    if status == "not_attempted":
        return "not attempted yet: your code still raises NotImplementedError"
    raised = _RAISED.match(message or "")
    if status == "error":
        return f"your code raised {raised.group(1) if raised else 'an exception'} in this hidden test"
    return "this hidden test failed"


def _options(wanted: dict) -> dict:
    options = wanted.get("options", {})
    return {key: options[key] for key in ("atol", "rtol", "dtype", "requires_grad") if key in options}


def _task_status(statuses: list[str]) -> str:
    bad = [s for s in statuses if s != "passed"]
    if not bad:
        return "passed"
    for status in ("missing", "timeout", "failed", "error"):
        if status in bad:
            return status
    return "not_attempted" if len(bad) == len(statuses) else "failed"


def _round(x: float) -> float:
    return round(x, 6)


def _score_named(task, expected: exp.ExpectedTask, assembly, run, collected, index, stop_note) -> TaskResult:
    outcome = run.cells.get(index)
    records = collected.tests.get(task.grade_id, {})
    duplicated = collected.duplicated.get(task.grade_id, set())
    override, note = _answer_note(task, assembly, run)
    total_weight = sum(t.weight for t in expected.tests)
    tests: list[TestResult] = []
    for test in expected.tests:
        share = share_of_points(task.points, test.weight, total_weight)
        record = records.get(test.name)
        duration = 0.0
        if test.name in duplicated:
            status, message = "failed", "this test was reported more than once (see the integrity report)"
        elif record is not None:
            status, message = _judge(record, test)
            duration = float(record.get("duration", 0.0))
        elif run.unreadable_cells.get(index):
            status = "failed"
            message = f"the grader could not read what this test sent ({run.unreadable_cells[index][0]})"
        elif outcome is None:
            status, message = _not_run(run, index, stop_note) or ("error", "the test cell did not run")
        elif outcome.status != "ok":
            status, message = _cell_status(outcome, test.hidden)
            if outcome.status == "error":
                message = f"not run: the test cell stopped with {message}"
        else:
            status, message = "error", "this test did not run"
        if status != "passed" and override == "missing" or (
            status in ("error", "not_attempted") and override in ("not_attempted", "timeout")
        ):
            # The answer cell explains this test's failure better than the test does
            # (a NameError because the stub raised before defining the name...).
            status, message = override, note
        if test.hint and status in ("failed", "error") and message:
            message = f"{message}\nhint: {test.hint}"
        tests.append(TestResult(
            name=test.name, status=status, points=share if status == "passed" else 0.0,
            max_points=share, message=message, duration=round(duration, 4), hidden=test.hidden,
        ))
    passed_weight = sum(t.weight for t, r in zip(expected.tests, tests) if r.status == "passed")
    points = share_of_points(task.points, passed_weight, total_weight)
    status = _task_status([t.status for t in tests])
    bad = [t for t in tests if t.status != "passed"]
    if not bad:
        reason = ""
    elif note and all(t.message == note for t in bad):
        reason = note
    else:
        first = next(t for t in bad if t.message != note) if note else bad[0]
        reason = f"{first.name}: {first.message}"
        if note:
            reason = f"{reason} ({note})"
    return TaskResult(
        grade_id=task.grade_id, points=points, max_points=task.points, status=status, reason=reason,
        hidden=task.hidden, duration=round(outcome.duration, 3) if outcome else 0.0, check=task.check, tests=tests,
    )


def _score_cell(task, assembly, run, index, stop_note) -> TaskResult:
    """An assert-style task: one test, decided by the test cell's execute_reply."""
    outcome = run.cells.get(index)
    base = dict(grade_id=task.grade_id, max_points=task.points, hidden=task.hidden, check=task.check)
    if outcome is None:
        not_run = _not_run(run, index, stop_note)
        if not_run:
            status, reason = not_run
            points = 0.0
        else:  # an empty test cell: nothing to fail
            status, reason, points = "passed", "", task.points
        test = TestResult(task.grade_id, status, points, task.points, reason, hidden=task.hidden)
        return TaskResult(points=points, status=status, reason=reason, tests=[test], **base)
    base["duration"] = round(outcome.duration, 3)
    if outcome.status == "ok":
        test = TestResult(task.grade_id, "passed", task.points, task.points, "", base["duration"], task.hidden)
        return TaskResult(points=task.points, status="passed", tests=[test], **base)
    override, note = _answer_note(task, assembly, run)
    status, reason = _cell_status(outcome, task.hidden)
    if outcome.status != "timeout" and override:
        status, reason = override, (_exception_name(outcome.ename) if task.hidden
                                    else _raised(outcome.ename, outcome.evalue))
    if note:
        reason = f"{note} ({reason})" if override else f"{reason} ({note})"
    test = TestResult(task.grade_id, status, 0.0, task.points, reason, base["duration"], task.hidden)
    return TaskResult(points=0.0, status=status, reason=reason, tests=[test], **base)


def score(
    exset: ExerciseSet,
    assembly: asm.Assembly,
    run: RunResult,
    expected: exp.Expected | None = None,
    collected: exp.Collected | None = None,
) -> list[TaskResult]:
    """One TaskResult per task (see the module docstring), plus the manually graded cells."""
    results = []
    stop_note = f"{run.reason}{_describe(assembly, run.stopped_at)}" if run.stopped_at is not None else ""
    collected = collected or exp.Collected()
    for task in exset.tasks:
        (index,) = assembly.indexes(asm.TEST_CELL, task.grade_id)
        wanted = expected.tasks.get(task.grade_id) if expected is not None else None
        try:
            if wanted is not None and wanted.tests:
                results.append(_score_named(task, wanted, assembly, run, collected, index, stop_note))
            else:
                results.append(_score_cell(task, assembly, run, index, stop_note))
        except Exception as exc:  # noqa: BLE001 - whatever the kernel sent, this task fails, not the batch
            reason = f"the grader could not read this task's results from your kernel ({type(exc).__name__})"
            results.append(TaskResult(task.grade_id, 0.0, task.points, "error", reason, task.hidden,
                                      check=task.check))
    for gid, pts in exset.manual:
        results.append(TaskResult(gid, 0.0, pts, "manual", "graded by hand, not by the autograder"))
    return results


def _guard_findings(assembly: asm.Assembly, run: RunResult) -> tuple[list[asm.Finding], set[str]]:
    """The guard cells' findings, and the tasks whose test ran while something was patched (the
    check right after the test restored it, or did not answer): their results do not count."""
    findings: list[asm.Finding] = []
    seen: set[str] = set()
    void: set[str] = set()
    for index, (cell_role, gid) in enumerate(assembly.roles):
        result = run.cells.get(index)
        if cell_role not in (asm.GUARD, asm.GUARD_AFTER, asm.SETUP) or result is None or result.status == "ok":
            continue
        when = f"after test {gid!r}" if cell_role == asm.GUARD_AFTER else f"before test {gid!r}"
        if result.ename == "GraderGuard":
            # "restored ... | attempted ...": what the guard put back, and what its audit hook saw tried
            for part in result.evalue.split(" | "):
                kind = "attempted" if part.startswith("attempted ") else "patched"
                if kind == "patched" and cell_role == asm.GUARD_AFTER:
                    void.add(gid)
                if part not in seen:
                    seen.add(part)
                    findings.append(asm.Finding(kind, gid, f"{theirs(part)} ({when})", tampering=True))
            continue
        else:
            if cell_role == asm.GUARD_AFTER:
                void.add(gid)
            key = detail = f"the grader's {cell_role} cell failed: {_raised(result.ename, result.evalue)}"
            finding = asm.Finding("guard", gid, detail, tampering=cell_role in (asm.GUARD, asm.GUARD_AFTER))
        if key not in seen:
            seen.add(key)
            findings.append(finding)
    return findings, void


def _void(tasks: list[TaskResult], gids: set[str]) -> None:
    """No points from the tests of a task whose test cell ran while something the grader relies on
    was patched: a passed test may have been forged on its way out (a failed one keeps its message)."""
    why = "not counted: something was patched while this test ran (see the integrity report)"
    for task in tasks:
        if task.grade_id not in gids or task.status == "manual":
            continue
        voided = [test for test in task.tests if test.status == "passed"]
        for test in voided:
            test.points, test.status, test.message = 0.0, "error", why
        if voided or task.points:
            task.points = 0.0
            task.status = "error"
            task.reason = f"{task.reason}; {why}" if task.reason else why


# ----------------------------------------------------------------- one notebook


def _unscored(exset: ExerciseSet | None, status: str, reason: str) -> list[TaskResult]:
    if exset is None:
        return []
    return [TaskResult(t.grade_id, 0.0, t.points, status, reason, t.hidden, check=t.check) for t in exset.tasks]


def grade_submission(
    sub: Submission,
    sets: dict[str, ExerciseSet],
    limits: Limits,
    expected: dict[str, exp.Expected] | None = None,
    *,
    prestart: bool = False,
) -> SubmissionResult:
    """Grade one submission. Never raises: a grader bug becomes status ``grader_error``.

    ``expected`` maps exercise-set names to their expected values; a set
    missing from it has its solution run first (:func:`.expected.compute`).
    ``prestart``: start the kernel of this process's next submission while this
    one runs (where the sandbox allows it: :func:`.kernel.prestart_pays`).
    """
    begin = time.monotonic()
    try:
        result = _grade(sub, sets, limits, expected or {}, prestart)
    except Exception as exc:  # noqa: BLE001 - the batch must go on
        result = SubmissionResult(
            sub.student, sub.path, Path(sub.path).stem, "", "grader_error", f"{type(exc).__name__}: {exc}"
        )
    result.duration = round(time.monotonic() - begin, 3)
    return result


def _read(sub: Submission, sets: dict[str, ExerciseSet]):
    """(bytes or None, parsed JSON or None, problem, exercise set or None)."""
    path = Path(sub.path)
    refused, _ = refusal(path)
    if refused:
        return None, None, refused, identify.set_by_name(sub.path, sets)
    try:
        # O_NOFOLLOW | O_NONBLOCK: swapped for a link or a FIFO since the check, it is refused, not followed or waited on.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
                return None, None, "refused: the file changed into a link or a special file while it was read", None
            if info.st_size > identify.MAX_FILE_BYTES:
                size = info.st_size / 2**20
                return None, None, f"file too large for a notebook ({size:.0f} MB); look at it by hand", None
            data = fh.read(identify.MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, None, f"cannot read the file: {exc.strerror or exc}", None
    problem = identify.not_a_notebook(sub.path, data)
    if not problem:
        try:
            nb_json = parse_json(data)
            shape = shape_problem(nb_json)
            if shape:
                problem = f"not a notebook Jupyter wrote: {shape}; the file was edited by hand or damaged"
        except NotebookError as exc:
            problem = f"{exc.message}; the file may be truncated or not saved from Jupyter"
    if problem:  # its row goes with the set its name gives, if any (a 0 in that set's table)
        return data, None, problem, identify.set_by_name(sub.path, sets)
    try:
        cells = asm.submitted_cells(nb_json)
        match = identify.identify(sub.path, nb_json, {c.grade_id for c in cells if c.grade_id}, sets)
    except Exception as exc:  # noqa: BLE001 - a shape shape_problem missed: this file's row, not the batch
        return data, None, (f"the grader could not read this notebook's structure ({type(exc).__name__}); "
                            "look at it by hand"), identify.set_by_name(sub.path, sets)
    return data, nb_json, match.problem, match.exset


#: The prefix of a graded submission's scratch folder (its kernel's; :func:`.kernel.new_scratch`).
_SCRATCH = "tg-grade-"


def _grade(
    sub: Submission, sets: dict[str, ExerciseSet], limits: Limits, expected: dict[str, exp.Expected],
    prestart: bool = False,
) -> SubmissionResult:
    result = SubmissionResult(sub.student, sub.path, Path(sub.path).stem, "", "graded")
    if sub.skipped:  # (nothing to read: :func:`_skipped_entries`)
        result.status, result.reason = "invalid_notebook", sub.skipped
        return result
    data, nb_json, problem, exset = _read(sub, sets)
    if data is None or nb_json is None:
        result.status, result.reason = "invalid_notebook", problem
        refused, tampering = refusal(sub.path)
        if refused:
            result.integrity = [asm.Finding("refused_file", None, refused, tampering=tampering).as_dict()]
        if data is not None:
            result.sha256 = hashlib.sha256(data).hexdigest()
        if exset is not None:
            result.notebook, result.max_score = exset.name, exset.max_score
            result.solution_sha256 = exset.source_sha256
            result.tasks = _unscored(exset, "missing", f"not graded: {problem}")
        return result
    result.sha256 = hashlib.sha256(data).hexdigest()
    if exset is None:
        result.status, result.reason = "unmatched", problem
        return result
    result.notebook, result.max_score = exset.name, exset.max_score
    result.solution_sha256 = exset.source_sha256

    wanted = expected.get(exset.name) or exp.compute(exset, limits)
    cells = asm.submitted_cells(nb_json)
    nonce = secrets.token_hex(16)
    assembly = asm.assemble(exset, cells, nonce=nonce)
    if not any(c.grade_id for c in cells):
        assembly.findings.insert(
            0, asm.Finding("deleted", None, "no cell has nbgrader metadata (copied into a new notebook?)")
        )
    saved = asm.saved_records_finding(nb_json)
    if saved is not None:
        assembly.findings.append(saved)
    instructor = identify.solution_markers(nb_json)
    if result.sha256 == exset.source_sha256 or instructor:
        what = "is the instructor's solution notebook itself" if result.sha256 == exset.source_sha256 else (
            f"is the instructor's solution notebook (it contains the {instructor} markers)")
        # Its test cells are the instructor's own, hidden tests included: not edits.
        source = {gid: source_of(c).strip() for c in exset.notebook.cells if (gid := grade_id(c))}
        own = {c.grade_id for c in cells if c.grade_id and source.get(c.grade_id) == c.source.strip()}
        assembly.findings = [f for f in assembly.findings if not (f.kind == "edited" and f.grade_id in own)]
        assembly.findings.insert(0, asm.Finding(
            "solution_notebook", None, f"this file {what}; graded as submitted: check how the student got it",
            tampering=True))
    scratch = new_scratch(_SCRATCH, limits)  # (with its kernel already started, if the last run started one)
    try:
        workdir = scratch / "work"
        workdir.mkdir(exist_ok=True)
        # The kernel's folder holds a copy of the submission (a notebook may read
        # itself, or files next to it) and nothing of solutions/.
        (workdir / Path(sub.path).name).write_bytes(data)
        # With ``prestart``, the next submission's kernel starts while this one runs.
        run = run_notebook(assembly.notebook, limits, workdir, kernel_env(scratch, library.import_roots()),
                           prestart=_SCRATCH if prestart else None)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    collected = exp.collect(assembly, run, nonce)
    result.tasks = score(exset, assembly, run, wanted, collected)
    guarded, void = _guard_findings(assembly, run)
    _void(result.tasks, void)
    findings = assembly.findings + guarded + collected.findings
    if run.limit:
        findings.append(asm.Finding("limit", None, run.limit))
    if run.lingering:
        findings.append(asm.Finding("lingering", None, (
            f"the submission left {run.lingering} process(es) running outside its kernel's process group after "
            "its notebook ended; they were killed before any result was written"), tampering=True))
    result.integrity = [f.as_dict() for f in findings]
    result.score = _round(sum(t.points for t in result.tasks if t.status != "manual"))
    if run.outcome != "completed":
        result.status = run.outcome
        result.reason = f"{run.reason}{_describe(assembly, run.stopped_at)}"
    if run.stopped_at == -1 and run.outcome == "kernel_died" and not run.limit:
        # None of the submission ran (kernel.run_notebook tried twice): the grader's failure, not the student's.
        result.status = "grader_error"
        result.reason = (f"no kernel could start for this submission, twice (the second in a fresh sandbox), "
                         f"so none of it ran; {'' if run.too_little_memory else 'grade it again: '}{run.reason}")
    return result


# ---------------------------------------------------------------------- batch


@functools.lru_cache(maxsize=4)
def _sets_in_worker(solutions_dir: str, exercises_dir: str | None) -> dict[str, ExerciseSet]:
    return load_exercise_sets(Path(solutions_dir), Path(exercises_dir) if exercises_dir else None)


def _grade_in_worker(
    sub: Submission, solutions_dir: str, exercises_dir: str | None, limits: Limits, expected: dict,
    prestart: bool = False,
) -> dict:
    sets = _sets_in_worker(solutions_dir, exercises_dir)
    return grade_submission(sub, sets, limits, expected, prestart=prestart).to_dict()


def _expected_in_worker(name: str, solutions_dir: str, exercises_dir: str | None, limits: Limits,
                        cache_dir: str | None) -> exp.Expected:
    sets = _sets_in_worker(solutions_dir, exercises_dir)
    return exp.load_or_compute(sets[name], limits, Path(cache_dir) if cache_dir else None)


def _crashed(sub: Submission) -> SubmissionResult:
    return SubmissionResult(
        sub.student, sub.path, Path(sub.path).stem, "", "grader_error",
        "the grading process for this submission crashed",
    )


def _start_method() -> str:
    """``fork`` when safe (POSIX, no other threads), else ``spawn``.

    Forked workers inherit the imported modules; spawned ones re-import nbformat,
    whose jsonschema dependency can take seconds to import. Forking a process
    that runs other threads can deadlock, so then spawn is used.
    """
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return "fork"
    return "spawn"


def _pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(_start_method()))


def _run_pool(subs, jobs, args, report, pool: ProcessPoolExecutor | None = None) -> list[Submission]:
    """Grade ``subs`` in one pool (``pool``, or a new one); return those lost to a broken pool."""
    lost: list[Submission] = []
    owned = pool is None
    pool = pool or _pool(jobs)
    try:
        futures = {pool.submit(_grade_in_worker, sub, *args): sub for sub in subs}
        for future in as_completed(futures):
            try:
                report(SubmissionResult.from_dict(future.result()))
            except BrokenProcessPool:
                lost.append(futures[future])
    finally:
        if owned:
            pool.shutdown()
    return lost


def sets_needed(submissions: list[Submission], sets: dict[str, ExerciseSet]) -> list[str]:
    """Names of the exercise sets that some submission will be graded against."""
    needed = set()
    for sub in submissions:
        data, _, problem, exset = _read(sub, sets)
        if data is not None and exset is not None and not problem:  # (an invalid file runs nothing)
            needed.add(exset.name)
    return sorted(needed)


def prepare_expected(
    names: list[str],
    sets: dict[str, ExerciseSet],
    solutions_dir: Path,
    exercises_dir: Path | None,
    limits: Limits,
    *,
    jobs: int = 1,
    cache_dir: Path | None = None,
    pool: ProcessPoolExecutor | None = None,
) -> dict[str, exp.Expected]:
    """Expected values of the named sets (cached, or by running their solutions in parallel).

    Raises :class:`~.expected.SolutionError` if a solution fails its own tests.
    """
    if pool is None and (jobs <= 1 or len(names) <= 1):
        return {name: exp.load_or_compute(sets[name], limits, cache_dir) for name in names}
    args = (
        str(Path(solutions_dir).resolve()),
        str(Path(exercises_dir).resolve()) if exercises_dir else None,
        limits,
        str(cache_dir) if cache_dir else None,
    )
    owned = pool is None
    pool = pool or _pool(min(jobs, len(names)))
    try:
        futures = {name: pool.submit(_expected_in_worker, name, *args) for name in names}
        try:
            return {name: future.result() for name, future in futures.items()}
        except BrokenProcessPool:
            raise CourseError("a process running the instructor's solutions crashed") from None
    finally:
        if owned:
            pool.shutdown()


def grade_batch(
    submissions: list[Submission],
    solutions_dir: Path,
    exercises_dir: Path | None,
    limits: Limits = Limits(),
    *,
    jobs: int = 1,
    on_result: Callable[[SubmissionResult, int, int], None] | None = None,
    cache_dir: Path | None = None,
) -> list[SubmissionResult]:
    """Grade every submission; results sorted by student and notebook.

    The exercise sets are loaded (and validated) first, so an authoring error in
    ``solutions/`` is one clear error before any kernel starts; then the
    solutions of the sets in use are run (or read from ``cache_dir``), so a
    solution failing its own tests stops the batch before any student is graded.
    """
    if limits.sandbox:
        sandbox.require()  # no student code runs outside the sandbox unless told --no-sandbox
        for what, folder in (("solutions", solutions_dir), ("expected-values cache", cache_dir)):
            through = sandbox.exposed(folder) if folder is not None else None
            if through is not None:
                raise UsageError(f"the {what} folder {folder} is inside {through}, which every kernel sees "
                                 "read-only (it is on the grader's import path or holds its Python): move it "
                                 "out, or take that folder off PYTHONPATH")
    sets = load_exercise_sets(solutions_dir, exercises_dir)
    needed = sets_needed(submissions, sets)
    results: list[SubmissionResult] = []
    # Without a sandbox, what a killed grading process leaves comes here (sandbox.Strays), and goes.
    strays = None if limits.sandbox else sandbox.Strays()
    lost: list[Submission] = []

    def report(result: SubmissionResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result, len(results), len(submissions))

    if jobs <= 1 or len(submissions) <= 1:
        expected = prepare_expected(needed, sets, solutions_dir, exercises_dir, limits, cache_dir=cache_dir)
        prestart = len(submissions) > 1 and prestart_pays(1)
        for sub in submissions:
            report(grade_submission(sub, sets, limits, expected, prestart=prestart))
    else:
        # One pool for both phases: its workers (and their kernel fork servers)
        # start once, run the solutions, then grade.
        with _pool(jobs) as pool:
            expected = prepare_expected(needed, sets, solutions_dir, exercises_dir, limits,
                                        jobs=jobs, cache_dir=cache_dir, pool=pool)
            args = (
                str(Path(solutions_dir).resolve()),
                str(Path(exercises_dir).resolve()) if exercises_dir else None,
                limits,
                expected,
                prestart_pays(min(jobs, len(submissions))),  # (kernels started ahead only where a core idles)
            )
            lost = _run_pool(submissions, jobs, args, report, pool=pool)
        for sub in lost:  # isolate the culprit: one fresh pool each
            if _run_pool([sub], 1, args, report):
                report(_crashed(sub))
    if strays is not None:
        _sweep_batch(strays, results, lost)
    return sorted(results, key=lambda r: (r.student, r.notebook, r.path))


def _sweep_batch(strays: sandbox.Strays, results: list[SubmissionResult], lost: list[Submission]) -> None:
    """Without a sandbox, at the end of a batch: kill every process left below the grader (a grading
    process that a submission killed leaves its kernel's processes to this one), and note them on
    the rows of the submissions whose grading process died, the only ones that can have left any."""
    from multiprocessing import resource_tracker

    from .kernel import _Zygote

    tracker = getattr(getattr(resource_tracker, "_resource_tracker", None), "_pid", None)
    if tracker:
        strays.before.add(tracker)  # (multiprocessing's own helper, when the pool was spawned)
    zygote = _Zygote._current
    keep = zygote.proc.pid if zygote is not None and zygote.owner == os.getpid() else None
    left = strays.sweep(keep, None)
    suspects = {sub.path for sub in lost}
    for result in results:
        if left and result.path in suspects:
            result.integrity.append(asm.Finding("lingering", None, (
                f"{left} process(es) were left running after the grading process of this submission (or of "
                "another one of the same pool) died; they were killed before any result was written"),
                tampering=True).as_dict())
