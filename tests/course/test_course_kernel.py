"""The execution engine: the grader's own interpreter, resource limits, deadlines."""

import os
import shutil
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
    assert result.retried.startswith("the kernel did not start")
    # A kernel that starts without the limit: the reason names it (outside review s17, S6).
    assert result.reason == ("a kernel cannot start within the memory limit of 40 MB of address space here "
                             "(it starts without it): grade with a higher --memory")
    assert not result.limit and result.cells == {}


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


#: A kernel's try at the machine's settings, through libc (past any audit hook): a global one
#: written with the value it has (harmless if it goes through), then the host name, which every
#: later kernel of the same fork server would read if the two shared it.
_SETTINGS_PROBE = (
    "import ctypes, os, socket\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "def write(path, text):\n"
    "    fd = libc.open(path.encode(), os.O_WRONLY)\n"
    "    if fd < 0:\n"
    "        return os.strerror(ctypes.get_errno())\n"
    "    done = libc.write(fd, text.encode(), len(text))\n"
    "    libc.close(fd)\n"
    "    return 'written' if done == len(text) else os.strerror(ctypes.get_errno())\n"
    "print(write('/proc/sys/vm/swappiness', open('/proc/sys/vm/swappiness').read()))\n"
    "print(write('/proc/sys/kernel/hostname', 'student-1'))\n"
    "print(socket.gethostname())\n"
    "import subprocess, sys\n"  # (a new process: unshare refuses a new user namespace to a threaded one)
    "print(subprocess.run([sys.executable, '-c', 'import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); '\n"
    "                      'print(\"unshared\" if libc.unshare(0x10000000) == 0 else os.strerror(ctypes.get_errno()))'],\n"
    "                     capture_output=True, text=True).stdout.strip())"
)


def test_a_kernel_can_set_nothing_of_the_machine_nor_what_the_next_kernel_sees(tmp_path):
    """A grader running as root (Gradescope's container) is the host's uid 0 underneath each
    kernel's namespaces, and Linux lets the host's uid 0 write the global /proc/sys whatever its
    capabilities: so /proc/sys is read-only in every kernel, and the host name is each kernel's own.
    Nor can a kernel make a user namespace of its own, where it would have every capability again."""
    if not kernel.SANDBOX_BY_DEFAULT:
        pytest.skip("without the sandbox a kernel runs as an unprivileged user")
    first, _ = run_cells(tmp_path / "a", [_SETTINGS_PROBE])
    second, _ = run_cells(tmp_path / "b", [_SETTINGS_PROBE])
    for nb in (first, second):
        global_setting, host_name, seen, user_namespace = stdout(nb.cells[0]).splitlines()
        assert (global_setting, host_name) == ("Read-only file system", "Read-only file system")
        assert seen == "grader"
        assert user_namespace == "No space left on device"  # (no user namespace of its own: ENOSPC)


# ------------------------------------------------------------ a kernel started ahead

#: A mark no other process on the machine carries: the first student's background processes.
_MARK = "tg-started-ahead-probe-4f1c"

#: What the first student's notebook leaves behind (files, environment, modules, processes), then
#: what it tries, while the next student's kernel is already started, to find or reach that kernel.
_FIRST_STUDENT = [
    "import builtins, os, sys, types, numpy, tensorgrad\n"
    "numpy._graded_by = builtins._graded_by = tensorgrad._graded_by = 'student 1'\n"
    "sys.modules['tg_left_by_student_1'] = types.ModuleType('tg_left_by_student_1')\n"
    "os.environ['GRADED_BY'] = 'student 1'\n"
    "os.putenv('GRADED_BY_C', 'student 1')\n"
    "written = []\n"
    "for folder in (os.getcwd(), os.environ['HOME'], '/tmp', '/dev/shm', os.path.dirname(os.environ['HOME']), '/'):\n"
    "    try:\n"
    "        open(os.path.join(folder, 'left_by_student_1'), 'w').write('1')\n"
    "        written.append(folder)\n"
    "    except OSError:\n"
    "        pass\n"
    "print(written)",
    # Processes that outlive the notebook if nothing stops them: one in the kernel's group, one
    # in a session of its own, one double-forked away from the kernel.
    "import os, subprocess, sys\n"
    f"code = 'import time\\nwhile True: time.sleep(0.05)  # {_MARK}'\n"
    "subprocess.Popen([sys.executable, '-c', code])\n"
    "subprocess.Popen([sys.executable, '-c', code], start_new_session=True)\n"
    "if os.fork() == 0:\n"
    "    if os.fork() == 0:\n"
    "        os.setsid()\n"
    "        os.execv(sys.executable, [sys.executable, '-c', code])\n"
    "    os._exit(0)\n"
    "os.wait()",
    # The next kernel is started by now (the grader starts it as this notebook begins): can this
    # kernel see it, its folder, its sockets or its process?
    "import glob, os, time\n"
    "time.sleep(1.0)\n"
    "root = os.path.dirname(os.environ['HOME'])\n"
    "print(sorted(os.listdir(root)) == [os.path.basename(os.environ['HOME'])])\n"
    "names = set()\n"
    "for pid in (p for p in os.listdir('/proc') if p.isdigit()):\n"
    "    try:\n"
    "        names.add(open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\\0', b' ').decode())\n"
    "    except OSError:\n"
    "        pass\n"
    "print(sum('_zygote' in n for n in names), len(names))\n"
    "print(sorted(p for p in glob.glob('/tmp/**', recursive=True) + glob.glob(root + '/**', recursive=True)\n"
    "             if ('zmq' in p or p.endswith('kernel.json')) and not p.startswith(os.environ['HOME'])))",
]
_SECOND_STUDENT = [
    "import builtins, os, sys, numpy, tensorgrad\n"
    "print(hasattr(numpy, '_graded_by'), hasattr(builtins, '_graded_by'), hasattr(tensorgrad, '_graded_by'),"
    " 'tg_left_by_student_1' in sys.modules)\n"
    "print('GRADED_BY' in os.environ, 'GRADED_BY_C' in os.environ)\n"
    "print([f for f in (os.getcwd(), os.environ['HOME'], '/tmp', '/dev/shm', os.path.dirname(os.environ['HOME']), '/')"
    " if os.path.exists(os.path.join(f, 'left_by_student_1'))])\n"
    "print(os.getcwd())\n"
    "print(sorted(os.listdir(os.getcwd())))",
    "import os\n"
    "seen = []\n"
    "for pid in (p for p in os.listdir('/proc') if p.isdigit()):\n"
    "    try:\n"
    "        seen.append(open(f'/proc/{pid}/cmdline', 'rb').read().decode(errors='replace'))\n"
    "    except OSError:\n"
    "        pass\n"
    f"print(sum({_MARK!r} in c for c in seen), len(seen))",
]


def _marked_processes() -> list[int]:
    """The first student's background processes still alive anywhere on this machine."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            if _MARK.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            pass
    return found


def test_a_kernel_started_ahead_is_fresh_and_out_of_reach_of_the_run_that_started_it(tmp_path):
    """While one submission runs, the grading process starts the next one's kernel (``prestart``);
    the next submission gets that kernel, in which nothing ran, and nothing the first wrote (files,
    environment, modules, processes) reaches it, though it was alive while the first ran."""
    if not (kernel.SANDBOX_BY_DEFAULT and kernel._prestarts(Limits())):
        pytest.skip("kernels are started ahead only in the nested sandbox, with its fork server")
    limits = Limits()
    kernel._drop_spare()
    first = kernel.new_scratch("tg-test-", limits)
    (first / "work").mkdir()
    nb1 = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in _FIRST_STUDENT])
    result1 = run_notebook(nb1, limits, first / "work", kernel_env(first, []), prestart="tg-test-")
    assert result1.outcome == "completed" and all(c.status == "ok" for c in result1.cells.values()), result1
    assert stdout(nb1.cells[0]).strip() == str([str(first / "work"), str(first), "/tmp", "/dev/shm"])
    # It saw only its own folder in the sandbox root, one kernel (itself), and no other kernel's sockets.
    root, kernels, sockets = stdout(nb1.cells[2]).splitlines()
    assert (root, kernels.split()[0], sockets) == ("True", "1", "[]"), stdout(nb1.cells[2])
    assert _marked_processes() == []  # its processes died with it, detached ones included
    spare = kernel._spare
    assert spare is not None and spare.prefix == "tg-test-" and spare.scratch != first
    pid = spare.km.provisioner.pid
    os.kill(pid, 0)  # (alive, waiting: the grader's PID namespace holds the fork server's children)
    try:
        second = kernel.new_scratch("tg-test-", limits)
        assert second == spare.scratch  # the next run gets the kernel started ahead...
        (second / "work").mkdir(exist_ok=True)
        (second / "work" / "submission.ipynb").write_text("{}")
        nb2 = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in _SECOND_STUDENT])
        result2 = run_notebook(nb2, limits, second / "work", kernel_env(second, []))
        assert result2.outcome == "completed", result2
        assert kernel._claim(second, limits, kernel_env(second, [])) is None  # ...once: it was claimed
        assert kernel._spare is None  # (no prestart asked: none started for a third run)
        modules, env, left, cwd, files = stdout(nb2.cells[0]).splitlines()
        assert modules == "False False False False" and env == "False False" and left == "[]"
        assert cwd == str(second / "work") and files == "['submission.ipynb']"
        marked, processes = stdout(nb2.cells[1]).split()
        assert marked == "0" and int(processes) >= 1
    finally:
        for folder in (first, spare.scratch):
            shutil.rmtree(folder, ignore_errors=True)
    with pytest.raises(ProcessLookupError):  # the kernel of the second run is gone with it
        os.kill(pid, 0)


def test_a_kernel_started_ahead_for_other_limits_or_folders_is_not_used(tmp_path):
    if not (kernel.SANDBOX_BY_DEFAULT and kernel._prestarts(Limits())):
        pytest.skip("kernels are started ahead only in the nested sandbox, with its fork server")
    kernel._drop_spare()
    first = kernel.new_scratch("tg-test-", Limits())
    (first / "work").mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    assert run_notebook(nb, Limits(), first / "work", kernel_env(first, []), prestart="tg-test-").outcome == "completed"
    spare = kernel._spare
    assert spare is not None
    other = kernel.new_scratch("tg-test-", Limits(memory_mb=900))  # other limits: a folder of its own
    assert other != spare.scratch and kernel._spare is spare
    assert kernel.new_scratch("tg-other-", Limits()) != spare.scratch
    handed = kernel.new_scratch("tg-test-", Limits())
    assert handed == spare.scratch
    # Handed out and never run (its caller failed): the next caller gets a new folder, and the kernel is killed.
    again = kernel.new_scratch("tg-test-", Limits())
    assert again != handed and kernel._spare is None
    with pytest.raises(ProcessLookupError):
        os.kill(spare.km.provisioner.pid, 0)
    for folder in (first, other, handed, again):
        shutil.rmtree(folder, ignore_errors=True)


def test_kernels_are_started_ahead_only_in_the_nested_sandbox(monkeypatch):
    """Elsewhere two kernels of one grading process would run as one user, in one PID namespace."""
    if kernel.sandbox.mode()[0] != "nested":
        pytest.skip("no nested sandbox here")
    assert kernel._prestarts(Limits(sandbox=True))
    assert not kernel._prestarts(Limits(sandbox=False))
    for name, value in (("TENSORGRAD_SANDBOX_MODE", "per_kernel"), ("TENSORGRAD_SANDBOX_MODE", "no_proc"),
                        ("TENSORGRAD_GRADER_ZYGOTE", "0"), ("TENSORGRAD_GRADER_PRESTART", "0")):
        with monkeypatch.context() as patch:
            patch.setenv(name, value)
            kernel.sandbox.mode.cache_clear()  # (it reads TENSORGRAD_SANDBOX_MODE once)
            try:
                assert not kernel._prestarts(Limits(sandbox=True)), (name, value)
            finally:
                kernel.sandbox.mode.cache_clear()


def test_prestart_only_where_a_core_would_idle(monkeypatch):
    """Started ahead, a kernel's start leaves the submission's path but not the CPU: with as many
    grading processes as cores it slows the batch (145 against 157 a minute on 2 cores at --jobs 2)."""
    monkeypatch.delenv("TENSORGRAD_GRADER_PRESTART", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    assert kernel.prestart_pays(1)
    assert not kernel.prestart_pays(2) and not kernel.prestart_pays(3)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    assert kernel.prestart_pays(4) and not kernel.prestart_pays(8)
    monkeypatch.setenv("TENSORGRAD_GRADER_PRESTART", "1")
    assert kernel.prestart_pays(8)
    monkeypatch.setenv("TENSORGRAD_GRADER_PRESTART", "0")
    assert not kernel.prestart_pays(1)


@pytest.mark.parametrize("pays", [True, False])
def test_a_batch_asks_for_prestart_only_where_it_pays(pays, monkeypatch, tmp_path):
    """grade_batch hands each run the prestart :func:`kernel.prestart_pays` chose for its processes."""
    import json

    from tensorgrad_course import grade

    root = Path(__file__).resolve().parents[2]
    source = next((root / "solutions").glob("03_*.ipynb"))
    asked, processes = [], []

    def fake_run(nb, limits, workdir, env, *, prestart=None):
        asked.append(prestart)
        return kernel.RunResult(outcome="kernel_died", stopped_at=-1, reason="not run in this test")

    def fake_pays(n):
        processes.append(n)
        return pays

    monkeypatch.setattr(grade, "run_notebook", fake_run)
    monkeypatch.setattr(grade, "prestart_pays", fake_pays)
    subs = []
    for name in ("a", "b", "c"):
        path = tmp_path / name / source.name
        path.parent.mkdir()
        path.write_text(json.dumps(json.loads((root / "exercises" / source.name).read_text())))
        subs.append(grade.Submission(name, str(path)))
    expected = {source.stem: object()}  # (no solution runs: the runs are faked)
    monkeypatch.setattr(grade, "prepare_expected", lambda names, *a, **k: {n: expected[n] for n in names})
    results = grade.grade_batch(subs, root / "solutions", root / "exercises", Limits(sandbox=False), jobs=1)
    assert [r.status for r in results] == ["grader_error"] * 3
    assert processes == [1] and asked == [grade._SCRATCH if pays else None] * 3


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
