"""A local ``grade --no-sandbox``: no process a submission started outlives its grading.

Without bubblewrap a kernel has no PID namespace of its own, so a process it starts and detaches
(a new session, a double fork) would outlive the kernel and could rewrite the reports after the
grader wrote them. The grader makes itself the parent of every such orphan and kills all of them
before any result is written (``sandbox.Strays``); the row of the submission says so, and every
report says plainly that grades in this mode are not tamper-proof.

The control test turns the sweep off and shows the attack is real: the same submission then
rewrites the instructor's grades after the grader has finished.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest
from course_helpers import BASICS, cell_by_id, read_json

from tensorgrad_course import generate, sandbox
from tensorgrad_course.cli import main

# Leaves a process in a session of its own, which waits until the notebook has ended and the
# grader has written its reports, then replaces them with full marks (the folder is writable to
# every user here: as root, kernels run as an unprivileged user).
LINGER = '''
import os, time
OUT = %r
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        end = time.time() + 30
        while time.time() < end:
            with open(OUT + ".alive", "w") as fh:
                fh.write(str(os.getpid()))
            folder = os.path.join(OUT, "csv")
            for name in os.listdir(folder) if os.path.isdir(folder) else []:
                if name.endswith(".csv"):
                    with open(os.path.join(folder, name + ".new"), "w") as fh:
                        fh.write("forged: full marks\\n")
                    os.replace(os.path.join(folder, name + ".new"), os.path.join(folder, name))
            time.sleep(0.1)
        os._exit(0)
    os._exit(0)
def square(x):
    return 0
'''


@pytest.fixture
def course():
    base = Path(tempfile.mkdtemp(prefix="tg-local-nosandbox-"))
    base.chmod(0o777)  # (reachable and writable by the kernels' user when run as root)
    try:
        (base / "solutions").mkdir()
        shutil.copy(BASICS, base / "solutions" / "basics.ipynb")
        generate.build(base / "solutions", base / "exercises")
        out = base / "out"
        release = read_json(base / "exercises" / "basics.ipynb")
        cell_by_id(release, "square")["source"] = LINGER % str(out)
        (base / "subs").mkdir()
        (base / "subs" / "eve.ipynb").write_text(json.dumps(release))
        yield base
    finally:
        alive = base / "out.alive"
        if alive.exists():  # (the control test's attacker, if it still runs)
            try:
                os.kill(int(alive.read_text() or 0), signal.SIGKILL)
            except (ValueError, OSError):
                pass
        shutil.rmtree(base, ignore_errors=True)


def grade(course: Path) -> int:
    out = course / "out"
    out.mkdir()
    out.chmod(0o777)
    return main(["grade", "--solutions", str(course / "solutions"), "--exercises", str(course / "exercises"),
                 str(course / "subs"), "--out", str(out), "--timeout", "20", "--timeout-notebook", "60",
                 "--no-sandbox", "--no-progress"])


def forged(out: Path) -> bool:
    tables = sorted((out / "csv").glob("*.csv"))
    assert tables, "no CSV report"
    return any("forged" in path.read_text() for path in tables)


def test_a_process_left_running_is_killed_before_the_reports_and_reported(course):
    assert grade(course) == 0
    ended = time.time()
    time.sleep(2.0)  # what the attacker would use to rewrite the reports
    out = course / "out"
    row = read_json(out / "json" / "eve" / "basics.json")
    assert row["status"] == "graded" and row["score"] == 0, row
    (finding,) = [f for f in row["integrity"] if f["kind"] == "lingering"]
    assert finding["tampering"] and "process(es) running" in finding["detail"], finding
    assert not forged(out), "the reports were rewritten"
    alive = course / "out.alive"
    assert alive.exists(), "the submission's process never ran"
    assert alive.stat().st_mtime < ended, "the submission's process outlived its grading"
    summary = (out / "summary.txt").read_text()
    assert "NOT tamper-proof" in summary and "every process a submission started" in summary
    assert "NOT tamper-proof" in json.loads((out / "report.json").read_text())["environment"]["sandbox"]


def test_control_without_the_sweep_the_process_rewrites_the_grades(course, monkeypatch):
    monkeypatch.setattr(sandbox.Strays, "sweep", lambda self, *args, **kwargs: 0)
    assert grade(course) == 0
    deadline = time.time() + 10
    while time.time() < deadline and not forged(course / "out"):
        time.sleep(0.2)
    assert forged(course / "out")
