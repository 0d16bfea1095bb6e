"""An exercise set asks for code the lessons have not already shown (issue 27, "What it must show":
"set 12 does not repeat a model answer that lesson 12 already showed").

A learner who can copy a task's answer out of an open lesson cell learns nothing from the task, and
renaming the variables does not change that. So the comparison is name-blind. Every model answer
(the lines between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` in solutions/) and every lesson
code cell a learner sees without opening it (not ``source_hidden``) is read as Python tokens
(:func:`shape`), with each name the code chooses itself, each number and each string made one
placeholder, and comments, indentation and blank lines dropped. What is left is what the code does:
keywords, operators, the names it takes from elsewhere (``tg.autograd.grad``, ``zip``, ``.grad``).

An answer is compared with each open cell of the lessons a learner has read when they reach the set:
the course map's lessons up to and including the set's own. The shared stretches of at least
:data:`WINDOW` tokens, in order (difflib's matching blocks), are counted; an answer *repeats* a cell
when they cover :data:`MOST` of its tokens or more. Answers shorter than :data:`SHORTEST` tokens
(about four lines) are left out: one or two lines that call what the lesson taught are what a task
practises, and predictions (only assignments of values) have nothing to copy.

The figures, measured (`python -m pytest -s tests/test_sets_ask_what_lessons_did_not_show.py -k
report`): at main 5e348fb, set 12's task 6 (lesson 12's ``gradients_agree`` split in two) repeats
75% and task 7 (lesson 12's XOR loop in a function) 52%; both are rewritten now and repeat 19% and
32%. Five answers of other sets repeated a lesson cell too, listed in :data:`KNOWN` until they were
rewritten (session 14) to ask for what their lesson did not show: set 05 task 3 (69%, now 48%:
the Jacobian of tensors of any shape), set 06 task 4 (56%, now 31%: several Hessian-vector
products from one gradient), set 10 task 2 (63%, now 35%: the consumers of each node), set 11
task 3 (69%, now 40%: the loss in parts) and task 6 (67%, now 41%: shuffled mini-batches).
:data:`KNOWN` is empty now: a repeat found later must be rewritten, or listed there with the cell it
copies.
"""

from __future__ import annotations

import ast
import difflib
import functools
import io
import keyword
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
WINDOW = 10          # tokens a shared stretch must have, after names and literals are blinded
MOST = 0.5           # the share of an answer's tokens that shared stretches may not reach
SHORTEST = 60        # tokens: shorter answers are not compared
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
SETS = sorted((ROOT / "solutions").glob("*.ipynb"))
LESSONS_DIR = ROOT / "lessons"
SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
           tokenize.ENDMARKER}

# Answers that repeat an open lesson cell and are left so on purpose (none now):
# (set file, answer cell id): the lesson cell it repeats most (for the reader).
KNOWN: dict[tuple[str, str], str] = {}


def shape(source: str, context: str = "") -> list[str]:
    """The tokens of Python `source`, blind to the names it chooses and to its literals.

    Every name the code binds itself (an assignment's or a loop's target, a parameter, a function
    or class it defines) becomes ``x``, as does every number and string: renaming ``losses`` to
    ``history`` or writing ``lr`` for ``0.2`` changes nothing. Names it takes from elsewhere
    (``zip``, ``tg.tensor``, ``Value``) and attributes (``.grad``, ``.backward``) stay: they are
    what the code does. Comments, indentation and blank lines are dropped; a line end is ``;``.
    IPython lines (``%matplotlib``, ``!pip``) are dropped. `context` is the code around `source`
    (the whole answer cell of a solution region): the names it binds, such as the parameters of
    the ``def`` a region sits in, are blinded too.
    """
    text = _dedented(_without_magics(source)) + "\n"
    chosen = bound_names(text) | (bound_names(_without_magics(context)) if context else set())
    tokens, previous = [], ""
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in SKIPPED:
            continue
        if token.type == tokenize.NEWLINE:
            word = ";"
        elif token.type == tokenize.NAME and not keyword.iskeyword(token.string):
            word = "x" if token.string in chosen and previous != "." else token.string
        elif token.type in (tokenize.NUMBER, tokenize.STRING):
            word = "x"
        else:
            word = token.string
        tokens.append(word)
        previous = token.string
    return tokens


def bound_names(text: str) -> set[str]:
    """The names `text` binds: targets of assignments and loops, parameters, functions and classes."""
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def _without_magics(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))


def _dedented(text: str) -> str:
    indents = [len(line) - len(line.lstrip()) for line in text.splitlines() if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in text.splitlines())


def is_prediction(text: str) -> bool:
    """A prediction's answer: only assignments of values (``x_grad = 6.0``), nothing to copy."""
    return all(isinstance(statement, ast.Assign) for statement in ast.parse(_dedented(text)).body)


@dataclass(frozen=True)
class Answer:
    notebook: str
    cell: str
    text: str
    tokens: tuple[str, ...]


def model_answers(path: Path) -> list[Answer]:
    """Each solution region of a set that is code, not a prediction, as text and as its shape."""
    answers = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code" or BEGIN not in cell.source:
            continue
        region: list[str] | None = None
        for line in cell.source.splitlines():
            if line.strip() == BEGIN:
                region = []
            elif line.strip() == END and region is not None:
                text = "\n".join(region)
                if not is_prediction(text):
                    answers.append(Answer(path.name, cell.get("id", "?"), text,
                                          tuple(shape(text, cell.source))))
                region = None
            elif region is not None:
                region.append(line)
    return answers


def open_lesson_cells(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """The code cells of a lesson whose source a learner sees without opening anything."""
    cells = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code" or cell.metadata.get("jupyter", {}).get("source_hidden"):
            continue
        try:
            cells.append((f"{path.name} {cell.get('id', '?')}", tuple(shape(cell.source))))
        except SyntaxError:                 # a cell that shows a syntax error on purpose
            continue
    return cells


def reading_order() -> list[str]:
    """The lessons' file names in the course map's order (as tests/test_lessons.py reads it)."""
    text = (LESSONS_DIR / "README.md").read_text(encoding="utf-8").split("## The lessons", 1)[1]
    return re.findall(r"^- \[(\d\d_[A-Za-z0-9_]+\.ipynb)\]", text, flags=re.M)


def lessons_read_by(set_path: Path, order: list[str]) -> list[Path]:
    """The lessons a learner has read on reaching `set_path`: up to and including its own."""
    own = next(k for k, name in enumerate(order) if name[:2] == set_path.name[:2])
    return [LESSONS_DIR / name for name in order[:own + 1]]


def repeated(answer: Answer, cells) -> tuple[float, str]:
    """The largest share of the answer's tokens in stretches of WINDOW or more that one cell shares."""
    best = (0.0, "")
    for where, tokens in cells:
        blocks = difflib.SequenceMatcher(None, answer.tokens, tokens, autojunk=False).get_matching_blocks()
        share = sum(block.size for block in blocks if block.size >= WINDOW) / len(answer.tokens)
        best = max(best, (share, where))
    return best


@functools.lru_cache(maxsize=None)
def shares(sets=tuple(SETS)) -> list[tuple[Answer, float, str]]:
    """(answer, its largest repeated share, the lesson cell) for every answer long enough to compare."""
    order = reading_order()
    cells = {name: open_lesson_cells(LESSONS_DIR / name) for name in order}
    rows = []
    for path in sets:
        read = [cell for lesson in lessons_read_by(path, order) for cell in cells[lesson.name]]
        for answer in model_answers(path):
            if len(answer.tokens) >= SHORTEST:
                rows.append((answer, *repeated(answer, read)))
    return rows


def repeats(sets=tuple(SETS)) -> dict[tuple[str, str], str]:
    """{(set file, answer cell): lesson cell} for every answer that mostly repeats an open lesson cell."""
    return {(answer.notebook, answer.cell): where for answer, share, where in shares(sets) if share >= MOST}


def describe(sets=tuple(SETS)) -> str:
    return "\n\n".join(f"{answer.notebook} cell {answer.cell}: {share:.0%} of the model answer is shown, "
                       f"names aside, by {where}:\n{answer.text}"
                       for answer, share, where in shares(sets) if share >= MOST)


def test_shape_is_blind_to_chosen_names_and_literals():
    assert (shape("losses.append(loss.data)  # one step", "losses, loss = [], f()")
            == shape("history.append(cost.data)", "history = []; cost = g()"))
    assert shape("p.data -= lr * p.grad", "def f(p, lr): pass") == shape("q.data -= 0.2 * q.grad", "q = 1")
    assert shape("x.grad") != shape("x.data")                 # attributes are what the code does
    assert shape("for a in b:\n    c = 1") != shape("while a:\n    c = 1")


def test_every_set_is_compared():
    assert len(SETS) == 13
    assert all(model_answers(path) for path in SETS)
    assert len(reading_order()) == 13


def test_no_set_repeats_a_model_answer_an_open_lesson_cell_shows():
    """Set 12's tasks 6 and 7 did at main 5e348fb, five answers of other sets until session 14."""
    found = repeats()
    new = {key: where for key, where in found.items() if key not in KNOWN}
    assert not new, "\n\n".join(part for part in describe().split("\n\n")
                                if any(f"{name} cell {cell}:" in part for name, cell in new))
    mended = sorted(set(KNOWN) - set(found))
    assert not mended, f"these answers no longer repeat their lesson cell: take them off KNOWN: {mended}"


def test_set_12_repeats_nothing_of_lesson_12():
    rows = [(answer.cell, share, where) for answer, share, where in shares()
            if answer.notebook.startswith("12_")]
    assert rows and all(share < MOST for _, share, _ in rows), rows


def test_a_copied_lesson_loop_is_caught(tmp_path):
    """The test can fail: lesson 12's open XOR loop, renamed, put into set 12, is caught."""
    lesson = nbformat.read(LESSONS_DIR / "12_build_your_own_engine.ipynb", as_version=4)
    loop = next(cell.source for cell in lesson.cells if cell.get("id") == "cell-899fbff1")
    renamed = re.sub(r"\bparam\b", "weight", re.sub(r"\blosses\b", "history", loop))
    body = "\n".join("    " + line for line in renamed.splitlines()
                     if "print" not in line and "if step" not in line)
    copied = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"def train(net, points, targets):\n    {BEGIN}\n{body}\n    return history\n    {END}")])
    path = tmp_path / "12_exercises_copied.ipynb"
    nbformat.write(copied, path)
    assert repeats((path,)) == {(path.name, copied.cells[0].id): "12_build_your_own_engine.ipynb cell-899fbff1"}


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_report_the_largest_share(path, capsys):
    """Not a check: prints each set's most repeated answer (run with -s), to show the margins."""
    best = max(((share, answer.cell, where) for answer, share, where in shares((path,))), default=(0.0, "-", "-"))
    with capsys.disabled():
        print(f"\n{path.name}: largest share repeated {best[0]:.0%} (cell {best[1]}, {best[2]})")
