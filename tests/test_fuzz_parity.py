"""Random programs run on tensorgrad and on PyTorch, step by step (skipped without torch).

Each program starts from a few tensors of mixed shapes and dtypes, some requiring grad, and
applies random operations from issue 2's list to random operands: broadcasting or not, with
Python numbers, in place or not. After every step both libraries must agree on the outcome:
either the same exception class and text, or a result with the same shape, dtype, flags,
grad_fn name, next_functions names and values, and, when the values are equal, the same repr.
At the end each program backpropagates, and differentiates its gradient again
(create_graph=True), and the leaves' gradients must agree as well.

Three things are compared less strictly, on purpose:
  * an in-place change of a view that requires grad, and a view used after its base was
    changed in place: tensorgrad refuses both (deliberate differences, see docs/library.md), so a
    program stops there when tensorgrad says so;
  * a zero's sign: a sum of products that is exactly 0 (a dot product, say) may be 0. or -0.
    depending on the order the two libraries add in, so "-0." against "0." is not counted;
    the cases where tensorgrad must print torch's sign (relu, maximum, clamp's gradient, ...)
    are pinned down in tests/test_fuzz_findings.py;
  * the gradients from create_graph=True are compared by value, dtype, shape and
    requires_grad, and the first ones by their printed values, but not by the names of the
    nodes inside them: where tensorgrad writes a derivative rule with other operations than
    PyTorch (IndexPutIntoZerosBackward for an index's gradient, say), the recorded nodes
    differ while every value agrees. Where either library's second derivative is nan the
    other may give a number: pow's rule masks only 0⁰, on purpose, so that the derivative of
    a^b in b stays right at a = 0 (see PowBackward1), where PyTorch masks every zero exponent.

The seeds are fixed, so a failure names a reproducible program; `describe` prints its steps.
"""

import math
import warnings

import numpy as np
import pytest

from parity import show

SHAPES = [(), (1,), (3,), (4,), (1, 1), (2, 3), (1, 3), (2, 1), (3, 3), (2, 2, 3), (3, 1, 2),
          (2, 1, 3, 1), (0,), (2, 0)]
PROGRAMS_PER_SEED = 60
STEPS = 8


# -- the outcome of one step in one library ----------------------------------------------------
def is_deliberate_difference(outcome):
    """tensorgrad's own refusals (docs/library.md, "Deliberate differences from PyTorch")."""
    from tensorgrad.autograd import messages

    if outcome[0] != "error":
        return False
    text = outcome[2]
    return text in (show(messages.IN_PLACE_ON_VIEW), show(messages.STALE_VIEW))


def run(call):
    """('ok', value) or ('error', class name, text)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ("ok", call())
        except Exception as error:  # noqa: BLE001  (any exception is part of the outcome)
            return ("error", type(error).__name__, show(str(error)))


def to_numpy(tensor):
    tensor = tensor.detach()
    if getattr(tensor, "_is_zerotensor", lambda: False)():
        # torch's zero gradients can be ZeroTensors, whose numpy() may crash the interpreter
        # (torch 2.13 with a storage offset): they are all zeros anyway
        return np.zeros(tuple(tensor.shape), dtype=str(tensor.dtype).replace("torch.", ""))
    return tensor.numpy()


def node_names(grad_fn):
    if grad_fn is None:
        return None
    return (grad_fn.name(), [None if node is None else (show(node.name()), nr)
                             for node, nr in grad_fn.next_functions])


def same_values(a, b, *, nan_may_be_a_number=False, scale=1.0):
    """Equal shapes and values: exactly for integers and bools, closely for floats (the two
    libraries' exp, tanh and sums may differ in the last bit)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind != "f":
        return np.array_equal(a, b)
    if nan_may_be_a_number:  # second derivatives at pow's singular points (see above)
        either = np.isnan(a) | np.isnan(b)
        a, b = np.where(either, np.nan, a), np.where(either, np.nan, b)
    tolerance = 1e-4  # float64 results may come from float32 values (mixed promotion)
    return np.allclose(a, b, rtol=tolerance, atol=tolerance * scale, equal_nan=True)


def compare_tensors(ours, theirs, what, *, compare_nodes=True, second_order=False, scale=1.0):
    """A list of differences between a tensorgrad tensor and a torch tensor. `scale`: how
    large the values were that this one was computed from (see compare_grads)."""
    problems = []
    if show(str(ours.dtype)) != show(str(theirs.dtype)):
        return [f"{what}: dtype {ours.dtype} vs {theirs.dtype}"]
    if tuple(ours.shape) != tuple(theirs.shape):
        return [f"{what}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"]
    for flag in ("requires_grad", "is_leaf"):
        if getattr(ours, flag) != getattr(theirs, flag):
            problems.append(f"{what}: {flag} {getattr(ours, flag)} vs {getattr(theirs, flag)}")
    if compare_nodes and node_names(ours.grad_fn) != node_names(theirs.grad_fn):
        problems.append(f"{what}: grad_fn {node_names(ours.grad_fn)} vs {node_names(theirs.grad_fn)}")
    a, b = to_numpy(ours), to_numpy(theirs)
    if not same_values(a, b, nan_may_be_a_number=second_order, scale=scale):
        problems.append(f"{what}: values\n{a!r}\nvs\n{b!r}")
    elif second_order or not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
        pass
    elif compare_nodes and show(repr(ours)) != show(repr(theirs)):
        if np.array_equal(np.signbit(a), np.signbit(b)):  # not only the sign of a zero
            problems.append(f"{what}: repr\n{show(repr(ours))}\nvs\n{show(repr(theirs))}")
    elif not compare_nodes and printed(ours) != printed(theirs):
        problems.append(f"{what}: printed values\n{printed(ours)}\nvs\n{printed(theirs)}")
    return problems


def printed(gradient):
    """A gradient's printed values, with -0. read as 0.: inside long chains of derivative rules
    the sign of a zero depends on the order of each rule's terms (tests/test_fuzz_findings.py
    checks the simple cases, where it must print as torch's)."""
    return show(repr(gradient.detach() + 0.0))


def compare_outcomes(ours, theirs, what):
    if ours[0] != theirs[0]:
        return [f"{what}: tensorgrad {ours[:3] if ours[0] == 'error' else 'succeeded'}, "
                f"torch {theirs[:3] if theirs[0] == 'error' else 'succeeded'}"]
    if ours[0] == "error":
        return [] if ours[1:] == theirs[1:] else [f"{what}: error {ours[1:]} vs {theirs[1:]}"]
    a, b = ours[1], theirs[1]
    if isinstance(b, tuple):  # max(dim) and min(dim): (values, indices)
        return [p for i, (x, y) in enumerate(zip(a, b)) for p in compare_tensors(x, y, f"{what}[{i}]")]
    return compare_tensors(a, b, what)


# -- random programs ----------------------------------------------------------------------------
def random_array(rng, shape=None):
    shape = SHAPES[rng.integers(len(SHAPES))] if shape is None else shape
    kind = rng.choice(["float32", "float32", "float32", "float64", "int64", "bool"])
    if kind == "bool":
        return rng.random(shape) < 0.5
    if kind == "int64":
        return rng.integers(-3, 4, shape).astype(np.int64)
    # away from 0 and from each other, so kinks and ties are rare but still possible
    return (rng.uniform(0.2, 2.0, shape) * rng.choice([-1, 1], shape)).astype(kind)


def python_number(rng):
    return [0.5, 2, -1.5, 3, True, 0.25][rng.integers(6)]


UNARY = ["neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "matmul"]


def random_step(rng, pool):
    """(description, function of (lib, tensors) that does one step)."""
    i = int(rng.integers(len(pool)))
    j = int(rng.integers(len(pool)))
    x_shape = pool[i].shape
    ndim = len(x_shape)
    kind = rng.choice(["unary", "binary", "binary", "scalar", "reduce", "shape", "index", "join",
                       "softmax", "clamp", "where", "inplace"])
    if kind == "unary":
        name = UNARY[rng.integers(len(UNARY))]
        return f"t{i}.{name}()", lambda lib, t: getattr(t[i], name)()
    if kind == "binary":
        name = BINARY[rng.integers(len(BINARY))]
        if name == "matmul":
            return f"t{i} @ t{j}", lambda lib, t: t[i] @ t[j]
        if name == "maximum":
            return f"maximum(t{i}, t{j})", lambda lib, t: lib.maximum(t[i], t[j])
        symbol = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**"}[name]
        return f"t{i} {symbol} t{j}", lambda lib, t: OPERATORS[symbol](t[i], t[j])
    if kind == "scalar":
        number = python_number(rng)
        symbol = ["+", "-", "*", "/", "**"][rng.integers(5)]
        if symbol == "**" and number is True:
            number = 2  # True ** tensor hits an internal assert in torch 2.13's backward
        if rng.random() < 0.5:
            return f"t{i} {symbol} {number!r}", lambda lib, t: OPERATORS[symbol](t[i], number)
        return f"{number!r} {symbol} t{i}", lambda lib, t: OPERATORS[symbol](number, t[i])
    if kind == "reduce":
        name = ["sum", "mean", "max", "min", "prod", "var", "norm"][rng.integers(7)]
        if rng.random() < 0.5 or name == "norm":
            return f"t{i}.{name}()", lambda lib, t: getattr(t[i], name)()
        dim = int(rng.integers(-max(ndim, 1), max(ndim, 1)))
        keepdim = bool(rng.random() < 0.5)
        return (f"t{i}.{name}(dim={dim}, keepdim={keepdim})",
                lambda lib, t: getattr(t[i], name)(dim=dim, keepdim=keepdim))
    if kind == "shape":
        return random_shape_step(rng, i, x_shape)
    if kind == "index":
        return random_index_step(rng, i, x_shape)
    if kind == "join":
        name = "cat" if rng.random() < 0.5 else "stack"
        dim = int(rng.integers(-1, 2))
        return (f"{name}([t{i}, t{j}], dim={dim})",
                lambda lib, t: getattr(lib, name)([t[i], t[j]], dim=dim))
    if kind == "softmax":
        name = "softmax" if rng.random() < 0.5 else "log_softmax"
        dim = int(rng.integers(-max(ndim, 1), max(ndim, 1)))
        return f"t{i}.{name}(dim={dim})", lambda lib, t: getattr(t[i], name)(dim=dim)
    if kind == "clamp":
        low, high = [(-0.5, 0.5), (None, 1.0), (-1.0, None)][rng.integers(3)]
        return f"t{i}.clamp({low}, {high})", lambda lib, t: t[i].clamp(low, high)
    if kind == "where":
        return (f"where(t{i} > 0, t{j}, t{i})",
                lambda lib, t: lib.where(t[i] > 0, t[j], t[i]))
    name = ["add_", "sub_", "mul_"][rng.integers(3)]
    operand = python_number(rng) if rng.random() < 0.5 else None
    if operand is None:
        return f"t{i}.{name}(t{j})", lambda lib, t: getattr(t[i], name)(t[j])
    return f"t{i}.{name}({operand!r})", lambda lib, t: getattr(t[i], name)(operand)


OPERATORS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
             "/": lambda a, b: a / b, "**": lambda a, b: a ** b}


def random_shape_step(rng, i, shape):
    ndim = len(shape)
    size = math.prod(shape)
    choice = rng.choice(["reshape", "view", "transpose", "T", "permute", "unsqueeze", "squeeze",
                         "flatten", "expand", "repeat"])
    if choice in ("reshape", "view"):
        new_shape = [(size,), (-1,), (1, size), (size, 1), (2, -1), (5,)][rng.integers(6)]
        return f"t{i}.{choice}{new_shape}", lambda lib, t: getattr(t[i], choice)(*new_shape)
    if choice == "transpose":
        a, b = (int(v) for v in rng.integers(-max(ndim, 1), max(ndim, 1), 2))
        return f"t{i}.transpose({a}, {b})", lambda lib, t: t[i].transpose(a, b)
    if choice == "T":
        return f"t{i}.t()", lambda lib, t: t[i].t()
    if choice == "permute":
        order = [int(v) for v in rng.permutation(ndim)]
        return f"t{i}.permute({order})", lambda lib, t: t[i].permute(*order)
    if choice == "unsqueeze":
        dim = int(rng.integers(-ndim - 1, ndim + 1))
        return f"t{i}.unsqueeze({dim})", lambda lib, t: t[i].unsqueeze(dim)
    if choice == "squeeze":
        if rng.random() < 0.5 or ndim == 0:
            return f"t{i}.squeeze()", lambda lib, t: t[i].squeeze()
        dim = int(rng.integers(-ndim, ndim))
        return f"t{i}.squeeze({dim})", lambda lib, t: t[i].squeeze(dim)
    if choice == "flatten":
        return f"t{i}.flatten()", lambda lib, t: t[i].flatten()
    if choice == "expand":
        target = (2,) + tuple(shape)
        return f"t{i}.expand{target}", lambda lib, t: t[i].expand(*target)
    reps = (2,) * max(ndim, 1)
    return f"t{i}.repeat{reps}", lambda lib, t: t[i].repeat(*reps)


def random_index_step(rng, i, shape):
    if not shape:
        return f"t{i}[None]", lambda lib, t: t[i][None]
    size = shape[0]
    choice = rng.choice(["int", "slice", "array", "mask"])
    if choice == "int":
        k = int(rng.integers(-size - 1, size + 1))
        return f"t{i}[{k}]", lambda lib, t: t[i][k]
    if choice == "slice":
        return f"t{i}[1:]", lambda lib, t: t[i][1:]
    if choice == "array":
        picks = [int(v) for v in rng.integers(0, size, 3)] if size else []
        return f"t{i}[{picks}]", lambda lib, t: t[i][lib.tensor(picks)]
    return f"t{i}[t{i} > 0]", lambda lib, t: t[i][t[i] > 0]


def make_leaves(lib, arrays, requires):
    leaves = []
    for array, flag in zip(arrays, requires):
        tensor = lib.tensor(array.tolist(), dtype=getattr(lib, array.dtype.name))
        leaves.append(tensor.requires_grad_() if flag else tensor)
    return leaves


def run_program(torch, seed):
    """Run one random program on both libraries; returns (steps, problems)."""
    import tensorgrad as tg

    rng = np.random.default_rng(seed)
    arrays = [random_array(rng) for _ in range(int(rng.integers(2, 4)))]
    requires = [a.dtype.kind == "f" and bool(rng.random() < 0.7) for a in arrays]
    ours, theirs = make_leaves(tg, arrays, requires), make_leaves(torch, arrays, requires)
    steps = [f"t{k} = tensor({a.tolist()}, dtype={a.dtype.name}, requires_grad={r})"
             for k, (a, r) in enumerate(zip(arrays, requires))]
    for _ in range(STEPS):
        description, step = random_step(rng, ours)
        steps.append(f"t{len(ours)} = {description}")
        a, b = run(lambda: step(tg, ours)), run(lambda: step(torch, theirs))
        if is_deliberate_difference(a):
            steps[-1] += "  # tensorgrad refuses this on purpose (see docs/library.md)"
            return steps, []
        problems = compare_outcomes(a, b, steps[-1])
        if problems:
            return steps, problems
        if a[0] == "error":
            steps[-1] += "  # raises, in both"
        else:
            result_a, result_b = (a[1][0], b[1][0]) if isinstance(a[1], tuple) else (a[1], b[1])
            ours.append(result_a)
            theirs.append(result_b)
    return steps, backpropagate(tg, torch, ours, theirs, steps)


def backpropagate(tg, torch, ours, theirs, steps):
    """Backward from the last float result, then the gradient of that gradient."""
    last = [k for k, t in enumerate(ours) if t.requires_grad and t.dtype.is_floating_point]
    leaves = [k for k, t in enumerate(ours) if t.is_leaf and t.requires_grad]
    if not last or not leaves:
        return []
    k = last[-1]
    steps.append(f"grads = autograd.grad(t{k}.sum(), leaves, create_graph=True, allow_unused=True)")

    def first(lib, tensors):
        return lib.autograd.grad(tensors[k].sum(), [tensors[n] for n in leaves],
                                 create_graph=True, allow_unused=True)

    a, b = run(lambda: first(tg, ours)), run(lambda: first(torch, theirs))
    problems = compare_grads(a, b, steps[-1])
    if problems or a[0] == "error":
        return problems
    if not any(g is not None and g.requires_grad for g in b[1]):
        return []
    steps.append("autograd.grad(sum of g.sum() for grads that require grad), leaves, allow_unused=True)")

    def second(lib, grads, tensors):
        total = sum(g.sum() for g in grads if g is not None and g.requires_grad)
        return lib.autograd.grad(total, [tensors[n] for n in leaves], allow_unused=True)

    # A second derivative is a sum of terms as large as the first gradients; in float32 what
    # is left after they cancel is rounding, which the two libraries do differently.
    finite = [to_numpy(g)[np.isfinite(to_numpy(g))] for g in b[1] if g is not None]
    scale = max([1.0] + [float(np.abs(values).max(initial=0.0)) for values in finite])
    return compare_grads(run(lambda: second(tg, a[1], ours)),
                         run(lambda: second(torch, b[1], theirs)), steps[-1], second_order=True,
                         scale=scale)


def compare_grads(a, b, what, *, second_order=False, scale=1.0):
    if a[0] != "ok" or b[0] != "ok":
        return compare_outcomes(a, b, what)
    problems = []
    for n, (x, y) in enumerate(zip(a[1], b[1])):
        if (x is None) != (y is None):
            problems.append(f"{what}: gradient {n} is {x!r} vs {y!r}")
        elif x is not None:
            problems += compare_tensors(x, y, f"{what}: gradient {n}", compare_nodes=False,
                                        second_order=second_order, scale=scale)
    return problems


def describe(steps, problems):
    return "\n".join(["program:"] + ["  " + s for s in steps] + ["differences:"] + problems)


@pytest.mark.parametrize("seed", range(8))
def test_random_programs_behave_as_in_pytorch(seed):
    torch = pytest.importorskip("torch")
    failures = []
    for program in range(PROGRAMS_PER_SEED):
        steps, problems = run_program(torch, seed * 1000 + program)
        if problems:
            failures.append(describe(steps, problems))
    assert not failures, f"{len(failures)} programs differ; the first:\n" + failures[0]
