"""Values as JSON records, and the one comparison that both the self-check and the grader use.

A test cell hands the grader a student's value with ``t.submit("w_grad", w.grad)``
(:mod:`.checks`). The value cannot travel as a Python object: the student's
kernel is another process, and nothing it sends may be trusted to *judge*
itself. So the kernel sends a plain description of the value, a **record**
(:func:`encode`), and the grader compares records in its own process
(:func:`compare`). The same :func:`compare` runs inside the student's kernel for
the self-check, so a student sees exactly the message the grader would write.

A record is a small JSON object whose ``type`` is one of

=========  ==============================================================
``none``   ``None``
``bool``   ``True`` / ``False`` (NumPy booleans too)
``int``    a Python or NumPy integer (``data``)
``float``  a real number (``data``; ``"nan"``, ``"inf"``, ``"-inf"`` as strings)
``complex`` ``data`` is ``[real, imag]``
``str``    ``data``
``tensor`` anything with ``.shape`` and ``.tolist()``: tensorgrad, PyTorch...;
           ``shape``, ``dtype``, flat ``data``, ``requires_grad``, ``is_leaf``,
           ``grad_fn`` (the node's class name) and ``class``
``ndarray`` a NumPy array: ``shape``, ``dtype``, flat ``data``
``list`` / ``tuple``  ``items``, each a record
``dict``   ``items``: ``[[key, record], ...]`` in insertion order
``object`` anything else: ``class`` and ``repr`` only
``too_large`` a tensor or array with more than :data:`MAX_ELEMENTS` elements
=========  ==============================================================

and every record carries ``repr``: the value's ``repr()`` (shortened), which is
what messages show, so a student reads the same text as in their own cell.

This module imports NumPy lazily and nothing of tensorgrad: values are read by
duck typing, so it works for tensorgrad, NumPy and PyTorch alike.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .texts import forgot_return, say

#: The MIME type of grader records in a cell's display_data output.
MIME = "application/vnd.tensorgrad.grade+json"
#: Version of the record format (part of the expected-values cache key).
RECORD_VERSION = 1

MAX_ELEMENTS = 100_000  # elements of one tensor or array
MAX_ITEMS = 1_000  # items of one list, tuple or dict
MAX_DEPTH = 8  # nesting of lists, tuples and dicts
MAX_STR = 10_000  # characters of a string value
MAX_REPR = 300  # characters of the repr shown in messages

DEFAULT_ATOL = 1e-6
DEFAULT_RTOL = 1e-5

_NUMERIC = ("int", "float", "complex", "tensor", "ndarray")
_ARRAYS = ("tensor", "ndarray")


def short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - a broken __repr__ must not stop a test
        text = f"<{type(value).__name__} whose repr() raised {type(exc).__name__}>"
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


# ----------------------------------------------------------------- encoding


def _number(x: Any) -> Any:
    """A JSON-safe element: bools and ints as they are, floats with nan/inf as strings."""
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, complex):
        return [_number(x.real), _number(x.imag)]
    x = float(x)
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def _is_tensor_like(value: Any) -> bool:
    return hasattr(value, "shape") and (callable(getattr(value, "tolist", None)) or callable(getattr(value, "numpy", None)))


def _array_of(value: Any):
    import numpy as np

    if isinstance(value, np.ndarray):
        return value
    for method in ("tolist", "numpy"):
        fn = getattr(value, method, None)
        if callable(fn):
            try:
                return np.asarray(fn())
            except Exception:  # noqa: BLE001 - e.g. torch's numpy() on a tensor that requires grad
                continue
    return np.asarray(value)


def _array_record(value: Any, kind: str) -> dict:
    import numpy as np

    shape = getattr(value, "shape", None)
    try:
        shape = [int(n) for n in shape]
    except TypeError:
        shape = None
    record: dict[str, Any] = {"type": kind, "repr": short_repr(value)}
    if kind == "tensor":
        grad_fn = getattr(value, "grad_fn", None)
        record.update(
            {
                "class": type(value).__name__,
                "requires_grad": _flag(getattr(value, "requires_grad", None)),
                "is_leaf": _flag(getattr(value, "is_leaf", None)),
                "grad_fn": None if grad_fn is None else type(grad_fn).__name__,
            }
        )
    record["dtype"] = str(getattr(value, "dtype", ""))
    size = math.prod(shape) if shape is not None else None
    if size is not None and size > MAX_ELEMENTS:
        record.update(type="too_large", shape=shape, kind=kind)
        return record
    arr = _array_of(value)
    if shape is None:
        shape = list(arr.shape)
    record["shape"] = shape
    if arr.size > MAX_ELEMENTS:
        record.update(type="too_large", kind=kind)
        return record
    if arr.dtype.kind not in "biufc":
        record["data"] = [short_repr(x) for x in arr.ravel().tolist()]
        record["numeric"] = False
        return record
    flat = arr.ravel()
    if flat.dtype.kind == "c":
        record["data"] = [[_number(float(z.real)), _number(float(z.imag))] for z in flat.tolist()]
    elif flat.dtype.kind == "f":
        if bool(np.isfinite(flat).all()):
            record["data"] = flat.astype(float).tolist()
        else:
            record["data"] = [_number(x) for x in flat.astype(float).tolist()]
    else:
        record["data"] = flat.tolist()
    record["numeric"] = True
    record["element"] = {"b": "bool", "c": "complex", "f": "float"}.get(flat.dtype.kind, "int")
    return record


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def encode(value: Any, _depth: int = 0) -> dict:
    """The record of ``value`` (see the module docstring). Never raises."""
    try:
        return _encode(value, _depth)
    except Exception as exc:  # noqa: BLE001 - a strange object must not stop a test
        return {"type": "object", "class": type(value).__name__, "repr": short_repr(value),
                "error": f"{type(exc).__name__}: {exc}"[:MAX_REPR]}


def _odd_number(value: Any) -> dict:
    """A number of a class of its own (a subclass of int or float, a class registered as
    ``numbers.Real``): recorded as the plain number it converts to, its own text left out, and
    marked ``subclass`` for the grader to report. Its ``__float__`` ran here, in the kernel, while
    a check was encoding it, so it could read the check's frame (an expected value computed there)."""
    kind, plain = (("int", int(value)) if isinstance(value, numbers.Integral) else
                   ("float", _number(float(value))) if isinstance(value, numbers.Real) else
                   ("complex", _number(complex(value))))
    return {"type": kind, "data": plain, "repr": short_repr(plain), "subclass": type(value).__name__[:80]}


def _encode(value: Any, depth: int) -> dict:
    import numpy as np

    if value is None:
        return {"type": "none", "repr": "None"}
    if isinstance(value, (bool, np.bool_)):
        return {"type": "bool", "data": bool(value), "repr": repr(bool(value))}
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, np.ndarray):
        value = value.item()  # a NumPy scalar: encode the Python number
        if isinstance(value, bool):
            return {"type": "bool", "data": value, "repr": repr(value)}
    if isinstance(value, numbers.Number) and type(value) not in (int, float, complex):
        return _odd_number(value)
    if isinstance(value, numbers.Integral):
        return {"type": "int", "data": int(value), "repr": short_repr(value)}
    if isinstance(value, numbers.Real):
        return {"type": "float", "data": _number(float(value)), "repr": short_repr(value)}
    if isinstance(value, numbers.Complex):
        return {"type": "complex", "data": _number(complex(value)), "repr": short_repr(value)}
    if isinstance(value, str):
        return {"type": "str", "data": value[:MAX_STR], "repr": short_repr(value)}
    if isinstance(value, np.ndarray):
        return _array_record(value, "ndarray")
    if _is_tensor_like(value):
        return _array_record(value, "tensor")
    if isinstance(value, (list, tuple)) and depth < MAX_DEPTH:
        items = [encode(v, depth + 1) for v in list(value)[:MAX_ITEMS]]
        record = {"type": "tuple" if isinstance(value, tuple) else "list", "items": items, "repr": short_repr(value)}
        if len(value) > MAX_ITEMS:
            record["truncated"] = len(value)
        return record
    if isinstance(value, dict) and depth < MAX_DEPTH:
        items = [[k if isinstance(k, str) else short_repr(k), encode(v, depth + 1)]
                 for k, v in list(value.items())[:MAX_ITEMS]]
        return {"type": "dict", "items": items, "repr": short_repr(value)}
    return {"type": "object", "class": type(value).__name__, "repr": short_repr(value)}


# ------------------------------------------------------------ checking records

#: Types a record may have (see the module docstring).
RECORD_TYPES = ("none", "bool", "int", "float", "complex", "str", "tensor", "ndarray", "list", "tuple", "dict",
                "object", "too_large")
MAX_RECORD_NODES = 20_000  # records (values, items) in one submitted value
MAX_DIMS = 32  # dimensions of one array's shape
_REPR_LIMIT = 4 * MAX_REPR  # (encode cuts at MAX_REPR; a little slack for other writers)
_FLOAT_WORDS = ("nan", "inf", "-inf")


def _is_real(x: Any) -> bool:
    return (type(x) in (int, float) and not isinstance(x, bool)) or x in _FLOAT_WORDS


def _is_element(x: Any, element: str) -> bool:
    if element == "complex":
        return type(x) is list and len(x) == 2 and all(_is_real(v) for v in x)
    if element == "bool":
        return type(x) is bool
    if element == "int":
        return type(x) is int or type(x) is bool
    return _is_real(x)


def record_problem(record: Any) -> str:
    """'' if ``record`` is a value record as :func:`encode` writes it, else what is wrong with it.

    The grader's check of a value that came from a student's kernel, before any
    comparison: it walks the record without recursion, with limits on depth and
    size, and checks every field's type, and that an array's ``data`` holds as many
    elements as its ``shape`` says (a tensor-like whose ``.shape`` and ``.tolist()``
    disagree). It reads plain JSON data only, never an object of the student's.
    """
    stack = [(record, 0)]
    nodes = 0
    while stack:
        rec, depth = stack.pop()
        nodes += 1
        if nodes > MAX_RECORD_NODES:
            return f"more than {MAX_RECORD_NODES} nested values"
        if depth > MAX_DEPTH + 1:
            return f"nested more than {MAX_DEPTH} levels deep"
        if type(rec) is not dict:
            return "not a value record"
        kind = rec.get("type")
        if kind not in RECORD_TYPES:
            return "a value of an unknown type"
        text = rec.get("repr", "")
        if type(text) is not str or len(text) > _REPR_LIMIT:
            return "a value whose text is not short text"
        data = rec.get("data")
        if kind == "bool" and type(data) is not bool:
            return "a bool without a bool"
        if kind == "int" and type(data) is not int:
            return "an int without an integer"
        if kind == "float" and not _is_real(data):
            return "a float without a number"
        if kind == "complex" and not _is_element(data, "complex"):
            return "a complex number without two parts"
        if kind == "str" and (type(data) is not str or len(data) > MAX_STR):
            return "a string value that is not a bounded string"
        if kind in ("object", "tensor") and type(rec.get("class", "")) is not str:
            return "a value whose class is not a name"
        if kind in _ARRAYS or kind == "too_large":
            shape = rec.get("shape", [] if kind == "too_large" else None)
            if (type(shape) is not list or len(shape) > MAX_DIMS
                    or not all(type(n) is int and n >= 0 for n in shape)):
                return "an array whose shape is not a list of sizes"
            if type(rec.get("dtype", "")) is not str:
                return "an array whose dtype is not text"
        if kind in _ARRAYS:
            size = math.prod(shape)
            if type(data) is not list or size > MAX_ELEMENTS:
                return "an array without its elements"
            if len(data) != size:
                return (f"an array whose shape {tuple(shape)} holds {size} element(s) but whose data has {len(data)} "
                        "(its .shape and its elements disagree)")
            numeric = rec.get("numeric", True)
            element = rec.get("element", "float")
            if numeric is False:
                if not all(type(x) is str and len(x) <= _REPR_LIMIT for x in data):
                    return "an array of objects whose elements are not text"
            elif numeric is not True or element not in ("bool", "int", "float", "complex"):
                return "an array of an unknown element type"
            elif not all(_is_element(x, element) for x in data):
                return "an array whose elements are not numbers"
        if kind in ("list", "tuple"):
            items = rec.get("items")
            if type(items) is not list or len(items) > MAX_ITEMS:
                return "a list without its items"
            if rec.get("truncated") is not None and type(rec.get("truncated")) is not int:
                return "a list with a strange length"
            stack.extend((item, depth + 1) for item in items)
        if kind == "dict":
            items = rec.get("items")
            if type(items) is not list or len(items) > MAX_ITEMS:
                return "a dict without its items"
            for pair in items:
                if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str or len(pair[0]) > _REPR_LIMIT:
                    return "a dict whose items are not (key, value) pairs"
                stack.append((pair[1], depth + 1))
    return ""


# --------------------------------------------------------------- comparing


_KIND_NAMED = ("none", "bool", "int", "float", "complex", "str", "tensor", "ndarray", "list", "tuple", "dict",
               "too_large")


def _kind_name(record: dict) -> str:
    kind = record.get("type")
    if kind in _KIND_NAMED:
        return say(f"kind.{kind}")
    return say("kind.object", cls=record.get("class", "value"))


def _of_shape(record: dict) -> str:
    """E.g. "a tensor of shape (2,)"."""
    return say("kind.of_shape", kind=_kind_name(record), shape=tuple(record.get("shape", ())))


def _want(record: dict, reveal: bool) -> str:
    """How to describe the expected value: itself when revealed, else its kind and shape."""
    kind = record.get("type")
    if reveal:
        return record.get("repr", "?")
    if kind == "bool":
        return say("kind.true_or_false")
    if kind in _ARRAYS:
        return _of_shape(record)
    return _kind_name(record)


def _elements(record: dict):
    """A record's numbers as a float or complex NumPy array shaped like the value."""
    import numpy as np

    kind = record["type"]
    if kind in ("int", "float", "bool"):
        data, shape = [record["data"]], ()
    elif kind == "complex":
        data, shape = [record["data"]], ()
    else:
        data, shape = record["data"], tuple(record["shape"])

    def convert(x):
        if isinstance(x, list):
            return complex(convert(x[0]), convert(x[1]))
        if isinstance(x, str):
            return float(x)  # "nan", "inf", "-inf"
        return x

    values = [convert(x) for x in data]
    dtype = np.complex128 if any(isinstance(v, complex) for v in values) else np.float64
    return np.array(values, dtype=dtype).reshape(shape)


def _largest_difference(actual, expected) -> str:
    import numpy as np

    diff = np.abs(actual - expected)
    diff = np.where(np.isnan(diff), np.inf, diff)
    if diff.ndim == 0:
        return say("details.difference", diff=float(diff))
    index = np.unravel_index(int(np.argmax(diff)), diff.shape)
    return say("details.largest_at", diff=float(diff[index]), index=tuple(int(i) for i in index))


def _shape_of(record: dict) -> tuple:
    return tuple(record.get("shape", ())) if record["type"] in _ARRAYS else ()


def share_of_points(points: float, weight: float, total_weight: float) -> float:
    """What ``weight`` of a task's ``total_weight`` earns of its ``points`` (to 6 decimals).

    Named tests share their task's points by weight: the grader scores with it, and under
    nbgrader a check cell's ``t.done()`` returns it, so both paths give the same points.
    """
    return round(points * weight / total_weight, 6) if total_weight else 0.0


def compare(
    expected: dict,
    actual: dict,
    *,
    name: str,
    atol: float = DEFAULT_ATOL,
    rtol: float = DEFAULT_RTOL,
    dtype: bool = False,
    requires_grad: bool = False,
    reveal: bool = True,
) -> str | None:
    """``None`` if ``actual`` matches ``expected``, else a message for the student.

    Numbers and arrays are compared with ``allclose(atol, rtol)`` after their
    shapes; bools, ints and strings exactly; lists, tuples and dicts item by
    item. ``dtype=True`` also compares dtypes, ``requires_grad=True`` the
    tensors' ``requires_grad`` flags. With ``reveal=False`` (hidden tests) the
    message shows neither the expected value nor the difference from it, nor
    the submitted value's text (which the student's code chose): only whether
    it has the expected kind and shape.
    """
    message = _compare(expected, actual, name, atol, rtol, dtype, requires_grad, True)
    if message is None or reveal:
        return message
    akind, ekind = actual.get("type"), expected.get("type")
    if "none" in (akind, ekind):
        # Whether the value is None is often the answer itself (does x.grad hold a tensor?).
        return say("not_expected", name=name)
    numbers = ("int", "float", "bool")
    same_kind = akind == ekind or (akind in numbers and ekind in numbers)
    if akind == "too_large" or not same_kind or _shape_of(actual) != _shape_of(expected):
        return say("expected", yours=say("yours", name=name, value=_want(actual, False)), want=_want(expected, False))
    return say("not_expected", name=name)


def _compare(exp, act, name, atol, rtol, check_dtype, check_rg, reveal) -> str | None:
    import numpy as np

    ekind, akind = exp.get("type"), act.get("type")
    yours = say("yours", name=name, value=act.get("repr", "?"))

    def wrong(want: str) -> str:
        """Not the expected value: say which one was, unless it is hidden."""
        return say("expected", yours=yours, want=want) if reveal else say("not_right", yours=yours)

    def wrong_kind(want: str) -> str:
        return say("wrong_kind", yours=yours, kind=_kind_name(act), want=want)

    if akind == "too_large":
        return say("too_large", name=name, shape=tuple(act.get("shape", ())))
    if ekind == "too_large":
        return say("too_large.expected", name=name)

    if ekind == "none":
        return None if akind == "none" else say("expected", yours=yours, want="None")
    if akind == "none" and ekind != "none":
        hint = forgot_return(name) if ekind in _NUMERIC else ""
        return say("expected", yours=yours, want=_want(exp, reveal)) + hint

    if ekind == "bool":
        if akind != "bool":
            return wrong_kind(say("kind.true_or_false_bool"))
        if act["data"] != exp["data"]:
            return wrong(exp["repr"])
        return None

    if ekind == "str":
        if akind != "str":
            return wrong_kind(say("kind.str"))
        if act["data"].strip() != exp["data"].strip():
            return wrong(exp["repr"])
        return None

    if ekind in ("list", "tuple"):
        if akind not in ("list", "tuple"):
            return wrong_kind(say("kind.of_length", kind=_kind_name(exp), length=len(exp["items"])))
        if len(act["items"]) != len(exp["items"]) or act.get("truncated") != exp.get("truncated"):
            n_act = act.get("truncated", len(act["items"]))
            n_exp = exp.get("truncated", len(exp["items"]))
            return say("length_differs", yours=yours, length=n_act,
                       want=say("kind.of_length", kind=_kind_name(exp), length=n_exp))
        for i, (e, a) in enumerate(zip(exp["items"], act["items"])):
            message = _compare(e, a, f"{name}[{i}]", atol, rtol, check_dtype, check_rg, reveal)
            if message:
                return message
        return None

    if ekind == "dict":
        if akind != "dict":
            return wrong_kind(say("kind.dict"))
        ekeys, akeys = [k for k, _ in exp["items"]], [k for k, _ in act["items"]]
        missing = [k for k in ekeys if k not in akeys]
        extra = [k for k in akeys if k not in ekeys]
        if missing:
            return say("key_missing", yours=yours, key=missing[0])
        if extra:
            return say("key_extra", yours=yours, key=extra[0])
        avalues = dict(act["items"])
        for key, e in exp["items"]:
            message = _compare(e, avalues[key], f"{name}[{key!r}]", atol, rtol, check_dtype, check_rg, reveal)
            if message:
                return message
        return None

    if ekind in _NUMERIC:
        if akind not in _NUMERIC or (akind in _ARRAYS and act.get("numeric") is False):
            return wrong_kind(_of_shape(exp) if ekind in _ARRAYS else say("kind.number"))
        if ekind in _ARRAYS and akind not in _ARRAYS and exp.get("shape"):
            return wrong_kind(_of_shape(exp))
        eshape, ashape = _shape_of(exp), _shape_of(act)
        if eshape != ashape:
            return say("shape_differs", yours=yours, expected=eshape, actual=ashape)
        if check_dtype and ekind in _ARRAYS and act.get("dtype") != exp.get("dtype"):
            return say("dtype_differs", yours=yours, expected=exp.get("dtype"), actual=act.get("dtype"))
        if check_rg and ekind == "tensor" and act.get("requires_grad") != exp.get("requires_grad"):
            return say("requires_grad_differs", name=name, actual=act.get("requires_grad"),
                       expected=exp.get("requires_grad"))
        if ekind == "int" and akind == "int":
            return wrong(exp["repr"]) if exp["data"] != act["data"] else None
        want, got = _elements(exp), _elements(act)
        if np.allclose(got, want, atol=atol, rtol=rtol, equal_nan=True):
            return None
        shown = say("expected.value", value=exp["repr"]) if reveal else say("expected.hidden")
        details = [_largest_difference(got, want)]
        if np.isnan(got).any() and not np.isnan(want).any():
            details.append(say("details.nan"))
        separator = say("details.separator")
        if ekind in _ARRAYS:
            return say("value_differs", yours=yours, shape=eshape,
                       details=shown + say("in_parentheses", text=separator.join(details)))
        details.append(say("details.tolerance", atol=atol, rtol=rtol))
        return say("number_differs", yours=yours, shown=shown, details=separator.join(details))

    # ``object``: compared by repr, the only thing known about it.
    if akind != ekind or act.get("repr") != exp.get("repr"):
        return wrong(exp.get("repr"))
    return None


KINDS = {
    "none": ("none",),
    "bool": ("bool",),
    "int": ("int",),
    "number": ("int", "float"),
    "str": ("str",),
    "tensor": ("tensor",),
    "list": ("list", "tuple"),
    "tuple": ("tuple",),
    "dict": ("dict",),
}


def parse_kind(kind: str) -> list[str]:
    """``"str|none"`` -> ``["str", "none"]``; raises ValueError for an unknown kind."""
    kinds = [k.strip() for k in str(kind).split("|")]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"kind must be one of {', '.join(KINDS)} (or several joined by '|'), not {kind!r}")
    return kinds


def check_kind(record: dict, kind: str, *, name: str) -> str | None:
    """``None`` if the record is of ``kind`` (keys of :data:`KINDS` joined by ``|``), else a message."""
    kinds = parse_kind(kind)
    if any(record.get("type") in KINDS[k] for k in kinds):
        return None

    wanted = say(f"kind.{kinds[0]}")
    for k in kinds[1:]:
        wanted = say("either", one=wanted, other=say(f"kind.{k}"))
    return say("wrong_kind", yours=say("yours", name=name, value=record.get("repr", "?")),
               kind=_kind_name(record), want=wanted)


# ----------------------------------------------------- self-study fingerprints
# A prediction's check cannot show its expected value (that would give the answer away). For
# self-study, the build writes instead a *fingerprint* of the solution's answer: a salted SHA-256
# of a canonical form of the value (numbers to 6 significant digits, so 6 and 6.0 agree). The salt
# is the task and the value's name, so that equal answers in one check cell get unrelated
# fingerprints (with the task alone, `x_is_leaf` and `x_requires_grad` shared one: knowing one
# answer gave away every value with the same hash). Both are the same in every edition of a set;
# a test's name is not (it is translated). The self-check fingerprints the learner's value the
# same way and says right or wrong. This is
# feedback, not secrecy: the answer of a small answer space (True/False, a small count) can be
# found by trying, with the self-check or with the hash; the graded run still compares the real
# value in the grader's own process, and a graded edition is built without fingerprints.


def _canonical(value: Any):
    """A canonical, JSON-able form of a plain answer, or raise TypeError."""
    if value is None or isinstance(value, (bool, str)):
        return value.strip() if isinstance(value, str) else value
    if isinstance(value, (int, float)):
        return format(float(value), ".6g")
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    raise TypeError(f"no fingerprint for a {type(value).__name__}")


def fingerprint(task: str, name: str, value: Any) -> str | None:
    """The fingerprint of a plain answer (None, bool, number, str, lists of them), salted with the
    task (``"chain_rule.task2"``) and the name the value is submitted under (``"x_is_leaf"``), or
    None for any other value (a tensor, an object): those get no self-study feedback."""
    import hashlib
    import json

    try:
        canonical = _canonical(value)
    except TypeError:
        return None
    text = json.dumps([task, name, canonical], sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
