"""The real autograder zip of a course exercise set, run the way Gradescope runs it.

Gradescope runs ``run_autograder`` as root in a Docker container with no network, whose
``/proc`` is masked: a nested sandbox starts but cannot mount ``/proc`` again (the sandbox
check reports ``no_proc``). Here the same conditions come from bubblewrap itself, as an
instructor would reproduce them::

    bwrap --bind / / --bind DIR /autograder --dev /dev --proc /proc --unshare-net bash run_autograder

As root, bwrap gives the command no capabilities, so inside it a new ``/proc`` mount is
refused exactly as in Docker. The zip is built from ``solutions/03_exercises_chain_rule.ipynb`` (a set
whose cells ``import tensorgrad``: kernels started without the preloading fork server,
as in ``no_proc`` mode, import it only when the exercise does, which the integrity guard
once took for a swapped module and failed every upload with 0 of 0).

Each upload is checked for what Gradescope shows: the solution (twice, as two copies) scores
full marks once, the released blank notebook 0, and ``results.json`` is always written. The
same zip runs with no sandbox at all (no ``bwrap`` on the PATH), and ``tensorgrad-course
grade`` runs in ``no_proc`` mode outside any container.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tensorgrad_course.cli import main

REPO = Path(__file__).resolve().parents[2]
SET = REPO / "solutions" / "03_exercises_chain_rule.ipynb"
NAME = SET.stem

pytestmark = [
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed"),
    pytest.mark.skipif(os.geteuid() != 0, reason="Gradescope runs the autograder as root"),
    pytest.mark.skipif(not SET.is_file(), reason="the course's solutions/ are not in this checkout"),
]


@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    """The zip as the instructor builds it, installed as setup.sh installs it (the wheels in the zip)."""
    root = tmp_path_factory.mktemp("container")
    zip_path = root / "autograder.zip"
    assert main(["gradescope", str(SET), "--out", str(zip_path), "--timeout-cell", "60",
                 "--timeout-notebook", "300"]) == 0
    source = root / "source"
    source.mkdir()
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(source)
    site = root / "site"
    env = {**os.environ, "TG_PYTHON": sys.executable, "TG_SKIP_DEPS": "1", "TG_PIP_ARGS": f"--target {site} -q"}
    setup = subprocess.run(["bash", str(source / "setup.sh")], cwd=source, env=env, capture_output=True, text=True,
                           timeout=300)
    assert setup.returncode == 0, setup.stderr
    return {"root": root, "source": source, "site": site}


def run_in_container(autograder, layout: Path, files: dict[str, bytes], *, sandbox: bool = True) -> dict:
    """``run_autograder`` for one upload, in a fresh /autograder, under bwrap as Gradescope's Docker
    would run it (root, no network, /proc that cannot be mounted again); with ``sandbox=False``
    bubblewrap is not on the PATH inside, so the grader runs without a sandbox."""
    shutil.copytree(autograder["source"], layout / "source")
    shutil.copy(layout / "source" / "run_autograder", layout / "run_autograder")
    (layout / "submission").mkdir()
    for name, data in files.items():
        (layout / "submission" / name).write_bytes(data)
    env = {"PATH": "/usr/bin:/bin" if sandbox else str(layout / "no-bin"), "HOME": "/root", "LANG": "C.UTF-8",
           "TG_PYTHON": sys.executable, "PYTHONPATH": str(autograder["site"]), "PYTHONHASHSEED": "0"}
    bwrap = shutil.which("bwrap")
    done = subprocess.run([bwrap, "--bind", "/", "/", "--bind", str(layout), "/autograder", "--dev", "/dev",
                           "--proc", "/proc", "--unshare-net", "/bin/bash", "/autograder/run_autograder"],
                          env=env, capture_output=True, text=True, timeout=600)
    results = layout / "results" / "results.json"
    assert results.is_file(), (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    return json.loads(results.read_text())


def graded_tests(data: dict) -> list[dict]:
    return [t for t in data["tests"] if not t["name"].startswith("Integrity")]


def integrity(data: dict) -> str:
    (entry,) = [t for t in data["tests"] if t["name"].startswith("Integrity")]
    assert entry["visibility"] == "hidden"
    return entry["output"]


def test_in_a_container_that_masks_proc_two_copies_of_the_solution_score_full_marks_once(autograder, tmp_path):
    solution = SET.read_bytes()
    data = run_in_container(autograder, tmp_path / "ag", {f"{NAME}.ipynb": solution, "copy.ipynb": solution})
    tests = graded_tests(data)
    assert data["score"] == 12 and round(sum(t["max_score"] for t in tests), 6) == 12, data["output"]
    assert all(t["status"] == "passed" for t in tests), [t for t in tests if t["status"] != "passed"]
    assert f"{NAME}: 12/12" in data["output"]
    assert "copy.ipynb: not graded: another copy of the same exercise set" in data["output"]
    note = integrity(data)
    assert "no /proc" in note and "nested: " in note and "Operation not permitted" in note, note
    assert "GraderGuard" not in json.dumps(data)


def test_in_a_container_that_masks_proc_the_blank_notebook_scores_zero(autograder, tmp_path):
    blank = (autograder["source"] / "exercises" / f"{NAME}.ipynb").read_bytes()
    data = run_in_container(autograder, tmp_path / "ag", {f"{NAME}.ipynb": blank})
    tests = graded_tests(data)
    assert data["score"] == 0 and round(sum(t["max_score"] for t in tests), 6) == 12, data["output"]
    assert f"{NAME}: 0/12" in data["output"]
    assert "GraderGuard" not in json.dumps(data) and "no findings" in integrity(data)


def test_in_a_container_without_bubblewrap_the_solution_scores_full_marks(autograder, tmp_path):
    data = run_in_container(autograder, tmp_path / "ag", {f"{NAME}.ipynb": SET.read_bytes()}, sandbox=False)
    assert data["score"] == 12 and f"{NAME}: 12/12" in data["output"], data["output"]
    note = integrity(data)
    assert note.startswith("sandbox: none"), note


def test_grade_in_no_proc_mode_scores_the_solution(tmp_path):
    env = {**os.environ, "TENSORGRAD_SANDBOX_MODE": "no_proc", "PYTHONHASHSEED": "0"}
    (tmp_path / "solutions").mkdir()
    shutil.copy(SET, tmp_path / "solutions" / SET.name)
    (tmp_path / "class" / "ann").mkdir(parents=True)
    shutil.copy(SET, tmp_path / "class" / "ann" / SET.name)
    done = subprocess.run([sys.executable, "-m", "tensorgrad_course.cli", "grade", "--solutions",
                           str(tmp_path / "solutions"), "--out", str(tmp_path / "out"), "--no-progress",
                           str(tmp_path / "class")], env=env, capture_output=True, text=True, timeout=600,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (report,) = (tmp_path / "out" / "json" / "ann").glob("*.json")
    data = json.loads(report.read_text())
    assert data["score"] == 12 and data["max_score"] == 12, data["status"]
    assert "no /proc" in data["environment"]["sandbox"]
