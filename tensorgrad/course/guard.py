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
* :data:`CHECK_SOURCE`, right before every test cell: puts back every original
  that was replaced, removes instance-level overrides of the IPython methods,
  and raises ``GraderGuard`` naming what it restored. The grader reads that
  from the cell's execute_reply and lists it in the integrity report. The test
  then runs against the real functions, so the grade is right either way.

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

GUARD_ENAME = "GraderGuard"
MODULE_NAME = "_tensorgrad_grader_guard"

SETUP_SOURCE = f'''\
# tensorgrad grader: setup (not part of the exercise)
def _tensorgrad_grader_setup(watched, machinery):
    import importlib, sys, types

    missing = object()
    originals = []  # (label, owner, name, original object or missing)
    for modname, name in watched:
        try:
            module = importlib.import_module(modname)
        except Exception:
            continue
        if name in vars(module):
            originals.append((modname + "." + name, module, name, vars(module)[name]))
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    classes = type(shell).__mro__ + (type(kernel).__mro__ if kernel is not None else ())
    for cls in dict.fromkeys(classes):
        if cls is object:
            continue
        for name in machinery:
            originals.append((cls.__name__ + "." + name, cls, name, vars(cls).get(name, missing)))

    # ipykernel itself sets some of these on the shell instance; remember those too.
    shell_originals = {{name: vars(shell).get(name, missing) for name in machinery}}

    class {GUARD_ENAME}(Exception):
        pass

    def check():
        restored = []
        for label, owner, name, original in originals:
            if vars(owner).get(name, missing) is not original:
                if original is missing:
                    delattr(owner, name)
                else:
                    setattr(owner, name, original)
                restored.append(label)
        for name in machinery:
            current = vars(shell).get(name, missing)
            if current is not shell_originals[name]:
                if shell_originals[name] is missing:
                    delattr(shell, name)
                else:
                    setattr(shell, name, shell_originals[name])
                restored.append("get_ipython()." + name)
        if restored:
            raise {GUARD_ENAME}("restored " + ", ".join(restored))

    module = types.ModuleType("{MODULE_NAME}")
    module.check = check
    sys.modules[module.__name__] = module

_tensorgrad_grader_setup({WATCHED!r}, {MACHINERY_METHODS!r})
del _tensorgrad_grader_setup
'''

CHECK_SOURCE = f'__import__("{MODULE_NAME}").check()  # tensorgrad grader: restore patched functions'
