"""The derivative table (tensorgrad/derivatives.py): one entry per differentiable operation.

- every graph node class in tensorgrad comes from the table (no other module defines one);
- each entry is checked by finite differences, at first and second order, on a small program
  whose graph (or whose gradient's graph, for the rules of fused derivatives) holds that node;
- a fused formulation gives the same gradients as the plain formula beside it (`same_as=`);
- the text a reader and the pictures get from an entry is there.
"""

import ast
import inspect
import pathlib

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad import derivatives
from tensorgrad.core import rule
from tensorgrad.core.node import AccumulateGrad
from tensorgrad.nn import functional as F

PACKAGE = pathlib.Path(tg.__file__).parent
RULES = {cls.__name__ for cls in rule.Rule.__subclasses__()}
NO_DERIVATIVE = {"NotImplemented"}  # (PyTorch's ops without one: backward raises, see below)


def _rng():
    return np.random.default_rng(0)


def values(*shape, low=-1.0, high=1.0):
    return tg.tensor(_rng().uniform(low, high, shape), requires_grad=True)


def positive(*shape):
    return values(*shape, low=0.5, high=2.0)


def spread(*shape):
    """Distinct values, well apart: no ties for max/min, no kinks of relu/abs/clamp near them."""
    n = int(np.prod(shape)) if shape else 1
    data = (np.arange(n) * 0.37 + 0.2) * np.where(np.arange(n) % 2, 1, -1)
    return tg.tensor(_rng().permutation(data).reshape(shape), requires_grad=True)


def probabilities(*shape):
    return values(*shape, low=0.2, high=0.8)


def _index_of_rows():
    return tg.tensor([2, 0, 1])


def _setitem(x, v):
    y = x * 1
    y[0] = v
    return y


def _setitem_advanced(x, v):
    y = x * 1
    y[[0, 2]] = v
    return y


def _fill(x):
    y = x * 1
    y.fill_(2.0)
    return y * x


def _fill_with_tensor(x, v):
    y = x * 1
    y.fill_(v * v)
    return y * x


def _random_fill(fill):
    """y = x * 1 refilled at random (the same values at every call: gradcheck calls it often),
    times x: the fill's gradient is zero, so only the factor x carries one."""
    def program(x):
        y = x * 1
        tg.manual_seed(0)
        getattr(y, fill)()
        return y * x
    return program


def _zero(x):
    y = x * 1
    y.zero_()
    return y + x


# rule name -> (function, inputs[, gradcheck options]). The function's graph, or that of its gradient, holds the node.
PROGRAMS = {
    "AddBackward0": (lambda a, b: a + 2 * b, lambda: [values(3), values(3)]),
    "SubBackward0": (lambda a, b: tg.sub(a, b, alpha=3), lambda: [values(3), values(3)]),
    "RsubBackward1": (lambda a: 1 - a, lambda: [values(3)]),
    "DivBackward1": (lambda a: F.cross_entropy(a, tg.tensor([[0.2, 0.8], [0.5, 0.5]])),
                     lambda: [values(2, 2)]),
    "MulBackward0": (lambda a, b: a * b, lambda: [values(3), values(3)]),
    "DivBackward0": (lambda a, b: a / b, lambda: [values(3), positive(3)]),
    "RemainderBackward0": (lambda a: a % 1.5, lambda: [values(3)]),
    "RemainderBackward1": (lambda a, b: a % b, lambda: [values(3), positive(3)]),
    "DivBackward2": (lambda a, b: tg.div(a, b, rounding_mode="floor") * a,
                     lambda: [spread(4), positive(4)]),
    "ReciprocalBackward0": (lambda a: a.reciprocal(), lambda: [positive(3)]),
    "NegBackward0": (lambda a: -a, lambda: [values(3)]),
    "PowBackward0": (lambda a: a ** 3, lambda: [values(3)]),
    "PowBackward1": (lambda a, b: a ** b, lambda: [positive(3), values(3)]),
    "PowBackward2": (lambda a: 2.0 ** a, lambda: [values(3)]),
    "ExpBackward0": (lambda a: a.exp(), lambda: [values(3)]),
    "LogBackward0": (lambda a: a.log(), lambda: [positive(3)]),
    "Log1PBackward0": (lambda a: tg.log1p(a), lambda: [positive(3)]),
    "Expm1Backward0": (lambda a: tg.expm1(a), lambda: [values(3)]),
    "SqrtBackward0": (lambda a: a.sqrt(), lambda: [positive(3)]),
    "SinBackward0": (lambda a: a.sin(), lambda: [values(3)]),
    "CosBackward0": (lambda a: a.cos(), lambda: [values(3)]),
    "TanhBackward0": (lambda a: a.tanh(), lambda: [values(3)]),
    "TanhBackwardBackward0": (lambda a: a.tanh(), lambda: [values(3)]),
    "SigmoidBackward0": (lambda a: a.sigmoid(), lambda: [values(3)]),
    "SigmoidBackwardBackward0": (lambda a: a.sigmoid(), lambda: [values(3)]),
    "ReluBackward0": (lambda a: a.relu() * a, lambda: [spread(4)]),
    "ThresholdBackwardBackward0": (lambda a: a.relu() * a, lambda: [spread(4)]),
    "AbsBackward0": (lambda a: a.abs() * a, lambda: [spread(4)]),
    "SignBackward0": (lambda a: a.sign() * a, lambda: [spread(4)]),
    "ClampBackward1": (lambda a: a.clamp(-0.5, 0.5) * a, lambda: [spread(4)]),
    "ClampBackward0": (lambda a: a.clamp(tg.tensor(-0.5, dtype=a.dtype), tg.tensor(0.5, dtype=a.dtype)) * a,
                       lambda: [spread(4)]),
    "MaximumBackward0": (lambda a, b: tg.maximum(a, b), lambda: [spread(4), values(4) * 0.1]),
    "MinimumBackward0": (lambda a, b: tg.minimum(a, b), lambda: [spread(4), values(4) * 0.1]),
    "WhereBackward0": (lambda a, b: tg.where(a > 0, a * a, b), lambda: [spread(4), values(4)]),
    "RoundBackward0": (lambda a: a.round() * a, lambda: [spread(4)]),
    "RoundBackward1": (lambda a: a.round(decimals=1) * a, lambda: [spread(4)]),
    "FloorBackward0": (lambda a: a.floor() * a, lambda: [spread(4)]),
    "CeilBackward0": (lambda a: a.ceil() * a, lambda: [spread(4)]),
    "TruncBackward0": (lambda a: a.trunc() * a, lambda: [spread(4)]),
    "SortBackward0": (lambda a: a.sort(dim=1).values * tg.tensor([1., 2., 3.]), lambda: [spread(2, 3)]),
    "SortBackward1": (lambda a: a.sort(dim=0, stable=True, descending=True).values ** 2,
                      lambda: [spread(2, 3)]),
    "IndexSelectBackward0": (lambda a: a.index_select(1, tg.tensor([2, 0, 2])) ** 2,
                             lambda: [values(2, 3)]),
    "MaskedFillBackward0": (lambda a: a.masked_fill(a > 0, 2.0) * a, lambda: [spread(4)]),
    "MaskedFillBackward1": (lambda a, v: a.masked_fill(a > 0, v) * a, lambda: [spread(4), values()]),
    "CloneBackward0": (lambda a: a.clone() * a, lambda: [values(3)]),
    # (through float32: differences of 1e-3, and a tolerance to match the rounding)
    "ToCopyBackward0": (lambda a: a.float().double() * a, lambda: [values(3)],
                        dict(eps=1e-3, atol=1e-3, rtol=1e-2)),
    "CopyBackwards": (lambda a: _copy_of_grad(a), lambda: [values(3)]),
    "FillBackward2": (_fill, lambda: [values(3)]),
    "FillBackward3": (_fill_with_tensor, lambda: [values(3), values()]),
    "ZeroBackward0": (_zero, lambda: [values(3)]),
    "NormalBackward0": (_random_fill("normal_"), lambda: [values(3)]),
    "UniformBackward0": (_random_fill("uniform_"), lambda: [values(3)]),
    "SumBackward0": (lambda a: (a * a).sum(), lambda: [values(2, 3)]),
    "SumBackward1": (lambda a: (a * a).sum(dim=1), lambda: [values(2, 3)]),
    "MeanBackward0": (lambda a: (a * a).mean(), lambda: [values(2, 3)]),
    "MeanBackward1": (lambda a: (a * a).mean(dim=0), lambda: [values(2, 3)]),
    "MaxBackward1": (lambda a: (a * a).max(), lambda: [spread(2, 3)]),
    "MinBackward1": (lambda a: (a * a).min(), lambda: [spread(2, 3)]),
    "MaxBackward0": (lambda a: (a * a).max(dim=1)[0], lambda: [spread(2, 3)]),
    "MinBackward0": (lambda a: (a * a).min(dim=1)[0], lambda: [spread(2, 3)]),
    "ScatterAlongBackward": (lambda a: a.max(dim=1)[0] ** 2, lambda: [spread(2, 3)]),
    "AmaxBackward0": (lambda a: (a * a).amax(dim=1), lambda: [spread(2, 3)]),
    "AminBackward0": (lambda a: (a * a).amin(dim=0), lambda: [spread(2, 3)]),
    "ProdBackward0": (lambda a: a.prod(), lambda: [values(2, 3)]),
    "ProdBackward1": (lambda a: a.prod(dim=1), lambda: [values(2, 3)]),
    "VarBackward0": (lambda a: a.var(dim=1), lambda: [values(2, 3)]),
    "StdBackward0": (lambda a: a.std(dim=1), lambda: [values(2, 3)]),
    "LinalgVectorNormBackward0": (lambda a: a.norm(dim=1), lambda: [values(2, 3)]),
    "SoftmaxBackward0": (lambda a: a.softmax(1) * a, lambda: [values(2, 3)]),
    "SoftmaxBackwardDataBackward0": (lambda a: a.softmax(1) * a, lambda: [values(2, 3)]),
    "LogSoftmaxBackward0": (lambda a: a.log_softmax(1) * a, lambda: [values(2, 3)]),
    "LogSoftmaxBackwardDataBackward0": (lambda a: a.log_softmax(1) * a, lambda: [values(2, 3)]),
    "LogsumexpBackward0": (lambda a: a.logsumexp(1), lambda: [values(2, 3)]),
    "CumsumBackward0": (lambda a: (a * a).cumsum(1), lambda: [values(2, 3)]),
    "GatherBackward0": (lambda a: (a * a).gather(1, tg.tensor([[0, 2], [1, 1]])),
                        lambda: [values(2, 3)]),
    "ScatterAddBackward": (lambda a: a.gather(1, tg.tensor([[0, 2], [1, 1]])) ** 2,
                           lambda: [values(2, 3)]),
    "ViewBackward0": (lambda a: (a * a).view(6), lambda: [values(2, 3)]),
    "UnsafeViewBackward0": (lambda a, b: (a @ b) * 1, lambda: [values(2, 2, 3), values(3)]),
    "ReshapeAliasBackward0": (lambda a: (a * a).t().reshape(3, 1, 2), lambda: [values(2, 3)]),
    "AliasBackward0": (lambda a: a.new(a * a) * a, lambda: [values(2, 3)]),
    "TransposeBackward0": (lambda a: (a * a).transpose(0, 1), lambda: [values(2, 3)]),
    "TBackward0": (lambda a: (a * a).t(), lambda: [values(2, 3)]),
    "PermuteBackward0": (lambda a: (a * a).permute(2, 0, 1), lambda: [values(2, 3, 2)]),
    "UnsqueezeBackward0": (lambda a: (a * a).unsqueeze(1), lambda: [values(2, 3)]),
    "SqueezeBackward0": (lambda a: (a * a).squeeze(), lambda: [values(2, 1, 3)]),
    "SqueezeBackward1": (lambda a: (a * a).squeeze(1), lambda: [values(2, 1, 3)]),
    "SqueezeBackward4": (lambda a, b: a @ b, lambda: [values(3), values(3, 2)]),
    "ExpandBackward0": (lambda a: (a * a).expand(2, 3), lambda: [values(1, 3)]),
    "RepeatBackward0": (lambda a: (a * a).repeat(2, 2), lambda: [values(2, 3)]),
    "CatBackward0": (lambda a, b: tg.cat([a * a, b], 0), lambda: [values(2, 3), values(1, 3)]),
    "StackBackward0": (lambda a, b: tg.stack([a * a, b], 1), lambda: [values(2, 3), values(2, 3)]),
    "FlipBackward0": (lambda a: (a * a).flip(0), lambda: [values(2, 3)]),
    "RollBackward0": (lambda a: (a * a).roll((1, -2), (0, 1)), lambda: [values(2, 3)]),
    "SelectBackward0": (lambda a: (a * a)[1], lambda: [values(2, 3)]),
    "SliceBackward0": (lambda a: (a * a)[:, 1:], lambda: [values(2, 3)]),
    "IndexBackward0": (lambda a: (a * a)[_index_of_rows()], lambda: [values(3, 2)]),
    "IndexPutIntoZerosBackward": (lambda a: a[1] ** 2, lambda: [values(2, 3)]),
    "CopySlices": (_setitem, lambda: [values(3, 2), values(2)]),
    "IndexPutBackward0": (_setitem_advanced, lambda: [values(3, 2), values(2)]),
    "DotBackward0": (lambda a, b: tg.dot(a, b), lambda: [values(3), values(3)]),
    "MmBackward0": (lambda a, b: a @ b, lambda: [values(2, 3), values(3, 2)]),
    "MvBackward0": (lambda a, b: a @ b, lambda: [values(2, 3), values(3)]),
    "BmmBackward0": (lambda a, b: a @ b, lambda: [values(2, 2, 3), values(2, 3, 2)]),
    "AddmmBackward0": (lambda x, w, b: F.linear(x, w, b),
                       lambda: [values(2, 3), values(4, 3), values(4)]),
    "MseLossBackward0": (lambda a, b: F.mse_loss(a, b), lambda: [values(2, 3), values(2, 3)]),
    "BinaryCrossEntropyBackward0": (lambda a, b: F.binary_cross_entropy(a, b),
                                    lambda: [probabilities(2, 3), probabilities(2, 3)]),
    "NllLossBackward0": (lambda a: F.nll_loss(a * a, tg.tensor([1, 0])), lambda: [values(2, 3)]),
    "BinaryCrossEntropyWithLogitsBackward0": (
        lambda a, b: F.binary_cross_entropy_with_logits(a, b, pos_weight=tg.tensor([2., 1., .5])),
        lambda: [values(2, 3) * 3, probabilities(2, 3)]),
    "NativeBatchNormBackward0": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
                                 lambda: [values(4, 3), positive(3), values(3)]),
}


def _copy_of_grad(a):
    """The node of a `.grad` made by backward(create_graph=True) is CopyBackwards."""
    leaf = a.detach().requires_grad_()
    (leaf * a).sum().backward(create_graph=True)  # leaf.grad = a, recorded
    return leaf.grad * a


def node_types(*tensors):
    """The names of all node types in the graphs of `tensors`."""
    seen, stack = set(), [t.grad_fn for t in tensors if t.grad_fn is not None]
    names = set()
    while stack:
        node = stack.pop()
        if node in seen or node is None:
            continue
        seen.add(node)
        names.add(type(node).__name__)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return names


def test_every_rule_has_a_program():
    assert set(PROGRAMS) == RULES - NO_DERIVATIVE


def test_an_operation_without_derivative_says_so_when_backward_reaches_it():
    a = tg.tensor([3.0, 5.0], requires_grad=True)
    y = tg.floor_divide(a * 1, 2)
    assert type(y.grad_fn) is derivatives.NotImplementedBackward
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        y.sum().backward()


def test_no_node_class_outside_the_table():
    """Every `class X(Node)` in tensorgrad is the machinery itself, never a derivative rule."""
    allowed = {"core/node.py", "core/rule.py", "autograd/function.py",
               "autograd/custom_function.py"}
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    getattr(base, "id", getattr(base, "attr", "")).endswith(("Node", "Backward"))
                    for base in node.bases):
                relative = path.relative_to(PACKAGE).as_posix()
                if relative not in allowed:
                    found.append(f"{relative}: {node.name}")
    assert not found


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_rule_checked_by_finite_differences(name):
    function, make_inputs, *options = PROGRAMS[name]
    options = options[0] if options else {}
    inputs = make_inputs()
    output = function(*inputs)
    grads = tg.autograd.grad(output.sum(), inputs, create_graph=True, allow_unused=True)
    graph = node_types(output, *[g for g in grads if g is not None])
    assert name in graph, f"the program for {name} records {sorted(graph)}"
    assert tg.autograd.gradcheck(function, tuple(make_inputs()), **options)
    assert tg.autograd.gradgradcheck(function, tuple(make_inputs()), **options)


FUSED = sorted(cls.__name__ for cls in rule.Rule.__subclasses__() if cls.same_as)


@pytest.mark.parametrize("name", FUSED)
def test_fused_formula_equals_the_plain_one(name):
    function, make_inputs, *_ = PROGRAMS[name]
    node = function(*make_inputs()).grad_fn
    while type(node).__name__ != name:  # the program may wrap the operation (relu(a) * a)
        node = next(n for n, _ in node.next_functions
                    if n is not None and not isinstance(n, AccumulateGrad))
    grad = tg.tensor(_rng().uniform(-1, 1, _output_shape(node)))
    fused = node.apply([grad])
    assert set(node.same_as) <= {input_name for input_name, _ in node.formulas}
    for (input_name, plain_formula), fused_grad in zip(node.same_as.items(), fused):
        plain = call_by_names(plain_formula, node, grad)
        np.testing.assert_allclose(plain.detach().numpy(), fused_grad.detach().numpy(),
                                   rtol=1e-12, atol=1e-12, err_msg=f"{name}: {input_name}")


def call_by_names(formula, node, grad):
    """Call a formula as the generated backward does: each parameter found by its name."""
    saved = dict(zip(type(node).saved_names, node.saved_tensors))
    return formula(*[grad if name == "grad" else saved[name] if name in saved else
                     getattr(node, name) for name in inspect.signature(formula).parameters])


def _output_shape(node):
    """The shape of the node's output: that of the saved result, or of its one input."""
    for value in node._for_backward:
        if getattr(value, "_data", None) is not None:
            return value._data.shape
    return node._input_meta[0][0]


@pytest.mark.parametrize("name", sorted(RULES))
def test_entry_text_and_the_formulas_that_run(name):
    """What the entry says is what backward calls: the entry's own formula objects."""
    cls = next(c for c in rule.Rule.__subclasses__() if c.__name__ == name)
    entry = cls.entry()
    assert f'"{name}"' in entry and "rule(" in entry
    assert cls.__module__ == "tensorgrad.derivatives"
    assert cls.apply is rule.Rule.apply  # one apply for all: no generated code
    for (input_name, formula), parameters in zip(cls.formulas, cls.parameters):
        assert f"{input_name}=" in entry
        assert parameters == tuple(inspect.signature(formula).parameters)


def test_the_tables_docstring_shows_an_entry_as_it_runs():
    """The example in derivatives.py's docstring is a real entry, word for word."""
    example = derivatives.__doc__.split("runs:\n\n", 1)[1].split("\n\n", 1)[0]
    shown = "\n".join(line[4:] for line in example.splitlines())
    assert shown.rstrip() + "\n" == derivatives.ExpBackward0.entry()


def test_entry_shows_the_named_formula_it_uses():
    assert "def power_rule(grad, self, exponent):" in derivatives.PowBackward0.entry()


def test_pictures_read_their_words_from_the_table():
    from tensorgrad.viz import formulas

    x = tg.tensor([1., 2.], requires_grad=True)
    node = (x * x).grad_fn
    assert formulas.expression(node, ["x", "x"], "y") == "x * x"
    assert formulas.local_derivative(node, 0, ["x", "w"], "y") == "w"
    assert formulas.has_elementwise_derivative(node)
    assert not formulas.has_elementwise_derivative(x.sum().grad_fn)
