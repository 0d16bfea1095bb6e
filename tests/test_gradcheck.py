"""gradcheck and gradgradcheck.

* PyTorch's behaviour, row by row (parity with PyTorch when it is installed);
* gradcheck passes on every built-in operation in float64, and gradgradcheck on every one that
  has a second derivative (all of them: where the true second derivative is zero, as for relu
  away from 0, the check confirms zero);
* a deliberately wrong backward is caught, with the Jacobians printed.
"""

import warnings

import numpy as np
import pytest

import tensorgrad as tg
from parity import lib, make_square, show  # noqa: F401  (lib is a fixture)
from tensorgrad.autograd.gradcheck import GradcheckError

F = tg.nn.functional


def gradcheck_error(lib):
    if lib is tg:
        return GradcheckError
    from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError

    return TorchGradcheckError


def make_exp(lib, factor=1):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return factor * grad_output * result

    return Exp


# -- PyTorch's rows ----------------------------------------------------------------------------------------
def test_signatures_are_keyword_only_after_inputs():
    import inspect

    check = inspect.signature(tg.autograd.gradcheck)
    assert [p.name for p in check.parameters.values()
            if p.kind is not p.KEYWORD_ONLY] == ["func", "inputs"]
    assert check.parameters["eps"].default == 1e-06
    assert check.parameters["atol"].default == 1e-05
    assert check.parameters["rtol"].default == 0.001
    double = inspect.signature(tg.autograd.gradgradcheck)
    assert [p.name for p in double.parameters.values()
            if p.kind is not p.KEYWORD_ONLY] == ["func", "inputs", "grad_outputs"]


def test_gradcheck_exp_function(lib):
    x = lib.tensor([0.1, -0.5, 1.2, 0.3], dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradcheck(make_exp(lib).apply, (x,)) is True


def test_gradcheck_bare_tensor(lib):
    x = lib.tensor([0.1, -0.5, 1.2, 0.3], dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradcheck(make_exp(lib).apply, x) is True


def test_gradcheck_two_inputs(lib):
    x = lib.tensor([0.1, -0.5, 1.2, 0.3], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([0.7, 0.2, -1.1, 0.5], dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradcheck(lambda a, b: (a * b).sin(), (x, w)) is True


def test_gradcheck_fast_mode(lib):
    x = lib.tensor([0.1, -0.5, 1.2, 0.3], dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradcheck(lib.tanh, (x,), fast_mode=True) is True


def test_float32_warns_and_fails(lib):
    x = lib.tensor([0.1, -0.5, 1.2, 0.3], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(gradcheck_error(lib)):
            lib.autograd.gradcheck(make_exp(lib).apply, (x,))
    messages = [str(w.message) for w in caught if w.category is UserWarning]
    assert messages == [
        "Input #0 requires gradient and is not a double precision floating point or complex. "
        "This check will likely fail if all the inputs are not of double precision floating "
        "point or complex. "
    ]


WRONG_BACKWARD_MESSAGE = (
    "Jacobian mismatch for output 0 with respect to input 0,\n"
    "numerical:tensor([[1.0000, 0.0000],\n"
    "        [0.0000, 2.7183]], dtype=tensorgrad.float64)\n"
    "analytical:tensor([[2.0000, 0.0000],\n"
    "        [0.0000, 5.4366]], dtype=tensorgrad.float64)\n"
)


def test_wrong_backward_is_caught(lib):
    x = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
    with pytest.raises(gradcheck_error(lib)) as info:
        lib.autograd.gradcheck(make_exp(lib, factor=2).apply, (x,))
    assert isinstance(info.value, RuntimeError)
    assert show(str(info.value)) == WRONG_BACKWARD_MESSAGE


def test_gradcheck_error_is_not_exported_at_autograd_level(lib):
    assert not hasattr(lib.autograd, "GradcheckError")
    assert issubclass(gradcheck_error(lib), RuntimeError)


def test_raise_exception_false_returns_false(lib):
    x = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradcheck(make_exp(lib, factor=2).apply, (x,),
                                  raise_exception=False) is False


def test_no_input_requires_grad(lib):
    x = lib.tensor([0.0, 1.0], dtype=lib.float64)
    with pytest.raises(ValueError) as info:
        lib.autograd.gradcheck(make_exp(lib).apply, (x,))
    assert str(info.value) == (
        "gradcheck expects at least one input tensor to require gradient, but none of them have "
        "requires_grad=True.")


def test_gradgradcheck_cube(lib):
    x = lib.tensor([0.1, -0.5, 1.2, 0.3], dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradgradcheck(lambda t: t ** 3, (x,)) is True


NOT_TWICE_DIFFERENTIABLE = (
    "Jacobian mismatch for output 0 with respect to input 0,\n"
    "numerical:tensor([[2.0000, 0.0000],\n"
    "        [0.0000, 2.0000]], dtype=tensorgrad.float64)\n"
    "analytical:tensor([[0., 0.],\n"
    "        [0., 0.]], dtype=tensorgrad.float64)\n"
)


@pytest.mark.parametrize("kind", ["once_differentiable", "detach"])
def test_gradgradcheck_catches_a_backward_that_is_not_differentiable(lib, kind):
    square = make_square(lib, once=kind == "once_differentiable", detach=kind == "detach")
    x = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
    v = lib.tensor([1.0, 1.0], dtype=lib.float64, requires_grad=True)
    with pytest.raises(gradcheck_error(lib)) as info:
        lib.autograd.gradgradcheck(square.apply, (x,), (v,))
    assert show(str(info.value)) == NOT_TWICE_DIFFERENTIABLE


def test_backward_that_ignores_grad_output(lib):
    class NoGradOutput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x  # forgot `* g`: right for the unit vectors, wrong in general

    x = lib.tensor([3.0], dtype=lib.float64, requires_grad=True)
    with pytest.raises(gradcheck_error(lib)) as info:
        lib.autograd.gradcheck(NoGradOutput.apply, (x,))
    assert str(info.value) == "backward not multiplied by grad_output"


def test_non_deterministic_backward():
    calls = []

    class Noisy(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g * (2 + 1e-3 * (len(calls) % 2))

    x = tg.tensor([1.0], dtype=tg.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as info:
        tg.autograd.gradcheck(Noisy.apply, (x,))
    assert str(info.value).startswith(
        "Backward is not reentrant, i.e., running backward with same input and grad_output "
        "multiple times gives different values, although analytical gradient matches numerical "
        "gradient.The tolerance for nondeterminism was 0.0.")
    assert tg.autograd.gradcheck(Noisy.apply, (x,), nondet_tol=1e-2) is True


def test_fast_mode_failure_message():
    x = tg.tensor([0.0, 1.0], dtype=tg.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as info:
        tg.autograd.gradcheck(make_exp(tg, factor=2).apply, (x,), fast_mode=True)
    text = str(info.value)
    assert text.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "Below, we recompute numerical and analytical jacobians in slow mode:" in text
    assert "analytical:" in text and "The max per-element difference (slow mode) is: " in text


def test_outputs_that_do_not_require_grad():
    x = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda t: tg.ones(2), (x,)) is True
    with pytest.raises(GradcheckError) as info:
        tg.autograd.gradcheck(lambda t: t.detach() * 2, (x,))
    assert str(info.value) == "Numerical gradient for function expected to be zero"


def test_several_outputs_and_a_non_tensor_input():
    x = tg.tensor([0.3, -0.7], dtype=tg.float64, requires_grad=True)
    y = tg.tensor([1.5, 0.5], dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda a, k, b: (a * k, (a * b).sum()), (x, 3.0, y))


def test_output_index_in_the_message():
    class Second(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 1, a * b

        @staticmethod
        def backward(ctx, g1, g2):
            return g1, g2  # d(a*b)/db is a, not 1

    x = tg.tensor([0.5], dtype=tg.float64, requires_grad=True)
    y = tg.tensor([2.0], dtype=tg.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as info:
        tg.autograd.gradcheck(Second.apply, (x, y))
    assert str(info.value).startswith("Jacobian mismatch for output 1 with respect to input 0,")


def test_inputs_are_left_unchanged():
    x = tg.tensor([0.25, 0.5], dtype=tg.float64, requires_grad=True)
    before = x.detach().numpy().copy()
    tg.autograd.gradcheck(tg.exp, (x,))
    tg.autograd.gradgradcheck(tg.exp, (x,))
    assert np.array_equal(x.detach().numpy(), before)
    assert x.grad is None


def test_unsupported_options_say_so():
    x = tg.tensor([0.25], dtype=tg.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="check_forward_ad=True"):
        tg.autograd.gradcheck(tg.exp, (x,), check_forward_ad=True)


# -- every built-in operation -------------------------------------------------------------------------
RNG = np.random.default_rng(1234)


def values(*shape, low=-1.5, high=1.5, gap=0.0):
    """float64 values in [low, high], at least `gap` away from 0 (for kinks and poles)."""
    data = RNG.uniform(low, high, size=shape)
    if gap:
        data = np.where(np.abs(data) < gap, np.sign(data + 1e-12) * gap, data)
    return data


def distinct(*shape, low=-2.0, high=2.0):
    """Values with no ties (for max, min, maximum, sort-like rules)."""
    count = int(np.prod(shape))
    return RNG.permutation(np.linspace(low, high, count)).reshape(shape) + 0.01


def positive(*shape):
    return values(*shape, low=0.5, high=2.0)


def t(array):
    return tg.tensor(array, dtype=tg.float64, requires_grad=True)


def in_place(op):
    def fn(x):
        y = x * 1
        op(y)
        return y
    return fn


def set_rows(x, v):
    z = tg.zeros(3, 3, dtype=tg.float64)
    z[0] = x
    z[1:, 1] = v
    return z


OPS = [
    # elementwise
    ("neg", lambda x: -x, lambda: [values(2, 3)]),
    ("add", lambda a, b: a + b, lambda: [values(2, 3), values(2, 3)]),
    ("add_alpha", lambda a, b: tg.add(a, b, alpha=2.5), lambda: [values(2, 3), values(2, 3)]),
    ("add_broadcast", lambda a, b: a + b, lambda: [values(2, 3), values(3)]),
    ("add_scalar", lambda a: a + 2, lambda: [values(4)]),
    ("sub", lambda a, b: a - b, lambda: [values(2, 3), values(2, 1)]),
    ("rsub", lambda a: 1 - a, lambda: [values(4)]),
    ("mul", lambda a, b: a * b, lambda: [values(2, 3), values(2, 3)]),
    ("mul_broadcast", lambda a, b: a * b, lambda: [values(2, 1, 3), values(4, 1)]),
    ("div", lambda a, b: a / b, lambda: [values(2, 3), values(2, 3, gap=0.5)]),
    ("rdiv", lambda a: 2 / a, lambda: [values(4, gap=0.5)]),
    ("reciprocal", tg.reciprocal, lambda: [values(4, gap=0.5)]),
    ("pow_int", lambda a: a ** 3, lambda: [values(2, 3)]),
    ("pow_float", lambda a: a ** 0.5, lambda: [positive(4)]),
    ("pow_negative", lambda a: a ** -1.5, lambda: [positive(4)]),
    ("pow_tensor", lambda a, b: a ** b, lambda: [positive(4), values(4)]),
    ("rpow", lambda a: 2 ** a, lambda: [values(4)]),
    ("square", tg.square, lambda: [values(4)]),
    ("exp", tg.exp, lambda: [values(2, 3)]),
    ("log", tg.log, lambda: [positive(2, 3)]),
    ("sqrt", tg.sqrt, lambda: [positive(2, 3)]),
    ("sin", tg.sin, lambda: [values(2, 3)]),
    ("cos", tg.cos, lambda: [values(2, 3)]),
    ("tanh", tg.tanh, lambda: [values(2, 3)]),
    ("sigmoid", tg.sigmoid, lambda: [values(2, 3, low=-4, high=4)]),
    ("relu", tg.relu, lambda: [values(2, 3, gap=0.2)]),
    ("abs", tg.abs, lambda: [values(2, 3, gap=0.2)]),
    ("clamp", lambda a: tg.clamp(a, -0.5, 0.5),
     lambda: [np.array([-1.0, -0.3, 0.1, 0.45, 0.9, -0.7])]),
    ("maximum", tg.maximum, lambda: [distinct(5), distinct(5) + 0.1]),
    ("minimum", tg.minimum, lambda: [distinct(5), distinct(5) + 0.1]),
    ("where", lambda a, b: tg.where(a > 0, a, b), lambda: [values(5, gap=0.2), values(5)]),
    ("clone", tg.clone, lambda: [values(3)]),
    # in place
    ("add_", in_place(lambda y: y.add_(2)), lambda: [values(4)]),
    ("mul_", in_place(lambda y: y.mul_(2.5)), lambda: [values(4)]),
    ("mul_tensor", lambda x, w: in_place(lambda y: y.mul_(w))(x), lambda: [values(4), values(4)]),
    ("exp_", in_place(lambda y: y.exp_()), lambda: [values(4)]),
    ("sigmoid_", in_place(lambda y: y.sigmoid_()), lambda: [values(4)]),
    ("zero_", lambda x: in_place(lambda y: y.zero_())(x) + x, lambda: [values(4)]),
    ("copy_", lambda x, v: in_place(lambda y: y.copy_(v))(x) * x, lambda: [values(3), values(3)]),
    ("setitem", set_rows, lambda: [values(3), values(2)]),
    # indexing
    ("select", lambda x: x[1], lambda: [values(3, 2)]),
    ("slice", lambda x: x[::2, 1:], lambda: [values(4, 3)]),
    ("index_list", lambda x: x[[0, 2, 0]], lambda: [values(3, 2)]),
    ("index_mask", lambda x: x[x > 0], lambda: [values(6, gap=0.2)]),
    ("gather", lambda x: x.gather(1, tg.tensor([[0, 0], [1, 0]])), lambda: [values(2, 2)]),
    # matrix products
    ("dot", tg.dot, lambda: [values(4), values(4)]),
    ("mm", tg.mm, lambda: [values(2, 3), values(3, 2)]),
    ("mv", tg.mv, lambda: [values(2, 3), values(3)]),
    ("matmul_1d_2d", tg.matmul, lambda: [values(3), values(3, 2)]),
    ("matmul_batched", tg.matmul, lambda: [values(2, 2, 3), values(2, 3, 2)]),
    ("matmul_broadcast", tg.matmul, lambda: [values(2, 2, 3), values(3, 2)]),
    ("outer", tg.outer, lambda: [values(3), values(2)]),
    # reductions
    ("sum", tg.sum, lambda: [values(2, 3)]),
    ("sum_dim", lambda x: x.sum(dim=1), lambda: [values(2, 3)]),
    ("sum_keepdim", lambda x: x.sum(dim=0, keepdim=True), lambda: [values(2, 3)]),
    ("mean", tg.mean, lambda: [values(2, 3)]),
    ("mean_dim", lambda x: x.mean(0), lambda: [values(2, 3)]),
    ("max", tg.max, lambda: [distinct(2, 3)]),
    ("max_dim", lambda x: x.max(dim=1)[0], lambda: [distinct(2, 3)]),
    ("min", tg.min, lambda: [distinct(2, 3)]),
    ("min_dim", lambda x: x.min(dim=0).values, lambda: [distinct(2, 3)]),
    ("amax", lambda x: x.amax(0), lambda: [distinct(2, 3)]),
    ("amin", lambda x: x.amin(1), lambda: [distinct(2, 3)]),
    ("prod", tg.prod, lambda: [values(2, 3, gap=0.3)]),
    ("prod_dim", lambda x: x.prod(1), lambda: [values(2, 3, gap=0.3)]),
    ("var", tg.var, lambda: [values(2, 3)]),
    ("var_dim", lambda x: x.var(1), lambda: [values(2, 3)]),
    ("std", tg.std, lambda: [values(2, 3)]),
    ("norm", tg.norm, lambda: [values(2, 3)]),
    ("norm_dim", lambda x: x.norm(dim=1), lambda: [values(2, 3)]),
    ("softmax", lambda x: tg.softmax(x, 1), lambda: [values(2, 3)]),
    ("log_softmax", lambda x: tg.log_softmax(x, 0), lambda: [values(2, 3)]),
    ("logsumexp", lambda x: tg.logsumexp(x, 1), lambda: [values(2, 3)]),
    # shapes
    ("reshape", lambda x: x.reshape(3, 2), lambda: [values(2, 3)]),
    ("view", lambda x: x.view(-1), lambda: [values(2, 3)]),
    ("flatten", tg.flatten, lambda: [values(2, 3)]),
    ("transpose", lambda x: x.transpose(0, 1), lambda: [values(2, 3)]),
    ("t", tg.t, lambda: [values(2, 3)]),
    ("T", lambda x: x.T, lambda: [values(2, 3)]),
    ("mT", lambda x: x.mT, lambda: [values(2, 2, 3)]),
    ("permute", lambda x: x.permute(2, 0, 1), lambda: [values(2, 2, 3)]),
    ("unsqueeze", lambda x: x.unsqueeze(1), lambda: [values(3)]),
    ("squeeze", lambda x: x.squeeze(), lambda: [values(1, 3, 1)]),
    ("expand", lambda x: x.expand(2, 3), lambda: [values(3)]),
    ("broadcast_to", lambda x: tg.broadcast_to(x, (2, 2, 3)), lambda: [values(2, 1)]),
    ("repeat", lambda x: x.repeat(2, 2), lambda: [values(3)]),
    ("cat", lambda a, b: tg.cat([a, b], dim=1), lambda: [values(2, 3), values(2, 1)]),
    ("stack", lambda a, b: tg.stack([a, b]), lambda: [values(3), values(3)]),
    ("unbind", lambda x: x.unbind(1), lambda: [values(2, 3)]),
    ("chunk", lambda x: x.chunk(2), lambda: [values(5)]),
    ("split", lambda x: x.split(2, dim=1), lambda: [values(2, 3)]),
    # nn.functional
    ("F.linear", F.linear, lambda: [values(4, 3), values(2, 3), values(2)]),
    ("F.linear_1d", F.linear, lambda: [values(3), values(2, 3), values(2)]),
    ("F.linear_3d", F.linear, lambda: [values(2, 2, 3), values(2, 3), values(2)]),
    ("F.linear_no_bias", F.linear, lambda: [values(4, 3), values(2, 3)]),
    ("F.mse_loss", F.mse_loss, lambda: [values(2, 3), values(2, 3)]),
    ("F.mse_loss_sum", lambda a, b: F.mse_loss(a, b, reduction="sum"),
     lambda: [values(2, 3), values(2, 3)]),
    ("F.mse_loss_none", lambda a, b: F.mse_loss(a, b, reduction="none"),
     lambda: [values(2, 3), values(2, 3)]),
    ("F.binary_cross_entropy", F.binary_cross_entropy,
     lambda: [values(5, low=0.1, high=0.9), values(5, low=0, high=1)]),
    ("F.binary_cross_entropy_weighted",
     lambda p, y: F.binary_cross_entropy(p, y, weight=tg.tensor([0.5, 1.0, 2.0, 3.0],
                                                                 dtype=tg.float64),
                                         reduction="none"),
     lambda: [values(4, low=0.1, high=0.9), values(4, low=0, high=1)]),
    ("F.nll_loss", lambda x: F.nll_loss(x, tg.tensor([2, 0, 1])), lambda: [values(3, 4)]),
    ("F.nll_loss_weighted",
     lambda x: F.nll_loss(x, tg.tensor([2, 0, -100]),
                          weight=tg.tensor([0.5, 1.0, 2.0, 3.0], dtype=tg.float64)),
     lambda: [values(3, 4)]),
    ("F.cross_entropy", lambda x: F.cross_entropy(x, tg.tensor([2, 0, 1])), lambda: [values(3, 4)]),
    ("F.cross_entropy_none",
     lambda x: F.cross_entropy(x, tg.tensor([3, 0]), reduction="none"), lambda: [values(2, 4)]),
    ("F.cross_entropy_1d", lambda x: F.cross_entropy(x, tg.tensor(1)), lambda: [values(4)]),
    ("F.cross_entropy_probabilities", F.cross_entropy,
     lambda: [values(2, 3), np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])]),
    ("F.softmax", lambda x: F.softmax(x, dim=0), lambda: [values(4)]),
    ("F.log_softmax", lambda x: F.log_softmax(x, dim=1), lambda: [values(2, 3)]),
]


@pytest.mark.parametrize("name, fn, make", OPS, ids=[op[0] for op in OPS])
def test_gradcheck_every_op(name, fn, make):
    assert tg.autograd.gradcheck(fn, tuple(t(a) for a in make()))


@pytest.mark.parametrize("name, fn, make", OPS, ids=[op[0] for op in OPS])
def test_gradgradcheck_every_op(name, fn, make):
    assert tg.autograd.gradgradcheck(fn, tuple(t(a) for a in make()))


def test_gradcheck_fast_mode_on_several_ops():
    for name, fn, make in OPS[::7]:
        assert tg.autograd.gradcheck(fn, tuple(t(a) for a in make()), fast_mode=True), name


def test_gradcheck_through_a_module():
    tg.manual_seed(0)
    model = tg.nn.Sequential(tg.nn.Linear(3, 4), tg.nn.Tanh(), tg.nn.Linear(4, 2)).double()
    x = t(values(5, 3))
    assert tg.autograd.gradcheck(model, (x,))
    assert tg.autograd.gradgradcheck(model, (x,))
