"""The fused LSTM layer PyTorch's CPU runs through oneDNN: ``mkldnn_rnn_layer`` and its node
``MkldnnRnnLayerBackward0``.

Mirrors ``at::mkldnn_rnn_layer`` (``aten/src/ATen/native/mkldnn/RNN.cpp``) and its entry in
``tools/autograd/derivatives.yaml``. For a float32 or bfloat16 ``nn.LSTM`` (no ``proj_size``)
PyTorch runs each layer and direction as one oneDNN primitive and records one node for it;
`minigrad.nn.LSTM` does the same when `minigrad.backends.mkldnn` is enabled (see
``nn/modules/rnn.py``). minigrad's kernel is NumPy: the input product of all steps is one
matrix product, then a loop over time does the recurrence; the backward is backpropagation
through time, one loop over time, and the weight gradients of all steps are one product each.

What differs from PyTorch: ``result3`` is oneDNN's opaque workspace (a 1-D ``uint8`` tensor)
in PyTorch and here too, but what it holds (the activated gates and the cell state of every
step, as float32 bytes) and so its size are minigrad's. Under ``create_graph`` the gradients
have a graph in both libraries, made of other nodes: PyTorch's from its
``mkldnn_rnn_layer_differentiable_backward``, minigrad's from the composition of ordinary ops.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.graph import Node, record
from ._util import quiet_fp

__all__ = ["mkldnn_rnn_layer", "MkldnnRnnLayerBackward0"]

LSTM_MODE = 2  # the ``mode`` PyTorch passes for an LSTM (oneDNN's ``rnn_kind::LSTM``)


def _sigmoid(a: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-a)) in place (``a`` is a fresh intermediate)."""
    np.negative(a, out=a)
    np.exp(a, out=a)
    a += 1
    np.reciprocal(a, out=a)
    return a


def _step_order(steps: int, reverse: bool):
    return range(steps - 1, -1, -1) if reverse else range(steps)


def _lstm_forward(x, w_ih, w_hh, bias, h0, c0, reverse):
    """The layer in NumPy (float32 or float64 arrays). x (T, B, I), w_ih (4H, I), w_hh (4H, H),
    bias (4H,) = b_ih + b_hh or None, h0/c0 (B, H).

    Per step t (in reverse order when ``reverse``), with h, c the previous step's states:
    gates = x_t @ w_ih.T + bias + h @ w_hh.T, cut into i, f, g, o (H columns each);
    i, f, o = sigmoid(.), g = tanh(.); c_t = f * c + i * g; h_t = o * tanh(c_t).
    Returns the outputs h_t (T, B, H), the activated gates (T, B, 4H) and c_t (T, B, H), and
    the flat buffer (T * B * 5H) that holds the gates and then the c_t (the workspace).
    """
    steps, batch, _ = x.shape
    hidden = w_hh.shape[1]
    work = np.empty(steps * batch * 5 * hidden, x.dtype)
    gates = work[: steps * batch * 4 * hidden].reshape(steps, batch, 4 * hidden)
    cs = work[steps * batch * 4 * hidden :].reshape(steps, batch, hidden)
    # the input product of all steps at once, written straight into the workspace
    np.matmul(x.reshape(steps * batch, -1), w_ih.T, out=gates.reshape(steps * batch, -1))
    if bias is not None:
        gates += bias
    hs = np.empty((steps, batch, hidden), x.dtype)
    w_hh_t = np.ascontiguousarray(w_hh.T)  # (H, 4H): BLAS is ~2x faster on it than on w_hh.T
    h, c = h0, c0
    for t in _step_order(steps, reverse):
        a = gates[t]  # (B, 4H): becomes the activated gates of step t
        a += h @ w_hh_t
        _sigmoid(a[:, : 2 * hidden])
        np.tanh(a[:, 2 * hidden : 3 * hidden], out=a[:, 2 * hidden : 3 * hidden])
        _sigmoid(a[:, 3 * hidden :])
        i, f, g, o = (a[:, k * hidden : (k + 1) * hidden] for k in range(4))
        c = cs[t] = f * c + i * g
        h = hs[t] = o * np.tanh(c)
    return hs, gates, cs, work


def _lstm_backward(g_out, g_hy, g_cy, x, w_ih, w_hh, h0, c0, hs, gates, cs, reverse):
    """Backpropagation through time of `_lstm_forward` (the same arrays it returned).

    Going through the steps in the opposite order, with dh, dc the gradients flowing into
    h_t, c_t from the later steps (at the start: the gradients of h_n, c_n, or zeros):
    dh += dout_t; dc += dh * o * (1 - tanh(c_t)^2);
    di = dc * g * i * (1 - i), df = dc * c_{t-1} * f * (1 - f), dg = dc * i * (1 - g^2),
    do = dh * tanh(c_t) * o * (1 - o); then dc = dc * f and dh = dgates @ w_hh (into step t-1).
    With dgates (T, B, 4H) of all steps: dinput = dgates @ w_ih, dw_ih = Σ_t dgates_t.T @ x_t,
    dw_hh = Σ_t dgates_t.T @ h_{t-1}, db_ih = db_hh = Σ dgates, dh0 = dh, dc0 = dc (one
    product each over all steps).
    """
    steps, batch, _ = x.shape
    hidden = w_hh.shape[1]
    dh = np.zeros_like(h0) if g_hy is None else g_hy.astype(h0.dtype)
    dc = np.zeros_like(c0) if g_cy is None else g_cy.astype(c0.dtype)
    dgates = np.empty_like(gates)
    for t in _step_order(steps, not reverse):
        prev = t + 1 if reverse else t - 1
        c_prev = cs[prev] if 0 <= prev < steps else c0
        i, f, g, o = (gates[t, :, k * hidden : (k + 1) * hidden] for k in range(4))
        if g_out is not None:
            dh = dh + g_out[t]
        tc = np.tanh(cs[t])
        dc = dc + dh * o * (1 - tc * tc)
        d = dgates[t]
        d[:, :hidden] = dc * g * i * (1 - i)
        d[:, hidden : 2 * hidden] = dc * c_prev * f * (1 - f)
        d[:, 2 * hidden : 3 * hidden] = dc * i * (1 - g * g)
        d[:, 3 * hidden :] = dh * tc * o * (1 - o)
        dc = dc * f
        dh = d @ w_hh
    flat = dgates.reshape(steps * batch, 4 * hidden)
    dx = (flat @ w_ih).reshape(x.shape)
    dw_ih = flat.T @ x.reshape(steps * batch, -1)
    # h_{t-1} is h0 for the first step processed, else the output of the step before it
    first, later, before = (
        (-1, slice(0, -1), slice(1, None)) if reverse else (0, slice(1, None), slice(0, -1))
    )
    dw_hh = dgates[first].T @ h0
    if steps > 1:
        dw_hh += dgates[later].reshape(-1, 4 * hidden).T @ hs[before].reshape(-1, hidden)
    db = flat.sum(0)
    return dx, dw_ih, dw_hh, db, dh, dc


def _compute_dtype(dt: np.dtype):
    """float64 stays float64; float32, bfloat16 and float16 compute in float32 (as oneDNN
    accumulates)."""
    return np.float64 if dt == np.float64 else np.float32


class MkldnnRnnLayerBackward0(Node):
    """Gradient of one LSTM layer-direction run as one fused op (``mkldnn_rnn_layer``).

    Inputs (edges, in order): input (T, B, I), weight0 = w_ih (4H, I), weight1 = w_hh (4H, H),
    weight2 = b_ih, weight3 = b_hh (4H,) (zeros of the weights' shapes, no edge, without
    bias), hx_ and cx_ (B, H). Outputs: output (T, B, H), hy, cy (B, H) (and the workspace,
    not differentiable). Formulas: see `_lstm_backward` (BPTT); gradients of outputs that got
    none count as zero. Under ``create_graph`` the layer is rebuilt as the composition of
    ordinary ops (what PyTorch records without oneDNN) and differentiated, so the gradients
    have a graph (PyTorch's ``mkldnn_rnn_layer_differentiable_backward`` recomputes too).

    Saves (PyTorch's names): batch_first, batch_sizes, bidirectional, cx_, has_biases,
    hidden_size, hx_, input, mode, num_layers, result0 (output), result1 (hy), result2 (cy),
    result3 (workspace), reverse, train, weight0..weight3.
    """

    materialize_grads = False  # (an output that got no gradient adds no term: no zeros made)

    def __init__(self, saved: dict):
        Node.__init__(self)
        for name in sorted(saved):
            self._save(name, saved[name])

    @staticmethod
    def jvp(inputs, tangents, outputs, saved):
        """Not supported, as in PyTorch (``mkldnn_rnn_layer`` has no forward formula; a
        float64 LSTM, which runs the composition of ordinary ops, has one)."""
        from .attention import raise_no_forward_ad

        raise_no_forward_ad("mkldnn_rnn_layer")

    def backward(self, g_out, g_hy, g_cy):
        if grad_mode.is_grad_enabled():
            return self._backward_graph(g_out, g_hy, g_cy)
        x = self._get("input")._data
        dt = x.dtype
        ct = _compute_dtype(dt)
        w_ih, w_hh = (self._get(n)._data.astype(ct, copy=False) for n in ("weight0", "weight1"))
        h0, c0 = (self._get(n)._data.astype(ct) for n in ("hx_", "cx_"))
        hs = self._get("result0")._data.astype(ct, copy=False)
        steps, batch, hidden = hs.shape
        work = self._get("result3")._data.view(ct)
        gates = work[: steps * batch * 4 * hidden].reshape(steps, batch, 4 * hidden)
        cs = work[steps * batch * 4 * hidden :].reshape(steps, batch, hidden)
        grads = [None if g is None else g._data.astype(ct, copy=False) for g in (g_out, g_hy, g_cy)]
        with quiet_fp():
            dx, dw_ih, dw_hh, db, dh0, dc0 = _lstm_backward(
                *grads,
                x.astype(ct, copy=False),
                w_ih,
                w_hh,
                h0,
                c0,
                hs,
                gates,
                cs,
                self._saved["reverse"],
            )
        results = (dx, dw_ih, dw_hh, db, db, dh0, dc0)
        return tuple(
            None if edge[0] is None else Tensor._make(r.astype(dt, copy=False))
            for r, edge in zip(results, self.next_functions)
        )

    def _backward_graph(self, g_out, g_hy, g_cy):
        """The same gradients with a graph (create_graph): the layer recomputed as the
        composition of ordinary ops on the saved inputs, then differentiated."""
        from .. import autograd
        from ..nn.modules.rnn import _CellParams, _full_layer_in_order, _lstm_cell

        names = ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_")
        x, w_ih, w_hh, b_ih, b_hh, hx, cx = (self._get(n) for n in names)
        if not self._saved["has_biases"]:
            b_ih = b_hh = None
        p = _CellParams(w_ih, w_hh, b_ih, b_hh)
        out, (hy, cy) = _full_layer_in_order(_lstm_cell, x, (hx, cx), p, self._saved["reverse"])
        wanted = [k for k, edge in enumerate(self.next_functions) if edge[0] is not None]
        inputs = [(x, w_ih, w_hh, b_ih, b_hh, hx, cx)[k] for k in wanted]
        outs, grads = [], []
        for t, g in zip((out, hy, cy), (g_out, g_hy, g_cy)):
            if g is not None:
                outs.append(t)
                grads.append(g)
        found = autograd.grad(outs, inputs, grads, create_graph=True, allow_unused=True)
        result = [None] * len(self.next_functions)
        for k, g in zip(wanted, found):
            result[k] = g
        return tuple(result)


def mkldnn_rnn_layer(
    input: Tensor,
    weight0: Tensor,
    weight1: Tensor,
    weight2: Tensor,
    weight3: Tensor,
    hx_: Tensor,
    cx_: Tensor,
    reverse: bool,
    batch_sizes,
    mode: int,
    hidden_size: int,
    num_layers: int,
    has_biases: bool,
    bidirectional: bool,
    batch_first: bool,
    train: bool,
):
    """One LSTM layer-direction over a whole sequence, as one op (``torch.mkldnn_rnn_layer``).

    Shapes: input (T, B, I) (time first, contiguous: the caller transposes a batch-first
    input; ``batch_first`` is only recorded), weight0 (4H, I), weight1 (4H, H), weight2 and
    weight3 the biases (4H,) (ignored unless ``has_biases``), hx_/cx_ (B, H). Returns
    ``(output (T, B, H), hy (B, H), cy (B, H), workspace)``, in the input's dtype (computed in
    float32 for float32, bfloat16 and float16); the workspace is a 1-D uint8 tensor that the
    backward reads. Node `MkldnnRnnLayerBackward0` over (input, weight0..weight3, hx_, cx_).
    ``mode`` must be 2 (LSTM), the only mode PyTorch's modules send here.
    """
    if mode != LSTM_MODE:
        raise RuntimeError("mkldnn_rnn_layer: only the LSTM mode (2) is implemented")
    dt = input._data.dtype
    ct = _compute_dtype(dt)
    x = input._data.astype(ct, copy=False)
    w_ih, w_hh = (w._data.astype(ct, copy=False) for w in (weight0, weight1))
    bias = (weight2._data.astype(ct) + weight3._data.astype(ct)) if has_biases else None
    with quiet_fp():
        hs, gates, cs, work = _lstm_forward(
            x,
            w_ih,
            w_hh,
            bias,
            hx_._data.astype(ct, copy=False),
            cx_._data.astype(ct, copy=False),
            reverse,
        )
    output = Tensor._make(hs.astype(dt, copy=False))
    hy = Tensor._make((hs[0] if reverse else hs[-1]).astype(dt))
    cy = Tensor._make((cs[0] if reverse else cs[-1]).astype(dt))
    workspace = Tensor._make(work.view(np.uint8))
    inputs = (input, weight0, weight1, weight2, weight3, hx_, cx_)
    saved = {
        "batch_first": batch_first,
        "batch_sizes": tuple(batch_sizes),
        "bidirectional": bidirectional,
        "has_biases": has_biases,
        "hidden_size": hidden_size,
        "mode": mode,
        "num_layers": num_layers,
        "reverse": reverse,
        "train": train,
        "input": input,
        "hx_": hx_,
        "cx_": cx_,
        "weight0": weight0,
        "weight1": weight1,
        "weight2": weight2,
        "weight3": weight3,
    }
    node = record(MkldnnRnnLayerBackward0, (output, hy, cy), inputs, saved)
    if node is not None:
        node._save("result0", output, is_output=True)
        node._save("result1", hy, is_output=True)
        node._save("result2", cy, is_output=True)
        node._save("result3", workspace)
    return output, hy, cy, workspace
