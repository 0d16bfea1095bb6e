"""No English a learner of the Chinese edition reads, beyond code and PyTorch's own output.

* **The self-check.** Every check cell of every Chinese exercise set is run through the real
  self-check (tensorgrad_course's ``check``, in Chinese) with a wrong answer for each value it
  submits; what it prints, the test's name, the value's name (the label of ``t.submit``), the hint
  and the Chinese message around them, must hold no English word but code: a name of the set's
  code (``x.grad``, ``count_ops``), a Python or PyTorch word (:data:`KEPT`).
* **What tg.viz prints** in Chinese: the reprs of ``Graph``, ``Trace`` and ``BackwardStepper``.

The labels are translated in the sets' catalogues (translations/zh/solutions/), where the
generator (tools/translate.py) allows them to differ from the English; the grader and the
self-study fingerprints read the label from the same Chinese cell, so they agree (see
test_a_translated_label_is_what_the_fingerprint_table_and_the_check_both_use).
"""

from __future__ import annotations

import ast
import contextlib
import io
import keyword
import re
import sys
import tokenize
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import translate  # noqa: E402

from tensorgrad_course import CheckFailure, check, texts  # noqa: E402
from tensorgrad_course.generate import add_fingerprints  # noqa: E402

SETS = [p for p in translate.english_notebooks() if translate.is_exercise_set(p)]
#: Words that are code wherever they stand: Python's and PyTorch's (dtypes, keyword names), and
#: the Latin letters Chinese technical prose keeps.
KEPT = {"True", "False", "None", "float", "int", "bool", "list", "str", "float32", "float64", "dtype", "dim",
        "lr", "atol", "rtol", "NumPy", "Python", "JVP", "VJP", "ReLU", "XOR", "Hv", "xh", "RecursionError"}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def chinese_set(english: Path) -> nbformat.NotebookNode:
    """The Chinese edition of an exercise set, as the generator writes it from its catalogue."""
    result = translate.translate_notebook(english)
    assert result.text is not None, result.problems
    return nbformat.reads(result.text, as_version=4)


def code_names(nb) -> set[str]:
    """The names of a notebook's code (NAME tokens, not the words inside its strings) and of the
    code its prose shows (inline code, fenced blocks: a task's ``Cube``, a case named `loss`)."""
    names = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            shown = re.findall(r"```.*?```|`[^`\n]+`", cell.source, flags=re.DOTALL)
            names |= set(_WORD.findall(" ".join(shown)))
            continue
        try:
            names |= {t.string for t in tokenize.generate_tokens(io.StringIO(cell.source + "\n").readline)
                      if t.type == tokenize.NAME}
        except (tokenize.TokenError, IndentationError, SyntaxError):
            pass
    return names


def _text(node) -> str | None:
    """A string argument's text; an f-string's fields become ``{}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    return None


#: The self-check's calls that name what they hand over: a value, a trained network, an order.
NAMED = ("submit", "measure", "order")


def checks_of(source: str):
    """(task, test name, hint, [value names]) of each ``with t.test(...)`` in a check cell (the
    names of ``t.measure`` and ``t.order`` too: the self-check prints them in the same places)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    task = next((node.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and getattr(node.func, "id", None) == "check" and node.args
                 and isinstance(node.args[0], ast.Constant)), None)
    if task is None:
        return
    for node in ast.walk(tree):
        if not isinstance(node, ast.With):
            continue
        call = node.items[0].context_expr
        if not (isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "test" and call.args):
            continue
        hint = next((_text(k.value) for k in call.keywords if k.arg == "hint"), None)
        labels = [_text(inner.args[0]) for inner in ast.walk(node) if isinstance(inner, ast.Call)
                  and getattr(inner.func, "attr", None) in NAMED and inner.args and _text(inner.args[0])]
        yield task, _text(call.args[0]), hint, labels


def run_wrong(task: str, name: str, hint: str | None, label: str, value=1.0, prediction: bool = False,
              **options) -> str:
    """What the Chinese self-check prints for a wrong ``value`` submitted as ``label``: compared
    with ``expected=2.0`` (unless ``options`` give a ``kind=`` instead), or as a prediction the
    fingerprints say is wrong."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        t = check(task)
        if prediction:
            t.fingerprints({name: {label: "not the fingerprint of any answer"}})
        with t.test(name, **({"hint": hint} if hint else {})):
            if prediction:
                t.submit(label, value)
            else:
                t.submit(label, value, **(options or {"expected": 2.0}))
        try:
            t.done()
        except CheckFailure as failure:  # the summary line: the notebook shows it as the cell's error
            print("\n".join(failure._render_traceback_()))
    return out.getvalue()


#: The wrong answers each self-check value is given: a wrong number, None (the forgotten-return
#: hint), a value of the wrong kind (the kinds' names) and a wrong prediction.
WRONG_ANSWERS = {"number": {}, "none": {"value": None}, "kind": {"value": 12345.0, "kind": "list|none"},
                 "prediction": {"value": True, "prediction": True}}

_SPACED_CHINESE = re.compile(r"[\u3400-\u9fff] +[\u3400-\u9fff]")


def layout_problems(printed: str, task: str, label: str, test_name: str) -> list[str]:
    """What is wrong in a Chinese self-check's lines beyond English words: the summary naming the
    task ``task1`` (the Chinese is 任务 1), a space between two Chinese words that the messages put
    there (``应为 列表``), a hint for None that does not fit what the label names (``return`` for
    an attribute such as ``w.grad``, ``backward()`` for a function's return value, which a task may
    compute by hand), and the prediction's verdict tacked on after a third colon."""
    problems = []
    if re.fullmatch(r".*\.task\d+", task) and not re.search(r"^(\N{BALLOT X} )?任务 \d+：", printed, re.M):
        problems.append("the summary does not name the task 任务 N")
    own = f"{test_name} {label}"
    spaced = [m for m in _SPACED_CHINESE.findall(printed) if m not in own]
    if spaced:
        problems.append(f"a space between Chinese words: {spaced}")
    first = printed.splitlines()[0] if printed else ""
    hint = first.rsplit(" 是 None", 1)[-1] if " 是 None" in first else ""
    if re.search(r"\.grad$", label.strip()):
        if "return" in hint:
            problems.append(f"an attribute's None hinted as a forgotten return: {first!r}")
    elif re.match(r"[A-Za-z_][\w.]*\(", label.strip()) and "backward()" in hint:
        problems.append(f"a function's None hinted as a forgotten backward(): {first!r}")
    if re.search(r" 是 True：", first):
        problems.append(f"a verdict after a third colon: {first!r}")
    return problems


def library_names() -> set[str]:
    """The names tensorgrad itself has: its functions and modules, a tensor's methods and attributes."""
    import tensorgrad as tg

    return set(dir(tg)) | set(dir(tg.Tensor)) | set(dir(tg.nn)) | set(dir(tg.autograd))


def is_code(label: str, names: set[str]) -> bool:
    """Whether a value's name is a Python expression of the set's names (``w.grad_fn is None``,
    ``hessian(f3, p)``): code, words and all (but not ``count_ops(mixed)``, with no ``mixed``)."""
    try:
        tree = ast.parse(label.replace("{}", "n"), mode="eval")
    except SyntaxError:
        return False
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return used <= names | library_names() | KEPT | {"n"}


def english_words(text: str, names: set[str]) -> list[str]:
    """The words of ``text`` that are English, not code: not a name of the set's code or of the
    library, not snake_case or a name with digits (``dy_dw``, ``MulBackward0``), not derivative
    notation (``dx``)."""
    code = names | library_names() | KEPT
    return [w for w in _WORD.findall(text) if len(w) > 1 and w not in code
            and not re.search(r"[_\d]", w) and not re.fullmatch(r"d[A-Za-z]|[A-Z][a-z]+(Backward|Grad)", w)
            and w != "AccumulateGrad"]


@pytest.fixture
def chinese():
    before = texts.language()
    texts.use_language("zh")
    yield
    texts.use_language(before)


@pytest.mark.parametrize("english", SETS, ids=lambda p: p.stem)
def test_a_wrong_answer_in_the_chinese_self_check_prints_no_english(english, chinese):
    nb = chinese_set(english)
    names = code_names(nb)
    found, ran = [], 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for task, name, hint, labels in checks_of(cell.source):
            for label in labels:
                for wrong in WRONG_ANSWERS.values():
                    printed = run_wrong(task, name, hint, label, **wrong)
                    ran += 1
                    assert "✗" in printed, printed  # the wrong answer was said wrong
                    if is_code(label, names):  # `w.grad_fn is None`: code, `is` and all
                        words = english_words(re.sub(f"你的 ?{re.escape(label)} ?", "你的 ", printed), names)
                    else:  # in a label of words, `for` and `with` are English (in a hint they are code)
                        words = english_words(printed, names) + english_words(label, names - set(keyword.kwlist))
                    if words:
                        found.append(f"{cell.get('id')}: {words} in {printed.strip().splitlines()[0]!r}")
                    found += [f"{cell.get('id')}: {problem}" for problem in layout_problems(printed, task, label, name)]
    assert ran, f"no self-check found in {english.name}"
    assert not found, f"{english.name}: English in the Chinese self-check:\n" + "\n".join(found)


@pytest.mark.parametrize("english", SETS, ids=lambda p: p.stem)
def test_every_string_the_catalogue_translates_in_a_chinese_set_is_chinese(english):
    """Beyond the names that the self-check's own calls take (the test above runs those): the name
    a check cell hands to a helper of its own (set 12's ``check_order``) and an assert's message
    (set 12's task 6) print too, and the catalogue translates them (translate.translatable_texts).
    The docstrings of the set's own functions print nothing, but the learner reads them in the
    code as prose (translate.docstrings): the catalogue translates those too."""
    nb = chinese_set(english)
    names = code_names(nb)
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for text in translate.translatable_texts(cell.source):
            shown = re.sub(r"\{[^{}]*\}", "", text.split(text[-1], 1)[1].rsplit(text[-1], 1)[0])
            words = [] if is_code(shown, names) else english_words(shown, names)
            if words:
                found.append(f"{cell.get('id')}: {words} in {text}")
        for start, end in translate.docstrings(cell.source):
            words = english_words(re.sub(r"`[^`]*`", "", cell.source[start:end]), names)
            if words:
                found.append(f"{cell.get('id')}: {words} in the docstring {cell.source[start:end]!r}")
    assert not found, f"{english.name}: English in a string the learner reads:\n" + "\n".join(found)


def test_english_in_a_self_check_label_is_found(chinese):
    printed = run_wrong("set.task1", "梯度", "看看提示", "x.grad after backward()")
    assert english_words(printed, {"x", "grad", "backward"}) == ["after"], printed


def test_a_translated_label_is_what_the_fingerprint_table_and_the_check_both_use(chinese):
    """The build writes the fingerprints of a prediction into its check cell, keyed by the test's
    name and the value's label as that cell spells them (generate.add_fingerprints); the learner's
    run looks its value up by the same two strings (TaskCheck.submit). A label translated in the
    catalogue is in both, so the Chinese set says right and wrong by its own fingerprints."""
    source = ('t = check("sets.task1")\n'
              'with t.test("反向传播之后的梯度"):\n'
              '    t.submit("backward() 之后的 x.grad", answer)\n')
    built = add_fingerprints(source, {"answer": 14.0})
    assert '"backward() 之后的 x.grad"' in built.splitlines()[1]
    for value, verdict in ((14.0, "✓"), (15.0, "✗")):
        namespace = {"check": check, "answer": value}
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(CheckFailure):
            exec(compile(built, "<check cell>", "exec"), namespace)  # the cell, as the learner runs it
        assert out.getvalue().startswith(verdict), out.getvalue()


# -- what tg.viz prints --------------------------------------------------------------------------

def test_the_chinese_reprs_of_graph_trace_and_stepper_hold_no_english():
    import tensorgrad as tg
    from tensorgrad import viz

    viz.use_language("zh")
    try:
        x = tg.tensor(2.0, requires_grad=True)
        y = x * x + x
        trace = viz.trace_backward(y, names={"x": x, "y": y})
        shown = [repr(trace).splitlines()[0], repr(viz.BackwardStepper(y, names={"x": x, "y": y})).splitlines()[0],
                 repr(viz.draw(y, names={"x": x, "y": y})).splitlines()[0]]
    finally:
        viz.use_language("en")
    for line in shown:
        words = [w for w in _WORD.findall(line) if w not in {"Trace", "Graph", "BackwardStepper", "AddBackward0", "y"}]
        assert not words, f"English in {line!r}: {words}"


# -- lesson 02's tables, lined up by display width in both editions --------------------------------

_HEADER_FIELD = re.compile(r"""\{['"][^'"{}]*['"]:(?P<align>.?[<>^])?(?P<width>\d+)\}""")


def column_of(line: str) -> list[int]:
    """For each character of ``line``, the screen column it ends at (a Chinese character takes two)."""
    ends, column = [], 0
    for ch in line:
        column += translate.display_width(ch)
        ends.append(column)
    return ends


def misaligned(lines: list[str], header_source: str) -> list[str]:
    """The lines in which a right-aligned field of the English header's widths does not end at
    its screen column: no character of the line ends exactly there, a space does, or the next
    character is not a space (the text runs on past it)."""
    ends, column = [], 0
    for match in _HEADER_FIELD.finditer(header_source):
        column += int(match["width"])
        if (match["align"] or ">")[-1] == ">":
            ends.append(column)
    wrong = []
    for line in lines:
        columns = column_of(line)
        at = {end: k for k, end in enumerate(columns)}
        if any(end not in at or line[at[end]] == " " or line[at[end] + 1:at[end] + 2] not in ("", " ")
               for end in ends):
            wrong.append(line)
    return wrong


def table_cells(nb) -> list:
    return [cell for cell in nb.cells if cell.cell_type == "code" and "print(f\"{'h'" in cell.source]


def run_tables(nb) -> list[tuple[str, list[str]]]:
    """Run the cells of lesson 02 that define its functions and print its tables: (the header's
    line of code, the lines printed) for each table."""
    namespace: dict = {}
    printed = []
    for cell in nb.cells:
        if cell.cell_type != "code" or not re.search(r"^def (f|secant_slope|cube|central_slope)\(|print\(f\"\{'h'",
                                                     cell.source, re.M):
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(cell.source, f"<{cell.get('id')}>", "exec"), namespace)
        if cell in table_cells(nb):
            header = next(line for line in cell.source.splitlines() if line.startswith("print(f\"{'h'"))
            printed.append((header, [line for line in out.getvalue().splitlines() if line.strip()]))
    return printed


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_lesson_02_tables_line_up_on_screen(edition):
    english = ROOT / "lessons" / "02_derivatives.ipynb"
    english_nb = nbformat.read(english, as_version=4)
    nb = english_nb if edition == "en" else nbformat.reads(translate.translate_notebook(english).text, as_version=4)
    english_headers = [next(line for line in cell.source.splitlines() if line.startswith("print(f\"{'h'"))
                       for cell in table_cells(english_nb)]
    tables = run_tables(nb)
    assert len(tables) == 3, [header for header, _ in tables]
    for (header, lines), english_header in zip(tables, english_headers):
        assert len({translate.display_width(line) for line in lines}) == 1, lines  # one width on screen
        wrong = misaligned(lines, english_header)
        assert not wrong, f"{edition}: columns off the English widths {english_header}: {wrong}"


def test_a_header_padded_by_characters_is_found_misaligned():
    header = "print(f\"{'h':>6}{'割线斜率':>10}\")"
    by_characters = ["     h      割线斜率", "     2  7.000000"]  # 6 spaces + 4 characters: 4 columns late
    assert misaligned(by_characters, header) == [by_characters[0]]
    assert misaligned(["     h  割线斜率", "     2  7.000000"], header) == []


def test_fit_to_display_width_gives_a_chinese_label_the_columns_of_its_field():
    assert translate.fit_to_display_width("print(f\"{'h':<8}{'误差':>13}{'error':>6}\")") == \
        "print(f\"{'h':<8}{'误差':>11}{'error':>6}\")"
    assert f"{'误差':>11}" == " " * 9 + "误差" and translate.display_width(f"{'误差':>11}") == 13


# -- set 12's probes of earlier tasks (t.needs): Chinese, and blaming the task that is broken ------
def _engine_value(*, task1_works: bool = True, task2_works: bool = True):
    """A Value like set 12's: its setup (+, *, **, tanh, -), task 1's operations (relu, log, sigmoid, /), and a
    ``backward()`` that walks task 2's ``topological_order``; either task can be broken."""
    import math

    class Value:
        def __init__(self, data, _prev=()):
            self.data, self.grad, self._prev, self._backward = float(data), 0.0, tuple(_prev), lambda: None

        def _result(self, data, inputs, local):
            out = Value(data, inputs)

            def _backward():
                for value, derivative in zip(inputs, local):
                    value.grad += derivative * out.grad
            out._backward = _backward
            return out

        def _wrap(self, other):
            return other if isinstance(other, Value) else Value(other)

        def __add__(self, other):
            other = self._wrap(other)
            return self._result(self.data + other.data, (self, other), (1.0, 1.0))

        def __mul__(self, other):
            other = self._wrap(other)
            return self._result(self.data * other.data, (self, other), (other.data, self.data))

        def __pow__(self, k):
            return self._result(self.data ** k, (self,), (k * self.data ** (k - 1),))

        def tanh(self):
            y = math.tanh(self.data)
            return self._result(y, (self,), (1 - y * y,))

        def __neg__(self):
            return self * -1

        def __sub__(self, other):
            return self + -self._wrap(other)

        def relu(self):
            return self._result(max(self.data, 0.0), (self,), (1.0 if self.data > 0 else 0.0,))

        def log(self):
            return self._result(math.log(self.data), (self,), (1 / self.data,))

        def sigmoid(self):
            s = 1 / (1 + math.exp(-self.data))
            return self._result(s, (self,), (s * (1 - s),))

        def __truediv__(self, other):
            other = self._wrap(other)
            local = (1 / other.data, -self.data / other.data ** 2) if task1_works else (0.0, 0.0)
            return self._result(self.data / other.data, (self, other), local)

        def __rtruediv__(self, other):
            return self._wrap(other) / self

        def backward(self):
            if not task2_works:
                raise TypeError("'NoneType' object is not reversible")  # topological_order returned None
            order, seen, stack = [], set(), [(self, False)]
            while stack:
                value, done = stack.pop()
                if done:
                    order.append(value)
                elif id(value) not in seen:
                    seen.add(id(value))
                    stack.append((value, True))
                    stack.extend((p, False) for p in value._prev)
            self.grad = 1.0
            for value in reversed(order):
                value._backward()

    return Value


def test_set_12s_probe_of_task_1_does_not_blame_task_1_for_a_broken_task_2():
    """Tasks 6 and 7 of set 12 first ask whether task 1 (the operations) works. The probe once ran
    each operation through ``backward()``, which walks task 2's ``topological_order``: with task 1
    right and task 2 broken, it said "task 1 does not work". It runs each operation's own step."""
    from tensorgrad_course.probes import backward_problem, operations_problem

    assert operations_problem(_engine_value(task2_works=False)) is None
    with pytest.raises(TypeError):  # what needs() reports as task 2's problem
        backward_problem(_engine_value(task2_works=False))
    assert operations_problem(_engine_value(task1_works=False)) is not None
    assert operations_problem(_engine_value()) is None and backward_problem(_engine_value()) is None


def test_set_12s_probes_speak_chinese(chinese):
    """What a probe says is wrong is printed under "本任务依赖任务 N" in the Chinese self-check."""
    from tensorgrad_course import probes

    broken = _engine_value(task1_works=False)
    said = [probes.operations_problem(broken)]
    broken_mul = _engine_value()
    broken_mul.__mul__ = lambda self, other: self._result(0.0, (self, self._wrap(other)), (0.0, 0.0))
    said += [probes.backward_problem(broken_mul), probes.value_problem(broken_mul)]
    names = {"Value", "relu", "log", "sigmoid", "out", "grad", "data", "backward", "_backward", "x", "w", "a", "b", "c"}
    for text in said:
        assert text and not english_words(text, names), text


# -- label columns in the lessons' stored outputs: the value after each label starts in one column --
#: (lesson, cell, the lines' common start, the pattern of where the value starts on each line):
#: rows a lesson prints as a small table, a label padded to the width of the others.
LABEL_COLUMNS = [
    ("09_custom_functions_and_gradcheck.ipynb", "l09-07", ("autograd", "true", "自动微分", "真正"), r"tensor\("),
    ("11_training.ipynb", "e79ce22b", ("linear", "mlp", "线性", "多层"), r"\S+ \S*accuracy|训练准确率"),
    ("11_training.ipynb", "e805769b", ("weight", "bias"), r"requires_grad"),
    ("13_forward_mode.ipynb", "8045b613", ("one ", "一次"), r"\d+\.\d+ ms"),
]


def value_columns(lines: list[str], pattern: str) -> set[int]:
    """The screen column at which ``pattern`` first matches on each line."""
    return {translate.display_width(line[:re.search(pattern, line).start()]) for line in lines}


@pytest.mark.parametrize("edition", ["", "zh"])
@pytest.mark.parametrize("lesson, cell_id, starts, pattern", LABEL_COLUMNS, ids=lambda v: str(v)[:12])
def test_printed_labels_are_padded_to_one_screen_column(edition, lesson, cell_id, starts, pattern):
    """Labels padded by characters put the value of a Chinese row two columns late per character
    (review s12-B: lessons 9, 11, 13): each row's value starts in the same column on screen."""
    nb = nbformat.read(ROOT / "lessons" / edition / lesson, as_version=4)
    (cell,) = [c for c in nb.cells if c.get("id") == cell_id]
    text = "".join(o.get("text", "") for o in cell.get("outputs", []))
    lines = [line for line in text.splitlines() if line.startswith(starts)]
    assert len(lines) >= 2, text
    assert len(value_columns(lines, pattern)) == 1, lines
