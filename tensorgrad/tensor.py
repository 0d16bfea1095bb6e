"""The Tensor: a NumPy array plus the flags autograd needs.

A Tensor holds
  * `_data`, the NumPy array with the values;
  * `requires_grad`: should gradients be computed for it?
  * `grad_fn`: the graph node that produced it (None for a leaf, a tensor made by the user);
  * `grad`: for a leaf, the gradient that backward() accumulated;
  * a version counter, bumped by every in-place change, shared by tensors that share memory.

Arithmetic operators and methods only forward to the functions in `tensorgrad.ops`, where each
operation and its derivative live side by side. This file is about the flags and their rules.
"""

import warnings
import weakref

import numpy as np

from . import dtypes, printing
from .autograd import messages
from .autograd.grad_mode import is_grad_enabled
from .utils.hooks import RemovableHandle
from .size import Size
from .version_counter import VersionCounter




class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    __slots__ = (
        "_data",
        "_grad_fn",
        "_version_counter",
        "__dict__",  # users may attach attributes (t.name = "x"), as with torch tensors
        "__weakref__",
    )

    # Most tensors are intermediate results that never use the attributes below. Their defaults
    # live on the class, and a tensor gets its own value only when one is set (a leaf's
    # requires_grad, a view's base, ...). That keeps creating a tensor, which every operation
    # does, down to three assignments.
    _requires_grad = False
    _output_nr = 0  # which output of its grad_fn this tensor is (max(dim) has two)
    _grad = None
    _base = None  # the tensor whose memory this view shares
    # A view's `(base's grad_fn,)` when the view was taken (see as_view): a tuple, so that a base
    # without a grad_fn (None) is remembered too.
    _view_of_grad_fn = None
    _backward_hooks = None
    _retains_grad = False
    _accumulator_ref = None
    _fw_tangent = None  # (dual level, tangent) in forward-mode AD (autograd/forward_ad.py)

    __array_priority__ = 1000  # so that `numpy_value * tensor` is handled by Tensor
    __array_ufunc__ = None

    # -- construction ------------------------------------------------------------------------
    def __new__(cls, *args):
        """The legacy constructor `Tensor([2])` (always float32), or `Tensor(2, 3)` (zeros)."""
        if len(args) == 1 and not isinstance(args[0], (int, list, tuple, np.ndarray, Tensor)):
            raise TypeError(messages.LEGACY_NOT_A_SEQUENCE.format(type_name=type(args[0]).__name__))
        if len(args) == 1 and not isinstance(args[0], int):
            from .creation import nested_values

            data = np.array(nested_values(args[0]), dtype=np.float32)
        else:
            data = np.zeros(args, dtype=np.float32)
        return cls._make(data)

    @classmethod
    def _make(cls, data, requires_grad=False, grad_fn=None, output_nr=0, version_counter=None,
              base=None):
        """Wrap a NumPy result as a Tensor (internal: no copying, no checks)."""
        if type(data) is not np.ndarray:
            data = np.asarray(data)
        tensor = object.__new__(cls)
        tensor._data = data
        tensor._grad_fn = grad_fn
        tensor._version_counter = version_counter  # None until needed: see _shared_version_counter
        if requires_grad:
            tensor._requires_grad = True
        if output_nr:
            tensor._output_nr = output_nr
        if base is not None:
            tensor._base = base
        return tensor

    # -- flags and their rules ---------------------------------------------------------------
    @property
    def dtype(self):
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def grad_fn(self):
        """The node that created this tensor, or None for a leaf."""
        return self._grad_fn

    @property
    def is_leaf(self):
        """True for tensors not produced by a recorded operation (grad_fn is None)."""
        return self._grad_fn is None

    @property
    def requires_grad(self):
        return self._grad_fn is not None or self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._set_requires_grad(flag, messages.INT_REQUIRES_GRAD_ATTRIBUTE)

    def requires_grad_(self, requires_grad=True):
        """Set requires_grad in place and return the tensor itself."""
        self._set_requires_grad(requires_grad, messages.INT_REQUIRES_GRAD_METHOD)
        return self

    def _set_requires_grad(self, flag, int_message):
        if not isinstance(flag, (bool, np.bool_)):  # (the method's argument is checked already)
            raise RuntimeError(messages.REQUIRES_GRAD_NOT_BOOL)
        flag = bool(flag)
        if self._grad_fn is not None:
            if not flag:
                raise RuntimeError(messages.ONLY_LEAF_FLAGS)
            return  # turning it on for a non-leaf is accepted and changes nothing
            # (tests/spec/test_s1_creation_flags_printing.py)
        if flag and not self.dtype.is_floating_point:
            raise RuntimeError(int_message)
        self._requires_grad = flag

    @property
    def grad(self):
        """The accumulated gradient of a leaf (or of a tensor that called retain_grad())."""
        if self._grad_fn is not None and not self._retains_grad:
            warnings.warn(messages.NON_LEAF_GRAD_ACCESS, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if value is self:
                raise RuntimeError(messages.GRAD_IS_SELF)
            if not isinstance(value, Tensor):
                raise TypeError(
                    "assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value.shape != self.shape:
                raise RuntimeError(messages.GRAD_ASSIGN_SIZE.format(
                    grad_size=_bracketed(value.shape), size=_bracketed(self.shape)))
            if value.dtype is not self.dtype:
                raise RuntimeError(messages.GRAD_ASSIGN_DTYPE.format(
                    grad_dtype=_C_TYPE_NAMES[value.dtype.name],
                    dtype=self.dtype.scalar_name))
        self._grad = value

    @property
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Ask backward() to fill `.grad` of this non-leaf tensor too."""
        if not self.requires_grad:
            raise RuntimeError(messages.RETAIN_GRAD_NO_REQUIRES)
        if self._grad_fn is None or self._retains_grad:
            return  # a leaf keeps its gradient anyway
        node = self._grad_fn
        if node._retained_outputs is None:
            node._retained_outputs = {}
        node._retained_outputs[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    @property
    def _version(self):
        counter = self._version_counter
        return 0 if counter is None else counter.value

    def _shared_version_counter(self):
        """The version counter, created when first needed: when the tensor is saved for
        backward, changed in place, or shares its memory with a view or a detached alias.
        Most results never need one, so creating it lazily keeps every operation cheaper."""
        if self._version_counter is None:
            self._version_counter = VersionCounter()
        return self._version_counter

    def _is_stale_view(self):
        """Has this view's base been changed in place, by a recorded operation, since the view
        was taken? Then the base has a new grad_fn, which the view's graph does not lead to."""
        taken = self._view_of_grad_fn
        return taken is not None and taken[0] is not self._base._grad_fn

    def _check_view_is_current(self):
        """Refuse a stale view in the graph: its gradient would skip the in-place change (or, for
        a view taken before its base needed gradients, be missing) without a word."""
        if self._is_stale_view():
            raise RuntimeError(messages.STALE_VIEW)

    @property
    def output_nr(self):
        return self._output_nr

    def is_floating_point(self):
        return self.dtype.is_floating_point

    # -- gradients arriving from the engine ------------------------------------------------
    def _accumulate_grad(self, grad, create_graph):
        """Add a gradient into `.grad`, as PyTorch's AccumulateGrad does.

        The first gradient is copied in (so `.grad` never shares memory with anything else).
        Later ones are added in place, so `g = x.grad` keeps seeing the total, except while a
        graph is being built (create_graph=True): then the sum must be a recorded operation.
        """
        if self._grad is None:
            if create_graph:
                from .ops.elementwise import copy_for_grad
                self._grad = copy_for_grad(grad)
            else:
                self._grad = Tensor._make(grad._data.copy())
        else:
            self._add_to_grad(grad, create_graph)

    def _store_retained_grad(self, grad):
        """retain_grad(): keep the gradient that reached this non-leaf, summed over backwards."""
        building_graph = is_grad_enabled()
        if self._grad is None:
            self._grad = grad if building_graph else Tensor._make(grad._data.copy())
        else:
            self._add_to_grad(grad, building_graph)

    def _add_to_grad(self, grad, building_graph):
        if building_graph:
            self._grad = self._grad + grad
        else:
            self._grad._data += grad._data
            self._grad._shared_version_counter().value += 1

    def register_hook(self, hook):
        """Call `hook(grad)` when the gradient for this tensor is computed.

        The hook may return a new gradient to use instead. Returns a handle with `.remove()`.
        """
        if not self.requires_grad:
            raise RuntimeError(messages.HOOK_NO_REQUIRES)
        if self._grad_fn is None:
            if self._backward_hooks is None:
                self._backward_hooks = {}
            hooks = self._backward_hooks
        else:
            node = self._grad_fn
            if node._tensor_pre_hooks is None:
                node._tensor_pre_hooks = {}
            hooks = node._tensor_pre_hooks.setdefault(self._output_nr, {})
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

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

    # -- sharing data ------------------------------------------------------------------------
    def detach(self):
        """A tensor with the same data (shared memory and version counter), outside the graph."""
        return Tensor._make(self._data, version_counter=self._shared_version_counter())

    def detach_(self):
        """Cut this tensor out of the graph in place: it becomes a leaf that needs no grad."""
        if self._base is not None:
            raise RuntimeError(messages.DETACH_VIEW_IN_PLACE)
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        """The values as a tensor outside the graph. Changes to it are *not* tracked."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._data = value._data

    def numpy(self, *, force=False):
        """The NumPy array behind this tensor (shared memory). force=True allows it for a
        tensor that requires grad, as `t.detach().numpy()` would."""
        if self.requires_grad and not force:
            raise RuntimeError(messages.NUMPY_REQUIRES_GRAD)
        return self._data

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def data_ptr(self):
        """The address of the first element: equal for tensors that share memory."""
        return self._data.__array_interface__["data"][0]

    def item(self):
        """The single value of a one-element tensor, as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.item()

    def tolist(self):
        return self._data.tolist()

    # -- shape -------------------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_normalize_dim(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return int(self._data.size)

    def nelement(self):
        return int(self._data.size)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:  # (not a generator, so that iter() itself raises, as in torch)
            raise TypeError("iteration over a 0-d tensor")
        return (self[index] for index in range(self._data.shape[0]))

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

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        """There is no GPU: as PyTorch without CUDA."""
        if device is not None:
            if not isinstance(device, (str, int, _device.device)):
                raise TypeError(messages.ARGUMENT_TYPE.format(
                    name="cuda", argument="device", where=" (position 1)",
                    expected="tensorgrad.device", got=type(device).__name__))
            if isinstance(device, str):
                _device.device(device)  # an unknown device type: PyTorch's list of them
        raise AssertionError(messages.NO_CUDA)

    is_cuda = False

    @property
    def device(self):
        return _device.CPU

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.item())

    def __float__(self):
        if self._data.size != 1:
            raise ValueError(messages.ONE_ELEMENT_TENSORS)
        return float(self.item())

    def __int__(self):
        if self._data.size != 1:
            raise ValueError(messages.ONE_ELEMENT_TENSORS)
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

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

    __hash__ = object.__hash__

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
        from . import random as _random

        if not std >= 0:  # nan too
            raise RuntimeError(messages.NEGATIVE_STD.format(std=std))
        self._check_random_fill()
        with _no_grad():
            return self.copy_(Tensor._make(_random.normal_array(self.shape, mean, std, self._data.dtype)))

    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        """Fill with uniform samples in [a, b) (no graph: used to initialise weights)."""
        from . import random as _random

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
        from .creation import tensor as _tensor

        return _tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_zeros(self, *size, dtype=None, requires_grad=False):
        from .creation import zeros

        return zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, requires_grad=False):
        from .creation import ones

        return ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _normalize_dim(dim, ndim):
    """A possibly negative dim as an index in range, with PyTorch's IndexError otherwise."""
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got {dim})"
        )
    return dim % size


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
        _device.check_device(first if args else kwargs.get("device"))
        dtype = args[1] if len(args) > 1 else kwargs.get("dtype")
        copy = args[3] if len(args) > 3 else kwargs.get("copy", False)
    return (None if dtype is None else dtypes.check_dtype(dtype)), copy


def _bracketed(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


_C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}


# The operations import Tensor, so they are imported after the class exists.
from .autograd import backward_and_grad as _backward_and_grad  # noqa: E402
from .autograd import forward_ad as _forward_ad  # noqa: E402
from . import device as _device  # noqa: E402
from .autograd.grad_mode import no_grad as _no_grad  # noqa: E402
from . import derivatives as _derivatives  # noqa: E402,F401  (first: the ops build on its node classes)
from .ops import elementwise as _ew  # noqa: E402
from .ops import indexing as _indexing  # noqa: E402
from .ops import inplace as _inplace  # noqa: E402
from .ops import linalg as _linalg  # noqa: E402
from .ops import reduction as _red  # noqa: E402
from .ops import shape as _shape  # noqa: E402
from . import arguments as _arguments  # noqa: E402

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

_arguments.check_methods(Tensor)  # every method with arguments checks them first (arguments.py)
