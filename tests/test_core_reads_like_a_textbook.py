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
