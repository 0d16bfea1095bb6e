"""PyTorch's behaviour on what learners pass to modules, losses, optimizers and backward
(issue 29): a leaf frozen after the forward pass, mixed dtypes in linear, integer log-
probabilities, a 0-d tensor as ignore_index, an empty batch in BatchNorm, the order of a loss's
range checks, a number as backward's gradient, a tensor learning rate, named parameters, and
Sequential's item assignment. Each runs on both libraries.
"""

import numpy as np
import pytest

from .conftest import raises_exactly, show, warns_exactly


@pytest.fixture
def scores(tg):
    return tg.arange(6.0).reshape(2, 3)


@pytest.fixture
def net(tg):
    tg.manual_seed(0)
    return tg.nn.Sequential(tg.nn.Linear(3, 4), tg.nn.ReLU(), tg.nn.Linear(4, 2))


# -- a leaf that stops requiring grad between forward and backward -----------------------------------
def test_a_leaf_frozen_after_the_forward_pass_gets_no_grad(tg):
    layer = tg.nn.Linear(3, 2)
    y = layer(tg.ones(2, 3))
    layer.requires_grad_(False)
    y.sum().backward()
    assert layer.weight.grad is None and layer.bias.grad is None


def test_a_frozen_leaf_keeps_the_grad_it_had(tg):
    w = tg.ones(2, requires_grad=True)
    (w * 2).sum().backward()
    y = (w * 3).sum()
    w.requires_grad_(False)
    y.backward()
    assert show(w.grad) == "tensor([2., 2.])"


# -- dtypes the kernels refuse ------------------------------------------------------------------------
@pytest.mark.parametrize("weight_dtype, bias_dtype, text", [
    ("float32", "float64", "self and mat2 must have the same dtype, but got Double and Float"),
    ("float32", "int64", "self and mat2 must have the same dtype, but got Long and Float"),
    ("float64", "float64", "mat1 and mat2 must have the same dtype, but got Float and Double")])
@pytest.mark.parametrize("rows", [(2, 3), (3,)])
def test_linear_with_a_bias_of_another_dtype(tg, weight_dtype, bias_dtype, text, rows):
    with raises_exactly(tg, RuntimeError, text):
        tg.nn.functional.linear(tg.ones(*rows), tg.ones(2, 3, dtype=getattr(tg, weight_dtype)),
                                tg.ones(2, dtype=getattr(tg, bias_dtype)))


@pytest.mark.parametrize("weight", [None, "ones"])
def test_nll_loss_of_integer_log_probabilities(tg, weight):
    weight = None if weight is None else tg.ones(3)  # (float: the kernel refuses before it looks)
    with raises_exactly(tg, NotImplementedError, "\"nll_loss_out_frame\" not implemented for 'Long'"):
        tg.nn.functional.nll_loss(tg.arange(6).reshape(2, 3), tg.tensor([0, 2]), weight=weight)


# -- a 0-d tensor as ignore_index -------------------------------------------------------------------
@pytest.mark.parametrize("loss, value", [("cross_entropy", "tensor(2.4076)"), ("nll_loss", "tensor(0.)")])
@pytest.mark.parametrize("kind", ["tensor", "numpy"])
def test_ignore_index_given_as_a_0d_tensor_is_applied(tg, scores, loss, value, kind):
    ignore = tg.tensor(2) if kind == "tensor" else np.int64(2)
    assert show(getattr(tg.nn.functional, loss)(scores, tg.tensor([0, 2]), ignore_index=ignore)) == value


def test_cross_entropy_loss_module_with_a_0d_tensor_ignore_index(tg, scores):
    loss = tg.nn.CrossEntropyLoss(ignore_index=tg.tensor(2))
    assert show(loss(scores, tg.tensor([0, 2]))) == "tensor(2.4076)"


# -- an empty batch in BatchNorm ---------------------------------------------------------------------
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_of_an_empty_batch_leaves_the_statistics(tg, training):
    norm = tg.nn.BatchNorm1d(3)
    norm.train(training)
    out = norm(tg.zeros(0, 3))
    assert show(out) == "tensor([], size=(0, 3), grad_fn=<AddBackward0>)"
    assert show(norm.running_mean) == "tensor([0., 0., 0.])"
    assert show(norm.running_var) == "tensor([1., 1., 1.])"


def test_batch_norm_of_an_empty_batch_without_affine_parameters(tg):
    assert show(tg.nn.BatchNorm1d(3, affine=False)(tg.zeros(0, 3))) == "tensor([], size=(0, 3))"


# -- which check speaks first, and numbers where sequences go -------------------------------------------
def test_binary_cross_entropy_checks_the_target_first(tg, scores):
    with raises_exactly(tg, RuntimeError, "all elements of target should be between 0 and 1"):
        tg.nn.functional.binary_cross_entropy(scores, tg.ones(2, 3) * 2)


@pytest.mark.parametrize("call", ["backward_of_vector", "backward_of_scalar", "grad"])
def test_a_number_as_the_gradient_is_not_iterable(tg, call):
    x = tg.ones(2, requires_grad=True)
    with raises_exactly(tg, TypeError, "'float' object is not iterable"):
        if call == "backward_of_vector":
            (x * 2).backward(1.0)
        elif call == "backward_of_scalar":
            (x * 2).sum().backward(1.0)
        else:
            tg.autograd.grad((x * 2).sum(), x, 1.0)


def test_a_numpy_bool_is_a_float_argument(tg, scores):
    assert show(tg.nn.functional.dropout(scores, p=np.bool_(False))) == show(scores)


# -- the losses' legacy flags, as Modules too; autograd.grad's only_inputs ------------------------------
@pytest.mark.parametrize("loss, args, kwargs, reduction", [
    ("MSELoss", (2,), {}, "mean"), ("MSELoss", (None, False), {}, "none"),
    ("MSELoss", (np.bool_(False),), {}, "sum"), ("BCELoss", (None, False), {}, "sum"),
    ("NLLLoss", (), {"reduce": False}, "none"), ("CrossEntropyLoss", (), {"size_average": 0}, "sum"),
    ("BCEWithLogitsLoss", (None, None, False), {}, "none")])
def test_loss_modules_take_the_legacy_flags(tg, loss, args, kwargs, reduction):
    with warns_exactly(tg, UserWarning, "size_average and reduce args will be deprecated, please "
                                        f"use reduction='{reduction}' instead."):
        module = getattr(tg.nn, loss)(*args, **kwargs)
    assert module.reduction == reduction


def test_loss_module_legacy_flags_reduce(tg, scores):
    loss = tg.nn.MSELoss(None, False)
    assert show(loss(scores, tg.zeros(2, 3))) == show(scores ** 2)


def test_grad_only_inputs_is_deprecated(tg):
    x = tg.ones(2, requires_grad=True)
    with warns_exactly(tg, FutureWarning, "only_inputs argument is deprecated and is ignored now "
                       "(defaults to True). To accumulate gradient for other parts of the graph, "
                       "please use tensorgrad.autograd.backward."):
        tg.autograd.grad(x.sum(), x, only_inputs=False)


# -- optimizers: a tensor learning rate, named parameters, betas as a list ---------------------------
@pytest.mark.parametrize("optimizer, settings", [("SGD", {}), ("SGD", {"momentum": 0.9}),
                                                  ("Adam", {})])
@pytest.mark.parametrize("lr", ["0-d", "1-element"])
def test_a_tensor_learning_rate_steps_as_its_number(tg, optimizer, settings, lr):
    steps = []
    for rate in (0.1, tg.tensor(0.1) if lr == "0-d" else tg.tensor([0.1])):
        tg.manual_seed(0)
        layer = tg.nn.Linear(3, 2)
        opt = getattr(tg.optim, optimizer)(layer.parameters(), lr=rate, **settings)
        for _ in range(2):
            opt.zero_grad()
            (layer(tg.ones(2, 3)) ** 2).sum().backward()
            opt.step()
        steps.append(show(layer.weight))
    assert steps[0] == steps[1]


def test_a_tensor_learning_rate_is_kept_and_printed(tg):
    opt = tg.optim.SGD(tg.nn.Linear(3, 2).parameters(), lr=tg.tensor(0.1))
    assert "    lr: 0.10000000149011612\n" in show(opt)
    assert show(opt.param_groups[0]["lr"]) == "tensor(0.1000)"


def test_a_learning_rate_tensor_of_several_elements(tg):
    with raises_exactly(tg, ValueError, "Tensor lr must be 1-element"):
        tg.optim.SGD(tg.nn.Linear(3, 2).parameters(), lr=tg.tensor([0.1, 0.2]))


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_named_parameters(tg, optimizer):
    layer = tg.nn.Linear(3, 2)
    opt = getattr(tg.optim, optimizer)(layer.named_parameters(), lr=0.1)
    group = opt.param_groups[0]
    assert group["param_names"] == ["weight", "bias"]
    assert group["params"][0] is layer.weight
    assert "    param_names: ['weight', 'bias']\n" in show(opt)
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]


def test_names_for_some_parameters_only(tg):
    layer = tg.nn.Linear(3, 2)
    with raises_exactly(tg, ValueError, "all optimizer params should be with/without names. Some "
                                        "param names are missing"):
        tg.optim.SGD([("weight", layer.weight), layer.bias], lr=0.1)


@pytest.mark.parametrize("betas", [[0.9, 0.99], (0.9, 0.99, 0.1)])
def test_adam_betas_become_a_tuple(tg, betas):
    opt = tg.optim.Adam(tg.nn.Linear(3, 2).parameters(), betas=betas)
    assert "    betas: (0.9, 0.99" in show(opt)


# -- Sequential and ModuleList: assignment, deletion, any integer as an index ------------------------
def test_sequential_item_assignment_keeps_the_place(tg, net):
    net[0] = tg.nn.Tanh()
    assert show(net) == ("Sequential(\n  (0): Tanh()\n  (1): ReLU()\n"
                         "  (2): Linear(in_features=4, out_features=2, bias=True)\n)")


@pytest.mark.parametrize("index, left", [(0, "(0): ReLU()\n  (1): Linear"),
                                         (slice(0, 2), "(0): Linear"), (-1, "(0): Linear")])
def test_sequential_deletion_numbers_again(tg, net, index, left):
    del net[index]
    assert show(net).startswith("Sequential(\n  " + left)


def test_sequential_takes_any_integer_as_an_index(tg, net):
    assert net[np.int64(0)] is net[0]
    assert net[tg.tensor(-1)] is net[2]


def test_sequential_refuses_a_float_index(tg, net):
    with raises_exactly(tg, TypeError, "'float' object cannot be interpreted as an integer"):
        net[1.0] = tg.nn.ReLU()


def test_sequential_index_out_of_range(tg, net):
    with raises_exactly(tg, IndexError, "index 3 is out of range"):
        net[3] = tg.nn.ReLU()


def test_module_list_assignment_and_deletion(tg):
    layers = tg.nn.ModuleList([tg.nn.Linear(3, 4), tg.nn.ReLU()])
    layers[0] = tg.nn.Tanh()
    del layers[np.int64(0)]
    assert show(layers) == "ModuleList(\n  (0): ReLU()\n)"


# -- K-dimensional nll_loss and cross_entropy, and label smoothing ----------------------------------
_SCORES_3D = [[[0.1, -1.2, 0.3, 2.0], [1.5, 0.2, -0.7, 0.0], [-0.4, 0.9, 1.1, -2.2]],
              [[0.6, 0.6, -1.0, 0.3], [-1.3, 2.1, 0.4, 0.8], [0.0, -0.5, 0.7, 1.9]]]
_TARGETS_3D = [[0, 2, 1, 2], [1, 1, 0, 2]]


def _loss_and_gradient(tg, loss, scores, targets, **settings):
    """The loss's sum and two sums of its gradient (plain, and weighted by position, so that a
    gradient in the wrong place shows), to four places."""
    x = tg.tensor(scores, dtype=tg.float64, requires_grad=True)
    value = getattr(tg.nn.functional, loss)(x, tg.tensor(targets), **settings)
    value.sum().backward()
    places = tg.arange(x.numel(), dtype=tg.float64).reshape(x.shape)
    return " ".join(f"{round(figure.item(), 4) + 0.0:.4f}"  # (+ 0.0: no "-0.0000")
                    for figure in (value.sum(), x.grad.sum(), (x.grad * places).sum()))


def _case(shape):
    scores, targets = _SCORES_3D, _TARGETS_3D
    if shape == "4-d":
        return np.array(scores).reshape(2, 3, 2, 2).tolist(), np.array(targets).reshape(2, 2, 2).tolist()
    if shape == "2-d":
        return np.array(scores)[:, :, 0].tolist(), [0, 2]
    return scores, targets


# PyTorch 2.13's figures (tests/spec runs the same on torch, which must give them too)
_K_DIMENSIONAL = {
    '3-d nll_loss None mean False -100': '0.0250 -1.0000 -12.0000',
    '3-d nll_loss None sum False -100': '0.2000 -8.0000 -96.0000',
    '3-d nll_loss None none False -100': '0.2000 -8.0000 -96.0000',
    '3-d nll_loss None mean True -100': '-0.0350 -1.0000 -12.8000',
    '3-d nll_loss None sum True -100': '-0.3500 -10.0000 -128.0000',
    '3-d nll_loss None none True -100': '-0.3500 -10.0000 -128.0000',
    '3-d nll_loss None mean False 2': '0.1600 -1.0000 -10.6000',
    '3-d nll_loss None sum False 2': '0.8000 -5.0000 -53.0000',
    '3-d nll_loss None none False 2': '0.8000 -5.0000 -53.0000',
    '3-d nll_loss None mean True 2': '0.0357 -1.0000 -12.1429',
    '3-d nll_loss None sum True 2': '0.2500 -7.0000 -85.0000',
    '3-d nll_loss None none True 2': '0.2500 -7.0000 -85.0000',
    '3-d cross_entropy 0.0 mean False -100': '1.7884 0.0000 -0.2391',
    '3-d cross_entropy 0.0 sum False -100': '14.3073 0.0000 -1.9127',
    '3-d cross_entropy 0.0 none False -100': '14.3073 0.0000 -1.9127',
    '3-d cross_entropy 0.0 mean True -100': '1.7232 0.0000 -0.6781',
    '3-d cross_entropy 0.0 sum True -100': '17.2325 0.0000 -6.7809',
    '3-d cross_entropy 0.0 none True -100': '17.2325 0.0000 -6.7809',
    '3-d cross_entropy 0.0 mean False 2': '1.8114 0.0000 1.8529',
    '3-d cross_entropy 0.0 sum False 2': '9.0570 0.0000 9.2643',
    '3-d cross_entropy 0.0 none False 2': '9.0570 0.0000 9.2643',
    '3-d cross_entropy 0.0 mean True 2': '1.7117 0.0000 0.6280',
    '3-d cross_entropy 0.0 sum True 2': '11.9822 0.0000 4.3961',
    '3-d cross_entropy 0.0 none True 2': '11.9822 0.0000 4.3961',
    '3-d cross_entropy 0.1 mean False -100': '1.7601 0.0000 -0.1891',
    '3-d cross_entropy 0.1 sum False -100': '14.0806 0.0000 -1.5127',
    '3-d cross_entropy 0.1 none False -100': '14.0806 0.0000 -1.5127',
    '3-d cross_entropy 0.1 mean True -100': '1.6877 0.0000 -0.6393',
    '3-d cross_entropy 0.1 sum True -100': '16.8768 0.0000 -6.3926',
    '3-d cross_entropy 0.1 none True -100': '16.8768 0.0000 -6.3926',
    '3-d cross_entropy 0.1 mean False 2': '1.7721 0.0000 1.6929',
    '3-d cross_entropy 0.1 sum False 2': '8.8604 0.0000 8.4643',
    '3-d cross_entropy 0.1 none False 2': '8.8604 0.0000 8.4643',
    '3-d cross_entropy 0.1 mean True 2': '1.6534 0.0000 0.5387',
    '3-d cross_entropy 0.1 sum True 2': '11.5740 0.0000 3.7707',
    '3-d cross_entropy 0.1 none True 2': '11.5740 0.0000 3.7707',
    '4-d nll_loss None mean False -100': '0.0250 -1.0000 -12.0000',
    '4-d nll_loss None sum False -100': '0.2000 -8.0000 -96.0000',
    '4-d nll_loss None none False -100': '0.2000 -8.0000 -96.0000',
    '4-d nll_loss None mean True -100': '-0.0350 -1.0000 -12.8000',
    '4-d nll_loss None sum True -100': '-0.3500 -10.0000 -128.0000',
    '4-d nll_loss None none True -100': '-0.3500 -10.0000 -128.0000',
    '4-d nll_loss None mean False 2': '0.1600 -1.0000 -10.6000',
    '4-d nll_loss None sum False 2': '0.8000 -5.0000 -53.0000',
    '4-d nll_loss None none False 2': '0.8000 -5.0000 -53.0000',
    '4-d nll_loss None mean True 2': '0.0357 -1.0000 -12.1429',
    '4-d nll_loss None sum True 2': '0.2500 -7.0000 -85.0000',
    '4-d nll_loss None none True 2': '0.2500 -7.0000 -85.0000',
    '4-d cross_entropy 0.0 mean False -100': '1.7884 0.0000 -0.2391',
    '4-d cross_entropy 0.0 sum False -100': '14.3073 0.0000 -1.9127',
    '4-d cross_entropy 0.0 none False -100': '14.3073 0.0000 -1.9127',
    '4-d cross_entropy 0.0 mean True -100': '1.7232 0.0000 -0.6781',
    '4-d cross_entropy 0.0 sum True -100': '17.2325 0.0000 -6.7809',
    '4-d cross_entropy 0.0 none True -100': '17.2325 0.0000 -6.7809',
    '4-d cross_entropy 0.0 mean False 2': '1.8114 0.0000 1.8529',
    '4-d cross_entropy 0.0 sum False 2': '9.0570 0.0000 9.2643',
    '4-d cross_entropy 0.0 none False 2': '9.0570 0.0000 9.2643',
    '4-d cross_entropy 0.0 mean True 2': '1.7117 0.0000 0.6280',
    '4-d cross_entropy 0.0 sum True 2': '11.9822 0.0000 4.3961',
    '4-d cross_entropy 0.0 none True 2': '11.9822 0.0000 4.3961',
    '4-d cross_entropy 0.1 mean False -100': '1.7601 0.0000 -0.1891',
    '4-d cross_entropy 0.1 sum False -100': '14.0806 0.0000 -1.5127',
    '4-d cross_entropy 0.1 none False -100': '14.0806 0.0000 -1.5127',
    '4-d cross_entropy 0.1 mean True -100': '1.6877 0.0000 -0.6393',
    '4-d cross_entropy 0.1 sum True -100': '16.8768 0.0000 -6.3926',
    '4-d cross_entropy 0.1 none True -100': '16.8768 0.0000 -6.3926',
    '4-d cross_entropy 0.1 mean False 2': '1.7721 0.0000 1.6929',
    '4-d cross_entropy 0.1 sum False 2': '8.8604 0.0000 8.4643',
    '4-d cross_entropy 0.1 none False 2': '8.8604 0.0000 8.4643',
    '4-d cross_entropy 0.1 mean True 2': '1.6534 0.0000 0.5387',
    '4-d cross_entropy 0.1 sum True 2': '11.5740 0.0000 3.7707',
    '4-d cross_entropy 0.1 none True 2': '11.5740 0.0000 3.7707',
    '2-d nll_loss None mean False -100': '-0.0500 -1.0000 -2.5000',
    '2-d nll_loss None sum False -100': '-0.1000 -2.0000 -5.0000',
    '2-d nll_loss None none False -100': '-0.1000 -2.0000 -5.0000',
    '2-d nll_loss None mean True -100': '-0.0333 -1.0000 -3.3333',
    '2-d nll_loss None sum True -100': '-0.0500 -1.5000 -5.0000',
    '2-d nll_loss None none True -100': '-0.0500 -1.5000 -5.0000',
    '2-d nll_loss None mean False 2': '-0.1000 -1.0000 0.0000',
    '2-d nll_loss None sum False 2': '-0.1000 -1.0000 0.0000',
    '2-d nll_loss None none False 2': '-0.1000 -1.0000 0.0000',
    '2-d nll_loss None mean True 2': '-0.1000 -1.0000 0.0000',
    '2-d nll_loss None sum True 2': '-0.0500 -0.5000 0.0000',
    '2-d nll_loss None none True 2': '-0.0500 -0.5000 0.0000',
    '2-d cross_entropy 0.0 mean False -100': '1.4317 0.0000 -0.1676',
    '2-d cross_entropy 0.0 sum False -100': '2.8634 0.0000 -0.3352',
    '2-d cross_entropy 0.0 none False -100': '2.8634 0.0000 -0.3352',
    '2-d cross_entropy 0.0 mean True -100': '1.3310 0.0000 -0.5336',
    '2-d cross_entropy 0.0 sum True -100': '1.9965 0.0000 -0.8004',
    '2-d cross_entropy 0.0 none True -100': '1.9965 0.0000 -0.8004',
    '2-d cross_entropy 0.0 mean False 2': '1.7337 0.0000 0.9305',
    '2-d cross_entropy 0.0 sum False 2': '1.7337 0.0000 0.9305',
    '2-d cross_entropy 0.0 none False 2': '1.7337 0.0000 0.9305',
    '2-d cross_entropy 0.0 mean True 2': '1.7337 0.0000 0.9305',
    '2-d cross_entropy 0.0 sum True 2': '0.8669 0.0000 0.4653',
    '2-d cross_entropy 0.0 none True 2': '0.8669 0.0000 0.4653',
    '2-d cross_entropy 0.1 mean False -100': '1.4284 0.0000 -0.1676',
    '2-d cross_entropy 0.1 sum False -100': '2.8567 0.0000 -0.3352',
    '2-d cross_entropy 0.1 none False -100': '2.8567 0.0000 -0.3352',
    '2-d cross_entropy 0.1 mean True -100': '1.4206 0.0000 -0.5285',
    '2-d cross_entropy 0.1 sum True -100': '2.1309 0.0000 -0.7928',
    '2-d cross_entropy 0.1 none True -100': '2.1309 0.0000 -0.7928',
    '2-d cross_entropy 0.1 mean False 2': '1.7037 0.0000 0.8305',
    '2-d cross_entropy 0.1 sum False 2': '1.7037 0.0000 0.8305',
    '2-d cross_entropy 0.1 none False 2': '1.7037 0.0000 0.8305',
    '2-d cross_entropy 0.1 mean True 2': '1.8116 0.0000 0.7879',
    '2-d cross_entropy 0.1 sum True 2': '0.9058 0.0000 0.3940',
    '2-d cross_entropy 0.1 none True 2': '0.9058 0.0000 0.3940',
}


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weight", [None, (0.5, 2.0, 1.0)])
@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("loss, smoothing", [("nll_loss", None), ("cross_entropy", 0.0),
                                             ("cross_entropy", 0.1)])
@pytest.mark.parametrize("shape", ["3-d", "4-d", "2-d"])
def test_k_dimensional_losses_and_label_smoothing(tg, reduction, weight, ignore_index, loss,
                                                  smoothing, shape):
    scores, targets = _case(shape)
    settings = {"reduction": reduction, "ignore_index": ignore_index,
                "weight": None if weight is None else tg.tensor(weight, dtype=tg.float64)}
    if smoothing is not None:
        settings["label_smoothing"] = smoothing
    figures = _loss_and_gradient(tg, loss, scores, targets, **settings)
    key = f"{shape} {loss} {smoothing} {reduction} {weight is not None} {ignore_index}"
    assert figures == _K_DIMENSIONAL[key]


@pytest.mark.parametrize("smoothing", [0.0, 0.3])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_k_dimensional_cross_entropy_gradcheck(tg, smoothing, reduction):
    x = tg.tensor(_SCORES_3D, dtype=tg.float64, requires_grad=True)
    weight = tg.tensor([0.5, 2.0, 1.0], dtype=tg.float64)
    assert tg.autograd.gradcheck(lambda x: tg.nn.functional.cross_entropy(
        x, tg.tensor(_TARGETS_3D), weight=weight, ignore_index=1, reduction=reduction,
        label_smoothing=smoothing), (x,))


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_of_probabilities_over_positions(tg, smoothing):
    probabilities = np.linspace(0.1, 0.9, 24).reshape(2, 3, 4).tolist()
    figures = _loss_and_gradient(tg, "cross_entropy", _SCORES_3D, probabilities,
                                         label_smoothing=smoothing,
                                         weight=tg.tensor([0.5, 2.0, 1.0], dtype=tg.float64))
    assert figures == {0.0: "2.6066 0.0000 -1.1281", 0.2: "2.4271 0.0000 -0.9749"}[smoothing]


@pytest.mark.parametrize("call, error, text", [
    ("F.nll_loss(x, tg.zeros(2, 5, dtype=tg.int64))", RuntimeError,
     "Expected target size [2, 4], got [2, 5]"),
    ("F.nll_loss(x, tg.zeros(3, 4, dtype=tg.int64))", ValueError,
     "Expected input batch_size (2) to match target batch_size (3)."),
    ("F.nll_loss(x, tg.zeros(2, 4, dtype=tg.int64), weight=tg.ones(4))", RuntimeError,
     "weight tensor should be defined either for all or no classes"),
    ("F.nll_loss(x.long(), tg.zeros(2, 4, dtype=tg.int64))", NotImplementedError,
     "\"nll_loss2d_forward_out_frame\" not implemented for 'Long'"),
    ("F.nll_loss(x, tg.full((2, 4), 3))", IndexError, "Target 3 is out of bounds."),
    ("F.nll_loss(tg.tensor(1.), tg.tensor(0))", ValueError, "Expected 1 or more dimensions (got 0)")])
def test_k_dimensional_misuse(tg, call, error, text):
    x = tg.tensor(_SCORES_3D)
    with raises_exactly(tg, error, text):
        eval(call, {"tg": tg, "F": tg.nn.functional, "x": x})  # noqa: S307
