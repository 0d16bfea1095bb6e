"""tools/translate.py: the Chinese edition is generated from the English and its catalogues,
and its check fails, naming the cell, on a stale, a missing or a hand-edited translation.

Each test builds a small course (one lesson, one exercise set) in a temporary folder and points
the tool at it (its ROOT); the last tests look at the real course.
"""

from __future__ import annotations

import contextlib
import re
import io
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import translate  # noqa: E402

LESSON_CELLS = [
    ("markdown", "intro", "# Lesson 1: Graphs\n\nSee [lesson 2](02_next.ipynb), "
                          "[the exercises](../exercises/01_graphs.ipynb) and [the docs](../docs/viz.md).\n\n"
                          "The derivative $dy/dx$ is $2x$."),
    ("code", "setup", "import math"),
    ("code", "plain", "print(math.sqrt(4))"),
    ("code", "commented", "y = 2 * 3  # six, computed\nprint(y)"),
]
SET_CELLS = [
    ("markdown", "01-00", "# Exercises 1: Graphs"),
    ("code", "01-01", "import math"),
    ("code", "01-02", "# One number: six.\n### BEGIN SOLUTION\nsix = 6\n### END SOLUTION"),
    ("code", "01-03", 'from tensorgrad_course import check\n\nt = check("graphs.task1")\n\n'
                      'with t.test("six is six", hint="multiply " "two by three"):\n'
                      '    t.submit("six", six, expected=6, kind="int")\n\nt.done()'),
]
CHINESE = {
    "intro": "# 第 1 课：计算图\n\n见[第 2 课](02_next.ipynb)、[练习](../exercises/01_graphs.ipynb)和"
             "[文档](../docs/viz.md)。\n\n导数 $dy/dx$ 等于 $2x$。练习在 `exercises/01_graphs.ipynb`；\n"
             "第二行接着写。",
    "commented": "y = 2 * 3  # 六，算出来的\nprint(y)",
    "01-00": "# 练习 1：计算图",
    "01-02": "# 一个数：六。\n### BEGIN SOLUTION\nsix = 6\n### END SOLUTION",
    "01-03": 'from tensorgrad_course import check\n\nt = check("graphs.task1")\n\n'
             'with t.test("六就是六", hint="二乘以三"):\n'
             '    t.submit("six", six, expected=6, kind="int")\n\nt.done()',
}


def notebook(cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    for kind, cell_id, source in cells:
        cell = nbformat.v4.new_markdown_cell(source) if kind == "markdown" else nbformat.v4.new_code_cell(source)
        cell["id"] = cell_id
        nb.cells.append(cell)
    if cells is LESSON_CELLS:
        nb.cells[2].outputs = [nbformat.v4.new_output("stream", text="2.0\n")]
    return nb


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A course with one lesson, one set, and complete Chinese catalogues."""
    monkeypatch.setattr(translate, "ROOT", tmp_path)
    for folder, name, cells in [("lessons", "01_graphs", LESSON_CELLS), ("solutions", "01_graphs", SET_CELLS)]:
        (tmp_path / folder).mkdir()
        nbformat.write(notebook(cells), tmp_path / folder / f"{name}.ipynb")
    (tmp_path / "lessons" / "02_next.ipynb").write_text(
        nbformat.writes(notebook([("markdown", "n", "# Lesson 2")])))
    for folder in ("lessons", "solutions"):
        assert tool(tmp_path, "skeleton", f"{folder}/01_graphs.ipynb").returncode == 0
        path = tmp_path / "translations" / "zh" / folder / "01_graphs.md"
        text = path.read_text(encoding="utf-8")
        for entry in translate.read_catalogue(path).entries.values():
            english = next(source for _, cell_id, source in LESSON_CELLS + SET_CELLS if cell_id == entry.cell_id)
            text = text.replace(english, CHINESE[entry.cell_id], 1)
        path.write_text(text.replace(" todo -->", " -->"), encoding="utf-8")
    # lesson 02 has no catalogue: the course is only partly translated
    (tmp_path / "lessons" / "02_next.ipynb").unlink()
    return tmp_path


def tool(root: Path, *args: str) -> subprocess.CompletedProcess:
    """Run the tool's command line on the course at ``root`` (in this process: it is quicker)."""
    assert translate.ROOT == root
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = translate.main(list(args))
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def write_and_check(root: Path) -> subprocess.CompletedProcess:
    written = tool(root, "write")
    assert written.returncode == 0, written.stderr
    return tool(root, "--check")


def read(path: Path):
    return nbformat.read(path, as_version=4)


def test_the_edition_is_written_and_checks_clean(course):
    checked = write_and_check(course)
    assert checked.returncode == 0, checked.stderr
    lesson = read(course / "lessons" / "zh" / "01_graphs.ipynb")
    english = read(course / "lessons" / "01_graphs.ipynb")
    assert lesson.cells[0].source.startswith("# 第 1 课：计算图")
    assert lesson.cells[0].source.endswith("；第二行接着写。")  # a break between Chinese: joined
    # code and outputs are the English ones; only the comment differs
    assert [c.source for c in lesson.cells[1:3]] == [c.source for c in english.cells[1:3]]
    assert lesson.cells[2].outputs == english.cells[2].outputs
    assert lesson.cells[3].source == CHINESE["commented"]
    assert lesson.metadata["translation"] == {"language": "zh-Hans", "source": "lessons/01_graphs.ipynb"}


def test_links_point_at_the_chinese_edition_where_there_is_one(course):
    write_and_check(course)
    intro = read(course / "lessons" / "zh" / "01_graphs.ipynb").cells[0].source
    assert "(../../exercises/zh/01_graphs.ipynb)" in intro  # a set with a catalogue: its zh edition
    assert "(../../docs/viz.md)" in intro  # no Chinese docs: the English file, from the new folder
    assert "(../02_next.ipynb)" in intro  # lesson 2 has no catalogue (yet): the English lesson
    assert "练习在 `exercises/zh/01_graphs.ipynb`；" in intro  # a notebook named in inline code


def test_exercise_sets_speak_chinese_and_have_their_own_cell_ids(course):
    write_and_check(course)
    zh = read(course / "solutions" / "zh" / "01_graphs.ipynb")
    assert zh.cells[1].source == "import math\n" + translate.SPEAK_CHINESE
    assert [c.id for c in zh.cells] == ["zh-01-00", "zh-01-01", "zh-01-02", "zh-01-03"]
    assert 'with t.test("六就是六", hint="二乘以三"):' in zh.cells[3].source


def test_check_fails_on_a_stale_translation(course):
    write_and_check(course)
    english = course / "lessons" / "01_graphs.ipynb"
    nb = read(english)
    nb.cells[0].source = nb.cells[0].source.replace("is $2x$", "equals $2x$")
    nbformat.write(nb, english)
    checked = tool(course, "--check")
    assert checked.returncode == 1
    assert "cell intro (cell 0 of lessons/01_graphs.ipynb): stale" in checked.stderr


def test_check_fails_on_a_missing_translation(course):
    write_and_check(course)
    path = course / "translations" / "zh" / "solutions" / "01_graphs.md"
    text = path.read_text(encoding="utf-8")
    start = text.index("<!-- cell 01-02 ")
    end = text.index("<!-- cell 01-03 ")
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    checked = tool(course, "--check")
    assert checked.returncode == 1
    assert "cell 01-02 (cell 2 of solutions/01_graphs.ipynb): no translation" in checked.stderr


def test_check_fails_on_a_hand_edited_edition(course):
    write_and_check(course)
    path = course / "lessons" / "zh" / "01_graphs.ipynb"
    nb = read(path)
    nb.cells[0].source = nb.cells[0].source.replace("计算图", "计算图（改过）")
    nbformat.write(nb, path)
    checked = tool(course, "--check")
    assert checked.returncode == 1
    assert "lessons/zh/01_graphs.ipynb: differs from what its catalogue and the English generate" in checked.stderr


def test_check_fails_on_a_todo_entry_and_on_a_missing_edition(course):
    write_and_check(course)
    (course / "solutions" / "zh" / "01_graphs.ipynb").unlink()
    path = course / "translations" / "zh" / "lessons" / "01_graphs.md"
    header = f"en:{translate.english_hash(LESSON_CELLS[0][2])}"
    path.write_text(path.read_text(encoding="utf-8").replace(f"{header} -->", f"{header} todo -->"), encoding="utf-8")
    checked = tool(course, "--check")
    assert checked.returncode == 1
    assert "cell intro (cell 0 of lessons/01_graphs.ipynb): no translation (marked todo)" in checked.stderr
    assert "solutions/zh/01_graphs.ipynb: missing" in checked.stderr


@pytest.mark.parametrize("change, message", [
    (("six = 6", "six = 7"), "the code differs from the English"),
    (('kind="int"', 'kind="整数"'), "the code differs from the English"),
    (('check("graphs.task1")', 'check("计算图.task1")'), "the code differs from the English"),
    (("### END SOLUTION", "### 结束"), "the code differs from the English"),
])
def test_only_comments_test_names_and_hints_may_change_in_code(course, change, message):
    path = course / "translations" / "zh" / "solutions" / "01_graphs.md"
    path.write_text(path.read_text(encoding="utf-8").replace(*change), encoding="utf-8")
    written = tool(course, "write")
    assert written.returncode == 1
    assert message in written.stderr


def test_formulas_stay_as_they_are(course):
    path = course / "translations" / "zh" / "lessons" / "01_graphs.md"
    path.write_text(path.read_text(encoding="utf-8").replace("$2x$", "$2 x$"), encoding="utf-8")
    written = tool(course, "write")
    assert written.returncode == 1
    assert "formulas must stay as they are; missing '$2x$'" in written.stderr


def test_the_words_of_a_formula_are_translated_and_may_move():
    shape = translate.formula_shape
    assert shape(r"$$J = 2 \quad\text{at } a = (1, 2).$$") == shape(r"$$J = 2 \quad\text{在 } a = (1, 2) \text{ 处}.$$")
    assert shape(r"$\text{path } w \to y$") != shape(r"$\text{路径 } w \to x$")  # the maths stays


def test_an_entry_for_no_cell_and_a_catalogue_for_no_notebook_are_reported(course):
    path = course / "translations" / "zh" / "lessons" / "01_graphs.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n<!-- cell gone en:0123456789ab -->\n旧的\n",
                    encoding="utf-8")
    (course / "translations" / "zh" / "lessons" / "07_gone.md").write_text("", encoding="utf-8")
    written = tool(course, "write")
    checked = tool(course, "--check")
    assert written.returncode == checked.returncode == 1
    assert "cell gone: no such cell to translate in lessons/01_graphs.ipynb" in checked.stderr
    assert "07_gone.md: no English notebook 07_gone.ipynb for this catalogue" in checked.stderr


def test_which_cells_need_a_translation():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    assert translate.needs_translation(md("Some text"))
    assert not translate.needs_translation(md("  "))
    assert not translate.needs_translation(code("x = 1\nprint(x)"))
    assert translate.needs_translation(code("x = 1  # one"))
    assert not translate.needs_translation(code("### BEGIN SOLUTION\nx = 1\n### END SOLUTION"))
    assert translate.needs_translation(code('with t.test("name"):\n    pass'))
    assert translate.needs_translation(code('check_close(a, b, hint="look again")'))
    assert translate.needs_translation(code('t.submit("x after backward()", x, kind="int")'))
    assert not translate.needs_translation(code('check("chain_rule.task2")\nprint("tensor")'))


def test_a_helper_s_name_and_an_assert_message_are_strings_the_learner_reads():
    """A check cell's own helper that hands its first parameter on as the name of a self-check call
    takes a name the learner reads; so does the message of an ``assert`` (the self-check prints it).
    Both may be translated; every other string stays as the English has it."""
    cell = ('def check_order(name, order):\n'
            '    t.order(name, order, root)\n'
            'check_order("the order", order)\n'
            'other("left alone", order)\n'
            'assert ok, (f"the engines disagree on {f}: " f"yours {a}")\n')
    assert translate.translatable_texts(cell) == ['"the order"', 'f"the engines disagree on {f}: "', 'f"yours {a}"']
    chinese = cell.replace('"the order"', '"顺序"').replace('f"the engines disagree on {f}: " f"yours {a}"',
                                                          'f"两个引擎在 {f} 上对不上：你的是 {a}"')
    assert translate.code_shape(chinese) == translate.code_shape(cell)
    assert translate.code_shape(cell.replace('"left alone"', '"别动"')) != translate.code_shape(cell)
    assert translate.code_shape(cell.replace("assert ok", "assert not ok")) != translate.code_shape(cell)
    assert translate.needs_translation(nbformat.v4.new_code_cell('assert ok, "the message"'))


def test_a_code_entry_may_translate_docstrings_and_nothing_else_of_the_code():
    """An exercise set's code is not rewritten from printed.md, so its catalogue entry translates
    the docstrings of the cell's functions and classes (what the learner reads in the code); a
    string that is not a docstring, or the code around one, still has to stay as it is."""
    cell = ('def check_order(order):\n'
            '    """Hand the order to the grader."""\n'
            '    return grade(order, "left alone")\n'
            'class Net:\n'
            '    """A network."""\n')
    chinese = cell.replace('"""Hand the order to the grader."""', '"""把这个顺序交给评分程序。"""') \
        .replace('"""A network."""', '"""一个网络。"""')
    assert translate.code_shape(chinese) == translate.code_shape(cell)
    assert translate.code_shape(cell.replace('"left alone"', '"别动"')) != translate.code_shape(cell)
    assert translate.code_shape(cell.replace("return grade", "return grades")) != translate.code_shape(cell)
    not_a_docstring = 'x = 1\n"""A statement, not a docstring."""\n'
    assert translate.code_shape(not_a_docstring.replace("A statement", "一句")) != translate.code_shape(not_a_docstring)


def test_chinese_share_counts_prose_letters_only():
    assert translate.prose_of("见 `backward()` 与 $\\partial y$ 和 [链接](lessons/x.ipynb)").split() == ["见", "与", "和", "[链接]"]


# -- the real course ----------------------------------------------------------------------------

EDITION_LESSONS = sorted((ROOT / "lessons" / "zh").glob("*.ipynb"))


@pytest.mark.parametrize("path", EDITION_LESSONS + sorted((ROOT / "solutions" / "zh").glob("*.ipynb")),
                         ids=lambda p: f"{p.parent.parent.name}/zh/{p.name}")
def test_the_chinese_edition_is_mostly_chinese(path):
    share = translate.chinese_share(path)
    assert share >= 0.5, f"{path.name}: only {share:.0%} of the prose letters are Chinese (at least 50%)"


def test_every_english_notebook_has_a_catalogue():
    missing = [p.relative_to(ROOT).as_posix() for p in translate.english_notebooks()
               if not translate.catalogue_path(p).exists()]
    assert not missing, f"no Chinese catalogue for: {missing}"


# -- the map from the seed tutorials (lessons/zh/教程对照.md) -------------------------------------

SEED_MAP = ROOT / "lessons" / "zh" / "教程对照.md"


def _cells_by_id(lesson: str) -> dict[str, object]:
    return {cell.get("id"): cell for cell in read(ROOT / "lessons" / lesson).cells}


def test_the_seed_map_names_cells_that_exist_in_the_lessons_it_links():
    rows = [line for line in SEED_MAP.read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and "ipynb" in line]
    assert len(rows) >= 20
    problems = []
    for row in rows:
        lessons = re.findall(r"\]\((\d\d_[a-z0-9_]+\.ipynb)\)", row)
        ids = re.findall(r"`((?:cell-[0-9a-f]{8})|(?:l\d\d-\d\d))`", row)
        assert lessons and ids, f"a row without a lesson link or a cell id: {row}"
        known = {}
        for lesson in lessons:
            assert (ROOT / "lessons" / lesson).exists(), f"no lesson {lesson}: {row}"
            known.update(_cells_by_id(lesson))
        problems += [f"{cell_id} is in none of {lessons}" for cell_id in ids if cell_id not in known]
    assert not problems, problems


def test_the_seed_map_lists_every_seed_example_and_misconception_box():
    text = SEED_MAP.read_text(encoding="utf-8")
    missing = []
    # (the seed companions name every error in boxes of their own, checked by tests/test_seeds.py;
    # the map links the companions as a whole, test_the_seed_map_links_the_companions)
    for path in sorted(p for p in (ROOT / "lessons").glob("*.ipynb") if not p.name.startswith("seed_")):
        for cell in read(path).cells:
            box = cell.cell_type == "markdown" and cell.source.lstrip().startswith(
                ("> **Misconception:", "> **Out of date:"))
            if (box or "seed" in cell.metadata.get("tags", [])) and f"`{cell.get('id')}`" not in text:
                missing.append(f"{path.name} {cell.get('id')}: {cell.source.strip().splitlines()[0][:60]}")
    assert not missing, "lessons/zh/教程对照.md does not mention: " + "; ".join(missing)


def test_the_seed_map_links_the_companions():
    text = SEED_MAP.read_text(encoding="utf-8")
    companions = sorted(p.name for p in (ROOT / "lessons").glob("seed_*.ipynb"))
    assert companions, "no seed companions in lessons/"
    missing = [name for name in companions if f"]({name})" not in text]
    assert not missing, f"lessons/zh/教程对照.md does not link the companions {missing}"


def test_the_chinese_readme_lists_exactly_the_chinese_lessons():
    text = (ROOT / "lessons" / "zh" / "README.md").read_text(encoding="utf-8")
    listed = sorted(set(re.findall(r"^- \[((?:\d\d|seed_\d)_[a-z0-9_]+\.ipynb)\]\(\1\)", text, re.M)))
    english = sorted(p.name for p in (ROOT / "lessons").glob("*.ipynb"))
    assert listed == english, f"lessons/zh/README.md lists {listed}; the lessons are {english}"


@pytest.mark.parametrize("markdown, shown", [
    ("第一行中文，\n第二行。", "第一行中文，第二行。"),
    ("第一段。\n\n第二段。\n接着。", "第一段。\n\n第二段。接着。"),  # paragraphs stay apart
    ("说明：\n\n- 一项\n- 二项", "说明：\n\n- 一项\n- 二项"),
    ("中文\n`code` 后面", "中文\n`code` 后面"),  # the break shows as the space that belongs there
    ("中文，\n`x` 是", "中文，`x` 是"),  # but not after full-width punctuation
    ("- 列表中文\n  继续中文", "- 列表中文继续中文"),
    ("> 引用中文\n> 继续中文", "> 引用中文继续中文"),
    ("中文\n$$\na = b\n= c$$\n后面\n继续", "中文\n$$\na = b\n= c$$\n后面继续"),
    ("```\n代码\n行\n```", "```\n代码\n行\n```"),
    ("中文**\n**粗体**", "中文**\n**粗体**"),
])
def test_lines_of_a_chinese_paragraph_are_joined(markdown, shown):
    assert translate.join_chinese_lines(markdown) == shown


# -- English left in the Chinese lessons --------------------------------------------------------

_TEXT_IN_FORMULA = re.compile(r"\\text\{([^{}]*)\}")
_WORD = re.compile(r"[A-Za-z]{2,}")
_CODE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _code_names(nb) -> set[str]:
    """Every name in the notebook's code cells and in the inline code of its prose: a word of
    code (`atol`, `x.grad`, `lr`) may stand in a formula as it is."""
    names = set()
    for cell in nb.cells:
        spans = [cell.source] if cell.cell_type == "code" else re.findall(r"`([^`]+)`", cell.source)
        for span in spans:
            names.update(_CODE_NAME.findall(span))
    return names


def english_in_formulas(nb) -> list[str]:
    names = _code_names(nb)
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for words in _TEXT_IN_FORMULA.findall(cell.source):
            english = [w for w in _WORD.findall(words) if w not in names]
            if english:
                found.append(f"cell {index} ({cell.get('id')}): \\text{{{words}}}")
    return found


def test_english_in_a_formula_is_found():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(r"$$s = \text{slope of the secant}$$, `atol=1`: "
                                              r"$\text{atol} + \text{在 } x \text{ 处}$")]
    found = english_in_formulas(nb)
    assert len(found) == 1 and found[0].endswith(r"\text{slope of the secant}"), found


@pytest.mark.parametrize("path", EDITION_LESSONS, ids=lambda p: p.name)
def test_no_english_words_in_the_formulas_of_the_chinese_lessons(path):
    found = english_in_formulas(read(path))
    assert not found, f"lessons/zh/{path.name}: English inside \\text{{}}: {found}"


def _times(path: Path, unit: str) -> dict[int, tuple[int, int]]:
    """{lesson: (minutes for the lesson, minutes for its exercise set)} from a course map."""
    rows = re.findall(rf"^\| (\d+) \| (\d+) {unit} \| (\d+) {unit} \|", path.read_text(encoding="utf-8"), re.M)
    return {int(n): (int(lesson), int(exercises)) for n, lesson, exercises in rows}


def test_both_course_maps_give_the_same_time_for_every_lesson_and_exercise_set():
    english = _times(ROOT / "lessons" / "README.md", "min")
    chinese = _times(ROOT / "lessons" / "zh" / "README.md", "分钟")
    lessons = {int(p.name[:2]) for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb")}
    assert set(english) == lessons, f"lessons/README.md gives times for {sorted(english)}"
    assert chinese == english, "lessons/zh/README.md's times differ from lessons/README.md's"
    text = (ROOT / "lessons" / "zh" / "README.md").read_text(encoding="utf-8")
    assert "**练习。**" in text and "自己的标量自动微分引擎" in text, (
        "lessons/zh/README.md lacks the exercise-sets paragraph or the capstone's outcome")


# -- one term per idea (lessons/zh/术语表.md, "一个概念，一个词"): tests/test_zh_terms.py ------------

# What the Chinese lessons show, in Chinese but for code: the literal text of their print() calls
# and of the text their pictures draw (titles, axis labels, legends: tools/translate.py
# printed_literals), the docstrings of their functions and classes, and the stored outputs, which
# a run of the Chinese edition printed (tg.viz's traces and steppers, values printed through a
# variable, such as a table's row keys). A word there may be code: a name of the notebook's code
# (is_leaf, grad_fn, x.grad), the name of a PyTorch class it prints (AccumulateGrad), derivative
# notation (dy/dw), one of the few words Chinese technical prose keeps in Latin letters
# (KEPT_IN_PRINT), or a word of what PyTorch itself prints (PYTORCH_OUTPUT: tensor(..., grad_fn=...)).
# The tutorials' own code (`seed` cells, the companions) is quoted as written. Not read: strings
# the code only passes on to its own functions, comments (the catalogues translate them), errors
# and warnings (tracebacks, stderr: PyTorch's messages are English in PyTorch too).
KEPT_IN_PRINT = {"ms", "bug", "JVP", "VJP", "XOR", "True", "False", "None"}
#: Words of what PyTorch (and so tensorgrad) prints for its objects and Python for its types.
#: A word followed by "(" or "=" is code anyway (`tensor(`, `grad_fn=`, `Trace(`, `root=`).
PYTORCH_OUTPUT = {"tensor", "float32", "float64", "int64", "bool", "cpu", "inf", "nan", "tuple", "list",
                  "dict", "int", "float", "str", "self", "Parameter", "containing"}
#: What prints code or Python's and PyTorch's own messages, quoted as they are: library source and
#: documentation (lessons 10 and 12 print the rules and functions they explain) and the message of
#: a caught warning or error.
QUOTING_CELL = re.compile(r"inspect\.getsource|\.entry\(\)|__doc__|warning\.message|str\(err\)")
#: Reprs that are not prose: a figure's, an object's address.
_OBJECT_REPR = re.compile(r"<Figure size \d+x\d+ with \d+ Axes>|<[\w.]+ object at 0x\w+>")
_CODE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?=[(=])")
_DERIVATIVE = re.compile(r"d[a-z]")  # dy/dw, df/dx: notation, not English
_NODE_NAME = re.compile(r"[A-Z][A-Za-z]*Backward\d*|AccumulateGrad")  # what grad_fn prints


def _identifiers(nb) -> set[str]:
    """The names of the notebook's code (its NAME tokens, not the words inside its strings) and
    of the inline code of its prose."""
    import io
    import tokenize

    names = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            names.update(_CODE_NAME.findall(" ".join(re.findall(r"`([^`]+)`", cell.source))))
            continue
        try:
            names.update(t.string for t in tokenize.generate_tokens(io.StringIO(cell.source + "\n").readline)
                         if t.type == tokenize.NAME)
        except (tokenize.TokenError, IndentationError, SyntaxError):
            pass
    return names


def english_in_print(nb) -> list[str]:
    names = _identifiers(nb) | KEPT_IN_PRINT
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "seed" in cell.metadata.get("tags", []):
            continue
        spans = [(a, b) for a, b, _ in translate.printed_literals(cell.source)]
        for start, end in spans + translate.docstrings(cell.source):
            text = cell.source[start:end]
            english = [w for w in _CODE_NAME.findall(text) if _WORD.search(w) and w not in names
                       and not _DERIVATIVE.fullmatch(w) and not _NODE_NAME.fullmatch(w)]
            if english:
                found.append(f"cell {index} ({cell.get('id')}): {text.strip()!r}")
        for line in [] if QUOTING_CELL.search(cell.source) else _printed_lines(cell):
            prose = _CODE_WORD.sub("", _OBJECT_REPR.sub("", line))
            english = [w for w in _CODE_NAME.findall(prose) if _WORD.search(w) and w not in names
                       and w not in PYTORCH_OUTPUT and not _DERIVATIVE.fullmatch(w)
                       and not _NODE_NAME.fullmatch(w)]
            if english:
                found.append(f"cell {index} ({cell.get('id')}) prints {line.strip()!r}: {english}")
    return found


def _printed_lines(cell) -> list[str]:
    """The lines a code cell's stored outputs show as text: what it printed (stdout) and the
    text form of its results, without errors and warnings (stderr)."""
    lines = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            text = output["text"]
        elif output.get("output_type") in ("execute_result", "display_data"):
            text = output.get("data", {}).get("text/plain", "")
        else:
            continue
        text = "".join(text) if isinstance(text, list) else text
        lines += text.splitlines()
    return lines


def test_english_in_what_a_lesson_prints_is_found():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell('x_grad = 2\nprint("x_grad:", x_grad)\nprint(f"loss {x_grad:.3f}")\n'
                                          'print("步", f"{x_grad:>8}")  # a comment is not printed')]
    found = english_in_print(nb)
    assert found == ["cell 0 (" + nb.cells[0].get("id") + "): 'loss'"], found


@pytest.mark.parametrize("path", EDITION_LESSONS, ids=lambda p: p.name)
def test_no_english_in_what_the_chinese_lessons_print(path):
    found = english_in_print(read(path))
    assert not found, (f"lessons/zh/{path.name}: English printed (translate it in translations/zh/printed.md, "
                       f"or, if it is code, name it in the code): {found}")


def test_printed_labels_are_rewritten_in_the_code_and_its_output_but_not_in_its_fields():
    """A label in a field of a given width gets the width that takes the English columns on screen
    (``{'斜率':>3}``: a space and two characters of two columns each, as ``{'slope':>5}``); the
    stored output is rewritten label by label until the Chinese edition's own run replaces it."""
    nb = nbformat.v4.new_notebook()
    show = nbformat.v4.new_code_cell('def show(v):\n    print("path:", v)  # prints later\n"""path: a docstring"""')
    table = nbformat.v4.new_code_cell('slope = 7\nprint(f"{\'slope\':>5} {slope - 6:>3}")\nshow(1)')
    table.outputs = [nbformat.v4.new_output("stream", name="stdout", text="slope   1\npath: 1\n")]
    nb.cells = [show, table]
    translate._label_chinese(nb, {"slope": "斜率", "path:": "路径："})
    assert show.source.startswith('def show(v):\n    print("路径：", v)') and '"""path: a docstring"""' in show.source
    assert table.source == 'slope = 7\nprint(f"{\'斜率\':>3} {slope - 6:>3}")\nshow(1)'
    assert translate.display_width(f"{'斜率':>3}") == len(f"{'slope':>5}")
    assert table.outputs[0]["text"] == "斜率   1\n路径： 1\n"


def test_a_whole_literal_label_is_rewritten_anywhere_and_in_the_output_only_as_a_word():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell('kind = "leaf" if True else "node"\nprint(f"x ({kind})", "is_leaf")')
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x (leaf) is_leaf\n")]
    nb.cells = [cell]
    translate._label_chinese(nb, {translate.WHOLE + "leaf": "叶子节点"})
    assert cell.source == 'kind = "叶子节点" if True else "node"\nprint(f"x ({kind})", "is_leaf")'
    assert cell.outputs[0]["text"] == "x (叶子节点) is_leaf\n"


def test_a_rewrite_keeps_the_outputs_of_the_chinese_run_where_the_code_is_unchanged():
    """The Chinese edition is executed on its own (./run notebooks): a new translation of its prose
    keeps what that run printed; a cell whose code changed gets the English outputs until the next run."""
    def notebook(first_output, second_source):
        nb = nbformat.v4.new_notebook()
        same, changed = nbformat.v4.new_code_cell("print(1)"), nbformat.v4.new_code_cell(second_source)
        same["id"], changed["id"] = "a", "b"
        same.outputs = [nbformat.v4.new_output("stream", name="stdout", text=first_output)]
        changed.outputs = [nbformat.v4.new_output("stream", name="stdout", text="English\n")]
        nb.cells = [nbformat.v4.new_markdown_cell("文字"), same, changed]
        return nb
    committed = translate.dumps(notebook("第 1 步\n", "print(2)"))
    generated = translate.dumps(notebook("step 1\n", "print(3)"))
    kept = nbformat.reads(translate._keep_outputs(committed, generated), as_version=4)
    assert kept.cells[1].outputs[0]["text"] == "第 1 步\n"
    assert kept.cells[2].source == "print(3)" and kept.cells[2].outputs[0]["text"] == "English\n"
    assert translate._same_except_outputs(committed, translate._keep_outputs(generated, generated)) is False
