"""The four dtypes tensorgrad knows, and PyTorch's rules for combining them.

A tensorgrad dtype is a thin name on top of a NumPy dtype. The names print as
`tensorgrad.float32` where PyTorch prints `torch.float32`.

Type promotion follows PyTorch, not NumPy. The difference a learner meets first:
`float32_tensor * 2.5` stays float32 in PyTorch (a Python number never widens a
tensor), while NumPy 1.x would have picked float64.
"""

import builtins  # this module defines `float` and `bool` dtypes, so the built-ins go by builtins.*

import numpy as np


class dtype:
    """A tensor element type: `tensorgrad.float32`, `float64`, `int64` or `bool`."""

    __slots__ = ("name", "numpy", "is_floating_point", "_category", "_legacy_name", "scalar_name")

    def __init__(self, name, numpy_dtype, category, legacy_name):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self._category = category  # 0 bool, 1 integer, 2 floating point
        self.is_floating_point = category == 2
        self._legacy_name = legacy_name  # as in "tensorgrad.FloatTensor"
        self.scalar_name = legacy_name[:-len("Tensor")]  # PyTorch's name in messages: "Float"

    def __repr__(self):
        return f"tensorgrad.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


float32 = dtype("float32", np.float32, 2, "FloatTensor")
float64 = dtype("float64", np.float64, 2, "DoubleTensor")
int64 = dtype("int64", np.int64, 1, "LongTensor")
bool_ = dtype("bool", np.bool_, 0, "BoolTensor")

float = float32  # noqa: A001  (torch.float is float32)
double = float64
long = int64

_ALL = (float32, float64, int64, bool_)
_BY_NUMPY = {d.numpy: d for d in _ALL}
NUMPY_DTYPES = frozenset(_BY_NUMPY)  # the NumPy dtypes of tensorgrad's four


def _dtype_by_name(name):
    return {d.name: d for d in _ALL}[name]


def from_numpy_dtype(np_dtype):
    """The tensorgrad dtype that holds a NumPy dtype's values: other integer widths in int64
    (an array met as an operand, an index, data cast to a dtype asked for)."""
    found = _BY_NUMPY.get(np_dtype)
    if found is not None:
        return found
    np_dtype = np.dtype(np_dtype)
    found = _BY_NUMPY.get(np_dtype)
    if found is not None:
        return found
    if np_dtype.kind in "iu":
        return int64
    raise not_ours(np_dtype)


def of_new_tensor(np_dtype):
    """The dtype of a tensor made of NumPy data with no dtype asked for (`tensor(array)`,
    `from_numpy`): the data's own, which PyTorch keeps (int8, uint8, int16, int32, uint16,
    uint32, uint64, float16, complex). tensorgrad has only four, so another is refused, as a
    dtype it has not, rather than widened: an int8 tensor widened to int64 would then index
    (`x[tensor([np.int8(-1)])]`) or be a target where PyTorch refuses its int8 tensor, and a
    uint8 index, a mask to PyTorch, would pick rows instead."""
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        raise not_ours(np.dtype(np_dtype))
    return found


def not_ours(np_dtype):
    """The TypeError for a NumPy dtype that tensorgrad has not, with the conversion to ask for."""
    advice = "int64" if np_dtype.kind in "iu" else "float32"
    return TypeError(
        f"tensorgrad supports the dtypes float32, float64, int64 and bool, not NumPy's {np_dtype}. "
        f"Convert the array first, for example with array.astype(np.{advice})."
    )


def check_dtype(value):
    """Turn a dtype argument into a tensorgrad dtype, with a clear error otherwise."""
    if isinstance(value, dtype):
        return value
    if value is None:
        return None
    if value is builtins.float:
        return float64
    if value is builtins.int:
        return int64
    if value is builtins.bool:
        return bool_
    try:
        return from_numpy_dtype(value)
    except TypeError:
        raise TypeError(
            f"dtype must be one of tensorgrad.float32, float64, int64 or bool, not {value!r}"
        ) from None


_default_float = float32


def get_default_dtype():
    return _default_float


def set_default_dtype(d):
    """Choose float32 or float64 for new floating-point tensors, as torch.set_default_dtype."""
    global _default_float
    if d not in (float32, float64):  # (what is not a dtype at all is "invalid" first)
        raise TypeError(("" if isinstance(d, dtype) else "invalid dtype object: ")
                        + "only floating-point types are supported as the default type")
    _default_float = d


_NUMBERS = (builtins.bool, builtins.int, builtins.float, np.number, np.bool_)


def _category_of_scalar(value):
    """bool, integer or floating point. A NumPy bool is not a Python bool: PyTorch's Scalar holds
    it as a double (`int_tensor + np.bool_(True)` is float32, as in PyTorch)."""
    if type(value) is builtins.bool:
        return 0
    if isinstance(value, (builtins.int, np.integer)):
        return 1
    return 2


def result_type(*operands):
    """The dtype PyTorch gives an operation on these operands (tensors and Python numbers).

    PyTorch ranks operands in three tiers: tensors with at least one dimension, 0-d tensors,
    then Python numbers. The result's *category* (bool < integer < floating point) is the highest
    of all operands. Within that category the dtype comes from the highest tier that reaches the
    category: so `float32_vector * float64_scalar_tensor` is float32, and
    `int64_tensor * 2.5` is the default float dtype.
    """
    tiers = ([], [], [])  # dimensioned tensors, 0-d tensors, Python numbers: (category, dtype)
    for op in operands:
        if isinstance(op, _NUMBERS):
            cat = _category_of_scalar(op)
            tiers[2].append((cat, (bool_, int64, _default_float)[cat]))
        else:  # a Tensor (this module sits below tensor.py, so it does not name the class)
            d = op.dtype
            tiers[0 if op._data.ndim else 1].append((d._category, d))
    top_category = max(cat for tier in tiers for cat, _ in tier)
    for tier in tiers:
        candidates = [d for cat, d in tier if cat == top_category]
        if candidates:
            return max(candidates, key=lambda d: d.numpy.itemsize)
    raise AssertionError("unreachable: at least one operand")
