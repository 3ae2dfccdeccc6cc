"""2-D convolution (``conv2d``, node ``ConvolutionBackward0``) and constant padding
(``constant_pad_nd``, node ``ConstantPadNdBackward0``).

Mirrors ``aten/src/ATen/native/Convolution.cpp`` (argument checks, ``padding='same'``) and
``ConstantPadNd`` in ``PadNd.cpp``. The arithmetic is im2col:

* pad the input with zeros, take every kernel window with
  ``np.lib.stride_tricks.sliding_window_view`` (strided for ``stride``/``dilation``) and lay them
  out as columns ``cols[n, g, (c, i, j), (oh, ow)]``;
* the output of group ``g`` is one matrix product ``weight[g] @ cols[:, g]``.

Backward reuses the columns: ``grad_weight = Σ_n grad · colsᵀ`` and ``grad_input`` is the
*col2im* of ``weightᵀ · grad``: one strided slice-add per kernel position (``kh * kw`` NumPy
calls, each vectorised over the batch). The helpers (windows, im2col, col2im, padding) work
for any number of spatial dims: ``conv3d.py`` uses them as they are, and ``ConvolutionBackward0``
is the node of every convolution (1-D as 2-D of height 1, 2-D, 3-D, plain or transposed).
``ConvolutionBackward0`` computes in NumPy; under
``create_graph=True`` it records PyTorch's ``ConvolutionBackwardBackward0`` instead
(``conv_backward.py``), so gradients of any order work.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .._creation import zeros_like
from .._tensor import _CPP_NAMES, Tensor, empty_strided
from ..autograd import grad_mode
from ..autograd.forward_ad import tangent_sum
from ..autograd.graph import Node, record
from ._util import _strides_in_order, copy_preserving, dims_by_stride, widened


def _pair(value, name: str, k: int = 2) -> tuple:
    """Expand an int to ``k`` ints; check the length of a tuple/list (PyTorch's message)."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * k
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * k
    if len(value) != k:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} values "
                           f"to match the convolution dimensions, but got {name}={list(value)}")
    return value


def _conv_args(stride, padding, dilation, nd: int) -> tuple:
    """``stride, padding, dilation`` of a ``conv{nd}d`` as ``nd``-tuples, in PyTorch's order of
    checks; a padding string stays a string ('same' or 'valid', RuntimeError for another, and
    for 'same' with a stride)."""
    stride, dilation = _pair(stride, "stride", nd), _pair(dilation, "dilation", nd)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        return stride, padding, dilation
    return stride, _pair(padding, "padding", nd), dilation


def _dilated(k: int, d: int) -> int:
    return d * (k - 1) + 1


def _windows(xp: np.ndarray, kernel, stride, dilation, out_size) -> np.ndarray:
    """Strided view ``(N, C, *out_size, *kernel)`` of every kernel window of padded ``xp``
    (any number of spatial dims: ``len(kernel)``)."""
    span = tuple([_dilated(k, d) for k, d in zip(kernel, dilation)])
    win = sliding_window_view(xp, span, axis=tuple(range(2, 2 + len(kernel))))
    starts = tuple([slice(None, s * (o - 1) + 1, s) for s, o in zip(stride, out_size)])
    taps = tuple([slice(None, None, d) for d in dilation])
    return win[(slice(None), slice(None)) + starts + taps]


def _col2im(cols: np.ndarray, padded_size, stride, dilation) -> np.ndarray:
    """Sum columns ``(N, C, *kernel, *out)`` back into a padded image ``(N, C, *padded_size)``:
    one strided slice-add per kernel position."""
    n, c = cols.shape[:2]
    k = (cols.ndim - 2) // 2
    kernel, out_size = cols.shape[2:2 + k], cols.shape[2 + k:]
    out = np.zeros((n, c) + tuple(padded_size), dtype=cols.dtype)
    for pos in itertools.product(*[range(k) for k in kernel]):
        target = tuple([slice(i * d, i * d + s * (o - 1) + 1, s)
                        for i, d, s, o in zip(pos, dilation, stride, out_size)])
        out[(slice(None), slice(None)) + target] += cols[(slice(None), slice(None)) + pos]
    return out


# Batch-last columns. NumPy copies and adds at the speed of the innermost contiguous run of
# its operands; in the layouts above that run is an output row, so on narrow images (the 8x8
# and 4x4 feature maps of a small CNN: runs of 8 or 4 elements) im2col and col2im spend their
# time in NumPy's per-run overhead. There the columns can be laid out (C * prod(kernel),
# prod(out_size) * N) instead, the batch innermost (runs of the batch size), each group's
# product one matrix product over the whole batch. That costs transposes of the input, the
# result and their gradients, which pay only when the columns are the bigger array: more column
# rows per group (C/groups * prod(kernel)) than result rows (O/groups). Wider images keep the
# layouts above, whose runs are long already.
BATCH_LAST_BELOW_WIDTH = 16


def _batch_last(out_size, col_rows: int, out_rows: int) -> bool:
    """Whether a convolution with this output size, ``col_rows`` column rows and ``out_rows``
    result rows per group uses batch-last columns."""
    return out_size[-1] < BATCH_LAST_BELOW_WIDTH and col_rows > out_rows


def _im2col_batch_last(x, kernel, stride, padding, dilation, groups, out_size) -> np.ndarray:
    """Columns ``(groups, C/groups * prod(kernel), prod(out_size) * N)``: `_im2col` with the
    batch as the innermost axis (a contiguous copy)."""
    n, c = x.shape[:2]
    k = len(kernel)
    xl = np.ascontiguousarray(np.moveaxis(pad_hw(x, padding), 0, -1))  # (C, *padded, N)
    span = tuple([_dilated(kk, d) for kk, d in zip(kernel, dilation)])
    win = sliding_window_view(xl, span, axis=tuple(range(1, 1 + k)))  # (C, *out', N, *span)
    starts = tuple([slice(None, s * (o - 1) + 1, s) for s, o in zip(stride, out_size)])
    taps = tuple([slice(None, None, d) for d in dilation])
    win = win[(slice(None),) + starts + (slice(None),) + taps]  # (C, *out, N, *kernel)
    # -> (C, *kernel, *out, N)
    cols = win.transpose((0,) + tuple(range(2 + k, 2 + 2 * k)) + tuple(range(1, 2 + k)))
    return cols.reshape(groups, c // groups * math.prod(kernel), math.prod(out_size) * n)


def _col2im_batch_last(cols: np.ndarray, padded_size, stride, dilation) -> np.ndarray:
    """`_col2im` for batch-last columns: sum ``(C, *kernel, *out, N)`` back into a padded
    image ``(C, *padded_size, N)``, one strided slice-add per kernel position."""
    k = (cols.ndim - 2) // 2
    kernel, out_size = cols.shape[1:1 + k], cols.shape[1 + k:1 + 2 * k]
    out = np.zeros((cols.shape[0],) + tuple(padded_size) + (cols.shape[-1],), dtype=cols.dtype)
    for pos in itertools.product(*[range(k) for k in kernel]):
        target = tuple([slice(i * d, i * d + s * (o - 1) + 1, s)
                        for i, d, s, o in zip(pos, dilation, stride, out_size)])
        out[(slice(None),) + target] += cols[(slice(None),) + pos]
    return out


def _batch_first(a: np.ndarray) -> np.ndarray:
    """A batch-last array ``(C, *spatial, N)`` as the contiguous ``(N, C, *spatial)`` (for
    N = 1 by a reshape: NumPy's moved axis keeps a stride of one element for the batch dim,
    PyTorch's contiguous stride is the size of a sample)."""
    if a.shape[-1] == 1 and a.flags.c_contiguous:
        return a.reshape((1,) + a.shape[:-1])
    return np.ascontiguousarray(np.moveaxis(a, -1, 0))


_CHANNELS_LAST = {4: [1, 3, 2, 0], 5: [1, 4, 3, 2, 0]}  # dims, innermost first


def like_memory_format(y: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    """``y`` laid out channels-last (``channels_last_3d`` when 5-D) if one of ``inputs`` of
    its rank suggests that format (its dims ordered by stride channel-innermost, as
    PyTorch's ``suggest_memory_format``), else ``y`` as it is: PyTorch's CPU conv2d,
    conv_transpose2d, pools and upsampling allocate their results so."""
    order = _CHANNELS_LAST.get(y.ndim)
    if order is None or not y.size or not any(
            a.ndim == y.ndim and a.size and dims_by_stride(
                a.shape, [[st // a.itemsize for st in a.strides]]) == order for a in inputs):
        return y
    out = empty_strided(y.shape, _strides_in_order(y.shape, order, zero_as_one=False), y.dtype)
    out[...] = y
    return out


def pad_hw(x: np.ndarray, padding, value=0) -> np.ndarray:
    """``x`` (…, *spatial) with ``padding[i]`` entries of ``value`` on both sides of the i-th of
    the last ``len(padding)`` dims (``(ph, pw)`` for images)."""
    if not any(padding):
        return x
    k = len(padding)
    spatial = x.shape[-k:]
    out = np.full(x.shape[:-k] + tuple([n + 2 * p for n, p in zip(spatial, padding)]), value,
                  dtype=x.dtype)
    out[(Ellipsis,) + tuple([slice(p, p + n) for p, n in zip(padding, spatial)])] = x
    return out


def _crop(xp: np.ndarray, padding, size) -> np.ndarray:
    """The inverse of `pad_hw`: ``xp[:, :, p0:p0 + n0, p1:p1 + n1, ...]``."""
    return xp[(slice(None), slice(None)) + tuple([slice(p, p + n) for p, n in zip(padding, size)])]


class ConvolutionBackward0(Node):
    """z = conv2d(input, weight, bias) (cross-correlation, as in PyTorch); also the node of
    ``conv1d`` (run as a conv2d of height 1, saving 1-tuples) and of ``conv_transpose2d``
    (``transposed=True``: dz/dinput = conv2d(grad, weight), dz/dweight pairs input with
    im2col(grad); see ``_transposed_backward``).

    dz/dinput = col2im(weightᵀ · grad) (a transposed convolution of grad);
    dz/dweight = Σ over batch and output positions of grad · im2col(input);
    dz/dbias = grad summed over (N, H, W).
    Saves: bias_sym_sizes_opt, dilation, groups, input, output_padding, padding, stride,
    transposed, weight. Under create_graph the three gradients are the outputs of one
    ``ConvolutionBackwardBackward0`` (see ``conv_backward.py``).
    """

    def __init__(self, input, weight, bias, stride, padding, dilation, groups, valid=False,
                 saved=None, transposed=False, output_padding=(0, 0)):
        Node.__init__(self)
        # ``saved``: the (stride, padding, dilation, output_padding) PyTorch records when they
        # differ from the 2-D geometry used here (conv1d runs as a conv2d of height 1)
        if saved is None:
            saved = (stride, (0,) if valid else padding, dilation,
                     (0,) if valid else tuple(output_padding))
        self._save("bias_sym_sizes_opt", tuple(bias.shape) if bias is not None else (0,))
        self._save("dilation", saved[2])
        self._save("groups", groups)
        self._save("input", input)
        # padding='valid' reaches PyTorch's convolution as one-element lists
        self._save("output_padding", saved[3])
        self._save("padding", saved[1])
        self._padding, self._stride, self._dilation = padding, stride, dilation
        self._save("stride", saved[0])
        self._save("transposed", transposed)
        self._save("weight", weight)
        self._cols = None  # im2col of the forward, reused by backward (dropped with the graph)

    def _release_variables(self) -> None:
        super()._release_variables()
        self._cols = None

    def backward(self, g):
        x, w = self._get("input"), self._get("weight")
        if x.ndim != w.ndim:  # (a saved input resized by .data = since: ATen's check)
            raise RuntimeError(f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional "
                               f"weight {list(w.shape)}, but got {x.ndim}-dimensional input of "
                               f"size {list(x.shape)} instead")
        nf = self.next_functions
        mask = (nf[0][0] is not None, nf[1][0] is not None,
                len(nf) > 2 and nf[2][0] is not None)
        if grad_mode.is_grad_enabled():  # create_graph: ConvolutionBackwardBackward0
            from .conv_backward import convolution_backward

            return convolution_backward(self, g, x, w, mask)
        return convolution_grads(self, g, x, w, mask, self._cols)

    @staticmethod
    def jvp(inputs, tangents, outputs, input, weight, bias, stride, padding, dilation, groups,
            valid=False, saved=None, transposed=False, output_padding=(0, 0)):
        """dz = conv(input_t, weight) + conv(input, weight_t, bias_t) (PyTorch's
        ``convolution_jvp``: the convolution is bilinear in input and weight); a missing
        tangent's term is left out (``bias_t`` alone: broadcast over (N, *spatial)) unless
        PyTorch's zero term would make the tangent require grad (its primal factor requires
        grad: then it is computed with a zero tangent, as PyTorch computes every term)."""
        from .conv_backward import _forward

        if saved is None:
            saved = (stride, (0,) if valid else padding, dilation,
                     (0,) if valid else tuple(output_padding))
        geometry = _Geometry({"stride": saved[0], "padding": saved[1], "dilation": saved[2],
                              "output_padding": saved[3], "groups": groups,
                              "transposed": transposed})
        tx, tw, tb = tangents
        if grad_mode.is_grad_enabled():
            if tx is None and weight.requires_grad:
                tx = zeros_like(input)
            if tw is None and input.requires_grad:
                tw = zeros_like(weight)
        first = None if tx is None else _forward(geometry, tx, weight)
        if tw is not None:
            second = _forward(geometry, input, tw)
            if tb is not None:  # (the bias added to the second convolution, as PyTorch's)
                second = second + tb.reshape((1, -1) + (1,) * (input.ndim - 2))
        else:
            second = None if tb is None else tb.reshape((1, -1) + (1,) * (input.ndim - 2))
        return tangent_sum(first, second)


class _Geometry:
    """A convolution's saved geometry (``_saved``: stride, padding, dilation, output_padding,
    groups, transposed), standing in for its node where a formula needs only that."""

    def __init__(self, saved: dict):
        self._saved = saved


def convolution_grads(node, g: Tensor, x: Tensor, w: Tensor, mask, cols=None) -> tuple:
    """``(grad_input, grad_weight, grad_bias)`` of the convolution described by ``node`` (its
    geometry: ``_stride``, ``_padding``, ``_dilation``, saved ``groups`` and ``transposed``)
    for upstream gradient ``g``, input ``x`` and weight ``w``, computed in NumPy; each is None
    where ``mask`` says it is not needed. ``cols``: the im2col of ``x`` if already made."""
    x4, w4, g4 = _as2d(x._data), _as2d(w._data), _as2d(g._data)
    if node._saved["transposed"]:
        gx, gw = _transposed_backward(node, x4, w4, g4, mask)
    else:
        gx, gw = _plain_backward(node, x4, w4, g4, mask, cols)
    gx = None if gx is None else Tensor._make(np.ascontiguousarray(gx.reshape(x.shape),
                                                                   dtype=x._data.dtype))
    gw = None if gw is None else Tensor._make(gw.reshape(w.shape).astype(w._data.dtype,
                                                                         copy=False))
    gb = Tensor._make(g4.sum(axis=(0,) + tuple(range(2, g4.ndim)))) if mask[2] else None
    return gx, gw, gb


def _plain_backward(node, x, w, g, mask, cols=None):
    stride, padding, dilation = node._stride, node._padding, node._dilation
    groups = node._saved["groups"]
    n, c, *size = x.shape
    o, cg, *kernel = w.shape
    out_size = g.shape[2:]
    # (the forward's columns tell their layout: batch-last ones have no batch dim of their own)
    batch_last = (cols.ndim == 3 if cols is not None
                  else _batch_last(out_size, cg * math.prod(kernel), o // groups))
    if batch_last:
        return _plain_backward_batch_last(node, x, w, g, mask, cols)
    gm = g.reshape(n, groups, o // groups, math.prod(out_size))
    gx = gw = None
    if mask[0]:
        wm = w.reshape(groups, o // groups, cg * math.prod(kernel))
        gcols = np.matmul(wm.transpose(0, 2, 1), gm).reshape(n, c, *kernel, *out_size)
        padded = [m + 2 * p for m, p in zip(size, padding)]
        gx = _crop(_col2im(gcols, padded, stride, dilation), padding, size)
    if mask[1]:
        if cols is None:
            cols = _im2col(x, kernel, stride, padding, dilation, groups, out_size)
        # one batched product per sample, summed over the batch (no transposed copies)
        gw = np.matmul(gm, cols.transpose(0, 1, 3, 2)).sum(axis=0)  # (groups, O/g, K)
    return gx, gw


def _plain_backward_batch_last(node, x, w, g, mask, cols=None):
    """`_plain_backward` with batch-last columns: the same products, each over the whole
    batch at once."""
    stride, padding, dilation = node._stride, node._padding, node._dilation
    groups = node._saved["groups"]
    n, c, *size = x.shape
    o, cg, *kernel = w.shape
    out_size = g.shape[2:]
    gl = np.ascontiguousarray(np.moveaxis(g, 0, -1)).reshape(groups, o // groups, -1)
    gx = gw = None
    if mask[0]:
        wm = w.reshape(groups, o // groups, cg * math.prod(kernel))
        gcols = np.matmul(wm.transpose(0, 2, 1), gl).reshape(c, *kernel, *out_size, n)
        padded = [m + 2 * p for m, p in zip(size, padding)]
        gxl = _col2im_batch_last(gcols, padded, stride, dilation)
        gx = np.moveaxis(gxl[(slice(None),) + tuple([slice(p, p + m) for p, m in
                                                      zip(padding, size)])], -1, 0)
    if mask[1]:
        if cols is None:
            cols = _im2col_batch_last(x, kernel, stride, padding, dilation, groups, out_size)
        gw = np.matmul(gl, cols.transpose(0, 2, 1))  # (groups, O/g, K)
    return gx, gw


def _as2d(a: np.ndarray) -> np.ndarray:
    """A 1-D convolution's (N, C, L) array as (N, C, 1, L); 4-D and 5-D arrays unchanged."""
    return a[:, :, None, :] if a.ndim == 3 else a


def _transposed_backward(node, x, w, g, mask):
    """Gradients of a transposed convolution: grad_input is the plain convolution of ``grad``
    with ``weight`` (same stride/padding/dilation), grad_weight pairs ``input`` with the
    im2col of ``grad``."""
    stride, padding, dilation = node._stride, node._padding, node._dilation
    groups = node._saved["groups"]
    n, c, *size = x.shape
    _, og, *kernel = w.shape
    gcols = _im2col(g, kernel, stride, padding, dilation, groups, size)  # (N, G, K, prod(size))
    xm = x.reshape(n, groups, c // groups, math.prod(size))
    gx = gw = None
    if mask[0]:
        wm = w.reshape(groups, c // groups, og * math.prod(kernel))
        gx = np.matmul(wm, gcols)
    if mask[1]:
        gw = np.matmul(xm, gcols.transpose(0, 1, 3, 2)).sum(axis=0)  # (G, C/G, K)
    return gx, gw


def _conv_result(wm: np.ndarray, cols: np.ndarray, bias, shape: tuple,
                 batch_last: bool = False, dtype=None) -> Tensor:
    """``wm @ cols`` (one product per group) viewed as ``shape`` (N, O, *out), plus ``bias``
    along dim 1, as a tensor of the weight's dtype. float16/bfloat16 are multiplied and the bias
    added in float32, then rounded once, as PyTorch's CPU kernels do (NumPy's bfloat16 product
    comes out in float32, its float16 product rounded before the bias is added).
    ``batch_last``: ``cols`` are `_im2col_batch_last`'s, the product (O, *out, N) is moved to
    (N, O, *out). ``dtype``: the input's, when it is not the weight's (an input of no
    elements, which PyTorch convolves without a dtype check: `_check_conv`)."""
    res = np.matmul(widened(wm), widened(cols))
    if batch_last:
        res = _batch_first(res.reshape(shape[1:] + shape[:1]))
    else:
        res = res.reshape(shape)
    if bias is not None:
        res += widened(bias._data).reshape((1, shape[1]) + (1,) * (len(shape) - 2))
    return Tensor._make(res.astype(wm.dtype if dtype is None else dtype, copy=False))


def _im2col(x, kernel, stride, padding, dilation, groups, out_size) -> np.ndarray:
    """Columns ``(N, groups, C/groups * prod(kernel), prod(out_size))`` (a contiguous copy)."""
    n, c = x.shape[:2]
    k = len(kernel)
    win = _windows(pad_hw(x, padding), kernel, stride, dilation, out_size)
    # (N, C, *out, *kernel) -> (N, C, *kernel, *out)
    cols = win.transpose((0, 1) + tuple(range(2 + k, 2 + 2 * k)) + tuple(range(2, 2 + k)))
    return cols.reshape(n, groups, c // groups * math.prod(kernel), math.prod(out_size))


def _check_conv(input, weight, bias, stride, padding, dilation, groups, string_padding=False):
    c = input.shape[1]
    if weight.ndim != input.ndim:
        raise RuntimeError(f"expected stride to be a single integer value or a list of "
                           f"{weight.ndim - 2} values to match the convolution dimensions, but "
                           f"got stride={list(stride)}")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    o = weight.shape[0]
    wshape = list(weight.shape)
    if o % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{wshape}] instead")
    if c != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {wshape}, expected "
                           f"input{list(input.shape)} to have {weight.shape[1] * groups} "
                           f"channels, but got {c} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != o):
        raise RuntimeError(f"Given weight of size {wshape}, expected bias to be 1-dimensional "
                           f"with {o} elements, but got bias of size {list(bias.shape)} instead")
    padded = [n + 2 * p for n, p in zip(input.shape[2:], padding)]
    kernel = [_dilated(k, d) for k, d in zip(weight.shape[2:], dilation)]
    if any(p < k for p, k in zip(padded, kernel)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, kernel))}). Kernel size can't be greater "
                           "than actual input size")
    # (an input of no elements with channels: PyTorch's "empty" convolution is input *
    # weight[0], with no dtype check; the result has the input's dtype, see _conv_result)
    if weight.dtype is not input.dtype and not (input._data.size == 0 and c):
        raise RuntimeError(f"Input type (minigrad.{input.dtype._legacy}) and weight type "
                           f"(minigrad.{weight.dtype._legacy}) should be the same")
    if bias is not None and bias.dtype is not input.dtype and not string_padding:
        # (PyTorch's padding='same'/'valid' path casts the bias instead of checking it)
        raise RuntimeError(f"Input type ({_CPP_NAMES[input.dtype.name]}) and bias type "
                           f"({_CPP_NAMES[bias.dtype.name]}) should be the same")


def _same_padding(input, weight, dilation, stacklevel=4):
    """``padding='same'``: symmetric padding per dim, plus one extra row/column (plane) on the
    bottom/right (an explicit ``constant_pad_nd``) where the total padding is odd."""
    sym, extra = [], []
    for k, d in zip(weight.shape[2:], dilation):
        total = d * (k - 1)
        sym.append(total // 2)
        extra.append(total - 2 * (total // 2))
    if any(extra):
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                      "require a zero-padded copy of the input be created", UserWarning,
                      stacklevel=stacklevel)
        pad = []  # (constant_pad_nd's order: last dim first, (before, after) per dim)
        for e in reversed(extra):
            pad += [0, e]
        input = constant_pad_nd(input, tuple(pad))
    return input, tuple(sym)


def _same_padding_1d(input, weight, dilation):
    """``padding='same'`` for conv1d: symmetric padding, plus one zero on the right (an
    explicit ``constant_pad_nd``) where the total padding is odd."""
    total = dilation[0] * (weight.shape[2] - 1)
    if total % 2:
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may "
                      "require a zero-padded copy of the input be created", UserWarning,
                      stacklevel=4)
        input = constant_pad_nd(input, (0, 1))
    return input, (total // 2,)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """2-D cross-correlation (``torch.nn.functional.conv2d``).

    Shapes: ``input`` (N, C, H, W) or unbatched (C, H, W); ``weight`` (O, C/groups, kh, kw);
    ``bias`` (O,) or None. Output (N, O, OH, OW) with ``OH = (H + 2*ph - dh*(kh-1) - 1)//sh + 1``.
    ``padding``: int, pair, ``'valid'`` (0) or ``'same'`` (output size = input size; stride must
    be 1). Input, weight and bias must share a dtype. Node ``ConvolutionBackward0(input, weight,
    bias)``; unbatched input adds ``UnsqueezeBackward0``/``SqueezeBackward1`` around it.

    Raises RuntimeError with PyTorch's messages for: wrong input rank, channel/group mismatch,
    bad bias size, kernel larger than the padded input, non-positive stride/dilation/groups,
    negative padding, unknown padding string, ``'same'`` with stride > 1, dtype mismatch.
    """
    if input.ndim not in (3, 4):
        raise RuntimeError("Expected 3D (unbatched) or 4D (batched) input to conv2d, but got "
                           f"input of size: {list(input.shape)}")
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if weight.ndim != 4 and padding == "same":
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight{list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    stride, padding, dilation = _conv_args(stride, padding, dilation, 2)
    if input.ndim == 3:
        out = conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups)
        return out.squeeze(0)
    valid, string_padding = padding == "valid", isinstance(padding, str)
    if valid:
        padding = (0, 0)
    elif padding == "same":
        input, padding = _same_padding(input, weight, dilation)
    _check_conv(input, weight, bias, stride, padding, dilation, groups, string_padding)

    n = input.shape[0]
    o, _, kh, kw = weight.shape
    h, w = input.shape[2:]
    oh = (h + 2 * padding[0] - _dilated(kh, dilation[0])) // stride[0] + 1
    ow = (w + 2 * padding[1] - _dilated(kw, dilation[1])) // stride[1] + 1
    wm = weight._data.reshape(groups, o // groups, -1)
    batch_last = _batch_last((oh, ow), wm.shape[2], wm.shape[1])
    if batch_last:  # (groups, O/groups, L * N), made (N, O, OH, OW) by _conv_result
        cols = _im2col_batch_last(input._data, (kh, kw), stride, padding, dilation, groups,
                                  (oh, ow))
    else:  # (N, groups, O/groups, L)
        cols = _im2col(input._data, (kh, kw), stride, padding, dilation, groups, (oh, ow))
    out = _conv_result(wm, cols, bias, (n, o, oh, ow), batch_last, input._data.dtype)
    out = Tensor._make(like_memory_format(out._data, input._data, weight._data))
    node = record(ConvolutionBackward0, out, (input, weight, bias), input, weight, bias,
                  stride, padding, dilation, groups, valid)
    if node is not None and weight._requires_grad:
        node._cols = cols
    return out


# ----------------------------------------------------------------------------- padding
class ConstantPadNdBackward0(Node):
    """z = constant_pad_nd(self, pad, value).  dz/dself = constant_pad_nd(grad, -pad) (the
    gradient cropped back to self's shape). Saves: pad."""

    def __init__(self, pad):
        Node.__init__(self)
        self._save("pad", tuple(pad))

    def backward(self, g):
        return (constant_pad_nd(g, tuple(-p for p in self._saved["pad"])),)

    @staticmethod
    def jvp(inputs, tangents, outputs, pad):
        """dz = constant_pad_nd(self_t, pad, 0)."""
        return constant_pad_nd(tangents[0], pad, 0.0)


def constant_pad_nd(input, pad, value=0.0) -> Tensor:
    """Pad (or crop, for negative entries) the last ``len(pad) // 2`` dims with ``value``.

    ``pad = (left_last, right_last, left_second_last, ...)`` as in
    ``torch.nn.functional.pad(mode='constant')``. Raises RuntimeError for an odd-length
    ``pad``, for more padded dims than the input has, or for a resulting size < 0.
    Node ``ConstantPadNdBackward0``.
    """
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.ndim}")
    shape = list(input.shape)
    src, dst = [slice(None)] * input.ndim, [slice(None)] * input.ndim
    for k in range(len(pad) // 2):
        d = input.ndim - 1 - k
        left, right = pad[2 * k], pad[2 * k + 1]
        if shape[d] + min(left, 0) + min(right, 0) < 0:  # PyTorch crops first (narrow)
            raise RuntimeError("narrow(): length must be non-negative.")
        size = shape[d] + left + right
        if size < 0:
            raise RuntimeError(f"The input size {shape[d]}, plus negative padding {left} and "
                               f"{right} resulted in a negative output size, which is invalid. "
                               f"Check dimension {d} of your input.")
        start, stop = max(-left, 0), shape[d] - max(-right, 0)
        src[d] = slice(start, max(stop, start))
        dst[d] = slice(max(left, 0), max(left, 0) + max(stop - start, 0))
        shape[d] = size
    if all(p <= 0 for p in pad):  # only crops: PyTorch clones the narrowed input (keeping
        arr = copy_preserving(input._data[tuple(src)])  # its layout, as clone does)
    else:
        arr = np.full(shape, value, dtype=input._data.dtype)
        arr[tuple(dst)] = input._data[tuple(src)]
    out = Tensor._make(arr)
    record(ConstantPadNdBackward0, out, (input,), pad)
    return out
