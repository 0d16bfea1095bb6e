"""NumPy's floating-point warnings, silenced while tensorgrad computes.

PyTorch computes exp(1000) = inf, log(0) = -inf, 1 / 0 = inf and 0 * inf = nan without a word.
NumPy warns each time ("RuntimeWarning: overflow encountered in exp"), and a warning filter cannot
stop it for good: a learner's `warnings.simplefilter("always")` goes in front of every filter a
library installs. NumPy keeps what it does on such an error in one context variable (what
`np.errstate` sets), so the public entries of tensorgrad (a checked operation, an operator,
backward) set it to "ignore" for the length of the call and put it back after:

    token = numpy_errors.state.set(numpy_errors.QUIET)
    try:
        return operation(...)
    finally:
        numpy_errors.state.reset(token)

Two context-variable writes, about 0.1 us: `with np.errstate(all="ignore")` does the same but
builds its settings on every call, which costs more than multiplying two small tensors. The
learner's own NumPy code, outside these calls, warns as usual.
"""

import numpy as np

try:  # NumPy 2: the error state is a context variable, and its "ignore" settings can be made once
    from numpy._core.umath import _extobj_contextvar as state
    from numpy._core.umath import _make_extobj

    QUIET = _make_extobj(all="ignore")
except ImportError:  # NumPy 1.x: the state is set with np.seterr, which returns the old one
    class _SetErr:
        """np.seterr dressed as a context variable: `set` returns the old state as the token."""

        @staticmethod
        def set(settings):
            return np.seterr(**settings)

        @staticmethod
        def reset(token):
            np.seterr(**token)

    state = _SetErr()
    QUIET = {"all": "ignore"}


def quietly(function, *args):
    """`function(*args)` with NumPy's floating-point warnings off (for the entries that are not
    run on every small operation: the hot ones write the two lines out)."""
    token = state.set(QUIET)
    try:
        return function(*args)
    finally:
        state.reset(token)
