"""``minigrad demo``: train the same network on real digits with minigrad and PyTorch, side by
side.

The data is scikit-learn's bundled handwritten digits (``load_digits``: 1797 images of 8x8,
grey levels 0..16, no download). Both libraries get the same initial weights (PyTorch's,
copied with ``load_state_dict``, buffers included), the same optimizer settings and the same
batches; the training loop (`train_step`) is written once and runs unchanged on either
library, which is the point: ``import minigrad as torch`` works for this code.

``--model`` picks the network (`DEMOS`; each states the test accuracy both libraries reach
with its defaults, which the tests assert):

* ``cnn`` (default): `build_cnn`, images (N, 1, 8, 8);
* ``cnn-bn``: `minigrad.toy_models.build_cnn_bn`, the CNN with ``BatchNorm2d`` (trained in
  ``train()`` mode, evaluated in ``eval()`` mode with the running statistics);
* ``lstm``: `minigrad.toy_models.build_lstm_classifier`, each digit read as a sequence of 8
  rows of 8 pixels (N, 8, 8);
* ``transformer``: `minigrad.toy_models.build_transformer_classifier`, the same sequences
  through one ``TransformerEncoderLayer``.

The last column of the table is the largest difference between the two models' parameters and
buffers. For ``cnn`` and ``lstm`` it stays near float32 rounding (1e-7..1e-5); for ``cnn-bn``
and ``transformer`` it grows to 1e-2..1e-1 over the epochs while losses and accuracies stay
together: a ReLU input within rounding of 0 falls on different sides of the kink in the two
libraries, and Adam's first steps turn tiny gradient differences into steps of size ``lr``.
In float64 the same runs agree to ~1e-12 (``tests/cli/test_demo.py``).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

import numpy as np

from .parity import graph_trace, to_numpy
from .toy_models import build_cnn_bn, build_lstm_classifier, build_transformer_classifier


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

    ``xb``: float32 array, the model's input ((N, 1, 8, 8) images or (N, 8, 8) rows); ``yb``:
    int64 array (N,). Returns the loss tensor
    (its graph is still readable: only its saved tensors were freed by ``backward``).
    """
    x, y = lib.tensor(xb), lib.tensor(yb)
    optimizer.zero_grad()
    loss = lib.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def accuracy(lib, model, x: np.ndarray, y: np.ndarray) -> float:
    """Fraction of ``x`` classified as ``y``, evaluated in ``eval()`` mode under ``no_grad``
    (BatchNorm then uses its running statistics); the model is put back in ``train()`` mode."""
    model.eval()
    try:
        with lib.no_grad():
            pred = model(lib.tensor(x)).argmax(1)
    finally:
        model.train()
    return float((to_numpy(pred) == y).mean())


@dataclass(frozen=True)
class Demo:
    """One ``--model`` of the demo: the network, how it reads a digit, its default settings
    and the test accuracy both libraries reach with them (``target``, asserted by the tests).

    ``layout`` is ``"image"`` (N, 1, 8, 8) or ``"rows"`` (N, 8, 8: 8 steps of 8 pixels).
    """

    name: str
    description: str
    build: object
    layout: str
    optimizer: str
    lr: float
    epochs: int
    target: float


#: The networks ``minigrad demo --model NAME`` trains (defaults: batch 64, seed 0).
DEMOS = {d.name: d for d in (
    Demo("cnn", "CNN", build_cnn, "image", "sgd", 0.05, 8, 0.90),
    Demo("cnn-bn", "CNN with BatchNorm2d", build_cnn_bn, "image", "sgd", 0.05, 3, 0.95),
    Demo("lstm", "LSTM over the 8 rows", build_lstm_classifier, "rows", "adam", 0.02, 6, 0.90),
    Demo("transformer", "transformer encoder layer over the 8 rows",
         build_transformer_classifier, "rows", "adam", 0.005, 5, 0.90),
)}


def load_digits_split(seed: int, layout: str = "image"):
    """Digits scaled to [0, 1] as float32 (N, 1, 8, 8) for ``layout="image"``, (N, 8, 8) for
    ``"rows"`` (batch, 8 rows as steps, 8 pixels as features), split 80/20 (stratified, fixed
    seed)."""
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError as e:
        raise SystemExit("minigrad demo needs scikit-learn: pip install 'minigrad[tutorials]'") \
            from e
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)
    if layout == "image":
        x = x[:, None, :, :]
    y = digits.target.astype(np.int64)
    return train_test_split(x, y, test_size=0.2, random_state=seed, stratify=y)


def max_param_diff(mg_model, torch_model) -> float:
    """Largest absolute difference between corresponding parameters of the two models."""
    ours = dict(mg_model.named_parameters())
    return max(float(np.max(np.abs(to_numpy(ours[name]) - to_numpy(p))))
               for name, p in torch_model.named_parameters())


def max_state_diff(mg_model, torch_model) -> float:
    """Largest absolute difference between corresponding ``state_dict`` entries of the two
    models: parameters and buffers (BatchNorm's running statistics and batch counts)."""
    ours = mg_model.state_dict()
    return max(float(np.max(np.abs(to_numpy(ours[name]).astype(np.float64)
                                   - to_numpy(t).astype(np.float64))))
               for name, t in torch_model.state_dict().items())


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


def run_demo(epochs: int | None = None, optimizer: str | None = None, lr: float | None = None,
             seed: int = 0, batch_size: int = 64, progress=None, model: str = "cnn"
             ) -> DemoResult:
    """Train minigrad's and PyTorch's copies of the network ``model`` (a key of `DEMOS`) in
    lockstep; ``epochs``, ``optimizer`` and ``lr`` default to the model's own (`Demo`).

    ``progress(step, total)`` is called after every step when given. Returns a
    `DemoResult`; raises SystemExit with install advice when torch/sklearn are missing and
    ValueError for an unknown ``model``.
    """
    if model not in DEMOS:
        raise ValueError(f"unknown demo model {model!r}; choose one of {', '.join(DEMOS)}")
    demo = DEMOS[model]
    epochs = demo.epochs if epochs is None else epochs
    optimizer = demo.optimizer if optimizer is None else optimizer
    if lr is None and optimizer == demo.optimizer:
        lr = demo.lr
    try:
        import torch
    except ImportError as e:
        raise SystemExit("minigrad demo compares against PyTorch: pip install torch (CPU wheel "
                         "first on a CPU-only machine), then pip install 'minigrad[test]'") from e
    # Tiny batches: threads only add contention (a multi-threaded BLAS on small matrices is many
    # times slower on a busy machine), and one thread each makes the timing comparison fair.
    torch.set_num_threads(1)
    with _one_blas_thread():
        return _train_both(demo, epochs, optimizer, lr, seed, batch_size, progress, torch)


def _one_blas_thread():
    """Limit NumPy's BLAS to one thread while the demo runs (threadpoolctl, from scikit-learn)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - installed with scikit-learn
        return contextlib.nullcontext()
    return threadpool_limits(limits=1)


def _train_both(demo, epochs, optimizer, lr, seed, batch_size, progress, torch) -> DemoResult:
    import minigrad

    if lr is None:
        lr = 0.05 if optimizer == "sgd" else 3e-3
    x_train, x_test, y_train, y_test = load_digits_split(seed, demo.layout)
    torch.manual_seed(seed)
    t_model = demo.build(torch)
    m_model = demo.build(minigrad)
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
        row.max_diff = max_state_diff(m_model, t_model)
        rows.append(row)
    return DemoResult(rows, bool(graphs_identical), first_graph)
