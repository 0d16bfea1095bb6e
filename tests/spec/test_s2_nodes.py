"""PyTorch's behaviour: grad_fn nodes — names by operation, the node object and
next_functions.
"""

import pytest

from .conftest import (
    fresh_process_warnings,
    normalise_text,
    printed,
    show,
    skip_needs_nn,
)

# --------------------------------------------------------------------------- names by operation


class Env:
    """The set-up: x, w 1-D (3,); m (2, 3); n (3, 2); b3 (4, 2, 3); all require grad."""

    def __init__(self, tg):
        self.tg = tg
        self.x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        self.w = tg.tensor([4.0, 5.0, 6.0], requires_grad=True)
        self.m = tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        self.n = tg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        self.b3 = (tg.arange(24.0).reshape(4, 2, 3) / 10).detach().requires_grad_()


@pytest.fixture
def env(tg):
    return Env(tg)


def _y_add_(e):
    y = e.x * 1
    y.add_(1)
    return y


def _y_mul_(e):
    y = e.x * 1
    y.mul_(2)
    return y


# (case id, expression, expected node name). The expression gets an Env.
NAME_TABLE = [
    ("x + w", lambda e: e.x + e.w, "AddBackward0"),
    ("x + 1", lambda e: e.x + 1, "AddBackward0"),
    ("1 + x", lambda e: 1 + e.x, "AddBackward0"),
    ("tg.add(x, w)", lambda e: e.tg.add(e.x, e.w), "AddBackward0"),
    ("tg.add(x, w, alpha=2)", lambda e: e.tg.add(e.x, e.w, alpha=2), "AddBackward0"),
    ("m + x", lambda e: e.m + e.x, "AddBackward0"),
    ("x - w", lambda e: e.x - e.w, "SubBackward0"),
    ("x - 1", lambda e: e.x - 1, "SubBackward0"),
    ("1 - x", lambda e: 1 - e.x, "RsubBackward1"),
    ("x * w", lambda e: e.x * e.w, "MulBackward0"),
    ("x * 2", lambda e: e.x * 2, "MulBackward0"),
    ("2 * x", lambda e: 2 * e.x, "MulBackward0"),
    ("x / w", lambda e: e.x / e.w, "DivBackward0"),
    ("x / 2", lambda e: e.x / 2, "DivBackward0"),
    ("2 / x", lambda e: 2 / e.x, "MulBackward0"),
    ("-x", lambda e: -e.x, "NegBackward0"),
    ("x ** 2", lambda e: e.x**2, "PowBackward0"),
    ("x ** 0.5", lambda e: e.x**0.5, "PowBackward0"),
    ("tg.pow(x, 2)", lambda e: e.tg.pow(e.x, 2), "PowBackward0"),
    ("tg.square(x)", lambda e: e.tg.square(e.x), "PowBackward0"),
    ("x ** w", lambda e: e.x**e.w, "PowBackward1"),
    ("2 ** x", lambda e: 2**e.x, "PowBackward2"),
    ("x.sqrt()", lambda e: e.x.sqrt(), "SqrtBackward0"),
    ("x.exp()", lambda e: e.x.exp(), "ExpBackward0"),
    ("tg.exp(x)", lambda e: e.tg.exp(e.x), "ExpBackward0"),
    ("x.log()", lambda e: e.x.log(), "LogBackward0"),
    ("x.sin()", lambda e: e.x.sin(), "SinBackward0"),
    ("x.cos()", lambda e: e.x.cos(), "CosBackward0"),
    ("x.tanh()", lambda e: e.x.tanh(), "TanhBackward0"),
    ("x.sigmoid()", lambda e: e.x.sigmoid(), "SigmoidBackward0"),
    ("tg.sigmoid(x)", lambda e: e.tg.sigmoid(e.x), "SigmoidBackward0"),
    ("x.relu()", lambda e: e.x.relu(), "ReluBackward0"),
    ("x.abs()", lambda e: e.x.abs(), "AbsBackward0"),
    ("x.max()", lambda e: e.x.max(), "MaxBackward1"),
    ("m.max(dim=0).values", lambda e: e.m.max(dim=0).values, "MaxBackward0"),
    ("x.min()", lambda e: e.x.min(), "MinBackward1"),
    ("tg.maximum(x, w)", lambda e: e.tg.maximum(e.x, e.w), "MaximumBackward0"),
    ("m.amax(0)", lambda e: e.m.amax(0), "AmaxBackward0"),
    ("x.clamp(min=1.5)", lambda e: e.x.clamp(min=1.5), "ClampBackward1"),
    ("tg.where(x > 1, x, w)", lambda e: e.tg.where(e.x > 1, e.x, e.w), "WhereBackward0"),
    ("x.softmax(0)", lambda e: e.x.softmax(0), "SoftmaxBackward0"),
    ("x.log_softmax(0)", lambda e: e.x.log_softmax(0), "LogSoftmaxBackward0"),
    ("x.prod()", lambda e: e.x.prod(), "ProdBackward0"),
    ("x.sum()", lambda e: e.x.sum(), "SumBackward0"),
    ("m.sum(dim=0)", lambda e: e.m.sum(dim=0), "SumBackward1"),
    ("m.sum(dim=1, keepdim=True)", lambda e: e.m.sum(dim=1, keepdim=True), "SumBackward1"),
    ("x.mean()", lambda e: e.x.mean(), "MeanBackward0"),
    ("m.mean(0)", lambda e: e.m.mean(0), "MeanBackward1"),
    ("m @ m.T", lambda e: e.m @ e.m.T, "MmBackward0"),
    ("tg.matmul(m, n)", lambda e: e.tg.matmul(e.m, e.n), "MmBackward0"),
    ("tg.mm(m, n)", lambda e: e.tg.mm(e.m, e.n), "MmBackward0"),
    ("tg.mv(m, x)", lambda e: e.tg.mv(e.m, e.x), "MvBackward0"),
    ("m @ x", lambda e: e.m @ e.x, "MvBackward0"),
    ("tg.dot(x, w)", lambda e: e.tg.dot(e.x, e.w), "DotBackward0"),
    ("x @ w", lambda e: e.x @ e.w, "DotBackward0"),
    ("x @ n", lambda e: e.x @ e.n, "SqueezeBackward4"),
    ("b3 @ n", lambda e: e.b3 @ e.n, "UnsafeViewBackward0"),
    ("m.transpose(0, 1)", lambda e: e.m.transpose(0, 1), "TransposeBackward0"),
    ("m.mT", lambda e: e.m.mT, "TransposeBackward0"),
    ("m.t()", lambda e: e.m.t(), "TBackward0"),
    ("m.T", lambda e: e.m.T, "PermuteBackward0"),
    ("m.permute(1, 0)", lambda e: e.m.permute(1, 0), "PermuteBackward0"),
    ("m.reshape(3, 2)", lambda e: e.m.reshape(3, 2), "ViewBackward0"),
    ("m.view(3, 2)", lambda e: e.m.view(3, 2), "ViewBackward0"),
    ("m.view(-1)", lambda e: e.m.view(-1), "ViewBackward0"),
    ("m.flatten()", lambda e: e.m.flatten(), "ViewBackward0"),
    ("m.T.reshape(6)", lambda e: e.m.T.reshape(6), "UnsafeViewBackward0"),
    ("x.unsqueeze(0)", lambda e: e.x.unsqueeze(0), "UnsqueezeBackward0"),
    ("x[None]", lambda e: e.x[None], "UnsqueezeBackward0"),
    ("m[:1].squeeze(0)", lambda e: e.m[:1].squeeze(0), "SqueezeBackward1"),
    ("x[0]", lambda e: e.x[0], "SelectBackward0"),
    ("m[1]", lambda e: e.m[1], "SelectBackward0"),
    ("m[:, 0]", lambda e: e.m[:, 0], "SelectBackward0"),
    ("m[0, 1]", lambda e: e.m[0, 1], "SelectBackward0"),
    ("m[..., 0]", lambda e: e.m[..., 0], "SelectBackward0"),
    ("x[0:2]", lambda e: e.x[0:2], "SliceBackward0"),
    ("x[::2]", lambda e: e.x[::2], "SliceBackward0"),
    ("x[[0, 2]]", lambda e: e.x[[0, 2]], "IndexBackward0"),
    ("x[tg.tensor([0, 2])]", lambda e: e.x[e.tg.tensor([0, 2])], "IndexBackward0"),
    ("x[x > 1]", lambda e: e.x[e.x > 1], "IndexBackward0"),
    ("x.expand(2, 3)", lambda e: e.x.expand(2, 3), "ExpandBackward0"),
    ("x.expand_as(m)", lambda e: e.x.expand_as(e.m), "ExpandBackward0"),
    ("tg.broadcast_to(x, (2, 3))", lambda e: e.tg.broadcast_to(e.x, (2, 3)), "ExpandBackward0"),
    ("x.repeat(2)", lambda e: e.x.repeat(2), "RepeatBackward0"),
    ("x.clone()", lambda e: e.x.clone(), "CloneBackward0"),
    ("x.to(float64)", lambda e: e.x.to(e.tg.float64), "ToCopyBackward0"),
    ("x.double()", lambda e: e.x.double(), "ToCopyBackward0"),
    ("tg.cat([x, w])", lambda e: e.tg.cat([e.x, e.w]), "CatBackward0"),
    ("tg.stack([x, w])", lambda e: e.tg.stack([e.x, e.w]), "StackBackward0"),
    ("x.norm()", lambda e: e.x.norm(), "LinalgVectorNormBackward0"),
    ("x.var()", lambda e: e.x.var(), "VarBackward0"),
    ("y = x * 1; y.add_(1)", _y_add_, "AddBackward0"),
    ("y = x * 1; y.mul_(2)", _y_mul_, "MulBackward0"),
]


@pytest.mark.parametrize(
    "expr, expected", [(f, n) for _, f, n in NAME_TABLE], ids=[i for i, _, _ in NAME_TABLE]
)
def test_node_name(tg, env, expr, expected):
    r = expr(env)
    assert r.requires_grad is True
    assert r.is_leaf is False
    assert type(r.grad_fn).__name__ == expected
    assert r.grad_fn.name() == expected
    assert show(r.grad_fn) == f"<{expected} object at 0x…>"
    assert show(r).endswith(f"grad_fn=<{expected}>)")


@pytest.mark.parametrize(
    "expr, expected",
    [
        (lambda tg, e: tg.nn.functional.relu(e.x), "ReluBackward0"),
        (lambda tg, e: tg.nn.functional.linear(e.x, e.m), "SqueezeBackward4"),
        (lambda tg, e: tg.nn.functional.mse_loss(e.x, e.w), "MseLossBackward0"),
    ],
    ids=["F.relu(x)", "F.linear(x, m)", "F.mse_loss(x, w)"],
)
def test_node_name_nn_functional(tg, env, expr, expected):
    skip_needs_nn(tg)
    r = expr(tg, env)
    assert type(r.grad_fn).__name__ == expected
    assert r.grad_fn.name() == expected


def test_broadcast_add_has_no_expand_node(tg, env):
    r = env.m + env.x
    nf = r.grad_fn.next_functions
    assert len(nf) == 2
    assert [type(node).__name__ for node, _ in nf] == ["AccumulateGrad", "AccumulateGrad"]
    assert nf[0][0].variable is env.m
    assert nf[1][0].variable is env.x


def test_1d_T_warns_on_first_use_in_a_process(tg):
    # torch warns once per process (TORCH_WARN_ONCE), so check a fresh interpreter.
    (first,) = fresh_process_warnings(
        tg,
        """
        x = tg.tensor([1., 2., 3.], requires_grad=True)
        r = x.T
        assert type(r.grad_fn).__name__ == 'PermuteBackward0'
        """,
    )
    message = (
        "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
        "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
        "batches of matrices or `x.permute(*tensorgrad.arange(x.ndim - 1, -1, -1))` to reverse "
        "the dimensions of a tensor."
    )
    assert first == [("UserWarning", message)]


def test_0d_T_warns_that_it_is_the_identity(tg):
    (first,) = fresh_process_warnings(
        tg,
        """
        s = tg.tensor(1., requires_grad=True)
        r = s.T
        assert type(r.grad_fn).__name__ == 'PermuteBackward0' and r._base is s
        """,
    )
    assert first == [("UserWarning", "Tensor.T is deprecated on 0-D tensors. This function is the "
                                      "identity in these cases.")]


def test_1d_T_node_name(tg, env):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = env.x.T
    assert type(r.grad_fn).__name__ == "PermuteBackward0"
    assert r.grad_fn.name() == "PermuteBackward0"


def test_max_with_dim_values_and_indices(tg, env):
    vals, idx = env.m.max(dim=0)
    assert vals.grad_fn.name() == "MaxBackward0"
    assert idx.requires_grad is False
    assert idx.grad_fn is None
    assert idx.dtype == tg.int64


def test_argmax_has_no_node(tg, env):
    r = env.x.argmax()
    assert r.grad_fn is None
    assert r.requires_grad is False
    assert r.dtype == tg.int64


def test_detach_has_no_node(tg, env):
    assert env.x.detach().grad_fn is None


@pytest.mark.parametrize("method", ["contiguous", "float"])
def test_no_op_returns_same_object_without_node(tg, env, method):
    r = getattr(env.x, method)()
    assert r is env.x
    assert r.grad_fn is None


def test_leaf_grad_fn_is_none(tg, env):
    assert env.x.grad_fn is None


def test_setitem_into_plain_tensor_gives_copyslices(tg, env):
    z = tg.zeros(3)
    z[0] = env.x[0] * 2
    assert type(z.grad_fn).__name__ == "CopySlices"
    assert z.requires_grad is True
    assert z.is_leaf is False


def test_inplace_exp_replaces_node(tg, env):
    y = env.x * 2
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y.exp_()
    assert type(y.grad_fn).__name__ == "ExpBackward0"


# --------------------------------------------------------------------------- the node object


def test_node_type_name_module_and_str(tg, env):
    g = (env.x + 1).grad_fn
    assert show((type(g).__name__, g.name(), str(g))) == (
        "('AddBackward0', 'AddBackward0', '<AddBackward0 object at 0x…>')"
    )
    assert show(g) == "<AddBackward0 object at 0x…>"


def test_node_module(tg, env):
    """A deliberate difference (docs/library.md, "Deliberate differences from PyTorch"): PyTorch's C++ nodes report
    the module 'builtins'; tensorgrad's report the module where their derivative is written, so
    a learner can go and read it."""
    module = type((env.x + 1).grad_fn).__module__
    if tg.__name__ == "torch":
        assert module == "builtins"
    else:
        assert module == "tensorgrad.derivatives"


def test_print_node(tg, env, capsys):
    y = env.x + 1
    print(y.grad_fn)
    assert printed(capsys) == "<AddBackward0 object at 0x…>\n"


def test_accumulate_grad_node(tg, env):
    acc = (env.x * 2).grad_fn.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad"
    assert normalise_text(acc.name()) == "tensorgrad::autograd::AccumulateGrad"
    assert acc.variable is env.x
    assert acc.next_functions == ()
    assert show(acc) == "<AccumulateGrad object at 0x…>"


def test_calling_accumulate_grad_by_hand_adds_into_grad(tg):
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert acc(tg.ones(2)) == ()  # nothing flows further
    assert show(x.grad) == "tensor([1., 1.])"
    acc(tg.tensor([2.0, 3.0]))
    assert show(x.grad) == "tensor([3., 4.])"


def test_copyslices_node(tg, env):
    z = tg.zeros(3)
    z[0] = env.x[0] * 2
    assert type(z.grad_fn).__name__ == "CopySlices"
    assert normalise_text(z.grad_fn.name()) == "tensorgrad::autograd::CopySlices"
    assert show(z).endswith("grad_fn=<CopySlices>)")
    assert show(z) == "tensor([2., 0., 0.], grad_fn=<CopySlices>)"


def test_saved_self_and_other(tg):
    x = tg.tensor([2.0], requires_grad=True)
    w = tg.tensor([3.0], requires_grad=True)
    y = x * w
    assert show(y.grad_fn._saved_self) == "tensor([2.], requires_grad=True)"
    assert show(y.grad_fn._saved_other) == "tensor([3.], requires_grad=True)"
    assert sorted(a for a in dir(y.grad_fn) if a.startswith("_saved")) == [
        "_saved_other",
        "_saved_self",
    ]


def test_node_metadata_is_empty_dict(tg, env):
    assert show((env.x * 2).grad_fn.metadata) == "{}"


def test_next_functions_in_argument_order_with_none_for_constants(tg, env):
    c = tg.tensor([1.0, 1.0, 1.0])
    nf = (c * env.x).grad_fn.next_functions
    assert type(nf) is tuple
    assert nf[0] == (None, 0)
    assert type(nf[1][0]).__name__ == "AccumulateGrad"
    assert nf[1][1] == 0
    assert nf[1][0].variable is env.x


def test_one_accumulate_grad_per_leaf_shared_by_every_use(tg, env):
    a = env.x * 2
    b = env.x + 1
    c = env.x.exp()
    accs = [r.grad_fn.next_functions[0][0] for r in (a, b, c)]
    assert accs[0] is accs[1] is accs[2]
    assert accs[0].variable is env.x


# --------------------------------------------------------------------------- next_functions


@pytest.fixture
def graph23(tg):
    x = tg.tensor([2.0], requires_grad=True)
    w = tg.tensor([1.0], requires_grad=True)
    a = x + w
    b = w + 1
    y = a * b
    return x, w, a, b, y


def test_next_functions_of_mul(tg, graph23):
    *_, y = graph23
    assert show(y.grad_fn.next_functions) == (
        "((<AddBackward0 object at 0x…>, 0), (<AddBackward0 object at 0x…>, 0))"
    )
    assert type(y.grad_fn).__name__ == "MulBackward0"


def test_next_functions_point_to_input_nodes(tg, graph23):
    x, w, a, b, y = graph23
    assert y.grad_fn.next_functions[0][0] is a.grad_fn
    assert y.grad_fn.next_functions[1][0] is b.grad_fn
    a_next = a.grad_fn.next_functions
    assert a_next[0][0].variable is x
    assert a_next[1][0].variable is w


def test_next_functions_with_constant(tg, graph23):
    *_, y = graph23
    assert show(y.grad_fn.next_functions[1][0].next_functions) == (
        "((<AccumulateGrad object at 0x…>, 0), (None, 0))"
    )
    assert y.grad_fn.next_functions[1][0].next_functions[0][0].variable is graph23[1]


def test_one_accumulate_grad_per_leaf_in_graph(tg, graph23):
    *_, y = graph23
    nf = y.grad_fn.next_functions
    assert nf[0][0].next_functions[1][0] is nf[1][0].next_functions[0][0]


def test_next_functions_constant_first(tg, graph23):
    _, w, *_ = graph23
    assert show((tg.tensor([2.0]) + w).grad_fn.next_functions) == (
        "((None, 0), (<AccumulateGrad object at 0x…>, 0))"
    )
