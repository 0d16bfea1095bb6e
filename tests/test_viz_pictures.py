"""Pictures the lessons rely on (issue 14): hooks marked on the graph, widths that fit."""

import re
import shutil

import pytest

import tensorgrad as tg
from tensorgrad.viz.draw import MAX_WIDTH_INCHES


def test_hooks_are_marked_where_they_wait():
    x = tg.tensor([1., 2.], requires_grad=True)
    y = x * 2
    _ = y.register_hook(lambda grad: grad + 100)
    _ = y.register_hook(lambda grad: None)
    _ = x.register_hook(lambda grad: grad)
    loss = (y * y).sum()
    source = tg.viz.draw(loss, names={"x": x, "y": y}, grads=False).source
    # y's two hooks sit on the node that made y, x's hook on x's AccumulateGrad
    assert re.search(r'label="MulBackward0\\ny = x \* const\\n2 hooks \(register_hook\)" '
                     r'fillcolor=lightgrey color=darkorange penwidth=2', source), source
    assert 'label="AccumulateGrad\\n1 hook (register_hook)"' in source
    assert source.count("darkorange") == 2


def test_the_chinese_hook_line_uses_chinese_parentheses():
    """In Chinese the note reads 2 个钩子（register_hook）: full-width parentheses, as everywhere
    in Chinese prose (review s12-B found "2 个钩子 (register_hook)" in lesson 8's picture)."""
    x = tg.tensor([1., 2.], requires_grad=True)
    y = x * 2
    _ = y.register_hook(lambda grad: grad)
    _ = y.register_hook(lambda grad: grad)
    tg.viz.use_language("zh")
    try:
        source = tg.viz.draw((y * y).sum(), names={"x": x, "y": y}, grads=False).source
    finally:
        tg.viz.use_language("en")
    assert "2 个钩子（register_hook）" in source and " (register_hook)" not in source, source


def test_a_removed_hook_is_not_drawn():
    x = tg.tensor([1., 2.], requires_grad=True)
    handle = x.register_hook(lambda grad: grad)
    handle.remove()
    source = tg.viz.draw((x * 2).sum(), grads=False).source
    assert "hook" not in source and "darkorange" not in source


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_a_wide_graph_keeps_its_text_size_and_scrolls_instead_of_shrinking():
    x = tg.tensor(1., requires_grad=True)
    y = x
    for _ in range(12):
        y = (y * 1.5).exp().log()
    data, metadata = tg.viz.draw(y, names={"x": x})._repr_mimebundle_()
    svg = data["image/svg+xml"]
    width = float(re.search(r'<svg width="([\d.]+)pt"', svg).group(1))
    assert width > MAX_WIDTH_INCHES * 72  # wider than the output area: shown at its own size
    # shrunk no further than its smallest (9 pt) text allows: 10 px on screen
    assert 'class="graph" transform="scale(0.85 0.85)' in svg
    assert 9 * 4 / 3 * tg.viz.display.MIN_SCALE >= 10
    assert metadata == {"image/svg+xml": {"unconfined": True}}  # JupyterLab scrolls, never shrinks
