"""The two seed tutorials, literally, in their companion notebooks (issue 21).

The course grew from two Chinese tutorials. Each has a companion notebook in lessons/ (and its
Chinese edition in lessons/zh/) that reads it section by section:

* **every code line** of the tutorial appears in a code cell of its companion, as a whole line,
  exactly as written there (indentation, comments and all; trailing spaces aside). Where the
  tutorial shows a REPL session (``>>> ...``), its code lines are the lines after the prompt, and
  the lines it says are printed must appear in the companion too (as comments or quoted text);
* **every error of the tutorials that the course names** has its box: a markdown cell starting
  with one of the box labels that quotes the tutorial's words and links to a lesson cell
  (``NN_name.ipynb#cell-id=...``) that exists; and every link from a lesson to a companion cell
  (``seed_N_name.ipynb#cell-id=...``) points at a cell that exists.

The tutorials are third-party texts and live outside the repository. The first test reads them
from the folder named by ``TENSORGRAD_SEEDS`` (``.ci/run`` sets it where CI lays the texts beside
the clone) and is skipped, saying why, when the variable is not set. Which lines of each text
are code is declared below (:data:`TUTORIALS`), with the text's SHA-256, so a changed text fails
loudly instead of being checked against stale line numbers; a sanity check makes sure no line that
looks like code lies outside the declared blocks.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
SEEDS_ENV = "TENSORGRAD_SEEDS"


@dataclass(frozen=True)
class Tutorial:
    file: str
    sha256: str
    companion: str
    # 1-based inclusive line ranges of the text's code, and of each kind:
    #   "code": every line is code;  "repl": ">>> " lines are code, the others are printed output;
    #   "output": every line is printed output.
    blocks: tuple[tuple[int, int, str], ...]
    # Lines where the copied text ran two lines together (its line numbers say "1 2"):
    # line number -> (the code line, the printed line), as they were before.
    joined: tuple[tuple[int, tuple[str, str]], ...] = ()


TUTORIALS = (
    Tutorial("000_bf56f9d3d76df832.txt",
             "014049e02f357623a2719769160587e92eea5f263947d4f0832fe685a82decbd",
             "seed_1_autograph_tutorial.ipynb",
             ((9, 14, "code"), (22, 31, "code"), (37, 54, "code"), (78, 88, "code"),
              (107, 107, "code"), (113, 113, "code"), (118, 122, "repl"), (126, 130, "repl"),
              (134, 137, "repl"), (141, 141, "output"), (145, 145, "repl"), (149, 149, "repl"),
              (157, 167, "repl"), (171, 174, "repl"), (182, 182, "code"), (186, 193, "repl"), (196, 202, "repl"),
              (206, 211, "repl"), (216, 216, "code")),
             joined=((149, ("a.grad", "tensor(4.)")),)),
    Tutorial("001_025d07bfb114ef40.txt",
             "c1a1de67a5bd9e4eaefb0e082ffe2f1f8b535e38e868be207429cda63fc568cd",
             "seed_2_autograd_notes.ipynb",
             ((21, 28, "code"), (32, 39, "code"), (43, 51, "code"), (55, 61, "code"),
              (63, 65, "output"), (71, 76, "code"))),
)

# The copied text's line numbers ("1\t", "1 2\t") in front of some code lines.
LINE_NUMBERS = re.compile(r"^\d+(?: \d+)*\t")
PROMPT = ">>> "
# A line that looks like code (checked outside the declared blocks).
LOOKS_LIKE_CODE = re.compile(r"^(?:>>>|\s*(?:import|print\(|with |while |def |return )|\s*\w+\s*=[^=])"
                             r"|torch\.\w+\(")

BOX_LABELS = {"en": ("> **Misconception:", "> **Out of date:", "> **Typo:"),
              "zh": ("> **误区**：", "> **已过时**：", "> **笔误**：")}
LESSON_LINK = re.compile(r"\]\((\d\d_[a-z0-9_]+\.ipynb)#cell-id=([A-Za-z0-9_-]+)\)")

# Each error of the tutorials that the course names (issue 21), by the tutorial's own words, which
# a box of the companion quotes literally (in both editions).
NAMED_ERRORS = (
    ("data are nodes, operations are edges", 0, "数据是这个图的节点（node），运算是这个图的边（edge）"),
    ("x, w and b are leaves", 0, "$x$、$w$ 和 $b$ 是由用户定义的"),
    ("is_leaf() called, c called a non-leaf", 0, "c.is_leaf() # False"),
    ("the counter loop records no graph; torch.Tensor", 0, "torch.Tensor([0])"),
    ("the TensorFlow while_loop/Session block and its bug", 0, "sess.run"),
    ("tf.Session is gone", 0, "tf.Session"),
    ("notation inverted in section 2", 0, "$\\frac{\\partial x}{\\partial z}$"),
    ("notation inverted in section 3",  0, "$$\\frac{\\partial x}{\\partial z}=\\frac{\\partial x}{\\partial y}\\cdot \\frac{\\partial y}{\\partial z}$$"),
    ("the wrong print tensor(1.)", 0, "`tensor(1.)`"),
    ("results inherit requires_grad", 0, "requires_grad 属性与叶子节点相同"),
    ("the section 4.1 REPL sequence", 0, "tensor(5., grad_fn=<AddBackward0>)"),
    ("notation inverted in section 4.1", 0, "$\\frac{\\partial a}{\\partial b} = (a^2)’ = 2 * a = 2 * 2 = 4$"),
    ("the wrong print tensor([2., 3.])", 0, "tensor([2., 3.], grad_fn=<AddBackward0>)"),
    ("gradient the same shape as the created variable", 0, "与创建变量维度相同"),
    ("the double backward on b", 0, "b.backward(gradient=torch.ones_like([1., 1.]))"),
    ("grad_variables", 0, "grad_variables"),
    ("the deprecated only_inputs", 0, "only_inputs=True"),
    ("grad_outputs the same shape as x", 0, "与 $x$ 维度相同"),
    ("the printed tuple cut short", 0, "[36., 42., 48.]])"),
    ("notation inverted in section 5", 0, "$\\frac{\\partial\\partial x}{\\partial\\partial z}$"),
    ("the section 5 call that raises", 0, "当我们对 b 求导的话"),
    ("retain_graph said to equal create_graph", 0, "两者的作用是相同的"),
    ("typos autograph / augograd", 0, "torch.augograd.grad"),
    ("more than one dimension said to fail", 0, "如果结果为1 维以上张量，直接求导会出错"),
    ("its reason: [2., 3.] cannot be differentiated", 0, "这是因为 [2., 3.] 没法求导"),
    ("second derivatives with weights of ones", 0, "结果也很好理解"),
    ("typos auotgrad / 取决与", 1, "auotgrad"),
    ("requires_grad_ default", 1, "其默认为False"),
    ("the last formula cut short", 1, "$\\frac{}{\\partial x_i}$"),
    ("detach said to untrack the tensor itself", 1, "解绑完成后在该张量上的后续计算都不会被autograd追踪"),
)


def companion(tutorial: Tutorial, edition: str) -> Path:
    return LESSONS / ("zh" if edition == "zh" else "") / tutorial.companion


def read(path: Path):
    return nbformat.read(path, as_version=4)


def seeds_folder() -> Path:
    value = os.environ.get(SEEDS_ENV)
    if not value:
        pytest.skip(f"{SEEDS_ENV} is not set: it names the folder with the seed tutorials' texts "
                    "(.ci/run sets it where CI lays the texts beside the clone)")
    folder = Path(value)
    assert folder.is_dir(), f"{SEEDS_ENV}={value} is not a folder"
    return folder


def tutorial_lines(tutorial: Tutorial) -> tuple[list[str], list[str]]:
    """(code lines, printed lines) of a tutorial, as written there."""
    path = seeds_folder() / tutorial.file
    assert path.is_file(), f"no {tutorial.file} in {path.parent}"
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == tutorial.sha256, (
        f"{tutorial.file} is not the text whose code lines tests/test_seeds.py declares: "
        "review TUTORIALS (its line ranges) and the companion notebook")
    lines = data.decode("utf-8").splitlines()
    code, printed = [], []
    joined = dict(tutorial.joined)
    for start, end, kind in tutorial.blocks:
        for number, raw in enumerate(lines[start - 1:end], start):
            line = LINE_NUMBERS.sub("", raw).rstrip()
            if number in joined:
                assert line == PROMPT + " ".join(joined[number]), f"{tutorial.file}:{number}: {line!r}"
                code.append(joined[number][0])
                printed.append(joined[number][1])
                continue
            if not line.strip():
                continue
            if kind == "output" or (kind == "repl" and not line.startswith(PROMPT)):
                printed.append(line)
            else:
                code.append(line[len(PROMPT):] if line.startswith(PROMPT) else line)
    return code, printed


@pytest.mark.parametrize("tutorial", TUTORIALS, ids=lambda t: t.file)
def test_declared_blocks_hold_all_the_code(tutorial):
    """No line that looks like code lies outside the declared blocks."""
    lines = (seeds_folder() / tutorial.file).read_text(encoding="utf-8").splitlines()
    inside = {n for start, end, _ in tutorial.blocks for n in range(start, end + 1)}
    outside = [f"line {n}: {line!r}" for n, line in enumerate(lines, 1)
               if n not in inside and LOOKS_LIKE_CODE.search(LINE_NUMBERS.sub("", line))
               and not re.search(r"[\u4e00-\u9fff$]", line)]
    assert not outside, f"{tutorial.file}: code outside the declared blocks: {outside}"


@pytest.mark.parametrize("edition", ["en", "zh"])
@pytest.mark.parametrize("tutorial", TUTORIALS, ids=lambda t: t.file)
def test_every_code_line_appears_literally(tutorial, edition):
    code, printed = tutorial_lines(tutorial)
    path = companion(tutorial, edition)
    assert path.exists(), f"no companion notebook {path.relative_to(ROOT)}"
    nb = read(path)
    code_lines = {line.rstrip() for cell in nb.cells if cell.cell_type == "code"
                  for line in cell.source.splitlines()}
    text = "\n".join(cell.source for cell in nb.cells)
    missing_code = [line for line in code if line not in code_lines]
    missing_printed = [line for line in printed if line not in text]
    assert not missing_code, (f"{path.relative_to(ROOT)}: code lines of {tutorial.file} that no code "
                              f"cell holds as written there: {missing_code}")
    assert not missing_printed, (f"{path.relative_to(ROOT)}: printed lines of {tutorial.file} that "
                                 f"the companion does not quote: {missing_printed}")


def boxes(nb, edition):
    return [cell for cell in nb.cells if cell.cell_type == "markdown"
            and any(label in cell.source for label in BOX_LABELS[edition])]


@pytest.mark.parametrize("edition", ["en", "zh"])
@pytest.mark.parametrize("name, index, words", NAMED_ERRORS, ids=[e[0] for e in NAMED_ERRORS])
def test_every_named_error_has_its_box(name, index, words, edition):
    seed = (seeds_folder() / TUTORIALS[index].file).read_text(encoding="utf-8")
    assert words.strip("`") in seed, f"{name!r}: {words!r} is not in {TUTORIALS[index].file}: a box quotes the text"
    path = companion(TUTORIALS[index], edition)
    found = [cell for cell in boxes(read(path), edition) if words in cell.source]
    assert found, (f"{path.relative_to(ROOT)}: no box ({' / '.join(BOX_LABELS[edition])}) names "
                   f"{name!r} by quoting {words!r}")
    unlinked = [cell.id for cell in found if not LESSON_LINK.search(cell.source)]
    assert not unlinked, f"{path.relative_to(ROOT)}: boxes naming {name!r} link to no lesson cell: {unlinked}"


@pytest.mark.parametrize("edition", ["en", "zh"])
@pytest.mark.parametrize("tutorial", TUTORIALS, ids=lambda t: t.file)
def test_box_links_point_at_lesson_cells_that_exist(tutorial, edition):
    path = companion(tutorial, edition)
    nb = read(path)
    problems = []
    for cell in boxes(nb, edition):
        links = LESSON_LINK.findall(cell.source)
        if not links:
            problems.append(f"{cell.id}: a box without a link to a lesson cell")
        for lesson, cell_id in links:
            target = path.parent / lesson
            if not target.exists():
                problems.append(f"{cell.id}: no lesson {lesson}")
            elif cell_id not in {c.get("id") for c in read(target).cells}:
                problems.append(f"{cell.id}: {lesson} has no cell {cell_id}")
    assert not problems, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(problems)


COMPANION_LINK = re.compile(r"\]\((seed_\d_[a-z0-9_]+\.ipynb)(?:#cell-id=([A-Za-z0-9_-]+))?\)")


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_lesson_links_to_the_companions_point_at_cells_that_exist(edition):
    folder = LESSONS / "zh" if edition == "zh" else LESSONS
    problems, links = [], 0
    for path in sorted(folder.glob("*.ipynb")):
        for cell in read(path).cells:
            if cell.cell_type != "markdown":
                continue
            for name, cell_id in COMPANION_LINK.findall(cell.source):
                links += 1
                target = folder / name
                if not target.exists():
                    problems.append(f"{path.name} {cell.id}: no {name}")
                elif cell_id and cell_id not in {c.get("id") for c in read(target).cells}:
                    problems.append(f"{path.name} {cell.id}: {name} has no cell {cell_id}")
    assert links, f"no lesson in {folder.relative_to(ROOT)} links to a companion"
    assert not problems, problems


# --- Quotation marks only around the tutorials' own words --------------------------------------
# In a box (lessons and companions, English edition), every passage in double quotes is a tutorial's
# own text, literally (the copied text's line numbers and line breaks aside; "..." or "…" marks a
# cut), or a message the course itself shows in a stored output (PyTorch's error texts), or it is
# attributed to PyTorch right before it ("PyTorch's documentation: "...""). A paraphrase is written
# without quotation marks.
QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
ATTRIBUTED_TO_PYTORCH = re.compile(r"PyTorch[^.\"]{0,40}$")


def _spaced(text: str) -> str:
    return " ".join(" ".join(LINE_NUMBERS.sub("", line) for line in text.splitlines()).split())


def misquotes(path: Path, seeds: list[str], shown: str) -> list[str]:
    found = []
    for cell in boxes(read(path), "en"):
        body = re.sub(r"(?m)^> ?", "", cell.source)
        for match in QUOTED.finditer(body):
            quote = match[1] or match[2]
            if ATTRIBUTED_TO_PYTORCH.search(body[:match.start()]):
                continue
            pieces = [p.strip() for p in re.split(r"\.\.\.|…", _spaced(quote)) if p.strip()]
            if all(any(piece in seed for seed in seeds) or piece in shown for piece in pieces):
                continue
            found.append(f"{path.name} {cell.id}: {quote!r}")
    return found


def test_quotation_marks_only_around_the_tutorials_words():
    seeds = [_spaced((seeds_folder() / t.file).read_text(encoding="utf-8")) for t in TUTORIALS]
    notebooks = sorted(LESSONS.glob("*.ipynb"))
    shown = _spaced("\n".join(
        str(output.get("evalue", "")) + "".join(output.get("text", ""))
        for path in notebooks for cell in read(path).cells for output in cell.get("outputs", [])))
    problems = [problem for path in notebooks for problem in misquotes(path, seeds, shown)]
    assert not problems, ("quotation marks around words that are not a tutorial's, literally "
                          "(quote the tutorial, or drop the quotation marks):\n  " + "\n  ".join(problems))


# The tutorials' own words a reader brings (issue 28), each of which a companion's table maps to the
# course's word.
BRIDGED_WORDS = {
    "seed_1_autograph_tutorial.ipynb": ("创建变量", "结果变量", "开启导数追踪", "显式求导", "保存计算图"),
    "seed_2_autograd_notes.ipynb": ("追踪", "后向传播", "解绑", "暂时停止追踪", "累加到属性.grad上"),
}


@pytest.mark.parametrize("edition", ["en", "zh"])
@pytest.mark.parametrize("tutorial", TUTORIALS, ids=lambda t: t.file)
def test_each_companion_maps_the_tutorials_words_to_the_courses(tutorial, edition):
    """Each companion has one table from the tutorial's words to the course's, near its start or
    its end: its left column quotes the tutorial literally, and every word of BRIDGED_WORDS has its
    row. (Companion 1 keeps it at its end, before the summary: read section by section beside the
    lessons, its rows would answer predictions of lessons 1 to 7 before the learner meets them.)"""
    seed = _spaced((seeds_folder() / tutorial.file).read_text(encoding="utf-8"))
    cells = read(companion(tutorial, edition)).cells
    cells = cells[:6] + cells[6:][-6:]
    tables = [cell.source for cell in cells if cell.cell_type == "markdown" and "|---|---|---|" in cell.source]
    assert len(tables) == 1, f"{tutorial.companion} ({edition}): no table of the tutorial's words near its start or end"
    rows = [line for line in tables[0].splitlines() if line.startswith("| ")][1:]  # (not the header)
    quoted = [match[0] or match[1] for row in rows for match in QUOTED.findall(row.split(" | ")[0])]
    assert all(quoted_words in seed for quoted_words in quoted), (
        [quote for quote in quoted if quote not in seed], "the left column quotes the tutorial literally")
    assert [word for word in BRIDGED_WORDS[tutorial.companion]
            if not any(word in quote for quote in quoted)] == []
