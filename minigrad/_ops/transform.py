"""Flips, rolls, triangles and diagonals: ``flip roll tril triu diag diagonal trace``, the in-place
``tril_ triu_``, and the in-place view ops ``t_ transpose_ swapaxes_ swapdims_ squeeze_
unsqueeze_``.

Mirrors ``aten/src/ATen/native/TensorTransformations.cpp`` (flip, roll),
``TriangularOps.cpp`` (tril, triu, trace), ``TensorShape.cpp`` (diagonal, diag_embed, the
in-place view ops) and their ``tools/autograd/derivatives.yaml`` entries. ``diagonal`` is a view
(shares memory and the version counter); ``diag`` of a matrix is a copy, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd import graph as _graph
from ..autograd.graph import Node, record
from ._util import (
    at_version,
    attach,
    empty_for,
    normalize_dim,
    normalize_dims,
    saved_dims,
    saved_int,
    sum_dtype,
)
from .shape import SqueezeBackward0, SqueezeBackward2, SqueezeBackward4, TransposeBackward1


# ----------------------------------------------------------------------------- flip / roll
class FlipBackward0(Node):
    """z = self.flip(dims).  dz/dself = grad.flip(dims). Saves: dims (as given)."""

    def __init__(self, dims, norm):
        Node.__init__(self)
        self._save("dims", saved_dims(dims))
        self._dims = norm

    def backward(self, g):
        return (flip(g, self._dims),)

    @staticmethod
    def jvp(inputs, tangents, outputs, dims, norm):
        """dz = self_t.flip(dims)."""
        return flip(tangents[0], norm)


def _dims_arg(dims) -> tuple:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        return tuple(dims[0])
    return tuple(dims)


def flip(input, *dims) -> Tensor:
    """Reverse the order of elements along ``dims`` (``torch.flip``; a copy); node
    ``FlipBackward0``. IndexError for a dim out of range, RuntimeError for a repeated dim."""
    dims = _dims_arg(dims)
    norm = normalize_dims(dims, input.ndim)
    # (always a new array, laid out as the input, as PyTorch's empty_like: np.require would
    # keep a flipped view that happens to be C-contiguous, e.g. the flip of a size-1 dim,
    # which would share memory with the input)
    arr = empty_for(input._data.shape, input._data.dtype, input._data)
    arr[...] = np.flip(input._data, norm)
    out = Tensor._make(arr)
    record(FlipBackward0, out, (input,), dims, norm)
    return out


def fliplr(input) -> Tensor:
    """``flip(input, 1)`` (``torch.fliplr``); RuntimeError below 2 dims."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input) -> Tensor:
    """``flip(input, 0)`` (``torch.flipud``); RuntimeError for a 0-dim tensor."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class Rot90Backward0(Node):
    """z = self.rot90(k, dims).  dz/dself = grad.rot90(-k, dims). Saves: dims, k (as given)."""

    def __init__(self, k, dims):
        Node.__init__(self)
        self._save("dims", saved_dims(dims))
        self._save("k", saved_int(k))
        self._k, self._dims = int(k), tuple(dims)

    def backward(self, g):
        return (rot90(g, -self._k, self._dims),)

    @staticmethod
    def jvp(inputs, tangents, outputs, k, dims):
        """dz = self_t.rot90(k, dims)."""
        return rot90(tangents[0], k, dims)


def rot90(input, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane ``dims``, from the first towards the
    second dim (``torch.rot90``; a copy); node ``Rot90Backward0``. RuntimeError for fewer than
    two dims, a ``dims`` that is not two different dims."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = normalize_dim(dims[0], input.ndim), normalize_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    arr = np.rot90(input._data, int(k), (d0, d1))
    if int(k) % 2:  # (PyTorch transposes a flipped copy: the result's strides are swapped)
        arr = np.ascontiguousarray(arr.swapaxes(d0, d1)).swapaxes(d0, d1)
    else:
        arr = np.require(arr.copy(), requirements="C")
    out = Tensor._make(arr)
    record(Rot90Backward0, out, (input,), k, dims)
    return out


class RollBackward0(Node):
    """z = self.roll(shifts, dims).  dz/dself = grad.roll(-shifts, dims). Saves: dims, shifts
    (tuples, as given)."""

    def __init__(self, shifts, dims):
        Node.__init__(self)
        self._save("dims", saved_dims(dims))
        self._save("shifts", saved_dims(shifts))
        self._shifts, self._dims = shifts, dims

    def backward(self, g):
        return (roll(g, tuple(-s for s in self._shifts), self._dims),)

    @staticmethod
    def jvp(inputs, tangents, outputs, shifts, dims):
        """dz = self_t.roll(shifts, dims)."""
        return roll(tangents[0], shifts, dims or None)


def roll(input, shifts, dims=None) -> Tensor:
    """Shift elements circularly by ``shifts`` along ``dims`` (the flattened tensor when
    ``dims`` is None) (``torch.roll``); node ``RollBackward0``. RuntimeError when shifts and
    dims have different lengths."""
    shifts = (shifts,) if isinstance(shifts, (int, np.integer)) else tuple(shifts)
    dims = () if dims is None else (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    if dims and len(shifts) != len(dims) or not dims and len(shifts) != 1:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                           f"{len(dims)}")
    if dims:
        norm = tuple(normalize_dim(d, input.ndim) for d in dims)
        arr = np.roll(input._data, shifts, norm)
    else:
        arr = np.roll(input._data.reshape(-1), shifts[0]).reshape(input.shape)
    out = Tensor._make(np.require(arr, requirements="C"))
    record(RollBackward0, out, (input,), shifts, dims)
    return out


# ----------------------------------------------------------------------------- triangles
class TrilBackward0(Node):
    """z = self.tril(diagonal).  dz/dself = grad.tril(diagonal). Saves: diagonal."""

    _upper = False

    def __init__(self, k):
        Node.__init__(self)
        self._save("diagonal", saved_int(k))
        self._k = k

    def backward(self, g):
        return ((triu if self._upper else tril)(g, self._k),)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, k):
        """dz = self_t.tril(diagonal) (``triu`` for TriuBackward0)."""
        return (triu if cls._upper else tril)(tangents[0], k)


class TriuBackward0(TrilBackward0):
    """z = self.triu(diagonal).  dz/dself = grad.triu(diagonal). Saves: diagonal."""

    _upper = True


def _triangle(input, k, upper):
    name = "triu" if upper else "tril"
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    arr = (np.triu if upper else np.tril)(input._data, int(k))
    out = Tensor._make(np.require(arr, requirements="C"))
    record(TriuBackward0 if upper else TrilBackward0, out, (input,), int(k))
    return out


def tril(input, diagonal: int = 0) -> Tensor:
    """Lower triangle of the last two dims, the rest zero (``torch.tril``; ``diagonal`` > 0
    keeps more); node ``TrilBackward0``. RuntimeError for fewer than 2 dims."""
    return _triangle(input, diagonal, False)


def triu(input, diagonal: int = 0) -> Tensor:
    """Upper triangle of the last two dims (``torch.triu``); node ``TriuBackward0``."""
    return _triangle(input, diagonal, True)


def _inplace_of(fn, doc_name):
    def op(self, *args, **kwargs):
        from .inplace import _apply_inplace

        return _apply_inplace(self, lambda: fn(self, *args, **kwargs))

    op.__name__ = doc_name
    op.__doc__ = f"In-place ``{doc_name[:-1]}``: modifies self, bumps ``_version``, returns self."
    return op


# ----------------------------------------------------------------------------- diagonals
def _diagonal_array(arr: np.ndarray, offset: int, d1: int, d2: int) -> np.ndarray:
    """A writable NumPy view of the diagonal (``np.diagonal`` is read-only): dims ``d1``,
    ``d2`` removed, the diagonal appended last."""
    n1, n2 = arr.shape[d1], arr.shape[d2]
    n = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    where = [slice(None)] * arr.ndim
    if n:
        where[d2 if offset >= 0 else d1] = slice(abs(offset), None)
    start = arr[tuple(where)] if n else arr
    rest = [k for k in range(arr.ndim) if k not in (d1, d2)]
    shape = tuple(arr.shape[k] for k in rest) + (n,)
    strides = tuple(arr.strides[k] for k in rest) + (arr.strides[d1] + arr.strides[d2],)
    return np.lib.stride_tricks.as_strided(start, shape, strides,
                                           writeable=arr.flags.writeable)


class DiagonalBackward0(Node):
    """z = self.diagonal(offset, dim1, dim2) (a view).  dz/dself = zeros(self_sym_sizes) with
    grad on that diagonal (``diagonal_backward``, itself differentiable). Saves: dim1, dim2,
    offset, self_sym_sizes."""

    def __init__(self, offset, dim1, dim2, sizes, d1, d2):
        Node.__init__(self)
        self._save("dim1", saved_int(dim1))
        self._save("dim2", saved_int(dim2))
        self._save("offset", saved_int(offset))
        self._save("self_sym_sizes", tuple(sizes))
        self._args = (int(offset), d1, d2)

    def backward(self, g):
        return (_diagonal_backward(g, self._saved["self_sym_sizes"], *self._args),)


def _diagonal_backward(g, sizes, offset, d1, d2) -> Tensor:
    """zeros(sizes) with ``g`` on the (offset, d1, d2) diagonal, recorded as
    ``DiagonalBackwardBackward0`` (``diagonal_backward``, differentiable again)."""
    out = Tensor._make(np.zeros(sizes, dtype=g._data.dtype))
    _diagonal_array(out._data, offset, d1, d2)[...] = g._data
    record(DiagonalBackwardBackward0, out, (g,), offset, d1, d2)
    return out


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801  (PyTorch's name)
    """z = diag(self) for a matrix (``diagonal_copy``: a copy).  dz/dself = zeros with grad on
    the diagonal. Saves: dim1, dim2, offset, self_sym_sizes."""

    @staticmethod
    def jvp(inputs, tangents, outputs, offset, *args):
        """dz = diag(self_t, diagonal) (a copy of the tangent's diagonal)."""
        return diag(tangents[0], offset)


class DiagonalBackwardBackward0(Node):
    """z = diagonal_backward(grad, sizes, offset, dim1, dim2).  dz/dgrad =
    grad.diagonal(offset, dim1, dim2)."""

    def __init__(self, offset, d1, d2):
        Node.__init__(self)
        self._args = (offset, d1, d2)

    def backward(self, g):
        return (diagonal(g, *self._args),)

    @staticmethod
    def jvp(inputs, tangents, outputs, offset, d1, d2):
        """dz = diagonal_backward(grad_t, sizes, offset, dim1, dim2) (linear in grad)."""
        return _diagonal_backward(tangents[0], outputs[0].shape, offset, d1, d2)


def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """View of the diagonal of the (``dim1``, ``dim2``) planes, ``offset`` above (> 0) or below
    the main one, as the last dim (``torch.diagonal``); node ``DiagonalBackward0``.
    RuntimeError when dim1 == dim2."""
    d1, d2 = normalize_dim(dim1, input.ndim), normalize_dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    out = input._make_view(_diagonal_array(input._data, int(offset), d1, d2))
    record(DiagonalBackward0, out, (input,), offset, dim1, dim2, input.shape, d1, d2)
    return out


class DiagEmbedBackward0(Node):
    """z = diag_embed(self, offset, dim1, dim2) (also ``diag`` of a vector, dims -2, -1).
    dz/dself = grad.diagonal(offset, dim1, dim2). Saves: dim1, dim2, offset (as given)."""

    def __init__(self, offset, dim1=-2, dim2=-1):
        Node.__init__(self)
        self._save("dim1", saved_int(dim1))
        self._save("dim2", saved_int(dim2))
        self._save("offset", saved_int(offset))
        self._args = (int(offset), dim1, dim2)

    def backward(self, g):
        return (diagonal(g, *self._args),)

    @staticmethod
    def jvp(inputs, tangents, outputs, offset, dim1=None, dim2=None):
        """dz = diag_embed(self_t, offset, dim1, dim2) (``diag`` of a vector: diag(self_t))."""
        if dim1 is None:
            return diag(tangents[0], offset)
        return diag_embed(tangents[0], offset, dim1, dim2)


def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dims ``dim1``, ``dim2`` of the result) with the last dim of ``input`` on
    diagonal ``offset`` (``torch.diag_embed``); node ``DiagEmbedBackward0``. RuntimeError when
    dim1 == dim2."""
    nd = input.ndim + 1
    d1, d2 = normalize_dim(dim1, nd), normalize_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (input.shape[-1] if input.ndim else 1) + abs(int(offset))
    rest = iter(input.shape[:-1])
    shape = tuple(n if k in (d1, d2) else next(rest) for k in range(nd))
    out = Tensor._make(np.zeros(shape, dtype=input._data.dtype))
    _diagonal_array(out._data, int(offset), d1, d2)[...] = input._data
    record(DiagEmbedBackward0, out, (input,), offset, dim1, dim2)
    return out


def diagflat(input, offset: int = 0) -> Tensor:
    """A square matrix with the flattened ``input`` on diagonal ``offset``
    (``torch.diagflat``): ``diag_embed`` of ``input.reshape(-1)``, as PyTorch composes it."""
    return diag_embed(input.reshape(-1), offset)


def diag(input, diagonal: int = 0) -> Tensor:
    """A vector's square matrix with it on diagonal ``diagonal`` (node ``DiagEmbedBackward0``),
    or a copy of a matrix's diagonal (node ``DiagonalBackward0_copy``) (``torch.diag``).
    RuntimeError for other ranks."""
    if input.ndim == 1:
        n = input.shape[0] + abs(int(diagonal))
        out = Tensor._make(np.zeros((n, n), dtype=input._data.dtype))
        _diagonal_array(out._data, int(diagonal), 0, 1)[...] = input._data
        record(DiagEmbedBackward0, out, (input,), diagonal)
        return out
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    arr = np.array(_diagonal_array(input._data, int(diagonal), 0, 1))
    out = Tensor._make(arr)
    record(DiagonalBackward0_copy, out, (input,), diagonal, 0, 1, input.shape, 0, 1)
    return out


class TraceBackward0(Node):
    """z = self.trace().  dz/dself = zeros(numel).index_fill(0, the flat indices k * (ncols +
    1) of the min(nrows, ncols) diagonal elements, grad).view(self_sym_sizes) (PyTorch's
    ``trace_backward``; a step of ncols + 1 through the whole matrix would go past the
    diagonal of a tall one). Saves: self_sym_sizes."""

    def __init__(self, sizes):
        Node.__init__(self)
        self._save("self_sym_sizes", tuple(sizes))

    def backward(self, g):
        from .index_ops import index_fill

        rows, cols = self._saved["self_sym_sizes"]
        zeros = Tensor._make(np.zeros(rows * cols, dtype=g._data.dtype))
        where = Tensor._make(np.arange(min(rows, cols), dtype=np.int64) * (cols + 1))
        # (PyTorch's zeros, then index_fill_: version 2)
        return (at_version(index_fill(zeros, 0, where, g), 2).view(rows, cols),)

    @staticmethod
    def jvp(inputs, tangents, outputs, sizes):
        """dz = self_t.trace() (auto_linear)."""
        return trace(tangents[0])


def trace(input) -> Tensor:
    """Sum of the main diagonal of a matrix (``torch.trace``); node ``TraceBackward0``.
    RuntimeError for a tensor that is not 2-D."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    arr = input._data  # (float16/bfloat16 summed in float32 and rounded once, as PyTorch)
    out = Tensor._make(np.asarray(np.trace(arr, dtype=sum_dtype(arr)), dtype=arr.dtype))
    record(TraceBackward0, out, (input,), input.shape)
    return out


def linalg_diagonal(A, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``torch.linalg.diagonal``: ``diagonal`` of the last two dims by default (a view; node
    ``DiagonalBackward0``); the options are keyword-only."""
    return diagonal(A, offset, dim1, dim2)


# ----------------------------------------------------------------------------- in-place views
class TBackward1(Node):
    """self.t_() (in place).  dz/dself = grad.t(). Saves nothing."""

    def backward(self, g):
        return (g.t(),)


class UnsqueezeBackward1(Node):
    """self.unsqueeze_(dim) (in place).  dz/dself = grad.squeeze(dim). Saves: dim."""

    def __init__(self, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._d = d

    def backward(self, g):
        return (g.squeeze(self._d),)


class SqueezeBackward3(SqueezeBackward0):
    """self.squeeze_() (in place, all size-1 dims).  dz/dself = unsqueeze_to(grad,
    self_sym_sizes). Saves: self_sym_sizes."""


class SqueezeBackward5(SqueezeBackward2):
    """self.squeeze_(dims) with a tuple (in place).  dz/dself = unsqueeze_to(grad, dim,
    self_sym_sizes). Saves: dim (a tuple, as given), self_sym_sizes."""


def _metadata_inplace(self, arr: np.ndarray, node_cls, *args, tangent_fn=None) -> Tensor:
    """Give ``self`` the new layout ``arr`` (a view of its own memory) in place: PyTorch's
    in-place view ops bump the version and rebase the history onto ``node_cls`` (the leaf
    errors of in-place ops apply). Inside a forward-AD level, self's tangent takes the same
    new layout in place (``tangent_fn(tangent)`` gives it; default: ``arr``'s view replayed
    on the tangent's memory)."""
    from .inplace import bump, check_inplace

    check_inplace(self)
    if _graph.fw_on:
        _tangent_metadata_inplace(self, arr, tangent_fn)
    node = None
    if grad_mode.is_grad_enabled() and self.requires_grad:
        if self._base is not None:
            self._sync_view()
        tmp = Tensor._make(arr)
        on, _graph.fw_on = _graph.fw_on, False  # (the tangent changed layout above)
        try:
            node = record(node_cls, tmp, (self,), *args)
        finally:
            _graph.fw_on = on
    self._data = arr
    bump(self)
    if node is not None:
        self._set_history(node)
        self._view_version = self._vc.value
    return self


def _tangent_metadata_inplace(self, arr: np.ndarray, tangent_fn) -> None:
    from ..autograd import forward_ad
    from .inplace import bump

    g = forward_ad.fw_grad(self)
    if g is None:
        return
    if tangent_fn is None:
        new = forward_ad._view_of_tangent(g, Tensor._make(self._data), Tensor._make(arr))
    else:
        _graph.fw_on = False
        try:
            new = tangent_fn(g)
        finally:
            _graph.fw_on = True
    g._data = new._data
    bump(g)


def t_(self) -> Tensor:
    """In-place ``t``: self becomes its transpose (``Tensor.t_``); node ``TBackward1``."""
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.ndim}D")
    return _metadata_inplace(self, self._data.T, TBackward1)


def transpose_(self, dim0: int, dim1: int) -> Tensor:
    """In-place ``transpose`` (``Tensor.transpose_``, also ``swapaxes_``/``swapdims_``); node
    ``TransposeBackward1``."""
    d0, d1 = normalize_dim(dim0, self.ndim), normalize_dim(dim1, self.ndim)
    return _metadata_inplace(self, np.swapaxes(self._data, d0, d1), TransposeBackward1, dim0,
                             dim1, d0, d1)


def unsqueeze_(self, dim: int) -> Tensor:
    """In-place ``unsqueeze`` (``Tensor.unsqueeze_``); node ``UnsqueezeBackward1``."""
    d = normalize_dim(dim, self.ndim + 1)
    return _metadata_inplace(self, np.expand_dims(self._data, d), UnsqueezeBackward1, dim, d)


def squeeze_(self, dim=None) -> Tensor:
    """In-place ``squeeze`` (``Tensor.squeeze_``): all size-1 dims (``SqueezeBackward3``), one
    dim (``SqueezeBackward4``) or a tuple of dims (``SqueezeBackward5``)."""
    shape = self.shape
    if dim is None:
        arr = self._data.reshape([s for s in shape if s != 1])
        return _metadata_inplace(self, arr, SqueezeBackward3, shape)
    if isinstance(dim, (tuple, list)):
        dims = normalize_dims(dim, self.ndim)
        arr = self._data.reshape([s for k, s in enumerate(shape) if not (k in dims and s == 1)])
        return _metadata_inplace(self, arr, SqueezeBackward5, tuple(dim), shape)
    d = normalize_dim(dim, self.ndim)
    arr = self._data.reshape([s for k, s in enumerate(shape) if not (k == d and s == 1)])
    return _metadata_inplace(self, arr, SqueezeBackward4, dim, shape)


attach(Tensor, flip=flip, fliplr=fliplr, flipud=flipud, rot90=rot90, roll=roll, tril=tril,
       triu=triu, diag=diag, diagonal=diagonal,
       diag_embed=diag_embed, diagflat=diagflat,
       trace=trace, tril_=_inplace_of(tril, "tril_"), triu_=_inplace_of(triu, "triu_"),
       t_=t_, transpose_=transpose_, swapaxes_=transpose_, swapdims_=transpose_,
       unsqueeze_=unsqueeze_, squeeze_=squeeze_)
