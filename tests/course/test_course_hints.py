"""Hints are read after a failed attempt, not before it: the student's check cells seal them.

In the solution the hints are plain (`t.test(..., hint="...")`). The build writes each one into
the student's check cell sealed (base64, see tensorgrad_course.texts.seal): it is not read by
accident under the answer cell (for a prediction, it often gives the answer away), and the
self-check still prints it, in plain words, under a failure. Sealing hides nothing from a
student who decodes it on purpose; it keeps the hint from being read before an attempt.
"""

import ast
from pathlib import Path

import nbformat
import pytest

from tensorgrad_course.checks import TaskCheck
from tensorgrad_course.generate import seal_hints
from tensorgrad_course.notebooks import find_notebooks
from tensorgrad_course.texts import seal, unseal

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = sorted(find_notebooks(ROOT / "exercises"))


def _hints(source: str) -> list[str]:
    """The constant hint= texts of the t.test(...) calls in a cell's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "test":
            found += [k.value.value for k in node.keywords if k.arg == "hint"
                      and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)]
    return found


def _check_cells(path: Path) -> dict[str, str]:
    nb = nbformat.read(path, as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}


@pytest.mark.parametrize("path", EXERCISES, ids=[p.relative_to(ROOT / "exercises").with_suffix("").as_posix()
                                                  for p in EXERCISES])
def test_no_check_cell_shows_a_hint_and_each_sealed_hint_is_the_solutions(path):
    solution = ROOT / "solutions" / path.relative_to(ROOT / "exercises")
    mine, theirs = _check_cells(path), _check_cells(solution)
    assert mine.keys() == theirs.keys()
    text = path.read_text(encoding="utf-8")
    for grade_id, source in theirs.items():
        plain = _hints(source)
        sealed = _hints(mine[grade_id])
        assert all(h.startswith("sealed:") for h in sealed), (grade_id, sealed)
        assert [unseal(h) for h in sealed] == plain, grade_id
        for hint in plain:
            assert hint not in text and hint.replace('"', '\\"') not in text, (grade_id, hint)


def test_seal_hints_rewrites_only_the_hint_literals():
    source = ('with t.test("dy/dw", hint="add the two paths: 2 + 3"):\n'
              '    t.submit("dy_dw", dy_dw, hint_like="kept")\n'
              'with t.test("long", hint="one piece, "\n'
              '            "then the next: ü"):\n'
              '    pass\n')
    sealed = seal_hints(source)
    assert "add the two paths" not in sealed and "then the next" not in sealed
    assert 'hint_like="kept"' in sealed
    assert _hints(sealed) == [seal("add the two paths: 2 + 3"), seal("one piece, then the next: ü")]
    assert seal_hints("not python (") == "not python ("


def test_a_sealed_hint_is_printed_in_plain_words_after_a_failure_only(capsys):
    t = TaskCheck("s.task1")
    with t.test("right", hint=seal("never shown")):
        pass
    with t.test("wrong", hint=seal("count the edges out of w")):
        assert False, "your n is 1, expected something else"
    out = capsys.readouterr().out
    assert "never shown" not in out
    assert "  hint: count the edges out of w" in out
    assert "sealed:" not in out
