"""`tensorgrad.utils`: small helpers that PyTorch keeps under `torch.utils` (hooks)."""

from . import hooks

__all__ = ["hooks"]
