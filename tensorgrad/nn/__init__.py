"""Just enough of `torch.nn` to build and train a small network.

    module.py      Module: parameters found automatically, train/eval, state_dict, repr
    parameter.py   Parameter: a tensor registered as a learnable weight
    modules.py     Linear, Sequential, ReLU, Tanh, Sigmoid, Softmax, and the losses
    functional.py  the functions behind them: linear, relu, softmax, mse_loss, cross_entropy, ...
    init.py        weight initialisation (uniform, normal, Xavier, Kaiming)
"""

from . import functional, init
from .module import Module
from .modules import (BCELoss, CrossEntropyLoss, Identity, Linear, LogSoftmax, MSELoss, NLLLoss,
                      ReLU, Sequential, Sigmoid, Softmax, Tanh)
from .parameter import Parameter

__all__ = ["Module", "Parameter", "Linear", "Sequential", "ReLU", "Tanh", "Sigmoid", "Softmax",
           "LogSoftmax", "Identity", "MSELoss", "BCELoss", "NLLLoss", "CrossEntropyLoss",
           "functional", "init"]
