"""Elementwise losses: ``smooth_l1_loss``, ``huber_loss``, ``kl_div`` (and the ``xlogy`` it
records); ``binary_cross_entropy`` is in ``loss_bce``.

Mirrors ``aten/src/ATen/native/Loss.cpp`` and ``tools/autograd/derivatives.yaml``:
``smooth_l1_loss`` and ``huber_loss`` are one kernel each, with one node
(``SmoothL1LossBackward0``, ``HuberLossBackward0``) that saves ``self``, ``target``, the scalar
option and ``reduction`` (0 none, 1 mean, 2 sum); ``kl_div`` is a composition of ordinary ops,
as in ATen. Smooth L1 and Huber have PyTorch's second-order nodes
(``SmoothL1LossBackwardBackward0``, ``HuberLossBackwardBackward0``).
"""

from __future__ import annotations

import numpy as np

from .._dtype import from_numpy_dtype, is_float_np
from .._tensor import Tensor
from ..autograd.graph import Node, record
from . import pointwise as P
from ._util import quiet_fp, result_dtype
from .loss import _broadcast_pair, _or_zeros, apply_loss_reduction, reduction_enum
from .nn_activation import no_double_backward
from .reduction import _np_mean


def _reduce(arr: np.ndarray, red: int) -> np.ndarray:
    if red == 0:
        return arr
    return np.asarray(_np_mean(arr) if red == 1 else arr.sum(), dtype=arr.dtype)


def _norm(red: int, n: int) -> float:
    return (1.0 / n if n else float("nan")) if red == 1 else 1.0


# ----------------------------------------------------------------------------- smooth l1 / huber
def _smooth_factor(d, beta):
    return np.where(d < -beta, -1, np.where(d > beta, 1, d / beta))


def _huber_factor(d, delta):
    return np.where(d < -delta, -delta, np.where(d > delta, delta, d))


class _PointwiseLossNode(Node):
    """The first-order node of smooth L1 / Huber: one backward kernel per input, the target's
    with ``self`` and ``target`` swapped (as derivatives.yaml)."""

    _param = ""

    def __init__(self, input, target, reduction, param):
        Node.__init__(self)
        self._save(self._param, param)
        self._save("reduction", reduction)
        self._save("self", input)
        self._save("target", target)

    def backward(self, g):
        (n_x, _), (n_t, _) = self.next_functions
        x, t, s = self._get("self"), self._get("target"), self._saved
        args = (s["reduction"], s[self._param])
        g_x = self._kernel(g, x, t, *args) if n_x else None
        g_t = self._kernel(g, t, x, *args) if n_t else None
        return g_x, g_t

    @classmethod
    def jvp(cls, inputs, tangents, outputs, input, target, reduction, param):
        """dz = reduce(kernel(self_t, self, target, none) + kernel(target_t, target, self,
        none)), kernel the loss's backward (smooth_l1_loss_backward, huber_loss_backward)."""
        t_x, t_t = (_or_zeros(t, p) for t, p in zip(tangents, inputs))
        return apply_loss_reduction(cls._kernel(t_x, input, target, 0, param)
                                    + cls._kernel(t_t, target, input, 0, param), reduction)


class _PointwiseLossGradNode(Node):
    """Second order of smooth L1 / Huber: dgrad_output = the backward kernel applied to grad
    (summed to grad_output's shape); dself = norm * grad * grad_output *
    (the factor's slope); dtarget = -dself. Third order is not supported."""

    _param = ""

    def __init__(self, grad_output, input, target, reduction, param):
        Node.__init__(self)
        self._save(self._param, param)
        self._save("grad_output", grad_output)
        self._save("reduction", reduction)
        self._save("self", input)
        self._save("target", target)

    def backward(self, g):
        no_double_backward(self)
        (n_go, _), (n_x, _), (n_t, _) = self.next_functions
        x, t = self._get("self")._data, self._get("target")._data
        red, p = self._saved["reduction"], self._saved[self._param]
        d = x - t
        norm = np.asarray(_norm(red, d.size), d.dtype)
        gd = g._data
        g_go = None
        if n_go:  # (summed to grad_output's shape: 0-d unless reduction is 'none')
            full = np.asarray(norm * gd * self._factor(d, p), d.dtype)
            shape = self._get("grad_output")._data.shape
            g_go = Tensor._make(np.asarray(full.sum() if shape == () else full, d.dtype))
        slope = np.asarray(norm * gd * self._get("grad_output")._data * self._slope(d, p),
                           d.dtype)
        return (g_go, Tensor._make(slope) if n_x else None,
                Tensor._make(-slope) if n_t else None)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, grad_output, input, target, reduction, param):
        """Smooth L1: dz = slope * (self_t - target_t) * grad_output +
        smooth_l1_loss_backward(grad_output_t, self, target), slope = norm * (|d| < beta) /
        beta (PyTorch's ``smooth_l1_loss_double_backward``). Huber: no forward formula in
        PyTorch (its NotImplementedError)."""
        if cls is SmoothL1LossBackwardBackward0:
            t_go, t_x, t_t = (_or_zeros(t, p) for t, p in zip(tangents, inputs))
            d = input._data - target._data
            if param == 0:  # (PyTorch's guard against a division by zero: zeros)
                slope = np.zeros_like(d)
            else:
                slope = np.asarray((np.abs(d) < param).astype(d.dtype) / param, d.dtype)
                slope = slope / d.size if reduction == 1 else slope
            s = Tensor._make(np.asarray(slope, d.dtype))
            return (t_x * grad_output * s - t_t * grad_output * s
                    + smooth_l1_loss_backward(t_go, input, target, reduction, param))
        raise NotImplementedError(
            f"Trying to use forward AD with {cls._aten} that does not support it because it "
            "has not been implemented yet.")


class SmoothL1LossBackwardBackward0(_PointwiseLossGradNode):
    """z = smooth_l1_loss_backward(grad_output, self, target, reduction, beta) = norm *
    grad_output * (d / beta where |d| <= beta, else sign(d)), d = self - target. Slope:
    (|d| < beta) / beta. Saves: beta, grad_output, reduction, self, target."""

    _param = "beta"
    _aten = "smooth_l1_loss_backward"
    _factor = staticmethod(_smooth_factor)

    @staticmethod
    def _slope(d, beta):
        return (np.abs(d) < beta) / beta


class HuberLossBackwardBackward0(_PointwiseLossGradNode):
    """z = huber_loss_backward(grad_output, self, target, reduction, delta) = norm *
    grad_output * clamp(d, -delta, delta), d = self - target. Slope: (|d| < delta).
    Saves: delta, grad_output, reduction, self, target."""

    _param = "delta"
    _aten = "huber_loss_backward"
    _factor = staticmethod(_huber_factor)

    @staticmethod
    def _slope(d, delta):
        return (np.abs(d) < delta).astype(d.dtype)


def _pointwise_backward(node_cls, grad_output, self, target, red, param):
    d = self._data - target._data
    norm = np.asarray(_norm(red, d.size), d.dtype)
    out = Tensor._make(np.asarray(norm * grad_output._data * node_cls._factor(d, param),
                                  d.dtype))
    record(node_cls, out, (grad_output, self, target), grad_output, self, target, red, param)
    return out


def smooth_l1_loss_backward(grad_output, self, target, reduction, beta) -> Tensor:
    """``aten::smooth_l1_loss_backward``, one kernel; node ``SmoothL1LossBackwardBackward0``."""
    return _pointwise_backward(SmoothL1LossBackwardBackward0, grad_output, self, target,
                               reduction, beta)


def huber_loss_backward(grad_output, self, target, reduction, delta) -> Tensor:
    """``aten::huber_loss_backward``, one kernel; node ``HuberLossBackwardBackward0``."""
    return _pointwise_backward(HuberLossBackwardBackward0, grad_output, self, target,
                               reduction, delta)


class SmoothL1LossBackward0(_PointwiseLossNode):
    """z = 0.5 * d² / beta where |d| < beta, else |d| - 0.5 * beta (d = self - target).
    dz/dself = smooth_l1_loss_backward(grad, self, target) = grad * (d / beta where
    |d| <= beta, else sign(d)); dz/dtarget = smooth_l1_loss_backward(grad, target, self);
    ``/ numel`` for mean. Saves: beta, reduction, self, target."""

    _param = "beta"
    _kernel = staticmethod(smooth_l1_loss_backward)


class HuberLossBackward0(_PointwiseLossNode):
    """z = 0.5 * d² where |d| < delta, else delta * (|d| - 0.5 * delta) (d = self - target).
    dz/dself = huber_loss_backward(grad, self, target) = grad * clamp(d, -delta, delta);
    dz/dtarget = huber_loss_backward(grad, target, self); ``/ numel`` for mean.
    Saves: delta, reduction, self, target."""

    _param = "delta"
    _kernel = staticmethod(huber_loss_backward)

    def backward(self, g):
        x, t = self._get("self"), self._get("target")
        if t._data.dtype != x._data.dtype:  # (checked by the backward kernel, not the forward)
            raise RuntimeError(f"Found dtype {_scalar_name(t._data.dtype)} but expected "
                               f"{_scalar_name(x._data.dtype)}")
        return _PointwiseLossNode.backward(self, g)


def _scalar_name(dt: np.dtype) -> str:
    """PyTorch's C++ scalar-type name of a NumPy dtype (``Float``, ``Long``, ``Bool`` ...)."""
    return from_numpy_dtype(dt)._legacy[:-6]


def _loss_dtype(kernel: str, input: Tensor, target: Tensor, into_input: bool) -> np.dtype:
    """The dtype of a smooth L1 / Huber loss, as PyTorch's kernels give it. Both compute in the
    promoted dtype of input and target (float only: NotImplementedError naming ``kernel``);
    smooth L1 returns that dtype, Huber writes into a tensor of the input's dtype
    (``into_input``), so an integer input with a float target is RuntimeError."""
    dt = result_dtype(input, target)
    if into_input and is_float_np(dt) and not is_float_np(input._data.dtype):
        raise RuntimeError(f"result type {_scalar_name(dt)} can't be cast to the desired "
                           f"output type {_scalar_name(input._data.dtype)}")
    if not is_float_np(dt):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_name(dt)}\'')
    return input._data.dtype if into_input else dt


def _pointwise_loss(node_cls, input, target, red, param, fn, kernel, into_input):
    input, target = _broadcast_pair(input, target)
    out_dt = _loss_dtype(kernel, input, target, into_input)
    work_dt = result_dtype(input, target)
    d = input._data.astype(work_dt, copy=False) - target._data.astype(work_dt, copy=False)
    z = np.abs(d)
    out = Tensor._make(_reduce(np.asarray(fn(z, param), work_dt).astype(out_dt, copy=False),
                               red))
    record(node_cls, out, (input, target), input, target, red, param)
    return out


def smooth_l1_loss(input: Tensor, target: Tensor, reduction: str, beta: float) -> Tensor:
    """Smooth L1 (``torch.nn.functional.smooth_l1_loss``): node ``SmoothL1LossBackward0``;
    shapes that differ warn and broadcast. RuntimeError for a negative ``beta``. The loss has
    the promoted dtype of input and target (float32 with an int64 target: float32)."""
    red = reduction_enum(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _pointwise_loss(SmoothL1LossBackward0, input, target, red, beta,
                           lambda z, b: np.where(z < b, 0.5 * z * z / (b or 1), z - 0.5 * b),
                           "smooth_l1_cpu", into_input=False)


def huber_loss(input: Tensor, target: Tensor, reduction: str, delta: float) -> Tensor:
    """Huber loss (``torch.nn.functional.huber_loss``): node ``HuberLossBackward0``; shapes
    that differ warn and broadcast. RuntimeError for ``delta <= 0``. The loss has the input's
    dtype (computed in the promoted one); its backward raises RuntimeError when the target's
    dtype differs from the input's, as PyTorch's ``huber_loss_backward`` does."""
    red = reduction_enum(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return _pointwise_loss(HuberLossBackward0, input, target, red, delta,
                           lambda z, dl: np.where(z < dl, 0.5 * z * z, dl * (z - 0.5 * dl)),
                           "huber_cpu", into_input=True)


# ----------------------------------------------------------------------------- kl_div
class XlogyBackward0(Node):
    """z = self * log(other) (0 where self == 0).
    dz/dself = xlogy(grad, other), 0 where self == 0 and other <= 0 (PyTorch's formula: a
    zero gradient stays 0 where log(other) is nan or -inf); dz/dother = grad * self / other.
    Saves: other, self. Computed in NumPy (no double backward)."""

    def __init__(self, input, other):
        Node.__init__(self)
        self._save("other", other)
        self._save("self", input)

    def backward(self, g):
        no_double_backward(self)
        x, y = self._get("self")._data, self._get("other")._data
        (n_x, _), (n_y, _) = self.next_functions
        with quiet_fp():
            g_x = None
            if n_x:
                g_x = np.where((x == 0) & (y <= 0), 0, _xlogy(g._data, y))
                g_x = Tensor._make(g_x.astype(x.dtype))
            g_y = Tensor._make((g._data * x / y).astype(y.dtype)) if n_y else None
        return g_x, g_y

    @staticmethod
    def jvp(inputs, tangents, outputs, input, other):
        """dz = xlogy(self_t, other).masked_fill((self == 0) & (other <= 0), 0) +
        other_t * self / other."""
        t_x, t_o = (_or_zeros(t, p) for t, p in zip(tangents, inputs))
        x, y = input._data, other._data
        cut = Tensor._make(np.asarray((x == 0) & (y <= 0)))
        return P.masked_fill(xlogy(t_x, other), cut, 0.0) + t_o * input / other


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with quiet_fp():
        return np.where(np.isnan(y), np.nan, np.where(x == 0, 0, x * np.log(y)))


def xlogy(input: Tensor, other: Tensor) -> Tensor:
    """``input * log(other)``, 0 where ``input`` is 0 (``torch.xlogy``); node
    ``XlogyBackward0``. Tensors of one shape and float dtype (what ``kl_div`` needs)."""
    dt = input._data.dtype
    out = Tensor._make(_xlogy(input._data, other._data).astype(dt, copy=False))
    record(XlogyBackward0, out, (input, other), input, other)
    return out


def kl_div(input: Tensor, target: Tensor, red: int, log_target: bool) -> Tensor:
    """``aten::kl_div`` (a composition): ``exp(target) * (target - input)`` with
    ``log_target``, else ``xlogy(target, target) - target * input``; then mean/sum/none."""
    if log_target:
        out = P.exp(target) * (target - input)
    else:
        out = xlogy(target, target) - target * input
    return out if red == 0 else out.mean() if red == 1 else out.sum()
