"""Stochastic gradient descent, with PyTorch's exact update rule.

For each parameter p with gradient g, one step does:

    g ← g + weight_decay·p                      (L2 penalty, if weight_decay ≠ 0)
    b ← g                     on the first step  (momentum buffer, if momentum ≠ 0)
    b ← momentum·b + (1 - dampening)·g           afterwards
    g ← g + momentum·b        with nesterov, else  g ← b
    p ← p - lr·g
"""

from ..arguments import Real, checked
from ..core.tensor import Tensor
from ..ops import elementwise as ew
from ..ops import inplace
from .optimizer import (Optimizer, _check_no_differentiable, _scalar, _squeezed,
                        _value)


class SGD(Optimizer):
    STATE_KEYS = frozenset({"momentum_buffer"})

    @checked(name="SGD", method=True, python=True)
    def __init__(self, params: object, lr: Real = 1e-3, momentum: Real = 0, dampening: object = 0,
                 weight_decay: Real = 0, nesterov: object = False, *, maximize: object = False,
                 foreach: object = None, differentiable: object = False, fused: object = None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        # foreach and fused choose PyTorch kernels: kept so the settings print as in PyTorch.
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)

    def _update(self, param, group):
        grad = param.grad if not group["maximize"] else -param.grad
        weight_decay = group["weight_decay"]
        if _value(weight_decay) != 0:  # (a tensor that requires grad: PyTorch's addcmul_)
            grad = ew.add(grad, param, alpha=_scalar(
                _value(weight_decay) if _requires_grad(weight_decay) else weight_decay))
        momentum = group["momentum"]
        if _value(momentum) != 0:
            state = self.state[param]
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = ew.clone(grad)  # (under no_grad: recorded nowhere)
                state["momentum_buffer"] = buffer
            else:
                inplace.add_(inplace.mul_(buffer, _scalar(_value(momentum))), grad,
                             alpha=_scalar(1 - _value(group["dampening"])))
            grad = ew.add(grad, buffer, alpha=_scalar(momentum)) if group["nesterov"] else buffer
        # (-lr as PyTorch's step computes it: a tensor's negation, a NumPy scalar's wrapping)
        inplace.add_(param, grad, alpha=_scalar(-_squeezed(group["lr"])))


def _requires_grad(setting):
    """A tensor setting that requires grad: PyTorch's step multiplies by it as a tensor
    (`addcmul_`) rather than handing it over as a Scalar, which it could not be."""
    return isinstance(setting, Tensor) and setting.requires_grad

__all__ = ["SGD"]
