"""PyTorch's behaviour: autograd.grad and autograd.backward — their arguments, create_graph and
higher derivatives, autograd.backward (is_grads_batched is out of scope).
"""

import inspect

import pytest

from .conftest import (
    NO_GRAD_FN,
    NOT_SCALAR,
    SECOND_BACKWARD,
    printed,
    raises_exactly,
    show,
)


def scalar(tg, v):
    return tg.tensor(v, requires_grad=True)


def _params(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


E = inspect.Parameter.empty


def test_grad_signature(tg):
    params = [p for p in _params(tg.autograd.grad) if p[0] != "is_grads_batched"]
    assert params == [
        ("outputs", E),
        ("inputs", E),
        ("grad_outputs", None),
        ("retain_graph", None),
        ("create_graph", False),
        ("only_inputs", True),
        ("allow_unused", None),
        ("materialize_grads", False),
    ]


def test_autograd_backward_signature(tg):
    assert _params(tg.autograd.backward) == [
        ("tensors", E),
        ("grad_tensors", None),
        ("retain_graph", None),
        ("create_graph", False),
        ("grad_variables", None),
        ("inputs", None),
    ]


# --------------------------------------------------------------------------- table


def test_grad_returns_tuple_and_does_not_write_grad(tg):
    x = scalar(tg, 3.0)
    g = tg.autograd.grad(x**2, x)
    assert type(g).__name__ == "tuple"
    assert show(g) == "(tensor(6.),)"
    assert x.grad is None


def test_grad_list_of_inputs_in_order(tg):
    x, w = scalar(tg, 2.0), scalar(tg, 3.0)
    assert show(tg.autograd.grad(x * w, [x, w])) == "(tensor(3.), tensor(2.))"


def test_grad_tuple_of_inputs_in_order(tg):
    x, w = scalar(tg, 2.0), scalar(tg, 3.0)
    assert show(tg.autograd.grad(x * w, (w, x))) == "(tensor(2.), tensor(3.))"


def test_grad_dict_of_inputs_gives_dict(tg):
    x, w = scalar(tg, 2.0), scalar(tg, 3.0)
    g = tg.autograd.grad(x * w, {"x": x, "w": w})
    assert type(g) is dict
    assert show(g) == "{'x': tensor(3.), 'w': tensor(2.)}"


def test_grad_non_scalar_output_without_grad_outputs_raises(tg):
    x = scalar(tg, [1.0, 2.0])
    with raises_exactly(tg, RuntimeError, NOT_SCALAR):
        tg.autograd.grad(x * 2, x)


def test_grad_grad_outputs_shape_mismatch_raises(tg):
    x = scalar(tg, [1.0, 2.0])
    with raises_exactly(
        tg,
        RuntimeError,
        "Mismatch in shape: grad_output[0] has a shape of tensorgrad.Size([3]) and output[0] has "
        "a shape of tensorgrad.Size([2]).",
    ):
        tg.autograd.grad(x * 2, x, tg.ones(3))


def test_grad_with_grad_outputs(tg):
    x = scalar(tg, [1.0, 2.0])
    assert show(tg.autograd.grad(x * 2, x, tg.tensor([1.0, 10.0]))) == "(tensor([ 2., 20.]),)"


@pytest.fixture
def xu(tg):
    return scalar(tg, 2.0), scalar(tg, [1.0, 2.0])


UNUSED = (
    "The differentiated Tensor at index 1 appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)


def test_grad_unused_input_raises_naming_the_index(tg, xu):
    x, u = xu
    with raises_exactly(tg, RuntimeError, UNUSED):
        tg.autograd.grad(x * 3, [x, u])


def test_grad_unused_input_allow_unused(tg, xu):
    x, u = xu
    assert show(tg.autograd.grad(x * 3, [x, u], allow_unused=True)) == "(tensor(3.), None)"


def test_grad_unused_input_materialize_grads(tg, xu):
    x, u = xu
    assert show(tg.autograd.grad(x * 3, [x, u], materialize_grads=True)) == (
        "(tensor(3.), tensor([0., 0.]))"
    )


def test_grad_unused_input_allow_unused_and_materialize_grads(tg, xu):
    x, u = xu
    g = tg.autograd.grad(x * 3, [x, u], allow_unused=True, materialize_grads=True)
    assert show(g) == "(tensor(3.), tensor([0., 0.]))"


def test_grad_allow_unused_false_with_materialize_grads_raises(tg, xu):
    x, u = xu
    with raises_exactly(
        tg,
        ValueError,
        "Expected allow_unused to be True or not passed when materialize_grads=True, "
        "but got: allow_unused=False.",
    ):
        tg.autograd.grad(x * 3, [x, u], allow_unused=False, materialize_grads=True)


def test_grad_input_that_does_not_require_grad_raises(tg):
    x = scalar(tg, 2.0)
    c = tg.tensor(3.0)
    with raises_exactly(tg, RuntimeError, "One of the differentiated Tensors does not require grad"):
        tg.autograd.grad(x * c, [x, c])


def test_grad_output_that_does_not_require_grad_raises(tg):
    x = scalar(tg, 2.0)
    c = tg.tensor(3.0)
    with raises_exactly(tg, RuntimeError, NO_GRAD_FN):
        tg.autograd.grad(c * 2, x)


def test_grad_with_non_leaf_input(tg):
    x = scalar(tg, 2.0)
    y = x * 3
    z = y**2
    assert show(tg.autograd.grad(z, y)) == "(tensor(12.),)"


def test_grad_twice_raises_second_backward(tg):
    x = scalar(tg, 2.0)
    y = x**2
    tg.autograd.grad(y, x)
    with raises_exactly(tg, RuntimeError, SECOND_BACKWARD):
        tg.autograd.grad(y, x)


def test_grad_retain_graph_allows_second_call(tg):
    x = scalar(tg, 2.0)
    y = x**2
    first = tg.autograd.grad(y, x, retain_graph=True)
    second = tg.autograd.grad(y, x)
    assert show((first, second)) == "((tensor(4.),), (tensor(4.),))"


def test_grad_create_graph_keeps_graph(tg):
    x = scalar(tg, 2.0)
    y = x**3
    first = tg.autograd.grad(y, x, create_graph=True)
    second = tg.autograd.grad(y, x)
    assert show((first, second)) == "((tensor(12., grad_fn=<MulBackward0>),), (tensor(12.),))"


def test_grad_several_outputs_are_summed(tg):
    x = scalar(tg, 2.0)
    assert show(tg.autograd.grad([x * 2, x**2], x)) == "(tensor(6.),)"


def test_grad_several_outputs_with_grad_outputs(tg):
    x = scalar(tg, 2.0)
    g = tg.autograd.grad([x * 2, x**2], x, grad_outputs=[tg.tensor(1.0), tg.tensor(10.0)])
    assert show(g) == "(tensor(42.),)"


def test_grad_none_grad_output_means_implicit_ones(tg):
    x = scalar(tg, 2.0)
    assert show(tg.autograd.grad([x * 2], x, grad_outputs=[None])) == "(tensor(2.),)"


def test_grad_too_few_grad_outputs_raises(tg):
    x = scalar(tg, 2.0)
    with raises_exactly(tg, RuntimeError, "got 2 tensors and 1 gradients"):
        tg.autograd.grad([x * 2, x * 3], x, [tg.tensor(1.0)])


def test_grad_too_many_grad_outputs_are_ignored(tg):
    x = scalar(tg, [1.0, 2.0])
    g = tg.autograd.grad([x * 2], [x], [tg.ones(2), tg.ones(2)])
    assert show(g) == "(tensor([2., 2.]),)"


# --------------------------------------------------------------------------- create_graph


def test_grad_without_create_graph_is_a_plain_leaf(tg):
    x = scalar(tg, 3.0)
    (g,) = tg.autograd.grad(x**2, x)
    assert (g.requires_grad, g.grad_fn, g.is_leaf) == (False, None, True)


def test_grad_with_create_graph_requires_grad(tg):
    x = scalar(tg, 3.0)
    (g,) = tg.autograd.grad(x**2, x, create_graph=True)
    assert show((g, g.requires_grad, g.is_leaf)) == (
        "(tensor(6., grad_fn=<MulBackward0>), True, False)"
    )


def test_first_second_third_derivative_of_x4(tg):
    x = scalar(tg, 2.0)
    (d1,) = tg.autograd.grad(x**4, x, create_graph=True)
    (d2,) = tg.autograd.grad(d1, x, create_graph=True)
    (d3,) = tg.autograd.grad(d2, x)
    assert show((d1, d2, d3)) == (
        "(tensor(32., grad_fn=<MulBackward0>), tensor(48., grad_fn=<MulBackward0>), tensor(48.))"
    )


def test_second_grad_without_create_graph_raises(tg):
    x = scalar(tg, 2.0)
    (d1,) = tg.autograd.grad(x**4, x)
    with raises_exactly(tg, RuntimeError, NO_GRAD_FN):
        tg.autograd.grad(d1, x)


def test_matrix_example_second_derivative(tg, capsys):
    x = tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x + 2
    z = y * y * 3
    dz_dx = tg.autograd.grad(z, x, grad_outputs=tg.ones_like(x), create_graph=True)
    print(dz_dx)
    d2z_dx2 = tg.autograd.grad(dz_dx, x, grad_outputs=tg.ones_like(x))
    print(d2z_dx2)
    assert printed(capsys) == (
        "(tensor([[18., 24., 30.],\n"
        "        [36., 42., 48.]], grad_fn=<AddBackward0>),)\n"
        "(tensor([[6., 6., 6.],\n"
        "        [6., 6., 6.]]),)\n"
    )
    assert dz_dx[0].requires_grad is True
    assert d2z_dx2[0].grad_fn is None


def test_scalar_pow_example_second_derivative(tg):
    x = tg.tensor([3.0], requires_grad=True)
    y = tg.pow(x, 2)
    grad_1 = tg.autograd.grad(y, x, create_graph=True)
    assert show(grad_1) == "(tensor([6.], grad_fn=<MulBackward0>),)"
    grad_2 = tg.autograd.grad(grad_1[0], x)
    assert show(grad_2) == "(tensor([2.]),)"


# --------------------------------------------------------------------------- autograd.backward


def test_autograd_backward_with_grad_tensors(tg):
    x = scalar(tg, [1.0, 2.0])
    result = tg.autograd.backward(x**2, grad_tensors=tg.tensor([1.0, 1.0]))
    assert result is None
    assert show(x.grad) == "tensor([2., 4.])"


def test_autograd_backward_several_tensors(tg):
    x = scalar(tg, 2.0)
    tg.autograd.backward([x * 2, x**2], grad_tensors=[tg.tensor(1.0), tg.tensor(3.0)])
    assert show(x.grad) == "tensor(14.)"


def test_autograd_backward_scalar_without_grad_tensors(tg):
    x = scalar(tg, 2.0)
    tg.autograd.backward(x**2)
    assert show(x.grad) == "tensor(4.)"


def test_autograd_backward_non_scalar_without_grad_tensors_raises(tg):
    x = scalar(tg, [1.0, 2.0])
    with raises_exactly(tg, RuntimeError, NOT_SCALAR):
        tg.autograd.backward(x**2)


def test_autograd_backward_inputs(tg):
    x, w = scalar(tg, 2.0), scalar(tg, 3.0)
    tg.autograd.backward(x * w, inputs=[x])
    assert show((x.grad, w.grad)) == "(tensor(3.), None)"


def test_autograd_backward_too_few_grad_tensors_raises(tg):
    x = scalar(tg, 2.0)
    with raises_exactly(tg, RuntimeError, "got 2 tensors and 1 gradients"):
        tg.autograd.backward([x * 2, x * 3], grad_tensors=[tg.tensor(1.0)])


def test_autograd_backward_too_many_grad_tensors_are_ignored(tg):
    x = scalar(tg, 2.0)
    tg.autograd.backward([x * 2], grad_tensors=[tg.tensor(1.0), tg.tensor(1.0)])
    assert show(x.grad) == "tensor(2.)"


@pytest.mark.parametrize("call", ["backward", "grad"])
def test_shape_of_given_pairs_is_checked_before_their_count(tg, call):
    """Found while writing lesson 7: PyTorch checks each given (output, gradient) pair first,
    and only then complains that gradients are missing."""
    x = tg.tensor([1., 2.], requires_grad=True)
    outputs, grads = [x * 2, x * 3], [tg.tensor(1.)]
    message = ("Mismatch in shape: grad_output[0] has a shape of tensorgrad.Size([]) and "
               "output[0] has a shape of tensorgrad.Size([2]).")
    with raises_exactly(tg, RuntimeError, message):
        if call == "backward":
            tg.autograd.backward(outputs, grad_tensors=grads)
        else:
            tg.autograd.grad(outputs, x, grad_outputs=grads)
