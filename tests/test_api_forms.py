"""Both forms PyTorch offers: functions as Tensor methods and back, and in-place variants that
follow the leaf and version rules of every in-place operation (printed as torch prints)."""

import pytest

from parity import lib, raises, show  # noqa: F401  (lib is a fixture)

IN_PLACE = ["neg_", "exp_", "log_", "sqrt_", "tanh_", "sigmoid_", "relu_", "sin_", "cos_", "abs_",
            "reciprocal_", "square_", "floor_", "ceil_", "trunc_", "round_"]


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_variant(lib, name):
    w = lib.tensor([0.5, 2.0], requires_grad=True)
    raises(RuntimeError, "a leaf Variable that requires grad is being used in an in-place "
           "operation.", lambda: getattr(w, name)())
    y = w * 1
    out = getattr(y, name)()
    assert out is y
    expected = getattr(lib, name[:-1])(w * 1)
    assert show(y) == show(expected).replace("grad_fn=<" + type(expected.grad_fn).__name__,
                                             "grad_fn=<" + type(y.grad_fn).__name__)
    y.sum().backward()
    assert w.grad is not None
    plain = lib.tensor([0.5, 2.0])
    assert show(getattr(lib, name)(plain)) == show(getattr(lib, name[:-1])(lib.tensor([0.5, 2.0])))


def test_version_counter_sees_in_place_variants(lib):
    a = lib.tensor([1., 2.], requires_grad=True)
    b = a.exp()
    b.sin_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()


def test_methods_and_functions(lib):
    x = lib.tensor([1., 2.])
    assert show(x.isclose(x)) == "tensor([True, True])"
    assert x.allclose(x + 1e-9)
    assert show(x.outer(x)) == "tensor([[1., 2.],\n        [2., 4.]])"
    assert show(x.floor_divide(2)) == "tensor([0., 1.])"
    assert show(x.remainder(2)) == "tensor([1., 0.])"
    assert show((x > 1).logical_and(x > 0)) == "tensor([False,  True])"
    assert show(lib.ones(3).broadcast_to((2, 3)).shape) == "tensorgrad.Size([2, 3])"
    assert show(lib.all(x > 0)) == "tensor(True)" and show(lib.any(x > 1)) == "tensor(True)"
    assert lib.is_floating_point(x)
    assert show(lib.zero_(lib.tensor([1., 2.]))) == "tensor([0., 0.])"
    raises(TypeError, "exp_(): argument 'input' (position 1) must be Tensor, not list",
           lambda: lib.exp_([1.]))


def test_tensorgrad_has_no_function_at_the_top_that_torch_lacks():
    """`tg.repeat(x, 2)` ran where `torch.repeat` is an AttributeError: code that works here must
    work on torch. (Submodules aside: tg.viz, tg.dtypes, ... are tensorgrad's own.)"""
    import types

    import tensorgrad as tg
    torch = pytest.importorskip("torch")
    extra = [name for name in dir(tg) if not name.startswith("_")
             and not isinstance(getattr(tg, name), types.ModuleType) and not hasattr(torch, name)]
    assert extra == []
