"""The sandbox every student kernel runs in: bubblewrap, plus a namespace of its own per kernel.

A submission's code controls its whole kernel, so the kernel must not be able
to reach anything that decides or records grades. Under the sandbox a kernel

* sees a **read-only** view of the system (``/usr`` and the libraries), of the
  Python it runs on and of the installed packages ``tensorgrad`` (the library)
  and ``tensorgrad_course`` (this tooling, which test cells import ``check``
  from), and nothing else of the machine: no ``solutions/``, no ``--out``
  folder or expected-values cache, no other submission, no checkout beyond the
  two packages, no home folder;
* can write only to its own scratch folder (the working folder, which holds a
  copy of the submission and the kernel's ZeroMQ sockets) and a private
  ``/tmp``, both limited in size;
* has **no network**: a network namespace with only a loopback interface (the
  grader talks to it over ZeroMQ's ``ipc`` transport, Unix sockets in the
  scratch folder, since TCP cannot cross the namespace);
* has **its own PID namespace**: it sees only its own processes, so it cannot
  signal the grader or another kernel, and everything it starts dies with it;
* gets a scrubbed environment (:func:`.kernel.kernel_env`) and the same
  memory, CPU and file-size limits as without the sandbox.

How it is built
    Each grading process starts one fork server (:mod:`._zygote`) inside one
    ``bwrap`` sandbox (:func:`bwrap_argv`): the read-only view above, a fresh
    user, network, IPC and UTS namespace, and as its only writable folder the
    process's *sandbox root*, where every kernel of that process gets its
    scratch folder. For each kernel the server forks a child that takes new
    user, mount, PID, IPC and UTS namespaces of its own (:mod:`._isolate`), mounts
    a fresh ``/proc`` (the machine's settings in it read-only) and ``/tmp``, covers the sandbox root so that only its
    own scratch folder stays visible, drops every capability, and becomes the
    kernel. Forking keeps the speed of the fork server (the imports are done
    once) while each kernel is as isolated as a fresh ``bwrap`` would make it.
    Without the fork server (``TENSORGRAD_GRADER_ZYGOTE=0``) each kernel gets
    its own ``bwrap`` with ``--unshare-pid``, binding only its scratch folder.

Without bubblewrap the grader refuses to grade (:func:`require`) unless it is
told ``--no-sandbox``, and then every report says so.
"""

from __future__ import annotations

import atexit
import functools
import multiprocessing.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from . import library
from ._isolate import PROC_SETTINGS, adopt_orphans, become
from .errors import CourseError

#: The user and group a sandboxed kernel runs as (mapped to the grader's own).
UID = GID = 1000
#: Size of a kernel's private /tmp, in MiB (besides its scratch folder, limited by RLIMIT_FSIZE per file).
TMP_MB = 256
#: Room above the disk limit in a kernel's own /dev/shm and /tmp, so that the monitor sees a kernel
#: go over the limit (and stops it, reporting ``limit``) before the file system is full.
_TMPFS_MARGIN_MB, _TMPFS_MARGIN_FILES = 16, 256


def private_tmpfs(disk_mb: int, disk_files: int) -> dict[str, int]:
    """Sizes of a kernel's own /dev/shm and file count of its /tmp and /dev/shm (:func:`._isolate.confine`):
    what it writes there is counted with its scratch folder against the disk limit
    (:class:`.kernel._Monitor`), and these caps hold even before the monitor looks."""
    return {"shm_bytes": ((disk_mb + _TMPFS_MARGIN_MB) if disk_mb else TMP_MB) * 2**20,
            "inodes": disk_files + _TMPFS_MARGIN_FILES if disk_files else 100_000}


_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: What a process needs of /etc: the dynamic linker's cache, users, time zone, fonts, alternatives.
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf", "passwd", "group",
        "hosts", "alternatives", "fonts", "mime.types", "ssl/certs", "matplotlibrc")
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: apt-get install -y bubblewrap; Fedora: dnf install bubblewrap), "
                "or pass --no-sandbox to grade without it (kernels can then read and write everything you can)")


class SandboxError(CourseError):
    """bubblewrap is missing or does not work on this machine."""


@functools.lru_cache(maxsize=1)
def bwrap() -> tuple[str | None, str]:
    """(path of a working ``bwrap``, its version) or (None, why not)."""
    path = shutil.which("bwrap")
    if path is None:
        return None, "bubblewrap (bwrap) is not installed"
    try:
        probe = subprocess.run(
            [path, *bwrap_argv(None, path=path), "true"], capture_output=True, text=True, timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bubblewrap does not run: {exc}"
    if probe.returncode != 0:
        return None, f"bubblewrap does not work here: {probe.stderr.strip().splitlines()[-1:] or probe.returncode}"
    version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.strip()
    return path, version or "bubblewrap"


@functools.lru_cache(maxsize=None)
def _no_user_namespaces(path: str | None) -> tuple[str, ...]:
    """bwrap's option that keeps a kernel from making a user namespace of its own (where it would
    have every capability again), if this bwrap has it (0.8 and later; the nested mode's kernels
    get the same from :func:`._isolate.confine`)."""
    try:
        usage = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=30).stdout if path else ""
    except (OSError, subprocess.TimeoutExpired):
        usage = ""
    return ("--disable-userns",) if "--disable-userns" in usage else ()


#: The isolation levels, strongest first (see :func:`mode`).
MODES = ("nested", "per_kernel", "no_proc")
_MODE_TEXT = {
    "nested": "read-only system, private scratch, no network, own PID namespace",
    "per_kernel": "read-only system, private scratch, no network, own PID namespace; one bwrap per kernel "
                  "(fallback: namespaces cannot be nested here)",
    "no_proc": "read-only system, private scratch, no network, own PID namespace but no /proc; one bwrap per "
               "kernel (fallback: this machine refuses a new /proc mount, as Docker does)",
}

_NESTED_PROBE = """
import os, sys
sys.path.insert(0, sys.argv[1])
import _isolate
_isolate.enter()
pid = os.fork()
if pid == 0:
    try:
        _isolate._mount("proc", "/proc", "proc", _isolate.MS_NOSUID | _isolate.MS_NODEV | _isolate.MS_NOEXEC)
        _isolate._write("/proc/sys/user/max_user_namespaces", "0")
        for path in _isolate.PROC_SETTINGS:
            _isolate.cover_read_only(path)
    except OSError as exc:
        print(exc, file=sys.stderr)
        os._exit(1)
    os._exit(0)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _probe(argv: list[str]) -> str:
    """'' if ``argv`` runs and exits 0 within 30 s, else why not (the last line of its errors)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return "" if done.returncode == 0 else (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]


@functools.lru_cache(maxsize=1)
def mode() -> tuple[str | None, str]:
    """(the strongest isolation that works here, what was tried): one of :data:`MODES`, or None.

    ``nested`` (the fork server in one bwrap, each kernel in namespaces of its own with
    its own ``/proc``); else ``per_kernel`` (a bwrap per kernel, which mounts its own
    ``/proc``); else ``no_proc`` (a bwrap per kernel with its own PID namespace and no
    ``/proc`` at all: a container that masks parts of ``/proc``, as Docker does, refuses
    every new ``/proc`` mount, and binding the host's would show the grader's processes).
    ``TENSORGRAD_SANDBOX_MODE`` forces one (for tests).
    """
    path, info = bwrap()
    if path is None:
        return None, info
    forced = os.environ.get("TENSORGRAD_SANDBOX_MODE")
    if forced in MODES:
        return forced, f"{forced} (TENSORGRAD_SANDBOX_MODE)"
    tried = []
    python = [sys.executable, "-I"]
    probes = {
        "nested": [path, *bwrap_argv(None, path=path), *python, "-c", _NESTED_PROBE, str(Path(__file__).parent)],
        "per_kernel": [path, *bwrap_argv(None, path=path, per_kernel=True), *python, "-c", "pass"],
        "no_proc": [path, *bwrap_argv(None, path=path, per_kernel=True, proc=False), *python, "-c", "pass"],
    }
    for name, argv in probes.items():
        why = _probe(argv)
        if not why:
            return name, "; ".join([*tried, f"{name}: works"])
        tried.append(f"{name}: {why}")
    return None, "; ".join(tried)


def exposed(path: str | Path) -> str | None:
    """The read-only folder through which kernels would see ``path`` (a solutions or output
    folder inside a folder of the grader's import path), or None."""
    real = os.path.realpath(path)
    for folder in _readonly_paths():
        if real == folder or real.startswith(folder.rstrip("/") + "/"):
            return folder
    return None


def diagnose(env: dict[str, str]) -> str:
    """Why a kernel cannot start in the sandbox, as far as a plain import shows: the last line
    of ``python -c "import ipykernel, ..."`` run the way a kernel runs ('' if that works)."""
    level = mode()[0]
    path = bwrap()[0]
    if level is None or path is None:
        return mode()[1]
    argv = [path, *bwrap_argv(None, per_kernel=True, proc=level != "no_proc", env=env, cwd="/"), sys.executable,
            "-c", "import ipykernel.kernelapp, IPython, numpy, tensorgrad_course.checks"]
    return _probe(argv)


def require() -> str:
    """The description of the working sandbox (``bubblewrap 0.8.0``); raise SandboxError if none."""
    path, info = bwrap()
    if path is None:
        raise SandboxError(f"{info}: refusing to run student code without a sandbox; {INSTALL_HINT}")
    if mode()[0] is None:
        raise SandboxError(f"{info} starts but cannot isolate a kernel here ({mode()[1]}): refusing to run "
                           f"student code without a sandbox; {INSTALL_HINT}")
    return info


#: The user kernels run as where there is no sandbox and the grader is root (made with useradd
#: if missing; else ``nobody``).
KERNEL_USER = "tensorgrad-kernel"


def _can_become(uid: int, gid: int) -> str:
    """'' if a child of this process can drop to ``uid``/``gid`` (and no new privileges) and then
    still run this Python and read the grader's package, else why not."""
    needed = [os.__file__, str(Path(__file__).with_name("checks.py"))]
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            become(uid, gid)
            code = 2
            if os.access(os.path.realpath(sys.executable), os.X_OK) and all(os.access(p, os.R_OK) for p in needed):
                code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 2:
        return f"an unprivileged user cannot run {sys.executable} or read the grader's package here"
    return "" if code == 0 else "setuid is refused here (no CAP_SETUID)"


@functools.lru_cache(maxsize=1)
def kernel_user() -> tuple[tuple[int, int, str] | None, str]:
    """((uid, gid, name) of the unprivileged user kernels run as without a sandbox, or None,
    and why not). Only a grader running as root (Gradescope's container) can switch a kernel to
    another user; it uses :data:`KERNEL_USER`, made with ``useradd`` if missing, else ``nobody``."""
    import pwd

    if os.geteuid() != 0:
        return None, f"the grader runs as uid {os.geteuid()}, not root, so kernels run as the grader's own user"
    try:
        entry = pwd.getpwnam(KERNEL_USER)
    except KeyError:
        useradd = shutil.which("useradd") or next((p for p in ("/usr/sbin/useradd", "/sbin/useradd")
                                                   if os.path.exists(p)), None)
        if useradd:
            subprocess.run([useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                            "--home-dir", "/nonexistent", KERNEL_USER], capture_output=True, timeout=60)
        try:
            entry = pwd.getpwnam(KERNEL_USER)
        except KeyError:
            try:
                entry = pwd.getpwnam("nobody")
            except KeyError:
                return None, f"neither {KERNEL_USER} (useradd failed) nor nobody exists"
    if entry.pw_uid == 0:
        return None, f"user {entry.pw_name} is root"
    why = _can_become(entry.pw_uid, entry.pw_gid)
    if why:
        return None, why
    return (entry.pw_uid, entry.pw_gid, entry.pw_name), ""


def sweep(uid: int) -> int:
    """Kill every process of ``uid`` (the kernels' user, only theirs); return how many there were.

    A process a submission started can leave its kernel's process group and session
    (``setsid``, a double fork); it cannot leave its user. So a child of the grader takes
    that user and signals everything it may signal (``kill(-1, SIGKILL)``), until /proc shows
    no process of the user left.
    """
    def left() -> list[int]:
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if os.stat(f"/proc/{name}").st_uid == uid:
                        found.append(int(name))
                except OSError:
                    pass
        return found

    first = left()
    for _ in range(50):
        if not left():
            break
        pid = os.fork()
        if pid == 0:
            try:
                os.setgroups([])
                os.setuid(uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
    return len(first)


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (from /proc; none if it is gone)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                found.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError):
            pass
    return found


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent, process group) of ``pid`` from /proc, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return fields[0], int(fields[1]), int(fields[2])
    except (OSError, ValueError, IndexError):
        return None


class Strays:
    """Without a sandbox: every process a kernel started is gone before its results are written.

    In the sandbox a kernel is process 1 of its own PID namespace, and everything it started dies
    with it. Without one, a process that leaves the kernel's process group (``setsid``, a double
    fork) outlives the kernel and could rewrite the results later. So the grading process makes
    itself the "child subreaper" of everything below it (:func:`._isolate.adopt_orphans`): such a
    process, orphaned, becomes its child instead of init's. :meth:`sweep`, after the kernel is
    killed, kills every process below the grading process that was not there before the kernel
    started (the fork server itself is kept, not what it forked), again until none is left, and
    counts those that had left the kernel's process group. What the sweep cannot reach: a process
    that another program, running already, starts on the submission's request (a terminal
    multiplexer's server, ``systemd-run --user``, ``at``); hence "not tamper-proof" in the reports.
    """

    def __init__(self) -> None:
        self.adopting = adopt_orphans()
        self.before = set(children(os.getpid()))

    def sweep(self, keep: int | None, group: int | None, kernel: int | None = None, seconds: float = 5.0) -> int:
        """Kill what :class:`Strays` describes; return how many had left the kernel's group ``group``.
        ``keep``: the fork server (its children are swept, not it); ``kernel``: the kernel's pid
        (killed, not reaped here: its manager reads its exit status)."""
        import time

        me, counted = os.getpid(), set()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            stack = [c for c in children(me) if c not in self.before or c == keep]
            found, seen = [], set()
            while stack:
                pid = stack.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                stack.extend(children(pid))
                info = _stat(pid)
                if pid != keep and info is not None and info[0] != "Z":
                    found.append((pid, info))
            for pid, (_, parent, pgrp) in found:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    continue
                if pgrp != group and pid != kernel:
                    counted.add(pid)
            for pid, (_, parent, _) in found:  # our own children (adopted orphans): no zombies left behind
                if parent == me and pid != kernel and pid != keep:
                    try:
                        os.waitpid(pid, 0)
                    except ChildProcessError:
                        pass
            if not found:
                break
            time.sleep(0.005)
        return len(counted)


def readable_by(uid: int, gid: int, paths: list[Path]) -> list[str]:
    """Which of ``paths`` the user ``uid`` can open for reading (tried in a child that becomes it)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            become(uid, gid)
            found = []
            for path in paths:
                try:
                    with open(path, "rb"):
                        found.append(str(path))
                except OSError:
                    pass
            os.write(write, "\n".join(found).encode("utf-8", "surrogateescape"))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        data = fh.read().decode("utf-8", "surrogateescape")
    os.waitpid(pid, 0)
    return [line for line in data.splitlines() if line]


def describe(enabled: bool, gradescope: bool = False) -> str:
    """What the reports say about the sandbox. ``gradescope``: the autograder's fallback, which also
    closes its own folders to the kernels' user and kills every process of that user
    (:func:`.gradescope.run`); a local ``grade --no-sandbox`` does neither to your folders."""
    if not enabled:
        user, why = kernel_user()
        if gradescope and user is not None:
            return (f"none (--no-sandbox): kernels ran as the unprivileged user {user[2]} (uid {user[0]}), which "
                    "cannot read the grader's own files or write its results; every process of that user was killed "
                    "before the results were written")
        if gradescope:
            return ("none (--no-sandbox): kernels could read and write everything the grader can; grades in this "
                    f"mode are NOT tamper-proof ({why})")
        who = (f"kernels ran as the unprivileged user {user[2]} (uid {user[0]}), which can still read and write "
               "whatever your folders let every user read and write" if user is not None
               else "kernels could read and write everything you can")
        return (f"none (--no-sandbox): {who}; every process a submission started below the grader was killed before "
                "the results were written (not one it had a program already running start for it); grades in "
                "this mode are NOT tamper-proof")
    path, info = bwrap()
    if path is None:
        return "missing"
    level, tried = mode()
    if level is None:
        return f"{info} does not work here ({tried})"
    return f"{info}: {_MODE_TEXT[level]}"


#: The grader's import path as it started: site-packages, every folder a ``.pth`` file adds
#: (editable installs, conda's extra folders), PYTHONPATH. Kernels see each read-only.
_START_PATH = tuple(sys.path)


def _paths_key() -> tuple:
    """What the folders kernels see depend on: the current folder, the import path (where the
    library is found) and :data:`_START_PATH`."""
    return os.getcwd(), tuple(sys.path), _START_PATH


def _import_path() -> set[str]:
    """:func:`_import_path_of` now (computed once per process and key: each submission asks)."""
    return set(_import_path_of(_paths_key()))


@functools.lru_cache(maxsize=8)
def _import_path_of(key: tuple) -> frozenset[str]:
    """The folders of :data:`_START_PATH` that kernels may see: not the current folder (``''``,
    which may be a checkout holding the solutions), nor anything in a folder holding the library
    or this package (a checkout: their package folders alone are bound; the Python and its
    site-packages are bound by :func:`_readonly_paths` wherever they are)."""
    cwd = os.path.realpath(os.getcwd())
    parents = {os.path.realpath(str(p.parent)) for p in (library.package_dir(), library.course_dir()) if p}
    found = set()
    for entry in _START_PATH:
        if not entry or not os.path.isabs(entry) or not os.path.exists(entry):
            continue
        real = os.path.realpath(entry)
        inside = [q for q in parents | {cwd} if real == q or real.startswith(q.rstrip("/") + "/")]
        if inside or cwd.startswith(real.rstrip("/") + "/"):
            continue
        found.add(entry if os.path.isdir(entry) else os.path.dirname(entry))  # (a zip file: its folder)
    return frozenset(found)


def extra_import_path() -> list[str]:
    """The folders of the grader's import path that its Python would not find by itself (added
    by PYTHONPATH, a ``.pth`` file, ``site.addsitedir``): given to kernels on their PYTHONPATH,
    so that a kernel imports what the grader imports, from the same places."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    visible = _import_path()
    found = []
    for entry in _START_PATH:
        if entry in visible and not any(os.path.realpath(entry).startswith(p.rstrip("/") + "/")
                                               for p in prefixes):
            found.append(entry)
    return list(dict.fromkeys(found))


def _readonly_paths() -> list[str]:
    """:func:`_readonly_paths_of` now (computed once per process and key: each kernel's start asks)."""
    return list(_readonly_paths_of(_paths_key()))


@functools.lru_cache(maxsize=8)
def _readonly_paths_of(key: tuple) -> tuple[str, ...]:
    """Folders kernels see read-only: the Python they run on, its site-packages, every folder of the
    grader's import path (:func:`_import_path`), the library and this package."""
    packages = (library.package_dir(), library.course_dir())
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             str(Path(os.path.realpath(sys.executable)).parent), *(str(p) for p in packages if p is not None),
             *_import_path()}
    import site
    import sysconfig

    paths.update(site.getsitepackages())
    paths.update(sysconfig.get_paths()[k] for k in ("purelib", "platlib", "stdlib", "platstdlib"))
    found = sorted({os.path.realpath(p) for p in paths if p and os.path.isdir(p)} | {p for p in paths if p and os.path.isdir(p)})
    # Only the outermost folders, and none that would expose a whole home, root or temporary folder.
    found = [p for p in found if p not in ("/", "/root", "/home", "/work", "/tmp", "/var/tmp")
             and not p.startswith("/proc")]
    return tuple(p for p in found if not any(p.startswith(q.rstrip("/") + "/") for q in found if q != p))


def _view() -> list[str]:
    """bwrap arguments for the read-only view of the system and of the library."""
    args: list[str] = []
    for top in _SYSTEM:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for name in _ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for path in _readonly_paths():
        if not path.startswith(_SYSTEM):
            args += ["--ro-bind", path, path]
    return args


def readonly_below_tmp() -> list[str]:
    """The read-only folders below /tmp (a library installed there): each kernel binds them again
    over the private /tmp it mounts (:func:`._isolate.confine`)."""
    return [p for p in _readonly_paths() if p.startswith("/tmp/")]


def bwrap_argv(root: Path | None, *, path: str | None = None, per_kernel: bool = False, proc: bool = True,
               env: dict[str, str] | None = None, cwd: str | None = None) -> list[str]:
    """The bwrap options (without the program) for a sandbox whose writable folder is ``root``.

    ``per_kernel``: one kernel per sandbox, with its own PID namespace and
    ``/proc`` (without the fork server). Otherwise the sandbox holds the fork
    server: ``/proc`` is the host's (each kernel mounts its own, and a PID
    namespace of its own, in :mod:`._isolate`).
    """
    args = [
        "--unshare-user", "--uid", str(UID), "--gid", str(GID),
        "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "grader",
        "--die-with-parent",  # (no --new-session: the kernel must stay in the group the grader signals)
        "--size", str(TMP_MB * 2**20), "--tmpfs", "/tmp",  # first: the library may live below /tmp
        *_view(),
        "--dev", "/dev",
    ]
    if per_kernel:
        # proc=False: no /proc at all (an empty folder), where a new /proc mount is refused.
        # bwrap covers /proc/irq and /proc/bus read-only, but skips /proc/sys where it finds the
        # sandbox's user unable to write it, which a grader running as root is not (_isolate.PROC_SETTINGS)
        covers = [arg for setting in PROC_SETTINGS for arg in ("--ro-bind-try", setting, setting)]
        args += ["--unshare-pid", *(["--proc", "/proc", *covers] if proc else ["--dir", "/proc"]),
                 *_no_user_namespaces(path or shutil.which("bwrap")),
                 "--size", str(TMP_MB * 2**20), "--tmpfs", "/dev/shm"]
    else:
        args += ["--bind", "/proc", "/proc"]  # fully visible, so that each kernel may mount its own
    if root is not None:
        args += ["--bind", str(root), str(root)]
    if per_kernel:
        args += ["--remount-ro", "/", "--remount-ro", "/dev"]  # last: the binds above made folders in /
    if env is not None:
        args.append("--clearenv")
        for key, value in sorted(env.items()):
            args += ["--setenv", key, value]
    if cwd is not None:
        args += ["--chdir", cwd]
    return args


_root: Path | None = None
_root_owner: int | None = None


def root() -> Path:
    """This process's sandbox root: the folder under which its kernels' scratch folders live."""
    global _root, _root_owner
    if _root is None or _root_owner != os.getpid():
        _root = Path(tempfile.mkdtemp(prefix="tg-sandbox-"))
        _root_owner = os.getpid()
        atexit.register(shutil.rmtree, _root, True)
        # Pool workers end with os._exit, which skips atexit; multiprocessing's finalizers still run.
        multiprocessing.util.Finalize(None, shutil.rmtree, args=(str(_root), True), exitpriority=0)
    return _root


def scratch(prefix: str, sandboxed: bool) -> Path:
    """A fresh scratch folder for one kernel: under the sandbox root when sandboxed."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=root() if sandboxed else None))
