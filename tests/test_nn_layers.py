"""nn layers that tutorials use: BatchNorm1d, Dropout, Flatten, Unflatten, ModuleList,
BCEWithLogitsLoss, and module hooks, printing as PyTorch 2.13 does (parity with torch when it
is installed; the expected texts are torch's)."""

import numpy as np
import pytest

import tensorgrad as tg
from parity import lib, raises, show  # noqa: F401  (lib is a fixture)


def F(lib):  # noqa: N802
    return lib.nn.functional


def batch(lib):
    return lib.tensor([[1., 2., 3.], [4., 6., 8.], [0., 1., -1.]], requires_grad=True)


def test_batch_norm_training_and_eval(lib):
    x = batch(lib)
    bn = lib.nn.BatchNorm1d(3)
    assert show(bn) == ("BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                        "track_running_stats=True)")
    y = bn(x)
    assert show(y) == ("tensor([[-0.3922, -0.4629, -0.0905],\n"
                       "        [ 1.3728,  1.3887,  1.2675],\n"
                       "        [-0.9806, -0.9258, -1.1770]], grad_fn=<NativeBatchNormBackward0>)")
    (y * lib.tensor([[1., 2., 3.], [-1., 0.5, 2.], [0., 1., 1.]])).sum().backward()
    assert show(x.grad) == ("tensor([[ 0.4526,  0.3031,  0.2805],\n"
                            "        [-0.1131, -0.0606, -0.1247],\n"
                            "        [-0.3394, -0.2425, -0.1558]])")
    assert show(bn.weight.grad) == "tensor([-1.7650, -1.1573,  1.0864])"
    assert show(bn.running_mean) == "tensor([0.1667, 0.3000, 0.3333])"
    assert show(bn.running_var) == "tensor([1.3333, 1.6000, 2.9333])"
    assert show(bn.num_batches_tracked) == "tensor(1)"
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]
    bn.eval()
    assert show(bn(x)) == ("tensor([[ 0.7217,  1.3440,  1.5570],\n"
                           "        [ 3.3198,  4.5062,  4.4764],\n"
                           "        [-0.1443,  0.5534, -0.7785]], grad_fn=<NativeBatchNormBackward0>)")


def test_batch_norm_errors(lib):
    raises(ValueError, "Expected more than 1 value per channel when training, got input size "
           "tensorgrad.Size([1, 3])", lambda: lib.nn.BatchNorm1d(3)(lib.ones(1, 3)))
    raises(RuntimeError, "running_mean should contain 4 elements not 3",
           lambda: lib.nn.BatchNorm1d(3)(lib.ones(2, 4)))


def test_batch_norm_eval_rule_by_finite_differences():
    x = tg.tensor(np.random.default_rng(0).uniform(-1, 1, (4, 3)), requires_grad=True)
    w = tg.tensor([1.5, 0.5, 2.0], dtype=tg.float64, requires_grad=True)
    b = tg.tensor([0.1, 0.2, 0.3], dtype=tg.float64, requires_grad=True)
    mean = tg.tensor([0.1, -0.2, 0.3], dtype=tg.float64)
    var = tg.tensor([1.5, 0.7, 2.0], dtype=tg.float64)

    def f(x, w, b):
        return tg.nn.functional.batch_norm(x, mean, var, w, b, training=False)

    assert tg.autograd.gradcheck(f, (x, w, b))
    assert tg.autograd.gradgradcheck(f, (x, w, b))


def test_dropout(lib):
    lib.manual_seed(0)
    x = lib.ones(1000, requires_grad=True)
    drop = lib.nn.Dropout(0.3)
    assert show(drop) == "Dropout(p=0.3, inplace=False)"
    y = drop(x)
    assert show(y.grad_fn).startswith("<MulBackward0")
    kept = (y != 0).sum().item()
    assert 620 < kept < 780  # about 70% kept (the random numbers differ from torch's)
    values = np.unique(y.detach().numpy())
    np.testing.assert_allclose(values, [0.0, 1 / 0.7], rtol=1e-6)
    drop.eval()
    assert drop(x) is x
    raises(ValueError, "dropout probability has to be between 0 and 1, but got 1.5",
           lambda: lib.nn.Dropout(1.5))


def test_flatten_unflatten_module_list(lib):
    assert show(lib.nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    assert show(lib.nn.Flatten()(lib.ones(2, 3, 4)).shape) == "tensorgrad.Size([2, 12])"
    unflatten = lib.nn.Unflatten(1, (2, 2))
    assert show(unflatten) == "Unflatten(dim=1, unflattened_size=(2, 2))"
    assert show(unflatten(lib.ones(3, 4)).shape) == "tensorgrad.Size([3, 2, 2])"
    layers = lib.nn.ModuleList([lib.nn.Linear(2, 2), lib.nn.ReLU()])
    assert show(layers) == ("ModuleList(\n  (0): Linear(in_features=2, out_features=2, bias=True)\n"
                            "  (1): ReLU()\n)")
    assert len(layers) == 2 and len(list(layers.parameters())) == 2
    layers.append(lib.nn.Tanh())
    assert show(layers[-1]) == "Tanh()" and show(layers[1:]) == (
        "ModuleList(\n  (0): ReLU()\n  (1): Tanh()\n)")


def test_bce_with_logits(lib):
    x = lib.tensor([[1., 2., 3.], [4., 6., 8.]], requires_grad=True)
    t = lib.tensor([[0., 1., 1.], [1., 0., 0.5]], requires_grad=True)
    loss = F(lib).binary_cross_entropy_with_logits(
        x, t, weight=lib.tensor([1., 2., 1.]), pos_weight=lib.tensor([2., 1., 3.]))
    assert show(loss) == "tensor(2.9591, grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)"
    loss.backward()
    assert show(x.grad) == ("tensor([[ 0.1218, -0.0397, -0.0237],\n"
                            "        [-0.0060,  0.3325,  0.0832]])")
    assert show(t.grad) == ("tensor([[-0.1145, -0.6667, -0.4838],\n"
                            "        [-0.6636, -2.0000, -1.3332]])")
    assert show(lib.nn.BCEWithLogitsLoss()) == "BCEWithLogitsLoss()"
    assert show(F(lib).binary_cross_entropy_with_logits(x, t, reduction="sum")) == (
        "tensor(11.5097, grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)")
    raises(ValueError, "Target size (tensorgrad.Size([1, 3])) must be the same as input size "
           "(tensorgrad.Size([2, 3]))",
           lambda: F(lib).binary_cross_entropy_with_logits(x, t[:1]))


def test_module_hooks(lib, capsys):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU())
    pre = model.register_forward_pre_hook(lambda m, args: print("pre", type(m).__name__))
    post = model.register_forward_hook(
        lambda m, args, out: print("forward", type(m).__name__, len(args), show(out.shape)))
    back = model[0].register_full_backward_hook(
        lambda m, gin, gout: print("backward", type(m).__name__, [show(g.shape) for g in gin],
                                   [show(g.shape) for g in gout]))
    x = lib.ones(2, 3, requires_grad=True)
    out = model(x)
    assert show(model[0](x).grad_fn).startswith("<tensorgrad.autograd.function."
                                               "BackwardHookFunctionBackward object")
    out.sum().backward()
    assert show(pre).startswith("<tensorgrad.utils.hooks.RemovableHandle object at")
    for handle in (pre, post, back):
        handle.remove()
    model(x).sum().backward()
    assert capsys.readouterr().out == (
        "pre Sequential\n"
        "forward Sequential 1 tensorgrad.Size([2, 2])\n"
        "backward Linear ['tensorgrad.Size([2, 3])'] ['tensorgrad.Size([2, 2])']\n")


def test_backward_hook_can_replace_grad_input(lib):
    layer = lib.nn.Linear(2, 1)
    layer.register_full_backward_hook(lambda m, gin, gout: (gin[0] * 0 + 7,))
    x = lib.ones(1, 2, requires_grad=True)
    layer(x).sum().backward()
    assert show(x.grad) == "tensor([[7., 7.]])"
