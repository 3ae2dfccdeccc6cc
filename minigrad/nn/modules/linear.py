"""``Identity`` and ``Linear``.

Mirrors ``torch/nn/modules/linear.py``. ``Linear`` holds ``weight`` (out_features, in_features)
and ``bias`` (out_features) and computes ``F.linear(x, weight, bias)`` = ``x @ weight.T + bias``
(graph ``AddmmBackward0(bias, x, TBackward0(weight))`` for 2-D inputs).
"""

from __future__ import annotations

import math

import numpy as np

from ..._dtype import to_numpy_dtype
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _empty_param(shape, dtype, device=None) -> Parameter:
    """A fresh float Parameter to be filled by an initialiser (``torch.empty`` + Parameter):
    the default dtype unless ``dtype`` is given; ``device`` must be the CPU."""
    from ... import _defaults
    from ..._device import check_device

    check_device(device)
    np_dtype = _defaults.FLOAT if dtype is None else to_numpy_dtype(dtype)
    return Parameter(Tensor._make(np.empty(shape, dtype=np_dtype)))


class Identity(Module):
    """Returns its input unchanged (``torch.nn.Identity``); constructor arguments are ignored."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` (``torch.nn.Linear``).

    Args: ``in_features``, ``out_features``, ``bias=True``, ``device`` (CPU only), ``dtype``.
    Input ``(*, in_features)`` → output ``(*, out_features)``. Weight initialised with
    ``kaiming_uniform_(a=sqrt(5))`` (i.e. U(-1/sqrt(in), 1/sqrt(in))), bias with
    U(-1/sqrt(in), 1/sqrt(in)); both in place, so a fresh weight has ``_version`` 1.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = _empty_param((out_features, in_features), dtype, device)
        if bias:
            self.bias = _empty_param((out_features,), dtype, device)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw weight and bias from the default distributions."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
