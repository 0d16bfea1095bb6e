"""Result dtypes of binary operations: PyTorch's promotion rules, cell by cell.

The fast path in ops/elementwise.py (binary_data) trusts NumPy's dtype in the common cases and
checks everything else against dtypes.result_type. This grid (measured with torch 2.13.0) pins
down every combination of a float32/float64/int64/bool tensor, a 0-d float64/int64 tensor and a
Python int/float, for + - * / and **. "err" means PyTorch raises (subtracting bools).
"""

import itertools
import operator

import pytest

from parity import lib  # noqa: F401  (a fixture)

OPERANDS = {
    "f32": lambda L: L.tensor([1.0, 2.0]),
    "f64": lambda L: L.tensor([1.0, 2.0], dtype=L.float64),
    "i64": lambda L: L.tensor([1, 2]),
    "bool": lambda L: L.tensor([True, False]),
    "f64_0d": lambda L: L.tensor(2.0, dtype=L.float64),
    "i64_0d": lambda L: L.tensor(2),
    "int": lambda L: 2,
    "float": lambda L: 0.5,
}
OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
       "pow": operator.pow}
SHORT = {"float32": "f32", "float64": "f64", "int64": "i64", "bool": "bool"}

EXPECTED = {
    # add: rows are the left operand, columns the right one, in OPERANDS order
    ("add", "f32"): "f32 f64 f32 f32 f32 f32 f32 f32",
    ("add", "f64"): "f64 f64 f64 f64 f64 f64 f64 f64",
    ("add", "i64"): "f32 f64 i64 i64 f64 i64 i64 f32",
    ("add", "bool"): "f32 f64 i64 bool f64 i64 i64 f32",
    ("add", "f64_0d"): "f32 f64 f64 f64 f64 f64 f64 f64",
    ("add", "i64_0d"): "f32 f64 i64 i64 f64 i64 i64 f32",
    ("add", "int"): "f32 f64 i64 i64 f64 i64 - -",
    ("add", "float"): "f32 f64 f32 f32 f64 f32 - -",
    # sub: rows are the left operand, columns the right one, in OPERANDS order
    ("sub", "f32"): "f32 f64 f32 err f32 f32 f32 f32",
    ("sub", "f64"): "f64 f64 f64 err f64 f64 f64 f64",
    ("sub", "i64"): "f32 f64 i64 err f64 i64 i64 f32",
    ("sub", "bool"): "err err err err err err err err",
    ("sub", "f64_0d"): "f32 f64 f64 err f64 f64 f64 f64",
    ("sub", "i64_0d"): "f32 f64 i64 err f64 i64 i64 f32",
    ("sub", "int"): "f32 f64 i64 err f64 i64 - -",
    ("sub", "float"): "f32 f64 f32 err f64 f32 - -",
    # mul: rows are the left operand, columns the right one, in OPERANDS order
    ("mul", "f32"): "f32 f64 f32 f32 f32 f32 f32 f32",
    ("mul", "f64"): "f64 f64 f64 f64 f64 f64 f64 f64",
    ("mul", "i64"): "f32 f64 i64 i64 f64 i64 i64 f32",
    ("mul", "bool"): "f32 f64 i64 bool f64 i64 i64 f32",
    ("mul", "f64_0d"): "f32 f64 f64 f64 f64 f64 f64 f64",
    ("mul", "i64_0d"): "f32 f64 i64 i64 f64 i64 i64 f32",
    ("mul", "int"): "f32 f64 i64 i64 f64 i64 - -",
    ("mul", "float"): "f32 f64 f32 f32 f64 f32 - -",
    # truediv: rows are the left operand, columns the right one, in OPERANDS order
    ("truediv", "f32"): "f32 f64 f32 f32 f32 f32 f32 f32",
    ("truediv", "f64"): "f64 f64 f64 f64 f64 f64 f64 f64",
    ("truediv", "i64"): "f32 f64 f32 f32 f64 f32 f32 f32",
    ("truediv", "bool"): "f32 f64 f32 f32 f64 f32 f32 f32",
    ("truediv", "f64_0d"): "f32 f64 f64 f64 f64 f64 f64 f64",
    ("truediv", "i64_0d"): "f32 f64 f32 f32 f64 f32 f32 f32",
    ("truediv", "int"): "f32 f64 f32 f32 f64 f32 - -",
    ("truediv", "float"): "f32 f64 f32 f32 f64 f32 - -",
    # pow: rows are the left operand, columns the right one, in OPERANDS order
    ("pow", "f32"): "f32 f64 f32 f32 f32 f32 f32 f32",
    ("pow", "f64"): "f64 f64 f64 f64 f64 f64 f64 f64",
    ("pow", "i64"): "f32 f64 i64 i64 f64 i64 i64 f32",
    ("pow", "bool"): "f32 f64 i64 err f64 i64 i64 f32",
    ("pow", "f64_0d"): "f32 f64 f64 f64 f64 f64 f64 f64",
    ("pow", "i64_0d"): "f32 f64 i64 i64 f64 i64 i64 f32",
    ("pow", "int"): "f32 f64 i64 i64 f64 i64 - -",
    ("pow", "float"): "f32 f64 f32 f32 f64 f32 - -",
}

CASES = [(op, a, b) for op, a, b in itertools.product(OPS, OPERANDS, OPERANDS)
         if not (a in ("int", "float") and b in ("int", "float"))]


def expected(op, a, b):
    return EXPECTED[(op, a)].split()[list(OPERANDS).index(b)]


@pytest.mark.parametrize("op,a,b", CASES, ids=["-".join(case) for case in CASES])
def test_result_dtype(lib, op, a, b):
    want = expected(op, a, b)
    left, right = OPERANDS[a](lib), OPERANDS[b](lib)
    if want == "err":
        with pytest.raises(RuntimeError):
            OPS[op](left, right)
        return
    result = OPS[op](left, right)
    assert SHORT[str(result.dtype).split(".")[-1]] == want
