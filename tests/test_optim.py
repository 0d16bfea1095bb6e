"""tensorgrad.optim: SGD and Adam follow PyTorch's update formulas.

Required: the updates agree with values computed by hand (a few steps written out in NumPy,
plus single steps small enough to check on paper). Optional: the same runs under PyTorch agree
to float32 rounding (skipped when torch is not installed).
"""


import numpy as np
import pytest

import tensorgrad as tg
from parity import lib, show, raises  # noqa: F401  (lib is a fixture)


# -- single steps checked on paper ---------------------------------------------------------------------
def test_sgd_single_step_by_hand():
    p = tg.tensor([1.0, -2.0], requires_grad=True)
    opt = tg.optim.SGD([p], lr=0.1)
    (p * tg.tensor([3.0, 4.0])).sum().backward()  # gradient [3, 4]
    opt.step()
    assert np.allclose(p.detach().numpy(), [1.0 - 0.3, -2.0 - 0.4])


def test_sgd_momentum_two_steps_by_hand():
    p = tg.tensor([1.0], requires_grad=True)
    opt = tg.optim.SGD([p], lr=0.1, momentum=0.9)
    for _ in range(2):
        opt.zero_grad()
        (p * 2).sum().backward()  # gradient 2 every step
        opt.step()
    # step 1: b = 2, p = 1 - 0.2 = 0.8;  step 2: b = 0.9·2 + 2 = 3.8, p = 0.8 - 0.38 = 0.42
    assert np.isclose(p.item(), 0.42)
    assert np.isclose(opt.state[p]["momentum_buffer"].item(), 3.8)


def test_adam_first_step_is_lr_times_sign():
    # After bias correction, m̂ = g and v̂ = g², so the first step is lr·g/(|g| + eps).
    p = tg.tensor([1.0, -1.0, 0.5], requires_grad=True)
    opt = tg.optim.Adam([p], lr=0.01)
    (p * tg.tensor([3.0, -0.2, 7.0])).sum().backward()
    opt.step()
    assert np.allclose(p.detach().numpy(), [1.0 - 0.01, -1.0 + 0.01, 0.5 - 0.01], atol=1e-7)
    assert opt.state[p]["step"].item() == 1.0


# -- several steps against a NumPy transcription of the formulas ----------------------------------------
def loss_and_grad(w, b):
    """loss = Σ (w·[1, -2] + b)² + 0.1·Σ w³, and its gradient, in NumPy."""
    x = np.array([1.0, -2.0])
    r = w @ x + b
    return 2 * np.outer(r, x) + 0.3 * w ** 2, 2 * r


def numpy_sgd(steps, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
              maximize=False):
    w, b = np.array([[0.5, -1.0], [2.0, 0.3]]), np.array([0.1, -0.2])
    buffers = [None, None]
    history = []
    for _ in range(steps):
        grads = loss_and_grad(w, b)
        new = []
        for i, (p, g) in enumerate(zip((w, b), grads)):
            g = -g if maximize else g
            g = g + weight_decay * p
            if momentum:
                buffers[i] = g.copy() if buffers[i] is None else (
                    momentum * buffers[i] + (1 - dampening) * g)
                g = g + momentum * buffers[i] if nesterov else buffers[i]
            new.append(p - lr * g)
        w, b = new
        history.append(np.concatenate([w.ravel(), b]))
    return np.array(history)


def numpy_adam(steps, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
               decoupled=False):
    w, b = np.array([[0.5, -1.0], [2.0, 0.3]]), np.array([0.1, -0.2])
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    v_max = [np.zeros_like(w), np.zeros_like(b)]
    history = []
    for t in range(1, steps + 1):
        grads = loss_and_grad(w, b)
        new = []
        for i, (p, g) in enumerate(zip((w, b), grads)):
            if weight_decay and decoupled:
                p = p * (1 - lr * weight_decay)
            elif weight_decay:
                g = g + weight_decay * p
            m[i] = betas[0] * m[i] + (1 - betas[0]) * g
            v[i] = betas[1] * v[i] + (1 - betas[1]) * g * g
            v_max[i] = np.maximum(v_max[i], v[i])
            m_hat = m[i] / (1 - betas[0] ** t)
            v_hat = (v_max[i] if amsgrad else v[i]) / (1 - betas[1] ** t)
            new.append(p - lr * m_hat / (np.sqrt(v_hat) + eps))
        w, b = new
        history.append(np.concatenate([w.ravel(), b]))
    return np.array(history)


def run(lib, make_optimizer, steps=6, dtype=None):
    dtype = dtype or lib.float64
    w = lib.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=dtype, requires_grad=True)
    b = lib.tensor([0.1, -0.2], dtype=dtype, requires_grad=True)
    opt = make_optimizer(lib, [w, b])
    x = lib.tensor([1.0, -2.0], dtype=dtype)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((w @ x + b) ** 2).sum() + (w ** 3).sum() * 0.1
        loss.backward()
        opt.step()
        history.append(np.concatenate([w.detach().numpy().ravel(), b.detach().numpy()]))
    return np.array(history)


SGD_SETTINGS = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01),
    dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1),
    dict(lr=0.05, maximize=True),
]
ADAM_SETTINGS = [
    dict(lr=0.1),
    dict(lr=0.1, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
    dict(lr=0.1, amsgrad=True),
    dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True),
]


@pytest.mark.parametrize("settings", SGD_SETTINGS, ids=str)
def test_sgd_matches_formulas(settings):
    ours = run(tg, lambda lib, params: lib.optim.SGD(params, **settings))
    assert np.allclose(ours, numpy_sgd(6, **settings), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("settings", ADAM_SETTINGS, ids=str)
def test_adam_matches_formulas(settings):
    decoupled = settings.pop("decoupled_weight_decay", False)
    ours = run(tg, lambda lib, params: lib.optim.Adam(
        params, decoupled_weight_decay=decoupled, **settings))
    assert np.allclose(ours, numpy_adam(6, decoupled=decoupled, **settings), rtol=1e-10,
                       atol=1e-12)


@pytest.mark.parametrize("name, settings", [("SGD", s) for s in SGD_SETTINGS]
                         + [("Adam", s) for s in ADAM_SETTINGS], ids=str)
def test_matches_torch(name, settings):
    torch = pytest.importorskip("torch")
    for dtype_name in ("float64", "float32"):
        ours = run(tg, lambda lib, params: getattr(lib.optim, name)(params, **settings),
                   dtype=getattr(tg, dtype_name))
        theirs = run(torch, lambda lib, params: getattr(lib.optim, name)(params, **settings),
                     dtype=getattr(torch, dtype_name))
        tolerance = 1e-12 if dtype_name == "float64" else 2e-6
        assert np.allclose(ours, theirs, rtol=tolerance, atol=tolerance), dtype_name


# -- behaviour ------------------------------------------------------------------------------------------
def test_empty_parameter_list(lib):
    raises(ValueError, "optimizer got an empty parameter list", lambda: lib.optim.SGD([], lr=0.1))
    raises(ValueError, "optimizer got an empty parameter list", lambda: lib.optim.Adam([]))


def test_a_single_tensor_is_not_a_parameter_list(lib):
    raises(TypeError,
           "params argument given to the optimizer should be an iterable of Tensors or dicts, but "
           "got tensorgrad.FloatTensor",
           lambda: lib.optim.SGD(lib.zeros(2), lr=0.1))


def test_non_leaf(lib):
    x = lib.ones(2, requires_grad=True)
    raises(ValueError, "can't optimize a non-leaf Tensor", lambda: lib.optim.SGD([x * 2], lr=0.1))


def test_invalid_settings(lib):
    x = [lib.ones(2, requires_grad=True)]
    raises(ValueError, "Invalid learning rate: -0.1", lambda: lib.optim.SGD(x, lr=-0.1))
    raises(ValueError, "Invalid momentum value: -1", lambda: lib.optim.SGD(x, momentum=-1))
    raises(ValueError, "Invalid weight_decay value: -1", lambda: lib.optim.SGD(x, weight_decay=-1))
    raises(ValueError, "Nesterov momentum requires a momentum and zero dampening",
           lambda: lib.optim.SGD(x, nesterov=True))
    raises(ValueError, "Invalid beta parameter at index 0: 1.0",
           lambda: lib.optim.Adam(x, betas=(1.0, 0.9)))
    raises(ValueError, "Invalid beta parameter at index 1: -0.5",
           lambda: lib.optim.Adam(x, betas=(0.9, -0.5)))
    raises(ValueError, "Invalid epsilon value: -1", lambda: lib.optim.Adam(x, eps=-1))


def test_parameter_in_two_groups(lib):
    z = lib.ones(2, requires_grad=True)
    raises(ValueError, "some parameters appear in more than one parameter group",
           lambda: lib.optim.SGD([{"params": [z]}, {"params": [z]}]))


def test_repr(lib):
    z = lib.ones(2, requires_grad=True)
    assert show(lib.optim.SGD([z], lr=0.1)) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n"
        "    foreach: None\n    fused: None\n    lr: 0.1\n    maximize: False\n"
        "    momentum: 0\n    nesterov: False\n    weight_decay: 0\n)")
    assert show(lib.optim.Adam([z])) == (
        "Adam (\nParameter Group 0\n    amsgrad: False\n    betas: (0.9, 0.999)\n"
        "    capturable: False\n    decoupled_weight_decay: False\n    differentiable: False\n"
        "    eps: 1e-08\n    foreach: None\n    fused: None\n    lr: 0.001\n"
        "    maximize: False\n    weight_decay: 0\n)")


def test_param_groups_with_their_own_lr(lib):
    a = lib.tensor([1.0], requires_grad=True)
    b = lib.tensor([1.0], requires_grad=True)
    opt = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    assert [group["lr"] for group in opt.param_groups] == [0.1, 0.5]
    (a + b).sum().backward()
    opt.step()
    assert np.isclose(a.item(), 0.9) and np.isclose(b.item(), 0.5)
    c = lib.tensor([1.0], requires_grad=True)
    opt.add_param_group({"params": c, "momentum": 0.9})
    assert opt.param_groups[2]["lr"] == 0.1 and opt.param_groups[2]["momentum"] == 0.9


def test_zero_grad(lib):
    p = lib.tensor([1.0, 2.0], requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert show(p.grad) == "tensor([0., 0.])"
    opt.zero_grad()
    assert p.grad is None


def test_step_skips_parameters_without_grad_and_records_nothing(lib):
    p = lib.tensor([1.0], requires_grad=True)
    q = lib.tensor([5.0], requires_grad=True)
    opt = lib.optim.Adam([p, q], lr=0.1)
    (p * 3).sum().backward()
    opt.step()
    assert q.item() == 5.0 and len(opt.state[q]) == 0
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    assert p._version == 1  # changed in place exactly once


def test_step_invalidates_a_saved_graph(lib):
    p = lib.tensor([1.0, 2.0], requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.1)
    loss = (p * p).sum()
    loss.backward(retain_graph=True)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_closure(lib):
    p = lib.tensor([2.0], requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p ** 2).sum()
        loss.backward()
        return loss

    with lib.no_grad():
        loss = opt.step(closure)  # the closure runs with grad mode on even here
    assert loss.item() == 4.0 and p.item() == 1.0


def test_optimizing_module_parameters(lib):
    layer = lib.nn.Linear(3, 1)
    opt = lib.optim.SGD(layer.parameters(), lr=0.1)
    assert len(opt.param_groups[0]["params"]) == 2


# -- state_dict / load_state_dict ------------------------------------------------------------------
def _stepped(lib, optimizer_class, **settings):
    w = lib.nn.Parameter(lib.tensor([1., 2.]))
    b = lib.nn.Parameter(lib.tensor([0.5]))
    optimizer = optimizer_class(lib, [w, b], **settings)
    (w.sum() + b.sum()).backward()
    optimizer.step()
    return optimizer, w, b


def test_state_dict_as_pytorch(lib):
    optimizer, _, _ = _stepped(lib, lambda lib, p, **s: lib.optim.Adam(p, **s), lr=0.1)
    assert show(optimizer.state_dict()) == (
        "{'state': {0: {'step': tensor(1.), 'exp_avg': tensor([0.1000, 0.1000]), "
        "'exp_avg_sq': tensor([0.0010, 0.0010])}, 1: {'step': tensor(1.), 'exp_avg': "
        "tensor([0.1000]), 'exp_avg_sq': tensor([0.0010])}}, 'param_groups': [{'lr': 0.1, "
        "'betas': (0.9, 0.999), 'eps': 1e-08, 'weight_decay': 0, 'amsgrad': False, 'maximize': "
        "False, 'foreach': None, 'capturable': False, 'differentiable': False, 'fused': None, "
        "'decoupled_weight_decay': False, 'params': [0, 1]}]}")
    sgd, _, _ = _stepped(lib, lambda lib, p, **s: lib.optim.SGD(p, **s), lr=0.1, momentum=0.9)
    assert show(sgd.state_dict()["state"]) == (
        "{0: {'momentum_buffer': tensor([1., 1.])}, 1: {'momentum_buffer': tensor([1.])}}")


def test_load_state_dict_continues_where_it_stopped(lib):
    optimizer, w, b = _stepped(lib, lambda lib, p, **s: lib.optim.Adam(p, **s), lr=0.1)
    again = lib.optim.Adam([w, b], lr=0.5)
    again.load_state_dict(optimizer.state_dict())
    assert again.param_groups[0]["lr"] == 0.1
    assert show(again.state[w]["exp_avg"]) == "tensor([0.1000, 0.1000])"
    raises(ValueError, "loaded state dict contains a parameter group that doesn't match the size "
           "of optimizer's group",
           lambda: lib.optim.Adam([w], lr=0.1).load_state_dict(optimizer.state_dict()))


def test_state_of_another_optimizer_is_refused_when_loaded():
    """A deliberate difference: torch loads it and fails at the next step (KeyError: 'step')."""
    sgd, w, b = _stepped(tg, lambda lib, p, **s: lib.optim.SGD(p, **s), lr=0.1, momentum=0.9)
    adam = tg.optim.Adam([w, b])
    with pytest.raises(ValueError, match="^loaded state dict was saved by another kind of "
                       "optimizer: Adam cannot use its entries"):
        adam.load_state_dict(sgd.state_dict())
