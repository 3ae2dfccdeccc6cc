"""Parity of ``nn.utils.rnn.pad_sequence``: values for both layouts and padding sides, dtype
and padding-value casting, the CopySlices graph, gradients of every sequence, feeding an LSTM,
and the errors."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_tensor_meta import err

SEQS = [np.arange(6, dtype=np.float32).reshape(3, 2) / 4 - 0.5,
        np.array([[1.0, -1.0]], dtype=np.float32),
        np.arange(4, dtype=np.float32).reshape(2, 2) / 3]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_values_graph_and_grads(batch_first, side):
    def scenario(lib):
        seqs = [lib.tensor(s, requires_grad=True) for s in SEQS]
        out = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first, padding_value=-2.0,
                                            padding_side=side)
        weights = lib.tensor(np.arange(out.numel(), dtype=np.float32).reshape(tuple(out.shape)))
        (out * weights).sum().backward()
        return {"out": to_numpy(out), "graph": graph_trace(out),
                "grads": [to_numpy(s.grad) for s in seqs], "version": out._version}

    assert_parity(scenario)


def test_pad_sequence_casts_iterables_lstm_and_errors():
    def scenario(lib):
        ps = lib.nn.utils.rnn.pad_sequence
        ints = ps((lib.arange(3), lib.arange(2)), padding_value=-1.5)
        mixed = ps([lib.ones(2), lib.ones(3, dtype=lib.float64)])
        lib.manual_seed(0)
        lstm = lib.nn.LSTM(2, 3, batch_first=True)
        state = {k: lib.tensor(np.linspace(-0.5, 0.5, v.numel()).reshape(tuple(v.shape)))
                 .to(lib.float32) for k, v in lstm.state_dict().items()}
        lstm.load_state_dict(state)
        h = lstm(ps([lib.tensor(s) for s in SEQS], batch_first=True))[1][0]
        return {
            "ints": to_numpy(ints), "ints dtype": str(ints.dtype).split(".")[1],
            "mixed": to_numpy(mixed), "mixed dtype": str(mixed.dtype).split(".")[1],
            "rows of a tensor": to_numpy(ps(lib.tensor(SEQS[0]))),
            "lstm h": to_numpy(h),
            "empty": err(lambda: ps([]), "received an empty list of sequences"),
            "side": err(lambda: ps([lib.ones(2)], padding_side="mid"),
                        "Expected padding_side to be one of left or right, but got mid."),
            "trailing": err(lambda: ps([lib.ones(2, 3), lib.ones(2, 4)]),
                            "must match the size of tensor b (4) at non-singleton dimension 1"),
        }

    assert_parity(scenario, rtol=1e-6, atol=1e-7)
