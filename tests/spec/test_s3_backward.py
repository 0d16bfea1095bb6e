"""PyTorch's behaviour: Tensor.backward() — its arguments, a second backward and retain_graph,
accumulation, non-leaf .grad and retain_grad, nothing requires grad, create_graph=True
(detect_anomaly is out of scope).
"""

import inspect
import warnings

import pytest

from .conftest import (
    CREATE_GRAPH_CYCLE_WARNING,
    NO_GRAD_FN,
    NON_LEAF_GRAD_WARNING,
    NOT_SCALAR,
    SECOND_BACKWARD,
    fresh_process_warnings,
    no_warnings,
    printed,
    raises_exactly,
    show,
    warns_exactly,
)


def scalar(tg, v=3.0):
    return tg.tensor(v, requires_grad=True)


def vec(tg, values=(1.0, 2.0)):
    return tg.tensor(list(values), requires_grad=True)


# --------------------------------------------------------------------------- table


def test_backward_signature(tg):
    params = list(inspect.signature(tg.Tensor.backward).parameters.values())
    assert [(p.name, p.default) for p in params] == [
        ("self", inspect.Parameter.empty),
        ("gradient", None),
        ("retain_graph", None),
        ("create_graph", False),
        ("inputs", None),
    ]


def test_backward_scalar_fills_grad_and_returns_none(tg):
    x = scalar(tg)
    result = (x**2).backward()
    assert result is None
    assert show(x.grad) == "tensor(6.)"


def test_leaf_grad_before_backward_is_none_without_warning(tg):
    x = scalar(tg)
    with no_warnings(tg):
        g = x.grad
    assert g is None


def test_backward_non_scalar_without_gradient_raises(tg):
    x = vec(tg)
    with raises_exactly(tg, RuntimeError, NOT_SCALAR):
        (x * 2).backward()


def test_backward_one_element_1d_output_works(tg):
    x = tg.tensor([3.0], requires_grad=True)
    (x * 2).backward()
    assert show(x.grad) == "tensor([2.])"


def test_backward_one_element_2d_output_works(tg):
    x = tg.tensor([[3.0]], requires_grad=True)
    (x * x).backward()
    assert show(x.grad) == "tensor([[6.]])"


@pytest.mark.parametrize(
    "x_shape, make_gradient, gradient_size, output_size",
    [
        ((2,), lambda tg: tg.tensor([1.0, 1.0, 1.0]), "[3]", "[2]"),
        ((2, 2), lambda tg: tg.ones(4), "[4]", "[2, 2]"),
        ((2,), lambda tg: tg.tensor(1.0), "[]", "[2]"),
        ((2, 2), lambda tg: tg.ones(1, 2), "[1, 2]", "[2, 2]"),
    ],
    ids=["gradient-3-for-2", "gradient-4-for-2x2", "gradient-0d-for-2", "no-broadcast-1x2-for-2x2"],
)
def test_backward_gradient_shape_mismatch_raises(
    tg, x_shape, make_gradient, gradient_size, output_size
):
    x = tg.ones(*x_shape, requires_grad=True)
    message = (
        f"Mismatch in shape: grad_output[0] has a shape of tensorgrad.Size({gradient_size}) "
        f"and output[0] has a shape of tensorgrad.Size({output_size})."
    )
    with raises_exactly(tg, RuntimeError, message):
        (x * 2).backward(make_gradient(tg))


def test_backward_int64_gradient_is_accepted(tg):
    x = vec(tg)
    (x * 2).backward(tg.tensor([1, 1]))
    assert show(x.grad) == "tensor([2., 2.])"
    assert x.grad.dtype == tg.float32


def test_backward_python_list_gradient_raises_type_error(tg):
    x = vec(tg)
    with raises_exactly(tg, TypeError, "gradients can be either Tensors or None, but got float"):
        (x * 2).backward([1.0, 1.0])


def test_backward_explicit_gradient_keyword(tg):
    x = vec(tg)
    (x * 3).backward(gradient=tg.tensor([1.0, 0.5]))
    assert show(x.grad) == "tensor([3.0000, 1.5000])"


def test_backward_scalar_with_explicit_gradient(tg):
    x = scalar(tg)
    (x**2).backward(tg.tensor(10.0))
    assert show(x.grad) == "tensor(60.)"


def test_backward_on_0d_leaf(tg):
    x = scalar(tg)
    x.backward()
    assert show(x.grad) == "tensor(1.)"


def test_backward_inputs_list_fills_only_those(tg):
    x, w = scalar(tg, 2.0), scalar(tg, 3.0)
    (x * w).backward(inputs=[w])
    assert show((x.grad, w.grad)) == "(None, tensor(2.))"


def test_backward_inputs_single_tensor(tg):
    x, w = scalar(tg, 2.0), scalar(tg, 3.0)
    (x * w).backward(inputs=x)
    assert show((x.grad, w.grad)) == "(tensor(3.), None)"


# --------------------------------------------------------------------------- second backward


def test_second_backward_through_pow_raises_and_keeps_first_grad(tg):
    x = scalar(tg)
    y = x**2
    y.backward()
    with raises_exactly(tg, RuntimeError, SECOND_BACKWARD):
        y.backward()
    assert show(x.grad) == "tensor(6.)"


def test_second_backward_through_mul_by_scalar_raises(tg):
    x = scalar(tg)
    y = x * 2
    y.backward()
    with raises_exactly(tg, RuntimeError, SECOND_BACKWARD):
        y.backward()


def test_second_backward_through_tutorial_graph_raises(tg):
    x = scalar(tg)
    out = ((x + 2) * (x + 2) * 3).mean()
    out.backward()
    with raises_exactly(tg, RuntimeError, SECOND_BACKWARD):
        out.backward()


def test_second_backward_through_add_works(tg):
    x = scalar(tg)
    y = x + 1
    y.backward()
    y.backward()
    assert show(x.grad) == "tensor(2.)"


def test_second_backward_through_add_sum_works(tg):
    x = vec(tg)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert show(x.grad) == "tensor([2., 2.])"


def test_retain_graph_then_free_then_raise(tg):
    x = scalar(tg)
    y = x**2
    y.backward(retain_graph=True)
    assert show(x.grad) == "tensor(6.)"
    y.backward()
    assert show(x.grad) == "tensor(12.)"
    with raises_exactly(tg, RuntimeError, SECOND_BACKWARD):
        y.backward()
    assert show(x.grad) == "tensor(12.)"


# --------------------------------------------------------------------------- accumulation


def test_grad_accumulates_over_backward_calls(tg, capsys):
    x = vec(tg)
    for i in range(3):
        (x * x).sum().backward()
        print(i, x.grad)
    assert printed(capsys) == "0 tensor([2., 4.])\n1 tensor([4., 8.])\n2 tensor([ 6., 12.])\n"


def test_grad_accumulates_in_place(tg):
    x = vec(tg)
    (x * x).sum().backward()
    g = x.grad
    (x * x).sum().backward()
    assert g is x.grad
    assert show(g) == "tensor([4., 8.])"


def test_grad_zero_(tg):
    x = vec(tg)
    (x * x).sum().backward()
    x.grad.zero_()
    assert show(x.grad) == "tensor([0., 0.])"


def test_grad_set_to_none_then_backward_gives_fresh_tensor(tg):
    x = vec(tg)
    (x * x).sum().backward()
    old = x.grad
    x.grad = None
    assert x.grad is None
    (x * x).sum().backward()
    assert show(x.grad) == "tensor([2., 4.])"
    assert x.grad is not old
    assert show(old) == "tensor([2., 4.])"


def test_grad_properties(tg):
    x = vec(tg)
    (x * x).sum().backward()
    g = x.grad
    assert show((g.requires_grad, g.grad_fn, g.is_leaf, g.dtype, g.shape)) == (
        "(False, None, True, tensorgrad.float32, tensorgrad.Size([2]))"
    )


def test_backward_adds_to_assigned_grad(tg):
    x = vec(tg)
    x.grad = tg.tensor([10.0, 20.0])
    (x * x).sum().backward()
    assert show(x.grad) == "tensor([12., 24.])"


def test_assigning_grad_of_wrong_size_raises(tg):
    x = vec(tg)
    with raises_exactly(
        tg,
        RuntimeError,
        "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure "
        "that the gradient and the tensor are the same size",
    ):
        x.grad = tg.tensor([1.0, 2.0, 3.0])
    assert x.grad is None


def test_assigning_grad_of_wrong_dtype_raises(tg):
    x = vec(tg)
    with raises_exactly(
        tg,
        RuntimeError,
        "attempting to assign a gradient with dtype 'long int' to a tensor with grad_dtype "
        "'Float'. The gradient must match the tensor's grad_dtype (defaults to the tensor's "
        "dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to "
        "allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
        "gradient may break downstream systems that assume they match.",
    ):
        x.grad = tg.tensor([1, 2])
    assert x.grad is None


# --------------------------------------------------------------------------- non-leaf .grad


def test_non_leaf_grad_is_none_and_warns(tg, capsys):
    x = vec(tg)
    y = x * 2
    y.sum().backward()
    with warns_exactly(tg, UserWarning, NON_LEAF_GRAD_WARNING):
        print(y.grad)
    assert printed(capsys) == "None\n"


def test_non_leaf_grad_warns_on_every_access(tg):
    x = vec(tg)
    y = x * 2
    y.sum().backward()
    with warns_exactly(tg, UserWarning, NON_LEAF_GRAD_WARNING, count=2):
        a = y.grad
        b = y.grad
    assert (a, b) == (None, None)


def test_non_leaf_grad_warns_before_backward_too(tg):
    x = vec(tg)
    y = x * 2
    with warns_exactly(tg, UserWarning, NON_LEAF_GRAD_WARNING):
        assert y.grad is None


def test_leaf_without_requires_grad_grad_is_silent(tg):
    c = tg.tensor([1.0, 2.0])
    with no_warnings(tg):
        assert c.grad is None


def test_retain_grad_on_non_leaf(tg):
    x = vec(tg)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.backward()
    with no_warnings(tg):
        result = show((y.retains_grad, y.grad, x.grad, x.retains_grad))
    assert result == "(True, tensor([4., 8.]), tensor([ 8., 16.]), False)"


def test_retain_grad_on_leaf_is_a_no_op(tg):
    x = vec(tg)
    x.retain_grad()
    assert x.retains_grad is False
    (x * x).sum().backward()
    assert x.retains_grad is False
    assert show(x.grad) == "tensor([2., 4.])"


def test_retain_grad_without_requires_grad_raises(tg):
    with raises_exactly(tg, RuntimeError, "can't retain_grad on Tensor that has requires_grad=False"):
        tg.tensor([1.0, 2.0]).retain_grad()


def test_retained_grad_accumulates_over_two_backward_calls(tg):
    x = vec(tg)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert show(y.grad) == "tensor([ 8., 16.])"


@pytest.mark.parametrize("later_create_graph, text", [
    (False, "tensor([ 7., 11.]) False"),  # a plain backward: a plain sum, no graph kept
    (True, "tensor([ 7., 11.], grad_fn=<AddBackward0>) True"),
])
def test_a_retained_grad_made_under_create_graph_then_added_to(tg, later_create_graph, text):
    """retain_grad's rule is not a leaf's: the first gradient is copied (CloneBackward0 under
    create_graph), and each later one makes a new sum, never written into the old .grad; a
    later plain backward leaves a .grad that no longer requires grad (PyTorch 2.13, measured).
    A leaf's .grad, by contrast, is added to in place and keeps its graph (below)."""
    x = vec(tg)
    y = x * 2
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (create_graph's reference-cycle warning)
        (y * y).sum().backward(create_graph=True)
    first = y.grad
    assert show((first, first.requires_grad)) == (
        "(tensor([4., 8.], grad_fn=<CloneBackward0>), True)")
    (y * 3).sum().backward(create_graph=later_create_graph)
    assert f"{show(y.grad)} {y.grad.requires_grad}" == text
    assert y.grad is not first and show(first.detach()) == "tensor([4., 8.])"  # (not in place)


def test_a_leafs_grad_made_under_create_graph_keeps_its_graph_after_a_plain_backward(tg):
    x = vec(tg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x * x).sum().backward(create_graph=True)
    first = x.grad
    (x * 3).sum().backward()
    assert x.grad is first and x.grad.requires_grad
    assert show(x.grad) == "tensor([5., 7.], grad_fn=<CopyBackwards>)"


def test_a_retained_grad_does_not_alias_the_gradient_given(tg):
    x = vec(tg)
    y = x * 3
    y.retain_grad()
    g = tg.tensor([1.0, 1.0])
    y.backward(g, create_graph=True)
    assert y.grad is not g
    g.mul_(10)
    assert show(y.grad.detach()) == "tensor([1., 1.])"


# --------------------------------------------------------------------------- nothing requires grad


def test_backward_on_plain_sum_raises(tg):
    with raises_exactly(tg, RuntimeError, NO_GRAD_FN):
        tg.tensor([1.0, 2.0]).sum().backward()


def test_backward_on_plain_0d_tensor_raises(tg):
    with raises_exactly(tg, RuntimeError, NO_GRAD_FN):
        tg.tensor(2.0).backward()


def test_backward_on_result_computed_in_no_grad_raises(tg):
    x = vec(tg)
    with tg.no_grad():
        y = (x * 2).sum()
    with raises_exactly(tg, RuntimeError, NO_GRAD_FN):
        y.backward()


def test_backward_on_argmax_raises(tg):
    x = vec(tg)
    with raises_exactly(tg, RuntimeError, NO_GRAD_FN):
        x.argmax().backward()


# --------------------------------------------------------------------------- create_graph=True


def _backward_create_graph(y):
    # The reference-cycle warning is once per process; it is checked in a fresh process below.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y.backward(create_graph=True)


def test_backward_create_graph_grad_has_copy_backwards(tg):
    x = scalar(tg)
    _backward_create_graph(x**3)
    assert show(x.grad) == "tensor(27., grad_fn=<CopyBackwards>)"
    assert x.grad.requires_grad is True


def test_backward_create_graph_then_second_derivative(tg):
    x = scalar(tg)
    _backward_create_graph(x**3)
    g = x.grad
    x.grad = None
    g.backward()
    assert show(x.grad) == "tensor(18.)"


def test_backward_create_graph_warns_once_per_process(tg):
    snippet = """
        x = tg.tensor(3., requires_grad=True)
        (x ** 3).backward(create_graph=True)
        x.grad = None
    """
    first, second = fresh_process_warnings(tg, snippet, snippet)
    assert first == [("UserWarning", CREATE_GRAPH_CYCLE_WARNING)]
    assert second == []
