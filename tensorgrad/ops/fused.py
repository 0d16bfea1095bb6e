"""Fused derivative rules: a rule's whole formula as one recorded operation, computed in NumPy.

The plain rule of tanh, `grad * (1 - result * result)`, is three tensor operations, each with
its own Tensor, node and NumPy call. PyTorch computes it as one operation, `tanh_backward`,
and records one node for it (TanhBackwardBackward0) when create_graph=True. These functions do
the same: they are faster in every backward pass, and the graph that create_graph=True records
is PyTorch's. Their own derivatives are entries of the table (derivatives.py: *BackwardBackward0),
and the plain formulas stay there too, as `same_as=` of the rule whose formula these are; tests check
that both give the same gradients.
"""

import numpy as np

from .. import derivatives as table
from .base import record


def tanh_backward(grad, result):
    """g·(1 - y²) for y = tanh x."""
    data = grad._data * (1 - result._data * result._data)
    return record(table.TanhBackwardBackward0, data, (grad, result), saved=(grad, result))


def sigmoid_backward(grad, result):
    """g·y·(1 - y) for y = σ(x)."""
    data = grad._data * result._data * (1 - result._data)
    return record(table.SigmoidBackwardBackward0, data, (grad, result), saved=(grad, result))


def threshold_backward(grad, result):
    """g where y > 0, else 0, for y = relu(x) (where y is nan the gradient goes through)."""
    # Multiplying by the mask is ~6x faster than np.where on a (256, 128) batch, except in two
    # cases, fixed below: inf or nan times False is nan, not 0; and a negative gradient times
    # False is -0.0 (printed "-0.").
    mask = ~(result._data <= 0)
    data = grad._data * mask
    if np.isnan(np.add.reduce(data, axis=None)):  # a nan somewhere (one quick pass to find out)
        data = np.where(mask, grad._data, 0).astype(grad._data.dtype, copy=False)
    data += 0.0  # -0.0 + 0.0 is 0.0
    return record(table.ThresholdBackwardBackward0, data, (grad, result), saved=(result,))


def softmax_backward_data(grad, result, dim):
    """s ⊙ (g - Σ g⊙s) along `dim`, for s = softmax(x)."""
    g_values, s_values = grad._data, result._data
    axis = dim if g_values.ndim else None
    data = s_values * (g_values - np.sum(g_values * s_values, axis=axis, keepdims=True))
    return record(table.SoftmaxBackwardDataBackward0, data, (grad, result), saved=(grad, result),
                  dim=dim)


def log_softmax_backward_data(grad, result, dim):
    """g - eˡ·Σ g along `dim`, for l = log_softmax(x)."""
    g_values = grad._data
    axis = dim if g_values.ndim else None
    data = g_values - np.exp(result._data) * np.sum(g_values, axis=axis, keepdims=True)
    return record(table.LogSoftmaxBackwardDataBackward0, data, (grad, result),
                  saved=(grad, result), dim=dim)
