"""Reductions: ``sum mean max min amax amin var std logsumexp argmax argmin``.

Mirrors ``aten/src/ATen/native/ReduceOps.cpp`` and the reduction entries of
``derivatives.yaml``. Node names depend on the overload, as in PyTorch: ``x.sum()`` is
``SumBackward0`` but ``x.sum(dim)`` is ``SumBackward1``; ``x.max()`` is ``MaxBackward1`` but
``x.max(dim)`` is ``MaxBackward0`` (and returns ``(values, indices)``).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import Node, record
from ..return_types import max as max_result  # (torch.return_types.max)
from ..return_types import min as min_result
from ._util import (
    _HALF,
    attach,
    normalize_dim,
    normalize_dims,
    quiet_fp,
    quiet_numpy,
    saved_dims,
    saved_int,
    sum_dtype,
    widened,
)
from .scalar import div_scalar, mul_scalar


def _unsqueeze_dims(g: Tensor, dims, keepdim: bool) -> Tensor:
    """Give a reduced gradient back its reduced (normalised) dims as size 1, so that it
    broadcasts against the input."""
    if keepdim or not dims:
        return g
    for d in sorted(dims):  # one unsqueeze per dim, as PyTorch's unsqueeze_multiple (the
        g = g.unsqueeze(d)  # graph under create_graph shows UnsqueezeBackward0 nodes)
    return g


def _grad_dtype(g: Tensor, dtype) -> Tensor:
    """Cast a gradient back to the input's dtype (reductions called with ``dtype=``)."""
    return g if g.dtype is dtype else g.to(dtype)


def _out_dtype(a: Tensor, out: Tensor):
    """The ``dtype=`` a reduction was called with (None: its input's), for its tangent."""
    return None if out.dtype is a.dtype else out.dtype


def _var_jvp(a: Tensor, t: Tensor, dim, dims, correction, keepdim: bool) -> Tensor:
    """PyTorch's var jvp: ``var_backward(t, a, dim, correction, keepdim=True)`` (2 / (N -
    correction) * t * (a - mean); for a full reduction with N - correction <= 0, t * (nan where
    a == mean else inf)) summed over the reduced dims."""
    from .pointwise import where

    if dim is None or a.ndim == 0:
        dof = a.numel() - correction
        centered = a - a.mean()
        if dof <= 0:
            nan = Tensor._make(np.asarray(np.nan, t._data.dtype))
            inf = Tensor._make(np.asarray(np.inf, t._data.dtype))
            v = t * where(a == a.mean(), nan, inf)
        else:
            v = mul_scalar(t, 2.0 / dof) * centered
        return sum(v, [], keepdim)
    given = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    n = int(np.prod([a.shape[d] for d in dims], dtype=np.int64)) if given else 1
    dof = n - correction
    factor = 2.0 / dof if dof != 0 else float("inf")
    v = mul_scalar(t, factor) * (a - a.mean(dim, keepdim=True))
    return sum(v, dim, keepdim)


def _std_jvp(var_t: Tensor, result: Tensor) -> Tensor:
    """std's tangent from var's: ``(var_t / (2 result)).masked_fill_(result == 0, 0)``."""
    from .pointwise import masked_fill

    with quiet_fp():
        return masked_fill(var_t / mul_scalar(result, 2.0), result == 0, 0)


class SumBackward0(Node):
    """z = self.sum().  dz/dself = grad expanded to self_sym_sizes. Saves: self_sym_sizes."""

    def __init__(self, a):
        Node.__init__(self)
        self._save("self_sym_sizes", tuple(a.shape))
        self._dtype = a.dtype

    def backward(self, g):
        return (_grad_dtype(g, self._dtype).expand(self._saved["self_sym_sizes"]),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a):
        """dz = self_t.sum() (auto_linear)."""
        return sum(tangents[0], dtype=_out_dtype(a, outputs[0]))


class SumBackward1(Node):
    """z = self.sum(dim, keepdim).  dz/dself = grad (reduced dims restored) expanded to
    self_sym_sizes. Saves: dim (as given, see ``saved_dims``), keepdim, self_sym_sizes."""

    def __init__(self, a, dim, dims, keepdim):
        Node.__init__(self)
        self._save("dim", saved_dims(dim))
        self._save("keepdim", keepdim)
        self._save("self_sym_sizes", tuple(a.shape))
        self._dims, self._dtype = dims, a.dtype

    def backward(self, g):
        g = _unsqueeze_dims(_grad_dtype(g, self._dtype), self._dims, self._saved["keepdim"])
        return (g.expand(self._saved["self_sym_sizes"]),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, dims, keepdim):
        """dz = self_t.sum(dim, keepdim) (auto_linear)."""
        return sum(tangents[0], dim, keepdim, dtype=_out_dtype(a, outputs[0]))


class MeanBackward0(Node):
    """z = self.mean().  dz/dself = grad / numel expanded. Saves: self_sym_numel,
    self_sym_sizes."""

    def __init__(self, a):
        Node.__init__(self)
        self._save("self_sym_numel", a.numel())
        self._save("self_sym_sizes", tuple(a.shape))
        self._dtype = a.dtype

    def backward(self, g):
        s = self._saved  # expand, then divide by the number: a dense gradient (DivBackward1
        # under create_graph), as PyTorch's formula
        return (div_scalar(_grad_dtype(g, self._dtype).expand(s["self_sym_sizes"]),
                           s["self_sym_numel"]),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a):
        """dz = self_t.mean() (auto_linear)."""
        return mean(tangents[0], dtype=_out_dtype(a, outputs[0]))


class MeanBackward1(Node):
    """z = self.mean(dim, keepdim).  dz/dself = grad / (number of reduced elements), expanded.
    Saves: dim (as given), keepdim, self_sym_numel, self_sym_sizes."""

    def __init__(self, a, dim, dims, keepdim):
        Node.__init__(self)
        self._save("dim", saved_dims(dim))
        self._save("keepdim", keepdim)
        self._save("self_sym_numel", a.numel())
        self._save("self_sym_sizes", tuple(a.shape))
        self._dims, self._dtype = dims, a.dtype
        self._count = int(np.prod([a.shape[d] for d in dims], dtype=np.int64))

    def backward(self, g):
        s = self._saved
        g = _unsqueeze_dims(_grad_dtype(g, self._dtype), self._dims, s["keepdim"])
        return (div_scalar(g.expand(s["self_sym_sizes"]), self._count),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, dims, keepdim):
        """dz = self_t.mean(dim, keepdim) (auto_linear)."""
        return mean(tangents[0], dim, keepdim, dtype=_out_dtype(a, outputs[0]))


def _reduce_dims(dim, ndim: int) -> tuple:
    """The normalised dims a reduction runs over; an empty list/tuple means all dims, as in
    PyTorch (``x.sum(dim=[])`` is a full sum)."""
    if dim is not None and not isinstance(dim, (int, np.integer)) and len(dim) == 0:
        dim = None
    return normalize_dims(dim, ndim)


def _check_nonempty(fn: str, input, dim, dims, all_error=RuntimeError) -> None:
    """PyTorch's errors for max/min/amax/amin/argmax/argmin of empty inputs: IndexError when a
    reduced dim has size 0 (the first such dim, as the user wrote it for ``amax``/``amin``,
    normalised for the others); ``all_error`` when reducing all dims of an empty tensor."""
    if input.numel() != 0:
        return
    if not dims or dim is None:
        tail = " Specify the reduction dim with the 'dim' argument." \
            if all_error is RuntimeError else ""
        raise all_error(f"{fn}(): Expected reduction dim to be specified for input.numel() == 0."
                        f"{tail}")
    given = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    for d, shown in zip([normalize_dim(d, input.ndim) for d in given], given):
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"{fn}(): Expected reduction dim "
                             f"{shown if fn in ('amax', 'amin') else d} to have non-zero size.")


def _check_float(fn, t, dtype=None):
    if t._data.dtype.kind not in "fV" and (dtype is None or not dtype.is_floating_point):
        raise RuntimeError(f"{fn}(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {t.dtype._legacy[:-6]}")


def _as_dtype(dtype):
    if dtype is None:  # (the common case: no import statement to run)
        return None
    from .. import _dtype as D

    return D.from_numpy_dtype(D.to_numpy_dtype(dtype))


def sum(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum of all elements (``SumBackward0``), or over ``dim`` (int, tuple or list; negative
    dims count from the end) (``SumBackward1``) (``torch.sum``).

    Integer and bool inputs sum to int64, as in PyTorch; ``dtype`` casts first. Raises
    IndexError for a dim out of range, RuntimeError for a repeated dim.
    """
    arr = input._data
    if arr.dtype.kind in "biu":
        arr = arr.astype(np.int64)
    dt = _as_dtype(dtype)
    if dt is not None:
        arr = arr.astype(dt.np)
    if dim is None:
        with quiet_fp():  # (inf + -inf is nan without a warning, as in PyTorch)
            out = Tensor._make(np.asarray(arr.sum(dtype=sum_dtype(arr)), dtype=arr.dtype))
        record(SumBackward0, out, (input,), input)
        return out
    dims = _reduce_dims(dim, input.ndim)
    with quiet_fp():
        res = np.asarray(arr.sum(axis=dims, dtype=sum_dtype(arr), keepdims=keepdim), arr.dtype)
    if not arr.flags.c_contiguous:  # (NumPy keeps the input's order; PyTorch's is row-major)
        res = np.array(res, order="C")
    out = Tensor._make(res)
    record(SumBackward1, out, (input,), input, dim, dims, keepdim)
    return out


def _np_mean(arr: np.ndarray, axis=None, keepdims: bool = False):
    """NumPy's mean, without its RuntimeWarning for an empty reduction (PyTorch gives nan
    silently)."""
    if arr.size:
        return arr.mean(axis=axis, dtype=sum_dtype(arr), keepdims=keepdims)
    with quiet_numpy():
        return arr.mean(axis=axis, dtype=sum_dtype(arr), keepdims=keepdims)


def mean(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean of all elements (``MeanBackward0``) or over ``dim`` (``MeanBackward1``)
    (``torch.mean``). RuntimeError for integer inputs without a float ``dtype``."""
    dt = _as_dtype(dtype)
    _check_float("mean", input, dt)
    arr = input._data if dt is None else input._data.astype(dt.np)
    if dim is None:
        out = Tensor._make(np.asarray(_np_mean(arr), dtype=arr.dtype))
        record(MeanBackward0, out, (input,), input)
        return out
    dims = _reduce_dims(dim, input.ndim)
    res = np.asarray(_np_mean(arr, dims, keepdim), dtype=arr.dtype)
    if not arr.flags.c_contiguous:  # (row-major, as PyTorch's: see sum)
        res = np.array(res, order="C")
    out = Tensor._make(res)
    record(MeanBackward1, out, (input,), input, dim, dims, keepdim)
    return out


# ----------------------------------------------------------------------------- max / min
class MaxBackward1(Node):
    """z = self.max() (all elements).  dz/dself = grad / count at the elements equal to the
    max (the NaNs when the max is NaN), 0 elsewhere (PyTorch's ``evenly_distribute_backward``).
    Saves: result, self."""

    def __init__(self, a):
        Node.__init__(self)
        self._save("self", a)

    def backward(self, g):
        from .pointwise import where

        s, r = self._get("self")._data, self._get("result")._data
        mask = np.isnan(s) if np.isnan(r) else s == r
        zero = Tensor._make(np.zeros((), g._data.dtype))
        out = where(Tensor._make(mask), g / int(mask.sum()), zero)
        out._vc.bump()  # PyTorch fills new zeros in place (masked_fill_): version 1
        return (out,)

    @staticmethod
    def jvp(inputs, tangents, outputs, a):
        """dz = sum(mask * (self_t / mask.sum())), mask = (self == result): the tangent averaged
        over the maximal elements (PyTorch's ``evenly_read_jvp``; NaN when the max is NaN)."""
        mask = a == outputs[0]
        return sum(mask * (tangents[0] / sum(mask)))


class MinBackward1(MaxBackward1):
    """z = self.min() (all elements).  dz/dself = grad spread evenly over the elements equal
    to the min. Saves: result, self."""


class MaxBackward0(Node):
    """(values, indices) = self.max(dim, keepdim).  dz/dself = grad placed at indices, zero
    elsewhere (even where grad is inf/nan: a scatter, not a product). Saves: dim, indices,
    keepdim, self_sym_sizes."""

    def __init__(self, a, dim, d, keepdim):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("keepdim", keepdim)
        self._save("self_sym_sizes", tuple(a.shape))
        self._d = d

    def backward(self, g, _g_indices=None):
        s, d = self._saved, self._d
        idx = self._get("indices")._data  # (unpacked first: fails once the graph was freed)
        if not s["self_sym_sizes"]:  # a 0-dim input: its only element was selected
            from .scatter_gather import scatter

            zeros = Tensor._make(np.zeros((), g._data.dtype))  # (PyTorch's new_zeros + in-place
            out = scatter(zeros, 0, Tensor._make(idx.reshape(())), g)  # scatter: version 2)
            out._vc.value += 2
            return (out,)
        if not s["keepdim"]:
            idx = np.expand_dims(idx, d)
        from .scatter_gather import scatter

        zeros = Tensor._make(np.zeros(s["self_sym_sizes"], g._data.dtype))  # (an inf/nan
        # gradient stays where it is scattered; ScatterBackward0 under create_graph)
        out = scatter(zeros, d, Tensor._make(idx), _unsqueeze_dims(g, (d,), s["keepdim"]))
        out._vc.value += 2  # PyTorch writes into new zeros in place: the result is at version 2
        return (out,)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, d, keepdim):
        """dvalues = self_t.gather(dim, indices) (indices unsqueezed at dim without keepdim;
        PyTorch's ``gather_with_keepdimed_indices``)."""
        from .scatter_gather import gather

        t, idx = tangents[0], outputs[1]
        if not keepdim:
            idx = idx.unsqueeze(d)
        out = gather(t, d, idx)
        return (out if keepdim else out.squeeze(d)), None


class MinBackward0(MaxBackward0):
    """(values, indices) = self.min(dim, keepdim).  dz/dself = grad placed at indices.
    Saves: dim, indices, keepdim, self_sym_sizes."""


def _extreme(input, dim, keepdim, largest: bool):
    name = "max" if largest else "min"
    if isinstance(dim, Tensor):
        from .pointwise import maximum, minimum

        return (maximum if largest else minimum)(input, dim)
    _check_nonempty(name, input, dim, None if dim is None else (dim,))
    if dim is None:
        out = Tensor._make(np.asarray(input._data.max() if largest else input._data.min()))
        node = record(MaxBackward1 if largest else MinBackward1, out, (input,), input)
        if node:
            node._save("result", out, is_output=True)
        return out
    d = normalize_dim(dim, input.ndim)
    arg = np.argmax if largest else np.argmin
    if input.ndim == 0:  # dim 0 / -1 of a 0-dim tensor: the element itself, index 0
        vals, idx = np.array(input._data, copy=True), np.zeros((), np.int64)
    else:
        idx = np.expand_dims(arg(input._data, axis=d), d)
        vals = np.take_along_axis(input._data, idx, axis=d)
        if not keepdim:
            vals, idx = np.squeeze(vals, d), np.squeeze(idx, d)
    values = Tensor._make(np.asarray(vals, order="C"))  # (contiguous, as PyTorch's)
    indices = Tensor._make(np.asarray(idx, dtype=np.int64, order="C"))
    node = record(MaxBackward0 if largest else MinBackward0, [values, indices], (input,), input,
                  dim, d, keepdim)
    if node:
        node._save("indices", indices)
    return (max_result if largest else min_result)(values, indices)


def max(input, dim=None, keepdim: bool = False):
    """Max of all elements (``MaxBackward1``), or ``(values, indices)`` over ``dim``
    (``MaxBackward0``), or elementwise with a tensor (``torch.maximum``)."""
    return _extreme(input, dim, keepdim, True)


def min(input, dim=None, keepdim: bool = False):
    """Min of all elements, or ``(values, indices)`` over ``dim`` (``torch.min``)."""
    return _extreme(input, dim, keepdim, False)


class AmaxBackward0(Node):
    """z = self.amax(dim, keepdim).  dz/dself = grad spread evenly over the maximal elements
    of each reduced slice. Saves: dim, keepdim, result, self."""

    def __init__(self, a, dim, dims, keepdim):
        Node.__init__(self)
        self._save("dim", saved_dims(dim))
        self._save("keepdim", keepdim)
        self._save("self", a)
        self._dims = dims

    def backward(self, g):
        s, dims, keep = self._get("self"), self._dims, self._saved["keepdim"]
        r = _unsqueeze_dims(self._get("result"), dims, keep)
        mask = s._data == r._data
        count = Tensor._make(mask.sum(axis=dims, keepdims=True))
        if not keep:  # (PyTorch's restore_reduced_dims: a reshape, ViewBackward0)
            g = g.reshape(r.shape)
        return ((g / count) * Tensor._make(mask),)  # (PyTorch's scale_grad_by_count)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, dims, keepdim):
        """dz = where(mask, self_t, 0).sum(dim, keepdim) / mask.sum(dim, keepdim), mask = (self
        == result with the reduced dims restored) (PyTorch's ``amaxamin_jvp``)."""
        from .pointwise import where

        r = outputs[0] if keepdim else outputs[0].reshape(
            [1 if i in dims else n for i, n in enumerate(a.shape)])
        mask = a == r
        zero = Tensor._make(np.zeros((), tangents[0]._data.dtype))
        return sum(where(mask, tangents[0], zero), dims, keepdim) / sum(mask, dims, keepdim)


class AminBackward0(AmaxBackward0):
    """z = self.amin(dim, keepdim).  dz/dself = grad spread evenly over the minimal elements.
    Saves: dim, keepdim, result, self."""


def _amax(input, dim, keepdim, largest):
    dims = _reduce_dims(dim, input.ndim)
    given = dim if isinstance(dim, (int, np.integer)) or len(dim) else None
    _check_nonempty("amax" if largest else "amin", input, given, dims)
    fn = np.max if largest else np.min
    out = Tensor._make(np.asarray(fn(input._data, axis=dims, keepdims=keepdim), order="C"))
    node = record(AmaxBackward0 if largest else AminBackward0, out, (input,), input, dim, dims,
                  keepdim)
    if node:
        node._save("result", out, is_output=True)
    return out


def amax(input, dim=(), keepdim: bool = False) -> Tensor:
    """Max over ``dim`` (all dims by default) without indices (``torch.amax``)."""
    return _amax(input, dim, keepdim, True)


def amin(input, dim=(), keepdim: bool = False) -> Tensor:
    """Min over ``dim`` (all dims by default) without indices (``torch.amin``)."""
    return _amax(input, dim, keepdim, False)


def argmax(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the max (flattened if ``dim`` is None), int64, no grad (``torch.argmax``)."""
    _check_nonempty("argmax", input, dim, None if dim is None else (dim,), IndexError)
    if dim is None:  # (keepdim keeps every dim, as size 1)
        out = np.asarray(np.argmax(input._data), dtype=np.int64)
        return Tensor._make(out.reshape((1,) * input.ndim) if keepdim else out)
    d = normalize_dim(dim, input.ndim)
    if input.ndim == 0:
        return Tensor._make(np.zeros((), np.int64))
    return Tensor._make(np.asarray(np.argmax(input._data, axis=d, keepdims=keepdim),
                                   dtype=np.int64, order="C"))


def argmin(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the min, int64, no grad (``torch.argmin``)."""
    _check_nonempty("argmin", input, dim, None if dim is None else (dim,), IndexError)
    if dim is None:
        out = np.asarray(np.argmin(input._data), dtype=np.int64)
        return Tensor._make(out.reshape((1,) * input.ndim) if keepdim else out)
    d = normalize_dim(dim, input.ndim)
    if input.ndim == 0:
        return Tensor._make(np.zeros((), np.int64))
    return Tensor._make(np.asarray(np.argmin(input._data, axis=d, keepdims=keepdim),
                                   dtype=np.int64, order="C"))


# ----------------------------------------------------------------------------- var / std
class VarBackward0(Node):
    """z = self.var(dim, correction, keepdim).  dz/dself = grad * 2 (self - mean) / (N -
    correction), N = number of reduced elements (PyTorch's ``var_backward``: 2 / 0 is inf; for
    a full reduction, dim None or a 0-dim input, with N - correction <= 0 it is
    grad * (nan where self == mean, else inf)). Saves: correction (None when neither
    ``correction`` nor ``unbiased`` was given and dim is None), dim (as given, or None),
    keepdim, self."""

    def __init__(self, a, dim, dims, correction, keepdim, saved_correction):
        Node.__init__(self)
        self._save("correction", saved_correction)
        self._save("dim", None if dim is None else saved_dims(dim))
        self._save("keepdim", keepdim)
        self._save("self", a)
        self._dim, self._dims, self._corr = dim, dims, correction
        self._all = dim is None or a.ndim == 0
        # PyTorch's backward counts the reduced elements over the dims *as given*: an empty
        # list reduces everything in the forward but counts as 1 element here
        given = () if dim is None or isinstance(dim, (int, np.integer)) or len(dim) else None
        self._n = 1 if given is None else int(np.prod([a.shape[d] for d in dims], dtype=np.int64))

    def _var_grad(self, g):
        """``var_backward`` for an incoming gradient ``g`` of the reduced shape."""
        s, dims = self._get("self"), self._dims
        if self._all:  # (as PyTorch's var_backward: a 0-dim grad broadcasts, a full mean)
            centered = s - s.mean()
        else:
            if s.ndim > 1:
                g = _unsqueeze_dims(g, dims, self._saved["keepdim"])
            centered = s - s.mean(self._dim, keepdim=True)
        dof = self._n - self._corr
        with quiet_fp():
            if self._all and dof <= 0:
                nan_inf = np.where(centered._data == 0, np.nan, np.inf).astype(s._data.dtype)
                return g * Tensor._make(nan_inf)
            # PyTorch's order, (2 / dof * grad) * centered: with an infinite factor (dof 0) the
            # gradients of the gradient are inf or nan as in PyTorch only in that order; the
            # factor is a plain number (MulBackward1 under create_graph)
            return mul_scalar(g, 2.0 / dof if dof != 0 else float("inf")) * centered

    def backward(self, g):
        return (self._var_grad(g),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, dims, correction, keepdim, saved_correction):
        """dz = var_backward(self_t, self, dim, correction, keepdim=True).sum(dim, keepdim):
        sum(2 / (N - correction) * self_t * (self - mean)) over the reduced dims."""
        return _var_jvp(a, tangents[0], dim, dims, correction, keepdim)


class StdBackward0(VarBackward0):
    """z = self.std(dim, correction, keepdim).  dz/dself = var_backward(grad / (2 result)),
    with grad / (2 result) taken as 0 where result == 0 (PyTorch's ``std_backward``).
    Saves: correction, dim, keepdim, result, self."""

    def backward(self, g):
        from .pointwise import masked_fill

        r = self._get("result")
        with quiet_fp():  # (PyTorch: (grad / (result * 2)).masked_fill_(result == 0, 0))
            gv = masked_fill(g / mul_scalar(r, 2), r == 0, 0)
        return (self._var_grad(gv),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, dims, correction, keepdim, saved_correction):
        """dz = (var's tangent / (2 result)), 0 where result == 0."""
        return _std_jvp(_var_jvp(a, tangents[0], dim, dims, correction, keepdim), outputs[0])


def _var(input, dim, unbiased, keepdim, correction, std):
    if input._data.dtype.kind not in "fV":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if isinstance(dim, bool):  # var(unbiased) positional form
        unbiased, dim = dim, None
    if correction is None:
        correction = 1 if unbiased in (None, True) else 0
        saved_corr = None if dim is None and unbiased is None else correction
    else:
        saved_corr = correction
    dims = _reduce_dims(dim, input.ndim)
    n = int(np.prod([input.shape[d] for d in dims]))  # reduced elements per output element
    if n - correction <= 0:  # PyTorch's warning, in place of NumPy's
        warnings.warn(f"{'std' if std else 'var'}(): degrees of freedom is <= 0. Correction "
                      "should be strictly less than the reduction factor (input numel divided "
                      "by output numel).", UserWarning, stacklevel=3)
    fn = np.std if std else np.var
    with quiet_numpy():
        out = Tensor._make(np.asarray(fn(widened(input._data), axis=dims, ddof=correction,
                                         keepdims=keepdim), dtype=input._data.dtype, order="C"))
    node = record(StdBackward0 if std else VarBackward0, out, (input,), input, dim, dims,
                  correction, keepdim, saved_corr)
    if node and std:
        node._save("result", out, is_output=True)
    return out


def var(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Variance over ``dim`` (all dims by default) with ``correction`` (default 1, Bessel;
    ``unbiased=False`` means 0) (``torch.var``); node ``VarBackward0``. Float inputs only."""
    return _var(input, dim, unbiased, keepdim, correction, std=False)


def std(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Standard deviation, arguments as `var` (``torch.std``); node ``StdBackward0``."""
    return _var(input, dim, unbiased, keepdim, correction, std=True)


class LogsumexpBackward0(Node):
    """z = log(sum(exp(self), dim)).  dz/dself = grad * exp(self - result).
    Saves: dim (as given), keepdim, result, self."""

    def __init__(self, a, dim, dims, keepdim):
        Node.__init__(self)
        self._save("dim", saved_dims(dim))
        self._save("keepdim", keepdim)
        self._save("self", a)
        self._dims = dims

    def backward(self, g):
        s, dims, keep = self._get("self"), self._dims, self._saved["keepdim"]
        r = _unsqueeze_dims(self._get("result"), dims, keep)
        return (_unsqueeze_dims(g, dims, keep) * (s - r).exp(),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, dims, keepdim):
        """dz = sum(e * self_t, dim) / sum(e, dim), e = exp(self - amax(self, dim)) (exp(self)
        for an empty input) (PyTorch's ``logsumexp_jvp``). As PyTorch's, e is multiplied by
        self_t in place (the tangent has self's dtype; a reverse pass through it fails, e being
        saved by ExpBackward0) and the division is in place."""
        e = (a - amax(a, dims, True)).exp() if a.numel() else a.exp()
        total = sum(e, dims, keepdim)
        e.mul_(tangents[0])
        return sum(e, dims, keepdim).div_(total)


def logsumexp(input, dim, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` over ``dim``, computed stably (``torch.logsumexp``)."""
    dims = normalize_dims(dim, input.ndim)
    a = input._data if input._data.dtype.kind in "fV" else input._data.astype(np.float32)
    out_dtype, a = a.dtype, widened(a)
    m = np.max(a, axis=dims, keepdims=True) if a.size else np.zeros((1,) * a.ndim, a.dtype)
    m = np.where(np.isfinite(m), m, 0)
    with quiet_fp():  # (a row of -inf: log(0) = -inf, silently)
        if out_dtype in _HALF:  # PyTorch's composite runs in float16/bfloat16: each step rounds
            def r(v):
                return v.astype(out_dtype).astype(np.float32)

            res = r(r(np.log(r(np.sum(r(np.exp(r(a - m))), axis=dims, keepdims=True)))) + m)
        else:
            res = np.log(np.sum(np.exp(a - m), axis=dims, keepdims=True)) + m
    if not keepdim:
        res = np.squeeze(res, dims)
    out = Tensor._make(np.asarray(res, dtype=out_dtype, order="C"))
    node = record(LogsumexpBackward0, out, (input,), input, dim, dims, keepdim)
    if node:
        node._save("result", out, is_output=True)
    return out


def _logical_reduction(name, fn):
    def op(input, dim=None, keepdim=False):
        dims = normalize_dims(dim, input.ndim)
        res = fn(input._data, axis=dims, keepdims=keepdim)
        return Tensor._make(np.asarray(res, np.uint8 if input._data.dtype == np.uint8 else bool))

    op.__name__ = name
    op.__doc__ = (f"``torch.{name}``: whether {name} elements (over ``dim``: an int, a tuple or "
                  f"None for all) are nonzero → bool tensor (uint8 for a uint8 input), never "
                  f"requires grad. IndexError for a dim out of range, RuntimeError for a "
                  f"repeated dim.")
    return op


all = _logical_reduction("all", np.all)  # noqa: A001 - torch.all
any = _logical_reduction("any", np.any)  # noqa: A001 - torch.any


def _max_method(self, dim=None, keepdim=False):
    return max(self, dim, keepdim)


def _min_method(self, dim=None, keepdim=False):
    return min(self, dim, keepdim)


attach(Tensor, sum=sum, mean=mean, max=_max_method, min=_min_method, amax=amax, amin=amin,
       argmax=argmax, argmin=argmin, var=var, std=std, logsumexp=logsumexp, all=all,
       any=any)
