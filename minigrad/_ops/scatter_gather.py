"""Gather / scatter along a dim: ``gather scatter scatter_add scatter_reduce`` and their
in-place variants (``scatter_ scatter_add_ scatter_reduce_``).

Mirrors ``aten/src/ATen/native/ScatterGatherChecks.h`` (shape and dtype checks),
``TensorAdvancedIndexing.cpp`` (the kernels) and the ``gather``/``scatter*`` entries of
``tools/autograd/derivatives.yaml``. Every gradient is written with these same ops, so that
``create_graph=True`` can differentiate it again.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import Node, record
from ._util import at_version, attach, normalize_dim, saved_int


def check_index_dtype(fn: str, index) -> None:
    """RuntimeError unless ``index`` is an int32/int64 tensor (``gather(): Expected dtype
    int32/int64 for index``)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._data.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index")


def _check_gather_shape(self, d, index, src=None) -> None:
    """PyTorch's ``gather_shape_check`` / ``scatter_shape_check``: same number of dims, and
    index no larger than self (apart from ``dim``) and than src."""
    n_self, n_index = max(self.ndim, 1), max(index.ndim, 1)
    if index.numel() == 0:
        return
    if n_index != n_self:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor"
                           if src is None else
                           "Index tensor must have the same number of dimensions as self tensor")
    ishape = index.shape or (1,)
    sshape = self.shape or (1,)
    for k in range(n_self):
        if src is None and k != d and ishape[k] > sshape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index "
                               f"{list(index.shape)} to be no larger than self "
                               f"{list(self.shape)} apart from dimension {d}")
    if src is not None:  # (ATen's order: the sizes dim by dim, reading src's (an IndexError
        # past its dims), then src's number of dims, then the sizes' verdict)
        bad = False
        for k in range(n_self):
            if k != d and ishape[k] > sshape[k]:
                bad = True
                break
            if src.ndim and k >= src.ndim:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-src.ndim}, {src.ndim - 1}], but got {k})")
            if ishape[k] > (src.shape[k] if src.ndim else 1):
                bad = True
                break
        if max(src.ndim, 1) != n_index:
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
        if bad:
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(self.shape)} apart from dimension {d} and to be no larger "
                               f"size than src {list(src.shape)}")


def _np_index(self, d, index) -> tuple:
    """NumPy index tuple addressing ``self`` at ``index`` along ``d`` (and the index's own
    position along every other dim); RuntimeError for an index out of range."""
    idx = index._data.astype(np.int64).reshape(index.shape or (1,))
    size = (self.shape or (1,))[d]
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with "
                           f"size {size}")
    grids = list(np.indices(idx.shape, sparse=True))
    grids[d] = idx
    return tuple(grids)


def _shaped(self) -> np.ndarray:
    return self._data.reshape(self.shape or (1,))


class GatherBackward0(Node):
    """z = self.gather(dim, index).  dz/dself = zeros(self).scatter_add(dim, index, grad).
    Saves: dim, index, self, sparse_grad."""

    def __init__(self, self_, dim, d, index, sparse_grad):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("index", index)
        self._save("self", self_)
        self._save("sparse_grad", bool(sparse_grad))
        self._d = d

    def backward(self, g):
        s, index = self._get("self"), self._get("index")
        zeros = Tensor._make(np.zeros(s.shape, dtype=g._data.dtype))
        return (at_version(scatter_add(zeros, self._d, index, g), 1),)  # (scatter_add_)

    @staticmethod
    def jvp(inputs, tangents, outputs, self_, dim, d, index, sparse_grad):
        """dz = self_t.gather(dim, index)."""
        return gather(tangents[0], d, index)


def gather(input, dim: int, index, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (``torch.gather``); node
    ``GatherBackward0``. ``index`` (int64/int32) has input's number of dims and is no larger
    apart from ``dim``; the result has index's shape. RuntimeError otherwise or for an index out
    of range."""
    check_index_dtype("gather", index)
    d = normalize_dim(dim, input.ndim)
    _check_gather_shape(input, d, index)
    if index.numel() == 0:
        arr = np.zeros(index.shape, dtype=input._data.dtype)
    else:
        arr = _shaped(input)[_np_index(input, d, index)].reshape(index.shape)
    out = Tensor._make(np.require(arr, requirements="C"))
    record(GatherBackward0, out, (input,), input, dim, d, index, sparse_grad)
    return out


class ScatterBackward0(Node):
    """z = self.scatter(dim, index, src).  dz/dself = grad.scatter(dim, index, 0);
    dz/dsrc = grad.gather(dim, index). Saves: dim, index."""

    def __init__(self, dim, d, index):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("index", index)
        self._d = d

    def backward(self, g):
        index, d = self._get("index"), self._d
        gs = scatter(g, d, index, 0) if self.next_functions[0][0] is not None else None
        if len(self.next_functions) == 1:
            return (gs,)
        gsrc = gather(g, d, index) if self.next_functions[1][0] is not None else None
        return gs, gsrc

    @staticmethod
    def jvp(inputs, tangents, outputs, dim, d, index):
        """dz = self_t.scatter(dim, index, src_t) (zeros for a missing one); with a number
        ``value`` (ScatterBackward1), self_t.scatter(dim, index, 0)."""
        from .shape import tangent_pair

        if len(inputs) == 1:
            return scatter(tangents[0], d, index, value=0)
        ta, tb = tangent_pair(inputs, tangents)
        return scatter(ta, d, index, tb)


class ScatterBackward1(ScatterBackward0):
    """z = self.scatter(dim, index, value) (a number).  dz/dself = grad.scatter(dim, index, 0).
    Saves: dim, index."""


class ScatterAddBackward0(ScatterBackward0):
    """z = self.scatter_add(dim, index, src).  dz/dself = grad; dz/dsrc = grad.gather(dim,
    index). Saves: dim, index."""

    def backward(self, g):
        index, d = self._get("index"), self._d
        gs = g if self.next_functions[0][0] is not None else None
        gsrc = gather(g, d, index) if self.next_functions[1][0] is not None else None
        return gs, gsrc

    @staticmethod
    def jvp(inputs, tangents, outputs, dim, d, index):
        """dz = self_t.scatter_add(dim, index, src_t) (zeros for a missing one)."""
        from .shape import tangent_pair

        ta, tb = tangent_pair(inputs, tangents)
        return scatter_add(ta, d, index, tb)


_REDUCES = ("sum", "prod", "mean", "amax", "amin")


class ScatterReduceBackward0(Node):
    """z = self.scatter_reduce(dim, index, src, reduce, include_self).
    ``sum``: dz/dself = grad (0 where scattered to unless include_self), dz/dsrc =
    grad.gather(dim, index). ``amax``/``amin``: the gradient is shared evenly among the
    elements (of self, if included, and of src) equal to the result. ``mean``: grad / count.
    ``prod``: grad times the product of the other members (zeros handled as PyTorch does:
    recomputed with the zero set to 1). Saves: dim, include_self, index, reduce, result, self,
    src."""

    def __init__(self, self_, dim, d, index, src, reduce, include_self):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("include_self", include_self)
        self._save("index", index)
        self._save("reduce", reduce)
        self._save("self", self_)
        self._save("src", src)
        self._d = d

    def backward(self, g):
        from .pointwise import eq, masked_fill

        d, reduce, incl = self._d, self._saved["reduce"], self._saved["include_self"]
        index, s, src = self._get("index"), self._get("self"), self._get("src")
        result = self._get("result")
        nf = self.next_functions
        touched = Tensor._make(_touched(s, d, index))
        gs = gsrc = None
        if reduce == "sum":
            gs = g if incl else masked_fill(g, touched, 0)
            gsrc = gather(g, d, index)
        elif reduce == "mean":
            count = _counts(s, d, index, incl, g._data.dtype)
            gs = g / count if incl else masked_fill(g, touched, 0)
            gsrc = gather(g / count, d, index)
        elif reduce == "prod":  # products of the *other* members, zeros included (PyTorch's)
            from .pointwise import where

            masked_self = masked_fill(s, eq(s, 0), 1)
            gs = g * scatter_reduce(masked_self, d, index, src, "prod",
                                    include_self=incl) / masked_self
            if not incl:
                gs = masked_fill(gs, touched, 0)
            src_zero = eq(src, 0)
            zeros = Tensor._make(np.zeros(s.shape, dtype=g._data.dtype))
            n_zero = gather(scatter_add(zeros, d, index, src_zero.to(g.dtype)), d, index)
            single = Tensor._make(src_zero._data & (n_zero._data == 1))  # (bool masks)
            others = scatter_reduce(s, d, index, masked_fill(src, single, 1), "prod",
                                    include_self=incl)
            gsrc = where(single, gather(g * others, d, index),
                         gather(g * result, d, index) / masked_fill(src, src_zero, 1))
        else:  # amax / amin: split evenly among the elements that reached the result
            self_hit = eq(s, result).to(g.dtype)
            if not incl:
                self_hit = masked_fill(self_hit, touched, 0)
            src_hit = eq(src, gather(result, d, index)).to(g.dtype)
            zeros = Tensor._make(np.zeros(s.shape, dtype=g._data.dtype))
            count = self_hit + scatter_add(zeros, d, index, src_hit)
            share = g / count
            gs = share * self_hit
            gsrc = gather(share, d, index) * src_hit
        return (gs if nf[0][0] is not None else None, gsrc if nf[1][0] is not None else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, self_, dim, d, index, src, reduce, include_self):
        """``sum``/``mean``: dz = self_t.scatter_reduce(dim, index, src_t, reduce,
        include_self) (linear). ``amax``/``amin``: the tangents of the elements equal to the
        result, averaged over them. ``prod``: no tangent (PyTorch gives none)."""
        from .pointwise import eq
        from .shape import tangent_pair

        if reduce == "prod":
            return None
        ta, tb = tangent_pair(inputs, tangents)
        if reduce in ("sum", "mean"):
            return scatter_reduce(ta, d, index, tb, reduce, include_self=include_self)
        result = outputs[0]
        dt = ta.dtype
        self_is = eq(self_, result).to(dt)
        if not include_self:
            self_is = scatter(self_is, d, index, value=0)
        src_is = eq(src, gather(result, d, index)).to(dt)
        count = scatter_add(self_is, d, index, src_is)
        total = scatter_add(ta * self_is, d, index, tb * src_is)
        return total / count


def _touched(self, d, index) -> np.ndarray:
    """Bool mask of the elements of ``self`` that ``index`` scatters to."""
    mask = np.zeros(self.shape or (1,), dtype=bool)
    if index.numel():
        mask[_np_index(self, d, index)] = True
    return mask.reshape(self.shape)


def _counts(self, d, index, include_self, dtype) -> Tensor:
    """How many values a ``mean`` scatter_reduce averaged at each element (at least 1)."""
    count = np.full(self.shape or (1,), 1 if include_self else 0, dtype=dtype)
    if index.numel():
        np.add.at(count, _np_index(self, d, index), 1)
    return Tensor._make(np.maximum(count, 1).reshape(self.shape))


def _check_src(fn, self, src) -> None:
    if self._data.dtype != src._data.dtype:
        raise RuntimeError(f"{fn}(): Expected self.dtype to be equal to src.dtype")


def _scatter_arrays(self, d, index, src_arr, how: str) -> np.ndarray:
    """``self``'s array with ``src_arr`` (shaped as index, or a number) written (``how``:
    "set") or accumulated ("add") at ``index`` along ``d``."""
    # (a C-contiguous copy: PyTorch's structured scatter kernels allocate a contiguous
    # result whatever ``self``'s strides)
    out = np.array(self._data, copy=True, order="C").reshape(self.shape or (1,))
    if index.numel():
        where = _np_index(self, d, index)
        vals = src_arr if np.ndim(src_arr) == 0 else src_arr[
            tuple(slice(0, n) for n in (index.shape or (1,)))]
        if how == "set":
            out[where] = vals
        else:
            np.add.at(out, where, np.broadcast_to(vals, (index.shape or (1,))))
    return out.reshape(self.shape)


def scatter(input, dim: int, index, src=None, *, value=None, reduce=None) -> Tensor:
    """Write ``src`` (a tensor, or a number ``value``) into a copy of ``input`` at ``index``
    along ``dim`` (``torch.scatter``): node ``ScatterBackward0`` (src a tensor, slots self and
    src) or ``ScatterBackward1`` (a number). ``reduce`` ("add", "multiply") is computed but, as
    in PyTorch, not differentiable. RuntimeError on dtype/shape mismatch or out-of-range index.
    """
    if src is None:
        src = value
    check_index_dtype("scatter", index)
    d = normalize_dim(dim, input.ndim)
    if isinstance(src, Tensor):
        _check_gather_shape(input, d, index, src)
        _check_src("scatter", input, src)
        arr = _shaped(src)
    else:
        _check_gather_shape(input, d, index, None if index.ndim == 0 else input)
        arr = np.asarray(src, dtype=input._data.dtype)
    if reduce is not None:
        if isinstance(src, Tensor) and not _WARNED:  # (PyTorch warns once per process)
            _WARNED.append(True)
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and "
                          "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                          "instead for more reduction options.", UserWarning, stacklevel=2)
        return _scatter_legacy_reduce(input, src, d, index, arr, reduce)
    out = Tensor._make(_scatter_arrays(input, d, index, arr, "set"))
    if isinstance(src, Tensor):
        record(ScatterBackward0, out, (input, src), dim, d, index)
    else:
        record(ScatterBackward1, out, (input,), dim, d, index)
    return out


_WARNED: list = []  # the deprecation warning of scatter's reduce= was given


class NotImplemented(Node):  # noqa: A001  (PyTorch's node: torch::autograd::NotImplemented)
    """The node PyTorch records for an op without a derivative formula (``scatter`` with
    ``reduce=``): the result requires grad, and a backward pass that reaches it raises
    RuntimeError. Saves nothing."""

    _runs_unmasked = True  # (raises, or calls its fn, whatever is needed)

    def __init__(self, op: str):
        Node.__init__(self)
        self._op = op

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def backward(self, *grads):
        raise RuntimeError(f"derivative for {self._op} is not implemented")

    @staticmethod
    def jvp(inputs, tangents, outputs, op):
        """No forward formula: PyTorch's NotImplementedError names the op."""
        raise NotImplementedError(f"Trying to use forward AD with {op} that does not support "
                                  "it.")


def _scatter_legacy_reduce(input, src, d, index, arr, reduce) -> Tensor:
    """``scatter(..., reduce="add" | "multiply")``: not differentiable in PyTorch, which
    records a ``NotImplemented`` node (backward raises); so does minigrad."""
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    out = np.array(input._data, copy=True, order="C").reshape(input.shape or (1,))
    if index.numel():
        where = _np_index(input, d, index)
        vals = np.broadcast_to(arr if np.ndim(arr) == 0 else
                               arr[tuple(slice(0, n) for n in (index.shape or (1,)))],
                               index.shape or (1,))
        (np.add if reduce == "add" else np.multiply).at(out, where, vals)
    out = Tensor._make(out.reshape(input.shape))
    record(NotImplemented, out, (input, src) if isinstance(src, Tensor) else (input,),
           "aten::scatter")
    return out


def scatter_add(input, dim: int, index, src) -> Tensor:
    """Add ``src`` into a copy of ``input`` at ``index`` along ``dim``, repeated indices
    accumulating (``torch.scatter_add``); node ``ScatterAddBackward0`` (slots self, src)."""
    check_index_dtype("scatter", index)
    d = normalize_dim(dim, input.ndim)
    _check_gather_shape(input, d, index, src)
    _check_src("scatter_add", input, src)
    out = Tensor._make(_scatter_arrays(input, d, index, _shaped(src), "add"))
    record(ScatterAddBackward0, out, (input, src), dim, d, index)
    return out


def scatter_reduce(input, dim: int, index, src, reduce: str, *, include_self: bool = True):
    """Reduce ``src`` into a copy of ``input`` at ``index`` along ``dim`` with ``reduce`` in
    "sum", "prod", "mean", "amax", "amin" (``torch.scatter_reduce``), counting ``input``'s own
    value when ``include_self``; node ``ScatterReduceBackward0``."""
    check_index_dtype("scatter_reduce", index)
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    d = normalize_dim(dim, input.ndim)
    _check_gather_shape(input, d, index, src)
    _check_src("scatter_reduce", input, src)
    dt = input._data.dtype
    out = np.array(input._data, copy=True, order="C").reshape(input.shape or (1,))
    if index.numel():
        where = _np_index(input, d, index)
        vals = _shaped(src)[tuple(slice(0, n) for n in (index.shape or (1,)))]
        hit = np.zeros(out.shape, dtype=bool)
        hit[where] = True
        if not include_self:
            init = {"sum": 0, "mean": 0, "prod": 1, "amax": -np.inf, "amin": np.inf}[reduce]
            if dt.kind not in "fV" and reduce in ("amax", "amin"):
                info = np.iinfo(dt)
                init = info.min if reduce == "amax" else info.max
            out[hit] = init
        ufunc = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
                 "amin": np.minimum}[reduce]
        ufunc.at(out, where, vals)
        if reduce == "mean":
            count = np.full(out.shape, 1 if include_self else 0, dtype=np.int64)
            np.add.at(count, where, 1)
            cnt = np.maximum(count, 1)
            out = out / cnt if dt.kind in "fV" else out // cnt
            out = out.astype(dt)
    out = Tensor._make(out.reshape(input.shape))
    node = record(ScatterReduceBackward0, out, (input, src), input, dim, d, index, src, reduce,
                  include_self)
    if node is not None:
        node._save("result", out, is_output=True)
    return out


def take_along_dim(input, indices, dim=None) -> Tensor:
    """``gather`` with ``input`` and ``indices`` broadcast to each other apart from ``dim``
    (``torch.take_along_dim``; ``dim`` None: both flattened), as PyTorch composes it:
    ``broadcast_to`` (``ExpandBackward0``) then ``GatherBackward0``."""
    from ._util import broadcast_shapes

    check_index_dtype("take_along_dim", indices)
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))  # (view: PyTorch refuses a
        # non-contiguous input here too)
    d = normalize_dim(dim, input.ndim)
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    sizes = list(input.shape)
    sizes[d] = indices.shape[d]
    index_b = indices.broadcast_to(broadcast_shapes(tuple(sizes), indices.shape))
    sizes = list(indices.shape)
    sizes[d] = input.shape[d]
    input_b = input.broadcast_to(broadcast_shapes(tuple(sizes), input.shape))
    return gather(input_b, d, index_b)


def _scatter_method(self, dim, index, src=None, *, value=None, reduce=None):
    """``torch.scatter(self, dim, index, src)``: see `scatter`."""
    return scatter(self, dim, index, src, value=value, reduce=reduce)


def _scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    """In-place ``scatter``: modifies self, bumps ``_version``, returns self."""
    from .inplace import _apply_inplace

    others = (src,) if isinstance(src, Tensor) else ()
    return _apply_inplace(self, lambda: scatter(self, dim, index, src, value=value,
                                                reduce=reduce), others)


def _scatter_add_(self, dim, index, src):
    """In-place ``scatter_add``: modifies self, bumps ``_version``, returns self."""
    from .inplace import _apply_inplace

    return _apply_inplace(self, lambda: scatter_add(self, dim, index, src), (src,))


def _scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """In-place ``scatter_reduce``: modifies self, bumps ``_version``, returns self."""
    from .inplace import _apply_inplace

    return _apply_inplace(self, lambda: scatter_reduce(self, dim, index, src, reduce,
                                                       include_self=include_self), (src,))


attach(Tensor, gather=gather, take_along_dim=take_along_dim, scatter=_scatter_method,
       scatter_add=scatter_add, scatter_reduce=scatter_reduce, scatter_=_scatter_,
       scatter_add_=_scatter_add_, scatter_reduce_=_scatter_reduce_)
