"""``minigrad.optim``: ``Optimizer``, ``SGD``, ``Adam``. Mirrors ``torch/optim/__init__.py``."""

from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam"]


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
