"""Specific, friendly feedback for students, used inside exercise notebooks.

A bare ``assert np.allclose(w.grad, expected)`` tells a student only that
*something* is wrong. These helpers say what: ::

    check_tensor("gradient for w", w.grad, expected, task="task 3")
    # CheckFailure: task 3: your gradient for w is tensor([4.]), expected shape (1,)
    #               but a different value: expected tensor([2.]) (largest difference 2 at index (0,))

Design choices:

* **Duck typing, no tensorgrad import.** Anything with ``.shape`` and
  ``.tolist()`` (or ``.numpy()``, or that NumPy can read) is a tensor here, so
  these helpers work with tensorgrad, NumPy and PyTorch alike, and importing this
  module never imports the library under construction. Values are shown with
  ``repr()`` so students see exactly what they would see in their own cell.
* **Failures are** :class:`CheckFailure`, an ``AssertionError`` subclass, so
  graders and pytest treat them as failed tests. In Jupyter it renders as one
  ``✗`` line (via IPython's ``_render_traceback_`` hook) instead of a traceback
  through this module's internals.
* Each check prints one ``✓`` line when it passes (``quiet=True`` to silence it).
* The words come from :mod:`.texts`: English, or Chinese after ``use_language("zh")``;
  the values in them are reprs, never translated.
"""

from __future__ import annotations

import numbers
import re
from typing import Any, Callable

import numpy as np

from .texts import forgot_return, say

__all__ = ["CheckFailure", "check_tensor", "check_close", "check_equal", "check_raises"]

_MAX_REPR = 300


class CheckFailure(AssertionError):
    """A failed self-check. The message is the whole story; no traceback is needed."""

    def _render_traceback_(self) -> list[str]:
        # IPython calls this instead of formatting a traceback.
        return [f"\N{BALLOT X} {line}" if i == 0 else f"  {line}" for i, line in enumerate(str(self).splitlines())]


# ---------------------------------------------------------------- formatting


def _show(obj: Any) -> str:
    text = repr(obj)
    return text if len(text) <= _MAX_REPR else text[: _MAX_REPR - 3] + "..."


def _with_task(task: str | None, text: str) -> str:
    return say("helper.task", task=task, text=text) if task else text


def _yours(name: str, actual: Any) -> str:
    return say("yours", name=name, value=_show(actual))


def _fail(task: str | None, message: str, hint: str | None = None) -> CheckFailure:
    text = _with_task(task, message)
    if hint:
        text += "\n" + say("helper.hint", hint=hint)
    return CheckFailure(text)


def _passed(task: str | None, what: str, quiet: bool) -> None:
    if not quiet:
        print(say("helper.passed", text=_with_task(task, what)))


# ------------------------------------------------------------ duck typing


def _as_array(obj: Any) -> np.ndarray:
    """The values of a tensor-like object as a NumPy array (never a view into it)."""
    if isinstance(obj, np.ndarray):
        return np.array(obj)
    for method in ("tolist", "numpy"):
        fn = getattr(obj, method, None)
        if callable(fn):
            try:
                return np.array(fn())
            except Exception:  # e.g. torch's numpy() on a tensor that requires grad
                continue
    return np.array(obj)


def _shape(obj: Any) -> tuple:
    shape = getattr(obj, "shape", None)
    if shape is not None:
        try:
            return tuple(int(n) for n in shape)
        except TypeError:
            pass
    return tuple(np.shape(_as_array(obj)))


def _is_tensor_like(obj: Any) -> bool:
    return hasattr(obj, "shape") and (hasattr(obj, "tolist") or hasattr(obj, "numpy"))


def _numeric(arr: np.ndarray) -> bool:
    return arr.dtype.kind in "biufc"


def _largest_difference(actual: np.ndarray, expected: np.ndarray) -> str:
    diff = np.abs(actual.astype(np.complex128 if actual.dtype.kind == "c" else np.float64) - expected)
    diff = np.where(np.isnan(diff), np.inf, diff)
    if not diff.shape:
        return say("details.largest", diff=float(diff))
    index = np.unravel_index(int(np.argmax(diff)), diff.shape)
    return say("details.largest_at", diff=float(diff[index]), index=tuple(int(i) for i in index))


# ------------------------------------------------------------------ checks


def check_tensor(
    name: str,
    actual: Any,
    expected: Any,
    *,
    task: str | None = None,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    check_dtype: bool = False,
    requires_grad: bool | None = None,
    show_expected: bool = True,
    hint: str | None = None,
    quiet: bool = False,
) -> None:
    """Check a tensor-like value: not None, then shape, dtype, requires_grad, values.

    ``name`` completes the phrase "your ..." (e.g. ``"gradient for w"``). The
    first difference found is reported, most basic first, because a wrong shape
    makes a value comparison meaningless. ``show_expected=False`` keeps the
    expected values out of the message (the shape is still shown).
    """
    __tracebackhide__ = True
    if actual is None:
        want = say("kind.of_shape", kind=say("kind.tensor"), shape=_shape(expected))
        raise _fail(task, say("expected", yours=_yours(name, None), want=want) + forgot_return(name), hint)
    try:
        got = _as_array(actual)
    except Exception:
        raise _fail(task, say("helper.not_a_tensor", yours=_yours(name, actual)), hint) from None
    want = _as_array(expected)
    got_shape, want_shape = _shape(actual), _shape(expected)
    if got_shape != want_shape:
        raise _fail(task, say("shape_differs", yours=_yours(name, actual), expected=want_shape, actual=got_shape), hint)
    if check_dtype:
        got_dtype, want_dtype = getattr(actual, "dtype", got.dtype), getattr(expected, "dtype", want.dtype)
        if str(got_dtype) != str(want_dtype):
            raise _fail(
                task, say("dtype_differs", yours=_yours(name, actual), expected=want_dtype, actual=got_dtype), hint)
    if requires_grad is not None:
        got_rg = getattr(actual, "requires_grad", None)
        if got_rg is not requires_grad and got_rg != requires_grad:
            raise _fail(
                task, say("requires_grad_differs", name=name, actual=got_rg, expected=requires_grad), hint)
    if not (_numeric(got) and _numeric(want)):
        raise _fail(task, say("helper.not_numbers", yours=_yours(name, actual)), hint)
    if not np.allclose(got, want, atol=atol, rtol=rtol, equal_nan=True):
        details = [say("expected.value", value=_show(expected))] if show_expected else []
        details.append(_largest_difference(got, want))
        if np.isnan(got.astype(np.complex128)).any() and not np.isnan(want.astype(np.complex128)).any():
            details.append(say("details.nan"))
        if len(details) > 1:
            details[1:] = [say("in_parentheses", text=say("details.separator").join(details[1:]))]
        message = say("value_differs", yours=_yours(name, actual), shape=want_shape, details="".join(details))
        raise _fail(task, message, hint)
    _passed(task, say("helper.right", name=name), quiet)


def check_close(
    name: str,
    actual: Any,
    expected: Any,
    *,
    task: str | None = None,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    show_expected: bool = True,
    hint: str | None = None,
    quiet: bool = False,
) -> None:
    """Check a number (or array) up to a tolerance, e.g. a loss or a derivative."""
    __tracebackhide__ = True
    if _is_tensor_like(actual) or _is_tensor_like(expected) or np.ndim(_as_array(expected)) > 0:
        check_tensor(
            name, actual, expected, task=task, atol=atol, rtol=rtol,
            show_expected=show_expected, hint=hint, quiet=quiet,
        )
        return
    if isinstance(actual, bool) or not isinstance(actual, numbers.Number):
        raise _fail(task, say("expected", yours=_yours(name, actual), want=say("kind.number")), hint)
    if not np.isclose(actual, expected, atol=atol, rtol=rtol, equal_nan=True):
        yours = _yours(name, actual)
        shown = say("expected", yours=yours, want=_show(expected)) if show_expected else yours
        tolerance = say("details.tolerance", atol=atol, rtol=rtol)
        raise _fail(task, shown + say("in_parentheses", text=tolerance), hint)
    _passed(task, say("helper.right", name=name), quiet)


def check_equal(
    name: str,
    actual: Any,
    expected: Any,
    *,
    task: str | None = None,
    show_expected: bool = True,
    hint: str | None = None,
    quiet: bool = False,
) -> None:
    """Check exact equality, e.g. a predicted ``is_leaf``, a shape, or a string answer."""
    __tracebackhide__ = True
    try:
        equal = actual == expected
        if not isinstance(equal, (bool, np.bool_)):
            equal = np.array_equal(_as_array(actual), _as_array(expected))
    except Exception:
        equal = False
    if not equal:
        yours = _yours(name, actual)
        if show_expected:
            message = say("expected", yours=yours, want=_show(expected))
        else:
            message = say("not_right", yours=yours)
        if show_expected and type(actual) is not type(expected) and actual is not None:
            message += say("helper.types_differ", actual=type(actual).__name__, expected=type(expected).__name__)
        raise _fail(task, message, hint)
    _passed(task, say("helper.right", name=name), quiet)


def check_raises(
    exc_type: type[BaseException] | tuple[type[BaseException], ...],
    fn: Callable[..., Any],
    *args: Any,
    task: str | None = None,
    name: str | None = None,
    match: str | None = None,
    hint: str | None = None,
    quiet: bool = False,
    **kwargs: Any,
) -> BaseException:
    """Check that ``fn(*args, **kwargs)`` raises ``exc_type`` (message matching ``match``).

    ``name`` describes the call ("calling backward twice"); returns the exception.
    """
    __tracebackhide__ = True
    what = name or say("helper.calling", function=getattr(fn, "__name__", _show(fn)))
    wanted = (
        say("or").join(t.__name__ for t in exc_type) if isinstance(exc_type, tuple) else exc_type.__name__
    )
    try:
        result = fn(*args, **kwargs)
    except exc_type as exc:
        if match is not None and not re.search(match, str(exc)):
            message = say("helper.raised_other_message", call=what, error=type(exc).__name__, text=str(exc),
                          match=match)
            raise _fail(task, message, hint) from None
        _passed(task, say("helper.raises", call=what, error=type(exc).__name__), quiet)
        return exc
    except Exception as exc:
        message = say("helper.raised_other", call=what, error=type(exc).__name__, text=str(exc), wanted=wanted)
        raise _fail(task, message, hint) from None
    raise _fail(task, say("helper.returned", call=what, value=_show(result), wanted=wanted), hint)
