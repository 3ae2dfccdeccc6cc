"""``F.multi_head_attention_forward``: the composition ``nn.MultiheadAttention`` runs.

Mirrors ``multi_head_attention_forward``, ``_in_projection_packed``, ``_in_projection``,
``_canonical_mask`` and ``_mha_shape_check`` of ``torch/nn/functional.py`` step by step, so
the recorded graph is PyTorch's training-mode one: the packed in-projection (``linear`` then
``unflatten``/``unsqueeze``/``transpose``/``squeeze``/``contiguous`` for self-attention),
per-head views, then with ``need_weights`` ``baddbmm``/``bmm``, ``softmax``, ``bmm`` and the
mean over heads; without it ``scaled_dot_product_attention``. (PyTorch's fused
``_native_multi_head_attention`` fast path runs only in eval/no-grad; it is not mirrored.)
"""

from __future__ import annotations

import math

from .. import _creation
from .._ops.linalg_more import baddbmm
from .._ops.shape import cat as _cat
from .._tensor import Tensor


def _is_float(t: Tensor) -> bool:
    return t._data.dtype.kind in "fV"


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    import warnings

    if mask is None:
        return None
    if mask.dtype.name != "bool" and not _is_float(mask):
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if not _is_float(mask):
        mask = _creation.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be "
                                 f"3-D but found {key.ndim}-D and {value.ndim}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.ndim}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be "
                                 f"`None`, 2-D or 3-D but found {attn_mask.ndim}-D tensor "
                                 "instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to "
                                 f"be 2-D but found {key.ndim}-D and {value.ndim}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to "
                                 f"be `None` or 1-D but found {key_padding_mask.ndim}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.ndim}-D tensor "
                                     "instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.ndim}-D query tensor")


def _in_projection_packed(q, k, v, w, b, F):
    E = q.shape[-1]
    if k is v:
        if q is k:
            proj = F.linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2) \
                .contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = F.linear(q, w_q, b_q)
        kv = F.linear(k, w_kv, b_kv)
        kv = kv.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention (``torch.nn.functional.multi_head_attention_forward``).

    query ``(L, N, E)`` (or ``(L, E)`` unbatched), key/value ``(S, N, E_k)``/``(S, N, E_v)``;
    returns ``(attn_output (L, N, E), attn_weights (N, L, S) averaged over heads, or
    (N, num_heads, L, S), or None without need_weights)``. Masks: ``attn_mask`` (L, S) or
    (N * num_heads, L, S), ``key_padding_mask`` (N, S); bool (True = masked out) or float
    (added). AssertionError / RuntimeError with PyTorch's messages for bad shapes.
    ``static_k``/``static_v`` are not implemented (NotImplementedError).
    """
    from . import functional as F

    if static_k is not None or static_v is not None:
        raise NotImplementedError("minigrad: static_k/static_v are not implemented")
    is_batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       None if attn_mask is None else attn_mask.dtype,
                                       "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = (F.linear(query, q_proj_weight, b_q), F.linear(key, k_proj_weight, b_k),
                   F.linear(value, v_proj_weight, b_v))
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape "
                                 f"{value.shape}")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias, F)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * num_heads, tgt_len, src_len)}.")
    if bias_k is not None and bias_v is not None:
        k = _cat([k, bias_k.repeat(1, bsz, 1)])
        v = _cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        zeros = (bsz * num_heads, 1, head_dim)
        k = _cat([k, _creation.zeros(zeros, dtype=k.dtype)], 1)
        v = _cat([v, _creation.zeros(zeros, dtype=v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but "
                                 f"got {key_padding_mask.shape}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if attn_mask is not None:
            weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = q_scaled.bmm(k.transpose(-2, -1))
        weights = F.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        out = weights.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.shape[1])
    if not is_batched:
        out = out.squeeze(1)
    return out, None
