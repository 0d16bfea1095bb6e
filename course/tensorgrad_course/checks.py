"""Named tests in a test cell: the student's self-check and the grader's input, from one text.

An exercise's locked test cell declares its tests once::

    from tensorgrad_course import check

    t = check("chain_rule.task2")

    with t.test("dy/dw at (2, 1)", hint="add the contributions of both paths"):
        t.submit("dy_dw", dy_dw, expected=5.0)

    with t.test("dy/dx at (2, 1)"):
        t.submit("dy_dx", dy_dx, expected=2.0)

    ### BEGIN HIDDEN TESTS
    with t.test("dy/dw at (3, 2)"):
        t.submit("dy_dw_32", grad_w(3.0, 2.0))
    ### END HIDDEN TESTS

    t.done()

The same cell serves two readers.

**In the student's notebook** (the exercise has no hidden tests) each ``with
t.test(...)`` block runs at once and prints one line: ``✓ dy/dw at (2, 1)`` or
``✗ dy/dw at (2, 1): your dy_dw is 4.0, expected 5.0 (...)`` plus the hint.
``t.submit(name, value, expected=...)`` compares in the kernel with
:func:`.values.compare`, the grader's own comparison. A test that submits
values *without* ``expected=`` (a prediction: the expected value would give it
away) is said right or wrong by the fingerprints the build wrote into the cell
(:meth:`TaskCheck.fingerprints`, self-study feedback); without them (an edition
built with ``--graded``, a value that is not a plain literal) it is never shown
as passed: its line says ``• leaf: answered, checked when graded`` (or ``✗``
when the answer has the wrong form). ``t.done()`` prints one
summary line, which says "all checks pass" only when every test was really
checked, and raises (one ``✗`` line, no traceback) if a test failed. (Under
nbgrader, with the sources of ``tensorgrad-course nbgrader``, it returns the
points the passed tests earn instead: see :meth:`TaskCheck.expect_values`.)
An error inside a block fails that test only: the other tests still run.
(``build`` tags the answer and check cells of the student versions
``raises-exception``, so that Run All in JupyterLab goes on past an unanswered
task.) The words of these lines come from :mod:`.texts`: English, or Chinese
after ``use_language("zh")`` (the zh edition's setup cell).

**Under the grader** (``tensorgrad-course grade``), the grader's own cell before
each test cell arms this module with a nonce. Nothing is printed, and messages
are English whatever language was chosen; instead each
test block sends one *record* to the grader as display data of MIME type
:data:`.values.MIME`: the test's name, how its block ended, and every submitted
value encoded by :func:`.values.encode`. The grader compares those values, in
its own process, with the values that the *instructor's solution* submitted for
the same test, using the tolerances from the solution's run. So a student who
replaces ``numpy.allclose``, ``AssertionError`` or this module gains nothing: a
test passes only if the grader finds the value right.

Only values compared by the grader are tamper-proof. A test that only asserts
in the kernel (``assert f(2) == 4`` inside a block) is decided by the kernel,
as in nbgrader; use ``t.submit`` for everything that earns points.

This module runs in student kernels. Its own imports are light (NumPy, and
IPython only when grading); it reads values by duck typing and uses nothing of
the tensorgrad library, so it works for NumPy and PyTorch values too.

How to write exercise sets with it: ``docs/authoring-exercises.md``.
"""

from __future__ import annotations

import re
import sys
import time
from typing import Any

from . import values
from .selfcheck import CheckFailure
from .texts import _grading_nonce, say, unseal

__all__ = ["check", "TaskCheck", "CheckFailure"]

_MISSING = object()
_PASSED, _FAILED, _ERROR, _NOT_ATTEMPTED = "passed", "failed", "error", "not_attempted"


def _emit(record: dict) -> None:
    """Send a record to the grader as display data (only ever called while grading)."""
    from IPython.display import display

    # What the notebook shows says only whether the test was answered, never whether it is right.
    state = {_PASSED: "answered", _NOT_ATTEMPTED: "not answered"}.get(record["outcome"], "answered, with a problem")
    display({values.MIME: record, "text/plain": f"{record['test']}: {state} (recorded for the grader)"}, raw=True)
    try:  # let ipykernel's IO thread send it now: if the kernel dies next, it is already out
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a replaced stdout must not fail the test
        pass


def _explain(exc: BaseException) -> tuple[str, str]:
    """(outcome, message) for an exception raised inside a test block."""
    name = type(exc).__name__
    if isinstance(exc, NotImplementedError):
        return _NOT_ATTEMPTED, say("error.not_attempted")
    if isinstance(exc, NameError):
        missing = getattr(exc, "name", None) or str(exc)
        return _ERROR, say("error.not_defined", missing=missing, not_run_yet=say("error.not_run_yet"))
    if isinstance(exc, AssertionError):
        return _FAILED, str(exc) or say("error.assertion")
    text = str(exc)
    return _ERROR, say("error.raised_with_text", error=name, text=text) if text else say("error.raised", error=name)


class _Test:
    """One ``with t.test(...)`` block (see :meth:`TaskCheck.test`)."""

    def __init__(self, owner: "TaskCheck", name: str, hint: str | None, weight: float, line: int | None):
        self.owner = owner
        self.name = name
        self.hint = unseal(hint) if hint is not None else None  # sealed in the student's version
        self.weight = weight
        self.line = line
        self.values: list[dict] = []
        self.failed_value: str | None = None
        self.compared = False  # whether a value was compared with an expected= value here
        self.started = 0.0

    def __enter__(self) -> "_Test":
        if self.owner._current is not None:
            raise RuntimeError(
                f"test {self.name!r} starts inside test {self.owner._current.name!r}; "
                "test blocks cannot be nested"
            )
        self.owner._current = self
        self.started = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        duration = time.perf_counter() - self.started
        self.owner._current = None
        if exc is not None and not isinstance(exc, Exception) and not isinstance(exc, SystemExit):
            return False  # KeyboardInterrupt (a timeout): let the cell stop
        if exc is None:
            outcome, message = _PASSED, ""
        else:
            outcome, message = _explain(exc)
        self.owner._finish(self, outcome, message, duration)
        return True


class TaskCheck:
    """The tests of one task; made by :func:`check`."""

    def __init__(self, name: str):
        if not isinstance(name, str) or not name.strip():
            raise ValueError("check() needs the task's name, for example check('chain_rule.task2')")
        self.name = name
        self._current: _Test | None = None
        self._seen: set[str] = set()
        self.results: list[tuple[str, str, str]] = []  # (test, outcome, message)
        self.unchecked: set[str] = set()  # passed only in form: compared with the solution when graded
        self.undefined: set[str] = set()  # failed on a name the answer cell did not define (yet)
        self._known: dict[str, dict[str, dict]] = {}  # test -> value name -> the solution's value
        self._weights: dict[str, float] = {}  # test -> its weight
        self._points: float | None = None  # the cell's points, armed by expect_values (nbgrader)
        self._hidden: set[str] = set()  # the hidden tests, named by expect_values (nbgrader)
        self._broken: list[str] = []  # earlier tasks this one builds on that do not work (see needs)
        self._fingerprints: dict[str, dict[str, str]] = {}  # test -> value name -> fingerprint

    @property
    def label(self) -> str:
        """How the summary line names the task: the last part of its name, ``task2`` read as the
        words of :mod:`.texts` (``task2`` / ``任务 2``), any other name as it is."""
        last = self.name.rsplit(".", 1)[-1]
        number = re.fullmatch(r"task(\d+)", last)
        return say("task.label", n=int(number[1])) if number else last

    # ----------------------------------------------------------- declaring

    def expect_values(self, table: str, points: float | None = None, hidden: list[str] = ()) -> None:
        """The solution's values for the tests that give no ``expected=`` (JSON text).

        ``tensorgrad-course nbgrader`` writes this call into a hidden-test region
        of each check cell, so that under nbgrader, which runs the tests in the
        student's kernel, predictions and hidden tests compare values too (the
        region is removed from the student's version). ``tensorgrad-course
        grade`` ignores it: it compares in its own process.

        ``points`` is the cell's points. With it, :meth:`done` shares them among
        the tests as the grader does (by weight) and *returns* the points the
        passed tests earn instead of raising: nbgrader takes a number that a test
        cell evaluates to as the cell's score (partial credit), so a task whose
        tests partly pass gets the same points under nbgrader as under
        ``tensorgrad-course grade``.

        ``hidden`` names the hidden tests: their messages never show an expected
        value or the difference from it, even one given with ``expected=``
        (nbgrader's feedback shows the students these outputs).
        """
        import json

        self._known = json.loads(table)
        if points is not None:
            if isinstance(points, bool) or not isinstance(points, (int, float)) or not points >= 0:
                raise ValueError(f"{self.name}: expect_values(points=...) must be a number >= 0")
            self._points = float(points)
        self._hidden = {name for name in hidden if isinstance(name, str)}

    def fingerprints(self, table: dict) -> None:
        """Self-study feedback for predictions: {test: {value name: fingerprint}}.

        The build writes this call into the student's check cell (unless the edition is
        built for grading): each fingerprint is :func:`.values.fingerprint` of the solution's
        answer, salted with the task's name and the value's. A submitted value without ``expected=`` is then
        said right or wrong by comparing fingerprints, without the expected value being
        readable. Under the grader it is ignored: the grader compares the real values.
        """
        if isinstance(table, dict):
            self._fingerprints = {str(k): dict(v) for k, v in table.items() if isinstance(v, dict)}

    def needs(self, task: int, probe) -> bool:
        """Check first an earlier task that this one builds on, and say so.

        ``probe()`` exercises the learner's code of task number ``task``
        and returns None if it works, or what is wrong with it (a str); an exception
        it raises counts as what is wrong. The self-check prints one line either way;
        when ``task`` does not work, it says that the failures below may come from
        ``task`` and holds back the hints of this task's tests, which would point at
        the wrong code. Under the grader nothing runs and nothing is recorded: the
        task's points come from its own tests, as before. Returns whether ``task``
        works (True under the grader).
        """
        if _grading_nonce() is not None:
            return True
        task = say("needs.task", n=task)
        try:
            problem = probe()
        except Exception as exc:  # the earlier task's code raised: that is its problem
            problem = _explain(exc)[1] or type(exc).__name__
        if problem is None:
            print(say("needs.ok", task=task))
            return True
        self._broken.append(task)
        print(say("needs.broken", task=task, problem=problem))
        return False

    def test(self, name: str, *, hint: str | None = None, weight: float = 1.0) -> _Test:
        """A context manager for one test: ``with t.test("name"): ...``.

        ``hint`` is shown under a failure. ``weight`` sets the test's share of
        the task's points (default: all tests share them equally).
        """
        if not isinstance(name, str) or not name.strip():
            raise ValueError("t.test() needs a name for the test")
        if name in self._seen:
            raise ValueError(f"{self.name}: two tests are named {name!r}; give each test its own name")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight > 0:
            raise ValueError(f"{self.name}: the weight of test {name!r} must be a number > 0")
        self._seen.add(name)
        self._weights[name] = float(weight)
        frame = sys._getframe(1)
        return _Test(self, name, hint, float(weight), frame.f_lineno if frame else None)

    def submit(
        self,
        name: str,
        value: Any,
        *,
        expected: Any = _MISSING,
        atol: float = values.DEFAULT_ATOL,
        rtol: float = values.DEFAULT_RTOL,
        dtype: bool = False,
        requires_grad: bool = False,
        kind: str | None = None,
    ) -> Any:
        """Hand ``value`` to the grader under ``name``; check it here too when possible.

        * ``expected``: the right value. The self-check compares with it and
          shows it in its message. Leave it out when the value would give the
          answer away (a prediction in a public test): the self-check then only
          checks ``kind``, and the grader compares with the solution's value.
        * ``atol``, ``rtol``: tolerances for numbers and tensors.
        * ``dtype``, ``requires_grad``: also compare a tensor's dtype, or its
          ``requires_grad`` flag.
        * ``kind``: what the value must be even before it is compared: ``"bool"``,
          ``"int"``, ``"number"``, ``"str"``, ``"tensor"``, ``"list"`` (a list or a
          tuple), ``"tuple"``, ``"dict"`` or ``"none"``; several joined by ``|``,
          as in ``"str|none"``.

        Returns ``value``. Must be called inside a ``with t.test(...)`` block.
        """
        test = self._current
        if test is None:
            raise RuntimeError(f"{self.name}: t.submit({name!r}, ...) must be called inside a `with t.test(...)` block")
        if kind is not None:
            values.parse_kind(kind)  # raises on a typo, before anything is recorded
        record = values.encode(value)
        options = {"atol": float(atol), "rtol": float(rtol), "dtype": bool(dtype),
                   "requires_grad": bool(requires_grad), "kind": kind}
        test.values.append({"name": name, "value": record, "options": options,
                            "expected_given": expected is not _MISSING})
        test.compared = test.compared or expected is not _MISSING
        message = values.check_kind(record, kind, name=name) if kind is not None else None
        if message is None and expected is not _MISSING:
            message = values.compare(
                values.encode(expected), record, name=name, atol=atol, rtol=rtol,
                dtype=dtype, requires_grad=requires_grad, reveal=test.name not in self._hidden,
            )
        if message is None and expected is _MISSING and record["type"] == "none" and kind is None:
            message = say("submit.none", name=name)
        mark = self._fingerprints.get(test.name, {}).get(name) if expected is _MISSING else None
        if message is None and mark is not None and _grading_nonce() is None and not self._known:
            # Self-study: right or wrong by fingerprint (see fingerprints); the grader decides points.
            test.compared = True
            if values.fingerprint(self.name, name, value) != mark:
                message = say("prediction.wrong", name=name, value=repr(value)[:80])
        known = self._known.get(test.name, {}).get(name) if expected is _MISSING else None
        if message is None and known is not None and _grading_nonce() is None:
            # Under nbgrader: the solution's value, from the hidden tests (see expect_values).
            test.compared = True
            opts = known.get("options", {})
            message = values.compare(
                known["value"], record, name=name, reveal=False,
                **{k: opts[k] for k in ("atol", "rtol", "dtype", "requires_grad") if k in opts})
        if message is not None:
            test.failed_value = name
            raise CheckFailure(message)
        return value

    def measure(self, name: str, model: Any, points: Any, labels: Any, *,
                loss_below: float | None = None, accuracy_at_least: float | None = None,
                loss: str = "cross entropy") -> None:
        """Hand a trained network to the grader, which measures it itself (:mod:`.measures`).

        ``model`` is sent as plain data (its layers' kinds and parameters: a ``Sequential`` of
        ``Linear`` layers and activations, or a plain list of layers of tanh units, each unit
        its ``(weights, bias)`` floats), with ``points`` and ``labels`` (the targets). The
        grader computes the loss in its own process, with the layers, data and targets of the
        *solution's* run of this test and only the parameters from this kernel: with
        ``loss="cross entropy"`` the mean cross-entropy and the accuracy of a classifier, with
        ``loss="squared error"`` the mean squared error of the network's first output. The
        test passes when the loss is below ``loss_below`` and the accuracy at least
        ``accuracy_at_least`` (each optional). So no verdict about the training is made in
        the kernel, where the student's code could rebind the measuring helper. The
        self-check makes the same measurement here. Must be called inside a ``with
        t.test(...)`` block.
        """
        from . import measures

        test = self._current
        if test is None:
            raise RuntimeError(f"{self.name}: t.measure({name!r}, ...) must be called inside a `with t.test(...)` block")
        for target in (loss_below, accuracy_at_least):
            if target is not None and (isinstance(target, bool) or not isinstance(target, (int, float))):
                raise ValueError(f"{self.name}: t.measure() targets must be numbers")
        if loss not in measures.LOSSES:
            raise ValueError(f"{self.name}: t.measure(loss=...) must be one of {', '.join(map(repr, measures.LOSSES))}")
        kind = measures.LOSSES[loss]
        if kind != measures.CLASSIFIER and accuracy_at_least is not None:
            raise ValueError(f"{self.name}: t.measure(accuracy_at_least=...) measures a classifier (loss='cross entropy')")
        record = values.encode({"network": measures.network_of(model), "points": measures.data_of(points),
                                "labels": measures.data_of(labels)})
        options = {"measure": kind, "kind": None,
                   "loss_below": None if loss_below is None else float(loss_below),
                   "accuracy_at_least": None if accuracy_at_least is None else float(accuracy_at_least)}
        self._hand_over(test, name, record, options)

    def order(self, name: str, order: Any, root: Any, successors: Any, *, first: str,
              root_name: str = "the root", label: Any = None, describe: Any = None) -> None:
        """Hand an order of a graph's nodes to the grader, which judges it itself (:mod:`.measures`).

        The graph is the nodes reachable from ``root`` through ``successors(node)``; ``first``
        says which way its edges go: ``"root"`` (backward's order: each node comes before the
        nodes ``successors`` gives) or ``"inputs"`` (a topological order: each node comes after
        them). The kernel sends the graph and the order as plain labels (``label(node)``, a
        number, by default the node's place in a depth-first search from ``root``; ``describe``
        names a node in messages, by default its class); the grader checks the order against
        the graph of the *solution's* run of this test, with only the order taken from this
        kernel. ``root_name`` names the root in messages. The self-check judges the same way.
        """
        from . import measures

        test = self._current
        if test is None:
            raise RuntimeError(f"{self.name}: t.order({name!r}, ...) must be called inside a `with t.test(...)` block")
        if first not in ("root", "inputs"):
            raise ValueError(f"{self.name}: t.order(first=...) must be 'root' or 'inputs'")
        record = values.encode(measures.order_of(order, root, successors, label=label, describe=describe))
        self._hand_over(test, name, record, {"measure": measures.ORDER, "kind": None, "first": first,
                                             "root": str(root_name)})

    def gradcheck(self, name: str, fn: Any, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3) -> None:
        """gradcheck, judged by the grader (:mod:`.measures`): is ``fn``'s backward right at ``inputs``?

        The kernel sends plain arrays: ``fn``'s values at ``inputs`` and with each input element
        moved by +``eps`` and -``eps``, and what backward sends for each output element's unit
        vector (and for zeros). The grader takes the central differences and compares them with
        backward's Jacobian as ``tg.autograd.gradcheck`` does (``atol + rtol * |numerical|``),
        and requires the values to be those of the solution's function at the same points. A
        backward that raises fails the test here, as gradcheck would. The self-check judges the
        same way.
        """
        from . import measures

        test = self._current
        if test is None:
            raise RuntimeError(f"{self.name}: t.gradcheck({name!r}, ...) must be called inside a `with t.test(...)` block")
        record = values.encode(measures.jacobians_of(fn, inputs, float(eps)))
        self._hand_over(test, name, record, {"measure": measures.GRADCHECK, "kind": None, "eps": float(eps),
                                             "atol": float(atol), "rtol": float(rtol)})

    def _hand_over(self, test: _Test, name: str, record: dict, options: dict) -> None:
        """Record plain data the grader judges itself (:func:`.measures.judge`); judge it here too
        in a student's own kernel."""
        from . import measures

        entry = {"name": name, "value": record, "options": options, "expected_given": True}
        test.values.append(entry)
        test.compared = True
        if _grading_nonce() is not None:
            return  # the grader judges, in its own process
        message = measures.judge(entry, record, name=name, reveal=test.name not in self._hidden)
        if message is not None:
            test.failed_value = name
            raise CheckFailure(message)

    # ------------------------------------------------------------ results

    def _finish(self, test: _Test, outcome: str, message: str, duration: float) -> None:
        self.results.append((test.name, outcome, message))
        if outcome == _PASSED and test.values and not test.compared:
            self.unchecked.add(test.name)
        if message.endswith(say("error.not_run_yet")):
            self.undefined.add(test.name)
        nonce = _grading_nonce()
        if nonce is not None:
            _emit({
                "v": values.RECORD_VERSION, "nonce": nonce, "check": self.name, "test": test.name,
                "weight": test.weight, "line": test.line, "outcome": outcome, "message": message[:4000],
                "hint": test.hint,
                "failed_value": test.failed_value, "duration": round(duration, 6), "values": test.values,
            })
            return
        if outcome == _PASSED and test.values and not test.compared:
            print(say("test.answered", test=test.name))
            return
        if outcome == _PASSED:
            print(say("test.passed", test=test.name))
            return
        lines = [say("test.failed", test=test.name, message=message)]
        if test.hint and outcome != _NOT_ATTEMPTED and not self._broken:
            lines.append(say("test.hint", hint=test.hint))
        print("\n".join(lines))

    def done(self) -> float | None:
        """End of the test cell: a summary line; raises if a test failed (not while grading).

        Armed with the cell's points (``expect_values(..., points=N)``, only in the
        sources of ``tensorgrad-course nbgrader``), it returns the points earned
        instead, failing or not, for nbgrader's partial credit.
        """
        if self._current is not None:
            raise RuntimeError("t.done() inside a test block")
        if _grading_nonce() is not None:
            return None
        earned = self._earned() if self._points is not None else None
        try:
            self._summary()
        except CheckFailure as failure:
            if earned is None:
                raise
            print(f"\N{BALLOT X} {failure}")
        return earned

    def _earned(self) -> float:
        """The cell's points shared among its tests by weight, as the grader shares them."""
        total = sum(self._weights[name] for name, _, _ in self.results)
        passed = sum(self._weights[name] for name, outcome, _ in self.results if outcome == _PASSED)
        return values.share_of_points(self._points, passed, total)

    def _summary(self) -> None:
        total = len(self.results)
        passed = sum(outcome == _PASSED for _, outcome, _ in self.results)
        if not total:
            print(say("summary.none_ran", task=self.label))
            return
        if passed == total:
            later = len(self.unchecked)
            if not later:
                print(say("summary.all_pass", task=self.label, total=total))
            elif later == total:
                print(say("summary.all_answered", task=self.label, total=total))
            else:
                print(say("summary.some_answered", task=self.label, passed=total - later, answered=later))
            return
        unattempted = all(o in (_PASSED, _NOT_ATTEMPTED) or n in self.undefined for n, o, _ in self.results)
        if unattempted and passed == 0:
            raise CheckFailure(say("summary.not_attempted", task=self.label))
        raise CheckFailure(say("summary.failed", task=self.label, failed=total - passed, total=total))

    def __repr__(self) -> str:
        return f"TaskCheck({self.name!r})"


def check(name: str) -> TaskCheck:
    """Start the tests of the task ``name`` (``"<exercise set>.<task>"``, e.g. ``"chain_rule.task2"``)."""
    return TaskCheck(name)
