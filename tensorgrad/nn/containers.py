"""ParameterList and ModuleDict: a list of weights and a dict of layers that the parent module sees.

A plain Python list or dict on a module hides what it holds: `parameters()`, `state_dict()`
and the optimizer never find the weights inside. These two register each element under its
position ("0", "1", ...) or its key, so `named_parameters()` says `ps.0` and `d.a.weight`, as
PyTorch's do. (ModuleList and Sequential are in modules.py.)
"""

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from ..core.tensor import Tensor
from .module import Module
from .parameter import Parameter


class ParameterList(Module):
    """Parameters in a list: `nn.ParameterList([nn.Parameter(tg.ones(2))])`. A tensor put in
    becomes a Parameter; anything else is kept as it is, as PyTorch keeps it."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _key_at(self, index):
        """The name of the element at `index` (negative from the end), as PyTorch checks it."""
        index = operator.index(index)
        if not -len(self) <= index < len(self):
            raise IndexError(f"index {index} is out of range")
        return str(index % len(self))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(self[i] for i in range(*index.indices(len(self))))
        return getattr(self, self._key_at(index))

    def __setitem__(self, index, value):
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, self._key_at(index), value)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    def __iadd__(self, values):
        return self.extend(values)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        """One line per element: `(0): Parameter containing: [tensorgrad.float32 of size 2x3]`."""
        lines = []
        for number, value in enumerate(self):
            if isinstance(value, Tensor):
                kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
                size = "x".join(str(size) for size in value.shape)
                lines.append(f"  ({number}): {kind} containing: [{value.dtype} of size {size}]")
            else:
                lines.append(f"  ({number}): Object of type: {type(value).__name__}")
        return "\n".join(lines)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ModuleDict(Module):
    """Modules by name: `nn.ModuleDict({"encoder": nn.Linear(2, 4)})`, used like a dict
    (`d["encoder"]`, `"encoder" in d`, `d.items()`), its children named by their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        """Add (or replace) modules from a mapping, or from an iterable of (key, module) pairs,
        with PyTorch's errors for anything else."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value "
                            "pairs, but got " + type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, module in modules.items():
                self[key] = module
            return
        for number, pair in enumerate(modules):  # (the pairs before a bad one are kept, as in PyTorch)
            if not isinstance(pair, Iterable):
                raise TypeError(f"ModuleDict update sequence element #{number} should be "
                                f"Iterable; is{type(pair).__name__}")  # (PyTorch's words, no space)
            if len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{number} has length "
                                 f"{len(pair)}; 2 is required")
            self[pair[0]] = pair[1]
