"""Normalization ops: ``native_batch_norm``, ``native_layer_norm``, ``native_group_norm``.

Mirrors ``aten/src/ATen/native/Normalization.cpp`` (batch norm), ``layer_norm.cpp`` and
``group_norm.cpp`` with the matching entries of ``tools/autograd/derivatives.yaml``. Each op
is one node, as PyTorch's CPU graph records it:

* ``NativeBatchNormBackward0(input, weight, bias)`` saves ``eps``, ``input``,
  ``result1``/``result2`` (the batch mean and inverse standard deviation in training; empty
  tensors in eval), ``running_mean``, ``running_var``, ``training``, ``weight``;
* ``NativeLayerNormBackward0(input, weight, bias)`` saves ``bias``, ``input``,
  ``normalized_shape``, ``result1``/``result2`` (mean and rstd, shaped like the input with the
  normalized dims kept as 1), ``weight``;
* ``NativeGroupNormBackward0(input, weight, bias)`` saves ``C``, ``HxW``, ``N``, ``eps``,
  ``group``, ``input``, ``result1``/``result2`` (mean and rstd, shape (N, group)), ``weight``.

Batch norm runs as PyTorch's CPU kernel does: per-channel sums added in float64, the
elementwise work in the input's dtype (float32 for float16/bfloat16); layer and group norm
compute their statistics in float64. Statistics are stored in the input's dtype. The running
statistics of batch norm are updated in place *without* a version bump, as PyTorch's CPU kernel
writes them.
The backward formulas are computed in NumPy; under ``create_graph=True`` the same formulas run
as tensor ops instead (`_normalize_backward_graph`), with the statistics recomputed from the
saved input, so second-order gradients are right — recorded with ordinary nodes (``MeanBackward1``,
``RsqrtBackward0``, ...) where PyTorch records one ``NativeBatchNormBackwardBackward0``.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd import graph as _graph
from ..autograd.forward_ad import fw_grad, tangent_sum
from ..autograd.graph import Node, record
from ._jvp_util import zero_filled
from ._util import dims_by_stride, empty_for, quiet_fp


def _empty(like: Tensor) -> Tensor:
    return Tensor._make(np.empty((0,), dtype=like._data.dtype))


def _check_dtypes(input: Tensor, *others) -> None:
    for t in others:
        if t is not None and t._data.dtype != input._data.dtype:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _check_per_channel(name: str, t, c: int) -> None:
    if t is not None and t.numel() != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


def _normalize_backward_graph(x: Tensor, gxhat: Tensor, dims: tuple, eps: float):
    """The input gradient of ``xhat = (x - mean) * rstd`` (statistics over ``dims``) given
    dL/dxhat, in tensor ops so that ``create_graph`` records it:
    ``rstd * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat))``. Returns ``(gx, xhat)``."""
    xc = x - x.mean(dims, keepdim=True)
    rstd = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
    xhat = xc * rstd
    dev = gxhat - gxhat.mean(dims, keepdim=True) - xhat * (gxhat * xhat).mean(dims, keepdim=True)
    return dev * rstd, xhat


# ----------------------------------------------------------------------------- batch norm
def _compute_dtype(dt: np.dtype) -> np.dtype:
    """The dtype batch norm's elementwise work runs in, as PyTorch's CPU kernel (its
    ``opmath_type``): the input's own for float32 and float64, float32 for float16 and
    bfloat16 (and float64 for anything else). The per-channel sums always add in float64
    (PyTorch's ``acc_type``)."""
    if dt == np.float32 or dt == np.float64:
        return dt
    return np.dtype(np.float32) if dt.itemsize == 2 else np.dtype(np.float64)


def _per_channel(a: np.ndarray, ct: np.dtype) -> np.ndarray:
    """``a`` (N, C, *spatial) as (N, C, prod(spatial)) in dtype ``ct`` (a view when it can)."""
    return a.reshape(a.shape[0], a.shape[1], -1).astype(ct, copy=False)


def _channel_sum(a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """Σ a (or Σ a * b) per channel of (N, C, S) arrays, added in float64 (one ``einsum``:
    NumPy's ``sum`` over two non-adjacent axes is 2-4x slower)."""
    if b is None:
        return np.einsum("ncs->c", a, dtype=np.float64)
    return np.einsum("ncs,ncs->c", a, b, dtype=np.float64)


def _col(per_channel: np.ndarray, ct: np.dtype) -> np.ndarray:
    """A per-channel vector (C,) as a (C, 1) column in dtype ``ct``, to broadcast over (N, C,
    S)."""
    return per_channel.astype(ct)[:, None]


class NativeBatchNormBackward0(Node):
    """z = (input - mean) * invstd * weight + bias, per channel (dim 1).

    Training (batch statistics, ``xhat = (input - mean) * invstd``, n elements per channel):
    dz/dinput = weight * invstd * (grad - mean(grad) - xhat * mean(grad * xhat));
    eval (running statistics): dz/dinput = grad * weight / sqrt(running_var + eps).
    dz/dweight = Σ grad * xhat, dz/dbias = Σ grad (sums over every dim but 1).
    Saves: eps, input, result1 (save_mean), result2 (save_invstd), running_mean, running_var,
    training, weight.
    """

    def __init__(self, input, weight, running_mean, running_var, training, eps, result1=None,
                 result2=None):
        Node.__init__(self)
        self._save("eps", eps)
        self._save("input", input)
        if result1 is not None:
            self._save("result1", result1)
            self._save("result2", result2)
        self._save("running_mean", running_mean)
        self._save("running_var", running_var)
        self._save("training", training)
        self._save("weight", weight)

    def backward(self, g):
        if grad_mode.is_grad_enabled():
            return self._backward_graph(g)
        # PyTorch's CPU kernel (batch_norm_cpu_backward_contiguous_impl): two sums per
        # channel, Σ grad and Σ grad * (input - mean), then one elementwise pass
        x = self._get("input")._data
        w = self._get("weight")
        ct = _compute_dtype(x.dtype)
        x3, g3 = _per_channel(x, ct), _per_channel(g._data, ct)  # (N, C, spatial)
        if self._saved["training"]:
            mean = self._get("result1")._data.astype(np.float64)
            invstd = self._get("result2")._data.astype(np.float64)
        else:
            mean = self._get("running_mean")._data.astype(np.float64)
            var = self._get("running_var")._data.astype(np.float64)
            invstd = 1.0 / np.sqrt(var + self._saved["eps"])
        xc = x3 - _col(mean, ct)  # input - mean
        sum_g = _channel_sum(g3)
        dot = _channel_sum(g3, xc)  # Σ grad * (input - mean)
        scale = invstd if w is None else invstd * w._data.astype(np.float64)
        nf = self.next_functions
        gx = gw = gb = None
        if nf[0][0] is not None:
            if self._saved["training"]:  # grad - mean(grad) - xhat * mean(grad * xhat)
                n = x3.shape[0] * x3.shape[2]
                dev = g3 - _col(sum_g / n, ct) - xc * _col(dot * invstd * invstd / n, ct)
            else:
                dev = g3
            gx = dev * _col(scale, ct)
            gx = Tensor._make(gx.reshape(x.shape).astype(x.dtype, copy=False))
        if nf[1][0] is not None:
            gw = Tensor._make((dot * invstd).astype(x.dtype))  # Σ grad * xhat
        if nf[2][0] is not None:
            gb = Tensor._make(sum_g.astype(x.dtype))
        return gx, gw, gb

    def _backward_graph(self, g):
        """The same derivatives in tensor ops (create_graph)."""
        x, w = self._get("input"), self._get("weight")
        dims = (0,) + tuple(range(2, x.ndim))
        bshape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        if self._saved["training"]:
            gx, xhat = _normalize_backward_graph(x, g, dims, self._saved["eps"])
            if w is not None:
                gx = gx * w.reshape(bshape)
        else:
            invstd = (self._get("running_var") + self._saved["eps"]).rsqrt().reshape(bshape)
            xhat = (x - self._get("running_mean").reshape(bshape)) * invstd
            gx = g * invstd if w is None else g * (invstd * w.reshape(bshape))
        gw = (g * xhat).sum(dims) if self.next_functions[1][0] is not None else None
        gb = g.sum(dims) if self.next_functions[2][0] is not None else None
        return gx, gw, gb

    @staticmethod
    def jvp(inputs, tangents, outputs, input, weight, running_mean, running_var, training, eps,
            result1, result2):
        """PyTorch's ``batch_norm_jvp``, per channel (dim 1; means and sums over the others,
        n elements each): training, with the batch's mean and invstd,
        ``dxhat = (input_t - mean(input_t)) * invstd + (input - mean) * invstd_t``,
        ``invstd_t = -invstd^3 * Σ (input_t - mean(input_t)) * (input - mean) / n``;
        eval ``dxhat = input_t * invstd`` (running statistics); then
        dz = dxhat * weight + (input - mean) * invstd * weight_t + bias_t."""
        tangents = zero_filled(inputs, tangents)
        _, tw, tb = tangents
        view = (1, input.shape[1]) + (1,) * (input.ndim - 2)
        dims = (0,) + tuple(range(2, input.ndim))
        if training:
            mean, invstd = result1.view(view), result2.view(view)
        else:
            mean = running_mean.view(view)
            invstd = (1 / (running_var + eps).sqrt()).view(view)
        return _affine_jvp(_normalized_jvp(input, tangents[0], mean, invstd, dims, training),
                           lambda: (input - mean) * invstd, weight, tw, tb, view)


def _normalized_jvp(x, tx, mean, invstd, dims, batch_stats: bool):
    """The tangent of ``xhat = (x - mean) * invstd``: with statistics of the batch over
    ``dims`` (PyTorch's formula: ``(tx - mean(tx)) * invstd + (x - mean) * invstd_t``,
    ``invstd_t = -invstd^3 * Σ (tx - mean(tx)) * (x - mean) / n``), or fixed ones
    (``tx * invstd``); None when ``tx`` is."""
    if tx is None:
        return None
    if not batch_stats:
        return tx * invstd
    n = math.prod(x.shape[d] for d in dims)
    centred = tx - tx.mean(dims, keepdim=True)
    invstd_t = -invstd.pow(3) * (centred * (x - mean)).sum(dims, keepdim=True) / n
    return centred * invstd + (x - mean) * invstd_t


def _affine_jvp(dxhat, xhat, weight, tw, tb, view):
    """``dxhat * weight + xhat() * weight_t + bias_t`` (``xhat()``: the normalised input,
    made only when needed; weight, weight_t and bias_t viewed as ``view``; a missing
    tangent's term left out)."""
    result = dxhat
    if weight is not None:
        if result is not None:
            result = result * weight.view(view)
        if tw is not None:
            result = tangent_sum(result, xhat() * tw.view(view))
    return tangent_sum(result, None if tb is None else tb.view(view))


def native_batch_norm(input: Tensor, weight, bias, running_mean, running_var, training: bool,
                      momentum: float, eps: float) -> Tensor:
    """Batch normalisation over dim 1 (``torch.batch_norm`` on the CPU).

    Shapes: input (N, C, *), weight/bias/running_mean/running_var (C,) or None. In training
    the batch statistics normalise the input and, when given, the running statistics become
    ``(1 - momentum) * running + momentum * batch`` (the variance unbiased: ``* n / (n - 1)``),
    in place and without a version bump. In eval the running statistics normalise. Node
    ``NativeBatchNormBackward0(input, weight, bias)``; an input of no elements takes
    `_batch_norm_of_nothing` instead.
    Raises RuntimeError for mixed dtypes, a per-channel tensor of the wrong size (an input of
    fewer than 2 dims has 0 channels), or eval without running statistics; then IndexError for
    a 1-D input (its dim 1 is out of range) and RuntimeError for a 0-D one.
    """
    if input.numel() == 0:  # before any check, as ATen's _batch_norm_impl_index
        return _batch_norm_of_nothing(input, weight, bias)
    # an input of fewer than 2 dims counts 0 channels for the per-channel checks; only after
    # them (and the running statistics' check) does reading its dim 1 fail, as in ATen
    c = input.shape[1] if input.ndim >= 2 else 0
    _check_per_channel("running_mean", running_mean, c)
    _check_per_channel("running_var", running_var, c)
    _check_per_channel("weight", weight, c)
    _check_per_channel("bias", bias, c)
    if not training:
        for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
            if stat is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    if input.ndim == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if input.ndim == 0:
        raise RuntimeError("batch_norm(): expected input to have at least 2 dims, but got 0")
    _check_dtypes(input, weight, bias, running_mean, running_var)
    dt = input._data.dtype
    ct = _compute_dtype(dt)
    x3 = _per_channel(input._data, ct)  # (N, C, spatial)
    with quiet_fp():
        if training:
            n = x3.shape[0] * x3.shape[2]
            mean = _channel_sum(x3) / n
            xc = x3 - _col(mean, ct)
            var = _channel_sum(xc, xc) / n  # biased, as the normalisation uses
            invstd = 1.0 / np.sqrt(var + eps)
            if running_mean is not None:
                running_mean._data[...] = (1 - momentum) * running_mean._data + momentum * mean
            if running_var is not None:
                unbiased = var * n / (n - 1) if n > 1 else np.full_like(var, np.inf)
                running_var._data[...] = (1 - momentum) * running_var._data + momentum * unbiased
            save_mean = Tensor._make(mean.astype(dt))
            save_invstd = Tensor._make(invstd.astype(dt))
        else:
            mean = running_mean._data.astype(np.float64)
            invstd = 1.0 / np.sqrt(running_var._data.astype(np.float64) + eps)
            save_mean, save_invstd = _empty(input), _empty(input)
            xc = x3 - _col(mean, ct)
        # (input - mean) * (invstd * weight) + bias: the per-channel factor made once
        scale = invstd if weight is None else invstd * weight._data.astype(np.float64)
        y = xc * _col(scale, ct)
        if bias is not None:
            y += _col(bias._data, ct)  # (y is new: in place)
        y = y.reshape(input.shape)
    out = Tensor._make(_batch_norm_result(y.astype(dt, copy=False), input))
    record(NativeBatchNormBackward0, out, (input, weight, bias), input, weight, running_mean,
           running_var, training, eps, save_mean, save_invstd)
    return out


def _batch_norm_result(y: np.ndarray, input: Tensor) -> np.ndarray:
    """``y`` laid out as PyTorch's CPU batch norm allocates its result: in the input's
    suggested memory format, so a channels-last input (4-D or 5-D, channels innermost) gives
    a channels-last result and every other layout a contiguous one."""
    a = input._data
    channels_last = {4: [1, 3, 2, 0], 5: [1, 4, 3, 2, 0]}.get(a.ndim)
    if channels_last is not None and a.size and dims_by_stride(
            a.shape, [[st // a.itemsize for st in a.strides]]) == channels_last:
        out = empty_for(a.shape, y.dtype, a)
        out[...] = y
        return out
    return np.asarray(y, order="C")


def _batch_norm_of_nothing(input: Tensor, weight, bias) -> Tensor:
    """PyTorch's batch norm of an input with no elements: ``input.clone()`` (not the input
    itself, so the graph goes on), times ``weight[0]`` and plus ``bias[0]`` when they are
    given (``CloneBackward0``, ``MulBackward0``, ``AddBackward0`` nodes). Nothing is checked
    (sizes, dtypes, running statistics in eval) and the running statistics stay as they are;
    a weight or bias of no elements raises the IndexError of ``select`` (ATen's ``[0]``)."""
    out = input.clone()
    if weight is not None:
        out = out * weight.select(0, 0)
    if bias is not None:
        out = out + bias.select(0, 0)
    return out


# ----------------------------------------------------------------------------- layer norm
def _row_mean(a: np.ndarray) -> np.ndarray:
    """The mean of each row of a 2-D array, kept as a column: NaN for rows of no elements,
    without NumPy's "Mean of empty slice" warning (PyTorch warns nothing)."""
    with quiet_fp():
        return a.sum(axis=1, keepdims=True) / a.shape[1]


def _normalize_rows(x: np.ndarray, eps: float):
    """Mean and rstd of each row of a 2-D float64 array, and the normalised rows."""
    mean = _row_mean(x)
    with quiet_fp():
        rstd = 1.0 / np.sqrt(_row_mean((x - mean) ** 2) + eps)
        return mean, rstd, (x - mean) * rstd


def _rows_backward(gxhat: np.ndarray, xhat: np.ndarray, rstd: np.ndarray) -> np.ndarray:
    """dL/dx of ``xhat = (x - mean(x)) * rstd`` per row, given dL/dxhat (float64, 2-D)."""
    return rstd * (gxhat - _row_mean(gxhat) - xhat * _row_mean(gxhat * xhat))


class NativeLayerNormBackward0(Node):
    """z = (input - mean) * rstd * weight + bias over the last ``len(normalized_shape)`` dims.

    With ``xhat = (input - mean) * rstd`` and ``gxhat = grad * weight``:
    dz/dinput = rstd * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat)) (means over the
    normalized dims); dz/dweight = Σ grad * xhat, dz/dbias = Σ grad (sums over the leading
    dims). Saves: bias, input, normalized_shape, result1 (mean), result2 (rstd), weight.
    """

    def __init__(self, input, normalized_shape, weight, bias, eps, result1=None, result2=None):
        Node.__init__(self)
        self._save("bias", bias)
        self._save("input", input)
        self._save("normalized_shape", tuple(normalized_shape))
        if result1 is not None:
            self._save("result1", result1)
            self._save("result2", result2)
        self._save("weight", weight)
        self._eps = eps  # (not saved by PyTorch; the create_graph path recomputes rstd)

    def backward(self, g):
        if grad_mode.is_grad_enabled():
            return self._backward_graph(g)
        x = self._get("input")._data
        w = self._get("weight")
        k = len(self._saved["normalized_shape"])
        m = math.prod(self._saved["normalized_shape"])
        rows = math.prod(x.shape[:x.ndim - k])  # (rows of no elements too)
        mean = self._get("result1")._data.astype(np.float64).reshape(rows, 1)
        rstd = self._get("result2")._data.astype(np.float64).reshape(rows, 1)
        xhat = (x.astype(np.float64).reshape(rows, m) - mean) * rstd
        gd = g._data.astype(np.float64).reshape(rows, m)
        nf = self.next_functions
        gx = gw = gb = None
        if nf[0][0] is not None:
            gxhat = gd if w is None else gd * w._data.astype(np.float64).reshape(1, m)
            gx = Tensor._make(_rows_backward(gxhat, xhat, rstd).reshape(x.shape).astype(x.dtype))
        if nf[1][0] is not None:
            gw = Tensor._make((gd * xhat).sum(axis=0).reshape(w.shape).astype(x.dtype))
        if nf[2][0] is not None:
            gb = Tensor._make(gd.sum(axis=0).reshape(self._get("bias").shape).astype(x.dtype))
        return gx, gw, gb

    def _backward_graph(self, g):
        """The same derivatives in tensor ops (create_graph), on (rows, M) reshapes."""
        x, w, b = self._get("input"), self._get("weight"), self._get("bias")
        k = len(self._saved["normalized_shape"])
        m = math.prod(self._saved["normalized_shape"])
        rows = math.prod(x.shape[:x.ndim - k])  # (rows of no elements too)
        x2, g2 = x.reshape(rows, m), g.reshape(rows, m)
        gxhat = g2 if w is None else g2 * w.reshape(1, m)
        gx, xhat = _normalize_backward_graph(x2, gxhat, (1,), self._eps)
        nf = self.next_functions
        gw = (g2 * xhat).sum(0).reshape(w.shape) if nf[1][0] is not None else None
        gb = g2.sum(0).reshape(b.shape) if nf[2][0] is not None else None
        return gx.reshape(x.shape), gw, gb

    @staticmethod
    def jvp(inputs, tangents, outputs, input, normalized_shape, weight, bias, eps, result1,
            result2):
        """PyTorch's ``layer_norm_jvp``: batch norm's training formula with the statistics
        of each row (the normalized dims): ``dxhat = (input_t - mean(input_t)) * rstd +
        (input - mean) * rstd_t``, ``rstd_t = -rstd^3 * Σ (input_t - mean(input_t)) *
        (input - mean) / M``; dz = dxhat * weight + (input - mean) * rstd * weight_t +
        bias_t."""
        tangents = zero_filled(inputs, tangents)
        _, tw, tb = tangents
        k = len(normalized_shape)
        dims = tuple(range(input.ndim - k, input.ndim))
        view = (1,) * (input.ndim - k) + tuple(normalized_shape)
        return _affine_jvp(_normalized_jvp(input, tangents[0], result1, result2, dims, True),
                           lambda: (input - result1) * result2, weight, tw, tb, view)


def native_layer_norm(input: Tensor, normalized_shape, weight, bias, eps: float) -> Tensor:
    """Layer normalisation over the trailing ``normalized_shape`` dims (``torch.layer_norm``).

    Shapes: input (*, *normalized_shape); weight and bias ``normalized_shape`` or None; output
    like input. Node ``NativeLayerNormBackward0(input, weight, bias)``. Raises RuntimeError
    when the input's trailing dims or weight/bias do not match ``normalized_shape``.
    """
    shape = tuple(int(s) for s in normalized_shape)
    k = len(shape)
    if k == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")
    if input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in shape)}], but got input of size"
                           f"{list(input.shape)}")
    _check_dtypes(input, weight, bias)
    dt = input._data.dtype
    m = math.prod(shape)
    lead = tuple(input.shape[:input.ndim - k])
    rows = math.prod(lead)
    with quiet_fp():
        mean, rstd, y = _normalize_rows(input._data.astype(np.float64).reshape(rows, m), eps)
    if not m:  # rows of no elements: PyTorch's kernel gives mean 0 and rstd nan
        mean = np.zeros_like(mean)
    with quiet_fp():
        if weight is not None:
            y = y * weight._data.astype(np.float64).reshape(1, m)
        if bias is not None:
            y = y + bias._data.astype(np.float64).reshape(1, m)
    out = Tensor._make(np.ascontiguousarray(y.reshape(input.shape), dtype=dt))  # (as PyTorch's)
    stat_shape = lead + (1,) * k
    record(NativeLayerNormBackward0, out, (input, weight, bias), input, shape, weight, bias, eps,
           Tensor._make(mean.reshape(stat_shape).astype(dt)),
           Tensor._make(rstd.reshape(stat_shape).astype(dt)))
    return out


# ----------------------------------------------------------------------------- group norm
class NativeGroupNormBackward0(Node):
    """z = (input - mean_g) * rstd_g * weight[c] + bias[c], statistics per (sample, group).

    With ``xhat`` the input normalised per group and ``gxhat = grad * weight[c]``:
    dz/dinput = rstd * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat)) (means over each
    group's C/group * HxW elements); dz/dweight[c] = Σ grad * xhat, dz/dbias[c] = Σ grad
    (sums over N and the spatial dims). Saves: C, HxW, N, eps, group, input, result1 (mean),
    result2 (rstd), weight.
    """

    def __init__(self, input, weight, n, c, hxw, group, eps, result1=None, result2=None):
        Node.__init__(self)
        self._save("C", c)
        self._save("HxW", hxw)
        self._save("N", n)
        self._save("eps", eps)
        self._save("group", group)
        self._save("input", input)
        if result1 is not None:
            self._save("result1", result1)
            self._save("result2", result2)
        self._save("weight", weight)

    def backward(self, g):
        if grad_mode.is_grad_enabled():  # (create_graph: differentiable, forward AD too)
            return self._backward_graph(g)
        if _graph.fw_on and any(fw_grad(t) is not None for t in (
                g, self._get("input"), self._get("weight"), self._get("result1"),
                self._get("result2")) if t is not None):  # (forward over reverse without
            raise NotImplementedError(  # create_graph: PyTorch's kernel has no formula)
                "Trying to use forward AD with aten::native_group_norm_backward that does not "
                "support it.")
        s = self._saved
        n, c, hxw, grp = s["N"], s["C"], s["HxW"], s["group"]
        per_group = c // grp * hxw  # (not -1: a reshape of no elements cannot infer it)
        x = self._get("input")._data
        w = self._get("weight")
        mean = self._get("result1")._data.astype(np.float64).reshape(n * grp, 1)
        rstd = self._get("result2")._data.astype(np.float64).reshape(n * grp, 1)
        xhat = (x.astype(np.float64).reshape(n * grp, per_group) - mean) * rstd
        gd = g._data.astype(np.float64).reshape(n, c, hxw)
        nf = self.next_functions
        gx = gw = gb = None
        if nf[0][0] is not None:
            gxhat = gd if w is None else gd * w._data.astype(np.float64).reshape(1, c, 1)
            gxr = _rows_backward(gxhat.reshape(n * grp, per_group), xhat, rstd)
            gx = Tensor._make(gxr.reshape(x.shape).astype(x.dtype))
        if nf[1][0] is not None:
            gw = Tensor._make((gd * xhat.reshape(n, c, hxw)).sum(axis=(0, 2)).astype(x.dtype))
        if nf[2][0] is not None:
            gb = Tensor._make(gd.sum(axis=(0, 2)).astype(x.dtype))
        return gx, gw, gb

    def _backward_graph(self, g):
        """The same derivatives in tensor ops (create_graph), on (N, group, -1) reshapes."""
        s = self._saved
        n, c, hxw, grp = s["N"], s["C"], s["HxW"], s["group"]
        x, w = self._get("input"), self._get("weight")
        per_group = c // grp * hxw  # (not -1: a reshape of no elements cannot infer it)
        g3 = g.reshape(n, c, hxw)
        gxhat = (g3 if w is None else g3 * w.reshape(1, c, 1)).reshape(n, grp, per_group)
        gx, xhat = _normalize_backward_graph(x.reshape(n, grp, per_group), gxhat, (2,),
                                             s["eps"])
        nf = self.next_functions
        gw = (g3 * xhat.reshape(n, c, hxw)).sum((0, 2)) if nf[1][0] is not None else None
        gb = g3.sum((0, 2)) if nf[2][0] is not None else None
        return gx.reshape(x.shape), gw, gb

    @staticmethod
    def jvp(inputs, tangents, outputs, input, weight, n, c, hxw, group, eps, result1, result2):
        """PyTorch's ``group_norm_jvp``: batch norm's training formula on the input viewed as
        (1, N * group, C / group * HxW) (statistics per sample and group), viewed back;
        dz = dxhat * weight[c] + xhat * weight_t[c] + bias_t[c]. PyTorch's mean and rstd are
        differentiable outputs of the op: when the input requires grad (and grad mode is on)
        they are recomputed here in tensor ops, so that the tangent's gradient reaches the
        input through them too."""
        tangents = zero_filled(inputs, tangents)
        _, tw, tb = tangents
        per_group = c // group * hxw  # (not -1: a reshape of no elements cannot infer it)
        rows = (1, n * group, per_group)
        x = input.reshape(rows)
        if input.requires_grad and grad_mode.is_grad_enabled():
            mean = x.mean(2, keepdim=True)
            rstd = ((x - mean).pow(2).mean(2, keepdim=True) + eps).rsqrt()
        else:
            mean, rstd = result1.reshape(1, n * group, 1), result2.reshape(1, n * group, 1)
        tx = tangents[0]
        dxhat = _normalized_jvp(x, None if tx is None else tx.reshape(rows), mean, rstd, (0, 2),
                                True)
        return _affine_jvp(None if dxhat is None else dxhat.reshape(input.shape),
                           lambda: ((x - mean) * rstd).reshape(input.shape), weight, tw, tb,
                           (1, c) + (1,) * (input.ndim - 2))


def native_group_norm(input: Tensor, num_groups: int, weight, bias, eps: float) -> Tensor:
    """Group normalisation (``torch.group_norm``): channels split into ``num_groups`` groups,
    each normalised per sample, then scaled and shifted per channel.

    Shapes: input (N, C, *), C divisible by ``num_groups``; weight/bias (C,) or None. Node
    ``NativeGroupNormBackward0(input, weight, bias)``. Raises RuntimeError for C not
    divisible by ``num_groups`` or a weight/bias of the wrong size.
    """
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(t.shape)} "
                               f"and input of shape {list(input.shape)}")
    _check_dtypes(input, weight, bias)
    dt = input._data.dtype
    hxw = math.prod(input.shape[2:])
    per_group = c // num_groups * hxw  # (not -1: a reshape of no elements cannot infer it)
    with quiet_fp():
        mean, rstd, y = _normalize_rows(
            input._data.astype(np.float64).reshape(n * num_groups, per_group), eps)
        y = y.reshape(n, c, hxw)
        if weight is not None:
            y = y * weight._data.astype(np.float64).reshape(1, c, 1)
        if bias is not None:
            y = y + bias._data.astype(np.float64).reshape(1, c, 1)
    out = Tensor._make(y.reshape(input.shape).astype(dt))
    record(NativeGroupNormBackward0, out, (input, weight, bias), input, weight, n, c, hxw,
           num_groups, eps, Tensor._make(mean.reshape(n, num_groups).astype(dt)),
           Tensor._make(rstd.reshape(n, num_groups).astype(dt)))
    return out


# ----------------------------------------------------------------------------- instance norm
def instance_norm(input: Tensor, weight, bias, running_mean, running_var,
                  use_input_stats: bool, momentum: float, eps: float) -> Tensor:
    """Instance normalisation (``torch.instance_norm``, composite in ATen): each (sample,
    channel) plane normalised on its own, written as one batch norm over the input viewed as
    (1, N * C, *) with weight, bias and running statistics repeated N times.

    Graph: ``ViewBackward0(NativeBatchNormBackward0(ViewBackward0(input),
    RepeatBackward0(weight), RepeatBackward0(bias)))``. With ``use_input_stats``, given running
    statistics are then overwritten (``copy_``, one version bump) with the mean over the batch
    of the updated repeated ones.
    """
    from ..autograd.grad_mode import no_grad

    b, c = input.shape[0], input.shape[1]
    shape = (1, b * c) + tuple(input.shape[2:])
    w = weight.repeat(b) if weight is not None else None
    bi = bias.repeat(b) if bias is not None else None
    rm = running_mean.repeat(b) if running_mean is not None else None
    rv = running_var.repeat(b) if running_var is not None else None
    out = native_batch_norm(input.contiguous().view(shape), w, bi, rm, rv, use_input_stats,
                            momentum, eps)
    if use_input_stats:  # (in eval the statistics are only read)
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(b, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(b, c).mean(0))
    return out.view(tuple(input.shape))
