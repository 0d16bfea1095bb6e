"""PyTorch's behaviour: grad modes (without inference_mode), detach/.data, in-place
operations on leaves, version counters, tensor hooks (without post-accumulate and node hooks).
"""

import pytest

from .conftest import (
    LEAF_INPLACE,
    NON_LEAF_GRAD_WARNING,
    VIEW_OF_LEAF_INPLACE,
    printed,
    raises_exactly,
    show,
    warns_exactly,
)


@pytest.fixture
def x(tg):
    return tg.tensor([1.0, 2.0], requires_grad=True)


# --------------------------------------------------------------------------- grad modes


def test_no_grad_context(tg, x, capsys):
    with tg.no_grad():
        print(tg.is_grad_enabled())
        y = x * 2
    assert printed(capsys) == "False\n"
    assert show((tg.is_grad_enabled(), y, y.requires_grad, y.grad_fn, y.is_leaf)) == (
        "(True, tensor([2., 4.]), False, None, True)"
    )


def test_no_grad_decorator_with_parentheses(tg, x):
    @tg.no_grad()
    def f(t):
        return tg.is_grad_enabled(), t * 2

    enabled, y = f(x)
    assert enabled is False
    assert y.requires_grad is False
    assert tg.is_grad_enabled() is True


def test_no_grad_decorator_without_parentheses(tg, x):
    @tg.no_grad
    def f(t):
        return tg.is_grad_enabled(), t * 2

    enabled, y = f(x)
    assert enabled is False
    assert y.requires_grad is False
    assert tg.is_grad_enabled() is True


def test_inplace_on_leaf_inside_no_grad_is_allowed(tg, x):
    original = x
    with tg.no_grad():
        x -= 0.5
        x.mul_(2)
    assert x is original
    assert show(x) == "tensor([1., 3.], requires_grad=True)"
    assert x.is_leaf is True
    assert x._version == 2


def test_enable_grad_nested_inside_no_grad(tg, x):
    with tg.no_grad():
        with tg.enable_grad():
            inner = x * 2
        after = x * 2
    assert inner.requires_grad is True
    assert type(inner.grad_fn).__name__ == "MulBackward0"
    assert after.requires_grad is False


@pytest.mark.parametrize("parentheses", [True, False], ids=["enable_grad()", "enable_grad"])
def test_enable_grad_decorator_under_no_grad(tg, x, parentheses):
    decorator = tg.enable_grad() if parentheses else tg.enable_grad

    @decorator
    def f(t):
        return t * 2

    with tg.no_grad():
        y = f(x)
        assert tg.is_grad_enabled() is False
    assert y.requires_grad is True


def test_set_grad_enabled_as_context_manager(tg, x):
    with tg.set_grad_enabled(False):
        a = x * 2
    with tg.set_grad_enabled(True):
        b = x * 2
    assert (a.requires_grad, b.requires_grad) == (False, True)
    assert tg.is_grad_enabled() is True


def test_set_grad_enabled_as_plain_function_is_global(tg, x):
    tg.set_grad_enabled(False)
    try:
        assert tg.is_grad_enabled() is False
        assert (x * 2).requires_grad is False
        assert (x * 2).requires_grad is False
    finally:
        tg.set_grad_enabled(True)
    assert tg.is_grad_enabled() is True
    assert (x * 2).requires_grad is True


def test_set_grad_enabled_as_decorator(tg, x):
    @tg.set_grad_enabled(False)
    def f(t):
        return tg.is_grad_enabled(), t * 2

    enabled, y = f(x)
    assert enabled is False
    assert y.requires_grad is False
    assert tg.is_grad_enabled() is True


def test_set_grad_enabled_rejects_non_bool(tg):
    with raises_exactly(
        tg, TypeError, "set_grad_enabled(): argument 'enabled' (position 1) must be bool, not str"
    ):
        tg.set_grad_enabled("yes")
    assert tg.is_grad_enabled() is True


def test_no_grad_repr(tg):
    assert show(tg.no_grad()) == "<tensorgrad.autograd.grad_mode.no_grad object at 0x…>"


# --------------------------------------------------------------------------- detach, .data


def _version_error(shape, op=None, version=1):
    clause = f", which is output 0 of {op}," if op else ""
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [tensorgrad.FloatTensor [{shape}]]{clause} is at version {version}; expected "
        "version 0 instead. Hint: enable anomaly detection to find the operation that failed to "
        "compute its gradient, with tensorgrad.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def test_detach_of_result(tg, x):
    d = (x * 2).detach()
    assert show((d, d.requires_grad, d.is_leaf, d.grad_fn)) == "(tensor([2., 4.]), False, True, None)"


def test_detach_shares_data(tg, x):
    d = x.detach()
    d[0] = 100.0
    assert show(x) == "tensor([100.,   2.], requires_grad=True)"


def test_detach_shares_storage_data_ptr(tg, x):
    assert x.detach().data_ptr() == x.data_ptr()


def test_detach_shares_version_counter(tg, x):
    y = x.exp()
    y.detach().zero_()
    with raises_exactly(tg, RuntimeError, _version_error("2", "Exp")):
        y.sum().backward()


def test_data_attribute(tg, x):
    d = x.data
    assert show(d) == "tensor([1., 2.])"
    assert (d.requires_grad, d.is_leaf) == (False, True)
    d[1] = 7.0
    assert show(x) == "tensor([1., 7.], requires_grad=True)"


def test_data_inplace_bypasses_version_counter(tg, x):
    y = x.exp()
    y.data.zero_()
    y.sum().backward()
    assert show(x.grad) == "tensor([0., 0.])"
    assert y._version == 0


def test_detach_underscore_on_result(tg, x):
    y = x * 2
    assert y.detach_() is y
    assert show(y) == "tensor([2., 4.])"
    assert (y.requires_grad, y.is_leaf, y.grad_fn) == (False, True, None)


def test_detach_underscore_on_leaf(tg, x):
    x.detach_()
    assert show(x) == "tensor([1., 2.])"
    assert x.requires_grad is False


def test_detach_underscore_on_view_raises(tg, x):
    with raises_exactly(
        tg,
        RuntimeError,
        "Can't detach views in-place. Use detach() instead. If you are using "
        "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
        "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
        "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
        "torch/optim/optimizer.py as the solution.",
    ):
        x[:1].detach_()


def test_eq_all_with_detached(tg, x):
    y = x.detach()
    assert show(x.eq(y).all()) == "tensor(True)"


# --------------------------------------------------------------------------- in-place on leaves


def test_leaf_add_(tg, x):
    with raises_exactly(tg, RuntimeError, LEAF_INPLACE):
        x.add_(1)


def test_leaf_iadd(tg, x):
    w = x
    with raises_exactly(tg, RuntimeError, LEAF_INPLACE):
        w += 1


def test_leaf_zero_(tg, x):
    with raises_exactly(tg, RuntimeError, LEAF_INPLACE):
        x.zero_()
    assert show(x) == "tensor([1., 2.], requires_grad=True)"


def test_leaf_setitem(tg, x):
    with raises_exactly(tg, RuntimeError, VIEW_OF_LEAF_INPLACE):
        x[0] = 5.0


def test_view_of_leaf_add_(tg, x):
    v = x[:1]
    with raises_exactly(tg, RuntimeError, VIEW_OF_LEAF_INPLACE):
        v.add_(1)


def test_leaf_data_add_(tg, x):
    x.data.add_(1)
    assert show(x) == "tensor([2., 3.], requires_grad=True)"


@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda w: w.add_(1), "tensor([2., 3.], requires_grad=True)"),
        (lambda w: w.__iadd__(1), "tensor([2., 3.], requires_grad=True)"),
        (lambda w: w.zero_(), "tensor([0., 0.], requires_grad=True)"),
        (lambda w: w.__setitem__(0, 5.0), "tensor([5., 2.], requires_grad=True)"),
        (lambda w: w[:1].add_(1), "tensor([2., 2.], requires_grad=True)"),
    ],
    ids=["add_", "+=", "zero_", "setitem", "view-add_"],
)
def test_leaf_inplace_inside_no_grad_is_allowed(tg, x, edit, expected):
    with tg.no_grad():
        edit(x)
    assert show(x) == expected
    assert x.is_leaf is True


def test_out_of_place_add_gives_new_object(tg):
    a = tg.ones((1,))
    before = id(a)
    keep = a  # keep it alive so the id cannot be reused
    a = a + tg.ones((1,))
    assert id(a) != before
    assert keep is not a


def test_iadd_keeps_object(tg):
    a = tg.ones((1,))
    a = a + tg.ones((1,))
    before = id(a)
    a += tg.ones((1,))
    assert id(a) == before
    assert show(a) == "tensor([3.])"


def test_inplace_on_non_leaf_is_allowed(tg, x):
    y = x * 2
    y.add_(1)
    y.sum().backward()
    assert show(y) == "tensor([3., 5.], grad_fn=<AddBackward0>)"
    assert y._version == 1
    assert show(x.grad) == "tensor([2., 2.])"


def test_inplace_relu_on_non_leaf(tg):
    x = tg.tensor([-1.0, 2.0], requires_grad=True)
    y = x * 1
    y.relu_()
    y.sum().backward()
    assert type(y.grad_fn).__name__ == "ReluBackward0"
    assert show(x.grad) == "tensor([0., 1.])"


# --------------------------------------------------------------------------- version counter


def test_version_counter_counts_inplace_changes(tg):
    t = tg.tensor([1.0, 2.0])
    v0 = t._version
    t.add_(1)
    v1 = t._version
    t.mul_(2)
    v2 = t._version
    u = t + 1
    assert (v0, v1, v2, u._version) == (0, 1, 2, 0)


@pytest.mark.parametrize(
    "edit",
    [lambda t: t.__iadd__(1), lambda t: t.__setitem__(0, 5.0), lambda t: t.sub_(1),
     lambda t: t.fill_(3.0), lambda t: t.zero_()],
    ids=["+=", "setitem", "sub_", "fill_", "zero_"],
)
def test_every_inplace_change_adds_one(tg, edit):
    t = tg.tensor([1.0, 2.0])
    edit(t)
    assert t._version == 1


def test_version_error_names_forward_op_exp(tg):
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    y.add_(1)  # no error yet: it is raised by backward
    with raises_exactly(tg, RuntimeError, _version_error("3", "Exp")):
        y.sum().backward()


def test_version_error_names_forward_op_mul(tg):
    x = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 1
    b = a * a
    a.mul_(2)
    with raises_exactly(tg, RuntimeError, _version_error("3", "Mul")):
        b.sum().backward()


def test_version_error_2d_shape_sigmoid(tg):
    x = tg.ones(2, 2, requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    with raises_exactly(tg, RuntimeError, _version_error("2, 2", "Sigmoid")):
        y.sum().backward()


def test_version_error_after_two_edits(tg, x):
    y = x.exp()
    y.add_(1)
    y.add_(1)
    with raises_exactly(tg, RuntimeError, _version_error("2", "Exp", version=2)):
        y.sum().backward()


def test_version_error_for_modified_leaf_has_no_output_clause(tg, x):
    y = x**2
    with tg.no_grad():
        x.add_(1)
    with raises_exactly(tg, RuntimeError, _version_error("2")):
        y.sum().backward()


def test_inplace_after_op_that_saved_nothing_is_fine(tg, x):
    y = x + 1
    y.mul_(3)
    y.sum().backward()
    assert show(x.grad) == "tensor([3., 3.])"


# --------------------------------------------------------------------------- hooks


def test_hook_replaces_gradient_and_returns_handle(tg, x):
    h = x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    assert show(x.grad) == "tensor([30., 30.])"
    assert type(h).__name__ == "RemovableHandle"


def test_hook_returning_none_keeps_gradient(tg, x, capsys):
    x.register_hook(lambda g: print("hook saw", g))
    (x * 3).sum().backward()
    assert printed(capsys) == "hook saw tensor([3., 3.])\n"
    assert show(x.grad) == "tensor([3., 3.])"


def test_hooks_on_non_leaf(tg, x, capsys):
    y = x * 2
    y.register_hook(lambda g: print("y grad", g))
    y.register_hook(lambda g: g + 100)
    (y * y).sum().backward()
    assert printed(capsys) == "y grad tensor([4., 8.])\n"
    assert show(x.grad) == "tensor([208., 216.])"
    with warns_exactly(tg, UserWarning, NON_LEAF_GRAD_WARNING):
        assert y.grad is None


def test_two_hooks_run_in_registration_order_and_chain(tg, capsys):
    x = tg.tensor([5.0], requires_grad=True)

    def first(g):
        print("first", g)
        return g * 2

    def second(g):
        print("second", g)
        return g + 1

    x.register_hook(first)
    x.register_hook(second)
    (x * 1).sum().backward()
    assert printed(capsys) == "first tensor([1.])\nsecond tensor([2.])\n"
    assert show(x.grad) == "tensor([3.])"


def test_removed_hook_does_not_run(tg, x):
    h = x.register_hook(lambda g: g * 10)
    h.remove()
    (x * 3).sum().backward()
    assert show(x.grad) == "tensor([3., 3.])"


def test_hook_on_tensor_without_requires_grad_raises(tg):
    with raises_exactly(
        tg, RuntimeError, "cannot register a hook on a tensor that doesn't require gradient"
    ):
        tg.tensor([1.0, 2.0]).register_hook(lambda g: g)


def test_hook_changing_size_raises_at_backward(tg, x):
    x.register_hook(lambda g: tg.ones(3))  # no error yet
    with raises_exactly(tg, RuntimeError, "hook '<lambda>' has changed the size of value"):
        (x * 3).sum().backward()


def test_hook_returning_non_tensor_raises(tg, x):
    x.register_hook(lambda g: 5)
    with raises_exactly(tg, TypeError, "expected Variable, but hook returned 'int'"):
        (x * 3).sum().backward()


def test_retained_grad_shows_hooked_value(tg, x):
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 0)
    y.sum().backward()
    assert show((y.grad, x.grad)) == "(tensor([0., 0.]), tensor([0., 0.]))"
