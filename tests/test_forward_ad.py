"""Forward-mode AD (tensorgrad.autograd.forward_ad): tangents carried through every operation.

Each program of the derivative-table test runs with a random tangent on every input, and the
tangent of its output must equal the directional derivative by central differences (float64):
(f(x + εt) - f(x - εt)) / 2ε. Every rule of the table has a forward rule (an explicit `jvp=`, or
its backward formulas for an element-by-element rule), except the few listed below.
"""

import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.autograd.forward_ad as fwAD
from tensorgrad.core import rule
from parity import lib, raises, show  # noqa: F401  (lib is a fixture)
from test_derivative_table import PROGRAMS

# Rules without a forward rule (none today; the test keeps it that way).
NO_FORWARD_RULE = set()


def _tangents(inputs):
    rng = np.random.default_rng(1)
    return [tg.tensor(rng.uniform(-1, 1, tuple(x.shape))) for x in inputs]


def _plain(inputs):
    return [x.detach() for x in inputs]


# (CopyBackwards, the node of a .grad made by backward(create_graph=True), needs a backward pass
# inside the program; its forward rule, the identity, is checked with the other copies.)
@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - {"CopyBackwards"}))
def test_forward_rule_against_finite_differences(name):
    function, make_inputs, *options = PROGRAMS[name]
    eps = options[0]["eps"] if options else 1e-6
    inputs = _plain(make_inputs())
    tangents = _tangents(inputs)
    with tg.no_grad():
        with fwAD.dual_level():
            output = function(*[fwAD.make_dual(x, t) for x, t in zip(inputs, tangents)])
            primal, tangent = fwAD.unpack_dual(output)
        plus = function(*[x + eps * t for x, t in zip(inputs, tangents)])
        minus = function(*[x - eps * t for x, t in zip(inputs, tangents)])
    expected = (plus - minus) / (2 * eps)
    np.testing.assert_allclose(primal.numpy(), function(*inputs).detach().numpy())
    tolerance = 1e-3 if name == "ToCopyBackward0" else 1e-6  # through float32
    np.testing.assert_allclose(tangent.numpy(), expected.numpy(), rtol=tolerance, atol=tolerance)


def test_every_rule_has_a_forward_rule():
    missing = {cls.__name__ for cls in rule.Rule.__subclasses__()
               if cls.jvp_formula is None and not cls.elementwise}
    assert missing == NO_FORWARD_RULE


def test_without_a_forward_rule_the_error_names_the_operation(monkeypatch):
    from tensorgrad import derivatives

    monkeypatch.setattr(derivatives.CumsumBackward0, "jvp_formula", None)
    with fwAD.dual_level():
        dual = fwAD.make_dual(tg.tensor([1., 2.]), tg.tensor([1., 1.]))
        with pytest.raises(NotImplementedError, match="^Trying to use forward AD with cumsum that "
                           "does not support it because it has not been implemented yet.$"):
            dual.cumsum(0)


def test_forward_over_reverse_of_the_fused_rules():
    """The rules that only appear inside backward graphs (fused softmax rules, the scatters of
    max(dim) and gather) have forward rules too: the Hessian by forward-over-reverse."""
    from tensorgrad.func import hessian, jacrev

    x = tg.tensor(np.random.default_rng(4).uniform(-1, 1, (2, 3)))
    for f in (lambda v: (v.softmax(1) * v).sum(), lambda v: (v.log_softmax(1) ** 2).sum(),
              lambda v: (v.max(dim=1)[0] ** 3).sum(), lambda v: (v.gather(1, tg.tensor(
                  [[0, 2], [1, 1]])) ** 3).sum()):
        np.testing.assert_allclose(hessian(f)(x).numpy(), jacrev(jacrev(f))(x).numpy(),
                                   rtol=1e-9, atol=1e-11)


def test_jvp_equals_reverse_mode_jacobian_times_tangent():
    """J·t from one forward pass equals J·t from the Jacobian that reverse mode builds."""
    rng = np.random.default_rng(2)
    x = tg.tensor(rng.uniform(-1, 1, 4))
    t = tg.tensor(rng.uniform(-1, 1, 4))

    def f(v):
        return (v.tanh() * v.sum()).softmax(0) @ tg.stack([v, v * v, v.exp()], 1)

    with fwAD.dual_level():
        forward = fwAD.unpack_dual(f(fwAD.make_dual(x, t))).tangent
    jacobian = tg.autograd.functional.jacobian(f, x)
    np.testing.assert_allclose(forward.numpy(), (jacobian @ t).numpy(), rtol=1e-10, atol=1e-12)


def test_printing_and_unpacking_as_pytorch():
    with fwAD.dual_level():
        dual = fwAD.make_dual(tg.tensor([1., 2.]), tg.tensor([1., 0.]))
        assert repr(dual) == "tensor([1., 2.], tangent=tensor([1., 0.]))"
        y = (dual * dual).sum()
        assert repr(y) == "tensor(5., tangent=2.0)"
        unpacked = fwAD.unpack_dual(y)
        assert type(unpacked).__name__ == "UnpackedDualTensor"
        assert repr(unpacked) == "UnpackedDualTensor(primal=tensor(5.), tangent=tensor(2.))"
        leaf = tg.tensor([1., 2.], requires_grad=True)
        assert repr(fwAD.make_dual(leaf, tg.tensor([1., 0.]))) == (
            "tensor([1., 2.], grad_fn=<ViewBackward0>, tangent=tensor([1., 0.]))")
    assert fwAD.unpack_dual(y).tangent is None  # the level is over
    assert repr(y) == "tensor(5.)"


def test_errors_as_pytorch():
    x = tg.tensor([1., 2.])
    with pytest.raises(RuntimeError, match="^Trying to create a dual Tensor for forward AD but no "
                       "level exists, make sure to enter_dual_level\\(\\) first.$"):
        fwAD.make_dual(x, x)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="^Trying to set a forward gradient that has a "
                           "different size than that of the original Tensor, this is not "
                           "supported. Tensor is of size \\[2\\] while the given forward gradient "
                           "is of size \\[1\\].$"):
            fwAD.make_dual(x, tg.tensor([1.]))
        with pytest.raises(ValueError, match="^Expected tangent to be floating point or complex, "
                           "but got: tensorgrad.int64$"):
            fwAD.make_dual(x, tg.tensor([1, 2]))
        with pytest.raises(RuntimeError, match="^Nested forward mode AD is not supported at the "
                           "moment$"):
            with fwAD.dual_level():
                pass


def test_forward_and_reverse_mode_together():
    """A dual tensor can require grad: the tangent is then itself differentiable."""
    w = tg.tensor([0.5, -1.0], requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(w, tg.tensor([1., 0.]))
        tangent = fwAD.unpack_dual((dual * dual).sum()).tangent  # 2·w₀
    tangent.backward()
    assert repr(w.grad) == "tensor([2., 0.])"


def test_jacobian_by_forward_mode_equals_reverse_mode():
    """jacfwd == jacrev: random programs with several inputs and outputs."""
    from tensorgrad.autograd.functional import jacobian

    rng = np.random.default_rng(3)
    for seed in range(20):
        a = tg.tensor(rng.uniform(-1, 1, (2, 3)))
        b = tg.tensor(rng.uniform(0.5, 1.5, 3))
        steps = [lambda u, v: (u * v).tanh(), lambda u, v: u.exp() / v, lambda u, v: u @ v.sin(),
                 lambda u, v: (u - v).softmax(1), lambda u, v: u.sum(0) * v.log()]
        first, second = steps[seed % 5], steps[(seed * 3 + 1) % 5]

        def f(u, v, first=first, second=second):
            return first(u, v), second(u, v) * 2

        forward = jacobian(f, (a, b), strategy="forward-mode", vectorize=True)
        reverse = jacobian(f, (a, b))
        for rows_forward, rows_reverse in zip(forward, reverse):
            for jf, jr in zip(rows_forward, rows_reverse):
                assert jf.shape == jr.shape
                np.testing.assert_allclose(jf.numpy(), jr.numpy(), rtol=1e-10, atol=1e-12)


def test_jacobian_strategy_errors_as_pytorch():
    from tensorgrad.autograd.functional import jacobian

    x = tg.tensor([1., 2.])
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        jacobian(lambda v: v.sin(), x, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="`create_graph=True` and "):
        jacobian(lambda v: v.sin(), x, strategy="forward-mode", vectorize=True, create_graph=True)
    with pytest.raises(AssertionError, match='^Expected strategy to be either "forward-mode" or '):
        jacobian(lambda v: v.sin(), x, strategy="bogus")


def _cube(lib, with_jvp):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    if with_jvp:
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors  # what save_for_forward kept
            return 3 * x ** 2 * t

        Cube.jvp = staticmethod(jvp)
    return Cube


def test_custom_function_jvp(lib):
    fw = pytest.importorskip("torch.autograd.forward_ad") if lib.__name__ == "torch" else fwAD
    x = lib.tensor([1., 2.])
    with fw.dual_level():
        dual = fw.make_dual(x, lib.tensor([1., 1.]))
        y = _cube(lib, True).apply(dual)
        assert show(y) == "tensor([1., 8.], tangent=tensor([ 3., 12.]))"
        raises(NotImplementedError, "You must implement the jvp function for custom "
               "autograd.Function to use it with forward mode AD.",
               lambda: _cube(lib, False).apply(dual))
    y = _cube(lib, False).apply(x)  # outside forward mode, no jvp is needed
    assert show(y) == "tensor([1., 8.])"


def test_unpack_dual_gives_back_the_tangent_itself(lib):
    fw = lib.autograd.forward_ad
    primal = lib.tensor([1., 2.])
    tangent, wide = lib.tensor([3., 4.]), lib.tensor([3., 4.], dtype=lib.float64)
    leaf = lib.tensor([3., 4.], requires_grad=True)
    window = lib.tensor([0., 3., 4.])[1:]  # a view into a larger memory: kept as a copy
    with fw.dual_level():
        dual = fw.make_dual(primal, tangent)
        assert fw.unpack_dual(dual).tangent is tangent
        assert fw.unpack_dual(fw.make_dual(primal, wide)).tangent is wide
        assert fw.unpack_dual(fw.make_dual(primal, leaf)).tangent is leaf
        copied = fw.unpack_dual(fw.make_dual(primal, window)).tangent
        assert copied is not window and copied.tolist() == [3., 4.]
        window.mul_(2)
        assert copied.tolist() == [3., 4.]
        tangent.add_(1)  # the same tensor, so the dual sees the change
        assert fw.unpack_dual(dual).tangent.tolist() == [4., 5.]


@pytest.mark.parametrize("tangent_on", ["self", "mat2", "both"])
def test_a_product_multiplies_only_the_tangents_there_are(monkeypatch, tangent_on):
    """ẏ = Ȧ B + A Ḃ has one term per input; an input without a tangent adds no product of zeros
    (lesson 13 times a JVP through X @ W1 where only W1 carries one: a third product for X's zero
    tangent made it cost 6 forward passes instead of 2)."""
    products = []
    plain_mm = tg.Tensor._mm  # (what the rule's jvp calls: mm without its argument check)
    monkeypatch.setattr(tg.Tensor, "_mm", lambda self, other: products.append(1) or plain_mm(self, other))
    a, b = tg.ones(2, 3), tg.ones(3, 4)
    with fwAD.dual_level():
        if tangent_on in ("self", "both"):
            a = fwAD.make_dual(a, tg.ones(2, 3))
        if tangent_on in ("mat2", "both"):
            b = fwAD.make_dual(b, tg.ones(3, 4))
        products.clear()
        tangent = fwAD.unpack_dual(tg.mm(a, b)).tangent
    assert len(products) == (2 if tangent_on == "both" else 1)
    assert tangent.tolist() == [[3.0 * (2 if tangent_on == "both" else 1)] * 4] * 2


def _forward_ad(lib):
    return pytest.importorskip("torch.autograd.forward_ad") if lib.__name__ == "torch" else fwAD


def test_copy_gives_the_tangent_of_what_was_copied_in(lib):
    """x.copy_(src): x's new tangent is src's, zeros when src has none (not x's old tangent)."""
    fw = _forward_ad(lib)
    with fw.dual_level():
        x = fw.make_dual(lib.tensor([1., 2.]), lib.tensor([10., 20.]))
        x.copy_(lib.tensor([5., 6.]))
        plain = fw.unpack_dual(x).tangent.tolist()
        y = fw.make_dual(lib.tensor([1., 2.]), lib.tensor([3., 4.]))
        x.copy_(y)
        dual = fw.unpack_dual(x).tangent.tolist()
        z = lib.zeros(2)
        z.copy_(y)
        into_plain = fw.unpack_dual(z).tangent.tolist()
    assert (plain, dual, into_plain) == ([0., 0.], [3., 4.], [3., 4.])


def test_copy_cuts_the_overwritten_values_out_of_backward(lib):
    """CopyBackwards has two inputs, as PyTorch's: what was overwritten gets zeros, the source
    the gradient. Before, a leaf behind the overwritten tensor got no .grad (or a wrong one)."""
    a = lib.tensor([1., 1.5], requires_grad=True)
    b = lib.tensor([2., 3.], requires_grad=True)
    x = a * 1.5
    x.copy_(b * 2)
    assert [type(node).__name__ for node, _ in x.grad_fn.next_functions] == [
        "MulBackward0", "MulBackward0"]
    x.sum().backward()
    assert (a.grad.tolist(), b.grad.tolist()) == ([0., 0.], [2., 2.])
    a.grad = None
    x = a * 1.5
    x.copy_(lib.tensor([3., 4.]))
    assert type(x.grad_fn).__name__ == "CopyBackwards"
    x.sum().backward()
    assert a.grad.tolist() == [0., 0.]


def test_the_copy_of_a_grad_made_with_create_graph_has_no_self_edge(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    (x * x).sum().backward(create_graph=True)
    node, = {type(n).__name__ for n, _ in x.grad.grad_fn.next_functions[1:]}
    assert (x.grad.grad_fn.next_functions[0][0], node) == (None, "AddBackward0")
