"""Gradescope's fallback without a sandbox: a container where bubblewrap cannot run at all.

The autograder then grades without bubblewrap, but not without protection: as root (as Docker
runs it, with Docker's default capabilities), it runs each kernel as an unprivileged user that
cannot read ``/autograder/source`` nor write ``/autograder/results``, imports all of its own
modules before any student code runs, kills every process of the kernels' user before it
writes results.json, and writes results.json last. Each class of attack that once turned a
blank upload into full marks here is tried once and must score 0 and be reported in the
instructor-only entry: reading the autograder's files, a process left running that rewrites
results.json, rewriting the grader's modules before the grader imports them, printing a fake
score where the grader's output goes.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest
from course_helpers import BASICS, cell_by_id

from tensorgrad_course import generate, library
from tensorgrad_course.cli import main

#: Docker's default capabilities (root in a container has these and no others).
DOCKER_CAPS = ("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
               "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
               "CAP_KILL", "CAP_AUDIT_WRITE")

pytestmark = [
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) makes the container here"),
    pytest.mark.skipif(os.geteuid() != 0, reason="Gradescope runs the autograder as root"),
]

READ_SOURCE = '''
import glob
stolen = ""
for path in glob.glob("/autograder/source/**/*.ipynb", recursive=True) + ["/autograder/source/solutions/basics.ipynb"]:
    try:
        stolen += open(path).read()
    except OSError:
        pass
def square(x):
    return x * x if "x * x" in stolen else 0
'''

# A process that outlives its notebook (a new session, a double fork) and then writes full marks.
LINGER = '''
import json, os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        fake = {"score": 4, "output": "basics: 4/4", "tests": [{"name": "basics - test_square", "score": 4,
                "max_score": 4, "status": "passed", "visibility": "visible"}]}
        end = time.time() + 40
        while time.time() < end:
            time.sleep(0.2)
            try:
                if os.path.exists("/autograder/results/results.json"):
                    with open("/autograder/results/results.json", "w") as fh:
                        json.dump(fake, fh)
            except OSError:
                pass
        os._exit(0)
    os._exit(0)
def square(x):
    return 0
'''

# The grader's modules, rewritten while the notebook runs: the next module the grader imports
# (or the next run) would give full marks.
PATCH_GRADER = '''
import glob, os, tensorgrad_course
for path in glob.glob(os.path.dirname(tensorgrad_course.__file__) + "/*.py"):
    try:
        with open(path, "a") as fh:
            fh.write("\\nraise SystemExit('patched by the submission')\\n")
    except OSError:
        pass
def square(x):
    return 0
'''

# A fake score, written where the grader's own output goes (its stdout, through /proc).
FAKE_SCORE = '''
import os
print("basics: 4/4 (score 4)")
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        if b"tensorgrad_course.gradescope" in open(f"/proc/{pid}/cmdline", "rb").read():
            with open(f"/proc/{pid}/fd/1", "w") as out:
                out.write("FAKE basics: 4/4\\n")
    except OSError:
        pass
def square(x):
    return 0
'''

ATTACKS = {
    "read_source": (READ_SOURCE, "reading '/autograder/source/"),
    "linger": (LINGER, "process(es) running after its notebook ended"),
    "patch_grader": (PATCH_GRADER, "attempted writing '"),
    "fake_score": (FAKE_SCORE, "/fd/1'"),
}


def _closed_ancestors(path: str) -> list[str]:
    """The folders above ``path`` that other users cannot enter (a Python under /root)."""
    found, current = [], os.path.realpath(path)
    while current != "/":
        current = os.path.dirname(current)
        if current != "/" and not os.stat(current).st_mode & stat.S_IXOTH:
            found.append(current)
    return found


def docker_argv(layout: Path, open_paths: list[str]) -> list[str]:
    """bwrap as a Docker container without bubblewrap inside: root with Docker's capabilities, no
    network, ``layout`` at /autograder; folders that hide ``open_paths`` (this machine's Python
    may live under /root) are replaced by empty ones with only those paths in them, as in an
    image where Python is installed for everyone."""
    argv = [shutil.which("bwrap"), "--bind", "/", "/", "--bind", str(layout), "/autograder", "--dev", "/dev",
            "--proc", "/proc", "--unshare-net"]
    closed = sorted({a for p in open_paths for a in _closed_ancestors(p)}, key=len)
    closed = [c for c in closed if not any(c.startswith(o + "/") for o in closed if o != c)]
    for folder in closed:
        argv += ["--tmpfs", folder]
    shown = set()
    for path in open_paths:
        real = os.path.realpath(path)
        for folder in closed:
            if real.startswith(folder + "/"):  # its child on the way to the path, with its own modes
                child = folder + "/" + real[len(folder) + 1:].split("/")[0]
                if child not in shown:
                    shown.add(child)
                    argv += ["--ro-bind", child, child]
    for cap in DOCKER_CAPS:
        argv += ["--cap-add", cap]
    return argv


@pytest.fixture(scope="module")
def autograder():
    base = Path(tempfile.mkdtemp(prefix="tg-nosandbox-"))
    base.chmod(0o755)  # (the kernels' user must reach the installed grader below it, as in an image)
    try:
        (base / "solutions").mkdir()
        shutil.copy(BASICS, base / "solutions" / "basics.ipynb")
        zip_path = base / "autograder.zip"
        assert main(["gradescope", str(base / "solutions" / "basics.ipynb"), "--out", str(zip_path),
                     "--timeout-cell", "30", "--timeout-notebook", "120"]) == 0
        source = base / "source"
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(source)
        site = base / "site"
        env = {**os.environ, "TG_PYTHON": sys.executable, "TG_SKIP_DEPS": "1", "TG_PIP_ARGS": f"--target {site} -q"}
        setup = subprocess.run(["bash", str(source / "setup.sh")], cwd=source, env=env, capture_output=True,
                               text=True, timeout=300)
        assert setup.returncode == 0, setup.stderr
        generate.build(base / "solutions", base / "exercises")
        release = json.loads((base / "exercises" / "basics.ipynb").read_text())
        yield {"base": base, "source": source, "site": site, "release": release}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def upload(autograder, name: str, answers: dict[str, str], linger: float = 0.0) -> tuple[dict, str]:
    layout = autograder["base"] / name
    shutil.copytree(autograder["source"], layout / "source")
    shutil.copy(layout / "source" / "run_autograder", layout / "run_autograder")
    (layout / "submission").mkdir()
    nb = json.loads(json.dumps(autograder["release"]))
    for gid, source in answers.items():
        cell_by_id(nb, gid)["source"] = source
    (layout / "submission" / "basics.ipynb").write_text(json.dumps(nb))
    env = {"PATH": str(layout / "no-bin"), "HOME": "/root", "LANG": "C.UTF-8", "TG_PYTHON": sys.executable,
           "PYTHONPATH": str(autograder["site"]), "PYTHONHASHSEED": "0"}
    needed = [sys.base_prefix, sys.prefix, sys.executable, *library.import_roots(), str(autograder["site"])]
    script = "/bin/bash /autograder/run_autograder; /bin/sleep %s" % linger  # (a lingering process would write meanwhile)
    done = subprocess.run([*docker_argv(layout, needed), "/bin/bash", "-c", script], env=env, capture_output=True,
                          text=True, timeout=600)
    results = layout / "results" / "results.json"
    assert results.is_file(), (done.returncode, done.stdout[-3000:], done.stderr[-3000:])
    return json.loads(results.read_text()), done.stdout


def _instructor(data: dict) -> str:
    (entry,) = [t for t in data["tests"] if t["name"].startswith("Integrity")]
    return entry["output"]


def test_an_honest_upload_scores_full_marks_with_kernels_as_an_unprivileged_user(autograder):
    data, _ = upload(autograder, "honest", {"square": "def square(x):\n    return x * x",
                                            "mean": "def mean(xs):\n    return sum(xs) / len(xs)",
                                            "predict": "leaf = True\nimport os\nuid = os.getuid()\nprint(uid)"})
    assert data["score"] == 4, data["output"]
    note = _instructor(data)
    assert "sandbox: none" in note and "unprivileged user" in note and "NOT tamper-proof" not in note, note
    assert "no findings" in note


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_each_attack_without_a_sandbox_scores_zero_and_is_reported(autograder, attack):
    source, report = ATTACKS[attack]
    data, stdout = upload(autograder, attack, {"square": source}, linger=3.0 if attack == "linger" else 0.0)
    assert data["score"] == 0 and "basics: 0/4" in data["output"], data
    assert report in _instructor(data), _instructor(data)
    assert "4/4" not in stdout
    if attack == "patch_grader":
        assert not list((autograder["site"] / "tensorgrad_course").glob("*.py.*"))
        assert "patched by the submission" not in (autograder["site"] / "tensorgrad_course" / "grade.py").read_text()


def test_not_as_root_the_report_says_grades_are_not_tamper_proof(monkeypatch):
    from tensorgrad_course import sandbox

    sandbox.kernel_user.cache_clear()
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    try:
        assert "NOT tamper-proof" in sandbox.describe(False)
    finally:
        sandbox.kernel_user.cache_clear()
    time.sleep(0)
