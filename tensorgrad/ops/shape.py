"""Shape operations: the same values, rearranged.

None of these change a value, so their derivatives only rearrange the gradient back:
the derivative of `reshape` is a reshape to the old shape, of `transpose` the same transpose,
of `expand` a sum over the expanded dims (done by the engine's fit_gradient), of `cat` cutting
the gradient into pieces.

Most results are *views*: they share memory with their input (NumPy views), and so also share
its version counter, as in PyTorch.
"""

import warnings

import numpy as np

from .. import dtypes
from ..arguments import Dtype, Ints, Tensors, declared, declare, overload
from ..autograd import messages
from ..core.tensor import Tensor, _normalize_dim
from ..creation import allocating
from ..derivatives import (AliasBackward0, CatBackward0, ExpandBackward0, FlipBackward0, PermuteBackward0,
                           RepeatBackward0, RollBackward0, ReshapeAliasBackward0, SqueezeBackward0,
                           SqueezeBackward1, SqueezeBackward4, StackBackward0, TBackward0,
                           TransposeBackward0, UnsafeViewBackward0, UnsqueezeBackward0,
                           ViewBackward0)
from ..core.record import record
from .elementwise import clone


def as_view(result, source):
    """Mark `result` as a view of `source`: shared memory, shared version counter.

    A view's graph leads to its base's grad_fn as it is now. If the base is later changed in
    place by a recorded operation, it gets a new grad_fn and the view's values change with it,
    but the view's graph does not; so the view remembers the base's grad_fn, and using the view
    in the graph after that has changed is refused (see Tensor._check_view_is_current).
    """
    result._version_counter = source._shared_version_counter()
    base = source if source._base is None else source._base
    result._base = base
    result._view_of_grad_fn = (base._grad_fn,)
    return result


def _shape_arg(shape):
    """Accept both `reshape(2, 3)` and `reshape((2, 3))`."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(int(s) for s in shape)


def infer_shape(shape, numel, original):
    """Resolve one -1 and check the element count, with PyTorch's message."""
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for index, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {index} of shape "
                               f"{list(shape)}")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} "
                               "because the unspecified dimension size -1 can be any value and "
                               "is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


# -- reshape / view / flatten -------------------------------------------------------------
@declared
def reshape(input: Tensor, *shape: Ints):
    shape = infer_shape(_shape_arg(shape), input._data.size, input._data.shape)
    data = input._data.reshape(shape)
    if np.may_share_memory(data, input._data) or input._data.size == 0:  # a fresh copy never overlaps
        node = ViewBackward0 if input._data.flags.c_contiguous else ReshapeAliasBackward0
        return as_view(record(node, data, (input,), self_sym_sizes=input._data.shape), input)
    # No view is possible: as PyTorch, copy (CloneBackward0), then view the copy
    return unsafe_view(clone(input, memory_format="contiguous"), shape)


@overload
def view(input: Tensor, dtype: Dtype): ...
@overload
def view(input: Tensor, *size: Ints): ...
@declared
def view(input, *size):
    if len(size) == 1 and isinstance(size[0], dtypes.dtype):
        raise NotImplementedError(messages.VIEW_AS_DTYPE)
    size = infer_shape(_shape_arg(size), input._data.size, input._data.shape)
    data = input._data.reshape(size)
    if not np.may_share_memory(data, input._data) and input._data.size:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return view_of(input, data)


def view_of(input, data):  # noqa: A002
    """`input` as `data`, an array NumPy reshaped from it without a copy: view's node
    (ViewBackward0), for view and for the library's own views of a shape known to fit."""
    return as_view(record(ViewBackward0, data, (input,), self_sym_sizes=input._data.shape), input)


def alias(input):  # noqa: A002
    """Another tensor over all of `input`'s memory, as it is (PyTorch's alias, which `t.new(x)`
    returns): a view, with AliasBackward0 as its node."""
    return as_view(record(AliasBackward0, input._data.view(), (input,)), input)


@declared
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1):
    if input._data.ndim == 0:
        _normalize_dim(start_dim, 0), _normalize_dim(end_dim, 0)  # 0 or -1, as in PyTorch
        return reshape(input, 1)
    start = _normalize_dim(start_dim, input._data.ndim)
    end = _normalize_dim(end_dim, input._data.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input._data.shape
    return reshape(input, shape[:start] + (-1,) + shape[end + 1:])


def contiguous(x):
    """x itself if its memory is already in row-major order, else a row-major copy."""
    if x._data.flags.c_contiguous:
        return x
    return clone(x, memory_format="contiguous")


def unsafe_view(x, shape):
    """The reshape at the end of a batched matmul, recorded as PyTorch does."""
    return record(UnsafeViewBackward0, x._data.reshape(shape), (x,), self_sym_sizes=x._data.shape)


@declared
def ravel(input: Tensor):
    """The elements in one row, in row order: a view when the memory allows (`view(-1)` of the
    tensor made contiguous first)."""
    return view(contiguous(input), -1)


# -- transpose / permute ------------------------------------------------------------------
@declared
def transpose(input: Tensor, dim0: int, dim1: int):
    d0 = _normalize_dim(dim0, input._data.ndim)
    d1 = _normalize_dim(dim1, input._data.ndim)
    data = np.swapaxes(input._data, d0, d1) if input._data.ndim else input._data
    return as_view(record(TransposeBackward0, data, (input,), dim0=d0, dim1=d1), input)


@declared
def swapaxes(input: Tensor, axis0: int, axis1: int):
    """NumPy's name for transpose, which PyTorch has too."""
    return transpose(input, axis0, axis1)


@declared
def t(input: Tensor):
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return as_view(record(TBackward0, input._data.T, (input,)), input)


@declared
def permute(input: Tensor, *dims: Ints):
    dims = _shape_arg(dims)
    if len(dims) != input._data.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {input._data.ndim} is "
            f"not equal to len(dims) = {len(dims)}"
        )
    dims = tuple(_normalize_dim(d, input._data.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return as_view(record(PermuteBackward0, np.transpose(input._data, dims), (input,), dims=dims), input)


def reverse_dims(x):
    """`x.T`: all dims reversed. PyTorch warns when x is not 2-D (0-D: that it is the identity)."""
    if x._data.ndim == 0:
        warnings.warn(messages.TRANSPOSE_0D, UserWarning, stacklevel=3)
    elif x._data.ndim != 2:
        warnings.warn(messages.TRANSPOSE_1D, UserWarning, stacklevel=3)
    return permute(x, *range(x._data.ndim - 1, -1, -1))


def matrix_transpose(x):
    """`x.mT`: swap the last two dims."""
    if x._data.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {x._data.ndim}-D tensor.")
    return transpose(x, -2, -1)


# -- unsqueeze / squeeze ---------------------------------------------------------------------
@declared
def unsqueeze(input: Tensor, dim: int):
    d = _normalize_dim(dim, input._data.ndim + 1)
    return as_view(record(UnsqueezeBackward0, np.expand_dims(input._data, d), (input,), dim=d), input)


@overload
def squeeze(input: Tensor): ...
@overload
def squeeze(input: Tensor, dim: int): ...
@overload
def squeeze(input: Tensor, dim: Ints): ...
@declared
def squeeze(input, dim=None):
    shape = input._data.shape
    if dim is None:
        data = input._data.reshape([s for s in shape if s != 1])
        node = SqueezeBackward0
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = tuple(_normalize_dim(d, input._data.ndim) for d in dims)
        check_no_repeated_dims(dims)
        data = input._data.reshape([s for i, s in enumerate(shape) if not (i in dims and s == 1)])
        node = SqueezeBackward1 if isinstance(dim, int) else SqueezeBackward4
    return as_view(record(node, data, (input,), self_sym_sizes=shape), input)


# -- expand / repeat -------------------------------------------------------------------------
@declared
def expand(input: Tensor, *size: Ints, implicit: bool = False):
    size = _shape_arg(size)
    shape = input._data.shape
    if len(size) < len(shape):
        raise RuntimeError(
            f"expand({_legacy_type(input)}{{{list(shape)}}}, size={list(size)}): the number of sizes "
            f"provided ({len(size)}) must be greater or equal to the number of dimensions in the "
            f"tensor ({len(shape)})"
        )
    padded = (1,) * (len(size) - len(shape)) + shape
    target = list(size)
    for i in reversed(range(len(target))):  # as PyTorch: from the last dimension
        if target[i] == -1:
            if i < len(size) - len(shape):
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            target[i] = padded[i]
        if padded[i] != target[i] and padded[i] != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[i]}) must match the existing size "
                f"({padded[i]}) at non-singleton dimension {i}.  Target sizes: {list(size)}.  "
                f"Tensor sizes: {list(shape)}"
            )
    if min(target, default=0) < 0:  # (a negative size where the tensor has size 1: PyTorch's
        raise RuntimeError("numel: integer multiplication overflow")  # words for it)
    # A view with stride 0 along each expanded dim, as PyTorch's expand; other dims keep their
    # stride (np.broadcast_to would give every size-1 dim stride 0, and make the view read-only,
    # where PyTorch's can be written into wherever no two elements share memory)
    strides = [0] * (len(target) - len(shape)) + [
        stride if have == want else 0
        for stride, have, want in zip(input._data.strides, shape, target[len(target) - len(shape):])
    ]
    data = np.lib.stride_tricks.as_strided(input._data, shape=target, strides=strides,
                                           writeable=input._data.flags.writeable)
    return as_view(record(ExpandBackward0, data, (input,), self_sym_sizes=shape), input)


def _legacy_type(x):
    return f"tensorgrad.{x.dtype._legacy_name}"


@declared
def expand_as(input: Tensor, other: Tensor):
    return expand(input, other.shape)


@declared
def broadcast_to(input: Tensor, size: Ints):
    return expand(input, size)


@declared
def repeat(input: Tensor, *repeats: Ints):
    repeats = _shape_arg(repeats)
    if len(repeats) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    padded = (1,) * (len(repeats) - input._data.ndim) + input._data.shape
    sizes = [r * s for r, s in zip(repeats, padded)]  # the result's
    check_sizes_not_negative(sizes)
    with allocating([(size + 2 ** 63) % 2 ** 64 - 2 ** 63 for size in sizes],  # (in int64)
                    input._data.dtype):
        data = np.tile(input._data, repeats)
    return record(RepeatBackward0, data, (input,), repeats=repeats, self_sym_sizes=input._data.shape)


# -- cat / stack ---------------------------------------------------------------------------
@declared
def cat(tensors: Tensors, dim: int = 0, *, out: Tensor = None):
    tensors = _tensor_list(tensors, "cat")
    _check_no_scalars(tensors)
    # As PyTorch (a legacy rule): 1-d empty tensors are left out, whatever the other shapes
    skipped = [t._data.shape == (0,) for t in tensors]
    joined = [t for t, skip in zip(tensors, skipped) if not skip]
    if not joined:  # only empty vectors: any dim will do
        joined, dim = tensors[:1], 0
    d = _normalize_dim(dim, joined[0]._data.ndim)
    _check_cat_shapes([t._data.shape for t in joined], d)
    data = np.ascontiguousarray(np.concatenate([t._data for t in joined], axis=d))  # as torch's
    dtype = dtypes.result_type(*tensors)
    data = data.astype(dtype.numpy, copy=False)
    # the skipped ones (None) get an empty gradient, not a slice of this one
    sizes = [None if skip else t._data.shape[d] for t, skip in zip(tensors, skipped)]
    return record(CatBackward0, data, tensors, dim=d, sizes=sizes)


@declared(like=cat)
def concatenate(tensors, dim=0, *, out=None):
    """PyTorch's other name for cat."""
    return cat(tensors, dim)


def _check_no_scalars(tensors):
    for position, tensor in enumerate(tensors):
        if tensor._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {position}) cannot be "
                               "concatenated")


def _check_cat_shapes(shapes, dim):
    """The shapes must agree except along `dim`; PyTorch's messages name the first that does not."""
    first = shapes[0]
    for number, shape in enumerate(shapes[1:], start=1):
        if len(shape) != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} "
                               f"and {len(shape)}")
        for axis, (expected, got) in enumerate(zip(first, shape)):
            if axis != dim and expected != got:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size "
                    f"{expected} but got size {got} for tensor number {number} in the list."
                )


@declared
def stack(tensors: Tensors, dim: int = 0, *, out: Tensor = None):
    tensors = _tensor_list(tensors, "stack")
    d = _normalize_dim(dim, tensors[0]._data.ndim + 1)
    shapes = {t._data.shape for t in tensors}
    if len(shapes) > 1:
        first, other = tensors[0]._data.shape, next(s for s in (t._data.shape for t in tensors)
                                                    if s != tensors[0]._data.shape)
        index = [t._data.shape for t in tensors].index(other)
        raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(first)} at "
                           f"entry 0 and {list(other)} at entry {index}")
    dtype = dtypes.result_type(*tensors)
    data = np.ascontiguousarray(np.stack([t._data for t in tensors], axis=d), dtype=dtype.numpy)
    return record(StackBackward0, data, tensors, dim=d)


def check_sizes_not_negative(sizes):
    for size in sizes:
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {list(sizes)}")


def check_no_repeated_dims(dims):
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")


def check_split_sizes(split_size, length, dim):
    """PyTorch's checks of split's sizes: one size, at least 0 (0 only for an empty dimension);
    or a list of sizes, each at least 0, that add up to the dimension's length."""
    if isinstance(split_size, int):
        if split_size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
        if split_size == 0 and length != 0:
            raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension "
                               f"size of {length}")
        return
    sizes = list(split_size)
    for size in sizes:
        if size < 0:
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative entries, "
                               f"but got split_sizes={sizes}")
    if sum(sizes) != length:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {length} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={sizes}")


def _tensor_list(tensors, name):
    """The tensors, as a tuple (their types are checked against the declaration)."""
    if not tensors:
        if name == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError("tensorgrad.cat(): expected a non-empty list of Tensors")
    return tuple(tensors)


@declared
def unbind(input: Tensor, dim: int = 0):
    d = _normalize_dim(dim, input._data.ndim)
    if input._data.ndim == 0:
        raise IndexError(messages.NO_DIMENSIONS.format(dim=d))
    return tuple(input._select(d, i) for i in range(input._data.shape[d]))  # (plain: see below)


@declared
def chunk(input: Tensor, chunks: int, dim: int = 0):
    if input._data.ndim == 0:  # (first, as PyTorch checks)
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _normalize_dim(dim, input._data.ndim)
    size = -(-input._data.shape[d] // chunks)
    if input._data.shape[d] == 0:  # PyTorch makes `chunks` empty pieces (a loop over the chunks
        try:                       # of an empty set runs `chunks` times)
            sizes = [0] * chunks
        except MemoryError:  # (PyTorch's vector of sizes: `chunk(10 ** 10)`)
            raise RuntimeError("std::bad_alloc") from None
        return split(input, sizes, d)
    return split(input, size, d)


# PyTorch writes split in Python: an int size goes to its C function `split`, anything else to
# `split_with_sizes`, each checked against its own declaration (with the tensor as position 1)
def split_with_sizes(input: Tensor, split_sizes: Ints, dim: int = 0):
    """PyTorch's split_with_sizes, as declared: split's calls with a list of sizes are checked
    against it (PyTorch's split calls it)."""


@overload
def _split_by_size(input: Tensor, split_size: int, dim: int = 0): ...
@overload
def _split_by_size(input: Tensor, split_size: Ints, dim: int = 0): ...
def _split_by_size(input, split_size, dim=0):  # noqa: A002
    """PyTorch's C function split, as declared: split's calls with one size are checked against
    it."""


_SPLIT_WITH_SIZES = declare(split_with_sizes)
_SPLIT_BY_SIZE = declare(_split_by_size, name="split", python=True)


@declared(python=True)
def split(tensor: Tensor, split_size_or_sections: object, dim: object = 0):
    x, split_size = tensor, split_size_or_sections
    if isinstance(split_size, int):
        _SPLIT_BY_SIZE.match((x, split_size, dim))
    else:  # a list of sizes: PyTorch calls split_with_sizes
        _SPLIT_WITH_SIZES.match((x, split_size, dim))
    if x._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _normalize_dim(dim, x._data.ndim)
    length = x._data.shape[d]
    check_split_sizes(split_size, length, d)
    if isinstance(split_size, int):  # PyTorch: max(ceil(length / size), 1) pieces, the last
        count = -(-length // split_size) if length else 1  # one what is left: an empty dim
        sizes = [split_size] * (count - 1) + [length - split_size * (count - 1)]  # gives one
    else:
        sizes = list(split_size)
    pieces, start = [], 0
    for size in sizes:
        index = [slice(None)] * x._data.ndim
        index[d] = slice(start, start + size)
        pieces.append(x[tuple(index)])
        start += size
    return tuple(pieces)


@overload
def flip(input: Tensor, *dims: Ints): ...
@declared
def flip(input, *dims):
    dims = tuple(dims[0]) if len(dims) == 1 and not isinstance(dims[0], int) else dims
    dims = tuple(_normalize_dim(d, input._data.ndim) for d in dims)
    check_no_repeated_dims(dims)
    if input._data.ndim == 0:
        dims = ()  # a 0-d tensor's one dim (0 or -1) has one element: nothing to reverse
    return record(FlipBackward0, np.flip(input._data, dims).copy(), (input,), dims=dims)


@declared
def roll(input: Tensor, shifts: int | Ints, dims: int | Ints | None = ()):
    """Shift the elements along `dims` by `shifts` (one shift per dim), those pushed off the end
    coming back at the start; with no dims, along the flattened tensor, shape kept."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims or ())
    if not shifts:
        raise RuntimeError(messages.ROLL_NO_SHIFTS)
    if len(shifts) != len(dims) and not (not dims and len(shifts) == 1):
        raise RuntimeError(messages.ROLL_MISALIGNED.format(shifts=len(shifts), dims=len(dims)))
    if input._data.ndim == 0 and dims:
        raise IndexError(messages.NO_DIMENSIONS.format(dim=dims[0]))
    dims = tuple(_normalize_dim(d, input._data.ndim) for d in dims)
    data = np.roll(input._data, shifts, dims or None)
    return record(RollBackward0, data, (input,), shifts=shifts, dims=dims)


# -- functions PyTorch offers beside the methods -------------------------------------------------
@declared
def numel(input: Tensor):
    return int(input._data.size)


# core/tensor.py's detach, kept before tensor_methods.attach gives Tensor its checked form: this
# module is imported by tensor_methods.py, so it runs first (`t._select` above, by contrast, is
# one of tensor_methods.py's plain methods, looked up at call time)
_detached = Tensor.detach


@declared
def detach(input: Tensor):
    return _detached(input)


@overload
def expand_copy(input: Tensor, size: Ints, *, implicit: bool = False, out: Tensor = None): ...
@declared
def expand_copy(input, *size):
    return clone(expand(input, *size))
