"""Run a notebook in a fresh, resource-limited kernel, and report each cell's outcome.

This is the grader's execution engine. It knows nothing about tasks or points:
it returns, for every code cell it ran, ``ok`` / ``error`` / ``timeout`` plus the
exception name and message, and how the run ended (``completed``, ``timeout``,
``kernel_died``). :mod:`.grade` turns that into scores.

How a cell's outcome is decided
    From the ``status`` field of the kernel's ``execute_reply`` for that cell,
    captured with nbclient's ``on_cell_executed`` hook. That status is set by
    IPython from whether the code raised, so it is not affected by anything the
    cell *displays*: stderr, warnings, ``clear_output``, or a student replacing
    ``showtraceback`` to hide error output (what graders that read outputs fall
    for). A sentinel printed at the end of each test cell was rejected for the
    same reason: it travels as output, which the student's code can suppress
    (a false fail) or print itself (a false pass). Nothing of the student's
    file decides which code runs (:mod:`.assemble`), and functions the tests
    rely on are restored before each test (:mod:`.guard`).

Deadlines
    * per cell: nbclient's timeout with ``interrupt_on_timeout``; the cell is
      recorded as ``timeout`` at once (``error_on_timeout``) and the kernel gets
      SIGINT. A short probe then checks that the kernel answers again; if it does
      not (a loop that swallows KeyboardInterrupt), the run stops as ``timeout``
      instead of waiting out every later cell.
    * per notebook: each cell's timeout is capped by the time left, and a
      watchdog thread SIGKILLs the kernel's process group if the deadline passes
      anyway (a hang at start-up, an output flood...). It kills by pid, so it
      works whatever the event loop is doing.

Resource limits
    Each kernel gets RLIMIT_AS (memory), RLIMIT_CPU, RLIMIT_FSIZE and no core
    dumps. The interpreter is always the grader's own (``sys.executable``); the
    notebook's kernelspec is ignored, so a submission naming a kernel that does
    not exist is graded all the same.

Starting kernels fast
    A kernel is forked from a fork server (:mod:`._zygote`) that has imported
    IPython, ipykernel, NumPy and tensorgrad once, which saves most of a
    kernel's start-up CPU time. The child is a fresh process in its own process
    group, and sets its limits, folder and environment before it becomes a
    kernel. Such kernels have no debugger (debugpy is not importable in them;
    loading it was 40% of a kernel's start-up). Without the server
    (``TENSORGRAD_GRADER_ZYGOTE=0``, or if it cannot start) the kernel is
    launched through :mod:`._launch_limited`, which sets the same limits and
    then execs ``python -m ipykernel_launcher``. The client side skips
    jupyter_client's fixed 0.2 s wait at start-up (:class:`_QuickClient`). In the
    ``nested`` sandbox a grading process that leaves a core idle starts its next
    submission's kernel while the current notebook runs (:class:`_Spare`, :func:`prestart_pays`),
    so that the next run finds it ready.
    ``bench/grading_timeline.py`` shows where a submission's time goes.

The sandbox
    With ``Limits.sandbox`` (the default) every kernel runs inside bubblewrap
    (:mod:`.sandbox`): the fork server runs in one ``bwrap`` sandbox per
    grading process, and each kernel it forks takes user, mount, PID and IPC
    namespaces of its own (:mod:`._isolate`); without the fork server each
    kernel gets its own ``bwrap``. The kernel's scratch folder (from
    :func:`new_scratch`, inside the sandbox root) is the only folder it can
    write, and the client reaches it over ZeroMQ's ``ipc`` transport (Unix
    sockets in that folder), since the kernel has no network.
    Without the sandbox (``--no-sandbox``) a kernel has no PID namespace to take
    its processes with it; :class:`.sandbox.Strays` kills, after each run, every
    process it started, detached ones included, and counts those
    (``RunResult.lingering``).

Output is kept up to ``output_cap`` bytes per cell (the rest is dropped), whatever the message kind
(text, display data, ``error`` tracebacks, widget comm state), so a
50 MB print cannot exhaust the grader's memory.

Grader records
    Display data of MIME type :data:`.values.MIME` (what :mod:`.checks` sends
    from a test cell) is not kept as output: it is collected per cell index in
    ``RunResult.records``, outside the output cap (it has its own,
    ``records_cap`` bytes per notebook) and out of reach of ``clear_output``.
    nbclient files every message under the cell whose execute request it
    answers, so the grader knows which cell sent which record.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import math
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from queue import Empty

import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from traitlets import Bool, Int, List, Tuple, Unicode

from . import defaults, sandbox
from .notebooks import MAX_JSON_ITEMS, json_items
from .values import MIME

_LAUNCHER = str(Path(__file__).with_name("_launch_limited.py"))
_ZYGOTE = str(Path(__file__).with_name("_zygote.py"))
_ZYGOTE_START_TIMEOUT = 120.0  # seconds for the fork server's imports, on a loaded machine
_ZYGOTE_REPLY_TIMEOUT = 30.0  # seconds for any answer of the fork server (beyond a wait's own)
#: Environment variables that differ between grading runs (applied in each forked kernel).
_PER_RUN_ENV = ("IPYTHONDIR", "JUPYTER_RUNTIME_DIR", "HOME", "MPLCONFIGDIR", "TMPDIR")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_TIMEOUT_ENAME = "CellTimeout"
_MAX_MESSAGE = 2000
#: Whether ``Limits()`` sandboxes kernels; only ``--no-sandbox`` (or a test without bwrap) turns it off.
SANDBOX_BY_DEFAULT = True


@dataclass(frozen=True)
class Limits:
    """Time and resource limits for one notebook run (seconds, MiB)."""

    cell_timeout: float = defaults.cell_timeout
    notebook_timeout: float = defaults.notebook_timeout
    memory_mb: int = defaults.memory_mb
    file_mb: int = defaults.file_mb  # one file's size (0: no limit)
    output_cap: int = 1_000_000  # bytes of output kept per cell
    records_cap: int = 20_000_000  # bytes of grader records kept per notebook
    startup_timeout: float = 60.0
    interrupt_grace: float = 5.0  # after a timeout, time for the kernel to answer again
    processes: int = defaults.processes  # processes and threads of one kernel at once (0: no limit); see _Monitor
    disk_mb: int = defaults.disk_mb  # megabytes written into the kernel's folder (0: no limit); see _Monitor
    disk_files: int = defaults.disk_files  # files and folders in the kernel's folder (0: no limit); see _Monitor
    sandbox: bool = field(default_factory=lambda: SANDBOX_BY_DEFAULT)  # bubblewrap (see .sandbox)

    def cpu_seconds(self) -> int:
        # CPU time can exceed wall time only with threads; this is a backstop.
        return int(self.notebook_timeout) + 10


@dataclass
class CellResult:
    status: str  # "ok" | "error" | "timeout"
    ename: str = ""
    evalue: str = ""
    duration: float = 0.0


@dataclass
class RunResult:
    cells: dict[int, CellResult] = field(default_factory=dict)
    outcome: str = "completed"  # "completed" | "timeout" | "kernel_died"
    reason: str = ""
    # If the run stopped early: the cell it stopped at (-1 if the kernel never
    # started). Code cells from there on without an entry in ``cells`` did not run.
    stopped_at: int | None = None
    duration: float = 0.0
    # Grader records (display data of MIME type values.MIME) by the index of the
    # cell that sent them, in order; and how many were dropped over the cap.
    records: dict[int, list] = field(default_factory=dict)
    records_dropped: int = 0
    # Messages the grader would not parse (safe_unpack), by cell; and whether one stopped the run.
    unreadable_cells: dict[int, list] = field(default_factory=dict)
    unreadable: bool = False
    limit: str = ""  # the per-kernel limit (processes, disk) the kernel broke, if it was stopped for one
    # Without a sandbox: how many processes the kernel started outside its process group were still
    # running when it was killed (they were killed then: sandbox.Strays).
    lingering: int = 0
    # Why the first kernel died at start-up, if this run is the second try (:func:`run_notebook`).
    retried: str = ""
    # Whether no kernel started because of the memory limit (a kernel starts without it): the
    # instructor's setting, not the student's doing nor a passing failure (:func:`_memory_too_small`).
    too_little_memory: bool = False


class _ZygoteProcess:
    """A ``subprocess.Popen`` look-alike for a kernel forked by the fork server."""

    stdin = stdout = stderr = None

    def __init__(self, zygote: "_Zygote", pid: int) -> None:
        self.zygote = zygote
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.zygote.returncode(self.pid, wait=0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.returncode = self.zygote.returncode(self.pid, wait=3600.0 if timeout is None else timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class _Zygote:
    """The grader's side of :mod:`._zygote`: one fork server per process, started on first use."""

    _current: "_Zygote | None" = None

    def __init__(self, env: dict[str, str], key: str, sandboxed: bool) -> None:
        self.key = key
        self.owner = os.getpid()
        self.lock = threading.Lock()
        self.sandbox_root = str(sandbox.root()) if sandboxed else None
        command = [sys.executable, _ZYGOTE]
        cwd = env.get("HOME") or "/"
        if sandboxed:
            server_env = {k: v for k, v in env.items() if not k.startswith("JPY_")}
            server_env["HOME"] = cwd = self.sandbox_root
            command = [sandbox.bwrap()[0], *sandbox.bwrap_argv(Path(self.sandbox_root), env=server_env, cwd=cwd),
                       *command]
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, cwd=cwd, start_new_session=True,
            text=True, bufsize=1,
        )
        ready = self._readline(_ZYGOTE_START_TIMEOUT)
        if not ready.startswith('{"ready"'):
            self.proc.kill()
            raise OSError("the grader's fork server did not start")

    @classmethod
    def for_env(cls, env: dict[str, str], sandboxed: bool = False) -> "_Zygote | None":
        """The fork server for kernels with ``env`` (restarted if that changed); None if disabled."""
        if os.environ.get("TENSORGRAD_GRADER_ZYGOTE", "1") == "0":
            return None
        if sandboxed and sandbox.mode()[0] != "nested":
            return None  # a fallback sandbox: one bwrap per kernel (sandbox.mode)
        key = repr((sandboxed, sorted((k, v) for k, v in env.items()
                                      if k not in _PER_RUN_ENV and not k.startswith("JPY_"))))
        current = cls._current
        if current is not None and (current.owner != os.getpid() or current.key != key or not current.alive()):
            if current.owner == os.getpid():
                current.close()
            cls._current = current = None  # (a forked copy of another process's server is left alone)
        if current is None:
            try:
                cls._current = current = cls(env, key, sandboxed)
            except OSError:
                if sandboxed:
                    raise
                return None
            atexit.register(current.close)
        return current

    def alive(self) -> bool:
        return self.proc.poll() is None

    @classmethod
    def discard(cls) -> None:
        """Close this process's fork server (and its sandbox): the next kernel starts in a fresh one."""
        current = cls._current
        if current is not None and current.owner == os.getpid():
            _drop_spare()  # (a kernel of that server)
            current.close()
            cls._current = None

    def _readline(self, timeout: float) -> str:
        """A line from the server, or "" if none comes within ``timeout`` s (then it is killed)."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.proc.kill()
            return ""
        return self.proc.stdout.readline()

    def request(self, message: dict) -> dict:
        with self.lock:
            try:
                self.proc.stdin.write(json.dumps(message) + "\n")
                self.proc.stdin.flush()
            except (OSError, ValueError) as exc:
                raise OSError(f"the grader's fork server has stopped ({exc})") from None
            line = self._readline(float(message.get("timeout") or 0) + _ZYGOTE_REPLY_TIMEOUT)
        if not line:
            raise OSError("the grader's fork server has stopped")
        reply = json.loads(line)
        if "error" in reply:
            raise OSError(f"the grader's fork server: {reply['error']}")
        return reply

    def spawn(self, argv: list[str], cwd: str, env: dict[str, str], limits: dict, scratch: str | None = None) -> int:
        request = {"op": "spawn", "argv": argv, "cwd": cwd, "env": env, "limits": limits}
        if self.sandbox_root is not None:
            request["sandbox"] = {"root": self.sandbox_root, "scratch": scratch,
                                  "tmp_bytes": sandbox.TMP_MB * 2**20, "keep": sandbox.readonly_below_tmp(),
                                  **sandbox.private_tmpfs(limits.get("disk_mb", 0), limits.get("disk_files", 0))}
        return int(self.request(request)["pid"])

    def returncode(self, pid: int, wait: float) -> int | None:
        try:
            reply = self.request({"op": "wait" if wait > 0 else "poll", "pid": pid, "timeout": wait})
        except (OSError, ValueError):
            return -signal.SIGKILL  # the server is gone, and its children with their process groups
        return reply["returncode"]

    def close(self) -> None:
        if self.owner != os.getpid():
            return
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


#: The largest kernel message the grader parses, and the deepest nesting it accepts in one.
MAX_MESSAGE_BYTES = 64 * 2**20
MAX_MESSAGE_DEPTH = 64
#: The key of the content that stands for a kernel message the grader would not parse.
UNREADABLE = "tensorgrad_unreadable"


def _too_deep(obj, limit: int) -> bool:
    """Whether parsed JSON ``obj`` nests more than ``limit`` levels (iteratively: no recursion)."""
    stack = [(obj, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if type(node) is dict:
            stack.extend((v, depth + 1) for v in node.values())
        elif type(node) is list:
            stack.extend((v, depth + 1) for v in node)
    return False


def safe_unpack(data: bytes | str):
    """The grader's JSON reader for kernel messages: bounded in size and depth, never raises.

    Everything a kernel sends is the student's to choose: 20,000 nested lists would
    make the standard reader, and any recursive code after it, raise RecursionError
    in the grader. Such a part of a message becomes ``{UNREADABLE: why}``, and the
    cell that sent it fails with that note.
    """
    if len(data) > MAX_MESSAGE_BYTES:
        return {UNREADABLE: f"a message of {len(data)} bytes (more than {MAX_MESSAGE_BYTES})"}
    raw = data if isinstance(data, bytes) else data.encode("utf8", "replace")
    if json_items(raw) > MAX_JSON_ITEMS:  # (before parsing: 30 MB of {} would take the grader 1.6 GB)
        return {UNREADABLE: f"a message of more than {MAX_JSON_ITEMS:,} values"}
    try:
        obj = json.loads(data.decode("utf8", "replace") if isinstance(data, bytes) else data)
    except (RecursionError, ValueError, MemoryError) as exc:
        return {UNREADABLE: f"a message that is not readable JSON ({type(exc).__name__})"}
    if raw.count(b"[") + raw.count(b"{") > MAX_MESSAGE_DEPTH and _too_deep(obj, MAX_MESSAGE_DEPTH):
        return {UNREADABLE: f"a message nested more than {MAX_MESSAGE_DEPTH} levels deep"}
    return obj


class _QuickClient(AsyncKernelClient):
    """jupyter_client's kernel client, without the fixed 0.2 s IOPub wait at start-up.

    ``wait_for_ready`` ends by draining IOPub until it has been silent for 0.2 s:
    a fifth of a second per kernel, a tenth of the whole grading time of a short
    notebook. Here it ends as soon as the kernel has answered ``kernel_info`` on
    the shell channel and IOPub has brought a message (so it is connected), with
    no wait for silence: nbclient ignores IOPub messages that do not answer the
    cell it runs, so the rest of the start-up's status messages are harmless.
    """

    def start_channels(self, *args, **kwargs) -> None:
        # The kernel binds its sockets a moment after it starts; until then the
        # client's connections are retried every RECONNECT_IVL (ZeroMQ: 100 ms).
        self.context.setsockopt(zmq.RECONNECT_IVL, 10)
        self.session.unpack = safe_unpack  # the kernel's messages are the student's data
        super().start_channels(*args, **kwargs)

    async def _async_wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (math.inf if timeout is None else timeout)
        while True:
            self.kernel_info()
            try:
                msg = await self.shell_channel.get_msg(timeout=1)
            except Empty:
                pass
            else:
                if msg["msg_type"] == "kernel_info_reply":
                    try:  # IOPub is connected once it brings the kernel_info's status
                        await self.iopub_channel.get_msg(timeout=0.2)
                    except Empty:
                        pass
                    else:
                        self._handle_kernel_info_reply(msg)
                        return
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")

    wait_for_ready = _async_wait_for_ready


class LimitedKernelManager(AsyncKernelManager):
    """A kernel manager that starts ``sys.executable``'s ipykernel under resource limits.

    Kernels are forked from the fork server (:mod:`._zygote`) when it is available,
    else started through the :mod:`._launch_limited` wrapper; either way the
    kernel is a fresh process in its own process group, with the same limits.
    """

    launcher_args = List(Unicode())
    #: The kernel's scratch folder when it runs in the sandbox; "" without the sandbox.
    sandbox_scratch = Unicode("")
    #: Without the sandbox, as root: the kernel's scratch folder, which the unprivileged user
    #: the kernel runs as (:func:`.sandbox.kernel_user`) owns; "" otherwise.
    user_scratch = Unicode("")
    #: (megabytes, files) of the disk limit (:class:`Limits`): the size of a sandboxed kernel's own
    #: /dev/shm and the files its /tmp and /dev/shm may hold (:func:`.sandbox.private_tmpfs`).
    disk_limits = Tuple(Int(0), Int(0))
    #: Ask the fork server from a thread, so that the event loop goes on meanwhile (a kernel
    #: started ahead while another notebook runs: :func:`_start_spare`).
    spawn_in_thread = Bool(False)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.client_factory = _QuickClient
        if self.sandbox_scratch:
            # No network in the sandbox: ZeroMQ over Unix sockets in the kernel's own folder.
            self.transport = "ipc"
            self.ip = os.path.join(self.sandbox_scratch, "zmq")
            self.connection_file = os.path.join(self.sandbox_scratch, "kernel.json")
        elif self.user_scratch:  # (where the kernel's user can read it: the grader's runtime folder is root's)
            self.connection_file = os.path.join(self.user_scratch, "kernel.json")

    def _kernel_user(self) -> tuple[int, int, str] | None:
        return sandbox.kernel_user()[0] if self.user_scratch else None

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        kernel = [
            sys.executable, "-m", "ipykernel_launcher",
            "-f", os.path.realpath(self.connection_file),
            *(extra_arguments or []),
        ]
        user = self._kernel_user()
        who = ["--uid", str(user[0]), "--gid", str(user[1])] if user else []
        return [sys.executable, "-I", _LAUNCHER, *self.launcher_args, *who, "--", *kernel]

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        env = kw.get("env") or dict(os.environ)
        sandboxed = bool(self.sandbox_scratch)
        user = self._kernel_user()
        if user:
            os.chown(self.connection_file, user[0], user[1])
        zygote = _Zygote.for_env(env, sandboxed)
        cwd = str(kw.get("cwd") or os.getcwd())
        if zygote is not None:
            argv = kernel_cmd[kernel_cmd.index("ipykernel_launcher") + 1 :]
            values = dict(zip(self.launcher_args[::2], (int(v) for v in self.launcher_args[1::2])))
            limits = {"memory_mb": values.get("--memory-mb", 0), "cpu_seconds": values.get("--cpu-seconds", 0),
                      "file_mb": values.get("--file-mb", 0), "disk_mb": self.disk_limits[0],
                      "disk_files": self.disk_limits[1]}
            if user:
                limits["user"] = [user[0], user[1]]
            try:
                spawn = (zygote.spawn, argv, cwd, env, limits, self.sandbox_scratch or None)
                pid = await _in_thread(*spawn) if self.spawn_in_thread else spawn[0](*spawn[1:])
            except (OSError, ValueError):
                if sandboxed:
                    raise  # never fall back to a kernel outside the sandbox
                # else fall back to the wrapper below
            else:
                provisioner = self.provisioner
                provisioner.process = _ZygoteProcess(zygote, pid)
                provisioner.pid = provisioner.pgid = pid  # the child called setsid()
                provisioner.cwd = cwd
                self._reconcile_connection_info(provisioner.connection_info)
                return
        if sandboxed:  # one bwrap per kernel, with its own PID namespace
            clean = {k: v for k, v in env.items() if not k.startswith("JPY_")}
            box = sandbox.bwrap_argv(Path(self.sandbox_scratch), per_kernel=True, env=clean, cwd=cwd,
                                     proc=sandbox.mode()[0] != "no_proc")
            kernel_cmd = [sandbox.bwrap()[0], *box, *kernel_cmd]
        await super()._async_launch_kernel(kernel_cmd, **kw)


class _CappedClient(NotebookClient):
    """nbclient that keeps at most ``output_cap`` bytes of output per cell."""

    def __init__(self, nb, km=None, output_cap: int = 1_000_000, records_cap: int = 20_000_000, **kw):
        super().__init__(nb, km=km, **kw)
        self._output_cap = output_cap
        self._output_used: dict[int, int] = {}
        self._records_cap = records_cap
        self._records_used = 0
        self.records: dict[int, list] = {}
        self.records_dropped = 0
        self.unreadable: dict[int, list[str]] = {}

    def _take_record(self, cell_index: int, record) -> None:
        try:
            size = len(json.dumps(record))
        except (TypeError, ValueError):
            size = 0
            record = {"malformed": True}
        if self._records_used + size > self._records_cap:
            self.records_dropped += 1
            return
        self._records_used += size
        self.records.setdefault(cell_index, []).append(record)

    def process_message(self, msg, cell, cell_index):
        # Every message the client may keep counts against the cell's one output cap, whatever its
        # kind: an ``error``'s evalue and traceback and a widget's comm state are kept as surely as
        # printed text (nbclient keeps an output widget's comm for the rest of the notebook).
        kind = msg.get("msg_type", "")
        if kind not in _UNKEPT and not _is_record(msg.get("content", {})):
            if not self._charge(cell.outputs, cell_index, _message_bytes(msg)):
                return None
        return super().process_message(msg, cell, cell_index)

    def _charge(self, outs, cell_index: int, size: int) -> bool:
        """Count ``size`` bytes against the cell's output cap; False (and a note, once) past it."""
        used = self._output_used.get(cell_index, 0)
        self._output_used[cell_index] = used + size
        if used + size <= self._output_cap:
            return True
        if used <= self._output_cap:
            outs.append({"output_type": "stream", "name": "stderr",
                         "text": f"[grader: output beyond {self._output_cap} bytes dropped]\n"})
        return False

    def output(self, outs, msg, display_id, cell_index):
        content = msg.get("content", {})
        if UNREADABLE in content:  # (safe_unpack): kept as a malformed record, which the grader reports
            self.unreadable.setdefault(cell_index, []).append(str(content[UNREADABLE]))
            self._take_record(cell_index, {"malformed": True, "why": str(content[UNREADABLE])})
            return None
        if _is_record(content):
            # A grader record: collected aside (never shown, never capped with the
            # output, never cleared). Only display_data counts; anything else
            # carrying the MIME type (an execute_result...) is kept as a record
            # marked so, and the grader flags it.
            record = content["data"][MIME]
            if msg.get("msg_type") != "display_data":
                record = {"malformed": True, "msg_type": msg.get("msg_type")}
            self._take_record(cell_index, record)
            return None
        return super().output(outs, msg, display_id, cell_index)


#: Kernel messages the client keeps nothing of (nor drops: a cell ends on its idle ``status``).
_UNKEPT = frozenset({"status", "execute_input", "clear_output"})


def _is_record(content) -> bool:
    """Whether a message's content is a grader record (or stands for an unreadable message)."""
    data = content.get("data")
    return UNREADABLE in content or (isinstance(data, dict) and MIME in data)


def _message_bytes(msg) -> int:
    """About how many bytes the client keeps if it keeps ``msg``: its content as JSON, and its buffers."""
    try:
        size = len(json.dumps(msg.get("content", {}), ensure_ascii=False))
    except (TypeError, ValueError):
        size = len(str(msg.get("content")))
    return size + sum(len(buffer) for buffer in msg.get("buffers") or ())


class _Watchdog:
    """SIGKILL the kernel's process group at a wall-clock deadline, from a thread."""

    def __init__(self, km: AsyncKernelManager, delay: float) -> None:
        self.km = km
        self.fired = False
        self._timer = threading.Timer(max(0.0, delay), self._fire)
        self._timer.daemon = True

    def start(self) -> None:
        self._timer.start()

    def cancel(self) -> None:
        self._timer.cancel()

    def _fire(self) -> None:
        self.fired = True
        kill_kernel(self.km)


def _descendants(pid: int, cap: int) -> tuple[int, list[int]]:
    """(how many processes and threads, which processes) ``pid`` and its descendants are, counting up to ``cap``.

    From ``/proc/PID/task/TID/children``: only the kernel's own tree is read, so a poll costs
    a few small reads. In the sandbox a process that detaches (``setsid``, a double fork) is
    re-parented to the kernel's PID namespace's first process, so it is still counted.
    """
    count, stack, seen = 0, [pid], []
    while stack and count <= cap:
        current = stack.pop()
        if current in seen:
            continue
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        seen.append(current)
        count += len(tasks)
        stack.extend(sandbox.children(current))
    return count, seen


_PAGE = os.sysconf("SC_PAGE_SIZE")


def _resident(pids: list[int], limit: int) -> int:
    """Bytes of memory the processes ``pids`` hold together: their resident sets (one small read each);
    over ``limit``, their proportional sets instead (``Pss``, a costlier read), so that pages a forked
    child shares with its parent count once, not once per process."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as fh:
                total += int(fh.read().split()[1]) * _PAGE
        except (OSError, ValueError, IndexError):
            pass
    if total <= limit:
        return total
    proportional = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                # (a process gone or a zombie since the walk has no such line: it holds nothing)
                proportional += sum(int(line.split()[1]) * 1024 for line in fh if line.startswith("Pss:"))
        except (PermissionError, IsADirectoryError):
            return total  # (the proportional sets are not readable here: the resident sets decide)
        except (OSError, ValueError, IndexError):
            pass
    return proportional


def _disk_use(folder: Path, cap_entries: int = 20_000) -> tuple[int, int]:
    """(bytes, entries) below ``folder``, stopping after ``cap_entries`` entries (no links followed)."""
    total = entries = 0
    stack = [str(folder)]
    while stack and entries <= cap_entries:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    entries += 1
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        else:
                            total += entry.stat(follow_symlinks=False).st_blocks * 512
                    except OSError:
                        pass
        except OSError:
            pass
    return total, entries


def _own_tmpfs_use(pids: list[int]) -> tuple[int, int, set[int]]:
    """(bytes, files, devices) of the /tmp and /dev/shm of a kernel's processes that are file systems
    of their own, not the grader's (a sandboxed kernel's: :func:`._isolate.confine`, or bwrap's in the
    one-bwrap-per-kernel modes), seen through ``/proc/PID/root``: one ``statvfs`` each, which counts
    files deleted while open too."""
    used = files = 0
    devices: set[int] = set()
    for pid in pids:
        for folder in ("tmp", "dev/shm"):
            path = f"/proc/{pid}/root/{folder}"
            try:
                device = os.stat(path).st_dev
                if device == os.stat(f"/{folder}").st_dev or device in devices:
                    continue
                info = os.statvfs(path)
            except OSError:
                continue
            devices.add(device)
            used += (info.f_blocks - info.f_bfree) * info.f_frsize
            files += max(0, info.f_files - info.f_ffree - 1)  # (not the folder itself)
    return used, files, devices


#: Deleted mappings that are memory, not files (shared anonymous memory, System V shared memory).
_MEMORY_MAPS = ("/dev/zero (deleted)", "/SYSV")


def _unnamed_use(pids: list[int], counted: set[int], stop: int, maps: bool = True) -> int:
    """Bytes of the files that the processes ``pids`` hold open or mapped after deleting them (memfd
    files too): no walk of names sees them, yet their blocks stay taken until the kernel lets go.
    Files on a device in ``counted`` (a /tmp of the kernel's own) are left out: ``statvfs`` counted them.
    From ``/proc/PID/fd`` and, if ``maps``, ``/proc/PID/maps`` (a few ms of the system's time for a
    kernel's 300-odd mappings, so the monitor reads it every fifth look); stops once over ``stop`` bytes."""
    sizes: dict[tuple[int, int], int] = {}
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            fds = []
        for fd in fds:
            link = f"/proc/{pid}/fd/{fd}"
            try:
                if not os.readlink(link).endswith(" (deleted)"):
                    continue
                info = os.stat(link)
            except OSError:
                continue
            if info.st_dev not in counted:
                sizes[info.st_dev, info.st_ino] = info.st_blocks * 512
        text = ""
        try:
            if maps:
                with open(f"/proc/{pid}/maps") as fh:
                    text = fh.read()
        except OSError:
            pass
        for line in text.splitlines(keepends=True) if " (deleted)\n" in text else ():
            if not line.endswith(" (deleted)\n") or any(kind in line for kind in _MEMORY_MAPS):
                continue
            span, _, offset, device, inode = line.split(maxsplit=5)[:5]
            major, minor = device.split(":")
            key = (os.makedev(int(major, 16), int(minor, 16)), int(inode))
            start, end = (int(part, 16) for part in span.split("-"))
            if key[0] not in counted:
                sizes[key] = max(sizes.get(key, 0), int(offset, 16) + end - start)
        if sum(sizes.values()) > stop:
            break
    return sum(sizes.values())


class _Monitor:
    """Per-kernel limits that rlimits cannot give, checked from a thread: processes, memory and disk.

    ``RLIMIT_NPROC`` counts per user, not per kernel, and is not enforced at all for a
    grader running as root (Gradescope, Docker, CI); ``RLIMIT_AS`` bounds each process, not
    the four fresh interpreters a kernel may start; the scratch folder is on the host's
    disk, where ``RLIMIT_FSIZE`` bounds one file, not a thousand. So every ``interval`` s
    the monitor walks the kernel's process tree (:func:`_descendants`), counts its processes
    and threads and sums their memory (:func:`_resident`); every third look it also counts
    the bytes and files the kernel holds: its scratch folder's, its own /tmp and /dev/shm
    (:func:`_own_tmpfs_use`) and the files it deleted but keeps open (:func:`_unnamed_use`).
    On a breach it kills the kernel and says which limit it broke (``breach``), which becomes
    the reason on the student's row. A look costs a few small reads per process of the kernel
    (about 0.5 ms on a loaded machine for a kernel that started nothing), plus one per open file
    every third look and a read of its memory map every fifteenth (some 4 ms, every 3 s).
    """

    def __init__(self, km: AsyncKernelManager, limits: "Limits", scratch: Path, interval: float = 0.2) -> None:
        self.km, self.limits, self.scratch, self.interval = km, limits, scratch, interval
        self.breach = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        self._stop.set()

    def check_disk(self, pid: int | None = None, pids: list[int] | None = None, maps: bool = True) -> str:
        """Set and return ``breach`` if the kernel holds more than the disk limit allows: in its folder,
        its own /tmp and /dev/shm, and files it deleted while open. Also called once as the notebook ends,
        before the kernel is killed: a kernel that fills them between two looks is still caught."""
        pid = pid or _kernel_pgid(self.km)
        if not (self.limits.disk_mb or self.limits.disk_files) or not pid or self.breach:
            return self.breach
        if pids is None:
            pids = _descendants(pid, self.limits.processes or 10**6)[1]
        files, limit = self.limits.disk_files, self.limits.disk_mb * 2**20
        used, entries = _disk_use(self.scratch, files or 10**9)
        more, more_entries, devices = _own_tmpfs_use(pids)
        used, entries = used + more, entries + more_entries
        where = "its folder, /tmp and /dev/shm" if devices else "its folder"
        if limit and used <= limit:
            unnamed = _unnamed_use(pids, devices, limit - used, maps)
            used += unnamed
            where += " (files it deleted but kept open included)" if unnamed else ""
        if (limit and used > limit) or (files and entries > files):
            over = " or ".join(part for part in (f"{self.limits.disk_mb} MB" if self.limits.disk_mb else "",
                                                 f"{files} files" if files else "") if part)
            self.breach = f"the kernel wrote more than {over} into {where} (the disk limit), so it was stopped"
        return self.breach

    def check_memory(self, pids: list[int]) -> str:
        """Set and return ``breach`` if the kernel's processes hold more memory together than ``--memory``."""
        limit = self.limits.memory_mb
        if limit and len(pids) > 1 and _resident(pids, limit * 2**20) > limit * 2**20:
            self.breach = (f"the kernel's processes held more than {limit} MB of memory together (the memory "
                           "limit), so it was stopped")
        return self.breach

    def _loop(self) -> None:
        tick = 0
        while not self._stop.wait(self.interval):
            pid = _kernel_pgid(self.km)
            if not pid:
                continue
            tick += 1
            limit = self.limits.processes
            tasks, pids = _descendants(pid, limit or 10**6)
            if limit and tasks > limit:
                self.breach = (f"the kernel ran more than {limit} processes and threads at once (the process "
                               "limit), so it was stopped")
            elif not self.check_memory(pids) and tick % 3 == 0:
                self.check_disk(pid, pids, maps=tick % 15 == 0)
            if self.breach:
                kill_kernel(self.km)
                return


def _kernel_pgid(km: AsyncKernelManager) -> int | None:
    provisioner = getattr(km, "provisioner", None)
    return getattr(provisioner, "pgid", None) or getattr(provisioner, "pid", None)


def kill_kernel(km: AsyncKernelManager, pgid: int | None = None) -> None:
    """SIGKILL the kernel and anything it spawned (it leads its own process group)."""
    pgid = pgid or _kernel_pgid(km)
    if pgid:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _reap(km: AsyncKernelManager, timeout: float = 2.0) -> None:
    """Wait (briefly) for a killed kernel process to be gone."""
    process = getattr(getattr(km, "provisioner", None), "process", None)
    if process is not None:
        try:
            process.wait(timeout=timeout)
        except Exception:  # noqa: BLE001 - a wedged process is killed again in the finally block
            pass


def _exit_reason(km: AsyncKernelManager) -> str:
    """Why the kernel process ended, from its return code."""
    process = getattr(getattr(km, "provisioner", None), "process", None)
    code = process.poll() if process is not None else None
    if code is None:
        return "the kernel stopped responding"
    if code >= 0:
        return f"the kernel exited with code {code} (os._exit, or a crash in native code)"
    signum = -code
    if signum == getattr(signal, "SIGXCPU", None):
        return "the kernel used up its CPU time limit"
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    if signum == signal.SIGKILL:
        return "the kernel was killed (SIGKILL: out of memory, or killed from outside)"
    if signum == signal.SIGSEGV:
        return "the kernel crashed (segmentation fault)"
    return f"the kernel was killed by {name}"


def _clean(text: str) -> str:
    text = _ANSI.sub("", str(text))
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def _cell_result(reply: dict | None, started: float, timeout: float) -> CellResult:
    duration = time.monotonic() - started
    if reply is None:
        return CellResult("ok", duration=duration)
    content = reply.get("content", {})
    if "header" not in reply and content.get("ename") == _TIMEOUT_ENAME:
        # nbclient's synthetic reply for a timed-out cell (real replies have a header).
        return CellResult("timeout", _TIMEOUT_ENAME, f"cell timed out after {timeout:g} s", duration)
    if content.get("status") == "ok":
        return CellResult("ok", duration=duration)
    if content.get("status") == "aborted":
        return CellResult("error", "Aborted", "execution was aborted", duration)
    return CellResult("error", _clean(content.get("ename", "Error")), _clean(content.get("evalue", "")), duration)


#: The only variables a grading kernel inherits from the grader's environment.
_INHERITED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH")


def new_scratch(prefix: str, limits: Limits) -> Path:
    """A fresh scratch folder for one kernel (inside the sandbox root when sandboxed).

    If this process's last run started a kernel ahead for a folder of this ``prefix`` and these
    ``limits`` (:func:`run_notebook`'s ``prestart``), that kernel's folder: nothing has run in
    the kernel, and the folder holds only what its start wrote (connection file, sockets, IPython
    folder) and an empty ``work`` folder, the kernel's working folder. It is handed out once."""
    spare = _spare
    if spare is not None and spare.owner == os.getpid() and spare.prefix == prefix and spare.limits == limits:
        if not spare.handed_out:
            spare.handed_out = True
            return spare.scratch
        _drop_spare()  # (handed out before and never run: its folder is its caller's, maybe gone)
    return sandbox.scratch(prefix, limits.sandbox)


def kernel_env(scratch: Path, pythonpath: list[str]) -> dict[str, str]:
    """Environment for a grading kernel: scrubbed, deterministic, single-threaded BLAS, no user profile.

    Nothing of the grader's environment but :data:`_INHERITED_ENV` reaches the
    kernel (no paths to the solutions, no tokens); its home is its scratch folder.
    """
    env = {k: os.environ[k] for k in _INHERITED_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env.update(
        TMPDIR="/tmp",
        PYTHONHASHSEED="0",
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        MPLBACKEND="Agg",
        PYDEVD_DISABLE_FILE_VALIDATION="1",
        **_folders_env(scratch),
    )
    paths = [*pythonpath, *sandbox.extra_import_path(), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])]
    paths = list(dict.fromkeys(p for p in os.pathsep.join(paths).split(os.pathsep) if p))
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _folders_env(scratch: Path) -> dict[str, str]:
    """The part of :func:`kernel_env` that names the kernel's scratch folder."""
    return {"HOME": str(scratch), "MPLCONFIGDIR": str(scratch / "matplotlib"),
            "IPYTHONDIR": str(scratch / "ipython"),  # no startup scripts from ~/.ipython
            "JUPYTER_RUNTIME_DIR": str(scratch / "runtime")}


# ---------------------------------------------------------------- a kernel started ahead
#
# A kernel takes some 0.2-0.3 s of wall time to start (the fork server's fork, namespaces and
# mounts, then ipykernel setting itself up), most of it while the grader only waits. So while
# one notebook runs, the grading process starts the kernel of its next run
# (``run_notebook(..., prestart=prefix)``): a fresh process forked from the fork server like any
# other, never from a kernel, in namespaces and a scratch folder of its own, in which nothing
# runs until that next run claims it (:func:`new_scratch` hands out its folder, :func:`_claim`
# the kernel), and which is never used twice. The notebook running meanwhile cannot reach it: its
# kernel's PID namespace holds no other process, and the sandbox root it sees is empty but for
# its own folder (:mod:`._isolate`). A claimed kernel runs no cell before the kernel of the run
# before it is reaped, with every process of its PID namespace (:func:`_run`). Only in the
# ``nested`` sandbox, where each kernel has namespaces of its own: elsewhere two kernels of one
# grading process run as one user and could see each other.
#
# Starting ahead moves a kernel's start off the critical path of a submission, not off the CPU:
# it pays only where a core would otherwise idle. With as many grading processes as cores, both
# cores are busy grading and the kernel started ahead competes with the running notebook (and
# with the fork server, which answers one request at a time): measured on 2 cores at --jobs 2,
# 145 submissions a minute with it against 157 without. So by default (:func:`prestart_pays`) a
# batch starts kernels ahead only when it runs fewer grading processes than the CPUs it may use;
# ``TENSORGRAD_GRADER_PRESTART=1`` starts them ahead always, ``=0`` never.


@dataclass
class _Spare:
    """A kernel started ahead for the next run of this process: no code has run in it."""

    prefix: str
    limits: Limits
    scratch: Path
    env: dict[str, str]
    km: "LimitedKernelManager"
    owner: int
    handed_out: bool = False


_spare: _Spare | None = None
_spare_exit_registered: int | None = None


def _prestarts(limits: Limits) -> bool:
    """Whether kernels for these limits can be started ahead (see above)."""
    return (limits.sandbox and os.environ.get("TENSORGRAD_GRADER_PRESTART", "1") != "0"
            and os.environ.get("TENSORGRAD_GRADER_ZYGOTE", "1") != "0" and sandbox.mode()[0] == "nested")


def prestart_pays(processes: int) -> bool:
    """Whether ``processes`` grading processes should start their next kernels ahead: only when they
    leave a core idle (fewer processes than the CPUs this process may run on), unless
    ``TENSORGRAD_GRADER_PRESTART`` says ``1`` (always) or ``0`` (never). (:func:`_prestarts` says
    where it is possible at all.)"""
    chosen = os.environ.get("TENSORGRAD_GRADER_PRESTART", "")
    if chosen in ("0", "1"):
        return chosen == "1"
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return processes < cpus


def _drop_spare() -> None:
    """Kill the kernel started ahead, if any, and remove its folder (unless it was handed out)."""
    global _spare
    spare, _spare = _spare, None
    if spare is None or spare.owner != os.getpid():
        return
    kill_kernel(spare.km)
    _reap(spare.km, timeout=1.0)
    try:
        spare.km._close_control_socket()
        spare.km.context.destroy(linger=0)
    except Exception:  # noqa: BLE001 - the kernel is dead; its sockets go with this process at worst
        pass
    if not spare.handed_out:
        shutil.rmtree(spare.scratch, ignore_errors=True)


def _claim(scratch: Path, limits: Limits, env: dict[str, str]) -> "LimitedKernelManager | None":
    """The kernel started ahead in ``scratch``, if it is there, alive, and started for ``limits`` and ``env``."""
    global _spare
    spare = _spare
    if spare is None or spare.owner != os.getpid() or spare.scratch != scratch:
        return None
    process = getattr(spare.km.provisioner, "process", None)
    if spare.limits != limits or spare.env != env or process is None or process.poll() is not None:
        _drop_spare()
        return None
    _spare = None
    return spare.km


async def _start_spare(prefix: str, limits: Limits, env: dict[str, str], arguments: list[str]) -> None:
    """Start the kernel of this process's next run (prefix ``prefix``, ``limits``; ``env`` is this
    run's, whose folders are replaced by the new folder's). A failure only means no kernel ahead."""
    global _spare, _spare_exit_registered
    if _spare is not None:
        return
    scratch = sandbox.scratch(prefix, True)
    km = None
    try:
        (scratch / "work").mkdir()
        env = {**env, **_folders_env(scratch)}
        km = _manager(scratch, limits, None)
        km.spawn_in_thread = True
        await km.start_kernel(extra_arguments=arguments, cwd=str(scratch / "work"), env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except Exception:  # noqa: BLE001 - the next run starts its kernel itself
        if km is not None:
            kill_kernel(km)
            _reap(km, timeout=1.0)
        shutil.rmtree(scratch, ignore_errors=True)
        return
    _spare = _Spare(prefix, limits, scratch, env, km, os.getpid())
    if _spare_exit_registered != os.getpid():
        _spare_exit_registered = os.getpid()
        atexit.register(_drop_spare)
        # Pool workers end with os._exit, which skips atexit; multiprocessing's finalizers still
        # run (before the sandbox root's removal, exitpriority 0).
        import multiprocessing.util

        multiprocessing.util.Finalize(None, _drop_spare, exitpriority=10)


def _in_thread(function, *args):
    """An awaitable for ``function(*args)`` run in a thread of its own (not a pool's: none stays)."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(method, value):
        if not future.done():
            method(value)

    def work():
        try:
            value = function(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            loop.call_soon_threadsafe(settle, future.set_exception, exc)
        else:
            loop.call_soon_threadsafe(settle, future.set_result, value)

    threading.Thread(target=work, daemon=True).start()
    return future


def _manager(scratch: Path, limits: Limits, user) -> "LimitedKernelManager":
    """The kernel manager of a kernel whose scratch folder is ``scratch``."""
    return LimitedKernelManager(
        kernel_name="python3",
        sandbox_scratch=str(scratch) if limits.sandbox else "",
        user_scratch=str(scratch) if user else "",
        disk_limits=(limits.disk_mb, limits.disk_files),
        launcher_args=[
            "--memory-mb", str(limits.memory_mb),
            "--cpu-seconds", str(limits.cpu_seconds()),
            "--file-mb", str(limits.file_mb),
        ],
    )


def _kernel_arguments(client: NotebookClient) -> list[str]:
    """The kernel's command-line options as nbclient gives them when it starts a kernel itself."""
    history = f"--HistoryManager.hist_file={client.ipython_hist_file}"
    arguments = list(client.extra_arguments)
    return arguments if history in arguments or not client.ipython_hist_file else [*arguments, history]


async def _responsive(client: NotebookClient, grace: float) -> bool:
    """After an interrupt: does the kernel answer a trivial request within ``grace`` s?"""
    try:
        msg_id = client.kc.execute("pass", silent=True, store_history=False)
        end = time.monotonic() + grace
        while (left := end - time.monotonic()) > 0:
            msg = await client.kc.shell_channel.get_msg(timeout=left)
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                return True
    except (Empty, asyncio.TimeoutError):
        return False
    return False


async def _run(nb, limits: Limits, workdir: Path, env: dict[str, str], prestart: str | None = None) -> RunResult:
    begin = time.monotonic()
    deadline = begin + limits.notebook_timeout
    result = RunResult()
    if limits.sandbox:
        sandbox.require()
        if sandbox.root().resolve() not in Path(workdir).resolve().parents:
            raise ValueError("a sandboxed kernel's folder must come from kernel.new_scratch")
    scratch = Path(workdir).resolve().parent
    user = None if limits.sandbox else sandbox.kernel_user()[0]
    strays = None if limits.sandbox else sandbox.Strays()  # (before the kernel starts: what is already here stays)
    if user:
        _give(scratch, user)
    km = _claim(scratch, limits, env) or _manager(scratch, limits, user)
    replies: dict[int, dict] = {}
    client = _CappedClient(
        nb,
        km=km,
        output_cap=limits.output_cap,
        records_cap=limits.records_cap,
        allow_errors=True,
        interrupt_on_timeout=True,
        error_on_timeout={"ename": _TIMEOUT_ENAME, "evalue": "timeout", "traceback": []},
        timeout=max(1, math.ceil(limits.cell_timeout)),
        startup_timeout=max(1, math.ceil(min(limits.startup_timeout, limits.notebook_timeout))),
        iopub_timeout=2,
        store_widget_state=False,
        record_timing=False,
        shutdown_kernel="immediate",
    )
    client.on_cell_executed = lambda cell, cell_index, execute_reply: replies.__setitem__(
        cell_index, execute_reply
    )
    watchdog = _Watchdog(km, limits.notebook_timeout + 2.0)
    watchdog.start()
    watchdog.monitor = monitor = _Monitor(km, limits, Path(workdir).resolve().parent)
    monitor.start()
    started = False
    pgid = None
    ahead = None  # the task starting the next run's kernel
    try:
        # The kernel's own stdout/stderr (C-level prints, ipykernel's warnings) are
        # discarded: they are not cell output, and a flood there must not reach the
        # grader's terminal. Cell output arrives over the kernel protocol.
        async with client.async_setup_kernel(
            cwd=str(workdir), env=env, cleanup_kc=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ):
            started = True
            pgid = _kernel_pgid(km)
            if prestart and _spare is None and _prestarts(limits):
                ahead = asyncio.ensure_future(_start_spare(prestart, limits, env, _kernel_arguments(client)))
            await _execute_cells(client, km, nb, limits, deadline, replies, watchdog, result)
            monitor.check_disk(pgid)  # (the last look, while the kernel's /tmp and /dev/shm still exist)
            # Nothing more to run: kill now, so that nbclient's polite shutdown finds a
            # dead kernel and returns at once (it would poll for ~0.1 s otherwise).
            kill_kernel(km, pgid)
            _reap(km)
    except Exception as exc:  # start-up failures: kernel died or never answered
        if started:
            # After start-up the grader only reads what the kernel sends: whatever breaks
            # here ends this submission's run (the kernel is killed below), not the batch.
            result.outcome = "kernel_died"
            result.stopped_at = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                                      and i not in result.cells and c.source.strip()), len(nb.cells))
            result.reason = (f"the grader stopped this run: the kernel sent what it could not read "
                             f"({type(exc).__name__})")
            result.unreadable = True
        else:
            # nbclient registers an atexit cleanup before starting and only removes it
            # after a successful start; without this it fails noisily at exit.
            atexit.unregister(client._cleanup_kernel)
            result.stopped_at = -1  # before the first cell
            result.outcome = "timeout" if watchdog.fired else "kernel_died"
            result.reason = f"the kernel did not start: {_clean(exc) or type(exc).__name__}"
    finally:
        _finish(result, client, watchdog, km, pgid, begin, strays)
        if ahead is not None:
            await asyncio.wait([ahead])  # (it never raises; it ends within the fork server's time-outs)
    return result


def _give(scratch: Path, user: tuple[int, int, str]) -> None:
    """Make the kernel's user the owner of its scratch folder (the only folder it may write)."""
    for folder, dirs, files in os.walk(scratch):
        for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
            os.chown(name, user[0], user[1], follow_symlinks=False)


def _finish(result: RunResult, client, watchdog, km, pgid, begin: float, strays=None) -> RunResult:
    watchdog.cancel()
    watchdog.monitor.cancel()
    if watchdog.monitor.breach and result.outcome != "timeout":
        result.outcome, result.reason = "kernel_died", watchdog.monitor.breach
        result.limit = watchdog.monitor.breach
    kill_kernel(km, pgid)  # makes sure nothing the kernel spawned survives
    _reap(km)  # (and is gone before the run ends: a kernel started ahead runs nothing before that)
    if strays is not None:  # without a sandbox: nor what left the kernel's process group
        zygote = _Zygote._current
        keep = zygote.proc.pid if zygote is not None and zygote.owner == os.getpid() else None
        result.lingering = strays.sweep(keep, pgid or _kernel_pgid(km), kernel=pgid or _kernel_pgid(km))
    result.duration = time.monotonic() - begin
    result.records = client.records
    result.records_dropped = client.records_dropped
    result.unreadable_cells = client.unreadable
    return result


async def _execute_cells(client, km, nb, limits, deadline, replies, watchdog, result: RunResult) -> None:
    """Run the code cells in order, filling ``result``; stop early on a dead or wedged kernel."""
    budget = f"the notebook ran out of its {limits.notebook_timeout:g} s budget"
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            result.outcome, result.stopped_at, result.reason = "timeout", index, budget
            return
        timeout = max(1, math.ceil(min(limits.cell_timeout, remaining)))
        client.timeout = timeout
        started = time.monotonic()
        try:
            # (Test and grader cells leave no trace in IPython's input history: assemble.PRIVATE.)
            await client.async_execute_cell(cell, index, store_history=not cell.metadata.get("tensorgrad_private"))
            outcome = _cell_result(replies.pop(index, None), started, timeout)
            result.cells[index] = outcome
            wedged = outcome.status == "timeout" and not await _responsive(client, limits.interrupt_grace)
            if wedged and not await km.is_alive():
                raise DeadKernelError("Kernel died")
        except DeadKernelError:
            result.stopped_at = index
            if watchdog.monitor.breach:
                result.outcome, result.reason = "kernel_died", watchdog.monitor.breach
            elif watchdog.fired:
                result.outcome, result.reason = "timeout", budget
            else:  # read the exit status now, before nbclient cleans the process up
                result.outcome, result.reason = "kernel_died", _exit_reason(km)
            return
        if wedged:
            result.outcome, result.stopped_at = "timeout", index
            result.reason = (
                f"a cell ran over {timeout} s and the kernel did not respond to an "
                "interrupt, so the remaining cells were not run"
            )
            return


def run_notebook(nb, limits: Limits, workdir: Path, env: dict[str, str], *, prestart: str | None = None) -> RunResult:
    """Execute ``nb`` (modified in place: outputs filled) and report every code cell's outcome.

    ``prestart``: the prefix of the scratch folder of this process's next run (its
    :func:`new_scratch`); while ``nb`` runs, that run's kernel is started (see :class:`_Spare`).
    Every run of a process goes through one event loop, in which that kernel's manager lives.

    A kernel that dies before it answers ran none of the notebook: whatever killed it is the
    grader's (or an earlier kernel's) doing, never this notebook's. So it is started once more,
    from a fresh fork server in a fresh sandbox; if that one dies too, ``retried`` says so and
    the grader reports the submission as its own error (:mod:`.grade`), not the student's.
    """
    result = _in_loop(_run(nb, limits, workdir, env, prestart))
    if result.stopped_at == -1 and result.outcome == "kernel_died" and not result.limit:
        _Zygote.discard()
        first = result.reason
        result = _in_loop(_run(nb, limits, workdir, env))
        result.retried = first
        if result.stopped_at == -1 and result.outcome == "kernel_died" and _memory_too_small(limits, env):
            result.too_little_memory = True
            result.reason = (f"a kernel cannot start within the memory limit of {limits.memory_mb} MB of address "
                             "space here (it starts without it): grade with a higher --memory")
    return result


def _memory_too_small(limits: Limits, env: dict[str, str]) -> bool:
    """After two kernels died at start-up: whether one starts without the memory limit, which is then the
    cause (a careless ``--memory``). One more kernel start, only on that path."""
    if not limits.memory_mb:
        return False
    import nbformat

    free = replace(limits, memory_mb=0)
    scratch = sandbox.scratch("tg-memory-probe-", free.sandbox)
    try:
        (scratch / "work").mkdir()
        probe = _in_loop(_run(nbformat.v4.new_notebook(), free, scratch / "work", {**env, **_folders_env(scratch)}))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return probe.stopped_at != -1


_loop: asyncio.AbstractEventLoop | None = None
_loop_owner: int | None = None


def _in_loop(coroutine):
    """Run ``coroutine`` in this process's event loop for notebooks (a forked process makes its own),
    then cancel what it left running, as ``asyncio.run`` would; the loop stays for the next run."""
    global _loop, _loop_owner
    if _loop is None or _loop_owner != os.getpid() or _loop.is_closed():
        _loop, _loop_owner = asyncio.new_event_loop(), os.getpid()
    asyncio.set_event_loop(_loop)
    try:
        return _loop.run_until_complete(coroutine)
    finally:
        pending = [task for task in asyncio.all_tasks(_loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            _loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
