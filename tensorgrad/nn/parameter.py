"""Parameter: a tensor that a Module treats as one of its learnable weights.

A Parameter is an ordinary leaf Tensor with `requires_grad=True`. The only thing that makes it
special is its type: when a Module sees `self.weight = Parameter(...)`, it records `weight` in its
list of parameters, which is how `model.parameters()` can hand every weight to an optimizer.
"""

from ..autograd import messages
from ..core.tensor import Tensor
from ..creation import empty


class Parameter(Tensor):
    """`Parameter(data, requires_grad=True)`: shares `data`'s memory and is always a leaf."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):  # (PyTorch's own code fails on it: "no attribute 'detach'")
            raise TypeError(messages.PARAMETER_DATA.format(type_name=type(data).__name__))
        if not isinstance(requires_grad, bool):  # PyTorch's words: it hands the flag on
            raise TypeError(messages.PARAMETER_FLAG.format(type_name=type(requires_grad).__name__))
        # Same memory and version counter as `data`, but cut from any graph: a new leaf.
        param = cls._make(data._data, version_counter=data._shared_version_counter())
        if requires_grad:
            if not param.dtype.is_floating_point:
                raise RuntimeError(messages.INT_REQUIRES_GRAD_FACTORY)
            param._requires_grad = True
        return param

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        # copy.deepcopy and pickle: rebuild from a copy of the values and the flag.
        return (_rebuild_parameter, (self._data.copy(), self._requires_grad))


def _rebuild_parameter(array, requires_grad):
    return Parameter(Tensor._make(array), requires_grad)
