"""torch.autograd's API, around the core (../core/: nodes, the engine, grad mode):

    backward_and_grad.py  autograd.backward() and autograd.grad(): check, then run the engine
    grad_mode.py          no_grad, enable_grad, set_grad_enabled (from the core, at PyTorch's path)
    custom_function.py    Function: user-defined operations with their own backward
                          (PyTorch's module name for it, autograd.function, works too)
    gradcheck.py          gradcheck / gradgradcheck: derivatives checked by finite differences
    functional.py         jacobian, hessian, vjp, jvp, hvp, vhp of a whole function
                          (torch.autograd.functional)
    jacobians.py          vᵀJ, J·v and whole Jacobians: the one implementation that
                          functional.py and ../func.py (torch.func) both call
    forward_ad.py         forward-mode AD: dual_level, make_dual, unpack_dual
    graph.py              saved_tensors_hooks: see, move or replace what the graph saves
    profiler.py           profile and record_function: where the time goes, in PyTorch's table
    anomaly_mode.py       detect_anomaly: the forward stack of a node whose backward failed
    messages.py           PyTorch's error and warning texts, word for word
"""

import sys

from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .backward_and_grad import backward, grad
from ..core.grad_mode import enable_grad, no_grad, set_grad_enabled
from ..core.node import AccumulateGrad, Node
from ..utils.hooks import RemovableHandle
from . import custom_function, forward_ad, functional, graph, profiler
from .custom_function import Function
from . import messages
from ..core.tensor import Tensor

function = custom_function  # torch.autograd.function is the module of Function
sys.modules[__name__ + ".function"] = custom_function  # so `import ...autograd.function` works
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402  (after: the name is now the function)


def Variable(tensor, requires_grad=False):  # noqa: N802  (the old PyTorch API, still in tutorials)
    """The pre-0.4 PyTorch wrapper: today it just returns the tensor, as PyTorch does."""
    if not isinstance(tensor, Tensor):
        raise TypeError(messages.VARIABLE_DATA.format(type_name=type(tensor).__name__))
    if not isinstance(requires_grad, (bool, int)):  # PyTorch: "... interpreted as an integer"
        raise TypeError(messages.FLAG_TYPE.format(name="Variable", flag="requires_grad",
                                                  type_name=type(requires_grad).__name__))
    if requires_grad:
        tensor._requires_grad_(True)
    return tensor


__all__ = ["backward", "grad", "detect_anomaly", "set_detect_anomaly", "no_grad", "enable_grad", "set_grad_enabled",
           "Node", "AccumulateGrad", "RemovableHandle", "Variable", "Function", "gradcheck",
           "gradgradcheck", "function", "functional", "forward_ad", "graph", "profiler"]
