"""Optimizers: turn gradients into parameter updates.

    optimizer.py   Optimizer: param_groups, per-parameter state, zero_grad()
    sgd.py         SGD (momentum, dampening, Nesterov, weight decay)
    adam.py        Adam (and AdamW-style decoupled weight decay, amsgrad)

The training loop is the same as PyTorch's:

    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
"""

from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam"]
