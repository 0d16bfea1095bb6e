"""tensorgrad: a small, readable autograd library on NumPy that behaves like PyTorch's autograd.

    import tensorgrad as tg
    x = tg.tensor(3., requires_grad=True)
    (x ** 2).backward()
    x.grad                      # tensor(6.)

Where to look:
    core/                the part to read first, in the order its __init__ gives: the version
                         counter, grad mode, the tensor and its flags, graph nodes, the rule
                         mechanism, instruments, recording, the engine
    core/engine.py       the backward pass: the main loop, in dependency order
    derivatives.py       every derivative rule, one short entry per operation ("what is the
                         derivative of tanh?" is answered there)
    ops/                 every operation's forward: NumPy, then `record` (core/record.py) adds its
                         node to the graph; ops/fused.py holds the fused derivative formulations
    autograd/backward_and_grad.py   tensor.backward(), autograd.backward() and autograd.grad()
    autograd/custom_function.py     autograd.Function: your own operation and its derivative
    autograd/functional.py          jacobian, hessian, vjp, jvp, hvp of a whole function
    autograd/jacobians.py           vᵀJ, J·v, whole Jacobians: what functional.py and func.py share
    autograd/messages.py PyTorch's error and warning texts, word for word
    tensor_methods.py    Tensor's operators and methods (`a * b`, `x.sum()`), attached in one place
    creation.py          tensor, zeros, ones, arange, randn, ... with PyTorch's defaults
    dtypes.py            float32 / float64 / int64 / bool and type promotion
    printing.py          the PyTorch-identical repr
    func.py              grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call (torch.func)
    nn/, optim/          layers, losses and optimizers for the training lesson
    viz/                 pictures of graphs (graphviz), trace_backward, the step-through widget
The course's exercise generation, self-checks and grader are not part of the library: they are
their own package, course/tensorgrad_course (the tensorgrad-course command).
Where each behaviour is pinned against PyTorch: tests/spec (one file per topic).
"""

from . import autograd, dtypes
from .core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                       linspace, ones, ones_like, rand, rand_like, randint, randn, randn_like,
                       randperm, tensor, zeros, zeros_like)
from .dtypes import (bool_ as bool, double, dtype, float32, float64, get_default_dtype, int64,
                     long, set_default_dtype)
from .dtypes import float as float  # noqa: PLC0414  (tg.float is float32, as torch.float)
from .ops.elementwise import ceil, expm1, floor, log1p, round, trunc  # noqa: A004  (round: torch's)
from .ops.reduction import argsort, cumsum, sort
from .ops.shape import flip, ravel, roll, swapaxes
from .ops.elementwise import (abs, add, allclose, clamp, clip, clone, cos, div, eq, equal, exp, ge, gt,
                              isclose, le, log, logical_and, logical_not, logical_or, lt, maximum,
                              minimum, mul, ne, neg, pow, reciprocal, relu, sigmoid, sign, sin,
                              sqrt, square, sub, tanh, where)
from .ops.indexing import index_select, masked_fill, nonzero, select
from .ops.linalg import bmm, dot, matmul, mm, mv, outer
from .ops.inplace import clamp_, fill_
from .ops.reduction import (all, amax, amin, any, argmax, argmin, gather, log_softmax, logsumexp,
                            max, mean, min, norm, prod, softmax, std, sum, var)
from .ops.shape import (broadcast_to, cat, chunk, concatenate, detach, expand_copy, flatten, numel,
                        permute, reshape, split, squeeze, stack, t, transpose, unbind, unsqueeze)
from .printing import set_printoptions
from .type_info import finfo, iinfo
from .random import Generator, manual_seed
from .size import Size
from .device import cuda, device
from .core.tensor import Tensor
from .tensor_methods import IN_PLACE_OF as _IN_PLACE_OF  # (and every method of Tensor)
from .tensor_methods import detach_in_place as _detach_in_place, plain_in_place as _plain_in_place
from .tensor_methods import round_in_place as _round_in_place
from .tensor_methods import legacy_constructor as _legacy_constructor  # (Tensor(...) in a dtype)
from .ops import inplace as _inplace

from .ops.elementwise import floor_divide, remainder
from .ops.elementwise import (bitwise_and, bitwise_left_shift, bitwise_or, bitwise_right_shift,
                              bitwise_xor)
from . import arguments as _arguments
from . import nn, optim  # layers, losses and optimizers
from . import func  # grad, vjp, jvp, jacrev, jacfwd, hessian, vmap: as torch.func
from . import viz  # pictures of graphs
from .serialization import load, save  # (a Parameter comes back as one: uses nn)

# The door: the operations imported above from ops/ and creation.py are declared where they are
# defined, and their checked forms are made here, where their public names are exported.
# `tg.mul(a, [1])` and `tg.zeros("2")` fail as in PyTorch; inside, the library calls the plain
# functions (tg.ops.elementwise.mul, tg.creation.zeros). nn.functional and nn.init make theirs
# the same way, at the end of their modules.
for _name, _function in list(globals().items()):
    if getattr(_function, "__module__", "").startswith(("tensorgrad.ops.", "tensorgrad.creation")) \
            and hasattr(_function, "signatures"):
        globals()[_name] = _arguments.checked(_function)
del _name, _function
# PyTorch's C functions that take no arguments, given some, say so in its words (not Python's);
# the library calls the plain functions.
is_grad_enabled = _arguments.checked(is_grad_enabled)
get_default_dtype = _arguments.checked(get_default_dtype)


def _function_form(name, plain):
    """`tensorgrad.exp_(x)`: the Tensor method as a function, whose input must be a Tensor. Its
    check is the call's one check: it runs `plain`, the method's work without the method's
    check."""
    def function(input: Tensor):  # noqa: A002  (PyTorch's argument name)
        return plain(input)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = getattr(Tensor, name).__doc__
    return _arguments.checked(function)


def _is_floating_point(input):  # noqa: A002
    return input.dtype.is_floating_point


# Tensor methods that PyTorch also offers as functions (`tensorgrad.exp_(x)` as `x.exp_()`).
is_floating_point = _function_form("is_floating_point", _is_floating_point)
zero_ = _function_form("zero_", _inplace.zero_)
detach_ = _function_form("detach_", _detach_in_place)
for _name in _IN_PLACE_OF:
    if _name != "sign":
        globals()[_name + "_"] = _function_form(_name + "_", _plain_in_place(_name))
del _name


@_arguments.overload
def round_(input: Tensor): ...  # noqa: A002  (PyTorch's argument name)
@_arguments.overload
def round_(input: Tensor, *, decimals: int): ...  # noqa: A002
@_arguments.checked
def round_(input, *, decimals=None):  # noqa: A002
    """`tensorgrad.round_(x, decimals=1)`: the method `x.round_(decimals=1)` as a function."""
    return _round_in_place(input, decimals)


def FloatTensor(*args, **kwargs):  # noqa: N802  (the legacy PyTorch constructor, still in old tutorials)
    """`FloatTensor([3])` is `tensor([3.])`: float32 whatever the default float type, unlike the
    legacy `Tensor([3])`, which follows `set_default_dtype`; `FloatTensor(t)` is t itself, if t
    is float32 (refused otherwise, as PyTorch refuses it)."""
    return _legacy_constructor(float32, args, kwargs)


def DoubleTensor(*args, **kwargs):  # noqa: N802
    """`DoubleTensor([3])`: like FloatTensor, but float64."""
    return _legacy_constructor(float64, args, kwargs)


def is_tensor(value):
    return isinstance(value, Tensor)


__version__ = "0.1.0"
