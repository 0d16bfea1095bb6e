"""Module: the base class of every layer and network.

A Module does two jobs:
  * it computes: `model(x)` calls `model.forward(x)`;
  * it keeps track of its weights. Assigning a Parameter to an attribute (`self.weight = ...`)
    records it in `self._parameters`; assigning a Module records it in `self._modules`. That
    bookkeeping, done in `__setattr__`, is what lets `model.parameters()` find every weight of a
    whole network, and `state_dict()` name each one ("0.weight", "2.bias", ...).

Walking the tree of modules uses an explicit stack (no recursion), like every graph walk in
tensorgrad.
"""

from collections import OrderedDict, namedtuple

from ..core.grad_mode import no_grad
from .. import arguments
from ..autograd import messages
from ..core.tensor import Tensor
from ..ops import inplace as _inplace
from ..ops import shape as _shape
from ..tensor_methods import _as_dtype, detach_in_place, to_arguments
from ..utils.hooks import RemovableHandle
from . import hooks
from .parameter import Parameter
from .. import dtypes


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns: the keys it could not match (both empty when all fit)."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text, spaces):
    """Indent every line but the first (for nested module reprs)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join(spaces * " " + line for line in lines)


def zero_grads(params, set_to_none=True):
    """Forget the gradients of `params`, as `Module.zero_grad` and `Optimizer.zero_grad` do:
    `.grad = None` (the default, as in PyTorch 2), or zeroed in place and cut from any graph."""
    for param in params:
        if param.grad is None:
            continue
        if set_to_none:
            param.grad = None
        else:
            if param.grad.grad_fn is not None:
                detach_in_place(param.grad)
            else:
                param.grad._set_requires_grad(False, messages.INT_REQUIRES_GRAD_METHOD)
            _inplace.zero_(param.grad)


class Module:
    """Base class of layers and models. Subclasses call `super().__init__()` and define forward."""

    def __init__(self, *args, **kwargs):
        if kwargs:  # (a module without an __init__ of its own: PyTorch's words, with its name)
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        # object.__setattr__: our own __setattr__ needs these dicts to exist already.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_modules", {})
        # {handle id: hook}, made when the first hook is registered. Set here, not on the class:
        # a subclass whose __init__ skips super().__init__() fails when called, on the first
        # of them that __call__ reads, as in PyTorch ("no attribute '_backward_hooks'")
        object.__setattr__(self, "_backward_hooks", None)
        object.__setattr__(self, "_forward_hooks", None)
        object.__setattr__(self, "_forward_pre_hooks", None)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        if self._backward_hooks or self._forward_hooks or self._forward_pre_hooks:
            return hooks.call_with_hooks(self, args, kwargs)
        return self.forward(*args, **kwargs)

    # -- hooks: functions called around forward, or when gradients reach the module --------------

    def register_forward_pre_hook(self, hook):
        """hook(module, args) runs before forward; it may return new args."""
        return self._register_hook("_forward_pre_hooks", hook)

    def register_forward_hook(self, hook):
        """hook(module, args, output) runs after forward; it may return a new output."""
        return self._register_hook("_forward_hooks", hook)

    def register_full_backward_hook(self, hook):
        """hook(module, grad_input, grad_output) runs when the gradients with respect to the
        module's inputs have been computed; it may return new grad_input."""
        return self._register_hook("_backward_hooks", hook)

    def _register_hook(self, registry, hook):
        if self.__dict__.get(registry) is None:
            object.__setattr__(self, registry, {})
        handle = RemovableHandle(self.__dict__[registry])
        self.__dict__[registry][handle.id] = hook
        return handle

    # -- attribute bookkeeping ----------------------------------------------------------------
    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(tensorgrad.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")  # a child replaced keeps its place in the order
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(tensorgrad.nn.Module or None expected)")
            modules[name] = None
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(tensorgrad.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, keep=None):
        """Remove `name` wherever it was registered before (but in `keep`), so it lives in
        exactly one place."""
        self.__dict__.pop(name, None)
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry != keep:
                self.__dict__[registry].pop(name, None)

    def __getattr__(self, name):
        # Only called when normal lookup fails: look in the three registries.
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for registry in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(registry, {}):
                del self.__dict__[registry][name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        registered = [name for registry in ("_parameters", "_buffers", "_modules")
                      for name in self.__dict__.get(registry, {})]
        return sorted(set(super().__dir__()) | set(registered))

    def register_parameter(self, name, param):
        """Add a parameter (or None, a declared-but-absent parameter such as `bias=False`)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(tensorgrad.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                "the value in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is part of the module's state but not learned (saved in state_dict)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(tensorgrad Tensor or None required)")
        self._buffers[name] = tensor
        if not persistent:
            self.__dict__.setdefault("_non_persistent_buffers", set()).add(name)

    def add_module(self, name, module):
        """Add a child module under `name` (what `self.name = module` does)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        _check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    # -- walking the module tree ------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every module inside it, parents first."""
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if module in memo:
                    continue
                memo.add(module)
            yield name, module
            children = [(child_name, child) for child_name, child in module._modules.items()
                        if child is not None]
            for child_name, child in reversed(children):  # reversed: the first child pops first
                stack.append((name + ("." if name else "") + child_name, child))

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """("0.weight", Parameter), ...: every parameter with its dotted path."""
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        seen = set()
        for module_prefix, module in modules:
            for name, param in module._parameters.items():
                if param is None or (remove_duplicate and param in seen):
                    continue
                seen.add(param)
                yield module_prefix + ("." if module_prefix else "") + name, param

    def parameters(self, recurse=True):
        """Every parameter of this module and of the modules inside it: what optimizers take."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True):
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    yield module_prefix + ("." if module_prefix else "") + name, buffer

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    # -- training helpers -------------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Forget the gradients of the last backward: `.grad = None` (or zeros)."""
        zero_grads(self.parameters(), set_to_none)

    def train(self, mode=True):
        """Set training mode (the `training` flag) here and in every module inside."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        """Evaluation mode: `train(False)`. (It does not turn off gradients: use no_grad.)"""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        arguments.check("requires_grad_", (requires_grad,), method=True)  # (Tensor's, once)
        for param in self.parameters():
            param._set_requires_grad(requires_grad, messages.INT_REQUIRES_GRAD_METHOD)
        return self

    def apply(self, fn):
        """Call fn(module) on every module inside, children before their parent, then return self."""
        for module in reversed(list(self.modules())):
            fn(module)
        return self

    def to(self, *args, **kwargs):
        """Convert the floating-point parameters and buffers in place (`model.to(tg.float64)`).
        It takes the arguments of Tensor.to; the only device is the CPU."""
        arguments.check("to", args, kwargs, method=True)
        dtype, _ = to_arguments(args, kwargs)
        if dtype is None:
            return self
        if not dtype.is_floating_point:
            raise TypeError(messages.MODULE_TO_DTYPE.format(dtype=dtype))
        for tensor in list(self.parameters()) + list(self.buffers()):
            if tensor.dtype.is_floating_point:
                tensor.data = _as_dtype(tensor.data, dtype)
                if tensor._grad is not None:
                    tensor._grad = _as_dtype(tensor._grad, dtype)
        return self

    def double(self):
        return self.to(dtypes.float64)

    def cpu(self):
        """The module itself: every tensor is on the CPU, tensorgrad's one device (each one is
        its own `tensor.cpu()`, as Tensor.cpu returns the tensor itself)."""
        return self._apply(lambda tensor: tensor)

    def cuda(self, device=None):
        """As PyTorch without CUDA: refused by the first tensor (a module with none is itself)."""
        return self._apply(lambda tensor: tensor.cuda(device))

    def type(self, dst_type):
        """Convert every parameter and buffer, integer ones too, to `dst_type` (a dtype or a
        legacy name such as "torch.DoubleTensor"), as Tensor.type converts one; returns self."""
        return self._apply(lambda tensor: tensor.type(dst_type))

    def _apply(self, convert):
        """Each parameter's values (and its `.grad`'s) and each buffer replaced by `convert` of
        it, in this module and every one inside, as PyTorch's Module._apply: a parameter keeps
        its identity (`param.data = ...`, which refuses an integer dtype where it requires grad,
        in PyTorch's words); a buffer is replaced."""
        for module in self.modules():
            for param in module._parameters.values():
                if param is None:
                    continue
                with no_grad():
                    param.data = convert(param)
                    if param.grad is not None:
                        param.grad.data = convert(param.grad)
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    module._buffers[name] = convert(buffer)
        return self

    def float(self):
        return self.to(dtypes.float32)

    # -- saving and loading ----------------------------------------------------------------------
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """An OrderedDict from dotted names to tensors: every parameter and persistent buffer,
        each name after `prefix` as it is written (PyTorch adds no dot: "a." gives "a.weight")."""
        if not isinstance(prefix, str):  # PyTorch first keys its metadata by prefix[:-1], and
            hash(prefix[:-1])            # fails there: "'int' object is not subscriptable"
        if destination is None:
            destination = OrderedDict()
        for module_prefix, module in self.named_modules():
            dotted = prefix + module_prefix + ("." if module_prefix else "")
            for name, param in module._parameters.items():
                if param is not None:
                    destination[dotted + name] = param if keep_vars else _shape.detach(param)
            skipped = module.__dict__.get("_non_persistent_buffers", set())
            for name, buffer in module._buffers.items():
                if buffer is not None and name not in skipped:
                    destination[dotted + name] = buffer if keep_vars else _shape.detach(buffer)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values from `state_dict` into this module's parameters and buffers, in place.

        Errors are collected and raised together, naming each key: a missing or unexpected key
        (with strict=True), or a value whose shape or dtype differs from the parameter's.
        A deliberate difference: PyTorch silently converts a value of another dtype; tensorgrad
        refuses it, because a float64 checkpoint loaded into a float32 model usually means the
        wrong file. Convert it explicitly (`value.float()`) if that is what you want.
        """
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        if assign:
            raise NotImplementedError("tensorgrad's load_state_dict copies values (assign=False)")
        own = self.state_dict(keep_vars=True)
        missing_keys, unexpected_keys, error_msgs = [], [], []
        for key, target in own.items():
            if key not in state_dict:
                missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected tensorgrad.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}")
            elif value.shape != target.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {target.shape}.")
            elif value.dtype is not target.dtype:
                error_msgs.append(
                    f"dtype mismatch for {key}: copying a param with dtype {value.dtype} and shape "
                    f"{value.shape} from checkpoint, the dtype in current model is {target.dtype} "
                    f"(shape {target.shape}). Convert the value first, for example with .float().")
            else:
                with no_grad():
                    _inplace.copy_(target, value)
        unexpected_keys = [key for key in state_dict if key not in own]
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # -- printing -------------------------------------------------------------------------------
    def extra_repr(self):
        """The text inside the parentheses, e.g. `in_features=2, out_features=16, bias=True`."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(module), 2)
                       for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]  # a one-line module: Linear(in_features=2, ...)
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


def typename(value):
    """PyTorch's `torch.typename`: `tensorgrad.FloatTensor` for a tensor; else the object's own
    qualified name where it has one (a class, a function, a generator: `Module.parameters`),
    or its class's (`float`, `numpy.float64`), with its module but "builtins"."""
    if isinstance(value, Tensor):
        return value.type()
    module = getattr(value, "__module__", "") or ""
    qualname = getattr(value, "__qualname__", None)
    if qualname is None:
        qualname = getattr(value, "__name__", None)
    if qualname is None:
        module, qualname = type(value).__module__ or "", type(value).__qualname__
    if module in ("tensorgrad.device", "tensorgrad.dtypes", "tensorgrad.size"):
        module = "tensorgrad"  # torch.device, torch.dtype, torch.Size
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _check_name(name, kind):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:  # (PyTorch names the string for modules only)
        raise KeyError(f'{kind} name can\'t contain "."' + (f", got: {name}" if kind == "module" else ""))
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


__all__ = ["Module"]
