"""How one entry of the derivative table (tensorgrad/derivatives.py) becomes a graph node.

An entry says, in the words of the math, which gradient each input of an operation receives,
in the way PyTorch's derivatives.yaml does:

    MulBackward0 = rule("MulBackward0", saves=("other", "self"),
                        self=lambda grad, other: grad * other,     # d(a·b)/da = b
                        other=lambda grad, self: grad * self)      # d(a·b)/db = a

`rule` makes a Node subclass called MulBackward0 out of it. The keywords after the options name
the inputs in order (`self`, `other`, ... as PyTorch names them) and give each one's formula.
A formula's parameters say what it needs, by name:

    grad                the gradient arriving at the node's output
    a name in `saves`   a value the forward pass saved (checked against in-place changes)
    any other name      a setting the forward pass recorded on the node (`dim`, `alpha`, ...)

A formula runs only when its input needs a gradient, so no formula tests for that. Formulas
are written with Tensor operations, so with `create_graph=True` the gradient is itself
recorded and can be differentiated again. One more form: `tensors=...` is one formula that
returns a gradient for each of a variable number of inputs (cat, stack).

Every node class made here shares one `apply` (Rule.apply below), the one method the engine
calls on a node: for each input that needs a gradient, call that input's formula with the values
its parameters name. Each formula's parameter names are read once, when the table is read,
and so is which of them are settings; a backward pass puts the gradient, the saved values and
those settings in one dict and looks each name up there.
"""

import functools
import inspect
import sys

import numpy as np

from .node import Node
from .tensor import Tensor


class Rule(Node):
    """A node made from an entry of the derivative table. What the entry said, for viz and tests:

    formulas     ((input name, formula), ...) in input order: what backward calls
    same_as      for a rule whose formula is a fused NumPy formulation (ops/fused.py): the plain
                 formula it computes, by input name (tests check that the two agree), or None
    computes     how pictures write the forward operation ("{a} * {b}"), or None
    local        how pictures write ∂out/∂input for each input ("{b}", "{a}"), or None
    elementwise  True when output element i depends only on element i of each input
    jvp_formula  the forward-mode rule (tangent of the output from the inputs' tangents), or
                 None; element-by-element rules need none: their backward formulas serve
    """

    __slots__ = ()
    formulas = ()
    parameters = ()  # for each formula, the names of its parameters (read once, in rule())
    settings_read = ()  # the parameters that are neither `grad` nor a saved value: settings
    same_as = None
    computes = None
    local = None
    elementwise = False
    jvp_formula = None
    _entry_line = None

    def apply(self, grads):
        """The chain rule for one operation: each input that needs a gradient gets its formula,
        called with the values the formula's parameters name (see the module's docstring).
        `grads` holds the gradient of the output (these operations have one)."""
        values = dict(zip(self.saved_names, self.saved_tensors)) if self.saved_names else {}
        values["grad"] = grads[0]
        for name in self.settings_read:  # what the forward pass recorded on the node (`alpha`)
            values[name] = getattr(self, name)
        gradients = []
        for (input_name, formula), parameters, (next_node, _) in zip(
                self.formulas, self.parameters, self.next_functions):
            if next_node is None and input_name != "tensors":
                gradients.append(None)  # this input needs no gradient: its formula never runs
                continue
            gradients.append(formula(*map(values.__getitem__, parameters)))  # values[name] each
        if self.formulas[0][0] == "tensors":  # cat, stack: one formula, a gradient per input
            return tuple(gradients[0])
        return tuple(gradients)

    @classmethod
    def jvp(cls, tangents, inputs, result, saved, settings):
        """Forward mode: the output's tangent, from one tangent per input (None: no tangent).
        `saved` and `settings` are what the forward pass gave `record`, by name.

        An explicit `jvp=` formula asks for its values by name, as a backward formula does:
        `self_t` is the tangent of input `self` (zeros where it has none), `self` its value,
        `result` the output, and a saved value or setting by its name. A product's rule gives one
        term per input instead (`jvp={"self": ..., "mat2": ...}`): J·t is the sum of the terms of
        the inputs that carry a tangent, so an input without one costs nothing (no product of
        zeros). An element-by-element rule without `jvp=` uses its backward formulas: its
        Jacobian is diagonal, so J·t is the sum over inputs of (the local derivative) times (that
        input's tangent), which is what each backward formula computes when given the tangent as
        `grad`.
        """
        input_names = [name for name, _ in cls.formulas]
        values = dict(settings)
        values.update(saved)  # by name: {"other": ..., "self": ...}
        values.update(zip(input_names, inputs))
        values["result"] = result
        if isinstance(cls.jvp_formula, dict):  # one term per input
            return _sum_of_terms(
                _call_by_names(cls.jvp_formula[name], {**values, name + "_t": tangent})
                for name, tangent in zip(input_names, tangents) if tangent is not None)
        if cls.jvp_formula is not None:
            for name, value, tangent in zip(input_names, inputs, tangents):
                values[name + "_t"] = _zeros_if_none(tangent, value)
            if input_names == ["tensors"]:  # cat, stack: a list of inputs
                values["tensors"] = list(inputs)
                values["tensors_t"] = [_zeros_if_none(t, v) for t, v in zip(tangents, inputs)]
            return _call_by_names(cls.jvp_formula, values)
        if not cls.elementwise:
            return None
        return _sum_of_terms(_call_by_names(formula, {**values, "grad": tangent})
                             for (_, formula), tangent in zip(cls.formulas, tangents)
                             if tangent is not None)

    @classmethod
    def entry(cls):
        """The entry of the derivative table that made this class, as it is written there (with
        the comment above it, and any named formula function it uses)."""
        lines = inspect.getsource(sys.modules[cls.__module__]).splitlines()
        start = cls._entry_line - 1  # where the table called rule(...)
        first = start
        while first > 0 and lines[first - 1].startswith("# ") and not lines[first - 1].startswith("# --"):
            first -= 1
        end = start
        while _unbalanced("\n".join(lines[start:end + 1])):
            end += 1
        helpers = [inspect.getsource(formula) for _, formula in cls.formulas
                   if formula.__name__ != "<lambda>" and formula.__module__ == cls.__module__]
        return "\n".join([*dict.fromkeys(helpers), *lines[first:end + 1]]) + "\n"


def rule(name, *, saves=(), settings=(), computes=None, local=None, elementwise=False,
         same_as=None, jvp=None, full_name=None, **formulas):
    """Make the node class of one operation from its derivative formulas (see the module's
    docstring). `settings` lists node attributes that no formula reads but that PyTorch shows
    (`_saved_self_sym_sizes`) or viz prints; those a formula reads are found by themselves.
    `same_as` maps an input name to the plain formula that a fused formula computes (tests
    check that both agree). `jvp` is the forward-mode rule (see Rule.jvp)."""
    saves = tuple(saves)
    parameters = tuple(_parameter_names(formula) for formula in formulas.values())
    read_by = None  # for each saved value, the inputs whose formulas read it (see record)
    if saves and list(formulas) != ["tensors"]:
        read_by = tuple(_read_by(name, parameters) for name in saves)
    found_settings = [parameter for names in parameters for parameter in names
                      if parameter != "grad" and parameter not in saves]
    attributes = {
        "__slots__": tuple(dict.fromkeys([*settings, *found_settings])),
        "__module__": "tensorgrad.derivatives",
        "__qualname__": name,
        "__doc__": f"The node of one operation; its rule is the entry {name} in "
                   "tensorgrad/derivatives.py.",
        "saved_names": saves,
        "read_by": read_by,
        "formulas": tuple(formulas.items()),
        "parameters": parameters,
        "settings_read": tuple(dict.fromkeys(found_settings)),
        "same_as": same_as,
        "computes": computes,
        "local": (local,) if isinstance(local, str) else local,
        "elementwise": elementwise,
        "jvp_formula": staticmethod(jvp) if callable(jvp) else jvp,
        "_full_name": full_name,
        "_entry_line": sys._getframe(1).f_lineno,  # for entry(): the line that called rule
    }
    return type(name, (Rule,), attributes)


def _read_by(saved_name, parameters):
    """The inputs whose formulas read a saved value, or None if it is always kept: when no
    formula reads it (PyTorch shows it all the same), or every one does (whenever the node is
    made, some input needs its gradient, so some formula will read it)."""
    readers = tuple(i for i, names in enumerate(parameters) if saved_name in names)
    return None if len(readers) in (0, len(parameters)) else readers


def _sum_of_terms(terms):
    """The sum of a forward-mode rule's terms (None when there are none)."""
    total = None
    for term in terms:
        total = term if total is None else total + term
    return total


def _unbalanced(text):
    """True while `text` has opened more brackets than it closed (an entry spans several lines)."""
    return sum(text.count(c) for c in "([{") > sum(text.count(c) for c in ")]}")


@functools.lru_cache(maxsize=None)
def _parameter_names(formula):
    return tuple(inspect.signature(formula).parameters)


def _call_by_names(formula, values):
    return formula(*[values[name] for name in _parameter_names(formula)])


def _zeros_if_none(tangent, value):
    """A missing tangent is a tangent of zeros (for a Python number: 0)."""
    if tangent is not None:
        return tangent
    if isinstance(value, Tensor):
        return type(value)._make(np.zeros_like(value._data))
    return 0
