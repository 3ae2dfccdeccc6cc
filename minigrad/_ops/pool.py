"""2-D pooling: ``max_pool2d`` (``MaxPool2DWithIndicesBackward0``), ``avg_pool2d``
(``AvgPool2DBackward0``) and ``adaptive_avg_pool2d`` (``MeanBackward1`` for output size 1,
``AdaptiveAvgPool2DBackward0`` otherwise).

Mirrors ``aten/src/ATen/native/Pool.h`` (output-size rule and argument checks),
``DilatedMaxPool2d.cpp``, ``AveragePool2d.cpp`` and ``AdaptiveAveragePooling.cpp``.
Forward passes look at all windows at once through ``sliding_window_view``; max pooling keeps
the flat index ``h * W + w`` of each maximum (the ``indices`` PyTorch returns), and its backward
scatters the gradient to those indices. Backward of these nodes is computed in NumPy, so double
backward (``create_graph=True``) through them raises NotImplementedError.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import Node, record
from ._util import quiet_fp, sum_dtype
from .conv import _col2im, _dilated, _windows, like_memory_format, pad_hw
from .nn_activation import no_double_backward


def _pool_arg(value, fn: str, what: str, allow_none: bool = False) -> tuple:
    """int or 1/2-tuple → 2-tuple (PyTorch's messages for other lengths)."""
    if allow_none and (value is None or (isinstance(value, (tuple, list)) and not value)):
        return ()
    if isinstance(value, (int, np.integer)):
        return (int(value),) * 2
    value = tuple(int(v) for v in value)
    if len(value) not in (1, 2):
        must = {"kernel_size": "must either be a single int, or a tuple of two ints",
                "stride": "must either be omitted, a single int, or a tuple of two ints",
                "padding": "must either be a single int, or a tuple of two ints",
                "dilation": "must be either a single int, or a tuple of two ints"}[what]
        raise RuntimeError(f"{fn}: {what} {must}")
    return value * 2 if len(value) == 1 else value


def _out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's ``pooling_output_shape``: the last window must start inside input + left pad."""
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check_pool(input, kernel, stride, padding, dilation, ceil_mode):
    """Validate arguments in PyTorch's order; return ``(OH, OW)``. RuntimeError with
    PyTorch's messages."""
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if any(s == 0 for s in input.shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(input.shape)}")
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    for p in padding:
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    for k, p, d in zip(kernel, padding, dilation):
        if p > _dilated(k, d) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} "
                           f"kW: {kernel[1]}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: "
                           f"{dilation[0]} dilationW: {dilation[1]}")
    if kernel[1] // 2 < padding[1] or kernel[0] // 2 < padding[0]:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, "
                           f"kH = {kernel[0]}")
    h, w = input.shape[-2:]
    oh = _out_size(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode)
    ow = _out_size(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode)
    if oh < 1 or ow < 1:
        c = input.shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{oh}x{ow}). Output size is too small")
    return oh, ow


def _padded(x: np.ndarray, kernel, stride, padding, dilation, out_hw, value) -> np.ndarray:
    """``x`` padded by ``padding`` with ``value``, plus extra bottom/right cells that the last
    ``ceil_mode`` window may cover (filled with ``value`` too)."""
    h, w = x.shape[-2:]
    need = [max((o - 1) * s + _dilated(k, d), n + 2 * p) for o, s, k, d, n, p in
            zip(out_hw, stride, kernel, dilation, (h, w), padding)]
    if need == [h + 2 * padding[0], w + 2 * padding[1]]:
        return pad_hw(x, padding, value)
    out = np.full(x.shape[:-2] + tuple(need), value, dtype=x.dtype)
    out[..., padding[0]:padding[0] + h, padding[1]:padding[1] + w] = x
    return out


def _window_stack(xp: np.ndarray, kernel, stride, dilation, out_hw) -> np.ndarray:
    """``(kh * kw, N, C, OH, OW)``: for each kernel position, the cell it covers in every
    window (a copy). Kernel positions go first because NumPy reduces over a short *leading*
    axis far faster than over a short trailing one."""
    win = _windows(xp, kernel, stride, dilation, out_hw)  # (N, C, OH, OW, kh, kw) view
    k = win.shape[4] * win.shape[5]  # (explicit: -1 is ambiguous for an empty batch)
    return np.moveaxis(win, (4, 5), (0, 1)).reshape((k,) + win.shape[:4])


def _first_argmax(stack: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """Index along axis 0 of the first entry equal to ``vals`` (PyTorch's scan order): from
    the last kernel position to the first, each match replaces the index found so far (0
    where none matches). (``np.where`` makes a new array per position, yet costs half of a
    boolean-mask assignment; ``np.argmax(axis=0)`` copies the axis innermost first.)"""
    arg = np.zeros(vals.shape, dtype=np.int64)
    for k in range(stack.shape[0] - 1, -1, -1):
        arg = np.where(stack[k] == vals, k, arg)
    return arg


def _as4d(x: np.ndarray) -> np.ndarray:
    return x if x.ndim == 4 else x[None]


# ----------------------------------------------------------------------------- max pool
class MaxPool2DWithIndicesBackward0(Node):
    """z[n, c, i, j] = max over the window; indices = flat position h * W + w of each max.
    dz/dself = grad scattered (summed) into self's shape at ``indices``.
    Saves: ceil_mode, dilation, kernel_size, padding, result1 (the indices), self, stride.
    Double backward is not supported (computed in NumPy)."""

    def __init__(self, input, kernel, stride, padding, dilation, ceil_mode, indices):
        Node.__init__(self)
        self._save("ceil_mode", ceil_mode)
        self._save("dilation", dilation)
        self._save("kernel_size", kernel)
        self._save("padding", padding)
        self._save("result1", indices)
        self._save("self", input)
        self._save("stride", stride)

    @staticmethod
    def jvp(inputs, tangents, outputs, input, *args):
        """dz = self_t.flatten(-2).gather(-1, indices.flatten(-2)), viewed as the result
        (each output's tangent is its maximum's)."""
        return _gather_jvp(tangents[0], args[-1], outputs[0])

    def backward(self, g):
        no_double_backward(self)
        x = self._get("self")
        idx = self._get("result1")._data
        if type(self) is MaxPool2DWithIndicesBackward0:  # (not the nodes built on it)
            _check_pool_backward(x, g._data, idx, self._saved)
        h, w = x.shape[-2:]
        planes = int(np.prod(x.shape[:-2], dtype=np.int64))
        per = idx.shape[-2] * idx.shape[-1]  # (explicit: -1 is ambiguous with no planes)
        flat = idx.reshape(planes, per) + (np.arange(planes) * (h * w))[:, None]
        # scatter-add (overlapping windows can share a maximum) in the input's dtype, float32
        # for 16-bit floats; ``np.add.at`` needs no float64 buffer, unlike ``np.bincount``
        dt = x._data.dtype
        acc = np.dtype(np.float32) if dt.itemsize == 2 else dt
        gx = np.zeros(planes * h * w, dtype=acc)
        np.add.at(gx, flat.ravel(), g._data.ravel().astype(acc, copy=False))
        return (Tensor._make(gx.astype(dt, copy=False).reshape(x.shape)),)


def _gather_jvp(tangent: Tensor, indices: Tensor, result: Tensor) -> Tensor:
    """The tangent of a max pool's ``result`` given the flat ``h * W + w`` ``indices`` of its
    maxima: PyTorch's ``gather(self_t.flatten(-2), -1, indices.flatten(-2)).view_as(result)``
    (tensor ops, so it is differentiable when the tangent requires grad)."""
    return tangent.flatten(-2).gather(-1, indices.flatten(-2)).view(result.shape)


def _check_pool_backward(x, g: np.ndarray, idx: np.ndarray, saved) -> None:
    """ATen's ``max_pool2d_backward_shape_check``: the forward's checks on the saved input
    (resized by ``.data =`` since, it may fail them), then the gradient's and the indices'
    plane, height and width against the output size that input gives."""
    s = saved
    oh, ow = _check_pool(x, s["kernel_size"], s["stride"] or s["kernel_size"], s["padding"],
                         s["dilation"], s["ceil_mode"])
    nd = x.ndim
    for t in (g, idx):
        for d, size in ((nd - 3, x.shape[-3]), (nd - 2, oh), (nd - 1, ow)):
            got = t.shape[d] if d < t.ndim else None
            if t.ndim != nd or got != size:
                raise RuntimeError(f"Expected a tensor of dimension {nd} and tensor.size[{d}] "
                                   f"== {size} but got: dimension {t.ndim} and "
                                   f"tensor.size[{d}] = {got}")


def _special_windows(stack, vals, arg, kernel, stride, pad, dil):
    """PyTorch's choice of index where a plain comparison says nothing: the *last* NaN of a
    window wins, and an all ``-inf`` window points at its first cell inside the input."""
    nan = np.isnan(vals)
    if nan.any():
        last = stack.shape[0] - 1 - np.isnan(stack[::-1]).argmax(axis=0)
        arg = np.where(nan, last, arg)
    neg = np.isneginf(vals)
    if neg.any():
        first = []
        for o, s, p, d in zip(arg.shape[2:], stride, pad, dil):
            start = np.arange(o) * s - p
            first.append(np.where(start < 0, -(start // d), 0))  # skip cells in the padding
        first_k = first[0][:, None] * kernel[1] + first[1][None, :]
        arg = np.where(neg, first_k, arg)
    return arg


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-D max pooling (``torch.nn.functional.max_pool2d``).

    ``input`` (N, C, H, W) or (C, H, W); ``stride`` defaults to ``kernel_size``; padding cells
    never win (they hold -inf). Returns the pooled tensor, or ``(output, indices)`` with
    ``return_indices=True`` (int64 flat indices ``h * W + w`` into each input plane; ties go to
    the first maximum in the window, NaN always wins). Node ``MaxPool2DWithIndicesBackward0``.
    Raises RuntimeError (PyTorch's messages) for bad sizes, padding > half the kernel, or an
    empty output.
    """
    kernel = _pool_arg(kernel_size, "max_pool2d", "kernel_size")
    saved_stride = _pool_arg(stride, "max_pool2d", "stride", allow_none=True)
    stride_ = saved_stride or kernel
    pad = _pool_arg(padding, "max_pool2d", "padding")
    dil = _pool_arg(dilation, "max_pool2d", "dilation")
    oh, ow = _check_pool(input, kernel, stride_, pad, dil, ceil_mode)
    x = _as4d(input._data)
    low = -np.inf if x.dtype.kind in "fV" else np.iinfo(x.dtype).min
    xp = _padded(x, kernel, stride_, pad, dil, (oh, ow), low)
    stack = _window_stack(xp, kernel, stride_, dil, (oh, ow))
    vals = stack.max(axis=0)
    arg = _first_argmax(stack, vals)  # the first maximum, as PyTorch's scan keeps it
    if x.dtype.kind in "fV":
        arg = _special_windows(stack, vals, arg, kernel, stride_, pad, dil)
    ki, kj = np.divmod(arg, kernel[1])
    rows = np.arange(oh)[:, None] * stride_[0] - pad[0] + ki * dil[0]
    cols = np.arange(ow)[None, :] * stride_[1] - pad[1] + kj * dil[1]
    indices = rows * input.shape[-1] + cols
    if input.ndim == 3:
        vals, indices = vals[0], indices[0]
    out = Tensor._make(like_memory_format(np.ascontiguousarray(vals), input._data))
    ind = Tensor._make(like_memory_format(indices.astype(np.int64, copy=False), input._data))
    record(MaxPool2DWithIndicesBackward0, out, (input,), input, kernel, saved_stride, pad, dil,
           ceil_mode, ind)
    return (out, ind) if return_indices else out


# ----------------------------------------------------------------------------- avg pool
def _avg_divisor(in_hw, out_hw, kernel, stride, padding, count_include_pad, dtype):
    """Divisor per output cell ``(OH, OW)``, exactly as ``AveragePool2d.cpp`` computes it."""
    sizes = []
    for n, o, k, s, p in zip(in_hw, out_hw, kernel, stride, padding):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        full = end - start
        valid = np.minimum(end, n) - np.maximum(start, 0)
        sizes.append(full if count_include_pad else valid)
    return np.multiply.outer(sizes[0], sizes[1]).astype(dtype)


class AvgPool2DBackward0(Node):
    """z[n, c, i, j] = sum over the window / divisor[i, j].
    dz/dself = each grad[i, j] / divisor[i, j] spread over its window (col2im).
    Saves: ceil_mode, count_include_pad, divisor_override, kernel_size, padding, self, stride.
    Double backward is not supported (computed in NumPy)."""

    def __init__(self, input, kernel, stride, padding, ceil_mode, count_include_pad,
                 divisor_override, divisor, stride_used):
        Node.__init__(self)
        self._save("ceil_mode", ceil_mode)
        self._save("count_include_pad", count_include_pad)
        self._save("divisor_override", divisor_override)
        self._save("kernel_size", kernel)
        self._save("padding", padding)
        self._save("self", input)
        self._save("stride", stride)
        self._divisor = divisor
        self._stride_used = stride_used

    def backward(self, g):
        no_double_backward(self)
        x = self._get("self")
        kh, kw = self._saved["kernel_size"]
        ph, pw = self._saved["padding"]
        h, w = x.shape[-2:]
        g4 = _as4d(g._data / self._divisor)
        oh, ow = g4.shape[2:]
        cols = np.broadcast_to(g4[:, :, None, None], g4.shape[:2] + (kh, kw, oh, ow))
        need = [max((o - 1) * s + k, n + 2 * p) for o, s, k, n, p in
                zip((oh, ow), self._stride_used, (kh, kw), (h, w), (ph, pw))]
        gxp = _col2im(cols, need, self._stride_used, (1, 1))
        gx = np.ascontiguousarray(gxp[:, :, ph:ph + h, pw:pw + w]).reshape(x.shape)
        return (Tensor._make(gx),)

    @staticmethod
    def jvp(inputs, tangents, outputs, input, kernel, stride, padding, ceil_mode,
            count_include_pad, divisor_override, divisor, stride_used):
        """dz = avg_pool2d(self_t) with the same arguments (linear: PyTorch's
        ``auto_linear``)."""
        return avg_pool2d(tangents[0], kernel, stride, padding, ceil_mode, count_include_pad,
                          divisor_override)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling (``torch.nn.functional.avg_pool2d``).

    ``input`` (N, C, H, W) or (C, H, W); ``stride`` defaults to ``kernel_size``. The divisor of
    each window is its size including padding (``count_include_pad=True``) or only the real
    cells, or ``divisor_override``. Node ``AvgPool2DBackward0``. Raises RuntimeError for bad
    sizes, padding > half the kernel, an empty output or ``divisor_override == 0``.
    """
    kernel = _pool_arg(kernel_size, "avg_pool2d", "kernel_size")
    saved_stride = _pool_arg(stride, "avg_pool2d", "stride", allow_none=True)
    stride_ = saved_stride or kernel
    pad = _pool_arg(padding, "avg_pool2d", "padding")
    if input.ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(input.ndim, 1)}, {max(input.ndim, 1) - 1}], but got -3)")
    oh, ow = _check_pool(input, kernel, stride_, pad, (1, 1), ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    x = _as4d(input._data)
    xp = _padded(x, kernel, stride_, pad, (1, 1), (oh, ow), 0)
    # (float16/bfloat16 windows summed in float32, the mean rounded once, as PyTorch)
    sums = _window_stack(xp, kernel, stride_, (1, 1), (oh, ow)).sum(axis=0, dtype=sum_dtype(xp))
    if divisor_override is not None:
        divisor = np.asarray(divisor_override, dtype=x.dtype)
    else:
        divisor = _avg_divisor(input.shape[-2:], (oh, ow), kernel, stride_, pad,
                               count_include_pad, x.dtype)
    res = (sums / divisor).astype(x.dtype, copy=False)
    out = Tensor._make(like_memory_format(np.ascontiguousarray(res[0] if input.ndim == 3 else res),
                                          input._data))
    record(AvgPool2DBackward0, out, (input,), input, kernel, saved_stride, pad, ceil_mode,
           count_include_pad, divisor_override, divisor, stride_)
    return out


# ----------------------------------------------------------------------------- adaptive
def _adaptive_bounds(n: int, o: int):
    i = np.arange(o)
    return (i * n) // o, -((-(i + 1) * n) // o)  # floor(i*n/o), ceil((i+1)*n/o)


class AdaptiveAvgPool2DBackward0(Node):
    """z[i, j] = mean of self over rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the matching
    columns.  dz/dself = each grad[i, j] / area spread uniformly over its box.
    Saves: self. Double backward is not supported (computed in NumPy)."""

    def __init__(self, input):
        Node.__init__(self)
        self._save("self", input)

    def backward(self, g):
        no_double_backward(self)
        x = self._get("self")
        for d in range(1, g.ndim):  # (ATen's backward kernel; the forward allows them)
            if g.shape[d] == 0:
                raise RuntimeError("adaptive_avg_pool2d_backward(): Expected grad_output to have "
                                   "non-zero size for non-batch dimensions, but grad_output has "
                                   f"sizes {list(g.shape)} with dimension {d} being empty")
        h, w = x.shape[-2:]
        oh, ow = g.shape[-2:]
        (hs, he), (ws, we) = _adaptive_bounds(h, oh), _adaptive_bounds(w, ow)
        area = np.multiply.outer(he - hs, we - ws)
        v = g._data / area
        if not np.isfinite(v).all():  # inf / nan: the cumsums would carry them past their
            gx = np.zeros(g.shape[:-2] + (h, w))  # box; add each window directly
            with quiet_fp():
                for i in range(oh):
                    for j in range(ow):
                        gx[..., hs[i]:he[i], ws[j]:we[j]] += v[..., i, j, None, None]
            return (Tensor._make(gx.astype(x._data.dtype)),)
        # Box additions through a 2-D difference array, integrated with two cumsums.
        diff = np.zeros(g.shape[:-2] + (h + 1, w + 1), dtype=np.float64)
        for rs, cs, sign in ((hs, ws, 1), (hs, we, -1), (he, ws, -1), (he, we, 1)):
            np.add.at(diff, (..., rs[:, None], cs[None, :]), sign * v)
        gx = diff.cumsum(-2).cumsum(-1)[..., :h, :w]
        return (Tensor._make(gx.astype(x._data.dtype)),)

    @staticmethod
    def jvp(inputs, tangents, outputs, input):
        """dz = adaptive_avg_pool2d(self_t) to the result's size (linear: ``auto_linear``)."""
        return adaptive_avg_pool2d(tangents[0], tuple(outputs[0].shape[-2:]))


def adaptive_avg_pool2d(input, output_size) -> Tensor:
    """Average pooling to a fixed output size (``torch.nn.functional.adaptive_avg_pool2d``).

    ``output_size``: int or pair; ``None`` in a pair keeps that input size. Output size 1x1
    is ``input.mean((-1, -2), keepdim=True)`` (node ``MeanBackward1``), as in PyTorch; other
    sizes use ``AdaptiveAvgPool2DBackward0``. Raises RuntimeError for a non-3D/4D input, and
    for an empty spatial dim unless the output is 1x1.
    """
    if isinstance(output_size, (tuple, list)) and input.ndim < 3:
        raise ValueError("Input dimension should be at least 3")
    if output_size == 1:  # PyTorch's shortcut, taken before any dimension check
        return input.mean((-1, -2), keepdim=True)
    if input.ndim not in (3, 4):
        raise RuntimeError("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    size = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    oh, ow = (input.shape[-2 + i] if s is None else int(s) for i, s in enumerate(size))
    if oh == 1 and ow == 1:
        return input.mean((-1, -2), keepdim=True)
    for d in (input.ndim - 2, input.ndim - 1):
        if input.shape[d] == 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {d} being empty")
    h, w = input.shape[-2:]
    x = input._data.astype(np.float64)
    integral = np.zeros(x.shape[:-2] + (h + 1, w + 1))
    integral[..., 1:, 1:] = x.cumsum(-2).cumsum(-1)
    (hs, he), (ws, we) = _adaptive_bounds(h, oh), _adaptive_bounds(w, ow)
    if np.isfinite(x).all():
        box = (integral[..., he[:, None], we[None, :]] - integral[..., hs[:, None], we[None, :]]
               - integral[..., he[:, None], ws[None, :]] + integral[..., hs[:, None],
                                                                   ws[None, :]])
        res = box / np.multiply.outer(he - hs, we - ws)
    else:  # inf / nan: the integral image would give inf - inf; average each window directly
        res = np.empty(x.shape[:-2] + (oh, ow))
        with quiet_fp():
            for i in range(oh):
                for j in range(ow):
                    res[..., i, j] = x[..., hs[i]:he[i], ws[j]:we[j]].mean(axis=(-2, -1))
    out = Tensor._make(like_memory_format(np.ascontiguousarray(res, dtype=input._data.dtype),
                                          input._data))
    record(AdaptiveAvgPool2DBackward0, out, (input,), input)
    return out


# ----------------------------------------------------------------------------- adaptive max
class AdaptiveMaxPool2DBackward0(Node):
    """z[i, j] = max of self over rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the matching
    columns; indices = flat position h * W + w of each max.
    dz/dself = grad scattered (summed) into self's shape at ``indices``.
    Saves: result1 (the indices), self. Double backward is not supported (computed in NumPy;
    PyTorch supports it)."""

    def __init__(self, input, indices):
        Node.__init__(self)
        self._save("result1", indices)
        self._save("self", input)

    backward = MaxPool2DWithIndicesBackward0.backward

    @staticmethod
    def jvp(inputs, tangents, outputs, input, indices):
        """dz = self_t.flatten(-2).gather(-1, indices.flatten(-2)), viewed as the result."""
        return _gather_jvp(tangents[0], indices, outputs[0])


def _adaptive_index(n: int, o: int):
    """``(O, K)`` indices of each adaptive bin (K = the largest bin), padded by repeating the
    bin's last index (a repeat never changes the max or its first position)."""
    start, end = _adaptive_bounds(n, o)
    k = int((end - start).max()) if o else 0
    return np.minimum(start[:, None] + np.arange(k)[None, :], end[:, None] - 1)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed output size (``torch.nn.functional.adaptive_max_pool2d``).

    ``input`` (N, C, H, W) or (C, H, W), floating point; ``output_size`` an int or pair
    (``None`` keeps that input size). Bin ``i`` covers rows ``[floor(i*H/OH),
    ceil((i+1)*H/OH))``. Returns the output, or ``(output, indices)`` (int64 flat ``h * W + w``
    of the first maximum; the last NaN wins) with ``return_indices``. Node
    ``AdaptiveMaxPool2DBackward0``. Raises RuntimeError for a non-3D/4D input, an empty
    non-batch dim or a bad ``output_size`` length; NotImplementedError for integer input.
    """
    if input.ndim not in (3, 4):
        raise RuntimeError("adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{list(input.shape)}")
    size = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * 2
    if len(size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    oh, ow = (input.shape[-2 + i] if s is None else int(s) for i, s in enumerate(size))
    for d in range(1, input.ndim):
        if input.shape[d] == 0 and (d >= input.ndim - 3):
            raise RuntimeError("adaptive_max_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {d} being empty")
    if oh < 0 or ow < 0:
        shape = list(input.shape[:-2]) + [oh, ow]
        bad = oh if oh < 0 else ow
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {shape}")
    x = input._data
    if x.dtype.kind not in "fV":
        raise NotImplementedError(f'"adaptive_max_pool2d" not implemented for '
                                  f"'{input.dtype._legacy[:-6]}'")
    h, w = x.shape[-2:]
    ri, ci = _adaptive_index(h, oh), _adaptive_index(w, ow)
    kh, kw = ri.shape[1], ci.shape[1]
    win = x[..., ri[:, None, :, None], ci[None, :, None, :]]  # (..., OH, OW, kh, kw)
    stack = np.moveaxis(win.reshape(x.shape[:-2] + (oh, ow, kh * kw)), -1, 0)
    if stack.shape[0]:
        vals = stack.max(axis=0)
        arg = _first_argmax(stack, vals)
        nan = np.isnan(vals)
        if nan.any():
            arg = np.where(nan, stack.shape[0] - 1 - np.isnan(stack[::-1]).argmax(axis=0), arg)
        a, b = np.divmod(arg, kw)
        rows = np.take_along_axis(np.broadcast_to(ri[:, None, :], (oh, ow, kh)),
                                  a.reshape(-1, oh, ow).transpose(1, 2, 0), axis=2)
        cols = np.take_along_axis(np.broadcast_to(ci[None, :, :], (oh, ow, kw)),
                                  b.reshape(-1, oh, ow).transpose(1, 2, 0), axis=2)
        indices = (rows * w + cols).transpose(2, 0, 1).reshape(vals.shape)
    else:
        vals = np.zeros(x.shape[:-2] + (oh, ow), dtype=x.dtype)
        indices = np.zeros(vals.shape, dtype=np.int64)
    out = Tensor._make(like_memory_format(np.ascontiguousarray(vals), input._data))
    ind = Tensor._make(like_memory_format(np.ascontiguousarray(indices, dtype=np.int64),
                                          input._data))
    record(AdaptiveMaxPool2DBackward0, out, (input,), input, ind)
    return (out, ind) if return_indices else out
