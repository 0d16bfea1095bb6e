"""Set 11's training verdict is made outside the kernel (issue 20): the trained network leaves
the kernel as plain data and the grader measures its loss and accuracy itself.

A check cell used to measure the trained network with a helper it defined in the kernel
(``loss_and_accuracy``) and submit the verdict, ``final_loss < 0.1``. The student's ``train``
runs in that kernel, under that cell, and can rebind the helper (or the data it measures on)
through its caller's frame, so the verdict was the student's. Now the cell calls
``t.measure("the trained network", model, points, labels, loss_below=0.1)``: the grader takes
the parameters from the kernel's record and the layers, the data and the targets from the
solution's record, and measures in NumPy (:mod:`tensorgrad_course.measures`).

``test_rebinding_the_measuring_helper_wins_nothing`` grades two attacks on set 11 next to the
solution: on the old check cell both scored the training tests (3 of task 6's 4 points; shown
by running this file against the previous commit), now neither does.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from course_helpers import answered, read_json

from tensorgrad_course import measures, values
from tensorgrad_course.checks import CheckFailure, check
from tensorgrad_course.grade import Submission, grade_batch
from tensorgrad_course.kernel import Limits

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"
SET = "11_training"
TRAINING_TESTS = ("150 steps on the lesson's moons: the loss falls below 0.1",
                  "other moons, 150 steps: loss below 0.05 and accuracy at least 0.99",
                  "a smaller network, 200 steps: loss below 0.05")

# The student's train does not train: it makes the cell's own measuring helper say "perfect".
REBIND_HELPER = '''
import sys

def train(model, points, labels, steps, lr):
    caller = sys._getframe(1).f_globals  # the check cell's namespace
    caller["loss_and_accuracy"] = lambda *args, **kwargs: (0.0, 1.0)
    return [0.0] * steps
'''

# The student's train swaps the data the cell measures on for points it can fit at once.
SWAP_DATA = '''
import sys
import tensorgrad as tg

def train(model, points, labels, steps, lr):
    caller = sys._getframe(1).f_globals
    easy = tg.tensor([[-5.0, 0.0], [5.0, 0.0]] * 50)
    easy_labels = tg.tensor([0, 1] * 50)
    caller["points"], caller["labels"] = easy, easy_labels
    optimizer = tg.optim.Adam(model.parameters(), lr=lr)
    loss_fn = tg.nn.CrossEntropyLoss()
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(easy), easy_labels)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return losses
'''


def _with_train(nb: dict, source: str) -> dict:
    nb = json.loads(json.dumps(nb))
    (cell,) = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "task6"]
    cell["source"] = source
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    if not (SOLUTIONS / f"{SET}.ipynb").is_file():
        pytest.skip(f"{SET} is not in solutions/")
    full = answered(read_json(SOLUTIONS / f"{SET}.ipynb"), read_json(EXERCISES / f"{SET}.ipynb"))
    folder = tmp_path_factory.mktemp("measure")
    made = {"honest": full, "rebind_helper": _with_train(full, REBIND_HELPER), "swap_data": _with_train(full, SWAP_DATA)}
    subs = []
    for student, nb in made.items():
        (folder / student).mkdir()
        path = folder / student / f"{SET}.ipynb"
        path.write_text(json.dumps(nb), encoding="utf-8")
        subs.append(Submission(student, str(path)))
    results = grade_batch(subs, SOLUTIONS, EXERCISES, Limits(cell_timeout=60, notebook_timeout=300), jobs=2)
    return {r.student: r for r in results}


def _task6(result):
    (task,) = [t for t in result.tasks if t.grade_id == "task6_check"]
    return task


def test_the_solution_gets_full_marks(graded):
    honest = graded["honest"]
    assert honest.status == "graded" and honest.score == honest.max_score, honest.reason


@pytest.mark.parametrize("student", ["rebind_helper", "swap_data"])
def test_rebinding_the_measuring_helper_wins_nothing(graded, student):
    result = graded[student]
    assert result.status == "graded", result.reason
    task = _task6(result)
    by_name = {t.name: t for t in task.tests}
    for name in TRAINING_TESTS:
        assert by_name[name].status == "failed", (name, by_name[name])
        assert by_name[name].points == 0
    assert task.points == 0, [(t.name, t.status, t.message) for t in task.tests]


def test_a_hidden_measurement_shows_no_figure(graded):
    task = _task6(graded["swap_data"])
    hidden = [t for t in task.tests if t.hidden]
    assert hidden and all("does not reach this hidden test's target" in t.message for t in hidden)
    assert not any(ch.isdigit() for t in hidden for ch in t.message.split("target")[-1])


# ------------------------------------------------------------------- the measurement itself


def _network(seed=0, hidden=4):
    rng = np.random.default_rng(seed)
    return [{"layer": "linear", "weight": rng.normal(size=(hidden, 2)), "bias": rng.normal(size=hidden)},
            {"layer": "tanh"},
            {"layer": "linear", "weight": rng.normal(size=(2, hidden)), "bias": rng.normal(size=2)}]


def _entry(network, points, labels, **targets):
    record = values.encode({"network": network, "points": points, "labels": labels})
    options = {"measure": measures.CLASSIFIER, "loss_below": targets.get("loss_below"),
               "accuracy_at_least": targets.get("accuracy_at_least")}
    return {"name": "the trained network", "value": record, "options": options}


def _separable(n=40, seed=1):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=n)
    points = rng.normal(size=(n, 2)) + np.where(labels[:, None] == 1, 4.0, -4.0)
    return points, labels


def test_the_grader_measures_with_the_solutions_data_and_the_students_parameters():
    points, labels = _separable()
    good = [{"layer": "linear", "weight": np.array([[-3.0, -3.0], [3.0, 3.0]]), "bias": np.zeros(2)}]
    wanted = _entry(good, points, labels, loss_below=0.1, accuracy_at_least=0.99)
    assert measures.judge(wanted, wanted["value"], name="net") is None
    # The student's record brings other data that its (wrong) parameters fit: only its parameters count.
    wrong = [{"layer": "linear", "weight": np.array([[3.0, 3.0], [-3.0, -3.0]]), "bias": np.zeros(2)}]
    forged = _entry(wrong, -points, labels)["value"]
    message = measures.judge(wanted, forged, name="your network")
    assert message and "loss on these points is" in message and "accuracy" in message
    assert measures.judge(wanted, forged, name="your network", reveal=False) == \
        "your network does not reach this hidden test's target"


def test_the_grader_refuses_another_network():
    points, labels = _separable()
    wanted = _entry(_network(hidden=4), points, labels, loss_below=10.0)
    assert measures.judge(wanted, _entry(_network(hidden=4, seed=3), points, labels)["value"], name="n") is None
    other = _entry(_network(hidden=8), points, labels)["value"]  # more hidden units
    assert "layers and parameter shapes" in measures.judge(wanted, other, name="n")
    no_network = values.encode({"points": points})
    assert "layers and parameter shapes" in measures.judge(wanted, no_network, name="n")
    nan = _network(hidden=4)
    nan[0]["weight"][0, 0] = np.nan
    assert "loss" in measures.judge(wanted, _entry(nan, points, labels)["value"], name="n")


def test_the_loss_is_the_mean_cross_entropy():
    layers = [{"layer": "linear", "weight": np.array([[1.0, 0.0], [0.0, 1.0]]), "bias": np.array([0.0, 0.5])}]
    points, labels = np.array([[2.0, 0.0], [0.0, 1.0]]), np.array([0, 0])
    scores = points @ layers[0]["weight"].T + layers[0]["bias"]
    want = float(np.mean([np.log(np.exp(s).sum()) - s[0] for s in scores]))
    loss, accuracy = measures.loss_and_accuracy(layers, points, labels)
    assert loss == pytest.approx(want) and accuracy == 0.5


def test_the_self_check_measures_the_same_way(capsys):
    tg = pytest.importorskip("tensorgrad")
    points, labels = _separable()
    tg.manual_seed(0)
    model = tg.nn.Sequential(tg.nn.Linear(2, 2))
    t = check("training.task6")
    with t.test("untrained"):
        t.measure("the trained network", model, tg.tensor(points.astype(np.float32)), tg.tensor(labels),
                  loss_below=1e-3)
    with pytest.raises(CheckFailure):
        t.done()
    assert "the trained network: its loss on these points is" in capsys.readouterr().out
