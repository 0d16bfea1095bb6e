"""Notebook-building helpers for the course-tooling tests (imported by the test modules).

``fixtures/solutions/basics.ipynb`` is a tiny exercise set in plain Python and
NumPy (no tensorgrad): three autograded assert-style tasks (one with hidden
tests), one markdown answer. ``fixtures/named/named.ipynb`` has named tests
(``check()``, public and hidden, code and predictions) and one assert-style task. Tests that need other shapes build notebooks with
:func:`make_notebook`.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

FIXTURES = Path(__file__).parent / "fixtures"
BASICS = FIXTURES / "solutions" / "basics.ipynb"
NAMED = FIXTURES / "named" / "named.ipynb"  # named tests with check(); NumPy only


def nbg(gid, *, solution=False, grade=False, locked=False, points=None, **extra):
    """nbgrader cell metadata (schema 3)."""
    meta = {"schema_version": 3, "grade_id": gid, "solution": solution, "grade": grade,
            "locked": locked, "task": False, **extra}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def answer(gid, source, cell_type="code"):
    make = nbformat.v4.new_code_cell if cell_type == "code" else nbformat.v4.new_markdown_cell
    return make(source, metadata=nbg(gid, solution=True))


def graded(gid, source, points=1):
    return nbformat.v4.new_code_cell(source, metadata=nbg(gid, grade=True, locked=True, points=points))


def make_notebook(cells, path: Path, *, ids=True) -> Path:
    """Write a notebook of ``cells`` to ``path`` with deterministic cell ids."""
    nb = nbformat.v4.new_notebook(cells=list(cells))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for index, cell in enumerate(nb.cells):
        cell.id = f"c{index}"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(nbformat.writes(nb))
    if not ids:
        for cell in data["cells"]:
            cell.pop("id", None)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def read_json(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def cell_by_id(nb: dict, gid: str) -> dict:
    (cell,) = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == gid]
    return cell


def source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def two_set_course(root: Path) -> tuple[dict, dict]:
    """``root/solutions`` with basics and named, built into ``root/exercises``: their two releases."""
    from tensorgrad_course import generate

    (root / "solutions").mkdir()
    (root / "solutions" / "basics.ipynb").write_bytes(BASICS.read_bytes())
    (root / "solutions" / "named.ipynb").write_bytes(NAMED.read_bytes())
    generate.build(root / "solutions", root / "exercises")
    return read_json(root / "exercises" / "basics.ipynb"), read_json(root / "exercises" / "named.ipynb")


def answered(solution: dict, release: dict) -> dict:
    """The release with the solution's answers typed into its answer cells (marker lines left out):
    what a student who got everything right hands in."""
    answers = {}
    for cell in solution["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            answers[meta["grade_id"]] = "\n".join(
                line for line in source(cell).splitlines() if not line.strip().startswith(("### BEGIN", "### END")))
    return with_answers(release, answers)


def with_answers(release: dict, answers: dict) -> dict:
    """A copy of ``release`` with ``answers`` (grade id -> source) typed into those cells."""
    nb = json.loads(json.dumps(release))
    for cell in nb["cells"]:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell["source"] = answers[gid]
    return nb


def run_check_cell(source: str, namespace: dict) -> str:
    """What a check cell prints when run in (a copy of) ``namespace``, here in this process.
    ``t.done()`` raises when a test failed: that is part of a normal run."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(source, "check", "exec"), dict(namespace))
        except AssertionError:
            pass
    return out.getvalue()
