"""Indexing along one dim or by mask: ``index_select index_add index_copy index_fill``,
``masked_select masked_scatter take put index_put``, the index-valued ``nonzero argwhere``,
the non-differentiable ``unique``, the in-place
``index_add_ index_copy_ index_fill_ masked_scatter_ fill_diagonal_``.

Mirrors ``aten/src/ATen/native/TensorAdvancedIndexing.cpp`` (kernels and their checks),
``Unique.cpp`` and the matching entries of ``tools/autograd/derivatives.yaml``. Gradients are
written with these ops, so ``create_graph=True`` differentiates them again.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, empty_strided
from ..autograd import grad_mode
from ..autograd import graph as _graph
from ..autograd.graph import Node, record
from ._util import at_version, attach, broadcast_shapes, normalize_dim, saved_int, sum_to


def _legacy(t) -> str:
    return t.dtype._legacy[:-6]  # 'Float', 'Long', ...


def _vector_index(fn: str, index, dtypes=(np.int32, np.int64), msg=None, exc=RuntimeError):
    """The int array of a 0-/1-D index tensor; ``exc(msg)`` for another dtype."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._data.dtype not in dtypes:
        raise exc(msg or f"{fn}(): Expected dtype int32/int64 for index but got: "
                  f"{_legacy(index)}")
    if index.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector")
    return index._data.reshape(-1).astype(np.int64)


def _dim_index(self, dim, idx, exc, prefix=""):
    """Normalised dim and the index with negatives wrapped; ``exc`` for out-of-range."""
    d = normalize_dim(dim, self.ndim)
    size = (self.shape or (1,))[d]
    bad = idx[(idx < -size) | (idx >= size)]
    if prefix == "sel":  # index_select: no negative indices either, and three kinds of error
        _check_select_index(self, d, size, idx)
    if bad.size:
        raise exc(f"{prefix}index {int(bad[0])} is out of bounds for dimension {d} with size "
                  f"{size}")
    return d, idx % max(size, 1)


def _check_select_index(self, d: int, size: int, idx) -> None:
    """PyTorch's (CPU) errors for an ``index_select`` index outside ``[0, size)``: with more
    than one dim, an empty ``self`` is refused when the dim is empty ("should be positive"),
    else a bad index along dim 1 or of an empty ``self`` gives RuntimeError naming the first
    one, and along any other dim (or of a 0-/1-D ``self``) IndexError "index out of range"."""
    bad = idx[(idx < 0) | (idx >= size)]
    if self.ndim > 1 and self._data.size == 0 and idx.size:
        if self.shape[d] == 0:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if not bad.size:
        return
    if self.ndim > 1 and (d == 1 or self._data.size == 0):
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(bad[0])} "
                           f"axis_dim={size}")
    raise IndexError("index out of range in self")


def _along(d, ndim, idx):
    return (slice(None),) * d + (idx,) + (slice(None),) * (ndim - d - 1)


# ----------------------------------------------------------------------------- index_select
class IndexSelectBackward0(Node):
    """z = self.index_select(dim, index).  dz/dself = zeros(self_sym_sizes).index_add(dim,
    index, grad). Saves: dim, index, self_sym_sizes."""

    def __init__(self, dim, d, index, sizes):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("index", index)
        self._save("self_sym_sizes", tuple(sizes))
        self._d = d

    def backward(self, g):
        index = self._get("index")
        zeros = Tensor._make(np.zeros(self._saved["self_sym_sizes"], dtype=g._data.dtype))
        return (at_version(index_add(zeros, self._d, index, g), 1),)  # (index_add_: version 1)

    @staticmethod
    def jvp(inputs, tangents, outputs, dim, d, index, sizes):
        """dz = self_t.index_select(dim, index)."""
        return index_select(tangents[0], d, index)


def index_select(input, dim: int, index) -> Tensor:
    """The slices of ``input`` at ``index`` (a 0-/1-D int64/int32 tensor) along ``dim``
    (``torch.index_select``); node ``IndexSelectBackward0``. IndexError for an index out of
    range or not a vector, RuntimeError for another index dtype."""
    idx = _vector_index("index_select", index,
                        msg="index_select(): Expected dtype int32 or int64 for index")
    if input.ndim == 0 and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{idx.size} value(s)")
    d, idx = _dim_index(input, dim, idx, IndexError, "sel")
    if input.ndim == 0:
        arr = np.array(input._data, copy=True)
    else:
        arr = np.require(np.take(input._data, idx, axis=d), requirements="C")
    out = Tensor._make(arr)
    record(IndexSelectBackward0, out, (input,), dim, d, index, input.shape)
    return out


# ----------------------------------------------------------------------------- index_add
class IndexAddBackward0(Node):
    """z = self.index_add(dim, index, source, alpha).  dz/dself = grad;
    dz/dsource = alpha * grad.index_select(dim, index). Saves: alpha, dim, index, source,
    source_dim."""

    def __init__(self, dim, d, index, source, alpha, copy=False):
        Node.__init__(self)
        if not copy:
            self._save("alpha", alpha)
        self._save("dim", saved_int(dim))
        self._save("index", index)
        self._save("source", source)
        self._save("source_dim", source.ndim)
        self._d, self._alpha, self._src_shape = d, alpha, source.shape

    def _source_grad(self, g):
        gs = index_select(g, self._d, self._get("index"))
        return gs.reshape(self._src_shape) if gs.shape != self._src_shape else gs

    def backward(self, g):
        nf = self.next_functions
        gself = g if nf[0][0] is not None else None
        gsrc = None
        if nf[1][0] is not None:
            gsrc = self._source_grad(g)
            if self._alpha != 1:
                gsrc = gsrc * self._alpha
        return gself, gsrc

    @staticmethod
    def jvp(inputs, tangents, outputs, dim, d, index, source, alpha=1):
        """dz = self_t.index_add(dim, index, source_t, alpha) (zeros for a missing one)."""
        from .shape import tangent_pair

        ta, tb = tangent_pair(inputs, tangents)
        return index_add(ta, d, index, tb, alpha=alpha)


def _check_source(fn, self, d, idx, source, exc=RuntimeError, sep=": "):
    n = (source.shape or (1,))[d] if source.ndim else 1
    if idx.size != n:
        raise exc(f"{fn}(): Number of indices ({idx.size}) should be equal to source.size(dim)"
                  f"{sep}({n}){', for dim: ' + str(d) if sep == ': ' else ''}")
    if source.ndim and self.ndim and any(
            a != b for k, (a, b) in enumerate(zip(self.shape, source.shape)) if k != d):
        raise exc(f"{fn}(): Source/destination tensor must have same slice shapes. Destination "
                  f"slice shape: {list(self.shape[:d] + self.shape[d + 1:])} at dimension {d} "
                  f"and source slice shape: {list(source.shape[:d] + source.shape[d + 1:])} at "
                  f"dimension 0.")


def index_add(input, dim: int, index, source, *, alpha=1) -> Tensor:
    """``input`` with ``alpha * source`` added at ``index`` along ``dim``, repeated indices
    accumulating (``torch.index_add``); node ``IndexAddBackward0`` (slots self, source).
    RuntimeError on dtype or size mismatch or an index out of range."""
    idx = _vector_index("index_add_", index)
    d, idx = _dim_index(input, dim, idx, RuntimeError)
    _check_source("index_add_", input, d, idx, source)
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(f"index_add_(): self ({_legacy(input)}) and source ({_legacy(source)})"
                           f" must have the same scalar type")
    arr = np.array(input._data, copy=True, order="C")  # (contiguous, as PyTorch)
    src = source._data if alpha == 1 else (source._data * alpha).astype(source._data.dtype)
    if input.ndim == 0:
        arr = arr + src.sum()
    else:
        np.add.at(arr, _along(d, arr.ndim, idx), src.reshape(
            src.shape if source.ndim else (1,) * arr.ndim))
    out = Tensor._make(np.asarray(arr))
    record(IndexAddBackward0, out, (input, source), dim, d, index, source, alpha)
    return out


# ----------------------------------------------------------------------------- index_copy
class IndexCopyBackward0(IndexAddBackward0):
    """z = self.index_copy(dim, index, source).  dz/dself = grad.index_fill(dim, index, 0);
    dz/dsource = grad.index_select(dim, index). Saves: dim, index, source, source_dim."""

    def __init__(self, dim, d, index, source):
        super().__init__(dim, d, index, source, 1, copy=True)

    def backward(self, g):
        nf = self.next_functions
        gself = index_fill(g, self._d, self._get("index"), 0) if nf[0][0] is not None else None
        gsrc = self._source_grad(g) if nf[1][0] is not None else None
        return gself, gsrc

    @staticmethod
    def jvp(inputs, tangents, outputs, dim, d, index, source):
        """dz = self_t.index_copy(dim, index, source_t) (zeros for a missing one)."""
        from .shape import tangent_pair

        ta, tb = tangent_pair(inputs, tangents)
        return index_copy(ta, d, index, tb)


def index_copy(input, dim: int, index, source) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source``
    (``torch.index_copy``); node ``IndexCopyBackward0``. ``index`` must be int64."""
    idx = _vector_index("index_copy_", index, (np.int64,),
                        f"index_copy_(): Expected a long tensor for index, but got "
                        f"{_legacy(index) if isinstance(index, Tensor) else ''}")
    d, idx = _dim_index(input, dim, idx, IndexError, "index_copy_(): ")
    _check_source("index_copy_", input, d, idx, source, IndexError, " ")
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_legacy(input)} and (source) {_legacy(source)}")
    arr = np.array(input._data, copy=True, order="C")  # (contiguous, as PyTorch)
    if input.ndim == 0:
        arr = np.array(source._data.reshape(()), copy=True)
    else:
        arr[_along(d, arr.ndim, idx)] = source._data.reshape(
            source.shape if source.ndim else (1,) * arr.ndim)
    out = Tensor._make(arr)
    record(IndexCopyBackward0, out, (input, source), dim, d, index, source)
    return out


# ----------------------------------------------------------------------------- index_fill
class IndexFillBackward0(Node):
    """z = self.index_fill(dim, index, value) (a number).  dz/dself = grad.index_fill(dim,
    index, 0). Saves: dim, index."""

    def __init__(self, dim, d, index):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("index", index)
        self._d = d

    def backward(self, g):
        index = self._get("index")
        gself = index_fill(g, self._d, index, 0) if self.next_functions[0][0] is not None \
            else None
        if len(self.next_functions) == 1:
            return (gself,)
        gval = None
        if self.next_functions[1][0] is not None:
            gval = index_select(g, self._d, index).sum()
        return gself, gval

    @staticmethod
    def jvp(inputs, tangents, outputs, dim, d, index):
        """dz = self_t.index_fill(dim, index, 0) (a number ``value``), or
        self_t.index_fill(dim, index, value_t) (a 0-dim tensor ``value``)."""
        from .shape import tangent_pair

        if len(inputs) == 1:
            return index_fill(tangents[0], d, index, 0)
        ta, tb = tangent_pair(inputs, tangents)
        return index_fill(ta, d, index, tb)


class IndexFillBackward1(IndexFillBackward0):
    """z = self.index_fill(dim, index, value) (a 0-dim tensor).  dz/dself =
    grad.index_fill(dim, index, 0); dz/dvalue = grad.index_select(dim, index).sum().
    Saves: dim, index."""


def index_fill(input, dim: int, index, value) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` set to ``value`` (a number:
    ``IndexFillBackward0``; a 0-dim tensor: ``IndexFillBackward1``, slots self and value)
    (``torch.index_fill``). ``index`` must be int64 (IndexError otherwise)."""
    idx = _vector_index("index_fill_", index, (np.int64,),
                        "index_fill_(): Expected dtype int64 for index.", IndexError)
    d, idx = _dim_index(input, dim, idx, IndexError)
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    v = value._data if isinstance(value, Tensor) else value
    arr = np.array(input._data, copy=True)
    if input.ndim == 0:
        arr = np.array(v if idx.size else arr, dtype=arr.dtype)
    else:
        arr[_along(d, arr.ndim, idx)] = v
    out = Tensor._make(arr)
    if isinstance(value, Tensor):
        record(IndexFillBackward1, out, (input, value), dim, d, index)
    else:
        record(IndexFillBackward0, out, (input,), dim, d, index)
    return out


# ----------------------------------------------------------------------------- masks
def _check_mask(fn, mask, msg):
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        raise RuntimeError(msg if isinstance(mask, Tensor) else f"{fn}(): argument 'mask' must "
                           f"be Tensor")


class MaskedSelectBackward0(Node):
    """z = self.masked_select(mask) (1-D).  dz/dself = zeros(broadcast shape)
    .masked_scatter(mask, grad), summed to self's shape. Saves: mask, self."""

    def __init__(self, self_, mask):
        Node.__init__(self)
        self._save("mask", mask)
        self._save("self", self_)

    def backward(self, g):
        s, mask = self._get("self"), self._get("mask")
        shape = broadcast_shapes(s.shape, mask.shape)
        zeros = Tensor._make(np.zeros(shape, dtype=g._data.dtype))
        mask_b = mask if mask.shape == shape else mask.expand(shape)
        # (PyTorch's masked_scatter_ into the zeros: version 1, unless summed to a new tensor)
        return (sum_to(at_version(masked_scatter(zeros, mask_b, g), 1), s.shape),)

    @staticmethod
    def jvp(inputs, tangents, outputs, self_, mask):
        """dz = self_t.masked_select(mask)."""
        return masked_select(tangents[0], mask)


def masked_select(input, mask) -> Tensor:
    """The elements of ``input`` where the bool ``mask`` (broadcast with it) is True, as a
    1-D tensor (``torch.masked_select``); node ``MaskedSelectBackward0``."""
    _check_mask("masked_select", mask, "masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(input.shape, mask.shape)
    arr = np.broadcast_to(input._data, shape)[np.broadcast_to(mask._data, shape)]
    out = Tensor._make(np.require(arr, requirements="C"))
    record(MaskedSelectBackward0, out, (input,), input, mask)
    return out


class MaskedScatterBackward0(Node):
    """z = self.masked_scatter(mask, source).  dz/dself = grad.masked_fill(mask, 0);
    dz/dsource = grad.masked_select(mask) padded with zeros to source's size.
    Saves: mask, source_sym_sizes."""

    def __init__(self, mask, source):
        Node.__init__(self)
        self._save("mask", mask)
        self._save("source_sym_sizes", tuple(source.shape))
        self._self_shape = None

    def backward(self, g):
        from .pointwise import masked_fill
        from .shape import cat

        mask, sizes = self._get("mask"), self._saved["source_sym_sizes"]
        nf = self.next_functions
        gself = sum_to(masked_fill(g, mask, 0), self._self_shape) if nf[0][0] is not None \
            else None
        gsrc = None
        if nf[1][0] is not None:
            picked = masked_select(g, mask)
            missing = int(np.prod(sizes, dtype=np.int64)) - picked.numel()
            if missing:
                picked = cat([picked, Tensor._make(np.zeros(missing, dtype=g._data.dtype))])
            gsrc = picked.view(sizes)
        return gself, gsrc

    @staticmethod
    def jvp(inputs, tangents, outputs, mask, source):
        """dz = self_t.masked_scatter(mask, source_t) (zeros for a missing one)."""
        from .shape import tangent_pair

        ta, tb = tangent_pair(inputs, tangents)
        return masked_scatter(ta, mask, tb)


def masked_scatter(input, mask, source) -> Tensor:
    """``input`` with the elements where ``mask`` is True replaced, in order, by the first
    elements of ``source`` (``torch.masked_scatter``); node ``MaskedScatterBackward0``.
    RuntimeError for a non-bool mask or a source with too few elements."""
    _check_mask("masked_scatter", mask, f"masked_scatter_ only supports boolean masks, but got "
                f"mask with dtype {_legacy(mask) if isinstance(mask, Tensor) else ''}")
    shape = broadcast_shapes(input.shape, mask.shape)
    m = np.broadcast_to(mask._data, shape)
    n = int(m.sum())
    if n > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but "
                           f"got {_legacy(input)} and {_legacy(source)}")
    arr = np.array(np.broadcast_to(input._data, shape), copy=True, order="C")  # (contiguous)
    arr[m] = source._data.reshape(-1)[:n]
    out = Tensor._make(arr)
    node = record(MaskedScatterBackward0, out, (input, source), mask, source)
    if node is not None:
        node._self_shape = input.shape
    return out


class TakeBackward0(Node):
    """z = self.take(index) (self as 1-D).  dz/dself = zeros_like(self).put_(index, grad,
    accumulate=True) (PyTorch's ``take_backward``: version 1, ``PutBackward0`` under
    create_graph). Saves: index, self."""

    def __init__(self, self_, index, flat):
        Node.__init__(self)
        self._save("index", index)
        self._save("self", self_)
        self._flat = flat

    def backward(self, g):
        s = self._get("self")
        index = self._get("index")  # (fails as PyTorch's does once the graph was freed)
        zeros = Tensor._make(np.zeros(s.shape, dtype=g._data.dtype))
        return (at_version(put(zeros, index, g, accumulate=True), 1),)

    @staticmethod
    def jvp(inputs, tangents, outputs, self_, index, flat):
        """dz = self_t.take(index)."""
        return take(tangents[0], index)


def take(input, index) -> Tensor:
    """Elements of ``input`` (read as 1-D) at ``index`` (int64), shaped as ``index``
    (``torch.take``); node ``TakeBackward0``. IndexError for an index out of range."""
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{_legacy(index) if isinstance(index, Tensor) else 'None'}")
    n = input.numel()
    flat = index._data.reshape(-1)
    bad = flat[(flat < -n) | (flat >= n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {n} "
                         f"elements.")
    flat = flat % max(n, 1)
    picked = input._data.reshape(-1)[flat].reshape(index.shape)
    out = Tensor._make(np.require(picked, requirements="C"))
    record(TakeBackward0, out, (input,), input, index, flat)
    return out


class PutBackward0(Node):
    """z = self.put(index, source, accumulate) (self read as 1-D).  dz/dself = grad (with
    accumulate) or grad with zeros at index; dz/dsource = grad.take(index).
    Saves: accumulate, index, source."""

    def __init__(self, index, source, accumulate, flat):
        Node.__init__(self)
        self._save("accumulate", bool(accumulate))
        self._save("index", index)
        self._save("source", source)
        self._flat = flat

    def backward(self, g):
        index = self._get("index")
        source = self._get("source")
        nf = self.next_functions
        gself = gsrc = None
        if nf[0][0] is not None:
            gself = g if self._saved["accumulate"] else put(
                g, index, Tensor._make(np.zeros(source.shape, dtype=g._data.dtype)))
        if nf[1][0] is not None:
            gsrc = take(g, index).reshape(source.shape)
        return gself, gsrc

    @staticmethod
    def jvp(inputs, tangents, outputs, index, source, accumulate, flat):
        """dz = self_t.put(index, source_t, accumulate) (zeros for a missing one)."""
        from .shape import tangent_pair

        ta, tb = tangent_pair(inputs, tangents)
        return put(ta, index, tb, accumulate)


def put(input, index, source, accumulate: bool = False) -> Tensor:
    """``input`` (read as 1-D) with ``source`` written (``accumulate``: added) at ``index``
    (int64) (``torch.put``); node ``PutBackward0`` (slots self, source). IndexError for an index
    out of range; RuntimeError for another index dtype or a size mismatch."""
    if not isinstance(index, Tensor) or index._data.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{_legacy(index) if isinstance(index, Tensor) else 'None'}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source.numel()}, "
                           f"index.numel() = {index.numel()}")
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_legacy(input)} and source.dtype = {_legacy(source)}")
    n = input.numel()
    flat = index._data.reshape(-1)
    bad = flat[(flat < -n) | (flat >= n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {n} "
                         f"elements.")
    flat = flat % max(n, 1)
    arr = np.array(input._data, copy=True)
    cells = arr.reshape(-1)
    if accumulate:
        np.add.at(cells, flat, source._data.reshape(-1))
    else:
        cells[flat] = source._data.reshape(-1)
    out = Tensor._make(cells.reshape(input.shape))
    record(PutBackward0, out, (input, source), index, source, accumulate, flat)
    return out


# ----------------------------------------------------------------------------- forward only
def nonzero(input, *, as_tuple: bool = False):
    """Indices of the non-zero elements (``torch.nonzero``): an int64 tensor ``[n, ndim]``, or
    with ``as_tuple`` one 1-D tensor per dim (a 0-dim input counts as 1-D). No gradient.

    The ``[n, ndim]`` result is laid out column by column, strides ``(1, n)`` for every
    ``n`` (``(1, 0)`` when nothing matches, ``(1, 1)`` for one match), as PyTorch's kernel
    writes it; the ``as_tuple`` tensors are views of its columns (one version counter).
    """
    arr = input._data
    if as_tuple and not arr.ndim:
        arr = arr.reshape(1)
    idx = np.argwhere(arr)
    n = idx.shape[0]
    # (NumPy normalises the strides of empty and length-1 dims; empty_strided keeps them)
    cols = empty_strided((n, arr.ndim), (1, n), np.int64)
    cols[...] = idx
    result = Tensor._make(cols)
    if as_tuple:
        return tuple(result._make_view(cols[:, d]) for d in range(arr.ndim))
    return result


def argwhere(input) -> Tensor:
    """``nonzero(input)`` (``torch.argwhere``)."""
    return nonzero(input)


class Unique2Backward0(Node):
    """z = unique(self): not differentiable. PyTorch records this node (the result requires
    grad) and raises NotImplementedError when a backward pass reaches it; so does minigrad.
    Saves nothing."""

    _aten = "_unique2"

    def backward(self, *grads):
        raise NotImplementedError(f"the derivative for '{self._aten}' is not implemented.")

    @classmethod
    def jvp(cls, inputs, tangents, outputs, *args):
        """No forward formula in PyTorch either: its NotImplementedError, naming the op."""
        raise NotImplementedError(
            f"Trying to use forward AD with {cls._aten} that does not support it because it has "
            "not been implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so "
            "that we can prioritize its implementation or submit a PR adding the "
            "implementation to derivatives.yaml")


class UniqueDimBackward0(Unique2Backward0):
    """z = unique(self, dim): not differentiable (backward raises NotImplementedError)."""

    _aten = "unique_dim"


class UniqueConsecutiveBackward0(Unique2Backward0):
    """z = unique_consecutive(self): not differentiable (backward raises
    NotImplementedError)."""

    _aten = "unique_consecutive"


def record_unique(node_cls, outputs, input):
    """Record PyTorch's non-differentiable unique node on the values (outputs[0])."""
    record(node_cls, outputs[0], (input,))
    return outputs


def unique(input, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim=None):
    """The distinct values of ``input`` (``torch.unique``), always sorted here (PyTorch's CPU
    kernel sorts too), optionally with the inverse indices (input's shape) and the counts;
    with ``dim``, the distinct slices along it. Not differentiable: as in PyTorch the values
    get a ``Unique2Backward0`` (``UniqueDimBackward0``) node whose backward raises
    NotImplementedError."""
    arr = input._data
    if dim is None:
        vals, inv, counts = np.unique(arr.reshape(-1), return_inverse=True, return_counts=True)
        inv = inv.reshape(arr.shape)
    else:
        d = normalize_dim(dim, input.ndim)
        vals, inv, counts = np.unique(arr, return_inverse=True, return_counts=True, axis=d)
        inv = inv.reshape(-1)
    out = [Tensor._make(np.require(vals, requirements="C"))]
    if return_inverse:
        out.append(Tensor._make(inv.astype(np.int64)))
    if return_counts:
        out.append(Tensor._make(counts.astype(np.int64)))
    record_unique(Unique2Backward0 if dim is None else UniqueDimBackward0, out, input)
    return out[0] if len(out) == 1 else tuple(out)


# ----------------------------------------------------------------------------- index_put
def index_put_function(input, indices, values, accumulate: bool = False) -> Tensor:
    """``torch.index_put`` (see `index_put`); TypeError for an entry of ``indices`` that is
    not a tensor (PyTorch's argument parser refuses None there)."""
    _check_index_list(indices, 1)
    return index_put(input, indices, values, accumulate)


index_put_function.__name__ = index_put_function.__qualname__ = "index_put"


def _index_put_method(self, indices, values, accumulate: bool = False) -> Tensor:
    """``Tensor.index_put`` (see `index_put`); TypeError as `index_put_function`."""
    _check_index_list(indices, 0)
    return index_put(self, indices, values, accumulate)


_index_put_method.__name__ = _index_put_method.__qualname__ = "index_put"


def _check_index_list(indices, position: int) -> None:
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {position}, but got "
                            f"{type(t).__name__}")


def index_put(input, indices, values, accumulate: bool = False) -> Tensor:
    """``input`` with ``values`` written (``accumulate``: added, repeated indices summing) at
    the integer/bool index tensors ``indices`` (a tuple, one per leading dim, None to skip a
    dim: minigrad's internal form; the public ones refuse None) (``torch.index_put``); node
    ``IndexPutBackward0`` (slots self, values). IndexError
    for an index out of range or of a float dtype; RuntimeError for a dtype or shape
    mismatch."""
    from .inplace import IndexPutBackward0, _array_index, _is_masked_fill, _split_index

    indices = tuple(slice(None) if i is None else i for i in indices)  # (None: a whole dim)
    region = Tensor._make(input._data)[indices]  # (PyTorch's index checks and errors)
    masks = [i._data if isinstance(i, Tensor) else np.asarray(i) for i in indices
             if not isinstance(i, slice)]
    # (one bool mask and one value: ATen's masked_fill_ path, which casts the value)
    masked_fill = not accumulate and len(indices) == 1 and _is_masked_fill(masks, values)
    if values._data.dtype != input._data.dtype and not masked_fill:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_legacy(input)} for the destination and {_legacy(values)} for the "
                           f"source.")
    try:
        vals = np.broadcast_to(values._data, region.shape).astype(input._data.dtype, copy=False)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot "
                           f"be broadcast to indexing result of shape {list(region.shape)}"
                           ) from None
    _, _, advanced = _split_index(input, indices)
    np_index, saved = _array_index(input, advanced)
    arr = np.array(input._data, copy=True)
    if accumulate:
        np.add.at(arr, np_index, vals)
    else:
        arr[np_index] = vals
    out = Tensor._make(arr)
    record(IndexPutBackward0, out, (input, values), np_index, saved, values, accumulate)
    return out


# ----------------------------------------------------------------------------- in place
def _inplace(fn, doc_name, other_args):
    def op(self, *args, **kwargs):
        from .inplace import _apply_inplace

        others = tuple(a for a in args if isinstance(a, Tensor) and other_args) + tuple(
            v for v in kwargs.values() if isinstance(v, Tensor))
        return _apply_inplace(self, lambda: fn(self, *args, **kwargs), others)

    op.__name__ = doc_name
    op.__doc__ = f"In-place ``{doc_name[:-1]}``: modifies self, bumps ``_version``, returns self."
    return op


def fill_diagonal_(self, fill_value, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (all dims equal, or a tall 2-D matrix; ``wrap`` continues it
    after every ``ncols + 1`` rows) in place (``Tensor.fill_diagonal_``). On a non-leaf the
    history is PyTorch's: ``CopySlices(FillBackward2)`` (the fill goes through a strided view).
    RuntimeError for fewer than 2 dims or unequal dims (> 2-D)."""
    from .inplace import check_inplace

    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    check_inplace(self)
    arr = self._data
    step = sum(arr.strides)
    _fill_strided(self, arr, min(self.shape), step, fill_value)
    rows, cols = self.shape[0], self.shape[-1]
    if wrap and self.ndim == 2 and rows > cols + 1 and arr.flags.c_contiguous:
        # PyTorch fills the part after every ncols + 1 rows with a second strided view
        n = (arr.size + cols) // (cols + 1) - cols
        _fill_strided(self, arr[cols + 1:], n, step, fill_value)
    return self


def _fill_strided(self, start: np.ndarray, n: int, step: int, value) -> None:
    """``fill_`` through a strided 1-D view (``n`` elements, ``step`` bytes apart, from
    ``start``) of ``self``, recorded as PyTorch's ``as_strided`` view is."""
    from .inplace import AsStridedBackward0, fill_

    view = self._make_view(np.lib.stride_tricks.as_strided(start, (n,), (step,),
                                                           writeable=True))
    if grad_mode.is_grad_enabled() and self.requires_grad:
        view._set_history(AsStridedBackward0(self, view))
    if _graph.fw_on:  # (the view skips record: its tangent, the same view of self's, here)
        from ..autograd import forward_ad

        tangent = forward_ad.fw_grad(self)
        if tangent is not None:
            forward_ad._keep(view, forward_ad._view_of_tangent(tangent, self, view))
    fill_(view, value)


attach(Tensor, index_select=index_select, index_add=index_add, index_copy=index_copy,
       index_fill=index_fill, masked_select=masked_select, masked_scatter=masked_scatter,
       take=take, nonzero=nonzero, argwhere=argwhere, unique=unique,
       index_add_=_inplace(index_add, "index_add_", True),
       index_copy_=_inplace(index_copy, "index_copy_", True),
       index_fill_=_inplace(index_fill, "index_fill_", True),
       masked_scatter_=_inplace(masked_scatter, "masked_scatter_", True),
       fill_diagonal_=fill_diagonal_, index_put=_index_put_method, put=put,
       put_=_inplace(put, "put_", True),
       index_put_=_inplace(_index_put_method, "index_put_", True))
