"""`tensorgrad.utils.hooks.RemovableHandle`: what every `register_*hook` returns, as in PyTorch.

It lives below everything else (it imports nothing of tensorgrad), so that tensors, graph nodes
and nn.Module can all hand one out.
"""

import itertools


class RemovableHandle:
    """Returned by `register_hook`; `handle.remove()` takes the hook away again."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict):
        self.id = next(RemovableHandle._next_id)
        self._hooks_dict = hooks_dict

    def remove(self):
        self._hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()

    def __repr__(self):
        return f"<tensorgrad.utils.hooks.RemovableHandle object at {id(self):#x}>"


__all__ = ["RemovableHandle"]
