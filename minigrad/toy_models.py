"""Small networks whose backward graphs are worth drawing, for minigrad and torch alike.

Each toy is built by ``build(lib)`` with ``lib`` = ``minigrad`` or ``torch`` and returns
``(model, x)``: the model (``lib.nn.Module``) and an input that does not require grad, made from
the same NumPy numbers in both libraries. ``minigrad graph NAME`` renders them side by side;
the viz tests compare their drawings with torchviz's.

* ``mlp``: ``Linear -> ReLU -> Linear -> ReLU -> Linear``.
* ``cnn``: ``Conv2d -> ReLU -> MaxPool2d -> Flatten -> Linear``.
* ``residual``: ``h = relu(fc(x)); h = h + block(h); head(h)``: a node with two paths into it.
* ``shared``: one ``Linear`` applied twice: its parameters feed two ``AddmmBackward0`` nodes.
* ``stuck``: a ``Sequential`` built inside ``forward`` — never registered, so its weights are
  not in ``named_parameters()`` (unnamed blue leaves) and no optimizer would train them.
* ``inplace``: ``ReLU(inplace=True)`` modifies the ``Linear`` output in place: the tensor's
  ``grad_fn`` becomes ``ReluBackward0`` on top of ``AddmmBackward0``.
* ``bn``: ``Conv2d -> BatchNorm2d -> ReLU -> Flatten -> Linear`` in training mode: one
  ``NativeBatchNormBackward0`` node takes the convolution's output and BatchNorm's weight and
  bias (its running statistics are buffers, not in the graph).
* ``lstm``: a one-layer ``LSTM`` over 3 steps, its last hidden state into a ``Linear``. PyTorch's
  CPU LSTM is a composition of ordinary ops (``AddmmBackward0``, ``UnsafeSplitBackward0``,
  ``SigmoidBackward0``, ``TanhBackward0``, ``MulBackward0``, ``StackBackward0``, ...) — in
  float64, so this toy is float64: in float32 both libraries record oneDNN's fused
  ``MkldnnRnnLayerBackward0`` per layer instead (``backends.mkldnn``).
* ``attention``: self-attention (``MultiheadAttention``, weights returned, so ``BmmBackward0``
  and ``SoftmaxBackward0`` are drawn), a residual ``x + attn`` and ``LayerNorm``, mean over the
  sequence, ``Linear``.

The second half of the module holds the networks ``minigrad demo --model`` trains on the
digits (`minigrad.demo.DEMOS`): `build_cnn_bn`, `build_lstm_classifier`,
`build_transformer_classifier`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["ToyModel", "TOY_MODELS", "get", "run", "build_cnn_bn", "build_lstm_classifier",
           "build_transformer_classifier"]


@dataclass(frozen=True)
class ToyModel:
    """A named toy network: ``build(lib) -> (model, x)``."""

    name: str
    description: str
    build: Callable


def _input(lib, *shape, dtype=np.float32):
    arr = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    return lib.tensor(arr)


def _mlp(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
    return model, _input(lib, 2, 4)


def _cnn(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(4 * 3 * 3, 3))
    return model, _input(lib, 2, 1, 8, 8)


def _residual(lib):
    nn = lib.nn

    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 8)
            self.block = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            h = self.fc(x).relu()
            h = h + self.block(h)
            return self.head(h)

    return Residual(), _input(lib, 2, 4)


def _shared(lib):
    nn = lib.nn

    class Shared(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.act = nn.ReLU()
            self.head = nn.Linear(4, 2)

        def forward(self, x):
            return self.head(self.act(self.fc(self.act(self.fc(x)))))

    return Shared(), _input(lib, 2, 4)


def _stuck(lib):
    nn = lib.nn

    class Stuck(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            # the bug: made on every call (on the input's device, so the model runs on a GPU)
            body = nn.Sequential(nn.Linear(4, 8), nn.ReLU()).to(x.device)
            return self.head(body(x))

    return Stuck(), _input(lib, 2, 4)


def _inplace(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Linear(8, 3))
    return model, _input(lib, 2, 4)


def _bn(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                          nn.Linear(4 * 6 * 6, 3))
    return model, _input(lib, 2, 1, 8, 8)


def _lstm(lib):
    nn = lib.nn

    class LastState(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 4)
            self.head = nn.Linear(4, 2)

        def forward(self, x):  # x: (sequence 3, batch 2, features 3)
            _, (h, _) = self.lstm(x)
            return self.head(h[-1])

    return LastState().double(), _input(lib, 3, 2, 3, dtype=np.float64)


def _attention(lib):
    nn = lib.nn

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(4, 2, batch_first=True)
            self.norm = nn.LayerNorm(4)
            self.head = nn.Linear(4, 2)

        def forward(self, x):  # x: (batch 2, sequence 3, embedding 4)
            a, _ = self.attn(x, x, x)
            return self.head(self.norm(x + a).mean(1))

    return SelfAttention(), _input(lib, 2, 3, 4)


TOY_MODELS = {t.name: t for t in (
    ToyModel("mlp", "Linear-ReLU-Linear-ReLU-Linear", _mlp),
    ToyModel("cnn", "Conv2d-ReLU-MaxPool2d-Flatten-Linear", _cnn),
    ToyModel("residual", "h + block(h): two paths into one node", _residual),
    ToyModel("shared", "one Linear used twice", _shared),
    ToyModel("stuck", "a Sequential built inside forward (never registered)", _stuck),
    ToyModel("inplace", "ReLU(inplace=True) after a Linear", _inplace),
    ToyModel("bn", "Conv2d-BatchNorm2d-ReLU-Flatten-Linear, training mode", _bn),
    ToyModel("lstm", "LSTM over 3 steps, last hidden state into a Linear (float64)", _lstm),
    ToyModel("attention", "MultiheadAttention, residual and LayerNorm, mean, Linear",
             _attention),
)}


def get(name: str) -> ToyModel:
    """The toy called ``name``; ValueError listing the choices for an unknown name."""
    try:
        return TOY_MODELS[name]
    except KeyError:
        raise ValueError(f"unknown toy model {name!r}; choose one of "
                         f"{', '.join(TOY_MODELS)}") from None


def run(name: str, lib, *, track: bool = False, seed: int = 0, device=None) -> dict:
    """Build toy ``name`` with ``lib`` and run it once (torch: on ``device`` if given).

    Returns ``{"model", "x", "output", "params", "tracker"}``: ``params`` is
    ``dict(model.named_parameters())``; ``tracker`` is a
    `minigrad.viz.ModuleTracker` recorded during the forward pass when ``track``,
    else None.
    """
    lib.manual_seed(seed)
    model, x = get(name).build(lib)
    if device is not None and str(device) != "cpu":
        model, x = model.to(device), x.to(device)
    tracker = None
    if track:
        from .viz import track_modules

        tracker = track_modules(model)
    out = model(x)
    if tracker is not None:
        tracker.remove()
    return {"model": model, "x": x, "output": out, "params": dict(model.named_parameters()),
            "tracker": tracker}


# ----------------------------------------------------------------------------- demo networks
def build_cnn_bn(lib):
    """The demo CNN with BatchNorm: ``(Conv2d -> BatchNorm2d -> ReLU) x 2`` with a
    ``MaxPool2d`` between, ``Flatten``, ``Linear``; 10 classes.

    Input (N, 1, 8, 8) float32, output (N, 10) logits. The convolutions have no bias (the
    BatchNorm that follows subtracts the mean anyway, and adds its own ``bias``). BatchNorm
    keeps ``running_mean``, ``running_var`` and ``num_batches_tracked`` buffers, so the model
    must be switched with ``train()`` / ``eval()``: in eval it normalises with the running
    statistics instead of the batch's. Mirrors ``torch.nn.BatchNorm2d``'s usual place in a CNN.
    """
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 8, kernel_size=3, padding=1, bias=False),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, kernel_size=3, padding=1, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(16 * 4 * 4, 10),
    )


def build_lstm_classifier(lib, hidden_size: int = 32):
    """An image read as a sequence: each of the 8 rows of a digit (8 pixels) is one step of a
    one-layer ``LSTM(8, hidden_size, batch_first=True)``; the last hidden state goes through a
    ``Linear(hidden_size, 10)``.

    Input (N, 8, 8) float32 (batch, rows = steps, pixels = features), output (N, 10) logits.
    Parameter names are PyTorch's (``lstm.weight_ih_l0``, ..., ``head.bias``).
    """
    nn = lib.nn

    class RowLSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(8, hidden_size, batch_first=True)
            self.head = nn.Linear(hidden_size, 10)

        def forward(self, x):
            _, (h, _) = self.lstm(x)  # h: (num_layers 1, N, hidden_size)
            return self.head(h[-1])

    return RowLSTM()


def build_transformer_classifier(lib, d_model: int = 48, nhead: int = 4):
    """A tiny transformer encoder over the 8 rows of a digit: ``Linear(8, d_model)`` embeds each
    row, a learned positional embedding (``pos``, a parameter of shape (1, 8, d_model), zeros at
    first) is added, one ``TransformerEncoderLayer(d_model, nhead, dim_feedforward=64,
    dropout=0.0, batch_first=True)`` mixes the rows, their mean goes through
    ``Linear(d_model, 10)``.

    Input (N, 8, 8) float32, output (N, 10) logits. Dropout is 0 so that both libraries
    compute the same numbers (their dropout masks come from different generators).
    """
    nn = lib.nn

    class RowTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(8, d_model)
            self.pos = nn.Parameter(lib.zeros(1, 8, d_model))
            self.encoder = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64,
                                                      dropout=0.0, batch_first=True)
            self.head = nn.Linear(d_model, 10)

        def forward(self, x):
            h = self.encoder(self.embed(x) + self.pos)  # (N, 8, d_model)
            return self.head(h.mean(1))

    return RowTransformer()
