"""Matrix products. `a @ b` picks its case by the number of dims, as PyTorch's matmul does:

    1-d @ 1-d   dot   a scalar                                       DotBackward0
    2-d @ 2-d   mm    a matrix                                       MmBackward0
    2-d @ 1-d   mv    a vector                                       MvBackward0
    1-d @ 2-d   the vector as a 1-row matrix, mm, then squeeze     SqueezeBackward4
    3-d or more with 1-d or 2-d, when PyTorch folds: the batch dims folded into the rows of
                one mm or mv, then viewed back                       UnsafeViewBackward0
    otherwise   batch dims broadcast (expand), flattened into one (reshape), bmm, viewed
                back                                                 UnsafeViewBackward0

The last two follow PyTorch's matmul step by step, so the graph has PyTorch's nodes in the
same order. For C = A B the derivatives are dL/dA = dL/dC Bᵀ and dL/dB = Aᵀ dL/dC; the
ExpandBackward0 nodes sum the gradient of a broadcast batch back, like any broadcast.
"""

import math

import numpy as np

from ..arguments import declared
from ..autograd import messages
from ..core.tensor import Tensor
from ..derivatives import BmmBackward0, DotBackward0, MmBackward0, MvBackward0
from ..core.record import record
from .elementwise import broadcast_error
from .shape import contiguous, expand, reshape, squeeze, t, transpose, unsafe_view, unsqueeze

_C_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}


def _check_same_dtype(a, b):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_C_NAMES[a.dtype.name]} != "
            f"{_C_NAMES[b.dtype.name]}"
        )


def refuse_bool(a, kernel, sizes=()):
    """PyTorch has no bool matrix products; an empty one (some size 0) it answers without one."""
    if a._data.dtype.kind == "b" and all(sizes):
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


@declared
def dot(input: Tensor, tensor: Tensor, *, out: Tensor = None):
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors")
    if input._data.dtype != tensor._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{input.dtype.scalar_name} and {tensor.dtype.scalar_name}")
    if input._data.shape != tensor._data.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{input._data.shape[0]}] and src "
            f"[{tensor._data.shape[0]}] to have the same number of elements, but got "
            f"{input._data.shape[0]} and {tensor._data.shape[0]} elements respectively"
        )
    refuse_bool(input, "dot")
    return record(DotBackward0, np.dot(input._data, tensor._data), (input, tensor),
                  saved={"self": input, "tensor": tensor})


@declared
def mm(input: Tensor, mat2: Tensor, *, out: Tensor = None):
    if input._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError("self must be a matrix" if input._data.ndim != 2 else "mat2 must be a matrix")
    if input._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(messages.MATMUL_MISMATCH.format(
            a0=input._data.shape[0], a1=input._data.shape[1], b0=mat2._data.shape[0], b1=mat2._data.shape[1]))
    _check_same_dtype(input, mat2)
    refuse_bool(input, "addmm_impl_cpu_", input._data.shape + mat2._data.shape[1:])
    return record(MmBackward0, input._data @ mat2._data, (input, mat2),
                  saved={"self": input, "mat2": mat2}, mat2_sym_sizes=mat2._data.shape,
                  mat2_sym_strides=element_strides(mat2._data))


def element_strides(matrix):
    """A matrix's strides as PyTorch counts them, in elements (NumPy's are in bytes): mm and
    addmm keep mat2's, so that its gradient comes out in its layout (derivatives.py:
    mat2_gradient)."""
    step0, step1 = matrix.strides
    return step0 // matrix.itemsize, step1 // matrix.itemsize


@declared
def mv(input: Tensor, vec: Tensor, *, out: Tensor = None):
    if input._data.ndim == 0:  # (PyTorch reads the matrix's first size before its check)
        raise IndexError(messages.NO_DIMENSIONS.format(dim=0))
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "  # (1: the added vector's)
                           f"1, {input._data.ndim}, {vec._data.ndim}")
    if input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({input._data.shape[0]}), mat "
            f"({input._data.shape[0]}x{input._data.shape[1]}), vec ({vec._data.shape[0]})"
        )
    if input._data.dtype != vec._data.dtype:
        vec, mat = vec.dtype.scalar_name, input.dtype.scalar_name
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {vec}, {mat}, "
                           f"and {vec}")
    refuse_bool(input, "addmv_impl_cpu", input._data.shape)
    return record(MvBackward0, input._data @ vec._data, (input, vec),
                  saved={"self": input, "vec": vec})


@declared
def bmm(input: Tensor, mat2: Tensor, *, out: Tensor = None):
    """A batch of matrix products: a is (batch, n, m), b is (batch, m, p)."""
    for name, x in (("batch1", input), ("batch2", mat2)):
        if x._data.ndim != 3:
            raise RuntimeError(messages.NOT_3D.format(name=name))
    if input._data.shape[0] != mat2._data.shape[0] or input._data.shape[2] != mat2._data.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{input._data.shape[0]}, {input._data.shape[2]}] but got: "
            f"[{mat2._data.shape[0]}, {mat2._data.shape[1]}]."
        )
    refuse_bool(input, "bmm", input._data.shape + mat2._data.shape[2:])
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.scalar_name} but found "
                           f"{mat2.dtype.scalar_name}")
    data = np.matmul(input._data, mat2._data)
    return record(BmmBackward0, data, (input, mat2), saved={"self": input, "mat2": mat2})


@declared
def matmul(input: Tensor, other: Tensor, *, out: Tensor = None):
    """`a @ b`, built from dot, mv, mm and bmm exactly as PyTorch's matmul builds it, so the
    graph has the same nodes (and the same errors come from the same places)."""
    ndim_a, ndim_b = input._data.ndim, other._data.ndim
    if ndim_a == 0 or ndim_b == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {ndim_a}D and "
            f"{ndim_b}D"
        )
    if ndim_a == 1 and ndim_b == 1:
        return dot(input, other)
    if ndim_a == 2 and ndim_b == 1:
        return mv(input, other)
    if ndim_a == 1 and ndim_b == 2:
        if input._data.shape[0] != other._data.shape[0]:
            raise RuntimeError(messages.MATMUL_MISMATCH.format(
                a0=1, a1=input._data.shape[0], b0=other._data.shape[0], b1=other._data.shape[1]))
        return squeeze(mm(unsqueeze(input, 0), other), (0,))
    if ndim_a == 2 and ndim_b == 2:
        return mm(input, other)
    if ndim_a == 3 and ndim_b == 3:
        # PyTorch's shortcut, as measured: a batch of one that needs a gradient, against a real
        # batch, is used as a matrix (so that it can be folded; see _should_fold)
        if input._data.shape[0] == 1 and other._data.shape[0] != 1 and input.requires_grad:
            input = squeeze(input, 0)  # noqa: A001
        elif other._data.shape[0] == 1 and input._data.shape[0] != 1 and other.requires_grad:
            other = squeeze(other, 0)
    if _should_fold(input, other):
        return _folded_matmul(input, other)
    return _matmul_with_bmm(input, other)


def _should_fold(a, b):
    """Can the batch dims of the larger operand be folded into matrix rows, so that one mm (or
    mv) does the work? PyTorch folds when the smaller operand needs a gradient (a bmm would
    make its gradient batch-sized), or when the fold needs no copy."""
    if a._data.ndim >= b._data.ndim:
        big, small = a._data, b
    else:
        big, small = np.swapaxes(b._data, -1, -2), a
    if not (big.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if a._data.ndim == 2:
        return False
    if big.size == 0:
        return True
    shape, strides = big.shape, big.strides
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


def _folded_matmul(a, b):
    """(..., n, m) @ (m, p) as one (rows, m) @ (m, p) product; a smaller left operand is handled
    by transposing the product: a @ b = (bᵀ @ aᵀ)ᵀ."""
    transposed = b._data.ndim > a._data.ndim
    if transposed:
        big = transpose(b, -1, -2)
        small = t(a) if a._data.ndim == 2 else a
    else:
        big, small = a, b
    output_shape = big.shape[:-1]
    folded = reshape(big, math.prod(output_shape), big.shape[-1])
    if small._data.ndim == 2:
        output = unsafe_view(mm(folded, small), tuple(output_shape) + (small.shape[1],))
        return contiguous(transpose(output, -1, -2)) if transposed else output
    return unsafe_view(mv(folded, small), tuple(output_shape))


def _matmul_with_bmm(a, b):
    """Broadcast the batch dims, flatten them into one, and multiply with bmm."""
    n = a._data.shape[-2] if a._data.ndim > 1 else 1
    m1 = a._data.shape[-1]
    m2 = b._data.shape[-2] if b._data.ndim > 1 else b._data.shape[0]
    p = b._data.shape[-1] if b._data.ndim > 1 else 1
    batch = _broadcast_batch(a._data.shape[:-2], b._data.shape[:-2])
    count = math.prod(batch)
    left = reshape(expand(a, batch + (n, m1)), count, n, m1)
    vector_right = b._data.ndim == 1
    if vector_right:
        right = unsqueeze(reshape(expand(b, batch + (m2,)), count, m2), 2)
    else:
        right = reshape(expand(b, batch + (m2, p)), count, m2, p)
    output_shape = batch + ((n,) if a._data.ndim > 1 else ()) + ((p,) if b._data.ndim > 1 else ())
    product = bmm(left, right)
    if vector_right:
        product = squeeze(product, -1)
    return unsafe_view(product, output_shape)


def _broadcast_batch(shape_a, shape_b):
    try:
        return tuple(np.broadcast_shapes(tuple(shape_a), tuple(shape_b)))
    except ValueError:
        raise RuntimeError(broadcast_error(shape_a, shape_b)) from None


@declared
def outer(input: Tensor, vec2: Tensor, *, out: Tensor = None):
    for name, value in (("self", input), ("vec2", vec2)):
        if value._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {value._data.ndim}-D")
    return unsqueeze(input, 1) * unsqueeze(vec2, 0)
