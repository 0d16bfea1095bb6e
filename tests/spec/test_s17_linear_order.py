"""F.linear given several wrong arguments at once: PyTorch's order of checks (issue 29, session
17). A 2-d input with a bias is one `addmm` (bias + input @ weight.t()); other ranks are
flattened to 2-d first. Measured on PyTorch 2.13.0: `t()` refuses a weight of 3 dims, then
addmm checks the dtypes (the bias's against the weight's first, then the input's), the ranks,
the shapes, and only then expands the bias to the flattened result."""

import pytest

from .conftest import raises_exactly


def _cases(tg):
    t = tg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x3 = tg.arange(6.0).reshape(1, 2, 3)
    x4 = tg.arange(6.0).reshape(1, 1, 2, 3)
    f64 = tg.float64
    return {
        "weight of the wrong shape and bias": lambda: tg.nn.functional.linear(
            t, tg.ones(2, 4), tg.ones(3)),
        "weight in float64, bias of the wrong size": lambda: tg.nn.functional.linear(
            t, tg.ones(3, 3, dtype=f64), tg.ones(2)),
        "weight in float64, bias in float64": lambda: tg.nn.functional.linear(
            t, tg.ones(3, 3, dtype=f64), tg.ones(3, dtype=f64)),
        "bias in float64, weight of the wrong shape": lambda: tg.nn.functional.linear(
            t, tg.ones(2, 4), tg.ones(3, dtype=f64)),
        "a 1-d weight, bias of the wrong size": lambda: tg.nn.functional.linear(
            t, tg.ones(3), tg.ones(2)),
        "a 1-d float64 weight": lambda: tg.nn.functional.linear(
            t, tg.ones(4, dtype=f64), tg.ones(3)),
        "an int64 bias, weight of the wrong shape": lambda: tg.nn.functional.linear(
            t, tg.ones(2, 4), tg.tensor([1, 2, 3])),
        "a 2-d bias, weight of the wrong shape": lambda: tg.nn.functional.linear(
            t, tg.ones(2, 4), tg.ones(5, 5)),
        "a 3-d weight": lambda: tg.nn.functional.linear(t, tg.ones(1, 2, 3), tg.ones(3)),
        "a bias of the wrong size, 1-d input": lambda: tg.nn.functional.linear(
            tg.ones(3), tg.ones(2, 3), tg.ones(3)),
        "a bias of the wrong size, 3-d input": lambda: tg.nn.functional.linear(
            x3, tg.ones(2, 3), tg.ones(3)),
        "a bias of the wrong size, 4-d input": lambda: tg.nn.functional.linear(
            x4, tg.ones(2, 3), tg.ones(3)),
        "float64 weight, 3-d input": lambda: tg.nn.functional.linear(
            x3, tg.ones(2, 3, dtype=f64), tg.ones(3)),
        "float64 weight, 4-d input": lambda: tg.nn.functional.linear(
            x4, tg.ones(2, 3, dtype=f64), tg.ones(2)),
        "a (3, 2) bias": lambda: tg.nn.functional.linear(t, tg.ones(2, 3), tg.ones(3, 2)),
    }


EXPAND = ("The expanded size of the tensor ({0}) must match the existing size ({1}) at "
          "non-singleton dimension {2}.  Target sizes: {3}.  Tensor sizes: {4}")
SAME_DTYPE = "{0} and mat2 must have the same dtype, but got {1} and {2}"
ORDER = {
    "weight of the wrong shape and bias": "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)",
    "weight in float64, bias of the wrong size": SAME_DTYPE.format("self", "Float", "Double"),
    "weight in float64, bias in float64": SAME_DTYPE.format("mat1", "Float", "Double"),
    "bias in float64, weight of the wrong shape": SAME_DTYPE.format("self", "Double", "Float"),
    "a 1-d weight, bias of the wrong size": "mat2 must be a matrix, got 1-D tensor",
    "a 1-d float64 weight": SAME_DTYPE.format("self", "Float", "Double"),
    "an int64 bias, weight of the wrong shape": SAME_DTYPE.format("self", "Long", "Float"),
    "a 2-d bias, weight of the wrong shape": "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)",
    "a 3-d weight": "t() expects a tensor with <= 2 dimensions, but self is 3D",
    "a bias of the wrong size, 1-d input": EXPAND.format(2, 3, 1, "[1, 2]", "[3]"),
    "a bias of the wrong size, 3-d input": EXPAND.format(2, 3, 1, "[2, 2]", "[3]"),
    "a bias of the wrong size, 4-d input": EXPAND.format(2, 3, 1, "[2, 2]", "[3]"),
    "float64 weight, 3-d input": SAME_DTYPE.format("self", "Float", "Double"),
    "float64 weight, 4-d input": SAME_DTYPE.format("self", "Float", "Double"),
    "a (3, 2) bias": EXPAND.format(2, 3, 0, "[2, 2]", "[3, 2]"),
}


@pytest.mark.parametrize("name", ORDER)
def test_linear_finds_the_first_mistake_pytorch_finds(tg, name):
    with raises_exactly(tg, RuntimeError, ORDER[name]):
        _cases(tg)[name]()


def test_a_bias_that_broadcasts_after_flattening_is_taken(tg):
    """A (1, 2) bias beside a 1-d input: PyTorch expands it to the flattened (1, 2) result."""
    y = tg.nn.functional.linear(tg.ones(3), tg.ones(2, 3), tg.ones(1, 2))
    assert y.tolist() == [4.0, 4.0]
