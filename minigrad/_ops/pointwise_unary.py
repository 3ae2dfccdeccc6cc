"""More unary pointwise ops: ``log1p expm1 log2 log10 exp2``, the trig and hyperbolic family,
``trunc frac round(decimals=)``, ``nan_to_num``, ``isinf``/``isposinf``/``isneginf``,
``clamp_min``/``clamp_max`` (number or tensor bound), and the in-place variants of these and of
the unary ops in ``pointwise.py``.

Mirrors the unary entries of ``tools/autograd/derivatives.yaml`` (PyTorch's node names, e.g.
``Log1PBackward0``, and saved names: ``_saved_self`` or ``_saved_result``). Backward formulas
are tensor ops, so they can be differentiated again (``create_graph=True``). Each ``op_``
goes through ``inplace._inplace_of`` (version bump, leaf/view checks, history rebase).
Forward AD: the ``_Unary`` nodes take the generic ``auto_element_wise`` jvp; the in-place
asinh_/acosh_/atanh_ raise PyTorch's NotImplementedError (it has no formula either).
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import Node, record
from . import pointwise as P
from ._util import attach, broadcast_shapes, cast, quietly, result_dtype, sum_to
from .inplace import _inplace_of
from .pointwise import _no_bool, _Unary, _unary, _ZeroGrad
from .scalar import add_scalar, mul_scalar

_LN2, _LN10 = math.log(2.0), math.log(10.0)
# (the backward formulas below are PyTorch's, term for term: a number added or multiplied in
# C++ records AddBackward1 / MulBackward1 / SubBackward1, so under create_graph the gradient's
# graph is PyTorch's)


class SubBackward1(Node):
    """z = self - other with a number other (PyTorch's C++ Tensor-Scalar overload).
    dz/dself = grad. Saves nothing."""

    _jvp_shares_tangent = True  # (PyTorch's auto_element_wise of ``grad``: self_t itself)

    def backward(self, g):
        return (g,)

    @staticmethod
    def jvp(inputs, tangents, outputs):
        """dz = self_t (the input's tangent itself)."""
        return tangents[0]


def sub_scalar(input: Tensor, other) -> Tensor:
    """``input - other`` for a number ``other``, recorded as ``SubBackward1``."""
    out = Tensor._make(np.asarray(input._data - other, dtype=input._data.dtype))
    record(SubBackward1, out, (input,))
    return out


# ----------------------------------------------------------------------------- log / exp
class Log1PBackward0(_Unary):
    """z = log(1 + self).  dz/dself = grad / (self + 1). Saves: self."""

    def backward(self, g):
        return (g / add_scalar(self._val(), 1),)


class Expm1Backward0(_Unary):
    """z = exp(self) - 1.  dz/dself = grad * (result + 1). Saves: result."""

    _saves = "result"

    def backward(self, g):
        return (g * add_scalar(self._val(), 1),)


class Log2Backward0(_Unary):
    """z = log2(self).  dz/dself = grad / (self * ln 2). Saves: self."""

    def backward(self, g):
        return (g / mul_scalar(self._val(), _LN2),)


class Log10Backward0(_Unary):
    """z = log10(self).  dz/dself = grad / (self * ln 10). Saves: self."""

    def backward(self, g):
        return (g / mul_scalar(self._val(), _LN10),)


class Exp2Backward0(_Unary):
    """z = 2^self.  dz/dself = grad * result * ln 2. Saves: result."""

    _saves = "result"

    def backward(self, g):
        return (mul_scalar(g * self._val(), _LN2),)


# ----------------------------------------------------------------------------- trig
class TanBackward0(_Unary):
    """z = tan(self).  dz/dself = grad * (1 + result²). Saves: result."""

    _saves = "result"

    def backward(self, g):
        return (g * add_scalar(P.pow(self._val(), 2), 1),)


class AsinBackward0(_Unary):
    """z = asin(self).  dz/dself = grad / sqrt(1 - self²) (NaN outside [-1, 1]). Saves: self."""

    def backward(self, g):
        s = self._val()
        return (g * add_scalar(-s * s, 1).rsqrt(),)


class AcosBackward0(_Unary):
    """z = acos(self).  dz/dself = -grad / sqrt(1 - self²). Saves: self."""

    def backward(self, g):
        s = self._val()
        return (g * -add_scalar(-s * s, 1).rsqrt(),)


class AtanBackward0(_Unary):
    """z = atan(self).  dz/dself = grad / (self² + 1). Saves: self."""

    def backward(self, g):
        s = self._val()
        return (g / add_scalar(s * s, 1),)


class SinhBackward0(_Unary):
    """z = sinh(self).  dz/dself = grad * cosh(self). Saves: self."""

    def backward(self, g):
        return (g * cosh(self._val()),)


class CoshBackward0(_Unary):
    """z = cosh(self).  dz/dself = grad * sinh(self). Saves: self."""

    def backward(self, g):
        return (g * sinh(self._val()),)


class AsinhBackward0(_Unary):
    """z = asinh(self).  dz/dself = grad / sqrt(self² + 1). Saves: self."""

    def backward(self, g):
        return (g * add_scalar(P.pow(self._val(), 2), 1).rsqrt(),)


class AcoshBackward0(_Unary):
    """z = acosh(self).  dz/dself = grad / sqrt(self² - 1) (NaN below 1). Saves: self."""

    def backward(self, g):
        s = self._val()
        return (g * sub_scalar(s * s, 1).rsqrt(),)


class AtanhBackward0(_Unary):
    """z = atanh(self).  dz/dself = grad * 1 / (1 - self²) (PyTorch's terms). Saves: self."""

    def backward(self, g):
        sq = P.pow(self._val(), 2)  # (C++'s 1 - t: a tensor of ones minus t, SubBackward0)
        return (mul_scalar(g, 1) / P.sub(Tensor._make(np.ones_like(sq._data)), sq),)


class AsinhBackward1(Node):
    """The node of ``asinh_()`` on a tensor that requires grad: PyTorch has no derivative for
    the in-place forms of asinh/acosh/atanh, so backward raises NotImplementedError. Saves
    nothing."""

    _op = "asinh"

    def backward(self, g):
        raise NotImplementedError(f"the derivative for 'inplace version of {self._op}' is not "
                                  f"implemented.")

    @classmethod
    def jvp(cls, inputs, tangents, outputs):
        """No forward formula either: PyTorch's NotImplementedError."""
        raise NotImplementedError(
            f"Trying to use forward AD with {cls._op}_ that does not support it because it has "
            "not been implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that "
            "we can prioritize its implementation.")


class AcoshBackward1(AsinhBackward1):
    """The node of ``acosh_()``: backward raises NotImplementedError (see ``AsinhBackward1``)."""

    _op = "acosh"


class AtanhBackward1(AsinhBackward1):
    """The node of ``atanh_()``: backward raises NotImplementedError (see ``AsinhBackward1``)."""

    _op = "atanh"


def _not_differentiable_inplace(node_cls, kernel):
    """The out-of-place computation behind ``asinh_`` (and acosh_, atanh_): the values, with
    a node whose backward fails, as PyTorch records it."""
    def op(input):
        out = Tensor._make(quietly(kernel, input._data))
        record(node_cls, out, (input,))
        return out

    return op


# ----------------------------------------------------------------------------- rounding
class TruncBackward0(_ZeroGrad):
    """z = trunc(self).  dz/dself = 0."""


class RoundBackward1(_ZeroGrad):
    """z = round(self, decimals).  dz/dself = 0. Saves nothing."""


class FracBackward0(_Unary):
    """z = self - trunc(self).  dz/dself = grad. Saves nothing."""

    _saves = None
    _jvp_shares_tangent = True  # (PyTorch's ``result: self_t``: the input's tangent itself)

    def backward(self, g):
        return (g,)


def _frac(a):
    return a - np.trunc(a)


log1p = _unary(Log1PBackward0, np.log1p)
expm1 = _unary(Expm1Backward0, np.expm1)
log2 = _unary(Log2Backward0, np.log2)
log10 = _unary(Log10Backward0, np.log10)
exp2 = _unary(Exp2Backward0, np.exp2)
tan = _unary(TanBackward0, np.tan)
asin = _unary(AsinBackward0, np.arcsin, name="asin")
acos = _unary(AcosBackward0, np.arccos, name="acos")
atan = _unary(AtanBackward0, np.arctan, name="atan")
sinh = _unary(SinhBackward0, np.sinh)
cosh = _unary(CoshBackward0, np.cosh)
asinh = _unary(AsinhBackward0, np.arcsinh, name="asinh")
acosh = _unary(AcoshBackward0, np.arccosh, name="acosh")
atanh = _unary(AtanhBackward0, np.arctanh, name="atanh")
trunc = _no_bool(_unary(TruncBackward0, np.trunc, float_only=False),  # (ints stay ints)
                 NotImplementedError('"trunc_vml_cpu" not implemented for \'Bool\''))
fix = trunc
_frac_float = _unary(FracBackward0, _frac, float_only=False, name="frac")


def frac(input):
    """``input - trunc(input)`` (``torch.frac``); node ``FracBackward0`` (gradient passes
    through). Float tensors only: NotImplementedError for integer and bool tensors, as PyTorch."""
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(f'"frac_cpu" not implemented for '
                                  f"'{input.dtype._legacy[:-len('Tensor')]}'")
    return _frac_float(input)


def round(input, *, decimals: int = 0):  # noqa: A001 - torch.round
    """Round half to even (``torch.round``); node ``RoundBackward0``, or ``RoundBackward1``
    with ``decimals`` (``round(x * 10^d) / 10^d``; negative ``decimals`` round to tens, ...).
    Integer tensors with decimals are refused as PyTorch (NotImplementedError)."""
    if decimals == 0:
        return P.round(input)
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(f'"round_cpu" not implemented for '
                                  f"'{input.dtype._legacy[:-len('Tensor')]}'")
    arr = input._data
    ten = np.asarray(10.0, arr.dtype) ** abs(decimals)
    with np.errstate(all="ignore"):
        res = np.round(arr * ten) / ten if decimals > 0 else np.round(arr / ten) * ten
    out = Tensor._make(res.astype(arr.dtype, copy=False))
    record(RoundBackward1, out, (input,), input)
    return out


# ----------------------------------------------------------------------------- nan_to_num
class NanToNumBackward0(_Unary):
    """z = nan_to_num(self).  dz/dself = grad * isfinite(self) (0 at NaN and ±inf).
    Saves: self."""

    def backward(self, g):
        keep = np.isfinite(self._val()._data).astype(g._data.dtype)
        return (g * Tensor._make(keep),)


def nan_to_num(input, nan: float = 0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (default: the
    dtype's largest / lowest finite value) (``torch.nan_to_num``); node ``NanToNumBackward0``.
    Integer and bool tensors are returned as a copy."""
    arr = input._data
    if arr.dtype.kind not in "fV":
        return Tensor._make(arr.copy())
    info = np.finfo(arr.dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    out = Tensor._make(np.nan_to_num(arr, nan=nan, posinf=hi, neginf=lo).astype(arr.dtype))
    record(NanToNumBackward0, out, (input,), input)
    return out


def isinf(input):
    """Elementwise test for +inf or -inf → bool tensor (``torch.isinf``); never requires grad."""
    return Tensor._make(np.isinf(input._data))


def isposinf(input):
    """Elementwise test for +inf → bool tensor (``torch.isposinf``)."""
    return Tensor._make(np.isposinf(input._data))


def isneginf(input):
    """Elementwise test for -inf → bool tensor (``torch.isneginf``)."""
    return Tensor._make(np.isneginf(input._data))


# ----------------------------------------------------------------------------- clamp bounds
class ClampMaxBackward0(_Unary):
    """z = min(self, max) with a number max.  dz/dself = where(self <= max, grad, 0).
    Saves: max, self."""

    def __init__(self, a, hi):
        _Unary.__init__(self, a)
        self._save("max", hi)

    def backward(self, g):
        keep = self._val()._data <= self._saved["max"]
        return (P.where(Tensor._make(keep), g, Tensor._make(np.zeros((), g._data.dtype))),)


class ClampMinBackward1(Node):
    """z = max(self, min) with a tensor min (broadcast).  dz/dself = where(self >= min, grad, 0);
    dz/dmin = where(self < min, grad, 0), each summed to its input's shape.
    Saves: min, self."""

    _upper = False

    def __init__(self, a, bound):
        Node.__init__(self)
        self._save("max" if self._upper else "min", bound)
        self._save("self", a)
        self._shapes = (a.shape, bound.shape)

    def backward(self, g):
        s, b = self._get("self"), self._get("max" if self._upper else "min")
        keep = s <= b if self._upper else s >= b
        past = s > b if self._upper else s < b
        zero = Tensor._make(np.zeros((), g._data.dtype))
        (n0, _), (n1, _) = self.next_functions
        g_self = sum_to(P.where(keep, g, zero), self._shapes[0]) if n0 else None
        g_bound = sum_to(P.where(past, g, zero), self._shapes[1]) if n1 else None
        return g_self, g_bound

    @classmethod
    def jvp(cls, inputs, tangents, outputs, a, bound):
        """dz = where(self >= min, self_t, min_t) (clamp_max: where(self <= max, self_t,
        max_t))."""
        ts, tb = tangents
        keep = P.le(a, bound) if cls._upper else P.ge(a, bound)
        return P.where(keep, P._or_zero(ts, a), P._or_zero(tb, bound))


class ClampMaxBackward1(ClampMinBackward1):
    """z = min(self, max) with a tensor max.  dz/dself = where(self <= max, grad, 0);
    dz/dmax = where(self > max, grad, 0). Saves: max, self."""

    _upper = True


def _clamp_bound(input, bound, upper: bool):
    if isinstance(bound, Tensor):
        dt = result_dtype(input, bound)
        broadcast_shapes(input.shape, bound.shape)
        fn = np.minimum if upper else np.maximum
        out = Tensor._make(np.asarray(fn(cast(bound, dt), cast(input, dt))))  # (ties: input's)
        record(ClampMaxBackward1 if upper else ClampMinBackward1, out, (input, bound), input,
               bound)
        return out
    if not upper:
        return P.clamp_min(input, bound)
    dt = result_dtype(input, bound)
    out = Tensor._make(np.asarray(np.minimum(np.asarray(bound, dt), cast(input, dt)), dtype=dt))
    record(ClampMaxBackward0, out, (input,), input, bound)
    return out


def clamp_min(input, min):
    """``max(input, min)`` (``torch.clamp_min``): a number bound gives ``ClampMinBackward0``
    (one slot), a tensor bound (broadcast) ``ClampMinBackward1`` with slots ``(self, min)``."""
    return _clamp_bound(input, min, upper=False)


def clamp_max(input, max):
    """``min(input, max)`` (``torch.clamp_max``): a number bound gives ``ClampMaxBackward0``,
    a tensor bound ``ClampMaxBackward1`` with slots ``(self, max)``."""
    return _clamp_bound(input, max, upper=True)


def _round_method(self, decimals: int = 0):
    """``Tensor.round``: see `round`."""
    return round(self, decimals=decimals)


_INPLACE = {f"{name}_": _inplace_of(op, f"{name}_") for name, op in dict(
    log1p=log1p, expm1=expm1, log2=log2, log10=log10, exp2=exp2, tan=tan, asin=asin, acos=acos,
    atan=atan, sinh=sinh, cosh=cosh, trunc=trunc, frac=frac, clamp_min=clamp_min,
    clamp_max=clamp_max, log=P.log, abs=P.abs, absolute=P.abs, sin=P.sin, cos=P.cos,
    reciprocal=P.reciprocal, rsqrt=P.rsqrt, sign=P.sign, sgn=P.sgn, floor=P.floor, ceil=P.ceil,
    square=P.square, arcsin=asin, arccos=acos, arctan=atan,
    asinh=_not_differentiable_inplace(AsinhBackward1, np.arcsinh),
    acosh=_not_differentiable_inplace(AcoshBackward1, np.arccosh),
    atanh=_not_differentiable_inplace(AtanhBackward1, np.arctanh)).items()}

attach(
    Tensor,
    log1p=log1p, expm1=expm1, log2=log2, log10=log10, exp2=exp2, tan=tan, asin=asin, acos=acos,
    atan=atan, sinh=sinh, cosh=cosh, asinh=asinh, acosh=acosh, atanh=atanh, arcsin=asin,
    arccos=acos, arctan=atan, arcsinh=asinh, arccosh=acosh, arctanh=atanh, trunc=trunc,
    fix=fix, frac=frac, round=_round_method, nan_to_num=nan_to_num, isinf=isinf,
    isposinf=isposinf, isneginf=isneginf, clamp_min=clamp_min, clamp_max=clamp_max,
    round_=_inplace_of(_round_method, "round_"), fix_=_INPLACE["trunc_"],
    absolute=P.abs, negative_=_inplace_of(P.neg, "negative_"),
    clip_=_inplace_of(P.clamp, "clip_"),
    arcsinh_=_INPLACE["asinh_"], arccosh_=_INPLACE["acosh_"], arctanh_=_INPLACE["atanh_"],
    nan_to_num_=_inplace_of(nan_to_num, "nan_to_num_"), **_INPLACE,
)
