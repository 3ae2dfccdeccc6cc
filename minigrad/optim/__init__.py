"""``minigrad.optim``: ``Optimizer``, ``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``.
Mirrors ``torch/optim/__init__.py``."""

from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
