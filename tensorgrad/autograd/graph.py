"""`tensorgrad.autograd.graph`: hooks on the tensors that the graph saves for backward.

    with tensorgrad.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x          # MulBackward0 saves x twice: pack(x) is called for each

Every tensor an operation saves for backward goes through `pack` when it is saved, and whatever
`pack` returned goes through `unpack` when backward (or `grad_fn._saved_self`) needs it back.
PyTorch uses this to move saved tensors elsewhere (`save_on_cpu`) or to recompute them; in a
course it shows exactly what the graph keeps, and when it is read.

The value `unpack` returns stands in for the saved tensor, connected to the graph as the
original was, so backward and double backward work as usual. As in PyTorch, a value saved
through the hooks is not checked against in-place changes: what the hooks keep is theirs, and
its version cannot be known (an in-place operation still keeps its own rule's `self` as it was,
ops/inplace.py). An in-place operation that saves its result (`h.exp_()`) packs the tensor
itself, after the write, as PyTorch does: an identity hook's backward reads `h` as it is then.
(tensorgrad keeps a reference to the original array for tensorgrad.viz's
pictures, so hooks that move tensors away free no memory here.)
"""

import weakref

from . import messages
from ..core import instruments
from ..core.grad_mode import no_grad
from ..core.node import AccumulateGrad, SavedTensor

_hooks = []  # the (pack, unpack) pairs in force, innermost last
_disabled_message = None  # set by disable_saved_tensors_hooks


class saved_tensors_hooks:  # noqa: N801  (PyTorch's name; used like no_grad)
    """While active, tensors saved for backward are packed with `pack_hook(tensor)` and read
    back with `unpack_hook(packed)`, which must return a tensor."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _disabled_message is not None:
            raise RuntimeError(_disabled_message)
        _hooks.append((self.pack_hook, self.unpack_hook))
        if len(_hooks) == 1:
            instruments.plug_in(savers=HookedSavedTensor)
        return self

    def __exit__(self, *exc_info):
        _hooks.pop()
        if not _hooks:
            instruments.unplug([("savers", HookedSavedTensor)])
        return False


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Saved tensors are kept on the CPU. tensorgrad has no other device, so this moves nothing;
    it is here so that code written for GPUs runs unchanged."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda tensor: tensor, lambda packed: packed)


class disable_saved_tensors_hooks:  # noqa: N801
    """Inside, entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        global _disabled_message
        self._previous, _disabled_message = _disabled_message, self.error_message
        return self

    def __exit__(self, *exc_info):
        global _disabled_message
        _disabled_message = self._previous
        return False


class HookedSavedTensor(SavedTensor):
    """A saved tensor kept as whatever the pack hook returned (see the module's docstring)."""

    __slots__ = ("_packed", "_unpack_hook", "_grad_fn", "_accumulator", "_requires_grad")

    def __init__(self, tensor, is_output=False, producer=None, name=None):
        super().__init__(tensor, is_output, producer)  # (`name`, the rule's, is not needed here)
        pack, self._unpack_hook = _hooks[-1]
        with no_grad():  # as PyTorch: what the hooks compute is not part of the graph
            self._packed = pack(tensor)
        # How the stand-in connects to the graph, as the original did:
        self._grad_fn, self._accumulator = tensor._grad_fn, None
        self._requires_grad = tensor.requires_grad
        if not is_output and tensor._grad_fn is None and tensor.requires_grad:
            self._accumulator = AccumulateGrad(tensor)  # a leaf: its gradient goes there
        if not is_output:
            self._data = tensor._data  # for tensorgrad.viz only (see the module docstring)
            self._tensor_type = type(tensor)
            self._tensor = None

    def unpack(self, owner):
        with no_grad():  # (no version check: see the module's docstring)
            value = self._unpack_hook(self._packed)
        if not hasattr(value, "_data"):
            raise TypeError(messages.UNPACK_HOOK_NOT_TENSOR.format(type_name=type(value).__name__))
        if self._producer is not None:  # the node's own output
            stand_in = self._tensor_type._make(value._data, grad_fn=owner,
                                               output_nr=self._output_nr)
        elif self._grad_fn is not None:
            stand_in = self._tensor_type._make(value._data, grad_fn=self._grad_fn,
                                               output_nr=self._output_nr)
        else:
            stand_in = self._tensor_type._make(value._data)
            if self._requires_grad:
                stand_in._requires_grad = True
                stand_in._accumulator_ref = weakref.ref(self._accumulator)
        return stand_in


__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]
