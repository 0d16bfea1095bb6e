"""nbgrader fidelity: source notebooks whose checks compare the solution's values and share points.

``tensorgrad-course nbgrader`` writes, for every set, a copy of ``solutions/`` whose check cells
start with a hidden-test region ``t.expect_values('...', points=N)``. Under nbgrader (which runs
the tests in the student's kernel) that makes predictions and hidden tests compare values, and
makes ``t.done()`` evaluate to the points the passed tests earn, which nbgrader takes as the
cell's score (its partial credit), instead of all or nothing per check cell.

Two ways of running nbgrader's autograde are tested:

* simulated, always: the source's cells with the student's answer cells put in, run in one
  kernel, each graded cell scored by nbgrader's rule (:func:`nbgrader_cell_score`, the rule of
  ``nbgrader.utils.determine_grade``; checked against it when nbgrader is installed);
* for real, when nbgrader is importable (skipped otherwise; ``.ci/run`` installs it): nbgrader's
  own ``generate_assignment`` and ``autograde`` over every set, with a fully answered notebook
  (full marks), the blank exercise (zero) and the guessing submission of set 01.

The guessing submission (the code tasks solved, every prediction guessed with the right type)
scores the same under nbgrader as under ``tensorgrad-course grade``, within a point; with
``solutions/`` as nbgrader's source it gets full marks, which is why the generated sources exist.
"""

import ast
import copy
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from course_helpers import answered
from nbclient import NotebookClient

from tensorgrad_course import generate
from tensorgrad_course.checks import check
from tensorgrad_course.cli import main
from tensorgrad_course.grade import Submission, grade_batch
from tensorgrad_course.kernel import Limits
from tensorgrad_course.notebooks import ANSWER, TEST, find_notebooks, grade_id, points, role, source_of
from tensorgrad_course.texts import SEALED

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"
SETS = [p.relative_to(SOLUTIONS).with_suffix("").as_posix() for p in find_notebooks(SOLUTIONS)]
NAME = "01_exercises_computation_graphs"
GUESSES = {  # predictions of the right type, guessed
    "task1": "\n".join(f"{t}_is_leaf, {t}_requires_grad = True, True" for t in "xcaby"),
    "task2": "node1 = node2 = node3 = node4 = 'MulBackward0'",
    "task5": "n_mul, x_grad, n_mul_30, x_grad_30 = 1, 1.0, 1, 1.0",
}
HAS_NBGRADER = importlib.util.find_spec("nbgrader") is not None


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    if NAME not in SETS:
        pytest.skip(f"{NAME} is not in solutions/")
    out = tmp_path_factory.mktemp("nbgrader") / "source"
    assert main(["nbgrader", "--solutions", str(SOLUTIONS), "--exercises", str(EXERCISES), "--out", str(out)]) == 0
    return out


def guessing_submission() -> dict:
    nb = answered(load(SOLUTIONS / f"{NAME}.ipynb"), load(EXERCISES / f"{NAME}.ipynb"))
    for cell in nb["cells"]:
        if role(cell) == ANSWER and grade_id(cell) in GUESSES:
            cell["source"] = GUESSES[grade_id(cell)]  # the code tasks solved, the predictions guessed
    return nb


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    """``tensorgrad-course grade``'s result for the guessing submission."""
    path = tmp_path_factory.mktemp("guess") / f"{NAME}.ipynb"
    path.write_text(json.dumps(guessing_submission()))
    (result,) = grade_batch([Submission("guesser", str(path))], SOLUTIONS, EXERCISES,
                            Limits(cell_timeout=60, notebook_timeout=300))
    assert result.status == "graded", result.reason
    return result


def nbgrader_cell_score(cell) -> float:
    """nbgrader's score for an executed autograded code cell (``nbgrader.utils.determine_grade``):
    0 on an error or anything on stderr; the number a cell evaluates to (partial credit); else full."""
    max_points = float(points(cell))
    for output in cell.get("outputs", []):
        if output["output_type"] == "error" or (output["output_type"] == "stream" and output["name"] == "stderr"):
            return 0.0
        if output["output_type"] == "execute_result":
            text = output["data"].get("text/plain", "")
            if isinstance(text, list):  # a multi-line result is not a score
                if len(text) > 1:
                    return max_points
                text = text[0]
            try:
                value = float(text)
            except ValueError:
                return max_points
            if value > max_points:
                raise ValueError("partial credit cannot be greater than maximum points for cell")
            return value if value >= 0 else max_points
    return max_points


def simulated_autograde(source_path: Path, submission: dict) -> tuple[float, list]:
    """nbgrader's autograde, simulated: the source's cells with the student's answers, scored per cell."""
    nb = nbformat.read(source_path, as_version=4)
    answers = {grade_id(c): source_of(c) for c in submission["cells"] if role(c) == ANSWER}
    for cell in nb.cells:
        if role(cell) == ANSWER:
            cell.source = answers[grade_id(cell)]
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    graded = [c for c in nb.cells if role(c) == TEST]
    if HAS_NBGRADER:  # the rule above is nbgrader's own
        from nbgrader.utils import determine_grade

        assert [nbgrader_cell_score(c) for c in graded] == [determine_grade(c)[0] for c in graded]
    return sum(nbgrader_cell_score(c) for c in graded), graded


def test_the_release_of_the_nbgrader_sources_is_exactly_exercises(sources):
    report = generate.check(sources, EXERCISES)
    assert report.ok, report.problems


def test_every_check_cell_of_the_sources_is_armed_with_its_points(sources):
    for name in SETS:
        for cell in load(sources / f"{name}.ipynb")["cells"]:
            if role(cell) == TEST and "t.done()" in source_of(cell):
                assert f", points={points(cell):g}" in source_of(cell), (name, grade_id(cell))
                if source_of(cell).count("### BEGIN HIDDEN TESTS") > 1:  # the solution's own hidden tests
                    assert ", hidden=[" in source_of(cell), (name, grade_id(cell))


def test_a_guessing_submission_loses_the_same_points_under_nbgrader(sources, ours):
    submission = guessing_submission()
    plain, _ = simulated_autograde(SOLUTIONS / f"{NAME}.ipynb", copy.deepcopy(submission))
    with_values, cells = simulated_autograde(sources / f"{NAME}.ipynb", copy.deepcopy(submission))
    total = ours.max_score
    assert plain == total  # the problem: against solutions/ a guesser gets everything
    assert abs(with_values - ours.score) <= 1, (with_values, ours.score)
    # Per task too: nbgrader's cell score is the grader's task score (the same share by weight).
    by_task = {t.grade_id: t.points for t in ours.tasks}
    for cell in cells:
        assert nbgrader_cell_score(cell) == pytest.approx(by_task[grade_id(cell)], abs=1e-6), grade_id(cell)
    print(f"guessing submission of {NAME}: grade {ours.score}/{total}, nbgrader (simulated) with values "
          f"{with_values}/{total}, nbgrader on solutions/ {plain}/{total}")


# ------------------------------------------------- t.done() with and without points


def _cell(t, *, fail_second=True):
    with t.test("first"):
        t.submit("a", 1.0, expected=1.0)
    with t.test("second", weight=3):
        t.submit("b", 2.0, expected=3.0 if fail_second else 2.0)
    return t.done()


def test_a_students_self_check_prints_and_raises_as_before(capsys):
    from tensorgrad_course import CheckFailure

    with pytest.raises(CheckFailure, match="task1: 1 of 2 checks failed"):
        _cell(check("demo.task1"))
    assert _cell(check("demo.task1"), fail_second=False) is None  # nothing for Jupyter to show as Out[]
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "\N{CHECK MARK} first" and out[1].startswith("\N{BALLOT X} second: your b is 2.0, expected 3.0")
    assert out[-1] == "task1: all 2 checks pass. More tests run when your work is graded."


def test_armed_with_points_done_returns_the_points_earned_by_weight(capsys):
    t = check("demo.task1")
    t.expect_values("{}", points=4)
    assert _cell(t) == 1.0  # weights 1 and 3: the first test's quarter of 4 points
    assert capsys.readouterr().out.splitlines()[-1] == "\N{BALLOT X} task1: 1 of 2 checks failed (see above)"
    t = check("demo.task1")
    t.expect_values("{}", points=4)
    assert _cell(t, fail_second=False) == 4.0
    with pytest.raises(ValueError, match="points"):
        check("demo.task1").expect_values("{}", points=-1)


def test_armed_hidden_tests_never_show_an_expected_value(capsys):
    t = check("demo.task1")
    t.expect_values("{}", points=2, hidden=["secret"])
    with t.test("secret"):
        t.submit("x", 3.0, expected=5.0)
    with t.test("public"):
        t.submit("y", 3.0, expected=5.0)
    assert t.done() == 0.0
    secret, public, summary = capsys.readouterr().out.splitlines()
    assert secret == "\N{BALLOT X} secret: your x is not the expected value"
    assert public.startswith("\N{BALLOT X} public: your y is 3.0, expected 5.0")  # a public test shows it, as always


# ------------------------------------------------------- nbgrader itself, every set

needs_nbgrader = pytest.mark.skipif(not HAS_NBGRADER, reason="nbgrader is not installed (pip install nbgrader)")
SUBMITTED = ("full", "blank", "guess")


def run_nbgrader(courses: list[Path], *args: str) -> None:
    """``nbgrader ARGS --force`` in each course folder, all at once (one process per core)."""
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    env.pop("JUPYTER_PATH", None)
    running = []
    for course in courses:
        env_here = dict(env, JUPYTER_CONFIG_DIR=str(course / ".jupyter"), JUPYTER_DATA_DIR=str(course / ".jupyter-data"))
        log = open(course / f"{args[0]}.log", "w")
        running.append((course, log, subprocess.Popen([sys.executable, "-m", "nbgrader", *args, "--force"], cwd=course,
                                                      env=env_here, stdout=log, stderr=subprocess.STDOUT, text=True)))
    failed = []
    for course, log, process in running:
        code = process.wait(timeout=900)
        log.close()
        if code:
            text = (course / f"{args[0]}.log").read_text()
            problems = [line for line in text.splitlines() if "ERROR" in line or "Error" in line or "Traceback" in line]
            failed.append(f"{course.name}: exit {code}\n" + "\n".join(problems[:40]) + "\n" + text[-2000:])
    assert not failed, "\n".join(failed)


COURSES = 2  # nbgrader grades one notebook at a time: one course folder per core


def a(name: str) -> str:
    """nbgrader's assignment (and notebook) name for a set: no folders (zh/03_x -> zh_03_x)."""
    return name.replace("/", "_")


@pytest.fixture(scope="module")
def nbgrader_course(sources, tmp_path_factory):
    """Real nbgrader courses: every generated source, nbgrader's release, three submissions autograded."""
    from nbgrader.api import Gradebook

    root = tmp_path_factory.mktemp("nbgrader-course")
    courses = [root / f"course{k}" for k in range(min(COURSES, len(SETS)))]
    home = {name: courses[i % len(courses)] for i, name in enumerate(SETS)}
    for course in courses:
        course.mkdir()
        (course / "nbgrader_config.py").write_text(
            "c = get_config()\n"
            f"c.CourseDirectory.root = {str(course)!r}\n"
            "c.CourseDirectory.course_id = 'tensorgrad'\n"
            "c.Execute.timeout = 120\n"
            "c.Execute.startup_timeout = 120\n"  # a loaded CI machine
            "c.Execute.execute_retries = 1\n")
    for name in SETS:
        (home[name] / "source" / a(name)).mkdir(parents=True)
        (home[name] / "source" / a(name) / f"{a(name)}.ipynb").write_bytes((sources / f"{name}.ipynb").read_bytes())
    run_nbgrader(courses, "generate_assignment", "*")
    for name in SETS:
        release = home[name] / "release" / a(name) / f"{a(name)}.ipynb"
        made = {"full": answered(load(SOLUTIONS / f"{name}.ipynb"), load(release)), "blank": load(release)}
        if name == NAME:
            made["guess"] = guessing_submission()
        for student, nb in made.items():
            (home[name] / "submitted" / student / a(name)).mkdir(parents=True)
            (home[name] / "submitted" / student / a(name) / f"{a(name)}.ipynb").write_text(json.dumps(nb))
    run_nbgrader(courses, "autograde", "*")
    scores = {}
    for course in courses:
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
            for name in SETS:
                for student in SUBMITTED:
                    if (course / "submitted" / student / a(name)).is_dir():
                        nb = gb.find_submission_notebook(a(name), a(name), student)
                        scores[name, student] = (nb.score, nb.max_score)
                        scores[name, student, "cells"] = {g.name: g.score for g in nb.grades}
    return home, scores


@pytest.fixture(scope="module")
def graded_edition(tmp_path_factory):
    """``tensorgrad-course build --graded``: the student version for graded work (no fingerprints)."""
    out = tmp_path_factory.mktemp("graded") / "exercises"
    assert main(["build", "--graded", "--solutions", str(SOLUTIONS), "--exercises", str(out)]) == 0
    return out


def readable_answers(nb: dict) -> list[str]:
    """What a released notebook's check cells give away in plain text: self-study fingerprints (a
    guessed prediction can be tried against them offline), the solution's values of an
    expect_values region, and hints that are not sealed."""
    found = []
    for cell in nb["cells"]:
        if role(cell) != TEST:
            continue
        text = source_of(cell)
        found += [f"{grade_id(cell)}: {word}" for word in (".fingerprints(", ".expect_values(") if word in text]
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "test":
                found += [f"{grade_id(cell)}: hint {k.value.value!r}" for k in node.keywords
                          if k.arg == "hint" and isinstance(k.value, ast.Constant)
                          and not str(k.value.value).startswith(SEALED)]
    return found


def test_the_graded_edition_gives_nothing_away_and_exercises_do(graded_edition):
    """The check above can fail: the self-study edition has fingerprints."""
    assert any(readable_answers(load(EXERCISES / f"{name}.ipynb")) for name in SETS)
    for name in SETS:
        assert readable_answers(load(graded_edition / f"{name}.ipynb")) == [], name


@needs_nbgrader
def test_nbgraders_release_of_every_set_is_the_graded_edition(nbgrader_course, graded_edition):
    """An instructor's nbgrader release is graded work: the cells of ``build --graded`` (hints
    sealed, no self-study fingerprints), nothing in it that gives an expected value away."""
    home, _ = nbgrader_course
    for name in SETS:
        theirs = load(home[name] / "release" / a(name) / f"{a(name)}.ipynb")
        ours = load(graded_edition / f"{name}.ipynb")
        assert [(c["cell_type"], source_of(c)) for c in theirs["cells"]] == [
            (c["cell_type"], source_of(c)) for c in ours["cells"]], name
        assert readable_answers(theirs) == [], name


@needs_nbgrader
def test_nbgrader_autogrades_every_set_full_and_blank(nbgrader_course):
    _, scores = nbgrader_course
    for name in SETS:
        max_score = sum(points(c) for c in load(SOLUTIONS / f"{name}.ipynb")["cells"] if role(c) == TEST)
        assert scores[name, "full"] == (max_score, max_score), name
        assert scores[name, "blank"] == (0, max_score), name


@needs_nbgrader
def test_under_nbgrader_the_guessing_submission_scores_as_under_grade(nbgrader_course, ours):
    _, scores = nbgrader_course
    score, max_score = scores[NAME, "guess"]
    assert max_score == ours.max_score
    assert abs(score - ours.score) <= 1, (score, ours.score)
    cells = scores[NAME, "guess", "cells"]  # task for task: nbgrader's partial credit is the grader's share
    assert cells == pytest.approx({t.grade_id: t.points for t in ours.tasks}, abs=1e-6)
    print(f"guessing submission of {NAME}: nbgrader autograde {score}/{max_score}, "
          f"tensorgrad-course grade {ours.score}/{ours.max_score}")
