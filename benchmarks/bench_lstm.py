"""Case (h), the LSTM training step, four ways: what a fused LSTM node would cost in NumPy.

Not a test: prints CPU-time medians and ratios. One SGD (momentum 0.9) step of the 2-layer LSTM
classifier of ``benchmarks/suite.py`` (batch 32, sequence 28, hidden 128), timed interleaved:

- **NumPy by hand**: the step written out in NumPy, no autograd: per layer one input product
  for all steps, the 28 cell steps, then backpropagation through time (the gate gradients of
  all steps kept, so that the weight gradients are three matrix products per layer, not 28).
  This is what one fused backward node per layer would compute, the work PyTorch's oneDNN
  kernel (``MkldnnRnnLayerBackward0``) does in C++;
- **minigrad**: ``minigrad.nn.LSTM``, PyTorch's composition of ordinary ops recorded node for
  node (~950 ops and ~750 backward nodes per step);
- **PyTorch**, its default CPU path: float32 LSTMs run oneDNN's fused kernel;
- **PyTorch, oneDNN off** (``torch.backends.mkldnn.flags(enabled=False)``): the composition
  of ordinary ops that minigrad mirrors.

The hand-written gradients are checked against PyTorch's once before timing.

Run: ``python -m benchmarks.bench_lstm [--repeat 20]`` from the repository root (one thread
for every library, set before NumPy is imported).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

if __name__ == "__main__":
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = "1"  # before NumPy is imported

import numpy as np  # noqa: E402


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_layer_forward(x, w_ih, w_hh, bias):
    """One LSTM layer over x (T, B, I), zero initial state; returns the outputs (T, B, H) and
    what backward needs: the inputs, the states h and c of every step (T + 1 each), the gate
    activations i, f, g, o (T, B, 4H) and tanh(c) (T, B, H)."""
    steps, batch, _ = x.shape
    hidden = w_hh.shape[1]
    xg = (x.reshape(steps * batch, -1) @ w_ih.T + bias).reshape(steps, batch, 4 * hidden)
    hs = np.zeros((steps + 1, batch, hidden), np.float32)
    cs = np.zeros((steps + 1, batch, hidden), np.float32)
    acts = np.empty((steps, batch, 4 * hidden), np.float32)
    tanh_c = np.empty((steps, batch, hidden), np.float32)
    for t in range(steps):
        gates = xg[t] + hs[t] @ w_hh.T
        i, f, g, o = np.split(gates, 4, axis=1)
        i, f, g, o = _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)
        acts[t] = np.concatenate([i, f, g, o], axis=1)
        cs[t + 1] = f * cs[t] + i * g
        tanh_c[t] = np.tanh(cs[t + 1])
        hs[t + 1] = o * tanh_c[t]
    return hs[1:], (x, hs, cs, acts, tanh_c)


def lstm_layer_backward(grad_out, saved, w_ih, w_hh):
    """Backpropagation through time of `lstm_layer_forward` given dL/doutputs (T, B, H):
    returns dL/dx, dL/dw_ih, dL/dw_hh, dL/dbias (the same for b_ih and b_hh)."""
    x, hs, cs, acts, tanh_c = saved
    steps, batch, hidden = grad_out.shape
    grad_gates = np.empty((steps, batch, 4 * hidden), np.float32)
    dh_next = np.zeros((batch, hidden), np.float32)
    dc_next = np.zeros((batch, hidden), np.float32)
    for t in range(steps - 1, -1, -1):
        i, f, g, o = np.split(acts[t], 4, axis=1)
        dh = grad_out[t] + dh_next
        dc = dh * o * (1 - tanh_c[t] * tanh_c[t]) + dc_next
        grad_gates[t] = np.concatenate(
            [
                dc * g * i * (1 - i),
                dc * cs[t] * f * (1 - f),
                dc * i * (1 - g * g),
                dh * tanh_c[t] * o * (1 - o),
            ],
            axis=1,
        )
        dc_next = dc * f
        dh_next = grad_gates[t] @ w_hh
    flat = grad_gates.reshape(steps * batch, 4 * hidden)
    return (
        (flat @ w_ih).reshape(steps, batch, -1),
        flat.T @ x.reshape(steps * batch, -1),
        flat.T @ hs[:-1].reshape(steps * batch, hidden),
        flat.sum(axis=0),
    )


def numpy_lstm_case():
    """The step of case (h) by hand in NumPy; returns ``(step, grads_of_last_step)``."""
    import torch

    from .suite import build_lstm

    torch.manual_seed(0)
    params = {k: v.detach().numpy().copy() for k, v in build_lstm(torch).state_dict().items()}
    rng = np.random.default_rng(0)
    xb = rng.standard_normal((32, 28, 28), dtype=np.float32)
    yb = rng.integers(0, 10, 32)
    bufs, last = {}, {}

    def step():
        p = params
        layer_in, saved = np.ascontiguousarray(xb.transpose(1, 0, 2)), []
        for k in range(2):
            w_ih, w_hh = p[f"lstm.weight_ih_l{k}"], p[f"lstm.weight_hh_l{k}"]
            bias = p[f"lstm.bias_ih_l{k}"] + p[f"lstm.bias_hh_l{k}"]
            layer_in, s = lstm_layer_forward(layer_in, w_ih, w_hh, bias)
            saved.append(s)
        h_last = layer_in[-1]
        z = h_last @ p["head.weight"].T + p["head.bias"]
        z -= z.max(axis=1, keepdims=True)
        prob = np.exp(z)
        prob /= prob.sum(axis=1, keepdims=True)
        prob[np.arange(len(yb)), yb] -= 1
        dz = prob / len(yb)
        grads = {"head.weight": dz.T @ h_last, "head.bias": dz.sum(axis=0)}
        grad_out = np.zeros_like(layer_in)
        grad_out[-1] = dz @ p["head.weight"]
        for k in (1, 0):
            grad_out, g_ih, g_hh, g_b = lstm_layer_backward(
                grad_out, saved[k], p[f"lstm.weight_ih_l{k}"], p[f"lstm.weight_hh_l{k}"]
            )
            grads.update(
                {
                    f"lstm.weight_ih_l{k}": g_ih,
                    f"lstm.weight_hh_l{k}": g_hh,
                    f"lstm.bias_ih_l{k}": g_b,
                    f"lstm.bias_hh_l{k}": g_b,
                }
            )
        for name, g in grads.items():  # SGD, momentum 0.9
            if name in bufs:
                bufs[name] *= 0.9
                bufs[name] += g
            else:
                bufs[name] = g.copy()
            p[name] -= 0.01 * bufs[name]
        last.clear()
        last.update(grads)

    return step, last


def check_numpy_gradients() -> float:
    """Largest relative difference of the hand-written gradients from PyTorch's (first step)."""
    import torch

    from .suite import build_lstm

    step, grads = numpy_lstm_case()
    torch.manual_seed(0)
    ref = build_lstm(torch)
    rng = np.random.default_rng(0)
    xb = rng.standard_normal((32, 28, 28), dtype=np.float32)
    yb = rng.integers(0, 10, 32)
    torch.nn.functional.cross_entropy(ref(torch.tensor(xb)), torch.tensor(yb)).backward()
    step()
    return max(
        float(np.abs(grads[k] - p.grad.numpy()).max() / np.abs(p.grad.numpy()).max())
        for k, p in ref.named_parameters()
    )


def main(argv=None) -> None:
    import torch

    import minigrad

    from .suite import lstm_case

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(
        f"hand-written gradients vs PyTorch's: max relative difference "
        f"{check_numpy_gradients():.1e}"
    )
    torch_step = lstm_case(torch)

    def torch_without_onednn():
        with torch.backends.mkldnn.flags(enabled=False):
            torch_step()

    names = ["NumPy by hand", "minigrad", "PyTorch", "PyTorch, oneDNN off"]
    fns = [numpy_lstm_case()[0], lstm_case(minigrad), torch_step, torch_without_onednn]
    for f in fns:
        for _ in range(3):
            f()
    samples = [[] for _ in fns]
    for _ in range(args.repeat):
        for f, s in zip(fns, samples):
            t0 = time.process_time()
            f()
            s.append(time.process_time() - t0)
    ms = [1e3 * statistics.median(s) for s in samples]
    for name, t in zip(names, ms):
        print(f"{name:20s} {t:7.2f} ms  {t / ms[2]:.2f}x PyTorch  {t / ms[3]:.2f}x oneDNN off")


if __name__ == "__main__":
    main()
