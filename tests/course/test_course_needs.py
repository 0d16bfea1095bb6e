"""A task that builds on an earlier one checks that task first and says so (TaskCheck.needs).

Set 12 is the case of the issue: one bug in an early task (before, Value's *; now task 1's relu)
made the correct later tasks fail, each with hints about its own code. Here the solution's own
code runs with that one bug, and each later check cell that uses task 1's operations must name
task 1 first and hold its own hints back; with the solution as it is, each says task 1 works and
shows no such line.
"""

import sys
from pathlib import Path

import nbformat
import pytest
from course_helpers import run_check_cell

from tensorgrad_course import checks, texts
from tensorgrad_course.checks import TaskCheck

ROOT = Path(__file__).resolve().parents[2]
SET12 = ROOT / "exercises" / "12_exercises_build_your_own_engine.ipynb"
SOLUTION12 = ROOT / "solutions" / "12_exercises_build_your_own_engine.ipynb"
LATER_CHECKS = ["task6_check", "task7_check"]


def _cells(path):
    nb = nbformat.read(path, as_version=4)
    return {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in nb.cells if c.cell_type == "code"}


def _engine(bug: bool) -> dict:
    """The solution's answers of set 12 run in a namespace; with bug, task 1's relu has derivative 0."""
    solution = _cells(SOLUTION12)
    namespace: dict = {}
    for grade_id in ("setup", "task1", "task2", "task3", "task5", "task6", "task7"):
        exec(compile(solution[grade_id], grade_id, "exec"), namespace)
    if bug:
        def relu(self):
            return self._result(max(self.data, 0.0), (self,), (0.0,))  # the bug: 1 for a > 0
        namespace["Value"].relu = relu
    return namespace


_run_check = run_check_cell


@pytest.mark.parametrize("grade_id", LATER_CHECKS)
def test_a_bug_in_task_1_is_named_first_and_later_hints_are_held_back(grade_id):
    exercise = _cells(SET12)  # the check cells as the learner has them
    text = _run_check(exercise[grade_id], _engine(bug=True))
    first = text.splitlines()[0]
    assert first.startswith("\N{BALLOT X} this task builds on task 1, which does not work yet"), text
    assert "hint:" not in text, text


@pytest.mark.parametrize("grade_id", LATER_CHECKS)
def test_with_a_working_engine_the_earlier_tasks_are_said_to_work(grade_id):
    text = _run_check(_cells(SET12)[grade_id], _engine(bug=False))
    assert "\N{CHECK MARK} task 1, which this task builds on, works" in text, text
    assert "does not work yet" not in text, text
    assert "checks pass" in text, text


def test_needs_prints_nothing_and_records_nothing_under_the_grader(monkeypatch, capsys):
    guard = type(sys)("guard")
    guard.nonce = "n0nce"
    monkeypatch.setitem(sys.modules, texts.GUARD_MODULE, guard)
    t = TaskCheck("s.task2")
    assert t.needs(1, lambda: "broken") is True
    assert capsys.readouterr().out == ""
    assert t._broken == []


def test_a_probe_that_raises_counts_as_the_problem(capsys):
    t = TaskCheck("s.task2")

    def probe():
        raise TypeError("unsupported operand")
    assert t.needs(1, probe) is False
    out = capsys.readouterr().out
    assert "this task builds on task 1" in out and "TypeError" in out
    with t.test("later", hint="a hint about this task's code"):
        assert False, "wrong"
    assert "hint" not in capsys.readouterr().out
