"""What a tensor does: its operators and its methods with PyTorch's names, attached in one place.

tensor.py says what a tensor *is*: NumPy data, the autograd flags (requires_grad, grad_fn,
is_leaf, grad) and how gradients arrive from the engine. Everything a tensor *does*, `a * b`,
`x.sum()`, `x.exp_()`, printing, `.to(...)`, is an operation of tensorgrad.ops, and the methods
here only hand it on. They are written as a class body, to be read like one, and copied onto
Tensor at the bottom of this file. So tensor.py imports no operation, and each layer of the
library imports only the layers below it (README, "Reading the source").
"""

import types

import numpy as np

from . import arguments, creation, dtypes, printing
from . import random as _random
from .autograd import backward_and_grad as _backward_and_grad
from .device import check_device
from .autograd import forward_ad as _forward_ad
from .autograd import messages
from .autograd.grad_mode import is_grad_enabled
from .autograd.grad_mode import no_grad as _no_grad
from .ops import elementwise as _ew
from .ops import indexing as _indexing
from .ops import inplace as _inplace
from .ops import linalg as _linalg
from .ops import reduction as _red
from .ops import shape as _shape
from .tensor import Tensor

class TensorMethods:
    """Tensor's methods that hand the work to an operation (copied onto Tensor below)."""

    # -- construction ------------------------------------------------------------------------
    def __new__(cls, *args):
        """The legacy constructor `Tensor([2])` (always float32), or `Tensor(2, 3)` (zeros)."""
        if len(args) == 1 and not isinstance(args[0], (int, list, tuple, np.ndarray, Tensor)):
            raise TypeError(messages.LEGACY_NOT_A_SEQUENCE.format(type_name=type(args[0]).__name__))
        if len(args) == 1 and not isinstance(args[0], int):
            data = np.array(creation.nested_values(args[0]), dtype=np.float32)
        else:
            data = np.zeros(args, dtype=np.float32)
        return cls._make(data)

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
    def to(self, *args, **kwargs):
        """Convert to another dtype: `t.to(tensorgrad.float64)`, `t.to(other)` (other's dtype),
        `t.to("cpu", tensorgrad.float64)`, `copy=True` for a copy even when nothing changes.
        The only device is the CPU."""
        dtype, copy = to_arguments(args, kwargs)
        if dtype is None or dtype is self.dtype:
            return _ew.clone(self) if copy else self
        return _ew.to_dtype(self, dtype)

    def type(self, dtype=None):
        """The legacy type name ("tensorgrad.FloatTensor"), or a copy converted to `dtype` (a
        dtype or such a name)."""
        if dtype is None:
            return f"tensorgrad.{self.dtype._legacy_name}"
        if isinstance(dtype, str):
            named = {f"{prefix}.{d._legacy_name}": d for d in dtypes._ALL
                     for prefix in ("tensorgrad", "torch")}
            if dtype not in named:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = named[dtype]
        return self.to(dtype)

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def long(self):
        return self.to(dtypes.int64)

    def bool(self):
        return self.to(dtypes.bool_)

    def contiguous(self):
        return _shape.contiguous(self)

    # -- printing ----------------------------------------------------------------------------
    def __repr__(self):
        grad_fn = self._grad_fn
        return printing.format_tensor(
            self._data,
            dtype_name=self.dtype.name,
            grad_fn_name=None if grad_fn is None else type(grad_fn).__name__,
            requires_grad=self._requires_grad,
            tangent=None if self._fw_tangent is None else _forward_ad._tangent_of(self),
        )

    __str__ = __repr__

    def __format__(self, spec):
        # As torch: a 0-d tensor formats as its Python number (f"{t}" -> "2.0"), any other
        # tensor as its repr, and a format spec on those raises TypeError.
        if self._data.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    # -- operators: each forwards to an operation in tensorgrad.ops ---------------------------
    def __add__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.add(self, other)

    def __radd__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.add(self, other)

    def __sub__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.sub(self, other)

    def __rsub__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.rsub(self, other)

    def __mul__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.mul(self, other)

    def __rmul__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.mul(self, other)

    def __truediv__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.div(self, other)

    def __rtruediv__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.div(other, self)

    def __pow__(self, exponent):
        if type(exponent) not in _OPERAND_TYPES and not _is_operand(exponent):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.pow(self, exponent)

    def __rpow__(self, base):
        if type(base) not in _OPERAND_TYPES and not _is_operand(base):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.pow(base, self)

    def __neg__(self):
        return _ew.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _ew.abs(self)

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return _linalg.matmul(self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return _linalg.matmul(other, self)

    def __floordiv__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.floor_divide(self, other)

    def __mod__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.remainder(self, other)

    def __iadd__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return self.add_(other)

    def __isub__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return self.sub_(other)

    def __imul__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return self.mul_(other)

    def __itruediv__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return self.div_(other)

    def __eq__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.eq(self, other)

    def __ne__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.ne(self, other)

    def __lt__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.lt(self, other)

    def __le__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.le(self, other)

    def __gt__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.gt(self, other)

    def __ge__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.ge(self, other)

    def __and__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.bitwise_and(self, other)

    def __or__(self, other):
        if type(other) not in _OPERAND_TYPES and not _is_operand(other):
            return NotImplemented  # Python then says: unsupported operand type(s)
        return _ew.bitwise_or(self, other)

    def __invert__(self):
        return _ew.bitwise_not(self)

    def __getitem__(self, index):
        return _indexing.getitem(self, index)

    def __setitem__(self, index, value):
        _indexing.setitem(self, index, value)

    # -- methods with PyTorch's names -----------------------------------------------------------
    def add(self, other, *, alpha=1):
        return _ew.add(self, other, alpha=alpha)

    def sub(self, other, *, alpha=1):
        return _ew.sub(self, other, alpha=alpha)

    def mul(self, other):
        return _ew.mul(self, other)

    def div(self, other, *, rounding_mode=None):
        return _ew.div(self, other, rounding_mode=rounding_mode)

    def pow(self, exponent):
        return _ew.pow(self, exponent)

    def square(self):
        return _ew.square(self)

    def neg(self):
        return _ew.neg(self)

    def reciprocal(self):
        return _ew.reciprocal(self)

    def exp(self):
        return _ew.exp(self)

    def log1p(self):
        return _ew.log1p(self)

    def expm1(self):
        return _ew.expm1(self)

    def where(self, condition, other):
        """`x.where(c, y)` is `tensorgrad.where(c, x, y)`."""
        return _ew.where(condition, self, other)

    def cumsum(self, dim, *, dtype=None):
        return _red.cumsum(self, dim, dtype=dtype)

    def flip(self, dims):
        return _shape.flip(self, dims)

    def log(self):
        return _ew.log(self)

    def sqrt(self):
        return _ew.sqrt(self)

    def sin(self):
        return _ew.sin(self)

    def cos(self):
        return _ew.cos(self)

    def tanh(self):
        return _ew.tanh(self)

    def sigmoid(self):
        return _ew.sigmoid(self)

    def relu(self):
        return _ew.relu(self)

    def abs(self):
        return _ew.abs(self)

    def sign(self):
        return _ew.sign(self)

    def clamp(self, min=None, max=None):  # noqa: A002
        return _ew.clamp(self, min, max)

    clip = clamp

    def maximum(self, other):
        return _ew.maximum(self, other)

    def minimum(self, other):
        return _ew.minimum(self, other)

    def clone(self):
        """A copy with its own memory, still connected to the graph (CloneBackward0)."""
        return _ew.clone(self)

    def eq(self, other):
        return _ew.eq(self, other)

    def ne(self, other):
        return _ew.ne(self, other)

    def lt(self, other):
        return _ew.lt(self, other)

    def le(self, other):
        return _ew.le(self, other)

    def gt(self, other):
        return _ew.gt(self, other)

    def ge(self, other):
        return _ew.ge(self, other)

    def equal(self, other):
        return _ew.equal(self, other)

    def all(self, dim=None, keepdim=False):
        return _red.all_or_any(np.all, self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        return _red.all_or_any(np.any, self, dim, keepdim)

    def logical_not(self):
        return _ew.logical_not(self)

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        return _red.sum(self, dim, keepdim, dtype=dtype)

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        return _red.mean(self, dim, keepdim, dtype=dtype)

    def max(self, dim=None, keepdim=False):
        return _red.max(self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        return _red.min(self, dim, keepdim)

    def amax(self, dim=(), keepdim=False):
        return _red.amax(self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return _red.amin(self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        return _red.argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return _red.argmin(self, dim, keepdim)

    def prod(self, dim=None, keepdim=False, *, dtype=None):
        return _red.prod(self, dim, keepdim, dtype=dtype)

    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return _red.var(self, dim, unbiased, keepdim, correction=correction)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        return _red.std(self, dim, unbiased, keepdim, correction=correction)

    def norm(self, p="fro", dim=None, keepdim=False):
        return _red.norm(self, p, dim, keepdim)

    def logsumexp(self, dim, keepdim=False):
        return _red.logsumexp(self, dim, keepdim)

    def softmax(self, dim, dtype=None):
        return _red.softmax(self, dim, dtype)

    def log_softmax(self, dim, dtype=None):
        return _red.log_softmax(self, dim, dtype)

    def gather(self, dim, index):
        return _red.gather(self, dim, index)

    def matmul(self, other):
        return _linalg.matmul(self, other)

    def mm(self, other):
        return _linalg.mm(self, other)

    def bmm(self, mat2):
        return _linalg.bmm(self, mat2)

    def mv(self, vec):
        return _linalg.mv(self, vec)

    def dot(self, other):
        return _linalg.dot(self, other)

    def reshape(self, *shape):
        return _shape.reshape(self, *shape)

    def view(self, *shape):
        return _shape.view(self, *shape)

    def view_as(self, other):
        return _shape.view(self, other.shape)

    def reshape_as(self, other):
        return _shape.reshape(self, other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        return _shape.flatten(self, start_dim, end_dim)

    def transpose(self, dim0, dim1):
        return _shape.transpose(self, dim0, dim1)

    def t(self):
        return _shape.t(self)

    @property
    def T(self):  # noqa: N802  (PyTorch's name)
        return _shape.reverse_dims(self)

    @property
    def mT(self):  # noqa: N802  (PyTorch's name)
        return _shape.matrix_transpose(self)

    def permute(self, *dims):
        return _shape.permute(self, *dims)

    def unsqueeze(self, dim):
        return _shape.unsqueeze(self, dim)

    def squeeze(self, dim=None):
        return _shape.squeeze(self, dim)

    def expand(self, *sizes):
        return _shape.expand(self, *sizes)

    def expand_as(self, other):
        return _shape.expand_as(self, other)

    def repeat(self, *repeats):
        return _shape.repeat(self, *repeats)

    def select(self, dim, index):
        return _indexing.select(self, dim, index)

    def unbind(self, dim=0):
        return _shape.unbind(self, dim)

    def split(self, split_size, dim=0):
        return _shape.split(self, split_size, dim)

    def chunk(self, chunks, dim=0):
        return _shape.chunk(self, chunks, dim)

    # -- in-place methods (see ops/inplace.py for the rules) --------------------------------------
    def add_(self, other, *, alpha=1):
        return _inplace.apply_arithmetic(self, np.add, other, alpha,
                                         lambda: _ew.add(self, other, alpha=alpha))

    def sub_(self, other, *, alpha=1):
        return _inplace.apply_arithmetic(self, np.subtract, other, alpha,
                                         lambda: _ew.sub(self, other, alpha=alpha))

    def mul_(self, other):
        return _inplace.apply_arithmetic(self, np.multiply, other, 1, lambda: _ew.mul(self, other))

    def div_(self, other):
        return _inplace.apply(self, lambda: _ew.div(self, other), (other,))

    def pow_(self, exponent):
        return _inplace.apply(self, lambda: _ew.pow(self, exponent), (exponent,))

    def clamp_(self, min=None, max=None):  # noqa: A002
        return _inplace.apply(self, lambda: _ew.clamp(self, min, max))

    def zero_(self):
        return _inplace.zero_(self)

    def fill_(self, value):
        return _inplace.fill_(self, value)

    def copy_(self, source, non_blocking=False):
        if not isinstance(source, Tensor):  # a number: PyTorch takes it as a 0-d tensor
            source = Tensor._make(np.asarray(source, dtype=self._data.dtype))
        return _inplace.copy_(self, source)

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """Fill with normal samples (no graph: used to initialise weights)."""

        if not std >= 0:  # nan too
            raise RuntimeError(messages.NEGATIVE_STD.format(std=std))
        self._check_random_fill()
        with _no_grad():
            return self.copy_(Tensor._make(_random.normal_array(self.shape, mean, std, self._data.dtype)))

    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        """Fill with uniform samples in [a, b) (no graph: used to initialise weights)."""

        limit = np.finfo(self._data.dtype).max if self.dtype.is_floating_point else None
        for name, value in (("from", a), ("to", b)):
            if limit is not None and not -limit <= value <= limit:  # inf and nan too
                raise RuntimeError(f"{name} is out of bounds for {self.dtype.scalar_name.lower()}")
        if a > b:
            raise RuntimeError(messages.UNIFORM_RANGE.format(a=a, b=b))
        self._check_random_fill()
        with _no_grad():
            return self.copy_(Tensor._make(_random.uniform_array(self.shape, a, b, self._data.dtype)))

    def _check_random_fill(self):
        """A random fill is an in-place change: refused on a leaf that requires grad, unless
        under no_grad() (as weight initialisation does)."""
        if is_grad_enabled():
            _inplace.check_allowed(self)

    def new_tensor(self, data, dtype=None, requires_grad=False):
        return creation.tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, requires_grad=False):
        return creation.zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, requires_grad=False):
        return creation.ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    __hash__ = object.__hash__  # (defining __eq__ above would otherwise unset it)


_OPERAND_TYPES = frozenset((Tensor, int, float, bool))  # tested first: the common case


def _is_operand(value):
    """What an operator takes besides a Tensor: a Python or NumPy number. For anything else the
    operator returns NotImplemented, and Python raises its own TypeError, as with torch."""
    return isinstance(value, (Tensor, int, float, np.number, np.bool_))


def to_arguments(args, kwargs):
    """The dtype (or None) and the copy flag that `.to(...)` asks for. The call is already checked
    against the three forms: to(device, dtype, non_blocking, copy), to(dtype, non_blocking,
    copy) and to(tensor, non_blocking, copy)."""
    first = args[0] if args else None
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
        setattr(cls, name, value)


attach(TensorMethods, Tensor)
Tensor._copy_for_grad = _ew.copy_for_grad  # `.grad` under create_graph: a recorded copy

# In-place forms of the functions of one tensor: `x.exp_()` computes exp(x) and makes it x's new
# value, with the leaf and version rules of every in-place operation (ops/inplace.py).
IN_PLACE_OF = ("neg", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "sin", "cos", "abs",
               "reciprocal", "square", "sign")


def _in_place_form(name):
    function = getattr(_ew, name)

    def method(self):
        return _inplace.apply(self, lambda: function(self))

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"In place: x becomes {name}(x)."
    return method


for _name in IN_PLACE_OF:
    setattr(Tensor, _name + "_", _in_place_form(_name))

# Functions that PyTorch also offers as Tensor methods (`x.isclose(y)` as `isclose(x, y)`).
for _module, _names in ((_ew, ("allclose", "isclose", "floor_divide", "remainder", "logical_and",
                               "logical_or")), (_linalg, ("outer",))):
    for _name in _names:
        setattr(Tensor, _name, getattr(_module, _name))
Tensor.broadcast_to = Tensor.expand  # (PyTorch's method is expand: it takes a single int too)

arguments.check_methods(Tensor)  # every method with arguments checks them first (arguments.py)
