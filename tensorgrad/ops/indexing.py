"""Indexing: reading `t[index]` and writing `t[index] = value`.

Reading picks some elements; its derivative puts the gradient back where those elements came
from, into zeros elsewhere (`IndexBackwardBackward0`-style scatter, itself differentiable).
Writing replaces some elements; the old values there get no gradient, and the new value gets
the gradient of the places it was written to (PyTorch's CopySlices node).
"""

import warnings

import numpy as np

from .. import dtypes
from ..arguments import Number, declared, overload, type_name
from ..autograd import messages
from ..core.tensor import Tensor, _normalize_dim
from . import inplace
from ..creation import check_integer_leaves, check_value_fits
from ..derivatives import (CopySlices, IndexBackward0, IndexPutBackward0, IndexSelectBackward0,
                           IndexUnsqueezeBackward0, MaskedFillBackward0, MaskedFillBackward1,
                           SelectBackward0, SliceBackward0)
from ..core.record import record
from .elementwise import OPERAND_TYPES, broadcast_error
from .shape import as_view, expand


def to_numpy_index(index):
    """Translate a tensorgrad index into a NumPy one, and say which kind of indexing it is.

    Returns (numpy_index, kind): kind is "advanced" (integer arrays or masks: the result is a
    copy), "select" (an integer removes a dim), "slice" or "unsqueeze" (None adds a dim).
    """
    if type(index) is list and _holds_an_index_of_its_own(index):
        warnings.warn(messages.NON_TUPLE_INDEX, UserWarning, stacklevel=4)
        index = tuple(index)  # x[[0, [1]]] is x[0, [1]]
    items = index if isinstance(index, tuple) else (index,)
    converted, kinds = [], set()
    for item in items:
        if isinstance(item, Tensor):
            if item.dtype.is_floating_point:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if item._data.ndim == 0 and item.dtype is dtypes.int64:
                converted.append(int(item._data))
                kinds.add("select")
                continue
            converted.append(item._data)
            kinds.add("advanced")
        elif isinstance(item, (list, np.ndarray)):
            array = np.asarray(item)
            if array.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if array.dtype.kind in "iu" and isinstance(item, list):  # (made a tensor of first)
                check_integer_leaves(item)
            if array.dtype == np.uint8:  # PyTorch's byte index is a mask, still (deprecated)
                warnings.warn(messages.BYTE_INDEX, UserWarning, stacklevel=4)
                array = array.astype(bool)
            converted.append(array)
            kinds.add("advanced")
        elif type(item) is bool:  # (NumPy's bool is refused below, as in PyTorch)
            converted.append(item)
            kinds.add("advanced")
        elif isinstance(item, (int, np.integer)):
            if not -2 ** 63 <= item < 2 ** 63:  # (PyTorch reads it as a C long long)
                raise ValueError(messages.INT_OVERFLOW)
            converted.append(int(item))
            kinds.add("select")
        elif item is None:
            converted.append(None)
            kinds.add("unsqueeze")
        elif isinstance(item, slice) or item is Ellipsis:
            if isinstance(item, slice) and not _is_slice_index(item.step):  # (Python's words)
                raise TypeError(messages.SLICE_INDICES)
            if isinstance(item, slice) and item.step is not None and item.step <= 0:
                if item.step == 0:
                    raise ValueError("slice step cannot be zero")
                raise ValueError("step must be greater than zero")  # (NumPy would reverse)
            converted.append(item)
            kinds.add("slice")
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                f"valid indices (got {type_name(item)})"
            )
    for kind in ("advanced", "select", "slice", "unsqueeze"):
        if kind in kinds:
            break
    else:
        kind = "slice"
    numpy_index = tuple(converted) if isinstance(index, tuple) else converted[0]
    return numpy_index, kind


def _holds_an_index_of_its_own(index):
    """Is a list index really a tuple of indices, by NumPy's old rule that PyTorch still follows
    (with a deprecation warning): fewer than 32 items, one of them a sequence, a tensor, a slice,
    `...` or None (`x[[0, [1]]]` is `x[0, [1]]`; `x[[1, 0]]` picks rows)."""
    return len(index) < 32 and any(
        isinstance(item, (list, tuple, range, str, np.ndarray, Tensor, slice)) or item is None
        or item is Ellipsis for item in index)


def _check_bounds(x, numpy_index, check_arrays=True):
    """Refuse an index that does not fit the tensor, in PyTorch's words (NumPy's name axes and
    arrays). As in PyTorch, integers select first: a mask is checked against the shape that is
    left, and an index array's dimension is counted among the index arrays."""
    items = numpy_index if isinstance(numpy_index, tuple) else (numpy_index,)
    shape = x._data.shape
    consumed = sum(item.ndim if _is_mask(item) else 1 for item in items
                   if item is not None and item is not Ellipsis and not _is_bool(item))
    if consumed > len(shape):  # (a 0-d tensor's index is refused before: _check_index_of_0_dim)
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    dim, kept, arrays = 0, [], 0  # kept: the shape left by the integers before `dim`
    for item in items:
        if item is Ellipsis:
            kept += shape[dim:dim + len(shape) - consumed]
            dim += len(shape) - consumed
        elif item is None or _is_bool(item):
            kept.append(1)
        elif isinstance(item, int):
            if not -shape[dim] <= item < shape[dim]:
                raise IndexError(f"index {item} is out of bounds for dimension {dim} with size "
                                 f"{shape[dim]}")
            dim += 1
        elif _is_mask(item):
            for j, (want, have) in enumerate(zip(item.shape, shape[dim:])):
                if want != have:
                    raise IndexError(
                        f"The shape of the mask {list(item.shape)} at index {j} does not match the "
                        f"shape of the indexed tensor {kept + list(shape[dim:])} at index "
                        f"{len(kept) + j}")
            kept += shape[dim:dim + item.ndim]
            dim += item.ndim
        else:  # a slice, or an array of integers
            if isinstance(item, np.ndarray):  # (check_arrays=False: index_put looks later)
                outside = (item < -shape[dim]) | (item >= shape[dim])
                if check_arrays and outside.any() and not shape[dim]:  # (words for an empty dim)
                    raise IndexError("index is out of bounds for dimension with size 0")
                if check_arrays and outside.any():
                    raise IndexError(f"index {item[outside].flat[0]} is out of bounds for dimension "
                                     f"{arrays} with size {shape[dim]}")
                arrays += 1
            kept.append(shape[dim])
            dim += 1


_INT64_MAX = 2 ** 63 - 1


def _wrapped(value):
    """`value` as a C int64 holds it: wrapped around."""
    return (value + 2 ** 63) % 2 ** 64 - 2 ** 63


def _check_huge_steps(shape, numpy_index):
    """A slice step beyond int64 (`x[::2 ** 63]`) as PyTorch takes it: clamped to the largest
    int64, with which its size, (length + step - 1) / step, overflows once two or more elements
    are sliced; PyTorch then refuses the view it would make, in its words (the wrapped sizes and
    strides of a contiguous tensor). NumPy would give the first element."""
    items = numpy_index if isinstance(numpy_index, tuple) else (numpy_index,)
    if not any(isinstance(item, slice) and item.step is not None and item.step >= _INT64_MAX
               for item in items):
        return
    sizes = list(shape)
    strides = [int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(len(shape))]
    consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
    dim = 0
    for item in items:
        if item is Ellipsis:
            dim += len(shape) - consumed
        elif item is None:
            sizes.insert(dim, 1)
            strides.insert(dim, sizes[dim + 1] * strides[dim + 1] if dim + 1 < len(sizes) else 1)
            dim += 1
        elif isinstance(item, slice) and dim < len(sizes):
            step = min(int(item.step or 1), _INT64_MAX)
            start, stop, _ = slice(item.start, item.stop).indices(sizes[dim])
            size = _wrapped(max(stop - start, 0) + step - 1)
            sizes[dim] = -(-size // step) if size < 0 else size // step  # (C's division)
            strides[dim] = _wrapped(strides[dim] * step)
            if sizes[dim] < 0:
                raise RuntimeError(messages.STORAGE_OVERFLOW_STRIDES.format(sizes=sizes,
                                                                            strides=strides))
            dim += 1
        elif isinstance(item, int) and dim < len(sizes):  # (a select removes the dim)
            del sizes[dim], strides[dim]


def _is_slice_index(value):
    """A slice's start, stop or step as Python takes one: None, or what has an `__index__`."""
    return value is None or hasattr(type(value), "__index__")


def _is_bool(item):
    return isinstance(item, (bool, np.bool_))


def _is_mask(item):
    return isinstance(item, np.ndarray) and item.dtype == bool


# -- reading ----------------------------------------------------------------------------------
_NODE_FOR_KIND = {  # a view's node, by the kind of index (an advanced index copies: IndexBackward0)
    "select": SelectBackward0,
    "slice": SliceBackward0,
    "unsqueeze": IndexUnsqueezeBackward0,
}


def getitem(x, index):
    if not x._data.ndim:
        _check_index_of_0_dim(index)
    if isinstance(index, str):  # PyTorch tries to make a tensor of it
        raise TypeError(messages.INVALID_DATA_TYPE.format(type_name="str"))
    numpy_index, kind = to_numpy_index(index)
    if kind != "advanced":
        _check_huge_steps(x._data.shape, numpy_index)
    try:
        data = x._data[numpy_index]
        if kind != "advanced" and not isinstance(data, np.ndarray):
            # x[1] of a vector: NumPy gives a copied scalar; an Ellipsis at the end gives a 0-d
            # view instead, so that x[1].add_(1) changes x, as in PyTorch
            as_tuple = numpy_index if isinstance(numpy_index, tuple) else (numpy_index,)
            data = x._data[as_tuple + (Ellipsis,)]
    except IndexError as error:  # only a refused index pays for finding PyTorch's words
        _check_bounds(x, numpy_index)
        raise IndexError(str(error)) from None
    if kind == "advanced":  # (a copy, laid out in row order as PyTorch's: NumPy's may not be)
        data = data if data.flags.c_contiguous else data.copy(order="C")  # (0-d stays 0-d)
        return record(IndexBackward0, data, (x,), saved={"index": numpy_index},
                      self_sym_sizes=x._data.shape)
    result = record(_NODE_FOR_KIND[kind], data, (x,), index=numpy_index,
                    self_sym_sizes=x._data.shape)
    return as_view(result, x)


@declared
def select(input: Tensor, dim: int, index: int):
    """x[..., index, ...] at position `dim`: removes that dim."""
    if not input._data.ndim:  # (before the dim is read)
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _normalize_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input._data.shape)} at dimension {d}")
    return getitem(input, (slice(None),) * d + (index,))


@declared
def index_select(input: Tensor, dim: int, index: Tensor, *, out: Tensor = None):
    """The slices of `input` along `dim` at the positions in `index` (a vector of ints, in
    range: no negative positions, unlike `x[:, index]`), in the index's order."""
    d = _normalize_dim(dim, input._data.ndim)
    positions = index._data
    if positions.ndim > 1:
        raise IndexError(messages.INDEX_SELECT_VECTOR)
    if positions.dtype != np.int64:
        raise RuntimeError(messages.INDEX_SELECT_DTYPE)
    if input._data.ndim == 0:  # a 0-d input: one position, 0, and the result stays 0-d
        if positions.size != 1:
            raise RuntimeError(messages.INDEX_SELECT_SCALAR.format(count=positions.size))
        if positions.reshape(()) != 0:
            raise IndexError(messages.INDEX_OUT_OF_RANGE_IN_SELF)
        data = input._data.copy()
    else:
        size, flat = input._data.shape[d], positions.reshape(-1)  # (a 0-d index is one position)
        outside = flat[(flat < 0) | (flat >= size)]
        if outside.size:
            _out_of_range(input._data, d, outside[0])
        data = np.take(input._data, flat, axis=d)
    return record(IndexSelectBackward0, data, (input,), saved={"index": index}, dim=d,
                  self_sym_sizes=input._data.shape)


def _out_of_range(data, dim, position):
    """A position outside `dim`, in the words of the CPU kernel PyTorch runs for that input
    (measured): a vector's loop and the slice loop (dim 0, a last dim beyond 1) raise
    IndexError; the loop for dim 1, and the check of an empty input, RuntimeError."""
    if data.ndim > 1 and data.size == 0 and data.shape[dim] == 0:
        raise RuntimeError(messages.INDEX_SELECT_EMPTY_DIM)
    if data.ndim > 1 and (dim == 1 or data.size == 0):
        raise RuntimeError(messages.INDEX_SELECT_BOUNDS.format(index=position,
                                                               size=data.shape[dim]))
    raise IndexError(messages.INDEX_OUT_OF_RANGE_IN_SELF)


@declared
def nonzero(input: Tensor, *, out: Tensor = None, as_tuple: bool = False):
    """Where the tensor is not zero: one row of indices per such element (an N x ndim int64
    tensor), or with as_tuple=True one index tensor per dim, as `x[x.nonzero(as_tuple=True)]`
    wants them (a 0-d tensor counts as one element there)."""
    values = input._data
    if as_tuple:
        return tuple(Tensor._make(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(values)))
    if values.ndim == 0:
        return Tensor._make(np.zeros((int(values != 0), 0), dtype=np.int64))
    return Tensor._make(np.argwhere(values).astype(np.int64))


# -- writing --------------------------------------------------------------------------------------
def _value_to_write(x, value):
    """The value of `x[index] = value` as PyTorch takes it, or its error: a tensor or a number
    that fits x's dtype (a complex number only into a bool tensor; a NumPy scalar only where it
    is a Python float or reads as an index)."""
    if isinstance(value, complex):
        if x._data.dtype != bool:
            name = messages.C_SCALAR_NAMES[x._data.dtype.name]
            raise RuntimeError(messages.COMPLEX_VALUE.format(type_name=name))
        return bool(value)
    if not isinstance(value, OPERAND_TYPES) or isinstance(value, np.generic) \
            and not isinstance(value, (np.integer, float)):  # (np.complex64, np.float32, np.bool_)
        raise TypeError(f"can't assign a {type_name(value)} to a {x.type()}")
    if isinstance(value, np.unsignedinteger) and value >= 2 ** 63:  # (read as a long long)
        raise ValueError(messages.INT_OVERFLOW)
    inplace.check_scalar_fits(x, value)
    return value


def setitem(x, index, value):
    """`x[index] = value`, checked in PyTorch's order: the value, the index, the value's shape,
    the in-place rules, and (for index_put) the value's dtype."""
    value = _value_to_write(x, value)  # PyTorch converts the value first, then reads the index
    if type(index) is np.ndarray and index.dtype == np.uint8 and (
            not isinstance(value, Tensor) or value._data.size == 1):  # x[byte_mask] = 0: PyTorch's
        _check_mask(index)                                          # masked_fill_, bool masks only
    if x._data.ndim == 0:
        _check_index_of_0_dim(index)
    numpy_index, kind = to_numpy_index(index)
    _check_bounds(x, numpy_index, check_arrays=kind != "advanced")  # (index_put: after dtypes)

    def compute():
        if kind == "advanced":  # index_put: after the in-place rules, the dtypes, then the indices
            if isinstance(value, Tensor) and value.dtype is not x.dtype:
                raise RuntimeError(messages.INDEX_PUT_DTYPES.format(
                    destination=x.dtype.scalar_name, source=value.dtype.scalar_name))
            _check_bounds(x, numpy_index)
        data = x._data.copy()
        values = value._data if isinstance(value, Tensor) else value
        if kind == "advanced" and isinstance(value, Tensor):
            values = _fitted_to_places(value, np.shape(data[numpy_index]))
        try:
            data[numpy_index] = values
        except ValueError:  # the value does not broadcast to the indexed places: expand says so
            expand(value, np.shape(data[numpy_index]))
            raise
        if kind == "advanced":
            return record(IndexPutBackward0, data, (x, value), saved={"index": numpy_index})
        # PyTorch copies a value of the places' shape (copy_: an int tensor records nothing)
        # and fills them with a 0-d one (fill_: recorded whatever the dtype)
        fills = isinstance(value, Tensor) and not value._data.ndim and np.ndim(data[numpy_index])
        return record(CopySlices, data, (x, value), saved={"index": numpy_index},
                      any_dtype=bool(fills))

    if kind != "advanced":  # PyTorch copies into a view: the value's shape first, then whether
        if isinstance(value, Tensor):  # the view may be written (`x[:]`, `x[...]`: x itself)
            _check_fits(value, np.shape(x._data[numpy_index]))
        inplace.check_allowed(x, leaf_message=messages.LEAF_IN_PLACE if _is_whole(index)
                              else messages.VIEW_OF_LEAF_IN_PLACE)
        return inplace.apply(x, compute, (value,), written=x._data[numpy_index])  # (a view)
    return inplace.apply(x, compute, (value,))


def _check_fits(value, target):
    """The value broadcasts to the indexed places; else expand's error, in PyTorch's words."""
    if _shape_for_places(value, target) is None:
        expand(value, target)


def _fitted_to_places(value, target):
    """index_put's value as it is written (`x[mask] = torch.tensor([[7.]])` writes 7 everywhere
    the mask holds), or index_put's refusal when it does not broadcast to the places."""
    shape = _shape_for_places(value, target)
    if shape is None:
        raise RuntimeError(messages.INDEX_PUT_SHAPES.format(value=list(value._data.shape),
                                                            places=list(target)))
    return value._data.reshape(shape)


def _shape_for_places(value, target):
    """The value's shape without the leading 1s NumPy and PyTorch drop, if it then broadcasts to
    the indexed places (None if it does not)."""
    shape = value._data.shape
    while len(shape) > len(target) and shape[0] == 1:
        shape = shape[1:]
    try:
        return shape if np.broadcast_shapes(shape, target) == tuple(target) else None
    except ValueError:
        return None


def _is_whole(index):
    """`x[:]` or `x[...]`: PyTorch's indexing gives x itself, not a view of it."""
    return index is Ellipsis or index == slice(None) if not isinstance(index, Tensor) else False


def _check_index_of_0_dim(index):
    """Indexing a 0-d tensor, to read or to write, refused as PyTorch refuses it, by the index
    alone: a single int 0 (or NumPy int) is "invalid index of a 0-dim tensor" (use item()),
    any other single int is out of bounds of a dim of size 0, a single slice "cannot be
    applied", and anything else that would take a dim (an int or slice inside a tuple, a
    tensor, a list, a NumPy bool, even a str or a float) is "too many indices", before any
    check of its type. None, `...` and a Python bool take none."""
    if isinstance(index, (int, np.integer)) and not isinstance(index, (bool, np.bool_)):
        if index == 0:
            raise IndexError(messages.INDEX_OF_0_DIM)
        if not -2 ** 63 <= index < 2 ** 63:  # (read as a C long long first)
            raise ValueError(messages.INT_OVERFLOW)
        raise IndexError(f"index {index} is out of bounds for dimension 0 with size 0")
    if isinstance(index, slice):
        if not all(_is_slice_index(bound) for bound in (index.start, index.stop)):
            raise TypeError(messages.SLICE_INDICES)  # (Python's words: its bounds are read first,
        to_numpy_index(index)  # then its step: "step must be greater than zero")
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    for item in index if isinstance(index, tuple) else (index,):
        if isinstance(item, Tensor) and item.dtype is dtypes.bool_ and not item._data.ndim:
            continue  # (a 0-d mask)
        if not (item is None or item is Ellipsis or type(item) is bool):  # (np.bool_ takes one)
            raise IndexError("too many indices for tensor of dimension 0")


# -- writing where a mask holds -------------------------------------------------------------------
@overload
def masked_fill(input: Tensor, mask: Tensor, value: Tensor): ...
@overload
def masked_fill(input: Tensor, mask: Tensor, value: Number): ...
@declared
def masked_fill(input, mask, value):
    """`value` where the bool `mask` holds, `input` elsewhere (mask and input broadcast together).
    The value takes the input's dtype, as a cast does (2.5 into an int64 tensor is 2), and must
    fit it; a tensor value must be 0-d, and gets a gradient (MaskedFillBackward1). PyTorch's
    order of checks: the shapes, the value's dims, the mask's dtype, the value's range."""
    _broadcast_mask(input, mask)
    number = _fill_number(value)
    _check_mask(mask)
    return _masked_fill(input, mask, value, number)


def _masked_fill(input, mask, value, number):
    """masked_fill once its arguments are checked (masked_fill_ checks them in its own order)."""
    dtype = input._data.dtype
    check_value_fits(number, dtype)  # (nan into int64, 1e39 into float32)
    data = np.where(mask._data, np.asarray(number).astype(dtype), input._data)
    if dtype.kind != "f":  # integer and bool tensors never require grad
        if isinstance(value, Tensor) and value.requires_grad:
            raise RuntimeError(messages.AUTOGRAD_DTYPE.format(dtype=input.dtype.scalar_name))
        return Tensor._make(data)
    if isinstance(value, Tensor):
        return record(MaskedFillBackward1, data, (input, value), saved={"mask": mask})
    return record(MaskedFillBackward0, data, (input,), saved={"mask": mask})


@overload
def masked_fill_(input: Tensor, mask: Tensor, value: Tensor): ...
@overload
def masked_fill_(input: Tensor, mask: Tensor, value: Number): ...
@declared
def masked_fill_(input, mask, value):
    """masked_fill, written into `input`: the mask may not make it grow (checked before the
    value's range, as PyTorch does, and after the mask's dtype)."""
    def compute():
        number = _fill_number(value)
        _check_mask(mask)
        shape = _broadcast_mask(input, mask)
        if shape != input._data.shape:
            raise inplace._cannot_grow(input, shape)
        return _masked_fill(input, mask, value, number)

    return inplace.apply(input, compute, (mask, value))


def _fill_number(value):
    """The number a masked_fill writes: a Number, or the one element of a 0-d tensor."""
    if not isinstance(value, Tensor):
        return value
    if value._data.ndim:
        raise RuntimeError(messages.MASKED_FILL_VALUE.format(ndim=value._data.ndim))
    return value._data.item()


def _broadcast_mask(input, mask):
    try:
        return np.broadcast_shapes(mask._data.shape, input._data.shape)
    except ValueError:
        raise RuntimeError(broadcast_error(mask._data.shape, input._data.shape)) from None


def _check_mask(mask):
    """A mask (a tensor, or the NumPy array of `x[array] = 0`) must be bool."""
    data = mask._data if isinstance(mask, Tensor) else mask
    if data.dtype != np.bool_:
        raise RuntimeError(messages.MASKED_FILL_MASK.format(
            c_type=messages.C_TYPE_NAMES[data.dtype.name]))
