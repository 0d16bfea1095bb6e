"""Set 12 (the capstone): the public checks catch the common wrong answer of each code task.

Each case takes the solution's answers, breaks one of them the way learners do (a derivative of
the input for that of the output, a division spelled with ``**``, relu's derivative of 1 at 0, a
recursive walk, a count of uses that forgets a value used twice, an order never reversed, a
``zero_grad`` that reaches only the output, a repeated backward that zeroes the leaves too, float64
where float32 was asked for, digits counted from an absolute difference, gradients never zeroed, a
learning rate that never decays, a batch's loss divided by all the points), and runs the task's check cell as the
student gets it (public tests only, from ``exercises/``): the named public test must fail and the
cell must raise. The unbroken answers pass every public test, and the answer key of the
prediction (task 4) is what its program gives.
"""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NAME = "12_exercises_build_your_own_engine"
SOLUTION = ROOT / "solutions" / f"{NAME}.ipynb"
EXERCISE = ROOT / "exercises" / f"{NAME}.ipynb"

RECURSIVE_SORT = '''
def topological_order(root):
    order, seen = [], set()

    def visit(value):
        if id(value) not in seen:
            seen.add(id(value))
            for input_ in value._prev:
                visit(input_)
            order.append(value)
    visit(root)
    return order
'''

RECURSIVE_ZERO_GRAD = '''
def zero_grad(self):
    self.grad = 0.0
    for value in self._prev:
        value.zero_grad()


Value.zero_grad = zero_grad
'''

ONLY_THE_OUTPUT = '''
def zero_grad(self):
    self.grad = 0.0


Value.zero_grad = zero_grad
'''

DIVISION_SPELLED = [("    other = other if isinstance(other, Value) else Value(other)\n"
                     "    return self._result(self.data / other.data, (self, other),\n"
                     "                        (1 / other.data, -self.data / other.data ** 2))",
                     "    return self * other ** -1")]

#: (task, what is wrong, edits of the solution's answer: (old, new) pairs or a whole new source,
#: the public test that must fail)
WRONG = [
    ("task1", "log's derivative is a", [("(1 / self.data,)", "(self.data,)")], "log at 2 and at 0.5"),
    ("task1", "division spelled with **", DIVISION_SPELLED,
     "a / b at a = 3, b = 2: one operation, with both local derivatives"),
    ("task1", "relu's derivative 1 at 0", [("1.0 if self.data > 0", "1.0 if self.data >= 0")],
     "relu at 2, -1 and 0"),
    ("task2", "a recursive sort", RECURSIVE_SORT, "a chain of 5,000 values, without RecursionError"),
    ("task2", "a value used by two values counted once", [("uses[id(input_)] += 1", "uses[id(input_)] = 1")],
     "(x + w) * (w + 1): a valid order of its 6 values"),
    ("task2", "the order from the root, not reversed", [("return backwards[::-1]", "return backwards")],
     "a chain x, a, b: [x, a, b]"),
    ("task3", "a recursive zero_grad", RECURSIVE_ZERO_GRAD, "a chain of 5,000 additions, without RecursionError"),
    ("task3", "zero_grad reaches only the output", ONLY_THE_OUTPUT,
     "(x + w) * (w + 1): backward, zero_grad, every grad is 0.0"),
    ("task5", "the leaves zeroed too", [("if value._prev:", "if True:")],
     "two calls: x.grad adds up, h.grad holds one call's gradient"),
    ("task5", "nothing zeroed", [("            value.grad = 0.0", "            pass")],
     "two calls: x.grad adds up, h.grad holds one call's gradient"),
    ("task6", "float64 whatever the dtype", [("dtype=dtype", "dtype=tg.float64")],
     "the same in float32: the numbers of a float32 computation"),
    ("task6", "an absolute difference, not a relative one",
     [("-math.log10(difference / largest)", "-math.log10(difference)")],
     "digits_of_agreement on pairs written out"),
    ("task7", "gradients never zeroed", [("loss.zero_grad()", "pass")],
     "two epochs of two batches, without decay: four losses and w"),
    ("task7", "a learning rate that never decays", [("rate = lr / (1 + decay * len(losses))", "rate = lr")],
     "the same: w is 1.04, the second step at half the learning rate"),
    ("task7", "the batch's loss divided by all the points", [("/ len(batch)", "/ len(points)")],
     "three points in batches of 2: the last batch holds one point"),
]


def cells_by_grade_id(path):
    if not path.is_file():
        pytest.skip(f"{path.relative_to(ROOT)} is missing")
    nb = json.loads(path.read_text(encoding="utf-8"))
    return {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"])
            for c in nb["cells"] if "nbgrader" in c["metadata"]}


def run_public_check(task, broken=None):
    """Run the solution's setup and answers up to ``task`` (its own broken), then its public check."""
    from tensorgrad_course import CheckFailure

    solution, exercise = cells_by_grade_id(SOLUTION), cells_by_grade_id(EXERCISE)
    namespace = {}
    exec(solution["setup"], namespace)
    for k in range(1, int(task.removeprefix("task")) + 1):
        source = solution[f"task{k}"]
        if f"task{k}" == task and broken is not None:
            if isinstance(broken, str):
                source = broken
            for old, new in [] if isinstance(broken, str) else broken:
                assert old in source, f"{task}: the solution no longer contains {old!r}"
                source = source.replace(old, new)
        exec(source, namespace)
    try:
        exec(exercise[f"{task}_check"], namespace)
    except CheckFailure as failure:
        return str(failure)
    return None


@pytest.mark.parametrize("task", ["task1", "task2", "task3", "task5", "task6", "task7"])
def test_the_solution_passes_every_public_check(task, capsys):
    assert run_public_check(task) is None
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"{task}: all ")


@pytest.mark.parametrize("task, wrong, broken, test", WRONG, ids=[f"{t}-{w}" for t, w, _, _ in WRONG])
def test_a_public_check_catches_the_common_wrong_answer(task, wrong, broken, test, capsys):
    failure = run_public_check(task, broken)
    out = capsys.readouterr().out
    assert failure is not None and "checks failed" in failure, (wrong, out)
    assert any(line.startswith(f"\N{BALLOT X} {test}: ") for line in out.splitlines()), (wrong, out)


def test_the_answer_key_of_the_prediction_is_what_the_program_prints():
    # Task 4's answers are literals in the solution: run its program to confirm them.
    import tensorgrad as tg

    solution = cells_by_grade_id(SOLUTION)
    namespace = {}
    for gid in ("setup", "task1", "task2", "task3", "task4"):
        exec(solution[gid], namespace)
    Value = namespace["Value"]
    x, w = Value(2.0), Value(1.0)
    a = x + w
    y = a * (w + 1)
    y.backward()
    y.backward()
    assert (namespace["x_grad"], namespace["w_grad"], namespace["a_grad"]) == (x.grad, w.grad, a.grad)
    x = tg.tensor(2., requires_grad=True)
    w = tg.tensor(1., requires_grad=True)
    y = (x + w) * (w + 1)
    y.backward(retain_graph=True)
    y.backward()
    assert namespace["x_grad_tg"] == x.grad.item()
