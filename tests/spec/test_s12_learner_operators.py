"""PyTorch's behaviour for operators and arguments a learner meets (issue 29, an outside
attacker's kinds, second round): the bitwise operators `^ << >>` and the in-place `&= |= ^= <<= >>=`,
Python ints beyond int64 in arithmetic, sizes one by one only where PyTorch's parser takes them,
and smaller slips (all/any over no dims, prod(dtype=bool), the sign of a zero remainder, bool
division with rounding, an empty batch's MSE backward). Each kind run on both libraries
(PyTorch 2.13.0, measured).
"""

import numpy as np
import pytest

from .conftest import raises_exactly, show

INT = [1, 2, 12]
BOOL = [True, False, True]


# -- the bitwise operators and their functions --------------------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg, i, b: i ^ 3, "tensor([ 2,  1, 15])"),
    (lambda tg, i, b: 3 ^ i, "tensor([ 2,  1, 15])"),
    (lambda tg, i, b: b ^ b, "tensor([False, False, False])"),
    (lambda tg, i, b: b ^ True, "tensor([False,  True, False])"),
    (lambda tg, i, b: i ^ b, "tensor([ 0,  2, 13])"),
    (lambda tg, i, b: 5 & i, "tensor([1, 0, 4])"),
    (lambda tg, i, b: 4 | i, "tensor([ 5,  6, 12])"),
    (lambda tg, i, b: i << 2, "tensor([ 4,  8, 48])"),
    (lambda tg, i, b: 2 << i, "tensor([   4,    8, 8192])"),
    (lambda tg, i, b: i >> 1, "tensor([0, 1, 6])"),
    (lambda tg, i, b: 100 >> i, "tensor([50, 25,  0])"),
    (lambda tg, i, b: b << 1, "tensor([2, 0, 2])"),
    (lambda tg, i, b: i << -1, "tensor([0, 0, 0])"),
    (lambda tg, i, b: i << 64, "tensor([0, 0, 0])"),
    (lambda tg, i, b: -i >> 70, "tensor([-1, -1, -1])"),
    (lambda tg, i, b: tg.bitwise_xor(i, 3), "tensor([ 2,  1, 15])"),
    (lambda tg, i, b: tg.bitwise_xor(3, i), "tensor([ 2,  1, 15])"),
    (lambda tg, i, b: tg.bitwise_and(True, b), "tensor([ True, False,  True])"),
    (lambda tg, i, b: tg.bitwise_left_shift(2, i), "tensor([   4,    8, 8192])"),
    (lambda tg, i, b: tg.bitwise_right_shift(i, 2), "tensor([0, 0, 3])"),
    (lambda tg, i, b: i.bitwise_or(1), "tensor([ 1,  3, 13])"),
    (lambda tg, i, b: i.bitwise_left_shift(1), "tensor([ 2,  4, 24])"),
])
def test_bitwise_operators_and_functions(tg, call, text):
    assert show(call(tg, tg.tensor(INT), tg.tensor(BOOL))) == text


@pytest.mark.parametrize("call, error, message", [
    (lambda tg, i, f, b: f ^ 1, NotImplementedError, "\"bitwise_xor_cpu\" not implemented for 'Float'"),
    (lambda tg, i, f, b: i ^ 1.5, NotImplementedError, "\"bitwise_xor_cpu\" not implemented for 'Float'"),
    (lambda tg, i, f, b: f << 1, NotImplementedError, "\"lshift_cpu\" not implemented for 'Float'"),
    (lambda tg, i, f, b: 2 << f, NotImplementedError, "\"lshift_cpu\" not implemented for 'Float'"),
    (lambda tg, i, f, b: b << True, NotImplementedError, "\"lshift_cpu\" not implemented for 'Bool'"),
    (lambda tg, i, f, b: b >> b, NotImplementedError, "\"rshift_cpu\" not implemented for 'Bool'"),
    (lambda tg, i, f, b: tg.bitwise_or(f, f), NotImplementedError, "\"bitwise_or_cpu\" not implemented for 'Float'"),
    (lambda tg, i, f, b: i ^ tg.ones(2), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    (lambda tg, i, f, b: i ^ "a", TypeError, "unsupported operand type(s) for ^: 'Tensor' and 'str'"),
])
def test_bitwise_refusals(tg, call, error, message):
    i, f, b = tg.tensor(INT), tg.tensor([1.0, 2.0, 3.0]), tg.tensor(BOOL)
    with raises_exactly(tg, error, message):
        call(tg, i, f, b)


@pytest.mark.parametrize("statement, text", [
    ("a ^= 3", "tensor([ 2,  1, 15])"),
    ("a &= 3", "tensor([1, 2, 0])"),
    ("a |= 4", "tensor([ 5,  6, 12])"),
    ("a <<= 3", "tensor([ 8, 16, 96])"),
    ("a >>= 1", "tensor([0, 1, 6])"),
    ("a.bitwise_xor_(3)", "tensor([ 2,  1, 15])"),
])
def test_in_place_bitwise_changes_the_tensor_itself(tg, statement, text):
    a = tg.tensor(INT)
    alias = a
    exec(statement, {"a": a})
    assert show(alias) == text


@pytest.mark.parametrize("statement, error, message", [
    ("i ^= 1.5", RuntimeError, "result type Float can't be cast to the desired output type Long"),
    ("b &= i", RuntimeError, "result type Long can't be cast to the desired output type Bool"),
    ("b <<= 1", RuntimeError, "result type Long can't be cast to the desired output type Bool"),
    ("i &= f2", RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    ("i |= g", RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ("f <<= 1", NotImplementedError, "\"lshift_cpu\" not implemented for 'Float'"),
    ("i.pow_(g)", RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]"),
])
def test_in_place_bitwise_refusals_in_pytorchs_order(tg, statement, error, message):
    names = {"i": tg.tensor(INT), "b": tg.tensor(BOOL), "f": tg.tensor([1.0, 2.0, 3.0]),
             "f2": tg.ones(2), "g": tg.ones(2, 3, dtype=tg.int64)}
    with raises_exactly(tg, error, message):
        exec(statement, names)


# -- Python ints beyond int64 in arithmetic: PyTorch's uint64 Scalar --------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg, i: i + 2 ** 63, "tensor([-9223372036854775807, -9223372036854775806, "
                                "-9223372036854775796])"),
    (lambda tg, i: 2 ** 63 - i, "tensor([9223372036854775807, 9223372036854775806, "
                                "9223372036854775796])"),
    (lambda tg, i: i * 2 ** 63, "tensor([-9223372036854775808,                    0,                    0])"),
    (lambda tg, i: i // 2 ** 63, "tensor([-1, -1, -1])"),
    (lambda tg, i: i < 2 ** 63, "tensor([False, False, False])"),
    (lambda tg, i: i ^ 2 ** 63, "tensor([-9223372036854775807, -9223372036854775806, "
                                "-9223372036854775796])"),
    (lambda tg, i: i << 2 ** 63, "tensor([0, 0, 0])"),
    (lambda tg, i: (2 ** 64 - 1) + i, "tensor([ 0,  1, 11])"),
    (lambda tg, i: i / 2 ** 63, "tensor([1.0842e-19, 2.1684e-19, 1.3010e-18])"),
    (lambda tg, i: tg.add(i, 2 ** 63), "tensor([-9223372036854775807, -9223372036854775806, "
                                       "-9223372036854775796])"),
    (lambda tg, i: tg.tensor([1.0]) + 2 ** 63, "tensor([9.2234e+18])"),
    (lambda tg, i: i.sub(1, alpha=2 ** 63), "tensor([-9223372036854775807, -9223372036854775806, "
                                            "-9223372036854775796])"),
])
def test_an_int_beyond_int64_wraps_as_in_pytorch(tg, call, text):
    assert show(call(tg, tg.tensor(INT))) == text


PROMOTION = ("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
             "Bool and UInt64")
INT64_T = "value cannot be converted to type int64_t without overflow"


@pytest.mark.parametrize("call, error, message", [
    (lambda tg, i, b: b + 2 ** 63, RuntimeError, PROMOTION),
    (lambda tg, i, b: 2 ** 63 % b, RuntimeError, PROMOTION),
    (lambda tg, i, b: b == 2 ** 63, RuntimeError, PROMOTION),
    (lambda tg, i, b: b / 2 ** 63, RuntimeError, PROMOTION),
    (lambda tg, i, b: i ** 2 ** 63, RuntimeError, INT64_T),
    (lambda tg, i, b: b ** 2 ** 63, RuntimeError, INT64_T),
    (lambda tg, i, b: i.add(1, alpha=2 ** 63), RuntimeError, INT64_T),
    (lambda tg, i, b: tg.clamp(i, max=2 ** 63), RuntimeError, INT64_T),
    (lambda tg, i, b: tg.where(b, i, 2 ** 63), RuntimeError, INT64_T),
    (lambda tg, i, b: tg.where(b, b, 2 ** 63), RuntimeError, PROMOTION),
    (lambda tg, i, b: tg.clamp(tg.ones(2), max=1e308), RuntimeError,
     "value cannot be converted to type float without overflow"),
    (lambda tg, i, b: i + 2 ** 64, OverflowError, "int too big to convert"),
])
def test_an_int_beyond_int64_refused_as_in_pytorch(tg, call, error, message):
    with raises_exactly(tg, error, message):
        call(tg, tg.tensor(INT), tg.tensor(BOOL))


def test_in_place_with_an_int_beyond_int64(tg):
    a = tg.tensor(INT)
    a += 2 ** 63
    assert show(a) == "tensor([-9223372036854775807, -9223372036854775806, -9223372036854775796])"
    with raises_exactly(tg, RuntimeError, INT64_T):
        a **= 2 ** 63


# -- sizes one by one: only where the size is the one positional parameter ----------------------
def test_reshape_function_takes_no_int_as_its_shape(tg):
    t = tg.ones(6)
    with raises_exactly(tg, TypeError, "reshape(): argument 'shape' (position 2) must be tuple of "
                                       "ints, not int"):
        tg.reshape(t, 6)
    with raises_exactly(tg, TypeError, "permute(): argument 'dims' (position 2) must be tuple of "
                                       "ints, not int"):
        tg.permute(t, 0)
    with raises_exactly(tg, TypeError, "reshape(): argument 'shape' must be tuple of ints, not int"):
        tg.reshape(t, shape=6)
    # the method's size is its one positional parameter: one int, or ints one by one
    assert tg.reshape(t, (2, 3)).shape == t.reshape(2, 3).shape == (2, 3)
    assert t.reshape(6).shape == t.permute(0).shape == tg.ones(6).shape == (6,)


# -- smaller slips ------------------------------------------------------------------------------
@pytest.mark.parametrize("call, text", [
    (lambda tg, x: x.all(dim=()), "tensor([[ True, False],\n        [ True,  True]])"),
    (lambda tg, x: x.any([]), "tensor([[ True, False],\n        [ True,  True]])"),
    (lambda tg, x: tg.all(x.float(), dim=()), "tensor([[ True, False],\n        [ True,  True]])"),
    (lambda tg, x: x.prod(dtype=tg.bool), "tensor(False)"),
    (lambda tg, x: x.long().prod(1, dtype=tg.bool), "tensor([False,  True])"),
    (lambda tg, x: tg.tensor([1.0, -1.0, 0.0, 2.5]) % -1, "tensor([ 0.0000, -0.0000,  0.0000, -0.5000])"),
    (lambda tg, x: tg.remainder(tg.tensor([1.0, -1.0]), 1), "tensor([0., -0.])"),
    (lambda tg, x: tg.remainder(-1, tg.tensor([1.0, 2.5])), "tensor([-0.0000, 1.5000])"),
    (lambda tg, x: x.div(2, rounding_mode="trunc"), "tensor([[0, 0],\n        [0, 0]])"),
    (lambda tg, x: tg.tensor([-7, 7]).div(2, rounding_mode="trunc"), "tensor([-3,  3])"),
])
def test_smaller_slips(tg, call, text):
    assert show(call(tg, tg.tensor([[True, False], [True, True]]))) == text


def test_mse_backward_on_an_empty_batch(tg):
    x = tg.zeros(0, 3, requires_grad=True)
    loss = tg.nn.functional.mse_loss(x, tg.zeros(0, 3))
    loss.backward()
    assert show(loss) == "tensor(nan, grad_fn=<MseLossBackward0>)"
    assert show(x.grad) == "tensor([], size=(0, 3))"


def test_cross_entropy_of_an_empty_batch_is_nan(tg):
    x = tg.zeros(0, 3, requires_grad=True)
    loss = tg.nn.functional.cross_entropy(x, tg.zeros(0, dtype=tg.int64))
    assert show(loss) == "tensor(nan, grad_fn=<NllLossBackward0>)"


# -- NumPy integer dtypes: never a silent wrap ---------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda tg: tg.tensor(np.array([2 ** 63], dtype=np.uint64)),
    lambda tg: tg.as_tensor(np.array([2 ** 64 - 1], dtype=np.uint64)),
    lambda tg: tg.from_numpy(np.array([2 ** 63], dtype=np.uint64)),
    lambda tg: tg.tensor([np.uint64(2 ** 63)]),
])
def test_a_uint64_value_beyond_int64_is_kept_or_refused_never_wrapped(tg, make):
    """PyTorch keeps the uint64 dtype (or refuses a NumPy uint64 scalar); tensorgrad, whose one
    integer dtype is int64, refuses with a clear TypeError. Neither gives a negative number."""
    try:
        t = make(tg)
    except TypeError as error:
        assert "uint64" in str(error) or str(error) == "an integer is required"
        return
    assert t.tolist()[0] >= 2 ** 63


def test_smaller_numpy_integers_keep_their_values(tg):
    """(Asked for as int64: with no dtype asked for, tensorgrad refuses the dtypes it has not,
    tests/spec/test_s16_misuse_kinds.py.)"""
    assert tg.tensor(np.array([200], dtype=np.uint8), dtype=tg.int64).tolist() == [200]
    assert tg.tensor(np.array([-5], dtype=np.int8), dtype=tg.int64).tolist() == [-5]
    assert tg.tensor(np.array([3], dtype=np.uint64), dtype=tg.int64).tolist() == [3]
