"""Optimizer: the base class that holds the parameters and their update state.

An optimizer keeps
  * `param_groups`: a list of dicts, each with "params" (a list of tensors) and the settings
    for them (lr, momentum, ...). Usually there is one group; several groups let different
    parameters use different learning rates;
  * `state`: per-parameter memory between steps (a momentum buffer, Adam's averages), keyed
    by the parameter tensor itself.

`step()` reads each parameter's `.grad` and changes the parameter in place. It runs under
no_grad: updating a weight is not part of the model's computation and must not be recorded.
"""

import warnings
from collections import defaultdict

from .. import numpy_errors
from .. import arguments
from ..autograd import messages
from ..core.grad_mode import enable_grad, no_grad
from ..core.tensor import Tensor
from ..nn.module import typename, zero_grads
from ..tensor_methods import _as_dtype


class Optimizer:
    """Base class of SGD and Adam. Subclasses define `step()`."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {params.type()}")
        try:
            param_groups = list(params)
        except TypeError:  # PyTorch: "'float' object is not iterable"
            raise TypeError(messages.OPTIMIZER_PARAMS.format(type_name=type(params).__name__)) from None
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group of parameters with its own settings (missing settings use the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        _take_names(param_group)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(param))
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information", stacklevel=3)
        already = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in already for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Forget the last gradients before the next backward (which would add to them)."""
        zero_grads((param for group in self.param_groups for param in group["params"]),
                   set_to_none)

    def step(self, closure=None):
        """Update every parameter that has a gradient. Returns closure()'s loss, if given.

        The update itself is each optimizer's `_update(param, group)`; it runs under no_grad,
        because changing a parameter is not part of the model's computation."""
        if type(self)._update is Optimizer._update:  # the base class has no rule: PyTorch's
            raise NotImplementedError              # Optimizer.step raises, with no message
        loss = None
        if closure is not None and not callable(closure):  # PyTorch: "'str' object is not callable"
            raise TypeError(messages.CLOSURE_NOT_CALLABLE.format(type_name=type(closure).__name__))
        if closure is not None:
            with enable_grad():
                loss = closure()
        token = numpy_errors.state.set(numpy_errors.QUIET)  # (as every public operation)
        try:
            with no_grad():
                for group in self.param_groups:
                    _check_settings_kept(group, self.defaults)
                    for param in group["params"]:
                        if param.grad is not None:
                            self._update(param, group)
        finally:
            numpy_errors.state.reset(token)
        return loss

    # -- saving and loading ---------------------------------------------------------------------
    STATE_KEYS = frozenset()  # the keys of a parameter's state (each optimizer names its own)

    def state_dict(self):
        """The settings and per-parameter state, with the parameters numbered 0, 1, ... across
        the groups, as PyTorch saves them: {"state": {0: {...}, ...}, "param_groups": [...]}."""
        numbers, groups = {}, []
        for group in self.param_groups:
            saved = {key: value for key, value in group.items() if key != "params"}
            saved["params"] = [numbers.setdefault(id(p), len(numbers)) for p in group["params"]]
            groups.append(saved)
        state = {numbers[id(param)]: dict(self.state[param])
                 for group in self.param_groups for param in group["params"]
                 if param in self.state}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Take the settings and state saved by `state_dict()` of an optimizer of this kind
        over parameters of the same shapes, in the same order."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"state_dict must be a dict, but got {type(state_dict).__name__}")
        groups, saved_groups = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the "
                             "size of optimizer's group")
        self._check_same_kind(saved_groups, state_dict["state"])
        by_number = {}
        for group, saved in zip(groups, saved_groups):
            by_number.update(zip(saved["params"], group["params"]))
            group.update({key: value for key, value in saved.items() if key != "params"})
        self.state.clear()
        for number, values in state_dict["state"].items():
            param = by_number[number]
            self.state[param] = {key: _like_param(value, param, key) for key, value in values.items()}

    def _check_same_kind(self, saved_groups, saved_state):
        """PyTorch loads another optimizer's state without a word and fails at the next step
        (SGD's into Adam: KeyError 'step'); tensorgrad says so when loading (README)."""
        expected = set(self.defaults)
        for saved in saved_groups:
            if set(saved) - {"params", "param_names"} != expected:
                raise ValueError(messages.OTHER_OPTIMIZER_STATE.format(
                    name=type(self).__name__, found=", ".join(sorted(set(saved) - {"params"}))))
        for values in saved_state.values():
            if not set(values) <= self.STATE_KEYS:
                raise ValueError(messages.OTHER_OPTIMIZER_STATE.format(
                    name=type(self).__name__, found=", ".join(sorted(values))))

    def _update(self, param, group):
        raise NotImplementedError(f"{type(self).__name__} must define _update(param, group)")

    def __repr__(self):
        text = type(self).__name__ + " ("
        for index, group in enumerate(self.param_groups):
            text += f"\nParameter Group {index}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _check_settings_kept(group, defaults):
    """PyTorch's step reads every setting of a group before it looks at the gradients: one
    deleted from `param_groups` is a KeyError even when no parameter has a gradient yet."""
    for key in defaults:
        if key not in group:
            raise KeyError(key)


def _value(setting):
    """A setting as a number: a learning rate given as a one-element tensor (PyTorch takes one,
    and keeps it in the group as it was given) as the number it holds."""
    return setting._data.item() if isinstance(setting, Tensor) else setting


def _scalar(value, argument="alpha", name="add"):
    """A setting (or a number made from one) as PyTorch's update hands it to an operation as a
    Scalar (SGD's `param.add_(grad, alpha=-lr)`, `buf.mul_(momentum)`), refused where PyTorch's
    parser refuses it there: a Python int beyond what a Scalar holds (`SGD(lr=2 ** 70)`, an
    OverflowError at its first step), NumPy's uint64 once it wraps around (`-np.uint64(2)`: "an
    integer is required"), a tensor that is not 0-d or that requires grad (`weight_decay=
    tensor([2.])`: "add(): argument 'alpha' must be Number, not Tensor")."""
    return arguments.scalar(name, argument, value)


def _squeezed(setting):
    """A one-element tensor setting as the 0-d tensor PyTorch's step makes of it (`_to_scalar`):
    SGD's learning rate, which it then negates as a tensor (`-lr`: a bool tensor refused)."""
    return setting.reshape(()) if isinstance(setting, Tensor) else setting


def _take_names(param_group):
    """`named_parameters()` gives (name, parameter) pairs: the group keeps the parameters in
    "params" and their names in "param_names", as PyTorch does; all named or none."""
    pairs = [param for param in param_group["params"] if isinstance(param, tuple)]
    if not pairs:
        return
    if len(pairs) != len(param_group["params"]):
        raise ValueError("all optimizer params should be with/without names. Some param names "
                         "are missing")
    param_group["param_names"] = [name for name, _ in pairs]
    param_group["params"] = [param for _, param in pairs]


def _like_param(value, param, key):
    """A loaded state tensor in the parameter's dtype (but Adam's step count as it is)."""
    if isinstance(value, Tensor) and key != "step" and value.dtype.is_floating_point:
        return _as_dtype(value, param.dtype)  # (Tensor.to's work, unchecked)
    return value


def _check_no_differentiable(defaults):
    if defaults.get("differentiable"):
        raise NotImplementedError("tensorgrad's optimizers do not support differentiable=True")


__all__ = ["Optimizer"]
