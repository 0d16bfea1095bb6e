"""The core stays small enough to read, and to step through in a debugger (issue 19).

* `a * b` runs at most 8 Python functions of tensorgrad, and `c.backward(g)` through that one
  product at most 25 (micrograd: 2 and 3), a second backward into existing `.grad` too. Counted
  as sys.setprofile "call" events whose code lives in tensorgrad/: lambdas and generator
  expressions count (a generator is a frame a debugger steps into, on every Python, each time it
  resumes), list, dict and set comprehensions do not: Python 3.12 runs them inline (PEP 709). A
  learner who steps into `a * b` on Python 3.12 or later meets these functions and no others; on
  3.10 and 3.11 a debugger also stops in the comprehensions, none in `a * b` and 5 in
  `c.backward(g)` (test_the_comprehensions_a_debugger_also_meets_on_3_11).
* No `exec`, `eval` or `compile` anywhere in tensorgrad/: every line that runs is a line of a
  file a learner can open (and a debugger can follow).
"""

import ast
import importlib.util
import io
import os
import sys
import tokenize
from pathlib import Path

import tensorgrad as tg

PACKAGE = Path(tg.__file__).parent
NOT_COUNTED = {"<listcomp>", "<dictcomp>", "<setcomp>"}


def calls_in_tensorgrad(function):
    """The tensorgrad functions that `function()` runs, in order, as 'file:function'."""
    calls = []
    root = str(PACKAGE)

    def profile(frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(root) and code.co_name not in NOT_COUNTED:
            calls.append(f"{os.path.relpath(code.co_filename, root)}:{code.co_name}")

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return calls


def fresh_product():
    a = tg.tensor([1., 2.], requires_grad=True)
    b = tg.tensor([3., 4.], requires_grad=True)
    return a, b


def test_a_product_runs_at_most_8_functions():
    a, b = fresh_product()  # fresh leaves: their AccumulateGrad nodes are made by this product
    calls = calls_in_tensorgrad(lambda: a * b)
    assert len(calls) <= 8, calls


def test_backward_through_one_product_runs_at_most_25_functions():
    a, b = fresh_product()
    c = a * b
    g = tg.ones(2)
    calls = calls_in_tensorgrad(lambda: c.backward(g))
    assert len(calls) <= 25, calls
    assert a.grad.tolist() == [3., 4.] and b.grad.tolist() == [1., 2.]


def test_a_second_backward_into_existing_grad_runs_at_most_25_functions():
    """Adding into a `.grad` that is already there costs no more than creating it."""
    a, b = fresh_product()
    (a * b).backward(tg.ones(2))
    c = a * b
    g = tg.ones(2)
    calls = calls_in_tensorgrad(lambda: c.backward(g))
    assert len(calls) <= 25, calls
    assert a.grad.tolist() == [6., 8.] and b.grad.tolist() == [2., 4.]


def test_the_comprehensions_a_debugger_also_meets_on_3_11():
    """The figure the module's docstring gives for Python 3.10 and 3.11 (on 3.12 and later the
    comprehensions run inline and make no call event, so there is nothing to count)."""
    if sys.version_info >= (3, 12):
        return
    a, b = fresh_product()
    c = a * b
    g = tg.ones(2)
    NOT_COUNTED.clear()
    try:
        forward = calls_in_tensorgrad(lambda: a * b)
        backward = calls_in_tensorgrad(lambda: c.backward(g))
    finally:
        NOT_COUNTED.update({"<listcomp>", "<dictcomp>", "<setcomp>"})
    assert (len(forward), len(backward)) == (8, 25 + 5), (forward, backward)


def test_no_exec_eval_or_compile_in_the_library():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in {
                    "exec", "eval", "compile"}:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.func.id}")
    assert not found, found


# -- layers: imports point one way ----------------------------------------------------------------
def own_imports(tree):
    """The imports of tensorgrad's own modules in a file: relative ones and `tensorgrad.*`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(
                "tensorgrad")):
            yield node
        elif isinstance(node, ast.Import) and any(
                alias.name.startswith("tensorgrad") for alias in node.names):
            yield node


def test_no_import_of_the_library_inside_a_function_or_below_code():
    """Every file says what it builds on at its top: no import of a tensorgrad module inside a
    function (to dodge a cycle) or after the file's first function or class."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = {id(node) for node in tree.body}
        first_definition = min((node.lineno for node in tree.body if isinstance(
            node, (ast.FunctionDef, ast.ClassDef))), default=10 ** 9)
        for node in own_imports(tree):
            where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
            if id(node) not in top_level:
                found.append(f"{where} inside a function or block")
            elif node.lineno > first_definition:
                found.append(f"{where} below the file's code")
    assert not found, "\n".join(found)


def import_cycles(package="tensorgrad"):
    """Every direct import `a -> b` of the library that closes a ring: `b` imports `a` again,
    directly or through other modules (grimp, import-linter's engine, follows the chains)."""
    import grimp

    graph = grimp.build_graph(package)
    return sorted((a, b) for a in graph.modules for b in graph.find_modules_directly_imported_by(a)
                  if graph.chain_exists(importer=b, imported=a))


def test_no_import_cycles_in_the_library():
    assert import_cycles() == []


# -- the core: one folder, read in an evening ------------------------------------------------------
CORE = PACKAGE / "core"
# What the core may build on besides itself: plain values and PyTorch's texts, nothing that knows
# an operation or the PyTorch API (the layers below `tensorgrad.core` in pyproject.toml).
BELOW_THE_CORE = {"tensorgrad.dtypes", "tensorgrad.size", "tensorgrad.device",
                  "tensorgrad.autograd.messages", "tensorgrad.utils", "tensorgrad.utils.hooks"}


def code_lines(path):
    """Lines of a file that hold code: blank lines, comments and docstrings not counted."""
    text = path.read_text(encoding="utf-8")
    docstrings = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    lines = set()
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
               tokenize.ENDMARKER}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type not in skipped:
            lines.update(n for n in range(token.start[0], token.end[0] + 1) if n not in docstrings)
    return len(lines)


def test_the_core_is_at_most_900_lines_of_code():
    counts = {path.name: code_lines(path) for path in sorted(CORE.glob("*.py"))}
    assert sum(counts.values()) <= 900, counts


def test_code_lines_counts_code_only():
    sample = PACKAGE.parent / "tests" / "data_code_lines_sample.py"
    assert code_lines(sample) == 3


def test_the_core_imports_nothing_above_it():
    """tensorgrad/core imports only itself and the plain values below it: never an operation,
    the derivative table, Tensor's methods or the autograd API (their names reach the core
    only through Tensor's operators, at run time)."""
    found = []
    for path in sorted(CORE.glob("*.py")):
        module = "tensorgrad.core" + ("" if path.stem == "__init__" else "." + path.stem)
        for node in own_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                package = module.split(".")[:len(module.split(".")) - node.level + (
                    path.stem == "__init__")] if node.level else []
                base = ".".join([*package, *([node.module] if node.module else [])])
                modules = [f"{base}.{alias.name}" for alias in node.names]
                targets = [name for name in modules if _is_module(name)] or [base]
            for target in targets:
                if not (target == "tensorgrad.core" or target.startswith("tensorgrad.core.")
                        or target in BELOW_THE_CORE):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} imports {target}")
    assert not found, "\n".join(found)


def _is_module(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False
