"""Lesson 12, the capstone: the learner writes the engine, step by step, and each step is checked.

Each step of the lesson's section 1 is three cells: the learner's cell (tagged ``your-code``: a
``# your code here`` stub that raises NotImplementedError until it is written), the step's
reference (tagged ``reference`` and ``hide-input``, stored with its source closed), and a check
cell that runs the learner's code and, until it passes, goes on with the reference. Here:

* the structure, in both editions, and the stored check cells, which show each step "not
  written yet" (the notebook is stored as a learner first sees it);
* the checks pass with a learner's right answer (each stub replaced by its step's reference
  body) and fail, naming the check, with the usual wrong ones (``=`` instead of ``+=``, a
  recursive sort, a sort that forgets what it has seen, a backward pass in the wrong order);
* no model answer of set 12 repeats a line of lesson 12's references: the set asks for what the
  lesson did not hand over.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME = "12_build_your_own_engine.ipynb"
LESSON = ROOT / "lessons" / NAME
EDITIONS = [LESSON, ROOT / "lessons" / "zh" / NAME]
SOLUTION = ROOT / "solutions" / "12_exercises_build_your_own_engine.ipynb"
STUB = "raise NotImplementedError"
YOUR_CODE = {"lessons": "# your code here", "zh": "# 在这里写你的代码"}  # the stub's line, by edition
STEPS = 6  # Value, mul, add, by_hand, topological_order, backward


def cells(path: Path) -> list[dict]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        cell["source"] = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    return nb["cells"]


def tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def output(cell: dict) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def steps(nb: list[dict]) -> list[tuple[int, int, int]]:
    """(learner cell, reference cell, check cell) of each step, by index."""
    found = []
    for index, cell in enumerate(nb):
        if "your-code" in tags(cell):
            found.append((index, index + 1, index + 2))
    return found


@pytest.mark.parametrize("path", EDITIONS, ids=["en", "zh"])
def test_each_step_is_written_by_the_learner_and_checked(path):
    nb = cells(path)
    your_code = YOUR_CODE[path.parent.name]
    found = steps(nb)
    assert len(found) == STEPS, f"{path.name}: {len(found)} cells for the learner's code, expected {STEPS}"
    for yours, reference, check in found:
        mine = nb[yours]
        assert mine["cell_type"] == "code" and your_code in mine["source"] and STUB in mine["source"], \
            f"cell {yours}: a learner's cell says {your_code!r} and raises NotImplementedError"
        assert not mine.get("outputs"), f"cell {yours}: the learner's cell defines only (no output)"
        ref = nb[reference]
        assert {"reference", "hide-input"} <= set(tags(ref)), f"cell {reference}: the step's reference"
        assert ref["metadata"].get("jupyter", {}).get("source_hidden") is True, \
            f"cell {reference}: the reference is stored closed (source_hidden)"
        assert STUB not in ref["source"] and your_code not in ref["source"]
        assert re.search(r"^if not check\(", nb[check]["source"], re.M), f"cell {check}: the step's check"
        shown = output(nb[check]).splitlines()
        assert shown and shown[0].startswith("\N{BALLOT X}") and "NotImplementedError" in shown[0], \
            f"cell {check}: stored as a learner first sees it, the check says the step is not written yet"


# --- Running section 1 with a learner's answers ----------------------------------------------------


def reference_body(source: str) -> list[str]:
    """The body of the one function a reference cell defines, without its comment lines."""
    tree = ast.parse(source)
    (func,) = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    lines = source.splitlines()[func.body[0].lineno - 1: func.end_lineno]
    return textwrap.dedent("\n".join(lines)).splitlines()


def written(nb: list[dict], edits: dict[str, tuple[str, str]] | None = None) -> list[dict]:
    """Section 1 with every stub replaced by its reference's body, then `edits` applied: {name of the
    reference function: (old, new)} (a learner's mistake)."""
    nb = json.loads(json.dumps(nb))
    for yours, reference, _ in steps(nb):
        source = nb[yours]["source"]
        name = ast.parse(nb[reference]["source"]).body[0].name
        body = reference_body(nb[reference]["source"])
        old, new = (edits or {}).get(name, ("", ""))
        body = "\n".join(line.replace(old, new) if old else line for line in body).splitlines()
        (stub,) = [line for line in source.splitlines() if STUB in line]
        indent = stub[: len(stub) - len(stub.lstrip())]
        nb[yours]["source"] = source.replace(stub, "\n".join(indent + line for line in body))
    return nb


def run_cells(nb: list[dict], last: int) -> dict[str, str]:
    """Run the lesson's code cells up to index `last` in one namespace; what each printed, by cell id."""
    namespace: dict = {}
    printed = {}
    for index, cell in enumerate(nb[: last + 1]):
        if cell["cell_type"] != "code":
            continue
        source = "\n".join(line for line in cell["source"].splitlines() if not line.startswith("%"))
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(source, f"cell {index}", "exec"), namespace)
        printed[cell["id"]] = buffer.getvalue()
    return printed


def run_section_1(nb: list[dict]) -> dict[str, str]:
    """Run the lesson's code cells up to the last step's check; what each check cell printed, by the
    step it checks."""
    printed = run_cells(nb, steps(nb)[-1][2])
    return {step[1]: printed[cell["id"]] for cell in nb if cell["id"] in printed
            and (step := re.search(r'^if not check\("([^"]+)"', cell["source"], re.M))}


def test_a_learners_right_answers_pass_every_check():
    printed = run_section_1(written(cells(LESSON)))
    assert len(printed) == STEPS
    for step, text in printed.items():
        assert "\N{BALLOT X}" not in text and f"{step}: every check passes" in text, text


def test_the_stub_fails_every_check_and_the_lesson_goes_on():
    printed = run_section_1(cells(LESSON))
    for step, text in printed.items():
        assert text.startswith(f"\N{BALLOT X} {step}: not written yet"), text


RECURSIVE = ("order, visited, stack = [], set(), [(root, False)]",
             "order, visited, stack = [], set(), []\n"
             "def visit(node):\n"
             "    if id(node) not in visited:\n"
             "        visited.add(id(node))\n"
             "        for child in node._prev:\n"
             "            visit(child)\n"
             "        order.append(node)\n"
             "visit(root)")

MISTAKES = [
    ("reference_mul", ("self.grad += other.data", "self.grad = other.data"), "step 2, mul",
     "a.grad = 1.5 and b.grad = 0.5 before: _backward adds to both"),
    ("reference_add", ("other.grad += out.grad", "other.grad = out.grad"), "step 2, add",
     "a.grad = 1.5 and b.grad = 0.5 before: _backward adds to both"),
    ("reference_init", ("self.data = float(data)", "self.data = data"), "step 1, Value",
     "Value(2): data 2.0 (a float), grad 0.0, no inputs, no operation"),
    ("reference_by_hand", ('v["y"]._backward()                    # now', 'pass  #'), "step 3, by_hand",
     "y.grad, x.grad and w.grad at x = 2, w = 1"),
    ("reference_topological_order", ("elif id(node) not in visited:", "else:"), "step 4, topological_order",
     "b made from (a, a): a appears once"),
    ("reference_topological_order", RECURSIVE, "step 4, topological_order",
     "a chain of 5,000 values, without RecursionError"),
    ("reference_backward", ("reversed(topological_order(self))", "topological_order(self)"), "step 5, backward",
     "(x + w) * (w + 1) at x = 2, w = 1: y.grad, x.grad, w.grad"),
]


@pytest.mark.parametrize("function, edit, step, failing", MISTAKES,
                         ids=[f"{m[0]}: {m[1][1][:24]}" for m in MISTAKES])
def test_a_learners_mistake_fails_its_check(function, edit, step, failing):
    printed = run_section_1(written(cells(LESSON), {function: edit}))
    assert f"\N{BALLOT X} {failing}:" in printed[step], printed[step]
    assert "The lesson goes on with the reference" in printed[step]
    later = list(printed)[list(printed).index(step) + 1:]
    for other in later:  # the reference stands in: the later steps still work
        assert f"{other}: every check passes" in printed[other], (other, printed[other])


# --- Section 4's counts are the same for every learner's order ---------------------------------------

#: A learner's valid topological order that is not the reference's: each value's inputs pushed in reverse.
REVERSED_INPUTS = ("stack.extend((child, False) for child in node._prev)",
                   "stack.extend((child, False) for child in reversed(node._prev))")
#: The cells that count how many random expressions survive the `=` bug, and the prose that quotes them.
COUNTS, BY_ORDER = "cell-ff7b72cd", "cell-5e0a1c15"
PROSE = ("cell-174b4a48", "cell-5e0a1c16", "cell-bc1f87f6")


def test_section_4s_counts_are_the_same_with_a_learners_own_order():
    """The prose quotes the counts of the `=` bug; they hold for every valid order the learner writes."""
    nb = written(cells(LESSON), {"reference_topological_order": REVERSED_INPUTS})
    index = {cell["id"]: k for k, cell in enumerate(nb)}
    printed = run_cells(nb, index[BY_ORDER])
    order_check = nb[steps(nb)[4][2]]
    assert "step 4, topological_order: every check passes" in printed[order_check["id"]]
    assert printed[order_check["id"]].splitlines()[-1] != output(order_check).splitlines()[-1], \
        "the learner's order differs from the reference's"
    stored = {cell["id"]: output(cell) for cell in cells(LESSON)}
    for cid in (COUNTS, BY_ORDER):
        assert printed[cid] == stored[cid], f"{cid} prints other counts with the learner's order"
    (agree,) = re.findall(r"(\d+) of 300 agree with the '=' bug", stored[COUNTS])
    first, second, both = re.search(r"(\d+) survive .* in our order, (\d+) in the other, (\d+) in both",
                                    stored[BY_ORDER]).groups()
    prose = "\n".join(" ".join(stored_cell["source"].split()) for stored_cell in cells(LESSON)
                      if stored_cell["id"] in PROSE)
    for quoted in (f"Only {agree} of the 300", f"{second} survive, and only {both} of them were among the first {first}",
                   f"fails {300 - int(agree)} of them"):
        assert quoted in prose, f"the prose quotes what the cells print: {quoted!r}"


# --- Set 12 asks for what the lesson did not hand over ----------------------------------------------


#: Lines any engine shares by their form alone: a signature, a closure's assignment, `return out`,
#: the loop over a stack, and the idiom that wraps a plain number operand in a Value.
IDIOMS = re.compile(r"returnout|out\._backward=_backward|def_backward\(\):|def\w+\(.*\):|whilestack:"
                    r"|other=otherifisinstance\(other,Value\)elseValue\(other\)")


def normalised(source: str) -> set[str]:
    """The code lines of a source, without comments, blank lines, spacing and IDIOMS."""
    lines = set()
    for line in source.splitlines():
        code = re.sub(r"\s+", "", re.sub(r"#.*", "", line))
        if code and not IDIOMS.fullmatch(code):
            lines.add(code)
    return lines


def model_answers(path: Path) -> list[tuple[str, str]]:
    """(grade id, text between the solution markers) of each answer region of a solutions notebook."""
    found = []
    for cell in cells(path):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            for region in re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", cell["source"], re.S):
                found.append((meta["grade_id"], region))
    return found


def test_no_model_answer_of_set_12_repeats_the_lessons_references():
    shown = set()
    for cell in cells(LESSON):
        if "reference" in tags(cell):
            shown |= normalised(cell["source"])
    assert len(shown) > 20
    repeated = [f"{grade_id}: {line}" for grade_id, region in model_answers(SOLUTION)
                for line in sorted(normalised(region) & shown)]
    assert not repeated, "set 12's model answers repeat lesson 12's reference code:\n  " + "\n  ".join(repeated)
