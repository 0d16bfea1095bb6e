"""`torch.autograd.grad_mode`'s path: grad mode itself is part of the core
(tensorgrad/core/grad_mode.py), which recording and the engine read."""

from ..core.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]
