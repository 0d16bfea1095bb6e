"""The Gradescope autograder zip, run in a simulated /autograder: setup.sh, then run_autograder.

The zip is built from the two fixture sets; ``setup.sh`` installs tensorgrad and
tensorgrad-course from the wheels in the zip into a folder of their own
(``TG_PIP_ARGS=--target``; the dependencies, pinned in setup.sh, are this environment's, so
``TG_SKIP_DEPS`` skips downloading them), and
``run_autograder`` then runs on that copy, never on this checkout. Each upload is graded in a
fresh ``/autograder`` layout: a full notebook, a blank one, a renamed one, a ``.py``, nothing.
"""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from course_helpers import BASICS, NAMED, cell_by_id, read_json

from tensorgrad_course import gradescope
from tensorgrad_course.cli import main


@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    root = tmp_path_factory.mktemp("gradescope")
    zip_path = root / "autograder.zip"
    assert main(["gradescope", str(BASICS), str(NAMED), "--out", str(zip_path), "--hidden-visibility", "hidden",
                 "--timeout-cell", "30", "--timeout-notebook", "120"]) == 0
    source = root / "image" / "source"
    source.mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as archive:
        names = archive.namelist()
        archive.extractall(source)
    for script in ("setup.sh", "run_autograder"):
        (source / script).chmod(0o755)
    site = root / "site"
    env = {**os.environ, "TG_PYTHON": sys.executable, "TG_SKIP_DEPS": "1", "TG_PIP_ARGS": f"--target {site} -q"}
    setup = subprocess.run(["bash", str(source / "setup.sh")], env=env, capture_output=True, text=True, timeout=300)
    assert setup.returncode == 0, setup.stderr
    return {"root": root, "names": names, "source": source, "site": site,
            "setup": (source / "setup.sh").read_text()}


def run_upload(autograder, tmp_path, files: dict[str, str]) -> dict:
    layout = tmp_path / "autograder"
    shutil.copytree(autograder["source"], layout / "source")
    shutil.copy(layout / "source" / "run_autograder", layout / "run_autograder")
    (layout / "submission").mkdir()
    for name, text in files.items():
        (layout / "submission" / name).write_text(text)
    env = {**os.environ, "AUTOGRADER_ROOT": str(layout), "TG_PYTHON": sys.executable,
           "PYTHONPATH": str(autograder["site"])}
    done = subprocess.run(["bash", str(layout / "run_autograder")], env=env, capture_output=True, text=True,
                          timeout=600)
    results = layout / "results" / "results.json"
    assert results.is_file(), done.stderr
    return json.loads(results.read_text())


def answered_basics(tmp_path) -> str:
    from tensorgrad_course import generate

    (tmp_path / "s").mkdir()
    shutil.copy(BASICS, tmp_path / "s" / "basics.ipynb")
    generate.build(tmp_path / "s", tmp_path / "e")
    nb = read_json(tmp_path / "e" / "basics.ipynb")
    for gid, src in {"square": "def square(x):\n    return x * x", "mean": "def mean(xs):\n    return sum(xs) / len(xs)",
                     "predict": "leaf = True"}.items():
        cell_by_id(nb, gid)["source"] = src
    return json.dumps(nb)


def test_the_zip_holds_what_gradescope_needs_and_never_installs_tensorgrad_by_name(autograder):
    names = autograder["names"]
    assert {"setup.sh", "run_autograder", "config.json", "solutions/basics.ipynb", "exercises/named.ipynb"} <= set(names)
    wheels = sorted(n for n in names if n.startswith("wheels/"))
    assert [w.split("-")[0] for w in wheels] == ["wheels/tensorgrad", "wheels/tensorgrad_course"]
    assert all(w.endswith("-py3-none-any.whl") for w in wheels)
    setup = autograder["setup"]
    assert all(w in setup for w in wheels) and "nbformat==" in setup and "nbclient==" in setup
    installs = [line.split() for line in setup.splitlines() if "pip install" in line and not line.lstrip().startswith("#")]
    assert installs and not any(w == "tensorgrad" or w.startswith(("tensorgrad=", "tensorgrad[", "tensorgrad>"))
                                for words in installs for w in words)
    assert not any(w.startswith(("tensorgrad-course", "tensorgrad_course")) for words in installs for w in words)
    # installed from the wheels: the library, and the grader beside it (the library ships none)
    assert (autograder["site"] / "tensorgrad" / "derivatives.py").is_file()
    assert (autograder["site"] / "tensorgrad_course" / "grade.py").is_file()
    assert not (autograder["site"] / "tensorgrad" / "course").exists()
    assert (autograder["site"] / "bin" / "tensorgrad-course").is_file()


def test_a_full_notebook_scores_full_marks(autograder, tmp_path):
    data = run_upload(autograder, tmp_path, {"basics.ipynb": answered_basics(tmp_path)})
    graded = [t for t in data["tests"] if t["max_score"]]
    assert data["score"] == 4 and sum(t["max_score"] for t in graded) == 4
    assert all(t["status"] == "passed" for t in graded)
    assert "basics: 4/4" in data["output"]
    hidden = [t for t in data["tests"] if t["name"] == "basics - test_square"]
    assert hidden and hidden[0]["visibility"] == "hidden"  # --hidden-visibility hidden
    (integrity,) = [t for t in data["tests"] if t["name"].startswith("Integrity")]
    assert integrity["visibility"] == "hidden" and integrity["output"].startswith("sandbox: ")


def test_a_blank_notebook_scores_zero(autograder, tmp_path):
    blank = (autograder["source"] / "exercises" / "named.ipynb").read_text()
    data = run_upload(autograder, tmp_path, {"named.ipynb": blank})
    assert data["score"] == 0 and "named: 0/6" in data["output"]


def test_a_renamed_notebook_is_recognised(autograder, tmp_path):
    data = run_upload(autograder, tmp_path, {"Jane Smith_12345_assignsubmission_file_hw-Copy1.ipynb":
                                             answered_basics(tmp_path)})
    assert data["score"] == 4 and "basics: 4/4" in data["output"]


def test_a_python_file_or_nothing_gets_a_failure_entry(autograder, tmp_path):
    data = run_upload(autograder, tmp_path / "py", {"basics.py": "def square(x):\n    return x * x\n"})
    assert data["score"] == 0 and "a Python script (.py), not a notebook" in data["output"]
    assert any("upload" in t["output"] for t in data["tests"])
    data = run_upload(autograder, tmp_path / "none", {})
    assert data["score"] == 0 and data["tests"][0]["status"] == "failed" and "No file was uploaded" in data["output"]


def test_a_broken_autograder_still_writes_results(tmp_path):
    (tmp_path / "source").mkdir()  # no config.json, no solutions
    assert gradescope.run(tmp_path) == 1
    data = json.loads((tmp_path / "results" / "results.json").read_text())
    assert data["score"] == 0 and "could not grade this submission" in data["output"]
