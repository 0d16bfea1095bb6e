"""Element-by-element operations and their derivatives.

Each node's `backward` is the chain rule for one operation: the incoming gradient times the
local derivative. For example, for `y = exp(x)`, dy/dx = exp(x) = y, so
`ExpBackward0.backward(grad)` returns `grad * y`.

Broadcasting is not handled here: when `a + b` broadcast `b`, its gradient has the broadcast
shape, and the engine sums it back to `b`'s shape (see `autograd/engine.py: fit_gradient`).
"""

import numpy as np

from .. import dtypes
from .. import creation
from ..autograd import grad_mode, messages
from ..autograd.node import Node
from ..tensor import Tensor
from .base import OUTPUT, record

_NUMBER_TYPES = (bool, int, float, np.number, np.bool_)
_OPERAND_TYPES = (Tensor,) + _NUMBER_TYPES


# -- helpers ---------------------------------------------------------------------------------
def check_operand(value):
    """Tensors and Python numbers may be combined; anything else gets a clear TypeError."""
    if isinstance(value, _OPERAND_TYPES):
        return value
    raise TypeError(
        f"unsupported operand: expected a Tensor or a Python number, got {type(value).__name__}"
    )


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
    if _numpy_dtype_is_pytorchs(x, y, data):
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


def _numpy_dtype_is_pytorchs(x, y, result):
    """True in the common cases, where NumPy's result dtype is surely PyTorch's: operands of
    one dtype, or a floating-point array with a Python number, and NumPy kept that dtype
    (it does not for true division of integers: PyTorch gives the default float dtype)."""
    if type(x) is np.ndarray:
        if type(y) is np.ndarray:
            return x.dtype == y.dtype == result.dtype
        return type(y) in (float, int) and x.dtype.kind == "f" and result.dtype == x.dtype
    return (type(x) in (float, int) and type(y) is np.ndarray and y.dtype.kind == "f"
            and result.dtype == y.dtype)


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


def _float_input(x, op_name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op_name}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if x._data.dtype.kind == "f":
        return x._data
    return x._data.astype(dtypes.get_default_dtype().numpy)  # exp of an int tensor is float


# -- + - * / and negation ---------------------------------------------------------------------
class AddBackward0(Node):
    """z = a + alpha·b:  dz/da = 1,  dz/db = alpha."""

    __slots__ = ("alpha",)

    def backward(self, grad):
        return grad, (grad if self.alpha == 1 else grad * self.alpha)


def add(a, b, *, alpha=1):
    data = binary_data(np.add, a, b if alpha == 1 else _times(b, alpha))
    return record(AddBackward0, data, (a, b), alpha=alpha)


def _times(value, alpha):
    """The values of alpha·value, for the forward pass only (backward uses the alpha attribute)."""
    if isinstance(value, Tensor):
        return Tensor._make(binary_data(np.multiply, Tensor._make(value._data), alpha))
    return value * alpha


class SubBackward0(Node):
    """z = a - alpha·b:  dz/da = 1,  dz/db = -alpha."""

    __slots__ = ("alpha",)

    def backward(self, grad):
        return grad, (-grad if self.alpha == 1 else grad * -self.alpha)


def sub(a, b, *, alpha=1):
    refuse_bool_subtraction(a, b)
    data = binary_data(np.subtract, a, b if alpha == 1 else _times(b, alpha))
    return record(SubBackward0, data, (a, b), alpha=alpha)


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
    return isinstance(value, (bool, np.bool_))


class RsubBackward1(Node):
    """z = c - x for a number c:  dz/dx = -1."""

    __slots__ = ()

    def backward(self, grad):
        return (-grad,)


def rsub(x, number):
    """`number - x`, as PyTorch records it (one input, RsubBackward1)."""
    refuse_bool_subtraction(x, number)
    return record(RsubBackward1, binary_data(np.subtract, number, x), (x,))


class MulBackward0(Node):
    """z = a·b:  dz/da = b,  dz/db = a."""

    __slots__ = ()
    saved_names = ("other", "self")

    def backward(self, grad):
        other, this = self.saved_tensors  # each saved only if the other input needs a gradient
        return (None if other is None else grad * other), (None if this is None else grad * this)


def mul(a, b):
    return record(MulBackward0, binary_data(np.multiply, a, b), (a, b), saved=needed_factors(a, b))


def needed_factors(a, b):
    """What a product-like rule saves: each factor only if the *other* one needs a gradient.

    PyTorch does the same, which is why `y.mul_(3)` after `y = x + 1` can still backpropagate:
    the multiplication saved only the 3, not y.
    """
    if not grad_mode._grad_enabled:
        return ()  # nothing is recorded, so nothing needs saving (as in every plain backward)
    return (b if requires_grad(a) else None), (a if requires_grad(b) else None)


def requires_grad(value):
    return isinstance(value, Tensor) and (value._grad_fn is not None or value._requires_grad)


class DivBackward0(Node):
    """z = a / b:  dz/da = 1/b,  dz/db = -a/b²."""

    __slots__ = ()
    saved_names = ("other", "self")

    def backward(self, grad):
        other, this = self.saved_tensors
        needs_a, needs_b = self.needs_input_grad
        grad_a = grad / other if needs_a else None
        # (a / b) / b rather than a / b²: b² under- or overflows long before the result does
        grad_b = -grad * ((this / other) / other) if needs_b else None
        return grad_a, grad_b


def div(a, b, *, rounding_mode=None):
    if rounding_mode is not None:
        return divide_and_round(a, b, rounding_mode)
    data = binary_data(np.true_divide, a, b, true_division=True)  # x/0 is inf or nan, as in PyTorch
    if not isinstance(a, Tensor):
        # number / tensor: PyTorch records reciprocal(b) * number, a MulBackward0 node.
        return mul(reciprocal(b), a)
    saved_self = a if requires_grad(b) else None  # only d/db needs a
    return record(DivBackward0, data, (a, b), saved=(b, saved_self))


class ReciprocalBackward0(Node):
    """z = 1/x:  dz/dx = -1/x² = -z²."""

    __slots__ = ()
    saved_names = ("result",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (-grad * result * result,)


def reciprocal(x):
    data = np.reciprocal(_float_input(x, "reciprocal"))
    return record(ReciprocalBackward0, data, (x,), saved=(OUTPUT,))


class NegBackward0(Node):
    """z = -x:  dz/dx = -1."""

    __slots__ = ()

    def backward(self, grad):
        return (-grad,)


def neg(x):
    if x.dtype is dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return record(NegBackward0, np.negative(x._data), (x,))


# -- powers ---------------------------------------------------------------------------------
class PowBackward0(Node):
    """z = x^n for a number n:  dz/dx = n·x^(n-1)."""

    __slots__ = ("exponent",)
    saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        n = self.exponent
        if n == 0:
            return (creation.zeros_like(x),)  # x⁰ is constant: zeros (grad·0 may be -0.)
        return (grad * n * x ** (n - 1),)


class PowBackward1(Node):
    """z = a^b for tensors:  dz/da = b·a^(b-1),  dz/db = z·ln(a)."""

    __slots__ = ()
    saved_names = ("exponent", "self", "result")

    def backward(self, grad):
        exponent, base, result = self.saved_tensors
        needs_base, needs_exponent = self.needs_input_grad
        grad_base = grad_exponent = None
        if needs_base:
            # 0 at 0⁰ (not 0·0⁻¹ = nan), as in PyTorch. (Masking only there, not at every zero
            # exponent as PyTorch does, keeps the derivative of this in the exponent right.)
            zero_to_zero = (base == 0) & (exponent == 0)
            grad_base = where(zero_to_zero, 0.0, grad * exponent * base ** (exponent - 1))
        if needs_exponent:
            # where the base is 0 and the exponent ≥ 0 the derivative is 0, not 0·ln 0 = nan
            zero_base = (base == 0) & (exponent >= 0)
            safe_log = where(zero_base, 0.0, log(where(zero_base, 1.0, base)))
            grad_exponent = grad * result * safe_log
        return grad_base, grad_exponent


class PowBackward2(Node):
    """z = c^x for a number c:  dz/dx = z·ln(c)."""

    __slots__ = ("base",)
    saved_names = ("exponent", "result")  # as PyTorch, which saves the exponent for c = 0

    def backward(self, grad):
        exponent, result = self.saved_tensors
        if self.base == 0:
            # 0^x is 0 for x > 0 and 1 at x = 0, where PyTorch gives the derivative 0 (not
            # 0·ln 0 = nan); for x < 0 it is inf, and the derivative -inf.
            return (grad * where(exponent >= 0, 0.0, result * float("-inf")),)
        return (grad * result * float(np.log(self.base)),)


def pow(x, exponent):  # noqa: A001  (the PyTorch name)
    check_operand(exponent)
    if isinstance(x, Tensor) and isinstance(exponent, Tensor):
        data = _power_data(x, exponent)
        return record(PowBackward1, data, (x, exponent), saved=(exponent, x, OUTPUT))
    if isinstance(x, Tensor):
        data = _power_data(x, exponent)
        return record(PowBackward0, data, (x,), saved=(x,), exponent=exponent)
    data = _power_data(x, exponent)
    return record(PowBackward2, data, (exponent,), saved=(exponent, OUTPUT), base=x)


def _power_data(a, b):
    if _is_bool(a) and _is_bool(b):  # a bool tensor, or True/False
        shape_a, shape_b = np.shape(_values(a)), np.shape(_values(b))
        try:
            np.broadcast_shapes(shape_a, shape_b)
        except ValueError:  # PyTorch checks the shapes first
            raise RuntimeError(broadcast_error(shape_a, shape_b)) from None
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        if a._data.dtype.kind == "i" and isinstance(b, (int, np.integer)) and b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    if isinstance(b, Tensor) and b._data.dtype.kind == "i" and _is_integer(a):
        return binary_data(_integer_power, a, b)
    return binary_data(np.power, a, b)


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


def square(x):
    return pow(x, 2)


# -- unary functions ----------------------------------------------------------------------------
class ExpBackward0(Node):
    """y = eˣ:  dy/dx = eˣ = y."""

    __slots__ = ()
    saved_names = ("result",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * result,)


def exp(x):
    data = np.exp(_float_input(x, "exp"))  # exp of a large number is inf, as in PyTorch
    return record(ExpBackward0, data, (x,), saved=(OUTPUT,))


class LogBackward0(Node):
    """y = ln x:  dy/dx = 1/x."""

    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad / x,)


def log(x):
    data = np.log(_float_input(x, "log"))  # log 0 = -inf, log of a negative = nan
    return record(LogBackward0, data, (x,), saved=(x,))


class SqrtBackward0(Node):
    """y = √x:  dy/dx = 1 / (2√x) = 1 / (2y)."""

    __slots__ = ()
    saved_names = ("result",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad / (2 * result),)


def sqrt(x):
    data = np.sqrt(_float_input(x, "sqrt"))
    return record(SqrtBackward0, data, (x,), saved=(OUTPUT,))


class SinBackward0(Node):
    """y = sin x:  dy/dx = cos x."""

    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * cos(x),)


def sin(x):
    return record(SinBackward0, np.sin(_float_input(x, "sin")), (x,), saved=(x,))


class CosBackward0(Node):
    """y = cos x:  dy/dx = -sin x."""

    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * -sin(x),)


def cos(x):
    return record(CosBackward0, np.cos(_float_input(x, "cos")), (x,), saved=(x,))


class TanhBackward0(Node):
    """y = tanh x:  dy/dx = 1 - tanh²x = 1 - y²."""

    __slots__ = ()
    saved_names = ("result",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (tanh_backward(grad, result),)


class TanhBackwardBackward0(Node):
    """z = g·(1 - y²), tanh's derivative rule as one recorded operation of (g, y), as in PyTorch.

    One NumPy expression instead of three tensor operations makes every backward through tanh
    faster; with create_graph=True its own derivatives are  dz/dg = 1 - y²,  dz/dy = -2·g·y.
    """

    __slots__ = ()
    saved_names = ("grad_output", "output")

    def backward(self, grad):
        grad_output, output = self.saved_tensors
        needs_grad_output, needs_output = self.needs_input_grad
        return (tanh_backward(grad, output) if needs_grad_output else None,
                grad * -2 * output * grad_output if needs_output else None)


def tanh_backward(grad, result):
    data = grad._data * (1 - result._data * result._data)
    return record(TanhBackwardBackward0, data, (grad, result), saved=(grad, result))


def tanh(x):
    return record(TanhBackward0, np.tanh(_float_input(x, "tanh")), (x,), saved=(OUTPUT,))


class SigmoidBackward0(Node):
    """y = 1 / (1 + e⁻ˣ):  dy/dx = y·(1 - y)."""

    __slots__ = ()
    saved_names = ("result",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (sigmoid_backward(grad, result),)


class SigmoidBackwardBackward0(Node):
    """z = g·y·(1 - y), sigmoid's derivative rule as one recorded operation of (g, y), as in
    PyTorch:  dz/dg = y·(1 - y),  dz/dy = g·(1 - 2y)."""

    __slots__ = ()
    saved_names = ("grad_output", "output")

    def backward(self, grad):
        grad_output, output = self.saved_tensors
        needs_grad_output, needs_output = self.needs_input_grad
        return (sigmoid_backward(grad, output) if needs_grad_output else None,
                grad * grad_output * (1 - 2 * output) if needs_output else None)


def sigmoid_backward(grad, result):
    data = grad._data * result._data * (1 - result._data)
    return record(SigmoidBackwardBackward0, data, (grad, result), saved=(grad, result))


def sigmoid(x):
    values = _float_input(x, "sigmoid")
    # PyTorch's formula. For x below about -88 (float32), exp(-x) overflows to inf and the
    # result is 0, as in PyTorch. (Writing 1 - sigmoid(-x) for x < 0, as this did before,
    # loses everything below about 1e-8 to rounding: sigmoid(-20) came out 0, not 2.06e-09.)
    data = (1 / (1 + np.exp(-values))).astype(values.dtype, copy=False)
    return record(SigmoidBackward0, data, (x,), saved=(OUTPUT,))


class ReluBackward0(Node):
    """y = max(x, 0):  dy/dx = 1 where x > 0, else 0."""

    __slots__ = ()
    saved_names = ("result",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (threshold_backward(grad, result),)


class ThresholdBackwardBackward0(Node):
    """g = grad where result > 0, else 0: relu's derivative rule as a recorded operation of
    (grad, result), as in PyTorch. So with create_graph=True the gradient depends on the result
    (x.grad gets a grad_fn, as in PyTorch); its derivative is zero for the result."""

    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return where(result <= 0, 0, grad), creation.zeros_like(grad)


def threshold_backward(grad, result):
    # 0 where result <= 0, else grad, as PyTorch's where. Multiplying by the mask gives the same
    # ~6x faster than np.where on a (256, 128) batch, except in two cases, fixed below: inf or
    # nan times False is nan, not 0; and a negative gradient times False is -0.0 (printed "-0.").
    mask = ~(result._data <= 0)  # not `> 0`: where the result is nan, the gradient goes through
    data = grad._data * mask
    if np.isnan(np.add.reduce(data, axis=None)):  # a nan somewhere (one quick pass to find out)
        data = np.where(mask, grad._data, 0).astype(grad._data.dtype, copy=False)
    data += 0.0  # -0.0 + 0.0 is 0.0
    return record(ThresholdBackwardBackward0, data, (grad, result), saved=(result,))


def relu(x):
    if x._data.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    data = np.maximum(0, x._data).astype(x._data.dtype, copy=False)  # (so relu(-0.) is -0., as torch)
    return record(ReluBackward0, data, (x,), saved=(OUTPUT,))


class AbsBackward0(Node):
    """y = |x|:  dy/dx = sign(x) (0 at x = 0)."""

    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * sign(x),)


def abs(x):  # noqa: A001  (the PyTorch name)
    if x._data.dtype == np.bool_:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return record(AbsBackward0, np.abs(x._data), (x,), saved=(x,))


def sign(x):
    """-1, 0 or 1 for each element. Its derivative is zero wherever it exists."""
    values = x._data
    if values.dtype == np.bool_:
        return record(SignBackward0, values.copy(), (x,))
    # As PyTorch, (x > 0) - (x < 0): so nan gives 0 (np.sign gives nan), and -0. gives 0.
    data = (values > 0).astype(values.dtype) - (values < 0).astype(values.dtype)
    return record(SignBackward0, data, (x,))


class SignBackward0(Node):
    __slots__ = ()

    def backward(self, grad):
        return (grad * 0,)


class ClampBackward1(Node):
    """y = clamp(x, lo, hi):  dy/dx = 1 where lo ≤ x ≤ hi, else 0."""

    __slots__ = ("min", "max")
    saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        inside = x == x  # all True, with x's shape
        if self.min is not None:
            inside = inside & (x >= self.min)
        if self.max is not None:
            inside = inside & (x <= self.max)
        return (where(inside, grad, 0),)


def clamp(x, min=None, max=None):  # noqa: A002  (PyTorch's argument names)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None"
                           .replace("torch.", "tensorgrad."))
    for bound in (min, max):
        if requires_grad(bound):
            raise NotImplementedError(messages.CLAMP_BOUND_REQUIRES_GRAD)
    # The bounds take part in type promotion: an int64 tensor clamped to 0.5 is float32
    dtype = dtypes.result_type(x, *[bound for bound in (min, max) if bound is not None]).numpy
    low, high = (None if v is None else _values(v) for v in (min, max))
    data = np.clip(x._data.astype(dtype, copy=False), low, high).astype(dtype, copy=False)
    return record(ClampBackward1, data, (x,), saved=(x,), min=min, max=max)


class MaximumBackward0(Node):
    """z = max(a, b): the gradient goes to the larger input; ties split it half and half."""

    __slots__ = ()
    saved_names = ("other", "self")

    def backward(self, grad):
        other, this = self.saved_tensors
        return _split_by_winner(grad, this > other, this == other, this < other)


def maximum(a, b):
    return record(MaximumBackward0, binary_data(_maximum, a, b), (a, b), saved=(b, a))


def _maximum(x, y):
    # On a tie PyTorch returns the first argument and NumPy the second; it shows for 0 and -0.
    return np.maximum(y, x)


def _minimum(x, y):
    return np.minimum(y, x)  # (as _maximum)


class MinimumBackward0(Node):
    """z = min(a, b): the gradient goes to the smaller input; ties split it half and half."""

    __slots__ = ()
    saved_names = ("other", "self")

    def backward(self, grad):
        other, this = self.saved_tensors
        return _split_by_winner(grad, this < other, this == other, this > other)


def _split_by_winner(grad, a_wins, tie, b_wins):
    """maximum/minimum, as PyTorch: each input gets the gradient (half of it on a tie), then 0
    where the other input wins. So where neither wins nor ties (a nan), both get all of it."""
    shared = where(tie, grad / 2, grad)
    return where(b_wins, 0, shared), where(a_wins, 0, shared)


def minimum(a, b):
    return record(MinimumBackward0, binary_data(_minimum, a, b), (a, b), saved=(b, a))


class WhereBackward0(Node):
    """z = where(c, a, b): the gradient goes to a where c holds, to b elsewhere."""

    __slots__ = ()
    saved_names = ("condition",)

    def backward(self, grad):
        (condition,) = self.saved_tensors
        return where(condition, grad, 0), where(condition, 0, grad)


def where(condition, a=None, b=None):
    if a is None and b is None and isinstance(condition, Tensor):
        return tuple(Tensor._make(i) for i in np.nonzero(condition._data))  # where(c): c's indices
    if not isinstance(condition, Tensor):
        raise TypeError("where(): argument 'condition' must be a bool Tensor")
    if condition.dtype is not dtypes.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with "
                           f"dtype {condition.dtype.scalar_name}")
    dtype = dtypes.result_type(check_operand(a), check_operand(b))
    try:
        data = np.where(condition._data, _values(a), _values(b)).astype(dtype.numpy, copy=False)
    except ValueError:
        raise RuntimeError(broadcast_error(condition._data.shape, np.shape(_values(a)))) from None
    return record(WhereBackward0, data, (a, b), saved=(condition,))



# -- copies and casts -----------------------------------------------------------------------
class CloneBackward0(Node):
    """y = a copy of x:  dy/dx = 1."""

    __slots__ = ()

    def backward(self, grad):
        return (grad,)


def clone(x, memory_format="preserve"):
    """A copy. PyTorch's clone keeps a transposed tensor's memory order unless asked for a
    contiguous copy (`contiguous()` and `reshape` ask)."""
    order = "C" if memory_format == "contiguous" else "K"
    return record(CloneBackward0, x._data.copy(order=order), (x,))


class ToCopyBackward0(Node):
    """y = x converted to another dtype. The engine casts the gradient back to x's dtype."""

    __slots__ = ()

    def backward(self, grad):
        return (grad,)


def to_dtype(x, dtype):
    data = x._data.astype(dtype.numpy)
    if not dtype.is_floating_point:
        return Tensor._make(data)  # integer and bool tensors never require grad
    return record(ToCopyBackward0, data, (x,))


class CopyBackwards(Node):
    """The node of a `.grad` made by `backward(create_graph=True)` (PyTorch's name, no digit)."""

    __slots__ = ()

    def backward(self, grad):
        return (grad,)


def copy_for_grad(grad):
    """A fresh copy of a gradient that stays in the graph (used for `.grad` with create_graph)."""
    return record(CopyBackwards, grad._data.copy(), (grad,))


# -- comparisons and logic: no gradients ---------------------------------------------------
def _compare(ufunc, a, b):
    check_operand(b)
    try:
        data = ufunc(_values(a), _values(b))
    except ValueError:
        raise RuntimeError(broadcast_error(np.shape(_values(a)), np.shape(_values(b)))) from None
    return Tensor._make(np.asarray(data))


def eq(a, b):
    return _compare(np.equal, a, b)


def ne(a, b):
    return _compare(np.not_equal, a, b)


def lt(a, b):
    return _compare(np.less, a, b)


def le(a, b):
    return _compare(np.less_equal, a, b)


def gt(a, b):
    return _compare(np.greater, a, b)


def ge(a, b):
    return _compare(np.greater_equal, a, b)


def logical_and(a, b):
    return _compare(np.logical_and, a, b)


def logical_or(a, b):
    return _compare(np.logical_or, a, b)


def logical_not(x):
    return Tensor._make(np.logical_not(x._data))


def bitwise_and(a, b):
    refuse_floats(a, b, "bitwise_and_cpu")
    return _compare(np.bitwise_and, a, b)


def bitwise_or(a, b):
    refuse_floats(a, b, "bitwise_or_cpu")
    return _compare(np.bitwise_or, a, b)


def refuse_floats(a, b, kernel):
    """PyTorch's & and | take integer and bool tensors only (and a Python float makes a float)."""
    if dtypes.result_type(a, b).is_floating_point:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(
            kernel=kernel, dtype=dtypes.result_type(a, b).scalar_name))


def bitwise_not(x):
    if x.dtype.is_floating_point:
        raise TypeError("~ (bitwise_not) is only defined for integer and bool tensors")
    return Tensor._make(np.invert(x._data))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    check_tolerances(a, b, rtol, atol)
    return Tensor._make(np.isclose(_values(a), _values(b), rtol=rtol, atol=atol, equal_nan=equal_nan))


def check_tolerances(a, b, rtol, atol):
    """isclose and allclose, as PyTorch: tensors of one dtype, tolerances at least 0."""
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{a.dtype.scalar_name} did not match {b.dtype.scalar_name}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(messages.NEGATIVE_TOLERANCE.format(name=name, value=value))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    check_tolerances(a, b, rtol, atol)
    return bool(np.allclose(_values(a), _values(b), rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(a, b):
    return a.shape == b.shape and bool(np.array_equal(a._data, b._data))


def divide_and_round(a, b, rounding_mode):
    """div(a, b, rounding_mode="floor" or "trunc"): the quotient rounded, with no gradient
    (its derivative is zero almost everywhere), as PyTorch."""
    if rounding_mode == "floor":
        return floor_divide(a, b)
    if rounding_mode != "trunc":
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                           f"found '{rounding_mode}'")
    check_integer_division(a, b, "div_trunc_cpu")
    if _is_integer(a) and _is_integer(b):
        quotient = binary_data(np.floor_divide, a, b)
        remainder_data = binary_data(np.remainder, a, b)
        negative = (remainder_data != 0) & ((np.sign(_values(a)) * np.sign(_values(b))) < 0)
        return Tensor._make(np.asarray(quotient + negative, dtype=quotient.dtype))
    return Tensor._make(np.trunc(binary_data(np.true_divide, a, b, true_division=True)))


def floor_divide(a, b):
    """Integer division. Not differentiable (its derivative is zero almost everywhere)."""
    check_integer_division(a, b, "div_floor_cpu")
    return Tensor._make(binary_data(np.floor_divide, a, b))


def remainder(a, b):
    check_integer_division(a, b, "remainder_cpu")
    return Tensor._make(binary_data(np.remainder, a, b))


def check_integer_division(a, b, kernel):
    """As PyTorch: no integer division by zero (NumPy gives 0 and a warning), none of bools."""
    if _is_bool(a) and _is_bool(b):
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(kernel=kernel, dtype="Bool"))
    if _is_integer(a) and _is_integer(b) and not np.all(_values(b)):
        raise RuntimeError(messages.INTEGER_DIVISION_BY_ZERO)


class Log1PBackward0(Node):
    """y = ln(1 + x):  dy/dx = 1 / (1 + x). Accurate for tiny x, where 1 + x would round to 1."""

    __slots__ = ()
    saved_names = ("self",)

    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad / (x + 1),)


def log1p(x):
    data = np.log1p(_float_input(x, "log1p"))
    return record(Log1PBackward0, data, (x,), saved=(x,))


class Expm1Backward0(Node):
    """y = eˣ - 1:  dy/dx = eˣ = y + 1."""

    __slots__ = ()
    saved_names = ("result",)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * (result + 1),)


def expm1(x):
    data = np.expm1(_float_input(x, "expm1"))
    return record(Expm1Backward0, data, (x,), saved=(OUTPUT,))
