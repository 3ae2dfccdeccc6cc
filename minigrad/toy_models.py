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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["ToyModel", "TOY_MODELS", "get", "run"]


@dataclass(frozen=True)
class ToyModel:
    """A named toy network: ``build(lib) -> (model, x)``."""

    name: str
    description: str
    build: Callable


def _input(lib, *shape):
    arr = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
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


TOY_MODELS = {t.name: t for t in (
    ToyModel("mlp", "Linear-ReLU-Linear-ReLU-Linear", _mlp),
    ToyModel("cnn", "Conv2d-ReLU-MaxPool2d-Flatten-Linear", _cnn),
    ToyModel("residual", "h + block(h): two paths into one node", _residual),
    ToyModel("shared", "one Linear used twice", _shared),
    ToyModel("stuck", "a Sequential built inside forward (never registered)", _stuck),
    ToyModel("inplace", "ReLU(inplace=True) after a Linear", _inplace),
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
