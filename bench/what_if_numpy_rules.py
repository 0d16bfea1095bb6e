"""Where an ordinary backward pass spends its time beyond NumPy's work (issue 19's decision).

tensorgrad's derivative rules are tensor operations (`grad.mm(mat2.t())`), so that
`create_graph=True` records the gradient's own graph with no extra code, and its engine keeps
PyTorch's behaviour (hooks, `.grad` that never shares memory, broadcasting undone as PyTorch's
`sum_to` does it). This script takes an ordinary backward pass apart, on the per-op chain and
the MLP training step of bench_core.py. The forward pass is always tensorgrad's own (the same
graph, nodes and saved values); the backward pass is, from the leanest to tensorgrad's:

  arrays         the engine's walk (dependencies counted first, the newest ready node next,
                 gradients summed in one buffer per node, each fitted to its input's shape)
                 with each rule run on NumPy arrays; a leaf takes what it gets as its `.grad`
  + copy         a leaf copies its first gradient, as tensorgrad's does (`.grad` never shares
                 memory with anything)
  + tensors      gradients travel between nodes as Tensors
  + fit          broadcasting undone with `Tensor.sum_to_size`, as the engine does
  + engine       tensorgrad's own `backward()` and engine (its checks, and the lookups for
                 hooks, instruments and captures), the rules still on arrays
  tensorgrad     the rules as they are: tensor operations

The array rules are written here for these node types only, with the formulas of
derivatives.py (relu, tanh and log_softmax call the same fused NumPy functions, ops/fused.py);
they skip the saved-tensor version checks. Every run first checks that each variant gives
tensorgrad's gradients (tests/test_bench.py does too).

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
from tensorgrad.core.engine import count_dependencies, fit_gradient  # noqa: E402
from tensorgrad.core.node import AccumulateGrad, SavedTensor  # noqa: E402
from tensorgrad.core.rule import Rule  # noqa: E402
from tensorgrad.ops import fused  # noqa: E402
from tensorgrad.ops.reduction import broadcast_dims  # noqa: E402


# -- the rules on arrays ----------------------------------------------------------------------
def saved_arrays(node):
    """The arrays a node saved (a saved output keeps its data; any other its tensor), and any
    plain value as it is."""
    return [value if not isinstance(value, SavedTensor)
            else value._data if value._tensor is None else value._tensor._data
            for value in node._for_backward]


def needs(node):
    return [next_node is not None for next_node, _ in node.next_functions]


def mul_rule(node, g):
    other, self = saved_arrays(node)
    needs_self, needs_other = needs(node)
    return (g * other if needs_self else None, g * self if needs_other else None)


def mm_rule(node, g):
    a, w = saved_arrays(node)
    needs_a, needs_w = needs(node)
    return (g @ w.T if needs_a else None, a.T @ g if needs_w else None)


def index_into_zeros(node, g):
    data = np.zeros(node.self_sym_sizes, dtype=g.dtype)
    np.add.at(data, node._for_backward[0], g)
    return data


ARRAY_RULES = {  # node class name -> (node, gradient array) -> one array (or None) per input
    "AddBackward0": lambda node, g: (g, g if node.alpha == 1 else g * node.alpha),
    "MulBackward0": mul_rule,
    "TanhBackward0": lambda node, g: (fused.tanh_backward(g, saved_arrays(node)[0]),),
    "NegBackward0": lambda node, g: (-g,),
    "MeanBackward0": lambda node, g: (np.broadcast_to(g, node.self_sym_sizes)
                                      / node.self_sym_numel,),
    "IndexBackward0": lambda node, g: (index_into_zeros(node, g),),
    "LogSoftmaxBackward0": lambda node, g: (
        fused.log_softmax_backward_data(g, saved_arrays(node)[0], node.dim),),
    "MmBackward0": mm_rule,
    "ReluBackward0": lambda node, g: (fused.threshold_backward(g, saved_arrays(node)[0]),),
}


def sum_to_shape(g, shape):
    """Tensor.sum_to_size's computation, on an array."""
    dims = broadcast_dims(shape, g.shape)
    return np.add.reduce(g, axis=dims, keepdims=True).reshape(shape) if dims else g


# -- the backward passes ----------------------------------------------------------------------
def lean_backward(loss, gradient=None, *, copy=False, tensors=False, fit=False):
    """engine.execute's walk with the array rules, with (or without) what the variants add."""
    wrap = tg.Tensor._make
    root = loss.grad_fn
    dependencies = count_dependencies([root])
    first = np.ones((), loss._data.dtype) if gradient is None else gradient._data
    buffers = {root: wrap(first) if tensors else first}
    pushes = itertools.count()
    ready = [(-root._sequence_nr, next(pushes), root)]
    while ready:
        node = heapq.heappop(ready)[2]
        g = buffers.pop(node)
        if type(node) is AccumulateGrad:
            leaf, array = node.variable, g._data if tensors else g
            if leaf._grad is None:
                leaf._grad = wrap(array.copy() if copy else array)
            else:
                leaf._grad._data += array
            continue
        input_grads = ARRAY_RULES[type(node).__name__](node, g._data if tensors else g)
        if tensors:
            input_grads = [None if grad is None else wrap(grad) for grad in input_grads]
        node._for_backward = ()
        for (next_node, _), grad, meta in zip(node.next_functions, input_grads, node._input_meta):
            if next_node is None or grad is None:
                continue
            if (grad._data if tensors else grad).shape != meta[0]:
                if fit:
                    grad = fit_gradient(grad, *meta)
                elif tensors:
                    grad = wrap(sum_to_shape(grad._data, meta[0]))
                else:
                    grad = sum_to_shape(grad, meta[0])
            buffered = buffers.get(next_node)
            buffers[next_node] = grad if buffered is None else buffered + grad
            dependencies[next_node] -= 1
            if not dependencies[next_node]:
                heapq.heappush(ready, (-next_node._sequence_nr, next(pushes), next_node))


def apply_on_arrays(node, grads):
    """Rule.apply with the array rules: tensorgrad's engine hands it tensors, takes tensors."""
    arrays = ARRAY_RULES[type(node).__name__](node, grads[0]._data)
    return tuple(None if array is None else tg.Tensor._make(array) for array in arrays)


def engine_backward(loss, gradient=None):
    """`loss.backward(gradient)` through tensorgrad's own engine, with the array rules."""
    Rule.apply = apply_on_arrays
    try:
        loss.backward(gradient)
    finally:
        Rule.apply = TENSOR_APPLY


TENSOR_APPLY = Rule.apply

VARIANTS = {
    "arrays": lean_backward,
    "+ copy": lambda loss, gradient=None: lean_backward(loss, gradient, copy=True),
    "+ tensors": lambda loss, gradient=None: lean_backward(loss, gradient, copy=True,
                                                          tensors=True),
    "+ fit": lambda loss, gradient=None: lean_backward(loss, gradient, copy=True, tensors=True,
                                                      fit=True),
    "+ engine": engine_backward,
    "tensorgrad": lambda loss, gradient=None: loss.backward(gradient),
}


# -- checks and timing ------------------------------------------------------------------------
def check_chain(length):
    """Each variant gives the per-op chain's gradient as tensorgrad's own backward does."""
    ops = bench_core.chain_ops(length)
    x = tg.tensor([-1., -.3, .3, 1.], requires_grad=True)
    expected = bench_core.autograd_chain(x, ops, tg.ones(4))._data
    for backward in VARIANTS.values():
        backward(bench_core.chain_forward(x, ops), tg.ones(4))
        np.testing.assert_allclose(x.grad._data, expected, rtol=1e-5)
        x.grad = None


def check_gradients(batch):
    """Each variant gives the MLP's gradients as tensorgrad's own backward does."""
    x, y, params = bench_core.mlp_data(batch)
    grads = []
    for backward in VARIANTS.values():
        ps = [tg.from_numpy(p.copy()).requires_grad_() for p in params]
        w1, b1, w2, b2 = ps
        h = (tg.from_numpy(x) @ w1 + b1).relu()
        loss = -(h @ w2 + b2).log_softmax(dim=1)[tg.arange(batch), tg.from_numpy(y)].mean()
        backward(loss)
        grads.append([p.grad._data for p in ps])
    for variant in grads[:-1]:
        for mine, theirs in zip(variant, grads[-1]):
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-7)


def medians(runs, rounds, scale):
    """Interleaved rounds, CPU time: the median of each run's time, times `scale`."""
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.process_time()
            run()
            times[name].append((time.process_time() - start) * scale)
    return {name: sorted(t)[rounds // 2] for name, t in times.items()}


def show(title, result, unit, reference):
    print(f"\n{title}")
    for name, value in result.items():
        ratio = f"{value / result[reference]:6.2f}x {reference}" if reference in result else ""
        print(f"  {name:12} {value:9.2f} {unit}  {ratio}")


def main(rounds=9):
    print(f"NumPy {np.__version__}, BLAS threads {os.environ.get('OPENBLAS_NUM_THREADS', 'default')}, "
          f"load average {os.getloadavg()[0]:.2f}; medians of {rounds} interleaved rounds, CPU time")
    length = 2000
    check_chain(length)
    ops = bench_core.chain_ops(length)
    x, seed = tg.tensor([-1., -.3, .3, 1.], requires_grad=True), tg.ones(4)

    def chain(backward):
        def run():
            backward(bench_core.chain_forward(x, ops), seed)
            x.grad = None
        return run

    runs = {name: chain(backward) for name, backward in VARIANTS.items()}
    try:
        import torch
        torch.set_num_threads(1)
        xt, seed_t = torch.tensor([-1., -.3, .3, 1.], requires_grad=True), torch.ones(4)
        runs["torch"] = lambda: bench_core.autograd_chain(xt, ops, seed_t)
    except ImportError:
        pass
    show(f"per-op chain ({length:,} ops, forward and backward)", medians(runs, rounds, 1e6 / length),
         "us/op", "torch")
    for batch, steps in ((32, 100), (256, 20)):
        check_gradients(batch)
        x_np, y_np, params = bench_core.mlp_data(batch)
        runs = {name: bench_core.make_autograd_step(tg, x_np, y_np, [p.copy() for p in params],
                                                    backward=backward)[0]
                for name, backward in VARIANTS.items()}
        if peers.mygrad is not None:
            runs["MyGrad"] = peers.make_mygrad_step(x_np, y_np, params, bench_core.LR)[0]

        def repeated(step):
            return lambda: [step() for _ in range(steps)]

        show(f"MLP training step, batch {batch}",
             medians({name: repeated(step) for name, step in runs.items()}, rounds, 1e6 / steps),
             "us", "MyGrad")


if __name__ == "__main__":
    main()
