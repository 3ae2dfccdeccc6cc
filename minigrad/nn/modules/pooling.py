"""``MaxPool2d``, ``AvgPool2d``, ``AdaptiveMaxPool2d`` and ``AdaptiveAvgPool2d``. Mirrors
``torch/nn/modules/pooling.py``.

Options are stored exactly as given (an int stays an int, so the repr matches PyTorch's);
``stride`` defaults to ``kernel_size``.
"""

from __future__ import annotations

from .. import functional as F
from .module import Module


class MaxPool2d(Module):
    """2-D max pooling over ``(N, C, H, W)`` or ``(C, H, W)`` (``torch.nn.MaxPool2d``).

    Args: ``kernel_size, stride=None (= kernel_size), padding=0, dilation=1,
    return_indices=False, ceil_mode=False``. With ``return_indices`` returns ``(out, indices)``.
    """

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    """2-D average pooling (``torch.nn.AvgPool2d``).

    Args: ``kernel_size, stride=None (= kernel_size), padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None``.
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveMaxPool2d(Module):
    """Max pooling to a fixed output size (``torch.nn.AdaptiveMaxPool2d``).

    Args: ``output_size`` (int or pair; ``None`` keeps that input size), ``return_indices=False``
    (then ``forward`` returns ``(out, indices)``). Input (N, C, H, W) or (C, H, W).
    """

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed output size (``torch.nn.AdaptiveAvgPool2d``).

    Args: ``output_size`` (int or pair; ``None`` keeps that input size). Input (N, C, H, W)
    or (C, H, W). Output size 1 records ``MeanBackward1``, others
    ``AdaptiveAvgPool2DBackward0``, as in PyTorch.
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
