"""The grader's outputs: a CSV, Gradescope results.json files, a full JSON report, a summary.

Written under ``--out DIR``:

``grades.csv``
    one row per (student, notebook, task): ``student, notebook, grade_id,
    points, max_points, status, reason``. A submission that matches no exercise
    set gets one row with an empty grade_id and its submission status.
``results/<student>/results.json``
    Gradescope's format (``score`` and ``tests[]`` with name, score, max_score,
    status passed/failed, visibility, output). Tests with hidden parts are
    ``after_published``, so students see them only once grades are released.
``report.json``
    everything, versioned (``schema_version``): per submission its path,
    sha256, status, score, tasks with reasons and durations, and the integrity
    findings; plus grader version, environment and limits.
``summary.txt``
    what :func:`summary` prints.

Every file is written atomically, and everything except durations depends
only on the inputs, so re-running a batch gives the same files.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import platform
import re
import sys
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path

from .grade import GRADER_VERSION, SubmissionResult
from .kernel import Limits
from .notebooks import atomic_write_text

REPORT_SCHEMA_VERSION = 1
CSV_COLUMNS = ("student", "notebook", "grade_id", "points", "max_points", "status", "reason")
_SAFE = re.compile(r"[^A-Za-z0-9._@-]+")


def _num(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(float(value), 4)


def csv_text(results: list[SubmissionResult]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in results:
        if not r.tasks:
            writer.writerow([r.student, r.notebook, "", 0, _num(r.max_score), r.status, r.reason])
        for t in r.tasks:
            writer.writerow(
                [r.student, r.notebook, t.grade_id, _num(t.points), _num(t.max_points), t.status, t.reason]
            )
    return buffer.getvalue()


def gradescope(results: list[SubmissionResult]) -> dict:
    """One student's Gradescope results.json (all their notebooks together)."""
    tests = []
    for r in results:
        if not r.tasks:
            tests.append(
                {"name": r.notebook, "score": 0, "max_score": 0, "status": "failed",
                 "visibility": "visible", "output": f"{r.status}: {r.reason}"}
            )
        for t in r.tasks:
            if t.status == "manual":
                continue
            output = "passed" if t.status == "passed" else f"{t.status}: {t.reason}"
            tests.append(
                {
                    "name": f"{r.notebook} - {t.grade_id}",
                    "score": _num(t.points),
                    "max_score": _num(t.max_points),
                    "status": "passed" if t.status == "passed" else "failed",
                    "visibility": "after_published" if t.hidden else "visible",
                    "output": output,
                }
            )
    return {"score": _num(sum(r.score for r in results)), "tests": tests}


def safe_name(student: str) -> str:
    """A folder name for a student id: no path separators, never empty, no collisions.

    Names that had to be changed get a short hash of the original, so that
    "a b" and "a_b" do not end up in the same folder.
    """
    safe = _SAFE.sub("_", student).strip("._") or "_"
    if safe != student:
        safe += "-" + hashlib.sha1(student.encode("utf-8")).hexdigest()[:6]
    return safe


def full_report(results: list[SubmissionResult], limits: Limits) -> dict:
    import nbclient

    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "grader_version": GRADER_VERSION,
        "environment": {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "platform": sys.platform,
            "nbclient": nbclient.__version__,
        },
        "limits": asdict(limits),
        "submissions": [r.to_dict() for r in results],
    }


def summary(results: list[SubmissionResult], *, seconds: float | None = None, jobs: int | None = None) -> str:
    lines = []
    students = {r.student for r in results}
    head = f"Graded {len(results)} submission(s) of {len(students)} student(s)"
    if seconds is not None:
        head += f" in {seconds:.1f} s"
    if jobs is not None:
        head += f" (jobs={jobs})"
    lines.append(head)
    statuses: dict[str, int] = defaultdict(int)
    for r in results:
        statuses[r.status] += 1
    lines.append("  " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))

    lines.append("")
    lines.append("Scores:")
    width = max((len(r.student) for r in results), default=0)
    for r in results:
        note = "" if r.status == "graded" else f"  [{r.status}]"
        lines.append(f"  {r.student:<{width}}  {r.notebook}: {_num(r.score)}/{_num(r.max_score)}{note}")

    task_stats: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        for t in r.tasks:
            if t.status != "manual":
                task_stats[(r.notebook, t.grade_id)][0] += t.status == "passed"
                task_stats[(r.notebook, t.grade_id)][1] += 1
    if task_stats:
        lines.append("")
        lines.append("Tasks passed:")
        for (notebook, gid), (passed, total) in sorted(task_stats.items()):
            lines.append(f"  {notebook} {gid}: {passed}/{total}")

    attention = [r for r in results if r.status != "graded"]
    if attention:
        lines.append("")
        lines.append("Submissions needing attention:")
        for r in attention:
            lines.append(f"  {r.student} {r.path}: {r.status}: {r.reason}")

    tampering = [(r, f) for r in results for f in r.integrity if f.get("tampering")]
    other = [(r, f) for r in results for f in r.integrity if not f.get("tampering")]
    lines.append("")
    lines.append(f"Tampering: {len(tampering) or 'none found'}")
    for r, f in tampering:
        lines.append(f"  {r.student} {r.notebook} {f.get('grade_id') or ''}: {f['kind']}: {f['detail']}")
    if other:
        lines.append(f"Other integrity notes: {len(other)}")
        for r, f in other:
            lines.append(f"  {r.student} {r.notebook} {f.get('grade_id') or ''}: {f['kind']}: {f['detail']}")
    return "\n".join(lines) + "\n"


def write_reports(
    results: list[SubmissionResult],
    out_dir: Path,
    limits: Limits,
) -> str:
    """Write every output under ``out_dir``; return the summary text (without timings)."""
    out_dir = Path(out_dir)
    atomic_write_text(out_dir / "grades.csv", csv_text(results))
    by_student: dict[str, list[SubmissionResult]] = defaultdict(list)
    for r in results:
        by_student[r.student].append(r)
    for student, theirs in sorted(by_student.items()):
        text = json.dumps(gradescope(theirs), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        atomic_write_text(out_dir / "results" / safe_name(student) / "results.json", text)
    report = json.dumps(full_report(results, limits), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    atomic_write_text(out_dir / "report.json", report)
    text = summary(results)
    atomic_write_text(out_dir / "summary.txt", text)
    return text
