"""Ops added after the first round (log1p, expm1, cumsum, flip, Tensor.where): derivatives by
gradcheck/gradgradcheck in float64, node names and values against PyTorch when installed, and
that tensorgrad's own arithmetic never leaks NumPy's floating-point warnings."""


import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad.autograd import gradcheck, gradgradcheck

CASES = {
    "log1p": (lambda t: t.abs().log1p(), "Log1PBackward0"),
    "expm1": (lambda t: t.expm1(), "Expm1Backward0"),
    "cumsum_dim0": (lambda t: t.cumsum(0), "CumsumBackward0"),
    "cumsum_dim1": (lambda t: t.cumsum(1), "CumsumBackward0"),
    "flip": (lambda t: t.flip((0, 1)), "FlipBackward0"),
    "roll": (lambda t: t.roll((1, -1), (0, 1)), "RollBackward0"),
    "roll_flat": (lambda t: t.roll(2), "RollBackward0"),
    "where_method": (lambda t: t.where(t > 0, t * 2), "WhereBackward0"),
}


@pytest.fixture
def values():
    return np.random.default_rng(0).normal(size=(3, 4))


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_and_second_derivatives(name, values):
    fn, _ = CASES[name]
    x = tg.tensor(values, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_values_and_node_as_pytorch(name, values):
    torch = pytest.importorskip("torch")
    fn, node_name = CASES[name]
    ours = fn(tg.tensor(values, requires_grad=True))
    theirs = fn(torch.tensor(values, requires_grad=True))
    assert ours.grad_fn.name() == theirs.grad_fn.name() == node_name
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)


LEARNER_SCRIPT = """
import warnings
warnings.simplefilter("default")
import numpy as np
import tensorgrad as tg
x = tg.tensor([1000.], requires_grad=True)
y = tg.log(1 + tg.exp(x))
y.backward()
print(tg.tensor([0.]) * tg.tensor([float("inf")]), x.grad)
np.array([0.]) * np.array([np.inf])  # the learner's own NumPy code still warns
"""


def test_no_numpy_warnings_from_tensorgrad_arithmetic():
    """Run as a learner's kernel does (a fresh interpreter): pytest itself discards filters
    installed while it collects tests, so this cannot be checked in-process."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", LEARNER_SCRIPT], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "tensor([nan]) tensor([nan])\n"
    warning_lines = [line for line in done.stderr.splitlines() if "RuntimeWarning" in line]
    assert len(warning_lines) == 1 and "<string>:10" in warning_lines[0], done.stderr



@pytest.mark.parametrize("backend", ["tensorgrad", "torch"])
def test_calling_a_grad_fn_by_hand(backend):
    lib = tg if backend == "tensorgrad" else pytest.importorskip("torch")
    x = lib.tensor([1., 2.], requires_grad=True)
    w = lib.tensor([3., 4.], requires_grad=True)
    grads = (x * w).grad_fn(lib.ones(2))
    assert isinstance(grads, tuple) and len(grads) == 2
    assert repr(grads[0]) == "tensor([3., 4.], grad_fn=<MulBackward0>)"
    single = x.exp().grad_fn(lib.ones(2))
    assert repr(single) == "tensor([2.7183, 7.3891], grad_fn=<MulBackward0>)"
