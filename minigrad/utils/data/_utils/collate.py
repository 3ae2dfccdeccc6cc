"""How a list of samples becomes a batch: ``default_collate`` and ``default_convert``.

Mirrors ``torch/utils/data/_utils/collate.py``. `default_collate` looks at the first sample and
recurses into its structure: tensors are stacked along a new first dimension, NumPy arrays and
NumPy scalars become tensors (then stacked), Python floats a float64 tensor, ints an int64
tensor, strings stay a list; a mapping collates per key, a namedtuple per field, and any other
sequence is transposed (a batch of tuples gives a *list* of collated fields, as PyTorch's).
`collate` with ``collate_fn_map`` lets a type have its own rule (``default_collate_fn_map``).
"""

from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

from ...._creation import as_tensor, tensor
from ...._dtype import float64
from ...._ops.shape import stack
from ...._tensor import Tensor

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map"]

# NumPy dtype codes of byte strings, unicode and objects: arrays of those cannot be tensors
_NOT_NUMERIC = re.compile(r"[SaUO]")
COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                 "lists; found {}")


def _rebuild(like, items: dict | list):
    """A container of ``like``'s type holding ``items`` (a copy of a mutable one updated, a
    new one built otherwise; a plain dict / list when the type cannot be built that way)."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(items)
            return clone
        if isinstance(like, collections.abc.Mapping):
            return type(like)(items)
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` (a list of samples of one structure), with per-type rules from
    ``collate_fn_map`` (``{type or tuple of types: fn(batch, *, collate_fn_map)}``: an exact
    type match first, then the first key the sample is an instance of).

    Raises:
        RuntimeError: sequences of different lengths in one batch.
        TypeError: an element of a type with no rule (PyTorch's "default_collate: batch must
            contain tensors, numpy arrays, numbers, dicts or lists; found ...").
    """
    elem = batch[0]
    if collate_fn_map is not None:
        rule = collate_fn_map.get(type(elem))
        if rule is None:
            rule = next((fn for kind, fn in collate_fn_map.items() if isinstance(elem, kind)),
                        None)
        if rule is not None:
            return rule(batch, collate_fn_map=collate_fn_map)
    again = lambda samples: collate(samples, collate_fn_map=collate_fn_map)  # noqa: E731
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, {key: again([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(again(field) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [again(samples) for samples in zip(*batch)]
        return fields if isinstance(elem, tuple) else _rebuild(elem, fields)
    raise TypeError(COLLATE_ERROR.format(type(elem)))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Tensors: stacked along a new dimension 0 (their shapes must be equal)."""
    return stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """NumPy arrays: each as a tensor, then collated (TypeError for strings / objects)."""
    if _NOT_NUMERIC.search(batch[0].dtype.str) is not None:
        raise TypeError(COLLATE_ERROR.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars: one 1-D tensor of their dtype."""
    return as_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats: a float64 tensor (whatever the default dtype)."""
    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints (and bools): an int64 (bool) tensor."""
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes: the list as it is."""
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """The `DataLoader`'s default ``collate_fn`` (``torch.utils.data.default_collate``):
    `collate` with ``default_collate_fn_map``.

    A batch of ``(input_tensor, int_label)`` pairs gives ``[stacked_inputs, int64_labels]``;
    a batch of dicts gives a dict of batches."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """The ``collate_fn`` without batching (``batch_size=None``): NumPy arrays and scalars
    become tensors, containers are converted element by element, the rest stays as it is."""
    if isinstance(data, np.ndarray):
        return data if _NOT_NUMERIC.search(data.dtype.str) is not None else as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return as_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data
