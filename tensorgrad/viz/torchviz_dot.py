"""`make_dot`: torchviz's picture of a grad_fn graph, for tensorgrad tensors.

A drop-in for `torchviz.make_dot` (torchviz 0.0.3; pinned in tests/test_viz.py): the same arguments, the same
`graphviz.Digraph` result, the same statements in the same order, the same colours:

  * grad_fn nodes are boxes named by their type (`MulBackward0`, `AccumulateGrad`), in
    Graphviz's default grey;
  * leaves that require grad are lightblue, labelled with their name from `params` and shape;
  * saved tensors are orange, joined to their node by an undirected edge (`show_saved=True`);
  * the output is darkolivegreen1 (a view's base darkolivegreen3, with a dotted edge);
  * edges point from the inputs towards the output.

One difference on purpose: torchviz names nodes by `id()`, so its DOT text changes on every run.
Here node N<k> is the k-th node to appear in the text, so the same program always gives
byte-identical DOT. And torchviz walks the graph recursively; this walks it with an explicit
stack of tasks that reproduces the recursive order exactly, so deep graphs work too.
"""

import functools

from ..core.tensor import Tensor
from . import display, nodes


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50):
    """A `graphviz.Digraph` of the graph that produced `var` (a tensor or tuple of tensors).

    params: optional {name: tensor} used to name the leaves (as in torchviz).
    show_attrs: list each node's attributes and saved values inside its box.
    show_saved: draw saved tensors as orange nodes. Values that backward already freed are
        drawn as "(freed)" (torchviz would raise instead).
    """
    outputs = tuple(var) if isinstance(var, (tuple, list)) else (var,)
    for output in outputs:
        if not isinstance(output, Tensor):
            raise TypeError(
                "make_dot() expects a tensorgrad Tensor or a tuple of Tensors, got "
                f"{type(output).__name__}"
            )
    param_names = _param_names(params)
    digraph_class = _digraph_class()
    node_attr = dict(style="filled", shape="box", align="left", fontsize="10",
                     ranksep="0.1", height="0.2", fontname="monospace")
    dot = digraph_class(node_attr=node_attr, graph_attr=dict(size="12,12"))
    builder = _Builder(dot, param_names, show_attrs, show_saved, max_attr_chars)
    for output in outputs:
        builder.add_base_tensor(output)
    _resize_graph(dot)
    dot.summary = f"Digraph(make_dot: {len(builder.ids)} nodes, {builder.edge_count} edges)"
    return dot


def _param_names(params):
    if params is None:
        return {}
    if not hasattr(params, "items"):
        raise TypeError(f"make_dot(): params must be a dict of name: Tensor, got "
                        f"{type(params).__name__}")
    names = {}
    for name, value in params.items():
        if not isinstance(value, Tensor):
            raise TypeError(f"make_dot(): params[{name!r}] must be a Tensor, got "
                            f"{type(value).__name__}")
        names[value] = name  # tensors hash by identity, so this maps each object to its name
    return names


class _Ids:
    """N0, N1, ... in order of first appearance: deterministic names for graph objects."""

    def __init__(self):
        self._ids = {}

    def __getitem__(self, key):
        if key not in self._ids:
            self._ids[key] = f"N{len(self._ids)}"
        return self._ids[key]

    def __len__(self):
        return len(self._ids)


class _Builder:
    """torchviz's `add_base_tensor` and `add_nodes`, with their statements in the same order."""

    def __init__(self, dot, param_names, show_attrs, show_saved, max_attr_chars):
        self.dot = dot
        self.param_names = param_names
        self.show_attrs = show_attrs
        self.show_saved = show_saved
        self.max_attr_chars = max_attr_chars
        self.ids = _Ids()
        self.seen = set()  # grad_fn nodes and tensors already drawn (identity)
        self.edge_count = 0

    def edge(self, tail, head, **attrs):
        self.edge_count += 1
        self.dot.edge(self.ids[tail], self.ids[head], **attrs)

    def var_label(self, tensor, name=None):
        if not name:
            name = self.param_names.get(tensor, "")
        return "%s\n %s" % (name, _size_to_str(tensor.shape))

    def add_base_tensor(self, var, color="darkolivegreen1"):
        if var in self.seen:
            return
        self.seen.add(var)
        self.dot.node(self.ids[var], self.var_label(var), fillcolor=color)
        if var.grad_fn is not None:
            self.add_nodes(var.grad_fn)
            self.edge(var.grad_fn, var)
        if var._base is not None:  # a view: also draw the tensor it looks into
            self.add_base_tensor(var._base, color="darkolivegreen3")  # a base is never a view
            self.edge(var._base, var, style="dotted")

    def add_nodes(self, start):
        """Draw `start` and everything behind it.

        torchviz recurses: for each input it draws the edge, then the input's whole subgraph,
        then moves to the next input. The task stack below replays that order: tasks are pushed
        in reverse, so they pop in the recursive order.
        """
        tasks = [("visit", start, None)]
        while tasks:
            kind, fn, consumer = tasks.pop()
            if kind == "edge":
                self.edge(fn, consumer)
                continue
            if kind == "function_saved":
                self.add_function_saved(fn)
                continue
            if fn in self.seen:
                continue
            self.seen.add(fn)
            custom = nodes.is_custom_function(fn)
            if self.show_saved and not custom:
                self.add_saved(fn)
            if nodes.is_leaf_node(fn):
                variable = fn.variable
                self.seen.add(variable)
                self.dot.node(self.ids[variable], self.var_label(variable), fillcolor="lightblue")
                self.edge(variable, fn)
            self.dot.node(self.ids[fn], nodes.type_name(fn) if custom else self.fn_label(fn))
            if custom:  # after everything behind it: torchviz's last step for a custom Function
                tasks.append(("function_saved", fn, None))
            inputs = [next_fn for next_fn, _ in fn.next_functions if next_fn is not None]
            for next_fn in reversed(inputs):
                tasks.append(("visit", next_fn, None))
                tasks.append(("edge", next_fn, fn))

    def add_saved(self, fn):
        for name, value, key in sorted(nodes.saved_values(fn), key=lambda item: item[0]):
            if isinstance(value, Tensor):
                self.seen.add(value)
                self.edge(fn, key, dir="none")
                self.dot.node(self.ids[key], self.var_label(value, name), fillcolor="orange")
            elif value is nodes.FREED:
                self.edge(fn, key, dir="none")
                self.dot.node(self.ids[key], f"{name}\n (freed)", fillcolor="orange")

    def add_function_saved(self, fn):
        """A custom Function's `ctx.saved_tensors`: torchviz always draws them, unnamed."""
        for _name, value, key in nodes.saved_values(fn):
            if isinstance(value, Tensor):
                self.seen.add(value)
                self.edge(key, fn, dir="none")
                self.dot.node(self.ids[key], self.var_label(value), fillcolor="orange")
            elif value is nodes.FREED:
                self.edge(key, fn, dir="none")
                self.dot.node(self.ids[key], "\n (freed)", fillcolor="orange")

    def fn_label(self, fn):
        """The node's type name; with show_attrs, a table of its attributes below a rule."""
        name = nodes.type_name(fn)
        if not self.show_attrs:
            return name
        attrs = {}
        for attr, value, _ in nodes.saved_values(fn):
            attrs[attr] = _saved_text(value)
        for attr, value in nodes.attribute_values(fn):
            attrs[attr] = str(value)
        if not attrs:
            return name
        attrs = dict(sorted(attrs.items()))  # torchviz reads them from dir(), which sorts
        max_attr_chars = max(self.max_attr_chars, 3)
        col1width = max(len(key) for key in attrs)
        col2width = min(max(len(value) for value in attrs.values()), max_attr_chars)
        sep = "-" * max(col1width + col2width + 2, len(name))
        row = "%-" + str(col1width) + "s: %" + str(col2width) + "s"

        def truncate(text):
            return text[:col2width - 3] + "..." if len(text) > col2width else text

        rows = "\n".join(row % (key, truncate(value)) for key, value in attrs.items())
        return name + "\n" + sep + "\n" + rows


def _saved_text(value):
    if isinstance(value, Tensor):
        return "[saved tensor]"
    if isinstance(value, tuple) and any(isinstance(item, Tensor) for item in value):
        return "[saved tensors]"
    if value is nodes.FREED:
        return "[freed]"
    return str(value)


def _size_to_str(shape):
    return "(" + ", ".join("%d" % size for size in shape) + ")"


def _resize_graph(dot, size_per_element=0.15, min_size=12):
    """torchviz's rule: the picture grows with the number of statements."""
    size = max(min_size, len(dot.body) * size_per_element)
    dot.graph_attr.update(size=str(size) + "," + str(size))


@functools.lru_cache(maxsize=None)
def _digraph_class():
    """graphviz.Digraph, displaying safely: without `dot`, Jupyter shows the DOT text."""
    try:
        import graphviz
    except ImportError:
        raise ImportError(
            "make_dot() returns a graphviz.Digraph and needs the graphviz Python package: "
            "pip install graphviz (tg.viz.draw() works without it)."
        ) from None

    class Digraph(graphviz.Digraph):
        """A graphviz.Digraph whose notebook display never fails and never shows an address."""

        summary = "Digraph(make_dot)"  # make_dot() sets the counts on each graph it makes

        def _repr_mimebundle_(self, include=None, exclude=None, **_):
            summary = self.summary
            bundle = display.mimebundle(self.source, summary, display.svg_or_none(self.source))
            if include is not None:
                bundle = {key: value for key, value in bundle.items() if key in include}
            if exclude is not None:
                bundle = {key: value for key, value in bundle.items() if key not in exclude}
            return bundle

    Digraph.__module__ = __name__
    return Digraph
