"""Grad mode: the one switch that decides whether operations record a graph.

`no_grad()`, `enable_grad()` and `set_grad_enabled(mode)` work as context managers and as
decorators (with or without parentheses for the first two), as PyTorch's do, except that a
generator function cannot be decorated: tensorgrad refuses it with a TypeError, where PyTorch
switches the mode around each step of the generator (docs/library.md, "Not supported").
The engine also uses this switch: a plain backward pass runs with grad mode off, while
`create_graph=True` runs it with grad mode on, so the gradient computation is itself recorded.
"""

import functools
import inspect

_grad_enabled = True


def is_grad_enabled():
    """True when new operations record a graph."""
    return _grad_enabled


def _set_enabled(mode):
    global _grad_enabled
    _grad_enabled = mode


class _GradModeContext:
    """Base of the three context managers: set a mode on entry, restore the old one on exit."""

    _mode = None  # subclasses say which mode they switch to

    def __new__(cls, func=None):
        # `@no_grad` without parentheses passes the function straight to the class.
        # (set_grad_enabled, a subclass defined below, takes a bool, never a function.)
        if func is not None and callable(func) and cls is not set_grad_enabled:
            return cls()(func)
        return super().__new__(cls)

    def __enter__(self):
        self._previous = is_grad_enabled()
        _set_enabled(self._mode)
        return None

    def __exit__(self, exc_type, exc_value, traceback):
        _set_enabled(self._previous)
        return False

    def __call__(self, func):
        """Use as a decorator: the whole call runs in this mode."""
        if inspect.isgeneratorfunction(func):
            raise TypeError("tensorgrad's grad-mode decorators do not support generator functions")
        mode = self._mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            previous = is_grad_enabled()
            _set_enabled(mode)
            try:
                return func(*args, **kwargs)
            finally:
                _set_enabled(previous)

        return wrapper


class no_grad(_GradModeContext):
    """Operations inside do not record a graph: results have requires_grad=False."""

    _mode = False

    def __init__(self, func=None):
        pass

    def __repr__(self):
        return f"<tensorgrad.autograd.grad_mode.no_grad object at {id(self):#x}>"


class enable_grad(_GradModeContext):
    """Switch graph recording back on, for example inside a `no_grad` block."""

    _mode = True

    def __init__(self, func=None):
        pass

    def __repr__(self):
        return f"<tensorgrad.autograd.grad_mode.enable_grad object at {id(self):#x}>"


class set_grad_enabled(_GradModeContext):
    """`set_grad_enabled(False)` switches recording off at once (as a plain call, globally);
    used with `with` or as a decorator, the previous mode comes back afterwards."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(
                "set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                f"not {type(mode).__name__}"
            )
        self._previous = is_grad_enabled()
        self._mode = mode
        _set_enabled(mode)

    def __enter__(self):
        return None

    def __call__(self, func):
        _set_enabled(self._previous)  # decorating must not change the mode by itself
        return super().__call__(func)

    def __repr__(self):
        return f"<tensorgrad.autograd.grad_mode.set_grad_enabled object at {id(self):#x}>"
