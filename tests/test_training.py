"""Training converges, with tensorgrad alone: "training a network is updating weights again and
again". Each test must finish in under 10 seconds (asserted), on data made with NumPy.
"""

import time

import numpy as np
import pytest

import tensorgrad as tg

nn = tg.nn
F = tg.nn.functional

TIME_LIMIT = 10.0  # seconds, per test (the budget)


def two_moons(n_per_class, noise, seed):
    """Two interleaving half circles (scikit-learn's make_moons, written out with NumPy)."""
    rng = np.random.default_rng(seed)
    angle_a = rng.uniform(0, np.pi, n_per_class)
    angle_b = rng.uniform(0, np.pi, n_per_class)
    upper = np.stack([np.cos(angle_a), np.sin(angle_a)], axis=1)
    lower = np.stack([1 - np.cos(angle_b), 0.5 - np.sin(angle_b)], axis=1)
    points = np.concatenate([upper, lower]) + rng.normal(0, noise, (2 * n_per_class, 2))
    labels = np.concatenate([np.zeros(n_per_class), np.ones(n_per_class)]).astype(np.int64)
    return points.astype(np.float32), labels


def spiral(n_per_class, noise, seed):
    """Two interleaved spiral arms, one per class (cs231n's toy set)."""
    rng = np.random.default_rng(seed)
    points, labels = [], []
    for cls in range(2):
        radius = np.linspace(0.1, 1.0, n_per_class)
        angle = np.linspace(cls * np.pi, cls * np.pi + 3.5, n_per_class)
        angle = angle + rng.normal(0, noise, n_per_class)
        points.append(np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1))
        labels.append(np.full(n_per_class, cls))
    return np.concatenate(points).astype(np.float32), np.concatenate(labels).astype(np.int64)


def test_xor_2_16_1_reaches_full_accuracy():
    start = time.perf_counter()
    tg.manual_seed(0)
    x = tg.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = tg.tensor([[0.0], [1.0], [1.0], [0.0]])
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1), nn.Sigmoid())
    optimizer = tg.optim.Adam(model.parameters(), lr=0.05)
    loss_fn = nn.BCELoss()
    for _ in range(300):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
    with tg.no_grad():
        predictions = (model(x) > 0.5).float()
    accuracy = (predictions == y).float().mean().item()
    assert accuracy == 1.0
    assert loss.item() < 0.05
    assert time.perf_counter() - start < TIME_LIMIT


def test_xor_with_sgd_momentum_and_mse():
    start = time.perf_counter()
    tg.manual_seed(1)
    x = tg.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = tg.tensor([[0.0], [1.0], [1.0], [0.0]])
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer = tg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(400):
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    with tg.no_grad():
        predictions = (model(x) > 0.5).float()
    assert (predictions == y).all().item()
    assert time.perf_counter() - start < TIME_LIMIT


@pytest.mark.parametrize("dataset", ["two_moons", "spiral"])
def test_two_layer_mlp_on_a_two_class_set(dataset):
    start = time.perf_counter()
    tg.manual_seed(0)
    if dataset == "two_moons":
        points, labels = two_moons(200, noise=0.1, seed=0)
    else:
        points, labels = spiral(200, noise=0.1, seed=0)
    x, y = tg.tensor(points), tg.tensor(labels)
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 2))
    optimizer = tg.optim.Adam(model.parameters(), lr=0.02)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(400):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
    model.eval()
    with tg.no_grad():
        accuracy = (model(x).argmax(dim=1) == y).float().mean().item()
    assert accuracy >= 0.95, accuracy
    assert time.perf_counter() - start < TIME_LIMIT


def test_minibatches_and_a_held_out_set():
    """Shuffled minibatches, then accuracy on points the model never saw."""
    start = time.perf_counter()
    tg.manual_seed(0)
    train_points, train_labels = two_moons(150, noise=0.1, seed=1)
    test_points, test_labels = two_moons(100, noise=0.1, seed=2)
    x, y = tg.tensor(train_points), tg.tensor(train_labels)
    model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                          nn.Linear(32, 2))
    optimizer = tg.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(40):
        order = tg.randperm(len(x))
        for batch in order.split(32):
            optimizer.zero_grad()
            F.cross_entropy(model(x[batch]), y[batch]).backward()
            optimizer.step()
    with tg.no_grad():
        predictions = model(tg.tensor(test_points)).argmax(dim=1)
    accuracy = (predictions == tg.tensor(test_labels)).float().mean().item()
    assert accuracy >= 0.95, accuracy
    assert time.perf_counter() - start < TIME_LIMIT


def test_saved_weights_reproduce_the_predictions():
    tg.manual_seed(0)
    points, labels = two_moons(100, noise=0.1, seed=3)
    x, y = tg.tensor(points), tg.tensor(labels)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = tg.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(100):
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
    copy = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    copy.load_state_dict(model.state_dict())
    with tg.no_grad():
        assert tg.equal(model(x), copy(x))
