"""Anomaly detection: find the forward line behind a failing backward.

With `detect_anomaly()` on, every node remembers the Python stack of the forward call that
created it. If its backward then fails, or (with check_nan) returns nan, the error comes with
that forward traceback, which is usually what you need to find the bug. It slows every op down,
so it is for debugging only, as in PyTorch.
"""

import traceback
import warnings

from ..core import instruments

ANOMALY_WARNING = (
    "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
    "enabled for debugging."
)

_enabled = False
_check_nan = True


def is_anomaly_enabled():
    return _enabled


def is_anomaly_check_nan_enabled():
    return _check_nan


_plugged = ()  # what this module has plugged into core/instruments.py while it is on


def _set(mode, check_nan):
    """Switch anomaly mode on or off: while on, its three functions below are plugged in."""
    global _enabled, _check_nan, _plugged
    _enabled, _check_nan = bool(mode), bool(check_nan)
    instruments.unplug(_plugged)
    _plugged = ()
    if _enabled:
        _plugged = instruments.plug_in(on_node=_remember_forward_stack,
                                       around_node=_reporting_failures,
                                       after_node=_checking_for_nan)


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn(ANOMALY_WARNING, UserWarning, stacklevel=2)

    def __enter__(self):
        self._previous = (_enabled, _check_nan)
        _set(True, self.check_nan)

    def __exit__(self, *exc_info):
        _set(*self._previous)
        return False

    def __call__(self, func):
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """`set_detect_anomaly(True)` turns anomaly detection on (globally, or for a `with` block)."""

    def __init__(self, mode, check_nan=True):
        self._previous = (_enabled, _check_nan)
        _set(mode, check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc_info):
        _set(*self._previous)
        return False


def _remember_forward_stack(node):
    """Store the creating stack in `node.metadata`, under PyTorch's key."""
    node.metadata["traceback_"] = traceback.format_stack()[:-3]


def _reporting_failures(node, run):
    """Run a node's backward; if it fails, first warn with the forward stack that made it."""
    try:
        return run()
    except Exception:
        _report_backward_error(node)
        raise


def _checking_for_nan(node, grads_in, grads_out):
    if _check_nan:
        _check_for_nan(node, grads_out)


def _report_backward_error(node):
    """Warn with the forward traceback of the node whose backward failed."""
    stack = node.metadata.get("traceback_")
    if stack:
        warnings.warn(
            f"Error detected in {type(node).__name__}. Traceback of forward call that caused the "
            "error:\n" + "".join(stack),
            UserWarning,
            stacklevel=2,
        )


def _check_for_nan(node, input_grads):
    for index, grad in enumerate(input_grads):
        if grad is not None and grad._data.dtype.kind == "f" and (grad._data != grad._data).any():
            raise RuntimeError(
                f"Function '{type(node).__name__}' returned nan values in its {index}th output."
            )
