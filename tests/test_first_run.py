"""A calm first run: `./run`'s set-up step keeps pip's output in .cache/pip-install.log, shows a few
clear lines and a sign of progress instead, and shows the whole log when pip fails.

The install is played by a fake venv Python whose `pip install` prints as many lines as the real
first install does (about 230) and takes a few seconds; the real thing, from a fresh clone, is
measured by hand (the figures are in the report of the change that made this test).
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FAKE_PYTHON = """#!/usr/bin/env bash
# A venv's python as ./run calls it: -V, and -m pip install ...
if [[ "$1" == -V ]]; then echo "Python 3.11.0"; exit 0; fi
if [[ "$1 $2 $3" == "-m pip install" ]]; then
    for i in $(seq 1 230); do
        echo "Collecting package-$i"
        echo "  Downloading package_$i-1.0-py3-none-any.whl (12 kB)"
        if (( i % 60 == 0 )); then sleep 1; fi
    done
    echo "Installing collected packages: $(seq -s ', ' 1 230)"
    if [[ -n "${FAKE_PIP_FAILS:-}" ]]; then
        echo "ERROR: Could not install packages due to an OSError: the disk is full"
        exit 1
    fi
    echo "Successfully installed 230 packages"
    exit 0
fi
exit 0
"""


@pytest.fixture
def clone(tmp_path):
    """A checkout's `run` and its two pyproject.toml files, with a fake venv beside them."""
    shutil.copy(ROOT / "run", tmp_path / "run")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "course").mkdir()
    shutil.copy(ROOT / "course" / "pyproject.toml", tmp_path / "course" / "pyproject.toml")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    return tmp_path


def setup(clone, **env):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TENSORGRAD_")}
    environment.update(env, PATH=os.environ["PATH"])
    return subprocess.run(["bash", str(clone / "run"), "setup"], cwd=clone, capture_output=True, text=True,
                          timeout=120, env=environment)


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is missing: ./run setup would install it")
def test_the_first_install_prints_a_few_lines_and_keeps_pips_output_in_a_log(clone):
    done = setup(clone, TENSORGRAD_PROGRESS_SECONDS="1")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    assert len(lines) <= 12, "\n".join(lines)
    assert "Collecting" not in done.stdout + done.stderr
    assert any(".cache/pip-install.log" in line for line in lines), lines
    assert any("packages," in line for line in lines), f"no progress line: {lines}"
    log = (clone / ".cache" / "pip-install.log").read_text()
    assert log.count("Collecting package-") == 230 and "Successfully installed" in log
    # Installed once: the next run installs nothing and says only that it is ready.
    again = setup(clone)
    assert again.returncode == 0 and again.stdout.splitlines() == [f"[run] ready: {clone}/.venv"], again.stdout


def test_a_failing_install_fails_loudly_with_pips_whole_output(clone):
    done = setup(clone, FAKE_PIP_FAILS="1")
    assert done.returncode != 0
    assert done.stderr.count("Collecting package-") == 230, "pip's output is not shown in full"
    assert "ERROR: Could not install packages due to an OSError: the disk is full" in done.stderr
    assert "failed (exit 1); its output is above and in .cache/pip-install.log" in done.stderr
    assert not (clone / ".venv" / ".tensorgrad-installed").exists(), "a failed install was marked done"


def test_the_stated_numpy_floor_is_a_numpy_the_library_runs_on():
    """pyproject.toml's `numpy>=X` is what `pip install -e .` keeps in an environment that
    already has NumPy X: the library must import there. Its code needs NumPy 2
    (numpy.lib.array_utils), and its tests run on the NumPy installed here, so the floor's major
    version must be that one's, in both distributions."""
    import re

    import numpy
    for pyproject in (ROOT / "pyproject.toml", ROOT / "course" / "pyproject.toml"):
        floor = re.search(r'"numpy>=([0-9.]+)"', pyproject.read_text()).group(1)
        assert floor.split(".")[0] == numpy.__version__.split(".")[0], (pyproject, floor)
