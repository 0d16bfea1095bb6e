"""An in-place write leaves the tensor with the node PyTorch leaves, never its old one (issue 30,
outside review s13, N1). Before, an in-place op that recorded no node kept the tensor's old
grad_fn and tangent, and backward ran as if the write had not happened: wrong gradients, no
error. Each case runs on both libraries (PyTorch 2.13.0, measured).
"""

import pytest

from .conftest import raises_exactly, show


def _scaled(tg):
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    return a, a * 1.5


# -- a random fill: its own node, whose gradient is zero ------------------------------------------
@pytest.mark.parametrize("fill, node", [
    (lambda x: x.normal_(), "NormalBackward0"),
    (lambda x: x.uniform_(), "UniformBackward0"),
])
def test_a_random_fill_of_a_non_leaf_records_a_zero_gradient_node(tg, fill, node):
    a, x = _scaled(tg)
    fill(x)
    assert type(x.grad_fn).__name__ == node
    assert show(x.grad_fn.next_functions[0][0].name()) == "'MulBackward0'"
    x.sum().backward()
    assert show(a.grad) == "tensor([0., 0.])"


def test_a_random_fill_under_no_grad_keeps_the_node(tg):
    a, x = _scaled(tg)
    with tg.no_grad():
        x.normal_()
    assert type(x.grad_fn).__name__ == "MulBackward0"


def test_a_random_fill_of_a_plain_tensor_records_nothing(tg):
    x = tg.zeros(2)
    x.uniform_()
    assert x.grad_fn is None and not x.requires_grad


# -- floor_divide_: PyTorch has no derivative, and says so at backward time ------------------------
def test_floor_divide_in_place_has_no_derivative(tg):
    a, x = _scaled(tg)
    x.floor_divide_(tg.tensor([2.0, 2.0]))
    assert x.requires_grad
    assert x.grad_fn.next_functions[0][0].name() == "MulBackward0"
    with raises_exactly(tg, RuntimeError, "derivative for aten::floor_divide_ is not implemented"):
        x.sum().backward()
    assert a.grad is None


def test_floor_divide_out_of_place_has_no_derivative(tg):
    a, x = _scaled(tg)
    y = x.floor_divide(2.0)
    assert y.requires_grad and type(y.grad_fn).__name__ == "NotImplemented"
    with raises_exactly(tg, RuntimeError, "derivative for aten::floor_divide is not implemented"):
        y.sum().backward()


def test_floor_divide_in_place_has_no_forward_derivative(tg):
    fa = tg.autograd.forward_ad
    with fa.dual_level():
        x = fa.make_dual(tg.tensor([1.0, 2.0]), tg.tensor([10.0, 20.0])) * 1
        with raises_exactly(tg, NotImplementedError, "Trying to use forward AD with "
                            "aten::floor_divide_ that does not support it."):
            x.floor_divide_(tg.tensor([2.0, 2.0]))


def test_floor_divide_in_place_of_a_plain_tensor_records_nothing(tg):
    x = tg.tensor([3.0, 5.0])
    x.floor_divide_(tg.tensor([2.0, 2.0]))
    assert show(x) == "tensor([1., 2.])"
    assert x.grad_fn is None


# -- fill_ with a 0-d tensor: the value's gradient is the sum of the gradient -----------------------
def test_fill_with_a_tensor_passes_the_gradient_to_the_value(tg):
    a, x = _scaled(tg)
    b = tg.tensor([1.0, 2.0], requires_grad=True)
    x.fill_(b[0])
    assert type(x.grad_fn).__name__ == "FillBackward3"
    x.sum().backward()
    assert show(b.grad) == "tensor([2., 0.])"
    assert show(a.grad) == "tensor([0., 0.])"


def test_fill_of_a_plain_tensor_with_a_value_that_requires_grad(tg):
    t = tg.tensor(3.0, requires_grad=True)
    p = tg.zeros(2)
    p.fill_(t)
    assert type(p.grad_fn).__name__ == "FillBackward3"
    (p * tg.tensor([1.0, 4.0])).sum().backward()
    assert show(t.grad) == "tensor(5.)"


# -- forward mode: detach_ drops the tangent --------------------------------------------------------
def test_detach_in_place_drops_the_tangent(tg):
    fa = tg.autograd.forward_ad
    with fa.dual_level():
        x = fa.make_dual(tg.tensor([1.0, 2.0]), tg.tensor([10.0, 20.0])) * 1
        x.detach_()
        assert fa.unpack_dual(x).tangent is None


# -- t[i] = t[j]: the overlap check compares the value with the written part, not all of t (N3a) ----
@pytest.mark.parametrize("write, text", [
    (lambda t: t.__setitem__(0, t[1]), "tensor([2., 2., 3., 4.])"),
    (lambda t: t.__setitem__(slice(None, 2), t[2:]), "tensor([3., 4., 3., 4.])"),
])
def test_a_part_written_from_another_part_of_the_same_tensor(tg, write, text):
    t = tg.tensor([1.0, 2.0, 3.0, 4.0])
    write(t)
    assert show(t) == text


def test_a_part_written_from_another_part_keeps_the_gradient(tg):
    a = tg.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1.5
    x[0] = x[1]
    x.sum().backward()
    assert show(a.grad) == "tensor([0., 3.])"


def test_a_part_written_from_a_part_it_overlaps_is_refused(tg):
    t = tg.tensor([1.0, 2.0, 3.0, 4.0])
    with raises_exactly(tg, RuntimeError, "unsupported operation: some elements of the input "
                        "tensor and the written-to tensor refer to a single memory location. "
                        "Please clone() the tensor before performing the operation."):
        t[1:] = t[:-1]


# -- the guard: every in-place method, on a non-leaf, leaves the node PyTorch leaves ----------------
# name -> (the call's arguments, made with the library at hand; the node PyTorch 2.13 gives y, or
# the error it raises on a float tensor)
INPLACE_CALLS = {
    "add_": (lambda tg: (tg.tensor([2.0, 4.0]),), "AddBackward0"),
    "sub_": (lambda tg: (tg.tensor([2.0, 4.0]),), "SubBackward0"),
    "mul_": (lambda tg: (tg.tensor([2.0, 4.0]),), "MulBackward0"),
    "div_": (lambda tg: (tg.tensor([2.0, 4.0]),), "DivBackward0"),
    "pow_": (lambda tg: (2.0,), "PowBackward0"),
    "remainder_": (lambda tg: (tg.tensor([2.0, 4.0]),), "RemainderBackward1"),
    "floor_divide_": (lambda tg: (tg.tensor([2.0, 4.0]),), "NotImplemented"),
    "clamp_": (lambda tg: (0.5, 2.0), "ClampBackward1"),
    "copy_": (lambda tg: (tg.tensor([5.0, 6.0]),), "CopyBackwards"),
    "fill_": (lambda tg: (3.0,), "FillBackward2"),
    "masked_fill_": (lambda tg: (tg.tensor([True, False]), 0.0), "MaskedFillBackward0"),
    "normal_": (lambda tg: (), "NormalBackward0"),
    "uniform_": (lambda tg: (), "UniformBackward0"),
    "zero_": (lambda tg: (), "ZeroBackward0"),
    "round_": (lambda tg: (), "RoundBackward0"),
    "square_": (lambda tg: (), "PowBackward0"),
    "detach_": (lambda tg: (), None),  # (out of the graph: no node at all)
    **{name + "_": (lambda tg: (), name.capitalize() + "Backward0") for name in (
        "abs", "ceil", "cos", "exp", "floor", "log", "neg", "reciprocal", "relu", "sigmoid",
        "sign", "sin", "sqrt", "tanh", "trunc")},
    **{name + "_": (lambda tg: (tg.tensor([1, 2]),), (NotImplementedError, kernel))
       for name, kernel in (("bitwise_and", "bitwise_and_cpu"), ("bitwise_or", "bitwise_or_cpu"),
                            ("bitwise_xor", "bitwise_xor_cpu"), ("bitwise_left_shift", "lshift_cpu"),
                            ("bitwise_right_shift", "rshift_cpu"))},
}
# (scalar and tensor forms PyTorch names apart)
INPLACE_FORMS = {
    "remainder_ of a number": ("remainder_", lambda tg: (2.0,), "RemainderBackward0"),
    "clamp_ with tensor bounds": ("clamp_", lambda tg: (tg.tensor(0.0), tg.tensor(2.0)),
                                  "ClampBackward0"),
    "fill_ with a 0-d tensor": ("fill_", lambda tg: (tg.tensor(3.0),), "FillBackward3"),
    "masked_fill_ with a 0-d tensor": ("masked_fill_", lambda tg: (tg.tensor([True, False]),
                                                                   tg.tensor(0.0)),
                                       "MaskedFillBackward1"),
    "pow_ of a tensor": ("pow_", lambda tg: (tg.tensor([2.0, 3.0]),), "PowBackward1"),
}
_CASES = {name: (name, *call) for name, call in INPLACE_CALLS.items()} | INPLACE_FORMS


@pytest.mark.parametrize("case", sorted(_CASES))
def test_an_in_place_write_never_leaves_the_old_node(tg, case):
    """y = x * 1, then y.op_(...): y's grad_fn is a new node, the one PyTorch gives (or the
    error PyTorch raises), never y's old MulBackward0."""
    name, make_args, expected = _CASES[case]
    x = tg.tensor([1.5, 2.5], requires_grad=True)
    y = x * 1
    old = y.grad_fn
    if isinstance(expected, tuple):
        error, kernel = expected
        with raises_exactly(tg, error, f'"{kernel}" not implemented for \'Float\''):
            getattr(y, name)(*make_args(tg))
        return
    getattr(y, name)(*make_args(tg))
    assert y.grad_fn is not old
    assert (None if y.grad_fn is None else type(y.grad_fn).__name__) == expected


def test_every_in_place_method_is_in_the_guard():
    """A new in-place method of Tensor must be added to INPLACE_CALLS above."""
    import tensorgrad
    in_place = {name for name in dir(tensorgrad.Tensor)
                if name.endswith("_") and not name.startswith("_")} - {"requires_grad_"}
    assert in_place == set(INPLACE_CALLS)
