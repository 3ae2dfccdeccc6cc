"""Sorting and order statistics: ``sort argsort msort topk kthvalue median nanmedian mode``,
the index-valued ``searchsorted bucketize`` and the non-differentiable ``unique_consecutive``.

Mirrors ``aten/src/ATen/native/Sorting.cpp`` / ``TensorCompare.cpp`` and their
``tools/autograd/derivatives.yaml`` entries: every op that picks values along a dim saves the
picked ``indices`` and its gradient scatters ``grad`` back to them
(``value_selecting_reduction_backward``); ``median()`` of all elements spreads the gradient
evenly over the elements equal to the result, as ``max()`` does. Results are the named tuples
of `minigrad.return_types`.

Ties: ``sort`` is stable (equal values keep their order, as PyTorch's CPU sort). Among equal
values, ``kthvalue``/``median(dim)`` report the index PyTorch's quickselect happens to land
on, which is not specified; minigrad reports the one at that rank in the stable order, so the
index may differ from PyTorch's when values repeat (the value never does). ``mode`` returns the
smallest of the most frequent values and its last index, as PyTorch's CPU kernel. ``topk`` with
``sorted=False`` returns the values sorted (PyTorch leaves their order unspecified).
"""

from __future__ import annotations

import numpy as np

from .. import return_types as R
from .._tensor import Tensor
from ..autograd.graph import Node, record
from ._util import at_version, attach, empty_for, normalize_dim, saved_int
from .reduction import MaxBackward1


class SortBackward0(Node):
    """(values, indices) = self.sort(dim).  dz/dself = zeros(self_sym_sizes).scatter_(dim,
    indices, grad) (PyTorch's ``value_selecting_reduction_backward``: the result is at
    version 2, a 0-dim one too). Saves: dim (as given), indices, self_sym_sizes."""

    _keepdim = True

    def __init__(self, dim, d, sizes, keepdim=True):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        if type(self)._keepdim is None:
            self._save("keepdim", keepdim)
        self._save("self_sym_sizes", tuple(sizes))
        self._d, self._keep = d, keepdim

    def backward(self, g, _g_indices=None):
        from .scatter_gather import scatter

        sizes = self._saved["self_sym_sizes"]
        idx = self._get("indices")
        if not sizes:  # a 0-dim input: its only element was picked (0-dim scatter)
            idx = idx.reshape(())
        elif not self._keep:
            g, idx = g.unsqueeze(self._d), idx.unsqueeze(self._d)
        zeros = Tensor._make(np.zeros(sizes, dtype=g._data.dtype))
        return (at_version(scatter(zeros, self._d if sizes else 0, idx, g), 2),)

    @staticmethod
    def jvp(inputs, tangents, outputs, dim, d, sizes, keepdim=True):
        """values_t = self_t.gather(dim, indices) (indices unsqueezed at dim without keepdim;
        PyTorch's ``gather_with_keepdimed_indices``); the indices get none."""
        from .scatter_gather import gather

        t, idx = tangents[0], outputs[1]
        if not sizes:  # a 0-dim input: its only element
            return t.clone(), None
        if not keepdim:
            return gather(t, d, idx.unsqueeze(d)).squeeze(d), None
        return gather(t, d, idx), None


class SortBackward1(SortBackward0):
    """(values, indices) = self.sort(stable=..., dim, descending).  dz/dself = zeros with grad
    scattered to indices. Saves: dim, indices, self_sym_sizes."""


class TopkBackward0(SortBackward0):
    """(values, indices) = self.topk(k, dim).  dz/dself = zeros(self_sym_sizes) with grad
    scattered to indices. Saves: dim, indices, self_sym_sizes."""


class KthvalueBackward0(SortBackward0):
    """(values, indices) = self.kthvalue(k, dim, keepdim).  dz/dself = zeros with grad at
    indices. Saves: dim, indices, keepdim, self_sym_sizes."""

    _keepdim = None


class MedianBackward1(KthvalueBackward0):
    """(values, indices) = self.median(dim, keepdim).  dz/dself = zeros with grad at indices.
    Saves: dim, indices, keepdim, self_sym_sizes."""


class NanmedianBackward1(KthvalueBackward0):
    """(values, indices) = self.nanmedian(dim, keepdim).  dz/dself = zeros with grad at
    indices. Saves: dim, indices, keepdim, self_sym_sizes."""


class ModeBackward0(KthvalueBackward0):
    """(values, indices) = self.mode(dim, keepdim).  dz/dself = zeros with grad at indices.
    Saves: dim, indices, keepdim, self_sym_sizes."""


class MedianBackward0(MaxBackward1):
    """z = self.median() (all elements, the lower median).  dz/dself = grad spread evenly over
    the elements equal to the result (the NaNs when it is NaN). Saves: result, self."""

    @staticmethod
    def jvp(inputs, tangents, outputs, self_):
        """dz = (self_t * mask).sum() / mask.sum() with mask = (self == result): the tangents
        of the elements equal to the median, averaged (PyTorch's ``evenly_read_jvp``)."""
        from .pointwise import eq

        mask = eq(self_, outputs[0]).to(tangents[0].dtype)
        return (tangents[0] * mask).sum() / mask.sum()


class NanmedianBackward0(MaxBackward1):
    """z = self.nanmedian() (all elements, NaNs ignored).  dz/dself = grad spread evenly over
    the elements equal to the result. Saves: result, self."""

    jvp = MedianBackward0.jvp


def _stable_order(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices that sort ``a`` along ``axis`` stably, NaN counted as the largest value (a
    descending sort is the ascending sort of the reversed array, reversed: equal values keep
    their order)."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    rev = np.flip(a, axis)
    order = np.argsort(rev, axis=axis, kind="stable")
    return np.flip(n - 1 - order, axis)


def _like_input(arr: np.ndarray, input) -> np.ndarray:
    """``arr`` (of ``input``'s shape) laid out as PyTorch's ``sort`` lays out its results:
    with the input's strides when it is dense, else dense in the order of its strides."""
    out = empty_for(arr.shape, arr.dtype, input._data)
    out[...] = arr
    return out


def _picked(input, dim, node_cls, vals, idx, result_cls, *extra, like_input=False):
    """The ``(values, indices)`` result: C-contiguous (``topk``, ``median`` ...) or, with
    ``like_input``, laid out as the input (``sort``)."""
    if like_input:
        values, indices = Tensor._make(_like_input(vals, input)), Tensor._make(
            _like_input(idx.astype(np.int64), input))
    else:
        values = Tensor._make(np.require(vals, requirements="C"))
        indices = Tensor._make(np.require(idx.astype(np.int64), requirements="C"))
    node = record(node_cls, [values, indices], (input,), dim, *extra)
    if node is not None:
        node._save("indices", indices)
    return result_cls(values, indices)


def sort(input, dim: int = -1, descending: bool = False, *, stable=None):
    """Sort along ``dim`` (``torch.sort``): ``(values, indices)``, node ``SortBackward0``
    (``SortBackward1`` when ``stable`` is given, as PyTorch's two overloads). Always stable;
    NaN sorts as the largest value. IndexError for a dim out of range."""
    d = normalize_dim(dim, input.ndim)
    node_cls = SortBackward0 if stable is None else SortBackward1
    if input.ndim == 0:
        return _picked(input, dim, node_cls, input._data.copy(), np.zeros((), np.int64),
                       R.sort, d, ())
    order = _stable_order(input._data, d, descending)
    vals = np.take_along_axis(input._data, order, d)
    return _picked(input, dim, node_cls, vals, order, R.sort, d, input.shape, like_input=True)


def argsort(input, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """The indices of ``sort`` (``torch.argsort``); no gradient."""
    d = normalize_dim(dim, input.ndim)
    if input.ndim == 0:
        return Tensor._make(np.zeros((), np.int64))
    order = _stable_order(input._data, d, descending).astype(np.int64)
    return Tensor._make(np.require(order, requirements="C"))


def msort(input) -> Tensor:
    """``sort(input, dim=0).values`` (``torch.msort``)."""
    return sort(input, 0).values


def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    """The ``k`` largest (``largest=False``: smallest) elements along ``dim``, in order
    (``torch.topk``): ``(values, indices)``, node ``TopkBackward0``. RuntimeError for k out of
    range."""
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.ndim == 0:
        return _picked(input, dim, TopkBackward0, input._data.copy(), np.zeros((), np.int64),
                       R.topk, d, ())
    order = _stable_order(input._data, d, largest)
    order = order[(slice(None),) * d + (slice(0, k),)]
    vals = np.take_along_axis(input._data, order, d)
    return _picked(input, dim, TopkBackward0, vals, order, R.topk, d, input.shape)


def _at_rank(input, fn, dim, keepdim, rank_of, node_cls, result_cls, nan_policy="largest"):
    """The element at rank ``rank_of(n_valid)`` of the stable ascending order along ``dim``,
    with its index (``kthvalue``, ``median``, ``nanmedian``). ``nan_policy``: "largest" (NaN
    sorts last, but a slice with a NaN gives NaN, as PyTorch's median) or "ignore"."""
    d = normalize_dim(dim, input.ndim)
    if input.ndim == 0:
        vals, idx = input._data.copy(), np.zeros((), np.int64)
        return _picked(input, dim, node_cls, vals, idx, result_cls, d, (), keepdim)
    if input.shape[d] == 0:
        raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")
    a = input._data
    order = _stable_order(a, d, False)
    nan = np.isnan(a) if a.dtype.kind in "fV" else np.zeros(a.shape, bool)
    valid = a.shape[d] - nan.sum(axis=d, keepdims=True)
    if nan_policy == "ignore":
        rank = np.where(valid > 0, rank_of(np.maximum(valid, 1)), 0)
    else:
        rank = np.full(valid.shape, rank_of(a.shape[d]))
    idx = np.take_along_axis(order, rank, d)
    if nan_policy == "largest":  # a slice holding a NaN: the NaN (its first one) is the result
        first_nan = np.argmax(nan, axis=d, keepdims=True)
        idx = np.where(nan.any(axis=d, keepdims=True), first_nan, idx)
    vals = np.take_along_axis(a, idx, d)
    if not keepdim:
        vals, idx = np.squeeze(vals, d), np.squeeze(idx, d)
    return _picked(input, dim, node_cls, vals, idx, result_cls, d, input.shape, keepdim)


def kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    """The ``k``-th smallest element along ``dim`` (``torch.kthvalue``): ``(values,
    indices)``, node ``KthvalueBackward0``. RuntimeError for k out of range."""
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return _at_rank(input, "kthvalue", dim, keepdim, lambda n: k - 1, KthvalueBackward0,
                    R.kthvalue)


def _median_all(input, ignore_nan: bool) -> Tensor:
    a = input._data.reshape(-1)
    if ignore_nan and a.dtype.kind in "fV":
        a = a[~np.isnan(a)]
    if a.size == 0:
        val = np.array(np.nan, dtype=input._data.dtype)
    elif not ignore_nan and a.dtype.kind in "fV" and np.isnan(a).any():
        val = np.array(np.nan, dtype=a.dtype)
    else:
        val = np.sort(a, kind="stable")[(a.size - 1) // 2]
    out = Tensor._make(np.asarray(val, dtype=input._data.dtype))
    node = record(NanmedianBackward0 if ignore_nan else MedianBackward0, out, (input,), input)
    if node is not None:
        node._save("result", out, is_output=True)
    return out


def median(input, dim=None, keepdim: bool = False):
    """The lower median (``torch.median``): of all elements (a 0-dim tensor, node
    ``MedianBackward0``), or ``(values, indices)`` along ``dim`` (``MedianBackward1``). NaN if
    a NaN is present. IndexError for an empty reduction dim."""
    if dim is None:
        return _median_all(input, False)
    return _at_rank(input, "median", dim, keepdim, lambda n: (n - 1) // 2, MedianBackward1,
                    R.median)


def nanmedian(input, dim=None, keepdim: bool = False):
    """``median`` ignoring NaNs (``torch.nanmedian``); nodes ``NanmedianBackward0`` /
    ``NanmedianBackward1``."""
    if dim is None:
        return _median_all(input, True)
    return _at_rank(input, "nanmedian", dim, keepdim, lambda n: (n - 1) // 2,
                    NanmedianBackward1, R.nanmedian, nan_policy="ignore")


def mode(input, dim: int = -1, keepdim: bool = False):
    """The most frequent value along ``dim`` (the smallest among equally frequent ones) and
    the index of its last occurrence (``torch.mode``); node ``ModeBackward0``. IndexError for
    an empty reduction dim."""
    d = normalize_dim(dim, input.ndim)
    if input.ndim == 0:
        return _picked(input, dim, ModeBackward0, input._data.copy(), np.zeros((), np.int64),
                       R.mode, d, (), keepdim)
    if input.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    rows = np.moveaxis(input._data, d, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    vals = np.empty(flat.shape[0], dtype=flat.dtype)
    idx = np.empty(flat.shape[0], dtype=np.int64)
    for r, row in enumerate(flat):  # one slice at a time: np.unique has no axis-wise counts
        uniq, counts = np.unique(row, return_counts=True)
        v = uniq[np.argmax(counts)]  # (the first of the most frequent: the smallest)
        vals[r], idx[r] = v, np.flatnonzero(row == v)[-1]
    shape = rows.shape[:-1]
    vals, idx = vals.reshape(shape), idx.reshape(shape)
    if keepdim:
        vals, idx = np.expand_dims(vals, d), np.expand_dims(idx, d)
    return _picked(input, dim, ModeBackward0, vals, idx, R.mode, d, input.shape, keepdim)


def _search(boundaries, values, right, out_int32, sorter=None):
    b, v = boundaries._data, values._data if isinstance(values, Tensor) else np.asarray(values)
    side = "right" if right else "left"
    if b.ndim == 1:
        out = np.searchsorted(b, v, side=side)
    else:
        rows_b = b.reshape(-1, b.shape[-1])
        rows_v = v.reshape(rows_b.shape[0], -1)
        out = np.stack([np.searchsorted(rb, rv, side=side) for rb, rv in zip(rows_b, rows_v)]
                       ).reshape(v.shape)
    return Tensor._make(np.asarray(out, dtype=np.int32 if out_int32 else np.int64))


def searchsorted(sorted_sequence, input, *, out_int32: bool = False, right: bool = False,
                 side=None, sorter=None) -> Tensor:
    """Indices where ``input``'s values would be inserted into the last dim of
    ``sorted_sequence`` to keep it sorted (``torch.searchsorted``; ``right`` or
    ``side="right"``: after equal values). A 1-D sequence serves every value; else its leading
    dims must match ``input``'s. No gradient. RuntimeError when the leading dims differ."""
    seq = sorted_sequence
    if sorter is not None:
        seq = Tensor._make(np.take_along_axis(seq._data, sorter._data, -1))
    if seq.ndim > 1 and (not isinstance(input, Tensor) or seq.shape[:-1] != input.shape[:-1]):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           f"first N-1 dimensions of boundaries tensor and input value tensor "
                           f"must match, but we got boundaries tensor {list(seq.shape)} and input "
                           f"value tensor {list(getattr(input, 'shape', ()))}")
    return _search(seq, input, right or side == "right", out_int32)


def bucketize(input, boundaries, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each value of ``input`` among the 1-D sorted ``boundaries``
    (``torch.bucketize``): ``searchsorted(boundaries, input)``. No gradient."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _search(boundaries, input, right, out_int32)


def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False,
                       dim=None):
    """Collapse runs of equal consecutive values (with ``dim``: slices)
    (``torch.unique_consecutive``), optionally with inverse indices and run lengths. Not
    differentiable (``UniqueConsecutiveBackward0`` raises, as PyTorch's)."""
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        starts = np.r_[True, flat[1:] != flat[:-1]] if flat.size else np.zeros(0, bool)
        vals = flat[starts]
        inv_shape = a.shape
    else:
        d = normalize_dim(dim, input.ndim)
        moved = np.moveaxis(a, d, 0).reshape(a.shape[d], -1)
        starts = np.r_[True, (moved[1:] != moved[:-1]).any(axis=1)] if len(moved) else \
            np.zeros(0, bool)
        vals = np.take(a, np.flatnonzero(starts), axis=d)
        inv_shape = (a.shape[d],)
    run = np.cumsum(starts) - 1
    out = [Tensor._make(np.require(vals, requirements="C"))]
    if return_inverse:
        out.append(Tensor._make(run.reshape(inv_shape).astype(np.int64)))
    if return_counts:
        out.append(Tensor._make(np.bincount(run, minlength=int(starts.sum())).astype(np.int64)))
    from .index_ops import UniqueConsecutiveBackward0, record_unique

    record_unique(UniqueConsecutiveBackward0, out, input)
    return out[0] if len(out) == 1 else tuple(out)


attach(Tensor, unique_consecutive=unique_consecutive, sort=sort, argsort=argsort, msort=msort,
       topk=topk, kthvalue=kthvalue,
       median=median, nanmedian=nanmedian, mode=mode)
