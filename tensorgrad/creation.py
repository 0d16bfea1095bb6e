"""Making tensors: `tensor`, `ones`, `zeros`, `arange`, `randn`, ... with PyTorch's defaults.

Python floats become float32 (the default dtype), Python ints int64, bools bool. NumPy arrays
keep their dtype, so `tensor(np.array([1.0]))` is float64, as in PyTorch.

Each function is declared here and left unchecked: its checked form is made where its public name
is exported (tensorgrad/__init__.py, "The door"), and the library (nn, autograd, Tensor's
methods) calls these plain functions, whose arguments it has made right itself.
"""

import contextlib
import math
import warnings

import numpy as np

from . import dtypes
from . import random as _random
from .arguments import (Device, Dtype, Generator, Ints, Layout, MemoryFormat, Names, Number, declared,
                        overload, type_name)
from .autograd import messages
from .device import check_device
from .core.tensor import Tensor


def _finish(data, dtype, requires_grad, message=messages.INT_REQUIRES_GRAD_FACTORY):
    """Cast to `dtype` if given, wrap, and apply requires_grad with the factory's message."""
    if dtype is not None:
        data = data.astype(dtypes.check_dtype(dtype).numpy, copy=False)
    else:
        dtypes.of_new_tensor(data.dtype)  # (one of tensorgrad's four, or refused)
    result = Tensor._make(data)
    if requires_grad:
        if not result.dtype.is_floating_point:
            raise RuntimeError(message)
        result._requires_grad = True
    return result


def _infer_python_data(data):
    """NumPy array for nested Python data, with PyTorch's dtype inference."""
    array = np.array(nested_values(data))
    if array.dtype == np.float64 and not _contains_numpy_floats(data):
        array = array.astype(dtypes.get_default_dtype().numpy)
    elif array.dtype.kind in "iu":
        check_integer_leaves(data)  # (NumPy's other widths: _finish refuses them, as dtypes)
        _check_unsigned_promotion(data)
    elif array.dtype.kind not in "fb":
        if array.size == 0:
            return array.astype(dtypes.get_default_dtype().numpy)
        raise TypeError(f"Could not infer dtype of {type(_first_leaf(data)).__name__}")
    return array


def check_integer_leaves(data):
    """Nested data that makes an integer tensor, its leaves as PyTorch reads each one, as a C
    integer: NumPy's bool has no `__index__`, so one among ints is refused in PyTorch's words
    (`tensor([np.bool_(True), 1])`, and an index list: `x[[np.bool_(True), 0]]`)."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, SEQUENCES):
            pending.extend(item)
        elif isinstance(item, np.bool_):
            raise TypeError(messages.NOT_A_NUMBER["an integer"].format(type_name=type_name(item)))


_SCALAR_NAMES = {"bool": "Bool", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
                 "uint8": "Byte", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}


def _check_unsigned_promotion(data):
    """PyTorch infers a list's dtype leaf by leaf, promoting as it goes, and refuses to promote
    uint16, uint32 or uint64 with another integer type (`tensor([np.uint32(3), 1])`), in its
    words: the type so far, then the leaf's."""
    so_far, pending = None, [data]
    while pending:
        item = pending.pop()
        if isinstance(item, SEQUENCES):
            pending.extend(reversed(item))  # (left to right)
            continue
        leaf = item._data.dtype if isinstance(item, Tensor) else np.dtype(
            np.int64 if type(item) is int else type(item))
        if so_far is not None and so_far != leaf and {so_far.name, leaf.name} & {
                "uint16", "uint32", "uint64"}:
            raise RuntimeError(
                "Promotion for uint16, uint32, uint64 types is not supported, attempted to "
                f"promote {_SCALAR_NAMES[so_far.name]} and {_SCALAR_NAMES[leaf.name]}")
        so_far = leaf if so_far is None else np.promote_types(so_far, leaf)


def _contains_numpy_floats(data):
    """A 0-d float64 tensor or NumPy float64 inside a list keeps float64 only if all are such."""
    leaf = _first_leaf(data)
    return isinstance(leaf, np.floating) and leaf.dtype == np.float64 or (
        isinstance(leaf, Tensor) and leaf.dtype is dtypes.float64)


def _first_leaf(data):
    while isinstance(data, SEQUENCES) and data:
        data = data[0]
    return data


_MAX_DIMS = 64  # NumPy's limit (PyTorch allows more)
SEQUENCES = (list, tuple, range)  # what nested data is made of (`tensor(range(3))` too)
_INT64_RANGE = (-2 ** 63, 2 ** 63 - 1)


def nested_values(data, integer=None):
    """Nested lists checked as PyTorch checks them before making a tensor, with tensors inside
    turned into numbers: every row as long as the first, numbers (or one-element tensors) at the
    bottom, ints within int64. Raises PyTorch's error otherwise; NumPy would give an object
    array, a wrapped-around integer or its own message. `integer`: is the dtype asked for an
    integer one (None: none asked for, the data decide; AS_BOOL: bool, which takes any int)."""
    shape = _nested_shape(data)
    if 0 in shape:  # nothing to store: PyTorch does not look at the other rows either
        return np.zeros(shape)
    try:
        return _checked_rows(data, shape, 0, integer)
    except _NotANumber as error:  # a list where a number belongs
        kind = "an integer" if integer or integer is None and _all_integers(data) else \
            "a real number"
        raise TypeError(messages.NOT_A_NUMBER[kind].format(type_name=error.args[0])) from None


AS_BOOL = "bool"  # nested_values' `integer` for a bool dtype: an integer kind, of any size


class _NotANumber(TypeError):
    pass


def _all_integers(data):
    """Will the data become an integer tensor? (Then a list where a number belongs is "not an
    integer" rather than "not a real number", as PyTorch words it.)"""
    if isinstance(data, SEQUENCES):
        return all(_all_integers(item) for item in data)
    return isinstance(data, (int, np.integer)) or (
        isinstance(data, Tensor) and not data.dtype.is_floating_point)


def _nested_shape(data):
    shape, seen = [], []
    while isinstance(data, SEQUENCES):
        if any(data is outer for outer in seen):  # a list that contains itself
            raise ValueError(messages.TOO_MANY_DIMENSIONS.format(type_name=type(data).__name__))
        seen.append(data)
        shape.append(len(data))
        if len(shape) > _MAX_DIMS:
            raise ValueError(messages.MORE_THAN_64_DIMS.format(limit=_MAX_DIMS))
        if not data:
            break
        data = data[0]
    return shape


def _checked_rows(data, shape, dim, integer):
    if dim == len(shape):
        return _checked_scalar(data, integer)
    if not isinstance(data, SEQUENCES):
        raise TypeError("not a sequence")
    if len(data) != shape[dim]:
        raise ValueError(messages.RAGGED.format(length=shape[dim], dim=dim, got=len(data)))
    return [_checked_rows(item, shape, dim + 1, integer) for item in data]


def _checked_scalar(value, integer):
    if isinstance(value, Tensor):
        if value._data.size != 1:
            raise ValueError(messages.ONE_ELEMENT_TENSORS)
        return value._data.reshape(())
    if isinstance(value, (int, np.uint64)) and integer is AS_BOOL:
        return bool(value)  # (PyTorch reads an int into a bool tensor whatever its size)
    if isinstance(value, np.uint64) and integer is not False:  # (read as a C long long)
        if integer is None:  # (PyTorch infers no dtype for it)
            raise TypeError(messages.INTEGER_REQUIRED)
        if value > _INT64_RANGE[1]:
            raise ValueError(messages.INT_OVERFLOW)
    if integer and isinstance(value, np.generic) and not isinstance(value, (np.integer, float)) \
            and not (integer is AS_BOOL and isinstance(value, (np.bool_, complex))):
        # PyTorch reads a NumPy scalar into an integer (or bool) tensor as an index, unless it
        # is a Python float (np.float64), or for bool a NumPy bool or a Python complex
        raise TypeError(messages.NOT_A_NUMBER["an integer"].format(type_name=type_name(value)))
    if isinstance(value, (bool, float, np.number, np.bool_)):
        return value
    if isinstance(value, int):  # (read as a double where a floating dtype is asked for)
        if integer is not False and not _INT64_RANGE[0] <= value <= _INT64_RANGE[1]:
            raise ValueError(messages.INT_OVERFLOW)
        return value
    if isinstance(value, SEQUENCES):
        raise _NotANumber(type(value).__name__)
    if isinstance(value, (str, bytes)):
        raise TypeError(messages.INVALID_DATA_TYPE.format(type_name=type(value).__name__))
    if integer is not None:  # a dtype asked for: PyTorch reads the value as that kind of number
        kind = "an integer" if integer else "a real number"
        raise TypeError(messages.NOT_A_NUMBER[kind].format(type_name=type_name(value)))
    raise RuntimeError(messages.CANNOT_INFER_DTYPE.format(type_name=type_name(value)))


def _cast_python_data(data, dtype):
    """`tensor(data, dtype=...)`: converted to `dtype`; nan, inf or too large values into an
    integer dtype are refused, as PyTorch does (NumPy would wrap around or give garbage); any
    int is a bool (one beyond 64 bits True, as PyTorch reads it)."""
    values = nested_values(data, integer=AS_BOOL if dtype is dtypes.bool_ else
                           not dtype.is_floating_point)
    if dtype is dtypes.int64:
        array = np.array(values)
        if array.dtype.kind == "f" and not np.all((array >= -2.0 ** 63) & (array < 2.0 ** 63)):
            raise RuntimeError(messages.FLOAT_TO_INT_OVERFLOW)  # (nan and inf fail the test too)
        return array.astype(np.int64)
    return np.array(values, dtype=dtype.numpy)


@overload
def tensor(data: object, *, dtype: Dtype = None, device: Device = None,
           pin_memory: bool = False, requires_grad: bool = False, names: Names = None): ...
@declared
def tensor(data, *, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor holding a *copy* of `data` (a number, nested lists, or an array)."""
    check_device(device)
    if isinstance(data, Tensor):
        warnings.warn(messages.COPY_CONSTRUCT, UserWarning, stacklevel=2)
        array = data._data.copy()
    elif isinstance(data, np.ndarray):
        array = _checked_array(data).copy()
    elif isinstance(data, np.uint64) and dtype is None:  # (PyTorch infers no dtype for it)
        raise TypeError(messages.INTEGER_REQUIRED)
    elif isinstance(data, np.generic) and dtype is None:
        array = np.array(data)
    elif dtype is not None:
        array = _cast_python_data(data, dtypes.check_dtype(dtype))
    else:
        array = _infer_python_data(data)
    return _finish(array, dtype, requires_grad)


@overload
def as_tensor(data: object, *, dtype: Dtype = None, device: Device = None): ...
@declared
def as_tensor(data, dtype=None, *, device=None):
    """Like `tensor`, but shares memory with a NumPy array (or returns a tensor unchanged)."""
    check_device(device)
    if isinstance(data, Tensor) and (dtype is None or dtypes.check_dtype(dtype) is data.dtype):
        return data
    if isinstance(data, np.ndarray):
        return _finish(_checked_array(data), dtype, False)
    return tensor(data, dtype=dtype)


# The NumPy types PyTorch makes tensors of (by type, not kind: `numpy.ulonglong`, what NumPy
# makes of `[2 ** 63]`, is not among them, while `numpy.longlong` is int64)
_PYTORCH_NUMPY_TYPES = frozenset((np.float64, np.float32, np.float16, np.complex64, np.complex128,
                                  np.int64, np.longlong, np.int32, np.int16, np.int8, np.uint64,
                                  np.uint32, np.uint16, np.uint8, np.bool_))


def _checked_array(array):
    """A NumPy array as PyTorch takes one into a tensor: of a type it knows (not object, str or
    longdouble), in the machine's byte order, with no negative stride (`array[::-1]`); else its
    error, whatever dtype is asked for. (Which of its dtypes tensorgrad has is decided after.)"""
    if array.dtype.type not in _PYTORCH_NUMPY_TYPES:
        raise TypeError(messages.NUMPY_TYPE.format(type_name=f"numpy.{array.dtype.type.__name__}"))
    if not array.dtype.isnative:
        raise ValueError(messages.NUMPY_BYTE_ORDER)
    if any(stride < 0 for stride in array.strides):
        raise ValueError(messages.NUMPY_NEGATIVE_STRIDES)
    return array


def from_numpy(array):
    """A tensor that shares memory with `array`: changing one changes the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type_name(array)})")
    _checked_array(array)
    dtypes.of_new_tensor(array.dtype)
    return Tensor._make(array)


def _size_arg(size, negative=None):
    """The sizes, given one by one or as one tuple; `negative`: the message for a negative size
    (PyTorch's zeros words it otherwise than ones or empty)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    if len(size) > _MAX_DIMS:
        raise RuntimeError(messages.MORE_THAN_64_DIMS.format(limit=_MAX_DIMS))
    size = tuple(int(s) for s in size)  # (ints, checked against the declaration, or a module's
    for s in size:                      # NumPy ints: `nn.Linear(np.int8(-1), 2)`, said as ints)
        if s < 0:
            raise RuntimeError(negative or f"Trying to create tensor with negative dimension {s}: "
                                           f"{list(size)}")
    return size


def _float_dtype(dtype):
    return dtypes.check_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()


def _random_dtype(dtype, kernel):
    """rand and randn draw floating-point numbers only, as in PyTorch."""
    dtype = _float_dtype(dtype)
    if not dtype.is_floating_point:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(
            kernel=kernel, dtype=dtype.scalar_name))
    return dtype


@overload
def ones(*size: Ints, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@declared
def ones(*size, dtype=None, requires_grad=False, device=None):
    check_device(device)
    return _finish(_allocated(np.ones, _size_arg(size), _float_dtype(dtype).numpy), None,
                   requires_grad)


@declared(like=ones)
def zeros(*size, dtype=None, requires_grad=False, device=None):
    check_device(device)
    return _zeros(_size_arg(size, negative="zeros: Dimension size must be non-negative."), dtype,
                  requires_grad)


def _zeros(shape, dtype, requires_grad):
    return _finish(_allocated(np.zeros, shape, _float_dtype(dtype).numpy), None, requires_grad)


def _allocated(make, shape, np_dtype):
    """`make(shape, np_dtype)` (np.zeros, a random draw), in PyTorch's words when the memory is
    not to be had (see `allocating`)."""
    with allocating(shape, np_dtype):
        return make(shape, dtype=np_dtype)


@contextlib.contextmanager
def allocating(shape, np_dtype):
    """The work that makes a result of `shape` and `np_dtype` (zeros', arange's, repeat's), in
    PyTorch's words when it cannot be had: a size that wrapped to int64's lowest value
    (`arange(2 ** 63 - 1)`, whose count PyTorch holds as a double), more bytes than an int64
    counts (`zeros(2 ** 62)`), or more than the machine gives (`nn.Linear(2, 2 ** 40)`), where
    NumPy says "array is too big" or MemoryError (perhaps for an intermediate of its own)."""
    sizes = [int(size) for size in shape]
    if -2 ** 63 in sizes:
        raise RuntimeError(messages.SYMINT_SIZE.format(size=-2 ** 63))
    nbytes = math.prod(sizes) * np.dtype(np_dtype).itemsize
    if nbytes >= 2 ** 63:
        raise RuntimeError(messages.STORAGE_OVERFLOW.format(sizes=sizes))
    try:
        yield
    except MemoryError:
        raise RuntimeError(messages.CANNOT_ALLOCATE.format(nbytes=nbytes)) from None


@overload
def empty(*size: Ints, memory_format: MemoryFormat = None, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@declared
def empty(*size, dtype=None, requires_grad=False, device=None):
    """Like zeros: tensorgrad never hands out uninitialised memory."""
    check_device(device)
    return _zeros(_size_arg(size), dtype, requires_grad)


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_value_fits(value, np_dtype):
    """A number that fills a tensor must fit its dtype, as PyTorch checks it ("value cannot be
    converted to type float without overflow"): an integer tensor takes no nan, inf or value
    beyond int64, a float32 one no finite value beyond float32's range (inf stays inf), where
    NumPy would store a wrapped or infinite value."""
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool) \
            or np_dtype.kind == "b":
        return  # (a tensor, a bool, a complex number: not a number this check is about)
    if np_dtype.kind in "iu":
        fits = -2 ** 63 <= value < 2 ** 63  # False for nan
    elif np_dtype == np.float32:
        fits = value != value or abs(value) == float("inf") or abs(value) <= _FLOAT32_MAX
    else:
        return
    if not fits:
        raise RuntimeError(messages.COMPLEX_VALUE.format(
            type_name=messages.C_SCALAR_NAMES[np_dtype.name]))


@overload
def full(size: Ints, fill_value: Number, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@declared
def full(size, fill_value, *, dtype=None, requires_grad=False, device=None):
    check_device(device)
    if dtype is None:
        if isinstance(fill_value, (bool, np.bool_)):
            dtype = dtypes.bool_
        elif isinstance(fill_value, (int, np.integer)):
            dtype = dtypes.int64
        else:
            dtype = dtypes.get_default_dtype()
    check_value_fits(fill_value, dtypes.check_dtype(dtype).numpy)
    if dtypes.check_dtype(dtype) is dtypes.bool_:
        fill_value = bool(fill_value)  # (any number: 2 ** 63 too, which NumPy cannot convert)
    data = _allocated(lambda shape, dtype: np.full(shape, fill_value, dtype=dtype),
                      _size_arg((size,) if isinstance(size, int) else (tuple(size),)),
                      dtypes.check_dtype(dtype).numpy)
    return _finish(data, None, requires_grad)


@overload
def ones_like(input: Tensor, *, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False,
         memory_format: MemoryFormat = None): ...
@declared
def ones_like(input, *, dtype=None, requires_grad=False):
    return _finish(np.ones(input._data.shape, dtype=(dtype or input.dtype).numpy), None, requires_grad)


@overload
def zeros_like(input: Tensor, *, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False,
         memory_format: MemoryFormat = None): ...
@declared
def zeros_like(input, *, dtype=None, requires_grad=False):
    return _finish(np.zeros(input._data.shape, dtype=(dtype or input.dtype).numpy), None, requires_grad)


@overload
def full_like(input: Tensor, fill_value: Number, *, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False,
         memory_format: MemoryFormat = None): ...
@declared
def full_like(input, fill_value, *, dtype=None, requires_grad=False):
    check_value_fits(fill_value, (dtype or input.dtype).numpy)
    if (dtype or input.dtype) is dtypes.bool_:
        fill_value = bool(fill_value)  # (any number: 2 ** 63 too, which NumPy cannot convert)
    data = np.full(input._data.shape, fill_value, dtype=(dtype or input.dtype).numpy)
    return _finish(data, None, requires_grad)


@overload
def empty_like(input: Tensor, *, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False,
         memory_format: MemoryFormat = None): ...
@declared
def empty_like(input, *, dtype=None, requires_grad=False):
    return zeros_like(input, dtype=dtype, requires_grad=requires_grad)


@overload
def arange(end: Number, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def arange(start: Number, end: Number, *, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def arange(start: Number, end: Number, step: Number = 1, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@declared
def arange(start, end=None, step=1, *, dtype=None, requires_grad=False, device=None):
    check_device(device)
    if end is None:
        start, end = 0, start
    values = [float(v) if isinstance(v, Tensor) else v for v in (start, end, step)]
    if not all(np.isfinite(float(v)) for v in values[:2]):  # (a step of inf: an empty range)
        raise RuntimeError("unsupported range: " + " -> ".join(str(v) for v in values[:2]))
    if not (step > 0 or step < 0):  # nan too, as in PyTorch
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(messages.ARANGE_STEP_SIGN)
    all_ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    if dtype is None:
        dtype = dtypes.int64 if all_ints else dtypes.get_default_dtype()
    dtype = dtypes.check_dtype(dtype)
    if dtype is dtypes.bool_:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(kernel="arange_cpu", dtype="Bool"))
    if dtype is dtypes.int64:  # PyTorch reads the bounds and the step as int64 first
        if not all(-2 ** 63 <= v < 2 ** 63 for v in values):
            raise RuntimeError(messages.INT64_OVERFLOW)
        start, end, step = (int(v) for v in values)
        if step == 0:  # (a fractional step truncated to 0)
            raise ValueError("step must be nonzero")
        count = _int64_range_size(start, end, step)
        with allocating((_as_double_count(count),), np.int64):
            data = start + step * np.arange(count, dtype=np.int64)  # (in int64, as PyTorch)
        return _finish(data, None, requires_grad)
    count = np.ceil((end - start) / step)  # (in double, as PyTorch counts)
    if count > 2 ** 63 - 1:
        raise RuntimeError(messages.ARANGE_SIZE)
    count = max(0, int(count))
    with allocating((_as_double_count(count),), dtype.numpy):
        data = (start + step * np.arange(count, dtype=np.float64)).astype(dtype.numpy)
    return _finish(data, None, requires_grad)


def _as_double_count(count):
    """arange's size as PyTorch has it: a double cast to int64, so that a count that rounds to
    2 ** 63 wraps to int64's lowest value."""
    return -2 ** 63 if float(count) >= 2.0 ** 63 else count


def _int64_range_size(start, end, step):
    """How many values an int64 arange has, counted as PyTorch counts them: in int64, which
    wraps, `(end - start + step - sign(step)) / step` truncated. A count that wrapped below zero
    is its "invalid size" (`arange(0, 2 ** 63 - 1, 10 ** 17)`); a difference that wrapped
    to -1 counts nothing (`arange(-2 ** 63, 2 ** 63 - 1, 2 ** 62)` is empty)."""
    span = (end - start + step - (1 if step > 0 else -1) + 2 ** 63) % 2 ** 64 - 2 ** 63
    count = abs(span) // abs(step) * (1 if (span < 0) == (step < 0) else -1)
    if count < 0:
        raise RuntimeError(messages.ARANGE_SIZE)
    return count


@overload
def linspace(start: Tensor, end: Tensor, steps: int, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def linspace(start: Number, end: Tensor, steps: int, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def linspace(start: Tensor, end: Number, steps: int, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def linspace(start: Number, end: Number, steps: int, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@declared
def linspace(start, end, steps, *, dtype=None, requires_grad=False, device=None):
    check_device(device)
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, Tensor) and value._data.ndim:
            raise RuntimeError(messages.LINSPACE_DIMS.format(name=name, ndim=value._data.ndim))
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is not None and dtypes.check_dtype(dtype) is dtypes.bool_:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(kernel="linspace_cpu",
                                                                      dtype="Bool"))
    start, end = (float(v) if isinstance(v, Tensor) else v for v in (start, end))
    np_dtype = _float_dtype(dtype).numpy
    check_value_fits(start, np_dtype)
    check_value_fits(end, np_dtype)
    with allocating((steps,), np_dtype):
        data = _linspace_as_pytorch(start, end, int(steps), np_dtype)
    return _finish(data, None, requires_grad)


def _linspace_as_pytorch(start, end, steps, np_dtype):
    """PyTorch's formula, so that the points are the same to the last bit (NumPy's linspace
    differed in a third of them): the first half counts up from start, the second half down
    from end, by step = (end - start) / (steps - 1) in the tensor's dtype. PyTorch's CPU kernel
    rounds `start + step·i` once (a fused multiply-add), hence the wider type here."""
    if steps <= 1:
        return np.full(steps, start, dtype=np_dtype)
    if np_dtype.kind in "iu":  # integer points: computed in double, then truncated, as PyTorch
        return _linspace_as_pytorch(start, end, steps, np.dtype(np.float64)).astype(np_dtype)
    kind = np_dtype.type
    first, last = kind(start), kind(end)
    step = kind((last - first) / kind(steps - 1))
    wide = np.longdouble if np_dtype == np.float64 else np.float64
    index = np.arange(steps).astype(wide)
    up = wide(first) + wide(step) * index
    down = wide(last) - wide(step) * (wide(steps - 1) - index)
    return np.where(np.arange(steps) < steps // 2, up, down).astype(np_dtype)


@overload
def eye(n: int, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def eye(n: int, m: int, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@declared
def eye(n, m=None, *, dtype=None, requires_grad=False, device=None):
    check_device(device)
    for name, value in (("n", n), ("m", m)):
        if value is not None and value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    return _finish(_allocated(lambda shape, dtype: np.eye(*shape, dtype=dtype),
                              (n, n if m is None else m), _float_dtype(dtype).numpy), None,
                   requires_grad)


@overload
def rand(*size: Ints, generator: Generator, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def rand(*size: Ints, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@declared
def rand(*size, dtype=None, requires_grad=False, device=None):
    """Uniform samples in [0, 1). The stream differs from PyTorch's (see tensorgrad.random)."""
    check_device(device)
    data = _allocated(lambda shape, dtype: _random._uniform_array(shape, 0.0, 1.0, dtype),
                      _size_arg(size), _random_dtype(dtype, "check_uniform_bounds").numpy)
    return _finish(data, None, requires_grad)


@declared(like=rand)
def randn(*size, dtype=None, requires_grad=False, device=None):
    """Standard normal samples. The stream differs from PyTorch's (see tensorgrad.random)."""
    check_device(device)
    data = _allocated(lambda shape, dtype: _random._normal_array(shape, 0.0, 1.0, dtype),
                      _size_arg(size), _random_dtype(dtype, "normal_kernel_cpu").numpy)
    return _finish(data, None, requires_grad)


@overload
def randint(high: int, size: Ints, *, generator: Generator, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def randint(high: int, size: Ints, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def randint(low: int, high: int, size: Ints, *, generator: Generator, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def randint(low: int, high: int, size: Ints, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@declared
def randint(low, high=None, size=None, *, dtype=None, requires_grad=False, device=None):
    """Integers in [low, high). `randint(high, size)` starts from 0, as in PyTorch."""
    check_device(device)
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if dtype is not None and dtypes.check_dtype(dtype) is dtypes.bool_ and high > 2:
        raise RuntimeError("to - 1 is out of bounds for bool")
    data = _random._integer_array(low, high, _size_arg((tuple(size),)))
    return _finish(data, dtype, requires_grad)


@overload
def rand_like(input: Tensor, *, generator: Generator, memory_format: MemoryFormat = None, dtype: Dtype = None,
         layout: Layout = None, device: Device = None, pin_memory: bool | None = False,
         requires_grad: bool | None = False): ...
@overload
def rand_like(input: Tensor, *, memory_format: MemoryFormat = None, dtype: Dtype = None,
         layout: Layout = None, device: Device = None, pin_memory: bool | None = False,
         requires_grad: bool | None = False): ...
@declared
def rand_like(input, *, dtype=None, requires_grad=False):
    return rand(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


@declared(like=rand_like)
def randn_like(input, *, dtype=None, requires_grad=False):
    return randn(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


@overload
def randperm(n: int, *, generator: Generator, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@overload
def randperm(n: int, *, out: Tensor = None, dtype: Dtype = None, layout: Layout = None, device: Device = None,
         pin_memory: bool | None = False, requires_grad: bool | None = False): ...
@declared
def randperm(n, *, dtype=None, requires_grad=False):
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dtype is not None and dtypes.check_dtype(dtype) is dtypes.bool_:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(kernel="randperm",
                                                                      dtype="Bool"))
    return _finish(_allocated(lambda shape, dtype: _random._permutation_array(*shape), (n,),
                              np.int64), dtype, requires_grad)
