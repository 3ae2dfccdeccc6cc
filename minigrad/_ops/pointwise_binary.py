"""More binary (and ternary) pointwise ops: ``fmod remainder hypot atan2 fmin fmax`` and the
out-of-place ``lerp addcmul addcdiv``, with their in-place variants.

Mirrors the entries of ``tools/autograd/derivatives.yaml`` for these ops. Operands broadcast
and promote as in ``pointwise.py`` (``_binary``); gradients are summed back to each input's
shape. A Python number as the second operand of ``fmod``/``remainder`` gives PyTorch's scalar
overload (``FmodBackward0``, one slot); a tensor gives ``FmodBackward1`` (two slots).
The lerp/addcmul/addcdiv nodes live beside their in-place forms in ``inplace.py``.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.forward_ad import linked, promoted, tangent_sum
from ..autograd.graph import Node, record
from . import inplace as I
from . import pointwise as P
from ._util import attach, quietly
from .pointwise import _Binary, _binary, _result


# ----------------------------------------------------------------------------- fmod, remainder
class FmodBackward0(Node):
    """z = fmod(self, other) with a number other.  dz/dself = grad. Saves nothing."""

    _jvp_shares_tangent = True  # (PyTorch's auto_element_wise of ``grad``: self_t itself)

    def backward(self, g):
        return (g,)

    @staticmethod
    def jvp(inputs, tangents, outputs):
        """dz = self_t (the input's tangent itself)."""
        return tangents[0]


class RemainderBackward0(FmodBackward0):
    """z = remainder(self, other) with a number other.  dz/dself = grad. Saves nothing."""


class FmodBackward1(_Binary):
    """z = fmod(self, other) = self - trunc(self / other) * other.  dz/dself = grad;
    dz/dother = -grad * trunc(self / other). Saves: other, self (both only when other needs
    grad)."""

    _rounding = "trunc"

    def __init__(self, a, b):
        _Binary.__init__(self, a, b)
        self._save("other", b if b._requires_grad else None)
        self._save("self", a if b._requires_grad else None)

    def backward(self, g):
        a, b = self._get("self"), self._get("other")
        gb = -g * P.div(a, b, rounding_mode=self._rounding) if self._needs(1) else None
        return self._pair(g, gb)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, a, b):
        """dz = self_t - other_t * self.div(other, rounding_mode="trunc") (remainder:
        "floor")."""
        ta, tb = tangents
        if tb is None:
            return linked(ta, a, b)  # (the missing term's quotient has a history)
        term = tb * P.div(a, b, rounding_mode=cls._rounding)
        return -term if ta is None else ta - term


class RemainderBackward1(FmodBackward1):
    """z = remainder(self, other) = self - floor(self / other) * other.  dz/dself = grad;
    dz/dother = -grad * floor(self / other). Saves: other, self."""

    _rounding = "floor"


def _mod(name, kernel, scalar_node, tensor_node):
    def op(input, other):
        a, b, x, y = _binary(input, other)
        if x.dtype == np.bool_:
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')
        if np.result_type(x, y).kind in "biu" and np.any(y == 0):
            raise RuntimeError("ZeroDivisionError")
        out = _result(quietly(kernel, x, y), a, b, x, y)
        if isinstance(other, Tensor):
            record(tensor_node, out, (a, b), a, b)
        else:
            record(scalar_node, out, (a,))
        return out

    op.__name__ = name
    op.__doc__ = (f"Elementwise ``{name}`` (``torch.{name}``; the result has the sign of the "
                  f"{'dividend' if name == 'fmod' else 'divisor'}). A number ``other`` gives "
                  f"node ``{scalar_node.__name__}``, a tensor ``{tensor_node.__name__}``. "
                  f"RuntimeError (ZeroDivisionError) for an integer division by zero.")
    return op


fmod = _mod("fmod", np.fmod, FmodBackward0, FmodBackward1)
remainder = _mod("remainder", np.mod, RemainderBackward0, RemainderBackward1)


class NotImplemented(Node):  # noqa: A001 - PyTorch's node name
    """The node PyTorch records for an op without a derivative (``number % tensor``, the
    ``remainder(Scalar, Tensor)`` overload): backward raises RuntimeError. Saves nothing."""

    _runs_unmasked = True  # (raises, or calls its fn, whatever is needed)

    def __init__(self, op):
        Node.__init__(self)
        self._op = op

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def backward(self, g):
        raise RuntimeError(f"derivative for {self._op} is not implemented")

    @staticmethod
    def jvp(inputs, tangents, outputs, op):
        """No forward formula: PyTorch's NotImplementedError."""
        raise NotImplementedError(f"Trying to use forward AD with {op} that does not support it.")


def _rmod(self, other):
    """``other % self`` for a number ``other``: values as ``remainder``, recorded as
    ``NotImplemented`` (PyTorch has no derivative for this overload). As the tensor
    overload: NotImplementedError for a bool result (``True % tensor([True])``), RuntimeError
    (ZeroDivisionError) for an integer division by zero."""
    a, b, x, y = _binary(other, self)
    if x.dtype == np.bool_:
        raise NotImplementedError('"remainder_cpu" not implemented for \'Bool\'')
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise RuntimeError("ZeroDivisionError")
    out = _result(quietly(np.mod, x, y), a, b, x, y)
    record(NotImplemented, out, (self,), "aten::remainder")
    return out


# ----------------------------------------------------------------------------- hypot, atan2
class HypotBackward0(_Binary):
    """z = sqrt(self² + other²).  dz/dself = grad * self / result; dz/dother = grad * other /
    result. Saves: other (when other needs grad), result, self (when self needs grad)."""

    def __init__(self, a, b):
        _Binary.__init__(self, a, b)
        self._save("other", b if b._requires_grad else None)
        self._save("self", a if a._requires_grad else None)

    def backward(self, g):
        a, b, r = self._get("self"), self._get("other"), self._get("result")
        return self._pair(g * a / r if self._needs(0) else None,
                          g * b / r if self._needs(1) else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b):
        """dz = self_t * self / result + other_t * other / result."""
        ta, tb = tangents
        r = outputs[0]
        return tangent_sum(None if ta is None else ta * a / r, None if tb is None else tb * b / r)


class Atan2Backward0(_Binary):
    """z = atan2(self, other).  With recip = 1 / (self² + other²) (0 where that is inf, at
    the origin): dz/dself = grad * other * recip; dz/dother = grad * -self * recip.
    Saves: other, self."""

    def __init__(self, a, b):
        _Binary.__init__(self, a, b)
        self._save("other", b)
        self._save("self", a)

    def backward(self, g):
        a, b = self._get("self"), self._get("other")
        recip = (a * a + b * b).reciprocal()  # (0 at the origin, as PyTorch's masked_fill_)
        recip = P.masked_fill(recip, Tensor._make(np.isinf(recip._data)), 0)
        return self._pair(g * b * recip if self._needs(0) else None,
                          g * -a * recip if self._needs(1) else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b):
        """dz = (-self * other_t + other * self_t) / (self² + other²)."""
        ta, tb = tangents
        num = tangent_sum(None if tb is None else -a * tb, None if ta is None else b * ta)
        return num / (P.pow(a, 2) + P.pow(b, 2))


def _check_tensor(fname, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{fname}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")


def _float_pair(input, other, fname):
    _check_tensor(fname, other)
    a, b, x, y = _binary(input, other)
    if x.dtype.kind not in "fV":
        x, y = x.astype(np.float32), y.astype(np.float32)
    return a, b, x, y


def hypot(input, other):
    """``sqrt(input² + other²)`` elementwise, without overflow (``torch.hypot``); node
    ``HypotBackward0``. TypeError if ``other`` is not a tensor, NotImplementedError for
    integer tensors."""
    _check_tensor("hypot", other)
    for t in (input, other):
        if t._data.dtype.kind not in "fV":
            raise NotImplementedError(f'"hypot_cpu" not implemented for '
                                      f"'{t.dtype._legacy[:-len('Tensor')]}'")
    a, b, x, y = _float_pair(input, other, "hypot")
    out = _result(quietly(np.hypot, x, y), a, b, x, y)
    node = record(HypotBackward0, out, (a, b), a, b)
    if node:
        node._save("result", out, is_output=True)
    return out


def atan2(input, other):
    """Angle of the point ``(other, input)`` elementwise (``torch.atan2``, alias
    ``arctan2``); integer inputs give float32; node ``Atan2Backward0``. TypeError if ``other``
    is not a tensor."""
    a, b, x, y = _float_pair(input, other, "atan2")
    out = _result(quietly(np.arctan2, x, y), a, b, x, y)
    record(Atan2Backward0, out, (a, b), a, b)
    return out


# ----------------------------------------------------------------------------- fmin, fmax
class FmaxBackward0(_Binary):
    """z = fmax(self, other) (NaN ignored).  dz/dself = grad where self >= other or other is
    NaN, else 0; dz/dother = grad elsewhere (a tie sends the whole gradient to self, unlike
    ``maximum``). Saves: other, self."""

    _self_wins = staticmethod(np.greater_equal)

    def __init__(self, a, b):
        _Binary.__init__(self, a, b)
        self._save("other", b)
        self._save("self", a)

    def backward(self, g):
        a, b = self._get("self")._data, self._get("other")._data
        with np.errstate(invalid="ignore"):
            to_self = self._self_wins(a, b) | np.isnan(b)
        return self._pair(  # (PyTorch's grad.masked_fill(mask, 0) for each input)
            P.masked_fill(g, Tensor._make(~to_self), 0) if self._needs(0) else None,
            P.masked_fill(g, Tensor._make(to_self), 0) if self._needs(1) else None)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, a, b):
        """dz = other_t + ((self > other) | isnan(other)) * (self_t - other_t) (fmin:
        self <= other; the tie rule differs from the backward's, as in PyTorch)."""
        ta, tb = tangents
        x, y = a._data, b._data
        with np.errstate(invalid="ignore"):
            wins = np.greater(x, y) if cls._self_wins is np.greater_equal else np.less_equal(x, y)
            mask = wins | np.isnan(y)  # (a bool factor: the tangents' dtype)
        diff = ta if tb is None else -tb if ta is None else ta - tb
        term = Tensor._make(np.asarray(mask)) * diff
        return promoted(term if tb is None else tb + term, a if ta is None else None,
                        b if tb is None else None)


class FminBackward0(FmaxBackward0):
    """z = fmin(self, other) (NaN ignored).  dz/dself = grad where self <= other or other is
    NaN; dz/dother = grad elsewhere. Saves: other, self."""

    _self_wins = staticmethod(np.less_equal)


def fmax(input, other):
    """Elementwise maximum that ignores NaN (``torch.fmax``); node ``FmaxBackward0``."""
    _check_tensor("fmax", other)
    a, b, x, y = _binary(input, other)
    out = _result(np.fmax(x, y), a, b, x, y)
    record(FmaxBackward0, out, (a, b), a, b)
    return out


def fmin(input, other):
    """Elementwise minimum that ignores NaN (``torch.fmin``); node ``FminBackward0``."""
    _check_tensor("fmin", other)
    a, b, x, y = _binary(input, other)
    out = _result(np.fmin(x, y), a, b, x, y)
    record(FminBackward0, out, (a, b), a, b)
    return out


# ----------------------------------------------------------------------------- lerp, addc*
def lerp(input, end, weight):
    """``input + weight * (end - input)`` (``torch.lerp``), all three broadcast; a number
    weight gives ``LerpBackward0`` (slots ``(self, end)``), a tensor weight ``LerpBackward1``
    (slots ``(self, end, weight)``). RuntimeError when ``end`` (or a tensor weight) has
    another dtype than ``input``."""
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype is not input.dtype:
            raise RuntimeError(f"expected dtype {input.dtype._c_name} for `{name}` but got "
                               f"dtype {t.dtype._c_name}")
    return I._lerp(input, end, weight)


def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` (``torch.addcmul``), broadcast; node
    ``AddcmulBackward0`` with slots ``(self, tensor1, tensor2)``."""
    return I._addcmul(input, tensor1, tensor2, value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2`` (``torch.addcdiv``); node ``AddcdivBackward0``.
    RuntimeError for integer ``tensor1`` and ``tensor2`` (PyTorch refuses integer division
    here)."""
    if tensor1._data.dtype.kind in "biu" and tensor2._data.dtype.kind in "biu":
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a "
                           "future release addcdiv will perform a true division of tensor1 and "
                           "tensor2. The historic addcdiv behavior can be implemented as "
                           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                           "for integer inputs and as (input + value * tensor1 / tensor2) for "
                           "float inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    return I._addcdiv(input, tensor1, tensor2, value)


def _addcmul_m(self, tensor1, tensor2, *, value=1):
    """``Tensor.addcmul``: see `addcmul`."""
    return addcmul(self, tensor1, tensor2, value=value)


def _addcdiv_m(self, tensor1, tensor2, *, value=1):
    """``Tensor.addcdiv``: see `addcdiv`."""
    return addcdiv(self, tensor1, tensor2, value=value)


attach(
    Tensor,
    fmod=fmod, remainder=remainder, hypot=hypot, atan2=atan2, arctan2=atan2, fmax=fmax,
    fmin=fmin, lerp=lerp, addcmul=_addcmul_m, addcdiv=_addcdiv_m,
    __mod__=remainder, __rmod__=_rmod,
    fmod_=I._inplace_of(fmod, "fmod_"), remainder_=I._inplace_of(remainder, "remainder_"),
    hypot_=I._inplace_of(hypot, "hypot_"), atan2_=I._inplace_of(atan2, "atan2_"),
    arctan2_=I._inplace_of(atan2, "atan2_"), __imod__=I._inplace_of(remainder, "remainder_"),
    addcdiv_=I._inplace_of(_addcdiv_m, "addcdiv_"),
)


# ----------------------------------------------------------------------------- x.eq_(...)
class _CompareZeroGrad(Node):
    """z = (self <op> other) written into self (``x.eq_(number)`` ...): piecewise constant.
    dz/dself = 0 (``zeros_like(grad)``). Saves nothing."""

    def backward(self, g):
        return (Tensor._make(np.zeros_like(g._data)),)

    @staticmethod
    def jvp(inputs, tangents, outputs, *args):
        """dz = self_t.zero_() (none when self has no tangent)."""
        ts = tangents[0]
        return None if ts is None else Tensor._make(np.zeros_like(ts._data))


class _CompareZeroGrads(_Binary):
    """z = (self <op> other) with a tensor other, written into self: dz/dself = dz/dother = 0
    (zeros of each input's shape). Saves nothing."""

    def backward(self, g):
        sa, sb = self._shapes
        dt = g._data.dtype
        return (Tensor._make(np.zeros(sa, dt)) if self._needs(0) else None,
                Tensor._make(np.zeros(sb, dt)) if self._needs(1) else None)

    jvp = _CompareZeroGrad.jvp


class EqBackward0(_CompareZeroGrad):
    """``x.eq_(number)``: zero gradient."""


class NeBackward0(_CompareZeroGrad):
    """``x.ne_(number)``: zero gradient."""


class LtBackward0(_CompareZeroGrad):
    """``x.lt_(number)``: zero gradient."""


class LeBackward0(_CompareZeroGrad):
    """``x.le_(number)``: zero gradient."""


class GtBackward0(_CompareZeroGrad):
    """``x.gt_(number)``: zero gradient."""


class GeBackward0(_CompareZeroGrad):
    """``x.ge_(number)``: zero gradient."""


class EqBackward1(_CompareZeroGrads):
    """``x.eq_(tensor)``: zero gradients."""


class NeBackward1(_CompareZeroGrads):
    """``x.ne_(tensor)``: zero gradients."""


class LtBackward1(_CompareZeroGrads):
    """``x.lt_(tensor)``: zero gradients."""


class LeBackward1(_CompareZeroGrads):
    """``x.le_(tensor)``: zero gradients."""


class GtBackward1(_CompareZeroGrads):
    """``x.gt_(tensor)``: zero gradients."""


class GeBackward1(_CompareZeroGrads):
    """``x.ge_(tensor)``: zero gradients."""


_COMPARE_NODES = {"eq": (EqBackward0, EqBackward1), "ne": (NeBackward0, NeBackward1),
                  "lt": (LtBackward0, LtBackward1), "le": (LeBackward0, LeBackward1),
                  "gt": (GtBackward0, GtBackward1), "ge": (GeBackward0, GeBackward1)}


def _compare_into_dtype(name):
    """The out-of-place computation behind ``x.eq_(other)`` (and ne_, lt_, ...): the
    comparison as 0/1 in ``x``'s dtype, recorded as ``EqBackward0`` (a number) or
    ``EqBackward1`` (a tensor), as PyTorch records the in-place comparisons."""
    compare = getattr(P, name)
    scalar_node, tensor_node = _COMPARE_NODES[name]

    def op(self, other):
        res = compare(self, other)
        out = Tensor._make(res._data.astype(self._data.dtype))
        if isinstance(other, Tensor):
            record(tensor_node, out, (self, other), self, other)
        else:
            record(scalar_node, out, (self,))
        return out

    return op


attach(Tensor, **{f"{n}_": I._inplace_of(_compare_into_dtype(n), f"{n}_") for n in _COMPARE_NODES},
       subtract_=I._inplace_of(P.sub, "sub_"), multiply_=I._inplace_of(P.mul, "mul_"),
       divide_=I._inplace_of(P.div, "div_"), true_divide_=I._inplace_of(P.div, "div_"))
# (logical_not_ is in _ops/logical.py with the other logical ops: no autograd check)
