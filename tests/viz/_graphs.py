"""Graphs drawn by the viz tests, each built the same way in minigrad and torch.

A builder takes ``(lib, device)`` (device only for torch; None means CPU) and returns
``(output, params)``: what ``make_dot`` draws and the names it uses.
"""

from __future__ import annotations

import numpy as np

from minigrad import toy_models

_RNG = np.random.default_rng(7)
A = _RNG.standard_normal(5).astype(np.float32)
W = _RNG.standard_normal(5).astype(np.float32)


def _t(lib, device, arr, requires_grad=False):
    t = lib.tensor(arr)
    if device is not None and device != "cpu":
        t = t.to(device)
    return t.requires_grad_(requires_grad)


def toy(name):
    def build(lib, device=None):
        r = toy_models.run(name, lib, device=device)
        return r["output"], r["params"]

    build.__name__ = name
    return build


def tuple_output(lib, device=None):
    """Two outputs sharing a subgraph; inputs named through ``params``."""
    a, w = _t(lib, device, A, True), _t(lib, device, W, True)
    h = (a * w).sin()
    return (h.sum(), h.exp()), {"a": a, "w": w}


def inplace_modified(lib, device=None):
    """``b = x * 1; b.mul_(2); b.add_(w)``: in-place ops on a non-leaf."""
    x, w = _t(lib, device, A, True), _t(lib, device, W, True)
    b = x * 1
    b.mul_(2)
    b.add_(w)
    return b, {"x": x, "w": w}


def custom_function(lib, device=None):
    """A custom ``autograd.Function`` that saves its input with ``save_for_backward``."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x**3 * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x**2 * ctx.k, None

    a = _t(lib, device, A, True)
    return Cube.apply(a.sin(), 2.0).sum(), None


def view_output(lib, device=None):
    """An output that is a view: its base is drawn dark green with a dotted edge."""
    a = _t(lib, device, A[:4], True)
    return (a * 2).view(2, 2), None


def square(lib, device=None):
    """Case 26: ``a * a`` saves the leaf itself as ``self`` and ``other``."""
    a = _t(lib, device, A, True)
    return a * a, None


def saved_result(lib, device=None):
    """Case 26: ``exp`` saves its output (unpacked as a new object each time)."""
    b = _t(lib, device, A, True)
    return b.exp(), None


def fused_lstm(lib, device=None):
    """A float32 2-layer batch-first LSTM: the default CPU graph, one
    ``MkldnnRnnLayerBackward0`` per layer in both libraries (the toy ``lstm`` is float64,
    which records the composition of ordinary ops)."""
    lib.manual_seed(0)
    m = lib.nn.LSTM(3, 4, num_layers=2, batch_first=True)
    if device is not None and device != "cpu":
        m = m.to(device)
    x = _t(lib, device, np.ones((2, 3, 3), np.float32), True)
    out, (_, c) = m(x)
    return out.sum() + c.sum(), dict(m.named_parameters())


GRAPHS = {
    f.__name__: f
    for f in (
        *(toy(n) for n in toy_models.TOY_MODELS),
        tuple_output,
        inplace_modified,
        custom_function,
        view_output,
        square,
        saved_result,
        fused_lstm,
    )
}
