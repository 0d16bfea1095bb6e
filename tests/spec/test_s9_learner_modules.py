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
