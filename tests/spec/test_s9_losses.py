"""PyTorch's behaviour: nll_loss and cross_entropy with class-index targets: every reduction,
`weight`, `ignore_index`, targets out of range, 0-d targets (an input of shape (C,)), empty and
all-ignored batches, and their gradients (checked by finite differences in float64).

PyTorch's rules that these rows pin down:
* 'mean' divides by the sum of the weights of the targets that are not ignored (by their count
  without a weight), so a batch whose targets are all ignored has the mean 0/0 = nan, and its
  gradient is zeros; 'sum' gives 0 and 'none' a 0 for each ignored row;
* an input of shape (C,) with a 0-d target gives a 0-d loss with every reduction, 'none'
  included ('none' and 'sum' are then the weighted loss w[t]·(-x[t]); 'mean' divides it by w[t]);
* a target that is neither a class nor ignore_index raises IndexError "Target t is out of
  bounds." naming the first such target of the batch, whatever the reduction (PyTorch with one
  thread; see one_thread).
"""

import contextlib

import pytest

from .conftest import backend_name, raises_exactly, show

X = [[-1.2, -0.4, -2.1], [-0.3, -1.5, -0.9], [-2.0, -0.1, -1.1], [-0.7, -0.7, -1.6]]
WEIGHT = [0.5, 2.0, 3.0]


def loss_and_grad(tg, name, targets, x=X, weight=None, **kwargs):
    """F.<name> of x and the integer targets, and x's gradient (of the loss's sum), printed."""
    x = tg.tensor(x, requires_grad=True)
    if weight is not None:
        kwargs["weight"] = tg.tensor(weight)
    loss = getattr(tg.nn.functional, name)(x, tg.tensor(targets), **kwargs)
    assert type(loss.grad_fn).__name__ == "NllLossBackward0"
    loss.sum().backward()
    return show(loss.detach()), show(x.grad)


# --------------------------------------------------------------------------- nll_loss
def test_nll_loss_each_reduction(tg):
    targets = [2, 0, 1, 0]
    assert loss_and_grad(tg, "nll_loss", targets) == (
        "tensor(0.8000)",
        "tensor([[ 0.0000,  0.0000, -0.2500],\n"
        "        [-0.2500,  0.0000,  0.0000],\n"
        "        [ 0.0000, -0.2500,  0.0000],\n"
        "        [-0.2500,  0.0000,  0.0000]])")
    assert loss_and_grad(tg, "nll_loss", targets, reduction="sum") == (
        "tensor(3.2000)",
        "tensor([[ 0.,  0., -1.],\n        [-1.,  0.,  0.],\n        [ 0., -1.,  0.],\n"
        "        [-1.,  0.,  0.]])")
    assert loss_and_grad(tg, "nll_loss", targets, reduction="none")[0] == (
        "tensor([2.1000, 0.3000, 0.1000, 0.7000])")


def test_nll_loss_weighted_mean_divides_by_the_weights_of_the_targets(tg):
    # (w[2]·2.1 + w[0]·0.3 + w[1]·0.1 + w[0]·0.7) / (w[2] + w[0] + w[1] + w[0]) = 7 / 6
    assert loss_and_grad(tg, "nll_loss", [2, 0, 1, 0], weight=WEIGHT) == (
        "tensor(1.1667)",
        "tensor([[ 0.0000,  0.0000, -0.5000],\n"
        "        [-0.0833,  0.0000,  0.0000],\n"
        "        [ 0.0000, -0.3333,  0.0000],\n"
        "        [-0.0833,  0.0000,  0.0000]])")
    assert loss_and_grad(tg, "nll_loss", [2, 0, 1, 0], weight=WEIGHT, reduction="none") == (
        "tensor([6.3000, 0.1500, 0.2000, 0.3500])",
        "tensor([[ 0.0000,  0.0000, -3.0000],\n"
        "        [-0.5000,  0.0000,  0.0000],\n"
        "        [ 0.0000, -2.0000,  0.0000],\n"
        "        [-0.5000,  0.0000,  0.0000]])")


def test_nll_loss_ignored_targets_count_for_nothing(tg):
    # the mean is over the weights of rows 0, 2 and 3 only: 6.85 / 5.5
    assert loss_and_grad(tg, "nll_loss", [2, -100, 1, 0], weight=WEIGHT) == (
        "tensor(1.2455)",
        "tensor([[ 0.0000,  0.0000, -0.5455],\n"
        "        [ 0.0000,  0.0000,  0.0000],\n"
        "        [ 0.0000, -0.3636,  0.0000],\n"
        "        [-0.0909,  0.0000,  0.0000]])")
    assert loss_and_grad(tg, "nll_loss", [2, -100, 1, 0], weight=WEIGHT, reduction="none")[0] == (
        "tensor([6.3000, 0.0000, 0.2000, 0.3500])")
    assert loss_and_grad(tg, "nll_loss", [2, -100, 1, 0], weight=WEIGHT, reduction="sum")[0] == (
        "tensor(6.8500)")


def test_nll_loss_ignore_index_can_be_a_class(tg):
    assert loss_and_grad(tg, "nll_loss", [2, 1, 1, 0], ignore_index=1) == (
        "tensor(1.4000)",
        "tensor([[ 0.0000,  0.0000, -0.5000],\n"
        "        [ 0.0000,  0.0000,  0.0000],\n"
        "        [ 0.0000,  0.0000,  0.0000],\n"
        "        [-0.5000,  0.0000,  0.0000]])")
    assert loss_and_grad(tg, "nll_loss", [2, 1, 1, 0], ignore_index=1, reduction="sum")[0] == (
        "tensor(2.8000)")


ZEROS = ("tensor([[0., 0., 0.],\n        [0., 0., 0.],\n        [0., 0., 0.],\n"
         "        [0., 0., 0.]])")


@pytest.mark.parametrize("reduction, loss", [("mean", "tensor(nan)"), ("sum", "tensor(0.)"),
                                             ("none", "tensor([0., 0., 0., 0.])")])
def test_nll_loss_all_targets_ignored(tg, reduction, loss):
    assert loss_and_grad(tg, "nll_loss", [-100] * 4, reduction=reduction) == (loss, ZEROS)
    assert loss_and_grad(tg, "nll_loss", [-100] * 4, weight=WEIGHT,
                         reduction=reduction) == (loss, ZEROS)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("weight", [None, WEIGHT])
@pytest.mark.parametrize("smoothing", [0.1, 1.0])
@pytest.mark.parametrize("reduction, loss", [("mean", [float("nan")]), ("sum", [0.0]),
                                             ("none", [0.0] * 4)])
def test_label_smoothing_with_every_target_ignored(tg, dtype, weight, smoothing, reduction, loss):
    """The 'mean' divides by a total weight of 0, so its value is 0/0 = nan; PyTorch zeroes the
    ignored positions with masked_fill, whose backward drops the slope there, so the gradient is
    0, not 0·(1/0) = nan, and one all-padding batch leaves the parameters as they were."""
    dtype = getattr(tg, dtype)
    x = tg.tensor(X, dtype=dtype, requires_grad=True)
    result = tg.nn.functional.cross_entropy(
        x, tg.tensor([-100] * 4), reduction=reduction, label_smoothing=smoothing,
        weight=None if weight is None else tg.tensor(weight, dtype=dtype))
    result.sum().backward()
    assert str(result.detach().reshape(-1).tolist()) == str(loss)
    assert x.grad.tolist() == [[0.0, 0.0, 0.0]] * 4


def test_nll_loss_zero_weights_give_nan_mean_and_nan_gradient(tg):
    assert loss_and_grad(tg, "nll_loss", [2, 0, 1, 0], weight=[0.0, 0.0, 0.0]) == (
        "tensor(nan)",
        "tensor([[0., 0., nan],\n        [nan, 0., 0.],\n        [0., nan, 0.],\n"
        "        [nan, 0., 0.]])")


@pytest.mark.parametrize("reduction, loss", [("mean", "tensor(nan)"), ("sum", "tensor(0.)"),
                                             ("none", "tensor([])")])
def test_nll_loss_empty_batch(tg, reduction, loss):
    x = tg.zeros(0, 3, requires_grad=True)
    result = tg.nn.functional.nll_loss(x, tg.zeros(0, dtype=tg.int64), reduction=reduction)
    result.sum().backward()
    assert show(result.detach()) == loss
    assert show(x.grad) == "tensor([], size=(0, 3))"


# --------------------------------------------------------------------------- 0-d targets
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_of_one_sample_is_0_d(tg, reduction):
    assert loss_and_grad(tg, "nll_loss", 1, x=X[0], reduction=reduction) == (
        "tensor(0.4000)", "tensor([ 0., -1.,  0.])")
    weighted = loss_and_grad(tg, "nll_loss", 1, x=X[0], weight=WEIGHT, reduction=reduction)
    assert weighted == (("tensor(0.4000)", "tensor([ 0., -1.,  0.])") if reduction == "mean"
                        else ("tensor(0.8000)", "tensor([ 0., -2.,  0.])"))
    ignored = loss_and_grad(tg, "nll_loss", -100, x=X[0], reduction=reduction)
    assert ignored == ("tensor(nan)" if reduction == "mean" else "tensor(0.)",
                       "tensor([0., 0., 0.])")


def test_cross_entropy_of_one_sample(tg):
    assert loss_and_grad(tg, "cross_entropy", 2, x=X[0]) == (
        "tensor(2.1898)", "tensor([ 0.2753,  0.6127, -0.8881])")
    assert loss_and_grad(tg, "cross_entropy", 2, x=X[0], weight=WEIGHT, reduction="none") == (
        "tensor(6.5694)", "tensor([ 0.8260,  1.8382, -2.6642])")


def test_a_1_d_input_takes_a_0_d_target_or_one_of_size_1(tg):
    F = tg.nn.functional
    x = tg.tensor([-0.5], requires_grad=True)
    loss = F.nll_loss(x, tg.tensor([0]), reduction="none")
    loss.backward()
    assert (show(loss), show(x.grad)) == (
        "tensor(0.5000, grad_fn=<NllLossBackward0>)", "tensor([-1.])")
    with raises_exactly(tg, ValueError,
                        "For 1D input, 1D target must have size 1, but got target size: 2"):
        F.nll_loss(tg.tensor(X[0]), tg.tensor([0, 1]))
    # (PyTorch refuses this one in backward; tensorgrad already in the forward)
    with raises_exactly(tg, RuntimeError, "size mismatch (got input: [3], target: [1])"):
        F.nll_loss(tg.tensor(X[0], requires_grad=True), tg.tensor([1])).backward()
    with raises_exactly(tg, ValueError,
                        "Expected input batch_size (4) to match target batch_size (0)."):
        F.nll_loss(tg.tensor(X), tg.tensor(1))


# --------------------------------------------------------------------------- out of range
@pytest.mark.parametrize("name", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("targets, kwargs, first", [
    ([2, 5, -1, 0], {}, 5),
    ([2, -1, 5, 0], {}, -1),
    ([2, 5, -1, 0], {"ignore_index": 5}, -1),  # an ignored target is not checked
    ([2, 3, -100, 0], {"weight": WEIGHT}, 3),  # 3 = C: one past the last class
    ([2, -100, -7, 0], {"ignore_index": -7}, -100),  # -100 only means "ignore" by default
    (3, {}, 3),
    (-2, {}, -2),
])
def test_a_target_out_of_range_is_named(tg, name, reduction, targets, kwargs, first):
    x = X if isinstance(targets, list) else X[0]
    with one_thread(tg), raises_exactly(tg, IndexError, f"Target {first} is out of bounds."):
        loss_and_grad(tg, name, targets, x=x, reduction=reduction, **kwargs)


@contextlib.contextmanager
def one_thread(tg):
    """PyTorch checks the rows of reduction='none' in parallel: with several threads the target
    it names is whichever bad one a thread met first (-1 or 5 from [2, -1, 5, 0], from run to
    run). With one thread it is the first in row order, which tensorgrad always names."""
    if backend_name(tg) != "torch":
        yield
        return
    threads = tg.get_num_threads()
    tg.set_num_threads(1)
    try:
        yield
    finally:
        tg.set_num_threads(threads)


# --------------------------------------------------------------------------- cross_entropy
def test_cross_entropy_is_nll_loss_of_log_softmax(tg):
    F = tg.nn.functional
    x = tg.tensor(X, requires_grad=True)
    loss = F.cross_entropy(x, tg.tensor([2, 0, 1, 0]))
    assert show(loss) == "tensor(1.0251, grad_fn=<NllLossBackward0>)"
    assert type(loss.grad_fn.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"
    assert loss_and_grad(tg, "cross_entropy", [2, 0, 1, 0], reduction="none") == (
        "tensor([2.1898, 0.6152, 0.4170, 0.8782])",
        "tensor([[ 0.2753,  0.6127, -0.8881],\n"
        "        [-0.4595,  0.1628,  0.2967],\n"
        "        [ 0.0986, -0.3410,  0.2424],\n"
        "        [-0.5845,  0.4155,  0.1689]])")


def test_cross_entropy_with_weight_and_ignored_targets(tg):
    assert loss_and_grad(tg, "cross_entropy", [2, -100, 1, 0], weight=WEIGHT) == (
        "tensor(1.4259)",
        "tensor([[ 0.1502,  0.3342, -0.4844],\n"
        "        [ 0.0000,  0.0000,  0.0000],\n"
        "        [ 0.0358, -0.1240,  0.0882],\n"
        "        [-0.0531,  0.0378,  0.0154]])")
    assert loss_and_grad(tg, "cross_entropy", [2, -100, 1, 0], weight=WEIGHT,
                         reduction="sum") == (
        "tensor(7.8426)",
        "tensor([[ 0.8260,  1.8382, -2.6642],\n"
        "        [ 0.0000,  0.0000,  0.0000],\n"
        "        [ 0.1971, -0.6820,  0.4849],\n"
        "        [-0.2922,  0.2078,  0.0845]])")
    assert loss_and_grad(tg, "cross_entropy", [-100] * 4) == ("tensor(nan)", ZEROS)


# --------------------------------------------------------------------------- what the losses refuse
# PyTorch refuses these through rules shared by all its operations, not checks of these
# losses: the dtypes a kernel is compiled for, `-` of a bool, an in-place write that would cast
# a float into an integer tensor, and the autograd check of an argument without a derivative
# formula (a weight that requires grad).
LONG = [[1, 2, 3], [4, 5, 6]]
FLOAT = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
NOT_DIFFERENTIABLE = ("The function '{}' is not differentiable with respect to argument '{}'. "
                      "This input cannot have requires_grad True.")
BOOL_SUBTRACTION = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                    "are trying to invert a mask, use the `~` or `logical_not()` operator "
                    "instead.")
REFUSED = [
    ("bce_with_logits", LONG, FLOAT, {}, NotImplementedError,
     '"log_sigmoid_cpu" not implemented for \'Long\''),
    ("bce_with_logits", LONG, LONG, {}, NotImplementedError,
     '"log_sigmoid_cpu" not implemented for \'Long\''),
    ("bce_with_logits", FLOAT, LONG, {}, RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    ("bce_with_logits", FLOAT, FLOAT, {"pos_weight": True}, RuntimeError, BOOL_SUBTRACTION),
    ("bce_with_logits", FLOAT, LONG, {"pos_weight": True}, RuntimeError, BOOL_SUBTRACTION),
    ("bce_with_logits", FLOAT, FLOAT, {"weight": "requires grad"}, RuntimeError,
     NOT_DIFFERENTIABLE.format("binary_cross_entropy_with_logits", "weight")),
    ("bce_with_logits", FLOAT, FLOAT, {"pos_weight": "requires grad"}, RuntimeError,
     NOT_DIFFERENTIABLE.format("binary_cross_entropy_with_logits", "pos_weight")),
    ("bce_with_logits", LONG, FLOAT, {"weight": "requires grad", "pos_weight": "requires grad"},
     RuntimeError, NOT_DIFFERENTIABLE.format("binary_cross_entropy_with_logits", "weight")),
    ("mse_loss", LONG, LONG, {}, NotImplementedError, '"mse_cpu" not implemented for \'Long\''),
    ("mse_loss", LONG, LONG, {"reduction": "none"}, NotImplementedError,
     '"mse_cpu" not implemented for \'Long\''),
    ("binary_cross_entropy", [0, 1], [0, 1], {}, NotImplementedError,
     '"binary_cross_entropy" not implemented for \'Long\''),
]


def _loss_arguments(tg, kwargs):
    """The weights the REFUSED rows name: True is a bool tensor, "requires grad" a float
    tensor that requires grad."""
    made = {}
    for name, value in kwargs.items():
        if value is True:
            made[name] = tg.tensor(True)
        elif value == "requires grad":
            made[name] = tg.tensor(2.0, requires_grad=True)
        else:
            made[name] = value
    return made


@pytest.mark.parametrize("name, x, target, kwargs, error, message", REFUSED)
def test_what_the_losses_refuse(tg, name, x, target, kwargs, error, message):
    function = {"bce_with_logits": tg.nn.functional.binary_cross_entropy_with_logits}.get(
        name) or getattr(tg.nn.functional, name)
    with raises_exactly(tg, error, message):
        function(tg.tensor(x), tg.tensor(target), **_loss_arguments(tg, kwargs))


def test_the_modules_refuse_integer_tensors_as_their_functions_do(tg):
    long = tg.tensor(LONG)
    with raises_exactly(tg, NotImplementedError, '"mse_cpu" not implemented for \'Long\''):
        tg.nn.MSELoss()(long, long)
    with raises_exactly(tg, NotImplementedError,
                        '"log_sigmoid_cpu" not implemented for \'Long\''):
        tg.nn.BCEWithLogitsLoss()(long, long)


def test_a_weight_that_requires_grad_is_taken_under_no_grad(tg):
    weight = tg.tensor(2.0, requires_grad=True)
    with tg.no_grad():
        loss = tg.nn.functional.binary_cross_entropy_with_logits(
            tg.tensor(FLOAT), tg.tensor(FLOAT), weight=weight, pos_weight=weight)
    assert show(loss) == "tensor(-22.8833)"


def test_bce_with_logits_computes_in_the_targets_dtype(tg):
    """PyTorch computes `(1 - target).mul_(input)`, in place in the target's dtype: a float64
    target gives a float64 loss, a float64 input with a float32 target a float32 one; weights of
    other dtypes (int, bool, float64) are multiplied in without changing it."""
    f = tg.nn.functional.binary_cross_entropy_with_logits
    x, t = tg.tensor(FLOAT), tg.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    assert f(x, t.double()).dtype == tg.float64
    assert f(x.double(), t).dtype == tg.float32
    for weight in (tg.tensor(2), tg.tensor(True), tg.tensor(2.0, dtype=tg.float64)):
        assert f(x, t, weight=weight).dtype == tg.float32
        assert f(x, t, pos_weight=weight if weight.dtype != tg.bool else None).dtype == tg.float32

# --------------------------------------------------------------------------- gradcheck
CASES = [
    ("nll_loss", [2, 0, 1, 0], {}),
    ("nll_loss", [2, -100, 1, 0], {"weight": WEIGHT, "reduction": "none"}),
    ("nll_loss", [2, 1, 1, 0], {"weight": WEIGHT, "ignore_index": 1, "reduction": "sum"}),
    ("cross_entropy", [2, 0, 1, 0], {}),
    ("cross_entropy", [2, -100, 1, 0], {"weight": WEIGHT}),
    ("cross_entropy", [2, -100, 1, 0], {"weight": WEIGHT, "reduction": "none"}),
    ("cross_entropy", [2, 0, -100, 0], {"reduction": "sum"}),
    ("cross_entropy", 1, {"weight": WEIGHT}),
    ("nll_loss", 1, {"weight": WEIGHT, "reduction": "none"}),
]


@pytest.mark.parametrize("name, targets, kwargs", CASES)
def test_gradcheck_and_gradgradcheck(tg, name, targets, kwargs):
    """The loss's first and second derivatives against finite differences, in float64."""
    kwargs = dict(kwargs)
    if "weight" in kwargs:
        kwargs["weight"] = tg.tensor(kwargs["weight"], dtype=tg.float64)
    x = tg.tensor(X if isinstance(targets, list) else X[0], dtype=tg.float64,
                  requires_grad=True)
    target = tg.tensor(targets)

    def loss(x):
        return getattr(tg.nn.functional, name)(x, target, **kwargs)

    assert tg.autograd.gradcheck(loss, (x,))
    assert tg.autograd.gradgradcheck(loss, (x,))
