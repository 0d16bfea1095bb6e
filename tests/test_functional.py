"""tensorgrad.autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp).

PyTorch's behaviour, row by row, runs on tensorgrad and, when installed, on PyTorch (same printed text). Then
jacobian and hessian are compared with finite differences of plain NumPy functions.
"""


import numpy as np
import pytest

import tensorgrad as tg
from parity import lib, show, raises  # noqa: F401  (lib is a fixture)
from tensorgrad.autograd import functional as AF


def fn(lib):
    return lib.autograd.functional


# -- PyTorch's rows ------------------------------------------------------------------------------------
def test_jacobian_of_square(lib):
    assert show(fn(lib).jacobian(lambda x: x ** 2, lib.tensor([1.0, 2.0, 3.0]))) == (
        "tensor([[2., 0., 0.],\n        [0., 4., 0.],\n        [0., 0., 6.]])")


def test_jacobian_two_inputs_gives_a_tuple(lib):
    result = fn(lib).jacobian(lambda x, y: x * y, (lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])))
    assert show(result) == (
        "(tensor([[3., 0.],\n        [0., 4.]]), tensor([[1., 0.],\n        [0., 2.]]))")


def test_jacobian_of_a_scalar_output(lib):
    assert show(fn(lib).jacobian(lambda x: (x ** 2).sum(), lib.tensor([1.0, 2.0]))) == (
        "tensor([2., 4.])")


def test_jacobian_shape_is_output_shape_plus_input_shape(lib):
    jac = fn(lib).jacobian(lambda x: x.sum(0), lib.ones(2, 3))
    assert tuple(jac.shape) == (3, 2, 3)


def test_jacobian_several_outputs_and_inputs(lib):
    result = fn(lib).jacobian(lambda x, y: (x * y, x.sum()),
                              (lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])))
    assert isinstance(result, tuple) and len(result) == 2
    assert all(isinstance(row, tuple) and len(row) == 2 for row in result)
    assert show(result[1]) == "(tensor([1., 1.]), tensor([0., 0.]))"


def test_jacobian_create_graph(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    jac = fn(lib).jacobian(lambda t: t ** 3, x, create_graph=True)
    assert show(jac) == "tensor([[ 3.,  0.],\n        [ 0., 12.]], grad_fn=<ViewBackward0>)"
    jac.sum().backward()
    assert show(x.grad) == "tensor([ 6., 12.])"


def test_hessian_of_cubic(lib):
    assert show(fn(lib).hessian(lambda x: (x ** 3).sum(), lib.tensor([1.0, 2.0]))) == (
        "tensor([[ 6.,  0.],\n        [ 0., 12.]])")


def test_hessian_two_inputs(lib):
    result = fn(lib).hessian(lambda x, y: (x ** 2 * y).sum(),
                             (lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])))
    assert show(result) == (
        "((tensor([[6., 0.],\n        [0., 8.]]), tensor([[2., 0.],\n        [0., 4.]])), "
        "(tensor([[2., 0.],\n        [0., 4.]]), tensor([[0., 0.],\n        [0., 0.]])))")


def test_hessian_needs_a_single_element(lib):
    raises(RuntimeError,
           "The Tensor returned by the function given to hessian should contain a single element",
           lambda: fn(lib).hessian(lambda x: x ** 3, lib.tensor([1.0, 2.0])))


def test_hessian_needs_a_single_tensor(lib):
    raises(RuntimeError, "The function given to hessian should return a single Tensor",
           lambda: fn(lib).hessian(lambda x: ((x ** 2).sum(), x), lib.tensor([1.0, 2.0])))


def test_vjp(lib):
    assert show(fn(lib).vjp(lambda x: x ** 2, lib.tensor([1.0, 2.0]),
                            v=lib.tensor([1.0, 10.0]))) == (
        "(tensor([1., 4.]), tensor([ 2., 40.]))")


def test_vjp_without_v(lib):
    raises(RuntimeError,
           "The vector v can only be None if the user-provided function returns a single Tensor "
           "with a single element.",
           lambda: fn(lib).vjp(lambda x: x ** 2, lib.tensor([1.0, 2.0])))


def test_vjp_scalar_output_without_v(lib):
    assert show(fn(lib).vjp(lambda x: (x ** 2).sum(), lib.tensor([1.0, 2.0]))) == (
        "(tensor(5.), tensor([2., 4.]))")


def test_vjp_with_v_of_the_wrong_size(lib):
    raises(RuntimeError,
           "v has invalid size: should be tensorgrad.Size([2]) but got tensorgrad.Size([3]).",
           lambda: fn(lib).vjp(lambda x: x ** 2, lib.tensor([1.0, 2.0]),
                               v=lib.tensor([1.0, 1.0, 1.0])))


def test_vjp_with_too_few_vs(lib):
    pair = (lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]))
    raises(RuntimeError, "v is a tuple of invalid length: should be 2 but got 1.",
           lambda: fn(lib).vjp(lambda x, y: (x * y, x + y), pair, v=(lib.tensor([1.0, 1.0]),)))


def test_vjp_with_two_vs_for_one_output(lib):
    raises(RuntimeError, "The given v should contain a single Tensor.",
           lambda: fn(lib).vjp(lambda x: x ** 2, lib.tensor([1.0, 2.0]),
                               v=(lib.tensor([1.0, 1.0]), lib.tensor([1.0]))))


def test_jvp(lib):
    assert show(fn(lib).jvp(lambda x: x ** 2, lib.tensor([1.0, 2.0]),
                            v=lib.tensor([1.0, 10.0]))) == (
        "(tensor([1., 4.]), tensor([ 2., 40.]))")


def test_jvp_without_v(lib):
    raises(RuntimeError,
           "The vector v can only be None if the input to the user-provided function is a "
           "single Tensor with a single element.",
           lambda: fn(lib).jvp(lambda x: x ** 2, lib.tensor([1.0, 2.0])))


def test_jvp_of_a_non_square_jacobian(lib):
    m = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    out, product = fn(lib).jvp(lambda x: m @ x, lib.tensor([1.0, 1.0, 1.0]),
                               v=lib.tensor([1.0, 0.0, -1.0]))
    assert show(product) == "tensor([-2., -2.])"


def test_hvp(lib):
    assert show(fn(lib).hvp(lambda x: (x ** 3).sum(), lib.tensor([1.0, 2.0]),
                            v=lib.tensor([1.0, 1.0]))) == (
        "(tensor(9.), tensor([ 6., 12.]))")


def test_vhp(lib):
    assert show(fn(lib).vhp(lambda x: (x ** 3).sum(), lib.tensor([1.0, 2.0]),
                            v=lib.tensor([1.0, 1.0]))) == (
        "(tensor(9.), tensor([ 6., 12.]))")


def test_hvp_needs_a_scalar_function(lib):
    raises(RuntimeError,
           "The Tensor returned by the function given to hvp should contain a single element",
           lambda: fn(lib).hvp(lambda x: x ** 3, lib.tensor([1.0, 2.0]), v=lib.tensor([1.0, 1.0])))
    raises(RuntimeError, "The function given to vhp should return a single Tensor",
           lambda: fn(lib).vhp(lambda x: (x.sum(), x), lib.tensor([1.0, 2.0]),
                               v=lib.tensor([1.0, 1.0])))


def test_strict_output_does_not_require_grad(lib):
    raises(RuntimeError,
           "Output 0 of the user-provided function does not require gradients. The outputs must be "
           "computed in a differentiable manner from the input when running in strict mode.",
           lambda: fn(lib).jacobian(lambda x: lib.ones(2), lib.tensor([1.0, 2.0]), strict=True))


def test_without_strict_independent_output_gives_zeros(lib):
    assert show(fn(lib).jacobian(lambda x: lib.ones(2), lib.tensor([1.0, 2.0]))) == (
        "tensor([[0., 0.],\n        [0., 0.]])")


def test_strict_unused_input(lib):
    pair = (lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0]))
    raises(RuntimeError,
           "Output 0 of the user-provided function is independent of input 1. This is not allowed "
           "in strict mode.",
           lambda: fn(lib).jacobian(lambda x, y: x * 2, pair, strict=True))
    raises(RuntimeError,
           "The output of the user-provided function is independent of input 1. This is not "
           "allowed in strict mode.",
           lambda: fn(lib).vjp(lambda x, y: x * 2, pair, v=lib.tensor([1.0, 1.0]), strict=True))


def test_strict_linear_function_has_no_hessian(lib):
    raises(RuntimeError,
           "While computing the hessian, found that the jacobian of the user-provided function "
           "with respect to input 0 is independent of the input. This is not allowed in strict "
           "mode. You should ensure that your function is twice differentiable and that the "
           "jacobian depends on the inputs (this would be violated by a linear function for "
           "example).",
           lambda: fn(lib).hessian(lambda x: x.sum() * 2, lib.tensor([1.0, 2.0]), strict=True))
    assert show(fn(lib).hessian(lambda x: x.sum() * 2, lib.tensor([1.0, 2.0]))) == (
        "tensor([[0., 0.],\n        [0., 0.]])")


def test_strict_jvp_and_hvp(lib):
    pair = (lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0]))
    ones = lib.tensor([1.0, 1.0])
    raises(RuntimeError,
           "The output of the user-provided function is independent of input 1. This is not "
           "allowed in strict mode.",
           lambda: fn(lib).jvp(lambda x, y: x * 2, pair, v=(ones, ones), strict=True))
    raises(RuntimeError,
           "The hessian of the user-provided function is independent of input 0. This is not "
           "allowed in strict mode when create_graph=True.",
           lambda: fn(lib).vhp(lambda x: (x * x).sum(), lib.tensor([1.0, 2.0]), v=ones,
                               create_graph=True, strict=True))


def test_strict_is_refused_with_forward_mode_and_with_vectorize(lib):
    x = lib.tensor([1.0, 2.0])
    raises(RuntimeError,
           'tensorgrad.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
           'are not supported together (yet). Please either set `strict=False` or '
           '`strategy="reverse-mode"`.',
           lambda: fn(lib).jacobian(lambda t: t * 2, x, strict=True, vectorize=True,
                                    strategy="forward-mode"))
    raises(RuntimeError,
           "tensorgrad.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
           "supported together. Please either set `strict=False` or `vectorize=False`.",
           lambda: fn(lib).jacobian(lambda t: t * 2, x, strict=True, vectorize=True))
    raises(RuntimeError,  # the outputs are checked first
           "Output 0 of the user-provided function does not require gradients. The outputs must be "
           "computed in a differentiable manner from the input when running in strict mode.",
           lambda: fn(lib).jacobian(lambda t: lib.ones(2), x, strict=True, vectorize=True))


def test_inputs_must_be_tensors(lib):
    raises(TypeError,
           "The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the "
           "given inputs has type <class 'int'>.",
           lambda: fn(lib).jacobian(lambda x: x, 3))
    raises(TypeError,
           "The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the "
           "value at index 1 has type <class 'int'>.",
           lambda: fn(lib).jacobian(lambda x, y: x, (lib.tensor([1.0]), 3)))
    raises(TypeError,
           "The outputs of the user-provided function given to jacobian must be either a Tensor "
           "or a tuple of Tensors but the given outputs of the user-provided function has type "
           "<class 'int'>.",
           lambda: fn(lib).jacobian(lambda x: 3, lib.tensor([1.0])))


def test_input_not_requiring_grad_is_left_untouched(lib):
    x = lib.tensor([1.0, 2.0])
    jac = fn(lib).jacobian(lambda t: t * 2, x)
    assert x.requires_grad is False
    assert x.grad is None
    assert jac.requires_grad is False


def test_input_requiring_grad_is_left_untouched(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    out, product = fn(lib).vjp(lambda t: t ** 2, x, v=lib.tensor([1.0, 1.0]))
    assert x.grad is None
    assert out.requires_grad is False and product.requires_grad is False


def test_hvp_create_graph_can_be_differentiated(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    _, product = fn(lib).hvp(lambda a: (a ** 3).sum(), x, lib.tensor([1.0, 0.0]),
                             create_graph=True)
    assert product.requires_grad
    (third,) = lib.autograd.grad(product.sum(), x)
    assert show(third) == "tensor([6., 0.])"


# -- agreement with finite differences ----------------------------------------------------------------
def numeric_jacobian(f, x, eps=1e-6):
    """Central differences of a NumPy function: shape f(x).shape + x.shape."""
    out_shape = np.shape(f(x))
    jac = np.zeros(out_shape + x.shape)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        jac[(Ellipsis,) + index] = (f(x + step) - f(x - step)) / (2 * eps)
    return jac


def numeric_hessian(f, x, eps=1e-4):
    return numeric_jacobian(lambda p: numeric_jacobian(f, p, eps), x, eps)


RNG = np.random.default_rng(7)
X0 = RNG.uniform(-1, 1, size=(3,))
M0 = RNG.uniform(-1, 1, size=(2, 3))

FUNCTIONS = [
    ("elementwise", lambda x: tg.sin(x) * tg.exp(x), lambda x: np.sin(x) * np.exp(x)),
    ("matrix", lambda x: tg.tanh(tg.tensor(M0) @ x), lambda x: np.tanh(M0 @ x)),
    ("outer", lambda x: tg.outer(x, x ** 2), lambda x: np.outer(x, x ** 2)),
    ("softmax", lambda x: tg.softmax(x, 0), lambda x: np.exp(x) / np.exp(x).sum()),
    ("scalar", lambda x: (x ** 3).sum() + x.prod(), lambda x: np.sum(x ** 3) + np.prod(x)),
]


@pytest.mark.parametrize("name, f_tg, f_np", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_jacobian_agrees_with_finite_differences(name, f_tg, f_np):
    jac = AF.jacobian(f_tg, tg.tensor(X0))
    assert np.allclose(jac.numpy(), numeric_jacobian(f_np, X0), atol=1e-6)


SCALARS = [
    ("cubic", lambda x: (x ** 3).sum(), lambda x: np.sum(x ** 3)),
    ("logsumexp", lambda x: tg.logsumexp(x, 0), lambda x: np.log(np.sum(np.exp(x)))),
    ("quadratic_form", lambda x: x @ (tg.tensor(M0.T @ M0) @ x), lambda x: x @ (M0.T @ M0) @ x),
    ("mixed", lambda x: tg.sin(x[0] * x[1]) + x[2] ** 2 * x[0],
     lambda x: np.sin(x[0] * x[1]) + x[2] ** 2 * x[0]),
    ("mlp", lambda x: tg.tanh(tg.tensor(M0) @ x).sum() ** 2,
     lambda x: np.tanh(M0 @ x).sum() ** 2),
]


@pytest.mark.parametrize("name, f_tg, f_np", SCALARS, ids=[f[0] for f in SCALARS])
def test_hessian_agrees_with_finite_differences(name, f_tg, f_np):
    hess = AF.hessian(f_tg, tg.tensor(X0))
    assert np.allclose(hess.numpy(), numeric_hessian(f_np, X0), atol=1e-5)
    assert np.allclose(hess.numpy(), hess.numpy().T, atol=1e-12)  # second derivatives commute


@pytest.mark.parametrize("name, f_tg, f_np", SCALARS, ids=[f[0] for f in SCALARS])
def test_hvp_and_vhp_agree_with_the_hessian(name, f_tg, f_np):
    v = tg.tensor(RNG.uniform(-1, 1, size=(3,)))
    hess = AF.hessian(f_tg, tg.tensor(X0)).numpy()
    value, hv = AF.hvp(f_tg, tg.tensor(X0), v)
    _, vh = AF.vhp(f_tg, tg.tensor(X0), v)
    assert np.isclose(value.item(), f_np(X0))
    assert np.allclose(hv.numpy(), hess @ v.numpy(), atol=1e-12)
    assert np.allclose(vh.numpy(), v.numpy() @ hess, atol=1e-12)


@pytest.mark.parametrize("name, f_tg, f_np", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_vjp_and_jvp_agree_with_the_jacobian(name, f_tg, f_np):
    jac = numeric_jacobian(f_np, X0)
    out_shape = np.shape(f_np(X0))
    u = RNG.uniform(-1, 1, size=out_shape)
    v = RNG.uniform(-1, 1, size=(3,))
    _, vjp_value = AF.vjp(f_tg, tg.tensor(X0), tg.tensor(u) if out_shape else None)
    _, jvp_value = AF.jvp(f_tg, tg.tensor(X0), tg.tensor(v))
    flat = jac.reshape(-1, 3)
    assert np.allclose(vjp_value.numpy(), np.reshape(u, -1) @ flat if out_shape else flat[0],
                       atol=1e-6)
    assert np.allclose(jvp_value.numpy().reshape(-1), flat @ v, atol=1e-6)


def test_jacobian_of_a_function_of_two_matrices():
    a = RNG.uniform(-1, 1, size=(2, 3))
    b = RNG.uniform(-1, 1, size=(3, 2))
    ja, jb = AF.jacobian(lambda x, y: tg.mm(x, y), (tg.tensor(a), tg.tensor(b)))
    assert ja.shape == (2, 2, 2, 3) and jb.shape == (2, 2, 3, 2)
    assert np.allclose(ja.numpy(), numeric_jacobian(lambda x: x @ b, a), atol=1e-6)
    assert np.allclose(jb.numpy(), numeric_jacobian(lambda y: a @ y, b), atol=1e-6)


def test_jvp_docstring_names_the_trick():
    assert "double-VJP trick" in AF.jvp.__doc__


# -- one implementation behind both surfaces ----------------------------------------------------------
def test_both_surfaces_compute_through_autograd_jacobians(monkeypatch):
    """autograd.functional and func each take their derivatives from autograd/jacobians.py, so
    the mathematics is written once (issue 19: it was written twice)."""
    from tensorgrad.autograd import jacobians

    calls = []
    for name in ("vector_jacobian_product", "jacobian_vector_product", "jacobian_by_rows",
                 "jacobian_by_columns"):
        def spy(*args, _name=name, _real=getattr(jacobians, name), **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        for module in (AF, tg.func):
            monkeypatch.setattr(module, "_" + name, spy, raising=True)  # (imported as _name)

    x = tg.tensor([1.0, 2.0])
    uses = {
        "AF.vjp": (lambda: AF.vjp(lambda t: t.sin(), x, x), "vector_jacobian_product"),
        "func.vjp": (lambda: tg.func.vjp(lambda t: t.sin(), x)[1](x), "vector_jacobian_product"),
        "func.grad": (lambda: tg.func.grad(lambda t: t.sin().sum())(x), "vector_jacobian_product"),
        "func.jvp": (lambda: tg.func.jvp(lambda t: t.sin(), (x,), (x,)), "jacobian_vector_product"),
        "AF.jacobian": (lambda: AF.jacobian(lambda t: t.sin(), x), "jacobian_by_rows"),
        "func.jacrev": (lambda: tg.func.jacrev(lambda t: t.sin())(x), "jacobian_by_rows"),
        "AF.jacobian forward": (lambda: AF.jacobian(lambda t: t.sin(), x, vectorize=True,
                                                    strategy="forward-mode"),
                                "jacobian_by_columns"),
        "func.jacfwd": (lambda: tg.func.jacfwd(lambda t: t.sin())(x), "jacobian_by_columns"),
    }
    for label, (call, expected) in uses.items():
        calls.clear()
        call()
        assert expected in calls, f"{label} does not use jacobians.{expected}: {calls}"
