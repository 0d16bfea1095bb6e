"""Per-kernel namespaces inside the grader's bubblewrap sandbox (used by :mod:`._zygote`).

The fork server runs inside one ``bwrap`` sandbox (:mod:`.sandbox`); the
kernels it forks one after another must not reach each other nor the server.
So a forked child, before it becomes a kernel:

1. :func:`enter` takes new user, mount, PID, IPC, UTS and network namespaces
   (it may, being in a user namespace it owns), maps its user onto itself and
   brings up its own loopback: no kernel sees or reaches a socket of another
   (the next student's kernel, started ahead while this one runs, listens on
   its loopback), nor a host name another set;
2. forks: the grandchild is process 1 of the new PID namespace (it sees no
   other process, and when it exits every process it started is killed);
3. :func:`confine` (in the grandchild) mounts a fresh ``/proc`` whose kernel
   settings (``/proc/sys`` and the like) are read-only, a fresh,
   size- and file-limited ``/tmp`` and ``/dev/shm`` and a fresh ``/dev/pts``,
   covers the sandbox root with an empty read-only tmpfs with only its own
   scratch folder bound back, makes ``/`` and ``/dev`` read-only (the fork
   server's, shared by every kernel it forks), and drops every capability, so
   that nothing of this can be undone.

Plain ``ctypes`` calls into libc: no dependency, nothing imported that the
kernel would not import anyway.
"""

from __future__ import annotations

import ctypes
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG = 24, 38, 1
PR_SET_CHILD_SUBREAPER = 36
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAPABILITY_VERSION_3 = 0x20080522

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = (lambda s: s.encode() if s is not None else None)
    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {target}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


def enter() -> None:
    """New user, mount, PID, IPC, UTS and network namespaces for the calling (single-threaded)
    process (the UTS one: a host name set by one kernel is no later kernel's)."""
    uid, gid = os.getuid(), os.getgid()
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET),
           "unshare")
    _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
    _write("/proc/self/setgroups", "deny\n")
    _write("/proc/self/gid_map", f"{gid} {gid} 1\n")
    loopback_up()


def loopback_up() -> None:
    """Bring up the loopback of a new network namespace (down at first): ipykernel binds 127.0.0.1."""
    import fcntl
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        flags = struct.unpack_from("16sH", fcntl.ioctl(sock, SIOCGIFFLAGS, struct.pack("16sH22x", b"lo", 0)))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))


def confine(sandbox_root: str, scratch: str, tmp_bytes: int, keep: tuple[str, ...] = (), *,
            shm_bytes: int = 0, inodes: int = 0) -> None:
    """In process 1 of the new PID namespace: the mounts described above, then no capabilities.

    ``keep``: read-only folders below /tmp (a library installed there), bound
    again, read-only, over the fresh /tmp. ``shm_bytes`` (default: ``tmp_bytes``)
    and ``inodes`` (0: the kernel's default) bound the fresh /dev/shm and /tmp.

    Everything else ends read-only: the fork server's sandbox root tmpfs (``/``,
    ``/etc``, ``/root``...) and its ``/dev`` are shared by every kernel it forks, so a
    file written there would reach the next student's kernel.
    """
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    # No user namespace below the kernel's: in one, it would have every capability again, and could
    # mount file systems in memory that neither the disk nor the memory limit counts.
    _write("/proc/sys/user/max_user_namespaces", "0")  # (this namespace's own limit)
    for path in PROC_SETTINGS:
        cover_read_only(path)
    own = os.open(scratch, os.O_PATH | os.O_DIRECTORY)  # still reachable once covered
    kept = [(path, os.open(path, os.O_PATH | os.O_DIRECTORY)) for path in keep]
    files = f",nr_inodes={inodes}" if inodes > 0 else ""
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmp_bytes},mode=1777{files}")
    for path, fd in kept:
        os.makedirs(path)
        _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        os.close(fd)
    os.makedirs(sandbox_root, exist_ok=True)  # (gone if it was below /tmp)
    _mount("tmpfs", sandbox_root, "tmpfs", MS_NOSUID | MS_NODEV, "size=65536,mode=755")
    os.makedirs(scratch)
    _mount(f"/proc/self/fd/{own}", scratch, None, MS_BIND | MS_REC)
    os.close(own)
    _mount(None, sandbox_root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.makedirs("/dev/shm", exist_ok=True)
    _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
           f"size={shm_bytes or tmp_bytes},mode=1777{files}")
    try:  # a pseudo-terminal of one kernel is no other kernel's (where the kernel allows a new devpts)
        _mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620")
    except OSError:
        pass  # (bwrap's own: a terminal lives no longer than the kernel that opened it)
    read_only("/dev")
    read_only("/")
    drop_capabilities()


#: The parts of a fresh ``/proc`` that change the whole machine, not the kernel's namespaces: bwrap
#: covers them with read-only binds, and so does :func:`confine`. Linux lets a write into the
#: global /proc/sys through on the writer's user id alone: a kernel of a grader running as root
#: is the host's uid 0 underneath (its namespace maps uid 1000 onto the grader's), so without the
#: cover it could set vm.swappiness or kernel.core_pattern for the whole machine.
PROC_SETTINGS = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus")


def cover_read_only(path: str) -> None:
    """Bind ``path`` onto itself, read-only (nothing if the kernel has no such file)."""
    if not os.path.exists(path):
        return
    _mount(path, path, None, MS_BIND | MS_REC)
    read_only(path)


#: statvfs's flags that a read-only remount must keep (a mount in a namespace we do not own
#: keeps its nosuid, nodev, noexec and atime flags locked), as mount(2) flags.
_KEPT_FLAGS = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
               (os.ST_NOATIME, 1024), (os.ST_NODIRATIME, 2048), (os.ST_RELATIME, 1 << 21))


def read_only(path: str) -> None:
    """Make the mount at ``path`` read-only (this mount only: the ones below it keep theirs)."""
    flags = os.statvfs(path).f_flag
    kept = sum(ms for st, ms in _KEPT_FLAGS if flags & st)
    _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)


def drop_capabilities() -> None:
    """No capability now, none after an exec, none from setuid programs."""
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _check(_libc.capset(header, data), "capset")


def die_with_parent(signum: int) -> None:
    """Get ``signum`` when the parent process exits."""
    _libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)


def become(uid: int, gid: int) -> None:
    """In a child about to become a kernel: that user and group, no other groups, and no way
    back (no new privileges: a setuid program cannot make it root again)."""
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise OSError("the kernel is still root")
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def adopt_orphans() -> bool:
    """Make the calling process inherit the orphans of its descendants (Linux's "child subreaper"):
    a process that detaches from its parent (``setsid``, a double fork) then stays below this
    process instead of going to init, where it could be found no more. False if refused."""
    return _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
