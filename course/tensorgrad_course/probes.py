"""Probes of earlier tasks, for :meth:`.checks.TaskCheck.needs`.

A task that builds on an earlier one (set 12: tasks 3, 5, 6 and 7 use ``backward()``, which walks
task 2's ``topological_order``, and tasks 6 and 7 the operations of task 1) first asks
whether that task works, so that a bug there is named there, instead of failing the later,
correct code with hints about it. Each probe runs the earlier task's public examples on the
learner's class and returns None, or what is wrong (the words of :mod:`.texts`). The probes
never decide points: the grader does not run them.
"""

from __future__ import annotations

import math

from .texts import language, say

__all__ = ["value_problem", "backward_problem", "operations_problem"]


def _close(a, b) -> bool:
    return isinstance(a, (int, float)) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _words(en: str, zh: str) -> str:
    """What a probe names, in the language the self-check speaks."""
    return zh if language() == "zh" else en


def value_problem(Value):
    """Set 12's setup class as the tasks use it: Value's data, + and *, and their _backward."""
    a, b = Value(2.0), Value(-3.0)
    c = a * b
    if not _close(c.data, -6.0):
        return say("probe.value", expr="(Value(2) * Value(-3)).data", got=repr(c.data), want="-6.0")
    c.grad = 1.0
    c._backward()
    if not (_close(a.grad, -3.0) and _close(b.grad, 2.0)):
        return say("probe.value", expr=_words("a.grad, b.grad after c = a * b, c.grad = 1, c._backward()",
                                              "c = a * b、c.grad = 1、c._backward() 之后的 a.grad、b.grad"),
                   got=f"{a.grad!r}, {b.grad!r}", want="-3.0, 2.0")
    a, b = Value(2.0), Value(-3.0)
    c = a + b
    c.grad = 10.0
    c._backward()
    if not (_close(c.data, -1.0) and _close(a.grad, 10.0) and _close(b.grad, 10.0)):
        return say("probe.value", expr=_words("c.data, a.grad, b.grad after c = a + b, c.grad = 10, c._backward()",
                                              "c = a + b、c.grad = 10、c._backward() 之后的 c.data、a.grad、b.grad"),
                   got=f"{c.data!r}, {a.grad!r}, {b.grad!r}", want="-1.0, 10.0, 10.0")
    return None


def backward_problem(Value):
    """Task 2 of set 12: backward() on (x + w) * (w + 1) at x = 2, w = 1 (backward() walks the
    learner's topological_order)."""
    x, w = Value(2.0), Value(1.0)
    y = (x + w) * (w + 1)
    y.backward()
    if not (_close(x.grad, 2.0) and _close(w.grad, 5.0)):
        return say("probe.value", expr=_words("x.grad, w.grad after ((x + w) * (w + 1)).backward() at x = 2, w = 1",
                                              "x = 2、w = 1 时，((x + w) * (w + 1)).backward() 之后的 x.grad、w.grad"),
                   got=f"{x.grad!r}, {w.grad!r}", want="2.0, 5.0")
    return None


def operations_problem(Value):
    """Task 1 of set 12: the derivatives of relu, log, sigmoid and /, at task 1's public points.

    Each operation is run as one node, ``out.grad = 1; out._backward()``, as task 1's own check
    does: not through ``backward()``, which walks task 2's ``topological_order``, so that a broken
    task 2 is not blamed on task 1."""
    cases = [
        ("Value(2).relu()", lambda: (Value(2.0),), lambda a: a.relu(), [1.0]),
        ("Value(-1).relu()", lambda: (Value(-1.0),), lambda a: a.relu(), [0.0]),
        ("Value(2).log()", lambda: (Value(2.0),), lambda a: a.log(), [0.5]),
        ("Value(0).sigmoid()", lambda: (Value(0.0),), lambda a: a.sigmoid(), [0.25]),
        ("Value(3) / Value(2)", lambda: (Value(3.0), Value(2.0)), lambda a, b: a / b, [0.5, -0.75]),
        ("Value(2) / 4", lambda: (Value(2.0),), lambda a: a / 4, [0.25]),
        ("1 / Value(4)", lambda: (Value(4.0),), lambda a: 1 / a, [-0.0625]),
    ]
    for code, make, f, want in cases:
        inputs = make()
        out = f(*inputs)
        out.grad = 1.0
        out._backward()
        got = [value.grad for value in inputs]
        if not all(_close(g, w) for g, w in zip(got, want)):
            return say("probe.value", expr=_words(f"the inputs' grad after out = {code}, out.grad = 1, out._backward()",
                                                  f"out = {code}、out.grad = 1、out._backward() 之后输入的 grad"),
                       got=", ".join(repr(g) for g in got), want=", ".join(f"{w:g}" for w in want))
    return None
