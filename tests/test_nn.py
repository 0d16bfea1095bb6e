"""tensorgrad.nn: Module, Parameter, Linear, Sequential, activations, losses, init.

Tests taking `lib` run on tensorgrad and, when installed, on PyTorch: reprs and error texts
must be the same (after `torch.` → `tensorgrad.`).
"""

import math
import warnings

import numpy as np
import pytest

import tensorgrad as tg
from parity import lib, show, raises  # noqa: F401  (lib is a fixture)


def set_linear(lib, layer, weight, bias):
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(weight))
        layer.bias.copy_(lib.tensor(bias))
    return layer


def xor_net(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())


# -- Parameter ------------------------------------------------------------------------------------
def test_parameter_repr(lib):
    assert show(lib.nn.Parameter(lib.tensor([1.0, 2.0]))) == (
        "Parameter containing:\ntensor([1., 2.], requires_grad=True)")
    assert show(lib.nn.Parameter(lib.tensor([1.0, 2.0]), requires_grad=False)) == (
        "Parameter containing:\ntensor([1., 2.])")


def test_parameter_is_a_leaf_tensor_sharing_memory(lib):
    data = lib.tensor([1.0, 2.0])
    p = lib.nn.Parameter(data)
    assert isinstance(p, lib.Tensor) and p.is_leaf and p.requires_grad
    assert p.data_ptr() == data.data_ptr()
    assert type(p * 2) is lib.Tensor
    assert type(p.detach()) is lib.Tensor


def test_parameter_of_a_non_leaf_is_a_new_leaf(lib):
    x = lib.tensor([1.0], requires_grad=True)
    p = lib.nn.Parameter(x * 2)
    assert p.is_leaf and p.grad_fn is None


def test_parameter_of_integers(lib):
    raises(RuntimeError, "Only Tensors of floating point and complex dtype can require gradients",
           lambda: lib.nn.Parameter(lib.tensor([1, 2])))


# -- Module bookkeeping ------------------------------------------------------------------------------
def make_net_class(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(2, 4)
            self.act = nn.Tanh()
            self.fc2 = nn.Linear(4, 1)
            self.scale = nn.Parameter(lib.tensor(1.0))

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x))) * self.scale

    return Net


def test_parameters_are_registered_automatically(lib):
    net = make_net_class(lib)()
    assert [name for name, _ in net.named_parameters()] == [
        "scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert len(list(net.parameters())) == 5
    assert list(net.state_dict()) == ["scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [name for name, _ in net.named_children()] == ["fc1", "act", "fc2"]
    assert [type(m).__name__ for m in net.modules()] == ["Net", "Linear", "Tanh", "Linear"]
    assert [name for name, _ in net.named_modules()] == ["", "fc1", "act", "fc2"]
    assert [name for name, _ in net.named_parameters(recurse=False)] == ["scale"]


def test_shared_parameter_is_listed_once(lib):
    nn = lib.nn
    layer = nn.Linear(2, 2)
    model = nn.Sequential(layer, nn.Tanh(), layer)
    assert len(list(model.parameters())) == 2
    assert [name for name, _ in model.named_parameters()] == ["0.weight", "0.bias"]


def test_module_repr(lib):
    assert show(make_net_class(lib)()) == (
        "Net(\n"
        "  (fc1): Linear(in_features=2, out_features=4, bias=True)\n"
        "  (act): Tanh()\n"
        "  (fc2): Linear(in_features=4, out_features=1, bias=True)\n"
        ")")


def test_sequential_repr_and_indexing(lib):
    net = xor_net(lib)
    assert show(net) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=16, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Linear(in_features=16, out_features=1, bias=True)\n"
        "  (3): Sigmoid()\n"
        ")")
    assert list(net.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert show(net[0]) == "Linear(in_features=2, out_features=16, bias=True)"
    assert len(net) == 4
    assert show(net[-1]) == "Sigmoid()"
    assert show(net[1:3]) == (
        "Sequential(\n  (1): ReLU()\n  (2): Linear(in_features=16, out_features=1, bias=True)\n)")
    raises(IndexError, "index 4 is out of range", lambda: net[4])


def test_nested_repr_is_indented(lib):
    nn = lib.nn
    outer = nn.Sequential(nn.Linear(1, 2), nn.Sequential(nn.ReLU(), nn.Linear(2, 1)))
    assert show(outer) == (
        "Sequential(\n"
        "  (0): Linear(in_features=1, out_features=2, bias=True)\n"
        "  (1): Sequential(\n"
        "    (0): ReLU()\n"
        "    (1): Linear(in_features=2, out_features=1, bias=True)\n"
        "  )\n"
        ")")


def test_small_module_reprs(lib):
    nn = lib.nn
    assert [show(m) for m in (nn.Tanh(), nn.MSELoss(), nn.CrossEntropyLoss(), nn.BCELoss(),
                              nn.Softmax(dim=1), nn.ReLU(inplace=True),
                              nn.Linear(3, 2, bias=False))] == [
        "Tanh()", "MSELoss()", "CrossEntropyLoss()", "BCELoss()", "Softmax(dim=1)",
        "ReLU(inplace=True)", "Linear(in_features=3, out_features=2, bias=False)"]


def test_linear_without_bias(lib):
    layer = lib.nn.Linear(2, 3, bias=False)
    assert layer.bias is None
    assert [name for name, _ in layer.named_parameters()] == ["weight"]


def test_unknown_attribute(lib):
    raises(AttributeError, "'Linear' object has no attribute 'foo'",
           lambda: lib.nn.Linear(2, 3).foo)


def test_assigning_a_plain_tensor_to_a_parameter(lib):
    layer = lib.nn.Linear(2, 3)

    def assign():
        layer.weight = lib.zeros(3, 2)

    raises(TypeError,
           "cannot assign 'tensorgrad.FloatTensor' as parameter 'weight' "
           "(tensorgrad.nn.Parameter or None expected)", assign)


def test_parameters_before_init(lib):
    class Forgot(lib.nn.Module):
        def __init__(self):
            self.w = lib.nn.Parameter(lib.ones(1))

    raises(AttributeError, "cannot assign parameters before Module.__init__() call", Forgot)


def test_missing_forward(lib):
    raises(NotImplementedError, 'Module [Module] is missing the required "forward" function',
           lambda: lib.nn.Module()(1))


def test_replacing_and_deleting_registered_attributes():
    net = make_net_class(tg)()
    net.fc2 = tg.nn.Identity()
    assert [name for name, _ in net.named_children()] == ["fc1", "act", "fc2"]
    del net.scale
    assert "scale" not in dict(net.named_parameters())
    net.plain = 3
    assert net.plain == 3 and "plain" not in net.state_dict()


def test_train_and_eval(lib):
    net = xor_net(lib)
    assert net.training and net[0].training
    assert net.eval() is net
    assert not net.training and not net[0].training and not net[3].training
    net.train()
    assert net.training and net[2].training
    raises(ValueError, "training mode is expected to be boolean", lambda: net.train(1))


def test_zero_grad_sets_none(lib):
    net = xor_net(lib)
    net(lib.ones(3, 2)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_zero_grad_to_zeros(lib):
    layer = lib.nn.Linear(2, 1)
    layer(lib.ones(1, 2)).sum().backward()
    layer.zero_grad(set_to_none=False)
    assert show(layer.weight.grad) == "tensor([[0., 0.]])"


def test_requires_grad_and_double(lib):
    layer = lib.nn.Linear(2, 1)
    layer.requires_grad_(False)
    assert not any(p.requires_grad for p in layer.parameters())
    weight = layer.weight
    layer.double()
    assert layer.weight is weight and layer.weight.dtype is lib.float64


def test_buffers_are_saved_but_not_learned():
    module = tg.nn.Module()
    module.register_buffer("running", tg.zeros(2))
    module.register_buffer("scratch", tg.ones(1), persistent=False)
    assert list(module.state_dict()) == ["running"]
    assert list(module.parameters()) == []
    assert [name for name, _ in module.named_buffers()] == ["running", "scratch"]


# -- state_dict / load_state_dict -----------------------------------------------------------------------
def test_state_dict_values_are_detached(lib):
    layer = set_linear(lib, lib.nn.Linear(2, 3), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                       [0.1, 0.2, 0.3])
    state = layer.state_dict()
    assert show(state) == (
        "OrderedDict([('weight', tensor([[1., 2.],\n        [3., 4.],\n        [5., 6.]])), "
        "('bias', tensor([0.1000, 0.2000, 0.3000]))])")
    assert not state["weight"].requires_grad
    assert state["weight"].data_ptr() == layer.weight.data_ptr()
    assert layer.state_dict(keep_vars=True)["weight"] is layer.weight


def test_load_state_dict_round_trip(lib):
    source = xor_net(lib)
    target = xor_net(lib)
    weight = target[0].weight
    assert show(target.load_state_dict(source.state_dict())) == "<All keys matched successfully>"
    assert target[0].weight is weight  # loaded in place
    x = lib.tensor([[0.0, 1.0], [1.0, 1.0]])
    assert lib.equal(source(x), target(x))


def test_load_state_dict_errors_name_the_keys_and_shapes(lib):
    layer = lib.nn.Linear(2, 3)
    state = layer.state_dict()
    state["weight"] = lib.zeros(3, 3)
    state["x"] = lib.zeros(1)
    del state["bias"]
    raises(RuntimeError,
           "Error(s) in loading state_dict for Linear:\n"
           '\tMissing key(s) in state_dict: "bias". \n'
           '\tUnexpected key(s) in state_dict: "x". \n'
           "\tsize mismatch for weight: copying a param with shape tensorgrad.Size([3, 3]) from "
           "checkpoint, the shape in current model is tensorgrad.Size([3, 2]).",
           lambda: layer.load_state_dict(state))


def test_load_state_dict_shape_error_in_a_submodule(lib):
    net = xor_net(lib)
    state = net.state_dict()
    state["2.bias"] = lib.zeros(2)
    raises(RuntimeError,
           "Error(s) in loading state_dict for Sequential:\n"
           "\tsize mismatch for 2.bias: copying a param with shape tensorgrad.Size([2]) from "
           "checkpoint, the shape in current model is tensorgrad.Size([1]).",
           lambda: net.load_state_dict(state))


def test_load_state_dict_value_that_is_not_a_tensor(lib):
    layer = lib.nn.Linear(2, 3)
    state = layer.state_dict()
    state["weight"] = [1.0]
    raises(RuntimeError,
           "Error(s) in loading state_dict for Linear:\n"
           '\tWhile copying the parameter named "weight", expected tensorgrad.Tensor or '
           "Tensor-like object from checkpoint but received <class 'list'>",
           lambda: layer.load_state_dict(state))


def test_load_state_dict_refuses_another_dtype(lib):
    """A deliberate difference (issue 3, "Bad input"): PyTorch converts a float64 value into a
    float32 parameter; tensorgrad refuses it with an error naming the key, dtypes and shapes."""
    layer = lib.nn.Linear(2, 3)
    state = {key: value.double() * 0 + 0.5 for key, value in layer.state_dict().items()}
    if lib is not tg:
        assert show(layer.load_state_dict(state)) == "<All keys matched successfully>"
        return
    raises(RuntimeError,
           "Error(s) in loading state_dict for Linear:\n"
           "\tdtype mismatch for weight: copying a param with dtype tensorgrad.float64 and shape "
           "tensorgrad.Size([3, 2]) from checkpoint, the dtype in current model is "
           "tensorgrad.float32 (shape tensorgrad.Size([3, 2])). Convert the value first, for "
           "example with .float().\n"
           "\tdtype mismatch for bias: copying a param with dtype tensorgrad.float64 and shape "
           "tensorgrad.Size([3]) from checkpoint, the dtype in current model is "
           "tensorgrad.float32 (shape tensorgrad.Size([3])). Convert the value first, for "
           "example with .float().",
           lambda: layer.load_state_dict(state))
    converted = {key: value.float() for key, value in state.items()}
    assert show(layer.load_state_dict(converted)) == "<All keys matched successfully>"
    assert show(layer.bias) == "Parameter containing:\ntensor([0.5000, 0.5000, 0.5000], requires_grad=True)"


def test_load_state_dict_not_strict(lib):
    layer = lib.nn.Linear(2, 3)
    result = layer.load_state_dict({"extra": lib.zeros(1)}, strict=False)
    assert show(result) == (
        "_IncompatibleKeys(missing_keys=['weight', 'bias'], unexpected_keys=['extra'])")
    assert result.missing_keys == ["weight", "bias"]


# -- Linear -----------------------------------------------------------------------------------------------
def test_linear_forward_value():
    layer = set_linear(tg, tg.nn.Linear(2, 3), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                       [0.1, 0.2, 0.3])
    x = tg.tensor([[1.0, -1.0], [0.5, 2.0]])
    expected = x.numpy() @ layer.weight.detach().numpy().T + layer.bias.detach().numpy()
    assert np.allclose(layer(x).detach().numpy(), expected)


def test_linear_backward_values():
    layer = set_linear(tg, tg.nn.Linear(2, 3), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                       [0.1, 0.2, 0.3])
    x = tg.tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=True)
    (layer(x) ** 2).sum().backward()
    w, b, xs = layer.weight.detach().numpy(), layer.bias.detach().numpy(), x.detach().numpy()
    g = 2 * (xs @ w.T + b)
    assert np.allclose(layer.weight.grad.numpy(), g.T @ xs)
    assert np.allclose(layer.bias.grad.numpy(), g.sum(0))
    assert np.allclose(x.grad.numpy(), g @ w)


def test_linear_graph_names(lib):
    F = lib.nn.functional
    m = lib.ones(2, 3, requires_grad=True)
    b = lib.ones(2, requires_grad=True)
    x1 = lib.ones(3, requires_grad=True)
    x2 = lib.ones(4, 3, requires_grad=True)
    x3 = lib.ones(2, 4, 3, requires_grad=True)
    names = {
        "1d": F.linear(x1, m), "1d_bias": F.linear(x1, m, b), "2d": F.linear(x2, m),
        "2d_bias": F.linear(x2, m, b), "3d_bias": F.linear(x3, m, b)}
    assert {k: type(v.grad_fn).__name__ for k, v in names.items()} == {
        "1d": "SqueezeBackward4", "1d_bias": "ViewBackward0", "2d": "MmBackward0",
        "2d_bias": "AddmmBackward0", "3d_bias": "ViewBackward0"}
    addmm = names["2d_bias"].grad_fn
    assert [type(n).__name__ for n, _ in addmm.next_functions] == [
        "AccumulateGrad", "AccumulateGrad", "TBackward0"]
    assert tuple(names["3d_bias"].shape) == (2, 4, 2)


def test_linear_shape_error(lib):
    raises(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)",
           lambda: lib.nn.functional.linear(lib.zeros(2, 3), lib.zeros(4, 2), lib.zeros(4)))


def test_linear_default_init_is_torchs():
    tg.manual_seed(0)
    layer = tg.nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    weight = layer.weight.detach().numpy()
    bias = layer.bias.detach().numpy()
    assert np.abs(weight).max() <= bound and np.abs(bias).max() <= bound
    assert abs(weight.std() - bound / math.sqrt(3)) < 0.01 * bound  # uniform on [-b, b]
    assert abs(weight.mean()) < 0.01 * bound
    assert np.abs(bias).max() > 0.9 * bound


def test_linear_dtype():
    layer = tg.nn.Linear(2, 2, dtype=tg.float64)
    assert layer.weight.dtype is tg.float64 and layer.bias.dtype is tg.float64


# -- activations ------------------------------------------------------------------------------------------
def test_activation_modules_and_functions(lib):
    nn, F = lib.nn, lib.nn.functional
    x = lib.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    assert show(nn.ReLU()(x)) == "tensor([0.0000, 0.5000, 2.0000], grad_fn=<ReluBackward0>)"
    assert show(F.relu(x)) == "tensor([0.0000, 0.5000, 2.0000], grad_fn=<ReluBackward0>)"
    assert show(nn.Tanh()(x)) == "tensor([-0.7616,  0.4621,  0.9640], grad_fn=<TanhBackward0>)"
    assert show(nn.Sigmoid()(x)) == "tensor([0.2689, 0.6225, 0.8808], grad_fn=<SigmoidBackward0>)"
    assert show(F.softmax(x, dim=0)) == (
        "tensor([0.0391, 0.1753, 0.7856], grad_fn=<SoftmaxBackward0>)")
    assert show(F.log_softmax(x, dim=0)) == (
        "tensor([-3.2413, -1.7413, -0.2413], grad_fn=<LogSoftmaxBackward0>)")


def test_relu_inplace():
    y = tg.tensor([-1.0, 2.0]) * 1
    assert tg.nn.ReLU(inplace=True)(y) is y
    assert y.tolist() == [0.0, 2.0]


def test_softmax_without_dim_warns(lib):
    F = lib.nn.functional
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = F.softmax(lib.tensor([[1.0, 2.0], [3.0, 5.0]]))
    assert [str(w.message) for w in caught] == [
        "Implicit dimension choice for softmax has been deprecated. Change the call to include "
        "dim=X as an argument."]
    assert show(result) == "tensor([[0.2689, 0.7311],\n        [0.1192, 0.8808]])"


# -- losses ---------------------------------------------------------------------------------------------
def test_mse_loss(lib):
    F = lib.nn.functional
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    target = lib.tensor([1.0, 1.0, 1.0])
    loss = F.mse_loss(x, target)
    assert show(loss) == "tensor(1.6667, grad_fn=<MseLossBackward0>)"
    assert loss.grad_fn.name() == "MseLossBackward0"
    assert show(F.mse_loss(x, target, reduction="sum")) == "tensor(5., grad_fn=<MseLossBackward0>)"
    assert show(F.mse_loss(x, target, reduction="none")) == (
        "tensor([0., 1., 4.], grad_fn=<MseLossBackward0>)")
    loss.backward()
    assert show(x.grad) == "tensor([0.0000, 0.6667, 1.3333])"
    assert show(lib.nn.MSELoss()(x, target)) == "tensor(1.6667, grad_fn=<MseLossBackward0>)"


def test_mse_loss_mismatched_shapes_name_both(lib):
    F = lib.nn.functional
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.mse_loss(lib.ones(4, 1), lib.zeros(4))
        with pytest.raises(RuntimeError) as info:
            F.mse_loss(lib.ones(4, 3), lib.zeros(2))
    assert [show(str(w.message)) for w in caught] == [
        "Using a target size (tensorgrad.Size([4])) that is different to the input size "
        "(tensorgrad.Size([4, 1])). This will likely lead to incorrect results due to "
        "broadcasting. Please ensure they have the same size.",
        "Using a target size (tensorgrad.Size([2])) that is different to the input size "
        "(tensorgrad.Size([4, 3])). This will likely lead to incorrect results due to "
        "broadcasting. Please ensure they have the same size."]
    assert str(info.value) == (
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1")


def test_invalid_reduction(lib):
    x = lib.ones(2)
    raises(ValueError, "foo is not a valid value for reduction",
           lambda: lib.nn.functional.mse_loss(x, x, reduction="foo"))


def test_binary_cross_entropy(lib):
    F = lib.nn.functional
    p = lib.tensor([0.2, 0.7], requires_grad=True)
    target = lib.tensor([0.0, 1.0])
    loss = F.binary_cross_entropy(p, target)
    assert show(loss) == "tensor(0.2899, grad_fn=<BinaryCrossEntropyBackward0>)"
    loss.backward()
    assert show(p.grad) == "tensor([ 0.6250, -0.7143])"
    assert show(F.binary_cross_entropy(p, target, weight=lib.tensor([2.0, 3.0]),
                                       reduction="none")) == (
        "tensor([0.4463, 1.0700], grad_fn=<BinaryCrossEntropyBackward0>)")
    assert show(F.binary_cross_entropy(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 0.0]))) == (
        "tensor(100.)")
    assert show(lib.nn.BCELoss()(p, target)) == (
        "tensor(0.2899, grad_fn=<BinaryCrossEntropyBackward0>)")


def test_binary_cross_entropy_target_gradient(lib):
    p = lib.tensor([0.2, 0.7], requires_grad=True)
    target = lib.tensor([0.0, 1.0], requires_grad=True)
    lib.nn.functional.binary_cross_entropy(p, target).backward()
    assert show(target.grad) == "tensor([ 0.6931, -0.4236])"


def test_binary_cross_entropy_errors(lib):
    F = lib.nn.functional
    p = lib.tensor([0.2, 0.7], requires_grad=True)
    raises(ValueError,
           "Using a target size (tensorgrad.Size([1, 2])) that is different to the input size "
           "(tensorgrad.Size([2])) is deprecated. Please ensure they have the same size.",
           lambda: F.binary_cross_entropy(p, lib.tensor([[0.0, 1.0]])))
    raises(RuntimeError, "all elements of input should be between 0 and 1",
           lambda: F.binary_cross_entropy(lib.tensor([1.5]), lib.tensor([1.0])))
    raises(RuntimeError,
           "The function 'binary_cross_entropy' is not differentiable with respect to argument "
           "'weight'. This input cannot have requires_grad True.",
           lambda: F.binary_cross_entropy(p, lib.tensor([0.0, 1.0]),
                                          weight=lib.ones(2, requires_grad=True)))


LOGITS = [[0.5, -1.2, 2.0], [0.1, 0.2, 0.3]]


def test_cross_entropy(lib):
    F = lib.nn.functional
    x = lib.tensor(LOGITS, requires_grad=True)
    target = lib.tensor([2, 0])
    loss = F.cross_entropy(x, target)
    assert show(loss) == "tensor(0.7181, grad_fn=<NllLossBackward0>)"
    assert type(loss.grad_fn.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"
    loss.backward()
    assert show(x.grad) == (
        "tensor([[ 0.0883,  0.0161, -0.1044],\n        [-0.3497,  0.1661,  0.1836]])")
    assert show(F.cross_entropy(x, target, reduction="none")) == (
        "tensor([0.2342, 1.2019], grad_fn=<NllLossBackward0>)")
    assert show(F.cross_entropy(x, target, reduction="sum")) == (
        "tensor(1.4361, grad_fn=<NllLossBackward0>)")
    assert show(F.cross_entropy(x, target, weight=lib.tensor([1.0, 2.0, 3.0]))) == (
        "tensor(0.4761, grad_fn=<NllLossBackward0>)")
    assert show(F.cross_entropy(x, lib.tensor([2, -100]))) == (
        "tensor(0.2342, grad_fn=<NllLossBackward0>)")
    assert show(F.cross_entropy(x[0], lib.tensor(1))) == (
        "tensor(3.4342, grad_fn=<NllLossBackward0>)")
    assert show(lib.nn.CrossEntropyLoss()(x, target)) == (
        "tensor(0.7181, grad_fn=<NllLossBackward0>)")


def test_cross_entropy_matches_numpy():
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(6, 4)) * 3
    labels = rng.integers(0, 4, size=6)
    x = tg.tensor(logits, requires_grad=True)
    loss = tg.nn.functional.cross_entropy(x, tg.tensor(labels))
    shifted = logits - logits.max(1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    assert np.isclose(loss.item(), -log_p[np.arange(6), labels].mean())
    loss.backward()
    expected = np.exp(log_p)
    expected[np.arange(6), labels] -= 1
    assert np.allclose(x.grad.numpy(), expected / 6)


def test_cross_entropy_is_stable_for_large_logits(lib):
    F = lib.nn.functional
    x = lib.tensor([[1000.0, 0.0], [0.0, -1000.0]], requires_grad=True)
    loss = F.cross_entropy(x, lib.tensor([1, 1]))
    assert show(loss) == "tensor(1000., grad_fn=<NllLossBackward0>)"
    loss.backward()
    assert show(x.grad) == "tensor([[ 0.5000, -0.5000],\n        [ 0.5000, -0.5000]])"


def test_cross_entropy_with_probabilities():
    x = tg.tensor(LOGITS, dtype=tg.float64, requires_grad=True)
    probabilities = tg.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], dtype=tg.float64)
    loss = tg.nn.functional.cross_entropy(x, probabilities)
    log_p = tg.log_softmax(x, 1).detach().numpy()
    assert np.isclose(loss.item(), -(probabilities.numpy() * log_p).sum(1).mean())


def test_cross_entropy_errors(lib):
    F = lib.nn.functional
    x = lib.tensor(LOGITS, requires_grad=True)
    raises(ValueError, "Expected input batch_size (2) to match target batch_size (3).",
           lambda: F.cross_entropy(x, lib.tensor([0, 1, 2])))
    raises(IndexError, "Target 3 is out of bounds.",
           lambda: F.cross_entropy(x, lib.tensor([0, 3])))
    raises(IndexError, "Target -3 is out of bounds.",
           lambda: F.cross_entropy(x, lib.tensor([0, -3])))
    raises(RuntimeError, "expected target dtype to be Long or Byte, but got Float",
           lambda: F.cross_entropy(x, lib.tensor([0.0, 1.0])))
    raises(RuntimeError,
           "weight tensor should be defined either for all 3 classes or no classes but got "
           "weight tensor of shape: [2]",
           lambda: F.cross_entropy(x, lib.tensor([0, 1]), weight=lib.ones(2)))
    raises(RuntimeError,
           "The function 'nll_loss_forward' is not differentiable with respect to argument "
           "'weight'. This input cannot have requires_grad True.",
           lambda: F.cross_entropy(x, lib.tensor([0, 1]), weight=lib.ones(3, requires_grad=True)))


def test_nll_loss_all_ignored_is_nan(lib):
    loss = lib.nn.functional.nll_loss(lib.zeros(2, 3, requires_grad=True), lib.tensor([-100, -100]))
    assert show(loss) == "tensor(nan, grad_fn=<NllLossBackward0>)"


def test_nll_loss_saves_for_backward(lib):
    x = lib.zeros(2, 3, requires_grad=True)
    loss = lib.nn.functional.nll_loss(x, lib.tensor([0, 1]))
    loss.backward(retain_graph=True)
    loss.backward()
    assert show(x.grad) == (
        "tensor([[-1.,  0.,  0.],\n        [ 0., -1.,  0.]])")


# -- init ----------------------------------------------------------------------------------------------------
def test_calculate_gain(lib):
    init = lib.nn.init
    assert [init.calculate_gain(name) for name in ("linear", "sigmoid", "tanh", "relu")] == [
        1, 1, 5.0 / 3, math.sqrt(2.0)]
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    raises(ValueError, "Unsupported nonlinearity gelu", lambda: init.calculate_gain("gelu"))


def test_fan_needs_two_dimensions(lib):
    raises(ValueError,
           "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
           lambda: lib.nn.init.xavier_uniform_(lib.empty(3)))


def test_initialisers_scale():
    init = tg.nn.init
    tg.manual_seed(1)
    w = tg.empty(300, 200)
    assert init.xavier_uniform_(w) is w
    assert np.abs(w.numpy()).max() <= math.sqrt(6 / 500)
    init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(w.numpy().std() - math.sqrt(2 / 200)) < 0.01
    init.xavier_normal_(w, gain=2.0)
    assert abs(w.numpy().std() - 2 * math.sqrt(2 / 500)) < 0.01
    init.kaiming_uniform_(w, mode="fan_out")
    assert np.abs(w.numpy()).max() <= math.sqrt(6 / 300)
    init.normal_(w, 3.0, 0.5)
    assert abs(w.numpy().mean() - 3.0) < 0.01
    init.uniform_(w, -2, -1)
    assert w.numpy().min() >= -2 and w.numpy().max() < -1
    init.constant_(w, 0.25)
    assert np.all(w.numpy() == 0.25)
    init.zeros_(w)
    init.ones_(w)
    assert np.all(w.numpy() == 1)


def test_init_of_a_parameter_records_nothing():
    layer = tg.nn.Linear(3, 2)
    tg.nn.init.normal_(layer.weight)
    assert layer.weight.is_leaf and layer.weight.grad_fn is None and layer.weight.requires_grad


# -- what PyTorch's Python loss and layer functions check (issue 19: nothing torch refuses succeeds)
def test_weighted_mse_and_the_legacy_reduction_flags(lib):
    F = lib.nn.functional
    x = lib.tensor([1.0, 2.0, 4.0], requires_grad=True)
    y, w = lib.tensor([0.0, 0.0, 1.0]), lib.tensor([1.0, 2.0, 1.0])
    loss = F.mse_loss(x, y, weight=w)  # Σ w·(x - y)² / Σ w = (1 + 8 + 9) / 4
    assert loss.item() == 4.5
    loss.backward()
    assert x.grad.tolist() == [0.5, 2.0, 1.5]
    raises(ValueError, "Weights and input must have the same size.",
           lambda: F.mse_loss(x, y, weight=lib.ones(2)))
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert F.mse_loss(x, y, size_average=False).item() == 14.0
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        assert F.mse_loss(x, y, reduce=False).tolist() == [1.0, 4.0, 9.0]
    raises(ValueError, "The truth value of an array with more than one element is ambiguous. "
           "Use a.any() or a.all()",
           lambda: F.mse_loss(x, y, reduction=np.ones(2)))


def test_dropout_and_batch_norm_refuse_what_their_c_functions_refuse(lib):
    F, t = lib.nn.functional, lib.ones(2, 3)
    raises(TypeError, "dropout(): argument 'train' (position 3) must be bool, not str",
           lambda: F.dropout(t, training="yes"))
    raises(RuntimeError, "dropout probability has to be between 0 and 1, but got nan",
           lambda: F.dropout(t, float("nan")))
    raises(RuntimeError, "running_mean should contain 3 elements not 6",
           lambda: F.batch_norm(t, lib.ones(6), lib.ones(6), training=True))
    raises(RuntimeError, "bias should contain 3 elements not 2",
           lambda: F.batch_norm(t, lib.zeros(3), lib.ones(3), bias=lib.ones(2)))
    raises(TypeError, "batch_norm(): argument 'momentum' (position 7) must be float, not NoneType",
           lambda: F.batch_norm(t, None, None, training=True, momentum=None))
    raises(ValueError, "batch_norm eps must be positive during training, but got 0",
           lambda: F.batch_norm(t, None, None, training=True, eps=0))


def test_a_loss_weight_that_does_not_broadcast(lib):
    F, t, m = lib.nn.functional, lib.full((2, 3), 0.5), lib.ones(3, 3)
    raises(RuntimeError, "The size of tensor a (3) must match the size of tensor b (2) at "
           "non-singleton dimension 0", lambda: F.binary_cross_entropy_with_logits(
               t, t, pos_weight=m))
    raises(RuntimeError, "Attempting to broadcast a dimension of length 3 at -2! Mismatching "
           "argument at index 1 had tensorgrad.Size([3, 3]); but expected shape should be "
           "broadcastable to [2, 3]", lambda: F.binary_cross_entropy(t, t, weight=m))
    raises(TypeError, "binary_cross_entropy_with_logits(): argument 'weight' (position 3) must "
           "be Tensor, not str", lambda: F.binary_cross_entropy_with_logits(t, t, weight="a"))
