"""check(): the student's self-check lines, and the records the grader receives (in-process).

The self-check messages are tested for a right answer, a wrong value, a wrong shape
and an unattempted task, as the issue asks, plus the other ways a test can end.
"""

import sys
import types

import numpy as np
import pytest

from tensorgrad_course import CheckFailure, check as exported_check  # noqa: F401 (exported names)
from tensorgrad_course import checks, texts
from tensorgrad_course.checks import check

tg = pytest.importorskip("tensorgrad")


def run_task(body):
    """Run ``body(t)`` as a test cell would; return (printed lines, what done() raised or None)."""
    t = check("vector_backward.task2")
    body(t)
    try:
        t.done()
    except CheckFailure as exc:
        return t, exc
    return t, None


def lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_right_answer_prints_a_check_mark_per_test(capsys):
    def body(t):
        with t.test("dy/dw at (2, 1)"):
            t.submit("dy_dw", 5.0, expected=5.0)
        with t.test("w.grad"):
            t.submit("w.grad", tg.tensor([5.0]), expected=tg.tensor([5.0]))

    _, raised = run_task(body)
    assert raised is None
    assert lines(capsys) == [
        "\N{CHECK MARK} dy/dw at (2, 1)",
        "\N{CHECK MARK} w.grad",
        "task2: all 2 checks pass. More tests run when your work is graded.",
    ]


def test_wrong_value_shows_expected_against_got_and_the_hint(capsys):
    def body(t):
        with t.test("w.grad after backward()", hint="add the contributions of both paths"):
            t.submit("w.grad", tg.tensor([4.0]), expected=tg.tensor([5.0]))

    _, raised = run_task(body)
    assert lines(capsys) == [
        "\N{BALLOT X} w.grad after backward(): your w.grad is tensor([4.]), expected shape (1,) but a different "
        "value: expected tensor([5.]) (largest difference 1 at index (0,))",
        "  hint: add the contributions of both paths",
    ]
    assert str(raised) == "task2: 1 of 1 checks failed (see above)"
    assert raised._render_traceback_() == ["\N{BALLOT X} task2: 1 of 1 checks failed (see above)"]


def test_wrong_shape(capsys):
    t = check("set.task")
    with t.test("g"):
        t.submit("g", tg.tensor([[1.0, 2.0]]), expected=tg.tensor([1.0, 2.0]))
    assert lines(capsys) == [
        "\N{BALLOT X} g: your g is tensor([[1., 2.]]), expected shape (2,) but it has shape (1, 2)"
    ]


def test_wrong_dtype_when_asked(capsys):
    t = check("set.task")
    with t.test("dtype"):
        t.submit("y", tg.tensor([1.0]), expected=tg.tensor([1.0], dtype=tg.float64), dtype=True)
    assert lines(capsys) == [
        "\N{BALLOT X} dtype: your y is tensor([1.]), expected dtype tensorgrad.float64 but it has dtype tensorgrad.float32"
    ]


def test_unattempted_task(capsys):
    def stub():
        raise NotImplementedError()

    def body(t):
        with t.test("first", hint="never shown for an unattempted test"):
            t.submit("f()", stub(), expected=1.0)
        with t.test("second"):
            t.submit("dy_dw", undefined_name, expected=1.0)  # noqa: F821 - the stub never defined it

    _, raised = run_task(body)
    assert lines(capsys) == [
        "\N{BALLOT X} first: not attempted yet: your code still raises NotImplementedError",
        "\N{BALLOT X} second: 'undefined_name' is not defined: run your answer cell above first "
        "(if it raised an error, fix that first)",
    ]
    # A stub that raised, and a name its answer cell never defined: the task is not attempted yet.
    assert str(raised) == "task2: not attempted yet"

    t = check("set.task")
    with t.test("only"):
        stub()
    with pytest.raises(CheckFailure, match="^task: not attempted yet$"):
        t.done()


def test_an_error_fails_only_its_own_test(capsys):
    def body(t):
        with t.test("divides"):
            1 / 0
        with t.test("asserts"):
            raise AssertionError("one is not two")  # (pytest rewrites plain asserts here)
        with t.test("fine"):
            t.submit("x", 1, expected=1)

    t, raised = run_task(body)
    assert lines(capsys) == [
        "\N{BALLOT X} divides: your code raised ZeroDivisionError: division by zero",
        "\N{BALLOT X} asserts: one is not two",
        "\N{CHECK MARK} fine",
    ]
    assert [o for _, o, _ in t.results] == ["error", "failed", "passed"]
    assert str(raised) == "task2: 2 of 3 checks failed (see above)"


def test_predictions_without_expected_check_their_kind_only(capsys):
    t = check("set.task")
    with t.test("leaf"):
        t.submit("leaf", True, kind="bool")
    with t.test("node"):
        t.submit("node", None, kind="str|none")
    with t.test("typo"):
        t.submit("leaf", "True", kind="bool")
    with t.test("forgot"):
        t.submit("n", None)
    assert lines(capsys) == [  # never a check mark for an answer nobody checked
        "\N{BULLET} leaf: answered, checked when graded",
        "\N{BULLET} node: answered, checked when graded",
        "\N{BALLOT X} typo: your leaf is 'True' (a str), expected a bool",
        "\N{BALLOT X} forgot: your n is None (did you forget to set it, or to return it?)",
    ]


@pytest.mark.parametrize("answers, summary", [
    ([True, True], "task: all 2 answered, in the right form; checked when graded."),
    ([True, None], "task: 1 checks pass, 1 answered (checked when graded). More tests run when your work is graded."),
])
def test_a_summary_never_says_all_checks_pass_when_some_were_not_checked(answers, summary, capsys):
    t = check("set.task")
    with t.test("prediction"):
        t.submit("leaf", answers[0], kind="bool")
    with t.test("code" if answers[1] is None else "another prediction"):
        if answers[1] is None:
            t.submit("x", 1, expected=1)
        else:
            t.submit("leaf2", answers[1], kind="bool")
    t.done()
    printed = lines(capsys)
    assert printed[-1] == summary and "all 2 checks pass" not in printed[-1]
    assert not any(line.startswith("\N{CHECK MARK} prediction") for line in printed)


def test_authoring_mistakes_are_loud():
    t = check("set.task")
    with t.test("a"):
        pass
    with pytest.raises(ValueError, match="two tests are named 'a'"):
        t.test("a")
    with pytest.raises(RuntimeError, match="inside a `with t.test"):
        t.submit("x", 1)
    with pytest.raises(ValueError, match="kind must be one of"):
        with t.test("b"):
            pass
        t._current = t.test("c").__enter__()
        t.submit("x", 1, kind="boolean")
    with pytest.raises(ValueError, match="needs the task's name"):
        check("")
    with pytest.raises(ValueError, match="weight"):
        t.test("w", weight=0)


def test_nested_test_blocks_are_refused(capsys):
    t = check("set.task")
    with t.test("outer"):
        with t.test("inner"):
            pass
    assert "test blocks cannot be nested" in capsys.readouterr().out


def test_keyboard_interrupt_is_not_swallowed():
    t = check("set.task")
    with pytest.raises(KeyboardInterrupt):
        with t.test("slow"):
            raise KeyboardInterrupt
    assert t.results == []


@pytest.fixture
def grading(monkeypatch):
    """Pretend to be a grading kernel: the guard module with a nonce, and _emit captured."""
    sent = []
    guard = types.ModuleType(texts.GUARD_MODULE)
    guard.nonce = "n0nce"
    monkeypatch.setitem(sys.modules, texts.GUARD_MODULE, guard)
    monkeypatch.setattr(checks, "_emit", sent.append)
    return sent


def test_while_grading_each_test_sends_one_record_and_prints_nothing(grading, capsys):
    t = check("chain_rule.task3")
    with t.test("right", weight=2):
        t.submit("dy_dx", 0.25, expected=0.25, atol=1e-3)
    with t.test("wrong"):
        t.submit("dy_dw", 1.0, expected=2.0)
    with t.test("unattempted"):
        raise NotImplementedError
    t.done()  # never raises while grading
    assert capsys.readouterr().out == ""
    right, wrong, unattempted = grading
    assert right["nonce"] == "n0nce" and right["check"] == "chain_rule.task3" and right["test"] == "right"
    assert (right["outcome"], right["weight"], right["failed_value"]) == ("passed", 2.0, None)
    (value,) = right["values"]
    assert value["name"] == "dy_dx" and value["value"]["data"] == 0.25
    assert value["options"] == {"atol": 1e-3, "rtol": 1e-5, "dtype": False, "requires_grad": False, "kind": None}
    assert isinstance(right["line"], int) and right["duration"] >= 0
    assert (wrong["outcome"], wrong["failed_value"]) == ("failed", "dy_dw")
    assert wrong["values"][0]["value"]["data"] == 1.0  # the wrong value still reaches the grader
    assert unattempted["outcome"] == "not_attempted" and unattempted["values"] == []


def test_the_real_emit_uses_the_grader_mime_type(monkeypatch):
    shown = []
    display_module = types.ModuleType("IPython.display")
    display_module.display = lambda obj, raw=False: shown.append((obj, raw))
    monkeypatch.setitem(sys.modules, "IPython.display", display_module)
    checks._emit({"outcome": "passed", "test": "t"})
    ((bundle, raw),) = shown
    assert raw is True and bundle[checks.values.MIME] == {"outcome": "passed", "test": "t"}
    # The visible text says it was answered, never whether it is right.
    assert bundle["text/plain"] == "t: answered (recorded for the grader)"
    checks._emit({"outcome": "failed", "test": "t"})
    assert shown[-1][0]["text/plain"] == "t: answered, with a problem (recorded for the grader)"


def test_expect_values_compares_predictions_in_the_kernel_but_never_while_grading(capsys, monkeypatch):
    import json

    table = json.dumps({"leaf": {"leaf": {"value": checks.values.encode(True), "options": {}}}})
    t = check("set.task")
    t.expect_values(table)
    with t.test("leaf"):
        t.submit("leaf", False, kind="bool")
    assert lines(capsys) == ["\N{BALLOT X} leaf: your leaf is not the expected value"]  # nbgrader: compared
    sent = []
    guard = types.ModuleType(texts.GUARD_MODULE)
    guard.nonce = "n0nce"
    monkeypatch.setitem(sys.modules, texts.GUARD_MODULE, guard)
    monkeypatch.setattr(checks, "_emit", sent.append)
    t = check("set.task")
    t.expect_values(table)
    with t.test("leaf"):
        t.submit("leaf", False, kind="bool")
    assert sent[0]["outcome"] == "passed"  # the grader compares in its own process, not here
