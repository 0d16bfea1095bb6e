"""Weight initialisation: fill a tensor in place with random or constant values.

Every function here works under no_grad (initialising is not part of the model's computation),
changes the tensor in place and returns it, as PyTorch's `torch.nn.init` does.

Why the scale matters: a layer computes y = W·x. If each of the fan_in inputs has variance 1 and
each weight variance σ², then y has variance fan_in·σ². Choosing σ² ≈ 1/fan_in (times a gain
for the activation that follows) keeps signals from growing or shrinking layer after layer;
that is all the Kaiming and Xavier rules below are about.
"""

import math
import types
import warnings

from ..arguments import Real, checked as _checked, checked_values as _checked_values
from ..arguments import declare as _declare, declared as _declared
from ..core.grad_mode import no_grad
from ..core.tensor import Tensor
from ..ops import inplace
from ..tensor_methods import normal_fill as _normal_fill, uniform_fill as _uniform_fill


def calculate_gain(nonlinearity, param=None):
    """The factor by which an activation shrinks the variance, compensated in the init scale."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """fan_in: inputs feeding one output unit (columns of W); fan_out: outputs fed by one input."""
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field_size = 1
    for size in tensor.shape[2:]:
        receptive_field_size *= size
    fan_in = tensor.shape[1] * receptive_field_size
    fan_out = tensor.shape[0] * receptive_field_size
    return fan_in, fan_out


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# PyTorch's functions here are Python that ends in tensor.uniform_(a, b), tensor.normal_(mean,
# std) or tensor.fill_(val). These three fill, and check nothing: the numbers they get are
# already plain (the library's own, or a public call's, checked at its door by `_as_the_method`).
def _uniform(tensor, a, b):
    with no_grad():
        return _uniform_fill(tensor, a, b)


def _normal(tensor, mean, std):
    with no_grad():
        return _normal_fill(tensor, mean, std)


def _constant(tensor, val):
    with no_grad():
        return inplace.fill_(tensor, val)


def _as_the_method(method, *numbers):
    """Numbers a public call hands on to `tensor.uniform_`, `normal_` or `fill_` (the user's
    `a` and `b`, or a bound computed from the user's gain), checked as that method checks them
    and in its words ("uniform_(): argument 'from' (position 1) must be float, not str"), as
    PyTorch's Python functions let the method check them. A 0-d tensor comes back a number."""
    return _checked_values(method, numbers, method=True)[0]


@_declared(python=True)
def uniform_(tensor: Tensor, a: object = 0.0, b: object = 1.0):
    """Fill with values drawn uniformly from [a, b)."""
    return _uniform(tensor, *_as_the_method("uniform_", a, b))


@_declared(python=True)
def normal_(tensor: Tensor, mean: object = 0.0, std: object = 1.0):
    """Fill with values drawn from the normal distribution N(mean, std²)."""
    return _normal(tensor, *_as_the_method("normal_", mean, std))


@_declared(python=True)
def constant_(tensor: Tensor, val: object):
    return _constant(tensor, *_as_the_method("fill_", val))


@_declared(python=True)
def ones_(tensor: Tensor):
    return _constant(tensor, 1.0)


@_declared(python=True)
def zeros_(tensor: Tensor):
    return _constant(tensor, 0.0)


def _gain(gain: Real): ...  # the xavier initialisations' gain


_GAIN = {name: _declare(_gain, name=name, python=True) for name in ("xavier_uniform_",
                                                                   "xavier_normal_")}


@_declared(python=True)
def xavier_uniform_(tensor: Tensor, gain: object = 1.0):
    """U(-a, a) with a = gain·√(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    _GAIN["xavier_uniform_"].match((), {"gain": gain})  # (PyTorch multiplies by it, past the fans)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std  # a uniform on [-a, a] has standard deviation a/√3
    return _uniform(tensor, *_as_the_method("uniform_", -bound, bound))  # (gain: maybe a tensor)


@_declared(python=True)
def xavier_normal_(tensor: Tensor, gain: object = 1.0):
    """N(0, std²) with std = gain·√(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    _GAIN["xavier_normal_"].match((), {"gain": gain})  # (PyTorch multiplies by it, past the fans)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _normal(tensor, *_as_the_method("normal_", 0.0, std))  # (gain: maybe a tensor)


@_declared(python=True)
def kaiming_uniform_(tensor: Tensor, a: object = 0, mode: str = "fan_in",
                     nonlinearity: object = "leaky_relu"):
    """U(-bound, bound) with bound = gain·√(3 / fan) (He et al., 2015).

    `Linear` uses this with a=√5, which gives gain = √(1/3) and so bound = 1/√fan_in.
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return _uniform(tensor, -bound, bound)  # (a float: calculate_gain takes only a number)


@_declared(python=True)
def kaiming_normal_(tensor: Tensor, a: object = 0, mode: str = "fan_in",
                    nonlinearity: object = "leaky_relu"):
    """N(0, std²) with std = gain / √fan."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    return _normal(tensor, 0.0, std)  # (a float: calculate_gain takes only a number)


# -- the door -----------------------------------------------------------------------------------
# The functions above are declared where they are defined. The names this module exports are
# their checked forms, made here once, as tensorgrad/__init__.py makes the operations'. The
# library calls, through `_plain`, the ones that check nothing (nn.Linear's reset_parameters: its
# own bounds are plain floats): the fills, ones_, zeros_ and the Kaiming functions, whose
# numbers calculate_gain has taken only as Python numbers. (uniform_, normal_, constant_ and the
# Xavier functions check the numbers a public call hands on, in the method's words: not plain.)
_plain = types.SimpleNamespace(
    uniform_=_uniform, normal_=_normal, constant_=_constant, ones_=ones_, zeros_=zeros_,
    kaiming_uniform_=kaiming_uniform_, kaiming_normal_=kaiming_normal_)
uniform_, normal_, constant_, ones_, zeros_, xavier_uniform_, xavier_normal_, kaiming_uniform_, \
    kaiming_normal_ = (_checked(f) for f in (
        uniform_, normal_, constant_, ones_, zeros_, xavier_uniform_, xavier_normal_,
        kaiming_uniform_, kaiming_normal_))


__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]
