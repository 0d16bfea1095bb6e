"""NumPy's floating-point warnings: silent from tensorgrad's code (as PyTorch is), loud elsewhere."""

import importlib.metadata
import subprocess
import sys
import textwrap
import warnings

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


def _plugin_installed():
    return any(ep.name == "tensorgrad"
               for ep in importlib.metadata.entry_points(group="pytest11"))


@pytest.mark.skipif(not _plugin_installed(), reason="tensorgrad is not pip-installed here")
def test_pytest_plugin_keeps_them_silent_in_a_users_tests(tmp_path):
    (tmp_path / "test_user.py").write_text(textwrap.dedent("""
        import tensorgrad as tg

        def test_log_of_zero():
            assert str(tg.tensor([0.0]).log()) == "tensor([-inf])"
    """))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(tmp_path)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout
    assert "RuntimeWarning" not in run.stdout
