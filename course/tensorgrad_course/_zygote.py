"""A fork server for grading kernels: imports once, forks a fresh kernel per submission.

Starting an IPython kernel costs about a second of CPU, most of it importing
IPython, ipykernel, NumPy and tensorgrad. This process does those imports
**once** and then, for every submission, forks a child that becomes a brand
new kernel: its own process group, resource limits, working directory,
environment and connection file, with nothing shared with any other kernel
(a forked child gets a copy of the parent's memory, never a reference to it).
The grader talks to it over its stdin/stdout, one JSON object per line:

    {"op": "spawn", "argv": [...], "cwd": "...", "env": {...}, "limits": {...}}  -> {"pid": N}
    {"op": "poll", "pid": N}                     -> {"returncode": null | int}
    {"op": "wait", "pid": N, "timeout": S}       -> {"returncode": null | int}

Return codes follow ``subprocess``: the exit status, or minus the signal number.
The server exits when its stdin closes (the grading process ended).

With ``"sandbox": {"root": ..., "scratch": ..., "tmp_bytes": N}`` in a spawn
request (the server then runs inside the grader's bubblewrap sandbox,
:mod:`.sandbox`), the child takes namespaces of its own (:mod:`._isolate`) and
forks the kernel as process 1 of a new PID namespace; it stays as the kernel's
parent, waits for it and ends the way it ended. The reply's ``pid`` is the
kernel's (to signal it); ``poll`` and ``wait`` go through its parent.

Run by path (``python _zygote.py``, not ``-I``: kernels must see PYTHONPATH), with
the environment that kernels get, including ``PYTHONHASHSEED`` (it cannot be
changed after the interpreter starts). It never creates threads or ZeroMQ
sockets before forking; BLAS libraries run single-threaded
(``OPENBLAS_NUM_THREADS=1``), so forking is safe.
"""

import gc
import json
import os
import resource
import sys
import time

if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)  # don't make this folder's modules importable as top-level names

PRELOAD = (
    "ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "ipykernel.debugger",
    "IPython", "IPython.core.completerlib", "IPython.core.debugger", "IPython.core.oinspect",
    "IPython.extensions.storemagic", "numpy", "tensorgrad", "tensorgrad_course.checks",
    "tensorgrad_course._guard_kernel",
    # What a grading kernel imports anyway, once per kernel: the grader's setup cell (it watches
    # numpy.testing), t.measure, and IPython's and ipykernel's own lazy imports.
    "numpy.testing", "tensorgrad_course.measures", "sqlite3", "psutil", "pydoc", "IPython.core.logger",
)


def _preload() -> None:
    import importlib

    # No debugger in grading kernels: importing debugpy/pydevd is 40% of a kernel's
    # start-up, and nobody attaches a debugger to a grading run. ipykernel checks
    # for it with an ImportError, which this None entry produces.
    sys.modules["debugpy"] = None

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a kernel imports it again and reports the error
            pass
    # What was imported lives as long as every kernel: out of the garbage collector's sight
    # (gc.freeze), so that a kernel's collections neither walk those objects again nor write to
    # their pages, which the kernel would then have to copy from this process (copy-on-write).
    gc.collect()
    gc.freeze()


def _set(limit: int, value: int, hard=None) -> None:
    hard = value if hard is None else hard
    _, current_hard = resource.getrlimit(limit)
    if current_hard != resource.RLIM_INFINITY:
        value, hard = min(value, current_hard), min(hard, current_hard)
    resource.setrlimit(limit, (value, hard))


def _quiet(keep: tuple[int, ...] = ()) -> None:
    """stdin/stdout/stderr to /dev/null, every other descriptor closed but ``keep``."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    top = max((devnull, *keep)) + 1
    for fd in range(3, top):
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    os.closerange(top, 65536)


def _child(request: dict) -> None:
    """In the forked child: become a kernel. Never returns."""
    code = 1
    try:
        os.setsid()
        _quiet()
        limits = request.get("limits", {})
        if limits.get("memory_mb", 0) > 0:
            _set(resource.RLIMIT_AS, limits["memory_mb"] * 1024 * 1024)
        if limits.get("cpu_seconds", 0) > 0:
            _set(resource.RLIMIT_CPU, limits["cpu_seconds"], limits["cpu_seconds"] + 5)
        if limits.get("file_mb", 0) > 0:
            _set(resource.RLIMIT_FSIZE, limits["file_mb"] * 1024 * 1024)
        _set(resource.RLIMIT_CORE, 0)
        if limits.get("user"):  # no sandbox, grader is root: the kernel runs as an unprivileged user
            from tensorgrad_course._isolate import become

            become(*limits["user"])
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update({k: v for k, v in request["env"].items() if not k.startswith("JPY_")})
        sys.path.insert(0, request["cwd"])  # as `python -m ipykernel_launcher` would
        sys.argv = ["ipykernel_launcher", *request["argv"]]
        sys.stdin = open(os.devnull)  # noqa: SIM115
        sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115
        from IPython.core import application

        # No IPython configuration but the kernel's own fresh profile: nothing in /etc/ipython,
        # /usr/local/etc/ipython or the Python's etc/ipython runs at a grading kernel's start-up.
        application.SYSTEM_CONFIG_DIRS[:] = []
        application.ENV_CONFIG_DIRS[:] = []
        from ipykernel.kernelapp import IPKernelApp

        IPKernelApp.launch_instance(argv=request["argv"])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - the grader reads the exit status
        code = 1
    finally:
        os._exit(code)


def _isolated(request: dict, report: int) -> None:
    """In the forked child, in the sandbox: namespaces, then the kernel as their process 1. Never returns."""
    import signal

    from tensorgrad_course import _isolate

    try:
        _quiet(keep=(report,))
        _isolate.die_with_parent(signal.SIGKILL)
        _isolate.enter()
        ready_r, ready_w = os.pipe()
        kernel = os.fork()
        if kernel == 0:
            os.close(report)
            os.close(ready_r)
            try:
                _isolate.die_with_parent(signal.SIGKILL)
                box = request["sandbox"]
                _isolate.confine(box["root"], box["scratch"], int(box["tmp_bytes"]), box.get("keep", ()),
                                 shm_bytes=int(box.get("shm_bytes", 0)), inodes=int(box.get("inodes", 0)))
                os.write(ready_w, b"ok\n")
            except BaseException as exc:  # noqa: BLE001 - told to the grader
                os.write(ready_w, f"{type(exc).__name__}: {exc}\n".encode()[:1000])
                os._exit(1)
            os.close(ready_w)
            _child(request)
        os.close(ready_w)
        with os.fdopen(ready_r, "rb") as ready:
            answer = ready.readline().decode(errors="replace").strip() or "the kernel process ended at once"
        os.write(report, (f"pid {kernel}\n" if answer == "ok" else f"error {answer}\n").encode())
        os.close(report)
        while True:
            try:
                _, status = os.waitpid(kernel, 0)
                break
            except InterruptedError:
                continue
        if os.WIFSIGNALED(status):  # end the same way, so the grader reads the kernel's fate
            signum = os.WTERMSIG(status)
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
    except BaseException as exc:  # noqa: BLE001 - told to the grader
        try:
            os.write(report, f"error {type(exc).__name__}: {exc}\n".encode()[:1000])
        except OSError:
            pass
    os._exit(1)


def _spawn_isolated(request: dict) -> tuple[int, int]:
    """(kernel pid, pid of its parent, our child) for a sandboxed spawn request."""
    import select

    read, write = os.pipe()
    sys.stdout.flush()
    middle = os.fork()
    if middle == 0:
        os.close(read)
        _isolated(request, write)
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], 60.0)
        answer = os.read(read, 2000).decode(errors="replace").strip() if ready else "no answer in 60 s"
    finally:
        os.close(read)
    if not answer.startswith("pid "):
        try:
            os.kill(middle, 9)
        except OSError:
            pass
        os.waitpid(middle, 0)
        raise OSError(f"the kernel's sandbox could not be set up: {answer.removeprefix('error ')}")
    return int(answer.split()[1]), middle


def _returncode(status: int) -> int:
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def main() -> None:
    _preload()
    done: dict[int, int] = {}
    parents: dict[int, int] = {}  # sandboxed kernel's pid -> its parent, our child

    def reap(pid: int, block: bool = False):
        pid = parents.get(pid, pid)
        if pid in done:
            return done[pid]
        try:
            got, status = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return done.get(pid, -9)
        if got == 0:
            return None
        done[pid] = _returncode(status)
        return done[pid]

    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            op = request.get("op")
            if op == "spawn" and request.get("sandbox"):
                pid, parent = _spawn_isolated(request)
                parents[pid] = parent
                reply = {"pid": pid}
            elif op == "spawn":
                out.flush()
                pid = os.fork()
                if pid == 0:
                    _child(request)
                reply = {"pid": pid}
            elif op == "poll":
                reply = {"returncode": reap(int(request["pid"]))}
            elif op == "wait":
                end = time.monotonic() + float(request.get("timeout", 5.0))
                code = reap(int(request["pid"]))
                while code is None and time.monotonic() < end:
                    time.sleep(0.005)
                    code = reap(int(request["pid"]))
                reply = {"returncode": code}
            else:
                reply = {"error": f"unknown op {op!r}"}
        except Exception as exc:  # noqa: BLE001 - answer, never die
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
