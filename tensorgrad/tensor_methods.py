"""What a tensor does: its operators and its methods with PyTorch's names, attached in one place.

core/tensor.py says what a tensor *is*: NumPy data and the autograd flags (requires_grad,
grad_fn, is_leaf, grad). Everything a tensor *does*, `a * b`, `x.sum()`, `x.exp_()`, printing,
`.to(...)`, is an operation of tensorgrad.ops, and the methods here only hand it on. They are
written as one class body, to be read like one, and copied onto Tensor by the one `attach` call
at the bottom of this file: nothing else adds to the class. So core/tensor.py imports no
operation, and each layer of the library imports only the layers below it
(docs/reading-the-source.md).
"""

import builtins
import copy
import inspect
import types
import warnings

import numpy as np

from . import creation, dtypes, numpy_errors, printing
from . import random as _random
from .autograd import backward_and_grad as _backward_and_grad
from .device import check_device
from .device import device as _device
from .size import Size
from .autograd import forward_ad as _forward_ad
from .autograd import messages
from .core.grad_mode import is_grad_enabled
from .ops import elementwise as _ew
from .ops import indexing as _indexing
from .ops import inplace as _inplace
from .ops import linalg as _linalg
from .ops import reduction as _red
from .ops import shape as _shape
from .arguments import (Device, Dtype, Generator, Ints, Layout, MemoryFormat, Number, Signatures, Storage, checked,
                        method, check_scalar_range, checked_values, complex_dtype_name, overload,
                        refuse_complex, takes_no_arguments, type_name)
from .core.tensor import Tensor, _normalize_dim, read_only

# The operations themselves, as the library calls them (their checked forms are tensorgrad.mul and
# so on): an operator tests its operand's type itself, and runs only the operation.
_add, _sub, _mul, _div, _pow, _neg, _abs, _floor_divide, _remainder = (
    _ew.add, _ew.sub, _ew.mul, _ew.div, _ew.pow, _ew.neg, _ew.abs, _ew.floor_divide, _ew.remainder)
_eq, _ne, _lt, _le, _gt, _ge = _ew.eq, _ew.ne, _ew.lt, _ew.le, _ew.gt, _ew.ge
_matmul = _linalg.matmul


def _size(self, dim: int = None):
    """Tensor.size's declaration (the method is tensor.py's)."""


def _requires_grad_(self, requires_grad: bool = True):
    """Tensor.requires_grad_'s declaration (the method is tensor.py's)."""


# (declared out here: in the class body below, `float` and `bool` are Tensor's methods)
def _copy_(self, other: Tensor, non_blocking: bool = False): ...
def _normal_(self, mean: float = 0, std: float = 1, *, generator: Generator = None): ...
def _uniform_(self, from_: float = 0, to: float = 1, *, generator: Generator = None): ...
def _stride(self, dim: int | None = None): ...
def _is_contiguous(self, *, memory_format: MemoryFormat = "contiguous_format"): ...
def _new_full(self, size: Ints, fill_value: Number, *, dtype: Dtype = None, layout: Layout = None,
              device: Device = None, pin_memory: bool | None = False,
              requires_grad: bool | None = False): ...
def _new_zeros(self, *size: Ints, dtype: Dtype = None, layout: Layout = None, device: Device = None,
               pin_memory: bool | None = False, requires_grad: bool | None = False): ...
def _new_ones(self, *size: Ints, dtype: Dtype = None, layout: Layout = None, device: Device = None,
              pin_memory: bool | None = False, requires_grad: bool | None = False): ...
def _new_empty(self, *size: Ints, dtype: Dtype = None, layout: Layout = None, device: Device = None,
               pin_memory: bool | None = False, requires_grad: bool | None = False): ...
def _new_tensor(self, data: object, *, dtype: Dtype = None, device: Device = None,
                requires_grad: bool = False): ...  # (not None: PyTorch's parser refuses it)


_detach_from_the_graph = Tensor.detach_  # (tensor.py's, before attach gives Tensor this module's)


def plain_in_place_binary(name, compute=None):
    """`x.pow_(2)`, `x.floor_divide_(y)`, `x.remainder_(y)` without the argument check (`a **= b`
    runs it, its operand checked by binary_operator): computes name(x, other) and makes it x's
    new value (the rules of ops/inplace.py: it may not grow x, nor change its dtype).
    `compute(x, other)`: when not name's own function."""
    compute = compute or getattr(_ew, name)

    def in_place(self, other):
        return _inplace.apply(self, lambda: _into(self, compute, other), (other,))

    in_place.__name__ = in_place.__qualname__ = name + "_"
    return in_place


def in_place_binary_form(plain):
    """The method `x.pow_(other)`: plain_in_place_binary's function, checked as the method
    `x.pow(other)` is."""
    name = plain.__name__
    function = getattr(_ew, name[:-1])
    as_method = [m for m in (o.method_form() for o in function.signatures.overloads) if m]
    return checked(plain, name=name, method=True, complex_into=True,
                   like=Signatures(name, as_method, True))


_PLAIN_IN_PLACE_BINARY = {name: plain_in_place_binary(name) for name in (
    "pow", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift")}
_PLAIN_IN_PLACE_BINARY["floor_divide"] = plain_in_place_binary(
    "floor_divide", lambda self, other: _ew.divided_and_floored(self, other, "floor_divide_"))
# (floor_divide_'s errors carry its own name)


def _into(tensor, function, other):
    """function(tensor, other), for an in-place form: PyTorch first fits the shapes (they must
    broadcast, to the tensor's own shape), then the result dtype to the tensor's (`i ^= 1.5` is
    a cast error, not the float kernel's refusal), then runs the kernel; pow's own checks
    (negative integer powers) come before the cast."""
    if isinstance(other, Tensor):
        _ew.check_broadcast(tensor, other)
        shape = np.broadcast_shapes(tensor._data.shape, other._data.shape)
        if shape != tensor._data.shape:
            raise _inplace._cannot_grow(tensor, shape)
    if isinstance(other, complex):  # (a complex result, which no tensor here can hold)
        raise RuntimeError(messages.CANNOT_CAST.format(result=complex_dtype_name(tensor),
                                                       output=tensor.dtype.scalar_name))
    if function is not _pow:
        _inplace.check_castable(dtypes.result_type(tensor, other).numpy, tensor._data.dtype)
    return function(tensor, other)


def _complex_into(tensor, other, alpha=1):
    """`t.add_(1j)`, `t.mul_(1j)`: a complex number into a real tensor, which PyTorch refuses at
    the cast of the complex result, after the in-place rules and alpha's check, as `_into`
    refuses it for every in-place form (no complex result is computed here)."""
    if type(alpha) is not int:
        _ew.check_bool_alpha(tensor, other, alpha)
    return _inplace.apply(tensor, lambda: _into(tensor, None, other), (other,))


def in_place_form(name):
    """`x.exp_()`: computes exp(x) and makes it x's new value, with the leaf and version rules of
    every in-place operation (ops/inplace.py)."""
    return takes_no_arguments(plain_in_place(name))


def plain_in_place(name):
    """in_place_form's function without the argument check (`tensorgrad.exp_(x)` runs it, checked
    where it is exported)."""
    function = getattr(_ew, name)

    def in_place(self):
        return _inplace.apply(self, lambda: function(self))

    in_place.__name__ = in_place.__qualname__ = name + "_"
    in_place.__doc__ = f"In place: x becomes {name}(x)."
    return in_place


def round_in_place(tensor, decimals=None):
    """`x.round_(decimals=...)` without the argument check (the method and tensorgrad.round_)."""
    return _inplace.apply(tensor, lambda: _ew.round(tensor, decimals=decimals))


# The functions of one tensor that have an in-place form as a method (`x.exp_()`).
IN_PLACE_OF = ("neg", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "sin", "cos", "abs",
               "reciprocal", "square", "sign", "floor", "ceil", "trunc")


def plain_method(function):
    """A plain function of ops/ as a private method of Tensor, unchecked: `t._cos()` is
    `cos(t)` (see "The plain functions the library reaches through Tensor", below). The method
    is the function itself under the method's name: a copy of the function object (its code,
    defaults and closure), so that the function keeps its own name and a derivative formula's
    `grad._mm(...)` costs no call in between."""
    plain = types.FunctionType(function.__code__, function.__globals__, "_" + function.__name__,
                               function.__defaults__, function.__closure__)
    plain.__kwdefaults__ = function.__kwdefaults__
    plain.__doc__ = f"`{function.__name__}` of this tensor, without the argument check."
    return plain


def _as_dtype(tensor, dtype):
    """`tensor.to(dtype)` as the library calls it, unchecked: the tensor itself if it has that
    dtype already (or `dtype` is None), else a converted copy."""
    if dtype is None or dtype is tensor.dtype:
        return tensor
    return _ew.to_dtype(tensor, dtype)


def _where_of_self(self, condition, other):
    """`x.where(c, y)` is `where(c, x, y)`."""
    return _ew.where(condition, self, other)


def binary_operator(operation, reflected=False, arrays=False):
    """`a * b` and the other operators: `operation(a, b)` (`operation(b, a)` reflected) when the
    other operand is a Tensor or a Python or NumPy number; else NotImplemented, and Python
    raises its own TypeError ("unsupported operand type(s)"), as with torch. arrays=True (`==`):
    a NumPy array is taken as a tensor, as torch's `==` takes it (then `array == t` comes here
    too, reflected, rather than being False; `<` refuses an array and `!=` is True, as in
    torch)."""
    def binary_operator(self, other):
        if type(other) not in _OPERAND_TYPES:  # (a Tensor, int, float or bool passes at once)
            if arrays and type(other) is np.ndarray:  # (other integer widths: as int64)
                other = creation.as_tensor(other, dtypes.from_numpy_dtype(other.dtype))
            elif isinstance(other, complex):  # (NumPy's complex64, not a Python complex, is its
                if operation.__name__.endswith("_"):  # real part: check_operand) In place: refused
                    return operation(self, other)      # at the cast, by `_into`
                refuse_complex(operation.__name__, self, other)  # (returns for eq and ne)
                return operation(self, other)
            if not _is_operand(other):
                return NotImplemented
        elif type(other) is int and not -_INT64 <= other < _INT64:
            check_scalar_range(other)  # 2 ** 70: PyTorch's OverflowError
            other = _unsigned_operand(operation, self, other, reflected)
        token = numpy_errors.state.set(numpy_errors.QUIET)  # 1 / 0 is inf, silently
        try:
            return operation(other, self) if reflected else operation(self, other)
        finally:
            numpy_errors.state.reset(token)

    return binary_operator


def _unsigned_operand(operation, tensor, value, reflected):
    """An operator's Python int in [2 ** 63, 2 ** 64), as PyTorch's operators take it (measured):
    it wraps to int64 with an integer tensor and refuses a bool one (elementwise's
    unsigned_as_pytorch), except where the operation's own check comes first (`t ** 2 ** 63`,
    a bool tensor's subtraction) and in true division, which takes it as a float (`2 ** 63 / t`
    is `t.reciprocal() * 2 ** 63` in PyTorch, so even of a bool tensor)."""
    if operation.__name__ in ("pow", "pow_") and not reflected:
        return value
    if operation in (_sub, _ew.rsub) and tensor._data.dtype.kind == "b":
        return value
    if operation is _div and (reflected or tensor._data.dtype.kind != "b"):
        return float(value)
    return _ew.unsigned_as_pytorch(value, tensor)[0]


def legacy_new(dtype, args, device=None, named=None):
    """PyTorch's legacy constructor (`t.new(...)`; `torch.Tensor(...)` with dtype None, the
    default dtype) in `dtype`: nothing is an empty tensor; ints, or one `Size`, a size (of
    zeros); one other sequence or array its data, copied (a tuple of ints too: `Tensor((2,
    3))` holds 2 and 3); one tensor that tensor itself, an alias, if it has the dtype (any
    dtype for `Tensor(x)`, as in PyTorch). `named`: the parameter given by keyword, which
    decides the form (`data=` is data even if an int or a tensor, which are no sequences).
    Anything else is refused in PyTorch's words."""
    if len(args) == 1 and isinstance(args[0], Tensor) and dtype is None:
        return _shape.alias(args[0])
    dtype = dtype or dtypes.get_default_dtype()
    if isinstance(device, int):
        check_device(device)  # (an index: no accelerator here, in PyTorch's words)
    if device is not None and _device(device).type != "cpu":
        raise RuntimeError(messages.LEGACY_DEVICE.format(type=_device(device).type))
    if not args:
        return Tensor._make(np.zeros(0, dtype=dtype.numpy))
    first = args[0]
    if named == "size":
        return creation.empty(Size(first), dtype=dtype)
    if len(args) == 1 and isinstance(first, Tensor) and named != "data":
        if first.dtype is not dtype:
            options = (messages.TENSOR_OPTIONS.format(dtype=messages.C_TYPE_NAMES[d.name])
                       for d in (dtype, first.dtype))
            raise TypeError(messages.LEGACY_OTHER_DTYPE.format(expected=next(options),
                                                               got=next(options)))
        return _shape.alias(first)
    one_int = isinstance(first, (int, np.integer)) and not isinstance(first, (bool, np.bool_))
    if len(args) == 1 and (named == "data" or not one_int and not isinstance(first, Size)):
        if isinstance(first, str):  # (PyTorch tries to make a tensor of it)
            raise TypeError(messages.INVALID_DATA_TYPE.format(type_name="str"))
        if not isinstance(first, (*creation.SEQUENCES, np.ndarray)):
            raise TypeError(messages.LEGACY_NOT_A_SEQUENCE.format(type_name=type_name(first)))
        return creation.tensor(first, dtype=dtype)
    size = tuple(first) if len(args) == 1 and not one_int else args
    for position, value in enumerate(size, 1):
        if isinstance(value, (int, np.integer)) and not -_INT64 <= int(value) < _INT64:
            raise TypeError(messages.INT_LIST_OVERFLOW.format(name="new", argument="size",
                                                              pos=position))
    return creation.empty(size, dtype=dtype)  # (zeros, but with empty's words for a negative size)


def legacy_constructor(dtype, args, kwargs):
    """`torch.Tensor(...)` (dtype None: the default float type), `FloatTensor(...)`,
    `DoubleTensor(...)`: PyTorch's legacy constructors take what `t.new(...)` takes and refuse
    it in the same words ("new(): ..."), so they are checked here, at their own door, against
    new's declaration, and made by the plain `legacy_new`."""
    args, kwargs = checked_values("new", args, kwargs, method=True)
    return legacy_new(dtype, *_legacy_form(args, kwargs))


def _legacy_form(args, kwargs):
    """A checked call of the legacy constructor as legacy_new takes it: (args, device, named).
    By keyword, the overload is the one named (`new(size=(2,))`: by position, a tuple is data;
    `new(data=2)` is refused as data)."""
    named = next((key for key in ("size", "data", "other") if key in kwargs), None)
    if named is not None:
        args = (kwargs[named],)
    return args, kwargs.get("device"), named


class TensorMethods:
    """Tensor's methods that hand the work to an operation (copied onto Tensor below)."""

    # -- construction ------------------------------------------------------------------------
    def __new__(cls, *args, **kwargs):
        """The legacy constructor `Tensor([2])`, or `Tensor(2, 3)` (zeros), in the default float
        type (float32 unless `set_default_dtype` changed it), as PyTorch's `torch.Tensor`."""
        return legacy_constructor(None, args, kwargs)

    def __copy__(self):
        """`copy.copy(t)` as PyTorch's, which rebuilds a tensor on t's storage: the same memory
        and version counter, but a leaf, with t's requires_grad and t's own Python attributes,
        and without its grad, grad_fn or retained gradient."""
        twin = type(self)._make(self._data, requires_grad=self.requires_grad,
                                version_counter=self._shared_version_counter())
        twin.__dict__.update((key, value) for key, value in self.__dict__.items()
                             if not hasattr(Tensor, key))  # (not the flags kept there)
        return twin

    @overload
    def new(self, *, device: Device = None): ...
    @overload
    def new(self, storage: Storage): ...
    @overload
    def new(self, other: Tensor): ...
    @overload
    def new(self, *size: Ints, device: Device = None): ...
    @overload
    def new(self, data: object, *, device: Device = None): ...
    @checked(method=True)
    def new(self, *args, **kwargs):
        """The legacy constructor in this tensor's dtype: `x.new(2, 3)` (zeros: tensorgrad never
        hands out uninitialised memory), `x.new([1, 2])` (a copy of the data), `x.new(y)` (y
        itself, if it has x's dtype), `x.new()` (empty)."""
        return legacy_new(self.dtype, *_legacy_form(args, kwargs))

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor with respect to the graph leaves.

        For a non-scalar tensor, `gradient` gives the weights v of the vector-Jacobian product
        vᵀJ. Gradients are *added* into each leaf's `.grad`.
        """
        if inputs is not None:
            inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
            if not inputs:
                raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        _backward_and_grad.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # -- conversions -------------------------------------------------------------------------
    @overload
    def to(self, device: Device = None, dtype: Dtype = None, non_blocking: bool = False,
           copy: bool = False, *, memory_format: MemoryFormat = None): ...
    @overload
    def to(self, dtype: Dtype, non_blocking: bool = False, copy: bool = False, *,
           memory_format: MemoryFormat = None): ...
    @overload
    def to(self, tensor: Tensor, non_blocking: bool = False, copy: bool = False, *,
           memory_format: MemoryFormat = None): ...
    @checked(method=True)
    def to(self, *args, **kwargs):
        """Convert to another dtype: `t.to(tensorgrad.float64)`, `t.to(other)` (other's dtype),
        `t.to("cpu", tensorgrad.float64)`, `copy=True` for a copy even when nothing changes.
        The only device is the CPU."""
        dtype, copy = to_arguments(args, kwargs)
        if copy and (dtype is None or dtype is self.dtype):
            return _ew.clone(self)
        return _as_dtype(self, dtype)

    def type(self, dtype=None):
        """The legacy type name ("tensorgrad.FloatTensor"), or a copy converted to `dtype` (a
        dtype or such a name)."""
        if dtype is None:
            return f"tensorgrad.{self.dtype._legacy_name}"
        if isinstance(dtype, type):  # a Python type names no tensor type here (as in PyTorch)
            raise ValueError(messages.INVALID_TYPE.format(name=_qualified(dtype)))
        if not isinstance(dtype, (str, dtypes.dtype)):
            raise TypeError(messages.TYPE_WHAT)
        if isinstance(dtype, str):
            named = {f"{prefix}.{d._legacy_name}": d for d in dtypes._ALL
                     for prefix in ("tensorgrad", "torch")}
            if dtype not in named:
                raise ValueError(messages.INVALID_TYPE.format(name=dtype))
            dtype = named[dtype]
        return _as_dtype(self, dtype)

    # (PyTorch's take a memory format, which tensorgrad has none of: only None passes)
    @checked(method=True)
    def float(self, *, memory_format: MemoryFormat = None):
        return _as_dtype(self, dtypes.float32)

    @checked(method=True)
    def double(self, *, memory_format: MemoryFormat = None):
        return _as_dtype(self, dtypes.float64)

    @checked(method=True)
    def long(self, *, memory_format: MemoryFormat = None):
        return _as_dtype(self, dtypes.int64)

    @checked(method=True)
    def bool(self, *, memory_format: MemoryFormat = None):
        return _as_dtype(self, dtypes.bool_)

    @checked(method=True)
    def contiguous(self, *, memory_format: MemoryFormat = "contiguous_format"):  # (not None)
        return _shape.contiguous(self)

    @checked(method=True)
    def cpu(self, *, memory_format: MemoryFormat = None):
        """The tensor itself: the CPU is tensorgrad's only device."""
        return self

    def __deepcopy__(self, memo):
        """`copy.deepcopy(t)` (and of a model that holds t): a leaf is copied as Python copies
        any object, its data, flags and gradient with it; a tensor made by a recorded operation
        is refused, as in PyTorch, rather than its graph being copied node by node."""
        if not self.is_leaf:
            raise RuntimeError(messages.DEEPCOPY_NON_LEAF)
        return copy._reconstruct(self, memo, *self.__reduce_ex__(4))  # (what deepcopy does for
                                                                      # an object without one)
    # -- printing ----------------------------------------------------------------------------
    def __repr__(self):
        grad_fn = self._grad_fn
        return printing.format_tensor(
            self._data,
            dtype_name=self.dtype.name,
            grad_fn_name=None if grad_fn is None else type(grad_fn).__name__,
            requires_grad=self._requires_grad,
            tangent=None if self._fw_tangent is None else _forward_ad._tangent_of(self),
            default_dtype_name=dtypes.get_default_dtype().name,
        )

    __str__ = __repr__

    def __format__(self, spec):
        # As torch: a 0-d tensor formats as its Python number (f"{t}" -> "2.0"), any other
        # tensor as its repr, and a format spec on those raises TypeError.
        if self._data.ndim == 0:
            return format(self._data.item(), spec)  # (item()'s value, without its check)
        return object.__format__(self, spec)

    # -- operators: each forwards to an operation in tensorgrad.ops ---------------------------
    # (binary_operator, above the class: a Tensor or a number on the other side, else
    # NotImplemented, and Python says "unsupported operand type(s)", as with torch)
    __add__, __radd__ = binary_operator(_add), binary_operator(_add)  # (each its own name)
    __sub__ = binary_operator(_sub)
    __rsub__ = binary_operator(_ew.rsub)
    __mul__, __rmul__ = binary_operator(_mul), binary_operator(_mul)
    __truediv__ = binary_operator(_div)
    _divide_into = binary_operator(_div, reflected=True)

    def __rtruediv__(self, other):
        """`2 / t`; and `array / t`, which PyTorch's Python `__rtruediv__` computes as
        `t.reciprocal() * array`: the tensor's operator declines the array, and NumPy multiplies
        (a float64 tensor, through __array_wrap__; the only reflected operator where torch takes
        an array)."""
        if type(other) is np.ndarray:
            return _ew.reciprocal(self) * other
        return self._divide_into(other)
    _power = binary_operator(_pow)

    def __pow__(self, exponent, modulo=None):
        """`t ** 2`. Three-argument `pow(t, 2, 3)` is declined, and Python words the TypeError
        ("unsupported operand type(s) for ** or pow(): 'Tensor', 'int', 'int'"), as with torch."""
        if modulo is not None:
            return NotImplemented
        return self._power(exponent)
    __rpow__ = binary_operator(_pow, reflected=True)
    __floordiv__ = binary_operator(_floor_divide)
    __rfloordiv__ = binary_operator(_floor_divide, reflected=True)
    __mod__ = binary_operator(_remainder)
    __rmod__ = binary_operator(_remainder, reflected=True)
    __eq__ = binary_operator(_eq, arrays=True)
    __ne__, __lt__, __le__, __gt__, __ge__ = (binary_operator(f) for f in (
        _ne, _lt, _le, _gt, _ge))
    __and__, __rand__, __or__, __ror__, __xor__, __rxor__ = (binary_operator(f) for f in (
        _ew.bitwise_and, _ew.bitwise_and, _ew.bitwise_or, _ew.bitwise_or, _ew.bitwise_xor,
        _ew.bitwise_xor))
    __lshift__ = binary_operator(_ew.bitwise_left_shift)
    __rlshift__ = binary_operator(_ew.bitwise_left_shift, reflected=True)
    __rshift__ = binary_operator(_ew.bitwise_right_shift)
    __rrshift__ = binary_operator(_ew.bitwise_right_shift, reflected=True)

    def __neg__(self):
        return _neg(self)

    def __pos__(self):
        if self._data.dtype.kind == "b":  # (PyTorch's positive() refuses bools, as neg() does)
            raise RuntimeError(messages.BOOL_POSITIVE)
        return self

    def __abs__(self):
        return _abs(self)

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return numpy_errors.quietly(_matmul, self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return numpy_errors.quietly(_matmul, other, self)

    def __array__(self, dtype=None, copy=None):
        """The tensor as NumPy sees it, as with PyTorch: `np.asarray(t)` shares the tensor's memory,
        `np.array(t)` (NumPy passes copy=True) is a copy, `copy=False` is refused (NumPy's
        message: PyTorch's `__array__` takes no `copy`, so NumPy refuses for it)."""
        if copy is False:
            raise ValueError(messages.NUMPY_COPY_REFUSED)
        dtype = self._data.dtype if dtype is None else dtype
        return self.numpy().astype(dtype, copy=bool(copy))

    _NO_SUCH_DTYPE_ADVICE = {"f": "convert the tensor first, for example with t.float()",
                             "c": "tensorgrad computes with real numbers only",
                             "i": "convert the array first, for example with array.astype(np.int64)",
                             "u": "convert the array first, for example with array.astype(np.int64)"}

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """What a NumPy ufunc makes of a tensor (`np.exp(t)`, `t + np.ones(3)`, where the tensor's
        operator declines the array): NumPy computes on the tensor's data (`__array__`, which
        refuses a tensor that requires grad, in PyTorch's words) and hands its result back here,
        to be a tensor again, as torch does. NumPy's arithmetic is not recorded in any graph.
        A result in a dtype tensorgrad has not (np.exp of a bool tensor is float16 in NumPy, a
        complex operand makes it complex, an int8 one an int8 result beside a bool tensor) is
        refused in words that say where it came from."""
        if array.dtype not in dtypes.NUMPY_DTYPES:  # (NumPy retries a TypeError here without
            raise TypeError(messages.NUMPY_RESULT_DTYPE.format(  # context: none is used)
                dtype=array.dtype, advice=self._NO_SUCH_DTYPE_ADVICE[array.dtype.kind]))
        return creation.from_numpy(array)

    def __invert__(self):
        return _ew.bitwise_not(self)

    def __getitem__(self, index):
        return _indexing.getitem(self, index)

    def __iter__(self):
        """The rows, as PyTorch's `iter(self.unbind(0))` gives them (each row's grad_fn is
        UnbindBackward0); a 0-d tensor refuses at once."""
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(_shape.unbind(self, 0))

    def __contains__(self, element):
        """`element in t`: is it equal to some element of t (a tensor: broadcast, anywhere)?"""
        if not _is_operand(element):
            raise RuntimeError(messages.CONTAINS_WHAT.format(type=type(element)))
        return bool((element == self)._data.any())  # (the plain array: checked once, here)

    def __reversed__(self):
        """`reversed(t)` is t flipped along its first dim, a tensor, as in PyTorch."""
        return self if self._data.ndim == 0 else _shape.flip(self, (0,))

    def __setitem__(self, index, value):
        _indexing.setitem(self, index, value)

    # -- methods with PyTorch's names: each is its operation, checked as PyTorch checks the method
    # (the function's overloads without `input` and `out`; see arguments.method)
    add, sub, mul, div, pow = (method(f) for f in (_ew.add, _ew.sub, _ew.mul, _ew.div, _ew.pow))
    clamp, clip, maximum, minimum = (method(f) for f in (
        _ew.clamp, _ew.clip, _ew.maximum, _ew.minimum))
    eq, ne, lt, le, gt, ge, equal = (method(f) for f in (
        _ew.eq, _ew.ne, _ew.lt, _ew.le, _ew.gt, _ew.ge, _ew.equal))
    isclose, allclose, floor_divide, remainder, logical_and, logical_or = (method(f) for f in (
        _ew.isclose, _ew.allclose, _ew.floor_divide, _ew.remainder, _ew.logical_and,
        _ew.logical_or))
    bitwise_and, bitwise_or, bitwise_xor, bitwise_left_shift, bitwise_right_shift = (
        method(f) for f in (_ew.bitwise_and, _ew.bitwise_or, _ew.bitwise_xor,
                            _ew.bitwise_left_shift, _ew.bitwise_right_shift))
    clone = method(_ew.clone)
    # (no arguments beside the tensor, as PyTorch's C methods; so are tensor.py's, below)
    square, neg, reciprocal, exp, log, log1p, expm1, sqrt, sin, cos, tanh, sigmoid, relu, abs, \
        sign, logical_not = (takes_no_arguments(f) for f in (
            _ew.square, _ew.neg, _ew.reciprocal, _ew.exp, _ew.log, _ew.log1p, _ew.expm1,
            _ew.sqrt, _ew.sin, _ew.cos, _ew.tanh, _ew.sigmoid, _ew.relu, _ew.abs, _ew.sign,
            _ew.logical_not))
    floor, ceil, trunc = (takes_no_arguments(f) for f in (_ew.floor, _ew.ceil, _ew.trunc))
    round = method(_ew.round)

    @overload
    def where(self, condition: Tensor, other: Tensor): ...
    @overload
    def where(self, condition: Tensor, other: Number): ...
    @checked(method=True)
    def where(self, condition, other):
        """`x.where(c, y)` is `tensorgrad.where(c, x, y)`."""
        return _ew.where(condition, self, other)

    sum_to_size = method(_red.sum_to_size)
    sum, mean, prod, max, min, amax, amin, argmax, argmin, var, std, all, any = (
        method(f) for f in (_red.sum, _red.mean, _red.prod, _red.max, _red.min, _red.amax,
                            _red.amin, _red.argmax, _red.argmin, _red.var, _red.std, _red.all,
                            _red.any))
    logsumexp, softmax, log_softmax, cumsum, gather = (method(f) for f in (
        _red.logsumexp, _red.softmax, _red.log_softmax, _red.cumsum, _red.gather))
    sort, argsort = method(_red.sort), method(_red.argsort)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return _red.norm(self, p, dim, keepdim, dtype=dtype)

    matmul, mm, bmm, mv, dot, outer = (method(f) for f in (
        _linalg.matmul, _linalg.mm, _linalg.bmm, _linalg.mv, _linalg.dot, _linalg.outer))

    reshape, view, flatten, transpose, permute, unsqueeze, squeeze, expand, expand_as, repeat, \
        flip, unbind, chunk = (method(f) for f in (
            _shape.reshape, _shape.view, _shape.flatten, _shape.transpose, _shape.permute,
            _shape.unsqueeze, _shape.squeeze, _shape.expand, _shape.expand_as, _shape.repeat,
            _shape.flip, _shape.unbind, _shape.chunk))
    t, ravel = takes_no_arguments(_shape.t), takes_no_arguments(_shape.ravel)
    swapaxes = method(_shape.swapaxes)
    index_select = method(_indexing.index_select)

    @overload
    def nonzero(self): ...
    @overload
    def nonzero(self, *, as_tuple: builtins.bool): ...  # (in here, `bool` is Tensor.bool)
    @checked(method=True)
    def nonzero(self, *, as_tuple=False):
        """(PyTorch's method has two forms, where its function has one: as_tuple is asked for
        by keyword or not at all.)"""
        return _indexing.nonzero(self, as_tuple=as_tuple)

    select, masked_fill = method(_indexing.select), method(_indexing.masked_fill)
    roll = method(_shape.roll)

    @checked(method=True)
    def view_as(self, other: Tensor):
        return _shape.view(self, other.shape)

    @checked(method=True)
    def reshape_as(self, other: Tensor):
        return _shape.reshape(self, other.shape)

    @checked(method=True)
    def broadcast_to(self, size: int | Ints):
        """(PyTorch's method takes a single int as well: it is `expand` underneath)"""
        return _shape.expand(self, size)

    @checked(method=True, python=True)
    def split(self, split_size: object, dim: object = 0):
        """(PyTorch's Tensor.split is Python too: it hands the call to split or split_with_sizes)"""
        return _shape.split(self, split_size, dim)

    size = checked(Tensor.size, method=True, like=_size)  # (tensor.py's own methods, checked)
    requires_grad_ = checked(Tensor.requires_grad_, method=True, like=_requires_grad_)
    dim, numel, nelement, item, tolist, data_ptr, is_floating_point, detach, \
        retain_grad = (takes_no_arguments(f) for f in (
            Tensor.dim, Tensor.numel, Tensor.nelement, Tensor.item, Tensor.tolist,
            Tensor.data_ptr, Tensor.is_floating_point, Tensor.detach, Tensor.retain_grad))

    @takes_no_arguments
    def detach_(self):
        """Out of the graph (tensor.py's detach_) and out of forward mode: the tangent goes too,
        as in PyTorch; kept, it would make the tensor still a dual number."""
        return detach_in_place(self)

    @read_only
    def T(self):  # noqa: N802  (PyTorch's name)
        return _shape.reverse_dims(self)

    @read_only
    def mT(self):  # noqa: N802  (PyTorch's name)
        return _shape.matrix_transpose(self)

    # -- in-place methods (see ops/inplace.py for the rules) --------------------------------------
    @checked(method=True, complex_into=True)
    def add_(self, other: Tensor, *, alpha: Number = 1):
        if isinstance(other, complex):
            return _complex_into(self, other, alpha)
        return _inplace.add_(self, other, alpha)

    @checked(method=True, complex_into=True)
    def sub_(self, other: Tensor, *, alpha: Number = 1):
        if isinstance(other, complex):
            return _complex_into(self, other, alpha)
        return _inplace.sub_(self, other, alpha)

    @checked(method=True, complex_into=True)
    def mul_(self, other: Tensor):
        if isinstance(other, complex):
            return _complex_into(self, other)
        return _inplace.mul_(self, other)

    @overload
    def div_(self, other: Tensor): ...
    @overload
    def div_(self, other: Tensor, *, rounding_mode: str | None): ...
    @overload
    def div_(self, other: Number, *, rounding_mode: str | None): ...
    @checked(method=True, complex_into=True)
    def div_(self, other, *, rounding_mode=None):
        if isinstance(other, complex):
            return _complex_into(self, other)
        return _inplace.div_(self, other, rounding_mode)

    pow_, remainder_, bitwise_and_, bitwise_or_, bitwise_xor_, bitwise_left_shift_, \
        bitwise_right_shift_, floor_divide_ = (
            in_place_binary_form(plain) for plain in _PLAIN_IN_PLACE_BINARY.values())

    clamp_, fill_ = method(_inplace.clamp_), method(_inplace.fill_)
    masked_fill_ = method(_indexing.masked_fill_)
    neg_, exp_, log_, sqrt_, tanh_, sigmoid_, relu_, sin_, cos_, abs_, reciprocal_, square_, \
        sign_, floor_, ceil_, trunc_ = (in_place_form(name) for name in IN_PLACE_OF)

    @overload
    def round_(self): ...
    @overload
    def round_(self, *, decimals: int): ...
    @checked(method=True)
    def round_(self, *, decimals=None):
        """In place: x becomes round(x) (to `decimals` places, if given)."""
        return round_in_place(self, decimals)

    # (`a += b` has its operand checked by binary_operator, so it calls the plain in-place
    # functions, checked once, as `a + b` does)
    __iadd__, __isub__, __imul__, __itruediv__ = (binary_operator(f) for f in (
        _inplace.add_, _inplace.sub_, _inplace.mul_, _inplace.div_))
    __ifloordiv__, __imod__, __ipow__, __iand__, __ior__, __ixor__, __ilshift__, \
        __irshift__ = (binary_operator(_PLAIN_IN_PLACE_BINARY[name]) for name in (
            "floor_divide", "remainder", "pow", "bitwise_and", "bitwise_or", "bitwise_xor",
            "bitwise_left_shift", "bitwise_right_shift"))

    @takes_no_arguments
    def zero_(self):
        return _inplace.zero_(self)

    @checked(method=True, like=_copy_)
    def copy_(self, other, non_blocking=False):
        if not isinstance(other, Tensor):  # a number: PyTorch takes it as a 0-d tensor
            if isinstance(other, (complex, np.complexfloating)):
                other = other.real  # (into a real tensor: the imaginary part is dropped)
            other = Tensor._make(np.asarray(other, dtype=self._data.dtype))
        return _inplace.copy_(self, other)
    @checked(method=True, like=_normal_)
    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """Fill with normal samples (recorded as NormalBackward0, whose gradient is zero)."""
        return normal_fill(self, mean, std)

    @checked(method=True, like=_uniform_)
    def uniform_(self, from_=0.0, to=1.0, *, generator=None):
        """Fill with uniform samples in [from, to) (recorded as UniformBackward0: zero gradient)."""
        return uniform_fill(self, from_, to)

    # -- how the elements lie in memory, counted in elements as PyTorch counts (NumPy: bytes) ------
    @checked(method=True, like=_stride)
    def stride(self, dim=None):
        """The step in memory from one element to the next along each dim (a tuple), or along
        `dim`: (3, 1) for a 2x3 tensor, (1, 3) for its transpose, 0 along an expanded dim."""
        steps = _steps_in_elements(self._data)
        if dim is None:
            return steps
        if not steps:
            raise IndexError(messages.NO_DIMENSIONS.format(dim=dim))
        return steps[_normalize_dim(dim, len(steps))]

    @checked(method=True, like=_is_contiguous)
    def is_contiguous(self, *, memory_format="contiguous_format"):
        """Do the elements lie in memory in row order, without gaps? Dims of size 1 do not
        count (their step is never taken); a transpose or a slice with a step is not."""
        if memory_format != "contiguous_format":
            return False  # (channels_last and the like: tensorgrad has only row order)
        if self._data.size == 0:
            return True  # (no element to lie anywhere)
        expected = 1
        for size, step in reversed(list(zip(self._data.shape, _steps_in_elements(self._data)))):
            if size != 1 and step != expected:
                return False
            expected *= size
        return True

    @takes_no_arguments
    def element_size(self):
        """The bytes one element takes: 4 for float32, 8 for float64 and int64, 1 for bool."""
        return self._data.itemsize

    @takes_no_arguments
    def storage_offset(self):
        """Where this tensor's first element lies in the memory it shares with the tensor it is
        a view of, in elements: 1 for `x[1:]` of a 1-d x, 0 for a tensor of its own."""
        owner = self._data
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        start = self._data.__array_interface__["data"][0]
        return (start - owner.__array_interface__["data"][0]) // self._data.itemsize

    # -- new tensors like this one: its dtype (and its device, the CPU) unless told otherwise -------
    @checked(method=True, like=_new_full)
    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        """A tensor of `size` holding `fill_value`, in this tensor's dtype (the value does not
        choose it, as it does in `full`): `x.new_full((2,), 3)` is float32 for a float32 x."""
        return _new_filled(self, (tuple(size),), fill_value, dtype, device, requires_grad)

    @checked(method=True, like=_new_zeros)
    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        """Zeros of `size` (one tuple, or the sizes one by one), in this tensor's dtype."""
        return _new_filled(self, size, 0, dtype, device, requires_grad)

    @checked(method=True, like=_new_ones)
    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        """Ones of `size`, in this tensor's dtype."""
        return _new_filled(self, size, 1, dtype, device, requires_grad)

    @checked(method=True, like=_new_empty)
    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        """Like new_zeros: tensorgrad never hands out uninitialised memory."""
        return _new_filled(self, size, 0, dtype, device, requires_grad)

    @checked(method=True, like=_new_tensor)
    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        """`tensorgrad.tensor(data)` in this tensor's dtype: a copy, whatever `data` is."""
        if isinstance(data, Tensor):
            warnings.warn(messages.COPY_CONSTRUCT_NEW, UserWarning, stacklevel=2)
            data = data._data
        return creation.tensor(data, dtype=dtype or self.dtype, device=device,
                               requires_grad=requires_grad)

    def _copy_for_grad(self):
        """`.grad` under create_graph: a recorded copy (core/node.py: AccumulateGrad.apply)."""
        return _ew.copy_for_grad(self)

    # The plain functions the library reaches through Tensor where it may not import the
    # operations: the engine (core/engine.py: fit_gradient) and the derivative table's formulas
    # (derivatives.py sits below ops/, which records its nodes). `grad._expand(size)` is
    # ops/shape.py's `expand(grad, size)`: the public `grad.expand(size)` without its argument
    # check, which is for the learner's calls; the library's own values are right.
    _sum_to = plain_method(_red.sum_to)

    def _cast(self, numpy_dtype):
        return _ew.to_dtype(self, dtypes.from_numpy_dtype(numpy_dtype))

    # core/tensor.py's requires_grad_ as written there: read before attach() below gives Tensor
    # its checked form under the public name
    _requires_grad_ = Tensor.requires_grad_
    _index_select = plain_method(_indexing.index_select)  # (index_select's forward-mode rule)

    _div, _clamp, _where, _clone, _exp, _log, _log1p, _sin, _cos, _abs, _sign, _relu, \
        _sigmoid = (plain_method(f) for f in (
            _ew.div, _ew.clamp, _where_of_self, _ew.clone, _ew.exp, _ew.log, _ew.log1p, _ew.sin,
            _ew.cos, _ew.abs, _ew.sign, _ew.relu, _ew.sigmoid))
    _sum, _mean, _cumsum, _gather = (plain_method(f) for f in (
        _red.sum, _red.mean, _red.cumsum, _red.gather))
    _mm, _mv, _bmm, _dot = (plain_method(f) for f in (
        _linalg.mm, _linalg.mv, _linalg.bmm, _linalg.dot))
    _reshape, _expand, _t, _transpose, _permute, _squeeze, _unsqueeze, _flip, _roll, _repeat, \
        _select, _view, _detach = (plain_method(f) for f in (
            _shape.reshape, _shape.expand, _shape.t, _shape.transpose, _shape.permute,
            _shape.squeeze, _shape.unsqueeze, _shape.flip, _shape.roll, _shape.repeat,
            _indexing.select, _shape.view, _shape.detach))  # (_view, _detach: forward_ad.py's)

    __hash__ = object.__hash__  # (defining __eq__ above would otherwise unset it)


_OPERAND_TYPES = frozenset((Tensor, int, float, bool))  # tested first: the common case
_INT64 = 2 ** 63


def _steps_in_elements(data):
    """A NumPy array's strides as PyTorch's: in elements, not bytes; an empty array's as a fresh
    tensor's (its memory is never read); and a dim of size 1 that NumPy added with step 0
    (`x[None]`) with the step PyTorch's unsqueeze gives it, the size times the step of the dim
    after it."""
    steps = [step // data.itemsize for step in data.strides]
    after = 1  # (the step after the last dim)
    for d in reversed(range(data.ndim)):
        if data.size == 0 or data.shape[d] == 1 and steps[d] == 0:
            steps[d] = after
        after = steps[d] * max(data.shape[d], 1)
    return tuple(steps)


def detach_in_place(tensor):
    """`tensor.detach_()` as the library calls it (Module.zero_grad), without the argument check."""
    _detach_from_the_graph(tensor)
    tensor._fw_tangent = None
    return tensor


def normal_fill(tensor, mean, std):
    """`tensor.normal_(mean, std)` as the library calls it (nn.init), without the argument check."""
    if not std >= 0:  # nan too
        raise RuntimeError(messages.NEGATIVE_STD.format(std=std))
    _check_random_fill(tensor, "normal_kernel_cpu")
    return _inplace.random_fill_(tensor, "normal",
                                 _random._normal_array(tensor.shape, mean, std, tensor._data.dtype))


def uniform_fill(tensor, from_, to):
    """`tensor.uniform_(from_, to)` as the library calls it (nn.init), without the argument check."""
    limit = np.finfo(tensor._data.dtype).max if tensor.dtype.is_floating_point else None
    for name, value in (("from", from_), ("to", to)):
        if limit is not None and not -limit <= value <= limit:  # inf and nan too
            raise RuntimeError(f"{name} is out of bounds for {tensor.dtype.scalar_name.lower()}")
    if from_ > to:
        raise RuntimeError(messages.UNIFORM_RANGE.format(a=from_, b=to))
    _check_random_fill(tensor, "check_uniform_bounds")
    return _inplace.random_fill_(tensor, "uniform",
                                 _random._uniform_array(tensor.shape, from_, to, tensor._data.dtype))


def _check_random_fill(tensor, kernel):
    """A random fill is an in-place change: refused on a leaf that requires grad, unless under
    no_grad() (as weight initialisation does); and only of floating-point tensors (PyTorch's
    kernels have no integer or bool versions)."""
    if is_grad_enabled():
        _inplace.check_allowed(tensor)
    if not tensor.dtype.is_floating_point:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(
            kernel=kernel, dtype=tensor.dtype.scalar_name))


def _new_filled(tensor, size, value, dtype, device, requires_grad):
    """new_full, new_zeros, new_ones: `value` in every element, in `tensor`'s dtype unless
    `dtype` is given (the value must fit it: 2 ** 63 into int64 is refused)."""
    check_device(device)
    dtype = dtype or tensor.dtype
    creation.check_value_fits(value, dtype.numpy)
    data = np.full(creation._size_arg(size), value, dtype=dtype.numpy)
    return creation._finish(data, None, requires_grad)


def _qualified(cls):
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


def _is_operand(value):
    """What an operator takes besides a Tensor: a Python or NumPy number. For anything else the
    operator returns NotImplemented, and Python raises its own TypeError, as with torch."""
    return isinstance(value, _ew.OPERAND_TYPES)


def to_arguments(args, kwargs):
    """The dtype (or None) and the copy flag that `.to(...)` asks for. The call is already checked
    against the three forms: to(device, dtype, non_blocking, copy), to(dtype, non_blocking,
    copy) and to(tensor, non_blocking, copy)."""
    first = args[0] if args else kwargs.get("tensor")  # (the third form's by keyword: to(tensor=t))
    if isinstance(first, dtypes.dtype) or first in (float, int, bool):
        dtype, rest = first, args[1:]
        copy = rest[1] if len(rest) > 1 else kwargs.get("copy", False)
    elif isinstance(first, Tensor):
        dtype, rest = first.dtype, args[1:]
        copy = rest[1] if len(rest) > 1 else kwargs.get("copy", False)
    else:
        check_device(first if args else kwargs.get("device"))
        dtype = args[1] if len(args) > 1 else kwargs.get("dtype")
        copy = args[3] if len(args) > 3 else kwargs.get("copy", False)
    return (None if dtype is None else dtypes.check_dtype(dtype)), copy


def attach(methods, cls):
    """Copy every method of `methods` onto `cls`, named as if written there (`Tensor.add`)."""
    for name, value in vars(methods).items():
        if name in ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__"):
            continue
        function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
        if isinstance(function, types.FunctionType):
            function.__qualname__ = f"{cls.__name__}.{name}"
            # a checked method's own function too: Python's own messages name it (t.split())
            inner = inspect.unwrap(function)
            if inner.__qualname__.startswith(methods.__name__ + "."):
                inner.__qualname__ = function.__qualname__
        setattr(cls, name, value)


attach(TensorMethods, Tensor)  # the one place where Tensor gets its operators and methods
