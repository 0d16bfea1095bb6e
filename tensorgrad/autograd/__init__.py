"""Automatic differentiation: graph nodes, the backward engine, and grad modes.

    node.py       Node (a grad_fn), AccumulateGrad, saved tensors with version checks
    engine.py     the backward pass itself
    functions.py  autograd.backward() and autograd.grad()
    grad_mode.py  no_grad, enable_grad, set_grad_enabled
    function.py   Function: user-defined operations with their own backward
    gradcheck.py  gradcheck / gradgradcheck: derivatives checked by finite differences
    functional.py jacobian, hessian, vjp, jvp, hvp, vhp
"""

from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .functions import backward, grad
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .node import AccumulateGrad, Node, RemovableHandle
from . import function, functional  # the submodules, as in torch.autograd
from .function import Function
from .gradcheck import gradcheck, gradgradcheck  # the name `gradcheck` is now the function


def Variable(tensor, requires_grad=False):  # noqa: N802  (the old PyTorch API, still in tutorials)
    """The pre-0.4 PyTorch wrapper: today it just returns the tensor, as PyTorch does."""
    from ..tensor import Tensor
    from . import messages

    if not isinstance(tensor, Tensor):
        raise TypeError(messages.VARIABLE_DATA.format(type_name=type(tensor).__name__))
    if not isinstance(requires_grad, (bool, int)):  # PyTorch: "... interpreted as an integer"
        raise TypeError(messages.FLAG_TYPE.format(name="Variable", flag="requires_grad",
                                                  type_name=type(requires_grad).__name__))
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


__all__ = ["backward", "grad", "detect_anomaly", "set_detect_anomaly", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "Node", "AccumulateGrad", "RemovableHandle", "Variable", "Function", "gradcheck",
           "gradgradcheck", "function", "functional"]
