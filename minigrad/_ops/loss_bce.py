"""Binary cross entropy: ``binary_cross_entropy`` (``BinaryCrossEntropyBackward0``) and
``binary_cross_entropy_with_logits`` (``BinaryCrossEntropyWithLogitsBackward0``).

Mirrors ``aten/src/ATen/native/Loss.cpp`` and the formulas of ``FunctionsManual.cpp``
(``binary_cross_entropy_with_logits_backward`` and its target counterpart). Each loss is one
node with slots ``(self, target)``; ``weight``/``pos_weight`` are saved, never differentiated
(PyTorch refuses them when they require grad). The backward formulas are tensor ops, so a
second derivative works (its graph is made of elementwise nodes; PyTorch's self-gradient for
``binary_cross_entropy`` is its own op, as here: ``BinaryCrossEntropyBackwardBackward0``).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.forward_ad import fw_grad, tangent_sum
from ..autograd.graph import Node, record
from . import pointwise as P
from ._util import at_version, broadcast_shapes, quietly, result_dtype, sum_dtype
from .loss import _or_zeros, apply_loss_reduction, reduction_enum
from .scalar import add_scalar, div_scalar, mul_scalar

_EPSILON = float(np.float32(1e-12))  # PyTorch's clamp of (1 - x) * x (a C++ float, in float64 too)


def _log_sigmoid(a: np.ndarray) -> np.ndarray:
    return np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a)))


def _reduce(loss: np.ndarray, red: int) -> np.ndarray:
    if red == 0:
        return loss
    acc = sum_dtype(loss)  # (float32 for bfloat16, as PyTorch accumulates it)
    return np.asarray(loss.mean(dtype=acc) if red == 1 else loss.sum(dtype=acc), dtype=loss.dtype)


def _finish(grad: Tensor, g: Tensor, weight, red: int, numel: int) -> Tensor:
    """``grad * g`` times the weight, divided by numel for the mean (PyTorch's order)."""
    out = grad * g
    if weight is not None:
        out = out * weight
    return div_scalar(out, numel) if red == 1 else out


def _no_dual_weights(*weights) -> None:
    """PyTorch's formulas multiply by ``weight`` / ``pos_weight``: one with a tangent would give
    the tangent a tangent of its own, which PyTorch refuses (RuntimeError)."""
    if any(w is not None and fw_grad(w) is not None for w in weights):
        raise RuntimeError("Setting a forward grad that itself has a forward gradient at the "
                           "same level0 is not supported.")


def _log_sigmoid_t(x: Tensor) -> Tensor:
    from .nn_activation import softplus

    return -softplus(-x)


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """z = -w [pos_weight * t * log σ(x) + (1 - t) * log(1 - σ(x))] (then mean or sum).
    dz/dx = w * ((pos_weight * t + 1 - t) * σ(x) - pos_weight * t) * grad (σ(x) - t without
    pos_weight); dz/dt = w * (log σ(-x) - pos_weight * log σ(x)) * grad (-x without
    pos_weight); both / numel for the mean. Saves: pos_weight, reduction, self, target,
    weight."""

    def __init__(self, input, target, weight, pos_weight, red):
        Node.__init__(self)
        self._save("pos_weight", pos_weight)
        self._save("reduction", red)
        self._save("self", input)
        self._save("target", target)
        self._save("weight", weight)

    def backward(self, g):
        x, t = self._get("self"), self._get("target")
        w, pw, red = self._get("weight"), self._get("pos_weight"), self._saved["reduction"]
        (n_x, _), (n_t, _) = self.next_functions
        gx = gt = None
        if n_x:
            gx = _finish(self._dx(x, t, pw), g, w, red, x.numel())
            # PyTorch's formula works in place without grad mode (sub_, mul_ ...: one bump
            # each) and divides the mean in place always; the target's formula keeps its
            # in-place steps in both modes
            steps = 0 if grad_mode.is_grad_enabled() else (3 if pw is not None else 1) + (
                w is not None) + 1
            at_version(gx, steps + (red == 1))
        if n_t:
            gt = _finish(self._dt(x, pw), g, w, red, t.numel())
            at_version(gt, (2 if pw is not None else 0) + (w is not None) + (red == 1))
        return gx, gt

    @staticmethod
    def _dx(x, t, pw):
        if pw is not None:
            pt = pw * t
            return (add_scalar(pt, 1) - t) * x.sigmoid() - pt
        return x.sigmoid() - t

    @staticmethod
    def _dt(x, pw):
        return _log_sigmoid_t(-x) - _log_sigmoid_t(x) * pw if pw is not None else -x

    @classmethod
    def jvp(cls, inputs, tangents, outputs, input, target, weight, pos_weight, red):
        """dz = reduce(bce_with_logits_backward(self_t, self, target, weight, pos_weight, none)
        + bce_with_logits_target_backward(target_t, self, target, weight, pos_weight, none))."""
        _no_dual_weights(weight, pos_weight)
        t_x, t_t = tangents
        n = input.numel()
        return apply_loss_reduction(tangent_sum(
            None if t_x is None else _finish(cls._dx(input, target, pos_weight), t_x, weight, 0,
                                             n),
            None if t_t is None else _finish(cls._dt(input, pos_weight), t_t, weight, 0, n)), red)


class BinaryCrossEntropyBackward0(Node):
    """z = -w [t log(x) + (1 - t) log(1 - x)] (logs clamped at -100; then mean or sum).
    dz/dx = binary_cross_entropy_backward(grad, x, t, w) = w * grad * (x - t) / max((1 - x) x,
    1e-12), one kernel (``BinaryCrossEntropyBackwardBackward0`` under create_graph);
    dz/dt = w * grad * (log(1 - x) - log(x)); both / numel for the mean.
    Saves: reduction, self, target, weight."""

    def __init__(self, input, target, weight, red):
        Node.__init__(self)
        self._save("reduction", red)
        self._save("self", input)
        self._save("target", target)
        self._save("weight", weight)

    def backward(self, g):
        x, t = self._get("self"), self._get("target")
        w, red = self._get("weight"), self._saved["reduction"]
        (n_x, _), (n_t, _) = self.next_functions
        gx = gt = None
        if n_x:
            gx = binary_cross_entropy_backward(g, x, t, w, red)
        if n_t:
            gt = _finish((-x + 1).log() - x.log(), g, w, red, t.numel())
        return gx, gt

    @staticmethod
    def jvp(inputs, tangents, outputs, input, target, weight, red):
        """dz = reduce(binary_cross_entropy_backward(self_t, self, target, weight, none) +
        binary_cross_entropy_target_backward(target_t, self, target, weight, none))."""
        _no_dual_weights(weight)
        t_x, t_t = tangents
        return apply_loss_reduction(tangent_sum(
            None if t_x is None else binary_cross_entropy_backward(t_x, input, target, weight, 0),
            None if t_t is None else _finish((-input + 1).log() - input.log(), t_t, weight, 0,
                                             input.numel())), red)


class BinaryCrossEntropyBackwardBackward0(Node):
    """z = binary_cross_entropy_backward(grad_output, self, target, weight) = w * grad_output
    * (self - target) / max((1 - self) self, 1e-12) (/ numel for the mean). PyTorch's
    double-backward formulas, with eps = 1e-12:
    dz/dgrad_output = w * grad * (self - target) / ((self + eps)(1 - self + eps)), summed
    unless reduction is 'none';
    dz/dself = w * grad * grad_output * (self² - 2 self target + target) /
    ((self + eps)² (1 - self + eps)²);
    dz/dtarget = -w * grad * grad_output / max((1 - self) self, 1e-12); the last two / numel
    for the mean. Saves: grad_output, reduction, self, target, weight."""

    def __init__(self, grad_output, input, target, weight, red):
        Node.__init__(self)
        self._save("grad_output", grad_output)
        self._save("reduction", red)
        self._save("self", input)
        self._save("target", target)
        self._save("weight", weight)

    def backward(self, g):
        go, x, t = self._get("grad_output"), self._get("self"), self._get("target")
        w, red = self._get("weight"), self._saved["reduction"]
        (n_go, _), (n_x, _), (n_t, _) = self.next_functions
        eps, g_go, g_x, g_t = 1e-12, None, None, None
        if n_go:
            g_go = (x - t) / (add_scalar(x, eps) * add_scalar(P.rsub(x, 1), eps)) * g
            g_go = g_go if w is None else g_go * w
            if red != 0:
                g_go = g_go.sum() if red == 2 else div_scalar(g_go.sum(), x.numel())
        if n_x:
            num = x * x - mul_scalar(x, 2) * t + t
            den = add_scalar(x, eps).pow(2) * add_scalar(P.rsub(x, 1), eps).pow(2)
            g_x = num / den * (g * go)
            g_x = g_x if w is None else g_x * w
            g_x = div_scalar(g_x, x.numel()) if red == 1 else g_x
        if n_t:
            g_t = _bce_double_backward_target(g, go, x, t, w, red)
        return g_go, g_x, g_t

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, input, target, weight, red):
        """dz = bce_double_backward(grad_output, self_t, ...) +
        bce_double_backward_target(target_t, grad_output, ...) +
        w * grad_output_t * (self - target) / ((self + eps)(1 - self + eps)) (elementwise;
        / numel for the mean)."""
        go, x, t, w = grad_output, input, target, weight
        t_go, t_x, t_t = (_or_zeros(v, p) for v, p in zip(tangents, inputs))
        eps = 1e-12
        num = x * x - mul_scalar(x, 2) * t + t
        den = add_scalar(x, eps).pow(2) * add_scalar(P.rsub(x, 1), eps).pow(2)
        d_x = num / den * (t_x * go)
        d_x = d_x if w is None else d_x * w
        d_x = div_scalar(d_x, x.numel()) if red == 1 else d_x
        d_t = _bce_double_backward_target(t_t, go, x, t, w, red)
        ggo = (x - t) / (add_scalar(x, eps) * add_scalar(P.rsub(x, 1), eps))
        ggo = (ggo if w is None else ggo * w) * t_go
        d_go = div_scalar(ggo, x.numel()) if red == 1 else ggo
        return d_x + d_t + d_go


def _bce_double_backward_target(g, go, x, t, w, red):
    """``-g * grad_output * w / max((1 - x) x, 1e-12)`` (/ numel for the mean)."""
    den = Tensor._make(np.maximum((1 - x._data) * x._data, _EPSILON))
    g_t = -g * go
    g_t = (g_t if w is None else g_t * w) / den
    return div_scalar(g_t, t.numel()) if red == 1 else g_t


def binary_cross_entropy_backward(grad_output, self, target, weight, reduction: int) -> Tensor:
    """``w * grad_output * (self - target) / max((1 - self) self, 1e-12)`` (/ numel for the
    mean), one kernel (``aten::binary_cross_entropy_backward``); node
    ``BinaryCrossEntropyBackwardBackward0`` under create_graph."""
    x, t, go = self._data, target._data, grad_output._data

    def kernel():
        res = go * (x - t) / np.maximum((1 - x) * x, _EPSILON)
        if weight is not None:
            res = res * weight._data
        return np.asarray(res / x.size if reduction == 1 else res, dtype=x.dtype)

    out = Tensor._make(quietly(kernel))
    record(BinaryCrossEntropyBackwardBackward0, out, (grad_output, self, target), grad_output,
           self, target, weight, reduction)
    return out


def _check_not_differentiable(fname, **tensors):
    for name, t in tensors.items():
        if t is not None and t.requires_grad:
            raise RuntimeError(f"The function '{fname}' is not differentiable with respect to "
                               f"argument '{name}'. This input cannot have requires_grad True.")


def _check_logits_dtypes(input, target, pos_weight) -> None:
    """The dtype errors of PyTorch's composite kernel, in the order its steps raise them:
    ``log_sigmoid(input)`` is float-only (NotImplementedError), ``pos_weight - 1`` and
    ``1 - target`` refuse bool (RuntimeError), and ``(1 - target).mul_(input)`` cannot write a
    float product into an integer target's dtype (RuntimeError)."""
    from .nn_activation import _float_kernel

    _float_kernel("log_sigmoid_cpu", input)
    if pos_weight is not None:
        P._check_bool_sub(pos_weight._data.dtype == np.bool_, False)
    if target._data.dtype == np.bool_:  # (ATen's ``1 - target`` makes the 1 a bool too)
        P._check_bool_sub(True, True)
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"result type {input.dtype._legacy[:-6]} can't be cast to the "
                           f"desired output type {target.dtype._legacy[:-6]}")


def binary_cross_entropy_with_logits(input, target, weight=None, reduction: str = "mean",
                                     pos_weight=None) -> Tensor:
    """Sigmoid + binary cross entropy in one stable op; node
    ``BinaryCrossEntropyWithLogitsBackward0`` with slots ``(self, target)``. ``weight`` and
    ``pos_weight`` broadcast against the loss. ValueError when target and input sizes differ
    or for a bad reduction; RuntimeError if ``weight``/``pos_weight`` require grad.

    dtypes as PyTorch's kernel, which computes ``(1 - target).mul_(input).sub_(log_sigmoid)``
    in place: the loss has the **target's** dtype (a float32 input with a float64 target gives
    a float64 loss, and the reverse a float32 one); ``log σ(input)`` is in the input's dtype,
    also after ``mul_`` by ``(pos_weight - 1) * target + 1``; ``weight`` of any dtype. An
    integer input raises NotImplementedError, a bool target or pos_weight and an integer
    target RuntimeError (see `_check_logits_dtypes`)."""
    red = reduction_enum(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape!r}) must be the same as input size "
                         f"({input.shape!r})")
    _check_not_differentiable("binary_cross_entropy_with_logits", weight=weight,
                              pos_weight=pos_weight)
    _check_logits_dtypes(input, target, pos_weight)
    if pos_weight is not None:  # (PyTorch's broadcasting errors: (pos_weight - 1) * target,
        broadcast_shapes(pos_weight.shape, target.shape)  # then loss * weight)
    if weight is not None:
        broadcast_shapes(input.shape, weight.shape)
    x, t = input._data, target._data
    loss_dt = t.dtype

    def kernel():
        # input's dtype (float16 is computed in float32 and rounded, as PyTorch's CPU kernel)
        log_sig = _log_sigmoid(x.astype(np.float32) if x.dtype == np.float16 else x)
        log_sig = log_sig.astype(x.dtype, copy=False)
        if pos_weight is not None:
            log_weight_dt = result_dtype(pos_weight, target)  # PyTorch's promotion, not NumPy's
            log_weight = ((pos_weight._data - 1) * t + 1).astype(log_weight_dt, copy=False)
            log_sig = (log_sig * log_weight).astype(x.dtype, copy=False)  # (mul_: stays)
        # each in-place step computes in the promoted dtype, then writes the target's dtype
        loss = ((1 - t) * x).astype(loss_dt, copy=False)
        loss = (loss - log_sig).astype(loss_dt, copy=False)
        if weight is not None:
            loss = (loss * weight._data).astype(loss_dt, copy=False)
        return _reduce(loss, red)

    out = Tensor._make(quietly(kernel))
    record(BinaryCrossEntropyWithLogitsBackward0, out, (input, target), input, target, weight,
           pos_weight, red)
    return out


def binary_cross_entropy(input, target, weight=None, reduction: str = "mean") -> Tensor:
    """Binary cross entropy of probabilities ``input`` (in [0, 1]) against ``target``; node
    ``BinaryCrossEntropyBackward0`` with slots ``(self, target)``. ``weight`` must already
    have the input's shape (``F.binary_cross_entropy`` expands it) and may have any dtype (the
    loss keeps the input's). RuntimeError for inputs outside [0, 1] and for a target whose
    dtype is not the input's."""
    red = reduction_enum(reduction)
    if target.dtype != input.dtype:  # (``weight`` may have any dtype: the loss is mul_'d by it)
        raise RuntimeError(f"Found dtype {target.dtype._legacy[:-6]} but expected "
                           f"{input.dtype._legacy[:-6]}")
    _check_not_differentiable("binary_cross_entropy", weight=weight)
    x, t = input._data, target._data
    with np.errstate(invalid="ignore"):
        bad = np.any((x < 0) | (x > 1))
    if bad:
        raise RuntimeError("all elements of input should be between 0 and 1")

    def kernel():
        # (ATen's kernel, term for term: (t - 1) * max(log1p(-x), -100) - t * max(log x, -100))
        loss = (t - 1) * np.maximum(np.log1p(-x), -100) - t * np.maximum(np.log(x), -100)
        if weight is not None:
            loss = loss * weight._data
        return _reduce(np.asarray(loss, dtype=x.dtype), red)

    out = Tensor._make(quietly(kernel))
    record(BinaryCrossEntropyBackward0, out, (input, target), input, target, weight, red)
    return out
