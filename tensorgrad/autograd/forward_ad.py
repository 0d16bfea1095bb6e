"""Forward-mode automatic differentiation: carry a tangent alongside each value.

    import tensorgrad.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        x = fwAD.make_dual(primal, tangent)       # x is primal, moving in direction `tangent`
        y = f(x)
        fwAD.unpack_dual(y).tangent               # J·tangent, the directional derivative

Reverse mode (backward) computes vᵀJ for one output direction v in one pass, whatever the number
of inputs; forward mode computes J·t for one input direction t in one pass, whatever the number
of outputs. Each operation, as it runs, also computes its result's tangent from its inputs'
tangents, with the operation's forward rule (its JVP) from the derivative table
(tensorgrad/derivatives.py, `jvp=`). For an element-by-element operation the forward rule is the
backward rule applied to the tangent, since its Jacobian is diagonal; for a linear operation it
is the operation itself applied to the tangent.

As in PyTorch, one level of forward AD at a time: tangents belong to the `dual_level` they were
made in, and are gone when it ends.
"""

from collections import namedtuple as _namedtuple

from . import messages
from ..core import instruments
from ..core.node import OUTPUT
from ..core.tensor import Tensor

_level = None  # the current dual level (an int), or None outside every `dual_level`
_levels_made = 0

UnpackedDualTensor = _namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def enter_dual_level():
    """Start a level of forward AD (what `with dual_level():` does); returns its number."""
    global _level, _levels_made
    if _level is not None:
        raise RuntimeError(messages.NESTED_FORWARD_AD)
    _level = _levels_made
    _levels_made += 1
    instruments.plug_in(on_operation=_propagate)
    return _level


def exit_dual_level(*, level=None):
    """End the current level: every tangent made in it is dropped."""
    global _level
    if _level is None or (level is not None and level != _level):
        raise RuntimeError(messages.EXIT_UNKNOWN_DUAL_LEVEL)
    _level = None
    instruments.unplug([("on_operation", _propagate)])


class dual_level:  # noqa: N801  (PyTorch's name; used like no_grad)
    """`with dual_level():` forward AD is on inside the block."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc_info):
        exit_dual_level()
        return False


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` that carries `tangent` (same shape, floating point) as its tangent."""
    if _level is None:
        raise RuntimeError(messages.MAKE_DUAL_WITHOUT_LEVEL)
    for name, value in (("tensor", tensor), ("tangent", tangent)):
        if not isinstance(value, Tensor):
            raise TypeError(f"make_dual(): argument '{name}' must be Tensor, not "
                            f"{type(value).__name__}")
    if not tangent.dtype.is_floating_point:
        raise ValueError(messages.TANGENT_NOT_FLOATING.format(dtype=tangent.dtype))
    if tangent.shape != tensor.shape:
        raise RuntimeError(messages.TANGENT_SIZE.format(
            size=list(tensor.shape), tangent_size=list(tangent.shape)))
    dual = tensor._view(tensor.shape) if tensor.requires_grad else tensor._detach()
    _set_tangent(dual, tangent if _same_layout(tangent, tensor) else tangent._clone())
    return dual


def _same_layout(tangent, tensor):
    """Can `tangent` be kept as it is (so `unpack_dual(d).tangent is tangent`, as in PyTorch)?
    Yes unless it is a view into a larger memory, or laid out otherwise than `tensor`: PyTorch
    then keeps a copy."""
    root = tangent
    while root._base is not None:
        root = root._base
    data, whole = tangent._data, root._data
    primal = tensor._data
    in_elements = [s // data.itemsize for s in data.strides]
    return (in_elements == [s // primal.itemsize for s in primal.strides]
            and data.size == whole.size
            and data.__array_interface__["data"][0] == whole.__array_interface__["data"][0])


def unpack_dual(tensor, *, level=None):
    """`(primal, tangent)`: a view of the value without its tangent, and the tangent (or None)."""
    if not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)  # as PyTorch: anything else has no tangent
    primal = tensor._view(tensor.shape) if tensor.requires_grad else tensor._detach()  # (the plain
    # view and detach: tensor_methods.py's, as this module sits below the operations)
    return UnpackedDualTensor(primal, _tangent_of(tensor))


def _tangent_of(tensor):
    """The tensor's tangent at the current level, or None."""
    carried = tensor._fw_tangent
    if carried is None or _level is None or carried[0] != _level:
        return None
    return carried[1]


def _set_tangent(tensor, tangent):
    tensor._fw_tangent = (_level, tangent)


class _paused:  # noqa: N801  (used like no_grad)
    """`with _paused():` operations carry no tangents (a rule's own arithmetic, a custom
    Function's forward); the level comes back afterwards."""

    def __enter__(self):
        global _level
        self._level, _level = _level, None

    def __exit__(self, *exc_info):
        global _level
        _level = self._level
        return False


def _propagate(rule, result, inputs, saved, attributes):
    """Give `result` its tangent, if any input has one: the rule's JVP of the inputs' tangents.

    Called by `record` for every operation while a dual level is active (plugged in through
    core/instruments.py); `saved` holds what the operation saves for backward, by name.
    """
    if _level is None:
        return  # paused: a rule's own arithmetic
    saved = {name: result if value is OUTPUT else value for name, value in saved.items()}
    tangents = [_tangent_of(value) if isinstance(value, Tensor) else None for value in inputs]
    if all(tangent is None for tangent in tangents):
        return
    with _paused():  # the rule's own operations run on primals, carrying no tangent
        tangent = rule.jvp(tangents, inputs, result, saved, attributes)
    if tangent is None:
        raise NotImplementedError(messages.FORWARD_AD_NOT_IMPLEMENTED.format(
            name=rule.op_name().lower()))
    if tangent.shape != result.shape:
        tangent = tangent.expand(result.shape)  # an input that was broadcast
    if tangent.dtype != result.dtype:
        tangent = tangent._cast(result._data.dtype)
    _set_tangent(result, tangent)


__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "UnpackedDualTensor"]
