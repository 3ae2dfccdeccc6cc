"""Datasets: ``Dataset``, ``IterableDataset``, ``TensorDataset``, ``ConcatDataset``,
``Subset``, ``random_split``.

Mirrors ``torch/utils/data/dataset.py``. A map-style `Dataset` answers ``dataset[i]`` (and
usually ``len``); an `IterableDataset` is iterated. `random_split` draws its permutation from
a `minigrad.Generator` (NumPy's numbers, so the split differs from PyTorch's for the same
seed; the same seed gives the same split in minigrad).
"""

from __future__ import annotations

import bisect
import math
import warnings

from ..._generator import numpy_rng as _rng
from ..._tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split"]


class Dataset:
    """A map-style dataset (``torch.utils.data.Dataset``): subclasses define
    ``__getitem__(index)`` and usually ``__len__``; ``a + b`` concatenates."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is iterated (``torch.utils.data.IterableDataset``): subclasses define
    ``__iter__``. A `DataLoader` batches what it yields, in order (no sampler, no shuffle)."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Samples are the rows of tensors of equal first dimension
    (``torch.utils.data.TensorDataset``): ``dataset[i]`` is ``tuple(t[i] for t in tensors)``,
    and a slice or index list gives the tuple of those rows.

    Raises:
        AssertionError: first dimensions that differ ("Size mismatch between tensors").
    """

    def __init__(self, *tensors: Tensor):
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), \
            "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """Several map-style datasets one after the other (``torch.utils.data.ConcatDataset``);
    ``cumulative_sizes`` holds the running lengths.

    Raises:
        AssertionError: no datasets, or an `IterableDataset` among them.
        ValueError: a negative index beyond the total length.
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), \
                "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes, total = [], 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if which == 0 else self.cumulative_sizes[which - 1]
        if which == len(self.datasets):
            raise IndexError("list index out of range")
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Several iterable datasets one after the other (``torch.utils.data.ChainDataset``);
    ``len`` is the sum of theirs.

    Raises:
        AssertionError: (when iterated or measured) a member that is not an
            `IterableDataset`.
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order (``torch.utils.data.Subset``);
    ``subset[[i, j]]`` gives a list of samples."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_of(fractions, n: int) -> list:
    """Split lengths for fractions summing to 1: each floor(n * f), then the remainder one by
    one to the splits in order (PyTorch's rule); a warning for each empty split."""
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
    lengths = [int(math.floor(n * frac)) for frac in fractions]
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                          "dataset.", UserWarning, stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=None) -> list:
    """Split ``dataset`` into non-overlapping `Subset` s of the given ``lengths`` (ints
    summing to ``len(dataset)``, or fractions summing to 1) in a random order drawn from
    ``generator`` (``torch.utils.data.random_split``).

    Raises:
        ValueError: lengths that do not add up, or a fraction outside [0, 1].
    """
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_of(lengths, n)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = _rng(generator, "random_split").permutation(n).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, order[start:start + length]))
        start += length
    return out
