"""How tensors turn into text: the rules behind ``repr(tensor)``.

tensorgrad prints tensors exactly as PyTorch does, so that the same code prints
the same text. The rules, in the order they are applied (tests/test_printing.py pins
each of them; tests/spec/test_s1_creation_flags_printing.py compares with torch):

1. **Which elements are shown.** A tensor with more than ``threshold`` (1000)
   elements is *summarised*: every dimension longer than ``2 * edgeitems``
   shows only its first and last ``edgeitems`` (3) entries, with ``...`` in
   between.

2. **One element format for the whole tensor.** For floats it is
   chosen from the *shown* elements that are finite and non-zero:

   * *integer mode* when all of them are whole numbers: ``2.``, ``-5.``;
   * *scientific mode* when ``max/min > 1000``, ``max > 1e8`` or
     ``min < 1e-4`` (tested on the stored value, so float32 ``1e-4`` counts as
     less than ``1e-4``): ``1.0000e-05``. This wins over integer mode;
   * otherwise *fixed mode*: ``4.5000``.

   Every element is right-aligned to the longest text among those counted
   elements. Integers and bools print ``str(value)``, right-aligned.

3. **Layout.** A vector is ``[a, b, c]``, wrapped after
   ``max(1, (linewidth - indent) // (width + 2))`` elements. Higher dimensions
   nest, one more space of indent per level, and put ``ndim - 1`` newlines
   between their rows (so 3-D blocks are separated by a blank line).

4. **Suffixes:** ``size=``, ``dtype=``, then ``grad_fn=<...>`` or
   ``requires_grad=True``, moved to their own line when they would not fit.

The module-level print options (precision, threshold, edgeitems, linewidth,
sci_mode) work like ``torch.set_printoptions``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["format_tensor", "set_printoptions", "get_printoptions"]


# ---------------------------------------------------------------------------
# Print options
# ---------------------------------------------------------------------------

# The same presets as torch.set_printoptions(profile=...).
_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}

_options = dict(_PROFILES["default"], sci_mode=None)


def set_printoptions(precision=None, threshold=None, edgeitems=None,
                     linewidth=None, profile=None, sci_mode=None):
    """Change how tensors are printed, like ``torch.set_printoptions``.

    precision: digits after the decimal point (default 4).
    threshold: more elements than this are summarised (default 1000).
    edgeitems: entries shown at each end of a summarised dimension (default 3).
    linewidth: characters per line used for wrapping (default 80).
    profile: 'default', 'short' or 'full' presets; the other arguments
        override it. (Like torch, an unknown name is silently ignored.)
    sci_mode: True or False forces scientific notation on or off; None lets
        the rules of the element format (rule 2 above) decide. Like torch, this argument is *always*
        applied, so any call without ``sci_mode=`` resets it to None.
    """
    if profile in _PROFILES:
        _options.update(_PROFILES[profile])
    given = dict(precision=precision, threshold=threshold,
                 edgeitems=edgeitems, linewidth=linewidth)
    _options.update({name: value for name, value in given.items()
                     if value is not None})
    _options["sci_mode"] = sci_mode


def get_printoptions() -> dict:
    """Return the current print options, as keyword arguments for set_printoptions."""
    return dict(_options)


# ---------------------------------------------------------------------------
# Element format (rule 2)
# ---------------------------------------------------------------------------

@dataclass
class _ElementFormat:
    """How to turn one element into text; shared by every element of a tensor.

    style is one of:
      "plain"       integers and bools: str(value)
      "integer"     whole-number floats: '2.', '-5.' (nan and inf get no dot)
      "fixed"       '{:.4f}' with the current precision
      "scientific"  '{:.4e}' with the current precision
    """
    style: str
    precision: int
    width: int = 1

    def text(self, value) -> str:
        """The element's text, before padding."""
        if self.style == "plain":
            return str(value)
        if self.style == "scientific":
            return f"{value:.{self.precision}e}"
        if self.style == "fixed":
            return f"{value:.{self.precision}f}"
        # integer mode
        dot = "." if math.isfinite(value) else ""
        return f"{value:.0f}" + dot

    def __call__(self, value) -> str:
        """The element's text, right-aligned to the common width."""
        return self.text(value).rjust(self.width)


def _choose_element_format(shown: np.ndarray) -> _ElementFormat:
    """Pick the style and width from the elements that will be shown (rule 2).

    Why only finite non-zero values count: zeros, nan and inf say nothing
    about the scale of the data, so they must not force scientific notation.
    """
    precision = _options["precision"]
    values = shown.reshape(-1)

    if values.dtype.kind != "f":
        # int64 and bool: str(value), padded to the longest one.
        element_format = _ElementFormat("plain", precision)
        counted = values.tolist()
    else:
        counted_array = values[np.isfinite(values) & (values != 0)]
        if counted_array.size == 0:
            # Nothing to measure: integer style with width 1, e.g. [0., nan].
            # (Even sci_mode=True is ignored here, as in torch.)
            return _ElementFormat("integer", precision)
        element_format = _ElementFormat(
            _float_style(counted_array), precision)
        counted = counted_array.tolist()

    element_format.width = max(
        (len(element_format.text(value)) for value in counted), default=1)
    return element_format


def _float_style(counted: np.ndarray) -> str:
    """'scientific', 'integer' or 'fixed' for these finite non-zero floats."""
    if _uses_scientific_notation(counted):
        return "scientific"
    if np.all(counted == np.ceil(counted)):
        return "integer"
    return "fixed"


def _uses_scientific_notation(counted: np.ndarray) -> bool:
    """The thresholds of scientific mode (rule 2), unless sci_mode forces an answer.

    The magnitudes are compared as float64 copies of the *stored* values, so
    float32 1e-4 (0.000099999997...) is below 1e-4 but float64 1e-4 is not.
    """
    if _options["sci_mode"] is not None:
        return bool(_options["sci_mode"])
    magnitudes = np.abs(counted).astype(np.float64)
    largest, smallest = magnitudes.max(), magnitudes.min()
    with np.errstate(over="ignore"):  # 1e300 / 1e-300 is inf: still "> 1000"
        ratio = largest / smallest
    return bool(ratio > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)


# ---------------------------------------------------------------------------
# Summarising (rule 1)
# ---------------------------------------------------------------------------

def _is_long(length: int) -> bool:
    """Does a dimension of this length get cut down to its edges?"""
    return length > 2 * _options["edgeitems"]


def _shown_elements(array: np.ndarray) -> np.ndarray:
    """The elements a summarised tensor actually shows, for choosing the format.

    Mirrors torch's ``get_summarized_data``, including its edgeitems=0 corner:
    a matrix then shows nothing, while a vector is measured in full (because
    ``v[-0:]`` is the whole vector).
    """
    edge = _options["edgeitems"]
    if array.ndim == 0:
        return array
    if array.ndim == 1:
        if _is_long(len(array)):
            return np.concatenate([array[:edge], array[-edge:]])
        return array
    if edge == 0:
        return array[:0]
    rows = _edge_indices(len(array)) if _is_long(len(array)) else range(len(array))
    return np.stack([_shown_elements(array[i]) for i in rows])


def _edge_indices(length: int) -> list[int]:
    """Indices of the first and last ``edgeitems`` rows."""
    edge = _options["edgeitems"]
    return [*range(edge), *range(length - edge, length)]


# ---------------------------------------------------------------------------
# Layout (rule 3)
# ---------------------------------------------------------------------------

def _format_body(array: np.ndarray, indent: int, summarize: bool,
                 element_format: _ElementFormat) -> str:
    """The text between the prefix and the suffixes, one dimension at a time.

    ``indent`` is the column where this sub-tensor's ``[`` is written.
    """
    if array.ndim == 0:
        return element_format(array.item())
    if array.ndim == 1:
        return _format_vector(array, indent, summarize, element_format)

    def format_row(index):
        return _format_body(array[index], indent + 1, summarize, element_format)

    if summarize and _is_long(len(array)):
        edge = _options["edgeitems"]
        rows = ([format_row(i) for i in range(edge)]
                + ["..."]
                + [format_row(i) for i in range(len(array) - edge, len(array))])
    else:
        rows = [format_row(i) for i in range(len(array))]

    # ndim - 1 newlines: one for a matrix, a blank line between 3-D blocks.
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def _format_vector(vector: np.ndarray, indent: int, summarize: bool,
                   element_format: _ElementFormat) -> str:
    """``[a, b, c]``, wrapped so each line holds a fixed number of elements."""
    edge = _options["edgeitems"]
    if summarize and edge == 0:
        elements = ["..."]
    elif summarize and _is_long(len(vector)):
        # " ..." becomes ",  ..., " once joined, as in torch.
        elements = ([element_format(v) for v in vector[:edge].tolist()]
                    + [" ..."]
                    + [element_format(v) for v in vector[-edge:].tolist()])
    else:
        elements = [element_format(v) for v in vector.tolist()]

    per_line = _elements_per_line(indent, element_format.width)
    lines = [", ".join(elements[start:start + per_line])
             for start in range(0, len(elements), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _elements_per_line(indent: int, width: int) -> int:
    """max(1, floor((linewidth - indent) / (width + 2))); +2 is for ", "."""
    return max(1, math.floor((_options["linewidth"] - indent) / (width + 2)))


# ---------------------------------------------------------------------------
# Suffixes (rule 4)
# ---------------------------------------------------------------------------

# Dtypes that are never named for a non-empty tensor, besides the default floating one: the
# value text already tells them apart (``1.`` is the default dtype, ``1`` int64, ``True`` bool).
_DTYPES_SHOWN_BY_THEIR_VALUES = ("int64", "bool")


def _suffixes(array: np.ndarray, dtype_name: str, grad_fn_name: str | None,
              requires_grad: bool, tangent=None, default_dtype_name="float32") -> list[str]:
    """The ``key=value`` parts written after the body, in torch's order."""
    suffixes = []
    if array.size == 0:
        # An empty tensor has no elements to show its shape or dtype.
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        if dtype_name != default_dtype_name:
            suffixes.append(f"dtype=tensorgrad.{dtype_name}")
    else:
        if _options["edgeitems"] == 0:
            # Nothing but "..." may be shown, so torch always adds the shape.
            suffixes.append(f"size={tuple(array.shape)}")
        if dtype_name != default_dtype_name and dtype_name not in _DTYPES_SHOWN_BY_THEIR_VALUES:
            suffixes.append(f"dtype=tensorgrad.{dtype_name}")

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        # torch prints a 0-d tangent as a Python float, any other as a tensor
        value = repr(tangent.item()) if tangent.ndim == 0 else repr(tangent)
        suffixes.append(f"tangent={value}")
    return suffixes


def _attach_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append each suffix on the current line, or on a new one if too long.

    torch measures the last line as 2 characters longer than it is
    (``n = K + 2``), so suffixes wrap a little earlier than they
    need to. We copy that, to print the same text.
    """
    last_line_length = len(text) - text.rfind("\n") + 1  # K + 2
    parts = [text]
    for suffix in suffixes:
        length = _length_as_torch_spells_it(suffix)
        if last_line_length + length + 2 > _options["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            last_line_length = indent + length
        else:
            parts.append(", " + suffix)
            last_line_length += length + 2
    parts.append(")")
    return "".join(parts)


def _length_as_torch_spells_it(suffix: str) -> int:
    """The suffix's length with ``torch.`` in place of ``tensorgrad.``.

    ``dtype=tensorgrad.float64`` is 5 characters longer than torch's
    ``dtype=torch.float64``. Measuring it as torch does keeps every line
    break where torch puts it, so the two outputs differ only in that name
    (at the cost of a line that can be up to 5 characters past linewidth).
    """
    return len(suffix.replace("tensorgrad.", "torch."))


# ---------------------------------------------------------------------------
# Putting it together
# ---------------------------------------------------------------------------

def format_tensor(array: np.ndarray, *, dtype_name: str,
                  grad_fn_name: str | None = None, requires_grad: bool = False,
                  prefix: str = "tensor(", tangent=None, default_dtype_name="float32") -> str:
    """The repr of a tensor whose data is ``array``, exactly as torch prints it.

    dtype_name: short dtype name, e.g. "float32"; shown as
        ``dtype=tensorgrad.float64`` when torch would show ``torch.float64``.
    grad_fn_name: the node's type name, shown as ``grad_fn=<Name>``.
    requires_grad: shows ``requires_grad=True`` (only when there is no grad_fn).
    prefix: the opening text; its length is the indent of continuation lines.
    tangent: in forward-mode AD, the tensor's tangent, shown as ``tangent=...``.
    default_dtype_name: get_default_dtype()'s name: that floating dtype is not named (after
        ``set_default_dtype(float64)``, float32 tensors say ``dtype=tensorgrad.float32``).
    """
    array = np.asarray(array)
    indent = len(prefix)
    suffixes = _suffixes(array, dtype_name, grad_fn_name, requires_grad, tangent,
                         default_dtype_name)

    if array.size == 0:
        body = "[]"
    else:
        summarize = array.size > _options["threshold"]
        shown = _shown_elements(array) if summarize else array
        element_format = _choose_element_format(shown)
        body = _format_body(array, indent, summarize, element_format)

    return _attach_suffixes(prefix + body, suffixes, indent)
