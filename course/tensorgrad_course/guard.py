"""Grader-injected cells that undo a student's monkeypatching before each test cell.

A student's answer cells run in the same kernel as the instructor's tests, so
they can replace what the tests rely on: ``numpy.allclose = lambda *a, **k: True``
makes a wrong answer pass a test that compares with ``np.allclose``. Reading the
execute_reply status (see :mod:`.kernel`) does not help here: the test really
does not raise.

So the grader runs two kinds of cells of its own (never shown to students):

* :data:`SETUP_SOURCE`, before any student code: remembers the original objects
  behind the names tests use to compare (NumPy's comparison and testing
  functions, ``math.isclose``, builtins such as ``abs``/``all``/``isinstance``)
  and the methods of IPython's shell and kernel that run cells and report errors;
* :func:`check_source`, right before every test cell: arms :mod:`.checks` with
  the run's nonce (test records must carry it), puts back every original that
  was replaced, removes instance-level overrides of the IPython methods, and
  raises ``GraderGuard`` naming what it restored. The grader reads that from
  the cell's execute_reply and lists it in the integrity report. The test then
  runs against the real functions.

When the exercise set uses :mod:`.checks` (its test cells call ``check(...)``),
the setup cell imports it first, so that its functions and classes, and
IPython's ``display``, are watched too.

Since values are compared in the grader's process (:mod:`.values`), restoring
comparison functions no longer decides a grade; it keeps kernel-side
assertions honest and makes tampering visible in the report.

Limits, stated plainly: code in the kernel can in principle undo anything else
in the kernel, this guard included; no in-process check can be airtight without
a sandbox. The guard makes the easy attacks fail, and any attack on it has to
live in the student's own answer cells, which the instructor can read. Test
cells should also import what they use (``import numpy as np``) rather than rely
on names the student's cells could rebind.
"""

from __future__ import annotations

#: (module, dotted attribute) pairs whose original objects are restored before each test.
WATCHED: tuple[tuple[str, str], ...] = (
    *(("builtins", name) for name in (
        "abs", "all", "any", "bool", "float", "int", "isinstance", "issubclass", "len",
        "max", "min", "repr", "round", "sorted", "str", "sum", "type", "zip",
        "AssertionError", "Exception", "print",
    )),
    ("math", "isclose"), ("math", "isnan"), ("math", "isfinite"),
    ("IPython.display", "display"), ("IPython.core.display_functions", "display"),
    *(("numpy", name) for name in (
        "allclose", "isclose", "array_equal", "array_equiv", "all", "any", "abs", "absolute",
        "asarray", "array", "isnan", "isfinite", "max", "min", "sum", "equal", "testing",
    )),
    *(("numpy.testing", name) for name in (
        "assert_allclose", "assert_array_equal", "assert_equal", "assert_almost_equal",
        "assert_array_almost_equal", "assert_array_less",
    )),
)

#: Methods of the IPython shell and kernel that decide how a cell runs and how its
#: error is reported. Checked on every class of the shell's and kernel's MRO and
#: on the shell instance, so an override at any level is found.
MACHINERY_METHODS = (
    "run_cell", "run_cell_async", "run_code", "run_ast_nodes", "showtraceback",
    "_showtraceback", "showsyntaxerror", "do_execute", "execute_request",
)

#: Watched only when the set uses tensorgrad_course.checks (importing it costs a little).
CHECKS_WATCHED: tuple[tuple[str, str], ...] = (
    ("tensorgrad_course", "check"),
    *(("tensorgrad_course.checks", name) for name in (
        "check", "TaskCheck", "_Test", "_emit", "_explain", "_grading_nonce", "CheckFailure",
    )),
    ("tensorgrad_course.values", "encode"), ("tensorgrad_course.values", "compare"),
)
#: Classes whose methods are restored (module, class name).
CHECKS_CLASSES: tuple[tuple[str, str], ...] = (
    ("tensorgrad_course.checks", "TaskCheck"), ("tensorgrad_course.checks", "_Test"),
)

#: Modules all of whose functions and classes are watched (not only those of CHECKS_WATCHED): a
#: helper such as ``values._encode`` decides what a record carries as much as ``encode`` does.
CHECKS_MODULES = ("tensorgrad_course.checks", "tensorgrad_course.values")
#: The classes through which every reply and record reaches the grader (their methods are restored).
CHANNEL_CLASSES: tuple[tuple[str, str], ...] = (
    ("jupyter_client.session", "Session"), ("zmq.sugar.socket", "Socket"),
    ("ipykernel.iostream", "IOPubThread"), ("ipykernel.iostream", "BackgroundSocket"),
)
#: The message session's methods and settings, checked on each session object the kernel sends with.
CHANNEL_SETTINGS = ("pack", "unpack", "send", "serialize", "deserialize", "sign", "msg", "msg_header",
                    "send_raw", "feed_identities")

#: Modules whose *identity* in ``sys.modules`` is restored before each test (a swapped-in
#: look-alike would be what a test cell's ``import numpy as np`` gets).
WATCHED_MODULES = ("builtins", "math", "numpy", "numpy.testing", "IPython", "IPython.display",
                   "IPython.core.display_functions", "tensorgrad", "tensorgrad_course", "tensorgrad_course.checks",
                   "tensorgrad_course.values", "sys", "importlib", "inspect", "json")
#: The shell's lists of code rewriters (what IPython applies to a cell's text or AST before it
#: runs), restored to their contents at setup: a transformer the student adds would rewrite the tests.
TRANSFORMER_LISTS = ("input_transformers_cleanup", "input_transformers_post", "ast_transformers",
                     "input_transformer_manager.cleanup_transforms", "input_transformer_manager.line_transforms",
                     "input_transformer_manager.token_transformers")
#: Whether the guard also restores module identities, transformers and event callbacks (this round's
#: additions). Only the hostile-class control test turns it off, to show what they block.
RESTORE_EXTRA = True

GUARD_ENAME = "GraderGuard"
MODULE_NAME = "_tensorgrad_grader_guard"

_SETUP_TEMPLATE = f'''\
# tensorgrad grader: setup (not part of the exercise)
def _tensorgrad_grader_setup(watched, machinery, preload, watched_classes, modules, transformer_lists, audit,
                             protected, whole_modules, channel):
    import importlib, sys, types

    for modname in preload:
        try:
            importlib.import_module(modname)
        except Exception:  # (not installed here: the exercise's own cell reports it)
            pass
    missing = object()
    originals = []  # (label, owner, name, original object or missing)
    for modname in whole_modules:  # every function and class of these modules, not a list of names
        module_object = sys.modules.get(modname)
        if module_object is not None:
            watched = (*watched, *((modname, k) for k, v in vars(module_object).items()
                                   if not k.startswith("__") and (callable(v) or isinstance(v, type))))
    for modname, name in dict.fromkeys(watched):
        try:
            owner = importlib.import_module(modname)
        except Exception:
            continue
        getattr(owner, name, None)  # a name a package provides lazily (PEP 562) is bound by now
        if name in vars(owner):
            originals.append((modname + "." + name, owner, name, vars(owner)[name]))
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
    shell_originals = {{name: vars(shell).get(name, missing) for name in machinery}}

    # The way every reply and record travels to the grader: the kernel's message session (its
    # methods, and pack/unpack, which are settings of the instance) and the kernel's table of
    # request handlers. A patch here can turn a failed test's reply into a passed one.
    sessions = [obj for obj in dict.fromkeys((getattr(kernel, "session", None),
                                              getattr(publisher, "session", None))) if obj is not None]

    def session_state(obj):
        values = getattr(obj, "_trait_values", {{}})
        return {{name: (values[name] if name in values else vars(obj).get(name, missing)) for name in channel}}

    saved_sessions = [(obj, session_state(obj)) for obj in sessions]
    handlers = {{name: getattr(kernel, name, None) for name in ("shell_handlers", "control_handlers")}}
    saved_handlers = {{name: (table, dict(table)) for name, table in handlers.items() if isinstance(table, dict)}}
    publisher_original = vars(publisher).get("publish", missing) if publisher is not None else missing

    module_ids = {{name: sys.modules.get(name) for name in modules}}

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
    saved_callbacks = ({{k: (v, list(v)) for k, v in callbacks.items()}}
                       if transformer_lists and isinstance(callbacks, dict) else None)

    attempts = []  # what the audit hook saw the student's code try (reported by check())
    if audit:
        import os as _os
        import re as _re

        own = (_os.path.realpath(_os.environ.get("HOME") or "/nonexistent"), _os.path.realpath(_os.getcwd()))
        allowed = tuple(p.rstrip("/") + "/" for p in (*own, "/tmp", "/dev", "/proc/self"))
        me = _os.getpid()
        other_proc = _re.compile(r"/proc/(\\d+)/(environ|cmdline|mem)$")
        proc_root = _re.compile(r"/proc/(\\d+|self|thread-self)/root/")  # another root, even one's own
        path_events = {{"os.remove": "removing", "os.rename": "renaming", "os.mkdir": "making a folder",
                       "os.rmdir": "removing a folder", "shutil.rmtree": "removing a tree", "os.symlink": "linking",
                       "os.link": "linking", "os.chmod": "changing the mode of", "os.truncate": "truncating"}}
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

        any_pid = _re.compile(r"/proc/\\d+/")

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

    class {GUARD_ENAME}(Exception):
        pass

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
            if getattr(kernel, name, None) is not table or any(table.get(k) is not v for k, v in contents.items()) \
                    or set(table) != set(contents):
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
        if sys.modules.get("{MODULE_NAME}") is not module:
            sys.modules["{MODULE_NAME}"] = module
            restored.append("sys.modules[{MODULE_NAME!r}]")
        parts = ["restored " + ", ".join(restored)] if restored else []
        if attempts:
            parts.append("attempted " + "; ".join(dict.fromkeys(attempts)))
            del attempts[:]
        if parts:
            raise {GUARD_ENAME}(" | ".join(parts))

    module = types.ModuleType("{MODULE_NAME}")
    module.check = check
    module.nonce = None
    sys.modules[module.__name__] = module

_tensorgrad_grader_setup(%s, %r, %s, %s, %r, %r, %r, %r, %r, %r)
del _tensorgrad_grader_setup
'''


def exercise_imports(notebook) -> tuple[str, ...]:
    """The modules the exercise set's own cells import (``import tensorgrad as tg``,
    ``from tensorgrad.nn import Linear``), sorted: every absolute import of every code cell of the
    instructor's notebook, answers included, and each package above it (``tensorgrad`` for
    ``tensorgrad.nn``). The setup cell imports them before it takes its snapshot, so that the
    exercise's own ``import`` is never taken for a swapped module, whichever way the kernel
    started (forked from the preloading fork server or not, :mod:`.kernel`), and the guard then
    watches their identity in ``sys.modules`` like that of :data:`WATCHED_MODULES`. A cell that
    is not Python (IPython's ``%magic`` or ``!shell`` lines) is read without those lines."""
    import ast

    found: set[str] = set()
    for cell in getattr(notebook, "cells", ()):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            kept = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
            try:
                tree = ast.parse(kept)
            except (SyntaxError, ValueError):
                continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                parts = name.split(".")
                found.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return tuple(sorted(found))


def setup_source(uses_checks: bool = False, imports: tuple[str, ...] = (), protected: tuple[str, ...] = ()) -> str:
    """The grader's first cell; with ``uses_checks``, also watches :mod:`.checks`.

    ``protected``: the grader's own folders (:func:`protected_folders`). Opening anything below
    them, to read or to write, is an attempt the audit hook reports, whether or not it succeeds
    (under the sandbox they do not even exist in the kernel's view).

    ``imports``: what the exercise itself imports (:func:`exercise_imports`). The cell imports
    them and every module of :data:`WATCHED_MODULES` before it remembers anything, so every
    watched module is in ``sys.modules`` at the snapshot: a later ``import`` of one (the
    exercise's own, or a test cell's) finds it there and changes nothing.
    """
    watched = WATCHED + (CHECKS_WATCHED if uses_checks else ())
    extra = RESTORE_EXTRA
    modules = tuple(dict.fromkeys((*WATCHED_MODULES, *imports))) if extra else ()
    preload = tuple(dict.fromkeys((*(("tensorgrad_course.checks",) if uses_checks else ()), *modules, *imports)))
    classes = (CHECKS_CLASSES if uses_checks else ()) + (CHANNEL_CLASSES if extra else ())
    whole = CHECKS_MODULES if uses_checks and extra else ()
    return _SETUP_TEMPLATE % (repr(watched), MACHINERY_METHODS, repr(preload), repr(classes),
                              modules, TRANSFORMER_LISTS if extra else (), extra, tuple(protected) if extra else (),
                              whole, CHANNEL_SETTINGS if extra else ())


#: More folders of the grader's (Gradescope's /autograder: gradescope.run adds it).
EXTRA_PROTECTED: list[str] = []


def protected_folders(solution: str, name: str) -> tuple[str, ...]:
    """The grader's folders a kernel has no business opening, from the path of the solution
    notebook of the set ``name``: the folder that holds the solutions folder (the course: its
    exercises, the class's submissions, the output; Gradescope's /autograder/source), or the
    solutions folder itself when that parent would be the whole file system or a home folder;
    and :data:`EXTRA_PROTECTED`."""
    import os

    solutions = os.path.abspath(solution)
    for _ in name.split("/"):
        solutions = os.path.dirname(solutions)
    course = os.path.dirname(solutions)
    if course in ("/", "/home", "/root", "/tmp", "/var/tmp", os.path.expanduser("~")):
        course = solutions
    return tuple(dict.fromkeys((course, *EXTRA_PROTECTED)))


def check_source(nonce: str | None = None) -> str:
    """The grader's cell before each test cell: arm the nonce, restore what was patched."""
    return f'__import__("{MODULE_NAME}").check({nonce!r})  # tensorgrad grader: restore patched functions'


SETUP_SOURCE = setup_source(False)
CHECK_SOURCE = check_source(None)
