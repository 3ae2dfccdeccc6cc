"""More reductions and scans: ``prod cumsum cumprod logcumsumexp var_mean std_mean
count_nonzero`` and the vector norms (``norm``, ``linalg.vector_norm``, ``linalg.matrix_norm``
'fro', and ``at::norm``'s ``NormBackward1`` that ``F.pairwise_distance`` records).

Mirrors ``aten/src/ATen/native/ReduceOps.cpp``, ``LinearAlgebra.cpp`` and the formulas of
``torch/csrc/autograd/FunctionsManual.cpp`` (``prod_backward``, ``cumprod_backward``,
``linalg_vector_norm_backward``, ``var_mean_backward``). Where PyTorch's formula handles zeros
(products "of all the others", written here with exclusive cumulative products), the
formulas are tensor ops, so ``create_graph=True`` differentiates them again. ``flip`` is
written as an index with reversed positions.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.graph import Node, record
from . import pointwise as P
from ._util import (
    _HALF,
    attach,
    normalize_dim,
    quiet_fp,
    quiet_numpy,
    saved_dims,
    saved_int,
    widened,
)
from .inplace import _inplace_of
from .reduction import (
    VarBackward0,
    _as_dtype,
    _reduce_dims,
    _unsqueeze_dims,
)
from .scalar import div_scalar, mul_scalar


def _one(g: Tensor) -> Tensor:
    return Tensor._make(np.ones((), g._data.dtype))


def _zero(g: Tensor) -> Tensor:
    return Tensor._make(np.zeros((), g._data.dtype))


def _to_last(t: Tensor, d: int) -> Tensor:
    return t if d == t.ndim - 1 else t.transpose(d, -1)


def _flip_last(t: Tensor) -> Tensor:
    """``t.flip(-1)`` (``FlipBackward0``, as PyTorch's formulas record)."""
    from .transform import flip

    return flip(t, -1)


def _exclusive_cumprod(t: Tensor) -> Tensor:
    """``out[i] = prod_{j < i} t[j]`` along the last dim: 1 shifted in front, then cumprod."""
    from .shape import cat

    ones = Tensor._make(np.ones(t.shape[:-1] + (1,), t._data.dtype))
    return cumprod(cat([ones, t[..., :-1]], -1), -1)


def _others_product(x: Tensor, d: int) -> Tensor:
    """``out[i] = prod_{j != i} x[j]`` along dim ``d``, zeros included (PyTorch's
    ``prod_safe_zeros_backward``): the product of the elements before ``i`` times the product
    of those after it, each an exclusive cumulative product (O(n))."""
    xt = _to_last(x, d)
    if xt.shape[-1] == 0:
        return x
    before = _exclusive_cumprod(xt)
    after = _flip_last(_exclusive_cumprod(_flip_last(xt)))
    return _to_last(before * after, d)


# ----------------------------------------------------------------------------- prod
class ProdBackward0(Node):
    """z = self.prod().  dz/dself = grad * result / self when no element is 0, otherwise
    grad * (product of all the other elements): one zero gets the product of the rest, two or
    more zeros give 0 everywhere. Saves: result, self."""

    def __init__(self, a):
        Node.__init__(self)
        self._save("self", a)
        self._dtype = a.dtype

    def backward(self, g):
        s, r = self._get("self"), self._get("result")
        if g.dtype is not self._dtype:
            g = g.to(self._dtype)
        if s.ndim == 0:
            return (g,)
        if not np.any(s._data == 0):
            return (g * (r / s),)
        if s.numel() == 1:  # (prod_safe_zeros_backward of one element: the gradient itself)
            return (g.reshape(s.shape),)
        return ((g * _others_product(s.reshape(-1), 0)).reshape(s.shape),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a):
        """dz = (prod_backward(ones_like(result), self, result) * self_t).sum(): the tangent
        weighted by the product of the other elements."""
        return (_prod_weights(ProdBackward0(a), a, outputs[0]) * tangents[0]).sum()


class ProdBackward1(Node):
    """z = self.prod(dim, keepdim).  dz/dself = grad * result / self (reduced dim restored)
    when the input has no zero, otherwise grad * (product of the other elements of the
    slice). Saves: dim (as given), keepdim, result, self."""

    def __init__(self, a, dim, d, keepdim):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("keepdim", keepdim)
        self._save("self", a)
        self._d, self._dtype = d, a.dtype

    def backward(self, g):
        s, r, d = self._get("self"), self._get("result"), self._d
        if g.dtype is not self._dtype:
            g = g.to(self._dtype)
        if s.ndim == 0:
            return (g,)
        if not self._saved["keepdim"]:
            g, r = g.unsqueeze(d), r.unsqueeze(d)
        if not np.any(s._data == 0):
            return (g * (r / s),)
        if s.shape[d] == 1:  # (prod_safe_zeros_backward along a dim of size 1: the gradient)
            return (g,)
        return (g * _others_product(s, d),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, d, keepdim):
        """dz = (prod_backward(ones_like(result), self, result, dim) * self_t).sum(dim,
        keepdim)."""
        w = _prod_weights(ProdBackward1(a, dim, d, keepdim), a, outputs[0])
        return (w * tangents[0]).sum(d, keepdim) if a.ndim else w * tangents[0]


def _int_to_long(arr: np.ndarray, dtype) -> np.ndarray:
    dt = _as_dtype(dtype)
    if dt is not None:
        return arr.astype(dt.np)
    return arr.astype(np.int64) if arr.dtype.kind in "biu" else arr


# PyTorch's CPU reduction kernel (``binary_kernel_reduce_vec``, ``aten/src/ATen/native/cpu/
# Reduce.h``) multiplies a run of elements that is contiguous in memory with 4 vectors of 16
# lanes at a time; for float16/bfloat16 every product is rounded to the dtype, so the order
# shows in the result.
_LANES, _BLOCK = 16, 64


def _in_order(arr: np.ndarray, axis: int) -> np.ndarray:
    """The products along ``axis`` taken one element after the other, each rounded to the
    dtype. (NumPy's own float16 reduction keeps the running product in float32 along its inner
    loop, so the loop is written out.)"""
    out = arr.take(0, axis=axis) if arr.shape[axis] else np.ones(
        np.delete(arr.shape, axis), arr.dtype)
    for k in range(1, arr.shape[axis]):
        out = out * arr.take(k, axis=axis)
    return out


def _lanes_prod(rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The products of the rows of ``rows`` (a float16/bfloat16 array ``(m, n)``) in the
    kernel's order: ``n // 64`` blocks of 64 multiplied lane by lane, the 4 vectors of 16
    lanes multiplied pairwise (``(v0 * v1) * (v2 * v3)``), the 16 lanes one after another, then
    the remaining elements one at a time; each product rounded to the dtype. ``out``: the
    running products the rows multiply into (ones by default)."""
    m, n = rows.shape
    count = n // _BLOCK
    out = np.ones(m, rows.dtype) if out is None else out
    if count:
        acc = _in_order(rows[:, :count * _BLOCK].reshape(m, count, _BLOCK), 1)
        v = [acc[:, k * _LANES:(k + 1) * _LANES] for k in range(4)]
        out = out * _in_order((v[0] * v[1]) * (v[2] * v[3]), 1)
    for k in range(count * _BLOCK, n):
        out = out * rows[:, k]
    return out


def _half_prod(arr: np.ndarray, d: int | None) -> np.ndarray:
    """``prod`` of a float16/bfloat16 array as PyTorch's kernel computes it (all elements when
    ``d`` is None, else along axis ``d``; dims not kept).

    A reduction along a dim of stride 1 (and the reduction of all elements, which PyTorch walks
    in memory order, one run of contiguous elements after the other) goes through the lanes
    (`_lanes_prod`); along another dim the kernel multiplies in order, as NumPy does. (A
    reduction of more than 32768 elements to one value is split between PyTorch's threads,
    which changes the order again: minigrad follows the one-thread order.)"""
    item = arr.itemsize
    if d is None and not arr.size:
        return np.ones((), arr.dtype)
    if d is None:
        order = sorted(range(arr.ndim), key=lambda k: -abs(arr.strides[k]))
        walk = arr.transpose(order)  # (outermost in memory first)
        shape = [n for n in walk.shape if n != 1]
        strides = [st for n, st in zip(walk.shape, walk.strides) if n != 1]
        inner = 1  # the run of elements that is contiguous in memory, at the end
        while shape and strides[-1] == item * inner:
            inner *= shape.pop()
            strides.pop()
        rows = np.ascontiguousarray(walk).reshape(-1, inner)
        out = np.ones(1, arr.dtype)
        for row in rows:  # (the runs one after the other, multiplying into one product)
            out = _lanes_prod(row[None], out)
        return out.reshape(())
    if arr.shape[d] > 1 and arr.strides[d] == item:
        moved = np.moveaxis(arr, d, -1)
        return _lanes_prod(moved.reshape(-1, arr.shape[d])).reshape(moved.shape[:-1])
    return _in_order(arr, d)


def prod(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product of all elements (``ProdBackward0``) or along one ``dim`` (``ProdBackward1``)
    (``torch.prod``). Integer and bool inputs give int64; ``dtype`` casts first. IndexError
    for a dim out of range; a tuple ``dim`` is refused (TypeError), as PyTorch."""
    arr = _int_to_long(input._data, dtype)
    half = arr.dtype in _HALF
    if dim is None:
        with quiet_fp():
            out = Tensor._make(np.asarray(_half_prod(arr, None) if half else np.prod(arr),
                                          dtype=arr.dtype))
        node = record(ProdBackward0, out, (input,), input)
    else:
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
            raise TypeError(f"prod() received an invalid combination of arguments - got "
                            f"({type(dim).__name__}), but expected one of: (int dim, bool "
                            f"keepdim, *, dtype)")
        d = normalize_dim(dim, input.ndim)
        with quiet_fp():
            if half and arr.ndim:
                res = _half_prod(arr, d)
                res = np.expand_dims(res, d) if keepdim else res
            else:
                res = np.prod(arr, axis=d, keepdims=keepdim) if arr.ndim else arr.copy()
        out = Tensor._make(np.asarray(res, dtype=arr.dtype, order="C"))  # (contiguous)
        node = record(ProdBackward1, out, (input,), input, dim, d, keepdim)
    if node:
        node._save("result", out, is_output=True)
    return out


# ----------------------------------------------------------------------------- scans
def _reversed_cumsum(w: Tensor, d: int) -> Tensor:
    """``w.flip(d).cumsum(d).flip(d)``: the sum of the elements from each position to the
    end (see `_flip_last`)."""
    wt = _to_last(w, d)
    return _to_last(_flip_last(cumsum(_flip_last(wt), -1)), d)


class CumsumBackward0(Node):
    """z = self.cumsum(dim).  dz/dself = the reversed cumulative sum of grad along dim
    (grad itself when the dim has size 1). Saves: dim (as given)."""

    def __init__(self, a, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._d, self._dtype = d, a.dtype

    def backward(self, g):
        if g.dtype is not self._dtype:
            g = g.to(self._dtype)
        if g.numel() <= 1 or g.ndim == 0 or g.shape[self._d] == 1:
            return (g,)
        return (_reversed_cumsum(g, self._d),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, d):
        """dz = self_t.cumsum(dim) (auto_linear; in the result's dtype)."""
        out = outputs[0]
        return cumsum(tangents[0], d, dtype=None if out.dtype is a.dtype else out.dtype)


class CumprodBackward0(Node):
    """z = self.cumprod(dim).  dz/dself[i] = sum_{k >= i} grad[k] * prod_{j <= k, j != i}
    self[j]; without zeros in self that is reversed_cumsum(grad * result) / self (PyTorch's
    formula); with zeros, O(n) by `_cumprod_grad_with_zeros`, or under create_graph the
    formula as written (`_cumprod_grad_differentiable`, O(n²) per slice), as PyTorch also
    switches on grad mode.
    Saves: dim (as given), result, self."""

    def __init__(self, a, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("self", a)
        self._d, self._dtype = d, a.dtype

    def backward(self, g):
        s, r, d = self._get("self"), self._get("result"), self._d
        if g.dtype is not self._dtype:
            g = g.to(self._dtype)
        if s.numel() <= 1 or s.ndim == 0 or s.shape[d] == 1:
            return (g,)
        if not np.any(s._data == 0):
            return (_reversed_cumsum(g * r, d) / s,)
        st, rt, gt = _to_last(s, d), _to_last(r, d), _to_last(g, d)
        if grad_mode.is_grad_enabled():  # create_graph: a formula differentiable everywhere
            return (_to_last(_cumprod_grad_differentiable(st, gt), d),)
        return (_to_last(_cumprod_grad_with_zeros(st, rt, gt), d),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, d):
        """dz = cumsum(self_t / self, dim) * result where no zero of self comes before; from
        the first zero z of a slice on, dz[i] = self_t[z] * prod_{k <= i, k != z} self[k] (the
        product past a second zero is 0) (PyTorch's ``cumprod_jvp``)."""
        t, r = tangents[0], outputs[0]
        with quiet_fp():
            z = cumsum(t / a, d) * r
        zeros = a._data == 0
        if not zeros.any():
            return _as_result_dtype(z, r)
        seen = np.cumsum(zeros, axis=d) if a.ndim else zeros.astype(np.int64)
        first = Tensor._make(zeros & (seen == 1))
        t_first = P.masked_fill(t, ~first, 0)
        t_first = t_first.sum(d, keepdim=True) if a.ndim else t_first
        part = t_first * cumprod(P.masked_fill(a, first, 1), d)
        return _as_result_dtype(P.where(Tensor._make(seen >= 1), part, z), r)



def _cumprod_grad_differentiable(s: Tensor, g: Tensor) -> Tensor:
    """The cumprod gradient along the last dim as written, differentiable at zeros (the O(n)
    case split of `_cumprod_grad_with_zeros` masks terms whose value is 0 but whose
    derivative is not): an ``n x n`` arrangement per slice, [i, j] = self[j] with the
    diagonal set to 1, cumulative products over j, kept where k >= i, times grad[k]."""
    n = s.shape[-1]
    square = s.unsqueeze(-2).expand(*s.shape[:-1], n, n)
    masked = P.where(Tensor._make(np.eye(n, dtype=bool)), _one(g), square)
    upper = Tensor._make(np.triu(np.ones((n, n), dtype=bool)))  # k >= i
    terms = P.where(upper, cumprod(masked, -1), _zero(g))  # [.., i, k]
    return (g.unsqueeze(-2) * terms).sum(-1)


def _cumprod_grad_with_zeros(s: Tensor, r: Tensor, g: Tensor) -> Tensor:
    """The cumprod gradient along the last dim when ``s`` has zeros, in O(n) (PyTorch's
    case split at the first zero ``z`` of each slice): for i < z, reversed_cumsum(grad *
    result over k < z) / self; for i = z, prod_{j<z} self * sum_{z<=k<z2} grad[k] *
    prod_{z<j<=k} self[j], z2 the second zero (as PyTorch, the terms past it, 0 in exact
    arithmetic, are left out: an inf gradient there does not make a nan); for i > z, 0
    (every product holds self[z] = 0)."""
    zero_at = s._data == 0
    n = s.shape[-1]
    z = np.where(zero_at.any(-1, keepdims=True), zero_at.argmax(-1)[..., None], n)
    pos = np.arange(n)
    before, at = Tensor._make(pos < z), Tensor._make(pos == z)
    zero, one = _zero(g), _one(g)
    w = P.where(before, g * r, zero)
    safe = P.where(before, s, one)  # (no 0 / 0 where the result is not used)
    part1 = P.where(before, _reversed_cumsum(w, -1) / safe, zero)
    tail = cumprod(P.where(Tensor._make(pos <= z), one, s), -1)  # prod_{z<j<=k} self[j]
    span = Tensor._make(np.cumsum(zero_at, axis=-1) == 1)  # [z, z2)
    total = P.where(span, g * tail, zero).sum(-1, keepdim=True)
    part2 = P.where(at, _exclusive_cumprod(s) * total, zero)
    return part1 + part2

def _as_result_dtype(t: Tensor, result: Tensor) -> Tensor:
    return t if t.dtype is result.dtype else t.to(result.dtype)



class LogcumsumexpBackward0(Node):
    """z = log(cumsum(exp(self), dim)).  dz/dself[i] = sum_{k >= i} grad[k] *
    exp(self[i] - result[k]), computed in log space as PyTorch does (split by the sign of
    grad: exp(self + reversed logcumsumexp(log|grad| - result)), positive minus negative
    part, the lowest finite number standing for log 0; O(n)). Saves: dim (as given), result,
    self."""

    def __init__(self, a, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("self", a)
        self._d = d

    def backward(self, g):
        s, r, d = self._get("self"), self._get("result"), self._d
        if g.ndim == 0 or g.numel() == 0:  # (PyTorch's only shortcut here)
            return (g,)
        st, rt, gt = _to_last(s, d), _to_last(r, d), _to_last(g, d)
        lowest = Tensor._make(np.asarray(np.finfo(g._data.dtype).min, g._data.dtype))
        with quiet_fp():  # (log of a zero gradient: masked out; the dtype's lowest finite
            log_abs = gt.abs().log()  # value stands for log 0, as in PyTorch)
            log_pos = P.where(gt > 0, log_abs, lowest)
            log_neg = P.where(gt < 0, log_abs, lowest)

        def part(log_g):
            return (_flip_last(logcumsumexp(_flip_last(log_g - rt), -1)) + st).exp()

        return (_to_last(part(log_pos) - part(log_neg), d),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, d):
        """dz = cumsum(e * self_t, dim) / (cumsum(e, dim) + 1e-13), e = exp(self - max(self,
        dim)) (PyTorch's ``logcumsumexp_jvp``)."""
        e = (a - a.max(d, keepdim=True)[0]).exp()
        total = cumsum(e, d)
        e.mul_(tangents[0])  # (in place, as PyTorch's: see LogsumexpBackward0.jvp)
        return cumsum(e, d).div_(total.add_(1e-13))


def _scan(name, node_cls, kernel, float_only=False):
    def op(input, dim, *, dtype=None):
        arr = _int_to_long(input._data, dtype) if not float_only else input._data
        d = normalize_dim(dim, input.ndim)  # (a dim out of range first, as ATen)
        if float_only and arr.dtype.kind not in "fV":
            raise NotImplementedError(f'"{name}_out_cpu" not implemented for '
                                      f"'{input.dtype._legacy[:-len('Tensor')]}'")
        with quiet_fp():
            res = kernel(widened(arr), axis=d) if arr.ndim else arr.copy()
        # (contiguous, as PyTorch's result: NumPy's scan keeps a transposed input's layout)
        out = Tensor._make(np.asarray(res, dtype=arr.dtype, order="C"))
        node = record(node_cls, out, (input,), input, dim, d)
        if node and node_cls is not CumsumBackward0:
            node._save("result", out, is_output=True)
        return out

    op.__name__ = name
    op.__doc__ = (f"Cumulative ``{name}`` along ``dim`` (``torch.{name}``); node "
                  f"``{node_cls.__name__}``. IndexError for a dim out of range.")
    return op


cumsum = _scan("cumsum", CumsumBackward0, np.cumsum)
cumprod = _scan("cumprod", CumprodBackward0, np.cumprod)
_logcumsumexp = _scan("logcumsumexp", LogcumsumexpBackward0, np.logaddexp.accumulate,
                      float_only=True)


def logcumsumexp(input, dim):
    """``log(cumsum(exp(input), dim))`` computed stably (``torch.logcumsumexp``); node
    ``LogcumsumexpBackward0``. Float tensors only (NotImplementedError otherwise)."""
    return _logcumsumexp(input, dim)


# ----------------------------------------------------------------------------- var_mean
def _mean_grad(g: Tensor, a_shape, dims, keepdim, n) -> Tensor:
    """PyTorch's ``mean_backward``: the gradient of a mean over ``dims``."""
    if dims:
        g = _unsqueeze_dims(g, dims, keepdim)
    return div_scalar(g.expand(a_shape), n)


class VarMeanBackward0(VarBackward0):
    """(v, m) = var_mean(self, dim, correction, keepdim).  dz/dself = var_backward(grad_v) +
    grad_m / N expanded (N: the reduced elements). Saves: correction, dim, keepdim, self."""

    def _mean_part(self, gm):
        s = self._get("self")
        dims = () if self._dim is None else self._dims
        n = s.numel() if not dims else int(np.prod([s.shape[d] for d in dims]))
        return _mean_grad(gm, tuple(s.shape), dims, self._saved["keepdim"], n)

    def _first(self, gv):
        return self._var_grad(gv)

    def backward(self, gv, gm):
        # (an output that got no gradient arrives as constant zeros: its part is left out,
        # as PyTorch skips an undefined gradient)
        parts = [f(x) for f, x in ((self._first, gv), (self._mean_part, gm))
                 if not _constant_zero(x)]
        if not parts:
            return (Tensor._make(np.zeros(self._get("self").shape, gv._data.dtype)),)
        return (parts[0] if len(parts) == 1 else parts[0] + parts[1],)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, dims, correction, keepdim, saved_correction):
        """dv = var's tangent; dm = self_t.mean(dim, keepdim)."""
        from .reduction import _var_jvp

        t = tangents[0]
        return (_var_jvp(a, t, dim, dims, correction, keepdim),
                t.mean([] if dim is None else dim, keepdim))


def _constant_zero(g: Tensor) -> bool:
    return g.grad_fn is None and not g.requires_grad and not g._data.any()


class StdMeanBackward0(VarMeanBackward0):
    """(s, m) = std_mean(self, dim, correction, keepdim).  dz/dself = std_backward(grad_s) +
    grad_m / N expanded. Saves: correction, dim, keepdim, result0 (the std), self."""

    def _first(self, gs):
        r = self._get("result0")
        with quiet_fp():
            gv = P.masked_fill(gs / mul_scalar(r, 2), r == 0, 0)
        return self._var_grad(gv)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, dim, dims, correction, keepdim, saved_correction):
        """ds = std's tangent (var's / (2 result0), 0 where result0 == 0); dm = self_t.mean(dim,
        keepdim)."""
        from .reduction import _std_jvp, _var_jvp

        t = tangents[0]
        return (_std_jvp(_var_jvp(a, t, dim, dims, correction, keepdim), outputs[0]),
                t.mean([] if dim is None else dim, keepdim))


def _var_mean(input, dim, unbiased, keepdim, correction, std):
    fn = "std_mean" if std else "var_mean"
    if input._data.dtype.kind not in "fV":
        raise RuntimeError(f"{fn} only support floating point and complex dtypes")
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if correction is None:
        correction = 1 if unbiased in (None, True) else 0
        saved_corr = None if dim is None and unbiased is None else correction
    else:
        saved_corr = correction
    dims = _reduce_dims(dim, input.ndim)
    if int(np.prod([input.shape[d] for d in dims])) - correction <= 0:
        warnings.warn(f"{fn}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    with quiet_numpy():
        kernel = np.std if std else np.var
        arr = widened(input._data)
        v = np.asarray(kernel(arr, axis=dims, ddof=correction, keepdims=keepdim),
                       dtype=input._data.dtype)
        m = np.asarray(arr.mean(axis=dims, keepdims=keepdim), dtype=input._data.dtype)
    outs = [Tensor._make(v), Tensor._make(m)]
    node = record(StdMeanBackward0 if std else VarMeanBackward0, outs, (input,), input, dim,
                  dims, correction, keepdim, saved_corr)
    if node and std:
        node._save("result0", outs[0], is_output=True)
    return tuple(outs)


def var_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """``(var, mean)`` over ``dim`` in one op (``torch.var_mean``); arguments as
    ``torch.var``; one node ``VarMeanBackward0`` for both outputs. Float inputs only."""
    return _var_mean(input, dim, unbiased, keepdim, correction, std=False)


def std_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """``(std, mean)`` over ``dim`` in one op (``torch.std_mean``); node
    ``StdMeanBackward0``."""
    return _var_mean(input, dim, unbiased, keepdim, correction, std=True)


def count_nonzero(input, dim=None) -> Tensor:
    """Number of nonzero elements, over all dims or ``dim`` (int or tuple) → int64 tensor
    (``torch.count_nonzero``), never requires grad."""
    dims = _reduce_dims(dim, input.ndim)
    return Tensor._make(np.asarray(np.count_nonzero(input._data, axis=dims), dtype=np.int64))


# ----------------------------------------------------------------------------- norms
def _norm_grad(g, s, r, ord, dims, keepdim, all_dims):
    """PyTorch's ``linalg_vector_norm_backward`` (also ``norm_backward``): the gradient of
    ``||self||_ord`` over ``dims`` for an incoming ``g`` of the reduced shape. At a zero vector
    the gradient is 0 for every ord (the masked divisions)."""
    if not all_dims:
        g, r = _unsqueeze_dims(g, dims, keepdim), _unsqueeze_dims(r, dims, keepdim)
    if ord == 0:  # (PyTorch returns an undefined gradient: None)
        return None
    zero = _zero(g)
    if ord == 1:
        return s.sgn() * g
    if ord == 2:
        return g * P.masked_fill(s / r, r == 0, 0)
    if math.isinf(ord):
        mask = (s.abs() == r) | s.isnan()  # (the extreme positions, and NaNs)
        count = mask.sum(tuple(range(s.ndim)) if all_dims else dims, keepdim=True)
        return s.sgn() * ((g / count) * P.where(mask, _one(g), zero))
    if ord < 1:
        scaled = P.masked_fill(s.sgn() * s.abs().pow(ord - 1), s == 0, 0)
        return scaled * g * r.pow(1 - ord)
    if ord < 2:
        scaled = s.sgn() * s.abs().pow(ord - 1)
    else:
        scaled = s * s.abs().pow(ord - 2)
    return scaled * P.masked_fill(g / r.pow(ord - 1), r == 0, 0)

def _prod_weights(node, a: Tensor, result: Tensor) -> Tensor:
    """``prod_backward(ones, self, result)``: the product of the other elements, for each
    element (prod's jvp weights), from a node made for the purpose; ``self`` in the result's
    dtype (``prod(dtype=)``), as PyTorch's formula casts it."""
    if a.dtype is not result.dtype:
        a = a.to(result.dtype)
        node._dtype = result.dtype
    node._saved["result"] = result
    node._saved["self"] = a
    return node.backward(Tensor._make(np.ones(result.shape, result._data.dtype)))[0]


def _norm_jvp(s: Tensor, t: Tensor, p: float, norm: Tensor, dims, keepdim: bool) -> Tensor:
    """PyTorch's ``norm_jvp`` (see `LinalgVectorNormBackward0.jvp`)."""
    if p == 0:
        return Tensor._make(np.zeros(norm.shape, norm._data.dtype))
    if p == 1:  # (sgn(self) multiplied in place, as PyTorch's: self's dtype)
        return s.sgn().mul_(t).sum(dims, keepdim)
    with quiet_fp():
        if p == 2:  # (PyTorch divides in place: the tangent keeps the numerator's dtype)
            total = (s * t).sum(dims, keepdim)
            out = total / norm
            return P.masked_fill(out if out.dtype is total.dtype else out.to(total.dtype),
                                 norm == 0, 0)
        if math.isinf(p):
            n = norm if keepdim or not s.ndim else _unsqueeze_dims(norm, dims, False)
            is_max = ((s.abs() == n) | (s.isnan() & n.isnan())).to(norm.dtype)
            count = Tensor._make(np.asarray(np.count_nonzero(is_max._data, axis=dims)))
            if s.ndim:
                count = _unsqueeze_dims(count, dims, False)
            return ((s.sgn() * t) * is_max / count).sum(dims, keepdim)
        if p < 1:
            w = P.masked_fill(s.abs().pow(p - 1), s == 0, 0)
            return (w * (s.sgn() * t)).sum(dims, keepdim) * norm.pow(1 - p)
        if p < 2:
            total = (s.abs().pow(p - 1) * (s.sgn() * t)).sum(dims, keepdim)
        else:
            total = (s.abs().pow(p - 2) * (s * t)).sum(dims, keepdim)
        return P.masked_fill(total / norm.pow(p - 1), norm == 0, 0)



class LinalgVectorNormBackward0(Node):
    """z = linalg.vector_norm(self, ord, dim, keepdim).  dz/dself by ord: 0 → 0; 1 →
    sgn(self) * grad; 2 → grad * self / result (0 where result is 0); ±inf → sgn(self) *
    grad / (count of |self| == result) at those positions; other p → sgn(self) |self|^(p-1) *
    grad / result^(p-1) (0 where result is 0). Saves: dim (None for all), keepdim, ord,
    result, self."""

    _ord_name = "ord"

    def __init__(self, a, ord, dim, dims, keepdim):
        Node.__init__(self)
        self._save("dim", None if dim is None else saved_dims(dim))
        self._save("keepdim", keepdim)
        self._save(self._ord_name, ord)
        self._save("self", a)
        self._dims, self._all = dims, dim is None
        self._dtype = a.dtype

    def backward(self, g):
        s, r = self._get("self"), self._get("result")
        out = _norm_grad(g, s, r, float(self._saved[self._ord_name]), self._dims,
                         self._saved["keepdim"], self._all)
        return (out if out is None or out.dtype is self._dtype else out.to(self._dtype),)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, ord, dim, dims, keepdim):
        """dz by ord (PyTorch's ``norm_jvp``): 0 → 0; 1 → sum(sgn(self) * self_t); 2 →
        sum(self * self_t) / result (0 where result is 0); ±inf → the mean of sgn(self) *
        self_t over the extreme positions; p < 1 → sum(|self|^(p-1) (0 at 0) * sgn(self) *
        self_t) * result^(1-p); other p → sum(|self|^(p-1) sgn(self) self_t) / result^(p-1)
        (p < 2; p >= 2 written |self|^(p-2) self self_t), 0 where result is 0."""
        return _norm_jvp(a, tangents[0], float(ord), outputs[0], dims, keepdim)


class NormBackward1(LinalgVectorNormBackward0):
    """z = at::norm(self, p, dim, keepdim) (what ``F.pairwise_distance`` calls).  Same
    derivative as ``LinalgVectorNormBackward0``. Saves: dim, keepdim, p, result, self."""

    _ord_name = "p"


def _vector_norm_kernel(arr, ord, dims, keepdim):
    a = np.abs(widened(arr))
    with quiet_fp():
        if ord == 0:
            res = np.sum(a != 0, axis=dims, keepdims=keepdim).astype(arr.dtype)
        elif math.isinf(ord):
            fn = np.max if ord > 0 else np.min
            res = fn(a, axis=dims, keepdims=keepdim)  # (empty reduced dims: see _vector_norm)
        elif ord == 1:
            res = np.sum(a, axis=dims, keepdims=keepdim)
        elif ord == 2:
            res = np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
        else:
            res = np.sum(a ** ord, axis=dims, keepdims=keepdim) ** (1.0 / ord)
    return np.asarray(res, dtype=arr.dtype)


def _vector_norm(input, ord, dim, keepdim, dtype, node_cls, fname="linalg.vector_norm"):
    if isinstance(ord, str):
        raise RuntimeError(f"{fname}: ord must be a number, got {ord!r}")
    arr = input._data
    dt = _as_dtype(dtype)
    if dt is not None:
        if arr.dtype.kind in "fV" and np.dtype(dt.np).itemsize < arr.dtype.itemsize:
            raise RuntimeError(f"{fname}: the dtype of the input ({input.dtype._c_name}) "
                               f"should be convertible without narrowing to the specified "
                               f"dtype ({dt._c_name})")
        arr = arr.astype(dt.np)  # (computed in dtype: no ToCopyBackward0, as PyTorch)
    if input._data.dtype.kind not in "fV":
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. "
                           f"Got {input.dtype._legacy[:-len('Tensor')]}")
    dims = _reduce_dims(dim, input.ndim)
    if dim is not None and not isinstance(dim, (int, np.integer)) and len(dim) == 0:
        dim = None
    if math.isinf(ord) and arr.size == 0:  # max / min have no identity: an empty reduced dim
        # (the first one as written) or all dims of an empty tensor are refused; an empty
        # tensor reduced over dims of nonzero size gives an empty result
        name = "inf" if ord > 0 else "-inf"
        if dim is None:
            raise RuntimeError(f"{fname} cannot compute the {name} norm on an empty tensor "
                               "because the operation does not have an identity")
        for d in (dim,) if isinstance(dim, (int, np.integer)) else dim:
            if input.shape[d] == 0:
                raise RuntimeError(f"{fname} cannot compute the {name} norm on the dimension "
                                   f"{d} because this dimension is empty and the operation "
                                   "does not have an identity")
    out = Tensor._make(np.asarray(_vector_norm_kernel(arr, ord, dims, keepdim), order="C"))
    node = record(node_cls, out, (input,), input, ord, dim, dims, keepdim)
    if node:
        node._save("result", out, is_output=True)
    return out


def vector_norm(x, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The ``ord``-norm of ``x`` as a vector, over all elements or ``dim`` (int or tuple)
    (``torch.linalg.vector_norm``): ord 2 (default), 1, inf, -inf, 0 (count of nonzeros) or
    any other number; node ``LinalgVectorNormBackward0``. ``dtype`` casts first (RuntimeError
    if that narrows a float input); RuntimeError for integer inputs."""
    return _vector_norm(x, ord, dim, keepdim, dtype, LinalgVectorNormBackward0)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """A norm of the matrices of ``A`` over the two dims ``dim`` (``torch.linalg.matrix_norm``):
    ``'fro'`` is ``vector_norm(A, 2, dim)``; ord 1 / -1 is the largest / smallest column
    abs-sum and inf / -inf the largest / smallest row abs-sum, composed as ATen does
    (``amax``/``amin`` of a ``vector_norm(A, 1.)``); ``'nuc'`` and ord ±2 go through the
    singular values (``svdvals``, see ``_ops/svd.py``). RuntimeError for fewer than two dims
    or another ord."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " +
                           " ".join(str(d) for d in dim))
    dims = [normalize_dim(d, A.ndim) for d in dim]
    if ord == "fro":
        return _vector_norm(A, 2, tuple(dims), keepdim, dtype, LinalgVectorNormBackward0,
                            "linalg.matrix_norm")
    if ord in ("nuc", 2, -2) and not isinstance(ord, bool):  # (singular values: _ops/svd.py)
        from .svd import spectral_matrix_norm

        return spectral_matrix_norm(A, ord, tuple(dims), keepdim)
    if isinstance(ord, str) or abs(ord) not in (1, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    from .reduction import amax, amin

    if math.isinf(ord):  # (ATen's order: the row sums, then the extreme over the other dim)
        dims.reverse()
    if not keepdim and dims[0] < dims[1]:
        dims[1] -= 1
    sums = _vector_norm(A, 1.0, (dims[0],), keepdim, dtype, LinalgVectorNormBackward0,
                        "linalg.matrix_norm")
    return (amax if ord > 0 else amin)(sums, (dims[1],), keepdim)


def linalg_norm(A, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``torch.linalg.norm``: a vector norm (`vector_norm`) or, for a string ``ord``, a
    2-tuple ``dim``, or a 2-D input with ``ord`` given and no ``dim``, a matrix norm
    (`matrix_norm`). ``ord=None`` is the 2-norm of the (flattened) input. RuntimeError when
    ``ord`` is given without ``dim`` for an input that is not 1-D or 2-D."""
    if dim is not None:
        dim = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim not in (1, 2):
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input "
                               f"must be 1D or 2D. Got {A.ndim}D.")
        if A.ndim == 1 and not isinstance(ord, str):
            return vector_norm(A, ord, None, keepdim, dtype=dtype)
        dim = tuple(range(A.ndim))
    if isinstance(ord, str) or len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(input, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """``torch.norm``: the vector ``p``-norm over all elements or ``dim`` (``'fro'`` is the
    2-norm over at most two dims); recorded as ``LinalgVectorNormBackward0``, as PyTorch
    records it; ``p='nuc'`` is the nuclear `matrix_norm` over ``dim`` (the two dims of a
    2-D input by default)."""
    if p == "nuc":
        if dim is None:
            dim = tuple(range(input.ndim))
        if isinstance(dim, (int, np.integer)) or len(dim) != 2:
            dims = (dim,) if isinstance(dim, (int, np.integer)) else dim
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                               f"{' '.join(str(d) for d in dims)}")
        return matrix_norm(input, "nuc", tuple(dim), keepdim, dtype=dtype)
    if isinstance(p, str):
        if p != "fro":
            raise NotImplementedError(f"minigrad's norm supports p='fro' and numbers, got {p!r}")
        if dim is not None and not isinstance(dim, (int, np.integer)) and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                               f"{' '.join(str(d) for d in dim)}")
        p = 2
    return _vector_norm(input, p, dim, keepdim, dtype, LinalgVectorNormBackward0)


def _at_norm(input, p, dim, keepdim: bool = False) -> Tensor:
    """``at::norm(input, p, dim, keepdim)``, the internal op behind ``F.pairwise_distance``;
    node ``NormBackward1`` (saves ``p`` as a float)."""
    return _vector_norm(input, float(p), dim, keepdim, None, NormBackward1, "norm")


def _cumsum_m(self, dim, *, dtype=None):
    """``Tensor.cumsum``: see `cumsum`."""
    return cumsum(self, dim, dtype=dtype)


def _cumprod_m(self, dim, *, dtype=None):
    """``Tensor.cumprod``: see `cumprod`."""
    return cumprod(self, dim, dtype=dtype)


attach(Tensor, prod=prod, cumsum=_cumsum_m, cumprod=_cumprod_m, logcumsumexp=logcumsumexp,
       count_nonzero=count_nonzero, norm=norm,
       cumsum_=_inplace_of(_cumsum_m, "cumsum_"), cumprod_=_inplace_of(_cumprod_m, "cumprod_"))
