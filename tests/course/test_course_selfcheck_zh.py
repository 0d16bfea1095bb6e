"""The self-check in Simplified Chinese: the catalogue of texts, the language switch, the grader's English.

The zh edition's notebooks call ``use_language("zh")`` in their setup cell; from
then on the student's self-check speaks Chinese, while the records the grader
receives, and so the instructors' reports, stay English.
"""

import collections
import copy
import json
import re
import string
import sys
from pathlib import Path

import pytest
from course_helpers import NAMED, cell_by_id, read_json
from test_course_checks import grading  # noqa: F401 - the fixture: a grading kernel, records captured

from tensorgrad_course import CheckFailure, check, checks, texts, use_language
from tensorgrad_course.values import check_kind, compare, encode

tg = pytest.importorskip("tensorgrad")

COURSE = Path(checks.__file__).parent


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch):
    """Every test starts in English and leaves the kernel's language as it found it."""
    monkeypatch.setattr(texts, "_chosen", "en")


@pytest.fixture
def zh():
    use_language("zh")


def lines(capsys):
    return capsys.readouterr().out.splitlines()


def cmp(expected, actual, name="x", **kw):
    return compare(encode(expected), encode(actual), name=name, **kw)


# ------------------------------------------------------------- the catalogue


def placeholders(template: str) -> collections.Counter:
    """The fields of a str.format template with their conversions and format specs, counted."""
    return collections.Counter((field, conversion, spec) for _, field, spec, conversion
                               in string.Formatter().parse(template) if field is not None)


def catalogue_problems(catalogue: dict) -> list[str]:
    problems = []
    for key, text in catalogue.items():
        missing = set(texts.LANGUAGES) - set(text)
        extra = set(text) - set(texts.LANGUAGES)
        if missing or extra:
            problems.append(f"{key}: languages missing {sorted(missing)}, unknown {sorted(extra)}")
            continue
        english = placeholders(text["en"])
        for language, template in text.items():
            if placeholders(template) != english:
                problems.append(f"{key}: the {language} text has fields {sorted(placeholders(template).elements())}, "
                                f"the English {sorted(english.elements())}")
    return problems


def test_every_text_has_every_language_with_the_same_placeholders():
    assert catalogue_problems(texts.TEXTS) == []


@pytest.mark.parametrize("broken, problem", [
    ({"en": "your {name} is {value}", "zh": "你的 {name} 是"}, "the zh text has fields"),  # a field missing
    ({"en": "your {name}", "zh": "你的 {name} 是 {value}"}, "the zh text has fields"),  # an extra field
    ({"en": "{diff:.3g}", "zh": "{diff}"}, "the zh text has fields"),  # another format spec
    ({"en": "{key!r}", "zh": "{key}"}, "the zh text has fields"),  # another conversion
    ({"en": "your {name}"}, "languages missing ['zh']"),
])
def test_the_catalogue_check_finds_a_missing_or_extra_placeholder(broken, problem):
    (found,) = catalogue_problems({"broken": broken})
    assert problem in found


def test_every_key_the_modules_say_is_in_the_catalogue_and_every_text_is_used():
    sources = "".join((COURSE / f"{m}.py").read_text(encoding="utf-8") for m in ("checks", "values", "selfcheck", "texts", "probes", "measures"))
    used = set(re.findall(r'say\("([^"]+)"', sources))
    assert used and used <= set(texts.TEXTS)
    # The kinds are looked up by name: say(f"kind.{kind}").
    used |= {f"kind.{k}" for k in (*checks.values._KIND_NAMED, *checks.values.KINDS)}
    assert set(texts.TEXTS) - used == set()


#: English words the Chinese texts keep: Python names and literals, as PyTorch's Chinese docs do.
KEPT_WORDS = {"NotImplementedError", "return", "backward", "requires_grad", "dtype", "atol", "rtol",
              "None", "True", "False", "NumPy", "nan", "dual_level", "forward", "gradcheck", "grad_output"}


def test_the_chinese_texts_translate_every_english_word():
    for key, text in texts.TEXTS.items():
        literal = "".join(part for part, *_ in string.Formatter().parse(text["zh"]))
        left = set(re.findall(r"[A-Za-z_]{2,}", literal)) - KEPT_WORDS
        assert not left, f"{key}: untranslated English {sorted(left)} in {text['zh']!r}"


# -------------------------------------------------------- the language switch


def test_use_language_is_exported_beside_check():
    import tensorgrad_course as course

    assert course.use_language is texts.use_language and "use_language" in course.__all__


def test_an_unknown_language_is_refused_naming_the_known_ones():
    for wrong in ("fr", "zh-CN", "ZH", "", None):
        with pytest.raises(ValueError, match=r"unknown language; the known ones are 'en' \(English\), 'zh' \(简体中文\)"):
            use_language(wrong)
    assert texts.language() == "en"  # nothing changed


def test_switching_back_to_english_gives_the_english_text(capsys):
    use_language("zh")
    use_language("en")
    t = check("set.task")
    with t.test("a"):
        t.submit("dy_dw", 4.0, expected=5.0)
    assert lines(capsys) == [
        "\N{BALLOT X} a: your dy_dw is 4.0, expected 5.0 (difference 1; tolerance atol=1e-06, rtol=1e-05)"]


# ------------------------------------------------------- check() in Chinese


def run_task(body, name="chain_rule.task2"):
    t = check(name)
    body(t)
    try:
        t.done()
    except CheckFailure as exc:
        return exc
    return None


def test_passed_lines_and_the_all_pass_summary(zh, capsys):
    def body(t):
        with t.test("dy/dw at (2, 1)"):
            t.submit("dy_dw", 5.0, expected=5.0)
        with t.test("w.grad"):
            t.submit("w.grad", tg.tensor([5.0]), expected=tg.tensor([5.0]))

    assert run_task(body) is None
    assert lines(capsys) == [
        "\N{CHECK MARK} dy/dw at (2, 1)",
        "\N{CHECK MARK} w.grad",
        "任务 2：全部 2 项检查通过。评分时还会运行更多测试。",
    ]


def test_a_failure_with_its_hint_and_the_failed_summary(zh, capsys):
    def body(t):
        with t.test("dy/dw at (2, 1)", hint="把两条路径的贡献加起来"):
            t.submit("dy_dw", 4.0, expected=5.0)
        with t.test("dy/dx at (2, 1)"):
            t.submit("dy_dx", 2.0, expected=2.0)

    raised = run_task(body)
    assert lines(capsys) == [
        "\N{BALLOT X} dy/dw at (2, 1)：你的 dy_dw 是 4.0，应为 5.0（相差 1；容差 atol=1e-06, rtol=1e-05）",
        "  提示：把两条路径的贡献加起来",
        "\N{CHECK MARK} dy/dx at (2, 1)",
    ]
    assert str(raised) == "任务 2：2 项检查中有 1 项未通过（见上文）"
    assert raised._render_traceback_() == ["\N{BALLOT X} 任务 2：2 项检查中有 1 项未通过（见上文）"]


def test_predictions_answered_checked_when_graded(zh, capsys):
    def answered(t):
        with t.test("leaf"):
            t.submit("leaf", True, kind="bool")

    def mixed(t):
        with t.test("dy/dw"):
            t.submit("dy_dw", 5.0, expected=5.0)
        answered(t)

    assert run_task(answered) is None
    assert lines(capsys) == ["\N{BULLET} leaf：已作答，评分时检查", "任务 2：全部 1 项已作答，形式正确；评分时检查。"]
    assert run_task(mixed) is None
    assert lines(capsys) == [
        "\N{CHECK MARK} dy/dw",
        "\N{BULLET} leaf：已作答，评分时检查",
        "任务 2：1 项检查通过，1 项已作答（评分时检查）。评分时还会运行更多测试。",
    ]


def test_not_attempted_and_not_run_yet(zh, capsys):
    def body(t):
        with t.test("dy/dw", hint="hidden while not attempted"):
            raise NotImplementedError
        with t.test("dy/dx"):
            dy_dx_never_defined  # noqa: B018, F821 - the answer cell was not run

    raised = run_task(body)
    assert lines(capsys) == [
        "\N{BALLOT X} dy/dw：尚未作答（你的代码仍然抛出 NotImplementedError）",
        "\N{BALLOT X} dy/dx：'dy_dx_never_defined' 未定义，请先运行上面的答案单元格（如果它报错了，先修正错误）",
    ]
    assert str(raised) == "任务 2：尚未作答"


def test_other_endings_of_a_test_block(zh, capsys):
    def body(t):
        with t.test("assert"):
            raise AssertionError  # a bare assert, as in a student's kernel (pytest rewrites asserts)
        with t.test("raised"):
            raise ValueError("bad value")
        with t.test("none"):
            t.submit("w_grad", None)

    run_task(body)
    assert lines(capsys) == [
        "\N{BALLOT X} assert：断言失败",
        "\N{BALLOT X} raised：你的代码抛出了 ValueError：bad value",
        "\N{BALLOT X} none：你的 w_grad 是 None（是不是忘了给它赋值，或者忘了写 return？）",
    ]


def test_no_tests(zh, capsys):
    assert run_task(lambda t: None) is None
    assert lines(capsys) == ["任务 2：没有运行任何测试"]


# ----------------------------------------------- the comparison in Chinese


def test_a_number(zh):
    assert cmp(5.0, 4.0, name="dy_dw") == "你的 dy_dw 是 4.0，应为 5.0（相差 1；容差 atol=1e-06, rtol=1e-05）"
    assert cmp(5.0, "5", name="dy_dw") == "你的 dy_dw 是 '5'（字符串），应为数值"
    assert cmp(5.0, None, name="dy_dw") == "你的 dy_dw 是 None，应为 5.0（是不是忘了写 return，或者忘了调用 backward()？）"


def test_the_hint_for_none_fits_what_the_label_names(zh):
    """An attribute is not returned (only backward() can be missing); a call's value is returned, and
    a task may compute it by hand (only return can be missing); a plain gradient's name, either."""
    assert cmp(5.0, None, name="w.grad") == "你的 w.grad 是 None，应为 5.0（是不是忘了调用 backward()？）"
    assert cmp(5.0, None, name="sin_chain_grad(0.7, 1)") == (
        "你的 sin_chain_grad(0.7, 1) 是 None，应为 5.0（是不是忘了写 return？）")
    assert cmp(5.0, None, name="grad_w") == "你的 grad_w 是 None，应为 5.0（是不是忘了写 return，或者忘了调用 backward()？）"


def test_no_space_between_two_chinese_words_but_around_code(zh):
    from tensorgrad_course.texts import say

    assert say("expected", yours="你的 x 是 1", want="列表") == "你的 x 是 1，应为列表"
    assert say("expected", yours="你的 x 是 1", want="5.0") == "你的 x 是 1，应为 5.0"
    assert say("yours", name="每次的梯度模式", value="[]") == "你的每次的梯度模式是 []"
    assert say("yours", name="dy_dw", value="'中 文'") == "你的 dy_dw 是 '中 文'"  # a value is left as it is


def test_the_summary_names_the_task_in_chinese(zh):
    assert check("s.task3").label == "任务 3"
    assert check("s.warmup").label == "warmup"


def test_a_tensor_of_the_wrong_shape_or_value(zh):
    assert cmp(tg.tensor([1.0, 2.0]), tg.tensor([[1.0, 2.0]]), name="w.grad") == (
        "你的 w.grad 是 tensor([[1., 2.]])，形状应为 (2,)，但它的形状是 (1, 2)")
    assert cmp(tg.tensor([1.0, 5.0]), tg.tensor([1.0, 4.0]), name="w.grad") == (
        "你的 w.grad 是 tensor([1., 4.])，形状 (2,) 正确，但值不同：应为 tensor([1., 5.])（最大差值 1，位于索引 (1,)）")
    # A hidden test names only kinds and shapes.
    assert cmp(tg.tensor([1.0, 2.0]), tg.tensor([[1.0, 2.0]]), name="w.grad", reveal=False) == (
        "你的 w.grad 是形状为 (1, 2) 的张量，应为形状为 (2,) 的张量")
    x = tg.tensor([1.0], requires_grad=True)
    assert cmp(x, tg.tensor([1.0]), name="x", requires_grad=True) == (
        "你的 x 的 requires_grad=False，应为 requires_grad=True")


def test_a_bool_and_a_str(zh):
    assert cmp(True, False, name="is_leaf") == "你的 is_leaf 是 False，应为 True"
    assert cmp(True, "yes", name="is_leaf") == "你的 is_leaf 是 'yes'（字符串），应为 True 或 False（布尔值）"
    assert cmp(True, False, name="is_leaf", reveal=False) == "你的 is_leaf 不是期望的值"
    assert cmp("MulBackward0", "AddBackward0", name="node") == "你的 node 是 'AddBackward0'，应为 'MulBackward0'"
    assert cmp("MulBackward0", 3, name="node") == "你的 node 是 3（整数），应为字符串"
    assert check_kind(encode(3), "str|none", name="node") == "你的 node 是 3（整数），应为字符串或 None"


def test_lists_and_dicts(zh):
    assert cmp([1, 2, 3], [1, 2], name="xs") == "你的 xs 是 [1, 2]，应为长度为 3 的列表，实际长度是 2"
    assert cmp({"a": 1}, {}, name="d") == "你的 d 是 {}，其中没有键 'a'"


def test_library_errors_stay_pytorchs_words(zh, capsys):
    t = check("set.task")
    with t.test("backward twice"):
        y = tg.tensor(2.0, requires_grad=True) * 3
        y.backward()
        y.backward()
    (line,) = lines(capsys)
    assert line.startswith("\N{BALLOT X} backward twice：你的代码抛出了 RuntimeError：Trying to backward through the graph a second time")


# ---------------------------------------------------- the grader stays English


def test_while_grading_the_records_and_messages_are_english(zh, grading, capsys):
    assert texts.language() == "en"
    t = check("chain_rule.task3")
    with t.test("wrong", hint="add both paths"):
        t.submit("dy_dw", 4.0, expected=5.0)
    with t.test("unattempted"):
        raise NotImplementedError
    with t.test("undefined"):
        never_defined  # noqa: B018, F821
    t.done()
    assert capsys.readouterr().out == ""
    assert [r["message"] for r in grading] == [
        "your dy_dw is 4.0, expected 5.0 (difference 1; tolerance atol=1e-06, rtol=1e-05)",
        "not attempted yet: your code still raises NotImplementedError",
        "'never_defined' is not defined: run your answer cell above first (if it raised an error, fix that first)",
    ]


def test_out_of_grading_the_chosen_language_comes_back(zh, grading, monkeypatch):
    assert texts.language() == "en"
    monkeypatch.delitem(sys.modules, texts.GUARD_MODULE)
    assert texts.language() == "zh"


# ------------------------------------------------------ a zh notebook end to end


def zh_course(root: Path) -> dict:
    """The ``named`` fixture set with a setup cell that switches to Chinese, built; its release."""
    from tensorgrad_course import generate

    solution = read_json(NAMED)
    cell_by_id(solution, "setup")["source"] = "import numpy as np\nfrom tensorgrad_course import use_language\nuse_language(\"zh\")"
    (root / "solutions").mkdir()
    (root / "solutions" / "named.ipynb").write_text(json.dumps(solution, indent=1), encoding="utf-8")
    generate.build(root / "solutions", root / "exercises")
    return read_json(root / "exercises" / "named.ipynb")


# Right for vectors; raises for a matrix, so that the kernel's own message reaches the report.
VECTORS_ONLY = {
    "scale": ("def scale(v, k):\n    v = np.asarray(v, dtype=float)\n    if v.ndim > 1:\n"
              "        raise ValueError('only vectors')\n    return v * k"),
    "predict": "leaf = True\ncount = 3",
    "double": "def double(x):\n    return 2 * x",
}


def answered(release: dict, answers: dict) -> dict:
    nb = copy.deepcopy(release)
    for gid, source in answers.items():
        cell_by_id(nb, gid)["source"] = source
    return nb


def test_a_zh_notebook_speaks_chinese_to_the_student_and_english_to_the_grader(tmp_path):
    from nbclient import NotebookClient
    import nbformat

    from tensorgrad_course.grade import discover, grade_batch
    from tensorgrad_course.kernel import Limits

    release = zh_course(tmp_path)
    submission = answered(release, VECTORS_ONLY)

    # The student's own kernel: the check cells print Chinese.
    nb = nbformat.reads(json.dumps(submission), as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    printed = "".join(o.get("text", "") for o in cell_by_id(nb, "test_scale")["outputs"] if o["output_type"] == "stream")
    assert printed.splitlines() == [
        "\N{CHECK MARK} scale([1, 2], 3)",
        "\N{BALLOT X} the shape is kept：你的代码抛出了 ValueError：only vectors",
    ]
    failure = [o for o in cell_by_id(nb, "test_scale")["outputs"] if o["output_type"] == "error"]
    assert failure and "2 项检查中有 1 项未通过" in "".join(failure[0]["traceback"])
    predict = "".join(o.get("text", "") for o in cell_by_id(nb, "test_predict")["outputs"])
    # the build wrote fingerprints of the answers: self-study says right or wrong, in Chinese
    assert "\N{CHECK MARK} leaf\n" in predict and "全部 2 项检查通过" in predict

    # The grader: the same notebook is graded exactly as an English one, and reported in English.
    (tmp_path / "submissions" / "wen").mkdir(parents=True)
    (tmp_path / "submissions" / "wen" / "named.ipynb").write_text(json.dumps(submission), encoding="utf-8")
    limits = Limits(cell_timeout=10, notebook_timeout=90, interrupt_grace=3)
    (result,) = grade_batch(discover([tmp_path / "submissions"]), tmp_path / "solutions", tmp_path / "exercises",
                            limits, jobs=1, cache_dir=tmp_path / "cache")
    assert (result.status, result.score, result.max_score) == ("graded", 5, 6)
    (scale,) = [t for t in result.tasks if t.grade_id == "test_scale"]
    messages = {t.name: t.message for t in scale.tests}
    assert messages["the shape is kept"] == '"your code raised ValueError: only vectors"'  # the kernel's words, quoted
    assert not any(re.search("[\u4e00-\u9fff]", t.message or "") for task in result.tasks for t in task.tests)
