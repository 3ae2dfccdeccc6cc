"""``minigrad.optim``: ``Optimizer``, ``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``, and
the schedulers in ``optim.lr_scheduler``. Mirrors ``torch/optim/__init__.py``."""

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
