"""Shape ops that PyTorch writes as compositions of other views and copies:
``split_with_sizes tensor_split hsplit vsplit repeat_interleave tile movedim/moveaxis swapdims
meshgrid broadcast_to type_as``, and ``as_strided`` (``AsStridedBackward0``).

Mirrors the CompositeImplicitAutograd functions of ``aten/src/ATen/native/TensorShape.cpp`` and
``Repeat.cpp``: each records exactly the nodes PyTorch's decomposition records (``tensor_split``
gives one ``SliceBackward0`` per piece, ``repeat_interleave`` by an int
``unsqueeze → expand → clone → view``, ``meshgrid`` ``view → expand`` per input).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._memory_format import contiguous_format
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd import graph as _graph
from ..autograd.graph import edge_of
from ._util import attach, normalize_dim
from .indexing import slice_dim
from .inplace import AsStridedBackward0, _base_index
from .shape import _alias


def split_with_sizes(self, split_sizes, dim: int = 0) -> tuple:
    """``split`` with a list of sizes (``Tensor.split_with_sizes``); node
    ``SplitWithSizesBackward0``."""
    from .shape import split

    return split(self, list(split_sizes), dim)


def tensor_split(input, indices_or_sections, dim: int = 0) -> tuple:
    """Split into ``n`` nearly equal pieces (the first ``size % n`` one longer) or at the
    given indices along ``dim`` (``torch.tensor_split``): each piece a slice view
    (``SliceBackward0``). Indices past the end give empty pieces. RuntimeError for n < 1."""
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = (indices_or_sections.item() if indices_or_sections.ndim == 0
                               else indices_or_sections.tolist())
    if isinstance(indices_or_sections, (int, np.integer)):
        n = int(indices_or_sections)
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(size, n)
        bounds, start = [], 0
        for k in range(n):
            end = start + small + (k < extra)
            bounds.append((start, end))
            start = end
    else:
        cuts = [int(i) for i in indices_or_sections]
        starts = [0] + cuts
        ends = cuts + [size]
        bounds = list(zip(starts, ends))
    out = []
    for start, end in bounds:
        lo = min(max(start, 0), size)
        out.append(slice_dim(input, d, start, max(end, lo), 1))
    return tuple(out)


def _split_along(name, input, sections, dim, min_dims):
    if input.ndim < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, "
                           f"but got a tensor with {input.ndim} dimensions!")
    if isinstance(sections, (int, np.integer)):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the "
                               f"split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections) -> tuple:
    """``tensor_split`` along dim 1 (dim 0 for a 1-D tensor) (``torch.hsplit``); an int must
    divide the size."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input, indices_or_sections) -> tuple:
    """``tensor_split`` along dim 0 of a tensor with >= 2 dims (``torch.vsplit``)."""
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections) -> tuple:
    """``tensor_split`` along dim 2 of a tensor with >= 3 dims (``torch.dsplit``)."""
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Repeat each element (``dim`` None: of the flattened tensor) ``repeats`` times
    (``torch.repeat_interleave``). An int: ``unsqueeze(dim + 1) → expand → clone → view``
    (PyTorch's decomposition); a tensor of repeats: ``index_select``. With only a tensor
    argument, the indices repeated by its values. RuntimeError for negative repeats."""
    from .index_ops import index_select

    if repeats is None:  # torch.repeat_interleave(repeats)
        counts = input._data.reshape(-1).astype(np.int64)
        return Tensor._make(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
    if isinstance(repeats, Tensor) and repeats.numel() == 1 and repeats.ndim <= 1:
        repeats = int(repeats.item())
    x = input.flatten() if dim is None else input
    d = 0 if dim is None else normalize_dim(dim, input.ndim)
    if isinstance(repeats, Tensor):
        counts = repeats._data.reshape(-1).astype(np.int64)
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        if counts.size != x.shape[d]:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {counts.size} and input.size({d}) = "
                               f"{x.shape[d]}")
        index = Tensor._make(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
        return index_select(x, d, index)
    r = int(repeats)
    if r < 0:
        raise RuntimeError("Repeats must be non-negative")
    if x.ndim == 0:
        x = x.reshape(1)
    shape = list(x.shape)
    grown = x.unsqueeze(d + 1)
    target = shape[:d + 1] + [r] + shape[d + 1:]
    out = grown.expand(target).clone(memory_format=contiguous_format)
    shape[d] *= r
    return out.view(shape)


def tile(input, *dims) -> Tensor:
    """``repeat`` with the repeats padded by leading 1s to the tensor's rank
    (``torch.tile``); node ``RepeatBackward0``."""
    reps = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    reps = (1,) * (input.ndim - len(reps)) + tuple(int(r) for r in reps)
    return input.repeat(reps)


def movedim(input, source, destination) -> Tensor:
    """Move the dims ``source`` to positions ``destination``, the others keeping their order
    (``torch.movedim``, ``moveaxis``); a ``permute`` view (of a 0-dim tensor an alias,
    ``AliasBackward0``, as PyTorch). RuntimeError for repeated dims or lengths that differ."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    ns = [normalize_dim(s, input.ndim) for s in src]
    nd = [normalize_dim(s, input.ndim) for s in dst]
    for name, given, norm in (("source", src, ns), ("destination", dst, nd)):
        if len(set(norm)) != len(norm):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    if input.ndim == 0:  # PyTorch returns an alias of a 0-dim tensor (AliasBackward0)
        return _alias(input)
    order = [k for k in range(input.ndim) if k not in ns]
    perm = [None] * input.ndim
    for s, t in zip(ns, nd):
        perm[t] = s
    rest = iter(order)
    perm = [p if p is not None else next(rest) for p in perm]
    return input.permute(perm)


def swapdims(input, dim0: int, dim1: int) -> Tensor:
    """``transpose`` (``torch.swapdims``, ``swapaxes``); node ``TransposeBackward0``."""
    return input.transpose(dim0, dim1)


def meshgrid(*tensors, indexing=None) -> tuple:
    """Coordinate grids of 0-/1-D tensors (``torch.meshgrid``): each input viewed along its own
    dim and expanded to all sizes (``ViewBackward0`` then ``ExpandBackward0``). ``indexing``
    "ij" (the default, with PyTorch's warning when not given) or "xy" (the first two inputs
    swap roles)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t.ndim}-D tensor")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    sizes = [t.numel() for t in ts]
    out = []
    for k, t in enumerate(ts):
        shape = [1] * len(ts)
        shape[k] = -1
        out.append(t.view(shape).expand(sizes))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def broadcast_to(input, *size) -> Tensor:
    """``expand`` to ``size`` (``torch.broadcast_to``); node ``ExpandBackward0``."""
    return input.expand(*size)


def type_as(self, other) -> Tensor:
    """``self.to(other.dtype)`` (``Tensor.type_as``): self when the dtype is the same."""
    return self.to(other.dtype)


def _strided_array(input, size, stride, storage_offset) -> np.ndarray:
    """The NumPy view ``as_strided`` makes, after PyTorch's bounds check (see `as_strided`)."""
    owner = input if input._base is None else input._base
    store = owner._data
    if not store.flags.c_contiguous:
        raise RuntimeError("minigrad: as_strided needs a tensor whose memory is one contiguous "
                           "NumPy array (call .contiguous() first)")
    item = store.itemsize
    here = (input._data.__array_interface__["data"][0] -
            store.__array_interface__["data"][0]) // item if store.size else 0
    offset = here if storage_offset is None else int(storage_offset)
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    need = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if need > store.size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {item} requiring a storage size of "
                           f"{need * item} are out of bounds for storage of size "
                           f"{store.size * item}")
    flat = store.reshape(-1)
    start = flat[offset:] if offset < flat.size else flat[:0]
    return np.lib.stride_tricks.as_strided(start, size, tuple(s * item for s in stride),
                                           writeable=store.flags.writeable)


def as_strided(input, size, stride, storage_offset=None) -> Tensor:
    """A view with the given sizes and strides (in elements) into the memory of ``input``'s
    storage, starting ``storage_offset`` elements in (default: input's own offset)
    (``torch.as_strided``); node ``AsStridedBackward0``.

    minigrad's storage is the array of the tensor that owns the memory (``input`` itself, or
    the ``_base`` of a view), which must be C-contiguous. The gradient is scattered into that
    storage and read back at ``input``'s own elements (cells outside them get none, as in
    PyTorch). RuntimeError for a view past the storage's end."""
    arr = _strided_array(input, size, stride, storage_offset)
    out = input._make_view(arr)
    if grad_mode.is_grad_enabled() and input.requires_grad:
        owner = input if input._base is None else input._base
        node = AsStridedBackward0(owner, out)
        node._saved["storage_offset"] = storage_offset  # (as given: None by default)
        node._may_overlap = True
        if owner is not input:  # the gradient goes to the view's own elements
            node._input_index = _base_index(owner, input)
            node.next_functions = (edge_of(input),)
        out._set_history(node)
    if _graph.fw_on:  # (forward AD: the same as_strided of input's tangent, as PyTorch)
        _as_strided_tangent(input, out, size, stride, storage_offset)
    return out


def _as_strided_tangent(input, out, size, stride, storage_offset) -> None:
    from ..autograd import forward_ad

    g = forward_ad.fw_grad(input)
    if g is None or not out.is_floating_point():
        return
    _graph.fw_on = False
    try:
        tangent = as_strided(g, size, stride, storage_offset)
    finally:
        _graph.fw_on = True
    forward_ad._keep(out, tangent)


class AsStridedBackward1(AsStridedBackward0):
    """self.as_strided_(size, stride, storage_offset) (in place).  dz/dself = zeros(self) with
    grad added at the viewed positions. Saves: size, storage_offset (as given), stride."""

    def __init__(self, base, arr, storage_offset):
        AsStridedBackward0.__init__(self, base, Tensor._make(arr))
        self._saved["storage_offset"] = storage_offset
        self._out_meta = ()  # (record adds self's output)
        self._may_overlap = True


def as_strided_(self, size, stride, storage_offset=None) -> Tensor:
    """In-place ``as_strided``: self takes the new sizes and strides over its memory
    (``Tensor.as_strided_``); node ``AsStridedBackward1``, ``_version`` bumped. Same limits as
    `as_strided`."""
    from .transform import _metadata_inplace

    arr = _strided_array(self, size, stride, storage_offset)
    return _metadata_inplace(self, arr, AsStridedBackward1, self, arr, storage_offset,
                             tangent_fn=lambda g: as_strided(g, size, stride, storage_offset))


attach(Tensor, split_with_sizes=split_with_sizes, tensor_split=tensor_split, hsplit=hsplit,
       vsplit=vsplit, dsplit=dsplit,
       repeat_interleave=repeat_interleave, tile=tile, movedim=movedim,
       moveaxis=movedim, swapdims=swapdims, broadcast_to=broadcast_to, type_as=type_as,
       as_strided=as_strided, as_strided_=as_strided_)
