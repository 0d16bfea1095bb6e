"""nbgrader source notebooks whose checks compare values: ``tensorgrad-course nbgrader --out DIR``.

nbgrader runs the tests of the *source* notebook in the student's kernel. A test
without ``expected=`` (every prediction, and most hidden tests, whose values the
grader takes from the solution) then checks only the form of the answer, so a
guessed prediction of the right type passes. This writes, for every exercise
set, a copy of ``solutions/`` in which each check cell starts with a hidden-test
region that hands the check the solution's values::

    t = check("computation_graphs.task1")
    ### BEGIN HIDDEN TESTS
    t.expect_values('{"x: is_leaf and requires_grad": {"x_is_leaf": {"value": ...}}}', points=2)
    ### END HIDDEN TESTS

(:meth:`.checks.TaskCheck.expect_values`). The values come from running the
solution exactly as ``tensorgrad-course grade`` does. nbgrader removes the region
from the release, so the student version has the cells of the edition for graded
work that ``build --graded`` writes (the hints sealed, as in every student version,
and no self-study fingerprints, which would let a student test guesses offline); under nbgrader each such test then compares the student's value with
the solution's, with the solution's tolerances. ``points=`` is the cell's
points: with it ``t.done()`` evaluates to the points the passed tests earn,
shared by weight as ``tensorgrad-course grade`` shares them, and nbgrader takes
that number as the cell's score (its partial credit) instead of all or nothing.
``hidden=`` names the hidden tests, whose messages then never show an expected
value (nbgrader's feedback shows students the outputs of the test cells).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from .generate import seal_hints
from .notebooks import dumps, grade_id, load_json, points, role, source_of, TEST

_CHECK_LINE = re.compile(r"^(?P<indent>[ \t]*)(?P<var>[A-Za-z_]\w*)\s*=\s*check\(")


def with_values(nb_json: dict, expected) -> dict:
    """A copy of the source notebook ``nb_json`` with the solution's values in each check cell."""
    out = copy.deepcopy(nb_json)
    for cell in out["cells"]:
        if role(cell) == TEST and cell.get("cell_type") == "code":
            # As in every student version: a hint is read after a failed attempt, not before.
            cell["source"] = seal_hints(source_of(cell))
        gid = grade_id(cell)
        task = expected.tasks.get(gid) if gid and role(cell) == TEST else None
        if task is None or not task.tests:
            continue
        table = {}
        for test in task.tests:
            entries = {v["name"]: {"value": v["value"], "options": v.get("options", {})}
                       for v in test.values if not v.get("expected_given")}
            if entries:
                table[test.name] = entries
        lines = source_of(cell).splitlines(keepends=True)
        for index, line in enumerate(lines):
            match = _CHECK_LINE.match(line)
            if match:
                break
        else:
            continue
        indent, var = match["indent"], match["var"]
        if not lines[index].endswith("\n"):
            lines[index] += "\n"
        text = json.dumps(table, sort_keys=True, separators=(",", ":"))
        worth = points(cell)
        hidden = [test.name for test in task.tests if test.hidden]
        call = (f"{var}.expect_values({text!r}" + (f", points={worth:g}" if worth is not None else "")
                + (f", hidden={hidden!r}" if hidden else "") + ")")
        lines[index + 1:index + 1] = [f"{indent}### BEGIN HIDDEN TESTS\n", f"{indent}{call}\n",
                                      f"{indent}### END HIDDEN TESTS\n"]
        cell["source"] = lines
    return out


def write(sets: dict, expected: dict, out_dir: Path) -> list[Path]:
    """One nbgrader source notebook per exercise set in ``out_dir``; returns their paths."""
    written = []
    for name, exset in sorted(sets.items()):
        target = Path(out_dir) / f"{name}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        data = with_values(load_json(exset.source_path), expected[name])
        target.write_text(dumps(_node(data)), encoding="utf-8")
        written.append(target)
    return written


def _node(data: dict):
    import nbformat

    return nbformat.from_dict(data)
