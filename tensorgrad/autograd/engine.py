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
  4. `AccumulateGrad` nodes add what reaches them into `leaf.grad`.
  5. Unless `retain_graph`, each node frees its saved values right after it has run.

Every walk here uses an explicit stack or heap, never recursion, so a graph a million
operations deep works with Python's default recursion limit.
"""

import heapq

from . import anomaly_mode, messages, profiler
from .grad_mode import set_grad_enabled
from ..dtypes import from_numpy_dtype
from .node import AccumulateGrad, building_gradient_graph


def gradient_edge(tensor):
    """Where a gradient for `tensor` enters the graph: `(node, output_nr)`, or None."""
    if tensor._view_of_grad_fn is not None:
        tensor._check_view_is_current()
    if tensor._grad_fn is not None:
        return tensor._grad_fn, tensor._output_nr
    if tensor._requires_grad:
        return tensor._grad_accumulator(), 0
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
    dimensions that were 1 in the input are summed with keepdim.
    """
    if grad._data.shape != shape:
        grad = sum_to_shape(grad, shape)
    if grad._data.dtype != dtype:  # dtype is the input's NumPy dtype
        grad = grad.to(from_numpy_dtype(dtype))
    return grad


def sum_to_shape(grad, shape):
    """Sum `grad` down to `shape`, as PyTorch's sum_to does: one sum with keepdim over the dims
    broadcasting added or stretched, then a view to drop the added leading dims."""
    grad_shape = grad._data.shape
    extra = len(grad_shape) - len(shape)
    dims = list(range(extra))
    for i, size in enumerate(shape):
        if size == 1 and grad_shape[extra + i] != 1:
            dims.append(extra + i)
    if dims:
        grad = grad.sum(dim=tuple(dims), keepdim=True)
    if grad._data.shape != shape:
        grad = grad.reshape(shape)
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
                tensor._store_retained_grad(grads[output_nr])
    return grads


def call_hooks(hooks, grad):
    """Run tensor hooks in registration order; a hook may return a replacement gradient."""
    from ..tensor import Tensor

    for hook in list(hooks):
        result = hook(grad)
        if result is None:
            continue
        if not isinstance(result, Tensor):
            raise TypeError(messages.HOOK_BAD_RETURN.format(type_name=type(result).__name__))
        name = getattr(hook, "__name__", type(hook).__name__)
        if result.dtype is not grad.dtype:
            raise RuntimeError(messages.HOOK_CHANGED_TYPE.format(
                name=name, was=grad.type(), got=result.type()))
        if result.shape != grad.shape:
            raise RuntimeError(messages.HOOK_CHANGED_SIZE.format(name=name))
        grad = result
    return grad


class _ReadyQueue:
    """Nodes whose gradients are complete. The newest node (highest sequence number) comes first."""

    def __init__(self):
        self._heap = []
        self._pushed = 0

    def push(self, node):
        self._pushed += 1
        heapq.heappush(self._heap, (-node._sequence_nr, self._pushed, node))

    def pop(self):
        return heapq.heappop(self._heap)[2]

    def __bool__(self):
        return bool(self._heap)


def execute(root_edges, root_grads, *, keep_graph, create_graph, capture=None, accumulate=True,
            observer=None):
    """Run the backward pass.

    root_edges: one `(node, output_nr)` per output, root_grads: the gradient for each.
    capture: optional list of edges whose incoming gradient should be returned (autograd.grad,
        or backward(inputs=...)); then only the parts of the graph leading to them run.
    accumulate: add into `.grad` of leaves (backward) or not (autograd.grad).
    observer: optional function called as `observer(node, grads_in, grads_out)` right after each
        node runs, in execution order: the gradients that reached the node, then what its
        derivative rule returned (one per next_function, before fitting; `()` for AccumulateGrad).
        It only watches; tensorgrad.viz.trace_backward uses it to show backward step by step.
    Returns the captured gradients, one per capture edge (None where nothing arrived).
    """
    run = BackwardRun(root_edges, root_grads, capture, accumulate, create_graph)
    with set_grad_enabled(create_graph), building_gradient_graph(create_graph):
        while run.ready:
            node = run.ready.pop()  # the newest node whose gradients are complete
            grads = run.gradients_for(node)  # summed, through hooks; None: nothing to do here
            if grads is None:
                run.pass_over(node)
            elif isinstance(node, AccumulateGrad):
                run.accumulate(node, grads)  # a leaf: add into leaf.grad
                if observer is not None:
                    observer(node, grads, ())
            else:
                input_grads = call_backward(node, grads)  # the chain rule for one operation
                if observer is not None:
                    observer(node, grads, input_grads)
                if not keep_graph:
                    node.release_for_backward()
                send_gradients(node, input_grads, run)  # on to the nodes of the inputs
    return run.captured


class BackwardRun:
    """The state of one backward pass: gradients summed so far, dependency counts, ready nodes,
    and what `autograd.grad` wants back (capture).

    The main loop above asks it four things; each is a method here, so the loop reads as the
    algorithm and the bookkeeping stays out of its way.
    """

    def __init__(self, root_edges, root_grads, capture, accumulate, create_graph):
        root_nodes = list(dict.fromkeys(node for node, _ in root_edges))
        self.dependencies = count_dependencies(root_nodes)
        self.buffers = {}
        for (node, output_nr), grad in zip(root_edges, root_grads):
            add_to_buffer(self.buffers, node, output_nr, grad)
        self.ready = _ReadyQueue()
        for node in root_nodes:
            if self.dependencies[node] == 0:
                self.ready.push(node)
        self.accumulating = accumulate
        self.create_graph = create_graph
        self.capturing = capture is not None
        self.capture_slots = {}  # node -> [(output_nr, index in captured)]
        self.captured = None
        self.needed = None  # when capturing: the nodes that lead to a captured edge
        if self.capturing:
            self.captured = [None] * len(capture)
            for index, (node, output_nr) in enumerate(capture):
                self.capture_slots.setdefault(node, []).append((output_nr, index))
            self.needed = nodes_leading_to(root_nodes, self.capture_slots)

    def gradients_for(self, node):
        """The gradients that reached `node`, after tensor hooks and retain_grad; taken if
        captured. None when the node need not run: nothing reached it, nothing wanted lies
        behind it, or the gradient wanted was this one."""
        grads = self.buffers.pop(node, None)
        if grads is None or (self.needed is not None and node not in self.needed):
            return None
        if node._tensor_pre_hooks or node._retained_outputs or isinstance(node, AccumulateGrad):
            grads = run_tensor_pre_hooks(node, grads)
        if self.capturing and node in self.capture_slots:
            for output_nr, index in self.capture_slots[node]:
                self.captured[index] = grads[output_nr] if output_nr < len(grads) else None
            if not isinstance(node, AccumulateGrad) and not _leads_further(node, self.needed):
                return None  # the gradient we wanted has been taken; go no further
        return grads

    def accumulate(self, node, grads):
        """Add into `.grad` (backward), only of the leaves asked for when `inputs=` was given."""
        if self.accumulating and (not self.capturing or node in self.capture_slots):
            if profiler._active is not None:
                profiler.backward_step(node, lambda: node.variable._accumulate_grad(
                    grads[0], self.create_graph))
            else:
                node.variable._accumulate_grad(grads[0], self.create_graph)

    def pass_over(self, node):
        release_dependencies(node, self.dependencies, self.ready)


def _leads_further(node, needed):
    return any(n in needed for n, _ in node.next_functions if n is not None)


def call_backward(node, grads):
    """Run one node's derivative rule and check that it returned one gradient per input."""
    if profiler._active is not None:
        input_grads = profiler.backward_step(node, lambda: node.apply(grads))
    elif anomaly_mode._enabled:
        input_grads = _apply_detecting_anomalies(node, grads)
    else:
        input_grads = node.apply(grads)
    if not isinstance(input_grads, tuple):
        input_grads = (input_grads,)
    if len(input_grads) != len(node.next_functions):
        raise RuntimeError(
            f"function {type(node).__name__} returned an incorrect number of gradients "
            f"(expected {len(node.next_functions)}, got {len(input_grads)})"
        )
    if anomaly_mode._enabled and anomaly_mode._check_nan:
        anomaly_mode.check_for_nan(node, input_grads)
    return input_grads


def _apply_detecting_anomalies(node, grads):
    """node.apply, but a failure first warns with the forward stack that created the node."""
    try:
        return node.apply(grads)
    except Exception:
        anomaly_mode.report_backward_error(node)
        raise


def send_gradients(node, input_grads, run):
    """Fit each input gradient to its input and add it to the next node's buffer."""
    buffers, dependencies, ready = run.buffers, run.dependencies, run.ready
    for (next_node, output_nr), grad, meta in zip(node.next_functions, input_grads, node._input_meta):
        if next_node is None:
            continue
        if grad is not None:
            shape, dtype = meta
            if grad._data.shape != shape or grad._data.dtype != dtype:
                grad = fit_gradient(grad, shape, dtype)
            add_to_buffer(buffers, next_node, output_nr, grad)
        dependencies[next_node] -= 1
        if dependencies[next_node] == 0:
            ready.push(next_node)


def release_dependencies(node, dependencies, ready):
    """A node that will not run still counts as done for the nodes behind it."""
    for next_node, _ in node.next_functions:
        if next_node is None:
            continue
        dependencies[next_node] -= 1
        if dependencies[next_node] == 0:
            ready.push(next_node)


def add_to_buffer(buffers, node, output_nr, grad):
    """Sum gradients arriving at the same output of a node (a value used twice gets both)."""
    grads = buffers.get(node)
    if grads is None:
        grads = buffers[node] = [None]
    if output_nr >= len(grads):
        grads.extend([None] * (output_nr + 1 - len(grads)))
    if grads[output_nr] is None:
        grads[output_nr] = grad
    else:
        grads[output_nr] = grads[output_nr] + grad


__all__ = ["execute", "gradient_edge", "fit_gradient", "BackwardRun"]
