"""PyTorch's behaviour: creating tensors, requires_grad flags, leaves, and printing.

Creation, flags and leaves row by row; from printing, the reprs that carry a dtype=/grad_fn=/requires_grad
suffix, plus a handful of end-to-end formatting checks (the formatting rules themselves are
tested elsewhere).
"""

import numpy as np
import pytest

from .conftest import (
    skip_needs_nn,
    printed,
    raises_exactly,
    show,
    warns_exactly,
)

# --------------------------------------------------------------------------- creating tensors


def test_tensor_from_list_with_requires_grad(tg):
    t = tg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert show(t) == "tensor([1., 2., 3.], requires_grad=True)"


def test_tensor_0d_with_requires_grad(tg):
    t = tg.tensor(5.0, requires_grad=True)
    assert show(t) == "tensor(5., requires_grad=True)"
    assert t.dim() == 0
    assert show(t.shape) == "tensorgrad.Size([])"


def test_tensor_from_mixed_int_float_list_is_float32(tg):
    t = tg.tensor([1, 2.5], requires_grad=True)
    assert show(t) == "tensor([1.0000, 2.5000], requires_grad=True)"
    assert t.dtype == tg.float32


def test_tensor_float64_with_requires_grad(tg):
    t = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    assert show(t) == "tensor([1., 2.], dtype=tensorgrad.float64, requires_grad=True)"


def test_ones_2x2_with_requires_grad(tg):
    t = tg.ones(2, 2, requires_grad=True)
    assert show(t) == "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)"


def test_zeros_with_requires_grad(tg):
    assert show(tg.zeros(3, requires_grad=True)) == "tensor([0., 0., 0.], requires_grad=True)"


def test_plain_tensor_flags(tg):
    t = tg.tensor([1.0, 2.0])
    assert show((t.requires_grad, t.is_leaf, t.grad, t.grad_fn, t.dtype)) == (
        "(False, True, None, None, tensorgrad.float32)"
    )


def test_requires_grad_underscore_returns_self_and_stays_leaf(tg):
    t = tg.tensor([1.0, 2.0])
    u = t.requires_grad_()
    assert u is t
    assert t.requires_grad is True
    assert t.is_leaf is True
    assert t.grad_fn is None


def test_requires_grad_attribute_form(tg):
    t = tg.tensor([1.0, 2.0])
    t.requires_grad = True
    assert t.requires_grad is True
    assert t.is_leaf is True
    assert show(t) == "tensor([1., 2.], requires_grad=True)"


def test_tensor_of_a_tensor_that_requires_grad_copies_and_warns(tg):
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    message = (
        "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
        "or sourceTensor.detach().clone().requires_grad_(True), rather than "
        "tensorgrad.tensor(sourceTensor)."
    )
    with warns_exactly(tg, UserWarning, message):
        t = tg.tensor(a)
    assert show(t) == "tensor([1., 2.])"
    assert t is not a
    assert (t.requires_grad, t.is_leaf, t.grad_fn) == (False, True, None)


def test_legacy_Tensor_constructor_gives_float32(tg):
    t = tg.Tensor([2])
    assert show(t) == "tensor([2.])"
    assert t.dtype == tg.float32


def test_legacy_FloatTensor_constructor(tg):
    if not hasattr(tg, "FloatTensor"):
        pytest.skip("FloatTensor is an optional legacy name")
    assert show(tg.FloatTensor([3])) == "tensor([3.])"


def test_legacy_Variable_returns_plain_tensor(tg):
    if not hasattr(tg, "autograd") or not hasattr(tg.autograd, "Variable"):
        pytest.skip("autograd.Variable is an optional legacy name")
    v = tg.autograd.Variable(tg.Tensor([2]), requires_grad=True)
    assert show(v) == "tensor([2.], requires_grad=True)"
    assert type(v) is tg.Tensor


def test_tensor_from_numpy_float64_stays_float64(tg):
    t = tg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    assert show(t) == "tensor([1., 2.], dtype=tensorgrad.float64, requires_grad=True)"
    assert t.dtype == tg.float64


def test_item_returns_python_float_and_tolist(tg):
    t = tg.tensor([1.5, 2.0])
    v = t.sum().item()
    assert type(v) is float
    assert repr(v) == "3.5"
    assert repr(t.tolist()) == "[1.5, 2.0]"


def test_numpy_on_tensor_that_requires_grad_raises(tg):
    t = tg.tensor([1.0, 2.0], requires_grad=True)
    with raises_exactly(
        tg,
        RuntimeError,
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
    ):
        t.numpy()


def test_detach_numpy_gives_float32_array(tg):
    t = tg.tensor([1.0, 2.0], requires_grad=True)
    a = t.detach().numpy()
    assert isinstance(a, np.ndarray)
    assert repr(a) == "array([1., 2.], dtype=float32)"


# --------------------------------------------------------------------------- integer / bool

FLOAT_AND_COMPLEX = "Only Tensors of floating point and complex dtype can require gradients"


def test_int_tensor_created_with_requires_grad_raises(tg):
    with raises_exactly(tg, RuntimeError, FLOAT_AND_COMPLEX):
        tg.tensor([1, 2, 3], requires_grad=True)


def test_bool_tensor_created_with_requires_grad_raises(tg):
    with raises_exactly(tg, RuntimeError, FLOAT_AND_COMPLEX):
        tg.tensor([True], requires_grad=True)


def test_int_tensor_requires_grad_underscore_raises(tg):
    with raises_exactly(tg, RuntimeError, "only Tensors of floating point dtype can require gradients"):
        tg.tensor([1, 2, 3]).requires_grad_()


def test_int_tensor_requires_grad_attribute_raises(tg):
    t = tg.tensor([1, 2, 3])
    with raises_exactly(
        tg, RuntimeError, "only Tensors of floating point and complex dtype can require gradients"
    ):
        t.requires_grad = True
    assert t.requires_grad is False


def test_int_tensor_requires_grad_underscore_false_is_allowed(tg):
    t = tg.tensor([1, 2, 3])
    assert t.requires_grad_(False) is t
    assert t.requires_grad is False


# --------------------------------------------------------------------------- leaves


@pytest.fixture
def xc(tg):
    return tg.tensor([1.0, 2.0], requires_grad=True), tg.tensor([3.0, 4.0])


def flags(t):
    return (t.requires_grad, t.is_leaf, show(t.grad_fn))


def test_leaf_created_with_requires_grad(tg, xc):
    x, _ = xc
    assert flags(x) == (True, True, "None")


def test_leaf_created_plainly(tg, xc):
    _, c = xc
    assert flags(c) == (False, True, "None")


def test_result_of_op_on_tensor_requiring_grad_is_non_leaf(tg, xc):
    x, _ = xc
    y = x * 2
    assert flags(y) == (True, False, "<MulBackward0 object at 0x…>")


def test_result_of_op_without_grad_inputs_is_leaf(tg, xc):
    _, c = xc
    z = c * 2
    assert flags(z) == (False, True, "None")


def test_detach_gives_leaf_without_grad(tg, xc):
    x, _ = xc
    d = (x * 2).detach()
    assert flags(d) == (False, True, "None")


def test_one_input_requiring_grad_is_enough(tg, xc):
    x, c = xc
    m = x + c
    assert flags(m) == (True, False, "<AddBackward0 object at 0x…>")


def test_op_inside_no_grad_gives_leaf(tg, xc):
    x, _ = xc
    with tg.no_grad():
        r = x * 2
    assert flags(r) == (False, True, "None")


def test_casting_a_leaf_gives_non_leaf(tg):
    r = tg.ones(2, requires_grad=True).double()
    assert flags(r) == (True, False, "<ToCopyBackward0 object at 0x…>")
    assert type(r.grad_fn).__name__ == "ToCopyBackward0"


def test_is_leaf_iff_grad_fn_is_none(tg, xc):
    x, c = xc
    with tg.no_grad():
        nograd = x * 2
    for t in (x, c, x * 2, c * 2, x.detach(), x + c, nograd, x.double(), (x * c).sum()):
        assert t.is_leaf == (t.grad_fn is None)


def test_result_requires_grad_only_with_grad_mode_and_an_input_requiring_grad(tg, xc):
    x, c = xc
    assert (x * c).requires_grad is True
    assert (c * c).requires_grad is False
    with tg.no_grad():
        assert (x * c).requires_grad is False
        assert (x * c).is_leaf is True


def test_float_on_float32_returns_same_object(tg, xc):
    x, _ = xc
    f = x.float()
    assert f is x
    assert f.grad_fn is None
    assert f.is_leaf is True


def test_contiguous_on_contiguous_returns_same_object(tg, xc):
    x, _ = xc
    assert x.contiguous() is x


def test_leaf_created_inside_no_grad_still_requires_grad(tg):
    with tg.no_grad():
        x = tg.tensor([1.0, 2.0], requires_grad=True)
    assert (x.requires_grad, x.is_leaf) == (True, True)


# --------------------------------------------------------------------------- changing requires_grad

NON_LEAF_FLAG = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)


def test_requires_grad_underscore_false_on_non_leaf_raises(tg, xc):
    x, _ = xc
    y = x * 2
    with raises_exactly(tg, RuntimeError, NON_LEAF_FLAG):
        y.requires_grad_(False)


def test_requires_grad_attribute_false_on_non_leaf_raises(tg, xc):
    x, _ = xc
    y = x * 2
    with raises_exactly(tg, RuntimeError, NON_LEAF_FLAG):
        y.requires_grad = False
    assert y.requires_grad is True


@pytest.mark.parametrize("args", [(), (True,)], ids=["no-arg", "True"])
def test_requires_grad_underscore_true_on_non_leaf_is_a_no_op(tg, xc, args):
    x, _ = xc
    y = x * 2
    assert y.requires_grad_(*args) is y
    assert show(y) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert y.is_leaf is False


def test_requires_grad_underscore_on_leaf_computed_without_grad(tg, xc):
    _, c = xc
    z = c * 2
    z.requires_grad_()
    assert (z.requires_grad, z.is_leaf, z.grad_fn) == (True, True, None)


def test_requires_grad_underscore_false_on_leaf(tg, xc):
    x, _ = xc
    x.requires_grad_(False)
    assert show(x) == "tensor([1., 2.])"
    assert x.requires_grad is False


# --------------------------------------------------------------------------- printing (end to end)


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda tg: tg.tensor([2.0, 4.0]), "tensor([2., 4.])"),
        (lambda tg: tg.tensor([1.5, 2.0]), "tensor([1.5000, 2.0000])"),
        (lambda tg: tg.tensor(5.0), "tensor(5.)"),
        (lambda tg: tg.tensor(4.5), "tensor(4.5000)"),
        (lambda tg: tg.tensor([1.0, 10.0, 100.0]), "tensor([  1.,  10., 100.])"),
        (lambda tg: tg.tensor([-1.5, 2.0]), "tensor([-1.5000,  2.0000])"),
        (lambda tg: tg.tensor([1.0, 1001.0]), "tensor([1.0000e+00, 1.0010e+03])"),
        (lambda tg: tg.tensor([1e-4]), "tensor([1.0000e-04])"),
        (lambda tg: tg.tensor([1e-4], dtype=tg.float64), "tensor([0.0001], dtype=tensorgrad.float64)"),
        (lambda tg: tg.tensor([1e8]), "tensor([100000000.])"),
        (lambda tg: tg.tensor([float("nan"), -float("inf"), 1.5]), "tensor([   nan,   -inf, 1.5000])"),
        (lambda tg: tg.tensor([1, 2, 300]), "tensor([  1,   2, 300])"),
        (lambda tg: tg.tensor([True, False]), "tensor([ True, False])"),
        (lambda tg: tg.tensor([]), "tensor([])"),
        (lambda tg: tg.zeros(0, 3), "tensor([], size=(0, 3))"),
        (lambda tg: tg.tensor([], dtype=tg.int64), "tensor([], dtype=tensorgrad.int64)"),
        (lambda tg: tg.ones(2, 3).shape, "tensorgrad.Size([2, 3])"),
        (lambda tg: tg.ones(2, 2) * 4.5, "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"),
        (
            lambda tg: tg.tensor([[1.0, 1000.0], [-5.0, 20.0]]),
            "tensor([[   1., 1000.],\n        [  -5.,   20.]])",
        ),
        (
            lambda tg: tg.arange(8.0).reshape(2, 2, 2),
            "tensor([[[0., 1.],\n         [2., 3.]],\n\n        [[4., 5.],\n         [6., 7.]]])",
        ),
        (
            lambda tg: tg.arange(30.0) / 7,
            "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
            "        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286,\n"
            "        2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, 3.7143,\n"
            "        3.8571, 4.0000, 4.1429])",
        ),
        (
            lambda tg: tg.arange(2000.0),
            "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
            "        1.9990e+03])",
        ),
    ],
    ids=[
        "integer-valued",
        "fixed-4-decimals",
        "0d-integer",
        "0d-fixed",
        "aligned-widths",
        "negative-alignment",
        "ratio-above-1000-is-scientific",
        "float32-1e-4-is-scientific",
        "float64-1e-4-is-fixed",
        "1e8-is-not-scientific",
        "nan-inf-padded",
        "int64",
        "bool",
        "empty",
        "empty-2d-names-size",
        "empty-int64-names-dtype",
        "Size",
        "matrix",
        "matrix-shared-width",
        "3d-blank-line-between-blocks",
        "wraps-at-80-columns",
        "summarised-past-1000",
    ],
)
def test_repr_end_to_end(tg, make, expected):
    assert show(make(tg)) == expected


def test_str_equals_repr_and_print_prints_it(tg, capsys):
    t = tg.tensor([1.5, 2.0], requires_grad=True) * 2
    assert str(t) == repr(t)
    print(t)
    assert printed(capsys) == "tensor([3., 4.], grad_fn=<MulBackward0>)\n"


def test_item_in_fstring_is_a_python_float(tg):
    assert f"{tg.tensor(2.5).item()}" == "2.5"


# suffixes


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda tg: tg.tensor(2.0, requires_grad=True) + 3, "tensor(5., grad_fn=<AddBackward0>)"),
        (lambda tg: tg.tensor(4.5, requires_grad=True), "tensor(4.5000, requires_grad=True)"),
        (
            lambda tg: tg.tensor([1.5, 2.0], requires_grad=True),
            "tensor([1.5000, 2.0000], requires_grad=True)",
        ),
        (
            lambda tg: tg.ones(2, 2, requires_grad=True) + 2,
            "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)",
        ),
        (
            lambda tg: tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True) * 2,
            "tensor([2., 4.], dtype=tensorgrad.float64, grad_fn=<MulBackward0>)",
        ),
        (
            lambda tg: tg.arange(5.0, requires_grad=True) / 7,
            "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714], grad_fn=<DivBackward0>)",
        ),
        (
            lambda tg: tg.arange(6.0, requires_grad=True) / 7,
            "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143],\n"
            "       grad_fn=<DivBackward0>)",
        ),
        (
            lambda tg: tg.arange(5.0, dtype=tg.float64, requires_grad=True) / 7,
            "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714], dtype=tensorgrad.float64,\n"
            "       grad_fn=<DivBackward0>)",
        ),
        (
            lambda tg: tg.arange(20.0, requires_grad=True) / 3,
            "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
            "        3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667, 5.0000, 5.3333, 5.6667,\n"
            "        6.0000, 6.3333], grad_fn=<DivBackward0>)",
        ),
    ],
    ids=[
        "0d-grad_fn",
        "0d-requires_grad",
        "vector-requires_grad",
        "matrix-grad_fn",
        "dtype-then-grad_fn",
        "grad_fn-fits-on-line",
        "grad_fn-wraps-for-6-elements",
        "dtype-fits-grad_fn-wraps",
        "grad_fn-after-wrapped-body",
    ],
)
def test_repr_suffix(tg, make, expected):
    assert show(make(tg)) == expected


def test_repr_never_shows_both_grad_fn_and_requires_grad(tg):
    y = tg.tensor([1.0], requires_grad=True) * 2
    assert "requires_grad=True" not in show(y)


def test_repr_nn_parameter(tg):
    skip_needs_nn(tg)
    p = tg.nn.Parameter(tg.tensor([1.0, 2.0]))
    assert show(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"


# print options (the fixture restores the default profile afterwards)


def test_set_printoptions_precision(tg, capsys):
    tg.set_printoptions(precision=2)
    print(tg.tensor([1.12345, 2.0]))
    assert printed(capsys) == "tensor([1.12, 2.00])\n"


def test_set_printoptions_default_profile_restores(tg, capsys):
    tg.set_printoptions(precision=2)
    tg.set_printoptions(profile="default")
    print(tg.tensor([1.12345, 2.0]))
    assert printed(capsys) == "tensor([1.1235, 2.0000])\n"


def test_set_printoptions_sci_mode_false(tg, capsys):
    tg.set_printoptions(sci_mode=False)
    print(tg.tensor([1e-5, 1.0]))
    assert printed(capsys) == "tensor([0.0000, 1.0000])\n"


def test_printoptions_context_manager_is_not_exported(tg):
    assert hasattr(tg, "printoptions") is False


def test_format_of_tensors(tg):
    """f-strings: a 0-d tensor formats as its number; a format spec on a tensor with dims is a
    TypeError (found by the lesson portability test)."""
    t = tg.tensor(2.5, requires_grad=True)
    assert f"{t}" == "2.5"
    assert f"{t:.3f}" == "2.500"
    v = tg.tensor([1., 2.])
    assert show(f"{v}") == show(repr(v))
    with pytest.raises(TypeError):
        f"{v:.3f}"
