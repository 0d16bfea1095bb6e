"""tensorgrad.func, as torch.func: the same programs print the same text on both libraries.

Each test runs once on tensorgrad and once on torch (skipped without torch); the expected texts
are what torch 2.13 prints. A last group checks, on tensorgrad alone, that the transforms agree
with each other (jacfwd == jacrev, hessian == the Jacobian of the gradient, vmap == a loop) on
random programs.
"""

import numpy as np
import pytest

import tensorgrad as tg
from parity import lib, raises, show  # noqa: F401  (lib is a fixture)


def func(lib):
    if lib.__name__ == "torch":
        import torch.func

        return torch.func
    return lib.func


def square_sum(x):
    return (x ** 2).sum()


def test_grad(lib):
    x = lib.tensor([1., 2., 3.])
    assert show(func(lib).grad(square_sum)(x)) == "tensor([2., 4., 6.])"
    assert show(func(lib).grad_and_value(square_sum)(x)) == "(tensor([2., 4., 6.]), tensor(14.))"
    two = func(lib).grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, x + 1)
    assert show(two) == "(tensor([2., 3., 4.]), tensor([1., 2., 3.]))"
    with_aux = func(lib).grad(lambda a: (square_sum(a), a * 2), has_aux=True)(x)
    assert show(with_aux) == "(tensor([2., 4., 6.]), tensor([2., 4., 6.]))"


def test_grad_errors(lib):
    g = func(lib).grad
    x = lib.tensor([1., 2., 3.])
    raises(RuntimeError, "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
           "got tensor with 1 dims. Maybe you wanted to use the vjp or jacrev APIs instead?",
           lambda: g(lambda a: a ** 2)(x))
    raises(RuntimeError, "grad_and_value(f)(*args): output of function f should be a tuple: "
           "(output, aux) if has_aux is True", lambda: g(square_sum, has_aux=True)(x))
    raises(RuntimeError, "Got argnum=2, but only 2 positional inputs",
           lambda: g(lambda a, b: (a * b).sum(), argnums=2)(x, x))
    raises(RuntimeError, "only Tensors of floating point dtype can require gradients",
           lambda: g(lambda a: (a * 2).sum())(lib.tensor([1, 2])))
    raises(RuntimeError, "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
           "<class 'float'>", lambda: g(lambda a: 3.0)(x))


def test_vjp_and_jvp(lib):
    f = func(lib)
    x = lib.tensor([1., 2., 3.])
    output, vjp_fn = f.vjp(lambda a: a.sin(), x)
    assert show(output) == "tensor([0.8415, 0.9093, 0.1411])"
    assert show(vjp_fn(lib.ones(3))) == "(tensor([ 0.5403, -0.4161, -0.9900]),)"
    assert show(f.jvp(lambda a: a.sin(), (x,), (lib.ones(3),))) == (
        "(tensor([0.8415, 0.9093, 0.1411]), tensor([ 0.5403, -0.4161, -0.9900]))")
    raises(RuntimeError, "Mismatch in shape: grad_output[0] has a shape of tensorgrad.Size([2]) "
           "and output[0] has a shape of tensorgrad.Size([3]).", lambda: vjp_fn(lib.ones(2)))
    raises(RuntimeError, "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it "
           "should be valid to call f(*primals).", lambda: f.jvp(lambda a: a, x, lib.ones(3)))


def test_jacobians_and_hessian(lib):
    f = func(lib)
    x = lib.tensor([1., 2., 3.])
    assert show(f.jacrev(lambda a: a.sin())(x)) == (
        "tensor([[ 0.5403, -0.0000, -0.0000],\n"
        "        [ 0.0000, -0.4161, -0.0000],\n"
        "        [ 0.0000, -0.0000, -0.9900]])")
    assert show(f.jacfwd(lambda a: a.sin())(x)) == (
        "tensor([[ 0.5403,  0.0000,  0.0000],\n"
        "        [-0.0000, -0.4161, -0.0000],\n"
        "        [-0.0000, -0.0000, -0.9900]])")
    expected = "tensor([[2., 0., 0.],\n        [0., 2., 0.],\n        [0., 0., 2.]])"
    assert show(f.hessian(square_sum)(x)) == expected
    assert show(f.jacfwd(f.jacrev(square_sum))(x)) == expected


def test_jacobians_of_empty_outputs_and_inputs_keep_the_dtype(lib):
    f = func(lib)
    x = lib.ones(3, dtype=lib.float64)
    assert show(f.jacrev(lambda a: a[:0])(x)) == (
        "tensor([], size=(0, 3), dtype=tensorgrad.float64)")
    assert show(f.jacfwd(lambda a: a[:0])(x)) == (
        "tensor([], size=(0, 3), dtype=tensorgrad.float64)")
    assert show(f.jacrev(lambda a: a.sum() * lib.ones(2, dtype=lib.float64))(x[:0])) == (
        "tensor([], size=(2, 0), dtype=tensorgrad.float64)")


def test_vmap(lib):
    f = func(lib)
    m = lib.arange(6.).reshape(2, 3)
    x = lib.tensor([1., 2., 3.])
    assert show(f.vmap(lambda a: a.sum())(m)) == "tensor([ 3., 12.])"
    assert show(f.vmap(lambda a, b: a * b, in_dims=(0, None))(m, x)) == (
        "tensor([[ 0.,  2.,  6.],\n        [ 3.,  8., 15.]])")
    assert show(f.vmap(lambda a: a * 2, out_dims=1)(m)) == (
        "tensor([[ 0.,  6.],\n        [ 2.,  8.],\n        [ 4., 10.]])")
    assert show(f.vmap(f.vmap(lambda a: a.sum()))(lib.ones(2, 3, 4))) == (
        "tensor([[4., 4., 4.],\n        [4., 4., 4.]])")
    assert show(f.vmap(f.grad(square_sum))(m)) == (
        "tensor([[ 0.,  2.,  4.],\n        [ 6.,  8., 10.]])")


def test_vmap_errors(lib):
    vmap = func(lib).vmap
    raises(ValueError, "vmap: Expected all tensors to have the same size in the mapped dimension, "
           "got sizes [2, 3] for the mapped dimension",
           lambda: vmap(lambda a, b: a * b)(lib.ones(2, 3), lib.ones(3, 3)))
    raises(ValueError, "vmap(<lambda>, in_dims=2, ...)(<inputs>): Got in_dim=2 for some input, "
           "but that input is a Tensor of dimensionality 2 so expected in_dim to satisfy "
           "-2 <= in_dim < 2.", lambda: vmap(lambda a: a, in_dims=2)(lib.ones(2, 3)))
    raises(ValueError, "vmap(<lambda>, ...): `<lambda>` must only return Tensors, got type "
           "<class 'int'>. Did you mean to set out_dims= to None for output?",
           lambda: vmap(lambda a: 3)(lib.ones(2)))
    raises(ValueError, "vmap(<lambda>, in_dims=None, ...)(<inputs>): expected `in_dims` to be int "
           "or a (potentially nested) tuple matching the structure of inputs, got: "
           "<class 'NoneType'>.", lambda: vmap(lambda a: a, in_dims=None)(lib.ones(2)))


def test_functional_call(lib):
    f = func(lib)
    model = lib.nn.Linear(2, 1)
    with lib.no_grad():
        model.weight.fill_(1.)
        model.bias.fill_(0.)
    params = {"weight": lib.full((1, 2), 2.), "bias": lib.zeros(1)}
    assert show(f.functional_call(model, params, (lib.ones(1, 2),))) == "tensor([[4.]])"
    assert show(model.weight) == "Parameter containing:\ntensor([[1., 1.]], requires_grad=True)"
    raises(RuntimeError, "Error(s) in reparametrizing for Linear:\n\tUnexpected key(s): 'w'.\n"
           "\tMissing key(s): 'bias', 'weight'.",
           lambda: f.functional_call(model, {"w": lib.ones(1, 2)}, (lib.ones(1, 2),), strict=True))
    grads = f.grad(lambda p: f.functional_call(model, p, (lib.ones(1, 2),)).sum())(params)
    assert show(grads) == "{'weight': tensor([[1., 1.]]), 'bias': tensor([1.])}"


# -- the transforms agree with each other (tensorgrad alone) ------------------------------------
PROGRAMS = [
    lambda x: (x.tanh() * x.sum()).exp(),
    lambda x: x.softmax(0) * x.sigmoid(),
    lambda x: (x.unsqueeze(1) * x).sum(0).sin(),
    lambda x: tg.stack([x.prod(), x.norm(), x.logsumexp(0)]),
    lambda x: (x @ x.reshape(1, -1).expand(x.shape[0], -1)).relu() + x.abs(),
]


@pytest.mark.parametrize("index", range(len(PROGRAMS)))
def test_jacfwd_equals_jacrev(index):
    x = tg.tensor(np.random.default_rng(index).uniform(0.2, 1.5, 4))
    forward = tg.func.jacfwd(PROGRAMS[index])(x)
    reverse = tg.func.jacrev(PROGRAMS[index])(x)
    np.testing.assert_allclose(forward.numpy(), reverse.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("index", range(len(PROGRAMS)))
def test_hessian_is_the_jacobian_of_the_gradient(index):
    x = tg.tensor(np.random.default_rng(index).uniform(0.2, 1.5, 4))

    def scalar(v):
        return PROGRAMS[index](v).sum()

    hessian = tg.func.hessian(scalar)(x)
    twice_reverse = tg.func.jacrev(tg.func.jacrev(scalar))(x)
    np.testing.assert_allclose(hessian.numpy(), twice_reverse.numpy(), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(hessian.numpy(), hessian.numpy().T, rtol=1e-9, atol=1e-11)


def test_vmap_equals_a_loop():
    batch = tg.tensor(np.random.default_rng(0).uniform(0.2, 1.5, (3, 4)))
    for program in PROGRAMS:
        mapped = tg.func.vmap(program)(batch)
        looped = tg.stack([program(row) for row in batch])
        np.testing.assert_allclose(mapped.numpy(), looped.numpy())
