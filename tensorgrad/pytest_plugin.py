"""A pytest plugin, registered when tensorgrad is installed: the same silence under pytest.

tensorgrad silences NumPy's floating-point RuntimeWarnings from its own code with a warnings
filter added on import (see tensorgrad/ops/__init__.py). pytest restores the warning filters
after it has collected the tests, which drops that filter when test modules import tensorgrad.
This plugin gives pytest the same filter. (An operation is quiet in tests without it, since it
turns NumPy's warnings off for its own call, tensorgrad/numpy_errors.py; the filter still covers
tensorgrad's code that enters no operation, such as an optimizer's step.)
"""

from .ops import NUMPY_WARNINGS, TENSORGRAD_MODULES


def pytest_configure(config):
    config.addinivalue_line(
        "filterwarnings", f"ignore:{NUMPY_WARNINGS}:RuntimeWarning:{TENSORGRAD_MODULES}"
    )
