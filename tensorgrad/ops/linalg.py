"""Matrix products. `a @ b` picks one of four cases by the number of dims, as PyTorch does:

    1-d @ 1-d   dot   a scalar            DotBackward0
    2-d @ 2-d   mm    a matrix            MmBackward0
    2-d @ 1-d   mv    a vector            MvBackward0
    1-d @ 2-d   the vector as a 1-row matrix, mm, then squeeze      SqueezeBackward4
    otherwise   batched: NumPy broadcasts the batch dims            UnsafeViewBackward0

For C = A B the derivatives are dL/dA = dL/dC Bᵀ and dL/dB = Aᵀ dL/dC. Batch dims that were
broadcast are summed back by the engine, like any broadcast.
"""

import numpy as np

from ..autograd import messages
from ..autograd.node import Node
from ..tensor import Tensor
from .base import record
from .elementwise import needed_factors
from .shape import squeeze, unsafe_view, unsqueeze

_C_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}


def _swap(pair):
    """needed_factors gives (b-if-needed, a-if-needed): MulBackward0's order, which is PyTorch's
    (other, self). These nodes store (self, mat2) instead, so the pair is reversed."""
    return pair[::-1]


def _check_same_dtype(a, b):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_C_NAMES[a.dtype.name]} != "
            f"{_C_NAMES[b.dtype.name]}"
        )


def _check_tensors(a, b, name):
    for value in (a, b):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument must be Tensor, not {type(value).__name__}")


class DotBackward0(Node):
    """s = a·b:  ds/da = b,  ds/db = a."""

    __slots__ = ()
    saved_names = ("self", "tensor")

    def backward(self, grad):
        a, b = self.saved_tensors
        needs_a, needs_b = self.needs_input_grad
        return (grad * b if needs_a else None), (grad * a if needs_b else None)


def dot(a, b):
    _check_tensors(a, b, "dot")
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors")
    if a._data.shape != b._data.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a._data.shape[0]}] and src "
            f"[{b._data.shape[0]}] to have the same number of elements, but got "
            f"{a._data.shape[0]} and {b._data.shape[0]} elements respectively"
        )
    _check_same_dtype(a, b)
    return record(DotBackward0, np.dot(a._data, b._data), (a, b), saved=_swap(needed_factors(a, b)))


class MmBackward0(Node):
    """C = A B:  dL/dA = G Bᵀ,  dL/dB = Aᵀ G."""

    __slots__ = ()
    saved_names = ("self", "mat2")

    def backward(self, grad):
        a, b = self.saved_tensors
        needs_a, needs_b = self.needs_input_grad
        return (mm(grad, b.t()) if needs_a else None), (mm(a.t(), grad) if needs_b else None)


def mm(a, b):
    _check_tensors(a, b, "mm")
    if a._data.ndim != 2 or b._data.ndim != 2:
        raise RuntimeError("self must be a matrix" if a._data.ndim != 2 else "mat2 must be a matrix")
    if a._data.shape[1] != b._data.shape[0]:
        raise RuntimeError(messages.MATMUL_MISMATCH.format(
            a0=a._data.shape[0], a1=a._data.shape[1], b0=b._data.shape[0], b1=b._data.shape[1]))
    _check_same_dtype(a, b)
    return record(MmBackward0, a._data @ b._data, (a, b), saved=_swap(needed_factors(a, b)))


class MvBackward0(Node):
    """y = M v:  dL/dM = g vᵀ (an outer product),  dL/dv = Mᵀ g."""

    __slots__ = ()
    saved_names = ("self", "vec")

    def backward(self, grad):
        m, v = self.saved_tensors
        needs_m, needs_v = self.needs_input_grad
        grad_m = unsqueeze(grad, 1) * unsqueeze(v, 0) if needs_m else None
        grad_v = mv(m.t(), grad) if needs_v else None
        return grad_m, grad_v


def mv(m, v):
    _check_tensors(m, v, "mv")
    if m._data.ndim != 2 or v._data.ndim != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"{m._data.ndim}, {v._data.ndim}")
    if m._data.shape[1] != v._data.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({m._data.shape[0]}), mat "
            f"({m._data.shape[0]}x{m._data.shape[1]}), vec ({v._data.shape[0]})"
        )
    _check_same_dtype(m, v)
    return record(MvBackward0, m._data @ v._data, (m, v), saved=_swap(needed_factors(m, v)))


class BmmBackward0(Node):
    """Batched C = A B:  the same rule as mm, on the last two dims of every batch."""

    __slots__ = ()
    saved_names = ("self", "mat2")

    def backward(self, grad):
        a, b = self.saved_tensors
        needs_a, needs_b = self.needs_input_grad
        grad_a = batched_matmul(grad, b.transpose(-1, -2)) if needs_a else None
        grad_b = batched_matmul(a.transpose(-1, -2), grad) if needs_b else None
        return grad_a, grad_b


def batched_matmul(a, b):
    """NumPy's matmul over broadcast batch dims (both inputs at least 2-d)."""
    _check_same_dtype(a, b)
    try:
        data = np.matmul(a._data, b._data)
    except ValueError:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a._data.shape[-3] if a._data.ndim > 2 else 1}, {a._data.shape[-1]}] but got: "
            f"[{b._data.shape[-3] if b._data.ndim > 2 else 1}, {b._data.shape[-2]}]."
        ) from None
    return record(BmmBackward0, data, (a, b), saved=_swap(needed_factors(a, b)))


def matmul(a, b):
    _check_tensors(a, b, "matmul")
    if a._data.ndim == 0 or b._data.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a._data.ndim}D and "
            f"{b._data.ndim}D"
        )
    if a._data.ndim == 1 and b._data.ndim == 1:
        return dot(a, b)
    if a._data.ndim == 2 and b._data.ndim == 2:
        return mm(a, b)
    if a._data.ndim == 2 and b._data.ndim == 1:
        return mv(a, b)
    if a._data.ndim == 1 and b._data.ndim == 2:
        if a._data.shape[0] != b._data.shape[0]:
            raise RuntimeError(messages.MATMUL_MISMATCH.format(
                a0=1, a1=a._data.shape[0], b0=b._data.shape[0], b1=b._data.shape[1]))
        return squeeze(mm(unsqueeze(a, 0), b), (0,))
    squeeze_dims = []
    if a._data.ndim == 1:
        a = unsqueeze(a, 0)
        squeeze_dims.append(-2)
    if b._data.ndim == 1:
        b = unsqueeze(b, -1)
        squeeze_dims.append(-1)
    product = batched_matmul(a, b)
    result = unsafe_view(product, product._data.shape)
    if squeeze_dims:
        result = squeeze(result, tuple(d % result.ndim for d in squeeze_dims))
    return result


def outer(a, b):
    return unsqueeze(a, 1) * unsqueeze(b, 0)
