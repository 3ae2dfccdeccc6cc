"""``Conv2d``. Mirrors ``torch/nn/modules/conv.py`` (``_ConvNd`` + ``Conv2d``).

The module stores its options as PyTorch does (``kernel_size`` etc. as 2-tuples, ``padding``
as a 2-tuple or the string ``'same'``/``'valid'``) and calls ``F.conv2d`` in ``forward``
(graph ``ConvolutionBackward0(input, weight, bias)``).
"""

from __future__ import annotations

import math

from .. import functional as F
from .. import init
from .linear import _empty_param
from .module import Module

_VALID_PADDING_STRINGS = {"same", "valid"}
_VALID_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _pair(x) -> tuple:
    """``3`` → ``(3, 3)``; an iterable is returned as a tuple (``torch.nn.modules.utils._pair``)."""
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x, x)


class Conv2d(Module):
    """2-D convolution (cross-correlation) over ``(N, C_in, H, W)`` inputs (``torch.nn.Conv2d``).

    Args: ``in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
    bias=True, padding_mode='zeros', device=None, dtype=None``. ``weight`` has shape
    ``(out_channels, in_channels // groups, kH, kW)``; initialised like ``Linear``
    (kaiming_uniform_(a=sqrt(5)); bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))).

    Raises ValueError as PyTorch does for ``groups <= 0``, channels not divisible by ``groups``,
    an unknown padding string, ``padding='same'`` with a stride, or an unknown padding_mode.
    Only ``padding_mode='zeros'`` runs unless ``F.pad`` is available.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        super().__init__()
        kernel_size, stride, dilation = _pair(kernel_size), _pair(stride), _pair(dilation)
        if not isinstance(padding, str):
            padding = _pair(padding)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _VALID_PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{_VALID_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _VALID_PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_VALID_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = False
        self.output_padding = (0, 0)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad order: last dim first, (left, right) per dim.
        if isinstance(padding, str):
            pads = [0, 0, 0, 0]
            if padding == "same":
                for i, (d, k) in enumerate(zip(dilation, kernel_size)):
                    total = d * (k - 1)
                    j = 2 * (1 - i)
                    pads[j], pads[j + 1] = total // 2, total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = (padding[1], padding[1],
                                                     padding[0], padding[0])
        self.weight = _empty_param((out_channels, in_channels // groups, *kernel_size), dtype,
                                   device)
        if bias:
            self.bias = _empty_param((out_channels,), dtype, device)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw weight and bias from the default distributions."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        if self.padding_mode == "zeros":
            return F.conv2d(input, self.weight, self.bias, self.stride, self.padding,
                            self.dilation, self.groups)
        if not hasattr(F, "pad"):
            raise NotImplementedError(f"minigrad: Conv2d(padding_mode='{self.padding_mode}') "
                                      "needs F.pad, which is not implemented yet")
        padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return F.conv2d(padded, self.weight, self.bias, self.stride, (0, 0), self.dilation,
                        self.groups)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s
