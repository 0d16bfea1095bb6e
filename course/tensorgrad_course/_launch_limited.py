"""Exec a command under resource limits: ``python _launch_limited.py LIMITS -- CMD...``.

The grader starts every kernel through this script (run by *path*, with
``python -I``, so it imports nothing of tensorgrad and nothing from the
environment). It sets the limits on itself and then ``exec``\\ s the kernel, so the
kernel *is* this process: same pid, limits inherited, nothing left in between.

Why a wrapper and not ``preexec_fn``: ``preexec_fn`` runs between fork and exec
in a process that may have threads (zmq, asyncio), which Python documents as
unsafe; an exec'd wrapper is simple, visible in ``ps``, and testable alone.

Limits (``--memory-mb``, ``--cpu-seconds``, ``--file-mb``; and ``--uid N --gid N``, the
unprivileged user a kernel runs as when there is no sandbox and the grader is root):

* ``RLIMIT_AS``: address space. An oversized allocation fails with
  ``MemoryError`` inside the student's cell instead of pushing the machine into
  swap or the OOM killer. The kernel survives and later tasks still run.
* ``RLIMIT_CPU``: CPU seconds for the whole kernel. A backstop for busy loops
  that ignore interrupts; the kernel gets SIGXCPU (and SIGKILL 5 s later).
* ``RLIMIT_FSIZE``: largest file the kernel may write (Python then gets
  ``OSError: File too large`` rather than filling the disk).
* ``RLIMIT_CORE`` 0: a crashing kernel must not dump hundreds of MB of core.
"""

import os
import resource
import sys


def _set(limit: int, value: int, hard: int | None = None) -> None:
    hard = value if hard is None else hard
    _, current_hard = resource.getrlimit(limit)
    if current_hard != resource.RLIM_INFINITY:
        value, hard = min(value, current_hard), min(hard, current_hard)
    resource.setrlimit(limit, (value, hard))


def main(argv: list[str]) -> None:
    if "--" not in argv:
        sys.exit("usage: _launch_limited.py [--memory-mb N] [--cpu-seconds N] [--file-mb N] -- CMD...")
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1 :]
    values = dict(zip(options[::2], (int(v) for v in options[1::2])))
    if values.get("--memory-mb", 0) > 0:
        _set(resource.RLIMIT_AS, values["--memory-mb"] * 1024 * 1024)
    if values.get("--cpu-seconds", 0) > 0:
        cpu = values["--cpu-seconds"]
        _set(resource.RLIMIT_CPU, cpu, cpu + 5)
    if values.get("--file-mb", 0) > 0:
        _set(resource.RLIMIT_FSIZE, values["--file-mb"] * 1024 * 1024)
    _set(resource.RLIMIT_CORE, 0)
    if "--uid" in values:  # (as sandbox.become: no groups, the user, no new privileges)
        import ctypes

        os.setgroups([])
        os.setgid(values["--gid"])
        os.setuid(values["--uid"])
        if os.geteuid() != values["--uid"]:
            sys.exit("the kernel is still root")
        ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
