"""``scaled_dot_product_attention``: PyTorch's two CPU paths.

Mirrors ``aten/src/ATen/native/transformers/attention.cpp`` (``_fused_sdp_choice_cpp``,
``_scaled_dot_product_attention_math``) and ``sdp_utils_cpp``. For 4-D query/key/value with
the same batch and head dims and one head size, no dropout and no mask that requires grad
(a 2-D or 4-D mask),
PyTorch 2.13 runs its fused CPU flash kernel: one node,
``ScaledDotProductFlashAttentionForCpuBackward0``,
saving query, key, value, output, logsumexp (``(N, H, L)``), attn_mask (a bool mask as
0/-inf floats), dropout_p, is_causal and scale. Otherwise it runs the math path, a composition:
``q * sqrt(scale)``, ``k.transpose(-2, -1) * sqrt(scale)``, ``matmul``, ``+ mask``,
``_safe_softmax`` (``SafeSoftmaxBackward0``: a softmax that gives 0 on rows that are fully
masked), dropout, ``matmul`` with value.

The fused node's backward is computed in NumPy: double backward through it raises
NotImplementedError.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode, graph
from ..autograd.forward_ad import fw_grad
from ..autograd.graph import Node, record
from ._util import empty_preserving, quiet_fp, saved_int
from .activation import _softmax_backward_data
from .linalg import matmul
from .nn_activation import no_double_backward
from .scalar import mul_scalar


# ----------------------------------------------------------------------------- _safe_softmax
class SafeSoftmaxBackward0(Node):
    """z = softmax(self, dim), 0 on slices that are all -inf.
    dz/dself = _softmax_backward_data(grad, result, dim) (0 where the result is 0).
    Saves: dim, result."""

    def __init__(self, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._dim, self._d = dim, d

    def backward(self, g):
        return (_softmax_backward_data(g, self._get("result"), self._dim, self._d),)

    @staticmethod
    def jvp(inputs, tangents, outputs, dim, d):
        """dz = result * (self_t - lse_t), ``lse_t = Σ exp(self - max) * self_t / Σ exp(self -
        max)`` along ``dim`` (the tangent of logsumexp), 0 on slices that are all -inf (as
        PyTorch's ``safe_logsumexp_jvp``). The products are taken in place on the
        exponential, as PyTorch's ``logsumexp_jvp`` does: so, as there, the gradient of this
        tangent with respect to a primal that requires grad raises (the saved exponential was
        modified)."""
        x, t = inputs[0], tangents[0]
        e = (x - x.amax(d, keepdim=True)).exp() if x.numel() else x.exp()
        sumexp = e.sum(d, keepdim=True)
        e.mul_(t)
        lse_t = e.sum(d, keepdim=True)
        lse_t.div_(sumexp)
        lse_t = lse_t.masked_fill((x == -math.inf).all(d, keepdim=True), 0)
        return outputs[0] * (t - lse_t)


def _safe_softmax_np(x: np.ndarray, d: int) -> np.ndarray:
    with quiet_fp():
        m = x.max(axis=d, keepdims=True)
        e = np.exp(x - np.where(np.isfinite(m), m, 0))
        s = e.sum(axis=d, keepdims=True)
        out = np.where(s == 0, 0, e / np.where(s == 0, 1, s))
    return out.astype(x.dtype, copy=False)


def safe_softmax(input: Tensor, dim: int) -> Tensor:
    """``torch._safe_softmax``: softmax along ``dim`` that is 0 (not NaN) on fully masked
    (all ``-inf``) slices. Node ``SafeSoftmaxBackward0``."""
    d = dim % input.ndim
    out = Tensor._make(_safe_softmax_np(input._data, d))
    node = record(SafeSoftmaxBackward0, out, (input,), dim, d)
    if node:
        node._save("result", out, is_output=True)
    return out


# ----------------------------------------------------------------------------- fused node
class ScaledDotProductFlashAttentionForCpuBackward0(Node):
    """z = softmax(scale * query @ key^T + attn_mask) @ value (per batch and head).
    With P that softmax and g the incoming gradient: dvalue = P^T @ g; dS = P * (g @ value^T -
    rowsum(g * output)); dquery = scale * dS @ key; dkey = scale * dS^T @ query.
    Saves: attn_mask, dropout_p, is_causal, key, logsumexp, output, query, scale, value."""

    def __init__(self, query, key, value, logsumexp, attn_mask, dropout_p, is_causal, scale,
                 mask_arr, scale_value):
        Node.__init__(self)
        self._save("attn_mask", attn_mask)
        self._save("dropout_p", dropout_p)
        self._save("is_causal", is_causal)
        self._save("key", key)
        self._save("logsumexp", logsumexp)
        self._save("query", query)
        self._save("scale", scale)
        self._save("value", value)
        self._mask, self._scale = mask_arr, scale_value

    @staticmethod
    def jvp(inputs, tangents, outputs, *args):
        """Not supported, as in PyTorch (its fused CPU kernel has no forward formula: the
        math path's composition, which does have one, runs only when not fused)."""
        raise_no_forward_ad("_scaled_dot_product_flash_attention_for_cpu")

    def backward(self, g):
        no_double_backward(self)
        q, k, v = (self._get(n)._data for n in ("query", "key", "value"))
        out, lse = self._get("output")._data, self._get("logsumexp")._data
        s = _scores(q, k, self._scale, self._mask)
        with quiet_fp():
            p = np.where(np.isneginf(s), 0, np.exp(s - lse[..., None]))
        gd = g._data
        dv = np.swapaxes(p, -1, -2) @ gd
        ds = p * (gd @ np.swapaxes(v, -1, -2) - (gd * out).sum(-1, keepdims=True))
        dq = (ds @ k) * self._scale
        dk = (np.swapaxes(ds, -1, -2) @ q) * self._scale
        return tuple(Tensor._make(a.astype(q.dtype, copy=False)) for a in (dq, dk, dv))


def raise_no_forward_ad(op: str):
    """Raise PyTorch's NotImplementedError for an op that has no forward-AD formula in
    PyTorch either (``op``: its ATen name)."""
    raise NotImplementedError(
        f"Trying to use forward AD with {op} that does not support it because it has not "
        "been implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/"
        "pytorch/issues/new?template=feature-request.yml so that we can prioritize its "
        "implementation or submit a PR adding the implementation to derivatives.yaml")


def _scores(q, k, scale, mask):
    s = (q @ np.swapaxes(k, -1, -2)) * np.asarray(scale, q.dtype)
    return s if mask is None else s + mask


def _flash(query, key, value, attn_mask, mask_arr, is_causal, scale, scale_value):
    if attn_mask is not None and graph.fw_on and fw_grad(attn_mask) is not None:
        # (the mask is no input of the node, so record would not see its tangent)
        raise_no_forward_ad("_scaled_dot_product_flash_attention_for_cpu")
    q, k, v = query._data, key._data, value._data
    s = _scores(q, k, scale_value, mask_arr)
    with quiet_fp():
        m = s.max(-1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        total = np.exp(s - m).sum(-1, keepdims=True)
        lse = np.where(total == 0, 0, np.log(np.where(total == 0, 1, total)) + m)[..., 0]
        p = np.where(np.isneginf(s), 0, np.exp(s - lse[..., None]))
    res = empty_preserving(q)  # (laid out as the query, as PyTorch's kernel does)
    res[...] = p @ v
    out = Tensor._make(res)
    logsumexp = Tensor._make(lse.astype(q.dtype, copy=False))
    saved_mask = None if attn_mask is None else Tensor._make(
        _float_mask(attn_mask, q.dtype, q.shape[-2], k.shape[-2], False))
    node = record(ScaledDotProductFlashAttentionForCpuBackward0, out, (query, key, value),
                  query, key, value, logsumexp, saved_mask, 0.0, is_causal, scale, mask_arr,
                  scale_value)
    if node:
        node._save("output", out, is_output=True)
    return out


# ----------------------------------------------------------------------------- entry point
def _float_mask(attn_mask, dtype, L, S, is_causal):
    """The additive mask as a NumPy array (bool: 0 where True, -inf where False), with the
    causal (top-left aligned lower-triangular) mask folded in; None when there is none."""
    mask = None
    if attn_mask is not None:
        a = attn_mask._data
        mask = np.where(a, 0, -np.inf).astype(dtype) if a.dtype == np.bool_ else a.astype(dtype)
    if is_causal:
        causal = np.where(np.tril(np.ones((L, S), dtype=bool)), 0, -np.inf).astype(dtype)
        mask = causal if mask is None else mask + causal
    return mask


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, dropout_fn=None) -> Tensor:
    """See `minigrad.nn.functional.scaled_dot_product_attention`. ``dropout_fn(p)`` applies
    dropout to the attention weights on the math path."""
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query.dtype._legacy[:-6].lower()} key.dtype: {key.dtype._legacy[:-6].lower()} "
            f"and value.dtype: {value.dtype._legacy[:-6].lower()} instead.")
    E = query.shape[-1]
    scale_value = 1.0 / math.sqrt(E) if scale is None else float(scale)
    L, S = query.shape[-2], key.shape[-2]
    mask_needs_grad = attn_mask is not None and attn_mask.requires_grad and \
        grad_mode.is_grad_enabled()
    fused = (query.ndim == key.ndim == value.ndim == 4
             and query.shape[:2] == key.shape[:2] == value.shape[:2]
             and E == key.shape[-1] == value.shape[-1] and dropout_p == 0.0
             and not mask_needs_grad and key.shape[-2] == value.shape[-2]
             and (attn_mask is None or attn_mask.ndim in (2, 4)))
    if fused:
        mask_arr = _float_mask(attn_mask, query._data.dtype, L, S, is_causal)
        if mask_arr is not None:
            np.broadcast_shapes(mask_arr.shape, (L, S))  # (a bad mask shape fails here)
        return _flash(query, key, value, attn_mask, mask_arr, is_causal, scale, scale_value)
    # the math path (attention.cpp's _scaled_dot_product_attention_math)
    root = math.sqrt(scale_value)
    q = mul_scalar(query, root)
    k = mul_scalar(key.transpose(-2, -1), root)
    attn = matmul(q, k)
    mask = attn_mask
    if is_causal:
        c = Tensor._make(_float_mask(None, query._data.dtype, L, S, True))
        mask = c if mask is None else (
            Tensor._make(_float_mask(mask, query._data.dtype, L, S, True)) if
            not mask.requires_grad else mask + c)
    if mask is not None:
        if mask._data.dtype == np.bool_:
            mask = Tensor._make(_float_mask(mask, query._data.dtype, L, S, False))
        attn = attn + mask
    attn = safe_softmax(attn, -1)
    if dropout_p > 0.0 and dropout_fn is not None:
        attn = dropout_fn(attn, dropout_p)
    return matmul(attn, value)
