"""``minigrad.utils.data``: datasets, samplers and the ``DataLoader``
(``torch/utils/data/__init__.py``).

The same layout as PyTorch's: `dataset` (``Dataset``, ``IterableDataset``, ``TensorDataset``,
``ConcatDataset``, ``Subset``, ``random_split``), `sampler`, `dataloader` and
``_utils/collate.py`` (``default_collate``, ``default_convert``).
"""

from ._utils.collate import default_collate, default_convert
from ._utils.worker import get_worker_info
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = ["DataLoader", "Dataset", "IterableDataset", "TensorDataset", "ConcatDataset",
           "Subset", "random_split", "default_collate", "default_convert", "Sampler",
           "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler", "ChainDataset", "get_worker_info"]


def __dir__():
    """`dir()` lists the public names (`__all__`) and the submodules."""
    from ..._namespace import public_dir

    return public_dir(globals())
