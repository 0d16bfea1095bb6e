"""The grader: score submissions with the instructor's tests, one bad notebook at a time.

For each submission:

1. read its bytes (never written to) and their sha256; parse leniently;
2. match it to an exercise set (by file name, else by grade_ids in common);
3. build the notebook to run: the instructor's source with the student's
   answer cells put in (:mod:`.assemble`), plus the guard cells (:mod:`.guard`);
4. run it in a fresh temporary directory, in a fresh kernel with per-cell and
   per-notebook time limits and memory/CPU limits, continuing after errors
   (:mod:`.kernel`);
5. score each task: **full points if its test cell's execute_reply says ``ok``,
   0 otherwise**, with a status and a reason.

Task statuses: ``passed``, ``failed`` (an AssertionError, e.g. a self-check),
``error`` (any other exception, or the kernel died before/while running it),
``not_attempted`` (the answer still raises the stub's NotImplementedError),
``missing`` (the answer cell was deleted), ``timeout``. Manually graded answer
cells are listed with status ``manual`` and are not part of the score.

Submission statuses: ``graded``, ``timeout``, ``kernel_died``,
``invalid_notebook``, ``grader_error`` (a bug in the grader, reported instead
of stopping the batch).

Nothing a student does stops the batch: every failure mode becomes a status
and a reason for that submission only. Batches run in a process pool
(``jobs``); if a worker process itself dies, the submissions it may have held
are re-run one per fresh pool, and only one that kills its pool again is
reported as ``grader_error``.
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing
import shutil
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from . import assemble as asm
from .errors import NotebookError, UsageError
from .exercise_set import ExerciseSet, load_exercise_sets
from .kernel import Limits, RunResult, kernel_env, run_notebook
from .notebooks import find_notebooks, parse_json

GRADER_VERSION = "1.0"

#: Exception names that mean "the test ran and the answer is wrong".
_FAILURE_NAMES = {"AssertionError", "CheckFailure"}
#: Where the tensorgrad package lives, so that kernels can import it from any folder.
_PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])


@dataclass
class Submission:
    student: str
    path: str


@dataclass
class TaskResult:
    grade_id: str
    points: float
    max_points: float
    status: str
    reason: str = ""
    hidden: bool = False
    duration: float = 0.0


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

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "SubmissionResult":
        data = dict(data)
        data["tasks"] = [TaskResult(**t) for t in data["tasks"]]
        return cls(**data)


# ------------------------------------------------------------------ discovery


def discover(paths: list[str | Path]) -> list[Submission]:
    """Submissions from files and folders.

    A file is one submission; its student is the file's stem. A folder holds
    one notebook per student (``alice.ipynb``) or one folder per student
    (``alice/set1.ipynb``): the student is the first folder below it, else the
    stem. Raises :class:`UsageError` for a path that does not exist.
    """
    found: dict[Path, Submission] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for nb in find_notebooks(path):
                rel = nb.relative_to(path)
                student = rel.parts[0] if len(rel.parts) > 1 else rel.stem
                found.setdefault(nb.resolve(), Submission(student, str(nb)))
        elif path.is_file():
            found.setdefault(path.resolve(), Submission(path.stem, str(path)))
        else:
            raise UsageError(f"submission not found: {path}")
    return sorted(found.values(), key=lambda s: (s.student, s.path))


# ------------------------------------------------------------------- matching


def match_exercise_set(
    path: str, ids: set[str], sets: dict[str, ExerciseSet]
) -> tuple[ExerciseSet | None, str]:
    """The exercise set a submission belongs to, and a problem to report ("" if none)."""
    by_name = [s for s in sets.values() if s.short_name == Path(path).stem]
    named = by_name[0] if len(by_name) == 1 else (next(iter(sets.values())) if len(sets) == 1 else None)
    overlap = {name: len(ids & s.all_ids) for name, s in sets.items()}
    best = max(overlap, key=lambda n: (overlap[n], n)) if overlap and max(overlap.values()) > 0 else None
    if named is not None:
        if not ids or ids & named.all_ids:
            return named, ""
        if best is not None:
            return named, f"its cells belong to exercise set {best!r}, not {named.name!r}"
        return named, f"none of its cells belong to exercise set {named.name!r}"
    if best is not None:
        return sets[best], ""
    return None, "it matches no exercise set (neither its file name nor any grade_id)"


# -------------------------------------------------------------------- scoring


def _describe(assembly: asm.Assembly, index: int | None) -> str:
    """Where a run stopped, as " (at your answer cell 'mean')"."""
    if index is None or not 0 <= index < len(assembly.roles):
        return ""
    cell_role, gid = assembly.roles[index]
    where = {
        asm.ANSWER_CELL: f"your answer cell {gid!r}",
        asm.TEST_CELL: f"test {gid!r}",
        asm.GUARD: f"the grader's check before test {gid!r}",
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
                notes.append(f"your answer cell {gid!r} raised {result.ename}: {result.evalue}".rstrip(": "))
        if gid in assembly.retyped_answers:
            notes.append(f"answer cell {gid!r} was not a code cell in your notebook; it was run as code")
    missing = [gid for gid in task.answers if gid in assembly.missing_answers]
    if missing:
        status = "missing"
        notes.insert(0, "answer cell " + ", ".join(repr(g) for g in missing) + " is missing from your notebook")
    return status, "; ".join(notes)


def score(exset: ExerciseSet, assembly: asm.Assembly, run: RunResult) -> list[TaskResult]:
    """One TaskResult per task, decided by the test cell's execute_reply status."""
    results = []
    stop_note = f"{run.reason}{_describe(assembly, run.stopped_at)}" if run.stopped_at is not None else ""
    for task in exset.tasks:
        (index,) = assembly.indexes(asm.TEST_CELL, task.grade_id)
        outcome = run.cells.get(index)
        base = dict(grade_id=task.grade_id, max_points=task.points, hidden=task.hidden)
        if outcome is None:
            if run.stopped_at is not None and index >= run.stopped_at:
                status = "timeout" if run.outcome == "timeout" else "error"
                results.append(TaskResult(points=0.0, status=status, reason=f"not run: {stop_note}", **base))
            else:  # an empty test cell: nothing to fail
                results.append(TaskResult(points=task.points, status="passed", **base))
            continue
        base["duration"] = round(outcome.duration, 3)
        if outcome.status == "ok":
            results.append(TaskResult(points=task.points, status="passed", **base))
            continue
        override, note = _answer_note(task, assembly, run)
        if outcome.status == "timeout":
            status, reason = "timeout", f"the test {outcome.evalue}"
        elif override:
            status, reason = override, f"{outcome.ename}: {outcome.evalue}".rstrip(": ")
        elif outcome.ename == "NotImplementedError":
            status, reason = "not_attempted", "your answer still raises NotImplementedError"
        elif outcome.ename in _FAILURE_NAMES:
            status, reason = "failed", outcome.evalue or f"{outcome.ename} (no message)"
        else:
            status, reason = "error", f"{outcome.ename}: {outcome.evalue}".rstrip(": ")
        if note:
            reason = f"{note} ({reason})" if override else f"{reason} ({note})"
        results.append(TaskResult(points=0.0, status=status, reason=reason, **base))
    for gid, pts in exset.manual:
        results.append(TaskResult(gid, 0.0, pts, "manual", "graded by hand, not by the autograder"))
    return results


def _guard_findings(assembly: asm.Assembly, run: RunResult) -> list[asm.Finding]:
    findings: list[asm.Finding] = []
    seen: set[str] = set()
    for index, (cell_role, gid) in enumerate(assembly.roles):
        result = run.cells.get(index)
        if cell_role not in (asm.GUARD, asm.SETUP) or result is None or result.status == "ok":
            continue
        if result.ename == "GraderGuard":
            detail = f"{result.evalue} (before test {gid!r})"
            key = result.evalue
            finding = asm.Finding("patched", gid, detail, tampering=True)
        else:
            key = detail = f"the grader's {cell_role} cell failed: {result.ename}: {result.evalue}"
            finding = asm.Finding("guard", gid, detail, tampering=cell_role == asm.GUARD)
        if key not in seen:
            seen.add(key)
            findings.append(finding)
    return findings


# ----------------------------------------------------------------- one notebook


def _unscored(exset: ExerciseSet | None, status: str, reason: str) -> list[TaskResult]:
    if exset is None:
        return []
    return [TaskResult(t.grade_id, 0.0, t.points, status, reason, t.hidden) for t in exset.tasks]


def grade_submission(sub: Submission, sets: dict[str, ExerciseSet], limits: Limits) -> SubmissionResult:
    """Grade one submission. Never raises: a grader bug becomes status ``grader_error``."""
    begin = time.monotonic()
    try:
        result = _grade(sub, sets, limits)
    except Exception as exc:  # noqa: BLE001 - the batch must go on
        result = SubmissionResult(
            sub.student, sub.path, Path(sub.path).stem, "", "grader_error", f"{type(exc).__name__}: {exc}"
        )
    result.duration = round(time.monotonic() - begin, 3)
    return result


def _grade(sub: Submission, sets: dict[str, ExerciseSet], limits: Limits) -> SubmissionResult:
    result = SubmissionResult(sub.student, sub.path, Path(sub.path).stem, "", "graded")
    try:
        data = Path(sub.path).read_bytes()
    except OSError as exc:
        result.status, result.reason = "invalid_notebook", f"cannot read the file: {exc.strerror or exc}"
        return result
    result.sha256 = hashlib.sha256(data).hexdigest()
    try:
        nb_json = parse_json(data)
        problem = ""
    except NotebookError as exc:
        nb_json, problem = None, exc.message
    cells = asm.submitted_cells(nb_json) if nb_json is not None else []
    ids = {c.grade_id for c in cells if c.grade_id}
    exset, mismatch = match_exercise_set(sub.path, ids, sets)
    if exset is not None:
        result.notebook, result.max_score = exset.name, exset.max_score
    problem = problem or mismatch
    if exset is None or problem:
        result.status, result.reason = "invalid_notebook", problem
        result.tasks = _unscored(exset, "missing", f"not graded: {problem}")
        return result

    assembly = asm.assemble(exset, cells)
    if not ids:
        assembly.findings.insert(
            0, asm.Finding("deleted", None, "no cell has nbgrader metadata (copied into a new notebook?)")
        )
    scratch = Path(tempfile.mkdtemp(prefix="tg-grade-"))
    try:
        workdir = scratch / "work"
        workdir.mkdir()
        run = run_notebook(assembly.notebook, limits, workdir, kernel_env(scratch, [_PACKAGE_PARENT]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result.tasks = score(exset, assembly, run)
    result.integrity = [f.as_dict() for f in assembly.findings + _guard_findings(assembly, run)]
    result.score = sum(t.points for t in result.tasks if t.status != "manual")
    if run.outcome != "completed":
        result.status = run.outcome
        result.reason = f"{run.reason}{_describe(assembly, run.stopped_at)}"
    return result


# ---------------------------------------------------------------------- batch


@functools.lru_cache(maxsize=4)
def _sets_in_worker(solutions_dir: str, exercises_dir: str | None) -> dict[str, ExerciseSet]:
    return load_exercise_sets(Path(solutions_dir), Path(exercises_dir) if exercises_dir else None)


def _grade_in_worker(sub: Submission, solutions_dir: str, exercises_dir: str | None, limits: Limits) -> dict:
    return grade_submission(sub, _sets_in_worker(solutions_dir, exercises_dir), limits).to_dict()


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


def _run_pool(subs, jobs, args, report) -> list[Submission]:
    """Grade ``subs`` in one pool; return those lost to a broken pool."""
    lost: list[Submission] = []
    context = multiprocessing.get_context(_start_method())
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {pool.submit(_grade_in_worker, sub, *args): sub for sub in subs}
        for future in as_completed(futures):
            try:
                report(SubmissionResult.from_dict(future.result()))
            except BrokenProcessPool:
                lost.append(futures[future])
    return lost


def grade_batch(
    submissions: list[Submission],
    solutions_dir: Path,
    exercises_dir: Path | None,
    limits: Limits = Limits(),
    *,
    jobs: int = 1,
    on_result: Callable[[SubmissionResult, int, int], None] | None = None,
) -> list[SubmissionResult]:
    """Grade every submission; results sorted by student and notebook.

    The exercise sets are loaded (and validated) first, so an authoring error in
    ``solutions/`` is one clear error before any kernel starts.
    """
    sets = load_exercise_sets(solutions_dir, exercises_dir)
    results: list[SubmissionResult] = []

    def report(result: SubmissionResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result, len(results), len(submissions))

    if jobs <= 1 or len(submissions) <= 1:
        for sub in submissions:
            report(grade_submission(sub, sets, limits))
    else:
        args = (
            str(Path(solutions_dir).resolve()),
            str(Path(exercises_dir).resolve()) if exercises_dir else None,
            limits,
        )
        lost = _run_pool(submissions, jobs, args, report)
        for sub in lost:  # isolate the culprit: one fresh pool each
            if _run_pool([sub], 1, args, report):
                report(_crashed(sub))
    return sorted(results, key=lambda r: (r.student, r.notebook, r.path))
