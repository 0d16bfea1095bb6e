"""Reductions: operations that combine many values into fewer.

The derivative of a reduction sends the incoming gradient back to every input element that
contributed: `sum` copies it to all of them, `mean` divides it by the count, `max` gives it to
the winner. The gradient arrives with the *reduced* shape, so each rule first puts back the
reduced dimensions (derivatives.py: `restore_dims`) and then lets broadcasting spread it out.
"""

import warnings

import numpy as np

from .. import dtypes
from ..arguments import Dtype, Ints, Number, Tensors, converted, declare, declared, overload
from ..arguments import type_name as arguments_type_name
from ..autograd import messages
from ..core.grad_mode import is_grad_enabled
from ..core.tensor import Tensor, _normalize_dim
from . import elementwise as ew
from ..derivatives import (AmaxBackward0, AminBackward0, CumsumBackward0, GatherBackward0,
                           LinalgVectorNormBackward0, LogSoftmaxBackward0, LogsumexpBackward0,
                           MaxBackward0, MaxBackward1, MeanBackward0, MeanBackward1, MinBackward0,
                           MinBackward1, ProdBackward0, ProdBackward1, SoftmaxBackward0,
                           SortBackward0, SortBackward1, StdBackward0, SumBackward0, SumBackward1,
                           VarBackward0)
from ..core.record import OUTPUT, record
from .shape import _shape_arg, view_of


def normalize_dims(dim, ndim):
    """`dim` as a sorted tuple of non-negative dims; None (or an empty list) means all of them.

    A 0-d tensor accepts dim 0 or -1, as in PyTorch; there is no axis to reduce, so: ().
    """
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = _normalize_dim(int(dim), ndim)  # checked on a 0-d tensor too: 0 or -1
        return (dim,) if ndim else ()
    dims = tuple(sorted(_normalize_dim(int(d), ndim) for d in dim))
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    return dims if ndim else ()


def check_differentiable_dtype(input, dtype):  # noqa: A002
    """A result asked for in an integer or bool dtype (`w.sum(dtype=int64)`) of an input that
    requires grad, while grad mode records: refused, as PyTorch's autograd refuses to give a
    node to a result it cannot differentiate (it would have no gradient to pass back)."""
    if (dtype is not None and not dtypes.check_dtype(dtype).is_floating_point
            and input.requires_grad and is_grad_enabled()):
        raise RuntimeError(messages.AUTOGRAD_DTYPE.format(dtype=dtypes.check_dtype(dtype).scalar_name))


def _sum_dtype(x):
    # Summing bools or ints gives int64, as in PyTorch.
    return x._data.dtype if x._data.dtype.kind == "f" else np.int64


# -- sum and mean ---------------------------------------------------------------------------
@overload
def sum(input: Tensor, *, dtype: Dtype = None): ...  # noqa: A001
@overload
def sum(input: Tensor, dim: int | Ints | None, keepdim: bool = False, *,  # noqa: A001
        dtype: Dtype = None, out: Tensor = None): ...
@declared
def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    check_differentiable_dtype(input, dtype)
    sum_dtype = _sum_dtype(input) if dtype is None else dtype.numpy
    if dim is None and not keepdim:  # (keepdim=True: dim=None is every dim, kept)
        data = np.add.reduce(input._data, axis=None, dtype=sum_dtype)
        return record(SumBackward0, data, (input,), self_sym_sizes=input._data.shape)
    return _sum_over(input, normalize_dims(dim, input._data.ndim), keepdim, sum_dtype)


def _sum_over(input, dims, keepdim, sum_dtype):  # noqa: A002
    """sum's computation over `dims`, a sorted tuple of dims that exist (SumBackward1)."""
    data = np.add.reduce(input._data, axis=dims, keepdims=keepdim, dtype=sum_dtype)
    return record(SumBackward1, data, (input,), dim=dims, keepdim=keepdim,
                  self_sym_sizes=input._data.shape)


@declared
def sum_to_size(input: Tensor, *size: Ints):
    """Sum a tensor down to `size`, a shape that broadcasting stretches to the tensor's
    (PyTorch's `Tensor.sum_to_size`): checked here, summed by `sum_to`."""
    shape = _shape_arg(size)
    sizes = input._data.shape
    if not _is_expandable_to(shape, sizes):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(sizes)}}}.")
    return sum_to(input, shape)


def sum_to(input, shape):  # noqa: A002
    """Sum a tensor down to `shape` (a tuple of ints that broadcasting stretches to the tensor's
    shape): one sum, with keepdim, over the dims broadcasting put in front or repeated, then a
    view without those in front (PyTorch's `sum_to`). The engine undoes broadcasting with it
    (core/engine.py: fit_gradient), so the graph create_graph=True records is PyTorch's; its
    shapes are the graph's own, right by construction, so nothing here checks them again."""
    sizes = input._data.shape
    if not shape:
        return sum(input)
    extra = len(shape) - len(sizes)  # leading 1s a write dropped from its value (`x[:2] = v`, v
    dims = broadcast_dims(shape[extra:] if extra > 0 else shape, sizes)  # of shape [1, 2])
    summed = _sum_over(input, dims, True, _sum_dtype(input)) if dims else input
    return view_of(summed, summed._data.reshape(shape)) if summed._data.shape != shape else summed


def broadcast_dims(shape, sizes):
    """The dims along which broadcasting stretched `shape` to `sizes`: those it put in front,
    and those it repeated from 1."""
    leading = len(sizes) - len(shape)
    return (*range(leading), *(leading + i for i, want in enumerate(shape)
                               if want == 1 and sizes[leading + i] != 1))


def _is_expandable_to(shape, sizes):
    """Can broadcasting stretch `shape` to `sizes`? (PyTorch's is_expandable_to)"""
    if len(shape) > len(sizes):
        return False
    for want, have in zip(reversed(shape), reversed(sizes)):
        if want != 1 and want != have:
            return False
    return True


@overload
def mean(input: Tensor, *, dtype: Dtype = None, out: Tensor = None): ...
@overload
def mean(input: Tensor, dim: int | Ints | None, keepdim: bool = False, *, dtype: Dtype = None,
         out: Tensor = None): ...
@declared
def mean(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None and not dtypes.check_dtype(dtype).is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either a floating point "
            f"or complex dtype. Got: {dtypes.check_dtype(dtype).scalar_name}")
    if not input.dtype.is_floating_point and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {input.dtype.scalar_name}"
        )
    values = input._data if dtype is None else input._data.astype(dtype.numpy)
    if dim is None and not keepdim:  # (keepdim=True: dim=None is every dim, kept)
        data = np.add.reduce(values, axis=None) / values.size  # np.mean, without its Python layers
        return record(MeanBackward0, data, (input,), self_sym_sizes=input._data.shape,
                      self_sym_numel=input._data.size)
    dims = normalize_dims(dim, input._data.ndim)
    count = int(np.prod([input._data.shape[d] for d in dims])) if input._data.ndim else 1
    with np.errstate(divide="ignore", invalid="ignore"):  # (an empty mean is nan, silently)
        data = np.asarray(np.add.reduce(values, axis=dims, keepdims=keepdim) / count,
                          dtype=values.dtype)
    return record(MeanBackward1, data, (input,), dim=dims, keepdim=keepdim,
                  self_sym_sizes=input._data.shape, count=count)



# -- max and min ----------------------------------------------------------------------------
class _ReturnTypeBase(tuple):
    """`(values, indices)` that also has `.values` and `.indices`, printed like PyTorch's."""

    __slots__ = ()
    _name = None

    def __new__(cls, values, indices):
        return super().__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return (f"tensorgrad.return_types.{self._name}(\nvalues={self[0]!r},\n"
                f"indices={self[1]!r})")


class max_return(_ReturnTypeBase):
    __slots__ = ()
    _name = "max"


class min_return(_ReturnTypeBase):
    __slots__ = ()
    _name = "min"


def check_something_to_compare(x, dims, name, whole_error=RuntimeError):
    """max, min, amax, amin, argmax, argmin of a tensor with no elements: PyTorch refuses when
    no dim is given, or when a reduced dim is empty (there is nothing to pick)."""
    if x._data.size:
        return
    if dims is None:
        raise whole_error(messages.EMPTY_REDUCTION[whole_error].format(name=name))
    for d in (dims,) if isinstance(dims, int) else dims:
        if x._data.ndim and x._data.shape[d] == 0:
            raise IndexError(messages.EMPTY_REDUCTION_DIM.format(name=name, dim=d))


def _extreme(x, dim, keepdim, numpy_reduce, numpy_arg, whole_node, dim_node, result_type, name):
    if dim is None:
        check_something_to_compare(x, None, name)
        data = numpy_reduce(x._data)
        return record(whole_node, data, (x,), saved={"self": x, "result": OUTPUT})
    d = _normalize_dim(dim, x._data.ndim)
    axis = d if x._data.ndim else None
    check_something_to_compare(x, d, name)
    if x._data.size == 0:  # an empty result: nothing to compare along a non-empty dim
        shape = list(x._data.shape)
        shape[d:d + 1] = [1] if keepdim else []
        indices = np.zeros(shape, np.int64)
        data = np.zeros(shape, x._data.dtype)
    else:
        indices = numpy_arg(x._data, axis=axis, keepdims=keepdim).astype(np.int64)
        data = numpy_reduce(x._data, axis=axis, keepdims=keepdim)
    index_tensor = Tensor._make(indices)
    values = record(dim_node, data, (x,), saved={"indices": index_tensor}, dim=d, keepdim=keepdim,
                    self_sym_sizes=x._data.shape)
    return result_type(values, index_tensor)


@overload
def max(input: Tensor, *, out: Tensor = None): ...  # noqa: A001
@overload
def max(input: Tensor, other: Tensor, *, out: Tensor = None): ...  # noqa: A001
@overload
def max(input: Tensor, dim: int, keepdim: bool = False, *, out: Tensors = None): ...  # noqa: A001
@declared
def max(input, dim=None, keepdim=False):  # noqa: A001
    if isinstance(dim, Tensor):
        return ew.maximum(input, dim)
    return _extreme(input, dim, keepdim, np.max, np.argmax, MaxBackward1, MaxBackward0, max_return, "max")


@declared(like=max)
def min(input, dim=None, keepdim=False):  # noqa: A001
    if isinstance(dim, Tensor):
        return ew.minimum(input, dim)
    return _extreme(input, dim, keepdim, np.min, np.argmin, MinBackward1, MinBackward0, min_return, "min")


# -- sorting -------------------------------------------------------------------------------------
class sort_return(_ReturnTypeBase):
    __slots__ = ()
    _name = "sort"


@overload
def sort(input: Tensor, *, stable: bool | None, dim: int = -1, descending: bool = False,
         out: Tensors = None): ...
@overload
def sort(input: Tensor, dim: int = -1, descending: bool = False, *, out: Tensors = None): ...
@declared
def sort(input, dim=-1, descending=False, *, stable=None):
    """The values along `dim` in order, and where each came from: (values, indices). Equal
    values keep their order (PyTorch's CPU sort is stable either way), nan sorts as the
    largest; the gradient goes back through the indices (SortBackward0)."""
    d = _normalize_dim(dim, input._data.ndim)
    indices = _sorted_indices(input._data, d, descending)
    values = np.take_along_axis(input._data, indices, axis=d) if input._data.ndim else \
        input._data.copy()
    index_tensor = Tensor._make(indices)
    node = SortBackward0 if stable is None else SortBackward1
    values = record(node, values, (input,), saved={"indices": index_tensor}, dim=d,
                    self_sym_sizes=input._data.shape)
    return sort_return(values, index_tensor)


@overload
def argsort(input: Tensor, *, stable: bool, dim: int = -1, descending: bool = False,
            out: Tensor = None): ...
@overload
def argsort(input: Tensor, dim: int = -1, descending: bool = False): ...
@declared
def argsort(input, dim=-1, descending=False, *, stable=False):
    """sort's indices alone."""
    return Tensor._make(_sorted_indices(input._data, _normalize_dim(dim, input._data.ndim),
                                        descending))


def _sorted_indices(values, dim, descending):
    """A stable sort's indices along `dim` (int64). Descending: the stable ascending order of
    the array read backwards, read backwards again, so equal values keep their order."""
    if values.ndim == 0:
        return np.zeros((), dtype=np.int64)
    if not descending:
        return np.argsort(values, axis=dim, kind="stable").astype(np.int64)
    backwards = np.argsort(np.flip(values, dim), axis=dim, kind="stable")
    return (values.shape[dim] - 1 - np.flip(backwards, dim)).astype(np.int64)


@declared
def amax(input: Tensor, dim: int | Ints | None = (), keepdim: bool = False, *,
         out: Tensor = None):
    dims = normalize_dims(None if dim == () else dim, input._data.ndim)
    check_something_to_compare(input, None if dim in ((), None) else dims, "amax")
    data = np.max(input._data, axis=dims, keepdims=keepdim)
    return record(AmaxBackward0, data, (input,),
                  saved={"self": input, "result": OUTPUT}, dim=dims, keepdim=keepdim,
                  self_sym_sizes=input._data.shape)


@declared
def amin(input: Tensor, dim: int | Ints | None = (), keepdim: bool = False, *,
         out: Tensor = None):
    dims = normalize_dims(None if dim == () else dim, input._data.ndim)
    check_something_to_compare(input, None if dim in ((), None) else dims, "amin")
    data = np.min(input._data, axis=dims, keepdims=keepdim)
    return record(AminBackward0, data, (input,),
                  saved={"self": input, "result": OUTPUT}, dim=dims, keepdim=keepdim,
                  self_sym_sizes=input._data.shape)


@declared
def argmax(input: Tensor, dim: int = None, keepdim: bool = False, *, out: Tensor = None):
    refuse_bool(input, "argmax")
    check_something_to_compare(input, None if dim is None else _normalize_dim(dim, input._data.ndim),
                               "argmax", whole_error=IndexError)
    if dim is None:  # (the index into the flattened tensor; keepdim: in every dim, kept)
        index = np.int64(np.argmax(input._data))
        return Tensor._make(np.full((1,) * input._data.ndim, index) if keepdim else index)
    return Tensor._make(np.argmax(input._data, axis=_normalize_dim(dim, input._data.ndim),
                                  keepdims=keepdim).astype(np.int64))


def all_or_any(reduce, x, dim, keepdim):
    """t.all() and t.any(), over everything or along dims (bool results, no gradient). No dims
    (`dim=()`) reduce nothing here, as in PyTorch (unlike sum's `dim=()`, which is every dim)."""
    if dim is None and not keepdim:  # (keepdim=True: dim=None is every dim, kept)
        return Tensor._make(np.asarray(reduce(x._data)))
    if isinstance(dim, (tuple, list)) and not dim:
        return Tensor._make(x._data.astype(np.bool_))
    dims = normalize_dims(dim, x._data.ndim)
    return Tensor._make(np.asarray(reduce(x._data, axis=dims, keepdims=keepdim)))


def refuse_bool(x, name):
    if x._data.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")


@declared
def argmin(input: Tensor, dim: int = None, keepdim: bool = False, *, out: Tensor = None):
    refuse_bool(input, "argmin")
    check_something_to_compare(input, None if dim is None else _normalize_dim(dim, input._data.ndim),
                               "argmin", whole_error=IndexError)
    if dim is None:  # (the index into the flattened tensor; keepdim: in every dim, kept)
        index = np.int64(np.argmin(input._data))
        return Tensor._make(np.full((1,) * input._data.ndim, index) if keepdim else index)
    return Tensor._make(np.argmin(input._data, axis=_normalize_dim(dim, input._data.ndim),
                                  keepdims=keepdim).astype(np.int64))


# -- gather ----------------------------------------------------------------------------------
@declared
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False,
           out: Tensor = None):
    """Pick elements along `dim` at `index` (torch.gather)."""
    if index._data.dtype != np.int64:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    d = _normalize_dim(dim, input._data.ndim)
    _check_gather_index(input, d, index)
    # The index may be smaller than x in the other dims: only that corner of x is read. A 0-d
    # input or index reads as one element along dim; the result has the index's shape.
    positions = np.atleast_1d(index._data)
    corner = tuple(slice(None) if i == d else slice(0, n) for i, n in enumerate(positions.shape))
    data = np.take_along_axis(np.atleast_1d(input._data)[corner], positions, axis=d)
    data = data.reshape(index._data.shape)
    return record(GatherBackward0, data, (input,),
                  saved={"index": index}, dim=d, self_sym_sizes=input._data.shape)


def _check_gather_index(x, d, index):
    """PyTorch's rules and messages for gather's index."""
    if (index._data.ndim or 1) != (x._data.ndim or 1):  # (`max` is this module's reduction)
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for i, (n_index, n_x) in enumerate(zip(index._data.shape, x._data.shape)):
        if i != d and n_index > n_x:
            raise RuntimeError(
                f"Size does not match at dimension {i} expected index {list(index._data.shape)} "
                f"to be no larger than self {list(x._data.shape)} apart from dimension {d}")
    size = x._data.shape[d] if x._data.ndim else 1
    bad = index._data[(index._data < 0) | (index._data >= size)]
    if bad.size:
        raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {d} with size {size}")


# -- prod, var, norm ----------------------------------------------------------------------
@overload
def prod(input: Tensor, *, dtype: Dtype = None): ...
@overload
def prod(input: Tensor, dim: int, keepdim: bool = False, *, dtype: Dtype = None, out: Tensor = None): ...
@declared
def prod(input, dim=None, keepdim=False, *, dtype=None):
    check_differentiable_dtype(input, dtype)
    if dtype is not None:
        input = input.to(dtype)  # noqa: A001
    # (a product of bools is int64, as a sum, unless dtype=bool asks for a bool: then it is `all`)
    product_dtype = np.bool_ if dtype is dtypes.bool_ else _sum_dtype(input)
    if dim is None:
        data = np.prod(input._data, dtype=product_dtype)
        dims = tuple(range(input._data.ndim))
        return record(ProdBackward0, data, (input,),
                      saved={"self": input, "result": OUTPUT}, dim=dims, keepdim=False,
                      self_sym_sizes=input._data.shape)
    dims = normalize_dims(dim, input._data.ndim)
    data = np.prod(input._data, axis=dims, keepdims=keepdim, dtype=product_dtype)
    return record(ProdBackward1, data, (input,),
                  saved={"self": input, "result": OUTPUT}, dim=dims, keepdim=keepdim,
                  self_sym_sizes=input._data.shape)


def _correction(dim, unbiased, correction):
    """Bessel's correction for var and std, and the dims: given directly, or 1 unless
    unbiased=False. A bool where dim goes is the (input, unbiased) overload's `unbiased` (the
    parser accepts no bool as a dim): `x.std(False)`, `x.var(unbiased=True)`."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _require_floating_point(x):
    if not x.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")


@overload
def var(input: Tensor, dim: int | Ints, unbiased: bool = True, keepdim: bool = False, *,
        out: Tensor = None): ...
@overload
def var(input: Tensor, dim: int | Ints = None, *, correction: Number = None, keepdim: bool = False,
        out: Tensor = None): ...
@overload
def var(input: Tensor, unbiased: bool = True): ...
@declared
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _require_floating_point(input)
    dim, correction = _correction(dim, unbiased, correction)
    dims = normalize_dims(dim, input._data.ndim)
    data = _variance(input._data, dims, correction, keepdim, "var")
    return record(VarBackward0, data, (input,), saved={"self": input}, dim=dims, keepdim=keepdim,
                  correction=correction, self_sym_sizes=input._data.shape,
                  whole=dim is None or input._data.ndim == 0)


def _variance(values, dims, correction, keepdim, name):
    """Σ(x - mean)² / (N - correction) over `dims`, as np.var computes it, but with PyTorch's
    warning where N - correction <= 0 (the result is then inf or nan), not NumPy's."""
    count = int(np.prod([values.shape[d] for d in dims])) if values.ndim else 1
    if (count if values.size else 0) - correction <= 0:  # (PyTorch's factor: numel in / out)
        warnings.warn(messages.DEGREES_OF_FREEDOM.format(name=name), UserWarning, stacklevel=4)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.add.reduce(values, axis=dims, keepdims=True) / values.dtype.type(count)
        squares = np.add.reduce(np.square(values - mean), axis=dims, keepdims=keepdim)
        degrees = count - correction if count > correction else 0  # (`max` is the op here)
        return np.asarray(squares / values.dtype.type(degrees), dtype=values.dtype)


@declared(like=var)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    _require_floating_point(input)
    dim, correction = _correction(dim, unbiased, correction)
    dims = normalize_dims(dim, input._data.ndim)
    data = np.sqrt(_variance(input._data, dims, correction, keepdim, "std"))
    return record(StdBackward0, data, (input,),
                  saved={"self": input, "result": OUTPUT}, dim=dims, keepdim=keepdim,
                  correction=correction, self_sym_sizes=input._data.shape,
                  whole=dim is None or input._data.ndim == 0)


def linalg_vector_norm(input: Tensor, ord: Number = 2, dim: int | Ints | None = None,
                       keepdim: bool = False, *, dtype: Dtype = None, out: Tensor = None):
    """PyTorch's torch.linalg.vector_norm, as declared: norm's calls are checked against it."""


_LINALG_VECTOR_NORM = declare(linalg_vector_norm)


@declared(python=True)  # (torch.norm is written in Python; linalg_vector_norm checks the rest)
def norm(input: Tensor, p: object = "fro", dim: object = None, keepdim: object = False,  # noqa: A002
         *, dtype: object = None):
    if isinstance(p, str) and p != "fro":
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if isinstance(p, str) or p is None:
        p = 2
    if isinstance(dim, int):
        dim = [dim]  # (as torch.norm passes it on: one dim as a list of one)
    elif isinstance(dim, Tensor) and dim.dim():
        dim = dim.tolist()  # (a tensor of dims: torch.norm passes it on, read as ints)
    elif isinstance(dim, Tensor):
        raise TypeError(messages.LEN_OF_0D)
    elif isinstance(dim, np.ndarray) and not dim.ndim:  # (torch.norm takes its len(): NumPy's
        raise TypeError(messages.LEN_OF_UNSIZED)           # words; a str passes to the parser)
    elif dim is not None and not isinstance(dim, (list, tuple, str, np.ndarray)):
        raise TypeError(messages.NO_LEN.format(type_name=arguments_type_name(dim)))
    # (checked, and p taken, as linalg_vector_norm's Scalar ord: a 0-d tensor as its number;
    # Python's `complex` is a dtype to PyTorch, one tensorgrad has not: refused below)
    complex_dtype = dtype is complex
    _, p, dim, keepdim = converted(_LINALG_VECTOR_NORM.match((input, p, dim, keepdim)),
                                   (input, p, dim, keepdim), {})[0]
    if dtype is not None and not complex_dtype:
        dtype = converted(_LINALG_VECTOR_NORM.match((input,), {"dtype": dtype}), (input,),
                          {"dtype": dtype})[1]["dtype"]
    if not input.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {input.dtype.scalar_name}")
    if complex_dtype:
        raise RuntimeError("linalg.vector_norm: dtype should be real for real inputs, but got "
                           "ComplexDouble")
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: dtype should be floating point or complex, but "
                           f"got {dtype.scalar_name}")
    if dtype is not None and dtype is not input.dtype:
        input = input.to(dtype)  # noqa: A001  (PyTorch computes in the dtype asked for)
    _check_empty_norm(input, p, dim)
    dims = normalize_dims(dim, input._data.ndim)
    values = np.abs(input._data)
    if p == float("inf"):
        data = np.max(values, axis=dims, keepdims=keepdim)
    elif p == -float("inf"):  # (the smallest magnitude: a power of -inf would give 1)
        data = np.min(values, axis=dims, keepdims=keepdim)
    elif p == 0:  # (the count of non-zero values)
        data = np.sum(values != 0, axis=dims, keepdims=keepdim)
    elif p == 2:
        data = np.sqrt(np.sum(values * values, axis=dims, keepdims=keepdim))
    else:
        data = np.sum(values ** p, axis=dims, keepdims=keepdim) ** (1.0 / p)
    data = np.asarray(data, dtype=input._data.dtype)
    return record(LinalgVectorNormBackward0, data, (input,),
                  saved={"self": input, "result": OUTPUT}, ord=p, dim=dims,
                  keepdim=keepdim, self_sym_sizes=input._data.shape)


def _check_empty_norm(input, p, dim):
    """A negative or infinite order has no value over no elements (the minimum or maximum of
    nothing): PyTorch refuses it, where NumPy would give inf or fail in its own words."""
    if not (p < 0 or p == float("inf")) or input._data.size:
        return
    order = int(p) if isinstance(p, float) and p.is_integer() else p
    shape = input._data.shape
    if dim is None or not shape:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {order} norm on an empty "
                           "tensor because the operation does not have an identity")
    for d in normalize_dims(dim, len(shape)):
        if shape[d] == 0:  # (PyTorch's text lacks the space before "because")
            raise RuntimeError(f"linalg.vector_norm cannot compute the {order} norm on the "
                               f"dimension {d}because this dimension is empty and the operation "
                               "does not have an identity")


# -- softmax and log-softmax ----------------------------------------------------------------
def _c_contiguous(values):
    """Row-major, as PyTorch's softmax output is even for a transposed input. (A 0-d result is
    row-major already; np.ascontiguousarray would turn it into shape (1,).)"""
    return values if values.flags.c_contiguous else np.ascontiguousarray(values)


@declared
def softmax(input: Tensor, dim: int, dtype: Dtype = None, *, out: Tensor = None):
    refuse_dtype(dtype, "softmax_kernel_impl", floating_only=True)
    values = _float_values(input, dtype, dim, "softmax")
    d = _normalize_dim(dim, values.ndim)
    if values.size == 0:
        return record(SoftmaxBackward0, values.copy(), (input,), saved={"result": OUTPUT}, dim=d)
    shifted = values - np.max(values, axis=d if values.ndim else None, keepdims=True)
    e = np.exp(shifted)
    data = _c_contiguous(e / np.sum(e, axis=d if values.ndim else None, keepdims=True))
    return record(SoftmaxBackward0, data, (input,), saved={"result": OUTPUT}, dim=d)


@declared
def log_softmax(input: Tensor, dim: int, dtype: Dtype = None, *, out: Tensor = None):
    refuse_dtype(dtype, "log_softmax_kernel_impl", floating_only=True)
    values = _float_values(input, dtype, dim, "log_softmax")
    d = _normalize_dim(dim, values.ndim)
    if values.size == 0:
        return record(LogSoftmaxBackward0, values.copy(), (input,), saved={"result": OUTPUT}, dim=d)
    axis = d if values.ndim else None
    # (the ufuncs' reduce, not the methods .max and .sum, which wrap it in a Python call)
    shifted = values - np.maximum.reduce(values, axis=axis, keepdims=True)
    data = _c_contiguous(shifted - np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True)))
    return record(LogSoftmaxBackward0, data, (input,), saved={"result": OUTPUT}, dim=d)


@declared
def logsumexp(input: Tensor, dim: int | Ints, keepdim: bool = False, *, out: Tensor = None):
    values = input._data  # integers and bools are summed as floats, as in PyTorch
    if not input.dtype.is_floating_point:
        values = values.astype(dtypes.get_default_dtype().numpy)
    if isinstance(dim, (tuple, list)) and not dim and values.ndim:  # PyTorch refuses dim=()
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                           f"{[1] * values.ndim}")
    dims = normalize_dims(dim, values.ndim)
    peak = np.max(values, axis=dims, keepdims=True, initial=-np.inf)  # (-inf: nothing to sum)
    peak = np.where(np.isfinite(peak), peak, 0)
    with np.errstate(divide="ignore"):  # log(0) = -inf, the logsumexp of no elements
        data = np.log(np.sum(np.exp(values - peak), axis=dims, keepdims=True)) + peak
    if not keepdim:
        data = np.squeeze(data, axis=dims)
    return record(LogsumexpBackward0, data.astype(values.dtype), (input,),
                  saved={"self": input, "result": OUTPUT},
                  dim=dims, keepdim=keepdim, self_sym_sizes=input._data.shape)


def _float_values(x, dtype, dim, kernel):
    """softmax and log_softmax compute in floating point only; PyTorch names its kernel (which
    differs for the last dim) when given integers or bools, unless there is nothing to compute."""
    if x._data.size == 0 and dtype is None:
        return x._data
    if dtype is not None:
        return x._data.astype(dtypes.check_dtype(dtype).numpy)
    if x.dtype.is_floating_point:
        return x._data
    ndim = x._data.ndim
    last = ndim == 0 or _normalize_dim(dim, ndim) == ndim - 1
    name = f"{kernel}_lastdim_kernel_impl" if last else f"{kernel}_kernel_impl"
    raise NotImplementedError(f"\"{name}\" not implemented for '{x.dtype.scalar_name}'")



def refuse_dtype(dtype, kernel, floating_only=False):
    """PyTorch's NotImplementedError for a dtype= the kernel has no version for."""
    if dtype is None:
        return
    dtype = dtypes.check_dtype(dtype)
    if dtype is dtypes.bool_ or floating_only and not dtype.is_floating_point:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(
            kernel=kernel, dtype=dtype.scalar_name))


@declared
def cumsum(input: Tensor, dim: int, *, dtype: Dtype = None, out: Tensor = None):
    refuse_dtype(dtype, "cumsum_out_cpu")
    check_differentiable_dtype(input, dtype)
    d = _normalize_dim(dim, input._data.ndim)
    data = np.cumsum(input._data, axis=d if input._data.ndim else None,
                     dtype=_sum_dtype(input) if dtype is None else dtypes.check_dtype(dtype).numpy)
    return record(CumsumBackward0, data.reshape(input._data.shape), (input,), dim=d)


@overload
def all(input: Tensor, *, out: Tensor = None): ...  # noqa: A001
@overload
def all(input: Tensor, dim: Ints | None = None, keepdim: bool = False, *,  # noqa: A001
        out: Tensor = None): ...
@overload
def all(input: Tensor, dim: int, keepdim: bool = False, *, out: Tensor = None): ...  # noqa: A001
@declared
def all(input, dim=None, keepdim=False):  # noqa: A001  (the PyTorch name)
    return all_or_any(np.all, input, dim, keepdim)


@declared(like=all)
def any(input, dim=None, keepdim=False):  # noqa: A001  (the PyTorch name)
    return all_or_any(np.any, input, dim, keepdim)
