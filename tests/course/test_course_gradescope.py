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


def run_upload(autograder, tmp_path, files: dict[str, str], path: str | None = None, prefix: tuple = ()) -> dict:
    layout = tmp_path / "autograder"
    shutil.copytree(autograder["source"], layout / "source")
    shutil.copy(layout / "source" / "run_autograder", layout / "run_autograder")
    (layout / "submission").mkdir()
    for name, text in files.items():
        (layout / "submission" / name).write_text(text)
    env = {**os.environ, "AUTOGRADER_ROOT": str(layout), "TG_PYTHON": sys.executable,
           "PYTHONPATH": str(autograder["site"])}
    if path is not None:
        env["PATH"] = path
    done = subprocess.run([*prefix, "bash", str(layout / "run_autograder")], env=env, capture_output=True,
                          text=True, timeout=600)
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
    assert [w.split("-")[0] for w in wheels] == ["wheels/tensorgrad_autograd", "wheels/tensorgrad_course"]
    assert all(w.endswith("-py3-none-any.whl") for w in wheels)
    setup = autograder["setup"]
    assert all(w in setup for w in wheels) and "'nbformat>=5.9,<6'" in setup and "'nbclient>=0.9,<1'" in setup
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


# A bwrap that behaves as in a Docker container: it starts, but the kernel refuses every new
# /proc mount (Docker masks files of /proc, and a fresh proc mount would unmask them).
DOCKER_BWRAP = """#!/bin/bash
args=()
while [[ $# -gt 0 ]]; do
    if [[ "$1" == "--proc" ]]; then
        echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2
        exit 1
    fi
    if [[ "$1" == "--bind" && "$2" == "/proc" && "$3" == "/proc" ]]; then
        args+=("$1" "$2" "$3" --ro-bind /dev/null /proc/version)  # masked, as Docker masks /proc/kcore...
        shift 3
        continue
    fi
    args+=("$1")
    shift
done
exec %s "${args[@]}"
"""


def docker_path(tmp_path) -> str:
    real = shutil.which("bwrap")
    if real is None:
        pytest.skip("bubblewrap (bwrap) is not installed")
    fake = tmp_path / "docker-bin"
    fake.mkdir()
    (fake / "bwrap").write_text(DOCKER_BWRAP % real)
    (fake / "bwrap").chmod(0o755)
    return f"{fake}:{os.environ.get('PATH', '')}"


#: Gradescope's run_autograder has no network, and Docker runs it as root: a new user namespace
#: (root inside) with a network namespace of its own, where only a loopback that is down exists.
NO_NETWORK = ("unshare", "--map-root-user", "--net")


def no_network() -> tuple:
    """The prefix that runs a command as root without a network; () where unshare cannot (then
    the masked /proc is still tested, with the network this machine has)."""
    if shutil.which("unshare") is None or subprocess.run([*NO_NETWORK, "true"], capture_output=True).returncode:
        return ()
    probe = subprocess.run([*NO_NETWORK, sys.executable, "-c",
                            "import socket; socket.create_connection(('1.1.1.1', 53), timeout=2)"],
                           capture_output=True, text=True)
    assert probe.returncode != 0 and "unreachable" in probe.stderr, probe.stderr  # really no network
    return NO_NETWORK


def test_under_a_masked_proc_it_falls_back_and_says_so(autograder, tmp_path):
    """Docker: bwrap starts, /proc cannot be mounted again, run_autograder runs as root without a
    network. Full marks, 0 for a blank, and the instructor-only entry names the fallback; the
    student's output does not."""
    path, prefix = docker_path(tmp_path), no_network()
    data = run_upload(autograder, tmp_path / "full", {"basics.ipynb": answered_basics(tmp_path)}, path=path,
                      prefix=prefix)
    assert data["score"] == 4 and "basics: 4/4" in data["output"], data
    (integrity,) = [t for t in data["tests"] if t["name"].startswith("Integrity")]
    assert integrity["visibility"] == "hidden"
    assert "no /proc" in integrity["output"] and "fallback" in integrity["output"], integrity["output"]
    assert "Operation not permitted" in integrity["output"]  # what was tried, for the instructor
    assert "fallback" not in data["output"] and "sandbox" not in data["output"]
    blank = (autograder["source"] / "exercises" / "named.ipynb").read_text()
    data = run_upload(autograder, tmp_path / "blank", {"named.ipynb": blank}, path=path, prefix=prefix)
    assert data["score"] == 0 and "named: 0/6" in data["output"]


def test_two_copies_are_graded_once_and_a_stray_file_adds_no_entry(autograder, tmp_path):
    full = answered_basics(tmp_path)
    data = run_upload(autograder, tmp_path, {"basics.ipynb": full, "basics-Copy1.ipynb": full,
                                             "notes.py": "print('hi')\n"})
    graded = [t for t in data["tests"] if not t["name"].startswith("Integrity")]
    assert data["score"] == 4 and sum(t["max_score"] for t in graded) == 4, data
    assert all(t["name"].startswith("basics - ") for t in graded)  # no entry for the copy or the .py
    assert "basics-Copy1.ipynb: not graded: another copy of the same exercise set (basics.ipynb)" in data["output"]
    assert "notes.py: ignored" in data["output"]
    (integrity,) = [t for t in data["tests"] if t["name"].startswith("Integrity")]
    assert "duplicate: basics-Copy1.ipynb not graded (basics.ipynb was)" in integrity["output"]


def test_maxima_add_up_exactly():
    from tensorgrad_course import reports
    from tensorgrad_course.grade import SubmissionResult, TaskResult, TestResult

    tests = [TestResult(f"t{i}", "passed", 12 / 7, 12 / 7) for i in range(7)]
    thirds = [TestResult(f"u{i}", "failed" if i else "passed", 0.0 if i else 1 / 3, 1 / 3) for i in range(3)]
    r = SubmissionResult("ann", "a.ipynb", "set", "", "graded", score=13 + 1 / 3, max_score=13, tasks=[
        TaskResult("task", 12.0, 12.0, "passed", tests=tests), TaskResult("other", 1 / 3, 1.0, "failed", tests=thirds)])
    data = reports.gradescope([r])
    maxima = [t["max_score"] for t in data["tests"]]
    assert round(sum(maxima[:7]), 9) == 12 and round(sum(maxima[7:]), 9) == 1 and max(maxima) < 1.7144
    assert round(sum(t["score"] for t in data["tests"]), 4) == data["score"]
    # the control: rounding each share on its own misses the total
    assert round(sum(reports._num(12 / 7) for _ in range(7)), 4) != 12


def _pip_download(python: str, requirements: list[str], into: Path):
    return subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--python-version", python,
                           "--only-binary=:all:", "-d", str(into), *requirements],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("python", ["3.10", "3.12"])
def test_setup_requirements_resolve_on_every_supported_python(autograder, tmp_path, python):
    """setup.sh installs the declared ranges, which resolve for Python 3.10 (Ubuntu 22.04) to 3.12;
    the build machine's exact versions (the control) do not resolve for 3.10."""
    import shlex

    (line,) = [l for l in autograder["setup"].splitlines() if "pip install" in l and "TG_SKIP" not in l
               and "wheels/" not in l]
    requirements = shlex.split(line)[shlex.split(line).index("${TG_PIP_ARGS:-}") + 1:]
    assert requirements and all(">=" in r and "<" in r for r in requirements), requirements
    done = _pip_download(python, requirements, tmp_path / "reqs")
    if done.returncode and any(word in done.stderr for word in ("NewConnectionError", "Temporary failure",
                                                                 "Network is unreachable", "ConnectTimeout")):
        pytest.skip(f"the package index cannot be reached: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr[-2000:]
    if python == "3.10":
        from importlib import metadata

        pinned = [f"{name}=={metadata.version(name)}" for name in ("numpy", "ipython")]
        control = _pip_download(python, pinned, tmp_path / "pins")
        if metadata.version("numpy") >= "2.3":  # releases without Python 3.10 wheels
            assert control.returncode != 0
