"""The benchmark's own code: its implementations agree before anything is timed."""

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import bench_core  # noqa: E402
import floor_autograd  # noqa: E402


def test_floor_autograd_gives_the_hand_written_gradient():
    ops = bench_core.chain_ops(30)
    x = np.linspace(-1, 1, 4, dtype=np.float32)
    leaf = floor_autograd.leaf(x)
    grad = bench_core.autograd_chain(leaf, ops, floor_autograd.ones(4))
    expected = bench_core.np_chain(x, ops, np.ones(4, np.float32))
    assert np.abs(expected).min() > 1e-7  # a chain this short still has a gradient to compare
    np.testing.assert_allclose(grad.data, expected, rtol=1e-5)
    assert leaf.grad is None  # autograd_chain hands the gradient back and clears it


def test_floor_autograd_accumulates_into_the_leaf():
    x = floor_autograd.leaf([0.5, -1.0])
    (x * 3.0).tanh().backward(floor_autograd.ones(2))
    (x * 2.0 + 1.0).backward(floor_autograd.ones(2))  # a second graph adds to x.grad
    expected = 3.0 * (1 - np.tanh(3.0 * np.array([0.5, -1.0])) ** 2) + 2.0
    np.testing.assert_allclose(x.grad.data, expected, rtol=1e-5)


def test_per_op_benchmark_runs_and_its_implementations_agree():
    result = bench_core.bench_per_op(repeats=1, n=30)
    assert {"numpy", "tensorgrad", "floor"} <= set(result["us_per_op"])
    for key, diff in result["check"].items():
        assert diff < 1e-6, key
    rows = bench_core._per_op_rows({"per_op": result})
    assert rows[1][0].strip().startswith("design floor")


@pytest.fixture(autouse=True, scope="module")
def _restore_path():
    yield
    sys.path.remove(str(BENCH))
