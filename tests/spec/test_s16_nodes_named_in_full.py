"""The two nodes PyTorch names in full, `torch::autograd::CopySlices` (`h[0] = v`) and
`torch::autograd::CopyBackwards` (`h.copy_(v)`), by that name everywhere: `grad_fn.name()`
and the version-counter error a learner meets in lesson 8. Before, the error derived the name
from the class as for `<Op>Backward<N>` nodes and printed "CopySlicesCopySlices" and "Copys",
and `CopyBackwards.name()` was the class name (issue 30, the outside review s16, F1 and F6).
Each case runs on both libraries; the texts are PyTorch 2.13.0's, measured."""

import warnings

import pytest

from .conftest import normalise_text, raises_exactly

WRITES = {
    "CopySlices": lambda h, a: h.__setitem__(0, a[1]),
    "CopyBackwards": lambda h, a: h.copy_(a * 2),
}


@pytest.mark.parametrize("node", sorted(WRITES))
def test_the_node_of_a_write_has_pytorchs_full_name(tg, node):
    a = tg.ones(3, requires_grad=True)
    h = a * 2
    WRITES[node](h, a)
    assert type(h.grad_fn).__name__ == node
    assert normalise_text(h.grad_fn.name()) == f"tensorgrad::autograd::{node}"


@pytest.mark.parametrize("node", sorted(WRITES))
def test_the_version_error_names_the_node_in_full(tg, node):
    a = tg.ones(3, requires_grad=True)
    h = a * 2
    WRITES[node](h, a)
    y = h * h
    with tg.no_grad():
        h.add_(1)
    with raises_exactly(tg, RuntimeError, (
            "one of the variables needed for gradient computation has been modified by an "
            "inplace operation: [tensorgrad.FloatTensor [3]], which is output 0 of "
            f"tensorgrad::autograd::{node}, is at version 2; expected version 1 instead. Hint: "
            "enable anomaly detection to find the operation that failed to compute its "
            "gradient, with tensorgrad.autograd.set_detect_anomaly(True, check_nan=False).")):
        y.sum().backward()


def test_a_gradient_made_by_create_graph_backward_is_copybackwards_in_full(tg):
    x = tg.ones(2, requires_grad=True)
    with warnings.catch_warnings():  # (create_graph's reference-cycle warning, once a process)
        warnings.simplefilter("ignore")
        (x * x).sum().backward(create_graph=True)
    assert normalise_text(x.grad.grad_fn.name()) == "tensorgrad::autograd::CopyBackwards"
