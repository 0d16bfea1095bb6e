"""The course's own student-facing texts, in English and Simplified Chinese, and the language switch.

Every line the self-check shows a student (:mod:`.checks`, :mod:`.measures`) and
every message of the shared comparison (:mod:`.values`) is a named template in
:data:`TEXTS`, with one text per language. The modules format them with
:func:`say`::

    say("yours", name="dy_dw", value="4.0")     # 'your dy_dw is 4.0' / '你的 dy_dw 是 4.0'

The placeholders are :meth:`str.format` fields, the same in every language, so
that code names, values and Python reprs reach the student unchanged; only the
words around them are translated. The Chinese follows the words of PyTorch's
Chinese documentation and community (张量, 梯度, 形状, 提示).

The zh edition's notebooks call :func:`use_language` once, in their setup cell::

    from tensorgrad_course import check, use_language
    use_language("zh")

From then on the self-check in that kernel speaks Chinese. The language belongs
to the kernel, not to a task: ``check()`` takes no language of its own, so that
the check cells of both editions are the same code, graded by the same
instructor's tests. **While grading**
(the grader has armed :mod:`.checks` with its nonce) every text is English,
whatever was set: the records sent to the grader and the instructors' reports
stay English, and the grader reads the kernel's messages in one language only.
Texts that only the grader or an author sees (authoring mistakes, grader
records, reports) are not here: they are English. Library error messages are
not here either: they are PyTorch's, word for word.
"""

from __future__ import annotations

import re
import string
import sys

__all__ = ["LANGUAGES", "TEXTS", "chinese_share", "language", "say", "use_language"]

#: The languages the texts are written in: code -> the language's own name.
LANGUAGES = {"en": "English", "zh": "简体中文"}

_chosen = "en"

_CHINESE_LETTER = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_LETTER = re.compile(r"[A-Za-z]")


def chinese_share(text: str) -> float:
    """The share of the letters of ``text`` that are Chinese (0.0 for text without letters).

    How the course tells its editions apart by their words: the grader, a submission whose
    name fits both editions of a set; tools/translate.py, how Chinese an edition's prose is.
    """
    chinese, latin = len(_CHINESE_LETTER.findall(text)), len(_LATIN_LETTER.findall(text))
    return chinese / (chinese + latin) if chinese + latin else 0.0


def use_language(language: str) -> None:
    """Show the self-check's messages in ``language`` (``"en"`` or ``"zh"``) in this kernel.

    Under the grader the messages stay English whatever is set here (see the
    module docstring). An unknown language raises ValueError naming the known ones.
    """
    global _chosen
    if not isinstance(language, str) or language not in LANGUAGES:
        known = ", ".join(f"{code!r} ({name})" for code, name in LANGUAGES.items())
        raise ValueError(f"use_language({language!r}): unknown language; the known ones are {known}")
    _chosen = language


#: The module the grader's cells create in a grading kernel (see :mod:`.guard`).
GUARD_MODULE = "_tensorgrad_grader_guard"


def _grading_nonce() -> str | None:
    """The nonce of the current grading run, or None in a student's own kernel.

    Here, at the bottom of the self-check's modules, because both the language of the texts and
    :mod:`.checks` (whether to print or to send records) depend on it.
    """
    guard = sys.modules.get(GUARD_MODULE)
    nonce = getattr(guard, "nonce", None)
    return nonce if isinstance(nonce, str) and nonce else None


def language() -> str:
    """The language that messages are shown in now: English while grading, else the one chosen."""
    return "en" if _grading_nonce() is not None else _chosen


#: How a sealed hint starts (see :func:`seal`).
SEALED = "sealed:"


def seal(hint: str) -> str:
    """A hint as the student's check cell stores it: base64, so that it is not read by accident
    before an attempt. Not a secret: anyone can decode it (docs/authoring-exercises.md)."""
    import base64

    return SEALED + base64.b64encode(hint.encode("utf-8")).decode("ascii")


def unseal(hint: str) -> str:
    """The text of a hint, sealed by :func:`seal` or not."""
    import base64
    import binascii

    if isinstance(hint, str) and hint.startswith(SEALED):
        try:
            return base64.b64decode(hint[len(SEALED):], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return hint
    return hint


def forgot_return(name: str) -> str:
    """Why a value may be None, judged by what ``name`` shows the value to be, not by a guess at
    what it is about: an attribute (``w.grad``) is not returned, so only backward() can have been
    missed; a call (``sin_chain_grad(0.7, 1)``) is a function's return value, and a task may
    compute it by hand, so only ``return`` can; a tangent is gone after the dual_level() block
    (forward mode has no backward()); a plain name that says it is a gradient (``grad_w``,
    ``dy_dw``) may miss either."""
    lowered = name.strip().lower()
    if "tangent" in lowered or "jvp" in lowered:
        return say("forgot_return.tangent")
    if re.search(r"\.grad$", lowered):
        return say("forgot_backward")
    if re.match(r"[a-z_][a-z0-9_.]*\(", lowered):
        return say("forgot_return")
    if "grad" in lowered or "deriv" in lowered or re.search(r"(^|[^a-z])d[a-z0-9]*[_/]d[a-z]", lowered):
        return say("forgot_return.grad")  # a gradient: grad_w, dy_dw, dy/dx, derivative
    return say("forgot_return")


def say(key: str, /, **fields) -> str:
    """The text ``key`` of :data:`TEXTS` in the current :func:`language`, its fields filled in."""
    template = TEXTS[key][language()]
    if language() == "zh":
        return _fill_chinese(template, fields)
    return template.format(**fields)


_FORMATTER = string.Formatter()


def _is_chinese(ch: str) -> bool:
    return bool(ch) and bool(_CHINESE_LETTER.match(ch))


def _fill_chinese(template: str, fields: dict) -> str:
    """A Chinese template filled in, without a space between two Chinese words.

    A Chinese template keeps a space on each side of a field (``应为 {want}``), since most fields
    are code, values or numbers (``应为 5.0``); but Chinese puts no space between its own words,
    so where the field is itself Chinese (a kind: ``应为列表``, ``列表或 None``) the space between
    it and the template's Chinese word is dropped. Only the template's spaces are touched, never
    the text of a field.
    """
    pieces: list[tuple[str, bool]] = []  # (text, is_a_field)
    for literal, field, spec, conversion in _FORMATTER.parse(template):
        if literal:
            pieces.append((literal, False))
        if field is not None:
            value = _FORMATTER.get_field(field, (), fields)[0]
            value = _FORMATTER.convert_field(value, conversion)
            spec = _FORMATTER.vformat(spec, (), fields) if spec else ""
            pieces.append((_FORMATTER.format_field(value, spec), True))
    for k, (text, is_field) in enumerate(pieces):
        if is_field:
            continue
        before = pieces[k - 1][0] if k > 0 and pieces[k - 1][1] else ""
        after = pieces[k + 1][0] if k + 1 < len(pieces) and pieces[k + 1][1] else ""
        if before and text.startswith(" ") and _is_chinese(before[-1:]) and _is_chinese(text[1:2]):
            text = text[1:]
        if after and text.endswith(" ") and _is_chinese(after[:1]) and _is_chinese(text[-2:-1]):
            text = text[:-1]
        pieces[k] = (text, False)
    return "".join(text for text, _ in pieces)


#: name -> {language: template}. Placeholders keep their values unchanged: ``{value}``
#: is a repr, ``{name}`` a code name, ``{shape}`` a shape tuple, ``{diff:.3g}`` a number.
TEXTS: dict[str, dict[str, str]] = {
    # ---- check(): one line per test, and the summary of t.done()
    "test.passed": {
        "en": "\N{CHECK MARK} {test}",
        "zh": "\N{CHECK MARK} {test}",
    },
    "test.answered": {
        "en": "\N{BULLET} {test}: answered, checked when graded",
        "zh": "\N{BULLET} {test}：已作答，评分时检查",
    },
    "test.failed": {
        "en": "\N{BALLOT X} {test}: {message}",
        "zh": "\N{BALLOT X} {test}：{message}",
    },
    "measure.failed": {
        "en": "{name}: {what}",
        "zh": "{name}：{what}",
    },
    "measure.loss": {
        "en": "its loss on these points is {loss:.4g}, which must be below {below:g}",
        "zh": "它在这些点上的损失是 {loss:.4g}，必须低于 {below:g}",
    },
    "measure.accuracy": {
        "en": "its accuracy on these points is {accuracy:.4g}, which must be at least {at_least:g}",
        "zh": "它在这些点上的准确率是 {accuracy:.4g}，必须至少为 {at_least:g}",
    },
    "measure.hidden": {
        "en": "{name} does not reach this hidden test's target",
        "zh": "{name} 没有达到这个隐藏测试的目标",
    },
    "measure.network": {
        "en": "{name} does not have the layers and parameter shapes of the network the check built",
        "zh": "{name} 的层和参数形状与检查构建的网络不一致",
    },
    "measure.cannot": {
        "en": "{name} cannot be measured: the check cell must hand {call} a network of {layer} layers and "
              "activations, a 2-D batch of points and 1-D labels",
        "zh": "{name} 无法测量：检查单元格必须交给 {call} 一个由 {layer} 层和激活函数组成的网络、二维的点和一维的标签",
    },
    "order.not_list": {
        "en": "your {name} is not a list of the graph's nodes",
        "zh": "你的 {name} 不是由计算图节点组成的列表",
    },
    "order.foreign": {
        "en": "item {k} of your order cannot be reached from {root}",
        "zh": "你的顺序中第 {k} 项无法从 {root} 到达",
    },
    "order.twice": {
        "en": "{node} appears twice in your order",
        "zh": "{node} 在你的顺序中出现了两次",
    },
    "order.count": {
        "en": "your order has {got} nodes, but {want} nodes can be reached from {root}",
        "zh": "你的顺序有 {got} 个节点，但从 {root} 可以到达 {want} 个节点",
    },
    "order.sends": {
        "en": "{later} comes before {node}, which sends it a gradient",
        "zh": "{later} 排在 {node} 之前，而后者要把梯度传给它",
    },
    "order.input": {
        "en": "{node} comes before its input, {input}",
        "zh": "{node} 排在它的输入 {input} 之前",
    },
    "order.hidden": {
        "en": "{name} is not a valid order of this hidden test's graph",
        "zh": "{name} 不是这个隐藏测试的计算图的有效顺序",
    },
    "order.cannot": {
        "en": "{name} cannot be judged: the check cell must hand {call} an order, the graph's root and "
              "what each node leads to",
        "zh": "{name} 无法判断：检查单元格必须交给 {call} 一个顺序、计算图的根以及每个节点指向的节点",
    },
    "gradcheck.values": {
        "en": "the values of {name} at the points gradcheck tries are not the expected function's: "
              "check forward first",
        "zh": "{name} 在 gradcheck 尝试的各点上的值不是预期函数的值：请先检查 forward",
    },
    "gradcheck.shape": {
        "en": "the grader could not read what backward gives for {name}",
        "zh": "评分程序无法读取 {name} 的 backward 给出的结果",
    },
    "gradcheck.mismatch": {
        "en": "Jacobian mismatch,\nnumerical:\n{numerical}\nanalytical (from your backward):\n{analytical}",
        "zh": "雅可比矩阵不一致，\n数值的：\n{numerical}\n解析的（来自你的 backward）：\n{analytical}",
    },
    "gradcheck.again": {
        "en": "Backward is not reentrant: running backward twice with the same grad_output gives different values",
        "zh": "backward 不可重入：用同一个 grad_output 运行两次 backward，得到的值不同",
    },
    "gradcheck.grad_output": {
        "en": "backward not multiplied by grad_output: with zero gradients coming in, it still sends gradients on",
        "zh": "backward 没有乘以 grad_output：传入的梯度为零时，它仍然传出非零梯度",
    },
    "gradcheck.size": {
        "en": "grad is incorrect size: a gradient backward returns does not have its input's shape",
        "zh": "梯度的大小不对：backward 返回的梯度与对应输入的形状不同",
    },
    "gradcheck.type": {
        "en": "grad is incorrect type: a gradient backward returns does not have its input's dtype",
        "zh": "梯度的类型不对：backward 返回的梯度与对应输入的 dtype 不同",
    },
    "gradcheck.hidden": {
        "en": "gradcheck fails for {name} in this hidden test",
        "zh": "在这个隐藏测试中，{name} 没有通过 gradcheck",
    },
    "gradcheck.cannot": {
        "en": "{name} cannot be checked: the check cell must hand {call} a function and its inputs",
        "zh": "{name} 无法检查：检查单元格必须交给 {call} 一个函数和它的输入",
    },
    "prediction.wrong": {
        "en": "your {name} is {value}: that is not the right answer",
        "zh": "你的 {name} 是 {value}，不对",
    },
    "task.label": {
        "en": "task{n}",
        "zh": "任务 {n}",
    },
    "needs.task": {
        "en": "task {n}",
        "zh": "任务 {n}",
    },
    "probe.value": {
        "en": "{expr} is {got}, expected {want}",
        "zh": "{expr} 是 {got}，应为 {want}",
    },
    "needs.ok": {
        "en": "\N{CHECK MARK} {task}, which this task builds on, works",
        "zh": "\N{CHECK MARK} 本任务所依赖的{task}可以正常工作",
    },
    "needs.broken": {
        "en": "\N{BALLOT X} this task builds on {task}, which does not work yet: {problem}\n"
              "  fix {task} first: until then, a failure below may come from {task}, not from this "
              "task's code (its hints are held back)",
        "zh": "\N{BALLOT X} 本任务依赖{task}，而它还不能正常工作：{problem}\n"
              "  请先修好{task}：在此之前，下面的失败可能来自{task}，而不是本任务的代码（因此暂不显示提示）",
    },
    "test.hint": {
        "en": "  hint: {hint}",
        "zh": "  提示：{hint}",
    },
    "summary.none_ran": {
        "en": "{task}: no tests ran",
        "zh": "{task}：没有运行任何测试",
    },
    "summary.all_pass": {
        "en": "{task}: all {total} checks pass. More tests run when your work is graded.",
        "zh": "{task}：全部 {total} 项检查通过。评分时还会运行更多测试。",
    },
    "summary.all_answered": {
        "en": "{task}: all {total} answered, in the right form; checked when graded.",
        "zh": "{task}：全部 {total} 项已作答，形式正确；评分时检查。",
    },
    "summary.some_answered": {
        "en": "{task}: {passed} checks pass, {answered} answered (checked when graded). "
              "More tests run when your work is graded.",
        "zh": "{task}：{passed} 项检查通过，{answered} 项已作答（评分时检查）。评分时还会运行更多测试。",
    },
    "summary.not_attempted": {
        "en": "{task}: not attempted yet",
        "zh": "{task}：尚未作答",
    },
    "summary.failed": {
        "en": "{task}: {failed} of {total} checks failed (see above)",
        "zh": "{task}：{total} 项检查中有 {failed} 项未通过（见上文）",
    },
    # ---- check(): how a test block ended
    "error.not_attempted": {
        "en": "not attempted yet: your code still raises NotImplementedError",
        "zh": "尚未作答（你的代码仍然抛出 NotImplementedError）",
    },
    "error.not_defined": {
        "en": "{missing!r} is not defined: {not_run_yet}",
        "zh": "{missing!r} 未定义，{not_run_yet}",
    },
    "error.not_run_yet": {
        "en": "run your answer cell above first (if it raised an error, fix that first)",
        "zh": "请先运行上面的答案单元格（如果它报错了，先修正错误）",
    },
    "error.assertion": {
        "en": "an assertion failed",
        "zh": "断言失败",
    },
    "error.raised": {
        "en": "your code raised {error}",
        "zh": "你的代码抛出了 {error}",
    },
    "error.raised_with_text": {
        "en": "your code raised {error}: {text}",
        "zh": "你的代码抛出了 {error}：{text}",
    },
    "submit.none": {
        "en": "your {name} is None (did you forget to set it, or to return it?)",
        "zh": "你的 {name} 是 None（是不是忘了给它赋值，或者忘了写 return？）",
    },
    # ---- kinds of values, as the messages name them
    "kind.none": {"en": "None", "zh": "None"},
    "kind.bool": {"en": "a bool", "zh": "布尔值"},
    "kind.int": {"en": "an int", "zh": "整数"},
    "kind.float": {"en": "a float", "zh": "浮点数"},
    "kind.number": {"en": "a number", "zh": "数值"},
    "kind.complex": {"en": "a complex number", "zh": "复数"},
    "kind.str": {"en": "a str", "zh": "字符串"},
    "kind.tensor": {"en": "a tensor", "zh": "张量"},
    "kind.ndarray": {"en": "a NumPy array", "zh": "NumPy 数组"},
    "kind.list": {"en": "a list", "zh": "列表"},
    "kind.tuple": {"en": "a tuple", "zh": "元组"},
    "kind.dict": {"en": "a dict", "zh": "字典"},
    "kind.too_large": {"en": "a very large tensor", "zh": "非常大的张量"},
    "kind.object": {"en": "a {cls}", "zh": "{cls} 对象"},
    "kind.of_shape": {"en": "{kind} of shape {shape}", "zh": "形状为 {shape} 的{kind}"},
    "kind.of_length": {"en": "{kind} of length {length}", "zh": "长度为 {length} 的{kind}"},
    "kind.true_or_false": {"en": "True or False", "zh": "True 或 False"},
    "kind.true_or_false_bool": {"en": "True or False (a bool)", "zh": "True 或 False（布尔值）"},
    "either": {"en": "{one} or {other}", "zh": "{one} 或 {other}"},
    # ---- comparing a value with the expected one
    "yours": {
        "en": "your {name} is {value}",
        "zh": "你的 {name} 是 {value}",
    },
    "expected": {
        "en": "{yours}, expected {want}",
        "zh": "{yours}，应为 {want}",
    },
    "expected.value": {
        "en": "expected {value}",
        "zh": "应为 {value}",
    },
    "expected.hidden": {
        "en": "not the expected value",
        "zh": "不是期望的值",
    },
    "not_right": {
        "en": "{yours}, which is not right",
        "zh": "{yours}，不正确",
    },
    "not_expected": {
        "en": "your {name} is not the expected value",
        "zh": "你的 {name} 不是期望的值",
    },
    "wrong_kind": {
        "en": "{yours} ({kind}), expected {want}",
        "zh": "{yours}（{kind}），应为 {want}",
    },
    "forgot_return": {
        "en": " (did you forget to return it?)",
        "zh": "（是不是忘了写 return？）",
    },
    "forgot_return.grad": {
        "en": " (did you forget to return it, or to call backward()?)",
        "zh": "（是不是忘了写 return，或者忘了调用 backward()？）",
    },
    "forgot_backward": {
        "en": " (did you forget to call backward()?)",
        "zh": "（是不是忘了调用 backward()？）",
    },
    "forgot_return.tangent": {
        "en": " (did you forget to return it, or read the tangent after the dual_level() block, "
              "where it is gone?)",
        "zh": "（是不是忘了写 return，或者在 dual_level() 块结束之后才读取切向量？那时它已经没有了）",
    },
    "too_large": {
        "en": "your {name} is too large to grade (shape {shape})",
        "zh": "你的 {name} 太大，无法评分（形状 {shape}）",
    },
    "too_large.expected": {
        "en": "{name}: the expected value is too large to compare (an authoring problem)",
        "zh": "{name}：期望值太大，无法比较（这是出题的问题）",
    },
    "length_differs": {
        "en": "{yours}, expected {want} but it has length {length}",
        "zh": "{yours}，应为 {want}，实际长度是 {length}",
    },
    "key_missing": {
        "en": "{yours}, which has no key {key!r}",
        "zh": "{yours}，其中没有键 {key!r}",
    },
    "key_extra": {
        "en": "{yours}, which has an unexpected key {key!r}",
        "zh": "{yours}，其中有多余的键 {key!r}",
    },
    "shape_differs": {
        "en": "{yours}, expected shape {expected} but it has shape {actual}",
        "zh": "{yours}，形状应为 {expected}，但它的形状是 {actual}",
    },
    "dtype_differs": {
        "en": "{yours}, expected dtype {expected} but it has dtype {actual}",
        "zh": "{yours}，dtype 应为 {expected}，但它的 dtype 是 {actual}",
    },
    "requires_grad_differs": {
        "en": "your {name} has requires_grad={actual}, expected requires_grad={expected}",
        "zh": "你的 {name} 的 requires_grad={actual}，应为 requires_grad={expected}",
    },
    "value_differs": {
        "en": "{yours}, expected shape {shape} but a different value: {details}",
        "zh": "{yours}，形状 {shape} 正确，但值不同：{details}",
    },
    "number_differs": {
        "en": "{yours}, {shown} ({details})",
        "zh": "{yours}，{shown}（{details}）",
    },
    "in_parentheses": {"en": " ({text})", "zh": "（{text}）"},
    "details.separator": {"en": "; ", "zh": "；"},
    "details.difference": {"en": "difference {diff:.3g}", "zh": "相差 {diff:.3g}"},
    "details.largest_at": {
        "en": "largest difference {diff:.3g} at index {index}",
        "zh": "最大差值 {diff:.3g}，位于索引 {index}",
    },
    "details.nan": {"en": "yours contains nan", "zh": "你的值含有 nan"},
    "details.tolerance": {"en": "tolerance atol={atol:g}, rtol={rtol:g}", "zh": "容差 atol={atol:g}, rtol={rtol:g}"},
}
