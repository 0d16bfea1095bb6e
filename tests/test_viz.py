"""tensorgrad.viz: make_dot, draw, trace_backward and BackwardStepper (issue 4)."""

import io
import json
import logging
import os
import re
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad.viz import display, words

HAVE_DOT = display.shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAVE_DOT, reason="Graphviz's dot is not installed")
REPO = Path(__file__).resolve().parent.parent


def seed_graph():
    """y = (x + w) * (w + 1) at x = 2, w = 1 (the tutorial graph, drawn with torchviz's conventions)."""
    x = tg.tensor([2.], requires_grad=True)
    w = tg.tensor([1.], requires_grad=True)
    a = x + w
    b = w + 1
    y = a * b
    return x, w, a, b, y


def seed_names():
    x, w, a, b, y = seed_graph()
    return dict(x=x, w=w, a=a, b=b, y=y)


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    """Hide Graphviz's dot: PATH points at an empty folder."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert display.shutil.which("dot") is None


def fake_dot(monkeypatch, tmp_path, script):
    folder = tmp_path / "fakebin"
    folder.mkdir()
    dot = folder / "dot"
    dot.write_text("#!/bin/sh\n" + script + "\n")
    dot.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder))


# -- make_dot: torchviz's conventions ----------------------------------------------
SPEC_DOT = '''digraph {
\tgraph [size="12,12"]
\tnode [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled]
\tN0 [label="
 (1)" fillcolor=darkolivegreen1]
\tN1 [label=MulBackward0]
\tN2 -> N1
\tN2 [label=AddBackward0]
\tN3 -> N2
\tN4 [label="x
 (1)" fillcolor=lightblue]
\tN4 -> N3
\tN3 [label=AccumulateGrad]
\tN5 -> N2
\tN6 [label="w
 (1)" fillcolor=lightblue]
\tN6 -> N5
\tN5 [label=AccumulateGrad]
\tN7 -> N1
\tN7 [label=AddBackward0]
\tN5 -> N7
\tN1 -> N0
}
'''

SPEC_DOT_ATTRS_SAVED = '''digraph {
\tgraph [size="12,12"]
\tnode [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled]
\tN0 [label="
 (1)" fillcolor=darkolivegreen1]
\tN1 -> N2 [dir=none]
\tN2 [label="other
 (1)" fillcolor=orange]
\tN1 -> N3 [dir=none]
\tN3 [label="self
 (1)" fillcolor=orange]
\tN1 [label="MulBackward0
---------------------
other: [saved tensor]
self : [saved tensor]"]
\tN4 -> N1
\tN4 [label="AddBackward0
------------
alpha: 1"]
\tN5 -> N4
\tN6 [label="x
 (1)" fillcolor=lightblue]
\tN6 -> N5
\tN5 [label=AccumulateGrad]
\tN7 -> N4
\tN8 [label="w
 (1)" fillcolor=lightblue]
\tN8 -> N7
\tN7 [label=AccumulateGrad]
\tN9 -> N1
\tN9 [label="AddBackward0
------------
alpha: 1"]
\tN7 -> N9
\tN1 -> N0
}
'''


def test_make_dot_seed_graph_is_the_spec_text():
    x, w, _, _, y = seed_graph()
    dot = tg.viz.make_dot(y, params={"x": x, "w": w})
    assert dot.source == SPEC_DOT
    graphviz = pytest.importorskip("graphviz")
    assert isinstance(dot, graphviz.Digraph)  # what torchviz returns


def test_make_dot_with_attrs_and_saved_is_the_spec_text():
    x, w, _, _, y = seed_graph()
    dot = tg.viz.make_dot(y, params={"x": x, "w": w}, show_attrs=True, show_saved=True)
    assert dot.source == SPEC_DOT_ATTRS_SAVED


def test_make_dot_without_params_has_unnamed_leaves():
    *_, y = seed_graph()
    expected = SPEC_DOT.replace('"x\n (1)"', '"\n (1)"').replace('"w\n (1)"', '"\n (1)"')
    assert tg.viz.make_dot(y).source == expected


def test_make_dot_seed_graph_names_and_colours():
    x, w, _, _, y = seed_graph()
    source = tg.viz.make_dot(y, params={"x": x, "w": w}).source
    assert source.count("[label=MulBackward0]") == 1
    assert source.count("[label=AddBackward0]") == 2
    assert source.count("[label=AccumulateGrad]") == 2
    assert 'label="x\n (1)" fillcolor=lightblue' in source
    assert 'label="w\n (1)" fillcolor=lightblue' in source
    assert source.count("fillcolor=darkolivegreen1") == 1


def test_make_dot_view_base_and_several_outputs():
    x = tg.tensor([2.], requires_grad=True)
    view = (x * 2).view(1)
    source = tg.viz.make_dot((view, x + 1)).source
    assert "fillcolor=darkolivegreen3" in source
    assert "[style=dotted]" in source
    assert source.count("fillcolor=darkolivegreen1") == 2
    assert source.count("[label=AccumulateGrad]") == 1  # shared by both outputs


def test_make_dot_after_backward_shows_freed_values():
    *_, y = seed_graph()
    y.backward()
    source = tg.viz.make_dot(y, show_attrs=True, show_saved=True).source
    assert "other: [freed]" in source
    assert '"other\n (freed)" fillcolor=orange' in source


def test_make_dot_is_iterative_on_a_deep_graph():
    x = tg.tensor(1., requires_grad=True)
    y = x
    for _ in range(3000):  # deeper than the recursion limit allows for torchviz
        y = y * 1.0
    assert tg.viz.make_dot(y).source.count("MulBackward0") == 3000


def _renamed_by_appearance(source):
    """torchviz names nodes by id(); rename them N0, N1, ... in order of first appearance."""
    names = {}

    def rename(match):
        return names.setdefault(match.group(0), f"N{len(names)}")

    return re.sub(r"\b\d{6,}\b", rename, source)


def test_make_dot_matches_torchviz_when_installed():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torchviz = pytest.importorskip("torchviz")

    def both(build):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torchviz's distutils DeprecationWarning
            return build(torch, torchviz.make_dot), build(tg, tg.viz.make_dot)

    def seed(lib, make_dot):
        x = lib.tensor([2.], requires_grad=True)
        w = lib.tensor([1.], requires_grad=True)
        y = (x + w) * (w + 1)
        return [make_dot(y, params={"x": x, "w": w}).source,
                make_dot(y, params={"x": x, "w": w}, show_attrs=True, show_saved=True).source,
                make_dot(y).source]

    def views_and_tuples(lib, make_dot):
        x = lib.tensor([2.], requires_grad=True)
        m = lib.ones(2, 3, requires_grad=True)
        return [make_dot(((x * 2).view(1), x + 1)).source,
                make_dot((m * 2).view(6), params={"m": m}).source]

    def custom_function(lib, make_dot):
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, i):
                result = i.exp()
                ctx.save_for_backward(result, i)
                return result

            @staticmethod
            def backward(ctx, grad):
                result, _ = ctx.saved_tensors
                return grad * result

        x = lib.tensor([1., 2.], requires_grad=True)
        return [make_dot(Exp.apply(x + 1).sum()).source]

    for build in (seed, views_and_tuples, custom_function):
        torch_sources, our_sources = both(build)
        for theirs, ours in zip(torch_sources, our_sources):
            assert _renamed_by_appearance(theirs) == ours


def test_make_dot_displays_without_an_address():
    *_, y = seed_graph()
    bundle = data_of(tg.viz.make_dot(y))
    assert bundle["text/plain"].startswith("Digraph(make_dot: 8 nodes, 8 edges)")
    assert "0x" not in bundle["text/plain"]


# -- draw --------------------------------------------------------------------------------------
def test_draw_backward_view_of_the_seed_graph():
    names = seed_names()
    graph = tg.viz.draw(names["y"], names=names)
    assert repr(graph) == "Graph(backward: 8 nodes, 8 edges, root=MulBackward0)"
    source = graph.source
    assert 'op0 [label="MulBackward0\\ny = a * b" fillcolor=lightgrey]' in source
    assert 'label="AddBackward0\\na = x + w"' in source
    assert 'label="AddBackward0\\nb = w + const"' in source
    assert source.count("[label=AccumulateGrad") == 2
    assert 'label="x\\n(1)\\n[2.]" fillcolor=lightblue' in source
    assert 'label="w\\n(1)\\n[1.]" fillcolor=lightblue' in source
    assert 'label="y\\n(1)\\n[6.]" fillcolor=darkolivegreen1' in source
    assert "rankdir=RL" in source
    assert "legend" not in source  # no create_graph nodes, no legend
    assert "label=\" [" not in source  # no gradients before backward


def test_draw_shows_the_gradient_on_every_edge_after_backward():
    names = seed_names()
    y = names["y"]
    y.backward(retain_graph=True)
    source = tg.viz.draw(y, names=names).source
    assert 't0 -> op0 [style=dashed label=" [1.]"]' in source
    assert 'op0 -> op1 [label=" [2.]"]' in source  # to a = x + w: grad a = b = 2
    assert 'op0 -> op2 [label=" [3.]"]' in source  # to b = w + 1: grad b = a = 3
    assert 'op4 -> t4 [label=" [5.]"]' in source  # AccumulateGrad(w) adds 3 + 2
    assert 'label="w\\n(1)\\n[1.]\\ngrad [5.]"' in source
    assert names["w"].grad.tolist() == [5.0]  # drawing did not add anything


def test_draw_after_backward_freed_the_graph_says_how_to_see_edge_gradients():
    names = seed_names()
    names["y"].backward()
    graph = tg.viz.draw(names["y"], names=names)
    assert "backward(retain_graph=True)" in graph.source
    assert 'label="x\\n(1)\\n[2.]\\ngrad [2.]"' in graph.source  # .grad is still shown


def test_draw_forward_view_of_the_seed_graph():
    names = seed_names()
    names["y"].backward(retain_graph=True)
    graph = tg.viz.draw(names["y"], names=names, view="forward")
    source = graph.source
    assert repr(graph) == "Graph(forward: 9 nodes, 9 edges, root=MulBackward0)"
    assert "rankdir=LR" in source
    assert 't1 [label="a\\n(1)\\n[3.]\\ngrad [2.]" fillcolor=white' in source
    assert 't2 [label="b\\n(1)\\n[2.]\\ngrad [3.]" fillcolor=white' in source
    assert 'c0 [label=const fillcolor=white style="filled,dashed"]' in source
    assert 'op0 [label="*" shape=ellipse fillcolor=lightgrey]' in source
    assert "t1 -> op0" in source and "t2 -> op0" in source and "op0 -> t0" in source


def test_draw_options():
    names = seed_names()
    plain = tg.viz.draw(names["y"], values=False, grads=False).source
    assert "[2.]" not in plain
    saved = tg.viz.draw(names["y"], names=names, saved=True).source
    assert 'op0_saved0 [label="saved other\\n(1)\\n[2.]" fillcolor=orange]' in saved
    assert "op0 -> op0_saved0 [dir=none style=dashed]" in saved
    forward_saved = tg.viz.draw(names["y"], view="forward", saved=True).source
    assert 'label="*\\nsaves other, self"' in forward_saved


def test_names_come_from_a_name_attribute():
    x = tg.tensor([1., 2.], requires_grad=True)
    x.name = "weights"
    source = tg.viz.draw((x * x).sum()).source
    assert 'label="weights\\n(2)\\n[1., 2.]"' in source


def test_values_use_the_library_printing_rules():
    x = tg.tensor([0.5, 1.25], dtype=tg.float64, requires_grad=True)
    big = tg.ones(20, 20, requires_grad=True)
    source = tg.viz.draw((x * 2).sum() + big.sum()).source
    assert "[0.5000, 1.2500]" in source  # as repr(tensor) prints them, without dtype=
    assert "shape (20, 20)" in source  # too many values: the shape only


def test_intermediate_values_come_from_saved_tensors():
    x = tg.tensor([1., 2.], requires_grad=True)
    source = tg.viz.draw(x.exp().sum(), view="forward").source
    assert "[2.7183, 7.3891]" in source  # exp saved its result


def test_graph_render_and_save(tmp_path):
    *_, y = seed_graph()
    graph = tg.viz.draw(y)
    saved = graph.save(tmp_path / "seed.gv")
    assert saved.read_text() == graph.source
    if not HAVE_DOT:
        pytest.skip("Graphviz's dot is not installed")
    svg = graph.render(tmp_path / "seed.svg")
    assert svg.read_text().lstrip().startswith("<?xml")
    png = graph.render(tmp_path / "seed", format="png")
    assert png.name == "seed.png" and png.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="svg, png, pdf"):
        graph.render(tmp_path / "seed", format="gif")


@needs_dot
def test_graph_bundle_with_dot():
    *_, y = seed_graph()
    graph = tg.viz.draw(y)
    bundle = data_of(graph)
    assert set(bundle) == {"image/svg+xml", "text/plain", "text/vnd.graphviz"}
    assert bundle["text/plain"] == repr(graph)
    assert bundle["text/vnd.graphviz"] == graph.source
    assert "<svg" in bundle["image/svg+xml"]


# -- determinism ------------------------------------------------------------------------------
DETERMINISM_SCRIPT = textwrap.dedent("""
    import json, warnings
    import tensorgrad as tg
    warnings.simplefilter("ignore")
    tg.manual_seed(0)
    x = tg.tensor([2.], requires_grad=True); w = tg.tensor([1.], requires_grad=True)
    a = x + w; b = w + 1; y = a * b
    m = tg.randn(3, 4, requires_grad=True); v = tg.randn(4, requires_grad=True)
    z = ((m @ v).tanh() * 3).sum() + y.sum()
    names = {"x": x, "w": w, "a": a, "b": b, "y": y, "m": m, "v": v, "z": z}
    out = {
        "make_dot": tg.viz.make_dot(z, params=names, show_attrs=True, show_saved=True).source,
        "draw_before": tg.viz.draw(z, names=names, saved=True).source,
    }
    z.backward(retain_graph=True)
    out["draw_backward"] = tg.viz.draw(z, names=names).source
    out["draw_forward"] = tg.viz.draw(z, names=names, view="forward").source
    out["trace"] = repr(tg.viz.trace_backward(z, names=names))
    out["explain"] = tg.viz.trace_backward(z, names=names).explain()
    stepper = tg.viz.BackwardStepper(z, names=names)
    stepper.step = 3
    out["stepper"] = stepper.graph().source + stepper.static_text()
    print(json.dumps(out))
""")


def _run_in_fresh_process(seed):
    env = dict(os.environ, PYTHONHASHSEED=str(seed), PYTHONPATH=str(REPO))
    finished = subprocess.run([sys.executable, "-c", DETERMINISM_SCRIPT], env=env, cwd=REPO,
                              capture_output=True, text=True, timeout=120, check=True)
    return json.loads(finished.stdout)


def test_dot_text_is_byte_identical_across_processes():
    first = _run_in_fresh_process(0)
    second = _run_in_fresh_process(12345)
    assert first == second
    for text in first.values():
        assert "0x" not in text
    assert "MvBackward0" in first["draw_backward"] and "∂" in first["explain"]


# -- without Graphviz's dot -------------------------------------------------------------------
def test_draw_survives_a_graph_that_cannot_be_traced():
    x = tg.tensor([1., 2.], requires_grad=True)
    y = x * 1
    z = (y * y).sum()
    with tg.no_grad():
        y.mul_(2)  # changes a saved tensor in place: backward would fail
    x.grad = tg.zeros(2)  # as if backward had run, so draw wants edge gradients
    source = tg.viz.draw(z).source
    assert "could not be computed" in source and "modified by an inplace operation" in source


def test_display_without_dot_shows_the_dot_text_and_one_warning(no_dot):
    *_, y = seed_graph()
    graph = tg.viz.draw(y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bundle = data_of(graph)
    assert len(caught) == 1 and issubclass(caught[0].category, tg.viz.GraphvizWarning)
    assert "image/svg+xml" not in bundle
    assert bundle["text/vnd.graphviz"] == graph.source
    summary, hint, source = bundle["text/plain"].split("\n", 2)
    assert summary == repr(graph)
    assert "apt-get install graphviz" in hint and "\n" not in hint
    assert source == graph.source


def test_render_without_dot_raises_a_helpful_error(no_dot, tmp_path):
    *_, y = seed_graph()
    with pytest.raises(tg.viz.GraphvizNotFoundError, match="apt-get install graphviz"):
        tg.viz.draw(y).render(tmp_path / "seed.svg")
    assert tg.viz.draw(y).save(tmp_path / "seed.gv").exists()  # saving DOT needs no Graphviz


@pytest.mark.filterwarnings("ignore::tensorgrad.viz.GraphvizWarning")
def test_ipython_display_without_dot_does_not_fail(no_dot):
    formatters = pytest.importorskip("IPython.core.formatters")
    x, w, _, _, y = seed_graph()
    formatter = formatters.DisplayFormatter()
    for shown in (tg.viz.draw(y), tg.viz.make_dot(y, params={"x": x, "w": w}),
                  tg.viz.BackwardStepper(y)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data, _ = formatter.format(shown)
        assert "text/plain" in data
        assert "Traceback" not in data["text/plain"]


def test_a_failing_or_slow_dot_falls_back_too(monkeypatch, tmp_path):
    *_, y = seed_graph()
    fake_dot(monkeypatch, tmp_path, "echo 'Error: syntax error' >&2; exit 1")
    with pytest.warns(tg.viz.GraphvizWarning, match="syntax error"):
        bundle = data_of(tg.viz.draw(y))
    assert "could not draw" in bundle["text/plain"]
    (tmp_path / "fakebin" / "dot").write_text("#!/bin/sh\nexec /bin/sleep 5\n")
    monkeypatch.setattr(display, "DOT_TIMEOUT", 0.2)
    start = time.monotonic()
    with pytest.warns(tg.viz.GraphvizWarning, match="took more than"):
        tg.viz.draw(y)._repr_mimebundle_()
    assert time.monotonic() - start < 4


def test_stepper_without_dot_shows_dot_text_and_warns_once(no_dot):
    *_, y = seed_graph()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stepper = tg.viz.BackwardStepper(y)
        for _ in range(len(stepper)):
            stepper.next()
    assert len(caught) == 1
    assert "apt-get install graphviz" in stepper.html()
    assert "<pre>digraph {" in stepper.html()


NOTEBOOK_CELLS = [
    "import os; os.environ['PATH'] = ''  # no Graphviz in this kernel",
    "import tensorgrad as tg\n"
    "x = tg.tensor([2.], requires_grad=True); w = tg.tensor([1.], requires_grad=True)\n"
    "y = (x + w) * (w + 1)",
    "tg.viz.draw(y)",
    "tg.viz.make_dot(y, params={'x': x, 'w': w})",
    "tg.viz.trace_backward(y)",
    "tg.viz.BackwardStepper(y)",
]


def test_a_notebook_without_dot_runs_without_errors():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(cell) for cell in NOTEBOOK_CELLS]
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(REPO)}}).execute()
    outputs = [output for cell in notebook.cells for output in cell.outputs]
    assert not [output for output in outputs if output.output_type == "error"]
    results = [output for output in outputs if output.output_type == "execute_result"]
    assert len(results) == 4
    assert results[0].data["text/plain"].startswith("Graph(backward: 8 nodes")
    assert "digraph {" in results[0].data["text/plain"]
    assert "Trace(5 steps" in results[2].data["text/plain"]


# -- trace_backward ---------------------------------------------------------------------------
SEED_TRACE = """Trace(5 steps, root=y)
#  node            tensor  grad in  sends
1  MulBackward0    y       1        a ← 2, b ← 3
2  AddBackward0    b       3        w ← 3
3  AddBackward0    a       2        x ← 2, w ← 2
4  AccumulateGrad  x       2        x.grad = 2
5  AccumulateGrad  w       5        w.grad = 5"""


def test_trace_of_the_seed_graph():
    names = seed_names()
    trace = tg.viz.trace_backward(names["y"], names=names)
    assert repr(trace) == SEED_TRACE
    assert trace[0].lines == (
        "MulBackward0: y = a * b",
        "grad y = 1",
        "∂y/∂a = b = 2 → grad a = 1 × 2 = 2",
        "∂y/∂b = a = 3 → grad b = 1 × 3 = 3",
    )
    assert trace[1].lines[-1] == "∂b/∂w = 1 → grad w = 3 × 1 = 3"
    assert trace[4].lines == ("AccumulateGrad: stores grad w in w.grad", "grad w = 3 + 2 = 5")
    assert [c.tolist() for c in trace[4].contributions[0]] == [[3.0], [2.0]]
    assert [t.tolist() for t in trace[0].local] == [[2.0], [3.0]]
    assert "step 3: AddBackward0: a = x + w" in trace.explain()  # counted from 1, as the stepper


def test_trace_leaves_grads_hooks_and_graph_alone():
    names = seed_names()
    x, w, a, y = names["x"], names["w"], names["a"], names["y"]
    a.retain_grad()
    calls = []
    w.register_hook(lambda grad: calls.append("w"))
    a.register_hook(lambda grad: calls.append("a"))
    tg.viz.trace_backward(y)
    assert x.grad is None and w.grad is None and a.grad is None and calls == []
    y.backward()  # the graph is still usable, and hooks and retain_grad still work
    assert w.grad.tolist() == [5.0] and a.grad.tolist() == [2.0]
    assert sorted(calls) == ["a", "w"]


def test_trace_can_accumulate_like_backward():
    names = seed_names()
    trace = tg.viz.trace_backward(names["y"], accumulate=True)
    assert names["w"].grad.tolist() == [5.0] and names["x"].grad.tolist() == [2.0]
    assert len(trace) == 5


def test_trace_with_a_gradient_and_broadcasting():
    x = tg.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    b = tg.tensor([10.], requires_grad=True)
    y = x * b
    trace = tg.viz.trace_backward(y, tg.ones(2, 3), names={"x": x, "b": b, "y": y})
    assert trace[0].lines[-1].startswith("∂y/∂b = x = [[1., 2., 3.],")
    assert trace[0].lines[-1].endswith(", summed to shape (1) = 21")
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        tg.viz.trace_backward(y)


def test_trace_after_the_graph_was_freed_raises():
    *_, y = seed_graph()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        tg.viz.trace_backward(y)


def _random_graph(rng):
    """A random scalar function of a few leaves, with broadcasting and shared inputs."""
    shapes = [(3,), (2, 3), (1, 3), (), (2, 1)]
    leaves = [tg.tensor(rng.uniform(0.5, 1.5, size=shapes[i % len(shapes)]),
                        requires_grad=True) for i in range(rng.integers(2, 5))]
    pool = list(leaves)
    made = []
    for _ in range(rng.integers(3, 12)):
        kind = rng.integers(0, 8)
        a = pool[rng.integers(len(pool))]
        b = pool[rng.integers(len(pool))]
        try:
            if kind == 0:
                out = a + b
            elif kind == 1:
                out = a * b
            elif kind == 2:
                out = a - 2.0 * b
            elif kind == 3:
                out = a / (b * b + 1.0)
            elif kind == 4:
                out = a.tanh()
            elif kind == 5:
                out = a.exp() * 0.5
            elif kind == 6:
                out = a ** 2
            else:
                out = a.sum() if a.ndim else a * 3.0
        except RuntimeError:  # shapes that do not broadcast
            continue
        pool.append(out)
        made.append(out)
    root = sum((t.sum() for t in made[-3:]), leaves[0].sum())
    return leaves, made, root


@pytest.mark.parametrize("seed", range(12))
def test_trace_order_is_the_engines_and_its_gradients_are_the_grads(seed):
    rng = np.random.default_rng(seed)
    leaves, made, root = _random_graph(rng)
    trace = tg.viz.trace_backward(root)

    # The engine's real order, seen from outside: hooks fire as each node runs.
    order = []
    tensors = leaves + made + [root]
    for tensor in tensors:
        node = tensor.grad_fn if tensor.grad_fn is not None else tg.autograd.AccumulateGrad(tensor)
        tensor.register_hook(lambda grad, node=node: order.append(node))
    root.backward()
    fired = list(dict.fromkeys(order))  # a node used by several tensors fires once per tensor
    traced = [node for node in trace.nodes if node in set(fired)]
    assert traced == fired
    assert len(trace.nodes) == len(set(trace.nodes))

    # Summed along the trace, what reaches each AccumulateGrad is the leaf's .grad.
    for leaf in leaves:
        reached = [step.grad_in for step in trace
                   if step.is_accumulate and step.node.variable is leaf]
        if leaf.grad is None:
            assert not reached
        else:
            assert len(reached) == 1
            np.testing.assert_allclose(reached[0].numpy(), leaf.grad.numpy(), rtol=1e-12)
    # And what each step sends is what reaches the next node.
    for step in trace:
        for pieces, total in zip(step.contributions, step.grads_in):
            if total is not None and len(pieces) > 1:
                np.testing.assert_allclose(sum(p.numpy() for p in pieces), total.numpy())


def data_of(graph):
    """A graph's display data (a picture comes with display metadata: (data, metadata))."""
    bundle = graph._repr_mimebundle_()
    return bundle[0] if isinstance(bundle, tuple) else bundle


def test_the_table_the_explanation_and_the_stepper_count_the_steps_alike():
    """A learner reads "step 3" in the stepper, the table and the explanation as the same step:
    all three count from 1 (the stepper always did; the table and explain() counted from 0)."""
    names = seed_names()
    trace = tg.viz.trace_backward(names["y"], names=names)
    stepper = tg.viz.BackwardStepper(names["y"], names=names)
    table = [line.split()[0] for line in repr(trace).splitlines()[2:]]
    explained = re.findall(r"^step (\d+):", trace.explain(), re.M)
    shown = [re.match(r"step (\d+) of 5", stepper.text(i))[1] for i in range(len(trace))]
    assert table == explained == shown == ["1", "2", "3", "4", "5"]
    assert "\n\nstep 5: AccumulateGrad" in stepper.static_text()


# -- BackwardStepper --------------------------------------------------------------------------
def _node_group(svg, node_id):
    for group in svg.split('<g id="node')[1:]:
        if f"<title>{node_id}</title>" in group:
            return group
    raise AssertionError(f"{node_id} not in the SVG")


def test_stepper_builds_and_steps_headlessly():
    pytest.importorskip("ipywidgets")
    names = seed_names()
    stepper = tg.viz.BackwardStepper(names["y"], names=names)
    assert len(stepper) == 5 and stepper.step == 0
    assert 'op0 [label="MulBackward0\\ny = a * b" fillcolor=gold color=red penwidth=3]' \
        in stepper.graph().source
    assert "∂y/∂a = b = 2 → grad a = 1 × 2 = 2" in stepper._html.value

    assert "step 1 of 5: MulBackward0" in stepper._html.value  # 5 steps, counted from 1
    assert (stepper._slider.min, stepper._slider.max) == (1, 5)
    stepper._slider.value = 3  # moving the slider to the third step, as a learner would
    assert stepper.step == 2
    html = stepper._html.value
    assert "step 3 of 5: AddBackward0: a = x + w" in html
    assert "∂a/∂x = 1 → grad x = 2 × 1 = 2" in html
    source = stepper.graph().source
    assert 'op1 [label="AddBackward0\\na = x + w" fillcolor=gold color=red penwidth=3]' in source
    assert 'op0 -> op2 [label=" [3.]"]' in source  # sent at step 0 and 1: shown
    assert 'op1 -> op3 [label=" [2.]"]' in source  # sent by the current step: shown
    assert 'op3 [label=AccumulateGrad fillcolor=white fontcolor=gray40]' in source  # waiting
    if HAVE_DOT:
        group = _node_group(html, "op1")
        assert 'fill="gold"' in group and 'stroke="red"' in group

    prev_button, next_button = stepper._buttons
    next_button.click()
    assert stepper.step == 3 and stepper._slider.value == 4
    prev_button.click()
    prev_button.click()
    assert stepper.step == 1
    stepper.step = 99  # clamped
    assert stepper.step == 4 and stepper._slider.value == 5
    assert "step 5 of 5: AccumulateGrad" in stepper._html.value
    assert "grad w = 3 + 2 = 5" in stepper._html.value

    # Saved with the notebook and reopened without a kernel, the view says to re-run the cell
    # (its style sheet shows the note only in ipywidgets' disconnected state).
    note, controls, _ = stepper.widget.children
    assert "tg-stepper" in stepper.widget._dom_classes
    assert "tg-stepper-controls" in controls._dom_classes
    assert "run this cell again" in note.value and ".jupyter-widgets-disconnected" in note.value

    bundle = stepper._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"].startswith("BackwardStepper(5 steps, root=y)\nTrace(5 steps")
    assert names["w"].grad is None  # stepping did not touch .grad


def test_stepper_without_ipywidgets_is_a_static_list(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import ipywidgets now fails
    names = seed_names()
    stepper = tg.viz.BackwardStepper(names["y"], names=names)
    assert stepper.widget is None
    bundle = stepper._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert SEED_TRACE in bundle["text/plain"]
    assert "∂y/∂a = b = 2 → grad a = 1 × 2 = 2" in bundle["text/html"]
    stepper.next()
    assert stepper.step == 1 and "step 2 of 5" in stepper.html()


# -- create_graph ------------------------------------------------------------------------------
def test_nodes_built_by_create_graph_are_marked():
    x = tg.tensor(3., requires_grad=True)
    y = x ** 3
    (g,) = tg.autograd.grad(y, x, create_graph=True)
    z = g * x
    assert not y.grad_fn._built_by_backward and g.grad_fn._built_by_backward
    assert not z.grad_fn._built_by_backward
    source = tg.viz.draw(z, names={"x": x, "g": g, "z": z}).source
    assert 'op0 [label="MulBackward0\\nz = g * x" fillcolor=lightgrey]' in source
    assert 'label="PowBackward0\\nt3 = x ** 2" fillcolor=plum style="filled,dashed"' in source
    assert 'label="MulBackward0\\ng = const * t3" fillcolor=plum style="filled,dashed"' in source
    assert "subgraph cluster_legend {" in source
    assert "recorded by a backward pass (create_graph=True)" in source  # grad() drew it: not backward()
    forward = tg.viz.draw(z, view="forward").source
    assert "fillcolor=plum" in forward and "cluster_legend" in forward


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_with_create_graph_marks_the_grad_graph():
    x = tg.tensor([1., 2.], requires_grad=True)
    (x ** 2).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None and x.grad.grad_fn._built_by_backward
    assert "fillcolor=plum" in tg.viz.draw(x.grad).source
    plain = tg.tensor(1., requires_grad=True)
    (plain * 2).backward()
    assert "plum" not in tg.viz.draw(plain * 2).source


# -- bad input ---------------------------------------------------------------------------------
def test_draw_of_a_tensor_without_a_graph_says_so():
    leaf = tg.tensor([1., 2.], requires_grad=True)
    graph = tg.viz.draw(leaf, names={"x": leaf})
    assert repr(graph) == "Graph(backward: 1 node, 0 edges, root=None)"
    assert "x is a leaf" in graph.source
    constant = tg.tensor([1., 2.]) * 2
    graph = tg.viz.draw(constant, view="forward")
    assert "has no grad_fn" in graph.source and "[2., 4.]" in graph.source


@pytest.mark.parametrize("call, message", [
    (lambda: tg.viz.draw([1.0]), "draw() expects a tensorgrad Tensor, got list"),
    (lambda: tg.viz.draw(np.ones(2)), "draw() expects a tensorgrad Tensor, got ndarray"),
    (lambda: tg.viz.make_dot(3), "make_dot() expects a tensorgrad Tensor"),
    (lambda: tg.viz.make_dot(tg.ones(1), params={"x": 1}), "params['x'] must be a Tensor"),
    (lambda: tg.viz.trace_backward("y"), "trace_backward() expects a tensorgrad Tensor"),
    (lambda: tg.viz.BackwardStepper(None), "trace_backward() expects a tensorgrad Tensor"),
    (lambda: tg.viz.draw(tg.ones(1), names={"x": [1]}), "names['x'] must be a Tensor"),
    (lambda: tg.viz.draw(tg.ones(1), names=["x"]), "names= must be a dict"),
])
def test_non_tensor_arguments_raise_type_errors(call, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        call()


def test_bad_options_raise_value_errors():
    with pytest.raises(ValueError, match="view must be 'backward' or 'forward'"):
        tg.viz.draw(tg.ones(1), view="sideways")
    with pytest.raises(ValueError, match="max_nodes must be a positive int"):
        tg.viz.draw(tg.ones(1), max_nodes=0)


def test_a_tensor_that_needs_no_grad_cannot_be_traced():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tg.viz.trace_backward(tg.ones(1))


def test_a_big_graph_is_collapsed_and_can_be_expanded():
    x = tg.tensor([1., 2.], requires_grad=True)
    y = x
    for _ in range(1000):
        y = y * 1.0 + 0.0
    y = y.sum()
    start = time.monotonic()
    graph = tg.viz.draw(y)
    assert time.monotonic() - start < 10
    assert graph.source.count("[label=\"MulBackward0") + graph.source.count(
        "[label=\"AddBackward0") <= 300
    assert "more operations" in graph.source and "max_nodes=None" in graph.source
    assert repr(graph).startswith("Graph(backward: 302 nodes")  # 300 ops, output, "more"
    full = tg.viz.draw(y, max_nodes=None, values=False)
    assert full.source.count('label="MulBackward0') == 1000
    assert "more operations" not in full.source
    forward = tg.viz.draw(y, view="forward")
    assert "more -> " in forward.source


@needs_dot
def test_a_collapsed_big_graph_renders_quickly():
    x = tg.tensor([1., 2.], requires_grad=True)
    y = x
    for _ in range(2000):
        y = y.tanh()
    start = time.monotonic()
    bundle = data_of(tg.viz.draw(y.sum()))
    assert "image/svg+xml" in bundle
    assert time.monotonic() - start < 20


# -- two languages (viz/words.py): the Chinese lessons call tg.viz.use_language("zh") ---------------
# in their backend cell (tools/translate.py DRAW_CHINESE).
@pytest.fixture
def chinese():
    """tg.viz speaks Chinese for one test."""
    tg.viz.use_language("zh")
    try:
        yield
    finally:
        tg.viz.use_language("en")


def test_a_leaf_step_stores_into_an_empty_grad_and_adds_to_a_full_one():
    """AccumulateGrad stores the first gradient of a leaf whose .grad is None and adds every later
    one (lesson 4): the trace says which, `x.grad = 2` or `x.grad += 2`, whether or not it writes."""
    names = seed_names()
    y = names["y"]
    first = tg.viz.trace_backward(y, names=names, accumulate=True)
    assert repr(first).splitlines()[-2:] == ["4  AccumulateGrad  x       2        x.grad = 2",
                                             "5  AccumulateGrad  w       5        w.grad = 5"]
    second = tg.viz.trace_backward(y, names=names)
    assert repr(second).splitlines()[-2:] == ["4  AccumulateGrad  x       2        x.grad += 2",
                                              "5  AccumulateGrad  w       5        w.grad += 5"]
    assert second[4].lines[0] == "AccumulateGrad: adds grad w into w.grad"
    assert names["w"].grad.tolist() == [5.0]  # the first trace wrote, the second did not


def test_english_is_the_default_and_unchanged():
    names = seed_names()
    y = names["y"]
    trace = tg.viz.trace_backward(y, names=names)
    assert tg.viz.language() == "en"
    assert repr(trace) == SEED_TRACE
    assert trace.explain().splitlines()[:2] == ["step 1: MulBackward0: y = a * b", "grad y = 1"]
    assert "step 4: AccumulateGrad: stores grad x in x.grad" in trace.explain()
    assert repr(tg.viz.draw(y, names=names)) == "Graph(backward: 8 nodes, 8 edges, root=MulBackward0)"


def test_chinese_trace_table_explanation_stepper_and_graph(chinese):
    names = seed_names()
    y = names["y"]
    trace = tg.viz.trace_backward(y, names=names)
    table = repr(trace).splitlines()
    assert table[0] == "Trace(共 5 步，根节点 y)"
    assert table[1].split() == ["#", "节点", "张量", "收到的梯度", "发出"]
    # the columns line up on screen: a Chinese character takes two columns
    columns = [words.width(line[:line.index(cell)]) for line, cell in zip(table[1:], ["发出", "a ←", "w ←"])]
    assert len(set(columns)) == 1, table
    text = trace.explain()
    assert text.startswith("第 1 步\u3000MulBackward0：y = a * b\ny 的梯度 = 1\n")
    assert "第 2 步\u3000AddBackward0：b = w + 常数" in text
    assert "第 4 步\u3000AccumulateGrad：把 x 的梯度存进 x.grad" in text
    # one kind of colon in a Chinese line: never an English ": " beside a "：" (it was
    # "第 1 步：MulBackward0: y = a * b"), and no step header that runs into a colon
    assert not [line for line in text.splitlines() if ": " in line], text
    assert "w 的梯度 = 3 + 2 = 5" in text
    stepper = tg.viz.BackwardStepper(y, names=names)
    assert repr(stepper) == "BackwardStepper(共 5 步，根节点 y)"
    assert stepper.text(4).startswith("第 5 步（共 5 步）\u3000AccumulateGrad：")
    assert not [line for step in range(5) for line in stepper.text(step).splitlines() if ": " in line]
    assert repr(tg.viz.draw(y, names=names)) == "Graph(反向：8 个节点，8 条边，根节点 MulBackward0)"


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError, match="no words for 'fr'"):
        tg.viz.use_language("fr")
    assert tg.viz.language() == "en"


def test_chinese_labels_draw_without_warnings_even_without_a_chinese_font(chinese, monkeypatch):
    """A machine without a CJK font draws boxes, but prints nothing more: nbval compares the
    text outputs of the Chinese lessons, and a "Glyph missing" warning would be one."""
    plt = pytest.importorskip("matplotlib.pyplot")
    monkeypatch.setattr(words, "CJK_FONTS", ("No Such Font For This Test",))
    font = {"font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"]}  # no Chinese in it
    with warnings.catch_warnings(record=True) as caught, plt.rc_context(font):
        warnings.simplefilter("always")
        tg.viz.use_language("zh")
        fig, ax = plt.subplots()
        ax.set_title("损失：k 个输入，1 个输出")
        fig.savefig(io.BytesIO(), format="png")
        plt.close(fig)
    assert not [w for w in caught if "Glyph" in str(w.message)], [str(w.message) for w in caught]
    # a label with $math$ in it logs through matplotlib.mathtext's logger instead: quieted too
    mathtext = logging.getLogger("matplotlib.mathtext")
    assert mathtext.level == logging.ERROR
    mathtext.setLevel(logging.NOTSET)


def test_a_plain_import_does_not_load_logging():
    """Only tg.viz's Chinese without a Chinese font needs `logging` (to quiet matplotlib, which has
    loaded it by then): `import tensorgrad` does not pay for it (1.6% of its import's instructions,
    a fifth of their growth between 0956426 and 788e259, bench/README.md)."""
    code = "import sys, tensorgrad; print(sorted({'logging', 'string'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
