"""`draw`: the teaching pictures of a graph, forward or backward.

The **forward view** (left to right) shows what the program computed: tensors as boxes (name,
shape, values of small tensors, and gradients once backward has run) and operations as ovals
between them. Leaves are lightblue, the output green, constants dashed.

The **backward view** (right to left, so tensors keep their places) shows the grad_fn graph the
engine walks: one grey box per node, `AccumulateGrad` boxes writing into the leaves, and on
each edge the gradient that travels along it.

Both views mark the nodes that a `backward(create_graph=True)` recorded (the part that computes
gradients, whose own derivative gives second derivatives) in plum with a dashed border, and
then add a legend. A graph with more than `max_nodes` operations is cut after the first
`max_nodes` (nearest the output) with one "more" box, so a huge graph cannot hang a notebook.

Ids (`t0`, `op3`, `c1`) come from positions in a fixed walk (see model.py), and every label is
built from the data only, so the DOT text is the same on every run and every machine.
"""

from ..core.node import Node
from ..core.tensor import Tensor
from . import formulas, labels, nodes, words
from .display import Graph
from .dot import DotWriter
from .model import GraphModel
from .trace import trace_backward

MAX_NODES = 300

COLORS = {
    "output": "darkolivegreen1",
    "leaf": "lightblue",
    "intermediate": "white",
    "constant": "white",
    "saved": "orange",
    "op": "lightgrey",
    "gradient_op": "plum",
    "current": "gold",
    "pending": "white",
    "more": "lightyellow",
}

# The widest picture draw() makes, in inches (72 pt each): JupyterLab's output area in a window
# 1280 pixels wide.
MAX_WIDTH_INCHES = 8.5

_INFIX = {"Add": "+", "Sub": "-", "Rsub": "-", "Mul": "*", "Div": "/", "Pow": "**",
          "Mm": "@", "Mv": "@", "Dot": "@", "Neg": "neg"}


def draw(root, *, view="backward", values=True, grads=True, saved=False, names=None,
         gradient=None, max_nodes=MAX_NODES):
    """Draw the graph that produced `root` and return a `Graph` (shown as a picture in Jupyter).

    view: "backward" (the grad_fn graph, gradients on its edges) or "forward" (tensors and the
        operations between them).
    values: show the values of small tensors (up to 16 elements).
    grads: show gradients: `.grad` of leaves and retained tensors, and, once backward has run
        (or when `gradient=` is given), the gradient along every edge, computed by
        `trace_backward` while the graph still exists.
    saved: show what each node saved for backward.
    names: {name: tensor} naming tensors in the picture; a tensor's `name` attribute works too.
    gradient: the gradient of `root` to use for edge gradients (as in `root.backward(gradient)`).
    max_nodes: draw at most this many operations (None: all of them).
    """
    if not isinstance(root, Tensor):
        raise TypeError(
            f"draw() expects a tensorgrad Tensor, got {type(root).__name__}; to draw several "
            "outputs, draw each one, or use tg.viz.make_dot((a, b))"
        )
    if view not in ("backward", "forward"):
        raise ValueError(f"draw(): view must be 'backward' or 'forward', not {view!r}")
    if max_nodes is not None and (not isinstance(max_nodes, int) or max_nodes < 1):
        raise ValueError(f"draw(): max_nodes must be a positive int or None, not {max_nodes!r}")
    model = GraphModel(root, names, max_nodes)
    notes = []
    flow = None
    if grads:
        flow, note = _flow_for_picture(model, gradient, names)
        if note:
            notes.append(note)
    return picture(model, view=view, values=values, grads=grads, saved=saved, flow=flow,
                   notes=notes)


def _flow_for_picture(model, gradient, names):
    """The gradients along the edges, when backward has run (or `gradient` is given)."""
    root = model.root
    if root.grad_fn is None:
        return None, None
    backward_ran = any(info.grad is not None for info in model.tensors)
    if gradient is None and not backward_ran:
        return None, None
    if gradient is None and root._data.size != 1:
        return None, ("Pass gradient= to draw() to see the gradients on the edges "
                      "(the output has more than one element).")
    try:
        trace = trace_backward(root, gradient, names=names)
    except RuntimeError as error:  # a picture is still worth showing without edge gradients
        if any(nodes.is_freed(node) for node in model.nodes):
            return None, ("Gradients on the edges need the graph, which backward() freed: "
                          "call backward(retain_graph=True), or tg.viz.trace_backward() before.")
        return None, f"Gradients on the edges could not be computed: {str(error).splitlines()[0]}"
    return Flow(trace), None


class Flow:
    """The gradients of (part of) a trace, indexed for drawing."""

    def __init__(self, steps, current=None):
        self.sent = {}  # (node, input index) -> gradient sent to that input
        self.arrived = {}  # node -> the gradient its (first) output received
        self.done = set()
        for step in steps:
            self.done.add(step.node)
            if step.grad_in is not None:
                self.arrived[step.node] = step.grad_in
            for index, grad in enumerate(step.grads_out):
                if grad is not None:
                    self.sent[(step.node, index)] = grad
        self.current = current  # the node to highlight (the stepper's current step)


def picture(model, *, view="backward", values=True, grads=True, saved=False, flow=None,
            notes=()):
    """The Graph for a GraphModel (draw() and the stepper both come here)."""
    builder = _ForwardPicture if view == "forward" else _BackwardPicture
    return builder(model, values, grads, saved, flow, list(notes)).build()


class _Picture:
    """What both views share: labels, styles, the legend and the caption."""

    rankdir = "LR"

    def __init__(self, model, values, grads, saved, flow, notes):
        self.model = model
        self.values = values
        self.grads = grads
        self.saved = saved
        self.flow = flow
        self.notes = notes
        self.node_count = 0
        self.edge_count = 0
        self.has_gradient_ops = any(nodes.built_by_backward(n) for n in model.nodes)
        # While stepping, a tensor shows the gradient the trace has reached so far, not .grad.
        self.stepping = flow is not None and flow.current is not None
        self.dot = None

    def build(self):
        root = self.model.root
        if root.grad_fn is None:
            self.notes.insert(0, _no_graph_note(root, self.model.output.label))
        if self.model.hidden:
            self.notes.append(words.word("showing", shown=len(self.model.nodes),
                                         total=len(self.model.nodes) + self.model.hidden))
        # size: Graphviz scales a wider picture down to MAX_WIDTH_INCHES (never up), so that it
        # fits a notebook's output area; the height is left free.
        graph_attrs = dict(rankdir=self.rankdir, fontname="monospace", fontsize="10",
                           size=f"{MAX_WIDTH_INCHES:g},100")
        if self.notes:
            graph_attrs.update(labelloc="b", label="\n".join(self.notes))
        self.dot = DotWriter(
            graph=graph_attrs,
            node=dict(shape="box", style="filled", fillcolor="white", fontname="monospace",
                      fontsize="10", height="0.2"),
            edge=dict(fontname="monospace", fontsize="9"),
        )
        self.draw_graph()
        if self.model.hidden:
            self.add_node("more", shape="note", fillcolor=COLORS["more"],
                          label=words.word("more", count=self.model.hidden))
        if self.has_gradient_ops:
            self.add_legend()
        view = words.word("view forward" if self.rankdir == "LR" else "view backward")
        summary = words.word("graph", view=view, nodes=words.count_of("nodes", self.node_count),
                             edges=words.count_of("edges", self.edge_count), root=_root_text(root))
        return Graph(self.dot.source, summary)

    def add_node(self, node_id, **attrs):
        self.node_count += 1
        self.dot.node(node_id, **attrs)

    def add_edge(self, tail, head, **attrs):
        self.edge_count += 1
        self.dot.edge(tail, head, **attrs)

    def add_legend(self):
        self.dot.begin_cluster("legend", label=words.word("legend"), style="dashed", fontsize="9")
        self.dot.node("legend_op", label=words.word("legend forward"),
                      fillcolor=COLORS["op"])
        self.dot.node("legend_gradient", label=words.word("legend backward"),
                      fillcolor=COLORS["gradient_op"], style="filled,dashed")
        self.dot.end_cluster()

    def op_style(self, node):
        if nodes.built_by_backward(node):
            return dict(fillcolor=COLORS["gradient_op"], style="filled,dashed")
        return dict(fillcolor=COLORS["op"])

    def tensor_label(self, info, flow_grad=None):
        if info.kind == "constant":  # a number, or a tensor that needs no gradient
            const = words.word("const")
            lines = [const] if info.shape is None else [const, labels.size_text(info.shape)]
        else:
            lines = [info.label, labels.size_text(info.shape)]
        if self.values and info.data is not None:
            lines.append(labels.values_text(info.data))
        if self.grads:
            grad = None if self.stepping else info.grad
            if grad is not None:
                lines.append(words.word("edge grad", values=labels.values_text(grad._data)))
            elif flow_grad is not None:
                lines.append(words.word("edge grad", values=labels.values_text(flow_grad._data)))
        return "\n".join(lines)

    def tensor_node(self, info, flow_grad=None):
        style = "filled,dashed" if info.kind == "constant" else "filled"
        self.add_node(info.id, label=self.tensor_label(info, flow_grad),
                      fillcolor=COLORS[info.kind], style=style)

    def grad_label(self, grad):
        if grad is None or not self.grads:
            return {}
        return dict(label=" " + labels.values_text(grad._data))


class _BackwardPicture(_Picture):
    rankdir = "RL"

    def draw_graph(self):
        model, flow = self.model, self.flow
        root_node = model.nodes[0] if model.nodes else None
        root_grad = flow.arrived.get(root_node) if flow else None
        self.tensor_node(model.output, root_grad)
        if root_node is None:
            return
        self.add_edge(model.output.id, model.node_ids[root_node], style="dashed",
                      **self.grad_label(root_grad))
        for node in model.nodes:
            self.op_node(node)
        for node in model.nodes:
            self.op_edges(node)

    def op_node(self, node):
        node_id = self.model.node_ids[node]
        attrs = dict(label=self.op_label(node), **self.op_style(node))
        if nodes.hook_count(node):
            attrs.update(color="darkorange", penwidth="2")
        flow = self.flow
        if flow is not None and flow.current is not None:
            if node is flow.current:
                attrs.update(fillcolor=COLORS["current"], color="red", penwidth="3")
            elif node not in flow.done:
                attrs.update(fillcolor=COLORS["pending"], fontcolor="gray40")
        self.add_node(node_id, **attrs)
        if nodes.is_leaf_node(node):
            leaf = self.model.produced_by(node)
            arrived = flow.arrived.get(node) if flow else None
            self.tensor_node(leaf, arrived)
            self.add_edge(node_id, leaf.id, **self.grad_label(arrived))
        if self.saved:
            self.saved_nodes(node, node_id)

    def op_label(self, node):
        """`MulBackward0` and, below it, what the forward pass computed: `y = a * b`."""
        name = nodes.type_name(node)
        hooks = nodes.hook_count(node)
        hook_line = "\n" + words.word("hook line", hooks=words.count_of("hooks", hooks)) if hooks else ""
        outputs = self.model.outputs_of(node)
        if nodes.is_leaf_node(node) or not outputs:
            return name + hook_line
        inputs = [words.word("const") if info.kind == "constant" else info.label
                  for info in self.model.inputs[node]]
        out = ", ".join(info.label for info in outputs)
        return f"{name}\n{out} = {formulas.expression(node, inputs, out)}{hook_line}"

    def op_edges(self, node):
        node_id = self.model.node_ids[node]
        to_more = False
        for index, (next_node, _) in enumerate(node.next_functions):
            if next_node is None:
                continue
            if next_node not in self.model.node_ids:
                to_more = True
                continue
            grad = self.flow.sent.get((node, index)) if self.flow else None
            self.add_edge(node_id, self.model.node_ids[next_node], **self.grad_label(grad))
        if to_more:
            self.add_edge(node_id, "more", style="dotted")

    def saved_nodes(self, node, node_id):
        for index, (name, value, _) in enumerate(nodes.saved_values(node)):
            if isinstance(value, Tensor):
                text = f"{words.word('saved', name=name)}\n{labels.size_text(value.shape)}"
                if self.values:
                    text += "\n" + labels.values_text(value._data)
            elif value is nodes.FREED:
                text = f"{words.word('saved', name=name)}\n{words.word('freed')}"
            else:
                continue  # None (nothing needed) or a plain number
            saved_id = f"{node_id}_saved{index}"
            self.add_node(saved_id, label=text, fillcolor=COLORS["saved"])
            self.add_edge(node_id, saved_id, dir="none", style="dashed")


class _ForwardPicture(_Picture):
    rankdir = "LR"

    def draw_graph(self):
        model = self.model
        arrived = self.flow.arrived if self.flow else {}
        for info in model.tensors:
            producer_grad = arrived.get(info.producer) if info.kind == "intermediate" else None
            if info.kind == "output" and model.nodes:
                producer_grad = arrived.get(model.nodes[0])
            self.tensor_node(info, producer_grad)
        for info in model.constants:
            self.tensor_node(info)
        for node in model.nodes:
            if not nodes.is_leaf_node(node):
                self.op_node(node)
        for info in model.tensors:
            hidden_producer = (info.producer is not None and not nodes.is_leaf_node(info.producer)
                               and info.producer not in model.node_ids)
            if hidden_producer:
                self.add_edge("more", info.id, style="dotted")

    def op_node(self, node):
        node_id = self.model.node_ids[node]
        op = type(node).op_name() if isinstance(node, Node) else nodes.type_name(node)
        label = _INFIX.get(op, op.lower())
        if self.saved:
            saved_names = [name for name, value, _ in nodes.saved_values(node)
                           if isinstance(value, Tensor) or value is nodes.FREED]
            if saved_names:
                label += "\nsaves " + ", ".join(saved_names)
        self.add_node(node_id, label=label, shape="ellipse", **self.op_style(node))
        for info in self.model.inputs[node]:
            self.add_edge(info.id, node_id)
        for info in self.model.outputs_of(node):
            self.add_edge(node_id, info.id)


def _root_text(root):
    return "None" if root.grad_fn is None else nodes.type_name(root.grad_fn)


def _no_graph_note(root, label):
    return words.word("leaf note" if root._requires_grad else "no graph note", label=label)
