"""Grader-injected cells that undo a student's monkeypatching before each test cell.

A student's answer cells run in the same kernel as the instructor's tests, so
they can replace what the tests rely on: ``numpy.allclose = lambda *a, **k: True``
makes a wrong answer pass a test that compares with ``np.allclose``. Reading the
execute_reply status (see :mod:`.kernel`) does not help here: the test really
does not raise.

So the grader runs two kinds of cells of its own (never shown to students):

* :func:`setup_source`, before any student code: remembers the original objects
  behind the names tests use to compare (NumPy's comparison and testing
  functions, ``math.isclose``, builtins such as ``abs``/``all``/``isinstance``)
  and the methods of IPython's shell and kernel that run cells and report errors;
* :func:`check_source`, right before every test cell: arms :mod:`.checks` with
  the run's nonce (test records must carry it), puts back every original that
  was replaced, removes instance-level overrides of the IPython methods, and
  raises ``GraderGuard`` naming what it restored. The grader reads that from
  the cell's execute_reply and lists it in the integrity report. The test then
  runs against the real functions.

The setup cell is one line: the code it runs is :mod:`._guard_kernel`, imported (IPython would
otherwise tokenize and hash some 250 lines of cell text in every kernel).

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

from ._guard_kernel import MODULE_NAME

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


#: The grader's first cell: the kernel side of the guard (:mod:`._guard_kernel`) takes its snapshot.
_SETUP_CELL = """\
# tensorgrad grader: setup (not part of the exercise)
__import__("tensorgrad_course._guard_kernel", fromlist=["setup"]).setup(%s, %r, %s, %s, %r, %r, %r, %r, %r, %r)
"""


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
    return _SETUP_CELL % (repr(watched), MACHINERY_METHODS, repr(preload), repr(classes),
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

