"""What if the derivative rules ran on NumPy arrays when no graph is recorded? (issue 19)

tensorgrad's rules are tensor operations (`grad.mm(mat2.t())`), so that `create_graph=True`
records the gradient's own graph with no extra code. The price is paid in every ordinary
backward pass too: each rule's operations go through the PyTorch surface and `record`, where
MyGrad and HIPS autograd call NumPy directly. This script measures what the MLP training step
of bench_core.py would take if, without create_graph, the rules ran on the arrays instead:

  * the forward pass is tensorgrad's own (the same graph, nodes and saved values);
  * the backward pass walks that graph as `engine.execute` does (dependencies counted first,
    the newest ready node next, gradients summed in one buffer per node, each fitted to its
    input's shape), but each of the MLP's node types runs its rule on NumPy arrays (below),
    and a leaf takes the array it receives as its `.grad` without a copy;
  * the SGD update is the same as bench_core's.

The array rules are written here for the MLP's node types only, with the formulas of
derivatives.py (relu and log_softmax call the same fused NumPy functions, ops/fused.py). They
skip what tensorgrad checks on the way (saved-tensor versions, hooks): the figure is a lower
bound on what rules on arrays could give, not a design. Every run first checks that the
gradients equal tensorgrad's own backward's.

    .venv/bin/python bench/what_if_numpy_rules.py [--threads 1]
"""

import heapq
import itertools
import os
import sys
import time

if "--threads" in sys.argv:  # before NumPy starts its BLAS
    threads = sys.argv[sys.argv.index("--threads") + 1]
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = threads

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_core  # noqa: E402
import peers  # noqa: E402
import tensorgrad as tg  # noqa: E402
from tensorgrad.autograd.engine import count_dependencies  # noqa: E402
from tensorgrad.autograd.node import AccumulateGrad, SavedTensor  # noqa: E402
from tensorgrad.autograd.rule import Rule  # noqa: E402
from tensorgrad.ops import fused  # noqa: E402


def saved_arrays(node):
    """The arrays a node saved (a saved output keeps its data; any other its tensor), and any
    plain value as it is."""
    return [value if not isinstance(value, SavedTensor)
            else value._data if value._tensor is None else value._tensor._data
            for value in node._for_backward]


def mul_rule(node, g):
    other, self = saved_arrays(node)
    needs_self, needs_other = (next_node is not None for next_node, _ in node.next_functions)
    return (g * other if needs_self else None, g * self if needs_other else None)


def mm_rule(node, g):
    a, w = saved_arrays(node)
    needs_a, needs_w = (next_node is not None for next_node, _ in node.next_functions)
    return (g @ w.T if needs_a else None, a.T @ g if needs_w else None)


ARRAY_RULES = {  # node class name -> (node, gradient array) -> one array (or None) per input
    "NegBackward0": lambda node, g: (-g,),
    "MeanBackward0": lambda node, g: (np.broadcast_to(g, node.self_sym_sizes)
                                      / node.self_sym_numel,),
    "IndexBackward0": lambda node, g: (index_into_zeros(g, node),),
    "LogSoftmaxBackward0": lambda node, g: (
        fused.log_softmax_backward_data(g, saved_arrays(node)[0], node.dim),),
    "AddBackward0": lambda node, g: (g, g if node.alpha == 1 else g * node.alpha),
    "MmBackward0": mm_rule,
    "MulBackward0": mul_rule,
    "TanhBackward0": lambda node, g: (fused.tanh_backward(g, saved_arrays(node)[0]),),
    "ReluBackward0": lambda node, g: (fused.threshold_backward(g, saved_arrays(node)[0]),),
}


def index_into_zeros(g, node):
    data = np.zeros(node.self_sym_sizes, dtype=g.dtype)
    np.add.at(data, node._for_backward[0], g)
    return data


def sum_to_shape(g, shape):
    extra = g.ndim - len(shape)
    dims = tuple(range(extra)) + tuple(extra + i for i, size in enumerate(shape)
                                       if size == 1 and g.shape[extra + i] != 1)
    return np.add.reduce(g, axis=dims, keepdims=True).reshape(shape) if dims else g


def apply_on_arrays(node, grads):
    """Rule.apply with the array rules: tensorgrad's engine still hands it tensors and takes
    tensors back (fitting them to their inputs, adding them into `.grad`)."""
    arrays = ARRAY_RULES[type(node).__name__](node, grads[0]._data)
    return tuple(None if array is None else tg.Tensor._make(array) for array in arrays)


def backward_with_array_rules(loss, gradient=None):
    """`loss.backward(gradient)` through tensorgrad's own engine, with the array rules."""
    Rule.apply = apply_on_arrays
    try:
        loss.backward(gradient)
    finally:
        Rule.apply = TENSOR_APPLY


TENSOR_APPLY = Rule.apply


def backward_on_arrays(loss, gradient=None):
    """engine.execute's walk, leaner (no hooks, instruments or captures to look for), with the
    array rules above; a leaf takes its first gradient without a copy."""
    root = loss.grad_fn
    dependencies = count_dependencies([root])
    buffers = {root: np.ones((), loss._data.dtype) if gradient is None else gradient._data}
    pushes = itertools.count()
    ready = [(-root._sequence_nr, next(pushes), root)]
    while ready:
        node = heapq.heappop(ready)[2]
        g = buffers.pop(node)
        if type(node) is AccumulateGrad:
            leaf = node.variable
            if leaf._grad is None:
                leaf._grad = tg.Tensor._make(g)
            else:
                leaf._grad._data += g
            continue
        input_grads = ARRAY_RULES[type(node).__name__](node, g)
        if input_grads[0] is not None and input_grads[0].dtype != g.dtype:  # (g * 0.9: float64)
            input_grads = tuple(None if grad is None else grad.astype(g.dtype, copy=False)
                                for grad in input_grads)
        node._for_backward = ()
        for (next_node, _), grad, meta in zip(node.next_functions, input_grads, node._input_meta):
            if next_node is None or grad is None:
                continue
            if grad.shape != meta[0]:
                grad = sum_to_shape(grad, meta[0])
            buffered = buffers.get(next_node)
            buffers[next_node] = grad if buffered is None else buffered + grad
            dependencies[next_node] -= 1
            if not dependencies[next_node]:
                heapq.heappush(ready, (-next_node._sequence_nr, next(pushes), next_node))


def check_chain(length):
    """The array rules give the per-op chain's gradient as tensorgrad's own backward does."""
    ops = bench_core.chain_ops(length)
    x = tg.tensor([-1., -.3, .3, 1.], requires_grad=True)
    expected = bench_core.autograd_chain(x, ops, tg.ones(4))._data
    for backward in (backward_with_array_rules, backward_on_arrays):
        backward(bench_core.chain_forward(x, ops), tg.ones(4))
        np.testing.assert_allclose(x.grad._data, expected, rtol=1e-5)
        x.grad = None


def check_gradients(batch):
    """The array rules give tensorgrad's own gradients."""
    x, y, params = bench_core.mlp_data(batch)
    grads = []
    for backward in (tg.Tensor.backward, backward_with_array_rules, backward_on_arrays):
        ps = [tg.from_numpy(p.copy()).requires_grad_() for p in params]
        w1, b1, w2, b2 = ps
        h = (tg.from_numpy(x) @ w1 + b1).relu()
        loss = -(h @ w2 + b2).log_softmax(dim=1)[tg.arange(batch), tg.from_numpy(y)].mean()
        backward(loss)
        grads.append([p.grad._data for p in ps])
    for on_arrays in grads[1:]:
        for mine, theirs in zip(on_arrays, grads[0]):
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-7)


def per_op(rounds=9, length=2000):
    """The per-op chain of bench_core (forward and backward of 2,000 ops), per op."""
    ops = bench_core.chain_ops(length)
    x = tg.tensor([-1., -.3, .3, 1.], requires_grad=True)
    seed = tg.ones(4)

    def in_engine():
        backward_with_array_rules(bench_core.chain_forward(x, ops), seed)
        x.grad = None

    def lean():
        backward_on_arrays(bench_core.chain_forward(x, ops), seed)
        x.grad = None

    check_chain(length)
    runs = {"tensorgrad": lambda: bench_core.autograd_chain(x, ops, seed),
            "array rules": in_engine, "array rules, lean": lean}
    try:
        import torch
        torch.set_num_threads(1)
        xt, seed_t = torch.tensor([-1., -.3, .3, 1.], requires_grad=True), torch.ones(4)
        runs["torch"] = lambda: bench_core.autograd_chain(xt, ops, seed_t)
    except ImportError:
        pass
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.process_time()
            run()
            times[name].append((time.process_time() - start) / length * 1e6)
    medians = {name: sorted(t)[rounds // 2] for name, t in times.items()}
    for name, median in medians.items():
        ratio = f"  {median / medians['torch']:.2f}x torch" if "torch" in medians else ""
        print(f"per-op chain:              {name:18} {median:8.2f} us{ratio}")


def main():
    per_op()
    rounds, per_round = 9, {256: 20, 32: 100}
    print(f"NumPy {np.__version__}, BLAS threads {os.environ.get('OPENBLAS_NUM_THREADS', 'default')}, "
          f"load average {os.getloadavg()[0]:.2f}")
    for batch in (256, 32):
        check_gradients(batch)
        x, y, params = bench_core.mlp_data(batch)
        steps = {
            "tensorgrad": bench_core.make_autograd_step(tg, x, y, [p.copy() for p in params])[0],
            "array rules": bench_core.make_autograd_step(
                tg, x, y, [p.copy() for p in params], backward=backward_with_array_rules)[0],
            "array rules, lean": bench_core.make_autograd_step(
                tg, x, y, [p.copy() for p in params], backward=backward_on_arrays)[0],
        }
        if peers.mygrad is not None:
            steps["MyGrad"] = peers.make_mygrad_step(x, y, params, bench_core.LR)[0]
        times = {name: [] for name in steps}
        for _ in range(rounds):  # interleaved, CPU time
            for name, step in steps.items():
                start = time.process_time()
                for _ in range(per_round[batch]):
                    step()
                times[name].append((time.process_time() - start) / per_round[batch] * 1e6)
        medians = {name: sorted(t)[rounds // 2] for name, t in times.items()}
        mygrad = medians.get("MyGrad")
        for name, median in medians.items():
            ratio = f"  {median / mygrad:.2f}x MyGrad" if mygrad else ""
            print(f"MLP step, batch {batch:3}: {name:18} {median:8.1f} us{ratio}")


if __name__ == "__main__":
    main()
