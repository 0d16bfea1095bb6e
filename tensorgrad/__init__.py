"""tensorgrad: a small, readable autograd library on NumPy that behaves like PyTorch's autograd.

    import tensorgrad as tg
    x = tg.tensor(3., requires_grad=True)
    (x ** 2).backward()
    x.grad                      # tensor(6.)

Where to look:
    tensor.py            the Tensor class and its flag rules (requires_grad, is_leaf, grad, ...)
    ops/                 every operation with its derivative rule, grouped by kind
    autograd/engine.py   the backward pass
    autograd/node.py     graph nodes (grad_fn), AccumulateGrad, saved tensors
    printing.py          the PyTorch-identical repr
"""

from . import autograd, dtypes
from .autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                       linspace, ones, ones_like, rand, rand_like, randint, randn, randn_like,
                       randperm, tensor, zeros, zeros_like)
from .dtypes import (bool_ as bool, double, dtype, float32, float64, get_default_dtype, int64,
                     long, set_default_dtype)
from .dtypes import float as float  # noqa: PLC0414  (tg.float is float32, as torch.float)
from .ops.elementwise import expm1, log1p
from .ops.reduction import cumsum
from .ops.shape import flip
from .ops.elementwise import (abs, add, allclose, clamp, clone, cos, div, eq, equal, exp, ge, gt,
                              isclose, le, log, logical_and, logical_not, logical_or, lt, maximum,
                              minimum, mul, ne, neg, pow, reciprocal, relu, sigmoid, sign, sin,
                              sqrt, square, sub, tanh, where)
from .ops.elementwise import rsub as _rsub
from .ops.indexing import select
from .ops.linalg import dot, matmul, mm, mv, outer
from .ops.reduction import (amax, amin, argmax, argmin, gather, log_softmax, logsumexp, max, mean,
                            min, norm, prod, softmax, std, sum, var)
from .ops.shape import (broadcast_to, cat, chunk, concatenate, flatten, permute, repeat, reshape,
                        split, squeeze, stack, t, transpose, unbind, unsqueeze)
from .printing import get_printoptions, set_printoptions
from .random import Generator, manual_seed
from .size import Size
from .tensor import Tensor

from .ops.elementwise import floor_divide, remainder
from . import arguments as _arguments

clip = clamp




def FloatTensor(*args):  # noqa: N802  (the legacy PyTorch constructor, still in old tutorials)
    """`FloatTensor([3])` is `tensor([3.])`: a float32 tensor, like the legacy `Tensor([3])`."""
    return Tensor(*args)


def DoubleTensor(*args):  # noqa: N802
    """`DoubleTensor([3])`: like FloatTensor, but float64."""
    return Tensor(*args).double()


def is_tensor(value):
    return isinstance(value, Tensor)


def numel(t):
    return t.numel()


def detach(t):
    return t.detach()


def expand_copy(t, *sizes):
    return t.expand(*sizes).clone()


_arguments.check_functions(globals())  # each checks its arguments first (see arguments.py)

__version__ = "0.1.0"

from . import viz  # noqa: E402  (pictures of graphs; imported last, as it uses everything above)
from . import nn, optim  # noqa: E402  (layers, losses and optimizers, built on everything above)
