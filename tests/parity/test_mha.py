"""Parity of ``nn.MultiheadAttention`` / ``F.multi_head_attention_forward`` in training mode:
weights copied from torch with ``load_state_dict``; outputs, attention weights, gradients of
the inputs and of every parameter, graphs, state_dict keys and errors, for self- and
cross-attention, ``batch_first``, ``need_weights`` (with and without averaging), bool/float
``attn_mask``, ``key_padding_mask``, ``kdim``/``vdim``, ``bias=False``, ``add_bias_kv`` and
``add_zero_attn``, unbatched input.
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import leaf, rand
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

E, H, L, S, N = 8, 2, 4, 5, 3
XQ = rand(L, N, E, dtype=np.float64)
XK = rand(S, N, E, dtype=np.float64)
XK6 = rand(S, N, 6, dtype=np.float64)
XV5 = rand(S, N, 5, dtype=np.float64)
CAUSAL = ~np.tril(np.ones((L, L), bool))
BOOL = rand(L, S) > 0.8
FLOAT = rand(L, S, dtype=np.float64)
PAD = np.zeros((N, S), bool)
PAD[0, -2:] = True
PAD_SELF = np.zeros((N, L), bool)
PAD_SELF[1, -1] = True


def _model(lib, **kw):
    lib.manual_seed(0)
    return lib.nn.MultiheadAttention(E, H, dtype=lib.float64, **kw)


def _weights(kw):
    m = _model(torch, **kw)
    g = np.random.default_rng(5)
    return {k: g.standard_normal(tuple(v.shape)) * 0.3 for k, v in m.state_dict().items()}


CASES = {
    "self": ({}, "self", {}), "self_causal_bool": ({}, "self", {"attn_mask": "causal"}),
    "self_pad": ({}, "self", {"key_padding_mask": "pad_self"}),
    "self_no_weights": ({}, "self", {"need_weights": False}),
    "self_per_head": ({}, "self", {"average_attn_weights": False}),
    "cross": ({}, "cross", {}), "cross_masks": ({}, "cross", {"attn_mask": "float",
                                                               "key_padding_mask": "pad"}),
    "cross_bool_mask": ({}, "cross", {"attn_mask": "bool"}),
    "cross_no_weights_pad": ({}, "cross", {"need_weights": False, "key_padding_mask": "pad"}),
    "kv_same": ({}, "kv", {}), "kdim_vdim": ({"kdim": 6, "vdim": 5}, "kdim", {}),
    "no_bias": ({"bias": False}, "cross", {}), "bias_kv": ({"add_bias_kv": True}, "cross", {}),
    "zero_attn": ({"add_zero_attn": True}, "cross", {"key_padding_mask": "pad"}),
    "batch_first": ({"batch_first": True}, "self", {}),
    "batch_first_cross": ({"batch_first": True}, "cross", {"attn_mask": "bool"}),
    "unbatched": ({}, "unbatched", {}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_multihead_attention(device, name):
    ctor, kind, call = CASES[name]
    state = _weights(ctor)

    def scenario(lib, device):
        m = _model(lib, **ctor)
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        if lib.__name__ == "torch":
            m = m.to(device)
        bf = ctor.get("batch_first", False)

        def inp(arr):
            return leaf(lib, arr.transpose(1, 0, 2) if bf else arr, device)
        q = inp(XQ)
        if kind == "self":
            k = v = q
        elif kind == "kv":
            k = v = inp(XK)
        elif kind == "kdim":
            k, v = inp(XK6), inp(XV5)
        elif kind == "unbatched":
            q = leaf(lib, XQ[:, 0], device)
            k = v = leaf(lib, XK[:, 0], device)
        else:
            k, v = inp(XK), inp(XK[::-1].copy())
        kwargs = dict(call)
        masks = {"causal": CAUSAL, "bool": BOOL, "float": FLOAT, "pad": PAD,
                 "pad_self": PAD_SELF}
        for key in ("attn_mask", "key_padding_mask"):
            if key in kwargs:
                kwargs[key] = leaf(lib, masks[kwargs[key]], device, requires_grad=False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out, w = m(q, k, v, **kwargs)
        trace = {"out": to_numpy(out), "weights": None if w is None else to_numpy(w),
                 "warnings": [str(x.message) for x in caught],
                 "graph": graph_trace(out), "keys": list(m.state_dict()),
                 "params": [n for n, _ in m.named_parameters()]}
        (out * out).sum().backward()
        trace["input_grads"] = [to_numpy(t.grad) for t in {id(t): t for t in (q, k, v)}.values()]
        trace["param_grads"] = {n: to_numpy(p.grad) for n, p in m.named_parameters()}
        return trace

    assert_parity(scenario, device=device, rtol=1e-10, atol=1e-12)


def test_errors(device):
    def scenario(lib, device):
        nn = lib.nn
        m = _model(lib)
        x = leaf(lib, XQ, device)
        return {
            "divisible": err(lambda: nn.MultiheadAttention(7, 2), "must be divisible by"),
            "positive": err(lambda: nn.MultiheadAttention(0, 2), "must be greater than 0"),
            "mask2d": err(lambda: m(x, x, x, attn_mask=lib.zeros(3, 3, dtype=lib.float64)),
                          "The shape of the 2D attn_mask is"),
            "mask_dtype": err(lambda: m(x, x, x, attn_mask=lib.zeros(L, L, dtype=lib.int64)),
                              "only bool and floating types of attn_mask are supported"),
            "dims": err(lambda: m(x, x[0], x), "expected `key` and `value` to be 3-D"),
            "causal": err(lambda: m(x, x, x, is_causal=True), "Need attn_mask"),
        }

    assert_parity(scenario, device=device)
