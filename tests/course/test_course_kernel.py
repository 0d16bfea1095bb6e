"""The execution engine: the grader's own interpreter, resource limits, deadlines."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from tensorgrad_course import kernel
from tensorgrad_course.kernel import Limits, kernel_env, run_notebook

LAUNCHER = kernel._LAUNCHER


def run_cells(tmp_path, sources, **limits):
    """Run ``sources`` as a notebook; the kernel's folder is ``<scratch>/work``, the scratch in ``tmp_path/scratch``."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    scratch = kernel.new_scratch("tg-test-", Limits(**limits))
    work = scratch / "work"
    work.mkdir(parents=True)
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "scratch").write_text(str(scratch))
    result = run_notebook(nb, Limits(**limits), work, kernel_env(scratch, []))
    return nb, result


def work_of(tmp_path):
    return Path((tmp_path / "scratch").read_text()) / "work"


def stdout(cell):
    return "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")


def test_kernel_uses_the_graders_python_a_fresh_folder_and_the_limits(tmp_path):
    nb, result = run_cells(
        tmp_path,
        [
            "import os, resource, sys\n"
            "print(sys.executable)\nprint(os.getcwd())\nprint(os.environ['PYTHONHASHSEED'])\n"
            "print(resource.getrlimit(resource.RLIMIT_AS)[0] // 2**20)\n"
            "print(resource.getrlimit(resource.RLIMIT_CPU)[0])",
            "block = bytearray(3 * 2**30)  # over the 1024 MiB limit",
            "x = 1",
        ],
        memory_mb=1024,
        notebook_timeout=30,
    )
    assert result.outcome == "completed"
    lines = stdout(nb.cells[0]).split()
    assert lines[0] == sys.executable
    assert lines[1] == str(work_of(tmp_path).resolve())
    assert lines[2:] == ["0", "1024", str(Limits(notebook_timeout=30).cpu_seconds())]
    assert [result.cells[i].status for i in range(3)] == ["ok", "error", "ok"]
    assert result.cells[1].ename == "MemoryError"


def test_kernel_that_cannot_start_is_reported(tmp_path):
    _, result = run_cells(tmp_path, ["x = 1"], memory_mb=40, startup_timeout=20)
    assert result.outcome == "kernel_died"
    assert result.reason.startswith("the kernel did not start")
    assert result.cells == {}


def launch(*args, code):
    return subprocess.run(
        [sys.executable, "-I", LAUNCHER, *args, "--", sys.executable, "-c", code],
        capture_output=True, text=True, timeout=60,
    )


def test_launcher_sets_limits_then_execs_the_command():
    code = (
        "import resource as r\n"
        "print(r.getrlimit(r.RLIMIT_AS), r.getrlimit(r.RLIMIT_CPU), r.getrlimit(r.RLIMIT_FSIZE), r.getrlimit(r.RLIMIT_CORE))"
    )
    proc = launch("--memory-mb", "512", "--cpu-seconds", "7", "--file-mb", "1", code=code)
    assert proc.returncode == 0, proc.stderr
    mib = 2**20
    assert proc.stdout.strip() == f"({512 * mib}, {512 * mib}) (7, 12) ({mib}, {mib}) (0, 0)"


def test_file_size_limit_gives_an_error_not_a_full_disk(tmp_path):
    code = f"open({str(tmp_path / 'big')!r}, 'wb').write(b'x' * 3 * 2**20)"
    proc = launch("--file-mb", "1", code=code)
    assert proc.returncode != 0 and "File too large" in proc.stderr


def test_cpu_limit_stops_a_busy_loop():
    start = time.monotonic()
    proc = launch("--cpu-seconds", "1", code="while True: pass")
    assert proc.returncode == -signal.SIGXCPU
    assert time.monotonic() - start < 30


def test_watchdog_kills_the_whole_process_group():
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        km = SimpleNamespace(provisioner=SimpleNamespace(pgid=os.getpgid(proc.pid), pid=proc.pid))
        watchdog = kernel._Watchdog(km, 0.1)
        watchdog.start()
        assert proc.wait(timeout=10) == -signal.SIGKILL
        assert watchdog.fired
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("code, reason", [(-signal.SIGKILL, "SIGKILL"), (-signal.SIGXCPU, "CPU time"),
                                          (3, "exited with code 3"), (-signal.SIGSEGV, "segmentation fault")])
def test_exit_reasons(code, reason):
    km = SimpleNamespace(provisioner=SimpleNamespace(process=SimpleNamespace(poll=lambda: code)))
    assert reason in kernel._exit_reason(km)


# ------------------------------------------------------------ the fork server


def test_forked_kernels_are_fresh_processes_in_their_own_group(tmp_path):
    probe = "import os\nprint(os.getpid(), os.getpgid(0) == os.getpid(), os.getcwd())"
    first, result = run_cells(tmp_path / "a", ["import numpy\nnumpy._graded_by = 'someone'", probe])
    assert result.outcome == "completed"
    second, _ = run_cells(tmp_path / "b", ["import numpy\nprint(hasattr(numpy, '_graded_by'))", probe])
    assert stdout(second.cells[0]).strip() == "False"  # nothing leaks from one kernel to the next
    pid1, own1, cwd1 = stdout(first.cells[1]).split()
    pid2, own2, cwd2 = stdout(second.cells[1]).split()
    # In the sandbox each kernel is process 1 of a PID namespace of its own.
    assert (pid1 == pid2 == "1") if kernel.SANDBOX_BY_DEFAULT else pid1 != pid2
    assert own1 == own2 == "True"
    assert cwd1 == str(work_of(tmp_path / "a")) and cwd2 == str(work_of(tmp_path / "b"))


def test_a_dead_fork_server_is_replaced(tmp_path):
    run_cells(tmp_path / "a", ["x = 1"])
    server = kernel._Zygote._current
    assert server is not None and server.alive()
    server.proc.kill()
    server.proc.wait()
    _, result = run_cells(tmp_path / "b", ["x = 1"])
    assert result.outcome == "completed" and result.cells[0].status == "ok"
    assert kernel._Zygote._current is not server and kernel._Zygote._current.alive()


def test_without_the_fork_server_the_launcher_applies_the_same_limits(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORGRAD_GRADER_ZYGOTE", "0")
    nb, result = run_cells(
        tmp_path,
        ["import os, resource, sys\nprint(sys.executable, resource.getrlimit(resource.RLIMIT_AS)[0] // 2**20,"
         " os.getpgid(0) == os.getpid())", "import os\nos._exit(4)"],
        memory_mb=1024,
    )
    # (In the sandbox the kernel's bwrap leads the process group the grader signals.)
    assert stdout(nb.cells[0]).split() == [sys.executable, "1024", str(not kernel.SANDBOX_BY_DEFAULT)]
    assert result.outcome == "kernel_died" and "exited with code 4" in result.reason
