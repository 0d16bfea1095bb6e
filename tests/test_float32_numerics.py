"""float32 results bit for bit as PyTorch computes them, where that is cheap to match.

PyTorch computes x ** 3, x ** -2 and x ** -0.5 with multiplications and a square root, not with
pow(); NumPy's power differs from that in the last bit for about a third of float32 values, and
so printed 4-decimal digits differed. (Elementwise functions such as sin still differ from
PyTorch by an ulp at times: docs/library.md, deliberate differences.)"""

import numpy as np
import pytest

import tensorgrad as tg

VALUES = np.random.default_rng(0).uniform(-3, 3, 10000).astype(np.float32)


@pytest.mark.parametrize("exponent, as_pytorch", [
    (3, lambda x: x * x * x), (-2, lambda x: 1 / (x * x)), (-0.5, lambda x: 1 / np.sqrt(x))])
def test_powers_computed_as_pytorch(exponent, as_pytorch):
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = as_pytorch(VALUES)
    got = (tg.from_numpy(VALUES) ** exponent).numpy()
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("exponent", [2, 3, -2, -0.5, 0.5, 1.5])
def test_powers_equal_torch(exponent):
    torch = pytest.importorskip("torch")
    expected = (torch.from_numpy(VALUES) ** exponent).numpy()
    got = (tg.from_numpy(VALUES) ** exponent).numpy()
    if exponent in (0.5, 1.5):  # pow() itself: an ulp apart for some values (not matched)
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    else:
        np.testing.assert_array_equal(got, expected)


LINSPACE_CASES = [(0, 1, 5), (-1, 1, 7), (0, 6.283185307179586, 100), (-3.141592653589793,
                  3.141592653589793, 2000), (0.1, 0.7, 9), (1, 0, 6), (-5, 5, 1000), (0, 1, 1),
                  (2, 3, 2), (0, 1, 0)]


@pytest.mark.parametrize("start, end, steps", LINSPACE_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace_as_torch(start, end, steps, dtype):
    torch = pytest.importorskip("torch")
    expected = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy()
    got = tg.linspace(start, end, steps, dtype=getattr(tg, dtype)).numpy()
    np.testing.assert_array_equal(got, expected)


def test_linspace_counts_up_then_down():
    """Without torch: the halves meet exactly at both ends, whatever the rounding."""
    points = tg.linspace(-3.141592653589793, 3.141592653589793, 2000).numpy()
    assert points[0] == np.float32(-3.141592653589793) and points[-1] == np.float32(3.141592653589793)
    assert points.dtype == np.float32 and np.all(np.diff(points) > 0)
    assert tg.linspace(0, 1, 1).tolist() == [0.0] and tg.linspace(0, 1, 0).numel() == 0
