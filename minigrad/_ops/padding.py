"""Reflection and replication padding of the last 1 or 2 dims: ``reflection_pad1d/2d``
(``ReflectionPad{1,2}DBackward0``) and ``replication_pad1d/2d``
(``ReplicationPad{1,2}DBackward0``), the ops behind ``F.pad(mode='reflect'|'replicate')``.

Mirrors ``aten/src/ATen/native/ReflectionPad.cpp`` / ``ReplicationPadding.cpp`` and the mode
dispatch of ``PadNd.cpp``. Each padded dim is a gather through an index map (reflect:
``-p`` left of the edge, ``2(n-1) - p`` right of it; replicate: clamp), and the gradient sums
back through the same maps (``np.add.at`` along each dim). Negative padding crops, as in
PyTorch. Backward is computed in NumPy, so double backward (``create_graph=True``) raises
NotImplementedError.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import Node, record
from .nn_activation import no_double_backward

_SUPPORTED = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _index_map(n: int, left: int, right: int, mode: str) -> np.ndarray:
    p = np.arange(-left, n + right)
    if mode == "reflect":
        p = np.abs(p)
        return np.where(p >= n, 2 * (n - 1) - p, p)
    return np.clip(p, 0, n - 1)


class _PadNode(Node):
    """Shared backward: the gradient summed back through each dim's index map."""

    def __init__(self, input, padding, maps):
        Node.__init__(self)
        # PyTorch reports a negative (cropping) entry as its unsigned 64-bit wrap-around
        self._save("padding", tuple(p if p >= 0 else p + 2 ** 64 for p in padding))
        self._save("self", input)
        self._maps = maps

    def backward(self, g):
        no_double_backward(self)
        x = self._get("self")
        gx = g._data
        k = len(self._maps)
        for d, m in enumerate(self._maps):
            axis = gx.ndim - k + d
            shape = list(gx.shape)
            shape[axis] = x.shape[axis]
            acc = np.zeros(shape, dtype=gx.dtype)
            np.add.at(acc, (slice(None),) * axis + (m,), gx)
            gx = acc
        return (Tensor._make(gx),)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, input, padding, maps):
        """dz = the same padding of self_t (reflection/replication pads are linear)."""
        mode = "reflect" if cls.__name__.startswith("Reflection") else "replicate"
        return pad_nonconstant(tangents[0], padding, mode)


class ReflectionPad1DBackward0(_PadNode):
    """z[..., j] = self[..., reflect(j - left)]. dz/dself = grad summed into each source cell.
    Saves: padding, self. Double backward is not supported (computed in NumPy)."""


class ReflectionPad2DBackward0(_PadNode):
    """As ``ReflectionPad1DBackward0`` over the last two dims. Saves: padding, self. Double
    backward is not supported (computed in NumPy)."""


class ReplicationPad1DBackward0(_PadNode):
    """z[..., j] = self[..., clamp(j - left, 0, W - 1)]. dz/dself = grad summed into each
    source cell (the edge cells collect the padding). Saves: padding, self. Double backward
    is not supported (computed in NumPy)."""


class ReplicationPad2DBackward0(_PadNode):
    """As ``ReplicationPad1DBackward0`` over the last two dims. Saves: padding, self. Double
    backward is not supported (computed in NumPy)."""


_NODES = {("reflect", 1): ReflectionPad1DBackward0, ("reflect", 2): ReflectionPad2DBackward0,
          ("replicate", 1): ReplicationPad1DBackward0,
          ("replicate", 2): ReplicationPad2DBackward0}


def pad_nonconstant(input, pad, mode: str) -> Tensor:
    """``F.pad(input, pad, mode)`` for ``mode`` in ``'reflect'``/``'replicate'``.

    ``pad``: ``(left, right)`` for the last dim of a 2-D/3-D input, or ``(left, right, top,
    bottom)`` for the last two dims of a 3-D/4-D input. Output has the padded sizes, input's
    dtype. Raises NotImplementedError for other lengths (PyTorch's message), RuntimeError for
    reflect padding not smaller than the dim, or for an empty non-batch dim.
    """
    pad = tuple(int(p) for p in pad)
    k = len(pad) // 2
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if k not in (1, 2) or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D "
                                  f"input tensor.\n{_SUPPORTED}")
    spatial = input.shape[input.ndim - k:]
    rest = input.shape[:input.ndim - k]
    if any(s == 0 for s in spatial) or (input.ndim == k + 2 and rest[-1] == 0):
        dims = f"{k + 1}D or {k + 2}D"
        raise RuntimeError(f"Expected {dims} (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(input.shape)}")
    pairs = [(pad[2 * (k - 1 - d)], pad[2 * (k - 1 - d) + 1]) for d in range(k)]  # per dim
    if mode == "reflect":
        for d, (n, (lo, hi)) in enumerate(zip(spatial, pairs)):
            if lo >= n or hi >= n:
                arg = 4 if k == 1 else 6
                raise RuntimeError(f"Argument #{arg}: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({lo}, "
                                   f"{hi}) at dimension {input.ndim - k + d} of input "
                                   f"{list(input.shape)}")
    maps = [_index_map(n, lo, hi, mode) for n, (lo, hi) in zip(spatial, pairs)]
    res = input._data
    for d, m in enumerate(maps):
        res = np.take(res, m, axis=input.ndim - k + d)
    out = Tensor._make(np.ascontiguousarray(res))
    record(_NODES[(mode, k)], out, (input,), input, pad, maps)
    return out


def pad_circular(input, pad) -> Tensor:
    """``F.pad(input, pad, mode='circular')`` as PyTorch's ``_pad_circular`` composes it: an
    empty output, the (cropped) input copied into its middle, then each padded side copied
    from the opposite end of the output (``CopySlices`` over ``SliceBackward0`` nodes).

    ``pad`` as for reflect; RuntimeError when a pad is larger than the dim ("wrapping around
    more than once"); the padded dims are the last ``len(pad) // 2`` (batched or not).
    """
    pad = tuple(int(p) for p in pad)
    k = len(pad) // 2
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D "
                                  f"input tensor.\n{_SUPPORTED}")
    in_shape = list(input.shape)
    out_shape = list(in_shape)
    for i in range(k):  # pad[2i], pad[2i+1] pad dim ndim-1-i
        dim = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo > in_shape[dim] or hi > in_shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[dim] = in_shape[dim] + lo + hi

    def sl(t, dim, start, end):  # (aten's slice: a SliceBackward0 even for the full range)
        return t.narrow(dim, start, end - start)

    out = input.new_empty(tuple(out_shape))
    out_slice, in_slice = out, input
    for i in range(k):
        dim = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        out_slice = sl(out_slice, dim, max(lo, 0), out_shape[dim] - max(hi, 0))
        in_slice = sl(in_slice, dim, max(-lo, 0), in_shape[dim] - max(-hi, 0))
    out_slice.copy_(in_slice)
    for i in range(k):
        dim = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo > 0:
            sl(out, dim, 0, lo).copy_(sl(out, dim, out_shape[dim] - lo - max(hi, 0),
                                         out_shape[dim] - max(hi, 0)))
        if hi > 0:
            sl(out, dim, out_shape[dim] - hi, out_shape[dim]).copy_(
                sl(out, dim, max(lo, 0), max(lo, 0) + hi))
    return out
