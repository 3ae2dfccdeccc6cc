"""Issue 9's benchmark cases: minigrad vs PyTorch CPU (and hand-written NumPy), side by side.

Each case builds the same work for both libraries; :func:`run_suite` times them interleaved in
this process (minigrad, torch, minigrad, torch, ...) so that a noisy machine slows both alike,
and reports medians, the ratio minigrad / PyTorch and the issue's target:

- (a) ``chain``: 1,000 small elementwise ops on (16,) tensors, forward + backward;
- (b) ``mlp``: MLP 784-512-256-10, batch 128, one SGD (momentum 0.9) training step;
- (c) ``cnn``: the demo CNN (:func:`minigrad.demo.build_cnn`), batch 64, one Adam step;
- (d) ``conv2d``: ``conv2d`` forward + backward, input 32x3x32x32, 16 filters 3x3, padding 1;
- (e) ``make_dot``: :func:`minigrad.viz.make_dot` on a 100-layer MLP graph vs torchviz;
- (f) ``mlp_memory``: peak memory allocated during one step of (b) (bytes, not time);
- (h) ``lstm``: a 2-layer LSTM (input 28, hidden 128, batch-first) with a linear head on its
  last step, batch 32, sequence 28, one SGD (momentum 0.9) training step (issue 20); PyTorch
  runs its default CPU kernels (oneDNN's fused LSTM for float32), minigrad its default path
  (one fused ``MkldnnRnnLayerBackward0`` per layer, as PyTorch's);
- (i) ``cnn_bn``: a CNN with BatchNorm (Conv2d-BatchNorm2d-ReLU-MaxPool2d twice, Linear head)
  in training mode, batch 64 of 1x8x8 images, one SGD (momentum 0.9) step (issue 20);
- (j) ``transformer``: a 2-layer ``TransformerEncoder`` (d_model 64, 4 heads, feed-forward 128,
  batch-first, dropout 0.1 in training mode) with mean pooling and a linear head, batch 32,
  sequence 32, one Adam step (issue 20);
- (g) ``mlp_numpy``: the step of (b) written by hand in NumPy, no autograd: (b) is also
  compared with it, since it is what minigrad would cost with zero overhead.

Thread settings are the caller's business (they must be set before NumPy is imported): see
``benchmarks/__main__.py``.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
import warnings

import numpy as np

# ---------------------------------------------------------------------------- the cases
# A case builder takes ``lib`` (minigrad or torch) and returns a zero-argument callable that
# does the timed work once. Inputs are made with NumPy so that both libraries see equal data.


def chain_case(lib, n_ops: int = 1000):
    """(a) ``n_ops`` elementwise ops (mul, add, tanh, sin in turn) on a (16,) tensor, + backward."""
    x = lib.tensor(np.linspace(-1, 1, 16, dtype=np.float32), requires_grad=True)

    def step():
        y = x
        for _ in range(n_ops // 4):
            y = (y * 0.9 + 0.1).tanh().sin()
        y.sum().backward()
        x.grad = None

    return step


def build_mlp(lib):
    """The 784-512-256-10 ReLU MLP of case (b)."""
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def _mlp_data(batch: int = 128):
    rng = np.random.default_rng(0)
    return rng.standard_normal((batch, 784), dtype=np.float32), rng.integers(0, 10, batch)


def _train_step(lib, model, opt, xb, yb):
    def step():
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(lib.tensor(xb)), lib.tensor(yb))
        loss.backward()
        opt.step()

    return step


def _same_weights(lib, build):
    """``build(lib)`` with the weights of ``build(torch)`` (seeded), so the work is identical."""
    import torch

    torch.manual_seed(0)
    ref = build(torch)
    if lib is torch:
        return ref
    model = build(lib)
    model.load_state_dict(ref.state_dict())
    return model


def mlp_case(lib):
    """(b) one SGD(lr=0.01, momentum=0.9) step of the MLP on a batch of 128."""
    model = _same_weights(lib, build_mlp)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return _train_step(lib, model, opt, *_mlp_data())


def cnn_case(lib):
    """(c) one Adam(lr=1e-3) step of the demo CNN on a batch of 64 8x8 images."""
    from minigrad.demo import build_cnn

    model = _same_weights(lib, build_cnn)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    xb = rng.random((64, 1, 8, 8), dtype=np.float32)
    return _train_step(lib, model, opt, xb, rng.integers(0, 10, 64))


def conv2d_case(lib):
    """(d) ``conv2d(x, w, b, padding=1)`` forward + backward, x 32x3x32x32, w 16x3x3x3."""
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((32, 3, 32, 32), dtype=np.float32), requires_grad=True)
    w = lib.tensor(rng.standard_normal((16, 3, 3, 3), dtype=np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal(16, dtype=np.float32), requires_grad=True)
    g = lib.tensor(rng.standard_normal((32, 16, 32, 32), dtype=np.float32))

    def step():
        lib.nn.functional.conv2d(x, w, b, padding=1).backward(g)
        x.grad = w.grad = b.grad = None

    return step


def make_dot_case(lib, layers: int = 100):
    """(e) build the DOT source of a ``layers``-layer MLP graph: minigrad's ``make_dot`` on the
    minigrad graph, torchviz's on the PyTorch graph (None without torchviz)."""
    from .bench_viz import build

    out, params = build(lib, layers)
    if lib.__name__ == "torch":
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        try:
            import torchviz
        except ImportError:
            return None
        return lambda: torchviz.make_dot(out, params=params)
    from minigrad.viz import make_dot

    return lambda: make_dot(out, params=params)


def build_lstm(lib):
    """The 2-layer LSTM classifier of case (h): LSTM(28, 128, num_layers=2) + Linear(128, 10)."""
    nn = lib.nn

    class LSTMClassifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(28, 128, num_layers=2, batch_first=True)
            self.head = nn.Linear(128, 10)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.head(out[:, -1])

    return LSTMClassifier()


def lstm_case(lib):
    """(h) one SGD(lr=0.01, momentum=0.9) step of the LSTM on a batch of 32 sequences of 28
    steps of 28 features (digits read as rows would have this shape)."""
    model = _same_weights(lib, build_lstm)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    xb = rng.standard_normal((32, 28, 28), dtype=np.float32)
    return _train_step(lib, model, opt, xb, rng.integers(0, 10, 32))


def build_cnn_bn(lib):
    """The BatchNorm CNN of case (i), for 1x8x8 inputs."""
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )


def cnn_bn_case(lib):
    """(i) one SGD(lr=0.01, momentum=0.9) step of the BatchNorm CNN (training mode: batch
    statistics, running buffers updated) on a batch of 64 8x8 images."""
    model = _same_weights(lib, build_cnn_bn)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    xb = rng.random((64, 1, 8, 8), dtype=np.float32)
    return _train_step(lib, model, opt, xb, rng.integers(0, 10, 64))


def build_transformer(lib):
    """The classifier of case (j): 2 ``TransformerEncoderLayer(64, 4, 128, batch_first=True)``,
    mean over the sequence, ``Linear(64, 10)``."""
    nn = lib.nn

    class EncoderClassifier(nn.Module):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, num_layers=2,
                                                 enable_nested_tensor=False)
            self.head = nn.Linear(64, 10)

        def forward(self, x):
            return self.head(self.encoder(x).mean(dim=1))

    return EncoderClassifier()


def transformer_case(lib):
    """(j) one Adam(lr=1e-3) step of the encoder classifier on a batch of 32 sequences of 32
    tokens of 64 features (training mode, so dropout is drawn in each library)."""
    model = _same_weights(lib, build_transformer)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    xb = rng.standard_normal((32, 32, 64), dtype=np.float32)
    return _train_step(lib, model, opt, xb, rng.integers(0, 10, 32))


def mlp_numpy_case():
    """(g) case (b) by hand in NumPy: forward, softmax cross-entropy, backward, SGD momentum."""
    import torch

    torch.manual_seed(0)
    ref = build_mlp(torch)
    params = [p.detach().numpy().copy() for p in ref.parameters()]
    bufs = [None] * len(params)
    xb, yb = _mlp_data()
    lr, momentum = 0.01, 0.9

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h1 = xb @ w1.T
        h1 += b1
        np.maximum(h1, 0, out=h1)
        h2 = h1 @ w2.T
        h2 += b2
        np.maximum(h2, 0, out=h2)
        z = h2 @ w3.T
        z += b3
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(axis=1, keepdims=True)
        p[np.arange(len(yb)), yb] -= 1
        dz = p / len(yb)                          # d mean(CE) / d logits
        dh2 = dz @ w3
        dh2 *= h2 > 0
        dh1 = dh2 @ w2
        dh1 *= h1 > 0
        grads = (dh1.T @ xb, dh1.sum(0), dh2.T @ h1, dh2.sum(0), dz.T @ h2, dz.sum(0))
        for i, (w, gr) in enumerate(zip(params, grads)):
            if bufs[i] is None:
                bufs[i] = gr.copy()
            else:
                bufs[i] *= momentum
                bufs[i] += gr
            w -= lr * bufs[i]

    return step


# ---------------------------------------------------------------------------- measuring


TIMER = time.perf_counter  # wall clock; ``--cpu-time`` sets ``time.process_time``


def interleaved_medians(fns, repeat: int, warmup: int = 3, number: int = 1):
    """Median seconds per call of each callable in ``fns``, timed in turn (f0, f1, f0, f1, ...).

    Each sample is ``number`` calls. The garbage collector stays enabled (collections that
    happen are part of a library's cost) but is not forced between samples: a full
    ``gc.collect()`` walks every Python object (PyTorch's included), leaves the caches cold and
    made every case here 20-50% slower, minigrad most (measured). The clock is `TIMER`: the
    wall clock, or the process's CPU time (``--cpu-time``), which on a machine whose cores are
    shared with other processes leaves out the time spent waiting for a core.
    """
    for f in fns:
        for _ in range(warmup):
            f()
    samples = [[] for _ in fns]
    for _ in range(repeat):
        for f, s in zip(fns, samples):
            t0 = TIMER()
            for _ in range(number):
                f()
            s.append((TIMER() - t0) / number)
    return [statistics.median(s) for s in samples]


def peak_numpy_bytes(fn) -> int:
    """Peak bytes allocated during ``fn()`` above those live before (tracemalloc: NumPy
    reports its array buffers to it, so this is minigrad's or hand-written NumPy's peak)."""
    fn()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def peak_torch_bytes(fn) -> int:
    """Peak bytes allocated by PyTorch's CPU allocator during ``fn()`` above those live before,
    from the memory events of ``torch.profiler`` (``profile_memory=True``)."""
    from torch.profiler import ProfilerActivity, profile

    fn()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    events = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    cur = peak = 0
    for e in sorted(events, key=lambda e: e.start_ns()):
        cur += e.nbytes()
        peak = max(peak, cur)
    return peak


# ---------------------------------------------------------------------------- the suite

CASES = [
    # key, label, builder, target ratio minigrad / torch
    ("chain", "(a) 1,000 elementwise ops on (16,), fwd+bwd", chain_case, 1.5),
    ("mlp", "(b) MLP 784-512-256-10 SGD step, batch 128", mlp_case, 1.0),
    ("cnn", "(c) demo CNN Adam step, batch 64", cnn_case, 2.0),
    ("conv2d", "(d) conv2d 32x3x32x32, 16 3x3, pad 1, fwd+bwd", conv2d_case, 2.0),
    ("make_dot", "(e) make_dot, 100-layer MLP (vs torchviz)", make_dot_case, 1.0),
    ("lstm", "(h) 2-layer LSTM SGD step, batch 32, seq 28, hidden 128", lstm_case, 1.5),
    ("cnn_bn", "(i) BatchNorm CNN SGD step, batch 64", cnn_bn_case, 1.5),
    ("transformer", "(j) 2-layer transformer encoder Adam step, batch 32, seq 32, d 64",
     transformer_case, 1.5),
]


def run_suite(repeat: int = 50, only=None, log=print) -> list[dict]:
    """Run the cases (all, or the keys in ``only``); returns one row of plain data per case.

    Row keys: ``key``, ``case``, ``unit`` ("ms" or "MiB"), ``minigrad``, ``torch``, ``ratio``
    (minigrad / torch), ``target``, ``met``; case (b) also has ``numpy`` and ``ratio_numpy``
    (minigrad / hand-written NumPy, target ``target_numpy``).
    """
    import torch

    import minigrad

    rows = []
    for key, label, build, target in CASES:
        if only and key not in only:
            continue
        m_fn, t_fn = build(minigrad), build(torch)
        fns = [m_fn] + ([t_fn] if t_fn else [])
        if key == "mlp":
            fns.append(mlp_numpy_case())
        times = interleaved_medians(fns, repeat)
        row = {"key": key, "case": label, "unit": "ms", "minigrad": 1e3 * times[0],
               "torch": 1e3 * times[1] if t_fn else float("nan"), "target": target}
        if key == "mlp":
            row.update(numpy=1e3 * times[2], target_numpy=1.2,
                       ratio_numpy=times[0] / times[2])
        rows.append(row)
        log(f"  {label}: minigrad {row['minigrad']:.3f} ms, torch {row['torch']:.3f} ms")
    if not only or "mlp_memory" in only:
        mib = 2.0 ** 20
        m_peak = peak_numpy_bytes(mlp_case(minigrad)) / mib
        t_peak = peak_torch_bytes(mlp_case(torch)) / mib
        np_peak = peak_numpy_bytes(mlp_numpy_case()) / mib
        rows.append({"key": "mlp_memory", "case": "(f) peak memory of (b)", "unit": "MiB",
                     "minigrad": m_peak, "torch": t_peak, "numpy": np_peak, "target": 1.2})
        log(f"  (f): minigrad {m_peak:.2f} MiB, torch {t_peak:.2f} MiB")
    for row in rows:
        row["ratio"] = row["minigrad"] / row["torch"]
        row["met"] = bool(row["ratio"] <= row["target"]
                          and row.get("ratio_numpy", 0) <= row.get("target_numpy", 1))
    return rows


def markdown_table(rows: list[dict]) -> str:
    """The rows as a Markdown table (one line per case, hand-written NumPy in its own column)."""
    lines = ["| case | minigrad | PyTorch | hand-written NumPy | ratio | target | met |",
             "|---|---:|---:|---:|---:|---:|:---:|"]
    for r in rows:
        unit = r["unit"]
        numpy_col = f"{r['numpy']:.2f} {unit}" if "numpy" in r else ""
        ratio = f"{r['ratio']:.2f}x"
        target = f"≤ {r['target']:.1f}x"
        if "ratio_numpy" in r:
            ratio += f" ({r['ratio_numpy']:.2f}x NumPy)"
            target += f" (≤ {r['target_numpy']:.1f}x NumPy)"
        lines.append(f"| {r['case']} | {r['minigrad']:.2f} {unit} | {r['torch']:.2f} {unit} | "
                     f"{numpy_col} | {ratio} | {target} | {'yes' if r['met'] else 'no'} |")
    return "\n".join(lines)
