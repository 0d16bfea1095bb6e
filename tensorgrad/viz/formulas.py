"""The chain rule written for people: what each operation computed, and its local derivatives.

Two tables keyed by the grad_fn's type name, in the spirit of PyTorch's derivatives.yaml:

  EXPRESSIONS        the forward computation:           MulBackward0 -> "{a} * {b}"
  LOCAL_DERIVATIVES  ∂out/∂input, one entry per input:   MulBackward0 -> ("{b}", "{a}")

In the templates {a} and {b} are the names of the first and second input, {out} the name of
the result, and any other field is an attribute of the node ({alpha}, {exponent}, ...).
These tables are only words: every number printed next to them comes from running the node's
real `backward`, so the text can never disagree with what the engine computes. An operation
missing from a table is still traced; its text is just less detailed.
"""

from ..autograd.node import Node
from . import labels, nodes

EXPRESSIONS = {
    "AddBackward0": "{a} + {alpha_times}{b}",
    "SubBackward0": "{a} - {alpha_times}{b}",
    "RsubBackward1": "const - {a}",
    "MulBackward0": "{a} * {b}",
    "DivBackward0": "{a} / {b}",
    "NegBackward0": "-{a}",
    "PowBackward0": "{a} ** {exponent}",
    "PowBackward1": "{a} ** {b}",
    "PowBackward2": "{base} ** {a}",
    "MmBackward0": "{a} @ {b}",
    "MvBackward0": "{a} @ {b}",
    "DotBackward0": "{a} @ {b}",
}

LOCAL_DERIVATIVES = {
    "AddBackward0": ("1", "{alpha}"),
    "SubBackward0": ("1", "-{alpha}"),
    "RsubBackward1": ("-1",),
    "MulBackward0": ("{b}", "{a}"),
    "DivBackward0": ("1/{b}", "-{a}/{b}²"),
    "ReciprocalBackward0": ("-{out}²",),
    "NegBackward0": ("-1",),
    "PowBackward0": ("{exponent}·{a}^{exponent_minus_1}",),
    "PowBackward1": ("{b}·{a}^({b} - 1)", "{out}·ln({a})"),
    "PowBackward2": ("{out}·ln({base})",),
    "ExpBackward0": ("exp({a})",),
    "LogBackward0": ("1/{a}",),
    "SqrtBackward0": ("1/(2·{out})",),
    "SinBackward0": ("cos({a})",),
    "CosBackward0": ("-sin({a})",),
    "TanhBackward0": ("1 - {out}²",),
    "SigmoidBackward0": ("{out}·(1 - {out})",),
    "ReluBackward0": ("1 where {out} > 0, else 0",),
    "AbsBackward0": ("sign({a})",),
    "SignBackward0": ("0",),
    "ClampBackward1": ("1 where {min} ≤ {a} ≤ {max}, else 0",),
    "CloneBackward0": ("1",),
    "ToCopyBackward0": ("1",),
    "CopyBackwards": ("1",),
    "SumBackward0": ("1",),
    "MeanBackward0": ("1/{self_sym_numel}",),
}

# Operations whose output element i depends only on element i of each (broadcast) input, so
# that "gradient × local derivative" is an element-by-element product. For other operations a
# local derivative is shown only when the output has a single element.
ELEMENTWISE = frozenset(LOCAL_DERIVATIVES) - {"SumBackward0", "MeanBackward0"} | {
    "MaximumBackward0", "MinimumBackward0", "WhereBackward0"}


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
    template = EXPRESSIONS.get(nodes.type_name(node))
    if template is None:
        op = type(node).op_name() if isinstance(node, Node) else nodes.type_name(node)
        return f"{op.lower()}({', '.join(input_names)})"
    return template.format_map(fields(node, input_names, output_name))


def local_derivative(node, index, input_names, output_name):
    """The symbolic ∂out/∂input for input `index` (`b` for the first input of a * b), or None."""
    templates = LOCAL_DERIVATIVES.get(nodes.type_name(node))
    if templates is None or index >= len(templates):
        return None
    return templates[index].format_map(fields(node, input_names, output_name))


def has_elementwise_derivative(node):
    return nodes.type_name(node) in ELEMENTWISE
