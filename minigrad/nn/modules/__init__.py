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
from .loss import BCELoss, HuberLoss, KLDivLoss, L1Loss, SmoothL1Loss
from .activation import MultiheadAttention
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .activation import Hardsigmoid, Hardswish, Hardtanh, Mish, PReLU, ReLU6
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                   ConvTranspose3d)
from .dropout import Dropout, Dropout1d, Dropout2d
from .flatten import Flatten
from .instancenorm import InstanceNorm1d, InstanceNorm2d
from .linear import Identity, Linear
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module, register_module_forward_hook, register_module_forward_pre_hook
from .normalization import GroupNorm, LayerNorm
from .pooling import AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool2d, MaxPool2d
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .sparse import Embedding
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase

from .flatten import Unflatten
from .batchnorm import BatchNorm3d
__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Conv2d", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
    "MaxPool2d", "AvgPool2d", "Flatten", "Dropout", "CrossEntropyLoss", "NLLLoss", "MSELoss",
    "register_module_forward_pre_hook", "register_module_forward_hook",
    "LeakyReLU", "ELU", "GELU", "SiLU", "Softplus", "Dropout2d", "BatchNorm1d", "BatchNorm2d",
    "LayerNorm", "GroupNorm", "Embedding", "InstanceNorm1d", "InstanceNorm2d", "Dropout1d",
    "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
    "BCELoss", "BCEWithLogitsLoss",
]
__all__ += ["L1Loss", "BCELoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss"]
__all__ += ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
            "TransformerDecoderLayer", "TransformerDecoder"]
__all__ += ["Transformer"]
__all__ += ["Unflatten"]
__all__ += ["BatchNorm3d"]
__all__ += ["Hardtanh", "ReLU6", "Hardswish", "Hardsigmoid", "Mish", "PReLU"]
__all__ += ["Conv1d", "ConvTranspose2d"]
__all__ += ["ConvTranspose1d"]
__all__ += ["Conv3d", "ConvTranspose3d"]
__all__ += ["AdaptiveMaxPool2d", "AdaptiveAvgPool2d"]
__all__ += ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]
