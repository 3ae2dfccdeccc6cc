"""3-D convolution (``conv3d``) and 3-D transposed convolution (``conv_transpose3d``), both
recorded as PyTorch's ``ConvolutionBackward0`` (``transposed=False`` / ``True``).

Mirrors ``aten/src/ATen/native/Convolution.cpp``. The arithmetic is ``conv.py``'s, which works
for any number of spatial dims: im2col over (D, H, W) windows and one matrix product per group
for ``conv3d``; col2im of ``weightᵀ · input`` for ``conv_transpose3d``. Backward and double
backward are the 2-D ones (``ConvolutionBackward0``, ``conv_backward.py``).
"""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd.graph import record
from ._util import widened
from .conv import (
    ConvolutionBackward0,
    _check_conv,
    _conv_args,
    _conv_result,
    _dilated,
    _im2col,
    _same_padding,
)
from .conv_more import _check_transposed, _transposed_args, _transposed_forward


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """3-D cross-correlation (``torch.nn.functional.conv3d``).

    Shapes: ``input`` (N, C, D, H, W) or unbatched (C, D, H, W); ``weight``
    (O, C/groups, kd, kh, kw); ``bias`` (O,) or None. Output (N, O, OD, OH, OW) with
    ``OD = (D + 2*pd - dd*(kd-1) - 1)//sd + 1`` (and so on). ``padding``: int, triple,
    ``'valid'`` or ``'same'`` (stride must be 1; an odd total padding adds a
    ``ConstantPadNdBackward0``). Node ``ConvolutionBackward0(input, weight, bias)``; unbatched
    input adds ``UnsqueezeBackward0``/``SqueezeBackward1``.

    Raises RuntimeError with PyTorch's messages (wrong input rank, channel/group mismatch, bad
    bias, kernel larger than the padded input, non-positive stride/dilation/groups, negative
    padding, bad padding string, ``'same'`` with a stride, dtype mismatch).
    """
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)):
        raise TypeError("conv3d() received an invalid combination of arguments - got ("
                        f"{type(input).__name__}, {type(weight).__name__}, ...)")
    if input.ndim not in (4, 5):
        raise RuntimeError("Expected 4D (unbatched) or 5D (batched) input to conv3d, but got "
                           f"input of size: {list(input.shape)}")
    stride, padding, dilation = _conv_args(stride, padding, dilation, 3)
    if input.ndim == 4:
        return conv3d(input.unsqueeze(0), weight, bias, stride, padding, dilation,
                      groups).squeeze(0)
    valid, string_padding = padding == "valid", isinstance(padding, str)
    if valid:
        padding = (0, 0, 0)
    elif padding == "same":
        input, padding = _same_padding(input, weight, dilation, stacklevel=3)
    if any(d <= 0 for d in dilation):  # (PyTorch's 3-D path words this check its own way)
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    _check_conv(input, weight, bias, stride, padding, dilation, groups, string_padding)
    n = input.shape[0]
    o, _, *kernel = weight.shape
    out_size = tuple((m + 2 * p - _dilated(k, d)) // s + 1 for m, p, k, d, s in
                     zip(input.shape[2:], padding, kernel, dilation, stride))
    cols = _im2col(input._data, kernel, stride, padding, dilation, groups, out_size)
    out = _conv_result(weight._data.reshape(groups, o // groups, -1), cols, bias,
                       (n, o, *out_size), dtype=input._data.dtype)
    node = record(ConvolutionBackward0, out, (input, weight, bias), input, weight, bias,
                  stride, padding, dilation, groups, valid, None, False, (0, 0, 0))
    if node is not None and weight._requires_grad:
        node._cols = cols
    return out


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:
    """3-D transposed convolution (``torch.nn.functional.conv_transpose3d``).

    Shapes: ``input`` (N, C_in, D, H, W) or unbatched (C_in, D, H, W); ``weight``
    (C_in, C_out/groups, kd, kh, kw); ``bias`` (C_out,) or None. Output (N, C_out, OD, OH, OW)
    with ``OD = (D-1)*sd - 2*pd + dd*(kd-1) + output_padding_d + 1`` (and so on). Node
    ``ConvolutionBackward0`` with ``transposed=True``; unbatched input adds
    ``UnsqueezeBackward0``/``SqueezeBackward1``.

    Raises RuntimeError with PyTorch's messages (wrong input rank, channel/group mismatch, bad
    bias, non-positive stride/dilation/groups, negative padding, output_padding not smaller
    than stride or dilation, output too small, dtype mismatch); TypeError for a string padding.
    """
    stride, padding, output_padding, dilation = _transposed_args(
        3, input, weight, stride, padding, output_padding, dilation)
    if input.ndim == 4:
        return conv_transpose3d(input.unsqueeze(0), weight, bias, stride, padding,
                                output_padding, groups, dilation).squeeze(0)
    _check_transposed(input, weight, bias, stride, padding, output_padding, dilation, groups)
    n, c, *size = input.shape
    kernel = weight.shape[2:]
    full = [(m - 1) * s + _dilated(k, d) for m, s, k, d in zip(size, stride, kernel, dilation)]
    out_size = [f - 2 * p + op for f, p, op in zip(full, padding, output_padding)]
    if any(o <= 0 for o in out_size) and n * c:
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, size))}). "
                           f"Calculated output size per channel: "
                           f"({' x '.join(map(str, out_size))}). Output size is too small")
    res = _transposed_forward(input._data, weight._data, stride, padding, dilation, groups,
                              full, out_size)
    if bias is not None:
        res += widened(bias._data).reshape(1, -1, 1, 1, 1)
    out = Tensor._make(res.astype(input._data.dtype, copy=False))
    record(ConvolutionBackward0, out, (input, weight, bias), input, weight, bias, stride,
           padding, dilation, groups, False, None, True, output_padding)
    return out

