"""The grader's outputs: JSON per submission, CSV per exercise set, Gradescope, a summary.

Written under ``--out DIR`` (``--format`` picks among json, csv and gradescope;
all three by default)::

    json/<student>/<set>.json      one per submission (schema below)       [json]
    report.json                    the batch: environment, limits, every
                                   submission's JSON, counts               [json]
    csv/<set>.csv                  one row per submission, a column per task [csv]
    csv/unmatched.csv              submissions that matched no exercise set [csv]
    gradescope/<student>/results.json   Gradescope's format, one entry per
                                   test ("after_published" when hidden)    [gradescope]
    summary.txt                    scores, statuses, per-task pass counts and
                                   the integrity findings worth a look     [always]

**Per-submission JSON** (``schema: "tensorgrad-course.submission"``,
``schema_version: 1``; :data:`SUBMISSION_SCHEMA` is its JSON Schema): the
submission (student, path, sha256), grader version, environment, limits,
exercise set and the solution's sha256, status and reason, score and
max_score, ``tasks[]`` (grade_id, check, status, score, max_score, reason,
hidden, duration, ``tests[]`` with name, status, score, max_score, message,
duration, hidden) and ``integrity[]`` (kind, grade_id, detail, tampering).
A new field may appear in the same version; a changed or removed one bumps it.

**Shards.** ``grade --shard k/n`` writes its submissions' JSON files and a
manifest ``shards/k-of-n.json``; the CSV, Gradescope files and summary of the
whole class are then made by ``tensorgrad-course report OUT`` once every shard
has finished (:func:`merge`). Shards may share one ``OUT``: their files never
collide.

Every file is written atomically. Everything except durations depends only on
the inputs, so re-running a batch gives the same CSV and Gradescope files byte
for byte.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import platform
import re
import sys
from collections import Counter, defaultdict
from dataclasses import asdict
from pathlib import Path

from .errors import UsageError
from .grade import GRADER_VERSION, SubmissionResult, TaskResult, TestResult
from .kernel import Limits
from .notebooks import atomic_write_text

SUBMISSION_SCHEMA_NAME = "tensorgrad-course.submission"
SUBMISSION_SCHEMA_VERSION = 1
BATCH_SCHEMA_NAME = "tensorgrad-course.batch"
BATCH_SCHEMA_VERSION = 2
FORMATS = ("json", "csv", "gradescope")
_SAFE = re.compile(r"[^A-Za-z0-9._@-]+")

_TEST_PROPS = {
    "name": {"type": "string"},
    "status": {"enum": ["passed", "failed", "error", "not_attempted", "timeout", "missing"]},
    "score": {"type": "number"},
    "max_score": {"type": "number"},
    "message": {"type": "string"},
    "duration": {"type": "number"},
    "hidden": {"type": "boolean"},
}
#: JSON Schema (draft 2020-12) of a per-submission JSON file.
SUBMISSION_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tensorgrad-course graded submission, version 1",
    "type": "object",
    "required": [
        "schema", "schema_version", "grader_version", "environment", "limits", "submission",
        "exercise_set", "solution_sha256", "status", "reason", "score", "max_score", "tasks",
        "integrity", "duration",
    ],
    "properties": {
        "schema": {"const": SUBMISSION_SCHEMA_NAME},
        "schema_version": {"const": SUBMISSION_SCHEMA_VERSION},
        "grader_version": {"type": "string"},
        "environment": {"type": "object", "additionalProperties": {"type": "string"}},
        "limits": {"type": "object"},
        "submission": {
            "type": "object",
            "required": ["student", "path", "sha256"],
            "properties": {
                "student": {"type": "string"},
                "path": {"type": "string"},
                "sha256": {"type": "string", "pattern": "^([0-9a-f]{64})?$"},
            },
        },
        "exercise_set": {"type": "string"},
        "solution_sha256": {"type": "string"},
        "status": {"enum": ["graded", "timeout", "kernel_died", "invalid_notebook", "unmatched", "grader_error"]},
        "reason": {"type": "string"},
        "score": {"type": "number", "minimum": 0},
        "max_score": {"type": "number", "minimum": 0},
        "duration": {"type": "number"},
        "tasks": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["grade_id", "check", "status", "score", "max_score", "reason", "hidden", "duration", "tests"],
                "properties": {
                    "grade_id": {"type": "string"},
                    "check": {"type": ["string", "null"]},
                    "status": {"enum": ["passed", "failed", "error", "not_attempted", "timeout", "missing", "manual"]},
                    "score": {"type": "number"},
                    "max_score": {"type": "number"},
                    "reason": {"type": "string"},
                    "hidden": {"type": "boolean"},
                    "duration": {"type": "number"},
                    "tests": {
                        "type": "array",
                        "items": {"type": "object", "required": list(_TEST_PROPS), "properties": _TEST_PROPS},
                    },
                },
            },
        },
        "integrity": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["kind", "grade_id", "detail", "tampering"],
                "properties": {
                    "kind": {"type": "string"},
                    "grade_id": {"type": ["string", "null"]},
                    "detail": {"type": "string"},
                    "tampering": {"type": "boolean"},
                },
            },
        },
    },
}


def _num(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(float(value), 4)


def plain(text) -> str:
    """Text for one line of a report: control, format and line-separator characters written as
    escapes (``\\n``, ``\\u202e``).

    Student ids and file names (from folder names), grade_ids and cell types (from the
    submitted notebook) and every message from a kernel are the student's to choose; a
    newline in one must not start a forged line of summary.txt, a CSV file or a Gradescope
    entry, nor a right-to-left override reorder what the instructor reads.
    """
    text = str(text)
    return text if text.isprintable() else "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def _csv_text(text) -> str:
    """A student-chosen CSV field: one line, and never read as a formula by a spreadsheet."""
    text = plain(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


#: The longest safe name, in characters (all ASCII): with its hash and a suffix such as
#: ``-2.json`` it stays well below the 255 bytes a file name may have.
SAFE_NAME_MAX = 100


def safe_name(name: str) -> str:
    """A file or folder name for a student id or set name: no separators, never empty, at most
    :data:`SAFE_NAME_MAX` characters plus a hash, no collisions.

    Names that had to be changed (characters dropped, or cut) get a short hash of the
    original, so that "a b" and "a_b" do not end up in the same place. Any ``str`` is
    taken, lone surrogates included (a file name that is not UTF-8).
    """
    safe = _SAFE.sub("_", name).strip("._")[:SAFE_NAME_MAX] or "_"
    if safe != name:
        safe += "-" + hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return safe


def unique_safe_names(names) -> dict[str, str]:
    """{name: its safe name}, the safe names all different even where two hashes agree
    (a second one gets ``-2``): one folder per name, never shared."""
    used: set[str] = set()
    return {name: _unused(safe_name(name), used) for name in sorted(set(names))}


def _unused(base: str, used: set[str], suffix: str = "") -> str:
    """``base + suffix``, or ``base-2 + suffix``, ``base-3``... the first not in ``used`` (then added to it)."""
    candidate, n = base + suffix, 1
    while candidate in used:
        n += 1
        candidate = f"{base}-{n}{suffix}"
    used.add(candidate)
    return candidate


def environment(limits: Limits | None = None) -> dict[str, str]:
    import ipykernel
    import nbclient
    import numpy

    from . import sandbox
    from .expected import library_hash

    return {
        "sandbox": sandbox.describe(limits.sandbox if limits is not None else True),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": sys.platform,
        "numpy": numpy.__version__,
        "nbclient": nbclient.__version__,
        "ipykernel": ipykernel.__version__,
        "tensorgrad_sources": library_hash()[:16],
    }


# ------------------------------------------------------------ per submission


def _test_json(t: TestResult) -> dict:
    return {"name": t.name, "status": t.status, "score": _num(t.points), "max_score": _num(t.max_points),
            "message": t.message, "duration": t.duration, "hidden": t.hidden}


def _task_json(t: TaskResult) -> dict:
    return {
        "grade_id": t.grade_id, "check": t.check, "status": t.status, "score": _num(t.points),
        "max_score": _num(t.max_points), "reason": t.reason, "hidden": t.hidden, "duration": t.duration,
        "tests": [_test_json(x) for x in t.tests],
    }


def submission_json(r: SubmissionResult, limits: Limits, env: dict[str, str]) -> dict:
    return {
        "schema": SUBMISSION_SCHEMA_NAME,
        "schema_version": SUBMISSION_SCHEMA_VERSION,
        "grader_version": GRADER_VERSION,
        "environment": env,
        "limits": asdict(limits),
        "submission": {"student": r.student, "path": r.path, "sha256": r.sha256},
        "exercise_set": r.notebook,
        "solution_sha256": r.solution_sha256,
        "status": r.status,
        "reason": r.reason,
        "score": _num(r.score),
        "max_score": _num(r.max_score),
        "tasks": [_task_json(t) for t in r.tasks],
        "integrity": r.integrity,
        "duration": r.duration,
    }


def result_from_json(data: dict) -> SubmissionResult:
    """Read a per-submission JSON file back (for ``report`` over shards)."""
    if data.get("schema") != SUBMISSION_SCHEMA_NAME or data.get("schema_version") != SUBMISSION_SCHEMA_VERSION:
        raise ValueError("not a tensorgrad-course submission report of schema version 1")
    tasks = [
        TaskResult(
            grade_id=t["grade_id"], points=float(t["score"]), max_points=float(t["max_score"]), status=t["status"],
            reason=t["reason"], hidden=t["hidden"], duration=t["duration"], check=t["check"],
            tests=[TestResult(x["name"], x["status"], float(x["score"]), float(x["max_score"]), x["message"],
                              x["duration"], x["hidden"]) for x in t["tests"]],
        )
        for t in data["tasks"]
    ]
    sub = data["submission"]
    return SubmissionResult(
        student=sub["student"], path=sub["path"], notebook=data["exercise_set"], sha256=sub["sha256"],
        status=data["status"], reason=data["reason"], score=float(data["score"]),
        max_score=float(data["max_score"]), tasks=tasks, integrity=data["integrity"],
        duration=data["duration"], solution_sha256=data["solution_sha256"],
    )


def json_paths(results: list[SubmissionResult]) -> dict[int, str]:
    """``json/<student>/<set>.json`` for each result (by position), deterministic and collision-free."""
    used: set[str] = set()
    paths: dict[int, str] = {}
    order = sorted(range(len(results)), key=lambda i: (results[i].student, results[i].notebook, results[i].path))
    folders = unique_safe_names(r.student for r in results)
    for i in order:
        r = results[i]
        paths[i] = _unused(f"json/{folders[r.student]}/{safe_name(r.notebook.replace('/', '__'))}", used, ".json")
    return paths


# ---------------------------------------------------------------------- CSV


def csv_tables(results: list[SubmissionResult]) -> dict[str, str]:
    """File name below ``csv/`` -> CSV text: one file per exercise set, one row per submission."""
    by_set: dict[str, list[SubmissionResult]] = defaultdict(list)
    unmatched: list[SubmissionResult] = []
    for r in results:
        (by_set[r.notebook] if r.tasks or r.solution_sha256 else unmatched).append(r)
    tables: dict[str, str] = {}
    for name, rows in sorted(by_set.items()):
        task_ids: list[str] = []
        for r in rows:
            for t in r.tasks:
                if t.status != "manual" and t.grade_id not in task_ids:
                    task_ids.append(t.grade_id)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["student", "path", "sha256", "status", "score", "max_score",
                         *map(_csv_text, task_ids), "reason"])
        for r in sorted(rows, key=lambda r: (r.student, r.path)):
            points = {t.grade_id: _num(t.points) for t in r.tasks}
            writer.writerow([_csv_text(r.student), _csv_text(r.path), r.sha256, r.status, _num(r.score),
                             _num(r.max_score), *(points.get(gid, "") for gid in task_ids), plain(r.reason)])
        tables[f"{safe_name(name.replace('/', '__'))}.csv"] = buffer.getvalue()
    if unmatched:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["student", "path", "sha256", "status", "reason"])
        for r in sorted(unmatched, key=lambda r: (r.student, r.path)):
            writer.writerow([_csv_text(r.student), _csv_text(r.path), r.sha256, r.status, plain(r.reason)])
        tables["unmatched.csv"] = buffer.getvalue()
    return tables


# ---------------------------------------------------------------- Gradescope


def exact_split(total: float, shares: list[float], places: int = 4) -> list[float | int]:
    """``shares`` rounded to ``places`` decimals so that they add up to ``total`` exactly.

    Three tests sharing 4 points are 1.3333, 1.3333 and 1.3334, not 1.3333 three times
    (3.9999) or 1.333333 each (a set of 12 points whose entries sum to 12.0001 on Gradescope).
    Largest remainders get the spare units.
    """
    unit = 10 ** places
    target = round(total * unit)
    raw = [s * unit for s in shares]
    units = [int(x) for x in raw]
    spare = target - sum(units)
    order = sorted(range(len(raw)), key=lambda i: (-(raw[i] - units[i]), i))
    for i in order[:max(0, spare)]:
        units[i] += 1
    for i in reversed(order[spare:] if spare < 0 else []):
        if sum(units) <= target:
            break
        units[i] -= 1
    return [_num(u / unit) for u in units]


def _adds_up(parts: list[float], total: float) -> bool:
    import math

    return sum(parts) == total and math.fsum(parts) == total


def _binary_split(total: float, shares: list[float], unit: int = 4096) -> list[float | int]:
    """``shares`` as multiples of 1/``unit`` adding up to ``total`` (a multiple of it): such numbers add
    up exactly in floating point, in any order and any grouping."""
    import math

    target = round(total * unit)
    units = [math.floor(s * unit) for s in shares]
    order = sorted(range(len(shares)), key=lambda i: (-(shares[i] * unit - units[i]), i))
    spare = target - sum(units)
    for i in order[:max(0, spare)]:
        units[i] += 1
    for i in reversed(order):
        if sum(units) <= target:
            break
        units[i] -= 1
    return [u // unit if u % unit == 0 else u / unit for u in units]  # (not rounded to decimals: exact)


def exact_maxima(total: float, tasks: list[tuple[float, list[float]]]) -> list[list[float | int]]:
    """The maxima of a set's tests, task by task (``tasks``: (task's points, its tests' shares)), so
    that each task's add up to its points and all of them to ``total``, exactly, whether summed plainly
    or compensated. Decimals (:func:`exact_split`) when they do (0.6667 rarely adds up exactly in binary:
    set 03's came to 11.999999999999996), else multiples of 1/4096 (0.666748046875: ugly, exact)."""
    points = [p for p, _ in tasks]
    per_task = exact_split(total, points)
    split = [exact_split(p, shares) for p, (_, shares) in zip(per_task, tasks)]
    if _adds_up([x for part in split for x in part], total) and all(
            _adds_up(part, p) for part, p in zip(split, per_task)):
        return split
    per_task = _binary_split(total, points)
    return [_binary_split(p, shares) for p, (_, shares) in zip(per_task, tasks)]


def one_copy_per_set(results: list[SubmissionResult]) -> tuple[list[SubmissionResult], list[tuple[str, str]]]:
    """One student's results, one graded copy per exercise set: (those kept, [(file not counted, the
    copy counted)]). The copy is chosen as the autograder chooses (:func:`.identify.copy_rank`)."""
    from .identify import copy_rank

    by_set: dict[str, list[SubmissionResult]] = defaultdict(list)
    kept = []
    for r in results:
        if r.notebook and r.tasks:
            by_set[r.notebook].append(r)
        else:
            kept.append(r)  # (no set, or nothing graded: its row says why)
    others = []
    for name, group in by_set.items():
        group.sort(key=lambda r, name=name: copy_rank(r.path, name))
        kept.append(group[0])
        others += [(Path(r.path).name, Path(group[0].path).name) for r in group[1:]]
    return sorted(kept, key=lambda r: (r.notebook, r.path)), others


def gradescope(results: list[SubmissionResult], sandboxed: bool = True,
               not_counted: list[tuple[str, str]] = ()) -> dict:
    """One student's Gradescope results.json (all their notebooks together), one entry per test.
    ``results`` holds one copy per set (:func:`one_copy_per_set`); ``not_counted`` lists the others."""
    import math

    tests = []
    total_score = 0.0
    notes = [] if sandboxed else ["graded without a sandbox"]
    notes += [f"{plain(file)}: not counted, another copy of the same set was ({plain(kept)})"
              for file, kept in not_counted]
    for r in results:
        if r.status != "graded":
            notes.append(f"{plain(r.notebook)}: {r.status}: {plain(r.reason)}")
        if not r.tasks:
            tests.append({"name": plain(r.notebook), "score": 0, "max_score": 0, "status": "failed",
                          "visibility": "visible", "output": f"{r.status}: {plain(r.reason)}"})
        rows, tasks = [], []  # (task, test result) of every test that earns points; (task's points, shares)
        for t in r.tasks:
            if t.status == "manual":
                continue
            entries = t.tests or [TestResult(t.grade_id, t.status, t.points, t.max_points, t.reason, hidden=t.hidden)]
            rows += [(t, x) for x in entries]
            tasks.append((t.max_points, [x.max_points for x in entries]))
        # The maxima of the whole set add up to its points exactly, and each task's to the task's.
        total = round(math.fsum(p for p, _ in tasks), 4)
        maxima = [m for part in exact_maxima(total, tasks) for m in part] if tasks else []
        for (t, x), most in zip(rows, maxima):
            named = x.name != t.grade_id
            name = plain(f"{r.notebook} - {t.grade_id}" + (f" - {x.name}" if named else ""))
            earned = most if x.status == "passed" else _num(min(x.points, most))
            total_score += earned
            tests.append({
                "name": name,
                "score": earned,
                "max_score": most,
                "status": "passed" if x.status == "passed" else "failed",
                "visibility": "after_published" if x.hidden else "visible",
                "output": "passed" if x.status == "passed" else f"{x.status}: {x.message}".rstrip(": "),
            })
    out = {"score": _num(total_score), "tests": tests}
    if notes:
        out["output"] = "\n".join(notes)
    return out


# ------------------------------------------------------------------ summary


def one_line(results: list[SubmissionResult], *, seconds: float | None = None, jobs: int | None = None) -> str:
    """``Graded 40 submissions in 51.2 s (jobs=2): 38 graded, 1 timeout, 1 invalid_notebook; ...``"""
    statuses = Counter(r.status for r in results)
    parts = ", ".join(f"{n} {k}" for k, n in sorted(statuses.items()))
    head = f"Graded {len(results)} submission{'s' if len(results) != 1 else ''}"
    if seconds is not None:
        head += f" in {seconds:.1f} s"
        if results and seconds > 0:
            head += f" ({60 * len(results) / seconds:.0f}/min"
            head += f", jobs={jobs})" if jobs is not None else ")"
    elif jobs is not None:
        head += f" (jobs={jobs})"
    scored = [r for r in results if r.max_score]
    mean = ""
    if scored:
        mean = f"; mean score {100 * sum(r.score / r.max_score for r in scored) / len(scored):.0f}%"
    tampering = sum(1 for r in results for f in r.integrity if f.get("tampering"))
    return f"{head}: {parts or 'nothing to grade'}{mean}; tampering findings: {tampering}"


def needs_attention(results: list[SubmissionResult]) -> list[str]:
    """One line per thing a person should look at: a submission not graded to the end, a task
    that timed out, an answer written in a cell the student added (and so not graded)."""
    lines = []
    for r in sorted(results, key=lambda r: (r.student, r.notebook, r.path)):
        where = f"{plain(r.student)} {plain(r.path)}"
        if r.status != "graded":
            lines.append(f"{where}: {r.status}: {plain(r.reason)}")
        for t in r.tasks:
            if t.status == "timeout" and r.status == "graded":
                lines.append(f"{where}: task {plain(t.grade_id)} timed out: {plain(t.reason)}")
        for f in r.integrity:
            if f.get("kind") == "added_answer":
                lines.append(f"{where}: {plain(f['detail'])}")
    return lines


def summary(results: list[SubmissionResult], *, seconds: float | None = None, jobs: int | None = None,
            limits: Limits | None = None) -> str:
    lines = [one_line(results, seconds=seconds, jobs=jobs)]
    if limits is not None and not limits.sandbox:
        from .sandbox import describe

        lines.append(f"WARNING: graded without a sandbox: {describe(False)}")
    lines.append("")
    lines.append("Scores:")
    width = min(40, max((len(plain(r.student)) for r in results), default=0))  # (a 255-character name aligns nothing)
    for r in sorted(results, key=lambda r: (r.student, r.notebook, r.path)):
        note = "" if r.status == "graded" else f"  [{r.status}]"
        lines.append(f"  {plain(r.student):<{width}}  {plain(r.notebook)}: {_num(r.score)}/{_num(r.max_score)}{note}")

    task_stats: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0, 0.0, 0.0])
    for r in results:
        for t in r.tasks:
            if t.status != "manual":
                stats = task_stats[(r.notebook, t.grade_id)]
                stats[0] += t.status == "passed"
                stats[1] += 1
                stats[2] += t.points
                stats[3] += t.max_points
    if task_stats:
        lines.append("")
        lines.append("Tasks (fully passed / submissions, points earned):")
        for (notebook, gid), (passed, total, got, most) in sorted(task_stats.items()):
            share = f"{100 * got / most:.0f}%" if most else "-"
            lines.append(f"  {plain(notebook)} {plain(gid)}: {passed}/{total}, {share}")

    attention = needs_attention(results)
    if attention:
        lines.append("")
        lines.append("Submissions needing attention:")
        lines.extend(f"  {line}" for line in attention)

    tampering = [(r, f) for r in results for f in r.integrity if f.get("tampering")]
    other = [(r, f) for r in results for f in r.integrity if not f.get("tampering")]
    lines.append("")
    lines.append(f"Tampering: {len(tampering) or 'none found'}")
    for r, f in tampering:
        lines.append(f"  {finding_line(r, f)}")
    if other:
        lines.append(f"Other integrity notes: {len(other)}")
        for r, f in other:
            lines.append(f"  {finding_line(r, f)}")
    return "\n".join(lines) + "\n"


def finding_line(r: SubmissionResult | None, f: dict) -> str:
    """One integrity finding on one line: ``alice basics test_x: kind: detail``, every part escaped."""
    who = f"{plain(r.student)} {plain(r.notebook)} " if r is not None else ""
    return f"{who}{plain(f.get('grade_id') or '')}: {plain(f.get('kind'))}: {plain(f.get('detail'))}"


# ------------------------------------------------------------------ writing


def _dump(data) -> str:
    """JSON text, readable UTF-8; with ``\\u`` escapes where a string holds what UTF-8 cannot
    (the lone surrogates of a file name that is not UTF-8)."""
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    return text


def write_submission_jsons(
    results: list[SubmissionResult], out_dir: Path, limits: Limits, env: dict[str, str] | None = None
) -> list[str]:
    """Write ``json/<student>/<set>.json`` for each result; return the relative paths."""
    env = env or environment(limits)
    paths = json_paths(results)
    for i, r in enumerate(results):
        atomic_write_text(Path(out_dir) / paths[i], _dump(submission_json(r, limits, env)))
    return [paths[i] for i in range(len(results))]


def write_collected(
    results: list[SubmissionResult],
    out_dir: Path,
    limits: Limits,
    formats: tuple[str, ...] = FORMATS,
    env: dict[str, str] | None = None,
    *,
    seconds: float | None = None,
    jobs: int | None = None,
) -> str:
    """CSV, Gradescope, report.json and summary.txt for ``results``; returns the summary text."""
    out_dir = Path(out_dir)
    env = env or environment(limits)
    if "csv" in formats:
        for name, text in csv_tables(results).items():
            atomic_write_text(out_dir / "csv" / name, text)
    if "gradescope" in formats:
        by_student: dict[str, list[SubmissionResult]] = defaultdict(list)
        for r in results:
            by_student[r.student].append(r)
        folders = unique_safe_names(by_student)
        for student, theirs in sorted(by_student.items()):
            counted, not_counted = one_copy_per_set(theirs)
            atomic_write_text(out_dir / "gradescope" / folders[student] / "results.json",
                              _dump(gradescope(counted, limits.sandbox, not_counted)))
    if "json" in formats:
        ordered = sorted(results, key=lambda r: (r.student, r.notebook, r.path))
        report = {
            "schema": BATCH_SCHEMA_NAME,
            "schema_version": BATCH_SCHEMA_VERSION,
            "grader_version": GRADER_VERSION,
            "environment": env,
            "limits": asdict(limits),
            "counts": dict(sorted(Counter(r.status for r in results).items())),
            "submissions": [submission_json(r, limits, env) for r in ordered],
        }
        atomic_write_text(out_dir / "report.json", _dump(report))
    text = summary(results, seconds=seconds, jobs=jobs, limits=limits)
    atomic_write_text(out_dir / "summary.txt", summary(results, limits=limits))  # no timings: stable across re-runs
    return text


def write_reports(
    results: list[SubmissionResult],
    out_dir: Path,
    limits: Limits,
    formats: tuple[str, ...] = FORMATS,
    *,
    seconds: float | None = None,
    jobs: int | None = None,
) -> str:
    """Every output of an unsharded run; returns the summary text."""
    env = environment(limits)
    if "json" in formats:
        write_submission_jsons(results, out_dir, limits, env)
    return write_collected(results, out_dir, limits, formats, env, seconds=seconds, jobs=jobs)


def write_shard(results: list[SubmissionResult], out_dir: Path, limits: Limits, shard: tuple[int, int]) -> Path:
    """A shard's JSON files (named by student and set, so shards never collide) and its manifest."""
    k, n = shard
    env = environment(limits)
    # Paths are made collision-free over this shard only; students are
    # dealt to shards whole (see cli.shard_of), so shards cannot collide.
    written = write_submission_jsons(results, out_dir, limits, env)
    manifest = {
        "schema": "tensorgrad-course.shard", "schema_version": 1, "grader_version": GRADER_VERSION,
        "shard": [k, n], "limits": asdict(limits), "files": sorted(written),
    }
    path = Path(out_dir) / "shards" / f"{k}-of-{n}.json"
    atomic_write_text(path, _dump(manifest))
    return path


def merge(out_dir: Path) -> tuple[list[SubmissionResult], Limits, list[str]]:
    """Read every shard manifest of ``out_dir``: (results, limits, problems such as a missing shard)."""
    out_dir = Path(out_dir)
    manifests = sorted((out_dir / "shards").glob("*-of-*.json")) if (out_dir / "shards").is_dir() else []
    if not manifests:
        raise UsageError(f"no shard manifests in {out_dir / 'shards'} (run `tensorgrad-course grade --shard k/n` first)")
    problems: list[str] = []
    results: list[SubmissionResult] = []
    seen: dict[int, set[int]] = defaultdict(set)
    limits = Limits()
    for path in manifests:
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            k, n = manifest["shard"]
            files = manifest["files"]
            limits = Limits(**manifest["limits"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            problems.append(f"{path}: unreadable shard manifest ({exc})")
            continue
        seen[n].add(k)
        for rel in files:
            try:
                results.append(result_from_json(json.loads((out_dir / rel).read_text(encoding="utf-8"))))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                problems.append(f"{out_dir / rel}: unreadable ({exc})")
    if len(seen) > 1:
        problems.append(f"shard manifests of different splits are mixed: {', '.join(f'n={n}' for n in sorted(seen))}")
    for n, ks in sorted(seen.items()):
        missing = [k for k in range(1, n + 1) if k not in ks]
        if missing:
            problems.append(f"shard(s) {', '.join(f'{k}/{n}' for k in missing)} have not written their results yet")
    return results, limits, problems
