"""Indexing: reading `t[index]` and writing `t[index] = value`.

Reading picks some elements; its derivative puts the gradient back where those elements came
from, into zeros elsewhere (`IndexBackwardBackward0`-style scatter, itself differentiable).
Writing replaces some elements; the old values there get no gradient, and the new value gets
the gradient of the places it was written to (PyTorch's CopySlices node).
"""

import numpy as np

from .. import dtypes
from ..arguments import checked
from ..autograd import messages
from ..tensor import Tensor, _normalize_dim
from . import inplace
from ..derivatives import (CopySlices, IndexBackward0, IndexPutBackward0,
                           IndexUnsqueezeBackward0, SelectBackward0, SliceBackward0)
from .base import record
from .shape import as_view


def to_numpy_index(index):
    """Translate a tensorgrad index into a NumPy one, and say which kind of indexing it is.

    Returns (numpy_index, kind): kind is "advanced" (integer arrays or masks: the result is a
    copy), "select" (an integer removes a dim), "slice" or "unsqueeze" (None adds a dim).
    """
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
            converted.append(array)
            kinds.add("advanced")
        elif isinstance(item, (bool, np.bool_)):
            converted.append(item)
            kinds.add("advanced")
        elif isinstance(item, (int, np.integer)):
            converted.append(int(item))
            kinds.add("select")
        elif item is None:
            converted.append(None)
            kinds.add("unsqueeze")
        elif isinstance(item, slice) or item is Ellipsis:
            converted.append(item)
            kinds.add("slice")
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                f"valid indices (got {type(item).__name__})"
            )
    for kind in ("advanced", "select", "slice", "unsqueeze"):
        if kind in kinds:
            break
    else:
        kind = "slice"
    numpy_index = tuple(converted) if isinstance(index, tuple) else converted[0]
    return numpy_index, kind


def _check_bounds(x, numpy_index):
    items = numpy_index if isinstance(numpy_index, tuple) else (numpy_index,)
    dim = 0
    for item in items:
        if item is Ellipsis:
            dim = x._data.ndim - sum(1 for i in items if i is not None and i is not Ellipsis)
            continue
        if item is None:
            continue
        if isinstance(item, int):
            if dim >= x._data.ndim:
                raise IndexError(f"too many indices for tensor of dimension {x._data.ndim}")
            size = x._data.shape[dim]
            if not -size <= item < size:
                raise IndexError(
                    f"index {item} is out of bounds for dimension {dim} with size {size}")
        dim += 1


# -- reading ----------------------------------------------------------------------------------
_NODE_FOR_KIND = {
    "select": SelectBackward0,
    "slice": SliceBackward0,
    "advanced": IndexBackward0,
    "unsqueeze": IndexUnsqueezeBackward0,
}


def getitem(x, index):
    if isinstance(index, str):  # PyTorch tries to make a tensor of it
        raise TypeError(messages.INVALID_DATA_TYPE.format(type_name="str"))
    numpy_index, kind = to_numpy_index(index)
    _check_bounds(x, numpy_index)
    try:
        data = x._data[numpy_index]
        if kind != "advanced" and not isinstance(data, np.ndarray):
            # x[1] of a vector: NumPy gives a copied scalar; an Ellipsis at the end gives a 0-d
            # view instead, so that x[1].add_(1) changes x, as in PyTorch
            as_tuple = numpy_index if isinstance(numpy_index, tuple) else (numpy_index,)
            data = x._data[as_tuple + (Ellipsis,)]
    except IndexError as error:
        raise IndexError(str(error)) from None
    if kind == "advanced":
        return record(IndexBackward0, data, (x,), saved=(numpy_index,),
                      self_sym_sizes=x._data.shape)
    result = record(_NODE_FOR_KIND[kind], data, (x,), index=numpy_index,
                    self_sym_sizes=x._data.shape)
    return as_view(result, x)


@checked
def select(input: Tensor, dim: int, index: int):
    """x[..., index, ...] at position `dim`: removes that dim."""
    d = _normalize_dim(dim, input._data.ndim)
    size = input._data.shape[d] if input._data.ndim else None  # (a 0-d tensor: getitem's error)
    if size is not None and not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input._data.shape)} at dimension {d}")
    return getitem(input, (slice(None),) * d + (index,))


# -- writing --------------------------------------------------------------------------------------
def setitem(x, index, value):
    numpy_index, kind = to_numpy_index(index)
    _check_bounds(x, numpy_index)
    view_message = kind != "advanced"  # PyTorch writes through a view for basic indexing

    def compute():
        data = x._data.copy()
        values = value._data if isinstance(value, Tensor) else value
        try:
            data[numpy_index] = values
        except ValueError:
            target = np.shape(data[numpy_index])
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(np.shape(values))} cannot be "
                f"broadcast to indexing result of shape {list(target)}"
            ) from None
        node = IndexPutBackward0 if kind == "advanced" else CopySlices
        return record(node, data, (x, value), saved=(numpy_index,))

    if view_message:
        inplace.check_allowed(x, leaf_message=messages.VIEW_OF_LEAF_IN_PLACE)
    return inplace.apply(x, compute, (value,))
