"""Element-by-element operations and their derivatives.

Each function computes its result with NumPy and records its node; the derivative rules of
these nodes are in the derivative table (derivatives.py): for `y = exp(x)`, dy/dx = exp(x) = y,
so the entry ExpBackward0 says `grad * result`.

Broadcasting is not handled here: when `a + b` broadcast `b`, its gradient has the broadcast
shape, and the engine sums it back to `b`'s shape (see `core/engine.py: fit_gradient`).
"""

import numpy as np

from .. import dtypes
from ..arguments import MemoryFormat, Number, declared, overload, plain_number
from ..autograd import messages
from ..core.tensor import Tensor
from ..creation import check_value_fits
from ..derivatives import (AbsBackward0, AddBackward0, CeilBackward0, ClampBackward0, ClampBackward1,
                           CloneBackward0, CopyBackwards, CosBackward0, DivBackward0, DivBackward1,
                           DivBackward2,
                           ExpBackward0,
                           Expm1Backward0, FloorBackward0, Log1PBackward0, LogBackward0, MaximumBackward0, MinimumBackward0,
                           MulBackward0, NegBackward0, NotImplementedBackward, PowBackward0,
                           PowBackward1, PowBackward2,
                           ReciprocalBackward0, ReluBackward0, RemainderBackward0, RemainderBackward1,
                           RoundBackward0,
                           RoundBackward1, RsubBackward1, SigmoidBackward0, SignBackward0,
                           SinBackward0, SqrtBackward0, SubBackward0, TanhBackward0,
                           ToCopyBackward0, TruncBackward0, WhereBackward0)
from ..core.record import OUTPUT, record

_NUMBER_TYPES = (bool, int, float, np.number, np.bool_)
OPERAND_TYPES = (Tensor,) + _NUMBER_TYPES  # what an operation, `in` or `t[i] = ...` takes
_PYTHON_REALS = frozenset((float, int, bool))


# -- helpers ---------------------------------------------------------------------------------
def check_operand(value):
    """Tensors and Python numbers may be combined; anything else gets a clear TypeError."""
    if type(value) in _PYTHON_REALS:  # the common case (`y * 0.9`), settled by one test
        return value
    if isinstance(value, complex):  # (PyTorch: a complex tensor; NumPy's complex128 is one)
        raise TypeError(messages.NO_COMPLEX.format(type_name=type(value).__name__))
    if isinstance(value, np.complexfloating):  # complex64: its real part, as PyTorch's Scalar
        return float(value)                      # reads it (NumPy warns that it drops the rest)
    if isinstance(value, np.bool_):  # PyTorch's Scalar takes a NumPy bool as a double
        return float(value)
    if isinstance(value, OPERAND_TYPES):
        return value
    raise TypeError(
        f"unsupported operand: expected a Tensor or a Python number, got {type(value).__name__}"
    )


def unsigned_as_pytorch(a, b, true_division=False):
    """The operands with a Python int in [2 ** 63, 2 ** 64) as PyTorch takes it (its Scalar holds
    it as a uint64; beyond, the operators already raised PyTorch's OverflowError): with a float
    tensor (or in true division) it is that float, with an integer tensor it wraps to int64
    (`t + 2 ** 63` is `t - 2 ** 63`, as in PyTorch), and a bool tensor refuses the uint64
    promotion."""
    def fit(value, other):
        if isinstance(value, np.unsignedinteger):  # (`xi & np.uint64(2)`: NumPy finds no type
            value = plain_number(value)            # for it with int64; PyTorch reads an int)
        if type(value) is not int or not 2 ** 63 <= value < 2 ** 64 or not isinstance(other, Tensor):
            return value
        kind = other._data.dtype.kind
        if kind == "b":
            raise RuntimeError(messages.UNSIGNED_PROMOTION.format(dtype=other.dtype.scalar_name))
        return float(value) if kind == "f" or true_division else value - 2 ** 64
    return fit(a, b), fit(b, a)


def _values(value):
    """The NumPy data of a tensor, or a Python number as it is (anything else is a TypeError)."""
    if isinstance(value, Tensor):
        return value._data
    return check_operand(value)


def binary_data(ufunc, a, b, *, true_division=False):
    """Apply a NumPy ufunc to two operands, with PyTorch's result dtype and error text.

    This runs for every binary operation, in forward and in backward, so the common cases come
    first: two tensors of one dtype, or a floating-point tensor with a Python number. NumPy
    already gives PyTorch's dtype for those; anything else is checked against
    `dtypes.result_type`.
    """
    x = a._data if isinstance(a, Tensor) else check_operand(a)  # _values(a), spelled out: every
    y = b._data if isinstance(b, Tensor) else check_operand(b)  # operation passes through here
    try:
        data = ufunc(x, y)
    except ValueError:
        raise RuntimeError(broadcast_error(np.shape(x), np.shape(y))) from None
    except OverflowError:  # a Python int beyond int64 (`t + 2 ** 63`): as PyTorch takes it
        a, b = unsigned_as_pytorch(a, b, true_division)
        return binary_data(ufunc, a, b, true_division=true_division)
    # The common cases, where NumPy's result dtype is surely PyTorch's: operands of one dtype,
    # or a floating-point array with a Python number, and NumPy kept that dtype (it does not
    # for true division of integers: PyTorch gives the default float dtype).
    if type(x) is np.ndarray:
        if type(y) is np.ndarray:
            if x.dtype == y.dtype == data.dtype:
                return data
        elif type(y) in (float, int) and x.dtype.kind == "f" and data.dtype == x.dtype:
            return data
    elif type(x) in (float, int) and type(y) is np.ndarray and y.dtype.kind == "f" \
            and data.dtype == y.dtype:
        return data
    dtype = dtypes.result_type(a, b).numpy
    if true_division and dtype.kind != "f":
        dtype = dtypes.get_default_dtype().numpy
    if data.dtype != dtype:
        # NumPy computed in another dtype than PyTorch's result (float32 values with a float64
        # 0-d tensor: NumPy uses float64). PyTorch converts the operands first, then computes;
        # so do that too, or the last bits differ (x - y can be 3e-8 instead of 0).
        data = np.asarray(ufunc(_as_dtype(x, dtype), _as_dtype(y, dtype)), dtype=dtype)
    return data


def _as_dtype(value, dtype):
    """An array converted to `dtype`; a Python number as it is (it takes the array's dtype)."""
    return value.astype(dtype, copy=False) if isinstance(value, np.ndarray) else value


def broadcast_errors(*shapes):
    """PyTorch's message for several shapes that do not broadcast: they are met in order, each
    against the shape of those before it (`where(c, a, b)`: c with a, then that with b)."""
    shape = shapes[0]
    for other in shapes[1:]:
        try:
            shape = np.broadcast_shapes(shape, other)
        except ValueError:
            return broadcast_error(shape, other)
    return broadcast_error(*shapes[:2])


def broadcast_error(shape_a, shape_b):
    """PyTorch's message for shapes that cannot broadcast, naming the first bad dimension."""
    ndim = max(len(shape_a), len(shape_b))
    padded_a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    padded_b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    for dim in range(ndim - 1, -1, -1):
        size_a, size_b = padded_a[dim], padded_b[dim]
        if size_a != size_b and size_a != 1 and size_b != 1:
            return messages.BROADCAST_MISMATCH.format(a=size_a, b=size_b, dim=dim)
    return f"shapes {tuple(shape_a)} and {tuple(shape_b)} cannot be broadcast together"


def check_broadcast(a, b):
    """Two tensors whose shapes broadcast, or PyTorch's RuntimeError (for the operations that do
    not meet a NumPy ufunc's broadcasting, which binary_data turns into the same message)."""
    try:
        np.broadcast_shapes(a._data.shape, b._data.shape)
    except ValueError:
        raise RuntimeError(broadcast_error(a._data.shape, b._data.shape)) from None


def _float_input(x):
    if x._data.dtype.kind == "f":
        return x._data
    return x._data.astype(dtypes.get_default_dtype().numpy)  # exp of an int tensor is float


# -- + - * / and negation ---------------------------------------------------------------------
@declared
def add(input: Tensor, other: Tensor, *, alpha: Number = 1, out: Tensor = None):
    if type(alpha) is not int or alpha >= 2 ** 63:  # (a bool, float or uint64 alpha: its checks)
        check_bool_alpha(input, other, alpha)
    data = binary_data(np.add, input, other if alpha == 1 else _times(other, alpha, input))
    return record(AddBackward0, data, (input, other), alpha=alpha)


def check_bool_alpha(a, b, alpha):
    """PyTorch's alpha_check: a bool alpha for bool results only, a float alpha for floating
    results only (an integer result cannot hold 1 + 2.5·x), a complex alpha (a float to this
    check) for complex results only, which tensorgrad has none of: refused in PyTorch's words,
    after the float rule, as its check orders them (the parser hands a complex alpha over)."""
    if type(alpha) is bool and not all(isinstance(v, Tensor) and v.dtype is dtypes.bool_
                                       for v in (a, b)):
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if type(alpha) is int and alpha >= 2 ** 63 and dtypes.result_type(a, b)._category == 1:
        raise RuntimeError(messages.INT64_OVERFLOW)  # (add's alpha, for an integer result)
    if isinstance(alpha, (float, np.floating, complex)) and not (_is_floating(a) or _is_floating(b)):
        raise RuntimeError(messages.FLOAT_ALPHA)
    if isinstance(alpha, complex):
        raise RuntimeError(messages.COMPLEX_ALPHA)
    if isinstance(alpha, (float, np.floating)) and not isinstance(b, complex):  # alpha as the
        check_value_fits(alpha, dtypes.result_type(a, b).numpy)  # result's C type: 1e308 no float


def _is_floating(value):
    if isinstance(value, Tensor):
        return value._data.dtype.kind in "fc"
    return isinstance(value, (float, complex))


def _times(value, alpha, beside):
    """The values of alpha·value, for the forward pass only (backward uses the alpha attribute),
    computed in the dtype of the result `value` makes beside `beside`, as PyTorch's add kernel
    computes a + alpha·b: `float64.add(float32, alpha=1e308)` has 1e308 where alpha·b alone, in
    float32, would be inf."""
    if isinstance(value, Tensor):
        result = dtypes.result_type(beside, value).numpy
        data = value._data if value._data.dtype == result else value._data.astype(result)
        return Tensor._make(binary_data(np.multiply, Tensor._make(data), alpha))
    return check_operand(value) * alpha  # (a NumPy bool as the float PyTorch takes it for)


@declared
def sub(input: Tensor, other: Tensor, *, alpha: Number = 1, out: Tensor = None):
    if type(alpha) is not int:  # (a bool or a float alpha: its checks; the usual 1 passes)
        check_bool_alpha(input, other, alpha)
    refuse_bool_subtraction(input, other)
    scaled = other if alpha == 1 else _times(other, alpha, input)
    data = binary_data(np.subtract, input, scaled)
    return record(SubBackward0, data, (input, other), alpha=alpha)


def refuse_bool_subtraction(a, b):
    """PyTorch refuses `-` with a bool on either side (a bool tensor, or True/False), with its
    own message when both are bools."""
    a_is_bool, b_is_bool = _is_bool(a), _is_bool(b)
    if a_is_bool and b_is_bool:
        raise RuntimeError(messages.BOOL_BOOL_SUBTRACTION)
    if a_is_bool or b_is_bool:
        raise RuntimeError(messages.BOOL_SUBTRACTION)


def _is_bool(value):
    if isinstance(value, Tensor):
        return value._data.dtype.kind == "b"
    return isinstance(value, bool)  # (a NumPy bool is a float number to PyTorch)


def rsub(x, number):
    """`number - x`, as PyTorch records it (one input, RsubBackward1)."""
    refuse_bool_subtraction(x, number)
    return record(RsubBackward1, binary_data(np.subtract, number, x), (x,))


@declared
def mul(input: Tensor, other: Tensor, *, out: Tensor = None):
    return record(MulBackward0, binary_data(np.multiply, input, other), (input, other),
                  saved={"other": other, "self": input})


def requires_grad(value):
    return isinstance(value, Tensor) and (value._grad_fn is not None or value._requires_grad)


@overload
def div(input: Tensor, other: Tensor, *, out: Tensor = None): ...
@overload
def div(input: Tensor, other: Tensor, *, rounding_mode: str | None, out: Tensor = None): ...
@overload
def div(input: Tensor, other: Number, *, rounding_mode: str | None): ...
@declared
def div(input, other, *, rounding_mode=None):
    if rounding_mode is not None:
        return divide_and_round(input, other, rounding_mode)
    data = binary_data(np.true_divide, input, other, true_division=True)  # x/0 is inf or nan, as in PyTorch
    if not isinstance(input, Tensor):
        # number / tensor: PyTorch records reciprocal(b) * number, a MulBackward0 node.
        return mul(reciprocal(other), input)
    saved_self = input if requires_grad(other) else None  # only d/db needs a
    return record(DivBackward0, data, (input, other), saved={"other": other, "self": saved_self})


def div_by_number(input, number):  # noqa: A002  (PyTorch's name)
    """input / number as PyTorch's functions divide inside (C++ `at::div` with a Scalar): a
    DivBackward1 node, which keeps the number, where a Python `t / 2` makes DivBackward0."""
    data = binary_data(np.true_divide, input, number, true_division=True)
    return record(DivBackward1, data, (input,), other=number)


@declared
def reciprocal(input: Tensor, *, out: Tensor = None):
    data = np.reciprocal(_float_input(input))
    return record(ReciprocalBackward0, data, (input,), saved={"result": OUTPUT})


@declared
def neg(input: Tensor, *, out: Tensor = None):
    if input.dtype is dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return record(NegBackward0, np.negative(input._data), (input,))


# -- powers ---------------------------------------------------------------------------------
@overload
def pow(input: Tensor, exponent: Tensor, *, out: Tensor = None): ...  # noqa: A001
@overload
def pow(self: Number, exponent: Tensor, *, out: Tensor = None): ...  # noqa: A001
@overload
def pow(input: Tensor, exponent: Number, *, out: Tensor = None): ...  # noqa: A001
@declared
def pow(input, exponent):  # noqa: A001  (the PyTorch name)
    check_operand(exponent)
    if isinstance(input, Tensor) and isinstance(exponent, Tensor):
        data = _power_data(input, exponent)
        return record(PowBackward1, data, (input, exponent),
                      saved={"exponent": exponent, "self": input, "result": OUTPUT})
    if isinstance(input, Tensor):
        data = _power_data(input, exponent)
        return record(PowBackward0, data, (input,), saved={"self": input}, exponent=exponent)
    data = _power_data(input, exponent)
    return record(PowBackward2, data, (exponent,),
                  saved={"exponent": exponent, "result": OUTPUT}, base=input)


def _power_data(a, b):
    if _is_bool(a) and _is_bool(b):  # a bool tensor, or True/False
        shape_a, shape_b = np.shape(_values(a)), np.shape(_values(b))
        try:
            np.broadcast_shapes(shape_a, shape_b)
        except ValueError:  # PyTorch checks the shapes first
            raise RuntimeError(broadcast_error(shape_a, shape_b)) from None
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        if a._data.dtype.kind in "ib" and isinstance(b, (int, np.integer)) and b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if a._data.dtype.kind in "ib" and type(b) is int and b >= 2 ** 63:
            raise RuntimeError(messages.INT64_OVERFLOW)  # (the exponent, as the tensor's int64_t)
    if isinstance(b, Tensor) and b._data.dtype.kind == "i" and _is_integer(a):
        return binary_data(_integer_power, a, b)
    if (isinstance(a, Tensor) and type(b) in (int, float) and b in _POWERS_AS_PYTORCH
            and a._data.dtype.kind == "f"):
        return _POWERS_AS_PYTORCH[b](a._data)
    return binary_data(np.power, a, b)


# PyTorch computes these powers of floating-point tensors with multiplications (and a square
# root) rather than with pow(), so the last bit can differ from NumPy's power: 29% of float32
# values of x ** 3 did, measured, and so `x ** 3` printed other 4-decimal digits than PyTorch.
_POWERS_AS_PYTORCH = {
    3: lambda x: x * x * x,
    -2: lambda x: 1 / (x * x),
    -0.5: lambda x: 1 / np.sqrt(x),
}


def _is_integer(value):
    if isinstance(value, Tensor):
        return value._data.dtype.kind in "bi"  # bools count as 0 and 1
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _integer_power(base, exponent):
    """Integer ** integer tensor, as PyTorch computes it (NumPy refuses negative exponents):
    a negative exponent gives 0, except that 1 stays 1 and -1 gives 1 or -1."""
    result = np.power(base, np.maximum(exponent, 0))
    if np.any(exponent < 0):
        sign_of_minus_one = np.where(exponent % 2 == 1, -1, 1)
        small = np.where(base == 1, 1, np.where(base == -1, sign_of_minus_one, 0))
        result = np.where(exponent < 0, small, result).astype(result.dtype, copy=False)
    return result


@declared
def square(input: Tensor, *, out: Tensor = None):
    return pow(input, 2)


# -- unary functions ----------------------------------------------------------------------------
@declared
def exp(input: Tensor, *, out: Tensor = None):
    data = np.exp(_float_input(input))  # exp of a large number is inf, as in PyTorch
    return record(ExpBackward0, data, (input,), saved={"result": OUTPUT})


@declared
def log(input: Tensor, *, out: Tensor = None):
    data = np.log(_float_input(input))  # log 0 = -inf, log of a negative = nan
    return record(LogBackward0, data, (input,), saved={"self": input})


@declared
def sqrt(input: Tensor, *, out: Tensor = None):
    data = np.sqrt(_float_input(input))
    return record(SqrtBackward0, data, (input,), saved={"result": OUTPUT})


@declared
def sin(input: Tensor, *, out: Tensor = None):
    return record(SinBackward0, np.sin(_float_input(input)), (input,), saved={"self": input})


@declared
def cos(input: Tensor, *, out: Tensor = None):
    return record(CosBackward0, np.cos(_float_input(input)), (input,), saved={"self": input})


@declared
def tanh(input: Tensor, *, out: Tensor = None):
    return record(TanhBackward0, np.tanh(_float_input(input)), (input,), saved={"result": OUTPUT})


@declared
def sigmoid(input: Tensor, *, out: Tensor = None):
    values = _float_input(input)
    # PyTorch's formula. For x below about -88 (float32), exp(-x) overflows to inf and the
    # result is 0, as in PyTorch. (Writing 1 - sigmoid(-x) for x < 0, as this did before,
    # loses everything below about 1e-8 to rounding: sigmoid(-20) came out 0, not 2.06e-09.)
    data = (1 / (1 + np.exp(-values))).astype(values.dtype, copy=False)
    return record(SigmoidBackward0, data, (input,), saved={"result": OUTPUT})


@declared
def relu(input: Tensor):
    if input._data.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    data = np.maximum(0, input._data).astype(input._data.dtype, copy=False)  # (so relu(-0.) is -0., as torch)
    return record(ReluBackward0, data, (input,), saved={"result": OUTPUT})


@declared
def abs(input: Tensor, *, out: Tensor = None):  # noqa: A001  (the PyTorch name)
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return record(AbsBackward0, np.abs(input._data), (input,), saved={"self": input})


@declared
def sign(input: Tensor, *, out: Tensor = None):
    """-1, 0 or 1 for each element. Its derivative is zero wherever it exists."""
    values = input._data
    if values.dtype == np.bool_:
        return record(SignBackward0, values.copy(), (input,))
    # As PyTorch, (x > 0) - (x < 0): so nan gives 0 (np.sign gives nan), and -0. gives 0.
    data = (values > 0).astype(values.dtype) - (values < 0).astype(values.dtype)
    return record(SignBackward0, data, (input,))


# -- rounding: steps, whose derivative is zero wherever it exists ----------------------------------
@overload
def round(input: Tensor, *, out: Tensor = None): ...  # noqa: A001  (the PyTorch name)
@overload
def round(input: Tensor, *, decimals: int, out: Tensor = None): ...  # noqa: A001
@declared
def round(input, *, decimals=None):  # noqa: A001
    """To the nearest integer, a half to the even one (0.5 -> 0, 1.5 -> 2, 2.5 -> 2), or to
    `decimals` places: rint(x·10^d) / 10^d (d < 0: rint(x / 10^-d) · 10^-d), in the tensor's
    own dtype as PyTorch computes it, so that float32's 2.675 (2.67499995...) gives 2.68 and
    float64's 2.67, and a 10^d beyond the dtype's range gives nan."""
    values = input._data
    if decimals is None:
        return _step(input, np.rint, RoundBackward0, "round_vml_cpu")
    if values.dtype.kind != "f":
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(
            kernel=kernel, dtype=input.dtype.scalar_name))
    with np.errstate(all="ignore"):  # (10^40 is inf in float32: nan, as in PyTorch)
        places = -decimals if decimals < 0 else decimals  # (`abs` here is the operation)
        power = np.asarray(np.float64(10.0) ** places).astype(values.dtype)  # 10^d in double, as torch
        if decimals < 0:
            data = np.rint(values / power) * power
        else:
            data = np.rint(values * power) / power
    return record(RoundBackward1, data, (input,))


@declared
def floor(input: Tensor, *, out: Tensor = None):
    return _step(input, np.floor, FloorBackward0, "floor_vml_cpu")


@declared
def ceil(input: Tensor, *, out: Tensor = None):
    return _step(input, np.ceil, CeilBackward0, "ceil_vml_cpu")


@declared
def trunc(input: Tensor, *, out: Tensor = None):
    """Toward zero: the integer part (-1.5 -> -1)."""
    return _step(input, np.trunc, TruncBackward0, "trunc_vml_cpu")


def _step(input, ufunc, node, kernel):
    """round, floor, ceil, trunc: of floats, the step function; of integers, a copy (they are
    whole already); of bools, PyTorch's kernel refuses."""
    values = input._data
    if values.dtype == np.bool_:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(kernel=kernel, dtype="Bool"))
    if values.dtype.kind != "f":
        return Tensor._make(values.copy())
    return record(node, ufunc(values), (input,))


@overload
def clamp(input: Tensor, min: Tensor = None, max: Tensor = None, *, out: Tensor = None): ...
@overload
def clamp(input: Tensor, min: Number = None, max: Number = None, *, out: Tensor = None): ...
@declared
def clamp(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None"
                           .replace("torch.", "tensorgrad."))
    for bound in (min, max):
        if requires_grad(bound):
            raise NotImplementedError(messages.CLAMP_BOUND_REQUIRES_GRAD)
        if isinstance(bound, Tensor):
            check_broadcast(input, bound)
    # The bounds take part in type promotion: an int64 tensor clamped to 0.5 is float32
    dtype = dtypes.result_type(input, *[bound for bound in (min, max) if bound is not None]).numpy
    if dtype == np.bool_ and not isinstance(min, Tensor) and not isinstance(max, Tensor):
        kernel = "clamp_scalar_cpu" if min is not None and max is not None else \
            "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu"
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(kernel=kernel, dtype="Bool"))
    for bound in (min, max):
        check_value_fits(bound, dtype)  # (2 ** 63 for an int64 result, 1e308 for a float32 one)
    low, high = (None if v is None else _values(v) for v in (min, max))
    data = np.clip(input._data.astype(dtype, copy=False), low, high).astype(dtype, copy=False)
    node = ClampBackward0 if isinstance(min, Tensor) or isinstance(max, Tensor) else ClampBackward1
    return record(node, data, (input,), saved={"self": input}, min=min, max=max)


@declared(like=clamp)
def clip(input, min=None, max=None):
    """PyTorch's other name for clamp."""
    return clamp(input, min, max)


@declared
def maximum(input: Tensor, other: Tensor, *, out: Tensor = None):
    return record(MaximumBackward0, binary_data(_maximum, input, other), (input, other),
                  saved={"other": other, "self": input})


def _maximum(x, y):
    # On a tie PyTorch returns the first argument and NumPy the second; it shows for 0 and -0.
    return np.maximum(y, x)


def _minimum(x, y):
    return np.minimum(y, x)  # (as _maximum)


@declared
def minimum(input: Tensor, other: Tensor, *, out: Tensor = None):
    return record(MinimumBackward0, binary_data(_minimum, input, other), (input, other),
                  saved={"other": other, "self": input})


@overload
def where(condition: Tensor): ...
@overload
def where(condition: Tensor, input: Tensor, other: Tensor, *, out: Tensor = None): ...
@overload
def where(condition: Tensor, self: Number, other: Tensor): ...
@overload
def where(condition: Tensor, input: Tensor, other: Number): ...
@overload
def where(condition: Tensor, self: Number, other: Number): ...
@declared
def where(condition, input=None, other=None):
    if input is None and other is None and isinstance(condition, Tensor):
        return tuple(Tensor._make(i) for i in np.nonzero(np.atleast_1d(condition._data)))  # where(c): c's indices (a 0-d c as one element)
    if condition.dtype is not dtypes.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with "
                           f"dtype {condition.dtype.scalar_name}")
    unsigned_as_pytorch(check_operand(input), check_operand(other))  # (its bool refusal only)
    dtype = dtypes.result_type(input, other)
    for value in (input, other):
        check_value_fits(value, dtype.numpy)  # (2 ** 63 for an int64 result, 1e308 for float32)
    try:
        data = np.where(condition._data, _values(input), _values(other)).astype(dtype.numpy, copy=False)
    except ValueError:
        raise RuntimeError(broadcast_errors(condition._data.shape, np.shape(_values(input)),
                                            np.shape(_values(other)))) from None
    return record(WhereBackward0, data, (input, other), saved={"condition": condition})



# -- copies and casts -----------------------------------------------------------------------
@declared
def clone(input: Tensor, *, memory_format: MemoryFormat = None):
    """A copy. PyTorch's clone keeps a transposed tensor's memory order unless asked for a
    contiguous copy (`contiguous()` and `reshape` ask)."""
    order = "C" if memory_format == "contiguous" else "K"
    return record(CloneBackward0, input._data.copy(order=order), (input,))


def to_dtype(x, dtype):
    data = x._data.astype(dtype.numpy)
    if not dtype.is_floating_point:
        return Tensor._make(data)  # integer and bool tensors never require grad
    return record(ToCopyBackward0, data, (x,))


def copy_for_grad(grad):
    """A fresh copy of a gradient that stays in the graph (used for `.grad` with create_graph)."""
    return record(CopyBackwards, grad._data.copy(), (None, grad))  # (no `self`: nothing overwritten)


# -- comparisons and logic: no gradients ---------------------------------------------------
def _compare(ufunc, a, b):
    if isinstance(b, complex):  # (eq, ne: PyTorch compares in complex, a bool result)
        return Tensor._make(np.asarray(ufunc(_values(a), b)))
    check_operand(b)
    a, b = unsigned_as_pytorch(a, b)  # (NumPy would compare 2 ** 63 exactly; PyTorch wraps it)
    try:
        data = ufunc(_values(a), _values(b))
    except ValueError:
        raise RuntimeError(broadcast_error(np.shape(_values(a)), np.shape(_values(b)))) from None
    return Tensor._make(np.asarray(data))


@overload
def eq(input: Tensor, other: Tensor, *, out: Tensor = None): ...
@overload
def eq(input: Tensor, other: Number, *, out: Tensor = None): ...
@declared
def eq(input, other):
    return _compare(np.equal, input, other)


@declared(like=eq)
def ne(input, other):
    return _compare(np.not_equal, input, other)


@declared(like=eq)
def lt(input, other):
    return _compare(np.less, input, other)


@declared(like=eq)
def le(input, other):
    return _compare(np.less_equal, input, other)


@declared(like=eq)
def gt(input, other):
    return _compare(np.greater, input, other)


@declared(like=eq)
def ge(input, other):
    return _compare(np.greater_equal, input, other)


@declared
def logical_and(input: Tensor, other: Tensor, *, out: Tensor = None):
    return _compare(np.logical_and, input, other)


@declared
def logical_or(input: Tensor, other: Tensor, *, out: Tensor = None):
    return _compare(np.logical_or, input, other)


@declared
def logical_not(input: Tensor, *, out: Tensor = None):
    return Tensor._make(np.logical_not(input._data))


@overload
def bitwise_and(input: Tensor, other: Tensor, *, out: Tensor = None): ...
@overload
def bitwise_and(self: Number, other: Tensor): ...
@overload
def bitwise_and(input: Tensor, other: Number, *, out: Tensor = None): ...
@declared
def bitwise_and(input, other):
    """`a & b`: for integer and bool tensors only, as PyTorch (a float operand refuses)."""
    refuse_floats(input, other, "bitwise_and_cpu")
    return _compare(np.bitwise_and, input, other)


@declared(like=bitwise_and)
def bitwise_or(input, other):
    """`a | b`: for integer and bool tensors only."""
    refuse_floats(input, other, "bitwise_or_cpu")
    return _compare(np.bitwise_or, input, other)


@declared(like=bitwise_and)
def bitwise_xor(input, other):
    """`a ^ b`: for integer and bool tensors only (`mask_a ^ mask_b`)."""
    refuse_floats(input, other, "bitwise_xor_cpu")
    return _compare(np.bitwise_xor, input, other)


@declared(like=bitwise_and)
def bitwise_left_shift(input, other):
    """`a << b`: integer tensors only (PyTorch has no bool shift: `mask << 1` is an int64
    tensor). A shift by a negative count or by 64 or more gives 0, as PyTorch's kernel."""
    refuse_floats(input, other, "lshift_cpu", refuse_bool=True)
    a, b = _shift_operands(input, other)
    out_of_range = (b < 0) | (b >= 64)
    return Tensor._make(np.where(out_of_range, 0, np.left_shift(a, np.where(out_of_range, 0, b))))


@declared(like=bitwise_and)
def bitwise_right_shift(input, other):
    """`a >> b`: integer tensors only. A shift by a negative count or by 64 or more shifts by
    63 (the sign is all that is left), as PyTorch's kernel."""
    refuse_floats(input, other, "rshift_cpu", refuse_bool=True)
    a, b = _shift_operands(input, other)
    return Tensor._make(np.right_shift(a, np.where((b < 0) | (b >= 64), 63, b)))


def _shift_operands(a, b):
    """Both operands of a shift as int64 arrays of their broadcast shape (PyTorch's message when
    they do not broadcast); the result dtype of two integer operands is int64 here."""
    x, y = (_values(v) for v in unsigned_as_pytorch(a, b))
    try:
        x, y = np.broadcast_arrays(np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64))
    except ValueError:
        raise RuntimeError(broadcast_error(np.shape(x), np.shape(y))) from None
    return x, y


def refuse_floats(a, b, kernel, refuse_bool=False):
    """PyTorch's bitwise operators take integer and bool tensors only (and a Python float makes
    a float); its shifts no bools either. The shapes are checked first, as PyTorch does."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        check_broadcast(a, b)
    result = dtypes.result_type(a, b)
    if result.is_floating_point or (refuse_bool and result is dtypes.bool_):
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(
            kernel=kernel, dtype=result.scalar_name))


def bitwise_not(x):
    if x.dtype.is_floating_point:
        raise TypeError(messages.INVERT_FLOAT)
    return Tensor._make(np.invert(x._data))


@declared
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False):
    rtol, atol = check_tolerances(input, other, rtol, atol)
    return Tensor._make(np.isclose(_values(input), _values(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


def check_tolerances(a, b, rtol, atol):
    """isclose and allclose, as PyTorch: tensors of one dtype, tolerances at least 0 (and not
    nan); the tolerances as floats (PyTorch's doubles, so 2 ** 70 too)."""
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{a.dtype.scalar_name} did not match {b.dtype.scalar_name}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if not value >= 0:
            raise RuntimeError(messages.NEGATIVE_TOLERANCE.format(name=name, value=value))
    check_broadcast(a, b)
    return float(rtol), float(atol)


@declared
def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False):
    rtol, atol = check_tolerances(input, other, rtol, atol)
    return bool(np.allclose(_values(input), _values(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


@declared
def equal(input: Tensor, other: Tensor):
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


def divide_and_round(a, b, rounding_mode):
    """div(a, b, rounding_mode="floor" or "trunc"): the quotient rounded. Its node is
    DivBackward2, whose gradient is zero (the derivative of a staircase), as PyTorch's."""
    if rounding_mode == "floor":  # (floor_divide's values, without its "no derivative" node)
        check_integer_division(a, b, "div_floor_cpu")
        data = binary_data(np.floor_divide, a, b)
    elif rounding_mode != "trunc":
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                           f"found '{rounding_mode}'")
    elif _is_integer(a) and _is_integer(b):
        check_integer_division(a, b, "div_trunc_cpu")
        quotient = binary_data(np.floor_divide, a, b)
        remainder_data = binary_data(np.remainder, a, b)
        # (a quotient below zero rounds up; by sign tests, which bools pass too, not np.sign)
        negative = (remainder_data != 0) & (np.less(_values(a), 0) != np.less(_values(b), 0))
        data = np.asarray(quotient + negative, dtype=quotient.dtype)
    else:
        check_integer_division(a, b, "div_trunc_cpu")
        data = np.trunc(binary_data(np.true_divide, a, b, true_division=True))
    return record(DivBackward2, data, (a, b))


@overload
def floor_divide(input: Tensor, other: Tensor, *, out: Tensor = None): ...
@overload
def floor_divide(input: Tensor, other: Number): ...
@declared
def floor_divide(input, other):
    """Integer division. PyTorch gives it no derivative: backward through it is an error."""
    return divided_and_floored(input, other, "floor_divide")


def divided_and_floored(input, other, aten_name):
    """floor_divide, and floor_divide_ (`aten_name`: the name its errors give)."""
    check_integer_division(input, other, "div_floor_cpu")
    return record(NotImplementedBackward, binary_data(np.floor_divide, input, other),
                  (input, other), aten_name=aten_name)


@overload
def remainder(input: Tensor, other: Tensor, *, out: Tensor = None): ...
@overload
def remainder(self: Number, other: Tensor): ...
@overload
def remainder(input: Tensor, other: Number, *, out: Tensor = None): ...
@declared
def remainder(input, other):
    check_integer_division(input, other, "remainder_cpu")
    data = binary_data(_remainder, input, other)
    if not isinstance(input, Tensor):  # `2 % x`: PyTorch has no derivative for that form
        return record(NotImplementedBackward, data, (input, other), aten_name="remainder")
    if not isinstance(other, Tensor):  # (a number: PyTorch's Scalar form, no second input)
        return record(RemainderBackward0, data, (input,))
    return record(RemainderBackward1, data, (input, other), saved={"other": other, "self": input})


def _remainder(x, y):
    """Python's remainder (the sign of the divisor), computed as PyTorch's kernel does: fmod,
    then the divisor added where the signs differ. A zero keeps the dividend's sign (`1. % -1`
    is 0., where NumPy's remainder gives -0.)."""
    if np.result_type(x, y).kind != "f":
        return np.remainder(x, y)
    mod = np.fmod(x, y)
    return np.where((mod != 0) & (np.less(y, 0) != np.less(mod, 0)), mod + y, mod)


def check_integer_division(a, b, kernel):
    """As PyTorch: no integer division by zero (NumPy gives 0 and a warning; `t // False` too),
    none of bools."""
    if _is_bool(a) and _is_bool(b):
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(kernel=kernel, dtype="Bool"))
    if (_is_integer(a) or a is False) and (_is_integer(b) or b is False) and not np.all(_values(b)):
        raise RuntimeError(messages.INTEGER_DIVISION_BY_ZERO)


@declared
def log1p(input: Tensor, *, out: Tensor = None):
    data = np.log1p(_float_input(input))
    return record(Log1PBackward0, data, (input,), saved={"self": input})


@declared
def expm1(input: Tensor, *, out: Tensor = None):
    data = np.expm1(_float_input(input))
    return record(Expm1Backward0, data, (input,), saved={"result": OUTPUT})
