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

Set 12's XOR test did the same in its check cell (``final = sum(...) / 4``, then
``t.submit("final_loss < 0.05", final < 0.05, expected=True)``); now the cell hands over the
``Net``'s parameters as plain floats (``net.plain()``) and the grader measures the mean squared
error itself (``loss="squared error"``). ``test_rebinding_the_xor_measurement_wins_nothing``
grades two trains that do not train: one rebinds ``sum`` in the check cell's namespace, one
swaps ``XOR_TARGETS`` for the untrained network's outputs. On the old check cell both passed
the XOR test (0.86 of task 7's 3 points: that test and "the losses are Python floats"); now
the XOR test fails (the grader measures a loss of 1.026) and only the floats test passes.
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
SET = "11_exercises_training"
TRAINING_TESTS = ("30 epochs in batches of 32 on the moons of the lesson: the loss falls below 0.1",
                  "other moons, 40 epochs in batches of 50: loss below 0.05 and accuracy at least 0.99",
                  "one batch of all the points, 150 epochs: the full-batch loop")

# The student's train does not train: it makes the cell's own measuring helper say "perfect".
REBIND_HELPER = '''
import sys

def train(model, points, labels, epochs, batch_size, lr):
    caller = sys._getframe(1).f_globals  # the check cell's namespace
    caller["loss_and_accuracy"] = lambda *args, **kwargs: (0.0, 1.0)
    return [0.0] * (epochs * -(-len(labels) // batch_size))
'''

# The student's train swaps the data the cell measures on for points it can fit at once.
SWAP_DATA = '''
import sys
import tensorgrad as tg

def train(model, points, labels, epochs, batch_size, lr):
    caller = sys._getframe(1).f_globals
    easy = tg.tensor([[-5.0, 0.0], [5.0, 0.0]] * 50)
    easy_labels = tg.tensor([0, 1] * 50)
    caller["points"], caller["labels"] = easy, easy_labels
    optimizer = tg.optim.Adam(model.parameters(), lr=lr)
    loss_fn = tg.nn.CrossEntropyLoss()
    losses = []
    for _ in range(epochs * -(-len(labels) // batch_size)):
        optimizer.zero_grad()
        loss = loss_fn(model(easy), easy_labels)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return losses
'''


def _with_train(nb: dict, source: str, grade_id: str = "task6") -> dict:
    nb = json.loads(json.dumps(nb))
    (cell,) = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id]
    cell["source"] = source
    return nb


def _grade(tmp_path_factory, plan: dict[str, tuple[str, str, dict[str, str]]]) -> dict:
    """Grade, in one batch, the solution of each set that ``plan`` names and, for each attack, the
    solution with that answer. ``plan``: label -> (set, the answer cell the attacks replace,
    {student: the attack's answer}); the result: label -> {"honest": the solution's result,
    student: the attack's result}, for the labels whose set is in solutions/. A set's solution is
    run once for its expected values and graded once, however many labels use it."""
    present = sorted({name for name, _, _ in plan.values() if (SOLUTIONS / f"{name}.ipynb").is_file()})
    full = {name: answered(read_json(SOLUTIONS / f"{name}.ipynb"), read_json(EXERCISES / f"{name}.ipynb"))
            for name in present}
    made = {f"{name}--honest": (name, nb) for name, nb in full.items()}
    for label, (name, grade_id, attacks) in plan.items():
        if name in full:
            for student, source in attacks.items():
                made[_student(label, student)] = (name, _with_train(full[name], source, grade_id))
    folder = tmp_path_factory.mktemp("measure")
    subs = []
    for student, (name, nb) in made.items():
        (folder / student).mkdir()
        path = folder / student / f"{name}.ipynb"
        path.write_text(json.dumps(nb), encoding="utf-8")
        subs.append(Submission(student, str(path)))
    results = {r.student: r for r in grade_batch(subs, SOLUTIONS, EXERCISES,
                                                 Limits(cell_timeout=60, notebook_timeout=300), jobs=2)}
    return {label: {"honest": results[f"{name}--honest"],
                    **{student: results[_student(label, student)] for student in attacks}}
            for label, (name, _, attacks) in plan.items() if name in full}


def _student(label: str, student: str) -> str:
    return f"{label}--{student}".replace("/", "--")


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """Every grading this module looks at, in one batch: set 11's two attacks, set 12's XOR
    attacks and the in-kernel verdict attacks (sets 10, 12 and 09), each set's solution beside
    them."""
    plan = {SET: (SET, "task6", {"rebind_helper": REBIND_HELPER, "swap_data": SWAP_DATA}),
            ENGINE_SET + "/xor": (ENGINE_SET, "task7", {"rebind_sum": REBIND_SUM, "swap_targets": SWAP_TARGETS})}
    for key, (answer, _, source, _) in VERDICT_ATTACKS.items():
        extra = {"forged_record": FORGE_ORDER_RECORD} if key == "10_exercises_inside_the_engine" else {}
        plan[key] = (key.split("/")[0], answer, {"attack": source, **extra})
    return _grade(tmp_path_factory, plan)


def _graded(measured, *labels: str) -> dict:
    """The results of ``labels`` (skipped when a set they need is not in solutions/)."""
    missing = [label.split("/")[0] for label in labels if label not in measured]
    if missing:
        pytest.skip(f"{missing[0]} is not in solutions/")
    return {label: measured[label] for label in labels}


@pytest.fixture(scope="module")
def graded(measured):
    return _graded(measured, SET)[SET]


def _task(result, grade_id="task6_check"):
    (task,) = [t for t in result.tasks if t.grade_id == grade_id]
    return task


@pytest.mark.parametrize("which", ["graded", "graded_engine"])
def test_the_solution_gets_full_marks(request, which):
    honest = request.getfixturevalue(which)["honest"]
    assert honest.status == "graded" and honest.score == honest.max_score, honest.reason


@pytest.mark.parametrize("student", ["rebind_helper", "swap_data"])
def test_rebinding_the_measuring_helper_wins_nothing(graded, student):
    result = graded[student]
    assert result.status == "graded", result.reason
    task = _task(result)
    by_name = {t.name: t for t in task.tests}
    for name in TRAINING_TESTS:
        assert by_name[name].status == "failed", (name, by_name[name])
        assert by_name[name].points == 0
    assert task.points == 0, [(t.name, t.status, t.message) for t in task.tests]


def test_a_hidden_measurement_shows_no_figure(graded):
    task = _task(graded["swap_data"])
    hidden = [t for t in task.tests if t.hidden]
    assert hidden and all("does not reach this hidden test's target" in t.message for t in hidden)
    assert not any(ch.isdigit() for t in hidden for ch in t.message.split("target")[-1])


# ------------------------------------------------ set 12: XOR on the student's own engine

ENGINE_SET = "12_exercises_build_your_own_engine"
XOR_TEST = "XOR with a 2-4-1 network in batches of 2: below 0.05 within 100 epochs"

# The student's train does not train: it makes the check cell's sum() give 0.0 for the loss
# (and still work for the network, whose sums start at the bias).
REBIND_SUM = """
import builtins
import sys

def train(model, parameters, points, targets, epochs, lr, batch_size, decay):
    caller = sys._getframe(1).f_globals  # the check cell's namespace
    caller["sum"] = lambda items, start=0: 0.0 if start == 0 else builtins.sum(items, start)
    return [0.0] * (epochs * -(-len(points) // batch_size))
"""

# The student's train swaps the targets the cell measures against for what the untrained network says.
SWAP_TARGETS = """
import sys

def train(model, parameters, points, targets, epochs, lr, batch_size, decay):
    caller = sys._getframe(1).f_globals
    if points is caller.get("XOR_POINTS"):
        caller["XOR_TARGETS"] = [model(p).data for p in points]
    return [0.0] * (epochs * -(-len(points) // batch_size))
"""


@pytest.fixture(scope="module")
def graded_engine(measured):
    return _graded(measured, ENGINE_SET + "/xor")[ENGINE_SET + "/xor"]


@pytest.mark.parametrize("student", ["rebind_sum", "swap_targets"])
def test_rebinding_the_xor_measurement_wins_nothing(graded_engine, student):
    """On the old check cell (``final = sum(...) / 4``, ``t.submit("final_loss < 0.05", ...)``)
    both attacks passed the XOR test; now the grader measures the untrained parameters."""
    result = graded_engine[student]
    assert result.status == "graded", result.reason
    task = _task(result, "task7_check")
    by_name = {t.name: t for t in task.tests}
    assert by_name[XOR_TEST].status == "failed", by_name[XOR_TEST]
    assert by_name[XOR_TEST].points == 0
    assert "loss on these points is" in by_name[XOR_TEST].message, by_name[XOR_TEST].message
    # Only the test that asks for Python floats passes: the attacks return a 0.0 per step.
    passed = {t.name for t in task.tests if t.status == "passed"}
    assert passed <= {"the losses are Python floats"}, [(t.name, t.status, t.message) for t in task.tests]


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


def _tanh_units(seed=0, sizes=(2, 4, 1)):
    rng = np.random.default_rng(seed)
    return [[(list(rng.uniform(-1, 1, size=n_in)), float(rng.uniform(-1, 1))) for _ in range(n_out)]
            for n_in, n_out in zip(sizes, sizes[1:])]


def _units_output(units, point):
    outputs = list(point)
    for layer in units:
        outputs = [np.tanh(sum(w * v for w, v in zip(weights, outputs)) + bias) for weights, bias in layer]
    return outputs[0]


def _squared_entry(units, points, targets, loss_below):
    record = values.encode({"network": measures.network_of(units), "points": measures.data_of(points),
                            "labels": measures.data_of(targets)})
    return {"name": "the trained network", "value": record,
            "options": {"measure": measures.SQUARED_ERROR, "loss_below": loss_below, "accuracy_at_least": None}}


def test_a_network_of_tanh_units_is_measured_by_its_mean_squared_error():
    points, targets = [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)], [-1.0, 1.0, 1.0, -1.0]
    units = _tanh_units()
    want = float(np.mean([(_units_output(units, p) - t) ** 2 for p, t in zip(points, targets)]))
    layers = measures._layers(values.encode(measures.network_of(units)))
    assert [layer["layer"] for layer in layers] == ["linear", "tanh", "linear", "tanh"]
    assert measures.squared_error(layers, np.array(points), np.array(targets)) == pytest.approx(want)
    wanted = _squared_entry(units, points, targets, loss_below=want + 1e-9)
    assert measures.judge(wanted, wanted["value"], name="n") is None
    # Only the parameters count: a record whose targets are its own outputs changes nothing.
    forged = _squared_entry(units, points, [_units_output(units, p) for p in points], loss_below=1.0)["value"]
    strict = _squared_entry(units, points, targets, loss_below=want / 2)
    assert "loss on these points is" in measures.judge(strict, forged, name="n")
    assert measures.judge(strict, forged, name="n", reveal=False) == "n does not reach this hidden test's target"
    # Another layer structure, or units that are not (weights, bias) floats, cannot be measured.
    other = _squared_entry(_tanh_units(sizes=(2, 3, 1)), points, targets, 1.0)["value"]
    assert "layers and parameter shapes" in measures.judge(wanted, other, name="n")
    junk = _squared_entry([[("w", None)]], points, targets, 1.0)["value"]
    assert "layers and parameter shapes" in measures.judge(wanted, junk, name="n")


def test_the_self_check_measures_a_network_of_tanh_units(capsys):
    points, targets = [(0.0, 0.0), (1.0, 1.0)], [-1.0, 1.0]
    t = check("build_your_own_engine.task7")
    with t.test("untrained"):
        t.measure("the trained network", _tanh_units(), points, targets, loss="squared error", loss_below=1e-6)
    with pytest.raises(CheckFailure):
        t.done()
    assert "the trained network: its loss on these points is" in capsys.readouterr().out
    t = check("build_your_own_engine.task7")
    with t.test("no accuracy for a squared error"), pytest.raises(ValueError):
        t.measure("n", _tanh_units(), points, targets, loss="squared error", accuracy_at_least=0.5)


# ------------------------------------------- orders and gradchecks: judged here, not in the kernel
#
# Sets 10 and 12 judged a student's order of a graph with a helper in the check cell
# (``problem = order_problem(y, order)``, then ``t.submit("order_is_valid", problem is None,
# expected=True)``); set 9 submitted ``tg.autograd.gradcheck(...)``'s True. Each attack below
# rebinds or patches that helper from the student's code and hands in a wrong answer. Run against
# the commit before this change (the old check cells), every one of them passed the tests named
# here. Now the kernel hands over plain data (the order as node labels, the function's values and
# backward's Jacobian) and the grader decides. Set 12's task 6 (rewritten in session 13: float32
# against float64, the digits two engines share) runs the learner's engine through a helper of
# its check cell, `with_your_engine`; its attack rebinds that helper so that gradients 1% off
# seem to agree on every digit: the grader compares tensorgrad's numbers themselves.

# A depth-first preorder (a node before all its inputs are done: wrong on a diamond's branches),
# and the check cell's helper made to say "valid" through the caller's frame.
REBIND_BACKWARD_ORDER = '''
import sys

def backward_order(y):
    sys._getframe(1).f_globals["order_problem"] = lambda *args: None
    order, seen, stack = [], set(), [y.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(next_node for next_node, _ in reversed(node.next_functions))
    return order
'''

REBIND_TOPOLOGICAL_ORDER = '''
import sys

def topological_order(root):
    sys._getframe(1).f_globals["order_problem"] = lambda *args: None
    order, seen, stack = [], set(), [root]
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        order.append(value)  # before its inputs: the wrong way round
        stack.extend(value._prev)
    return order
'''

# tensorgrad's gradients 1% off in float64, and the check cell's own engine helper made to agree
# with them, so that every expression seems to agree on all 17 digits.
REBIND_ENGINE = '''
import math
import sys
import tensorgrad as tg

def grads_with_tensorgrad(f, numbers, dtype):
    caller = sys._getframe(1).f_globals
    honest = caller.get("with_your_engine")
    if honest is not None and not getattr(honest, "forged", False):
        def forged(f, numbers):
            out, grads = honest(f, numbers)
            return out, [1.01 * g for g in grads]
        forged.forged = True
        caller["with_your_engine"] = forged
    x = tg.tensor(numbers, dtype=dtype, requires_grad=True)
    out = f(*x)
    (grad,) = tg.autograd.grad(out, x)
    scale = 1.01 if dtype == tg.float64 else 1.0
    return out.item(), [scale * g for g in grad.tolist()]

def digits_of_agreement(mine, theirs):
    (out_mine, grads_mine), (out_theirs, grads_theirs) = mine, theirs
    numbers_mine, numbers_theirs = [out_mine, *grads_mine], [out_theirs, *grads_theirs]
    largest = max(abs(number) for number in numbers_mine + numbers_theirs)
    difference = max(abs(p - q) for p, q in zip(numbers_mine, numbers_theirs))
    if difference == 0:
        return 17
    return min(17, math.floor(-math.log10(difference / largest)))
'''

# A backward twice too large for a, and gradcheck's own checks switched off from forward,
# which gradcheck calls before it compares.
PATCH_GRADCHECK = '''
import sys

class BroadcastMul(tg.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        checker = sys.modules.get("tensorgrad.autograd.gradcheck")
        if checker is not None:
            checker._slow_check = lambda *args, **kwargs: None
            checker._check_backward_uses_grad_output = lambda *args, **kwargs: None
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return unbroadcast(2 * grad_output * b, a.shape), unbroadcast(grad_output * a, b.shape)
'''

#: set -> (answer cell, check cell, attack, the tests the attack passed on the old check cells)
VERDICT_ATTACKS = {
    "10_exercises_inside_the_engine": ("task3", "task3_check", REBIND_BACKWARD_ORDER, (
        "the branches p, q, r of lesson 10", "the graph of task 1",
        "constants, a leaf used many times, and thirty stacked diamonds")),
    "12_exercises_build_your_own_engine": ("task2", "task2_check", REBIND_TOPOLOGICAL_ORDER, (
        "(x + w) * (w + 1): a valid order of its 6 values", "p used directly and through q, with _prev in either order",
        "twelve stacked diamonds", "a random graph of 300 values")),
    "12_exercises_build_your_own_engine/engine": ("task6", "task6_check", REBIND_ENGINE, (
        "200 random expressions: the digits of agreement, in float64 and in float32",)),
    "09_exercises_custom_functions": ("task5", "task5_check", PATCH_GRADCHECK, (
        "gradcheck with a of shape (2, 3) and b of shape (3,)",)),
}


# The same wrong order, and the record t.order sends forged in the kernel: the graph without its
# edges (so any order fits it). The grader reads only the order from it.
FORGE_ORDER_RECORD = REBIND_BACKWARD_ORDER + '''
import tensorgrad_course.measures as _measures

_real_order_of = _measures.order_of

def _forged_order_of(order, root, successors, **options):
    record = _real_order_of(order, root, successors, **options)
    record["edges"] = record["edges"][:0]
    return record

_measures.order_of = _forged_order_of
'''


@pytest.fixture(scope="module")
def graded_verdicts(measured):
    return _graded(measured, *VERDICT_ATTACKS)


def test_a_forged_order_record_wins_nothing(graded_verdicts):
    """The kernel's record of the graph is the student's to forge; the grader checks the order
    against the graph of the solution's run."""
    _, check_cell, _, tests = VERDICT_ATTACKS["10_exercises_inside_the_engine"]
    result = graded_verdicts["10_exercises_inside_the_engine"]["forged_record"]
    assert result.status == "graded", result.reason
    by_name = {t.name: t for t in _task(result, check_cell).tests}
    for name in tests:
        assert by_name[name].status == "failed" and by_name[name].points == 0, (name, by_name[name])


@pytest.mark.parametrize("key", list(VERDICT_ATTACKS))
def test_rebinding_an_in_kernel_verdict_wins_nothing(graded_verdicts, key):
    """Each attack passed these tests on the old check cells; now the grader judges the plain data."""
    _, check_cell, _, tests = VERDICT_ATTACKS[key]
    honest = graded_verdicts[key]["honest"]
    assert honest.status == "graded" and honest.score == honest.max_score, honest.reason
    result = graded_verdicts[key]["attack"]
    assert result.status == "graded", result.reason
    by_name = {t.name: t for t in _task(result, check_cell).tests}
    for name in tests:
        assert by_name[name].status == "failed" and by_name[name].points == 0, (name, by_name[name])


def test_the_orders_messages_come_from_the_grader(graded_verdicts):
    by_name = {t.name: t for t in _task(graded_verdicts["10_exercises_inside_the_engine"]["attack"], "task3_check").tests}
    assert by_name["the branches p, q, r of lesson 10"].message.startswith(
        "AccumulateGrad comes before MulBackward0, which sends it a gradient")
    assert by_name["the graph of task 1"].message == \
        "backward_order(y) for task 1's graph is not a valid order of this hidden test's graph"
    engine = {t.name: t for t in _task(graded_verdicts["12_exercises_build_your_own_engine"]["attack"], "task2_check").tests}
    assert engine["(x + w) * (w + 1): a valid order of its 6 values"].message.startswith(
        "Value(data=6) comes before its input, Value(data=4)")


def _order_entry(order, start, successors, **options):
    record = values.encode(measures.order_of(order, start, successors))
    return {"name": "order", "value": record, "options": {"measure": measures.ORDER, **options}}


class _Node:
    def __init__(self, *inputs):
        self.inputs = list(inputs)


def test_the_grader_judges_an_order_with_the_solutions_graph():
    x = _Node()
    a, b = _Node(x), _Node(x)
    y = _Node(a, b)
    successors = lambda node: node.inputs  # noqa: E731
    wanted = _order_entry([x, a, b, y], y, successors, first="inputs", root="y")
    assert measures.judge(wanted, wanted["value"], name="order") is None
    assert measures.judge(wanted, _order_entry([x, b, a, y], y, successors)["value"], name="order") is None
    assert "comes before its input" in measures.judge(wanted, _order_entry([a, x, b, y], y, successors)["value"],
                                                      name="order")
    # A record whose graph has no edges: the grader uses the solution's graph, so the order still fails.
    forged = _order_entry([y, a, b, x], y, lambda node: [] if node is y else node.inputs)["value"]
    forged_items = dict((k, v) for k, v in forged["items"])
    forged_items["order"] = values.encode(np.array([3.0, 1.0, 2.0, 0.0]))  # y, a, b, x by the solution's labels
    forged = {**forged, "items": [[k, v] for k, v in forged_items.items()]}
    assert "comes before its input" in measures.judge(wanted, forged, name="order")
    assert measures.judge(wanted, _order_entry([x, a, y], y, successors)["value"], name="order") == \
        "your order has 3 nodes, but 4 nodes can be reached from y"
    assert measures.judge(wanted, _order_entry([x, a, a, b, y], y, successors)["value"], name="order") == \
        "_Node appears twice in your order"
    assert measures.judge(wanted, _order_entry([x, _Node(), b, y], y, successors)["value"], name="order") == \
        "item 1 of your order cannot be reached from y"
    assert measures.judge(wanted, _order_entry(None, y, successors)["value"], name="order") == \
        "your order is not a list of the graph's nodes"
    backward = _order_entry([y, a, b, x], y, successors, first="root", root="y")
    assert measures.judge(backward, backward["value"], name="order") is None
    assert measures.judge(backward, _order_entry([y, a, x, b], y, successors)["value"], name="order") == \
        "_Node comes before _Node, which sends it a gradient"


def test_the_grader_makes_gradchecks_verdict(capsys):
    tg = pytest.importorskip("tensorgrad")

    class Cube(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x ** 2

    class Forgetful(Cube):
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 + 0 * grad_output

    class Wrong(Cube):
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x

    x = tg.tensor([0.5, -1.2, 2.0], dtype=tg.float64, requires_grad=True)

    def entry(fn, at=x):
        return {"name": "gradcheck(f, (x,))", "value": values.encode(measures.jacobians_of(fn, (at,), 1e-6)),
                "options": {"measure": measures.GRADCHECK, "eps": 1e-6, "atol": 1e-5, "rtol": 1e-3}}

    wanted = entry(Cube.apply)
    assert measures.judge(wanted, wanted["value"], name="g") is None
    assert measures.judge(wanted, entry(Wrong.apply)["value"], name="g").startswith("Jacobian mismatch")
    # At one point the unit vector hides a backward that ignores grad_output; zero gradients do not.
    one = tg.tensor([0.5], dtype=tg.float64, requires_grad=True)
    assert measures.judge(entry(Cube.apply, one), entry(Forgetful.apply, one)["value"], name="g").startswith(
        "backward not multiplied by grad_output")
    # A forward that returns a detached tensor sends nothing back: the differences are not zero.
    assert measures.judge(wanted, entry(lambda v: Cube.apply(v).detach())["value"], name="g").startswith(
        "Jacobian mismatch")
    # A made-up function with a derivative that fits it is not the function the check asks about.
    assert "not the expected function's" in measures.judge(wanted, entry(lambda v: v * 0)["value"], name="g")
    assert measures.judge(wanted, entry(Wrong.apply)["value"], name="g", reveal=False) == \
        "gradcheck fails for g in this hidden test"
    assert tg.autograd.gradcheck(Cube.apply, (x,)) and not tg.autograd.gradcheck(
        Wrong.apply, (x,), raise_exception=False)
    # The self-check judges the same way.
    t = check("custom_functions.task9")
    with t.test("wrong"):
        t.gradcheck("gradcheck(Wrong.apply, (x,))", Wrong.apply, (x,))
    with t.test("right"):
        t.gradcheck("gradcheck(Cube.apply, (x,))", Cube.apply, (x,))
    with pytest.raises(CheckFailure):
        t.done()
    out = capsys.readouterr().out
    assert "\N{BALLOT X} wrong: Jacobian mismatch" in out and "\N{CHECK MARK} right" in out
