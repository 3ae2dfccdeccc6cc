"""``LayerNorm`` and ``GroupNorm``. Mirrors ``torch/nn/modules/normalization.py``.

Neither keeps running statistics: each call normalises with the statistics of its own input
(per sample), so train and eval mode compute the same thing.
"""

from __future__ import annotations

import numbers

from .. import functional as F
from .. import init
from .linear import _empty_param
from .module import Module


class LayerNorm(Module):
    """Normalise over the last ``len(normalized_shape)`` dims (``torch.nn.LayerNorm``).

    ``y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias``, statistics over the normalized
    dims. Args: ``normalized_shape`` (int or tuple), ``eps=1e-5``,
    ``elementwise_affine=True`` (``weight`` ones and ``bias`` zeros of ``normalized_shape``),
    ``bias=True``, ``device``, ``dtype``. Input (*, *normalized_shape), output the same.
    """

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = _empty_param(self.normalized_shape, dtype, device)
            if bias:
                self.bias = _empty_param(self.normalized_shape, dtype, device)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight 1, bias 0 (in place)."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Split the channels into ``num_groups`` groups and normalise each per sample
    (``torch.nn.GroupNorm``).

    Args: ``num_groups``, ``num_channels`` (divisible by ``num_groups``, else ValueError),
    ``eps=1e-5``, ``affine=True`` (per-channel ``weight`` ones and ``bias`` zeros),
    ``device``, ``dtype``, keyword ``bias=True``. Input (N, C, *), output the same.
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = _empty_param((num_channels,), dtype, device)
            if bias:
                self.bias = _empty_param((num_channels,), dtype, device)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight 1, bias 0 (in place)."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")
