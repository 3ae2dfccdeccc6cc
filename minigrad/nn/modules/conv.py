"""``Conv1d``/``Conv2d``/``Conv3d`` and ``ConvTranspose1d``/``ConvTranspose2d``/
``ConvTranspose3d``. Mirrors ``torch/nn/modules/conv.py`` (``_ConvNd``, ``Conv1d``, ``Conv2d``,
``Conv3d``, ``_ConvTransposeNd`` + the transposed ones); all subclass ``_ConvNd`` (class
attributes ``_dims`` and ``_transposed`` select the rank and the weight layout).
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


def _pair(x, n: int = 2) -> tuple:
    """``3`` → ``(3, 3)``; an iterable is returned as a tuple (``torch.nn.modules.utils._pair``;
    ``n=1`` is ``_single``)."""
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,) * n


class _ConvNd(Module):
    """Shared options, parameters and forward of the convolution modules
    (``torch.nn.modules.conv._ConvNd``); ``_dims`` and ``_transposed`` pick the variant."""

    _dims = 2
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        super().__init__()
        k = self._dims
        kernel_size, stride, dilation = (_pair(kernel_size, k), _pair(stride, k),
                                         _pair(dilation, k))
        if not isinstance(padding, str):
            padding = _pair(padding, k)
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
        self.transposed = self._transposed
        self.output_padding = (0,) * k  # (ConvTranspose2d sets its own)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad order: last dim first, (left, right) per dim.
        if isinstance(padding, str):
            pads = [0, 0] * k
            if padding == "same":
                for i, (d, ks) in enumerate(zip(dilation, kernel_size)):
                    total = d * (ks - 1)
                    j = 2 * (k - 1 - i)
                    pads[j], pads[j + 1] = total // 2, total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(padding)
                                                          for _ in range(2))
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups))
        self.weight = _empty_param((*shape, *kernel_size), dtype, device)
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
        conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[self._dims]
        if self.padding_mode == "zeros":
            return conv(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)
        padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return conv(padded, self.weight, self.bias, self.stride, (0,) * self._dims,
                    self.dilation, self.groups)

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


def _size_repr(shape) -> str:
    return f"minigrad.Size({list(shape)})"


class Conv2d(_ConvNd):
    """2-D convolution (cross-correlation) over ``(N, C_in, H, W)`` inputs (``torch.nn.Conv2d``).

    Args: ``in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
    bias=True, padding_mode='zeros', device=None, dtype=None``. ``weight`` has shape
    ``(out_channels, in_channels // groups, kH, kW)``; initialised like ``Linear``
    (kaiming_uniform_(a=sqrt(5)); bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))).

    Raises ValueError as PyTorch does for ``groups <= 0``, channels not divisible by ``groups``,
    an unknown padding string, ``padding='same'`` with a stride, or an unknown padding_mode.
    Only ``padding_mode='zeros'`` runs unless ``F.pad`` is available.
    """


class Conv1d(_ConvNd):
    """1-D convolution over ``(N, C_in, L)`` or ``(C_in, L)`` inputs (``torch.nn.Conv1d``).

    Args as ``Conv2d`` with 1-tuples (``kernel_size=3`` is stored as ``(3,)``); ``weight``
    ``(out_channels, in_channels // groups, k)``. ``forward`` calls ``F.conv1d`` (node
    ``ConvolutionBackward0``). Raises ValueError as ``Conv2d`` does.
    """

    _dims = 1

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)


class _ConvTransposeNd(_ConvNd):
    """Options, output padding and ``output_size`` of the transposed convolutions
    (``torch.nn.modules.conv._ConvTransposeNd``)."""

    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f'{type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)
        self.output_padding = _pair(output_padding, self._dims)

    def _output_padding(self, input, output_size) -> tuple:
        """``torch.nn.modules.conv._ConvTransposeNd._output_padding``."""
        if output_size is None:
            return self.output_padding
        given = output_size
        output_size = list(output_size)
        k = self._dims
        extra = input.ndim - k  # spatial dims, non-spatial dims (1 when unbatched)
        if len(output_size) == k + extra:
            output_size = output_size[extra:]
        if len(output_size) != k:
            raise ValueError(f"ConvTranspose{k}D: for {input.ndim}D input, output_size must "
                             f"have {k} or {k + extra} elements (got {len(output_size)})")
        low = [(input.shape[d + extra] - 1) * self.stride[d] - 2 * self.padding[d]
               + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(k)]
        high = [lo + s - 1 for lo, s in zip(low, self.stride)]
        for d in range(k):
            if not low[d] <= output_size[d] <= high[d]:
                raise ValueError(f"requested an output size of {given}, but valid sizes "
                                 f"range from {low} to {high} (for an input of "
                                 f"{_size_repr(input.shape[2:])})")
        return tuple(o - lo for o, lo in zip(output_size, low))


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution (``torch.nn.ConvTranspose2d``).

    Args: ``in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
    groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None``.
    ``weight`` has shape ``(in_channels, out_channels // groups, kH, kW)``. ``forward(input,
    output_size=None)``: ``output_size`` (the last two sizes, or all of them) picks the
    output padding, as in PyTorch. Raises ValueError for a padding_mode other than 'zeros' or
    an ``output_size`` out of reach.
    """

    _dims = 2

    def forward(self, input, output_size=None):
        if input.ndim not in (3, 4):
            raise ValueError(f"Expected 3D (unbatched) or 4D (batched) input to "
                             f"ConvTranspose2d, but got input of size: {list(input.shape)}")
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution over ``(N, C_in, L)`` or ``(C_in, L)`` inputs
    (``torch.nn.ConvTranspose1d``).

    Args as ``ConvTranspose2d`` with 1-tuples; ``weight`` has shape
    ``(in_channels, out_channels // groups, k)``. ``forward(input, output_size=None)`` calls
    ``F.conv_transpose1d`` (node ``ConvolutionBackward0``, ``transposed=True``);
    ``output_size`` (the last size, or all of them) picks the output padding. Raises
    ValueError as ``ConvTranspose2d`` does.
    """

    _dims = 1

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


class Conv3d(_ConvNd):
    """3-D convolution over ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)`` inputs
    (``torch.nn.Conv3d``).

    Args as ``Conv2d`` with triples (``kernel_size=3`` is stored as ``(3, 3, 3)``); ``weight``
    ``(out_channels, in_channels // groups, kD, kH, kW)``. ``forward`` calls ``F.conv3d``
    (node ``ConvolutionBackward0``). Raises ValueError as ``Conv2d`` does.
    """

    _dims = 3


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution over ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)`` inputs
    (``torch.nn.ConvTranspose3d``).

    Args as ``ConvTranspose2d`` with triples; ``weight`` has shape
    ``(in_channels, out_channels // groups, kD, kH, kW)``. ``forward(input, output_size=None)``
    calls ``F.conv_transpose3d`` (node ``ConvolutionBackward0``, ``transposed=True``);
    ``output_size`` (the last three sizes, or all of them) picks the output padding. Raises
    ValueError as ``ConvTranspose2d`` does.
    """

    _dims = 3

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)
