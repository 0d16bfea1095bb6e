"""Every derivative rule in tensorgrad, in one table.

"What is the derivative of exp?" Look it up here. The entry, as it is written below and runs:

    # y = eˣ:  dy/dx = eˣ = y
    ExpBackward0 = rule(
        "ExpBackward0", saves=("result",), local="exp({a})", elementwise=True,
        self=lambda grad, result: grad * result)

reads: the node that `exp` records is called ExpBackward0 (PyTorch's name); the forward pass
saves its result y; the gradient for the input (`self`, as PyTorch calls the first input) is
the incoming gradient times y. Each entry is the chain rule for one operation: the incoming
gradient `grad` (∂L/∂out) times the local derivative ∂out/∂input. How an entry becomes a node
class, and how a formula's parameters are filled in, is in core/rule.py.

What an entry holds, besides its formulas:
    saves        what the forward pass keeps for backward (`grad_fn._saved_self`, ...)
    settings     attributes the forward records that no formula reads (PyTorch shows them)
    computes     how pictures write the operation: "{a} * {b}"
    local        how pictures write each local derivative: "{b}", "1 - {out}²"
    elementwise  output element i depends only on element i of each input
    same_as      where the formula is a fused NumPy formulation (ops/fused.py), for speed and to
                 record the same graph as PyTorch under create_graph=True: the plain formula it
                 computes, which tests check it against (tests/test_derivative_table.py)
    jvp          the forward-mode rule: the output's tangent from the inputs' tangents
                 (`self_t`, `other_t`, ...), for autograd.forward_ad
    full_name    where PyTorch's `grad_fn.name()` is not the class name, that name, with
                 tensorgrad for torch as in every message ("tensorgrad::autograd::CopySlices")

Broadcasting is undone in one place for all of them (core/engine.py: fit_gradient), so no
formula sums a gradient back to its input's shape. Every rule is checked against finite
differences, at first and second order, in tests/test_derivatives.py and tests/test_gradcheck.py.
"""

import numpy as np

from . import dtypes
from .autograd import messages
from .core.rule import rule
from .ops import fused
from .core.record import record
from .core.tensor import Tensor

# -- + - * / and negation ---------------------------------------------------------------------
# z = a + α·b:  ∂z/∂a = 1,  ∂z/∂b = α
AddBackward0 = rule(
    "AddBackward0", computes="{a} + {alpha_times}{b}", local=("1", "{alpha}"), elementwise=True,
    self=lambda grad: grad,
    other=lambda grad, alpha: grad if alpha == 1 else grad * alpha)

# z = a - α·b:  ∂z/∂a = 1,  ∂z/∂b = -α
SubBackward0 = rule(
    "SubBackward0", computes="{a} - {alpha_times}{b}", local=("1", "-{alpha}"), elementwise=True,
    self=lambda grad: grad,
    other=lambda grad, alpha: -grad if alpha == 1 else grad * -alpha)

# z = c - x for a number c:  ∂z/∂x = -1
RsubBackward1 = rule(
    "RsubBackward1", computes="const - {a}", local="-1", elementwise=True,
    self=lambda grad: -grad)

# z = a·b:  ∂z/∂a = b,  ∂z/∂b = a. (Each factor is saved only if the other needs a gradient.)
MulBackward0 = rule(
    "MulBackward0", saves=("other", "self"), computes="{a} * {b}", local=("{b}", "{a}"),
    elementwise=True,
    self=lambda grad, other: grad * other,
    other=lambda grad, self: grad * self)

# z = a / b:  ∂z/∂a = 1/b,  ∂z/∂b = -a/b². (Written (a / b) / b: b² under- or overflows first.)
DivBackward0 = rule(
    "DivBackward0", saves=("other", "self"), computes="{a} / {b}", local=("1/{b}", "-{a}/{b}²"),
    elementwise=True,
    self=lambda grad, other: grad / other,
    other=lambda grad, other, self: -grad * ((self / other) / other))

# z = a / c for a number c, as PyTorch's own functions divide (its C++ `div` by a Scalar: the mean
# of cross_entropy over probabilities); a learner's `t / 2` wraps the 2 as a tensor: DivBackward0
DivBackward1 = rule(
    "DivBackward1", computes="{a} / const", local="1/const", elementwise=True,
    self=lambda grad, other: grad / other)

# z = a / b rounded (div's rounding_mode "floor" or "trunc"): a staircase, flat between its steps;
# PyTorch's formula is `grad * 0` for both inputs (so an inf or nan gradient stays nan)
DivBackward2 = rule(
    "DivBackward2", computes="{a} / {b} rounded", local=("0", "0"), elementwise=True,
    self=lambda grad: grad * 0,
    other=lambda grad: grad * 0)

# z = a mod b = a - ⌊a/b⌋·b:  ∂z/∂a = 1,  ∂z/∂b = -⌊a/b⌋ (the floor is flat between its steps);
# PyTorch's two nodes: b a number (RemainderBackward0, a's gradient only) or a tensor (...1)
RemainderBackward0 = rule(
    "RemainderBackward0", computes="{a} % {b}", local="1", elementwise=True,
    self=lambda grad: grad)
RemainderBackward1 = rule(
    "RemainderBackward1", saves=("other", "self"), computes="{a} % {b}", local=("1", "-⌊{a}/{b}⌋"),
    elementwise=True,
    self=lambda grad: grad,
    other=lambda grad, other, self: -grad * self._div(other, rounding_mode="floor"))

# y = 1/x:  dy/dx = -1/x² = -y²
ReciprocalBackward0 = rule(
    "ReciprocalBackward0", saves=("result",), local="-{out}²", elementwise=True,
    self=lambda grad, result: -grad * result * result)

# y = -x:  dy/dx = -1
NegBackward0 = rule(
    "NegBackward0", computes="-{a}", local="-1", elementwise=True,
    self=lambda grad: -grad)


# -- powers -------------------------------------------------------------------------------------
def power_rule(grad, self, exponent):
    """y = xⁿ for a number n:  dy/dx = n·xⁿ⁻¹. (x⁰ is a constant: its gradient is zeros.)"""
    if exponent == 0:
        return zeros_like(self)
    return grad * exponent * self ** (exponent - 1)


PowBackward0 = rule(
    "PowBackward0", saves=("self",), computes="{a} ** {exponent}",
    local="{exponent}·{a}^{exponent_minus_1}", elementwise=True,
    self=power_rule)


def pow_base(grad, exponent, self):
    """z = aᵇ:  ∂z/∂a = b·aᵇ⁻¹, and 0 at 0⁰ (not 0·0⁻¹ = nan), as in PyTorch. (Masking only
    there, not at every zero exponent as PyTorch does, keeps its derivative in b right.)"""
    zero_to_zero = (self == 0) & (exponent == 0)
    return where(zero_to_zero, 0.0, grad * exponent * self ** (exponent - 1))


PowBackward1 = rule(
    "PowBackward1", saves=("exponent", "self", "result"), computes="{a} ** {b}",
    local=("{b}·{a}^({b} - 1)", "{out}·ln({a})"), elementwise=True,
    self=pow_base,
    exponent=lambda grad, exponent, self, result: grad * result * safe_log_of_base(self, exponent))


def safe_log_of_base(base, exponent):
    """ln(base), but 0 where the base is 0 and the exponent ≥ 0: there aᵇ is flat in b."""
    zero_base = (base == 0) & (exponent >= 0)
    return where(zero_base, 0.0, (where(zero_base, 1.0, base))._log())


def exponential_rule(grad, exponent, result, base):
    """z = cˣ for a number c:  dz/dx = z·ln c. For c = 0: 0 where x ≥ 0 (as PyTorch), and -inf
    where x < 0 (0ˣ is inf there)."""
    if base == 0:
        return grad * where(exponent >= 0, 0.0, result * float("-inf"))
    return grad * result * float(np.log(base))


PowBackward2 = rule(
    "PowBackward2", saves=("exponent", "result"), computes="{base} ** {a}",
    local="{out}·ln({base})", elementwise=True,
    self=exponential_rule)


# -- functions of one variable ------------------------------------------------------------------
# y = eˣ:  dy/dx = eˣ = y
ExpBackward0 = rule(
    "ExpBackward0", saves=("result",), local="exp({a})", elementwise=True,
    self=lambda grad, result: grad * result)

# y = ln x:  dy/dx = 1/x
LogBackward0 = rule(
    "LogBackward0", saves=("self",), local="1/{a}", elementwise=True,
    self=lambda grad, self: grad / self)

# y = ln(1 + x):  dy/dx = 1/(1 + x)
Log1PBackward0 = rule(
    "Log1PBackward0", saves=("self",), local="1/(1 + {a})", elementwise=True,
    self=lambda grad, self: grad / (self + 1))

# y = eˣ - 1:  dy/dx = eˣ = y + 1
Expm1Backward0 = rule(
    "Expm1Backward0", saves=("result",), local="{out} + 1", elementwise=True,
    self=lambda grad, result: grad * (result + 1))

# y = √x:  dy/dx = 1/(2√x) = 1/(2y)
SqrtBackward0 = rule(
    "SqrtBackward0", saves=("result",), local="1/(2·{out})", elementwise=True,
    self=lambda grad, result: grad / (2 * result))

# y = sin x:  dy/dx = cos x
SinBackward0 = rule(
    "SinBackward0", saves=("self",), local="cos({a})", elementwise=True,
    self=lambda grad, self: grad * self._cos())

# y = cos x:  dy/dx = -sin x
CosBackward0 = rule(
    "CosBackward0", saves=("self",), local="-sin({a})", elementwise=True,
    self=lambda grad, self: grad * -self._sin())

def tanh_backward(grad, result):
    """PyTorch's tanh_backward: g·(1 - y²) as one recorded operation (computed in ops/fused.py)."""
    return record(TanhBackwardBackward0, fused.tanh_backward(grad._data, result._data),
                  (grad, result), saved={"grad_output": grad, "output": result})


# y = tanh x:  dy/dx = 1 - tanh²x = 1 - y²
TanhBackward0 = rule(
    "TanhBackward0", saves=("result",), local="1 - {out}²", elementwise=True,
    self=tanh_backward,  # grad * (1 - result²) as one recorded operation, as PyTorch
    same_as={"self": lambda grad, result: grad * (1 - result * result)})

def sigmoid_backward(grad, result):
    """PyTorch's sigmoid_backward: g·y·(1 - y) as one recorded operation."""
    return record(SigmoidBackwardBackward0, fused.sigmoid_backward(grad._data, result._data),
                  (grad, result), saved={"grad_output": grad, "output": result})


# y = σ(x) = 1 / (1 + e⁻ˣ):  dy/dx = y·(1 - y)
SigmoidBackward0 = rule(
    "SigmoidBackward0", saves=("result",), local="{out}·(1 - {out})", elementwise=True,
    self=sigmoid_backward,  # grad * result * (1 - result), fused
    same_as={"self": lambda grad, result: grad * result * (1 - result)})

def threshold_backward(grad, result):
    """PyTorch's threshold_backward: g where y > 0, else 0, as one recorded operation."""
    return record(ThresholdBackwardBackward0, fused.threshold_backward(grad._data, result._data),
                  (grad, result), saved={"self": result})


# y = max(x, 0):  dy/dx = 1 where x > 0, else 0 (and the gradient passes where y is nan)
ReluBackward0 = rule(
    "ReluBackward0", saves=("result",), local="1 where {out} > 0, else 0", elementwise=True,
    self=threshold_backward,  # grad where result > 0, else 0, fused
    same_as={"self": lambda grad, result: where(result <= 0, 0.0, grad)})

# y = |x|:  dy/dx = sign(x) (0 at x = 0)
AbsBackward0 = rule(
    "AbsBackward0", saves=("self",), local="sign({a})", elementwise=True,
    self=lambda grad, self: grad * self._sign())

# y = sign(x):  dy/dx = 0 wherever it exists
SignBackward0 = rule(
    "SignBackward0", local="0", elementwise=True,
    self=lambda grad: grad * 0)


# y = round(x), ⌊x⌋, ⌈x⌉, trunc(x): steps, flat between them, so dy/dx = 0 wherever it exists
def flat(grad):
    """The gradient of a step function: zeros (PyTorch's zeros_like(grad), so an infinite
    incoming gradient gives no nan, as grad * 0 would)."""
    return zeros_like(grad)


RoundBackward0 = rule("RoundBackward0", local="0", elementwise=True, self=flat)
RoundBackward1 = rule("RoundBackward1", local="0", elementwise=True, self=flat)
FloorBackward0 = rule("FloorBackward0", local="0", elementwise=True, self=flat)
CeilBackward0 = rule("CeilBackward0", local="0", elementwise=True, self=flat)
TruncBackward0 = rule("TruncBackward0", local="0", elementwise=True, self=flat)


def clamp_rule(grad, self, min, max):  # noqa: A002  (PyTorch's names)
    """y = clamp(x, lo, hi):  dy/dx = 1 where lo ≤ x ≤ hi, else 0."""
    inside = self == self  # all True, with x's shape
    if min is not None:
        inside = inside & (self >= min)
    if max is not None:
        inside = inside & (self <= max)
    return where(inside, grad, 0)


ClampBackward1 = rule(
    "ClampBackward1", saves=("self",), local="1 where {min} ≤ {a} ≤ {max}, else 0",
    elementwise=True,
    self=clamp_rule)
# the same with tensor bounds, under PyTorch's name for that form (bounds that require grad are
# refused, see ops/elementwise.py's clamp, so x is the one input)
ClampBackward0 = rule(
    "ClampBackward0", saves=("self",), local="1 where {min} ≤ {a} ≤ {max}, else 0",
    elementwise=True,
    self=clamp_rule)


# -- choosing between inputs --------------------------------------------------------------------
def share_unless_beaten(grad, loses, ties):
    """maximum/minimum, as PyTorch: an input gets the gradient, half of it on a tie, and none
    where the other input wins. (Where neither wins nor ties, a nan, both get all of it.)"""
    return where(loses, 0, where(ties, grad / 2, grad))


# z = max(a, b): the gradient goes to the larger input; ties split it half and half
MaximumBackward0 = rule(
    "MaximumBackward0", saves=("other", "self"), elementwise=True,
    self=lambda grad, self, other: share_unless_beaten(grad, self < other, self == other),
    other=lambda grad, self, other: share_unless_beaten(grad, other < self, self == other))

# z = min(a, b): the gradient goes to the smaller input; ties split it half and half
MinimumBackward0 = rule(
    "MinimumBackward0", saves=("other", "self"), elementwise=True,
    self=lambda grad, self, other: share_unless_beaten(grad, self > other, self == other),
    other=lambda grad, self, other: share_unless_beaten(grad, other > self, self == other))

# z = where(c, a, b): the gradient goes to a where c holds, to b elsewhere
WhereBackward0 = rule(
    "WhereBackward0", saves=("condition",), elementwise=True,
    self=lambda grad, condition: where(condition, grad, 0),
    other=lambda grad, condition: where(condition, 0, grad))

# y = x.masked_fill(mask, v): y is v where the mask holds, x elsewhere. So x gets the gradient off
# the mask, and a 0-d tensor v (MaskedFillBackward1) the gradient of every place it was written
# to (summed by the engine, as for any input broadcast to the output's shape)
MaskedFillBackward0 = rule(
    "MaskedFillBackward0", saves=("mask",), local="0 where the mask holds, else 1",
    elementwise=True,
    self=lambda grad, mask: where(mask, 0, grad))
MaskedFillBackward1 = rule(
    "MaskedFillBackward1", saves=("mask",), local=("0 where the mask holds, else 1",
                                                   "1 where the mask holds, else 0"),
    elementwise=True,
    self=lambda grad, mask: where(mask, 0, grad),
    value=lambda grad, mask: where(mask, grad, 0))


# -- copies and casts: the gradient passes unchanged --------------------------------------------
CloneBackward0 = rule("CloneBackward0", local="1", elementwise=True, self=lambda grad: grad)
# (a cast: the engine casts the gradient back to the input's dtype)
ToCopyBackward0 = rule("ToCopyBackward0", local="1", elementwise=True, self=lambda grad: grad)
# copy_, and the node of a `.grad` made by backward(create_graph=True) (PyTorch's name has no digit):
# the overwritten values (self) get no gradient, the source (src) all of it
CopyBackwards = rule("CopyBackwards", local=("0", "1"), elementwise=True,
                     full_name="tensorgrad::autograd::CopyBackwards",
                     self=lambda grad: zeros_like(grad), src=lambda grad: grad)

# x.zero_() and x.fill_(v): the old values no longer matter, so their gradient is zero
ZeroBackward0 = rule("ZeroBackward0", self=lambda grad: zeros_like(grad),
                     jvp=lambda self_t: zeros_like(self_t))
FillBackward2 = rule("FillBackward2", self=lambda grad: zeros_like(grad),  # (fill_ of a number)
                     jvp=lambda self_t: zeros_like(self_t))
# fill_ with a 0-d tensor: every element is the value, so the value gets the sum of the gradient
FillBackward3 = rule("FillBackward3", self=lambda grad: zeros_like(grad),
                     value=lambda grad: grad._sum(),
                     jvp=lambda self_t, value_t: zeros_like(self_t) + value_t)
# operations PyTorch has no derivative for (floor_divide): the node is recorded all the same, so
# that an in-place form does not leave the tensor its old node, and it says so when reached
def no_derivative(grad, aten_name):
    raise RuntimeError(f"derivative for aten::{aten_name} is not implemented")


def no_forward_derivative(self_t, aten_name):
    raise NotImplementedError(messages.FORWARD_AD_NOT_SUPPORTED.format(name="aten::" + aten_name))


NotImplementedBackward = rule("NotImplemented", self=no_derivative, other=no_derivative,
                              jvp=no_forward_derivative)
# random fills (normal_, uniform_): the new values do not depend on the old ones
NormalBackward0 = rule("NormalBackward0", self=lambda grad: zeros_like(grad),
                       jvp=lambda self_t: zeros_like(self_t))
UniformBackward0 = rule("UniformBackward0", self=lambda grad: zeros_like(grad),
                        jvp=lambda self_t: zeros_like(self_t))


# -- reductions: the gradient goes back to every element that contributed ------------------------
# s = Σ xᵢ:  ∂s/∂xᵢ = 1, so every element gets the gradient
SumBackward0 = rule(
    "SumBackward0", local="1",
    self=lambda grad, self_sym_sizes: grad._expand(self_sym_sizes),
    jvp=lambda self_t: self_t._sum())

# the sum along some dims: each element gets the gradient of its own sum
SumBackward1 = rule(
    "SumBackward1",
    self=lambda grad, dim, keepdim, self_sym_sizes: expand_back(grad, dim, keepdim,
                                                                  self_sym_sizes),
    jvp=lambda self_t, dim, keepdim: self_t._sum(dim, keepdim))

# m = (1/N) Σ xᵢ:  ∂m/∂xᵢ = 1/N
MeanBackward0 = rule(
    "MeanBackward0", local="1/{self_sym_numel}",
    self=lambda grad, self_sym_sizes, self_sym_numel: grad._expand(self_sym_sizes) / self_sym_numel,
    jvp=lambda self_t: self_t._mean())

# the mean along some dims: each element gets its group's gradient over the group's size
MeanBackward1 = rule(
    "MeanBackward1",
    self=lambda grad, dim, keepdim, self_sym_sizes, count:
        expand_back(grad, dim, keepdim, self_sym_sizes) / count,
    jvp=lambda self_t, dim, keepdim: self_t._mean(dim=dim, keepdim=keepdim))


def shared_by_ties(grad, self, result):
    """max()/min() of everything: the elements equal to the result share the gradient equally
    (if the result is nan, it came from the nan elements, and they share it)."""
    winners = self != self if np.isnan(result._data) else self == result
    return where(winners, grad / winners._sum(), 0)


def shared_by_ties_jvp(self_t, self, result):
    """max()/min()'s forward rule: the tangents of the tied winners, averaged."""
    return (shared_by_ties(1.0, self, result) * self_t)._sum()


MaxBackward1 = rule("MaxBackward1", saves=("self", "result"), self=shared_by_ties,
                    jvp=shared_by_ties_jvp)
MinBackward1 = rule("MinBackward1", saves=("self", "result"), self=shared_by_ties,
                    jvp=shared_by_ties_jvp)


def to_selected_index(grad, indices, dim, keepdim, self_sym_sizes):
    """max(dim)/min(dim): the gradient goes to the element whose index was returned."""
    grad = restore_dims(grad, (dim,), keepdim, self_sym_sizes)
    index = restore_dims(indices, (dim,), keepdim, self_sym_sizes)
    return scatter_along(grad, index, dim, self_sym_sizes)


def picked(self_t, indices, dim, keepdim):
    """max(dim)'s forward rule: the tangent of the element whose index was returned."""
    picked = self_t._gather(dim, indices if keepdim else indices._unsqueeze(dim))
    return picked if keepdim else picked._squeeze(dim)


MaxBackward0 = rule("MaxBackward0", saves=("indices",), self=to_selected_index, jvp=picked)
MinBackward0 = rule("MinBackward0", saves=("indices",), self=to_selected_index, jvp=picked)


def shared_by_ties_along(grad, self, result, dim, keepdim, self_sym_sizes):
    """amax/amin along dims: the elements equal to their group's result share its gradient."""
    result = restore_dims(result, dim, keepdim, self_sym_sizes)
    grad = restore_dims(grad, dim, keepdim, self_sym_sizes)
    winners = self == result
    return grad * winners / winners._sum(dim, keepdim=True)


def contracted(local, self_t, dim, keepdim):
    """A reduction's forward rule from its backward: if the output's gradient reaches each
    element as grad·D, then the output's tangent is Σ D·ẋ over the reduced dims."""
    return (local * self_t)._sum(dim, keepdim)


def shared_by_ties_along_jvp(self_t, self, result, dim, keepdim, self_sym_sizes):
    ones = ones_like(result)
    local = shared_by_ties_along(ones, self, result, dim, keepdim, self_sym_sizes)
    return contracted(local, self_t, dim, keepdim)


AmaxBackward0 = rule("AmaxBackward0", saves=("self", "result"), self=shared_by_ties_along,
                     jvp=shared_by_ties_along_jvp)
AminBackward0 = rule("AminBackward0", saves=("self", "result"), self=shared_by_ties_along,
                     jvp=shared_by_ties_along_jvp)


def product_rule(grad, self, result, dim, keepdim, self_sym_sizes):
    """p = Π xᵢ:  ∂p/∂xᵢ = the product of all the *other* elements. That is p / xᵢ when no
    element is zero, as PyTorch computes it; with a zero, the product of the others is built
    from multiplications only, so that its own derivatives are right too."""
    grad = restore_dims(grad, dim, keepdim, self_sym_sizes)
    if self.ndim == 0:
        return grad  # the product of one number is that number (PyTorch's shortcut)
    if not np.any(self._data == 0):
        return grad * (restore_dims(result, dim, keepdim, self_sym_sizes) / self)
    if all(self.shape[d] == 1 for d in dim):
        return grad  # with zeros, PyTorch's shortcut: a product of one element is itself
    return grad * product_of_others(self, dim)


def product_jvp(self_t, self, result, dim, keepdim, self_sym_sizes):
    local = product_rule(ones_like(result), self, result, dim, keepdim, self_sym_sizes)
    return contracted(local, self_t, dim, keepdim)


ProdBackward0 = rule("ProdBackward0", saves=("self", "result"), self=product_rule, jvp=product_jvp)
ProdBackward1 = rule("ProdBackward1", saves=("self", "result"), self=product_rule, jvp=product_jvp)

def variance_jvp(self_t, self, result, dim, keepdim, correction, self_sym_sizes, whole):
    ones = restore_dims(ones_like(result), dim, keepdim, self_sym_sizes)
    local = variance_rule(ones, self, dim, correction, self_sym_sizes, whole)
    return contracted(local, self_t, dim, keepdim)


# v = Σ (xᵢ - x̄)² / (N - correction):  ∂v/∂xᵢ = 2 (xᵢ - x̄) / (N - correction)
VarBackward0 = rule(
    "VarBackward0", saves=("self",),
    self=lambda grad, self, dim, keepdim, correction, self_sym_sizes, whole: variance_rule(
        restore_dims(grad, dim, keepdim, self_sym_sizes), self, dim, correction,
        self_sym_sizes, whole),
    jvp=variance_jvp)


def std_rule(grad, self, result, dim, keepdim, correction, self_sym_sizes, whole):
    """s = √v:  ∂s/∂xᵢ = (∂v/∂xᵢ) / (2s). Where s = 0 (all values equal) PyTorch gives 0."""
    grad = restore_dims(grad, dim, keepdim, self_sym_sizes)
    result = restore_dims(result, dim, keepdim, self_sym_sizes)
    is_zero = result == 0
    grad = where(is_zero, 0.0, grad / (2 * where(is_zero, 1.0, result)))
    return variance_rule(grad, self, dim, correction, self_sym_sizes, whole)


def std_jvp(self_t, self, result, dim, keepdim, correction, self_sym_sizes, whole):
    ones = ones_like(result)
    local = std_rule(ones, self, result, dim, keepdim, correction, self_sym_sizes, whole)
    return contracted(local, self_t, dim, keepdim)


StdBackward0 = rule("StdBackward0", saves=("self", "result"), self=std_rule, jvp=std_jvp)


def norm_rule(grad, self, result, ord, dim, keepdim, self_sym_sizes):  # noqa: A002
    """n = (Σ |xᵢ|ᵖ)^(1/p):  ∂n/∂xᵢ = xᵢ·|xᵢ|ᵖ⁻² / nᵖ⁻¹  (for p = 2: xᵢ / n; 0 at the origin)."""
    grad = restore_dims(grad, dim, keepdim, self_sym_sizes)
    result = restore_dims(result, dim, keepdim, self_sym_sizes)
    if ord == 0:  # a count of non-zero values: flat; PyTorch gives no gradient at all
        return None
    if ord == 1:
        return grad * self._sign()
    if abs(ord) == float("inf"):  # the largest (or, for -inf, the smallest) magnitudes
        winners = self._abs() == result
        return grad * self._sign() * winners / winners._sum(dim=dim, keepdim=True)
    safe = where(result == 0, 1.0, result)
    if ord == 2:
        return grad * self / safe * (result != 0)
    return grad * self * self._abs() ** (ord - 2) / safe ** (ord - 1) * (result != 0)


def norm_jvp(self_t, self, result, ord, dim, keepdim, self_sym_sizes):  # noqa: A002
    local = norm_rule(ones_like(result), self, result, ord, dim, keepdim, self_sym_sizes)
    return zeros_like(result) if local is None else contracted(local, self_t, dim, keepdim)


LinalgVectorNormBackward0 = rule(
    "LinalgVectorNormBackward0", saves=("self", "result"), self=norm_rule,
    jvp=norm_jvp)

def softmax_backward_data(grad, result, dim):
    """PyTorch's _softmax_backward_data: s ⊙ (g - Σ g⊙s) as one recorded operation."""
    data = fused.softmax_backward_data(grad._data, result._data, dim)
    return record(SoftmaxBackwardDataBackward0, data, (grad, result),
                  saved={"grad_output": grad, "output": result},
                  dim=dim)


def log_softmax_backward_data(grad, result, dim):
    """PyTorch's _log_softmax_backward_data: g - eˡ·Σ g as one recorded operation."""
    data = fused.log_softmax_backward_data(grad._data, result._data, dim)
    return record(LogSoftmaxBackwardDataBackward0, data, (grad, result),
                  saved={"grad_output": grad, "output": result},
                  dim=dim)


# s = softmax(x):  the VJP is s ⊙ (g - Σ g⊙s), summed along the softmax dim
SoftmaxBackward0 = rule(
    "SoftmaxBackward0", saves=("result",),
    self=softmax_backward_data,  # result * (grad - Σ grad·result), fused
    same_as={"self": lambda grad, result, dim:
             result * (grad - (grad * result)._sum(dim=dim, keepdim=True))},
    jvp=lambda self_t, result, dim:
        result * (self_t - (self_t * result)._sum(dim=dim, keepdim=True)))

# l = log_softmax(x):  the VJP is g - softmax(x)·Σ g, and softmax(x) = exp(l)
LogSoftmaxBackward0 = rule(
    "LogSoftmaxBackward0", saves=("result",),
    self=log_softmax_backward_data,  # grad - exp(result)·Σ grad, fused
    same_as={"self": lambda grad, result, dim: grad - result._exp() * grad._sum(dim=dim, keepdim=True)},
    jvp=lambda self_t, result, dim:
        self_t - (result._exp() * self_t)._sum(dim=dim, keepdim=True))

# l = log Σ eˣ:  ∂l/∂xᵢ = e^(xᵢ - l) = softmax(x)ᵢ
LogsumexpBackward0 = rule(
    "LogsumexpBackward0", saves=("self", "result"),
    self=lambda grad, self, result, dim, keepdim, self_sym_sizes:
        restore_dims(grad, dim, keepdim, self_sym_sizes)
        * (self - restore_dims(result, dim, keepdim, self_sym_sizes))._exp(),
    jvp=lambda self_t, self, result, dim, keepdim, self_sym_sizes: contracted(
        (self - restore_dims(result, dim, keepdim, self_sym_sizes))._exp(), self_t, dim, keepdim))

# yᵢ = x₁ + ... + xᵢ: xⱼ affects every yᵢ with i ≥ j, so its gradient is the sum of the output
# gradients from position j to the end: a cumsum of the reversed gradient, reversed
CumsumBackward0 = rule(
    "CumsumBackward0",
    self=lambda grad, dim: ((grad._flip(dim))._cumsum(dim))._flip(dim),
    jvp=lambda self_t, dim: self_t._cumsum(dim))

# y = x[index] along dim (gather): the gradient is added back at the same places
GatherBackward0 = rule(
    "GatherBackward0", saves=("index",),
    self=lambda grad, index, dim, self_sym_sizes: scatter_add_along(grad, index, dim,
                                                                      self_sym_sizes),
    jvp=lambda self_t, index, dim: self_t._gather(dim, index))

# y = sort(x) along dim, with the indices i it reports: y = gather(x, dim, i), and i is a
# permutation, so each element's gradient goes back to the place it came from
SortBackward0 = rule(
    "SortBackward0", saves=("indices",),
    self=lambda grad, indices, dim, self_sym_sizes: scatter_along(grad, indices, dim,
                                                                  self_sym_sizes),
    jvp=lambda self_t, indices, dim: self_t._gather(dim, indices))
SortBackward1 = rule(  # (sort(stable=True): the same rule, PyTorch's other name)
    "SortBackward1", saves=("indices",), self=SortBackward0.formulas[0][1],
    jvp=SortBackward0.jvp_formula)

# the scatters that gather's and max(dim)'s rules use: their derivative picks the places back out
ScatterAlongBackward = rule(
    "ScatterAlongBackward", saves=("index",),
    self=lambda grad, index, dim: grad._gather(dim, index),
    jvp=lambda self_t, index, dim, result: scatter_along(self_t, index, dim, result.shape))
ScatterAddBackward = rule(
    "ScatterAddBackward", saves=("index",),
    self=lambda grad, index, dim: grad._gather(dim, index),
    jvp=lambda self_t, index, dim, result:
        scatter_add_along(self_t, index, dim, result.shape))


# -- shapes: the same values, rearranged; the gradient is rearranged back ------------------------
def back_to_input_shape(grad, self_sym_sizes):
    """y = x with a new shape (view, reshape, squeeze): the gradient takes x's shape back."""
    return grad._reshape(self_sym_sizes)


def to_output_shape(self_t, result):
    """...and the forward rule: the tangent takes the output's shape."""
    return self_t._reshape(result.shape)


ViewBackward0 = rule("ViewBackward0", self=back_to_input_shape, jvp=to_output_shape)
UnsafeViewBackward0 = rule("UnsafeViewBackward0", self=back_to_input_shape, jvp=to_output_shape)
ReshapeAliasBackward0 = rule("ReshapeAliasBackward0", self=back_to_input_shape, jvp=to_output_shape)
# y = x itself, another tensor over the same memory (`t.new(x)`): the gradient passes as it is
AliasBackward0 = rule("AliasBackward0", local="1", elementwise=True, self=lambda grad: grad)

# y = x with two dims swapped: swap them back
TransposeBackward0 = rule(
    "TransposeBackward0", self=lambda grad, dim0, dim1: grad._transpose(dim0, dim1),
    jvp=lambda self_t, dim0, dim1: self_t._transpose(dim0, dim1))

# y = xᵀ of a matrix (a vector stays as it is)
TBackward0 = rule("TBackward0", self=lambda grad: grad._t(), jvp=lambda self_t: self_t._t())

# y = x with its dims reordered: apply the inverse order
PermuteBackward0 = rule(
    "PermuteBackward0",
    self=lambda grad, dims: grad._permute(*[dims.index(d) for d in range(len(dims))]),
    jvp=lambda self_t, dims: self_t._permute(*dims))

# y = x with a new dim of size 1: remove it again
UnsqueezeBackward0 = rule(
    "UnsqueezeBackward0", self=lambda grad, dim: grad._squeeze(dim),
    jvp=lambda self_t, dim: self_t._unsqueeze(dim))

# y = x without some size-1 dims: give them back (squeeze(), squeeze(dim), squeeze(dims))
SqueezeBackward0 = rule("SqueezeBackward0", self=back_to_input_shape, jvp=to_output_shape)
SqueezeBackward1 = rule("SqueezeBackward1", self=back_to_input_shape, jvp=to_output_shape)
SqueezeBackward4 = rule("SqueezeBackward4", self=back_to_input_shape, jvp=to_output_shape)

# y = x broadcast to a larger shape: its derivative sums the gradient over the copies, which the
# engine's fit_gradient does for every broadcast input, so the gradient passes on unchanged
ExpandBackward0 = rule(
    "ExpandBackward0", settings=("self_sym_sizes",), self=lambda grad: grad,
    jvp=lambda self_t, result: self_t._expand(result.shape))


def untile(grad, repeats, self_sym_sizes):
    """y = x tiled `repeats` times: each element's gradient is the sum over its copies."""
    shape = (1,) * (len(repeats) - len(self_sym_sizes)) + tuple(self_sym_sizes)
    split = []
    for copies, size in zip(repeats, shape):
        split.extend((copies, size))
    summed = grad._reshape(split)._sum(dim=tuple(range(0, len(split), 2)))
    return summed._reshape(self_sym_sizes)


RepeatBackward0 = rule("RepeatBackward0", self=untile,
                       jvp=lambda self_t, repeats: self_t._repeat(*repeats))


def cut_into_pieces(grad, dim, sizes):
    """y = the inputs joined along `dim` (cat): cut the gradient back into the same pieces."""
    pieces, start = [], 0
    for size in sizes:
        if size is None:  # a 1-d empty input, which cat skipped
            pieces.append(Tensor._make(np.zeros(0, grad._data.dtype)))
            continue
        index = [slice(None)] * grad.ndim
        index[dim] = slice(start, start + size)
        pieces.append(grad[tuple(index)])
        start += size
    return pieces


def cat_jvp(tensors_t, dim):
    """The tangent of a concatenation is the concatenation of the tangents: each tangent placed
    in its own slice of zeros of the output's shape, and those added up."""
    shape = list(tensors_t[0].shape)
    shape[dim] = sum(t.shape[dim] for t in tensors_t)
    total, start = 0, 0
    for tangent in tensors_t:
        index = [slice(None)] * len(shape)
        index[dim] = slice(start, start + tangent.shape[dim])
        total = total + index_put_into_zeros(tangent, tuple(index), tuple(shape))
        start += tangent.shape[dim]
    return total


CatBackward0 = rule("CatBackward0", tensors=cut_into_pieces,
                    jvp=cat_jvp)

# y = the inputs stacked along a new dim: each input gets its slice of the gradient
StackBackward0 = rule(
    "StackBackward0",
    tensors=lambda grad, dim: [grad._select(dim, i) for i in range(grad.shape[dim])],
    jvp=lambda tensors_t, dim: cat_jvp([t._unsqueeze(dim) for t in tensors_t], dim))

# y = x reversed along some dims: reverse the gradient the same way
FlipBackward0 = rule("FlipBackward0", self=lambda grad, dims: grad._flip(dims),
                     jvp=lambda self_t, dims: self_t._flip(dims))
RollBackward0 = rule("RollBackward0",
                     self=lambda grad, shifts, dims: grad._roll([-s for s in shifts], dims),
                     jvp=lambda self_t, shifts, dims: self_t._roll(shifts, dims))


# -- indexing -----------------------------------------------------------------------------------
def back_into_zeros(grad, index, self_sym_sizes):
    """y = x[index]: the gradient goes back to the indexed places, zeros elsewhere."""
    return index_put_into_zeros(grad, index, self_sym_sizes)


SelectBackward0 = rule("SelectBackward0", self=back_into_zeros,
                       jvp=lambda self_t, index: self_t[index])
SliceBackward0 = rule("SliceBackward0", self=back_into_zeros,
                      jvp=lambda self_t, index: self_t[index])
# x[None]: PyTorch's name for it is the same as unsqueeze's
IndexUnsqueezeBackward0 = rule("UnsqueezeBackward0", self=back_into_zeros,
                               jvp=lambda self_t, index: self_t[index])
# advanced indexing saves its index, as PyTorch saves the index tensors (a second backward
# after they are freed raises)
IndexBackward0 = rule("IndexBackward0", saves=("index",), self=back_into_zeros,
                      jvp=lambda self_t, index: self_t[index])

# y = x.index_select(dim, i): the rows (along dim) of x at i; each row's gradient goes back to
# where it was read, added up where i repeats it
IndexSelectBackward0 = rule(
    "IndexSelectBackward0", saves=("index",),
    self=lambda grad, index, dim, self_sym_sizes: index_put_into_zeros(
        grad, (slice(None),) * dim + (index._data,), self_sym_sizes),
    jvp=lambda self_t, index, dim: self_t._index_select(dim, index))

# the scatter into zeros that indexing's rule uses: its derivative reads the same places back
IndexPutIntoZerosBackward = rule(
    "IndexPutIntoZerosBackward", self=lambda grad, index: grad[index],
    jvp=lambda self_t, index, result: index_put_into_zeros(self_t, index, result.shape))


def outside_index(grad, index):
    """The gradient, with zeros at `index`: what x keeps after y[index] = value."""
    mask = np.ones(grad.shape, dtype=bool)
    mask[index] = False
    return grad * Tensor._make(mask)


def written_at(self_t, index, value_t):
    """The forward rule of y[index] = value: y's tangent is x's, with value's written at index."""
    tangent = self_t._clone()
    tangent[index] = value_t
    return tangent


# y = x with y[index] = value: x keeps the gradient outside the index, value gets it at the index
CopySlices = rule(
    "CopySlices", saves=("index",), full_name="tensorgrad::autograd::CopySlices",
    self=outside_index,
    value=lambda grad, index: grad[index],
    jvp=lambda self_t, value_t, index: written_at(self_t, index, value_t))
# the same, for writing through integer arrays or masks (PyTorch records an index_put)
IndexPutBackward0 = rule(
    "IndexPutBackward0", saves=("index",),
    self=outside_index,
    values=lambda grad, index: grad[index],
    jvp=lambda self_t, values_t, index: written_at(self_t, index, values_t))


# -- products of vectors and matrices -----------------------------------------------------------
# s = a·b:  ∂s/∂a = b,  ∂s/∂b = a
DotBackward0 = rule(
    "DotBackward0", saves=("self", "tensor"), computes="{a} @ {b}",
    self=lambda grad, tensor: grad * tensor,
    tensor=lambda grad, self: grad * self,
    jvp={"self": lambda self_t, tensor: self_t._dot(tensor),  # product rule: one term per input
         "tensor": lambda tensor_t, self: self._dot(tensor_t)})

# C = A B:  ∂L/∂A = G Bᵀ,  ∂L/∂B = Aᵀ G
def mat2_gradient(mat1, grad, mat2_sym_sizes, mat2_sym_strides):
    """∂L/∂B = Aᵀ G for C = A B, laid out in memory as B is (PyTorch's mm_mat2_backward). When B
    is stored column after column, as nn.Linear's Wᵀ is, it is computed as (Gᵀ A)ᵀ, the same
    numbers: then the transpose's rule (TBackward0) hands W a fresh matrix in W's own layout,
    which W.grad takes without a copy (core/node.py: AccumulateGrad)."""
    if mat2_sym_strides[0] == 1 and mat2_sym_strides[1] == mat2_sym_sizes[0]:  # column-major
        return grad._t()._mm(mat1)._t()
    return mat1._t()._mm(grad)


MmBackward0 = rule(
    "MmBackward0", saves=("self", "mat2"), computes="{a} @ {b}",
    self=lambda grad, mat2: grad._mm(mat2._t()),
    mat2=lambda grad, self, mat2_sym_sizes, mat2_sym_strides:
        mat2_gradient(self, grad, mat2_sym_sizes, mat2_sym_strides),
    jvp={"self": lambda self_t, mat2: self_t._mm(mat2),  # product rule: one term per input
         "mat2": lambda mat2_t, self: self._mm(mat2_t)})

# y = M v:  ∂L/∂M = g vᵀ (an outer product),  ∂L/∂v = Mᵀ g
MvBackward0 = rule(
    "MvBackward0", saves=("self", "vec"), computes="{a} @ {b}",
    self=lambda grad, vec: grad._unsqueeze(1) * vec._unsqueeze(0),
    vec=lambda grad, self: self._t()._mv(grad),
    jvp={"self": lambda self_t, vec: self_t._mv(vec),  # product rule: one term per input
         "vec": lambda vec_t, self: self._mv(vec_t)})

# batched C = A B: the rule of mm, on the last two dims of every batch
BmmBackward0 = rule(
    "BmmBackward0", saves=("self", "mat2"),
    self=lambda grad, mat2: grad._bmm(mat2._transpose(-1, -2)),
    mat2=lambda grad, self: (self._transpose(-1, -2))._bmm(grad),
    jvp={"self": lambda self_t, mat2: self_t._bmm(mat2),  # product rule: one term per input
         "mat2": lambda mat2_t, self: self._bmm(mat2_t)})

# out = bias + mat1 @ mat2 (a Linear layer): the bias gets the gradient (the engine sums it
# over the rows it was broadcast to), the product gets mm's rule
AddmmBackward0 = rule(
    "AddmmBackward0", saves=("mat1", "mat2"),
    self=lambda grad: grad,
    mat1=lambda grad, mat2: grad._mm(mat2._t()),
    mat2=lambda grad, mat1, mat2_sym_sizes, mat2_sym_strides:
        mat2_gradient(mat1, grad, mat2_sym_sizes, mat2_sym_strides),
    jvp=lambda self_t, mat1_t, mat2_t, mat1, mat2: self_t + mat1_t._mm(mat2) + mat1._mm(mat2_t))


# -- losses -------------------------------------------------------------------------------------
def reduced(values, reduction):
    """A loss's values as its `reduction` asks: their mean, their sum, or each one."""
    if reduction == "mean":
        return values._mean()
    return values._sum() if reduction == "sum" else values


def mse_input(grad, self, target, reduction, count):
    """L = Σ (x - t)² (over the count for 'mean'):  ∂L/∂x = 2(x - t),  ∂L/∂t = -∂L/∂x.
    (An empty batch, count 0, has an empty gradient: its factor is inf, as 2 / 0 in PyTorch.)"""
    factor = 2.0 if reduction != "mean" else 2.0 / count if count else float("inf")
    return grad * ((self - target) * factor)


MseLossBackward0 = rule(
    "MseLossBackward0", saves=("self", "target"),
    self=mse_input,
    target=lambda grad, self, target, reduction, count: -mse_input(grad, self, target,
                                                                   reduction, count),
    jvp=lambda self_t, target_t, self, target, reduction:
        reduced(2 * (self - target) * (self_t - target_t), reduction))


def per_element_weight(grad, weight, reduction, count):
    """The gradient of each element's loss: divided by the count for 'mean', times its weight."""
    if reduction == "mean":
        grad = grad / count
    return grad if weight is None else grad * weight


def bce_input(grad, self, target, weight, reduction, count):
    """L = -w·(t·ln x + (1 - t)·ln(1 - x)):  ∂L/∂x = w·(x - t) / (x(1 - x))."""
    grad = per_element_weight(grad, weight, reduction, count)
    return grad * (self - target) / ((1 - self) * self)._clamp(min=BCE_EPSILON)


def bce_target(grad, self, weight, reduction, count):
    """∂L/∂t = w·(ln(1 - x) - ln x), with PyTorch's floor of -100 under each logarithm."""
    grad = per_element_weight(grad, weight, reduction, count)
    return grad * (((1 - self)._log())._clamp(min=BCE_LOG_FLOOR)
                   - self._log()._clamp(min=BCE_LOG_FLOOR))


BinaryCrossEntropyBackward0 = rule(
    "BinaryCrossEntropyBackward0", saves=("self", "target", "weight"),
    self=bce_input, target=bce_target,
    jvp=lambda self_t, target_t, self, target, weight, reduction: reduced(
        bce_input(self_t, self, target, weight, "none", 1)
        + bce_target(target_t, self, weight, "none", 1), reduction))


def nll_rule(grad, target, weight, reduction, ignore_index, total_weight, num_classes):
    """L = -Σₙ w[tₙ]·x[n, tₙ] (over Σₙ w[tₙ] for 'mean'), summed over the rows whose target is
    not ignore_index: ∂L/∂x[n, c] is -w[tₙ] where c = tₙ and 0 elsewhere. So the gradient is
    zeros with grad·(-w[tₙ]) written at each counted row's target: one value per row."""
    index = nll_index(target._data, ignore_index)
    slope = -nll_weights(weight, index, grad._data.dtype)  # -w[tₙ], one per counted row
    if reduction == "mean":
        slope = slope / total_weight
    if reduction == "none" and grad.ndim == 1:
        grad = grad[index[0]]  # one loss per row: each counted row has its own gradient
    return index_put_into_zeros(grad * Tensor._make(slope), index,
                                target._data.shape + (num_classes,), repeats=False)


def nll_jvp(self_t, target, weight, reduction, ignore_index, total_weight, num_classes):
    """The loss is linear in x, so its tangent is the same loss taken of the tangent of x."""
    index = nll_index(target._data, ignore_index)
    losses = self_t[index] * Tensor._make(-nll_weights(weight, index, self_t._data.dtype))
    if reduction == "none" and target.ndim == 1:
        return index_put_into_zeros(losses, index[:1], target._data.shape)  # ignored rows: 0
    return losses._sum() if reduction != "mean" else losses._sum() / total_weight


NllLossBackward0 = rule("NllLossBackward0", saves=("target", "weight"), self=nll_rule,
    jvp=nll_jvp)


def softplus(x):
    """log(1 + eˣ), written so that it never overflows: log(1 + e^-|x|) + max(x, 0)."""
    return ((-x._abs())._exp())._log1p() + x._relu()


def bce_logits_input(grad, self, target, weight, pos_weight, reduction, count):
    """L = w·(p·t·softplus(-x) + (1 - t)·softplus(x)):  ∂L/∂x = w·((1 - t)·σ(x) - p·t·(1 - σ(x)))."""
    grad = per_element_weight(grad, weight, reduction, count)
    positive = 1 if pos_weight is None else pos_weight
    s = self._sigmoid()
    return grad * ((1 - target) * s - positive * target * (1 - s))


def bce_logits_target(grad, self, weight, pos_weight, reduction, count):
    """∂L/∂t = w·(p·softplus(-x) - softplus(x))."""
    grad = per_element_weight(grad, weight, reduction, count)
    positive = 1 if pos_weight is None else pos_weight
    return grad * (positive * softplus(-self) - softplus(self))


BinaryCrossEntropyWithLogitsBackward0 = rule(
    "BinaryCrossEntropyWithLogitsBackward0", saves=("self", "target", "weight", "pos_weight"),

    self=bce_logits_input, target=bce_logits_target,
    jvp=lambda self_t, target_t, self, target, weight, pos_weight, reduction:
        reduced(
        bce_logits_input(self_t, self, target, weight, pos_weight, "none", 1)
        + bce_logits_target(target_t, self, weight, pos_weight, "none", 1), reduction))


def per_channel(values, ndim):
    """A (C,) tensor shaped to broadcast along dim 1 of an (N, C, ...) tensor."""
    return values._reshape((1, -1) + (1,) * (ndim - 2))


def normalized(self, running_mean, running_var, eps, training, dims):
    """x̂ = (x - μ)/√(σ² + eps) and 1/√(σ² + eps), from the batch in training (written with
    tensor operations of x, so that the rule's own derivatives are right), else from the
    running statistics."""
    if training:
        mean = self._mean(dim=dims, keepdim=True)
        var = ((self - mean) * (self - mean))._mean(dim=dims, keepdim=True)
    else:
        mean = per_channel(running_mean, self.ndim)
        var = per_channel(running_var, self.ndim)
    inverse_std = (var + eps) ** -0.5
    return (self - mean) * inverse_std, inverse_std


def batch_norm_input(grad, self, weight, running_mean, running_var, eps, training, dims):
    """y = γ·x̂ + β. In eval, ∂L/∂x = γ/σ·g. In training μ and σ depend on x as well, which
    gives ∂L/∂x = γ/σ·(g - mean(g) - x̂·mean(g·x̂)), the means taken per channel."""
    x_hat, inverse_std = normalized(self, running_mean, running_var, eps, training, dims)
    scale = inverse_std if weight is None else inverse_std * per_channel(weight, self.ndim)
    if not training:
        return grad * scale
    return scale * (grad - grad._mean(dim=dims, keepdim=True)
                    - x_hat * (grad * x_hat)._mean(dim=dims, keepdim=True))


def batch_norm_weight(grad, self, running_mean, running_var, eps, training, dims):
    """∂L/∂γ = Σ g·x̂ per channel."""
    x_hat, _ = normalized(self, running_mean, running_var, eps, training, dims)
    return (grad * x_hat)._sum(dim=dims)


def batch_norm_jvp(self_t, weight_t, bias_t, self, weight, bias, running_mean, running_var,
                   eps, training, dims):
    """dy = γ·dx̂ + dγ·x̂ + dβ, with dx̂ = (dx - mean(dx) - x̂·mean(dx·x̂))/σ in training."""
    x_hat, inverse_std = normalized(self, running_mean, running_var, eps, training, dims)
    if training:
        d_x_hat = inverse_std * (self_t - self_t._mean(dim=dims, keepdim=True)
                                 - x_hat * (self_t * x_hat)._mean(dim=dims, keepdim=True))
    else:
        d_x_hat = self_t * inverse_std
    if weight is None:
        return d_x_hat
    tangent = d_x_hat * per_channel(weight, self.ndim) + per_channel(weight_t, self.ndim) * x_hat
    return tangent if bias is None else tangent + per_channel(bias_t, self.ndim)


NativeBatchNormBackward0 = rule(
    "NativeBatchNormBackward0", saves=("self", "weight", "running_mean", "running_var"),

    self=batch_norm_input, weight=batch_norm_weight,
    bias=lambda grad, dims: grad._sum(dim=dims),
    jvp=batch_norm_jvp)


# -- fused rules: one recorded operation each, as in PyTorch (ops/fused.py computes them) --------
# z = g·(1 - y²) (tanh's rule as one operation of g and y):  ∂z/∂g = 1 - y²,  ∂z/∂y = -2·g·y
TanhBackwardBackward0 = rule(
    "TanhBackwardBackward0", elementwise=True, saves=("grad_output", "output"),
    grad_output=lambda grad, output: tanh_backward(grad, output),
    output=lambda grad, grad_output, output: grad * -2 * output * grad_output)

# z = g·y·(1 - y) (sigmoid's rule):  ∂z/∂g = y·(1 - y),  ∂z/∂y = g·(1 - 2y)
SigmoidBackwardBackward0 = rule(
    "SigmoidBackwardBackward0", elementwise=True, saves=("grad_output", "output"),
    grad_output=lambda grad, output: sigmoid_backward(grad, output),
    output=lambda grad, grad_output, output: grad * grad_output * (1 - 2 * output))

# z = g where y > 0, else 0 (relu's rule): ∂z/∂g is the same mask; z does not change with y
ThresholdBackwardBackward0 = rule(
    "ThresholdBackwardBackward0", elementwise=True, saves=("self",),
    grad_output=lambda grad, self: where(self <= 0, 0, grad),
    self=lambda grad: zeros_like(grad))

def softmax_backward_jvp(grad_output_t, output_t, grad_output, output, dim):
    """d[s ⊙ (g - Σ g⊙s)] = ds ⊙ (g - Σ g⊙s) + s ⊙ (dg - Σ (dg⊙s + g⊙ds))."""
    inner = grad_output - (grad_output * output)._sum(dim=dim, keepdim=True)
    d_sum = (grad_output_t * output + grad_output * output_t)._sum(dim=dim, keepdim=True)
    return output_t * inner + output * (grad_output_t - d_sum)


def log_softmax_backward_jvp(grad_output_t, output_t, grad_output, output, dim):
    """d[g - eˡ·Σ g] = dg - eˡ ⊙ (dl·Σ g + Σ dg)."""
    return grad_output_t - output._exp() * (output_t * grad_output._sum(dim=dim, keepdim=True)
                                             + grad_output_t._sum(dim=dim, keepdim=True))


# z = s ⊙ (g - Σ g⊙s) (softmax's rule):  for g, the same rule;  for s, grad ⊙ (g - Σ g⊙s) - g·Σ grad⊙s
SoftmaxBackwardDataBackward0 = rule(
    "SoftmaxBackwardDataBackward0", saves=("grad_output", "output"),
    grad_output=lambda grad, output, dim: softmax_backward_data(grad, output, dim),
    output=lambda grad, grad_output, output, dim:
        grad * (grad_output - (grad_output * output)._sum(dim=dim, keepdim=True))
        - grad_output * (grad * output)._sum(dim=dim, keepdim=True),
    jvp=softmax_backward_jvp)

# z = g - eˡ·Σ g (log_softmax's rule):  for g, grad - Σ grad⊙eˡ;  for l, -eˡ⊙grad·Σ g
LogSoftmaxBackwardDataBackward0 = rule(
    "LogSoftmaxBackwardDataBackward0", saves=("grad_output", "output"),
    grad_output=lambda grad, output, dim: grad - (grad * output._exp())._sum(dim=dim, keepdim=True),
    output=lambda grad, grad_output, output, dim:
        -grad_output._sum(dim=dim, keepdim=True) * output._exp() * grad,
    jvp=log_softmax_backward_jvp)


# -- what the formulas share --------------------------------------------------------------------
# PyTorch keeps these next to derivatives.yaml, in FunctionsManual.cpp. Everything else the
# formulas call is a Tensor operator (`grad * other`) or method. Where a formula calls a method
# with an underscore (`grad._expand(sizes)`, `grad._mm(mat2._t())`), that is the public method
# (`grad.expand(sizes)`) without its argument check: the table's own values are right, and the
# check is for the learner's calls (tensor_methods.py, "The plain functions the library reaches
# through Tensor").
def where(condition, a, b):
    """torch.where(condition, a, b), where `a` or `b` may be a Python number: a number in `a`'s
    place becomes a 0-d tensor of `b`'s dtype (of the default dtype if `b` is a number too), which
    is the dtype torch.where gives, and the method form takes it."""
    if not isinstance(a, Tensor):
        dtype = b._data.dtype if isinstance(b, Tensor) else dtypes.get_default_dtype().numpy
        a = Tensor._make(np.asarray(a, dtype=dtype))
    return a._where(condition, b)


def zeros_like(x):
    """Zeros of x's shape and dtype (creation.zeros_like, without its argument check)."""
    return Tensor._make(np.zeros(x._data.shape, x._data.dtype))


def ones_like(x):
    """Ones of x's shape and dtype (creation.ones_like, without its argument check)."""
    return Tensor._make(np.ones(x._data.shape, x._data.dtype))


def restore_dims(grad, dims, keepdim, input_shape):
    """Give a reduced gradient back its reduced dims as size 1, so that it broadcasts. (Also
    max(dim)'s indices, which may come as a NumPy array.)"""
    if keepdim or not input_shape:
        return grad
    shape = list(grad.shape)
    for d in dims:
        shape.insert(d, 1)
    return grad.reshape(shape) if isinstance(grad, np.ndarray) else grad._reshape(shape)


def expand_back(grad, dims, keepdim, input_shape):
    """A reduced gradient, spread back over every element that was reduced."""
    return restore_dims(grad, dims, keepdim, input_shape)._expand(input_shape)


def variance_rule(grad, x, dims, correction, sizes, whole):
    """whole: no dim was given (or x is 0-d), which is where PyTorch's rule has a special case."""
    count = int(np.prod([sizes[d] for d in dims]))
    if whole and count - correction <= 0:
        # No degrees of freedom left (var of one value): 2 / 0 is inf. PyTorch gives nan where
        # x equals the mean (inf · 0) and inf elsewhere, as constants: no graph through x.
        return grad * where(x == x._mean(), float("nan"), float("inf"))
    centered = x - x._mean(dims, keepdim=True)
    degrees_of_freedom = count - correction
    factor = 2.0 / degrees_of_freedom if degrees_of_freedom else float("inf")
    return factor * grad * centered  # PyTorch's order of operations, so its graph and rounding


def product_of_others(x, dims):
    """For each element, the product of the other elements reduced together with it.

    The reduced dims are moved last and flattened into rows; then each element's product of
    others is (the product of everything before it) · (the product of everything after it).
    """
    if not dims:
        return Tensor._make(np.ones_like(x._data))  # a 0-d tensor: no other elements
    order = [d for d in range(x.ndim) if d not in dims] + list(dims)
    moved = x._permute(*order)
    n = int(np.prod([x.shape[d] for d in dims]))
    rows = moved._reshape(tuple(moved.shape[:x.ndim - len(dims)]) + (n,))
    reverse = list(range(n - 1, -1, -1))
    before = exclusive_cumprod(rows)
    after = exclusive_cumprod(rows[..., reverse])[..., reverse]
    others = (before * after)._reshape(moved.shape)
    return others._permute(*[order.index(d) for d in range(x.ndim)])


def exclusive_cumprod(rows):
    """[1, r₀, r₀·r₁, ..., r₀·...·rₙ₋₂] along the last dim: a log-step scan (no division)."""
    n = rows.shape[-1]
    scan = shifted(rows, 1)
    step = 1
    while step < n:
        scan = scan * shifted(scan, step)
        step *= 2
    return scan


def shifted(rows, step):
    """`rows` moved `step` places on along the last dim, with ones coming in at the front."""
    n = rows.shape[-1]
    front = Tensor._make(np.arange(n) < step)
    return where(front, 1.0, rows[..., [max(i - step, 0) for i in range(n)]])


def nll_index(target, ignore_index):
    """Where nll_loss reads its input: the index of x[n, tₙ] for each row whose target is not
    ignore_index, `(rows, classes)` for targets of shape (N,); `(classes,)` for a 0-d target,
    which reads an input of shape (C,) (an array of one class, or none if it is ignored)."""
    counted = target != ignore_index
    if target.ndim and counted.all():  # no target ignored (the usual case): every row, as it is
        return np.arange(target.shape[0]), target
    classes = target[counted]
    return (np.flatnonzero(counted), classes) if target.ndim else (classes,)


def nll_weights(weight, index, np_dtype):
    """w[tₙ] of each target that `index` picks: the class weights', or 1 without a weight."""
    if weight is None:
        return np.ones(index[-1].shape, dtype=np_dtype)
    return weight._data[index[-1]]


BCE_LOG_FLOOR = -100.0  # PyTorch clamps log(p) at -100, so p = 0 gives a large finite loss
BCE_EPSILON = 1e-12  # ... and keeps the derivative's denominator x(1 - x) away from zero


# -- operations only backward uses: writing a gradient into zeros ---------------------------------
def index_put_into_zeros(values, index, shape, *, repeats=True):
    """Zeros of `shape` with `values` added at `index` (repeated indices add up). `repeats=False`:
    the caller knows that no index repeats (nll_loss: one per row), so the values are written."""
    data = np.zeros(shape, dtype=values._data.dtype)
    if repeats:
        np.add.at(data, index, values._data)
    else:
        data[index] = values._data
    return record(IndexPutIntoZerosBackward, data, (values,), index=index)


def scatter_along(values, index, dim, shape):
    """Zeros of `shape`, with `values` placed at `index` along `dim` (for max(dim)'s backward)."""
    data = np.zeros(shape, dtype=values._data.dtype)
    if data.ndim:
        np.put_along_axis(data, index._data, values._data, axis=dim)
    else:
        data = values._data.copy().reshape(shape)
    return record(ScatterAlongBackward, data, (values,), saved={"index": index}, dim=dim)


def scatter_add_along(values, index, dim, shape):
    """Zeros of `shape`, with `values` added at `index` along `dim` (for gather's backward)."""
    data = np.zeros(shape, dtype=values._data.dtype)
    positions = np.atleast_1d(index._data)  # (a 0-d tensor or index: one position, as gather
    idx = list(np.indices(positions.shape, sparse=True))  # reads it)
    idx[dim] = positions
    np.add.at(data.reshape(shape or (1,)), tuple(idx), values._data.reshape(positions.shape))
    return record(ScatterAddBackward, data, (values,), saved={"index": index}, dim=dim)
