"""`tensorgrad.nn.functional`, as `torch.nn.functional`: functions for building networks, the
activations, `linear`, and the losses. (The name is PyTorch's. It has nothing to do with
`tensorgrad.autograd.functional`, torch.autograd.functional's derivatives of whole functions,
in autograd/functional.py.)

Activations and softmax forward to the operations in tensorgrad.ops. The three losses and the
fused matrix product of `linear` are new operations, each written the same way as the built-in
ones (see core/record.py): a forward that computes the values with NumPy and calls `record`, and a
Node whose `backward` is the derivative rule in Tensor operations (so it can be differentiated
again). Their node names are PyTorch's: MseLossBackward0, BinaryCrossEntropyBackward0,
NllLossBackward0, AddmmBackward0.

`cross_entropy` is composed exactly as PyTorch composes it: `nll_loss(log_softmax(x))`. That
is already the numerically stable form (log_softmax subtracts the row maximum before `exp`, so
nothing overflows, and no `log` of a rounded-to-zero probability is ever taken), and it gives
the graph PyTorch prints: NllLossBackward0 -> LogSoftmaxBackward0.
"""

import math
import types
import warnings

import numpy as np

from .. import arguments, dtypes
from ..arguments import Real, checked as _checked, declared as _declared
from ..autograd import messages
from ..core.grad_mode import is_grad_enabled as _is_grad_enabled, no_grad
from ..derivatives import (BCE_LOG_FLOOR, AddmmBackward0, BinaryCrossEntropyBackward0,
                           BinaryCrossEntropyWithLogitsBackward0, MseLossBackward0,
                           NativeBatchNormBackward0, NllLossBackward0)
from ..derivatives import nll_index as _nll_index, nll_weights as _nll_weights
from ..ops import elementwise as ew
from ..ops.indexing import masked_fill as _masked_fill
from ..ops import inplace as inplace_ops
from ..ops import reduction
from ..ops import shape as _shape
from ..ops.inplace import add_ as _add_, check_castable as _check_castable, mul_ as _mul_
from ..core.record import record as _record
from ..ops.linalg import element_strides as _element_strides, matmul as _matmul, refuse_bool as _refuse_bool
from ..core.tensor import Tensor
from .. import random as _random


_log_softmax, _sum = reduction.log_softmax, reduction.sum  # (for cross_entropy, whose parameter
# `reduction` hides the module)


def _reduction(size_average, reduce, reduction):
    """PyTorch's _Reduction: the legacy flags size_average= and reduce= (tested for truth, as
    PyTorch does) name a reduction, with PyTorch's warning; else `reduction` must be one of
    "none", "mean" and "sum"."""
    if type(reduction) is str and reduction in _REDUCTIONS and size_average is reduce is None:
        return reduction  # the common call, settled at once (the loop below gives the same)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, stacklevel=3)
    for name in ("none", "mean", "elementwise_mean", "sum"):  # compared as PyTorch compares
        if _truth(reduction == name):
            if name == "elementwise_mean":
                warnings.warn("reduction='elementwise_mean' is deprecated. Please use "
                              "reduction='mean' instead.", stacklevel=2)
                return "mean"
            return name
    raise ValueError(f"{reduction} is not a valid value for reduction")


_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce, stacklevel=2):
    """The reduction that the legacy flags name, with PyTorch's deprecation warning (its
    _Reduction.legacy_get_string; the loss Modules call it too, when they are built)."""
    size_average = True if size_average is None else _truth(size_average)
    reduce = True if reduce is None else _truth(reduce)
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{reduction}' instead.", stacklevel=stacklevel + 1)
    return reduction


def _truth(value):
    """A flag that PyTorch's Python code tests with `if`: a NumPy array of several elements has
    no truth value (NumPy's ValueError, which PyTorch lets rise as well)."""
    try:
        return bool(value)
    except ValueError as error:
        raise ValueError(str(error)) from None


def _check_broadcasts(shape_a, shape_b):
    """A weight multiplies the losses: their shapes must broadcast (PyTorch's message)."""
    try:
        np.broadcast_shapes(shape_a, shape_b)
    except ValueError:
        raise RuntimeError(ew.broadcast_error(shape_a, shape_b)) from None


def _requires_grad(value):
    return isinstance(value, Tensor) and value.requires_grad


def _check_not_differentiable(function_name, **arguments):
    """PyTorch's autograd, before a function with a derivative formula runs, refuses each tensor
    argument that has none (a loss's weight, pos_weight) if it requires grad, in the order of the
    function's parameters: such a weight is a constant of the loss, never learnt through it."""
    if not _is_grad_enabled():
        return
    for argument, value in arguments.items():
        if _requires_grad(value):
            raise RuntimeError(messages.NOT_DIFFERENTIABLE.format(function=function_name,
                                                                  argument=argument))


def _check_floating_kernel(kernel, dtype):
    """PyTorch's CPU kernels of the losses (and of log_sigmoid) exist for floating-point dtypes
    only: an integer or bool tensor gets its "not implemented for" error."""
    if not dtype.is_floating_point:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(kernel=kernel,
                                                                      dtype=dtype.scalar_name))


# -- what PyTorch's C functions beneath these Python functions declare ---------------------------
# (F.linear, F.nll_loss and F.cross_entropy check their arguments against these, by name)
def _linear(input: Tensor, weight: Tensor, bias: Tensor = None): ...
def _cross_entropy_loss(input: Tensor, target: Tensor, weight: Tensor = None, reduction: int = 1,
                        ignore_index: int = -100, label_smoothing: float = 0.0): ...
def _nll_loss_nd(input: Tensor, target: Tensor, weight: Tensor = None, reduction: int = 1,
                 ignore_index: int = -100): ...


arguments.declare(_cross_entropy_loss, name="cross_entropy_loss")
arguments.declare(_nll_loss_nd, name="nll_loss_nd")


# (F.dropout, F.batch_norm and F.binary_cross_entropy_with_logits check these, as PyTorch's
# Python functions call them, with every argument by position)
def _dropout(input: Tensor, p: float, train: bool): ...
def _binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None,
                                      pos_weight: Tensor | None, reduction: int): ...
def _batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                momentum: float, eps: float, cudnn_enabled: bool): ...


_DROPOUT = arguments.declare(_dropout, name="dropout", python=True)
_DROPOUT_IN_PLACE = arguments.declare(_dropout, name="dropout_", python=True)
_BATCH_NORM = arguments.declare(_batch_norm, name="batch_norm", python=True)
_BCE_WITH_LOGITS = arguments.declare(_binary_cross_entropy_with_logits,
                                     name="binary_cross_entropy_with_logits", python=True)


# -- activations ------------------------------------------------------------------------------
def relu(input, inplace=False):  # noqa: A002  (PyTorch's argument name)
    """max(x, 0), element by element (ReluBackward0)."""
    arguments.check("relu", (input,))
    return inplace_ops.apply(input, lambda: ew.relu(input)) if inplace else ew.relu(input)


@_declared(python=True)
def sigmoid(input: Tensor):  # noqa: A002
    return ew.sigmoid(input)


@_declared(python=True)
def tanh(input: Tensor):  # noqa: A002
    return ew.tanh(input)


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        stacklevel=stacklevel + 1,  # (one frame more than PyTorch's: the argument check's)
    )
    return 0 if ndim in (0, 1, 3) else 1


@_declared(python=True)
def softmax(input: Tensor, dim: object = None, _stacklevel: object = 3,  # noqa: A002
            dtype: object = None):
    """exp(x) / Σ exp(x) along `dim` (computed stably, by subtracting the maximum first).
    (`dim` and `dtype` are checked as PyTorch's method `input.softmax(dim, dtype)` checks them.)"""
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim, _stacklevel)
    arguments.check("softmax", (dim,), {} if dtype is None else {"dtype": dtype}, method=True)
    return reduction.softmax(input, dim, dtype)


@_declared(python=True)
def log_softmax(input: Tensor, dim: object = None, _stacklevel: object = 3,  # noqa: A002
                dtype: object = None):
    """log(softmax(x)) along `dim`, as x - max - log Σ exp(x - max): no overflow, no log(0)."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim, _stacklevel)
    arguments.check("log_softmax", (dim,), {} if dtype is None else {"dtype": dtype},
                    method=True)
    return reduction.log_softmax(input, dim, dtype)


# -- linear: y = x Wᵀ + b ----------------------------------------------------------------------
def _addmm(bias, mat1, mat2):
    """bias + mat1 @ mat2 as one operation (PyTorch's fused kernel behind `linear`), with its
    checks in its order: the dtypes (the bias's, then mat1's, against mat2's), the ranks, the
    shapes, then the bias expanded to the result (measured on PyTorch 2.13)."""
    for name, first in (("self", bias), ("mat1", mat1)):
        if first.dtype is not mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{first.dtype.scalar_name} and {mat2.dtype.scalar_name}")
    for name, matrix in (("mat1", mat1), ("mat2", mat2)):
        if matrix._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {matrix._data.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(messages.MATMUL_MISMATCH.format(
            a0=mat1.shape[0], a1=mat1.shape[1], b0=mat2.shape[0], b1=mat2.shape[1]))
    if bias._data.shape != (mat1.shape[0], mat2.shape[1]):
        _shape.expand(bias, (mat1.shape[0], mat2.shape[1]))  # PyTorch's error if it cannot
    _refuse_bool(mat1, "addmm_impl_cpu_", mat1._data.shape + mat2._data.shape[1:])
    data = (mat1._data @ mat2._data + bias._data).astype(mat1._data.dtype, copy=False)
    return _record(AddmmBackward0, data, (bias, mat1, mat2),  # d/dmat2 reads mat1, d/dmat1 mat2
                  saved={"mat1": mat1 if _requires_grad(mat2) else None,
                         "mat2": mat2 if _requires_grad(mat1) else None},
                  mat2_sym_sizes=mat2._data.shape, mat2_sym_strides=_element_strides(mat2._data))


def _compute_linear(input, weight, bias=None):  # noqa: A002
    """y = x Wᵀ + b, with weight of shape (out_features, in_features): F.linear's computation,
    which the library calls (nn.Linear checks its arguments as F.linear does, then calls this).

    The graph is PyTorch's: a 2-d input with a bias is one AddmmBackward0 node (its third input
    is a TBackward0 for Wᵀ); without a bias it is a plain matmul; other ranks are flattened to
    2-d, go through `_addmm`, and are viewed back (ViewBackward0).
    """
    ndim = input._data.ndim
    if ndim == 0 or weight._data.ndim == 0:
        raise RuntimeError(messages.LINEAR_0D.format(a=ndim, b=weight._data.ndim))
    weight_t = _shape.t(weight)  # (first: t()'s refusal of a weight of 3 dims or more)
    if bias is None:
        return _matmul(input, weight_t)
    if ndim == 2:
        return _addmm(bias, input, weight_t)
    rows = 1
    for size in input.shape[:-1]:
        rows *= size
    flat = _shape.reshape(input, (rows, input.shape[-1]))
    return _shape.view(_addmm(bias, flat, weight_t), (*input.shape[:-1], weight.shape[0]))


linear = _checked(_compute_linear, name="linear", like=_linear)  # F.linear, checked at the door
linear.__name__ = linear.__qualname__ = "linear"


# -- mean squared error --------------------------------------------------------------------------
@_declared(python=True, reads_size=("target", "input", "weight"))  # (PyTorch's `target.size()`)
def mse_loss(input: Tensor, target: Tensor, size_average: object = None,  # noqa: A002
             reduce: object = None, reduction: object = "mean", weight: Tensor | None = None):
    """Mean squared error. Shapes should match: a mismatch that broadcasts only warns (as in
    PyTorch), because broadcasting a (N, 1) prediction against (N,) targets silently builds an
    N×N table of differences."""
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,  # (the caller's line: past the argument check)
        )
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:  # weighted: composed of operations, as PyTorch composes it
        if weight.shape != input.shape:
            raise ValueError("Weights and input must have the same size.")
        weighted = ew.pow(input - target, 2) * weight
        if reduction == "none":
            return weighted
        return _sum(weighted) if reduction == "sum" else _sum(weighted) / _sum(weight)
    _check_floating_kernel("mse_cpu", dtypes.result_type(input, target))
    diff = ew.binary_data(np.subtract, input, target)
    squared = diff * diff
    if reduction == "none":
        data = squared
    elif reduction == "sum":
        data = np.sum(squared)
    else:
        data = np.mean(squared)
    data = np.asarray(data, dtype=diff.dtype)
    return _record(MseLossBackward0, data, (input, target), saved={"self": input, "target": target},
                  reduction=reduction, count=diff.size)


# -- binary cross-entropy ---------------------------------------------------------------------------
@_declared(python=True, reads_size=("target", "input", "weight"))  # (PyTorch's `target.size()`)
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                         size_average: object = None, reduce: object = None,
                         reduction: object = "mean"):
    """Cross-entropy between probabilities `input` (in [0, 1], e.g. after sigmoid) and targets."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_not_differentiable("binary_cross_entropy", weight=weight)
    if weight is not None:  # PyTorch expands the weight to the broadcast shape first
        _check_weight_expands(weight.shape, target.shape)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.dtype is not input.dtype:
        raise RuntimeError(messages.FOUND_DTYPE.format(
            found=target.dtype.scalar_name, expected=input.dtype.scalar_name))
    _check_floating_kernel("binary_cross_entropy", input.dtype)
    x = input._data
    # PyTorch checks element by element, the input's value before the target's: the first element
    # where either is outside [0, 1] (or is nan: PyTorch asks `0 <= v <= 1`) names which one
    bad_input = (x < 0) | (x > 1) | np.isnan(x)
    bad_target = np.broadcast_to((target._data < 0) | (target._data > 1) | np.isnan(target._data),
                                 x.shape)
    if bad_input.any() or bad_target.any():
        first = np.flatnonzero((bad_input | bad_target).ravel())[0]
        if bad_input.ravel()[first]:
            raise RuntimeError("all elements of input should be between 0 and 1")
        raise RuntimeError(messages.BCE_TARGET_RANGE)
    t = target._data
    with np.errstate(divide="ignore"):
        log_x = np.maximum(np.log(x), BCE_LOG_FLOOR)
        log_1mx = np.maximum(np.log1p(-x), BCE_LOG_FLOOR)
    data = _weighted_and_reduced(-(t * log_x + (1 - t) * log_1mx), weight, reduction, x.dtype)
    return _record(BinaryCrossEntropyBackward0, data, (input, target),
                  saved={"self": input, "target": target, "weight": weight},
                  reduction=reduction, count=x.size)


def _check_weight_expands(weight_shape, shape):
    """PyTorch's message when binary_cross_entropy's weight does not broadcast with the target
    (from the right, the first size that differs and is not 1)."""
    ndim = max(len(weight_shape), len(shape))
    for dim in range(-1, -ndim - 1, -1):
        size = weight_shape[dim] if -dim <= len(weight_shape) else 1
        other = shape[dim] if -dim <= len(shape) else 1
        if size != other and 1 not in (size, other):
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {size} at {dim}! Mismatching "
                f"argument at index 1 had {weight_shape}; but expected shape should be "
                f"broadcastable to {list(shape)}")


def _weighted_and_reduced(losses, weight, reduction, np_dtype):
    """Per-element losses (NumPy), times their weights, then summed, averaged or kept. PyTorch
    weighs them in place (`loss.mul_(weight)`), so a weight may not make them grow."""
    if weight is not None:
        _check_stays(losses, weight._data.shape)
        losses = losses * weight._data
    if reduction == "sum":
        losses = np.sum(losses)
    elif reduction == "mean":
        losses = np.mean(losses)
    return np.asarray(losses, dtype=np_dtype)


def _check_stays(losses, other_shape):
    """An in-place step of a loss (`loss.mul_(weight)`) keeps the losses' shape: refused, in
    PyTorch's words, when the other operand would broadcast them to more elements."""
    shape = np.broadcast_shapes(losses.shape, other_shape)
    if shape != losses.shape:
        raise inplace_ops._cannot_grow(Tensor._make(losses), shape)


# -- negative log-likelihood and cross-entropy ---------------------------------------------------
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,  # noqa: A002
             reduction="mean"):
    """Negative log-likelihood of class indices `target` under log-probabilities `input`.

    input: (N, C) or (C,), or (N, C, d₁, ..., d_K); target: (N,), (), or (N, d₁, ..., d_K) of
    int64 class indices.
    """
    ignore_index = arguments.checked_values(
        "nll_loss_nd", (input, target, weight, 1, ignore_index))[0][4]  # (an int, if a 0-d tensor)
    reduction = _reduction(size_average, reduce, reduction)
    return _negative_log_likelihood(input, target, weight, ignore_index, reduction)


def _negative_log_likelihood(log_probabilities, target, weight, ignore_index, reduction):
    """L = -Σₙ w[tₙ]·x[n, tₙ] over the rows whose target tₙ is not ignore_index ('none': one
    loss per row, 0 for an ignored one; 'mean': divided by Σₙ w[tₙ] over the same rows). Each
    row's entry x[n, tₙ] is picked by indexing, never by a loop over the rows."""
    if log_probabilities._data.ndim > 2:
        return _nll_at_every_position(log_probabilities, target, weight, ignore_index, reduction)
    if weight is not None:
        _check_not_differentiable("nll_loss_forward", weight=weight)
    _check_nll_shapes(log_probabilities, target, weight)
    x = log_probabilities._data
    if x.ndim == 1 and target._data.ndim == 1:  # one class, one target: as a 0-d one
        target = _shape.reshape(target, ())
    index = _nll_index(target._data, ignore_index)
    _check_targets_in_range(index[-1], x.shape[-1])
    if weight is None:  # every w[t] is 1: nothing to multiply, Σ w[t] is the number of rows
        losses = -x[index]
        total_weight = x.dtype.type(index[-1].size)
    else:
        picked_weight = _nll_weights(weight, index, x.dtype)
        losses = -(x[index] * picked_weight)  # -w[t]·x[n, t]
        total_weight = picked_weight.sum(dtype=x.dtype)
    if reduction == "none" and x.ndim == 2:
        data = np.zeros(x.shape[0], dtype=x.dtype)  # an ignored row's loss is 0
        data[index[0]] = losses
    elif reduction == "mean" and total_weight:
        data = losses.sum() / total_weight
    elif reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            data = losses.sum() / total_weight  # all rows ignored: 0/0 = nan, as in PyTorch
    else:  # "sum", and "none" of a single (C,) input, which PyTorch also gives as one number
        data = losses.sum()
    return _record(NllLossBackward0, np.asarray(data, dtype=x.dtype), (log_probabilities,),
                  saved={"target": target, "weight": weight}, reduction=reduction,
                  ignore_index=ignore_index,
                  total_weight=float(total_weight), num_classes=x.shape[-1])


def _nll_at_every_position(log_probabilities, target, weight, ignore_index, reduction):
    """The K-dimensional loss: input (N, C, d₁, ..., d_K), one target per position (N, d₁, ...,
    d_K). Each position is a row of the 2-d loss: the classes moved last and the positions
    flattened into rows, as PyTorch flattens them; 'none' gives the losses back in the
    target's shape."""
    x = log_probabilities
    if target.ndim == 0 or x.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 0}).")
    if target.dtype is not dtypes.int64:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.scalar_name}")
    if tuple(target.shape[1:]) != tuple(x.shape[2:]):
        raise RuntimeError(f"Expected target size {[x.shape[0], *x.shape[2:]]}, got "
                           f"{list(target.shape)}")
    if weight is not None and weight._data.size != x.shape[1]:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    _check_floating_kernel("nll_loss2d_forward_out_frame", x.dtype)
    rows = _shape.reshape(_shape.permute(x, (0, *range(2, x.ndim), 1)), (-1, x.shape[1]))
    if weight is not None:  # (any shape with C elements, as PyTorch's 2-d kernel reads it)
        weight = _shape.reshape(weight, (-1,))
    losses = _negative_log_likelihood(rows, _shape.reshape(target, (-1,)), weight, ignore_index,
                                      reduction)
    return _shape.reshape(losses, target.shape) if reduction == "none" else losses


def _check_targets_in_range(classes, num_classes):
    """Every target that is not ignore_index names a class, 0 <= t < C: one test over all of
    them. PyTorch names the first target (in row order) that does not."""
    outside = classes.view(np.uint64) >= num_classes  # (int64: a negative one reads as huge)
    if outside.any():
        raise IndexError(f"Target {classes[outside.argmax()]} is out of bounds.")


def _check_nll_shapes(input, target, weight):  # noqa: A002  (PyTorch's name)
    shape, target_shape = input._data.shape, target._data.shape  # (read once: called per step)
    ndim, target_ndim = len(shape), len(target_shape)
    if ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if ndim == 2 and shape[0] != (target_shape[0] if target_ndim else 0):
        raise ValueError(  # (a 0-d target's batch size reads 0 in PyTorch's message)
            f"Expected input batch_size ({shape[0]}) to match target batch_size "
            f"({target_shape[0] if target_ndim else 0}).")
    if target_ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dtype is not dtypes.int64:  # (PyTorch: after the batch sizes and the target's dims)
        raise RuntimeError(
            "expected target dtype to be Long or Byte, but got "
            f"{target.dtype.scalar_name}")
    if ndim == 2 and not target_ndim:  # (an empty batch with a 0-d target: its dim 0 is read)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if ndim == 1 and target_ndim == 1 and target_shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                         f"{target_shape[0]}")
    if ndim == 1 and target_ndim == 1 and shape[0] != 1:
        raise RuntimeError(f"size mismatch (got input: {list(shape)}, target: "
                           f"{list(target_shape)})")
    if weight is not None and (weight._data.ndim != 1 or weight._data.size != shape[-1]):
        raise RuntimeError(  # (a (C, 1) weight too: one weight per class, 1-d)
            f"weight tensor should be defined either for all {shape[-1]} classes or no "
            f"classes but got weight tensor of shape: {list(weight.shape)}")
    _check_floating_kernel("nll_loss_out_frame", input.dtype)  # (the kernel's checks from here)
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(messages.EXPECTED_SCALAR_TYPE.format(
            expected=input.dtype.scalar_name, found=weight.dtype.scalar_name))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,  # noqa: A002
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Cross-entropy between raw scores (logits) `input` and class indices `target`:
    `nll_loss(log_softmax(input), target)`, the stable form (see the module docstring).

    `target` may also hold class probabilities, with the same shape as `input`.
    """
    *_, ignore_index, label_smoothing = arguments.checked_values(
        "cross_entropy_loss", (input, target, weight, 1, ignore_index, label_smoothing))[0]
    if label_smoothing > 1.0:  # (PyTorch's check: a nan or negative value passes it ...)
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    if not label_smoothing > 0.0:  # (... and is no smoothing: PyTorch smooths only above 0)
        label_smoothing = 0.0
    class_dim = 0 if input._data.ndim == 1 else 1
    log_probabilities = _log_softmax(input, class_dim)  # (checked above: input is a Tensor)
    reduction = _reduction(size_average, reduce, reduction)
    if target._data.shape == input._data.shape and not target.dtype.is_floating_point:
        raise RuntimeError(messages.PROBABILITIES_NOT_FLOAT.format(
            dtype=target.dtype.scalar_name))  # (PyTorch reads a target of input's shape so)
    if target.dtype.is_floating_point and target._data.shape == input._data.shape:
        if ignore_index >= 0:  # (no class to ignore among probabilities: PyTorch refuses it)
            raise RuntimeError("ignore_index is not supported for floating point target")
        if label_smoothing:  # the probabilities moved towards uniform ones
            target = target * (1 - label_smoothing) + label_smoothing / input.shape[class_dim]
        if weight is not None:
            log_probabilities = log_probabilities * _per_class(weight, input.ndim, class_dim)
        losses = -_sum(target * log_probabilities, class_dim)
        if reduction == "sum":
            return _sum(losses)
        if reduction == "mean":
            return ew.div_by_number(_sum(losses), input._data.size // input.shape[class_dim]
                                    if input.ndim > 1 else 1)
        return losses
    loss = _negative_log_likelihood(log_probabilities, target, weight, ignore_index, reduction)
    if not label_smoothing:
        return loss
    return (1 - label_smoothing) * loss + _smoothing_loss(
        log_probabilities, target, weight, ignore_index, reduction, class_dim) * (
            label_smoothing / input.shape[class_dim])


def _per_class(weight, ndim, class_dim):
    """A class weight shaped to multiply along the class dim of an ndim-d input."""
    return _shape.reshape(weight, tuple(-1 if dim == class_dim else 1 for dim in range(ndim)))


def _smoothing_loss(log_probabilities, target, weight, ignore_index, reduction, class_dim):
    """What label smoothing adds (before its factor ε/C): -Σ_c w_c·log p_c at each position whose
    target is not ignore_index, reduced as the loss is ('mean': over the same total weight as
    the loss, Σ w[t] over the counted positions), as PyTorch composes it. The ignored positions
    are filled with 0, not multiplied by 0: when every target is ignored the 'mean' is 0/0 = nan
    and its backward sends 1/0 = inf, which a fill drops (gradient 0, as PyTorch) where a
    product would give 0·inf = nan."""
    if weight is not None:
        log_probabilities = log_probabilities * _per_class(weight, log_probabilities.ndim,
                                                           class_dim)
    counted = target._data != ignore_index
    smooth = _masked_fill(-_sum(log_probabilities, class_dim), Tensor._make(~counted), 0.0)
    if reduction == "none":
        return smooth
    if reduction == "sum":
        return _sum(smooth)
    total = counted.sum() if weight is None else weight._data[target._data[counted]].sum()
    return _sum(smooth) / float(total)


# -- binary cross-entropy on raw scores ------------------------------------------------------------
@_declared(python=True, reads_size=("target", "input"))  # (PyTorch's `target.size()`)
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     weight: object = None, size_average: object = None,
                                     reduce: object = None, reduction: object = "mean",
                                     pos_weight: object = None):
    """binary_cross_entropy(sigmoid(input), target), computed without forming sigmoid(input):
    -w·(p·t·log σ(x) + (1 - t)·log(1 - σ(x))) = w·(p·t·softplus(-x) + (1 - t)·softplus(x)),
    which stays finite for any x. `pos_weight` (p) weighs the positive class, per column."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    _BCE_WITH_LOGITS.match((input, target, weight, pos_weight, 1))
    _check_not_differentiable("binary_cross_entropy_with_logits", weight=weight,
                              pos_weight=pos_weight)
    _check_bce_with_logits_dtypes(input, target, pos_weight)
    if weight is not None:
        _check_broadcasts(input.shape, weight.shape)
    x, t = input._data, target._data
    positive = 1 if pos_weight is None else pos_weight._data
    if pos_weight is not None:  # (PyTorch adds the weighted log-sigmoid into `1 - target` in place)
        _check_stays(t, pos_weight._data.shape)
    losses = positive * t * np.logaddexp(0, -x) + (1 - t) * np.logaddexp(0, x)
    data = _weighted_and_reduced(losses, weight, reduction, t.dtype)  # (computed in the target)
    return _record(BinaryCrossEntropyWithLogitsBackward0, data, (input, target),
                  saved={"self": input, "target": target, "weight": weight,
                         "pos_weight": pos_weight}, reduction=reduction, count=x.size)


def _check_bce_with_logits_dtypes(input, target, pos_weight):  # noqa: A002
    """PyTorch composes this loss of tensor operations (its Loss.cpp), and each refuses what it
    always refuses, in this order: log_sigmoid(input) takes floating point only; `pos_weight - 1`
    no bool; `(pos_weight - 1) * target` shapes that broadcast; `1 - target` no bool; and
    `(1 - target).mul_(input)` writes into the target's dtype, so no integer targets."""
    _check_floating_kernel("log_sigmoid_cpu", input.dtype)
    if pos_weight is not None:
        ew.refuse_bool_subtraction(pos_weight, 1)
        _check_broadcasts(pos_weight.shape, input.shape)
    ew.refuse_bool_subtraction(target, target)  # (C++'s `1 - target`: the 1 takes its dtype)
    _check_castable(dtypes.result_type(target, input).numpy, target._data.dtype)


# -- dropout and batch normalisation ------------------------------------------------------------------
@_declared(python=True)
def dropout(input: object, p: Real = 0.5, training: object = True,  # noqa: A002
            inplace: object = False):
    """In training, each element is zeroed with probability p and the others are scaled by
    1/(1 - p), so the expected value is unchanged; otherwise the input is returned as it is."""
    if p < 0 or p > 1:  # PyTorch's Python code (so nan passes here), then its C function's
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    inplace = _truth(inplace)
    declaration = _DROPOUT_IN_PLACE if inplace else _DROPOUT  # (the C function's: its `float p`
    p = arguments.converted(declaration.match((input, p, training)), (input, p, training), {})[0][1]
    # is the Python number a 0-d tensor or a NumPy scalar holds, as PyTorch's parser hands it)
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    _check_castable(np.dtype(np.float32), input._data.dtype)  # (the mask is float: no int input)
    keep = _random._uniform_array(input.shape, 0.0, 1.0, np.float64) >= p
    scale = Tensor._make((keep / (1 - p) if p < 1 else keep * 0.0).astype(input._data.dtype))
    return _mul_(input, scale) if inplace else input * scale


def _check_batch_norm_dtypes(input, parameters):  # noqa: A002
    """PyTorch's CPU batch norm: a floating-point input, and parameters of its dtype."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(
            kernel="batch_norm", dtype=input.dtype.scalar_name))
    if any(p is not None and p.dtype is not input.dtype for p in parameters):
        raise RuntimeError(messages.BATCH_NORM_PARAMETER_DTYPE if input.dtype is dtypes.float32
                           else messages.BATCH_NORM_MIXED_DTYPES)


@_declared(python=True)
def batch_norm(input: object, running_mean: object, running_var: object,  # noqa: A002
               weight: object = None, bias: object = None, training: object = False,
               momentum: object = 0.1, eps: Real = 1e-05):
    """y = γ·(x - μ)/√(σ² + eps) + β per channel (dim 1). In training μ, σ² are the batch's
    (biased variance) and the running statistics move towards them by `momentum` (with the
    unbiased variance); otherwise the running statistics are used."""
    checks = (input, weight, bias, running_mean, running_var, training, momentum, eps, True)
    if _truth(training):  # PyTorch's Python code, then its C function's checks
        if not isinstance(input, Tensor):  # (where PyTorch's Python code fails on it)
            _BATCH_NORM.match(checks)
        size = input.shape
        if size[0] * math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {size}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    # the C function's `float momentum, float eps`: the Python numbers a 0-d tensor or a NumPy
    # scalar holds, as PyTorch's parser hands them over
    momentum, eps = arguments.converted(_BATCH_NORM.match(checks), checks, {})[0][6:8]
    for name, value in (("running_mean", running_mean), ("running_var", running_var),
                        ("weight", weight), ("bias", bias)):
        if value is None and name.startswith("running") and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
        if value is not None and value._data.size != input.shape[1]:
            raise RuntimeError(f"{name} should contain {input.shape[1]} elements not "
                               f"{value._data.size}")
    if input._data.size and (running_mean is None) != (running_var is None):  # (an empty input
        raise ValueError(  # returns before PyTorch's kernel checks the pair)
            "running_mean and running_var must either both be None or neither be None")
    _check_batch_norm_dtypes(input, (weight, bias, running_mean, running_var))
    if input._data.size == 0:  # no values: PyTorch leaves the running statistics as they are
        out = ew.clone(input)  # and returns a copy, scaled and shifted by the first channel's γ, β
        if weight is not None:
            out = out * weight[0]
        return out if bias is None else out + bias[0]
    dims = (0,) + tuple(range(2, input.ndim))
    x = input._data
    if training:
        mean, var = x.mean(axis=dims), x.var(axis=dims)
        if running_mean is not None:
            count = x.size // x.shape[1]
            with no_grad():  # (x·(1 - momentum) + momentum·batch's, in place; momentum is the
                # kernel's own double, not add's alpha, which a float32 result would check)
                for running, batch in ((running_mean, mean), (running_var, var * count / max(count - 1, 1))):
                    _add_(_mul_(running, 1 - momentum),
                          Tensor._make(np.multiply(batch.astype(x.dtype), momentum, dtype=x.dtype)))
    else:
        mean, var = running_mean._data, running_var._data
    shape = (1, -1) + (1,) * (input.ndim - 2)
    data = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if weight is not None:
        data = data * weight._data.reshape(shape)
    if bias is not None:
        data = data + bias._data.reshape(shape)
    return _record(NativeBatchNormBackward0, data.astype(x.dtype, copy=False),
                  (input, weight, bias), eps=eps, training=training, dims=dims,
                  saved={"self": input, "weight": weight,  # the running statistics: in eval only
                         "running_mean": None if training else running_mean,
                         "running_var": None if training else running_var})


# -- the door -----------------------------------------------------------------------------------
# The functions above are declared where they are defined, and left plain: the library calls
# them as they are (nn/modules.py's layers, through `_plain`, after their own one check). The
# names this module exports are their checked forms, made here once, as tensorgrad/__init__.py
# makes the operations'. (linear's is made above, from _compute_linear; relu, nll_loss and
# cross_entropy check by hand what PyTorch's C functions beneath them check.)
_plain = types.SimpleNamespace(
    sigmoid=sigmoid, tanh=tanh, softmax=softmax, log_softmax=log_softmax, mse_loss=mse_loss,
    binary_cross_entropy=binary_cross_entropy, dropout=dropout, batch_norm=batch_norm,
    binary_cross_entropy_with_logits=binary_cross_entropy_with_logits)
sigmoid, tanh, softmax, log_softmax, mse_loss, binary_cross_entropy, dropout, batch_norm, \
    binary_cross_entropy_with_logits = (_checked(f) for f in (
        sigmoid, tanh, softmax, log_softmax, mse_loss, binary_cross_entropy, dropout, batch_norm,
        binary_cross_entropy_with_logits))


__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "linear", "mse_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "nll_loss", "cross_entropy",
           "dropout", "batch_norm"]
