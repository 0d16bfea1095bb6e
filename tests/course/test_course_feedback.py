"""Self-study feedback on predictions: right answers are said right, wrong ones wrong.

Before, a wrong prediction printed "answered, checked when graded ... all 3 answered, in the
right form", which reads like a pass. Now the build writes into each check cell the fingerprints
of the solution's answers (tensorgrad_course.values.fingerprint) and the self-check compares
the learner's answer with them. Here every check cell of every set (both editions) that has
fingerprints runs twice in this process: with the solution's answers, each fingerprinted test
must pass; with every answer changed, each must fail, saying the answer is not right, and no
expected value may be printed. Built with --graded, no set has fingerprints.
"""

import ast
import json
import re
from pathlib import Path

import nbformat
import pytest
from course_helpers import run_check_cell

from tensorgrad_course import generate, use_language
from tensorgrad_course.notebooks import find_notebooks

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = sorted(find_notebooks(ROOT / "exercises"))


def _cells(path: Path):
    nb = nbformat.read(path, as_version=4)
    return [(c.metadata.get("nbgrader", {}), c.source) for c in nb.cells if c.cell_type == "code"]


def _kinds(source: str) -> dict[str, str]:
    """variable -> the kind= its t.submit declares, in a check cell."""
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "submit" and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Name):
            kind = next((k.value.value for k in node.keywords if k.arg == "kind"), "")
            found[node.args[1].id] = kind or ""
    return found


def _wrong(value, kind: str = ""):
    """A wrong answer of the right form."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, str):
        return value + " (not it)"
    if isinstance(value, (list, tuple)):
        return list(value) + [0]
    for form, wrong in (("list", [0.5]), ("tuple", (0,)), ("number", 7.5), ("int", 7), ("str", "SomethingElse0"),
                        ("bool", True)):
        if form in kind.split("|"):
            return wrong
    return "SomethingElse0"


def _fingerprinted(source: str) -> dict:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "fingerprints":
            return ast.literal_eval(node.args[0])
    return {}


_run = run_check_cell


_HINT = re.compile(r"^\s+(hint|提示)[:：]")


def _test_names(source: str) -> list[str]:
    """The names of the t.test(...) blocks of a check cell, as it prints them."""
    return [node.args[0].value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "test" and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)]


def _shows(text: str, value) -> bool:
    """Whether `text` shows `value`, where that is distinctive enough to tell: a string of three
    or more characters, or a number other than 0, 1 and 2 (which any line may hold)."""
    if isinstance(value, str):
        return len(value) >= 3 and value in text
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > 2:
        shown = {repr(value), f"{value:g}", str(value)}
        return any(re.search(rf"(?<![\w.]){re.escape(form)}(?![\w.])", text) for form in shown)
    if isinstance(value, (list, tuple)) and len(value) >= 2:
        return repr(list(value)) in text or repr(tuple(value)) in text
    return False


def _line_of(text: str, test: str) -> str:
    return next((line for line in text.splitlines() if line[2:].startswith(test)), "")


def _answers_and_setup(path: Path) -> tuple[dict, dict]:
    """The constant answers of the solution of exercise set `path`, and the namespace its setup
    cell makes."""
    solution = ROOT / "solutions" / path.relative_to(ROOT / "exercises")
    answers = {}
    for meta, source in _cells(solution):
        if meta.get("solution"):
            answers.update(generate.literal_answers(source))
    setup = next(source for meta, source in _cells(path) if meta.get("grade_id") == "setup")
    base: dict = {}
    exec(compile(setup, "setup", "exec"), base)
    return answers, base


@pytest.mark.parametrize("path", EXERCISES, ids=[p.relative_to(ROOT / "exercises").with_suffix("").as_posix()
                                                  for p in EXERCISES])
def test_predictions_are_said_right_or_wrong_without_the_answer(path):
    zh = path.parent.name == "zh"
    answers, base = _answers_and_setup(path)
    use_language("zh" if zh else "en")
    checked = 0
    try:
        for meta, source in _cells(path):
            table = _fingerprinted(source)
            if not meta.get("grade") or not table:
                continue
            right = _run(source, {**base, **answers})
            kinds = _kinds(source)
            mistakes = {k: _wrong(v, kinds.get(k, "")) for k, v in answers.items()}
            wrong = _run(source, {**base, **mistakes})
            for test in table:
                assert _line_of(right, test).startswith("\N{CHECK MARK}"), (meta["grade_id"], test, right)
                line = _line_of(wrong, test)
                assert line.startswith("\N{BALLOT X}"), (meta["grade_id"], test, wrong)
                assert ("不对" if zh else "not the right answer") in line, line
                checked += 1
                # the message names the learner's value only, never an expected one
                assert ("应为" if zh else "expected") not in line, line
            # (the learner's own wrong values are shown, and may hold the right one: [-4.0, 4.0, 0];
            # the tests' names are in the visible source anyway: "x ** 3 / x.detach()")
            said = wrong
            for test in _test_names(source):
                said = said.replace(test, "…")
            for mistake in mistakes.values():
                said = said.replace(repr(mistake), "…").replace(str(mistake), "…")
            # a hint may name the choices ("forward mode ..., reverse mode ..."): a word is a leak
            # outside the hints, a number anywhere
            unhinted = "\n".join(line for line in said.splitlines() if not _HINT.match(line))
            leaked = [f"{name} = {value!r}" for name, value in answers.items()
                      if name in kinds and _shows(unhinted if isinstance(value, str) else said, value)]
            assert not leaked, (meta["grade_id"], "the self-check of wrong answers prints the right ones",
                                leaked, wrong)
    finally:
        use_language("en")
    assert checked, f"{path.name}: no fingerprinted prediction was checked"


def test_a_graded_edition_has_no_fingerprints(tmp_path):
    generate.build(ROOT / "solutions", tmp_path / "exercises", feedback=False)
    for path in find_notebooks(tmp_path / "exercises"):
        assert ".fingerprints(" not in path.read_text(encoding="utf-8"), path.name


def test_the_fingerprints_do_not_contain_the_answers():
    for path in EXERCISES:
        for meta, source in _cells(path):
            for test, names in _fingerprinted(source).items():
                assert all(len(mark) == 32 and int(mark, 16) >= 0 for mark in names.values())
                assert json.dumps(names).count("True") == 0 and json.dumps(names).count("False") == 0


def test_fingerprints_agree_for_equal_answers_and_differ_by_task_and_name():
    from tensorgrad_course.values import fingerprint
    six = fingerprint("s.task2", "n", 6)
    assert six == fingerprint("s.task2", "n", 6.0) == fingerprint("s.task2", "n", 6.0000001)
    assert fingerprint("s.task2", "n", 6.0) != fingerprint("s.task2", "n", 6.1)
    assert fingerprint("s.task2", "n", True) != fingerprint("s.task2", "n", 1)
    assert fingerprint("s.task2", "n", " MulBackward0") == fingerprint("s.task2", "n", "MulBackward0")
    assert fingerprint("s.task2", "n", 6.0) != fingerprint("s.task3", "n", 6.0)
    assert fingerprint("s.task2", "n", 6.0) != fingerprint("s.task2", "m", 6.0)
    assert fingerprint("s.task2", "n", object()) is None


# --- No pattern across a check cell gives an answer away ------------------------------------------
# With the task's name alone as the salt, equal answers of one task shared a fingerprint: in set 01
# task 1, x_is_leaf and x_requires_grad had one hash and a_is_leaf the other, so knowing one answer
# (x requires grad: its code says so) gave all ten away. Salted with the value's name as well, no
# two values of a check cell share one, and a learner must commit an answer to learn anything.


def _marks(path: Path) -> dict[str, dict[str, str]]:
    """grade_id -> {value name: fingerprint} of each check cell of an exercise set."""
    found = {}
    for meta, source in _cells(path):
        table = _fingerprinted(source)
        if table:
            found[meta["grade_id"]] = {name: mark for names in table.values() for name, mark in names.items()}
    return found


@pytest.mark.parametrize("path", EXERCISES, ids=[p.relative_to(ROOT / "exercises").with_suffix("").as_posix()
                                                  for p in EXERCISES])
def test_no_two_values_of_a_check_cell_share_a_fingerprint(path):
    shared = []
    for grade_id, marks in _marks(path).items():
        by_mark: dict[str, list[str]] = {}
        for name, mark in marks.items():
            by_mark.setdefault(mark, []).append(name)
        shared += [f"{grade_id}: {' and '.join(names)}" for names in by_mark.values() if len(names) > 1]
    assert not shared, "values whose equal fingerprints say their answers are equal:\n  " + "\n  ".join(shared)


def test_both_editions_carry_the_same_fingerprints():
    """The salt is the task and the value's name, which translation leaves alone (the test names,
    which it translates, are not part of it): one answer, one fingerprint, in either edition."""
    compared = 0
    for path in EXERCISES:
        if path.parent.name == "zh":
            continue
        zh = path.parent / "zh" / path.name
        assert _marks(zh) == _marks(path), path.name
        compared += len(_marks(path))
    assert compared > 20


@pytest.mark.parametrize("edition", ["", "zh"])
def test_one_wrong_prediction_is_said_wrong_and_the_others_right(edition):
    """Set 01, self-study: each prediction in turn is answered wrong, the others right. The one test
    holding it fails and names it; every other test of the cell passes."""
    path = ROOT / "exercises" / edition / "01_exercises_computation_graphs.ipynb"
    answers, base = _answers_and_setup(path)
    use_language(edition or "en")
    tried = 0
    try:
        for meta, source in _cells(path):
            table = _fingerprinted(source)
            if not meta.get("grade") or not table:
                continue
            kinds = _kinds(source)
            for test, names in table.items():
                for name in names:
                    variable = next(var for var, submitted in _submitted(source) if submitted == name)
                    said = _run(source, {**base, **answers, variable: _wrong(answers[variable], kinds[variable])})
                    for other in table:
                        line = _line_of(said, other)
                        if other == test:
                            assert line.startswith("\N{BALLOT X}") and name in line, (name, said)
                        else:
                            assert line.startswith("\N{CHECK MARK}"), (name, other, said)
                    tried += 1
    finally:
        use_language("en")
    assert tried >= 10, tried


def _submitted(source: str) -> list[tuple[str, str]]:
    """(variable, name it is submitted under) of each t.submit("name", variable) of a check cell."""
    return [(node.args[1].id, node.args[0].value) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "submit" and len(node.args) >= 2
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[1], ast.Name)]


def test_under_the_grader_fingerprints_decide_nothing(monkeypatch):
    import sys

    from tensorgrad_course import checks, texts
    from tensorgrad_course.checks import TaskCheck
    from tensorgrad_course.values import fingerprint

    guard = type(sys)("guard")
    guard.nonce = "n0nce"
    monkeypatch.setitem(sys.modules, texts.GUARD_MODULE, guard)
    monkeypatch.setattr(checks, "_emit", lambda record: None)
    t = TaskCheck("s.task2")
    t.fingerprints({"count": {"n": fingerprint("s.task2", "n", 3)}})
    with t.test("count"):
        t.submit("n", 4, kind="int")  # wrong, but only the grader's comparison counts
    assert t.results == [("count", "passed", "")]


# --- No graded answer is readable in its own check ------------------------------------------------
# A test that submits an answer itself (a name an answer cell sets: `t.submit("du_dx", du_dx)`), not
# a value computed by the learner's code on the check's inputs (`t.submit(..., scale(x, 2))`), is
# answered by copying whatever its check shows. So its student check cell carries no `expected=`
# (which would be read there, and printed under a wrong answer: "expected 3.0"); self-study
# feedback on it comes from the fingerprints instead, and the grader compares the solution's value.


def _answer_names(solution: Path) -> set[str]:
    """The names the solution's answer cells set at their top level."""
    names = set()
    for meta, source in _cells(solution):
        if not meta.get("solution"):
            continue
        for node in ast.parse(source).body:
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def _bare_answers(source: str, names: set[str]):
    """(test name, submitted name, has expected=) of each t.submit of a bare answer in a check cell."""
    found = []
    tree = ast.parse(source)
    own = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    names = names - own  # a name the check cell sets itself is the check's, not an answer
    for node in ast.walk(tree):
        if not (isinstance(node, ast.With) and node.items and isinstance(node.items[0].context_expr, ast.Call)
                and getattr(node.items[0].context_expr.func, "attr", None) == "test"):
            continue
        test = node.items[0].context_expr.args[0].value
        for inner in ast.walk(node):
            if (isinstance(inner, ast.Call) and getattr(inner.func, "attr", None) == "submit"
                    and len(inner.args) >= 2 and isinstance(inner.args[1], ast.Name) and inner.args[1].id in names):
                found.append((test, inner.args[1].id, any(k.arg == "expected" for k in inner.keywords)))
    return found


@pytest.mark.parametrize("path", EXERCISES, ids=[p.relative_to(ROOT / "exercises").with_suffix("").as_posix()
                                                  for p in EXERCISES])
def test_no_graded_answer_shows_its_expected_value(path):
    solution = ROOT / "solutions" / path.relative_to(ROOT / "exercises")
    names = _answer_names(solution)
    shown, unchecked = [], []
    for meta, source in _cells(path):
        if not meta.get("grade"):
            continue
        table = _fingerprinted(source)
        for test, name, has_expected in _bare_answers(source, names):
            if has_expected:
                shown.append(f"{meta['grade_id']}: {test!r} shows the expected value of {name}")
            elif name not in table.get(test, {}):
                unchecked.append(f"{meta['grade_id']}: {test!r} gives no self-study feedback on {name}")
    assert not shown, "expected values readable in the check cells:\n  " + "\n  ".join(shown)
    assert not unchecked, ("answers without a fingerprint (is the solution's answer a constant "
                           "expression?):\n  " + "\n  ".join(unchecked))


def test_constant_answers_are_computed_from_the_source_and_nothing_else():
    found = generate.literal_answers(
        "x0 = 1.5\nu0 = x0 ** 2\ndu_dx = 2 * x0\ndy_du = math.cos(u0)\ngrad = [2 / 3, -1]\n"
        "total = 0\nfor i in range(3):\n    total += i\nn, m = 1, f(2)\nhuge = 2 ** 1000\nlate = 1\nlate += 1\n")
    assert found == {"x0": 1.5, "u0": 2.25, "du_dx": 3.0, "dy_du": pytest.approx(-0.6281736), "grad": [2 / 3, -1],
                     "n": 1}
