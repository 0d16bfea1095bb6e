"""The Tensor: a NumPy array plus the flags autograd needs.

A Tensor holds
  * `_data`, the NumPy array with the values;
  * `requires_grad`: should gradients be computed for it?
  * `grad_fn`: the graph node that produced it (None for a leaf, a tensor made by the user);
  * `grad`: for a leaf, the gradient that backward() accumulated;
  * a version counter, bumped by every in-place change, shared by tensors that share memory.

This file is about what a tensor *is*: its data, the flags and their rules. What a tensor
*does* (`a * b`, `x.sum()`, printing, iterating) is an operation of tensorgrad.ops; the operators
and methods that hand it on are attached to the class in one place, tensor_methods.py, so this
file imports no operation. (The core uses a few of them at run time, as the derivative formulas
do: `grad + other` in the engine is Tensor's `+`.)
"""

import warnings
import weakref

import numpy as np

from ..device import CPU
from ..device import device as Device  # (Tensor has a `device` property of its own)
from .version_counter import VersionCounter
from .. import dtypes
from ..autograd import messages
from ..size import Size
from ..utils.hooks import RemovableHandle


def read_only(getter):
    """A property that PyTorch lets be read but not set or deleted (`t.shape`, `t.grad_fn`):
    either is refused in PyTorch's words."""
    def refuse(self, value=None):
        raise AttributeError(messages.NOT_WRITABLE.format(name=getter.__name__))

    return property(getter, refuse, refuse, getter.__doc__)


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
    # A view's `(base's grad_fn,)` when the view was taken (see ops/shape.py's as_view): a
    # tuple, so that a base without a grad_fn (None) is remembered too.
    _view_of_grad_fn = None
    _backward_hooks = None
    _retains_grad = False
    _accumulator_ref = None  # a leaf's AccumulateGrad node, held weakly (node.py: AccumulateGrad.__new__)
    _fw_tangent = None  # (dual level, tangent) in forward-mode AD (autograd/forward_ad.py)

    __array_priority__ = 1000  # so that `numpy_value * tensor` is handled by Tensor

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
    @read_only
    def dtype(self):
        return dtypes.from_numpy_dtype(self._data.dtype)

    @read_only
    def grad_fn(self):
        """The node that created this tensor, or None for a leaf."""
        return self._grad_fn

    @read_only
    def is_leaf(self):
        """True for tensors not produced by a recorded operation (grad_fn is None)."""
        return self._grad_fn is None

    @property
    def requires_grad(self):
        return self._grad_fn is not None or self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._set_requires_grad(flag, messages.INT_REQUIRES_GRAD_ATTRIBUTE, attribute=True)

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError(messages.REQUIRES_GRAD_NOT_BOOL)  # PyTorch's words: it sets None

    def requires_grad_(self, requires_grad=True):
        """Set requires_grad in place and return the tensor itself."""
        self._set_requires_grad(requires_grad, messages.INT_REQUIRES_GRAD_METHOD)
        return self

    def _set_requires_grad(self, flag, int_message, attribute=False):
        if not isinstance(flag, (bool, np.bool_)):  # (the method's argument is checked already)
            raise RuntimeError(messages.REQUIRES_GRAD_NOT_BOOL)
        flag = bool(flag)
        if self._grad_fn is not None:
            if not flag:
                raise RuntimeError(messages.ONLY_LEAF_FLAGS)
            if attribute:  # the attribute refuses a non-leaf either way, as in PyTorch
                raise RuntimeError(messages.ONLY_LEAF_FLAGS_ON)
            return  # requires_grad_() turning it on for a non-leaf changes nothing
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

    @grad.deleter
    def grad(self):
        """`del t.grad` is `t.grad = None`, as in PyTorch."""
        self._grad = None

    @read_only
    def retains_grad(self):
        return self._retains_grad

    def retain_grad(self):
        """Ask backward() to fill `.grad` of this non-leaf tensor too."""
        if not self.requires_grad:
            raise RuntimeError(messages.RETAIN_GRAD_NO_REQUIRES)
        if self._grad_fn is not None:  # a leaf keeps its gradient anyway
            self._set_grad_fn(self._grad_fn, self._output_nr, retain=True)

    def _set_grad_fn(self, node, output_nr, retain=False):
        """Make output `output_nr` of `node` where this tensor's gradient arrives: an in-place
        change gives the tensor a new grad_fn. A retained gradient is filed on that node, where
        the engine stores it, and moves with the tensor, as in PyTorch: `.grad` is then the
        gradient of the value the tensor holds now, not of the value it held before.
        (`node._retained_outputs`, {output_nr: weakref to the tensor}, is a Node attribute
        that node.py, the next file, defines; the engine's run_tensor_pre_hooks reads it.)
        A tensor that retained its gradient and was then detached in place keeps the flag, as
        in PyTorch, and no node holds its registration: PyTorch's internal assert refuses it."""
        if self._retains_grad and self._grad_fn is None:  # (retained, then detached in place)
            raise RuntimeError(messages.RETAINED_GRAD_WITHOUT_GRAD_FN)
        if self._retains_grad:
            del self._grad_fn._retained_outputs[self._output_nr]
        self._grad_fn, self._output_nr = node, output_nr
        if retain or self._retains_grad:
            node._retained_outputs = node._retained_outputs or {}
            node._retained_outputs[output_nr] = weakref.ref(self)
            self._retains_grad = True

    @read_only
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

    @read_only
    def output_nr(self):
        return self._output_nr

    def is_floating_point(self):
        return self.dtype.is_floating_point

    # -- hooks on the gradient ---------------------------------------------------------------
    def register_hook(self, hook):
        """Call `hook(grad)` when the gradient for this tensor is computed.

        The hook may return a new gradient to use instead. Returns a handle with `.remove()`.
        A non-leaf's hooks are filed on its grad_fn (`node._tensor_pre_hooks`, a Node attribute
        that node.py defines), where the engine's run_tensor_pre_hooks finds them.
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
            raise TypeError(messages.DATA_NOT_A_TENSOR.format(type_name=type(value).__name__))
        if self._requires_grad and value._data.dtype.kind not in "fc":  # (a leaf keeps its grad)
            raise RuntimeError(messages.DATA_NOT_FLOATING)
        self._data = value._data

    @data.deleter
    def data(self):
        raise RuntimeError(messages.DELETE_DATA)

    def numpy(self, *, force=False):
        """The NumPy array behind this tensor (shared memory). force=True allows it for a
        tensor that requires grad, as `t.detach().numpy()` would."""
        if self.requires_grad and not force:
            raise RuntimeError(messages.NUMPY_REQUIRES_GRAD)
        return self._data

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
    @read_only
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        if not self._data.ndim:  # (no dim 0 to wrap to: PyTorch's size() does not wrap a scalar)
            raise IndexError(messages.NO_DIMENSIONS.format(dim=dim))
        return self._data.shape[_normalize_dim(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    @read_only
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

    def cuda(self, device=None, non_blocking=False):
        """There is no GPU: as PyTorch without CUDA."""
        if device is not None:
            if not isinstance(device, (str, int, Device)):
                raise TypeError(messages.ARGUMENT_TYPE.format(
                    name="cuda", argument="device", where=" (position 1)",
                    expected="tensorgrad.device", got=type(device).__name__))
            if isinstance(device, str):
                Device(device)  # an unknown device type: PyTorch's list of them
        raise AssertionError(messages.NO_CUDA)

    is_cuda = False

    @read_only
    def device(self):
        return CPU

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(messages.AMBIGUOUS_BOOL[self._data.size == 0])
        return bool(self._data.item())

    def __float__(self):
        if self._data.size != 1:
            raise ValueError(messages.ONE_ELEMENT_TENSORS)
        return float(self._data.item())

    def __int__(self):
        if self._data.size != 1:
            raise ValueError(messages.ONE_ELEMENT_TENSORS)
        return int(self._data.item())

    def __index__(self):
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.item())

    __hash__ = object.__hash__


def _normalize_dim(dim, ndim):
    """A possibly negative dim as an index in range, with PyTorch's IndexError otherwise."""
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got {dim})"
        )
    return dim % size


def _bracketed(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


_C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "bool": "bool"}
