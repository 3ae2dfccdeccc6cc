"""1-D convolution (``conv1d``) and 1-D / 2-D transposed convolution (``conv_transpose1d``,
``conv_transpose2d``), recorded as PyTorch's ``ConvolutionBackward0`` (``transposed=False`` /
``True``).

Mirrors ``aten/src/ATen/native/Convolution.cpp``. ``conv1d`` runs the 2-D im2col arithmetic of
``conv.py`` on a height-1 view of its input and saves 1-element ``stride``/``padding``/... as
PyTorch does. ``conv_transpose2d`` is the adjoint of ``conv2d``: its forward is the col2im of
``weightᵀ · input`` (one matrix product per group, then one strided slice-add per kernel
position), and its backward is a plain convolution of the gradient; ``conv_transpose1d`` runs
it on height-1 views, as PyTorch does. Double backward: ``conv_backward.py``.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import record
from ._util import widened
from .conv import (
    ConvolutionBackward0,
    _check_conv,
    _col2im,
    _conv_args,
    _conv_result,
    _crop,
    _dilated,
    _im2col,
    _pair,
    _same_padding_1d,
    like_memory_format,
)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """1-D cross-correlation (``torch.nn.functional.conv1d``).

    Shapes: ``input`` (N, C, L) or unbatched (C, L); ``weight`` (O, C/groups, k); ``bias``
    (O,) or None. Output (N, O, OL) with ``OL = (L + 2*p - d*(k-1) - 1)//s + 1``.
    ``padding``: int, 1-tuple, ``'valid'`` or ``'same'`` (stride must be 1; an odd total
    padding adds a ``ConstantPadNdBackward0`` on the right). Node ``ConvolutionBackward0``
    (saving 1-tuples); unbatched input adds ``UnsqueezeBackward0``/``SqueezeBackward1``.

    Raises RuntimeError with PyTorch's messages (wrong input rank, channel/group mismatch, bad
    bias, kernel larger than the padded input, non-positive stride/dilation/groups, negative
    padding, bad padding string, ``'same'`` with a stride, dtype mismatch).
    """
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)):
        raise TypeError("conv1d() received an invalid combination of arguments - got ("
                        f"{type(input).__name__}, {type(weight).__name__}, ...)")
    if input.ndim not in (2, 3):
        raise RuntimeError("Expected 2D (unbatched) or 3D (batched) input to conv1d, but got "
                           f"input of size: {list(input.shape)}")
    if weight.ndim != 3 and input.ndim == 3:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    stride, padding, dilation = _conv_args(stride, padding, dilation, 1)
    if input.ndim == 2:
        return conv1d(input.unsqueeze(0), weight, bias, stride, padding, dilation,
                      groups).squeeze(0)
    string_padding = isinstance(padding, str)
    if padding == "valid":
        padding = (0,)
    elif padding == "same":
        input, padding = _same_padding_1d(input, weight, dilation)
    _check_conv(input, weight, bias, stride, padding, dilation, groups, string_padding)
    n, _, length = input.shape
    o, _, k = weight.shape
    ol = (length + 2 * padding[0] - _dilated(k, dilation[0])) // stride[0] + 1
    geom = ((1, stride[0]), (0, padding[0]), (1, dilation[0]))
    cols = _im2col(input._data[:, :, None, :], (1, k), *geom, groups, (1, ol))
    out = _conv_result(weight._data.reshape(groups, o // groups, -1), cols, bias, (n, o, ol),
                       dtype=input._data.dtype)
    node = record(ConvolutionBackward0, out, (input, weight, bias), input, weight, bias, *geom,
                  groups, False, (stride, padding, dilation, (0,)))
    if node is not None and weight._requires_grad:
        node._cols = cols
    return out


def _transposed_args(nd: int, input, weight, stride, padding, output_padding, dilation):
    """The argument checks every ``conv_transpose{nd}d`` makes first, in PyTorch's order
    (TypeError for a non-tensor or a string argument, RuntimeError for an input of another
    rank); returns ``stride, padding, output_padding, dilation`` as ``nd``-tuples."""
    fn = f"conv_transpose{nd}d"
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)):
        raise TypeError(f"{fn}() received an invalid combination of arguments - "
                        f"got ({type(input).__name__}, {type(weight).__name__}, ...)")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{fn}, but got input of size: {list(input.shape)}")
    args = (("stride", stride), ("padding", padding), ("output_padding", output_padding),
            ("dilation", dilation))
    for name, value in args:
        if isinstance(value, str):
            raise TypeError(f"{fn}(): argument '{name}' must be tuple of ints, not str")
    return tuple(_pair(value, name, nd) for name, value in args)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:
    """2-D transposed convolution (``torch.nn.functional.conv_transpose2d``).

    Shapes: ``input`` (N, C_in, H, W) or unbatched (C_in, H, W); ``weight``
    (C_in, C_out/groups, kh, kw); ``bias`` (C_out,) or None. Output (N, C_out, OH, OW) with
    ``OH = (H-1)*sh - 2*ph + dh*(kh-1) + output_padding_h + 1``. Note the argument order
    (``output_padding, groups, dilation``) is PyTorch's. Node ``ConvolutionBackward0`` with
    ``transposed=True``; unbatched input adds ``UnsqueezeBackward0``/``SqueezeBackward1``.

    Raises RuntimeError with PyTorch's messages (wrong input rank, channel/group mismatch, bad
    bias, non-positive stride/dilation/groups, negative padding, output_padding not smaller
    than stride or dilation, dtype mismatch).
    """
    stride, padding, output_padding, dilation = _transposed_args(
        2, input, weight, stride, padding, output_padding, dilation)
    if input.ndim == 3:
        return conv_transpose2d(input.unsqueeze(0), weight, bias, stride, padding,
                                output_padding, groups, dilation).squeeze(0)
    _check_transposed(input, weight, bias, stride, padding, output_padding, dilation, groups)
    n, c, h, w = input.shape
    _, _, kh, kw = weight.shape
    full = [(s_ - 1) * st + _dilated(k, d) for s_, st, k, d in
            zip((h, w), stride, (kh, kw), dilation)]
    out_hw = [f - 2 * p + op for f, p, op in zip(full, padding, output_padding)]
    if any(o_ <= 0 for o_ in out_hw) and n * c:
        raise RuntimeError(f"Given input size per channel: ({h} x {w}). Calculated output size "
                           f"per channel: ({out_hw[0]} x {out_hw[1]}). Output size is too small")
    res = _transposed_forward(input._data, weight._data, stride, padding, dilation, groups,
                              full, out_hw)
    if bias is not None:
        res += widened(bias._data).reshape(1, -1, 1, 1)
    out = Tensor._make(like_memory_format(res.astype(input._data.dtype, copy=False),
                                          input._data, weight._data))
    record(ConvolutionBackward0, out, (input, weight, bias), input, weight, bias, stride,
           padding, dilation, groups, False, None, True, output_padding)
    return out


def _transposed_forward(x, w, stride, padding, dilation, groups, full, out_size) -> np.ndarray:
    """The arrays of a transposed convolution (any number of spatial dims): col2im of
    ``weightᵀ · input`` (one product per group), cropped by ``padding`` to ``out_size``;
    ``full``: the uncropped size."""
    n, c, *size = x.shape
    _, og, *kernel = w.shape
    wm = w.reshape(groups, c // groups, og * math.prod(kernel))
    xm = x.reshape(n, groups, c // groups, math.prod(size))
    # (float16/bfloat16 in float32: the caller adds the bias and rounds once, as PyTorch)
    cols = np.matmul(widened(wm).transpose(0, 2, 1), widened(xm)).reshape(
        n, groups * og, *kernel, *size)
    buf = [max(f, p + o_) for f, p, o_ in zip(full, padding, out_size)]
    img = _col2im(cols, buf, stride, dilation)
    return np.ascontiguousarray(_crop(img, padding, out_size))


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:
    """1-D transposed convolution (``torch.nn.functional.conv_transpose1d``).

    Shapes: ``input`` (N, C_in, L) or unbatched (C_in, L); ``weight`` (C_in, C_out/groups, k);
    ``bias`` (C_out,) or None. Output (N, C_out, OL) with
    ``OL = (L-1)*s - 2*p + d*(k-1) + output_padding + 1``. Run, as PyTorch runs it, as a 2-D
    transposed convolution of height 1 (its checks and messages speak of a height); node
    ``ConvolutionBackward0`` with ``transposed=True`` saving 1-tuples; unbatched input adds
    ``UnsqueezeBackward0``/``SqueezeBackward1``.

    Raises RuntimeError with PyTorch's messages (wrong input rank, channel/group mismatch, bad
    bias, non-positive stride/dilation/groups, negative padding, output_padding not smaller
    than stride or dilation, dtype mismatch); TypeError for a string padding.
    """
    stride, padding, output_padding, dilation = _transposed_args(
        1, input, weight, stride, padding, output_padding, dilation)
    if input.ndim == 2:
        return conv_transpose1d(input.unsqueeze(0), weight, bias, stride, padding,
                                output_padding, groups, dilation).squeeze(0)
    # the 2-D geometry of height 1 (PyTorch's own route: its messages name a height)
    geom = ((1, stride[0]), (0, padding[0]), (0, output_padding[0]), (1, dilation[0]))
    _check_transposed(input, weight, bias, *geom, groups)
    n, c, length = input.shape
    _, og, k = weight.shape
    full = [1, (length - 1) * stride[0] + _dilated(k, dilation[0])]
    out_hw = [1, full[1] - 2 * padding[0] + output_padding[0]]
    if out_hw[1] <= 0 and n * c:
        raise RuntimeError(f"Given input size per channel: (1 x {length}). Calculated output "
                           f"size per channel: (1 x {out_hw[1]}). Output size is too small")
    res = _transposed_forward(input._data[:, :, None, :], weight._data[:, :, None, :],
                              geom[0], geom[1], geom[3], groups, full, out_hw)
    res = res.reshape(n, og * groups, out_hw[1])
    if bias is not None:
        res += widened(bias._data).reshape(1, -1, 1)
    out = Tensor._make(res.astype(input._data.dtype, copy=False))
    record(ConvolutionBackward0, out, (input, weight, bias), input, weight, bias, geom[0],
           geom[1], geom[3], groups, False, (stride, padding, dilation, output_padding), True)
    return out


def _check_transposed(input, weight, bias, stride, padding, output_padding, dilation, groups):
    """PyTorch's checks for a transposed convolution, in its order and with its messages."""
    if weight.ndim != input.ndim:
        raise RuntimeError(f"expected stride to be a single integer value or a list of "
                           f"{weight.ndim - 2} values to match the convolution dimensions, but "
                           f"got stride={list(stride)}")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        dims = ("depth", "height", "width")[-len(stride):]
        listed = " ".join(f"{what}_{dim}: {v}" for what, values in (
            ("output_padding", output_padding), ("stride", stride), ("dilation", dilation))
            for dim, v in zip(dims, values))
        raise RuntimeError("output padding must be smaller than either stride or dilation, "
                           f"but got {listed}")
    wshape = list(weight.shape)
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{wshape}] instead")
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {wshape}, expected "
                           f"input{list(input.shape)} to have {weight.shape[0]} channels, but "
                           f"got {input.shape[1]} channels instead")
    o = weight.shape[1] * groups
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != o):
        raise RuntimeError(f"Given transposed=1, weight of size {wshape}, expected bias to be "
                           f"1-dimensional with {o} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    if weight.dtype is not input.dtype:  # (the transposed CPU path reports it this way)
        raise RuntimeError(f"expected scalar type {input.dtype._legacy[:-6]} but found "
                           f"{weight.dtype._legacy[:-6]}")
