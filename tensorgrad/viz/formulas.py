"""The chain rule written for people: what each operation computed, and its local derivatives.

The words come from the derivative table (tensorgrad/derivatives.py), where each rule carries
them next to its formulas:

  computes   the forward computation:            MulBackward0 -> "{a} * {b}"
  local      ∂out/∂input, one entry per input:    MulBackward0 -> ("{b}", "{a}")

In the templates {a} and {b} are the names of the first and second input, {out} the name of
the result, and any other field is an attribute of the node ({alpha}, {exponent}, ...).
These are only words: every number printed next to them comes from running the node's real
`backward`, so the text can never disagree with what the engine computes. An operation without
them (a custom Function, or a rule that has no short formula) is still traced; its text is
just less detailed.
"""

from ..core.node import Node
from . import labels, nodes


class _Fields(dict):
    """Template fields; a field the node does not have stays visible as `{name}`."""

    def __missing__(self, key):
        return "{" + key + "}"


def fields(node, input_names, output_name):
    values = _Fields(out=output_name)
    for letter, name in zip("ab", input_names):
        values[letter] = name
    for attr, value in nodes.attribute_values(node):
        values[attr] = labels.plain_number(value) if value is not None else None
    alpha = values.get("alpha")
    values["alpha_times"] = "" if alpha in (None, "1") else f"{alpha}*"
    exponent = getattr(node, "exponent", None)
    if isinstance(exponent, (int, float)):
        values["exponent_minus_1"] = labels.plain_number(exponent - 1)
    if values.get("min") is None:
        values["min"] = "-∞"
    if values.get("max") is None:
        values["max"] = "∞"
    return values


def expression(node, input_names, output_name):
    """`a * b`, `x + 1`, or `exp(a)` for operations without an infix form."""
    template = getattr(node, "computes", None)
    if template is None:
        op = type(node).op_name() if isinstance(node, Node) else nodes.type_name(node)
        return f"{op.lower()}({', '.join(input_names)})"
    return template.format_map(fields(node, input_names, output_name))


def local_derivative(node, index, input_names, output_name):
    """The symbolic ∂out/∂input for input `index` (`b` for the first input of a * b), or None."""
    templates = getattr(node, "local", None)
    if templates is None or index >= len(templates):
        return None
    return templates[index].format_map(fields(node, input_names, output_name))


def has_elementwise_derivative(node):
    """Does output element i depend only on element i of each input? Then "gradient × local
    derivative" is an element-by-element product; otherwise a local derivative is shown only
    when the output has a single element."""
    return getattr(node, "elementwise", False)
