"""Expected values: what the instructor's solution submits, and reading records from a run.

The grader never takes an expected value from a student's kernel, nor from the
student's file. It runs the **instructor's solution notebook** through the very
pipeline that grades students (:mod:`.assemble` + :mod:`.kernel`), collects the
records that the test cells send (:mod:`.checks`), and keeps, per task and per
named test: the test's weight, whether it is hidden, and every submitted value
with the tolerances the test declared. Student values are later compared with
these in the grader's own process (:func:`.values.compare`).

The solution run doubles as a check of the exercise set: every cell must run,
and every named test must pass; otherwise grading stops with a
:class:`SolutionError` naming the test, before any student is graded.

Results are cached per exercise set under a key made of the solution
notebook's sha256, the grader and record versions, a hash of the source files of
the tensorgrad library and of this package, and the Python and NumPy versions: a change to any of
them recomputes the values. The cache is a folder of JSON files, written
atomically; deleting it is always safe.

:func:`collect` reads the records of any run (the solution's or a student's)
and is where forged records are caught: a record is taken only from the output
of one of the **instructor's test cells** (the grader knows which cell sent
which output), only if it carries the run's nonce and is well formed, and only
once per test name. Anything else is ignored and reported.
"""

from __future__ import annotations

import functools
import hashlib
import json
import platform
import secrets
import shutil
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import assemble as asm
from . import library, markers, measures
from .errors import CourseError
from .exercise_set import ExerciseSet
from .kernel import Limits, RunResult, kernel_env, new_scratch, run_notebook
from .notebooks import atomic_write_text
from .values import RECORD_VERSION
from .version import GRADER_VERSION

_OUTCOMES = ("passed", "failed", "error", "not_attempted")


class SolutionError(CourseError):
    """The instructor's solution does not pass its own tests (an authoring problem)."""


class KernelStartError(CourseError):
    """No grading kernel starts in this environment (an installation problem, not the solution's)."""


# ------------------------------------------------------------------ records


@dataclass
class Collected:
    """The valid records of one run, by task (grade_id) and test name, and what was wrong."""

    tests: dict[str, dict[str, dict]] = field(default_factory=dict)  # gid -> test name -> record
    order: dict[str, list[str]] = field(default_factory=dict)  # gid -> test names in order
    findings: list[asm.Finding] = field(default_factory=list)
    duplicated: dict[str, set[str]] = field(default_factory=dict)  # gid -> names sent twice


def _valid(record, nonce: str) -> str:
    """'' if ``record`` is a well-formed record of this run, else what is wrong with it."""
    if isinstance(record, dict) and record.get("malformed") and isinstance(record.get("why"), str):
        return f"unreadable: {record['why']}"
    if not isinstance(record, dict) or record.get("malformed"):
        return "a malformed record"
    if record.get("nonce") != nonce:
        return "a record without this run's nonce"
    if record.get("v") != RECORD_VERSION:
        return "a record of an unknown version"
    ok = (
        isinstance(record.get("test"), str)
        and record.get("outcome") in _OUTCOMES
        and isinstance(record.get("message", ""), str)
        and isinstance(record.get("values"), list)
        and all(isinstance(v, dict) and isinstance(v.get("name"), str) and isinstance(v.get("value"), dict)
                and isinstance(v.get("options", {}), dict) for v in record["values"])
        and isinstance(record.get("weight", 1), (int, float)) and not isinstance(record.get("weight"), bool)
        and record.get("weight", 1) > 0
        and isinstance(record.get("duration", 0), (int, float))
        and (record.get("line") is None or isinstance(record.get("line"), int))
        and (record.get("failed_value") is None or isinstance(record.get("failed_value"), str))
    )
    return "" if ok else "a malformed record"


def _number_subclass(record) -> str:
    """The class name of the first value in ``record`` marked ``subclass`` (:func:`.values.encode`), or ''.
    (Walked without recursion, at most a few thousand nodes: the record was checked already.)"""
    stack, seen = [record], 0
    while stack and seen < 5000:
        node = stack.pop()
        seen += 1
        if isinstance(node, dict):
            if isinstance(node.get("subclass"), str) and node.get("type") in ("int", "float", "complex"):
                return node["subclass"][:80]
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return ""


def collect(assembly: asm.Assembly, run: RunResult, nonce: str) -> Collected:
    """The records of ``run`` that count, and integrity findings about those that don't."""
    out = Collected()
    for index, records in sorted(run.records.items()):
        cell_role, gid = assembly.roles[index] if 0 <= index < len(assembly.roles) else (None, None)
        if cell_role != asm.TEST_CELL:
            where = f"your answer cell {gid!r}" if cell_role == asm.ANSWER_CELL else f"cell {index}"
            out.findings.append(asm.Finding(
                "forged", gid,
                f"{where} sent {len(records)} grader record(s) of its own; ignored", tampering=True,
            ))
            continue
        by_name = out.tests.setdefault(gid, {})
        order = out.order.setdefault(gid, [])
        problems: list[str] = []
        for record in records:
            problem = _valid(record, nonce)
            if problem:
                problems.append(problem)
                continue
            name = record["test"]
            if name in by_name:
                out.duplicated.setdefault(gid, set()).add(name)
                continue
            by_name[name] = record
            order.append(name)
        if problems:
            out.findings.append(asm.Finding(
                "forged", gid, f"test {gid!r} received {len(problems)} record(s) that the tests did not send "
                f"({problems[0]}); ignored", tampering=True,
            ))
        for name in sorted(out.duplicated.get(gid, ())):
            out.findings.append(asm.Finding(
                "forged", gid, f"test {name!r} was reported more than once; it scores 0", tampering=True,
            ))
    odd = sorted({(gid, name) for gid, by_name in out.tests.items() for name, record in by_name.items()
                  if _number_subclass(record)})
    for gid, name in odd[:10]:
        out.findings.append(asm.Finding(
            "number_subclass", gid, f"test {name!r} was handed a number of a class of its own "
            f"({_number_subclass(out.tests[gid][name])}), not a plain int or float: its code ran while the check "
            "read it, and could read the check's own values; compared as the plain number it gave",
        ))
    if run.records_dropped:
        out.findings.append(asm.Finding(
            "flood", None, f"{run.records_dropped} grader record(s) over the size limit were dropped", tampering=True,
        ))
    return out


# ------------------------------------------------------------ expected values


@dataclass
class ExpectedTest:
    name: str
    weight: float
    hidden: bool
    values: list[dict]  # [{"name", "value" (record), "options"}] as the solution submitted them
    hint: str | None = None  # shown under a failure in the reports


@dataclass
class ExpectedTask:
    grade_id: str
    check: str | None
    tests: list[ExpectedTest]  # empty: an assert-style test cell, decided by its execute_reply


@dataclass
class Expected:
    exercise_set: str
    solution_sha256: str
    key: str
    tasks: dict[str, ExpectedTask]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Expected":
        tasks = {
            gid: ExpectedTask(t["grade_id"], t["check"], [ExpectedTest(**x) for x in t["tests"]])
            for gid, t in data["tasks"].items()
        }
        return cls(data["exercise_set"], data["solution_sha256"], data["key"], tasks)


@functools.lru_cache(maxsize=1)
def library_hash() -> str:
    """sha256 over the .py files (paths and bytes) of the tensorgrad library and of this package
    (of this package alone where the library is missing: nothing is graded then)."""
    digest = hashlib.sha256()
    for package in (library.package_dir(), library.course_dir()):
        if package is None:
            continue
        for path in sorted(package.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            digest.update(path.relative_to(package.parent).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def cache_key(exset: ExerciseSet) -> str:
    import numpy

    parts = [
        exset.source_sha256, GRADER_VERSION, str(RECORD_VERSION), library_hash(),
        platform.python_version(), numpy.__version__,
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _hidden_lines(source: str) -> set[int]:
    """1-based line numbers inside hidden-test regions of a test cell's source."""
    parsed = markers.parse(source)
    return {i + 1 for r in parsed.regions if r.kind == markers.HIDDEN_TESTS for i in range(r.begin, r.end + 1)}


def _allowed_error(assembly: asm.Assembly, index: int) -> bool:
    cell = assembly.notebook.cells[index]
    return "raises-exception" in cell.get("metadata", {}).get("tags", [])


def _solution_cells(exset: ExerciseSet) -> list[asm.SubmittedCell]:
    return asm.submitted_cells(exset.notebook)


def compute(exset: ExerciseSet, limits: Limits) -> Expected:
    """Run the instructor's solution and keep what its tests submit; raise if it fails them."""
    if not exset.uses_checks:
        # Only assert-style test cells: nothing to compare in the grader, no run needed.
        tasks = {t.grade_id: ExpectedTask(t.grade_id, None, []) for t in exset.tasks}
        return Expected(exset.name, exset.source_sha256, cache_key(exset), tasks)
    nonce = secrets.token_hex(16)
    assembly = asm.assemble(exset, _solution_cells(exset), nonce=nonce)
    scratch = new_scratch("tg-solution-", limits)
    try:
        (scratch / "work").mkdir()
        run = run_notebook(assembly.notebook, limits, scratch / "work", kernel_env(scratch, library.import_roots()))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    if run.too_little_memory:
        raise KernelStartError(f"no grading kernel could start, so nothing can be graded: {run.reason}")
    if run.stopped_at == -1:
        # Not the solution's fault: no kernel starts here. Say why, and what to do.
        from . import sandbox

        why = sandbox.diagnose(kernel_env(Path("/tmp"), library.import_roots())) if limits.sandbox else ""
        raise KernelStartError(
            f"no grading kernel could start in this environment, so nothing can be graded: {run.reason}"
            + (f"; inside the sandbox, `python -c 'import ipykernel, IPython, numpy, tensorgrad_course'` says: {why}"
               if why else "")
            + ". What to do: install ipykernel, IPython and NumPy into the Python that runs the grader "
              f"({sys.executable}); if they are installed, the sandbox may not see where: grade once with "
              "--no-sandbox on a trusted notebook to tell, and report the folder the import comes from.")
    problems: list[str] = []
    if run.outcome != "completed":
        problems.append(f"the solution did not run to the end ({run.outcome}): {run.reason}")
    for index, result in sorted(run.cells.items()):
        if result.status != "ok" and not _allowed_error(assembly, index):
            cell_role, gid = assembly.roles[index]
            what = {asm.ANSWER_CELL: f"answer cell {gid!r}", asm.TEST_CELL: f"test cell {gid!r}",
                    asm.GUARD: f"the grader's check before {gid!r}", asm.SETUP: "the grader's setup"}.get(
                        cell_role, f"cell {index}")
            problems.append(f"{what} raised {result.ename}: {result.evalue}".rstrip(": "))
    collected = collect(assembly, run, nonce)
    problems.extend(f.detail for f in collected.findings)

    tasks: dict[str, ExpectedTask] = {}
    for task in exset.tasks:
        (index,) = assembly.indexes(asm.TEST_CELL, task.grade_id)
        hidden = _hidden_lines(assembly.notebook.cells[index].source)
        tests = []
        for name in collected.order.get(task.grade_id, []):
            record = collected.tests[task.grade_id][name]
            if record["outcome"] != "passed":
                problems.append(f"test {task.grade_id!r} / {name!r}: {record['outcome']}: {record['message']}")
            tests.append(ExpectedTest(
                name=name,
                weight=float(record.get("weight", 1.0)),
                hidden=record.get("line") in hidden,
                values=[{"name": v["name"], "value": v["value"], "options": v.get("options", {}),
                         "expected_given": bool(v.get("expected_given"))} for v in record["values"]],
                hint=record.get("hint") if isinstance(record.get("hint"), str) else None,
            ))
        for test in tests:  # a trained network the grader measures must meet the targets with the solution
            for value in test.values:
                if value["options"].get("measure") in measures.KINDS:
                    message = measures.judge(value, value["value"], name=value["name"])
                    if message:
                        problems.append(f"test {task.grade_id!r} / {test.name!r}: {message}")
        if task.check and not tests and not problems:
            problems.append(f"test cell {task.grade_id!r} calls check({task.check!r}) but ran no test")
        tasks[task.grade_id] = ExpectedTask(task.grade_id, task.check, tests)
    if problems:
        listed = "\n".join(f"  - {p}" for p in problems[:20])
        raise SolutionError(
            f"{exset.source_path}: the solution does not pass its own tests, so it cannot be used "
            f"to grade:\n{listed}"
        )
    return Expected(exset.name, exset.source_sha256, cache_key(exset), tasks)


def _digest(data: dict) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def load_or_compute(exset: ExerciseSet, limits: Limits, cache_dir: Path | None) -> Expected:
    """The expected values of ``exset``, from ``cache_dir`` when they are there, current and intact.

    Each cache file carries the sha256 of its content, checked before use (by
    every run and every shard that reads it): a file changed after it was
    written, or damaged, is recomputed, with a warning. Kernels never see the
    cache (it is outside their sandbox); the check also covers a run with
    ``--no-sandbox`` and a cache folder someone else can write.
    """
    key = cache_key(exset)
    path = Path(cache_dir) / f"{exset.name.replace('/', '__')}-{key[:16]}.json" if cache_dir else None
    if path is not None and path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            seal = data.pop("sha256", None)
            if seal != _digest(data):
                print(f"warning: {path} was changed after it was written; recomputing the expected values "
                      f"of {exset.name}", file=sys.stderr)
            elif data.get("key") == key and data.get("solution_sha256") == exset.source_sha256:
                return Expected.from_dict(data)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass  # a damaged cache file: recompute it
    expected = compute(exset, limits)
    if path is not None:
        data = expected.to_dict()
        data["sha256"] = _digest(data)
        atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return expected
