"""nbgrader fidelity: source notebooks whose checks compare the solution's values.

nbgrader itself is not installed here, so its autograde step is simulated as it works: the
source notebook's cells (hidden tests included) with the student's answer cells put in, run
in one kernel; a graded cell earns its points when it ran without an error. A submission with
guessed predictions (right type, wrong value) scores full marks against ``solutions/`` that
way, and loses its predictions' points against ``tensorgrad-course nbgrader``'s sources, as
under ``tensorgrad-course grade``.
"""

import copy
import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tensorgrad_course import generate
from tensorgrad_course.cli import main
from tensorgrad_course.grade import Submission, grade_batch
from tensorgrad_course.kernel import Limits
from tensorgrad_course.notebooks import grade_id, points, role, source_of, TEST, ANSWER

ROOT = Path(__file__).resolve().parents[2]
NAME = "01_computation_graphs"
GUESSES = {  # predictions of the right type, guessed
    "task1": "\n".join(f"{t}_is_leaf, {t}_requires_grad = True, True" for t in "xcaby"),
    "task2": "node1 = node2 = node3 = node4 = 'MulBackward0'",
    "task5": "n_mul, x_grad, n_mul_30, x_grad_30 = 1, 1.0, 1, 1.0",
}


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    if not (ROOT / "solutions" / f"{NAME}.ipynb").is_file():
        pytest.skip(f"{NAME} is not in solutions/")
    out = tmp_path_factory.mktemp("nbgrader") / "source"
    assert main(["nbgrader", "--solutions", str(ROOT / "solutions"), "--exercises", str(ROOT / "exercises"),
                 "--out", str(out)]) == 0
    return out


def guessing_submission() -> dict:
    solution = json.loads((ROOT / "solutions" / f"{NAME}.ipynb").read_text())
    nb = json.loads((ROOT / "exercises" / f"{NAME}.ipynb").read_text())
    answers = {grade_id(c): source_of(c) for c in solution["cells"] if role(c) == ANSWER}
    for cell in nb["cells"]:
        gid = grade_id(cell)
        if role(cell) == ANSWER:
            cell["source"] = GUESSES.get(gid) or answers[gid]  # the code tasks solved, the predictions guessed
    return nb


def nbgrader_autograde(source_path: Path, submission: dict) -> float:
    """nbgrader's autograde, simulated: the source's cells with the student's answers, then points per cell."""
    nb = nbformat.read(source_path, as_version=4)
    answers = {grade_id(c): source_of(c) for c in submission["cells"] if role(c) == ANSWER}
    for cell in nb.cells:
        if role(cell) == ANSWER:
            cell.source = answers[grade_id(cell)]
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    return sum(points(c) for c in nb.cells if role(c) == TEST
               and not any(o.get("output_type") == "error" for o in c.get("outputs", [])))


def test_the_release_of_the_nbgrader_sources_is_exactly_exercises(sources):
    report = generate.check(sources, ROOT / "exercises")
    assert report.ok, report.problems


def test_a_guessing_submission_loses_the_same_points_under_nbgrader(sources, tmp_path):
    submission = guessing_submission()
    path = tmp_path / f"{NAME}.ipynb"
    path.write_text(json.dumps(submission))
    (ours,) = grade_batch([Submission("guesser", str(path))], ROOT / "solutions", ROOT / "exercises",
                          Limits(cell_timeout=60, notebook_timeout=300))
    plain = nbgrader_autograde(ROOT / "solutions" / f"{NAME}.ipynb", copy.deepcopy(submission))
    with_values = nbgrader_autograde(sources / f"{NAME}.ipynb", copy.deepcopy(submission))
    total = ours.max_score
    assert plain == total  # the problem: against solutions/ a guesser gets everything
    assert with_values < plain and abs(with_values - ours.score) <= 1.5, (with_values, ours.score)
    print(f"guessing submission of {NAME}: grade {ours.score}/{total}, nbgrader with values {with_values}/{total}, "
          f"nbgrader on solutions/ {plain}/{total}")
