"""Probes of earlier tasks, for :meth:`.checks.TaskCheck.needs`.

A task that builds on an earlier one (set 12: every task after the first uses the learner's
``Value`` of task 1, most use ``backward()`` of task 3 and the operations of task 5) first asks
whether that task works, so that a bug there is named there, instead of failing the later,
correct code with hints about it. Each probe runs the earlier task's public examples on the
learner's class and returns None, or what is wrong (the words of :mod:`.texts`). The probes
never decide points: the grader does not run them.
"""

from __future__ import annotations

import math

from .texts import say

__all__ = ["value_problem", "backward_problem", "operations_problem"]


def _close(a, b) -> bool:
    return isinstance(a, (int, float)) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def value_problem(Value):
    """Task 1 of set 12: Value's data, + and *, and their _backward."""
    a, b = Value(2.0), Value(-3.0)
    c = a * b
    if not _close(c.data, -6.0):
        return say("probe.value", expr="(Value(2) * Value(-3)).data", got=repr(c.data), want="-6.0")
    c.grad = 1.0
    c._backward()
    if not (_close(a.grad, -3.0) and _close(b.grad, 2.0)):
        return say("probe.value", expr="a.grad, b.grad after c = a * b, c.grad = 1, c._backward()",
                   got=f"{a.grad!r}, {b.grad!r}", want="-3.0, 2.0")
    a, b = Value(2.0), Value(-3.0)
    c = a + b
    c.grad = 10.0
    c._backward()
    if not (_close(c.data, -1.0) and _close(a.grad, 10.0) and _close(b.grad, 10.0)):
        return say("probe.value", expr="c.data, a.grad, b.grad after c = a + b, c.grad = 10, c._backward()",
                   got=f"{c.data!r}, {a.grad!r}, {b.grad!r}", want="-1.0, 10.0, 10.0")
    return None


def backward_problem(Value):
    """Task 3 of set 12: backward() on (x + w) * (w + 1) at x = 2, w = 1."""
    x, w = Value(2.0), Value(1.0)
    y = (x + w) * (w + 1)
    y.backward()
    if not (_close(x.grad, 2.0) and _close(w.grad, 5.0)):
        return say("probe.value", expr="x.grad, w.grad after ((x + w) * (w + 1)).backward() at x = 2, w = 1",
                   got=f"{x.grad!r}, {w.grad!r}", want="2.0, 5.0")
    return None


def operations_problem(Value):
    """Task 5 of set 12: the derivatives of **, tanh, relu, - and /, at task 5's public points."""
    cases = [
        ("x ** 3 at 2", lambda x: x ** 3, 2.0, 12.0),
        ("x.tanh() at 0.5", lambda x: x.tanh(), 0.5, 1 - math.tanh(0.5) ** 2),
        ("x.relu() at 2", lambda x: x.relu(), 2.0, 1.0),
        ("x.relu() at -1", lambda x: x.relu(), -1.0, 0.0),
        ("-x at 3", lambda x: -x, 3.0, -1.0),
        ("x / 2 at 3", lambda x: x / 2, 3.0, 0.5),
        ("x - 2 at 3", lambda x: x - 2, 3.0, 1.0),
    ]
    for name, f, at, want in cases:
        x = Value(at)
        f(x).backward()
        if not _close(x.grad, want):
            return say("probe.value", expr=f"the derivative of {name}", got=repr(x.grad), want=f"{want:g}")
    return None
