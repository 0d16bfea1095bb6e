"""Pictures of computation graphs, and the backward pass step by step (`tg.viz`).

    import tensorgrad as tg
    x = tg.tensor(2., requires_grad=True); w = tg.tensor(1., requires_grad=True)
    y = (x + w) * (w + 1)
    tg.viz.draw(y, names={"x": x, "w": w, "y": y})   # the grad_fn graph, as a picture
    tg.viz.draw(y, view="forward")                     # the tensors and operations
    tg.viz.make_dot(y, params={"x": x, "w": w})       # torchviz's picture (a graphviz.Digraph)
    tg.viz.trace_backward(y)                           # the steps backward takes, as a table
    tg.viz.BackwardStepper(y)                          # a widget to step through them
    tg.viz.use_language("zh")                          # their words in Chinese (the zh lessons)

Where to look:
    draw.py          the teaching pictures (forward and backward views, create_graph styling)
    torchviz_dot.py  make_dot, compatible with torchviz
    trace.py         trace_backward: the engine's own run, observed node by node
    formulas.py      the words for each operation and its local derivative
    stepper.py       the BackwardStepper widget and its static fallback
    model.py         which tensors a graph holds, with stable ids (t0, op3) and names
    nodes.py         reading grad_fn nodes: the walk, attributes, saved values
    words.py         the words printed around the numbers, in English and Chinese
    display.py       Graph, running Graphviz's `dot`, and what happens without it
    dot.py, labels.py  writing DOT text and the numbers in it

Every picture's DOT text is deterministic: ids come from positions in a fixed walk, never from
`id()`, so notebooks can compare outputs in CI.
"""

from .display import Graph, GraphvizNotFoundError, GraphvizWarning
from .draw import draw
from .stepper import BackwardStepper
from .torchviz_dot import make_dot
from .trace import Step, Trace, trace_backward
from .words import language, use_language

__all__ = ["draw", "make_dot", "trace_backward", "BackwardStepper", "Graph", "Trace", "Step",
           "GraphvizNotFoundError", "GraphvizWarning", "use_language", "language"]
