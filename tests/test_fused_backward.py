"""Derivative rules that are one recorded operation, as in PyTorch.

tanh, sigmoid, relu, softmax and log_softmax compute their backward with one operation of
(grad, result) instead of several tensor operations. With create_graph=True that operation is
recorded, so the gradient's grad_fn has PyTorch's name and saved values, and it can be
differentiated again (its values are checked by finite differences in test_derivatives.py).
"""

import pytest

from parity import lib, show  # noqa: F401  (lib is a fixture)

CASES = {
    "tanh": ("TanhBackwardBackward0", "TanhBackward0", lambda x: x.tanh()),
    "sigmoid": ("SigmoidBackwardBackward0", "SigmoidBackward0", lambda x: x.sigmoid()),
    "relu": ("ThresholdBackwardBackward0", "ReluBackward0", lambda x: x.relu()),
    "softmax": ("SoftmaxBackwardDataBackward0", "SoftmaxBackward0", lambda x: x.softmax(0)),
    "log_softmax": ("LogSoftmaxBackwardDataBackward0", "LogSoftmaxBackward0",
                    lambda x: x.log_softmax(0)),
}


@pytest.mark.parametrize("op", sorted(CASES))
def test_gradient_with_create_graph_is_one_named_node(lib, op):
    name, forward_name, f = CASES[op]
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = f(x)
    (g,) = lib.autograd.grad(y, x, grad_outputs=lib.tensor([1.0, 0.0, 0.0]), create_graph=True)
    assert g.grad_fn.name() == name
    edges = g.grad_fn.next_functions
    assert edges[0] == (None, 0)  # the gradient given from outside is a constant
    assert edges[1][0].name() == forward_name  # the saved result, which depends on x


@pytest.mark.parametrize("op", ["tanh", "sigmoid", "softmax", "log_softmax"])
def test_saved_values_have_pytorchs_names(lib, op):
    _, _, f = CASES[op]
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = f(x)
    seed = lib.tensor([1.0, 2.0, 3.0])
    (g,) = lib.autograd.grad(y, x, grad_outputs=seed, create_graph=True)
    assert show(g.grad_fn._saved_grad_output) == "tensor([1., 2., 3.])"
    assert show(g.grad_fn._saved_output) == show(y)


@pytest.mark.parametrize("op", ["tanh", "sigmoid", "softmax", "log_softmax"])
def test_second_derivative_matches_torch(lib, op):
    _, _, f = CASES[op]
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    seed = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64)
    (g,) = lib.autograd.grad(f(x), x, grad_outputs=seed, create_graph=True)
    (h,) = lib.autograd.grad((g * g).sum(), x)
    expected = {  # measured with torch 2.13.0
        "tanh": "tensor([-1.1433,  2.1493, -0.0048], dtype=tensorgrad.float64)",
        "sigmoid": "tensor([-0.0271,  0.1429, -0.0042], dtype=tensorgrad.float64)",
        "softmax": "tensor([ 0.0066,  0.0211, -0.0277], dtype=tensorgrad.float64)",
        "log_softmax": "tensor([ 0.0479, -0.1093,  0.0615], dtype=tensorgrad.float64)",
    }
    assert show(h) == expected[op]
