"""Upsampling: ``upsample_nearest1d/2d/3d`` (nodes ``UpsampleNearest{1,2,3}DBackward0``),
``upsample_linear1d`` (``UpsampleLinear1DBackward0``) and ``upsample_bilinear2d``
(``UpsampleBilinear2DBackward0``), the ops behind ``F.interpolate``.

Mirrors ``aten/src/ATen/native/UpSample.h`` (source-index and weight rules, computed in the
input's float type as PyTorch's CPU kernels do) and ``UpSampleNearest*d.cpp`` /
``UpSampleBilinear2d.cpp``. Every mode is separable: along each spatial dim the output is an
``(out, in)`` interpolation matrix applied to the input (one ``tensordot`` per dim; nearest
gathers instead), and the gradient applies the transposed matrices. Under
``create_graph=True`` that gradient records PyTorch's ``Upsample*BackwardBackward0`` node
(``upsample_*_backward`` is linear in the gradient: its derivative is the upsampling itself,
recorded again as the forward node), so gradients of any order work.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.graph import Node, record
from .conv import like_memory_format

_DIM_NAMES = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}
_SCALE_NAMES = {1: ("scales",), 2: ("scales_h", "scales_w"), 3: ("scales_d", "scales_h",
                                                                  "scales_w")}


def _ftype(dtype):
    return np.float64 if dtype == np.float64 else np.float32


def _scale_value(n_in: int, n_out: int, scale, ft):
    """PyTorch's ``compute_scales_value``: 1/scale when given and > 0, else in/out."""
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(n_in) / ft(n_out)


def nearest_index(n_in: int, n_out: int, scale, ft=np.float32) -> np.ndarray:
    """Source index of each output position: ``min(floor(dst * scale), in - 1)``."""
    dst = np.arange(n_out)
    if n_out == n_in:
        return dst
    if n_out == 2 * n_in:
        return dst >> 1
    s = _scale_value(n_in, n_out, scale, ft)
    return np.minimum(np.floor(dst.astype(ft) * s).astype(np.int64), n_in - 1)


def linear_matrix(n_in: int, n_out: int, align_corners: bool, scale, ft=np.float32):
    """``(out, in)`` matrix of linear-interpolation weights (``compute_source_index_and_lambda``
    of ``UpSample.h``)."""
    a = np.zeros((n_out, n_in), dtype=np.float64)
    dst = np.arange(n_out)
    if n_out == n_in:
        a[dst, dst] = 1.0
        return a
    if align_corners:
        s = ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
        src = s * dst.astype(ft)
    else:
        s = _scale_value(n_in, n_out, scale, ft)
        src = np.maximum(s * (dst.astype(ft) + ft(0.5)) - ft(0.5), ft(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    lam1 = np.clip(src - i0.astype(ft), 0, 1)
    lam0 = ft(1) - lam1
    i1 = i0 + (i0 < n_in - 1)
    np.add.at(a, (dst, i0), lam0)
    np.add.at(a, (dst, i1), lam1)
    return a


def _apply(x: np.ndarray, mats) -> np.ndarray:
    """Contract spatial dim ``d`` of ``x`` (the last ``len(mats)``) with ``mats[d]`` (out, in)."""
    k = len(mats)
    for d, m in enumerate(mats):
        axis = x.ndim - k + d
        x = np.moveaxis(np.tensordot(x, m, axes=([axis], [1])), -1, axis)
    return x


class _UpsampleNode(Node):
    """Shared backward: the gradient contracted with each dim's transposed matrix."""

    def _save_common(self, input, output_size, scales, align_corners=None):
        k = len(output_size)
        if align_corners is not None:
            self._save("align_corners", align_corners)
        self._save("output_size", tuple(output_size))
        for name, s in zip(_SCALE_NAMES[k], scales):
            self._save(name, s)
        self._save("self_sym_sizes", tuple(input.shape))

    def backward(self, g):
        gx = _apply(g._data, [m.T for m in self._mats])
        out = Tensor._make(np.ascontiguousarray(gx, dtype=g._data.dtype))
        if grad_mode.is_grad_enabled():  # create_graph: the gradient's own node
            record(_DOUBLE[type(self)], out, (g,), self)
        return (out,)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, input, *args):
        """dz = the same upsampling of self_t (linear: PyTorch's ``auto_linear``)."""
        return _resample(tangents[0], args[-1], cls, args)


def _resample(x: Tensor, mats, node_cls, node_args) -> Tensor:
    """``x`` contracted with the interpolation matrices ``mats``, recorded as the upsampling
    node ``node_cls(x, *node_args)`` (what a double backward differentiates into)."""
    out = Tensor._make(np.ascontiguousarray(_apply(x._data, mats), dtype=x._data.dtype))
    record(node_cls, out, (x,), x, *node_args)
    return out


class _UpsampleBackwardNode(Node):
    """z = upsample_*_backward(grad_output) (the gradient of an upsampling, under
    create_graph). The map is linear: dz/dgrad_output = the upsampling of grad (the same
    matrices, untransposed). Saves (PyTorch's names): output_size, the scales, align_corners
    for the linear modes."""

    def __init__(self, forward_node):
        Node.__init__(self)
        for name in ("align_corners", "output_size") + _SCALE_NAMES[len(forward_node._mats)]:
            if name in forward_node._saved:
                self._save(name, forward_node._saved[name])
        self._mats, self._forward_cls = forward_node._mats, type(forward_node)
        self._forward_args = forward_node._args

    def backward(self, g):
        return (_resample(g, self._mats, self._forward_cls, self._forward_args),)

    @staticmethod
    def jvp(inputs, tangents, outputs, forward_node):
        """dz = upsample_*_backward(grad_output_t) (linear: ``auto_linear``)."""
        return forward_node.backward(tangents[0])[0]


class UpsampleNearest1DBackwardBackward0(_UpsampleBackwardNode):
    """Double backward of ``UpsampleNearest1DBackward0``: dz/dgrad = upsample_nearest1d(grad).
    Saves: output_size, scales."""


class UpsampleNearest2DBackwardBackward0(_UpsampleBackwardNode):
    """Double backward of ``UpsampleNearest2DBackward0``: dz/dgrad = upsample_nearest2d(grad).
    Saves: output_size, scales_h, scales_w."""


class UpsampleNearest3DBackwardBackward0(_UpsampleBackwardNode):
    """Double backward of ``UpsampleNearest3DBackward0``: dz/dgrad = upsample_nearest3d(grad).
    Saves: output_size, scales_d, scales_h, scales_w."""


class UpsampleLinear1DBackwardBackward0(_UpsampleBackwardNode):
    """Double backward of ``UpsampleLinear1DBackward0``: dz/dgrad = upsample_linear1d(grad).
    Saves: align_corners, output_size, scales."""


class UpsampleBilinear2DBackwardBackward0(_UpsampleBackwardNode):
    """Double backward of ``UpsampleBilinear2DBackward0``: dz/dgrad =
    upsample_bilinear2d(grad). Saves: align_corners, output_size, scales_h, scales_w."""


class UpsampleNearest1DBackward0(_UpsampleNode):
    """z[..., w] = self[..., src(w)], src(w) = min(floor(w * scale), W - 1).
    dz/dself = grad summed over the outputs that copy each input cell.
    Saves: output_size, scales, self_sym_sizes."""

    def __init__(self, input, output_size, scales, mats):
        Node.__init__(self)
        self._save_common(input, output_size, scales)
        self._mats, self._args = mats, (output_size, scales, mats)


class UpsampleNearest2DBackward0(UpsampleNearest1DBackward0):
    """As ``UpsampleNearest1DBackward0`` along H and W.
    Saves: output_size, scales_h, scales_w, self_sym_sizes."""


class UpsampleNearest3DBackward0(UpsampleNearest1DBackward0):
    """As ``UpsampleNearest1DBackward0`` along D, H and W. Saves: output_size, scales_d,
    scales_h, scales_w, self_sym_sizes."""


class UpsampleLinear1DBackward0(_UpsampleNode):
    """z[..., w] = l0(w) * self[..., i0(w)] + l1(w) * self[..., i1(w)] (linear weights of
    ``UpSample.h``). dz/dself = grad spread back with the same weights (transposed matrix).
    Saves: align_corners, output_size, scales, self_sym_sizes."""

    def __init__(self, input, output_size, align_corners, scales, mats):
        Node.__init__(self)
        self._save_common(input, output_size, scales, align_corners)
        self._mats, self._args = mats, (output_size, align_corners, scales, mats)


class UpsampleBilinear2DBackward0(UpsampleLinear1DBackward0):
    """As ``UpsampleLinear1DBackward0`` along H, then W (separable bilinear weights).
    Saves: align_corners, output_size, scales_h, scales_w, self_sym_sizes."""


_NEAREST = {1: UpsampleNearest1DBackward0, 2: UpsampleNearest2DBackward0,
            3: UpsampleNearest3DBackward0}
_LINEAR = {1: UpsampleLinear1DBackward0, 2: UpsampleBilinear2DBackward0}
_DOUBLE = {UpsampleNearest1DBackward0: UpsampleNearest1DBackwardBackward0,
           UpsampleNearest2DBackward0: UpsampleNearest2DBackwardBackward0,
           UpsampleNearest3DBackward0: UpsampleNearest3DBackwardBackward0,
           UpsampleLinear1DBackward0: UpsampleLinear1DBackwardBackward0,
           UpsampleBilinear2DBackward0: UpsampleBilinear2DBackwardBackward0}


def _output_size(input, k, output_size, scales):
    """Output sizes from ``output_size`` or ``floor(in * scale)``; PyTorch's checks."""
    in_sizes = list(input.shape[2:])
    if output_size is None:
        output_size = [int(n * s) for n, s in zip(in_sizes, scales)]
    output_size = [int(o) for o in output_size]
    if any(n <= 0 for n in in_sizes) or any(o <= 0 for o in output_size):
        names = _DIM_NAMES[k]
        inp = ", ".join(f"{a}: {n}" for a, n in zip(names, in_sizes))
        out = ", ".join(f"{a}: {o}" for a, o in zip(names, output_size))
        joint = " and " if k == 1 else " "  # (PyTorch's 1-D message says "and")
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({inp}){joint}output ({out})")
    return output_size


def upsample(input, output_size, scales, mode: str, align_corners=None) -> Tensor:
    """``upsample_nearest{1,2,3}d`` (``mode='nearest'``) or ``upsample_linear1d`` /
    ``upsample_bilinear2d`` (``mode='linear'``) over the last ``input.ndim - 2`` dims.

    ``output_size`` (list of ints) or None with ``scales`` (one float per dim); ``scales`` may
    be None entries (then in/out is used). Output (N, C, *output_size), input's dtype.
    """
    k = input.ndim - 2
    scales = [None] * k if scales is None else [None if s is None else float(s)
                                                 for s in scales]
    out_sizes = _output_size(input, k, output_size, scales)
    saved_scales = scales if output_size is None else [None] * k
    x = input._data
    ft = _ftype(x.dtype)
    if mode == "nearest":
        idx = [nearest_index(n, o, s, ft) for n, o, s in zip(input.shape[2:], out_sizes,
                                                               saved_scales)]
        res = x
        for d, i in enumerate(idx):
            res = np.take(res, i, axis=2 + d)
        mats = [np.eye(n, dtype=np.float64)[i] for n, i in zip(input.shape[2:], idx)]
        res = np.ascontiguousarray(res)
    else:
        mats = [linear_matrix(n, o, align_corners, s, ft) for n, o, s in
                zip(input.shape[2:], out_sizes, saved_scales)]
        res = np.ascontiguousarray(_apply(x, mats), dtype=x.dtype)
    out = Tensor._make(like_memory_format(res, x))  # (channels-last stays so, as PyTorch's)
    if mode == "nearest":
        record(_NEAREST[k], out, (input,), input, out_sizes, saved_scales, mats)
    else:
        record(_LINEAR[k], out, (input,), input, out_sizes, align_corners, saved_scales, mats)
    return out


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False) -> Tensor:
    """Resize ``input`` (N, C, *spatial) (``torch.nn.functional.interpolate``).

    Modes: ``'nearest'`` (3-D, 4-D, 5-D input), ``'linear'`` (3-D), ``'bilinear'`` (4-D),
    with ``align_corners`` (default False) for the linear modes. Exactly one of ``size`` (int
    or one int per spatial dim) and ``scale_factor`` (float or one per dim; output
    ``floor(in * scale)``) is given; ``recompute_scale_factor=True`` derives the sizes and
    forgets the scales. Raises ValueError / NotImplementedError / TypeError with PyTorch's
    messages for bad combinations; other modes and ``antialias`` raise NotImplementedError.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                       for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, "
                                "int] or Tuple[int, int, int], but got size with types "
                                f"{[type(s) for s in size]}")
            output_size = list(size)
        else:
            output_size = [size] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                    "format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias:
        raise NotImplementedError("minigrad: interpolate(antialias=True) is not implemented")
    wanted = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,)}
    if mode in wanted and input.ndim in wanted[mode]:
        return upsample(input, output_size, scale_factors,
                        "nearest" if mode == "nearest" else "linear",
                        None if mode == "nearest" else align_corners)
    need = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if mode in need and input.ndim in (3, 4, 5):
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{need[mode]}D input")
    if mode in ("bicubic", "trilinear", "area", "nearest-exact", "lanczos") and \
            input.ndim in (3, 4, 5):
        raise NotImplementedError(f"minigrad: interpolate(mode='{mode}') is not implemented")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {input.ndim}D) for the modes: nearest | linear | bilinear | bicubic | trilinear"
        f" | lanczos | area | nearest-exact (got {mode})")
