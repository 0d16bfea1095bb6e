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

The node's `backward` method is written out as plain Python from the entry, the way the
standard library's dataclasses write `__init__`: it is exactly the method one would write by
hand, so it costs nothing extra per call. `print(MulBackward0.source)` shows it:

    def backward(node, grad):
        other, self = node.saved_tensors
        (to_self, _), (to_other, _) = node.next_functions
        return (d_self(grad, other) if to_self is not None else None,
                d_other(grad, self) if to_other is not None else None)
"""

import functools
import inspect
import linecache
import os
import sys

from .node import Node


class Rule(Node):
    """A node made from an entry of the derivative table. What the entry said, for viz and tests:

    formulas     ((input name, formula), ...) in input order: what backward calls
    plain        for a rule with a fused formulation (`fast=`): the plain formulas, by input
    computes     how pictures write the forward operation ("{a} * {b}"), or None
    local        how pictures write ∂out/∂input for each input ("{b}", "{a}"), or None
    elementwise  True when output element i depends only on element i of each input
    source       the text of the generated `backward` method
    jvp_formula  the forward-mode rule (tangent of the output from the inputs' tangents), or
                 None; element-by-element rules need none: their backward formulas serve
    """

    __slots__ = ()
    formulas = ()
    plain = None
    computes = None
    local = None
    elementwise = False
    source = ""
    jvp_formula = None
    _full_name = None
    _entry_line = None

    def name(self):
        return self._full_name or type(self).__name__

    @classmethod
    def jvp(cls, tangents, inputs, result, saved, settings):
        """Forward mode: the output's tangent, from one tangent per input (None: no tangent).

        An explicit `jvp=` formula asks for its values by name, as a backward formula does:
        `self_t` is the tangent of input `self` (zeros where it has none), `self` its value,
        `result` the output, and a saved value or setting by its name. An element-by-element
        rule without one uses its backward formulas: its Jacobian is diagonal, so J·t is the
        sum over inputs of (the local derivative) times (that input's tangent), which is what
        each backward formula computes when given the tangent as `grad`.
        """
        input_names = [name for name, _ in cls.formulas]
        values = dict(settings)
        values.update(zip(cls.saved_names, saved))
        values.update(zip(input_names, inputs))
        values["result"] = result
        if cls.jvp_formula is not None:
            for name, value, tangent in zip(input_names, inputs, tangents):
                values[name + "_t"] = _zeros_if_none(tangent, value)
            if input_names == ["tensors"]:  # cat, stack: a list of inputs
                values["tensors"] = list(inputs)
                values["tensors_t"] = [_zeros_if_none(t, v) for t, v in zip(tangents, inputs)]
            return _call_by_names(cls.jvp_formula, values)
        if not cls.elementwise:
            return None
        total = None
        for (_, formula), tangent in zip(cls.formulas, tangents):
            if tangent is not None:
                term = _call_by_names(formula, {**values, "grad": tangent})
                total = term if total is None else total + term
        return total

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
         fast=None, jvp=None, full_name=None, **formulas):
    """Make the node class of one operation from its derivative formulas (see the module's
    docstring). `settings` lists node attributes that no formula reads but that PyTorch shows
    (`_saved_self_sym_sizes`) or viz prints; those a formula reads are found by themselves.
    `fast` maps input names to fused formulas that backward runs instead of the plain ones;
    the plain ones stay readable in the table, and tests check that both agree. `jvp` is the
    forward-mode rule (see Rule.jvp)."""
    saves = tuple(saves)
    plain = dict(formulas) if fast else None
    formulas = {**formulas, **(fast or {})}
    found_settings = [parameter for formula in formulas.values()
                      for parameter in inspect.signature(formula).parameters
                      if parameter != "grad" and parameter not in saves]
    source = _backward_source(list(formulas), formulas, saves)
    namespace = {f"d_{input_name}": formula for input_name, formula in formulas.items()}
    # Registered under a name inside the package, so that a traceback through it shows its
    # lines (and the lessons' short tracebacks hide it with the other library frames).
    filename = os.path.join(os.path.dirname(__file__), f"rules.py, the backward of {name}")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (made from the entry)
    attributes = {
        "__slots__": tuple(dict.fromkeys([*settings, *found_settings])),
        "__module__": "tensorgrad.derivatives",
        "__qualname__": name,
        "__doc__": f"The node of one operation; its rule is the entry {name} in "
                   "tensorgrad/derivatives.py.",
        "backward": namespace["backward"],
        "saved_names": saves,
        "formulas": tuple(formulas.items()),
        "plain": plain,
        "computes": computes,
        "local": (local,) if isinstance(local, str) else local,
        "elementwise": elementwise,
        "source": source,
        "jvp_formula": staticmethod(jvp) if jvp is not None else None,
        "_full_name": full_name,
        "_entry_line": sys._getframe(1).f_lineno,  # for entry(): the line that called rule
    }
    return type(name, (Rule,), attributes)


def _backward_source(inputs, formulas, saves):
    """The text of the `backward` method for these formulas: unpack the saved values, then call
    each input's formula if that input needs a gradient."""
    lines = ["def backward(node, grad):"]
    if saves:
        unpacked = ", ".join(saves) + ("," if len(saves) == 1 else "")
        lines.append(f"    {unpacked} = node.saved_tensors")
    calls = {name: f"d_{name}({', '.join(_arguments(formulas[name], saves))})" for name in inputs}
    if inputs == ["tensors"]:
        lines.append(f"    return tuple({calls['tensors']})")
    elif len(inputs) == 1:  # the node exists because its one input needs a gradient
        lines.append(f"    return ({calls[inputs[0]]},)")
    else:
        edges = ", ".join(f"(to_{name}, _)" for name in inputs)
        lines.append(f"    {edges} = node.next_functions")
        results = [f"{calls[name]} if to_{name} is not None else None" for name in inputs]
        lines.append("    return (" + ",\n            ".join(results) + ")")
    return "\n".join(lines) + "\n"


def _arguments(formula, saves):
    """How the generated code passes each parameter: `grad`, a saved value, or `node.<setting>`."""
    return [parameter if parameter == "grad" or parameter in saves else f"node.{parameter}"
            for parameter in inspect.signature(formula).parameters]


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
    if hasattr(value, "_data"):
        from ..creation import zeros_like

        return zeros_like(value)
    return 0
