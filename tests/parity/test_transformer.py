"""Parity of ``TransformerEncoderLayer``, ``TransformerEncoder``, ``TransformerDecoderLayer``
and ``TransformerDecoder`` in training mode (dropout 0, so the graph is deterministic):
weights copied from torch with ``load_state_dict``; outputs, gradients of the inputs and of
every parameter, graphs, state_dict keys, warnings and errors. (PyTorch's eval/no-grad fast
path is not mirrored; an eval-mode case checks the values still agree.)
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import leaf, rand
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

D, H, FF, S, T, N = 8, 2, 16, 5, 4, 3
SRC = rand(S, N, D, dtype=np.float64)
TGT = rand(T, N, D, dtype=np.float64)
PAD = np.zeros((N, S), bool)
PAD[1, -2:] = True


def _state(make):
    m = make(torch)
    g = np.random.default_rng(9)
    return {k: g.standard_normal(tuple(v.shape)) * 0.3 + (1.0 if "norm" in k and
                                                         k.endswith("weight") else 0.0)
            for k, v in m.state_dict().items()}


def _run(lib, device, make, state, call):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = make(lib)
    m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    if lib.__name__ == "torch":
        m = m.to(device)
    out, inputs = call(lib, m, device)
    trace = {"out": to_numpy(out), "graph": graph_trace(out), "keys": list(m.state_dict()),
             "warnings": [str(x.message) for x in w]}
    (out * out).sum().backward()
    trace["input_grads"] = [to_numpy(t.grad) for t in inputs]
    trace["param_grads"] = {n: to_numpy(p.grad) for n, p in m.named_parameters()}
    return trace


def _enc_layer(**kw):
    def make(lib):
        return lib.nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, dtype=lib.float64, **kw)
    return make


def _src(lib, device, batch_first=False):
    return leaf(lib, SRC.transpose(1, 0, 2).copy() if batch_first else SRC, device)


ENC = {
    "post_norm_relu": ({}, {}), "pre_norm_gelu": ({"norm_first": True, "activation": "gelu"},
                                                  {}),
    "batch_first": ({"batch_first": True}, {}), "padding": ({}, {"pad": True}),
    "causal_mask": ({}, {"causal": True}), "no_bias": ({"bias": False}, {}),
}


@pytest.mark.parametrize("name", sorted(ENC))
def test_encoder_layer(device, name):
    ctor, opts = ENC[name]
    make = _enc_layer(**ctor)
    state = _state(make)

    def call(lib, m, device):
        x = _src(lib, device, ctor.get("batch_first", False))
        kw = {}
        if opts.get("pad"):
            kw["src_key_padding_mask"] = leaf(lib, PAD, device, requires_grad=False)
        if opts.get("causal"):
            mask = np.triu(np.full((S, S), -np.inf), 1)
            kw["src_mask"] = leaf(lib, mask, device, requires_grad=False)
            kw["is_causal"] = True
        return m(x, **kw), [x]

    assert_parity(lambda lib, device: _run(lib, device, make, state, call), device=device,
                  rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_stack_detects_causal_mask(device, batch_first):
    def make(lib):
        layer = lib.nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, dtype=lib.float64,
                                               batch_first=batch_first)
        return lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(D, dtype=lib.float64))
    state = _state(make)

    def call(lib, m, device):
        x = _src(lib, device, batch_first)
        mask = leaf(lib, np.triu(np.full((S, S), -np.inf), 1), device, requires_grad=False)
        return m(x, mask=mask), [x]

    assert_parity(lambda lib, device: _run(lib, device, make, state, call), device=device,
                  rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder(device, norm_first):
    def make(lib):
        layer = lib.nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, dtype=lib.float64,
                                               norm_first=norm_first, activation="gelu")
        return lib.nn.TransformerDecoder(layer, 2)
    state = _state(make)

    def call(lib, m, device):
        tgt, mem = leaf(lib, TGT, device), leaf(lib, SRC, device)
        mask = leaf(lib, np.triu(np.full((T, T), -np.inf), 1), device, requires_grad=False)
        out = m(tgt, mem, tgt_mask=mask,
                memory_key_padding_mask=leaf(lib, PAD, device, requires_grad=False))
        return out, [tgt, mem]

    assert_parity(lambda lib, device: _run(lib, device, make, state, call), device=device,
                  rtol=1e-9, atol=1e-11)


def test_eval_values_and_errors(device):
    make = _enc_layer(batch_first=True)
    state = _state(make)

    def scenario(lib, device):
        m = make(lib)
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
        if lib.__name__ == "torch":
            m = m.to(device)
        m.eval()
        x = _src(lib, device, True)
        with lib.no_grad():
            out = m(x)
        return {"out": to_numpy(out),
                "activation": err(lambda: lib.nn.TransformerEncoderLayer(D, H, activation="x"),
                                  "activation should be relu/gelu, not x")}

    assert_parity(scenario, device=device, rtol=1e-9, atol=1e-11)
