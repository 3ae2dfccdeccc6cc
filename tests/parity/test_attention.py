"""Parity of ``F.scaled_dot_product_attention`` on PyTorch's two CPU paths: the fused
``ScaledDotProductFlashAttentionForCpuBackward0`` (4-D, one head size, no dropout, no mask that
requires grad) and the math composition (3-D or 2-D inputs, different value head size, a float
mask that requires grad, dropout). Values, gradients of query/key/value (and of the mask),
graphs, saved attributes and errors.
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import leaf, rand
from .test_layers_more import _saved
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

Q = rand(2, 3, 4, 8, dtype=np.float64)
K = rand(2, 3, 5, 8, dtype=np.float64)
V = rand(2, 3, 5, 8, dtype=np.float64)
V6 = rand(2, 3, 5, 6, dtype=np.float64)
BOOL = np.array([[1, 1, 0, 1, 0], [0, 0, 0, 0, 0], [1, 0, 1, 1, 1], [1, 1, 1, 1, 0]], bool)
FLOAT = rand(4, 5, dtype=np.float64)


def _mask(lib, kind, device, grad=False):
    if kind is None:
        return None
    arr = {"bool": BOOL, "float": FLOAT, "bcast": FLOAT[None, None, :1],
           "mask3d": FLOAT[None, :1], "bool_col": BOOL[:, :1] | True}[kind]
    return leaf(lib, arr, device, requires_grad=grad)


def _run(lib, device, q, k, v, mask=None, mask_grad=False, **kw):
    F = lib.nn.functional
    qt, kt, vt = (leaf(lib, a, device) for a in (q, k, v))
    m = _mask(lib, mask, device, mask_grad)
    out = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=m, **kw)
    trace = {"out": to_numpy(out), "graph": graph_trace(out), "saved": _saved(out.grad_fn)}
    out.backward(lib.ones_like(out) * 0.5 + qt.detach()[..., :out.shape[-1]] * 0)
    trace["grads"] = [to_numpy(t.grad) for t in (qt, kt, vt)]
    if mask_grad:
        trace["mask_grad"] = to_numpy(m.grad)
    return trace


CASES = {
    "plain": {}, "scale": {"scale": 0.3}, "causal": {"is_causal": True},
    "bool": {"mask": "bool"}, "float": {"mask": "float"}, "bcast": {"mask": "bcast"},
    "bool_causal": {"mask": "bool", "is_causal": True}, "bool_col": {"mask": "bool_col"},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fused_path(device, name):
    def scenario(lib, device):
        return _run(lib, device, Q, K, V, **CASES[name])

    assert_parity(scenario, device=device, rtol=1e-10, atol=1e-12)


MATH = {
    "3d": (Q[0], K[0], V[0], {}), "3d_causal_scale": (Q[0], K[0], V[0], {"is_causal": True,
                                                                          "scale": 0.5}),
    "value_dim": (Q, K, V6, {}), "value_dim_bool": (Q, K, V6, {"mask": "bool"}),
    "mask_grad": (Q, K, V, {"mask": "float", "mask_grad": True}),
    "2d": (Q[0, 0], K[0, 0], V[0, 0], {}), "mask3d": (Q, K, V, {"mask": "mask3d"}),
    "batch_bcast": (Q[:1], K, V, {}),
}


@pytest.mark.parametrize("name", sorted(MATH))
def test_math_path(device, name):
    q, k, v, kw = MATH[name]

    def scenario(lib, device):
        return _run(lib, device, q, k, v, **kw)

    assert_parity(scenario, device=device, rtol=1e-10, atol=1e-12)


def test_dropout_semantics(device):
    """Dropout draws differ between the libraries: compare the graph and that p=1 zeroes."""
    def scenario(lib, device):
        F = lib.nn.functional
        q, k, v = (leaf(lib, a, device) for a in (Q, K, V))
        out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
        zero = F.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
        return {"graph": graph_trace(out), "shape": tuple(out.shape),
                "p1_zero": bool((to_numpy(zero) == 0).all())}

    assert_parity(scenario, device=device)


def test_float32_and_errors(device):
    def scenario(lib, device):
        F = lib.nn.functional
        q, k, v = (leaf(lib, a.astype(np.float32), device) for a in (Q, K, V))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        out.sum().backward()
        return {"out": to_numpy(out), "grad": to_numpy(q.grad),
                "dtype": err(lambda: F.scaled_dot_product_attention(q, k.double(), v),
                             "Expected query, key, and value to have the same dtype",
                             "key.dtype: double")}

    assert_parity(scenario, device=device)


def test_output_layout_follows_query(device):
    """The fused kernel lays its output out as the query: a permute of a (B, L, H, E) query
    viewed as (B, H, L, E) reshapes without a copy (``ViewBackward0``, not
    ``UnsafeViewBackward0(CloneBackward0)``), as in ``MultiheadAttention``."""
    arr = Q.transpose(0, 2, 1, 3).copy()

    def scenario(lib, device):
        F = lib.nn.functional
        q = leaf(lib, arr, device)
        out = F.scaled_dot_product_attention(q.transpose(1, 2), leaf(lib, K, device),
                                             leaf(lib, V, device))
        flat = out.permute(2, 0, 1, 3).reshape(-1, 8)
        flat.sum().backward()
        return {"graph": graph_trace(flat), "contiguous": out.is_contiguous(),
                "grad": to_numpy(q.grad)}

    assert_parity(scenario, device=device, rtol=1e-10, atol=1e-12)
