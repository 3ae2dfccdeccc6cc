"""Samplers: the order in which a `DataLoader` visits a map-style dataset.

Mirrors ``torch/utils/data/sampler.py``: ``Sampler``, ``SequentialSampler``, ``RandomSampler``
(``replacement``, ``num_samples``), ``SubsetRandomSampler``, ``WeightedRandomSampler`` and
``BatchSampler``, with PyTorch's argument checks. Random samplers draw from a
`minigrad.Generator` (``generator=``); without one, each pass draws a fresh seed from the
default generator, so `minigrad.manual_seed` makes shuffling reproducible. The orders are
NumPy's, not PyTorch's: the same seed gives the same order in minigrad only.
"""

from __future__ import annotations

import numpy as np

from ... import _generator
from ..._generator import numpy_rng

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


class Sampler:
    """Base class (``torch.utils.data.Sampler``): subclasses define ``__iter__`` yielding
    indices (and usually ``__len__``)."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self):
        raise NotImplementedError


def _positive_int(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


def _pass_rng(generator, fn: str) -> np.random.Generator:
    """The generator of one pass: ``generator``'s own, else one seeded from the default
    generator (as PyTorch seeds a fresh generator from its global one each pass)."""
    if generator is not None:
        return numpy_rng(generator, fn)
    return np.random.default_rng(int(_generator.default._np.integers(0, 2**63)))


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1`` (``torch.utils.data.SequentialSampler``)."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """Random indices into ``data_source`` (``torch.utils.data.RandomSampler``): a permutation
    of all of them, or ``num_samples`` (default ``len(data_source)``) drawn with
    ``replacement``; without replacement, more samples than items repeat whole permutations.

    Raises:
        TypeError: ``replacement`` not a bool.
        ValueError: ``num_samples`` not a positive int.
    """

    def __init__(self, data_source, replacement: bool = False, num_samples=None,
                 generator=None) -> None:
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        _positive_int("num_samples", self.num_samples)

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, rng = len(self.data_source), _pass_rng(self.generator, "RandomSampler")
        if self.replacement:
            yield from rng.integers(0, n, self.num_samples).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from rng.permutation(n).tolist()
        yield from rng.permutation(n)[:self.num_samples % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (``torch.utils.data.SubsetRandomSampler``)."""

    def __init__(self, indices, generator=None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self):
        rng = _pass_rng(self.generator, "SubsetRandomSampler")
        for i in rng.permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices ``0..len(weights)-1`` drawn with probabilities proportional to
    ``weights`` (``torch.utils.data.WeightedRandomSampler``), with ``replacement`` by default.

    Raises:
        ValueError: ``num_samples`` not a positive int, ``replacement`` not a bool, or
            ``weights`` not 1-D.
    """

    def __init__(self, weights, num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        _positive_int("num_samples", num_samples)
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        from ..._creation import as_tensor
        from ..._dtype import float64

        weights = as_tensor(weights, dtype=float64)
        if weights.ndim != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights, self.num_samples = weights, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        from ..._random import multinomial

        drawn = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        return iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (``torch.utils.data.BatchSampler``);
    the last, shorter batch is kept unless ``drop_last``.

    Raises:
        ValueError: ``batch_size`` not a positive int, ``drop_last`` not a bool.
    """

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        _positive_int("batch_size", batch_size)
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
