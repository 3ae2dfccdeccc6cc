"""Indexing: ``x[...]`` with ints, slices, ``None``, ``...``, integer arrays and bool masks.

Mirrors ``torch/csrc/autograd/python_variable_indexing.cpp``: basic indices are applied one by
one as views (``SelectBackward0`` per int, ``SliceBackward0`` per non-trivial slice,
``UnsqueezeBackward0`` per ``None``; a tuple that changes nothing gives ``AliasBackward0``),
then any integer/bool tensors are applied together as one ``IndexBackward0`` (a copy).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import Node, record
from ._util import (
    attach,
    contiguous_strides,
    empty_strided,
    iterator_strides,
    normalize_dim,
    saved_int,
)

INT64_MAX = 2**63 - 1


class SelectBackward0(Node):
    """z = self.select(dim, index).  dz/dself = zeros(self_sym_sizes) with grad at index
    (``select_backward``, itself differentiable). Saves: dim, index (both as given, see
    ``saved_int``), self_sym_sizes."""

    def __init__(self, dim, index, sizes, d, i):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("index", saved_int(index))
        self._save("self_sym_sizes", tuple(sizes))
        self._d, self._i = d, i  # normalised dim and index

    def backward(self, g):
        return (_embed(g, self._saved["self_sym_sizes"], (slice(None),) * self._d + (self._i,),
                       SelectBackwardBackward0, self._d, self._i),)


class SliceBackward0(Node):
    """z = self[start:end:step] along dim.  dz/dself = zeros(self_sym_sizes) with grad in the
    slice (``slice_backward``, itself differentiable). Saves: dim, start, end (as given: an
    open start is 0, an open end INT64_MAX, negative values as unsigned, see ``saved_int``),
    step, self_sym_sizes."""

    def __init__(self, dim, start, end, step, sizes, d, lo, hi):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("end", saved_int(end))
        self._save("self_sym_sizes", tuple(sizes))
        self._save("start", saved_int(start))
        self._save("step", step)
        self._region = (d, lo, hi, step)  # normalised

    def backward(self, g):
        d, lo, hi, step = self._region
        where = (slice(None),) * d + (slice(lo, hi, step),)
        return (_embed(g, self._saved["self_sym_sizes"], where, SliceBackwardBackward0,
                       *self._region),)


class _IndexNode(Node):
    """Base of the nodes that save index tensors: PyTorch saves them as variables, so a second
    backward through a freed graph fails on them (``backward`` calls ``_check_indices``)."""

    def _save_indices(self, indices) -> None:
        from ..autograd.function import _saved_none
        from ..autograd.graph import SavedTensor

        self._save("indices", indices)
        # one SavedTensor per index entry, a None one for a dimension taken whole, as
        # PyTorch's list of optional tensors (``_raw_saved_indices``)
        self._index_vars = [SavedTensor(t, self, False) if isinstance(t, Tensor) else
                            _saved_none() for t in indices]

    @property
    def _raw_saved_indices(self) -> tuple:
        """The ``SavedTensor`` of each index entry (None entries refuse ``register_hooks``).
        Hooks registered on them run (pack now, unpack at backward); the backward computes
        with the index values saved in ``_saved_indices``."""
        return tuple(self._index_vars)

    def _release_variables(self) -> None:
        super()._release_variables()
        for sv in self._index_vars:
            sv._release()

    def _check_indices(self) -> None:
        for sv in self._index_vars:
            sv.unpack()  # raises if the graph was freed, as PyTorch does


class IndexBackward0(_IndexNode):
    """z = self[indices] (advanced indexing).  dz/dself = zeros(self_sym_sizes) with grad
    scattered back, repeated indices accumulating (``index_put`` with accumulate, itself
    differentiable). Saves: indices, self_sym_sizes."""

    def __init__(self, indices, np_index, sizes):
        super().__init__()
        self._save_indices(indices)
        self._save("self_sym_sizes", tuple(sizes))
        self._np_index = np_index

    def backward(self, g):
        self._check_indices()
        indices = self._get("indices")
        zeros = Tensor._make(np.zeros(self._saved["self_sym_sizes"], dtype=g._data.dtype))
        out = Tensor._make(zeros._data.copy())
        np.add.at(out._data, self._np_index, g._data)
        # PyTorch writes with _index_put_impl_ in place into fresh zeros: version 1 (a .grad
        # that takes this gradient over shows it)
        out._vc.value = 1
        record(IndexPutImplBackward0, out, (zeros, g), indices, self._np_index)
        return (out,)

    @staticmethod
    def jvp(inputs, tangents, outputs, indices, np_index, sizes):
        """dz = self_t[indices] (``index``: the same index tensors, None a dim taken whole)."""
        return getitem(tangents[0], tuple(slice(None) if i is None else i for i in indices))


# Nodes of the backward formulas above, recorded when the backward pass itself is recorded
# (``create_graph=True``), so that second derivatives flow through them.
class SelectBackwardBackward0(Node):
    """z = select_backward(grad, sizes, dim, index).  dz/dgrad = grad.select(dim, index)."""

    def __init__(self, d, i):
        Node.__init__(self)
        self._d, self._i = d, i

    def backward(self, g):
        return (g.select(self._d, self._i),)

    @staticmethod
    def jvp(inputs, tangents, outputs, d, i):
        """dz = select_backward(grad_t, sizes, dim, index) (linear in grad)."""
        return _embed(tangents[0], outputs[0].shape, (slice(None),) * d + (i,),
                      SelectBackwardBackward0, d, i)


class SliceBackwardBackward0(Node):
    """z = slice_backward(grad, sizes, dim, start, end, step).  dz/dgrad = grad[start:end:step]
    along dim."""

    def __init__(self, d, lo, hi, step):
        Node.__init__(self)
        self._region = (d, lo, hi, step)

    def backward(self, g):
        d, lo, hi, step = self._region
        return (slice_dim(g, d, lo, hi, step),)

    @staticmethod
    def jvp(inputs, tangents, outputs, d, lo, hi, step):
        """dz = slice_backward(grad_t, sizes, dim, start, end, step) (linear in grad)."""
        return _embed(tangents[0], outputs[0].shape, (slice(None),) * d + (slice(lo, hi, step),),
                      SliceBackwardBackward0, d, lo, hi, step)


class IndexPutImplBackward0(Node):
    """z = index_put(self, indices, values, accumulate=True).  dz/dself = grad;
    dz/dvalues = grad[indices]."""

    def __init__(self, indices, np_index):
        Node.__init__(self)
        self._indices, self._np_index = indices, np_index

    def backward(self, g):
        gs = g if self.next_functions[0][0] is not None else None
        gv = None
        if self.next_functions[1][0] is not None:
            gv = Tensor._make(g._data[self._np_index])
            record(IndexBackward0, gv, (g,), self._indices, self._np_index, g.shape)
        return gs, gv


def _embed(g, sizes, where, node_cls, *args) -> Tensor:
    """zeros(sizes) with ``g`` written at ``where`` (a basic NumPy index), recorded as
    ``node_cls(*args)`` so that it can be differentiated again."""
    out = Tensor._make(np.zeros(sizes, dtype=g._data.dtype))
    out._data[where] = g._data
    record(node_cls, out, (g,), *args)
    return out


def select(self, dim: int, index: int) -> Tensor:
    """View of one slice along ``dim`` (``torch.select``); IndexError when out of range."""
    if self.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = normalize_dim(dim, self.ndim)
    size = self.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(self.shape)} at dimension {d}")
    i = int(index) % size
    out = self._make_view(self._data[(slice(None),) * d + (i, Ellipsis)])  # 0-d stays a view
    record(SelectBackward0, out, (self,), dim, int(index), self.shape, d, i)
    return out


def slice_dim(self, dim: int, start, end, step: int = 1, saved_dim=None) -> Tensor:
    """View ``self[start:end:step]`` along (normalised) ``dim``; node ``SliceBackward0``.

    ``saved_dim`` is the dim as the caller gave it (``narrow``), which the node exposes.
    ValueError for a step that is not positive.
    """
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    size = self.shape[dim]
    lo, hi, _ = slice(start, end, step).indices(size)
    hi = max(hi, lo)
    out = self._make_view(self._data[(slice(None),) * dim + (slice(lo, hi, step),)])
    record(SliceBackward0, out, (self,), dim if saved_dim is None else saved_dim,
           0 if start is None else int(start), INT64_MAX if end is None else int(end), step,
           self.shape, dim, lo, hi)
    return out


def _is_advanced(ix) -> bool:
    return isinstance(ix, (Tensor, np.ndarray, list)) and not isinstance(ix, bool)


def _as_index_array(ix) -> np.ndarray:
    arr = ix._data if isinstance(ix, Tensor) else np.asarray(ix)
    if arr.dtype.kind in "fV":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return arr


class _BoolScalar:
    """A Python bool (or 0-dim bool tensor) index: PyTorch unsqueezes a new dim there and
    indexes it with ``[0]`` (True) or ``[]`` (False)."""

    def __init__(self, value: bool):
        self.value = bool(value)


FLOAT_INDEX_MSG = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                   "Variables are valid indices (got float)")
UINT8_INDEX_WARNING = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                       "torch.bool instead.")


def _normalize_item(ix):
    """0-dim integer tensors act as ints, bool scalars as `_BoolScalar`, a ``range`` as the
    int64 index tensor of its values, a list of floats as int64 indices (truncated), a uint8
    tensor as a bool mask (with PyTorch's deprecation warning), as PyTorch reads them.
    IndexError for a Python float."""
    if isinstance(ix, range):
        return np.arange(ix.start, ix.stop, ix.step, dtype=np.int64)
    if isinstance(ix, (bool, np.bool_)):
        return _BoolScalar(ix)
    if isinstance(ix, (float, np.floating)):
        raise IndexError(FLOAT_INDEX_MSG)
    if isinstance(ix, list) and ix and np.asarray(ix).dtype.kind == "f":
        return np.asarray(ix).astype(np.int64)
    if isinstance(ix, Tensor) and ix._data.dtype == np.uint8:
        import warnings

        warnings.warn(UINT8_INDEX_WARNING, UserWarning, stacklevel=4)
        return Tensor._make(ix._data.astype(np.bool_))
    if isinstance(ix, Tensor) and ix.ndim == 0:
        if ix._data.dtype == np.bool_:
            return _BoolScalar(ix.item())
        if ix._data.dtype.kind in "iu":
            return int(ix.item())
    return ix


def _dims_used(ix) -> int:
    if ix is None or ix is Ellipsis or isinstance(ix, _BoolScalar):
        return 0
    if _is_advanced(ix):
        arr = _as_index_array(ix)
        return arr.ndim if arr.dtype == np.bool_ else 1
    return 1


def getitem(self, index) -> Tensor:
    """``self[index]`` following PyTorch's decomposition (``python_variable_indexing.cpp``).

    Basic indices are applied left to right as views: an int (or 0-dim integer tensor) is a
    ``select``, a slice a ``SliceBackward0`` (skipped inside a tuple when it keeps the whole
    dim), ``None`` an ``unsqueeze``, a bool an ``unsqueeze`` plus an index; a tuple that
    changes nothing gives ``AliasBackward0``. Integer lists/tensors and bool masks are then
    applied together by one ``IndexBackward0`` (a copy). Raises IndexError for out-of-range
    ints/indices, masks of the wrong shape and too many indices; ValueError for a step < 1.
    """
    if index is Ellipsis:
        from .shape import _alias

        return _alias(self)
    single = not isinstance(index, tuple)
    items = tuple(_normalize_item(i) for i in ((index,) if single else index))
    n_used = sum(_dims_used(i) for i in items)
    if n_used > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
    pos = list(range(len(items)))  # position of each item in the index (used in messages)
    if any(i is Ellipsis for i in items if not _is_advanced(i)):
        k = [j for j, i in enumerate(items) if i is Ellipsis and not _is_advanced(i)][0]
        later = [j for j, i in enumerate(items) if j > k and i is Ellipsis]  # (PyTorch: the
        items = tuple(i for j, i in enumerate(items) if j not in later)  # first one fills)
        pos = [p for j, p in enumerate(pos) if j not in later]
        fill = self.ndim - n_used
        items = items[:k] + (slice(None),) * fill + items[k + 1:]
        pos = pos[:k] + [k] * fill + pos[k + 1:]
    out, d = self, 0
    advanced = []  # (dim in `out`, original index, array)
    for p, ix in zip(pos, items):
        if ix is None:
            out = out.unsqueeze(d)
            d += 1
        elif isinstance(ix, _BoolScalar):
            out = out.unsqueeze(d)
            arr = np.zeros(1 if ix.value else 0, dtype=np.int64)
            advanced.append((d, None, arr))
            d += 1
        elif isinstance(ix, slice):
            size = out.shape[d]
            trivial = ix.step in (None, 1) and ix.start in (None, 0) and (
                ix.stop is None or ix.stop >= size)
            if single or not trivial:
                out = slice_dim(out, d, ix.start, ix.stop, 1 if ix.step is None else ix.step)
            d += 1
        elif _is_advanced(ix):
            arr = _as_index_array(ix)
            advanced.append((d, ix, arr))
            d += arr.ndim if arr.dtype == np.bool_ else 1
        else:
            size = out.shape[d]
            if not -size <= int(ix) < size:
                raise IndexError(f"index {int(ix)} is out of bounds for dimension {p} with size "
                                 f"{size}")
            out = select(out, d, int(ix))
    if advanced:
        return _index(out, advanced)
    if out is self:
        from .shape import _alias

        return _alias(self)
    return out


def _index(self, advanced) -> Tensor:
    """Apply integer / bool array indices (at their dims) in one ``IndexBackward0`` copy.

    ``_saved_indices`` is a tuple with one entry per dim up to the last indexed one: None for
    a dim that is not indexed, else the index tensor (a bool mask is saved as the mask)."""
    np_index: list = []
    saved: list = []
    cur = 0
    for k, (d, ix, arr) in enumerate(advanced):
        np_index += [slice(None)] * (d - cur)
        saved += [None] * (d - cur)
        if arr.dtype == np.bool_:
            for j, (s, m) in enumerate(zip(self.shape[d:d + arr.ndim], arr.shape)):
                if s != m:
                    raise IndexError(f"The shape of the mask {list(arr.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor "
                                     f"{list(self.shape)} at index {d + j}")
            np_index += list(np.nonzero(arr))
            cur = d + arr.ndim
        else:
            size = self.shape[d]
            bad = arr[(arr >= size) | (arr < -size)]
            if bad.size:  # PyTorch names the position among the index tensors, not the dim
                raise IndexError(f"index {int(bad.flat[0])} is out of bounds for dimension {k} "
                                 f"with size {size}")
            np_index.append(arr.astype(np.int64))
            cur = d + 1
        saved.append(ix if isinstance(ix, Tensor) else Tensor._make(arr))
    np_index = tuple(np_index)
    arrays = [a for a in np_index if isinstance(a, np.ndarray)]
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {shapes}") from None
    out = Tensor._make(_in_index_layout(self._data, np_index, self._data[np_index]))
    record(IndexBackward0, out, (self,), tuple(saved), np_index, self.shape)
    return out


def _in_index_layout(src: np.ndarray, np_index: tuple, out: np.ndarray) -> np.ndarray:
    """``out`` (``src[np_index]``, index arrays and full slices only) laid out as PyTorch's
    ``index`` lays out its result: a TensorIterator over ``src`` with the indexed dims
    replaced by the index shape (stride 0 there) and the index arrays (contiguous). NumPy
    puts the index dims outermost in memory instead, so ``x[:, [0, 1]]`` would not be
    contiguous (and ``.view`` of it would fail) where PyTorch's is."""
    full = list(np_index) + [slice(None)] * (src.ndim - len(np_index))
    at = [k for k, ix in enumerate(full) if isinstance(ix, np.ndarray)]
    rest = [k for k in range(src.ndim) if k not in at]
    before = [k for k in rest if k < at[0]] if at == list(range(at[0], at[-1] + 1)) else []
    after = [k for k in rest if k not in before]  # (apart, the index dims go first)
    index_shape = out.shape[len(before):out.ndim - len(after)]
    st = [s // src.itemsize for s in src.strides]
    operands = [[st[k] for k in before] + [0] * len(index_shape) + [st[k] for k in after],
                [0] * len(before) + contiguous_strides(index_shape) + [0] * len(after)]
    want = iterator_strides(out.shape, operands)
    if not out.size or all(n == 1 or a == b * out.itemsize
                           for n, a, b in zip(out.shape, out.strides, want)):
        return out
    arr = empty_strided(out.shape, want, out.dtype)
    arr[...] = out
    return arr


attach(Tensor, __getitem__=getitem, select=select)
