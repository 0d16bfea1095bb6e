"""Gradient clipping, as `torch.nn.utils` has it (torch/nn/utils/clip_grad.py): scale or clamp
the gradients that `backward` left in `.grad`, before the optimizer's step, so that one batch
with exploding gradients cannot throw the weights far away.

    clip_grad_norm_(parameters, max_norm)   every gradient times min(1, max_norm / total norm),
                                            where the total norm is the norm of all gradients
                                            seen as one vector; returns that norm
    clip_grad_value_(parameters, clip_value) every element clamped to [-clip_value, clip_value]
    get_total_norm, clip_grads_with_norm_   the two halves of clip_grad_norm_

PyTorch writes these in Python and takes its settings loosely: `float(max_norm)`,
`float(norm_type)` (so `norm_type="inf"` is the infinity norm), the flags tested with `if`. They
are declared here with PyTorch's parameters (`checked(python=True)`), and each step is PyTorch's,
in its order, so that a mistake is found where PyTorch finds it and its values are PyTorch's to
the last float32 bit: the total norm is the norm of the gradients' norms, and the coefficient
`max_norm / (total_norm + 1e-6)`, clamped to 1, multiplies every gradient in place. All of it
runs without recording (PyTorch's `no_grad`), even on gradients that carry a graph.
"""

import types
import warnings

import numpy as np

from ... import arguments
from ...arguments import checked
from ...autograd import messages
from ...core.grad_mode import no_grad
from ...core.tensor import Tensor
from ...creation import tensor as _tensor
from ...ops import elementwise, inplace, reduction
from ...ops.shape import stack


def _as_list(parameters):
    """A single tensor as a list of one; anything else as the list of what it yields (Python's
    "'float' object is not iterable", as in PyTorch)."""
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        return list(parameters)
    except TypeError:
        raise TypeError(f"'{type(parameters).__name__}' object is not iterable") from None


def _grads(parameters, name):
    """The gradients of the parameters that have one (PyTorch reads `p.grad` of each: something
    that is not a tensor is refused here, where PyTorch fails on its missing `.grad`)."""
    for parameter in parameters:
        if not isinstance(parameter, Tensor):
            raise TypeError(messages.CLIP_NOT_A_PARAMETER.format(
                name=name, type_name=arguments.type_name(parameter)))
    return [parameter.grad for parameter in parameters if parameter.grad is not None]


def _truth(flag):
    """A flag tested with `if`, as PyTorch's Python code tests it (NumPy's words for an array of
    several elements)."""
    try:
        return bool(flag)
    except (TypeError, ValueError) as error:
        raise type(error)(str(error)) from None


def _total_norm(grads, norm_type, error_if_nonfinite, foreach):
    """The norm of all gradients seen as one vector: the norm of their norms (PyTorch's
    `_get_total_norm`, with `norm_type` already a float; `foreach`, which picks PyTorch's
    kernel, is only tested for truth, as PyTorch tests it once there are tensors)."""
    if not grads:
        return _tensor(0.0)
    _truth(foreach)
    with no_grad():
        norms = [reduction.norm(grad, norm_type) for grad in grads]
        total = reduction.norm(stack(norms), norm_type)
    if _truth(error_if_nonfinite) and not np.isfinite(total._data):
        raise RuntimeError(messages.CLIP_NONFINITE.format(norm_type=norm_type))
    return total


def _scale(grads, max_norm, total_norm, foreach):
    """Every gradient times min(1, max_norm / (total_norm + 1e-6)), in place (PyTorch's
    `_clip_grads_with_norm_`, with `max_norm` already a float)."""
    if not grads:
        return
    if not isinstance(total_norm, Tensor):  # (PyTorch's clamp of a number: its parser's words)
        try:
            coefficient = max_norm / (total_norm + 1e-6)
        except TypeError as error:  # (Python's words for `"a" + 1e-6`, as in PyTorch)
            raise TypeError(str(error)) from None
        arguments.check("clamp", (coefficient,), {"max": 1.0})
    if total_norm.dim():
        raise RuntimeError(messages.SCALAR_TENSOR_EXPECTED.format(ndim=total_norm.dim(),
                                                                  numel=total_norm.numel()))
    with no_grad():
        coefficient = elementwise.clamp(max_norm / (total_norm + 1e-6), max=1.0)
        _truth(foreach)
        for grad in grads:
            inplace.mul_(grad, coefficient)


@checked(python=True)
def get_total_norm(tensors: object, norm_type: object = 2.0, error_if_nonfinite: object = False,
                   foreach: object = None):
    """The norm of `tensors` (one tensor, or an iterable of them) seen as one vector."""
    tensors = _as_list(tensors)
    return _total_norm(tensors, arguments.python_float(norm_type), error_if_nonfinite, foreach)


@checked(python=True)
def clip_grads_with_norm_(parameters: object, max_norm: object, total_norm: object,
                          foreach: object = None):
    """Scale the parameters' gradients by min(1, max_norm / (total_norm + 1e-6)), in place."""
    grads = _grads(_as_list(parameters), "clip_grads_with_norm_")
    _scale(grads, arguments.python_float(max_norm), total_norm, foreach)


@checked(python=True)
def clip_grad_norm_(parameters: object, max_norm: object, norm_type: object = 2.0,
                    error_if_nonfinite: object = False, foreach: object = None):
    """Scale the parameters' gradients so that their total norm is at most `max_norm`, in place;
    return the total norm they had (a 0-d tensor). `norm_type` may be inf (or "inf"): the
    largest magnitude; `error_if_nonfinite=True` refuses to scale by a nan or infinite norm."""
    generator = isinstance(parameters, types.GeneratorType)
    parameters = _as_list(parameters)
    if generator and not parameters:
        warnings.warn(messages.CLIP_EMPTY_GENERATOR, stacklevel=3)
    grads = _grads(parameters, "clip_grad_norm_")
    total_norm = _total_norm(grads, arguments.python_float(norm_type), error_if_nonfinite,
                             foreach)
    _scale(grads, arguments.python_float(max_norm), total_norm, foreach)
    return total_norm


@checked(python=True)
def clip_grad_norm(parameters: object, max_norm: object, norm_type: object = 2.0,
                   error_if_nonfinite: object = False, foreach: object = None):
    """clip_grad_norm_ under its old name, with PyTorch's deprecation warning."""
    warnings.warn(messages.CLIP_GRAD_NORM_DEPRECATED, FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@checked(python=True)
def clip_grad_value_(parameters: object, clip_value: object, foreach: object = None):
    """Clamp every element of the parameters' gradients to [-clip_value, clip_value], in place
    (a negative `clip_value` sets them all to it, as PyTorch's clamp_min then clamp_max do)."""
    parameters = [parameters] if isinstance(parameters, Tensor) else parameters
    clip_value = arguments.python_float(clip_value)  # (before the parameters are read)
    grads = _grads(_as_list(parameters), "clip_grad_value_")
    if not grads:  # (PyTorch's foreach kernel, given an empty list)
        raise RuntimeError(messages.FOREACH_EMPTY)
    _truth(foreach)
    with no_grad():
        for grad in grads:
            inplace.clamp_(grad, min=-clip_value)
            inplace.clamp_(grad, max=clip_value)


__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm"]
