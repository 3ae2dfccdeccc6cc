"""``minigrad.nn.modules``: the Module base class, containers and layers.

Mirrors ``torch/nn/modules/__init__.py``.
"""

from .activation import (
    ELU,
    GELU,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv2d
from .dropout import Dropout, Dropout1d, Dropout2d
from .flatten import Flatten
from .instancenorm import InstanceNorm1d, InstanceNorm2d
from .linear import Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module, register_module_forward_hook, register_module_forward_pre_hook
from .normalization import GroupNorm, LayerNorm
from .pooling import AvgPool2d, MaxPool2d
from .sparse import Embedding

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Conv2d", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
    "MaxPool2d", "AvgPool2d", "Flatten", "Dropout", "CrossEntropyLoss", "NLLLoss", "MSELoss",
    "register_module_forward_pre_hook", "register_module_forward_hook",
    "LeakyReLU", "ELU", "GELU", "SiLU", "Softplus", "Dropout2d", "BatchNorm1d", "BatchNorm2d",
    "LayerNorm", "GroupNorm", "Embedding", "InstanceNorm1d", "InstanceNorm2d", "Dropout1d",
    "BCELoss", "BCEWithLogitsLoss",
]
