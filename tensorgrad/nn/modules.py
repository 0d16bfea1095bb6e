"""The layers: Linear, Sequential, activations and losses as Modules.

Each is a thin Module around a function of `nn.functional`: the Module holds the weights (or
the settings, such as `reduction`), the function does the computation.
"""

import itertools
import math
import operator
from collections import OrderedDict

from .. import arguments, creation, numpy_errors
from ..arguments import Real
from ..core.tensor import Tensor, _normalize_dim
from ..device import check_device as _check_device
from ..ops import inplace as _inplace
from ..ops import shape as _shape
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


def _checked_once(function, *args, **kwargs):
    """A layer's forward is its public call: `function`, a plain function of nn.functional, with
    the call's arguments checked here, once, as F.<name> checks them (see F's door), then run
    with NumPy's warnings quiet, as every checked call is."""
    function.signatures.match(args, kwargs)
    token = numpy_errors.state.set(numpy_errors.QUIET)
    try:
        return function(*args, **kwargs)
    finally:
        numpy_errors.state.reset(token)


class Linear(Module):
    """y = x Wᵀ + b, with W of shape (out_features, in_features) and b of shape (out_features,).

    Initialised as in PyTorch: W and b uniform in [-1/√in_features, 1/√in_features].
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        arguments.check("empty", ((out_features, in_features),), {"dtype": dtype, "device": device})
        _check_device(device)  # (PyTorch makes the weight on that device: "cuda" fails here)
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty(out_features, in_features, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # kaiming_uniform_ with a=√5 gives bound = √(6 / ((1 + 5)·fan_in)) = 1/√fan_in.
        init._plain.kaiming_uniform_(self.weight, a=math.sqrt(5))  # (the plain ones: see init.py)
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init._plain.uniform_(self.bias, -bound, bound)

    def forward(self, input):  # noqa: A002  (PyTorch's argument name)
        """F.linear(input, weight, bias): checked as F.linear checks it, once, then computed."""
        arguments.check("linear", (input, self.weight, self.bias))
        return numpy_errors.quietly(F._compute_linear, input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class _NumberedChildren(Module):
    """What Sequential and ModuleList share: children named "0", "1", ..., in a list order."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._of(list(self._modules.items())[index])
        return self._modules[self._key_at(index)]

    def __setitem__(self, index, module):
        setattr(self, self._key_at(index), module)

    def __delitem__(self, index):
        keys = list(self._modules)
        for key in keys[index] if isinstance(index, slice) else [self._key_at(index)]:
            delattr(self, key)
        self._modules = OrderedDict(  # numbered again from 0, as PyTorch does
            (str(number), module) for number, module in enumerate(self._modules.values()))

    def _key_at(self, index):
        """The name of the child at `index`: any integer PyTorch takes (`operator.index`: a NumPy
        integer, a one-element integer tensor), negative from the end; Python's words otherwise."""
        if not hasattr(type(index), "__index__"):  # (Python's words, as operator.index says them)
            raise TypeError(f"'{type(index).__name__}' object cannot be interpreted as an integer")
        index = operator.index(index)
        size = len(self)
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of range")
        return list(self._modules)[index % size]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if not hasattr(modules, "__iter__"):
            raise TypeError(f"{type(self).__name__}.extend should be called with an iterable, "
                            f"but got {type(modules).__name__}")
        for module in modules:
            self.append(module)
        return self


class Sequential(_NumberedChildren):
    """Modules applied one after the other: `Sequential(Linear(2, 16), ReLU(), Linear(16, 1))`.

    The children are named "0", "1", ... (or by the keys of an OrderedDict), which is where
    state_dict names such as "0.weight" come from.
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    @staticmethod
    def _of(items):
        return Sequential(OrderedDict(items))

    def forward(self, input):  # noqa: A002
        for module in self:
            input = module(input)  # noqa: A001  (PyTorch's name)
        return input


class ModuleList(_NumberedChildren):
    """A list of modules whose parameters the parent finds (a plain Python list would hide
    them from `parameters()`, `state_dict()` and the optimizer)."""

    def __init__(self, modules=None):
        super().__init__()
        self.extend(modules or [])

    @staticmethod
    def _of(items):
        return ModuleList([module for _, module in items])

    def __add__(self, other):
        """`a + b`: a new ModuleList of a's modules then b's (any iterable of modules)."""
        combined = ModuleList()
        for module in itertools.chain(self, other):
            combined.append(module)
        return combined

    def __iadd__(self, modules):
        return self.extend(modules)

    def insert(self, index, module):
        """Put `module` before position `index`, moving those from there one place on. As in
        PyTorch, `index` is used as it is: the keys from len(self) down to index + 1 take their
        predecessor's module (so a negative or too large index is not refused)."""
        for number in range(len(self._modules), index, -1):
            self._modules[str(number)] = self._modules[str(number - 1)]
        self._modules[str(index)] = module


# -- activations --------------------------------------------------------------------------------
class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    def forward(self, input):  # noqa: A002
        return _checked_once(F._plain.tanh, input)


class Sigmoid(Module):
    def forward(self, input):  # noqa: A002
        return _checked_once(F._plain.sigmoid, input)


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):  # noqa: A002
        return _checked_once(F._plain.softmax, input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):  # noqa: A002
        return _checked_once(F._plain.log_softmax, input, self.dim, _stacklevel=5)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):  # noqa: A002
        return input


class DataParallel(Module):
    """PyTorch's data parallelism (one copy of `module` per GPU, each given a slice of the batch),
    as it behaves on a machine without GPUs, which is every machine tensorgrad runs on: it runs
    `module` itself, and keeps it as `.module` (its state_dict keys start with "module.").
    device_ids, output_device and dim are taken and, as by PyTorch without GPUs, not used."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


# -- losses -------------------------------------------------------------------------------------
class _Loss(Module):
    """What the losses share, as in PyTorch: `reduction`, which the legacy flags size_average= and
    reduce= override, with PyTorch's deprecation warning."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = F._legacy_reduction(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    def forward(self, input, target):  # noqa: A002
        return _checked_once(F._plain.mse_loss, input, target, reduction=self.reduction)


class BCELoss(_WeightedLoss):
    def forward(self, input, target):  # noqa: A002
        return _checked_once(F._plain.binary_cross_entropy, input, target, weight=self.weight,
                             reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):  # noqa: A002
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Takes raw scores (logits), not probabilities: it applies log_softmax itself."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):  # noqa: A002
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy on raw scores: sigmoid and the loss in one stable computation."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):  # noqa: A002
        return _checked_once(F._plain.binary_cross_entropy_with_logits, input, target,
                             self.weight, pos_weight=self.pos_weight, reduction=self.reduction)


# -- shapes, dropout, normalisation --------------------------------------------------------------------
class Flatten(Module):
    """Flattens dims start_dim..end_dim into one (by default all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):  # noqa: A002
        """PyTorch's calls input.flatten(start_dim, end_dim): checked here, once, as it is."""
        _FLATTEN.match((input,))
        arguments.check("flatten", (self.start_dim, self.end_dim), method=True)
        return numpy_errors.quietly(_shape.flatten, input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _flatten(input: Tensor): ...  # noqa: A002  (Flatten's forward, declared: a non-tensor's error)


_FLATTEN = arguments.declare(_flatten, name="Flatten", python=True)


def _unflatten(dim: int, sizes: arguments.Ints):
    """Tensor.unflatten's parameters (after the tensor), as PyTorch declares them: Unflatten's
    forward is checked against them, as PyTorch's calls input.unflatten(dim, sizes)."""


_UNFLATTEN = arguments.declare(_unflatten, name="unflatten", python=True)


class Unflatten(Module):
    """Splits dim `dim` into the shape `unflattened_size`."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim = dim
        if not isinstance(unflattened_size, (tuple, list)):  # PyTorch's checks, and texts
            raise TypeError("unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for pos, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError("unflattened_size must be tuple of ints, but found element of "
                                f"type {type(size).__name__} at pos {pos}")
        self.unflattened_size = unflattened_size

    def forward(self, input):  # noqa: A002
        if not isinstance(input, Tensor):  # PyTorch's forward calls input.unflatten(...)
            raise AttributeError(f"'{type(input).__name__}' object has no attribute 'unflatten'")
        _UNFLATTEN.match((self.dim, self.unflattened_size))  # (its checks, and their words)
        dim = _normalize_dim(self.dim, input._data.ndim)
        shape = input._data.shape
        try:  # the sizes must make up dim's size itself (not only the element count, which an
            sizes = _shape.infer_shape(tuple(self.unflattened_size), shape[dim], None)  # empty
        except RuntimeError as error:  # batch would make 0 whatever the sizes), in PyTorch's words
            raise RuntimeError(
                f"unflatten: Provided sizes {list(self.unflattened_size)} don't multiply up to "
                f"the size of dim {dim} ({shape[dim]}) in the input tensor"
                if str(error).startswith("shape '") else
                f"unflatten got an unexpected error:\n{error}") from None
        return input._reshape(shape[:dim] + sizes + shape[dim + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


def _dropout(p: Real = 0.5): ...  # Dropout's p, as F.dropout's (PyTorch compares it: p < 0)


_DROPOUT = arguments.declare(_dropout, name="Dropout", python=True)


class Dropout(Module):
    """Zeroes each element with probability p while training (scaling the rest by 1/(1 - p));
    does nothing in eval mode."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        _DROPOUT.match((), {"p": p})
        if p < 0 or p > 1:  # as PyTorch (so nan passes)
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return _checked_once(F._plain.dropout, input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class BatchNorm1d(Module):
    """Normalises each channel (dim 1) of (N, C) or (N, C, L) inputs to mean 0 and variance 1
    over the batch, then scales and shifts it (weight, bias). Keeps running statistics for eval."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None):
        super().__init__()
        arguments.check("empty", (num_features,), {"dtype": dtype, "device": device})  # torch.empty's
        _check_device(device)
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(creation.ones(num_features, dtype=dtype))
            self.bias = Parameter(creation.zeros(num_features, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def forward(self, input):  # noqa: A002
        if not isinstance(input, Tensor):  # (PyTorch's forward calls input.dim() first)
            raise AttributeError(f"'{type(input).__name__}' object has no attribute 'dim'")
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
        if self.running_mean is not None and input.shape[1] != self.running_mean._data.size:
            raise RuntimeError(f"running_mean should contain {input.shape[1]} elements not "
                               f"{self.running_mean._data.size}")
        use_batch = self.training or self.running_mean is None
        if use_batch and input._data.size // input.shape[1] == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            _inplace.add_(self.num_batches_tracked, 1)
            if self.momentum is None:  # a cumulative average of all batches so far
                momentum = 1.0 / self.num_batches_tracked._data.item()
        return _checked_once(
            F._plain.batch_norm, input, self.running_mean if not use_batch or self.training else None,
            self.running_var if not use_batch or self.training else None, self.weight, self.bias,
            use_batch, momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.affine}, "
                f"track_running_stats={self.track_running_stats}")

