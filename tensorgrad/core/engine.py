"""The backward pass: walk the graph from the outputs back to the leaves.

The algorithm, in the order it happens:
  1. Count, for every node reachable from the outputs, how many edges point into it
     (`count_dependencies`). A node may run only when all of its consumers have run, because
     only then has its gradient been fully summed.
  2. Put the output gradients into the buffers of the output nodes.
  3. Repeatedly take a *ready* node (all dependencies done), run its derivative rule, fit each
     resulting gradient to the shape and dtype of the input it belongs to, and add it into the
     buffer of the next node. Among ready nodes the newest one runs first, as in PyTorch, so that
     the order (and what hooks print) matches.
  4. Running a node is one call, `node.apply(grads)`, for every node: a node of the table
     applies the chain rule; a leaf's `AccumulateGrad` adds what reached it into `leaf.grad`.
  5. Unless `retain_graph`, each node frees its saved values right after it has run.

Every walk here uses an explicit stack or heap, never recursion, so a graph a million
operations deep works with Python's default recursion limit.
"""

import heapq
import itertools

from . import grad_mode, instruments
from .node import FREED, AccumulateGrad
from .tensor import Tensor
from ..autograd import messages


def execute(root_edges, root_grads, *, keep_graph, create_graph, capture=None, accumulate=True):
    """Run the backward pass: from `root_edges` (one `(node, output_nr)` per output, with its
    gradient in `root_grads`) back to the leaves. `capture`: tensors whose incoming gradients
    to return instead (autograd.grad, or backward(inputs=...)); only the graph leading to them
    runs; `accumulate`: whether they also add into `.grad` (backward(inputs=)), non-leaves too,
    or not (autograd.grad). Without `capture`, every leaf reached adds into its `.grad`."""
    roots = list(dict.fromkeys([node for node, _ in root_edges]))
    dependencies = count_dependencies(roots)
    buffers = {}  # node -> [the gradient that has reached each of its outputs so far, summed]
    for (node, output_nr), grad in zip(root_edges, root_grads):
        buffer = buffers.setdefault(node, [None] * node.num_outputs)
        buffer[output_nr] = grad if buffer[output_nr] is None else buffer[output_nr] + grad
    ready = [(-node._sequence_nr, next(_pushes), node) for node in roots if not dependencies[node]]
    heapq.heapify(ready)  # the newest node first, as in PyTorch (sequence numbers, negated)
    wanted = Capture(roots, capture, accumulate) if capture is not None else None
    grad_was_enabled, grad_mode._grad_enabled = grad_mode._grad_enabled, create_graph
    marker = instruments.plug_in(on_node=mark_as_gradient_graph) if create_graph else ()
    try:
        while ready:
            node = heapq.heappop(ready)[2]  # the newest node whose gradients are all in
            grads = buffers.pop(node, None)  # None: no gradient reached it
            hooked = node._tensor_pre_hooks or node._retained_outputs or (
                type(node) is AccumulateGrad and node.variable._backward_hooks)
            if grads is None or (wanted or hooked) and not prepare(node, grads, wanted, hooked):
                input_grads = ()  # nothing reached it, or nothing wanted lies behind it
            elif instruments.around_node or instruments.after_node:
                input_grads = instruments.run_node(node, grads)
            else:
                input_grads = node.apply(grads)  # the chain rule, or a leaf's accumulation
            if input_grads and not keep_graph and node._for_backward:
                node._for_backward = FREED  # free what the forward pass saved for this node
            for (next_node, output_nr), grad, meta in zip(
                    node.next_functions, input_grads or _NONE_FOR_EACH, node._input_meta):
                if next_node is None:
                    continue
                if grad is not None:  # fit it to its input, then add it to what reached there
                    if grad._data.shape != meta[0] or grad._data.dtype != meta[1]:
                        grad = fit_gradient(grad, *meta)
                    buffer = buffers.setdefault(next_node, [None] * next_node.num_outputs)
                    buffer[output_nr] = grad if buffer[output_nr] is None else buffer[output_nr] + grad
                dependencies[next_node] -= 1
                if not dependencies[next_node]:
                    heapq.heappush(ready, (-next_node._sequence_nr, next(_pushes), next_node))
            input_grads = grad = None  # the gradients are in the buffers only (AccumulateGrad
            # takes one that nobody else holds without copying it)
    finally:
        grad_mode._grad_enabled = grad_was_enabled
        if marker:
            instruments.unplug(marker)
    return None if wanted is None else wanted.captured


_pushes = itertools.count()  # breaks ties in the ready heap: the node pushed first goes first
_NONE_FOR_EACH = itertools.repeat(None)  # a node that did not run sends no gradient anywhere


def prepare(node, grads, wanted, hooked):
    """Before a node runs: tensor hooks and retain_grad on the gradients that reached it
    (`hooked`: a leaf's hooks live on the leaf), which may change `grads` in place; then take
    any that autograd.grad wants. False when the node need not run at all."""
    if wanted is not None and node not in wanted.needed:
        return False  # nothing wanted lies behind it
    if hooked:
        grads[:] = run_tensor_pre_hooks(node, grads)
    return wanted is None or wanted.take(node, grads)


def mark_as_gradient_graph(node):
    """Nodes recorded while a create_graph=True backward runs compute gradients: tensorgrad.viz
    draws them in their own colour."""
    node._built_by_backward = True


class Capture:
    """What autograd.grad (or backward(inputs=...)) wants back: the gradient arriving at each
    captured tensor's edge. Only the nodes that lead to one of them need to run."""

    def __init__(self, roots, capture, accumulate):
        self.accumulate = accumulate
        self.captured = [None] * len(capture)
        self.slots = {}  # node -> [(output_nr, index in captured)]
        for index, tensor in enumerate(capture):
            node, output_nr = gradient_edge(tensor)  # (autograd/backward_and_grad.py checked it)
            self.slots.setdefault(node, []).append((output_nr, index))
            if accumulate and tensor._grad_fn is not None:  # a non-leaf then keeps its gradient
                tensor._set_grad_fn(node, output_nr, retain=True)  # as retain_grad() does, as in
                # PyTorch: once, however often it is named (a leaf keeps its own anyway)
        self.needed = nodes_leading_to(roots, self.slots)

    def take(self, node, grads):
        """Keep the gradients wanted at `node`; False if the node need not run after that: a leaf
        runs (adding into its `.grad`) only if asked to accumulate, any other node only if
        something wanted lies behind it. (Asked to accumulate, a non-leaf retains its gradient,
        stored by run_tensor_pre_hooks before this: see __init__.)"""
        if node not in self.slots:
            return True
        for output_nr, index in self.slots[node]:
            self.captured[index] = grads[output_nr] if output_nr < len(grads) else None
        if type(node) is AccumulateGrad:
            return self.accumulate
        return any(next_node in self.needed for next_node, _ in node.next_functions
                   if next_node is not None)


def gradient_edge(tensor):
    """Where a gradient for `tensor` enters the graph: `(node, output_nr)`, or None."""
    if tensor._view_of_grad_fn is not None:
        tensor._check_view_is_current()
    if tensor._grad_fn is not None:
        return tensor._grad_fn, tensor._output_nr
    if tensor._requires_grad:
        return AccumulateGrad(tensor), 0
    return None


def count_dependencies(root_nodes):
    """For each reachable node, the number of edges that point into it."""
    dependencies = {node: 0 for node in root_nodes}
    stack = list(dependencies)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            if next_node in dependencies:
                dependencies[next_node] += 1
            else:
                dependencies[next_node] = 1
                stack.append(next_node)
    return dependencies


def nodes_leading_to(root_nodes, target_nodes):
    """The nodes from which some target can be reached (targets included).

    Used when only some inputs want gradients: other branches need not run at all.
    Two walks: forward from the roots, noting who feeds whom; then back from the targets.
    """
    consumers = {node: [] for node in root_nodes}  # node -> the nodes that send it gradients
    stack = list(consumers)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            if next_node not in consumers:
                consumers[next_node] = []
                stack.append(next_node)
            consumers[next_node].append(node)
    needed = {node for node in target_nodes if node in consumers}
    stack = list(needed)
    while stack:
        for consumer in consumers[stack.pop()]:
            if consumer not in needed:
                needed.add(consumer)
                stack.append(consumer)
    return needed


def fit_gradient(grad, shape, dtype):
    """Make a gradient match its input: undo broadcasting by summing, and cast the dtype.

    This is the one place in tensorgrad where broadcasting is undone, so no derivative rule
    has to think about it. Leading dimensions that broadcasting added are summed away;
    dimensions that were 1 in the input are summed with keepdim (`sum_to`, in
    ops/reduction.py, as PyTorch's engine calls its `sum_to`). Both through Tensor's plain
    `_sum_to` and `_cast` (tensor_methods.py): the public methods (`Tensor.sum_to_size`,
    `Tensor.to`) would check their arguments.
    """
    if grad._data.shape != shape:
        grad = grad._sum_to(shape)
    if grad._data.dtype != dtype:  # dtype is the input's NumPy dtype
        grad = grad._cast(dtype)
    return grad


def run_tensor_pre_hooks(node, grads):
    """Tensor hooks, then retain_grad(), for each output of `node`.

    A leaf's hooks live on the leaf itself (its AccumulateGrad node is recreated as needed);
    a non-leaf's hooks live on its grad_fn, keyed by which output the tensor is.
    """
    if isinstance(node, AccumulateGrad):
        hooks = node.variable._backward_hooks
        if hooks:
            grads[0] = call_hooks(hooks.values(), grads[0])
        return grads
    if node._tensor_pre_hooks:
        for output_nr, hooks in node._tensor_pre_hooks.items():
            if output_nr < len(grads) and grads[output_nr] is not None:
                grads[output_nr] = call_hooks(hooks.values(), grads[output_nr])
    if node._retained_outputs:
        for output_nr, tensor_ref in node._retained_outputs.items():
            tensor = tensor_ref()
            if tensor is not None and output_nr < len(grads) and grads[output_nr] is not None:
                grad = grads[output_nr]  # as PyTorch's retain_grad: a copy, then new sums, so
                tensor._grad = grad._clone() if tensor._grad is None else tensor._grad + grad
                # (a .grad made under create_graph keeps its graph only while graphs are made;
                # `_clone` is ops/elementwise.py's clone, a recorded copy, as a plain method of
                # tensor_methods.py)
    return grads


def call_hooks(hooks, grad):
    """Run tensor hooks in registration order; a hook may return a replacement gradient."""
    for hook in list(hooks):
        result = hook(grad)
        if result is None:
            continue
        if not isinstance(result, Tensor):
            raise TypeError(messages.HOOK_BAD_RETURN.format(type_name=type(result).__name__))
        name = getattr(hook, "__name__", type(hook).__name__)
        if result.dtype is not grad.dtype:
            raise RuntimeError(messages.HOOK_CHANGED_TYPE.format(
                name=name, was=grad.dtype._legacy_name, got=result.dtype._legacy_name))
        if result.shape != grad.shape:
            raise RuntimeError(messages.HOOK_CHANGED_SIZE.format(name=name))
        grad = result
    return grad


__all__ = ["execute", "gradient_edge", "fit_gradient"]
