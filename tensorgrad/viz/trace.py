"""`trace_backward`: the backward pass, one node at a time, as a list of steps.

The trace is made by the real engine (`core/engine.py: execute`) with an instrument that
notes every node as it runs, so the order of the steps *is* the engine's order: there is no
second implementation of backward to drift out of date. The run keeps the graph
(`keep_graph=True`), so the learner's graph still works afterwards, and by default it writes
nothing into `.grad` and calls no hooks: the learner's tensors are left exactly as they were.

Each step records
  * the gradient that reached the node, and the pieces it was summed from;
  * the local derivative of each input, when it is a simple factor: the node's own `backward`
    applied to a gradient of ones (exact for element-wise operations and single-element
    outputs, where the Jacobian is diagonal or a single row);
  * the gradient sent to each input, fitted to the input's shape as the engine fits it;
  * the arithmetic in words, e.g. `∂y/∂a = b = 2 → grad a = 1 × 2 = 2`.
"""

import contextlib

import numpy as np

from ..autograd import backward_and_grad, messages
from ..core import engine, instruments
from ..core.grad_mode import no_grad
from ..core.node import AccumulateGrad
from ..core.tensor import Tensor
from . import formulas, labels, nodes, words
from .model import GraphModel


class Step:
    """What one node did during backward."""

    __slots__ = ("index", "node", "name", "output", "inputs", "grads_in", "contributions",
                 "local", "grads_out", "fills", "lines")

    @property
    def grad_in(self):
        """The gradient of the node's (first) output: what the node started from."""
        return self.grads_in[0] if self.grads_in else None

    @property
    def is_accumulate(self):
        return nodes.is_leaf_node(self.node)

    @property
    def text(self):
        """The step's arithmetic, one line per fact."""
        return "\n".join(self.lines)

    @property
    def number(self):
        """The step's number as shown, counted from 1 as a learner counts (and as the stepper's
        "step 1 of 5"); `index` is its place in the trace, from 0."""
        return self.index + 1

    def __repr__(self):
        return f"Step({self.number}: {self.lines[0]})"


class Trace(list):
    """The steps of one backward pass, in the order the engine ran them.

    `repr` is a table; `explain()` gives the full arithmetic of every step. Both number the
    steps from 1, as the stepper does; `trace[0]` is step 1.
    """

    def __init__(self, steps, model):
        super().__init__(steps)
        self.model = model

    @property
    def nodes(self):
        return [step.node for step in self]

    def explain(self):
        return "\n\n".join(words.word("step", number=step.number, text=step.text) for step in self)

    def __repr__(self):
        header = words.word("header")
        rows = [header]
        for step in self:
            rows.append((str(step.number), step.name, step.output, _grad_in_cell(step),
                         _sends_cell(step)))
        widths = [max(words.width(row[column]) for row in rows) for column in range(len(header) - 1)]
        lines = []
        for row in rows:
            cells = [words.pad(cell, width) for cell, width in zip(row, widths)] + [row[-1]]
            lines.append("  ".join(cells).rstrip())
        title = words.word("trace", count=words.count_of("steps", len(self)), root=self.model.output.label)
        return title + "\n" + "\n".join(lines)

    def _repr_pretty_(self, printer, cycle):
        printer.text(repr(self))


def trace_backward(root, gradient=None, *, names=None, accumulate=False):
    """Run backward from `root` and return its steps (a `Trace`) in the engine's order.

    gradient: the gradient of `root`, as for `root.backward(gradient)`; may be left out for a
        single-element root.
    names: optional {name: tensor} to name tensors in the text (or set `t.name = "t"`).
    accumulate: also add the gradients into `.grad` of the leaves and run the tensor hooks, as
        `root.backward(gradient, retain_graph=True)` would. By default nothing is changed.
    """
    if not isinstance(root, Tensor):
        raise TypeError(
            f"trace_backward() expects a tensorgrad Tensor as root, got {type(root).__name__}"
        )
    edge = engine.gradient_edge(root)
    if edge is None:
        raise RuntimeError(messages.NO_GRAD_FN.format(index=0))
    (root_grad,) = backward_and_grad.make_root_grads([root], [gradient])
    model = GraphModel(root, names)
    recorder = _Recorder(model, edge, root_grad)
    suspended = contextlib.nullcontext() if accumulate else _hooks_suspended(model)
    leaves_write = {} if accumulate else {"around_node": _without_accumulating}
    with suspended, instruments.plugged_in(after_node=recorder, **leaves_write):
        engine.execute([edge], [root_grad], keep_graph=True, create_graph=False)
    return Trace(recorder.steps, model)


def _without_accumulating(node, run):
    """Run a node as the engine does, except that a leaf's AccumulateGrad writes nothing."""
    return () if isinstance(node, AccumulateGrad) else run()


@contextlib.contextmanager
def _hooks_suspended(model):
    """Take tensor hooks and retain_grad() off the graph for the trace, and put them back.

    Hooks may print or change state, and retain_grad() writes into `.grad`: a trace that only
    looks must trigger neither.
    """
    saved = []
    for node in model.nodes:
        saved.append((node, node._tensor_pre_hooks, node._retained_outputs))
        node._tensor_pre_hooks = None
        node._retained_outputs = None
    leaves = [info.tensor for info in model.tensors if info.kind == "leaf"]
    leaf_hooks = [(leaf, leaf._backward_hooks) for leaf in leaves]
    for leaf in leaves:
        leaf._backward_hooks = None
    try:
        yield
    finally:
        for node, pre_hooks, retained in saved:
            node._tensor_pre_hooks = pre_hooks
            node._retained_outputs = retained
        for leaf, hooks in leaf_hooks:
            leaf._backward_hooks = hooks


class _Recorder:
    """The engine's observer: turns each executed node into a Step."""

    def __init__(self, model, root_edge, root_grad):
        self.model = model
        self.steps = []
        self.arrived = {root_edge: [root_grad]}  # (node, output_nr) -> gradients sent there
        # The leaves whose .grad is still None: their AccumulateGrad stores the gradient, the
        # others add it to what is there (noted before the pass, which may write into .grad).
        self.empty = {node for node in model.nodes
                      if isinstance(node, AccumulateGrad) and node.variable.grad is None}

    def __call__(self, node, grads_in, grads_out):
        step = Step()
        step.index = len(self.steps)
        step.node = node
        step.name = nodes.type_name(node)
        step.grads_in = tuple(grads_in)
        step.contributions = tuple(tuple(self.arrived.pop((node, nr), ()))
                                   for nr in range(len(grads_in)))
        step.inputs = tuple(self.model.inputs.get(node, ()))
        if nodes.is_leaf_node(node):
            leaf = self.model.produced_by(node) or self.model.output  # the root may be a leaf
            step.output = leaf.label
            step.local = None
            step.grads_out = ()
            step.fills = node in self.empty
        else:
            outputs = self.model.outputs_of(node)
            step.output = ", ".join(info.label for info in outputs) or "?"
            step.local = _local_factors(node, grads_in)
            step.grads_out = self._fitted(node, grads_out)
            step.fills = False
        step.lines = tuple(_explain(step))
        self.steps.append(step)

    def _fitted(self, node, grads_out):
        """Each input's gradient as the engine adds it up: fitted to the input's shape."""
        fitted = []
        for index, ((next_node, output_nr), grad) in enumerate(
                zip(node.next_functions, grads_out)):
            if next_node is None or grad is None:
                fitted.append(None)
                continue
            meta = node._input_meta[index] if index < len(node._input_meta) else None
            if meta is not None:
                grad = engine.fit_gradient(grad, *meta)
            self.arrived.setdefault((next_node, output_nr), []).append(grad)
            fitted.append(grad)
        return tuple(fitted)


def _local_factors(node, grads_in):
    """∂output/∂input for each input, as tensors of the output's shape (None if not simple)."""
    if len(grads_in) != 1 or grads_in[0] is None:
        return None
    grad = grads_in[0]
    if not (formulas.has_elementwise_derivative(node) or grad._data.size == 1):
        return None
    ones = Tensor._make(np.ones_like(grad._data))
    try:
        with no_grad():
            local = node.apply([ones])
            return local if isinstance(local, tuple) else (local,)
    except Exception:  # noqa: BLE001  (a display aid must never break the trace)
        return None


# -- words -------------------------------------------------------------------------------------
def _explain(step):
    if step.is_accumulate:
        leaf = step.output
        return [words.word("store" if step.fills else "accumulate", leaf=leaf),
                f"{words.word('grad', name=leaf)} = {_sum_text(step.contributions[0], step.grad_in)}"]
    input_names = [_input_name(info) for info in step.inputs]
    out = step.output
    lines = [words.word("operation", node=step.name, out=out,
                        expression=formulas.expression(step.node, input_names, out))]
    if step.grad_in is None:
        return lines
    contributions = step.contributions[0] if step.contributions else ()
    lines.append(f"{words.word('grad', name=out)} = {_sum_text(contributions, step.grad_in)}")
    for index, info in enumerate(step.inputs):
        grad = step.grads_out[index] if index < len(step.grads_out) else None
        if info.kind == "constant" or grad is None:
            continue
        lines.append(_input_line(step, index, input_names, grad))
    return lines


def _input_line(step, index, input_names, grad):
    name, out = input_names[index], step.output
    grad_text = labels.number_text(grad._data)
    local = step.local[index] if step.local is not None and index < len(step.local) else None
    if local is None:
        return f"{words.word('grad', name=name)} = {words.word('backward of', node=step.name, out=out)} = {grad_text}"
    local_text = labels.number_text(local._data)
    symbol = formulas.local_derivative(step.node, index, input_names, out)
    derivative = f"∂{out}/∂{name} = "
    derivative += local_text if symbol in (None, local_text) else f"{symbol} = {local_text}"
    product = f"{labels.number_text(step.grad_in._data)} × {local_text}"
    line = f"{derivative} → {words.word('grad', name=name)} = {product}"
    raw_shape = tuple(np.broadcast_shapes(step.grad_in._data.shape, local._data.shape))
    if raw_shape != tuple(grad._data.shape):
        line += words.word("summed", shape=labels.size_text(grad._data.shape))
    return f"{line} = {grad_text}"


def _input_name(info):
    return words.word("const") if info.kind == "constant" else info.label


def _sum_text(contributions, total):
    total_text = labels.number_text(total._data)
    if len(contributions) <= 1:
        return total_text
    parts = " + ".join(labels.number_text(grad._data) for grad in contributions)
    return f"{parts} = {total_text}"


def _grad_in_cell(step):
    if step.grad_in is None:
        return "-"
    return labels.one_line(labels.number_text(step.grad_in._data))


def _sends_cell(step):
    if step.is_accumulate:  # `=` into a .grad that is None, `+=` into one that holds a gradient
        return f"{step.output}.grad {'=' if step.fills else '+='} {_grad_in_cell(step)}"
    parts = []
    for info, grad in zip(step.inputs, step.grads_out):
        if grad is not None:
            parts.append(f"{info.label} ← {labels.one_line(labels.number_text(grad._data))}")
    return ", ".join(parts) or "-"
