"""``minigrad.optim``: ``Optimizer``, ``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``,
``Adamax``, ``NAdam``, ``RAdam``, ``Adadelta`` and the schedulers in ``optim.lr_scheduler``.
Mirrors ``torch/optim/__init__.py``."""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
           "Adadelta", "lr_scheduler"]


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
