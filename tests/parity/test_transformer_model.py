"""Parity of ``nn.Transformer`` (encoder + decoder, each with a final LayerNorm) and its
``generate_square_subsequent_mask``: weights copied from torch with ``load_state_dict``;
outputs, input and parameter gradients, graphs, state_dict keys, the nested-tensor warning,
the re-initialisation of matrices only, and the errors for mismatched src/tgt.
"""

import warnings

import pytest

from minigrad.parity import assert_parity, to_numpy

from .test_functional import leaf
from .test_tensor_meta import err
from .test_transformer import FF, PAD, SRC, TGT, D, H, N, S, T, _run, _state

torch = pytest.importorskip("torch")


def _model(**kw):
    def make(lib):
        return lib.nn.Transformer(D, H, num_encoder_layers=2, num_decoder_layers=1,
                                  dim_feedforward=FF, dropout=0.0, dtype=lib.float64, **kw)
    return make


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_forward_backward(device, batch_first):
    make = _model(batch_first=batch_first)
    state = _state(make)

    def call(lib, m, device):
        def seq(a):
            return leaf(lib, a.transpose(1, 0, 2).copy() if batch_first else a, device)
        src, tgt = seq(SRC), seq(TGT)
        mask = lib.nn.Transformer.generate_square_subsequent_mask(T, dtype=lib.float64)
        if lib.__name__ == "torch":
            mask = mask.to(device)
        out = m(src, tgt, tgt_mask=mask,
                src_key_padding_mask=leaf(lib, PAD, device, requires_grad=False),
                memory_key_padding_mask=leaf(lib, PAD, device, requires_grad=False))
        return out, [src, tgt]

    assert_parity(lambda lib, device: _run(lib, device, make, state, call), device=device,
                  rtol=1e-9, atol=1e-11)


def test_mask_init_attributes_and_errors():
    def scenario(lib):
        mask = lib.nn.Transformer.generate_square_subsequent_mask(3)
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # the nested-tensor note; compared in _run
            m = _model()(lib)
        x = lib.zeros(S, N, D, dtype=lib.float64)
        return {
            "mask": to_numpy(mask), "mask dtype": str(mask.dtype).split(".")[1],
            "mask requires_grad": mask.requires_grad,
            "attributes": (m.d_model, m.nhead, m.batch_first),
            "children": [n for n, _ in m.named_children()],
            # xavier_uniform_ re-draws the matrices; LayerNorm weights stay ones, biases zeros
            "vectors": {n: to_numpy(p) for n, p in m.named_parameters() if p.ndim == 1
                        and "norm" in n},
            "matrix bound": all(float(p.detach().abs().max()) <=
                                (6 / (p.shape[0] + p.shape[1])) ** 0.5
                                for p in m.parameters() if p.ndim == 2),
            "batch": err(lambda: m(x, lib.zeros(T, N + 1, D, dtype=lib.float64)),
                         "the batch number of src and tgt must be equal"),
            "features": err(lambda: m(x, lib.zeros(T, N, D + 1, dtype=lib.float64)),
                            "the feature number of src and tgt must be equal to d_model"),
            "unbatched": tuple(m(x[:, 0], lib.zeros(T, D, dtype=lib.float64)).shape),
        }

    assert_parity(scenario)


def test_mask_dtype_follows_the_default_dtype():
    def scenario(lib):
        before = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            mask = lib.nn.Transformer.generate_square_subsequent_mask(2)
        finally:
            lib.set_default_dtype(before)
        return {"dtype": str(mask.dtype).split(".")[1], "mask": to_numpy(mask)}

    assert_parity(scenario)
