"""The integrity guard's code as it runs in a grading kernel: the snapshot, the audit hook, the check.

:mod:`.guard` (in the grader) decides *what* is watched and writes the grader's cells; this module is
*how*, in the kernel. The grader's first cell calls :func:`setup` once, before any student code
runs, with the lists :func:`.guard.setup_source` chose; it remembers the originals, adds the audit
hook, and creates the module ``_tensorgrad_grader_guard`` whose ``check(nonce)`` each of the grader's
check cells calls (:func:`.guard.check_source`). Everything ``check`` needs lives in its closure,
taken at setup, not in this module's names, which student code can reach.

Why a module and not the text of a cell: IPython tokenizes, transforms and hashes the whole text of
every cell it runs, and this code, some 250 lines, cost each kernel tens of milliseconds that way;
imported, it is compiled once (and the fork server, :mod:`._zygote`, imports it before forking any
kernel). Nothing of the grader is imported here: it runs in the student's kernel.
"""

#: The module the setup creates in the kernel, and the name of the exception its check raises.
MODULE_NAME = "_tensorgrad_grader_guard"
GUARD_ENAME = "GraderGuard"


def _course_functions() -> dict:
    """(module name, name) -> every function and class of the grader's modules a kernel reports through."""
    import sys

    found = {}
    for modname in ("tensorgrad_course.checks", "tensorgrad_course.values"):
        module = sys.modules.get(modname)
        for name, value in (vars(module).items() if module is not None else ()):
            if not name.startswith("__") and (callable(value) or isinstance(value, type)):
                found[(modname, name)] = value
    return found


#: The known-good state the snapshot is checked against: these modules' functions as first imported. The
#: fork server (:mod:`._zygote`) imports this module after them and before it forks any kernel, so before
#: anything of a kernel's start-up could change them. (:func:`setup` takes it out of this module's names.)
_KNOWN_GOOD = _course_functions()


def _own_code(obj) -> bool:
    """Whether a function's code comes from the file of the module it says it belongs to (a lambda or a
    function made by a cell or by start-up code does not). Anything without Python code: True."""
    import sys

    code = getattr(obj, "__code__", None)
    if code is None:
        return True
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    return getattr(module, "__file__", None) == getattr(code, "co_filename", None)


def setup(watched, machinery, preload, watched_classes, modules, transformer_lists, audit, protected, whole_modules,
          channel):
    """Take the snapshot and create the guard module (arguments: see :func:`.guard.setup_source`). Once:
    it removes itself from this module, so that no later cell can take a snapshot of a patched state."""
    import importlib
    import sys
    import types

    from IPython import get_ipython

    globals().pop("setup", None)
    known_good = globals().pop("_KNOWN_GOOD", None) or {}
    guard_name = MODULE_NAME  # (taken now: this module's names are within the student's reach later)

    for modname in preload:
        try:
            importlib.import_module(modname)
        except Exception:  # (not installed here: the exercise's own cell reports it)
            pass
    missing = object()
    _course_keys = set(_course_functions())
    originals = []  # (label, owner, name, original object or missing)
    for modname in whole_modules:  # every function and class of these modules, not a list of names
        module_object = sys.modules.get(modname)
        if module_object is not None:
            watched = (*watched, *((modname, k) for k, v in vars(module_object).items()
                                   if not k.startswith("__") and (callable(v) or isinstance(v, type))))
    changed_before = []  # the grader's functions found changed before this setup, with no known-good copy
    for modname, name in dict.fromkeys(watched):
        try:
            owner = importlib.import_module(modname)
        except Exception:
            continue
        getattr(owner, name, None)  # a name a package provides lazily (PEP 562) is bound by now
        if name in vars(owner):
            current = vars(owner)[name]
            good = known_good.get((modname, name), current)
            # A snapshot of a state already patched (by code that ran at the kernel's start-up) would take
            # the patch for the original: the known-good copy is the original, so check() restores it.
            originals.append((modname + "." + name, owner, name, good))
            if good is current and (modname, name) in _course_keys and not _own_code(current):
                changed_before.append(modname + "." + name)
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    classes = type(shell).__mro__ + (type(kernel).__mro__ if kernel is not None else ())
    for cls in dict.fromkeys(classes):
        if cls is object:
            continue
        for name in machinery:
            originals.append((cls.__name__ + "." + name, cls, name, vars(cls).get(name, missing)))

    publisher = getattr(shell, "display_pub", None)
    if publisher is not None:
        for cls in type(publisher).__mro__[:-1]:
            originals.append((cls.__name__ + ".publish", cls, "publish", vars(cls).get("publish", missing)))
    class_dicts = []
    for modname, clsname in watched_classes:
        cls = getattr(sys.modules.get(modname), clsname, None)
        if isinstance(cls, type):
            class_dicts.append((modname + "." + clsname, cls, dict(vars(cls))))

    # ipykernel itself sets some of these on the shell instance; remember those too.
    shell_originals = {name: vars(shell).get(name, missing) for name in machinery}

    # The way every reply and record travels to the grader: the kernel's message session (its
    # methods, and pack/unpack, which are settings of the instance) and the kernel's table of
    # request handlers. A patch here can turn a failed test's reply into a passed one.
    sessions = [obj for obj in dict.fromkeys((getattr(kernel, "session", None),
                                              getattr(publisher, "session", None))) if obj is not None]

    def session_state(obj):
        values = getattr(obj, "_trait_values", {})
        return {name: (values[name] if name in values else vars(obj).get(name, missing)) for name in channel}

    saved_sessions = [(obj, session_state(obj)) for obj in sessions]
    handlers = {name: getattr(kernel, name, None) for name in ("shell_handlers", "control_handlers")}
    saved_handlers = {name: (table, dict(table)) for name, table in handlers.items() if isinstance(table, dict)}
    publisher_original = vars(publisher).get("publish", missing) if publisher is not None else missing

    module_ids = {name: sys.modules.get(name) for name in modules}

    def owner_of(path):
        owner = shell
        parts = path.split(".")
        for part in parts[:-1]:
            owner = getattr(owner, part, None)
        return owner, parts[-1]

    lists = []  # (label, owner, attribute, the list object, its contents)
    for path in transformer_lists:
        owner, name = owner_of(path)
        current = getattr(owner, name, None) if owner is not None else None
        if isinstance(current, list):
            lists.append((path, owner, name, current, list(current)))
    events = getattr(shell, "events", None)
    callbacks = getattr(events, "callbacks", None)
    saved_callbacks = ({k: (v, list(v)) for k, v in callbacks.items()}
                       if transformer_lists and isinstance(callbacks, dict) else None)

    attempts = []  # what the audit hook saw the student's code try (reported by check())
    if audit:
        import os as _os
        import re as _re

        own = (_os.path.realpath(_os.environ.get("HOME") or "/nonexistent"), _os.path.realpath(_os.getcwd()))
        allowed = tuple(p.rstrip("/") + "/" for p in (*own, "/tmp", "/dev", "/proc/self"))
        me = _os.getpid()
        other_proc = _re.compile(r"/proc/(\d+)/(environ|cmdline|mem)$")
        proc_root = _re.compile(r"/proc/(\d+|self|thread-self)/root/")  # another root, even one's own
        path_events = {"os.remove": "removing", "os.rename": "renaming", "os.mkdir": "making a folder",
                       "os.rmdir": "removing a folder", "shutil.rmtree": "removing a tree", "os.symlink": "linking",
                       "os.link": "linking", "os.chmod": "changing the mode of", "os.truncate": "truncating"}
        events = frozenset((*path_events, "open", "os.kill", "os.killpg", "socket.connect", "sys.addaudithook",
                            "socket.sendto", "socket.sendmsg", "socket.getaddrinfo", "subprocess.Popen",
                            "os.exec", "os.posix_spawn"))
        secret = tuple(p.rstrip("/") + "/" for p in protected)  # the grader's folders: never the kernel's to read
        # ...but for what the kernel imports from inside them (the library of a checkout that holds the solutions)
        imported = [*sys.path, *(_os.path.dirname(getattr(sys.modules.get(n), "__file__", None) or "")
                                 for n in ("tensorgrad", "tensorgrad_course"))]
        library = tuple(p.rstrip("/") + "/" for p in imported
                        if p and _os.path.isabs(p) and (p.rstrip("/") + "/").startswith(secret) and secret)
        local_hosts = (None, "", "localhost", "127.0.0.1", "::1", b"localhost", b"127.0.0.1")
        network_tools = frozenset(("curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "rsync", "ftp",
                                   "telnet", "socat", "dig", "nslookup", "host", "ping"))

        def absolute(path):
            """The absolute path an open() or os call names, or None (a file descriptor, an odd object)."""
            if isinstance(path, int):
                return None
            try:
                return _os.path.abspath(_os.fsdecode(path))
            except Exception:
                return None

        def grader_path(path):
            full = absolute(path)
            inside = full and secret and (full + "/").startswith(secret) and not (full + "/").startswith(library)
            return full if inside else None

        def program(args):
            argv = args[1] if len(args) > 1 and isinstance(args[1], (list, tuple)) else [args[0]]
            name = _os.path.basename(_os.fsdecode(argv[0])) if argv and isinstance(argv[0], (str, bytes)) else ""
            return name if name in network_tools else None

        # The grader's and the library's own files, wherever they are installed (/tmp included).
        packages = tuple(_os.path.dirname(getattr(sys.modules.get(n), "__file__", None) or "/nonexistent") + "/"
                         for n in ("tensorgrad", "tensorgrad_course"))

        def outside(path):
            full = absolute(path)
            if full is None or "/__pycache__/" in full + "/":  # (Python caching bytecode)
                return None
            if (full + "/").startswith(allowed) and not (full + "/").startswith(packages):
                return None
            return full

        any_pid = _re.compile(r"/proc/\d+/")

        def note(text):
            """Once per kind: a scan of every /proc/PID/cmdline is one attempt, not 200 that hide the rest."""
            text = any_pid.sub("/proc/<pid>/", text)
            if text not in attempts:
                attempts.append(text)

        def hook(event, args):
            if event not in events or len(attempts) >= 20:  # (each attempt is noted once: see note)
                return
            try:
                if event == "open":
                    path, mode, flags = args
                    writing = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & 3)
                    where = (outside(path) or grader_path(path)) if writing else None
                    if where:
                        note("writing " + repr(where))
                    elif grader_path(path):
                        note("reading " + repr(grader_path(path)))
                    elif isinstance(path, str):
                        found = other_proc.match(path)
                        if (found and int(found.group(1)) != me) or proc_root.match(path):
                            note("reading " + repr(path))
                elif event in ("os.kill", "os.killpg"):
                    target = args[0]
                    if target <= 1 or target == _os.getppid() or (event == "os.killpg" and target != _os.getpgrp()):
                        note("sending signal " + str(args[1]) + " to process " + str(target))
                elif event == "socket.connect":
                    address = args[1]
                    if not (isinstance(address, (str, bytes)) and not outside(address)):
                        note("connecting to " + repr(address))
                elif event in ("socket.sendto", "socket.sendmsg"):
                    address = args[-1]
                    if address is not None and not (isinstance(address, (str, bytes)) and not outside(address)):
                        note("sending data to " + repr(address))
                elif event == "socket.getaddrinfo":
                    if args[0] not in local_hosts:
                        note("looking up the address of " + repr(args[0]))
                elif event in ("subprocess.Popen", "os.exec", "os.posix_spawn"):
                    if program(args):
                        note("running " + repr(program(args)))
                elif event == "sys.addaudithook":
                    note("adding an audit hook")
                else:
                    where = outside(args[0])
                    if where:
                        note(path_events[event] + " " + repr(where))
            except Exception:
                pass

        sys.addaudithook(hook)  # (audit hooks cannot be removed)

    GraderGuard = type(GUARD_ENAME, (Exception,), {})

    def put_back(owner, name, original):
        if original is missing:
            delattr(owner, name)
        else:
            setattr(owner, name, original)

    def check(nonce=None):
        module.nonce = nonce
        restored = []
        for label, owner, name, original in originals:
            if vars(owner).get(name, missing) is not original:
                put_back(owner, name, original)
                restored.append(label)
        for name in machinery:
            current = vars(shell).get(name, missing)
            if current is not shell_originals[name]:
                put_back(shell, name, shell_originals[name])
                restored.append("get_ipython()." + name)
        if publisher is not None and vars(publisher).get("publish", missing) is not publisher_original:
            put_back(publisher, "publish", publisher_original)
            restored.append("get_ipython().display_pub.publish")
        for obj, saved in saved_sessions:
            for name, value in session_state(obj).items():
                if value is not saved[name]:
                    put_back(obj, name, saved[name])
                    restored.append("session." + name)
        for name, (table, contents) in saved_handlers.items():
            if getattr(kernel, name, None) is not table or any(table.get(k) is not v for k, v in contents.items())                     or set(table) != set(contents):
                table.clear()
                table.update(contents)
                setattr(kernel, name, table)
                restored.append("kernel." + name)
        for label, cls, saved in class_dicts:
            current = dict(vars(cls))
            changed = [k for k in set(saved) | set(current)
                       if k not in ("__dict__", "__weakref__") and current.get(k, missing) is not saved.get(k, missing)]
            for key in changed:
                if key in saved:
                    setattr(cls, key, saved[key])
                else:
                    delattr(cls, key)
            restored.extend(label + "." + k for k in sorted(changed))
        for name, original in module_ids.items():
            if sys.modules.get(name) is not original:
                if original is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = original
                restored.append("sys.modules[" + repr(name) + "]")
        for label, owner, name, original, contents in lists:
            if getattr(owner, name, None) is not original or original != contents:
                original[:] = contents
                setattr(owner, name, original)
                restored.append(label)
        if saved_callbacks is not None:
            now = getattr(getattr(shell, "events", None), "callbacks", None)
            if now is not callbacks:
                shell.events.callbacks = now = callbacks
            for key in set(now) | set(saved_callbacks):
                original, contents = saved_callbacks.get(key, (None, []))
                if now.get(key) is not original or list(now.get(key) or ()) != contents:
                    if original is None:
                        now.pop(key, None)
                    else:
                        original[:] = contents
                        now[key] = original
                    restored.append("events[" + repr(key) + "]")
        if sys.modules.get(guard_name) is not module:
            sys.modules[guard_name] = module
            restored.append("sys.modules[" + repr(guard_name) + "]")
        parts = ["restored " + ", ".join(restored)] if restored else []
        if changed_before:
            parts.append("found " + ", ".join(changed_before) + " changed before the grader's setup")
            del changed_before[:]
        if attempts:
            parts.append("attempted " + "; ".join(dict.fromkeys(attempts)))
            del attempts[:]
        if parts:
            raise GraderGuard(" | ".join(parts))

    module = types.ModuleType(guard_name)
    module.check = check
    module.nonce = None
    sys.modules[module.__name__] = module
