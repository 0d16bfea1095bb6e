"""How values, shapes and names are written inside pictures and step-by-step text.

Everything here returns plain strings and depends only on the data, never on memory addresses
or on the order of a set, so the same graph always gets the same labels. Numbers follow the
library's printing rules (`tensorgrad.printing`, the same text as `repr(tensor)`), so a label
agrees with what a learner sees when printing the tensor.
"""

import numpy as np

from .. import printing

VALUE_LIMIT = 16  # tensors with more elements are shown by their shape only

_PREFIX = "tensor("


def size_text(shape):
    """A shape the way torchviz writes it: `(2, 3)`, `(1)`, `()` for a 0-d tensor."""
    if shape is None:
        return "(?)"  # an input whose shape the node did not record
    return "(" + ", ".join("%d" % size for size in shape) + ")"


def values_text(array):
    """The values of a small array as `repr(tensor)` shows them, without `tensor(...)` around.

    `[2.]`, `6.`, or several lines for a matrix. Larger arrays give their shape instead.
    """
    array = np.asarray(array)
    if array.size > VALUE_LIMIT:
        return "shape " + size_text(array.shape)
    # A dtype that printing shows by its values alone, so that no `dtype=` suffix is added.
    dtype_name = {"b": "bool", "i": "int64", "u": "int64"}.get(array.dtype.kind, "float32")
    text = printing.format_tensor(array, dtype_name=dtype_name, prefix=_PREFIX)
    body = text[len(_PREFIX):-1]  # drop `tensor(` and the closing parenthesis
    lines = body.split("\n")
    return "\n".join([lines[0]] + [line[len(_PREFIX):] for line in lines[1:]])


def number_text(array):
    """A compact value for arithmetic text: `2` for a one-element tensor, else `values_text`.

    Whole numbers lose the trailing dot that tensor printing gives them (`2.` becomes `2`),
    because `1 × 2 = 2` reads better than `1. × 2. = 2.`.
    """
    array = np.asarray(array)
    if array.size != 1:
        return values_text(array)
    text = values_text(array.reshape(()))
    return text[:-1] if text.endswith(".") else text


def one_line(text):
    """Multi-line values squeezed onto one line, for table cells."""
    return " ".join(part.strip() for part in text.split("\n"))


def plain_number(value):
    """A Python number from a node attribute (alpha, exponent): `1`, `0.5`, `-2`."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)
