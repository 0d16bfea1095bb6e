"""Just enough of `torch.nn` to build and train a small network.

    module.py      Module: parameters found automatically, train/eval, state_dict, repr
    parameter.py   Parameter: a tensor registered as a learnable weight
    modules.py     Linear, Sequential, ModuleList, activations, the losses, Flatten, Dropout,
                   BatchNorm1d, DataParallel (which, with no GPU, runs its module)
    containers.py  ParameterList and ModuleDict: weights in a list, layers by name
    functional.py  the functions behind them: linear, relu, softmax, mse_loss, cross_entropy, ...
    init.py        weight initialisation (uniform, normal, Xavier, Kaiming)
    utils/         gradient clipping: clip_grad_norm_, clip_grad_value_
"""

from . import functional, init, utils
from .containers import ModuleDict, ParameterList
from .module import Module
from .modules import (BatchNorm1d, BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, DataParallel,
                      Dropout, Flatten, Identity, Linear, LogSoftmax, ModuleList, MSELoss, NLLLoss, ReLU,
                      Sequential, Sigmoid, Softmax, Tanh, Unflatten)
from .parameter import Parameter

__all__ = ["Module", "Parameter", "Linear", "Sequential", "ReLU", "Tanh", "Sigmoid", "Softmax",
           "LogSoftmax", "Identity", "MSELoss", "BCELoss", "NLLLoss", "CrossEntropyLoss",
           "BCEWithLogitsLoss", "ModuleList", "Flatten", "Unflatten", "Dropout", "BatchNorm1d",
           "DataParallel", "ParameterList", "ModuleDict", "functional", "init", "utils"]
