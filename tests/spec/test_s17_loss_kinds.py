"""The losses given what PyTorch 2.13 takes and tensorgrad refused, or refused otherwise (issue
29, session 17): `label_smoothing` negative or nan in `F.cross_entropy` and
`nn.CrossEntropyLoss`, and Python numbers where a loss's tensors belong. Each case runs on both
libraries (measured on PyTorch 2.13.0).
"""

import numpy as np
import pytest

from .conftest import raises_exactly, show

X = [[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]
PROBABILITIES = [[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]
PLAIN_GRAD = [[0.11561194062232971, 0.3142658472061157, -0.4298778176307678],
              [-0.47436821460723877, 0.008532087318599224, 0.4658361077308655]]
PROBABILITIES_GRAD = [[0.015611939132213593, 0.16426584124565125, -0.17987781763076782],
                      [-0.47436821460723877, 0.008532087318599224, 0.4658361077308655]]


# -- label_smoothing: PyTorch smooths only when it is above 0, and refuses it above 1 --------------
# (nan and negative values are no smoothing at all: the plain loss, its node and its gradient)
SMOOTHED = {
    "negative": ({"label_smoothing": -0.1}, "tensor(2.4676, grad_fn=<NllLossBackward0>)", PLAIN_GRAD),
    "minus one": ({"label_smoothing": -1.0}, "tensor(2.4676, grad_fn=<NllLossBackward0>)", PLAIN_GRAD),
    "nan": ({"label_smoothing": float("nan")}, "tensor(2.4676, grad_fn=<NllLossBackward0>)",
            PLAIN_GRAD),
    "minus inf": ({"label_smoothing": -float("inf")}, "tensor(2.4676, grad_fn=<NllLossBackward0>)",
                  PLAIN_GRAD),
    "NumPy nan": ({"label_smoothing": np.float64("nan")},
                  "tensor(2.4676, grad_fn=<NllLossBackward0>)", PLAIN_GRAD),
    "negative, none": ({"label_smoothing": -0.1, "reduction": "none"},
                       "tensor([1.9644, 2.9708], grad_fn=<NllLossBackward0>)",
                       [[2 * g for g in row] for row in PLAIN_GRAD]),
    "negative, sum": ({"label_smoothing": -0.1, "reduction": "sum"},
                      "tensor(4.9351, grad_fn=<NllLossBackward0>)",
                      [[2 * g for g in row] for row in PLAIN_GRAD]),
    "nan, weighted": ({"label_smoothing": float("nan"), "weight": [1.0, 2.0, 0.5]},
                      "tensor(2.6353, grad_fn=<NllLossBackward0>)",
                      [[0.07707463204860687, 0.20951056480407715, -0.2865852117538452],
                       [-0.6324909329414368, 0.011376116424798965, 0.6211148500442505]]),
    "negative, probabilities": ({"label_smoothing": -0.1, "probabilities": True},
                                "tensor(2.1926, grad_fn=<DivBackward1>)", PROBABILITIES_GRAD),
    "nan, probabilities": ({"label_smoothing": float("nan"), "probabilities": True},
                           "tensor(2.1926, grad_fn=<DivBackward1>)", PROBABILITIES_GRAD),
    "one": ({"label_smoothing": 1.0}, "tensor(1.8342, grad_fn=<AddBackward0>)",
            [[-0.051054731011390686, 0.14759917557239532, -0.09654448181390762],
             [-0.14103487133979797, -0.1581345796585083, 0.2991694211959839]]),
    "a quarter": ({"label_smoothing": 0.25}, "tensor(2.3092, grad_fn=<AddBackward0>)",
                  [[0.07394526898860931, 0.2725991904735565, -0.346544474363327],
                   [-0.391034871339798, -0.0331345796585083, 0.4241694211959839]]),
}


@pytest.mark.parametrize("name", SMOOTHED)
@pytest.mark.parametrize("as_module", [False, True])
def test_label_smoothing_at_or_below_zero_or_nan_is_no_smoothing(tg, name, as_module):
    """The loss printed as PyTorch prints it (node included); the gradient to float32's last
    digits but one (tensorgrad's log_softmax backward rounds the last bit otherwise, with or
    without smoothing)."""
    settings, text, grad = SMOOTHED[name]
    settings = dict(settings)
    x = tg.tensor(X, requires_grad=True)
    y = tg.tensor(PROBABILITIES) if settings.pop("probabilities", False) else tg.tensor([2, 0])
    if "weight" in settings:
        settings["weight"] = tg.tensor(settings["weight"])
    if as_module:
        loss = tg.nn.CrossEntropyLoss(**settings)(x, y)
    else:
        loss = tg.nn.functional.cross_entropy(x, y, **settings)
    assert show(loss) == text
    loss.sum().backward()
    assert x.grad.tolist() == [pytest.approx(row, rel=1e-6, abs=1e-7) for row in grad]


@pytest.mark.parametrize("value, shown", [(1.5, "1.5"), (float("inf"), "inf"), (2, "2"),
                                          (3.0, "3"), (1.0000001, "1")])
@pytest.mark.parametrize("as_module", [False, True])
def test_label_smoothing_above_one_is_refused(tg, value, shown, as_module):
    x, y = tg.tensor(X, requires_grad=True), tg.tensor([2, 0])
    with raises_exactly(tg, RuntimeError, f"label_smoothing must be between 0.0 and 1.0. Got: {shown}"):
        if as_module:
            tg.nn.CrossEntropyLoss(label_smoothing=value)(x, y)
        else:
            tg.nn.functional.cross_entropy(x, y, label_smoothing=value)


@pytest.mark.parametrize("settings", [{}, {"label_smoothing": 0.0}, {"label_smoothing": 0.2}])
def test_the_mean_over_probabilities_divides_by_a_number(tg, settings):
    """PyTorch's C++ divides the summed losses by the count as a Scalar: DivBackward1."""
    x = tg.tensor(X, requires_grad=True)
    loss = tg.nn.functional.cross_entropy(x, tg.tensor(PROBABILITIES), **settings)
    assert loss.grad_fn.name().rsplit("::")[-1] == "DivBackward1"


# -- a Python number (or list, None, NumPy value) where a loss's tensor belongs ----------------------
# PyTorch's Python code of these losses reads `target.size()`, then `input.size()` (and
# `weight.size()`), before its C function checks anything: Python's words there are PyTorch's.
def _no_size(name):
    return AttributeError, f"'{name}' object has no attribute 'size'"


NOT_CALLABLE = (TypeError, "'int' object is not callable")  # (a NumPy value's `size` is an int)
NUMBERS_AS_TENSORS = [
    ("F.mse_loss(1.0, t)", _no_size("float")),
    ("F.mse_loss(t, 1.0)", _no_size("float")),
    ("F.mse_loss(1, t)", _no_size("int")),
    ("F.mse_loss(t, 2)", _no_size("int")),
    ("F.mse_loss(True, t)", _no_size("bool")),
    ("F.mse_loss(1.0, 2.0)", _no_size("float")),  # (target first)
    ("F.mse_loss(1.0, [2.0])", _no_size("list")),
    ("F.mse_loss([1.0, 2.0, 3.0], t)", _no_size("list")),
    ("F.mse_loss(t, None)", _no_size("NoneType")),
    ("F.mse_loss(None, t)", _no_size("NoneType")),
    ("F.mse_loss('a', t)", _no_size("str")),
    ("F.mse_loss(t, t, weight=1.0)", _no_size("float")),
    ("F.mse_loss(np.float64(1.0), t)", NOT_CALLABLE),
    ("F.mse_loss(t, bool)", (AttributeError, "type object 'bool' has no attribute 'size'")),
    ("F.binary_cross_entropy(bool, p)", (AttributeError, "type object 'bool' has no attribute "
                                                         "'size'")),
    ("F.mse_loss(t, np.ones(3))", NOT_CALLABLE),
    ("nn.MSELoss()(1.0, t)", _no_size("float")),
    ("nn.MSELoss()(t, 1.0)", _no_size("float")),
    ("F.binary_cross_entropy(0.5, p)", _no_size("float")),
    ("F.binary_cross_entropy(p, 1.0)", _no_size("float")),
    ("F.binary_cross_entropy(p, 1)", _no_size("int")),
    ("F.binary_cross_entropy(p, [1.0, 0.0, 1.0])", _no_size("list")),
    ("F.binary_cross_entropy(p, None)", _no_size("NoneType")),
    ("F.binary_cross_entropy(p, p, 1.0)", _no_size("float")),
    ("F.binary_cross_entropy(p, np.float64(1.0))", NOT_CALLABLE),
    ("nn.BCELoss()(p, 1.0)", _no_size("float")),
    ("F.binary_cross_entropy_with_logits(1.0, p)", _no_size("float")),
    ("F.binary_cross_entropy_with_logits(p, 1.0)", _no_size("float")),
    ("F.binary_cross_entropy_with_logits(p, 1)", _no_size("int")),
    ("F.binary_cross_entropy_with_logits(p, None)", _no_size("NoneType")),
    ("nn.BCEWithLogitsLoss()(p, 1.0)", _no_size("float")),
    # its weights go to PyTorch's C function, whose parser names them
    ("F.binary_cross_entropy_with_logits(p, p, 1.0)",
     (TypeError, "binary_cross_entropy_with_logits(): argument 'weight' (position 3) must be "
                 "Tensor, not float")),
    ("F.binary_cross_entropy_with_logits(p, p, pos_weight=2.0)",
     (TypeError, "binary_cross_entropy_with_logits(): argument 'pos_weight' (position 4) must "
                 "be Tensor, not float")),
    # nll_loss and cross_entropy are PyTorch's C functions: its parser's words
    ("F.nll_loss(1.0, y)", (TypeError, "nll_loss_nd(): argument 'input' (position 1) must be "
                                       "Tensor, not float")),
    ("F.nll_loss(x, 1)", (TypeError, "nll_loss_nd(): argument 'target' (position 2) must be "
                                     "Tensor, not int")),
    ("F.nll_loss(x, y, 1.0)", (TypeError, "nll_loss_nd(): argument 'weight' (position 3) must "
                                          "be Tensor, not float")),
    ("F.cross_entropy(1.0, y)", (TypeError, "cross_entropy_loss(): argument 'input' (position 1) "
                                            "must be Tensor, not float")),
    ("F.cross_entropy(x, 1)", (TypeError, "cross_entropy_loss(): argument 'target' (position 2) "
                                          "must be Tensor, not int")),
    ("nn.CrossEntropyLoss()(x, 1)", (TypeError, "cross_entropy_loss(): argument 'target' "
                                                "(position 2) must be Tensor, not int")),
]


@pytest.mark.parametrize("call, error", NUMBERS_AS_TENSORS)
def test_a_number_where_a_loss_takes_a_tensor_fails_as_in_pytorch(tg, call, error):
    env = {"F": tg.nn.functional, "nn": tg.nn, "np": np,
           "t": tg.tensor([1.0, 2.0, 4.0], requires_grad=True),
           "p": tg.tensor([0.2, 0.5, 0.9], requires_grad=True),
           "x": tg.tensor(X, requires_grad=True), "y": tg.tensor([2, 0])}
    with raises_exactly(tg, *error):
        eval(call, env)  # noqa: S307  (the cases above)
