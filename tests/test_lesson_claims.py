"""What the lessons say about the seed tutorials' errors, checked against a computation (issue 27).

A box that names a tutorial's error states a fact: "weights of ones give the Hessian's row sums",
"a one-element tensor needs no weights", "`detach()` leaves the original tracked". Each test here
computes that fact with tensorgrad, and checks that the lesson and the companion show it where
they say they do (in a stored output, both editions) and state the same numbers. If the library or
the text changes so that the two disagree, the test fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

import tensorgrad as tg

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
EDITIONS = ("", "zh")


def cell(notebook: str, cell_id: str, edition: str):
    nb = nbformat.read(LESSONS / edition / notebook, as_version=4)
    found = [c for c in nb.cells if c.get("id") == cell_id]
    assert found, f"{edition or 'en'}/{notebook} has no cell {cell_id}"
    return found[0]


def printed(code_cell) -> str:
    return "".join(output.get("text", "") for output in code_cell.get("outputs", []))


def lesson_6_f():
    """Lesson 6's f(p) = p1² p2 + p2³ at p = (1, 2): its Hessian, built row by row, and what
    tutorial 1's recipe (the gradient differentiated again with weights of ones) gives."""
    p = tg.tensor([1., 2.], requires_grad=True)
    f = p[0] ** 2 * p[1] + p[1] ** 3
    (grad_f,) = tg.autograd.grad(f, p, create_graph=True)
    hessian = tg.stack([tg.autograd.grad(grad_f[i], p, retain_graph=True)[0] for i in range(2)])
    (ones_recipe,) = tg.autograd.grad(grad_f, p, grad_outputs=tg.ones_like(p))
    return hessian, ones_recipe


def test_weights_of_ones_give_the_row_sums_not_the_second_derivatives():
    hessian, ones_recipe = lesson_6_f()
    assert ones_recipe.tolist() == hessian.sum(dim=1).tolist() == [6., 14.]
    assert [hessian[0, 0].item(), hessian[1, 1].item()] == [4., 12.]


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_row_sum_counterexample_is_in_the_stored_outputs(edition):
    lesson = printed(cell("06_autograd_grad_higher_derivatives.ipynb", "cell-6a0d2f11", edition))
    assert "tensor([ 6., 14.])" in lesson and "tensor([ 4., 12.])" in lesson, lesson
    companion = printed(cell("seed_1_autograph_tutorial.ipynb", "s1-95b", edition))
    assert "(tensor([ 6., 14.]),)" in companion, companion
    for notebook, box in (("06_autograd_grad_higher_derivatives.ipynb", "cell-6a0d2f10"),
                          ("seed_1_autograph_tutorial.ipynb", "s1-95c")):
        text = cell(notebook, box, edition).source
        assert "结果也很好理解" in text and "$(6, 14)$" in text and "$(4, 12)$" in text, (notebook, box)


def test_a_one_element_result_needs_no_weights_whatever_its_dimensions():
    """Tutorial 1: "如果结果为1 维以上张量，直接求导会出错". Its own §1.3 differentiates a shape-(1,) y."""
    for shape in [(1,), (1, 1), ()]:
        x = tg.ones(shape, requires_grad=True)
        (x * 3).backward()
        assert x.grad.tolist() == tg.full(shape, 3.).tolist()
    b = tg.tensor([1., 2.], requires_grad=True) ** 2 + 1
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        b.backward()


def test_detach_leaves_the_original_tracked():
    """Tutorial 2: "解绑完成后在该张量上的后续计算都不会被autograd追踪". Lesson 7 and the companion
    print what the box says: the detached tensor's results untracked, the original's tracked."""
    t = tg.ones(2, requires_grad=True)
    d = t.detach()
    assert (d.requires_grad, (d * 2).requires_grad, (t * 2).requires_grad) == (False, False, True)
    for edition in EDITIONS:
        assert printed(cell("seed_2_autograd_notes.ipynb", "s2-06", edition)).splitlines() == [
            "False False", "True", "False"]
        lines = printed(cell("07_backward_no_grad_detach.ipynb", "cell-b0099351", edition)).splitlines()
        assert lines[3:5] == ["False False", "True"], lines


# -- lessons 10 and 11: claims an outside reviewer found false in both editions ------------------
def markdown(notebook: str, cell_id: str, edition: str = "") -> str:
    return cell(notebook, cell_id, edition).source


def test_lesson_10_names_the_sequence_number_cell_as_tensorgrad_only():
    """Lesson 10 says every cell but the source and drawing ones runs unchanged under torch. The
    cell that reads `grad_fn._sequence_nr` does not: PyTorch's `_sequence_nr` is a method."""
    notebook = "10_inside_the_engine.ipynb"
    reads_it = cell(notebook, "l10-34", "")
    assert "grad_fn._sequence_nr" in reads_it.source and "tensorgrad-only" in reads_it.metadata["tags"]
    assert isinstance(tg.tensor(1., requires_grad=True).mul(2).grad_fn._sequence_nr, int)
    torch = pytest.importorskip("torch")
    assert callable(torch.tensor(1., requires_grad=True).mul(2).grad_fn._sequence_nr)
    # said where the learner meets the sequence numbers read (l10-33, the cell after the one that reads them)
    assert "as a method, `grad_fn._sequence_nr()`" in " ".join(markdown(notebook, "l10-33").split())
    assert "是个方法，要写成 `grad_fn._sequence_nr()`" in markdown(notebook, "l10-33", "zh")


def test_zero_grad_between_backward_and_step_loses_the_step():
    """Lesson 11: zero_grad at the start or the end of the loop, never between backward and step."""
    model = tg.nn.Linear(1, 1)
    optimizer = tg.optim.SGD(model.parameters(), lr=0.1)
    before = model.weight.tolist()
    model(tg.ones(1, 1)).sum().backward()
    optimizer.zero_grad()
    optimizer.step()
    assert model.weight.tolist() == before, "a step after zero_grad() should change nothing"
    assert "never between `backward()` and `step()`" in markdown("11_training.ipynb", "22afe06e")
    assert "绝不能放在 `backward()` 和 `step()` 之间" in markdown("11_training.ipynb", "22afe06e", "zh")


def test_adam_adds_the_gradient_to_m_and_its_square_to_v():
    """Lesson 11's Adam: m adds a little of g, v a little of g² (not of g)."""
    w = tg.tensor([2., -3.], requires_grad=True)
    optimizer = tg.optim.Adam([w], lr=0.1, betas=(0.9, 0.999))
    (w * tg.tensor([1., 2.])).sum().backward()           # g = (1, 2)
    optimizer.step()
    state = optimizer.state[w]
    assert state["exp_avg"].tolist() == pytest.approx([0.1, 0.2])
    assert state["exp_avg_sq"].tolist() == pytest.approx([0.001, 0.004])
    assert "$m$ adds $g$, $v$ adds $g^2$" in markdown("11_training.ipynb", "2c4368a1")
    assert "$m$ 加上的是 $g$，$v$ 加上的是 $g^2$" in markdown("11_training.ipynb", "2c4368a1", "zh")


def test_the_noise_of_lesson_11s_points_is_a_little_below_its_variance():
    """Lesson 11 draws 100 points with noise of variance 0.3² = 0.09 and says these draws' mean
    square is a little less (which is why the least-squares loss, about 0.076, is below 0.09)."""
    import numpy as np
    rng = np.random.default_rng(11)
    rng.uniform(-1, 1, size=100)
    noise = rng.normal(scale=0.3, size=100)
    assert 0.076 < np.mean(noise ** 2) < 0.09
    assert "mean square of these 100 draws happens to\nbe a little less" in markdown(
        "11_training.ipynb", "c6847e1c")


def test_two_moons_draws_random_angles():
    """Lesson 11's two_moons is make_moons' shape with random angles (make_moons spaces them
    evenly), and the lesson says so rather than calling it make_moons written out."""
    source = cell("11_training.ipynb", "2efb18f3", "").source
    assert "angle_a = rng.uniform(0, np.pi" in source and "linspace" not in source
    text = markdown("11_training.ipynb", "a4bc26bc")
    assert "random angles instead of evenly spaced ones" in text and "written out" not in text


@pytest.mark.parametrize("edition", EDITIONS)
def test_lesson_13s_stored_backward_costs_about_one_forward(edition):
    """Lesson 13 says the backward pass it timed costs about as much as the forward (a stored
    timing from a loaded two-thread BLAS once said 10.3 x), and the forward-mode pass more."""
    import re
    lines = printed(cell("13_forward_mode.ipynb", "8045b613", edition)).splitlines()
    factors = [float(re.search(r"([\d.]+) (?:x the forward|倍)", line)[1]) for line in lines[1:]]
    assert len(factors) == 2 and factors[0] <= 2 and factors[0] < factors[1] <= 4, lines  # (JVP: X @ U more)
    text = markdown("13_forward_mode.ipynb", "4ca15d7e", edition)
    assert ("costs about as much as the forward" in text if not edition
            else "一次反向传播的代价和一次前向计算差不多" in text), text


def test_the_legacy_constructor_makes_the_default_float_type():
    """Lesson 1's box on tutorial 1's `torch.Tensor([0])`: the legacy constructor makes the default
    float type (PyTorch's too: `torch.set_default_dtype(torch.float64)` makes it float64), not
    "always float32"; `FloatTensor` is the one that stays float32."""
    assert tg.Tensor([0]).dtype == tg.float32
    tg.set_default_dtype(tg.float64)
    try:
        assert (tg.Tensor([0]).dtype, tg.Tensor(3).dtype) == (tg.float64, tg.float64)
        assert tg.FloatTensor([0]).dtype == tg.float32
    finally:
        tg.set_default_dtype(tg.float32)
    for edition, says in (("", "the default float type"), ("zh", "默认浮点类型")):
        box = cell("01_computation_graphs.ipynb", "cell-4e6e89d6", edition).source
        assert says in box and "always\n> makes float32" not in box and "总是创建 float32" not in box


def test_the_second_and_third_derivatives_of_x4_agree_at_0_and_2():
    """Lesson 6: f'' = 12x² and f''' = 24x of x⁴ agree where 12x(x - 2) = 0: at 0 and at 2."""
    xs = [x / 4 for x in range(-40, 41)]
    assert [x for x in xs if 12 * x ** 2 == 24 * x] == [0.0, 2.0]
    for edition, says in (("", "only at $x = 0$ and $x = 2$"), ("zh", "只在 $x = 0$ 和 $x = 2$ 两处成立")):
        answer = cell("06_autograd_grad_higher_derivatives.ipynb", "cell-01c2fe56", edition).source
        assert says in answer, answer


class _ForgetsGradOutput(tg.autograd.Function):
    """Softplus whose backward returns the local derivative without multiplying by grad_output."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return tg.log(1 + tg.exp(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return tg.sigmoid(x)


@pytest.mark.parametrize("shape, caught_by", [((3,), "Jacobian mismatch"),
                                              ((1,), "backward not multiplied by grad_output"),
                                              ((), "backward not multiplied by grad_output")])
def test_gradcheck_catches_a_forgotten_grad_output_by_columns_unless_one_element(shape, caught_by):
    """Lesson 9: one-hot columns reveal a backward that forgets `grad_output` as soon as the output
    has more than one element; with one element only the zero-`grad_output` check does."""
    x = tg.linspace(-1, 1, 3, dtype=tg.float64)[: (shape[0] if shape else 1)].reshape(shape)
    with pytest.raises(RuntimeError, match=caught_by):  # GradcheckError
        tg.autograd.gradcheck(_ForgetsGradOutput.apply, (x.requires_grad_(),))
    for edition, says in (("", "when the output has a single element"), ("zh", "输出只有一个元素时")):
        text = cell("09_custom_functions_and_gradcheck.ipynb", "l09-28", edition).source
        assert says in text and "which one-hot vectors would not reveal" not in text, text


@pytest.mark.parametrize("edition", EDITIONS)
def test_lesson_8_asks_about_y_grad_right_above_the_cell_that_reads_it(edition):
    """Lesson 8, section 3 asks what `y.grad` holds and the next cell reads it; the cells on where
    hooks live (the picture) close section 2 instead of standing between question and answer."""
    nb = nbformat.read(LESSONS / edition / "08_hooks_and_inplace.ipynb", as_version=4)
    ids = [c.get("id") for c in nb.cells]
    question = nb.cells[ids.index("l08-18") - 1]
    assert question.cell_type == "markdown" and question.source.startswith("## 3."), question.source
    assert ids.index("cell-03335bba") < ids.index("l08-18") - 1
    assert not any(c.source.lstrip().startswith("## 3.") for c in nb.cells[:ids.index("cell-0f1c80a8")])


# -- lessons 01-07 and the companions: cross references a native reader found wrong (issue 28) -----
import os  # noqa: E402
import re  # noqa: E402

SEED_MAP = LESSONS / "zh" / "教程对照.md"


def lesson_path(number: int) -> Path:
    return next(LESSONS.glob(f"{number:02d}_*.ipynb"))


def lesson_text(number: int, kind: str) -> str:
    nb = nbformat.read(lesson_path(number), as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == kind)


def rows_naming(word: str) -> list[str]:
    """The table rows of the seed map and of companion 1's word table (both editions) that name ``word``."""
    rows = [line for line in SEED_MAP.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    for edition in EDITIONS:
        rows += [line for line in markdown("seed_1_autograph_tutorial.ipynb", "s1-02a", edition).splitlines()
                 if line.startswith("|")]
    return [row for row in rows if word in row]


def lessons_cited(row: str) -> set[int]:
    return {int(zh or en) for zh, en in re.findall(r"(?:第 (\d+) 课|lesson (\d+))", row)}


def test_the_lesson_cited_for_retain_grad_is_the_one_that_calls_it():
    """The word tables send a reader to a lesson for `retain_grad()`: that lesson's code calls it
    (lesson 3 does; lesson 4 only mentions it in passing, and the seed map once cited lesson 4)."""
    rows = rows_naming("retain_grad()")
    assert len(rows) >= 3, rows  # the seed map's and companion 1's, in both editions
    wrong = [row for row in rows if not lessons_cited(row)
             or any(".retain_grad()" not in lesson_text(n, "code") for n in lessons_cited(row))]
    assert not wrong, wrong


def test_the_lesson_cited_for_what_is_tracked_says_it_is_the_operations():
    """The word tables say what is tracked is the operations, not the tensor, citing lesson 4:
    lesson 4 must say so (it once said autograd tracks "only what you ask it to track")."""
    rows = rows_naming("不是张量本身") + rows_naming("What is tracked")
    # companion 1's table in both editions (zh 教程对照 no longer says it: it is read before
    # lesson 4, whose first prediction the sentence answers)
    assert len(rows) >= 2, rows
    for row in rows:
        assert 4 in lessons_cited(row), row
    prose = lesson_text(4, "markdown")
    assert "What is tracked is operations, not tensors" in prose
    assert "It tracks\nonly what you ask it to track" not in prose


def test_no_table_says_tensors_are_not_nodes_where_lesson_1_draws_them_as_nodes():
    """Lesson 1's section 1 draws data and operations as nodes; the word tables once said "the
    tensors are not nodes (lesson 1)". They now say what the recorded graph holds: operation
    nodes, and an AccumulateGrad node for each leaf, which lesson 1 shows in its section 2."""
    assert "two kinds of **nodes**" in lesson_text(1, "markdown")
    rows = rows_naming("MulBackward0")
    assert len(rows) >= 3, rows
    for row in rows:
        assert "not nodes" not in row and "张量不是节点" not in row, row
        assert "AccumulateGrad" in row, row


def test_lesson_1_says_how_to_tell_the_cells_that_need_tensorgrad():
    """Lesson 1 once sent the reader to cells "marked *tensorgrad only*": the mark is a tag in the
    cells' metadata, which the reader does not see. It names what they call instead: `tg.viz`."""
    nb = nbformat.read(lesson_path(1), as_version=4)
    only = [c for c in nb.cells if "tensorgrad-only" in c.metadata.get("tags", [])]
    assert only and all("tg.viz" in c.source for c in only)
    for edition in EDITIONS:
        text = markdown("01_computation_graphs.ipynb", "cell-88139f4c", edition)
        assert "`tg.viz`" in text, text
        marked = [c.id for c in only if "tensorgrad only" not in c.source and "仅限 tensorgrad" not in c.source]
        assert not (marked and ("marked *tensorgrad only*" in text or "标着" in text)), text


def seed_section_of(text: str, line: str) -> str:
    """The number of the section of tutorial 1 (its headings "1. 计算图", "1.3 计算图示例") that holds ``line``."""
    section = None
    for row in text.splitlines():
        heading = re.match(r"(\d(?:\.\d)?)\.? \S", row)
        if heading:
            section = heading[1]
        if row.strip() == line:
            return section
    raise AssertionError(f"{line!r} is not in tutorial 1")


def test_companion_1_places_the_tutorials_c_add_in_the_section_that_has_it():
    """Companion 1's word table cites the tutorial's own `c = a.add(b)`, once as "§1.3": it is in
    section 1 (section 1.3 has `a = w.add(x)`, a non-leaf)."""
    folder = os.environ.get("TENSORGRAD_SEEDS")
    if not folder:
        pytest.skip("TENSORGRAD_SEEDS is not set: it names the folder with the seed tutorials' texts")
    seed = (Path(folder) / "000_bf56f9d3d76df832.txt").read_text(encoding="utf-8")
    section = seed_section_of(seed, "c = a.add(b)")
    assert section == "1"
    en, zh = (next(row for row in markdown("seed_1_autograph_tutorial.ipynb", "s1-02a", e).splitlines()
                   if "c = a.add(b)" in row) for e in EDITIONS)
    assert f"its section {section} " in en and "§" not in en, en
    assert f"第 {section} 节" in zh and "§" not in zh, zh


def test_lesson_6s_legend_does_not_name_backward_for_a_graph_that_grad_built():
    """Lesson 6 draws the graph that `tg.autograd.grad(..., create_graph=True)` recorded; the
    legend once said those nodes were "recorded by backward(create_graph=True)"."""
    x = tg.tensor(3., requires_grad=True)
    (g,) = tg.autograd.grad(x ** 3, x, create_graph=True)
    assert "backward(" not in tg.viz.draw(g * x, names={"x": x, "g": g}).source
    for edition in EDITIONS:
        nb = nbformat.read(LESSONS / edition / "06_autograd_grad_higher_derivatives.ipynb", as_version=4)
        drawn = "".join(str(out.get("data", {})) for c in nb.cells for out in c.get("outputs", []))
        assert "create_graph=True" in drawn and "backward(create_graph=True)" not in drawn


@pytest.mark.parametrize("edition", EDITIONS)
def test_float32_rounds_3_plus_1e7_back_to_3_as_lesson_2s_answer_says(edition):
    """Lesson 2's answer: in float32, 3 + 1e-7 is 3 again, so the secant slope at h = 1e-7 is 0. The
    check is in the answer (a cell in the prediction would hint at it), so it is computed here."""
    three = tg.tensor(3.0)
    assert str(three + 1e-7 == three) == "tensor(True)"
    assert ((three + 1e-7) ** 2 - three ** 2).item() == 0.0
    answer = cell("02_derivatives.ipynb", "cell-43c88f82", edition).source
    assert "`tg.tensor(3.0) + 1e-7 == tg.tensor(3.0)`" in answer and "`tensor(True)`" in answer, answer


@pytest.mark.parametrize("edition", EDITIONS)
def test_lesson_8s_third_snippet_changes_a_products_output_and_runs(edition):
    """Lesson 8's (c): a product saves its factors, not its output, so changing the output in place
    is harmless; the answer's gradient 6x is what backward gives."""
    x = tg.tensor([0., 1., 2.], requires_grad=True)
    y = x * x
    y.mul_(3)
    y.sum().backward()
    assert x.grad.tolist() == [0., 6., 12.]
    assert "$6x = (0, 6, 12)$" in cell("08_hooks_and_inplace.ipynb", "l08-36", edition).source


# -- cross references: "(lesson N)" beside a topic names a lesson that teaches it (issue 28) ------
#: Topics a lesson refers to "(lesson N)": the words that name them, and, for the lesson referred
#: to, the words that must be in its prose (the drawing's "forward view" of lesson 1 is no tensor view).
CROSS_REFERENCED_TOPICS = {
    "view": (r"\bviews?\b", r"(?<!forward )(?<!backward )\bviews?\b(?! of the graph)"),
    "anomaly mode": (r"\banomaly\b", r"\banomaly\b"),
    "detach": (r"`detach\(\)`", r"`(?:\w+\.)?detach\(\)`"),
}
_REFERENCE = re.compile(r"\(([^()]*?)\blessons? (\d+)\)")


def lesson_prose(number: int) -> str:
    """The Markdown of English lesson ``number`` (its prose, no outputs)."""
    (path,) = LESSONS.glob(f"{number:02d}_*.ipynb")
    nb = nbformat.read(path, as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def cross_references() -> list[tuple[str, str, int, str]]:
    """(notebook, topic, lesson, the words around it) for each "(…, lesson N)" or "topic (lesson N)"
    in an English lesson's prose that names one of :data:`CROSS_REFERENCED_TOPICS`."""
    found = []
    for path in sorted(LESSONS.glob("[0-9][0-9]_*.ipynb")):
        for c in nbformat.read(path, as_version=4).cells:
            if c.cell_type != "markdown":
                continue
            for match in _REFERENCE.finditer(c.source):
                before = c.source[max(0, match.start() - 30):match.start()]
                for topic, (named, _) in CROSS_REFERENCED_TOPICS.items():
                    if re.search(named, match[1]) or (not match[1].strip() and re.search(named + r"\s*$", before)):
                        found.append((path.name, topic, int(match[2]), before + match[0]))
    return found


def test_cross_references_name_a_lesson_that_teaches_the_topic():
    """Lesson 10 once sent readers to lesson 8 for views and to lesson 7 for anomaly mode; neither
    lesson says a word about them. A topic named beside "(lesson N)" must be in lesson N's prose."""
    wrong = [(notebook, topic, number, words) for notebook, topic, number, words in cross_references()
             if not re.search(CROSS_REFERENCED_TOPICS[topic][1], lesson_prose(number))]
    assert not wrong, wrong


@pytest.mark.parametrize("edition", EDITIONS)
def test_lesson_10_sends_readers_to_the_error_messages_that_suggest_anomaly_mode(edition):
    """Lesson 10 says the last line of lesson 8's error messages suggests anomaly mode: it does, in
    the stored outputs of both editions, and the function lesson 10 names exists."""
    assert callable(tg.autograd.set_detect_anomaly)
    nb = nbformat.read(LESSONS / edition / "08_hooks_and_inplace.ipynb", as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert any("Hint: enable anomaly detection" in o["evalue"].splitlines()[-1] for o in errors)
    text = markdown("10_inside_the_engine.ipynb", "l10-10", edition)
    assert "`tg.autograd.set_detect_anomaly`" in text
    assert ("lesson 8's error messages" in text) if not edition else ("第 8 课报错信息的最后一行" in text)
    assert "anomaly\n   mode, lesson 7" not in text and "第 7 课的异常检测" not in text


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_non_leafs_grad_warns_once_per_place_that_reads_it_as_lesson_8_says(edition):
    """Lesson 8 once said the non-leaf `.grad` warning comes "on every read". Under Python's default
    filter, three reads from one line warn once (in PyTorch too); the lesson says once per place."""
    import warnings

    x = tg.tensor([1., 2.], requires_grad=True)
    y = x * 2
    (y * y).sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(3):
            _ = y.grad
        _ = y.grad
    assert len(caught) == 2, [str(w.message) for w in caught]
    text = markdown("08_hooks_and_inplace.ipynb", "l08-19", edition)
    assert "on every read" not in text and "每读一次" not in text
    assert ("once for each place in your code" in text) if not edition else ("每个读它的地方警告一次" in text)


@pytest.mark.parametrize("edition", EDITIONS)
def test_lesson_6s_gradient_node_is_the_sum_over_ys_two_factors_not_the_forward_step(edition):
    """Lesson 6's answer says the gradient's `AddBackward0` comes from adding the two contributions of
    `y * y`, not from the forward step: its prediction's code takes `y = x - 2`, whose naive reading
    says `SubBackward0`, and the node is `AddBackward0` with `+ 2` or `- 2` alike."""
    x = tg.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    for y in (x + 2, x - 2):
        (dzdx,) = tg.autograd.grad(inputs=x, outputs=y * y * 3, grad_outputs=tg.ones_like(x),
                                   create_graph=True)
        assert type(dzdx.grad_fn).__name__ == "AddBackward0"
    answer = cell("06_autograd_grad_higher_derivatives.ipynb", "cell-d497545b", edition).source
    assert "`y = x - 2`" in answer and "`SubBackward0`" in answer and "AddBackward0" in answer
    assert "y=x-2" in cell("06_autograd_grad_higher_derivatives.ipynb", "cell-8abaa722", edition).source
