"""``minigrad.nn``: modules, parameters, initialisers and the functional API.

Mirrors ``torch/nn/__init__.py``: ``nn.Module``, ``nn.Parameter``, containers, layers,
``nn.init`` and ``nn.functional`` (import it as ``import minigrad.nn.functional as F``).
"""

import importlib

from . import init
from . import utils
from .modules import (
    LeakyReLU,
    ELU,
    GELU,
    SiLU,
    Softplus,
    Dropout1d,
    Dropout2d,
    BatchNorm1d,
    BatchNorm2d,
    LayerNorm,
    GroupNorm,
    Embedding,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AvgPool2d,
    BCELoss,
    BCEWithLogitsLoss,
    Conv1d,
    Conv2d,
    ConvTranspose1d,
    ConvTranspose2d,
    Conv3d,
    ConvTranspose3d,
    CrossEntropyLoss,
    Dropout,
    Flatten,
    Identity,
    InstanceNorm1d,
    InstanceNorm2d,
    Linear,
    LogSoftmax,
    MaxPool2d,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ParameterDict,
    ParameterList,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
    RNNBase,
    RNN,
    LSTM,
    GRU,
    RNNCellBase,
    RNNCell,
    LSTMCell,
    GRUCell,
)
from .modules import HuberLoss, KLDivLoss, L1Loss, SmoothL1Loss
from .modules import MultiheadAttention
from .modules import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
)
from .modules import Hardsigmoid, Hardswish, Hardtanh, Mish, PReLU, ReLU6
from .parameter import Buffer, Parameter

from .modules import Unflatten
from .modules import BatchNorm3d
__all__ = [
    "Module", "Parameter", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
    "ParameterDict", "Identity", "Linear", "Conv2d", "ReLU", "Sigmoid", "Tanh", "Softmax",
    "LogSoftmax", "MaxPool2d", "AvgPool2d", "Flatten", "Dropout", "CrossEntropyLoss",
    "NLLLoss", "MSELoss", "init", "functional",
    "LeakyReLU", "ELU", "GELU", "SiLU", "Softplus", "Dropout2d", "BatchNorm1d", "BatchNorm2d",
    "LayerNorm", "GroupNorm", "Embedding", "InstanceNorm1d", "InstanceNorm2d", "Dropout1d",
    "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
    "BCELoss", "BCEWithLogitsLoss",
]
__all__ += ["Buffer"]
__all__ += ["L1Loss", "BCELoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss"]
__all__ += ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
            "TransformerDecoderLayer", "TransformerDecoder"]
__all__ += ["Transformer"]
__all__ += ["Unflatten"]
__all__ += ["BatchNorm3d"]
__all__ += ["Hardtanh", "ReLU6", "Hardswish", "Hardsigmoid", "Mish", "PReLU"]
__all__ += ["utils"]


def __getattr__(name):
    # ``nn.functional`` is imported on first use, so this package imports even while
    # functional.py is missing or broken; layer modules also import it lazily in forward().
    if name == "functional":
        return importlib.import_module(".functional", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
__all__ += ["Conv1d", "ConvTranspose2d"]
__all__ += ["ConvTranspose1d"]
__all__ += ["Conv3d", "ConvTranspose3d"]
__all__ += ["AdaptiveMaxPool2d", "AdaptiveAvgPool2d"]
__all__ += ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]
