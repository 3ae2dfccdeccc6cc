"""``DataLoader``: batches of a dataset, in the order of a sampler, collated.

Mirrors ``torch/utils/data/dataloader.py``: the same arguments, defaults and checks (the
``ValueError`` s for options that exclude each other), the same attributes (``dataset``,
``batch_size``, ``drop_last``, ``sampler``, ``batch_sampler``, ``collate_fn``,
``generator``), ``len()``, map-style and iterable datasets, and auto-batching off with
``batch_size=None``. Loading always happens in the main process: ``num_workers > 0`` is
accepted (so PyTorch scripts run unchanged) with a one-time note, and ``pin_memory`` does
nothing but warn as PyTorch does without an accelerator.
"""

from __future__ import annotations

import warnings

from ._utils.collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]


class _SingleProcessDataLoaderIter:
    """One pass over a `DataLoader` (``torch``'s iterator of the same name): ``next()`` gives
    the next batch, ``len()`` the loader's length."""

    def __init__(self, loader: DataLoader):
        self._loader = loader
        self._batches = loader._batches()
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __next__(self):
        batch = next(self._batches)
        self._num_yielded += 1
        return batch

    def __len__(self) -> int:
        return len(self._loader)

WORKERS_NOTE = (
    "minigrad's DataLoader loads every batch in the main process: num_workers={} is accepted "
    "so PyTorch code runs unchanged, but no worker processes are started (minigrad computes "
    "with NumPy in one process). This note is shown once.")
_noted_workers = False
PIN_MEMORY_NOTE = ("'pin_memory' argument is set as true but no accelerator is found, then "
                   "device pinned memory won't be used.")


class DataLoader:
    """Iterate over ``dataset`` in batches (``torch.utils.data.DataLoader``).

    Args (PyTorch's): ``batch_size=1`` (None: no batching, each sample through
    ``collate_fn``), ``shuffle`` (a `RandomSampler` drawing from ``generator``), ``sampler``
    (indices) or ``batch_sampler`` (lists of indices), ``num_workers=0``, ``collate_fn``
    (default `default_collate`, or `default_convert` without batching), ``pin_memory``,
    ``drop_last=False`` (drop the last, short batch), ``timeout``, ``worker_init_fn``,
    ``multiprocessing_context``, ``generator``, keyword ``prefetch_factor``,
    ``persistent_workers``, ``pin_memory_device``, ``in_order``.

    Raises:
        ValueError: as PyTorch: a negative ``num_workers`` or ``timeout``;
            ``prefetch_factor`` / ``persistent_workers`` without workers; ``shuffle``,
            ``sampler`` or ``batch_sampler`` with an `IterableDataset`; ``sampler`` with
            ``shuffle``; ``batch_sampler`` with ``batch_size``, ``shuffle``, ``sampler`` or
            ``drop_last``; ``batch_size=None`` with ``drop_last``; setting ``batch_size``,
            ``batch_sampler``, ``sampler``, ``drop_last`` or ``dataset`` after construction.
        TypeError: ``len()`` of a loader over an iterable dataset without ``__len__``.
    """

    _frozen = False

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler=None, batch_sampler=None, num_workers: int = 0, collate_fn=None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True):
        global _noted_workers
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            for name, value, unset in (("shuffle", shuffle, shuffle in (False, None)),
                                       ("sampler", sampler, sampler is None),
                                       ("batch_sampler", batch_sampler, batch_sampler is None)):
                if not unset:
                    raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                     f"{name} option, but got {name}={value}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if num_workers > 0 and not _noted_workers:
            _noted_workers = True
            warnings.warn(WORKERS_NOTE.format(num_workers), UserWarning, stacklevel=2)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn, self.prefetch_factor = worker_init_fn, prefetch_factor
        self.multiprocessing_context, self.persistent_workers = (multiprocessing_context,
                                                                 persistent_workers)
        self.pin_memory_device, self.in_order = pin_memory_device, in_order
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._frozen = True

    def __setattr__(self, name, value) -> None:
        if self._frozen and name in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                     "dataset", "persistent_workers"):
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None or (isinstance(self.dataset, IterableDataset)
                                                  and self.batch_size is not None)

    def _fetch(self, indices: list) -> list:
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is not None:
            return getitems(indices)
        return [self.dataset[i] for i in indices]

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        if self.pin_memory:
            warnings.warn(PIN_MEMORY_NOTE, UserWarning, stacklevel=2)
        return _SingleProcessDataLoaderIter(self)

    def _batches(self):
        if isinstance(self.dataset, IterableDataset):
            yield from self._iter_iterable()
        elif self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn(self._fetch(list(indices)))
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def _iter_iterable(self):
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
