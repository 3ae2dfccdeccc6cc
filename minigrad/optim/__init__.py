"""``minigrad.optim``: ``Optimizer``, ``SGD``, ``Adam``. Mirrors ``torch/optim/__init__.py``."""

from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam"]
