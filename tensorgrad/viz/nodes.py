"""What a picture reads from grad_fn nodes: the walk over a graph, and each node's facts.

The walk is breadth-first from the output, with an explicit queue (no recursion, so a graph a
million operations deep is fine), and it visits each node's `next_functions` in order. The
position of a node in this walk is its id in pictures (`op0` is the output's grad_fn), which is
why the same program always draws the same DOT text: nothing depends on `id()` or on memory.
"""

from collections import deque

from ..core.node import AccumulateGrad, Node, SavedTensor
from ..core.tensor import Tensor
from ..autograd.custom_function import BackwardCFunction

_BASE_SLOTS = frozenset(Node.__slots__) | {"variable", "__dict__", "__weakref__"}


def walk(root_nodes, limit=None):
    """Nodes reachable from `root_nodes`, breadth-first, each once.

    Returns (nodes, total): the first `limit` nodes of the walk (all when `limit` is None) and
    how many nodes the graph has in all.
    """
    seen = set()
    order = []
    queue = deque()
    for node in root_nodes:
        if node not in seen:
            seen.add(node)
            queue.append(node)
    while queue:
        node = queue.popleft()
        order.append(node)
        for next_node, _ in node.next_functions:
            if next_node is not None and next_node not in seen:
                seen.add(next_node)
                queue.append(next_node)
    total = len(order)
    if limit is not None:
        order = order[:limit]
    return order, total


def type_name(node):
    """The name pictures use: `MulBackward0`, `AccumulateGrad` (not `name()`'s long form)."""
    return type(node).__name__


def is_leaf_node(node):
    return isinstance(node, AccumulateGrad)


def built_by_backward(node):
    """Was this node recorded by a backward pass run with `create_graph=True`?"""
    return getattr(node, "_built_by_backward", False) and not isinstance(node, AccumulateGrad)


def is_custom_function(node):
    """Was this node made by a user-defined `autograd.Function` (`ExpBackward`)?"""
    return isinstance(node, BackwardCFunction)


def is_freed(node):
    """Has backward already released what this node saved (so it cannot run again)?"""
    return not isinstance(node._for_backward, tuple)


def attribute_values(node):
    """The node's settings (alpha, dim, exponent, ...): its `__slots__` beyond Node's own.

    Returns a list of (name, value) in alphabetical order, the order `dir()` gives torchviz.
    """
    names = set()
    for cls in type(node).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        names.update([slots] if isinstance(slots, str) else slots)
    values = []
    for name in sorted(names - _BASE_SLOTS):
        if name.startswith("_"):
            continue
        try:
            values.append((name, getattr(node, name)))
        except AttributeError:
            continue  # a slot the operation did not fill
    return values


FREED = "freed"


def saved_values(node):
    """What the node saved for backward, by name: a list of (name, value, key).

    value is a Tensor, a plain Python value (a number, None), or `FREED` once backward has
    released it. The values are read without the in-place version check, so a picture can be
    drawn even of a graph that would fail in backward. `key` identifies the saved tensor: the
    tensor itself when the node saved an input (as PyTorch returns the same object), otherwise
    the record of the saved output.
    """
    names = type(node).saved_names
    raw = node._for_backward
    if not isinstance(raw, tuple):
        return [(name, FREED, (node, name)) for name in names]
    result = []
    if len(names) != len(raw):  # a custom Function's ctx.saved_tensors: by number
        names = [f"[{index}]" for index in range(len(raw))]
    for name, value in zip(names, raw):
        if isinstance(value, SavedTensor):
            if value._tensor is not None:
                result.append((name, value._tensor, value._tensor))
            else:
                result.append((name, Tensor._make(value._data), value))
        else:
            result.append((name, value, (node, name)))
    return result


def saved_output_data(node):
    """The node's own output values, if it saved them (exp, tanh, ... save their result)."""
    raw = node._for_backward
    if not isinstance(raw, tuple):
        return {}
    found = {}
    for value in raw:
        if isinstance(value, SavedTensor) and value._producer is not None:
            found.setdefault(value._output_nr, value._data)
    return found


def saved_input_tensors(node):
    """The input tensors this node saved: a window onto intermediate tensors of the graph.

    The graph itself holds no reference to intermediate results (only to what backward needs),
    so these, with the output and the tensors the learner named, are all the values a forward
    picture can show.
    """
    raw = node._for_backward
    if not isinstance(raw, tuple):
        return []
    return [value._tensor for value in raw
            if isinstance(value, SavedTensor) and value._tensor is not None]


def retained_tensors(node):
    """Tensors made by this node that called `retain_grad()`, by output number."""
    found = {}
    for output_nr, ref in (node._retained_outputs or {}).items():
        tensor = ref()
        if tensor is not None:
            found[output_nr] = tensor
    return found


def hook_count(node):
    """How many `register_hook` hooks wait at this node: a leaf's hooks sit on its
    AccumulateGrad, a non-leaf's on the node that made it (one dict per output)."""
    if is_leaf_node(node):
        hooks = getattr(node.variable, "_backward_hooks", None)
        return len(hooks) if hooks else 0
    return sum(len(hooks) for hooks in (node._tensor_pre_hooks or {}).values())
