"""Adam, with PyTorch's exact update rule.

For each parameter p with gradient g, step t = 1, 2, ... does:

    g ← g + weight_decay·p                       (L2 penalty, if weight_decay ≠ 0;
                                                  with decoupled_weight_decay (AdamW) instead
                                                  p ← p·(1 - lr·weight_decay))
    m ← β₁·m + (1 - β₁)·g                         running mean of the gradient
    v ← β₂·v + (1 - β₂)·g²                        running mean of its square
    m̂ = m / (1 - β₁ᵗ),  v̂ = v / (1 - β₂ᵗ)          bias correction: m and v start at 0
    p ← p - lr·m̂ / (√v̂ + eps)                     (amsgrad: use the largest v seen so far)

PyTorch folds the corrections into the step size, lr/(1 - β₁ᵗ), and the denominator,
√v/√(1 - β₂ᵗ) + eps; the code below does the same, so the numbers agree to rounding.
"""

import numpy as np

from .. import arguments
from ..arguments import Real, checked
from ..autograd import messages
from ..core.tensor import Tensor
from ..dtypes import get_default_dtype
from ..ops import elementwise as ew
from ..ops import inplace
from .optimizer import Optimizer, _check_no_differentiable, _scalar, _value


def _betas(beta1: Real, beta2: Real): ...  # Adam's betas, one by one


_BETAS = arguments.declare(_betas, name="Adam", python=True)


class Adam(Optimizer):
    STATE_KEYS = frozenset({"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"})

    @checked(name="Adam", method=True, python=True)
    def __init__(self, params: object, lr: Real = 1e-3, betas: object = (0.9, 0.999),
                 eps: Real = 1e-8, weight_decay: Real = 0, amsgrad: object = False, *,
                 foreach: object = None, maximize: object = False, capturable: object = False,
                 differentiable: object = False, fused: object = None,
                 decoupled_weight_decay: object = False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not isinstance(betas, (tuple, list)) or len(betas) < 2:  # (PyTorch reads two)
            raise TypeError(messages.NOT_A_NUMBER_ARGUMENT.format(
                name="Adam", argument="betas", type_name=type(betas).__name__).replace(
                    "a number", "a pair of numbers"))
        _BETAS.match((), {"beta1": betas[0], "beta2": betas[1]})
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)  # (not an int, a
                or isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor)):  # float32)
            raise ValueError(messages.ADAM_BETAS)
        for index in (0, 1):
            if isinstance(betas[index], Tensor) and betas[index].numel() != 1:
                raise ValueError(f"Tensor betas[{index}] must be 1-element")
        betas = tuple(beta.reshape(()) if isinstance(beta, Tensor) else beta for beta in betas)
        # foreach, capturable and fused choose PyTorch kernels: kept so settings print the same.
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        _check_no_differentiable(defaults)
        super().__init__(params, defaults)

    def _update(self, param, group):
        beta1, beta2 = group["betas"]  # (as PyTorch's step reads them: a third is refused here)
        grad = param.grad if not group["maximize"] else -param.grad
        state = self.state[param]
        if len(state) == 0:  # the first step: both averages start at zero
            state["step"] = Tensor._make(np.zeros((), get_default_dtype().numpy))
            state["exp_avg"] = Tensor._make(np.zeros_like(param._data))
            state["exp_avg_sq"] = Tensor._make(np.zeros_like(param._data))
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = Tensor._make(np.zeros_like(param._data))
        if group["capturable"]:  # (for CUDA graphs: PyTorch refuses it for a CPU parameter)
            raise AssertionError(messages.CAPTURABLE_DEVICES)
        given1, given2 = beta1, beta2  # (a 0-d tensor each, or numbers: PyTorch's step computes
        beta1, beta2 = _value(beta1), _value(beta2)  # with them as given where they meet 1)
        lr, weight_decay = _value(group["lr"]), _value(group["weight_decay"])
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]

        inplace.add_(state["step"], 1)
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                inplace.mul_(param, 1 - lr * weight_decay)
            else:
                grad = ew.add(grad, param, alpha=_scalar(group["weight_decay"]))

        inplace.add_(inplace.mul_(exp_avg, beta1), grad, alpha=_scalar(1 - beta1, "weight", "lerp_"))
        inplace.add_(inplace.mul_(exp_avg_sq, beta2), grad * grad,  # (1 - a bool tensor beta2:
                     alpha=_scalar(1 - given2, "value", "addcmul_"))  # refused, as in PyTorch)

        step = state["step"]._data.item()
        bias_correction1 = 1 - given1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = _value(lr / bias_correction1)  # (a tensor beta1 of 1: lr / 0 is inf, no error)
        bias_correction2_sqrt = bias_correction2 ** 0.5

        if group["amsgrad"]:
            inplace.copy_(state["max_exp_avg_sq"], ew.maximum(state["max_exp_avg_sq"], exp_avg_sq))
            second_moment = state["max_exp_avg_sq"]
        else:
            second_moment = exp_avg_sq
        denom = inplace.add_(ew.sqrt(second_moment) / bias_correction2_sqrt,  # (eps as a Scalar:
                             _scalar(_value(group["eps"]), "other", "add_"))  # 10 ** 20 refused)
        inplace.add_(param, exp_avg / denom, alpha=-step_size)


__all__ = ["Adam"]
