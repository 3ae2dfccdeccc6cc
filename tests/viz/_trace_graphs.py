"""Graphs for the trace page tests: a 200-node chain with the same weights in both libraries."""

import numpy as np

LAYERS = 40  # 40 x (AddmmBackward0, TBackward0, TanhBackward0, 2 AccumulateGrad) + SumBackward0


def chain(lib, weights=None):
    """``(loss, named params)`` of ``tanh(Linear(...))`` applied ``LAYERS`` times: 201 nodes.
    ``weights``: NumPy arrays to load (default: a fixed random draw)."""
    rng = np.random.default_rng(1)
    nn = lib.nn
    model = nn.Sequential(*[m for _ in range(LAYERS) for m in (nn.Linear(4, 4), nn.Tanh())])
    state = weights or {k: rng.standard_normal(tuple(v.shape)).astype(np.float32) * 0.5
                        for k, v in model.state_dict().items()}
    model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    x = lib.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    return model(x).sum(), dict(model.named_parameters())


def chain_traces():
    """The minigrad and the PyTorch trace of `chain`."""
    import torch

    import minigrad
    from minigrad.viz import trace_backward

    traces = []
    for lib in (minigrad, torch):
        loss, params = chain(lib)
        traces.append(trace_backward(loss, params=params))
    return traces
