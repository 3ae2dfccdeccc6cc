"""Pointwise ops: arithmetic, ``exp``/``log``/..., ``clamp``, ``where``, comparisons.

Mirrors the pointwise entries of ``tools/autograd/derivatives.yaml``. Binary ops broadcast;
their backward sums the gradient back to each input's shape. Python scalars take a slot in
``next_functions`` (``x * 2`` → ``MulBackward0(AccumulateGrad, None)``) except where PyTorch
stores them as attributes (``RsubBackward1``, ``PowBackward0``/``2``: one slot).
Backward formulas are written with tensor ops, so they can themselves be differentiated
(``create_graph=True``). Each node's ``jvp`` is its forward-mode formula (forward AD), PyTorch's
``result:`` entry: ``auto_element_wise`` (`auto_element_wise`) for the one-input nodes, explicit
formulas for the others; an input without a tangent counts as PyTorch's efficient zeros
(`forward_ad.promoted` / `forward_ad.linked` keep their dtype and history effects).
"""

from __future__ import annotations

import numpy as np

from .. import _defaults
from .._tensor import _SCALAR_NAMES, Tensor
from ..autograd.forward_ad import linked, promoted, tangent_sum
from ..autograd.graph import Node, check_saveable, crossed, record
from ._util import (
    _HALF,
    _PY_SCALARS,
    as_tensor,
    attach,
    broadcast_shapes,
    cast,
    empty_for,
    is_scalar,
    laid_out,
    quiet_fp,
    quietly,
    result_dtype,
    sum_to,
    wrap_scalar,
)
from .scalar import mul_scalar


def _binary(a, b, saves=None):
    """Both operands as tensors (Python scalars as wrapped numbers, see ``wrap_scalar``) and
    their arrays in the promoted dtype; checks that shapes broadcast. ``saves(a, b)``: what
    the op's node saves (`crossed`, `_div_saves`, `_both`), for the inference-tensor error
    that PyTorch raises before the broadcast check (``check_saveable``)."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):  # the common cases, checked first
        da, db = a._data, b._data
        if da.dtype is db.dtype and da.shape == db.shape and da.ndim:
            return a, b, da, db  # nothing to promote or broadcast
        ta, tb = a, b
    elif isinstance(a, Tensor) and type(b) in _PY_SCALARS:
        ta, tb = a, wrap_scalar(b)
    else:
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise TypeError("expected at least one Tensor operand")
        for x in (a, b):
            if not isinstance(x, Tensor) and not is_scalar(x):
                if isinstance(x, (list, tuple, np.ndarray)):
                    continue
                raise TypeError(f"unsupported operand type for a Tensor op: "
                                f"'{type(x).__name__}'")
        ta = a if isinstance(a, Tensor) else wrap_scalar(a) if is_scalar(a) else as_tensor(a)
        tb = b if isinstance(b, Tensor) else wrap_scalar(b) if is_scalar(b) else as_tensor(b)
    da = ta._data
    if tb._wrapped_number and da.dtype.kind in "fV":  # a float tensor and a number (`x * 0.9`):
        return ta, tb, da, tb._data.astype(da.dtype, copy=False)  # the tensor's dtype (cast())
    if saves is not None and (ta._inference or tb._inference):
        check_saveable((ta, tb), saves(ta, tb))
    dt = result_dtype(ta, tb)
    broadcast_shapes(da.shape, tb._data.shape)
    return ta, tb, cast(ta, dt), cast(tb, dt)


def _both(a, b) -> tuple:
    """What ``PowBackward1`` / ``MaximumBackward0`` save: both operands."""
    return (a, b)


def _div_saves(a, b) -> tuple:
    """What ``DivBackward0`` saves: other; self when other requires grad."""
    return (a if b.requires_grad else None, b)


def _result(res, a, b, x, y, common=None) -> Tensor:
    """The tensor of a binary op's result ``res``, which NumPy computed from ``x`` and ``y``
    (the arrays `_binary` gave for ``a`` and ``b``), laid out as PyTorch's TensorIterator lays
    it out (`laid_out`; ``common`` is the computation dtype, by default ``x``'s). NumPy's
    layout is PyTorch's when each array is C-contiguous (a number is) or all strides 0 (an
    expanded number, as the gradient ``sum()`` sends back: it tells no dims apart): one check
    of each array's flag is all the common case pays."""
    if (x.flags.c_contiguous or not any(x.strides)) and (
            not y.ndim or y.flags.c_contiguous or not any(y.strides)):  # (y: often a number)
        return Tensor._make(res)
    return Tensor._make(laid_out(res, a._data, b._data,
                                 common=x.dtype if common is None else common))


class _Binary(Node):
    """Base for binary nodes: remembers both input shapes to reduce broadcast gradients."""

    # (the nodes here call their base's __init__ by name: super() costs ~800 instructions,
    # more than the rest of a small node's __init__, and a node is made for every op)
    def __init__(self, a, b):
        Node.__init__(self)
        self._shapes = (a._data.shape, b._data.shape)

    def _needs(self, i: int) -> bool:
        return self.next_functions[i][0] is not None

    def _pair(self, ga, gb):
        (na, _), (nb, _) = self.next_functions  # (as _needs(0), _needs(1), without the calls)
        sa, sb = self._shapes
        ga = None if ga is None or na is None else ga if ga._data.shape == sa else _reduce_for(
            ga, self.next_functions[0])
        gb = None if gb is None or nb is None else gb if gb._data.shape == sb else _reduce_for(
            gb, self.next_functions[1])
        return ga, gb  # (sum_to's first test inlined: most gradients have their input's shape)


def _or_zero(tangent, primal):
    """``tangent``, or for an input without one zeros of its ``primal``'s shape and dtype
    (one expanded zero): PyTorch's efficient zero tensor where a formula reads a missing
    tangent in a ``where`` (with the primal's shape, its dtype takes part in the promotion)."""
    if tangent is not None:
        return tangent
    return Tensor._make(np.broadcast_to(np.zeros((), primal._data.dtype), primal._data.shape))


def auto_element_wise(node_cls, tangent, outputs, *args):
    """PyTorch's ``auto_element_wise`` forward formula: the backward formula of ``node_cls``
    (a one-input elementwise node) applied to the input's tangent, with a node made for the
    purpose from the op's ``record`` arguments (``result``: the op's output, when the node
    saves it)."""
    node = node_cls(*args)
    if getattr(node_cls, "_saves", None) == "result" or getattr(node_cls, "_also_result", False):
        node._saved["result"] = outputs[0]  # (as is: a SavedTensor of an output would come
    return node.backward(tangent)[0]  # back attached to this throwaway node)


def _reduce_for(g, edge):
    """A broadcast gradient summed down to the shape its receiver recorded (PyTorch's
    ``validate_outputs`` reduces it to the next node's input metadata, not to the input's
    shape at the forward: they differ after ``.data =`` of another shape in between). Left
    as it is when that shape does not broadcast to it: the engine raises "invalid gradient"."""
    child, nr = edge
    meta = child._out_meta
    shape = meta[nr][0] if nr < len(meta) else getattr(child, "_shape", None)
    if shape is None:
        return g
    have = g._data.shape
    if len(shape) <= len(have) and all(a in (1, b) for a, b in zip(shape[::-1], have[::-1])):
        return sum_to(g, shape)
    return g


# ----------------------------------------------------------------------------- add / sub
class AddBackward0(_Binary):
    """z = self + alpha * other.  dz/dself = grad; dz/dother = alpha * grad. Saves: alpha."""

    def __init__(self, a, b, alpha):
        _Binary.__init__(self, a, b)
        self._save("alpha", alpha)

    def backward(self, g):
        alpha = self._saved["alpha"]
        return self._pair(g, g if alpha == 1 else g * alpha)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b, alpha):
        """dz = self_t + alpha * other_t."""
        ta, tb = tangents
        return promoted(tangent_sum(ta, tb if tb is None or alpha == 1 else tb * alpha),
                        a if ta is None else None, b if tb is None else None)


class SubBackward0(_Binary):
    """z = self - alpha * other.  dz/dself = grad; dz/dother = -alpha * grad. Saves: alpha."""

    def __init__(self, a, b, alpha):
        _Binary.__init__(self, a, b)
        self._save("alpha", alpha)

    def backward(self, g):
        alpha = self._saved["alpha"]
        return self._pair(g, -g if alpha == 1 else g * (-alpha))

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b, alpha):
        """dz = self_t - alpha * other_t."""
        ta, tb = tangents
        return promoted(tangent_sum(ta, None if tb is None else -tb if alpha == 1 else
                                    tb * (-alpha)),
                        a if ta is None else None, b if tb is None else None)


class RsubBackward1(Node):
    """z = other - alpha * self with a scalar ``other``.  dz/dself = -alpha * grad.
    Saves: alpha."""

    def __init__(self, alpha):
        Node.__init__(self)
        self._save("alpha", alpha)

    def backward(self, g):
        alpha = self._saved["alpha"]
        return (-g if alpha == 1 else g * (-alpha),)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, alpha):
        """dz = -alpha * self_t (auto_element_wise)."""
        return auto_element_wise(cls, tangents[0], outputs, alpha)


def add(input, other, *, alpha=1):
    """``input + alpha * other`` with broadcasting (``torch.add``); node ``AddBackward0``."""
    a, b, x, y = _binary(input, other)
    if type(alpha) is not int:  # (an int alpha, 1 by default, passes every check)
        _check_alpha(x.dtype, alpha)
    if x.dtype.kind == "b":  # (a bool result: alpha is cast to bool, as PyTorch does)
        alpha = bool(alpha)
    out = _result(quietly(np.add, x, y if alpha == 1 else y * alpha), a, b, x, y)
    record(AddBackward0, out, (a, b), a, b, alpha)
    return out


def _check_alpha(dt: np.dtype, alpha) -> None:
    """PyTorch's ``alpha_check``: a bool alpha needs a bool result, a float alpha a floating
    result (RuntimeError)."""
    if isinstance(alpha, (bool, np.bool_)) and dt != np.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if np.dtype(dt).kind not in "fcV" and not isinstance(alpha, (int, np.integer, np.bool_)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def _check_bool_sub(a_is_bool: bool, b_is_bool: bool) -> None:
    """PyTorch refuses ``-`` when either operand is bool (RuntimeError), with one message for
    two bool operands and another when only one is bool (a Python ``True`` counts as bool)."""
    if a_is_bool and b_is_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if a_is_bool or b_is_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def sub(input, other, *, alpha=1):
    """``input - alpha * other`` (``torch.sub``); node ``SubBackward0``.

    Raises RuntimeError when either operand is bool, as PyTorch does.
    """
    a, b, x, y = _binary(input, other)
    _check_bool_sub(a._data.dtype == np.bool_, b._data.dtype == np.bool_)
    _check_alpha(x.dtype, alpha)
    out = _result(quietly(np.subtract, x, y if alpha == 1 else y * alpha), a, b, x, y)
    record(SubBackward0, out, (a, b), a, b, alpha)
    return out


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (``torch.rsub``); scalar ``other`` gives ``RsubBackward1``.
    RuntimeError for a bool operand, as `sub`."""
    if not is_scalar(other):
        return sub(other, input, alpha=alpha)
    _check_bool_sub(input._data.dtype == np.bool_, isinstance(other, (bool, np.bool_)))
    dt = result_dtype(input, other)
    _check_alpha(dt, alpha)
    out = Tensor._make(np.subtract(np.asarray(other, dt), cast(input, dt) * alpha
                                   if alpha != 1 else cast(input, dt)))
    record(RsubBackward1, out, (input,), alpha)
    return out


# ----------------------------------------------------------------------------- mul / div
class MulBackward0(_Binary):
    """z = self * other.  dz/dself = grad * other; dz/dother = grad * self.
    Saves: other (when self needs grad), self (when other needs grad)."""

    def __init__(self, a, b):
        _Binary.__init__(self, a, b)
        self._save("other", b if a._requires_grad else None)  # (record synced views: the
        self._save("self", a if b._requires_grad else None)  # flag, not the property)

    def backward(self, g):
        ga = g * self._get("other") if self._needs(0) else None
        gb = g * self._get("self") if self._needs(1) else None
        return self._pair(ga, gb)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b):
        """dz = self_t * other + other_t * self."""
        ta, tb = tangents
        return linked(tangent_sum(None if ta is None else ta * b, None if tb is None else tb * a),
                      b if ta is None else None, a if tb is None else None)


class DivBackward0(_Binary):
    """z = self / other.  dz/dself = grad / other; dz/dother = -grad * ((self / other) / other)
    (PyTorch's order of operations: the rounding of x / x's gradient matches).
    Saves: other, self (when other needs grad)."""

    def __init__(self, a, b):
        _Binary.__init__(self, a, b)
        self._save("other", b)
        self._save("self", a if b._requires_grad else None)

    def backward(self, g):
        other = self._get("other")
        ga = g / other if self._needs(0) else None
        gb = -g * ((self._get("self") / other) / other) if self._needs(1) else None
        return self._pair(ga, gb)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b):
        """dz = (self_t - other_t * result) / other."""
        ta, tb = tangents
        if tb is None:
            return linked(ta / b, outputs[0])
        term = tb * outputs[0]
        return (-term if ta is None else ta - term) / b


class DivBackward2(_Binary):
    """z = div(self, other, rounding_mode) (floor or trunc: piecewise constant).
    dz/dself = dz/dother = 0 (``zeros_like(grad)``, no graph). Saves: other, rounding_mode,
    self."""

    def __init__(self, a, b, rounding_mode):
        _Binary.__init__(self, a, b)
        self._save("other", b)
        self._save("rounding_mode", rounding_mode)
        self._save("self", a)

    def backward(self, g):  # (two tensors, as PyTorch's two zeros_like: each may be stolen)
        return self._pair(Tensor._make(np.zeros_like(g._data)) if self._needs(0) else None,
                          Tensor._make(np.zeros_like(g._data)) if self._needs(1) else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b, rounding_mode):
        """dz = zeros of the result's shape and dtype (``result.new_zeros``)."""
        r = outputs[0]._data
        return Tensor._make(np.zeros(r.shape, r.dtype))


def _half_by_scalar(ufunc, x: np.ndarray, number: Tensor) -> np.ndarray:
    """``x * number`` / ``x / number`` for a float16/bfloat16 ``x`` and a Python number as
    PyTorch's CPU kernels compute them: the number in float32 (not rounded to ``x``'s dtype,
    as ``add``/``sub`` round it), the operation in float32, one rounding. (``x * 0.1`` rounds
    0.1 to bfloat16 first otherwise: a fifth of the products differ.)"""
    with quiet_fp():
        return ufunc(x.astype(np.float32), np.float32(number._data)).astype(x.dtype)


def mul(input, other):
    """Elementwise product with broadcasting (``torch.mul``); node ``MulBackward0``."""
    a, b, x, y = _binary(input, other, crossed)
    if b._wrapped_number and x.dtype in _HALF:  # (see _half_by_scalar)
        out = Tensor._make(_half_by_scalar(np.multiply, x, b))
    else:
        out = _result(quietly(np.multiply, x, y), a, b, x, y)  # inf * 0 is nan, silently
    record(MulBackward0, out, (a, b), a, b)
    return out


def div(input, other, *, rounding_mode=None):
    """True division (``torch.div``); integer inputs give float32; node ``DivBackward0``.

    ``rounding_mode`` "floor" / "trunc" keeps the promoted dtype (``DivBackward2``).

    Raises:
        RuntimeError: "ZeroDivisionError" for an integer division by zero with a rounding mode.
        NotImplementedError: a rounding mode on two bools (PyTorch has no bool kernel).
    """
    a, b, x, y = _binary(input, other, _div_saves)
    if rounding_mode is not None:
        if x.dtype.kind in "biu":
            if x.dtype == np.bool_:
                raise NotImplementedError(f'"div_{rounding_mode}_cpu" not implemented for '
                                          "'Bool'")
            if np.any(y == 0):
                raise RuntimeError("ZeroDivisionError")
        with quiet_fp():
            fn = np.floor_divide if rounding_mode == "floor" else np.divide
            res = fn(x, y)
            if rounding_mode == "trunc":
                res = np.trunc(res)
        out = _result(res.astype(x.dtype), a, b, x, y)
        if out._data.dtype.kind in "fV":
            record(DivBackward2, out, (a, b), a, b, rounding_mode)
        return out
    if x.dtype.kind not in "fV":  # (integers and bools: the default dtype)
        x, y = x.astype(_defaults.FLOAT), y.astype(_defaults.FLOAT)
    if b._wrapped_number and x.dtype in _HALF:
        out = Tensor._make(_half_by_scalar(np.divide, x, b))
    else:
        out = _result(quietly(np.divide, x, y), a, b, x, y)
    record(DivBackward0, out, (a, b), a, b)
    return out


def _rdiv(self, other):
    """``other / self`` for a scalar ``other``: PyTorch records reciprocal(self) * other."""
    if is_scalar(other):
        return mul(reciprocal(self), other)
    return div(other, self)


# ----------------------------------------------------------------------------- pow
class PowBackward0(Node):
    """z = self ** exponent (scalar).  dz/dself = grad * exponent * self^(exponent-1)
    (zeros for exponent 0). Saves: exponent, self."""

    def __init__(self, a, exponent):
        Node.__init__(self)
        self._save("exponent", exponent)
        self._save("self", a)

    def backward(self, g):
        e = self._saved["exponent"]
        if e == 0:
            # PyTorch's pow_backward returns zeros_like(self): not a function of grad, so
            # under create_graph it has no graph
            return (Tensor._make(np.zeros_like(self._get("self")._data)),)
        # PyTorch's pow_backward: grad * (exponent * self.pow(exponent - 1)), the exponent a
        # double (a Tensor-Scalar product: MulBackward1 under create_graph)
        e = float(e) if isinstance(e, int) and not isinstance(e, bool) else e
        return (g * mul_scalar(self._get("self") ** (e - 1), e),)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, a, exponent):
        """dz = self_t * exponent * self^(exponent-1) (auto_element_wise; 0 for exponent 0)."""
        return auto_element_wise(cls, tangents[0], outputs, a, exponent)


class PowBackward1(_Binary):
    """z = self ** exponent (tensor).  dz/dself = grad * (exponent * self^(exponent-1)) (0
    where exponent == 0);
    dz/dexponent = grad * (result * log(self)) (that factor 0 where self == 0 and
    exponent >= 0). Grouped as PyTorch's formulas (``pow_backward_self`` / ``_exponent``):
    the rounding, and the gradients of the formula under ``create_graph`` (nan where the
    masked ``result * log(0)`` gets a zero gradient), are the same.
    Saves: exponent, result, self."""

    def __init__(self, a, b):
        _Binary.__init__(self, a, b)
        self._save("exponent", b)
        self._save("self", a)

    def backward(self, g):
        e, s = self._get("exponent"), self._get("self")
        # (PyTorch's pow_backward_self / _exponent, in their order of operations, which also
        # decides the gradients' layouts)
        ga = _pow_self_term(g, s, e) if self._needs(0) else None
        gb = _pow_exponent_term(g, s, e, self._get("result")) if self._needs(1) else None
        return self._pair(ga, gb)

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b):
        """dz = pow_backward_self(self_t, self, exponent)
        + pow_backward_exponent(exponent_t, self, exponent, result)."""
        ta, tb = tangents
        return tangent_sum(None if ta is None else _pow_self_term(ta, a, b),
                           None if tb is None else _pow_exponent_term(tb, a, b, outputs[0]))


def _pow_self_term(g, s, e):
    """PyTorch's ``pow_backward_self``: ``g * (e * s^(e-1))``, 0 where ``e == 0``."""
    zero = as_tensor(np.zeros((), g._data.dtype))
    return where(e == 0, zero, g * (e * s ** (e - 1)))


def _pow_exponent_term(g, s, e, result):
    """PyTorch's ``pow_backward_exponent``: ``g * (result * log(s))``, that factor 0 where
    ``s == 0`` and ``e >= 0``."""
    return g * where((s == 0) & (e >= 0), as_tensor(np.zeros((), s._data.dtype)),
                     result * s.log())


class PowBackward2(Node):
    """z = self ** exponent with scalar base ``self``.  dz/dexponent = grad * (result *
    log(self)) (that factor 0 where self == 0 and exponent >= 0; grouped as PyTorch's
    ``pow_backward_exponent``). Saves: exponent, result, self (the scalar)."""

    def __init__(self, base, exponent):
        Node.__init__(self)
        self._save("self", base)
        self._save("exponent", exponent)

    def backward(self, g):
        e, base = self._get("exponent"), self._saved["self"]
        with quiet_fp():
            factor = self._get("result") * float(np.log(base))
        if base == 0:
            factor = where(e >= 0, as_tensor(np.zeros((), g._data.dtype)), factor)
        return (g * factor,)

    @staticmethod
    def jvp(inputs, tangents, outputs, base, exponent):
        """dz = pow_backward_exponent(exponent_t, self, exponent, result)
        (auto_element_wise)."""
        node = PowBackward2(base, exponent)
        node._saved["result"] = outputs[0]
        return node.backward(tangents[0])[0]


def pow(input, exponent):
    """``input ** exponent`` (``torch.pow``). Scalar exponent → ``PowBackward0``; tensor
    exponent → ``PowBackward1``; scalar base → ``PowBackward2``. NotImplementedError for a
    bool tensor to a bool tensor power, or a Python bool to a bool tensor's (PyTorch has no
    bool kernel)."""
    if is_scalar(input):
        dt = result_dtype(input, exponent)
        if dt == np.bool_:
            raise NotImplementedError('"pow" not implemented for \'Bool\'')
        with quiet_fp():  # (0 ** -1 is inf, (-1) ** 0.5 nan: silently, as in PyTorch)
            out = Tensor._make(np.power(np.asarray(input, dt), cast(exponent, dt)))
        node = record(PowBackward2, out, (exponent,), input, exponent)
        if node:
            node._save("result", out, is_output=True)
        return out
    if is_scalar(exponent):
        dt = result_dtype(input, exponent)
        if dt.kind == "i" and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        with quiet_fp():
            res = np.power(cast(input, dt), np.asarray(exponent, dt))
        if dt == np.bool_:  # (NumPy's bool ** bool is int8; PyTorch's stays bool)
            res = res.astype(np.bool_)
        out = Tensor._make(res)
        record(PowBackward0, out, (input,), input, exponent)
        return out
    a, b, x, y = _binary(input, exponent, _both)
    if x.dtype == np.bool_:  # (bool ** Python bool is allowed: the scalar branch above)
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    out = _result(quietly(np.power, x, y), a, b, x, y)
    node = record(PowBackward1, out, (a, b), a, b)
    if node:
        node._save("result", out, is_output=True)
    return out


def square(input):
    """``input ** 2`` (``torch.square``): recorded as ``PowBackward0``."""
    return pow(input, 2)


# ----------------------------------------------------------------------------- unary
class _Unary(Node):
    """Base for one-input nodes that save their input (``_saves = "self"``), their output
    (``"result"``, saved by the forward function) or nothing (``None``); ``_also_result``:
    the output too, besides ``_saves``."""

    _saves = "self"
    _also_result = False

    def __init__(self, a):
        Node.__init__(self)
        if self._saves == "self":
            self._save("self", a)

    def _val(self):
        return self._get(self._saves)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, *args):
        """Forward AD of an elementwise op of one real input: the tangent is the backward
        formula applied to the input's tangent (``dz = f'(self) * self_t``; PyTorch's
        ``auto_element_wise``), computed by a node made for the purpose. Right for every
        subclass here: each backward is elementwise in ``grad`` and reads only what the op
        passed to ``record`` (self, result, number bounds, exponents)."""
        return auto_element_wise(cls, tangents[0], outputs, *args)


class NegBackward0(_Unary):
    """z = -self.  dz/dself = -grad. Saves nothing."""

    _saves = None

    def backward(self, g):
        return (-g,)


class ExpBackward0(_Unary):
    """z = exp(self).  dz/dself = grad * result. Saves: result."""

    _saves = "result"

    def backward(self, g):
        return (g * self._val(),)


class LogBackward0(_Unary):
    """z = log(self).  dz/dself = grad / self. Saves: self."""

    def backward(self, g):
        return (g / self._val(),)


class SqrtBackward0(_Unary):
    """z = sqrt(self).  dz/dself = grad / (2 * result). Saves: result."""

    _saves = "result"

    def backward(self, g):
        return (g / (self._val() * 2),)


class RsqrtBackward0(_Unary):
    """z = self^(-1/2).  dz/dself = -0.5 * grad * result³. Saves: result."""

    _saves = "result"

    def backward(self, g):
        r = self._val()
        return (g * (r * r * r) * (-0.5),)


class AbsBackward0(_Unary):
    """z = |self|.  dz/dself = grad * sgn(self) (``SgnBackward0`` under create_graph, as
    PyTorch's formula). Saves: self."""

    def backward(self, g):
        return (g * sgn(self._val()),)


class TanhBackward0(_Unary):
    """z = tanh(self).  dz/dself = grad * (1 - result²), one kernel:
    `tanh_backward`. Saves: result."""

    _saves = "result"

    def backward(self, g):
        return (tanh_backward(g, self._val()),)


class SigmoidBackward0(_Unary):
    """z = sigmoid(self).  dz/dself = grad * result * (1 - result), one kernel:
    `sigmoid_backward`. Saves: result."""

    _saves = "result"

    def backward(self, g):
        return (sigmoid_backward(g, self._val()),)


# Fused derivative kernels: PyTorch computes these derivatives with one op each
# (``aten::tanh_backward``, ``aten::sigmoid_backward``), so under ``create_graph`` the gradient's
# grad_fn is TanhBackwardBackward0 / SigmoidBackwardBackward0, and without it a backward step
# costs one NumPy expression instead of three Tensor ops.
class _FusedDerivative(_Binary):
    """Node of a fused derivative kernel ``f(grad_output, output)``: saves both."""

    def __init__(self, grad_output, output):
        _Binary.__init__(self, grad_output, output)
        self._save("grad_output", grad_output)
        self._save("output", output)


class TanhBackwardBackward0(_FusedDerivative):
    """z = tanh_backward(grad_output, output) = grad_output * (1 - output²).
    dz/dgrad_output = grad * (1 - output²); dz/doutput = -2 * grad * grad_output * output.
    Saves: grad_output, output."""

    def backward(self, g):
        go, out = self._get("grad_output"), self._get("output")
        return self._pair(tanh_backward(g, out) if self._needs(0) else None,
                          g * go * out * -2 if self._needs(1) else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, output):
        """dz = tanh_backward(grad_output_t, output) + output_t * (-2 * output * grad_output)."""
        tg, to = tangents
        return linked(tangent_sum(None if tg is None else tanh_backward(tg, output),
                                  None if to is None else to * ((output * -2) * grad_output)),
                      output, grad_output if to is None else None)


class SigmoidBackwardBackward0(_FusedDerivative):
    """z = sigmoid_backward(grad_output, output) = grad_output * output * (1 - output).
    dz/dgrad_output = grad * output * (1 - output);
    dz/doutput = grad * grad_output * (1 - 2 * output). Saves: grad_output, output."""

    def backward(self, g):
        go, out = self._get("grad_output"), self._get("output")
        return self._pair(sigmoid_backward(g, out) if self._needs(0) else None,
                          g * go * (1 - out * 2) if self._needs(1) else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, output):
        """dz = sigmoid_backward(grad_output_t, output)
        + output_t * grad_output * (-2 * output + 1)."""
        tg, to = tangents
        return linked(tangent_sum(None if tg is None else sigmoid_backward(tg, output),
                                  None if to is None else to * grad_output * (output * -2 + 1)),
                      output, grad_output if to is None else None)


def _fused(node_cls, kernel, grad_output, output):
    go, r = grad_output._data, output._data
    res = _result(quietly(kernel, go, r), grad_output, output, go, r)
    record(node_cls, res, (grad_output, output), grad_output, output)
    return res


def tanh_backward(grad_output, output):
    """``grad_output * (1 - output²)``, the derivative of tanh given its result
    (``torch.ops.aten.tanh_backward``); node ``TanhBackwardBackward0``."""
    return _fused(TanhBackwardBackward0, lambda g, r: g * (1 - r * r), grad_output, output)


def sigmoid_backward(grad_output, output):
    """``grad_output * output * (1 - output)``, the derivative of sigmoid given its result
    (``torch.ops.aten.sigmoid_backward``); node ``SigmoidBackwardBackward0``."""
    return _fused(SigmoidBackwardBackward0, lambda g, r: g * r * (1 - r), grad_output, output)


class ReciprocalBackward0(_Unary):
    """z = 1 / self.  dz/dself = -grad * result². Saves: result."""

    _saves = "result"

    def backward(self, g):
        r = self._val()
        return (-g * r * r,)


class SinBackward0(_Unary):
    """z = sin(self).  dz/dself = grad * cos(self). Saves: self."""

    def backward(self, g):
        return (g * self._val().cos(),)


class CosBackward0(_Unary):
    """z = cos(self).  dz/dself = grad * -sin(self) (PyTorch's order). Saves: self."""

    def backward(self, g):
        return (g * -self._val().sin(),)


class _ZeroGrad(_Unary):
    """Piecewise-constant ops: the derivative is zero almost everywhere. The gradient is a
    constant ``zeros_like(grad)`` (PyTorch's formula: it does not require grad even under
    ``create_graph``). Saves nothing."""

    _saves = None

    def backward(self, g):
        return (Tensor._make(np.zeros_like(g._data)),)


class SignBackward0(_ZeroGrad):
    """z = sign(self).  dz/dself = 0."""


class SgnBackward0(_ZeroGrad):
    """z = sgn(self) (sign(self) for real tensors).  dz/dself = 0 (PyTorch's ``sgn_backward``
    for real tensors; PyTorch returns it as an "efficient zero" tensor, minigrad as plain
    zeros). Saves: result, self."""

    _saves = "self"
    _also_result = True


class RoundBackward0(_ZeroGrad):
    """z = round(self).  dz/dself = 0."""


class FloorBackward0(_ZeroGrad):
    """z = floor(self).  dz/dself = 0."""


class CeilBackward0(_ZeroGrad):
    """z = ceil(self).  dz/dself = 0."""


def _unary(node_cls, fn, float_only=True, name=None):
    """Build the forward function ``name`` (default: ``fn``'s name) of a one-input op recorded
    as ``node_cls``."""

    def op(input):
        arr = input._data
        if float_only and arr.dtype.kind not in "fV":
            arr = arr.astype(_defaults.FLOAT)
        if arr.dtype in _HALF:  # (float16/bfloat16: in float32, rounded once, as PyTorch)
            out = Tensor._make(quietly(fn, arr.astype(np.float32)).astype(arr.dtype))
        else:
            out = Tensor._make(quietly(fn, arr))
        node = record(node_cls, out, (input,), input) if node_cls is not None else None
        if node is not None and saves_result:
            node._save("result", out, is_output=True)
        return out

    saves_result = node_cls is not None and (  # (read once, not per call)
        node_cls._saves == "result" or node_cls._also_result)

    op.__name__ = name = name or fn.__name__
    op.__doc__ = f"Elementwise ``{name}`` (``torch.{name}``); node " \
                 f"``{node_cls.__name__ if node_cls else 'none'}``."
    return op


def _sigmoid(x):
    # PyTorch's CPU formula. For x < -88 (float32) exp(-x) overflows to inf, quietly (the
    # kernel runs under ``quietly``), and 1 / inf is the right limit 0; x > 88 gives 1.
    if x.dtype in _HALF:  # as PyTorch: half precision computed in float32, then rounded
        return _sigmoid(x.astype(np.float32)).astype(x.dtype)
    return 1.0 / (1.0 + np.exp(-x))


exp = _unary(ExpBackward0, np.exp)
log = _unary(LogBackward0, np.log)
sqrt = _unary(SqrtBackward0, np.sqrt)
tanh = _unary(TanhBackward0, np.tanh)
sigmoid = _unary(SigmoidBackward0, _sigmoid, name="sigmoid")
sin = _unary(SinBackward0, np.sin)
cos = _unary(CosBackward0, np.cos)
reciprocal = _unary(ReciprocalBackward0, np.reciprocal)
rsqrt = _unary(RsqrtBackward0, lambda a: 1.0 / np.sqrt(a), name="rsqrt")
def _no_bool(op, error):
    """``op`` refusing bool tensors with PyTorch's ``error`` (an exception instance)."""
    def checked(input):
        if input._data.dtype == np.bool_:
            raise error
        return op(input)

    checked.__name__, checked.__doc__ = op.__name__, op.__doc__
    return checked


def _sign(x):
    """``np.sign`` with PyTorch's sign(NaN) = 0 (and sign(bool) = the bool)."""
    if x.dtype == np.bool_:
        return x.copy()
    out = np.sign(x)
    return np.where(np.isnan(out), 0, out) if out.dtype.kind in "fV" else out


abs = _no_bool(_unary(AbsBackward0, np.abs, float_only=False),
               NotImplementedError('"abs_cpu" not implemented for \'Bool\''))
neg = _no_bool(_unary(NegBackward0, np.negative, float_only=False), RuntimeError(
    "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."))
sign = _unary(SignBackward0, _sign, float_only=False, name="sign")
sgn = _unary(SgnBackward0, _sign, float_only=False, name="sgn")  # (sign, for real tensors)
round = _no_bool(_unary(RoundBackward0, np.round, float_only=False),  # (ints stay ints)
                 NotImplementedError('"round_vml_cpu" not implemented for \'Bool\''))
floor = _no_bool(_unary(FloorBackward0, np.floor, float_only=False),
                 NotImplementedError('"floor_vml_cpu" not implemented for \'Bool\''))
ceil = _no_bool(_unary(CeilBackward0, np.ceil, float_only=False),
                NotImplementedError('"ceil_vml_cpu" not implemented for \'Bool\''))


# ----------------------------------------------------------------------------- clamp, max
class ClampBackward1(_Unary):
    """z = clamp(self, min, max).  dz/dself = where(min <= self <= max, grad, 0) (a NaN or
    inf gradient stays out of the clamped positions). Saves: max, min, self."""

    def __init__(self, a, lo, hi):
        _Unary.__init__(self, a)
        self._save("max", hi)
        self._save("min", lo)

    def backward(self, g):
        s = self._val()
        lo, hi = self._saved["min"], self._saved["max"]
        keep = np.ones(s.shape, dtype=bool)
        if lo is not None:
            keep &= s._data >= lo
        if hi is not None:
            keep &= s._data <= hi
        return (where(Tensor._make(keep), g, Tensor._make(np.zeros((), g._data.dtype))),)


class ClampMinBackward0(_Unary):
    """z = max(self, min).  dz/dself = where(self >= min, grad, 0). Saves: min, self."""

    def __init__(self, a, lo):
        _Unary.__init__(self, a)
        self._save("min", lo)

    def backward(self, g):
        keep = self._val()._data >= self._saved["min"]
        return (where(Tensor._make(keep), g, Tensor._make(np.zeros((), g._data.dtype))),)


class ClampBackward0(Node):
    """z = clamp(self, min, max) with tensor bounds (broadcast against self).
    dz/dself = grad where min <= self <= max; dz/dmin = grad where self < min < max;
    dz/dmax = grad where self > max or max < min (then max is the result); each summed back
    to its own shape. As in PyTorch, RuntimeError when two of these masks cannot be combined
    in place (a bound broadcasts self or the other bound), checked only for the gradients
    the backward computes (not for an input that does not require grad or that ``inputs=``
    leaves out). Saves: max, min, self."""

    def __init__(self, a, lo, hi):
        Node.__init__(self)
        self._save("max", hi)
        self._save("min", lo)
        self._save("self", a)
        self._shapes = [None if t is None else t.shape for t in (a, lo, hi)]

    def backward(self, g):
        s, lo, hi = self._get("self"), self._get("min"), self._get("max")
        if lo is not None and hi is not None:
            # PyTorch combines two masks in place (a.logical_and_(b)); it fails when b
            # broadcasts to more than a's shape, although the forward succeeded
            bc = broadcast_shapes
            pairs = ((bc(s.shape, lo.shape), bc(s.shape, hi.shape)),
                     (bc(s.shape, lo.shape), bc(lo.shape, hi.shape)),
                     (bc(s.shape, hi.shape), bc(hi.shape, lo.shape)))
            for k, (a, b) in enumerate(pairs):  # (only for the gradients the backward wants)
                if self._should_compute_output(k) and bc(a, b) != a:
                    raise RuntimeError(f"output with shape {list(a)} doesn't match the "
                                       f"broadcast shape {list(bc(a, b))}")
        zero = Tensor._make(np.zeros((), g._data.dtype))
        keep = (s >= lo) if lo is not None else None
        if hi is not None:
            keep = (s <= hi) if keep is None else keep & (s <= hi)
        masks = [keep]
        if lo is not None and hi is not None:
            masks += [(s < lo) & (lo < hi), (s > hi) | (hi < lo)]
        else:
            masks += [s < lo if lo is not None else None, s > hi if hi is not None else None]
        return tuple(None if nf[0] is None or m is None else sum_to(where(m, g, zero), shape)
                     for nf, m, shape in zip(self.next_functions, masks, self._shapes))

    @staticmethod
    def jvp(inputs, tangents, outputs, a, lo, hi):
        """PyTorch's ``clamp_jvp``: with both bounds dz = where(min > max, max_t,
        where(self < min, min_t, where(self > max, max_t, self_t))); with one,
        where(self > min, self_t, min_t) or where(self < max, self_t, max_t)."""
        ts, tlo, thi = tangents
        ts, tlo, thi = (None if p is None else _or_zero(t, p)
                        for t, p in zip(tangents, (a, lo, hi)))
        if lo is not None and hi is not None:
            return where(gt(lo, hi), thi, where(lt(a, lo), tlo, where(gt(a, hi), thi, ts)))
        if lo is not None:
            return where(gt(a, lo), ts, tlo)
        return where(lt(a, hi), ts, thi)


def clamp(input, min=None, max=None):
    """Limit values to ``[min, max]`` (``torch.clamp``). Number bounds: node
    ``ClampBackward1`` (one slot); tensor bounds (broadcast): ``ClampBackward0`` with slots
    ``(self, min, max)``.

    RuntimeError when both bounds are None; TypeError when a number and a tensor are mixed.
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if not all(b is None or isinstance(b, Tensor) for b in (min, max)):
            raise TypeError("clamp() received an invalid combination of arguments - expected "
                            "both min and max to be Tensors or both numbers")
        bounds = [b for b in (min, max) if b is not None]
        dt = result_dtype(input, *bounds)
        shape = input.shape
        for b in bounds:
            shape = broadcast_shapes(shape, b.shape)
        lo = None if min is None else cast(min, dt)
        hi = None if max is None else cast(max, dt)
        arr = empty_for(shape, dt, *(t._data for t in (input, min, max) if t is not None))
        _clip(np.broadcast_to(cast(input, dt), shape), lo, hi, out=arr)  # (PyTorch's layout)
        out = Tensor._make(arr)
        record(ClampBackward0, out, (input, min, max), input, min, max)
        return out
    dt = result_dtype(input, *[b for b in (min, max) if b is not None])  # int + 0.5: float32
    out = Tensor._make(np.asarray(_clip(cast(input, dt), min, max), dtype=dt))
    record(ClampBackward1, out, (input,), input, min, max)
    return out


def _clip(x, lo, hi, out=None):
    """``min(max(x, lo), hi)`` as PyTorch's clamp computes it: NaN in any operand gives NaN,
    and where x equals a bound the result is x (so ``-0.0`` stays ``-0.0`` under a bound of
    0). NumPy's maximum and minimum return their *second* operand on ties, hence the order;
    ``np.clip`` returns the bound."""
    r = x
    if lo is not None:
        r = np.maximum(lo, r, out=out)
    if hi is not None:
        r = np.minimum(hi, r, out=out)
    return r


def clamp_min(input, min):
    """``max(input, min)`` (``torch.clamp_min``); node ``ClampMinBackward0``. The result
    dtype is promoted as PyTorch's (a bool or int tensor with a float bound gives float32)."""
    dt = result_dtype(input, min)
    # (the bound first: on a tie NumPy returns the second operand, PyTorch keeps input's, -0.0)
    out = Tensor._make(np.asarray(np.maximum(np.asarray(min, dt), cast(input, dt)), dtype=dt))
    record(ClampMinBackward0, out, (input,), input, min)
    return out


class MaximumBackward0(_Binary):
    """z = maximum(self, other).  Gradient goes to the larger input; ties split it in half:
    PyTorch's formula, for each input ``where(self == other, grad / 2, grad)`` then
    ``masked_fill_(<the input is the smaller one>, 0)`` (so each gradient is a new tensor at
    ``_version`` 1, laid out as ``self == other``). Both inputs get it where a NaN makes every
    comparison false. Saves: other, self."""

    _smaller_loses = True

    def __init__(self, a, b):
        _Binary.__init__(self, a, b)
        self._save("other", b)
        self._save("self", a)

    def backward(self, g):
        s, o = self._get("self"), self._get("other")
        lose_s, lose_o = (lt, gt) if self._smaller_loses else (gt, lt)

        def part(loses):
            return where(eq(s, o), g / 2, g).masked_fill_(loses(s, o), 0)

        return self._pair(part(lose_s) if self._needs(0) else None,
                          part(lose_o) if self._needs(1) else None)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, a, b):
        """dz = other_t + where(self == other, 0.5, self > other) * (self_t - other_t)
        (minimum: self < other)."""
        ta, tb = tangents
        x, y = a._data, b._data
        with quiet_fp():
            wins = np.greater(x, y) if cls._smaller_loses else np.less(x, y)
            w = np.where(np.equal(x, y), 0.5, wins).astype(outputs[0]._data.dtype)
        diff = ta if tb is None else -tb if ta is None else ta - tb
        term = Tensor._make(w) * diff
        return term if tb is None else tb + term


class MinimumBackward0(MaximumBackward0):
    """z = minimum(self, other).  Gradient goes to the smaller input; ties split it; both get
    it where a NaN is involved (see ``MaximumBackward0``). Saves: other, self."""

    _smaller_loses = False


def maximum(input, other):
    """Elementwise maximum of two tensors (``torch.maximum``); node ``MaximumBackward0``."""
    a, b, x, y = _binary(input, other, _both)
    out = _result(np.maximum(y, x), a, b, x, y)  # (a tie: input's value, e.g. -0.0)
    record(MaximumBackward0, out, (a, b), a, b)
    return out


def minimum(input, other):
    """Elementwise minimum of two tensors (``torch.minimum``); node ``MinimumBackward0``."""
    a, b, x, y = _binary(input, other, _both)
    out = _result(np.minimum(y, x), a, b, x, y)  # (a tie: input's value, e.g. -0.0)
    record(MinimumBackward0, out, (a, b), a, b)
    return out


# ----------------------------------------------------------------------------- where, masks
class WhereBackward0(_Binary):
    """z = where(condition, self, other).  dz/dself = grad where condition, else 0;
    dz/dother = grad where not condition. Saves: condition."""

    def __init__(self, cond, a, b):
        _Binary.__init__(self, a, b)
        self._save("condition", cond)

    def backward(self, g):
        c = self._get("condition")
        zero = Tensor._make(np.zeros((), g._data.dtype))
        ga = where(c, g, zero) if self._needs(0) else None
        gb = where(c, zero, g) if self._needs(1) else None
        return self._pair(ga, gb)

    @staticmethod
    def jvp(inputs, tangents, outputs, cond, a, b):
        """dz = where(condition, self_t, other_t)."""
        ta, tb = tangents
        return where(cond, _or_zero(ta, a), _or_zero(tb, b))


def where(condition, input, other):
    """Pick from ``input`` where ``condition`` else ``other`` (``torch.where``).

    The condition gets no slot: ``WhereBackward0(input, other)``. RuntimeError if the condition
    is not bool.
    """
    cond = as_tensor(condition)
    if cond._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {cond.dtype._legacy[:-6]}")
    a, b, x, y = _binary(input, other)
    broadcast_shapes(cond.shape, broadcast_shapes(a.shape, b.shape))
    c = cond._data
    res = np.where(c, x, y)
    if not (c.flags.c_contiguous and x.flags.c_contiguous and y.flags.c_contiguous):
        res = laid_out(res, c, a._data, b._data, common=x.dtype, unconverted=1)  # (_result's)
    out = Tensor._make(res)
    record(WhereBackward0, out, (a, b), cond, a, b)
    return out


class MaskedFillBackward0(Node):
    """z = self with ``mask`` positions set to a value.  dz/dself = grad with masked
    positions zeroed. Saves: mask."""

    def __init__(self, mask):
        Node.__init__(self)
        self._save("mask", mask)

    def backward(self, g):
        m = self._get("mask")
        return (where(m, Tensor._make(np.zeros((), g._data.dtype)), g),)

    @staticmethod
    def jvp(inputs, tangents, outputs, mask):
        """dz = self_t.masked_fill(mask, 0)."""
        return masked_fill(tangents[0], mask, 0)


class MaskedFillBackward1(Node):
    """z = self.masked_fill(mask, value) with a 0-dim tensor ``value``.  dz/dself = grad with
    masked positions zeroed; dz/dvalue = sum of grad over masked positions. Saves: mask."""

    def __init__(self, mask):
        Node.__init__(self)
        self._save("mask", mask)

    def backward(self, g):
        m = self._get("mask")
        zero = Tensor._make(np.zeros((), g._data.dtype))
        gs = where(m, zero, g) if self.next_functions[0][0] is not None else None
        gv = where(m, g, zero).sum() if self.next_functions[1][0] is not None else None
        return gs, gv

    @staticmethod
    def jvp(inputs, tangents, outputs, mask):
        """dz = self_t.masked_fill(mask, value_t)."""
        ts, tv = tangents
        s, v = inputs
        if ts is None:
            ts = Tensor._make(np.zeros(s.shape, s._data.dtype))
        return masked_fill(ts, mask, _or_zero(tv, v))


def masked_fill(input, mask, value):
    """Copy of ``input`` with ``value`` where ``mask`` is True (``Tensor.masked_fill``).

    ``value`` is a number (node ``MaskedFillBackward0``, one slot) or a 0-dim tensor
    (``MaskedFillBackward1``, slots ``(self, value)``). RuntimeError for a non-bool mask or a
    value tensor with dimensions.
    """
    mask = as_tensor(mask)
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype._c_name}")
    broadcast_shapes(mask.shape, input.shape)  # PyTorch names the mask "tensor a"
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    val = value._data if isinstance(value, Tensor) else value
    # (PyTorch fills a contiguous clone: the result is row-major whatever input's layout)
    out = Tensor._make(np.where(mask._data, np.asarray(val).astype(input._data.dtype),
                                input._data).copy(order="C"))
    if isinstance(value, Tensor):
        record(MaskedFillBackward1, out, (input, value), mask)
    else:
        record(MaskedFillBackward0, out, (input,), mask)
    return out


# ----------------------------------------------------------------------------- comparisons
def _compare(fn):
    def op(input, other):
        a, b, x, y = _binary(input, other)
        return _result(fn(x, y), a, b, x, y)

    op.__name__ = fn.__name__
    op.__doc__ = f"Elementwise ``{fn.__name__}`` → bool tensor, never requires grad."
    return op


eq, ne = _compare(np.equal), _compare(np.not_equal)
lt, le = _compare(np.less), _compare(np.less_equal)
gt, ge = _compare(np.greater), _compare(np.greater_equal)


def _check_tensors(fname, input, other):
    for pos, (name, x) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Tensor, "
                            f"not {type(x).__name__}")


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` → bool tensor (broadcast), as
    ``torch.isclose``: equal values (infinities included) are close, NaN only to NaN and only
    with ``equal_nan``; float tensors are compared in their own dtype.

    Raises TypeError if an argument is not a tensor, RuntimeError if the dtypes differ
    (``Float did not match Double``), if ``rtol``/``atol`` is negative or if the shapes do not
    broadcast. Never requires grad.
    """
    _check_tensors("isclose", input, other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_SCALAR_NAMES[input.dtype.name]} did not match "
                           f"{_SCALAR_NAMES[other.dtype.name]}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol:g}")
    broadcast_shapes(input.shape, other.shape)
    a, b = input._data, other._data
    close = np.equal(a, b)
    if a.dtype != np.bool_:
        if a.dtype.kind not in "fcV":
            a, b = a.astype(np.float64), b.astype(np.float64)
        with quiet_fp():
            near = np.abs(a - b) <= atol + rtol * np.abs(b)
        close = close | (near & np.isfinite(a) & np.isfinite(b))
        if equal_nan:
            close = close | (np.isnan(a) & np.isnan(b))
    return Tensor._make(np.asarray(close))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """True if every element of ``isclose(input, other, ...)`` is True (a Python bool, as
    ``torch.allclose``). Same errors as `isclose`."""
    _check_tensors("allclose", input, other)
    return bool(np.all(isclose(input, other, rtol, atol, equal_nan)._data))


def equal(input, other) -> bool:
    """True if both tensors have the same shape and equal elements (a Python bool, as
    ``torch.equal``; dtypes may differ, NaN is never equal, no broadcasting). TypeError if an
    argument is not a tensor."""
    _check_tensors("equal", input, other)
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


def logical_not(input):
    """Elementwise logical not → bool tensor."""
    return Tensor._make(np.logical_not(input._data))


def isnan(input):
    """Elementwise NaN test → bool tensor."""
    return Tensor._make(np.isnan(input._data))


def isfinite(input):
    """Elementwise finite test → bool tensor."""
    return Tensor._make(np.isfinite(input._data))


attach(
    Tensor,
    add=add, sub=sub, mul=mul, div=div, pow=pow, neg=neg, exp=exp, log=log, sqrt=sqrt,
    rsqrt=rsqrt, abs=abs, tanh=tanh, sigmoid=sigmoid, sin=sin, cos=cos, reciprocal=reciprocal,
    sign=sign, sgn=sgn, round=round, floor=floor, ceil=ceil, clamp=clamp, clip=clamp,
    clamp_min=clamp_min, maximum=maximum, minimum=minimum, square=square,
    masked_fill=masked_fill, eq=eq, ne=ne, lt=lt, le=le, gt=gt, ge=ge,
    isclose=isclose, allclose=allclose, equal=equal,
    logical_not=logical_not, isnan=isnan, isfinite=isfinite,
    where=lambda self, condition, other: where(condition, self, other),
    subtract=sub, multiply=mul, divide=div, negative=neg, true_divide=div,
    __add__=add, __radd__=add, __sub__=sub, __rsub__=rsub, __mul__=mul, __rmul__=mul,
    __truediv__=div, __rtruediv__=_rdiv, __pow__=pow,
    __rpow__=lambda self, base: pow(base, self), __neg__=neg, __abs__=abs,
    __eq__=eq, __ne__=ne, __lt__=lt, __le__=le, __gt__=gt, __ge__=ge,
    __floordiv__=lambda self, o: div(self, o, rounding_mode="floor"),
    __mod__=lambda self, o: Tensor._make(np.mod(self._data, as_tensor(o)._data)),
)
