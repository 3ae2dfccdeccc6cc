"""The built-in example models of ``minigrad doctor`` (``stuck``, ``nan``, ``healthy``,
``dead-relu``): user-level model code that happens to live inside the package.

Kept apart from `minigrad.debug.doctor` because the debugging tools treat this file as
*user code* (its lines are the ones a report points at: ``z = lib.log(h)``), while the
doctor's own code (the stand-in loss, the step) is internal and must never be blamed.

Each model is written once as ``build(lib)`` so the same code makes the minigrad and the torch
model; weights come from a NumPy generator, so both are identical (except the ``Sequential``
that ``stuck`` builds in ``forward``, which is random on every call — the bug).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["BUILTINS", "Builtin", "build_stuck", "build_nan", "build_healthy", "build_dead_relu"]

D_IN, HIDDEN, D_OUT, BATCH = 4, 8, 3, 16


def _example_input(lib, shape=(BATCH, D_IN), seed=0):
    arr = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return lib.tensor(arr)


def _set_weights(model, lib, seed=1, bias=None):
    """Fill every parameter from a NumPy generator (same numbers in both libraries);
    ``bias``: ``{parameter name: constant}`` overrides."""
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for name, p in model.named_parameters():
            arr = rng.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32)
            if name in (bias or {}):
                arr = np.full(tuple(p.shape), bias[name], np.float32)
            p.copy_(lib.tensor(arr))
    return model


def build_stuck(lib, fixed: bool = False):
    """The story's bug: a ``Sequential`` built inside ``forward`` (never registered, rebuilt
    with fresh weights on every call). ``fixed=True`` builds it once in ``__init__``."""
    nn = lib.nn

    class Stuck(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(HIDDEN, D_OUT)

        def forward(self, x):
            body = nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU())  # the bug
            return self.head(body(x))

    class Fixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU())
            self.head = nn.Linear(HIDDEN, D_OUT)

        def forward(self, x):
            return self.head(self.body(x))

    return _set_weights(Fixed() if fixed else Stuck(), lib), _example_input(lib)


def build_nan(lib):
    """``log`` of a negative number in the forward: NaN everywhere after it."""
    nn = lib.nn

    class LogNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(D_IN, HIDDEN)
            self.head = nn.Linear(HIDDEN, D_OUT)

        def forward(self, x):
            h = self.fc(x)
            z = lib.log(h)  # the bug: h has negative entries
            return self.head(z)

    return _set_weights(LogNet(), lib), _example_input(lib)


def build_healthy(lib):
    """A small MLP that trains normally: no findings."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, D_OUT))
    return _set_weights(model, lib), _example_input(lib)


def build_dead_relu(lib):
    """Every pre-activation of the ReLU is negative (bias -10): zero gradients before it."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, D_OUT))
    return _set_weights(model, lib, bias={"0.bias": -10.0}), _example_input(lib)


@dataclass(frozen=True)
class Builtin:
    """A built-in example model: ``build(lib) -> (model, x)``."""

    name: str
    description: str
    build: object


BUILTINS = {b.name: b for b in (
    Builtin("stuck", "a Sequential built inside forward(): never registered, never trained",
            build_stuck),
    Builtin("nan", "log of a negative number in forward(): NaN loss and gradients", build_nan),
    Builtin("healthy", "a small MLP with nothing wrong", build_healthy),
    Builtin("dead-relu", "all ReLU pre-activations negative: zero gradients", build_dead_relu),
)}
