"""The core stays small enough to read, and to step through in a debugger (issue 19).

* `a * b` runs at most 8 Python functions of tensorgrad, and `c.backward(g)` through that one
  product at most 25 (micrograd: 2 and 3). Counted as sys.setprofile "call" events whose code
  lives in tensorgrad/; comprehensions and generator expressions are not counted, lambdas are.
  A learner who steps into `a * b` meets these functions and no others.
* No `exec`, `eval` or `compile` anywhere in tensorgrad/: every line that runs is a line of a
  file a learner can open (and a debugger can follow).
"""

import ast
import os
import sys
from pathlib import Path

import tensorgrad as tg

PACKAGE = Path(tg.__file__).parent
NOT_COUNTED = {"<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>"}


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
