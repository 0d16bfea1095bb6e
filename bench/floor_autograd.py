"""The smallest autograd with tensorgrad's design, as a yardstick for the per-op benchmark.

It keeps the three rules the per-op cost is made of:
  * every operation makes a Tensor and, when a gradient is wanted, a node that links to its
    input's node (`next_functions`) and saves what its derivative needs;
  * derivative rules are written with Tensor operations (needle's rule), with recording off;
  * backward counts dependencies, then runs ready nodes newest-first from a heap, summing
    gradients in buffers (DeZero's generation order), and a leaf node adds into `.grad`.

It leaves out everything else tensorgrad does to behave as PyTorch: dtype promotion, shape and
type checks, broadcasting, version counters, hooks, retain_grad, retain_graph, create_graph,
anomaly mode, error messages. It only knows `+ number`, `* number` and `tanh()`, so it can run
the per-op chain (`bench_core.chain_forward` and `autograd_chain` run it unchanged) and nothing
else. Its time per op says how much of tensorgrad's is the design itself; the rest is the price
of PyTorch's behaviour.
"""

import heapq
import itertools

import numpy as np

_recording = True
_sequence_numbers = itertools.count()


class Tensor:
    __slots__ = ("data", "grad_fn", "grad")

    def __init__(self, data, grad_fn=None):
        self.data = data
        self.grad_fn = grad_fn
        self.grad = None

    def requires_grad_(self):
        # The leaf and its AccumulateGrad point at each other: a reference cycle, which
        # tensorgrad avoids with a weak reference. A yardstick for speed can live with it.
        self.grad_fn = AccumulateGrad(self)
        return self

    def __add__(self, number):
        return _record(self.data + number, AddBackward, self, None)

    def __mul__(self, other):
        if isinstance(other, Tensor):  # only in derivative rules, where nothing is recorded
            return Tensor(self.data * other.data)
        return _record(self.data * other, MulBackward, self, other)

    def __rsub__(self, number):
        return _record(number - self.data, None, self, None)

    def tanh(self):
        result = np.tanh(self.data)
        return _record(result, TanhBackward, self, result)

    def backward(self, gradient):
        run_backward(self.grad_fn, gradient)


def _record(data, node_class, input_tensor, saved):
    if _recording and node_class is not None and input_tensor.grad_fn is not None:
        return Tensor(data, node_class(input_tensor.grad_fn, saved))
    return Tensor(data)


class Node:
    __slots__ = ("next_functions", "saved", "sequence_nr")

    def __init__(self, next_node, saved):
        self.next_functions = ((next_node, 0),)
        self.saved = saved
        self.sequence_nr = next(_sequence_numbers)


class AddBackward(Node):
    def backward(self, grad):
        return (grad,)


class MulBackward(Node):
    def backward(self, grad):
        return (grad * self.saved,)


class TanhBackward(Node):
    def backward(self, grad):
        y = Tensor(self.saved)
        return (grad * (1 - y * y),)


class AccumulateGrad:
    __slots__ = ("variable", "next_functions", "sequence_nr")

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()
        self.sequence_nr = float("inf")  # leaves run as soon as they are ready

    def backward(self, grad):
        leaf = self.variable
        leaf.grad = grad if leaf.grad is None else Tensor(leaf.grad.data + grad.data)
        return ()


def run_backward(root, gradient):
    global _recording
    dependencies = {root: 0}
    stack = [root]
    while stack:
        for next_node, _ in stack.pop().next_functions:
            if next_node in dependencies:
                dependencies[next_node] += 1
            else:
                dependencies[next_node] = 1
                stack.append(next_node)
    buffers = {root: gradient}
    ready = [(-root.sequence_nr, 0, root)]
    pushed = itertools.count(1)
    _recording = False
    try:
        while ready:
            node = heapq.heappop(ready)[2]
            input_grads = node.backward(buffers.pop(node))
            if isinstance(node, Node):
                node.saved = None  # free what the forward pass saved
            for (next_node, _), grad in zip(node.next_functions, input_grads):
                buffered = buffers.get(next_node)
                buffers[next_node] = grad if buffered is None else Tensor(buffered.data + grad.data)
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, (-next_node.sequence_nr, next(pushed), next_node))
    finally:
        _recording = True


def leaf(values):
    """A float32 leaf that requires grad, as `tg.tensor(values, requires_grad=True)`."""
    return Tensor(np.asarray(values, dtype=np.float32)).requires_grad_()


def ones(n):
    return Tensor(np.ones(n, np.float32))
