"""NumPy's floating-point warnings: silent from tensorgrad's code (as PyTorch is), loud elsewhere."""

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import tensorgrad as tg


def test_tensorgrad_ops_do_not_warn_but_numpy_still_does():
    from tensorgrad.ops import NUMPY_WARNINGS, TENSORGRAD_MODULES

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", message=NUMPY_WARNINGS, category=RuntimeWarning,
                                module=TENSORGRAD_MODULES)  # what importing tensorgrad adds
        assert str(tg.tensor([0.0, 1.0]).log()) == "tensor([-inf, 0.])"
        assert str(tg.tensor([1.0]) / 0) == "tensor([inf])"
        assert str(tg.tensor([1000.0]).exp()) == "tensor([inf])"
        np.log(np.zeros(1))  # a learner's own NumPy code keeps its warning
    assert [str(w.message) for w in caught] == ["divide by zero encountered in log"]


def _pytest_on(test_dir, *options):
    """pytest in a fresh process, with no plugins loaded automatically."""
    package_root = str(Path(tg.__file__).resolve().parents[1])
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONPATH=package_root)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *options, str(test_dir)],
                          capture_output=True, text=True, cwd=test_dir, env=env)


def test_pytest_plugin_keeps_them_silent_in_a_users_tests(tmp_path):
    (tmp_path / "test_user.py").write_text(textwrap.dedent("""
        import tensorgrad as tg

        def test_log_of_zero():
            assert str(tg.tensor([0.0]).log()) == "tensor([-inf])"
    """))
    without = _pytest_on(tmp_path)
    assert "1 passed" in without.stdout, without.stdout + without.stderr
    # pytest drops the import-time filter, but an operation turns NumPy's warnings off for its
    # own call (tensorgrad/numpy_errors.py): quiet without the plugin too
    assert "RuntimeWarning" not in without.stdout
    with_plugin = _pytest_on(tmp_path, "-p", "tensorgrad.pytest_plugin")
    assert "1 passed" in with_plugin.stdout, with_plugin.stdout + with_plugin.stderr
    assert "RuntimeWarning" not in with_plugin.stdout


def test_the_plugin_is_registered_on_install():
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    text = pyproject.read_text()
    assert '[project.entry-points.pytest11]\ntensorgrad = "tensorgrad.pytest_plugin"' in text
