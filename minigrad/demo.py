"""``minigrad demo``: train the same CNN on real digits with minigrad and PyTorch, side by side.

The data is scikit-learn's bundled handwritten digits (``load_digits``: 1797 images of 8x8,
grey levels 0..16, no download). Both libraries get the same initial weights (PyTorch's,
copied with ``load_state_dict``), the same optimizer settings and the same batches; the
training loop (`train_step`) is written once and runs unchanged on either library, which
is the point: ``import minigrad as torch`` works for this code.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

import numpy as np

from .parity import graph_trace, to_numpy


def build_cnn(lib):
    """Conv2d → ReLU → MaxPool2d → Conv2d → ReLU → Flatten → Linear, for 1x8x8 inputs.

    ``lib`` is ``minigrad`` or ``torch``; the same code builds both models.
    """
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 8, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(16 * 4 * 4, 10),
    )


def make_optimizer(lib, model, name: str, lr: float):
    """``SGD(momentum=0.9)`` or ``Adam`` over ``model.parameters()`` in ``lib``."""
    if name == "sgd":
        return lib.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    if name == "adam":
        return lib.optim.Adam(model.parameters(), lr=lr)
    raise ValueError(f"unknown optimizer {name!r} (expected 'sgd' or 'adam')")


def train_step(lib, model, optimizer, xb, yb):
    """One step of plain PyTorch-style training; works unchanged for minigrad and torch.

    ``xb``: float32 array (N, 1, 8, 8); ``yb``: int64 array (N,). Returns the loss tensor
    (its graph is still readable: only its saved tensors were freed by ``backward``).
    """
    x, y = lib.tensor(xb), lib.tensor(yb)
    optimizer.zero_grad()
    loss = lib.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def accuracy(lib, model, x: np.ndarray, y: np.ndarray) -> float:
    """Fraction of ``x`` classified as ``y`` (evaluated under ``no_grad``)."""
    with lib.no_grad():
        pred = model(lib.tensor(x)).argmax(1)
    return float((to_numpy(pred) == y).mean())


def load_digits_split(seed: int):
    """Digits scaled to [0, 1] as (N, 1, 8, 8) float32, split 80/20 (stratified, fixed seed)."""
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError as e:
        raise SystemExit("minigrad demo needs scikit-learn: pip install 'minigrad[tutorials]'") \
            from e
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    return train_test_split(x, y, test_size=0.2, random_state=seed, stratify=y)


def max_param_diff(mg_model, torch_model) -> float:
    """Largest absolute difference between corresponding parameters of the two models."""
    ours = dict(mg_model.named_parameters())
    return max(float(np.max(np.abs(to_numpy(ours[name]) - to_numpy(p))))
               for name, p in torch_model.named_parameters())


@dataclass
class EpochRow:
    """One line of the demo's table."""

    epoch: int
    loss: dict = field(default_factory=dict)  # library name -> mean train loss
    acc: dict = field(default_factory=dict)  # library name -> test accuracy (0..1)
    max_diff: float = 0.0
    seconds: dict = field(default_factory=dict)


@dataclass
class DemoResult:
    """What the demo measured: per-epoch rows and the first-step graph comparison."""

    rows: list
    graphs_identical: bool
    first_graph: list


def run_demo(epochs: int = 8, optimizer: str = "sgd", lr: float | None = None, seed: int = 0,
             batch_size: int = 64, progress=None) -> DemoResult:
    """Train minigrad's and PyTorch's copies of `build_cnn` in lockstep.

    ``progress(step, total)`` is called after every step when given. Returns a
    `DemoResult`; raises SystemExit with install advice when torch/sklearn are missing.
    """
    try:
        import torch
    except ImportError as e:
        raise SystemExit("minigrad demo compares against PyTorch: pip install torch (CPU wheel "
                         "first on a CPU-only machine), then pip install 'minigrad[test]'") from e
    # Tiny batches: threads only add contention (a multi-threaded BLAS on small matrices is many
    # times slower on a busy machine), and one thread each makes the timing comparison fair.
    torch.set_num_threads(1)
    with _one_blas_thread():
        return _train_both(epochs, optimizer, lr, seed, batch_size, progress, torch)


def _one_blas_thread():
    """Limit NumPy's BLAS to one thread while the demo runs (threadpoolctl, from scikit-learn)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - installed with scikit-learn
        return contextlib.nullcontext()
    return threadpool_limits(limits=1)


def _train_both(epochs, optimizer, lr, seed, batch_size, progress, torch) -> DemoResult:
    import minigrad

    if lr is None:
        lr = 0.05 if optimizer == "sgd" else 3e-3
    x_train, x_test, y_train, y_test = load_digits_split(seed)
    torch.manual_seed(seed)
    t_model = build_cnn(torch)
    m_model = build_cnn(minigrad)
    m_model.load_state_dict(t_model.state_dict())
    libs = {"minigrad": (minigrad, m_model, make_optimizer(minigrad, m_model, optimizer, lr)),
            "torch": (torch, t_model, make_optimizer(torch, t_model, optimizer, lr))}

    rng = np.random.default_rng(seed)
    steps_per_epoch = -(-len(x_train) // batch_size)
    rows, graphs_identical, first_graph = [], None, []
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(x_train))
        row = EpochRow(epoch)
        losses = {name: [] for name in libs}
        for step in range(steps_per_epoch):
            idx = order[step * batch_size:(step + 1) * batch_size]
            graphs = {}
            for name, (lib, model, opt) in libs.items():
                t0 = time.perf_counter()
                loss = train_step(lib, model, opt, x_train[idx], y_train[idx])
                row.seconds[name] = row.seconds.get(name, 0.0) + time.perf_counter() - t0
                losses[name].append(loss.item())
                if graphs_identical is None:
                    graphs[name] = graph_trace(loss)
            if graphs_identical is None:
                first_graph = graphs["minigrad"]
                graphs_identical = graphs["minigrad"] == graphs["torch"]
            if progress is not None:
                progress((epoch - 1) * steps_per_epoch + step + 1, epochs * steps_per_epoch)
        for name, (lib, model, _) in libs.items():
            row.loss[name] = float(np.mean(losses[name]))
            row.acc[name] = accuracy(lib, model, x_test, y_test)
        row.max_diff = max_param_diff(m_model, t_model)
        rows.append(row)
    return DemoResult(rows, bool(graphs_identical), first_graph)
