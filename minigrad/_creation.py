"""Factory functions: ``tensor``, ``zeros``, ``ones``, ``full``, ``arange``, ``randn`` ...

Mirrors ``torch/_refs`` factory semantics: float32 by default for floating values, int64 for
Python ints, bool for bools; ``requires_grad=True`` is honoured even under ``no_grad`` and
rejected (RuntimeError) for non-float dtypes. Random numbers come from one NumPy generator
seeded by :func:`manual_seed` (values differ from PyTorch's RNG; distributions are the same).
"""

from __future__ import annotations

import numpy as np

from . import _dtype
from ._tensor import Tensor

_rng = np.random.default_rng()


def manual_seed(seed: int):
    """Seed minigrad's random generator (``torch.manual_seed``)."""
    global _rng
    _rng = np.random.default_rng(seed)
    return _rng


def default_generator() -> np.random.Generator:
    """The NumPy generator every random op draws from."""
    return _rng


def _finish(arr: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._make(arr)
    if requires_grad:
        if arr.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _np_dtype(dtype, default=np.float32):
    return np.dtype(default) if dtype is None else _dtype.to_numpy_dtype(dtype)


def _infer_dtype(arr: np.ndarray) -> np.dtype:
    if arr.dtype.kind == "f":
        return np.dtype(np.float32) if arr.dtype == np.float64 else arr.dtype
    if arr.dtype.kind in "iu":
        return np.dtype(np.int64) if arr.dtype.kind == "i" or arr.dtype.itemsize > 1 \
            else arr.dtype
    if arr.dtype.kind == "b":
        return arr.dtype
    raise TypeError(f"can't convert data of type {arr.dtype} to a tensor")


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a **copy** of ``data`` (``torch.tensor``).

    Python floats and float64 NumPy arrays become float32 unless ``dtype`` says otherwise
    (as PyTorch does for Python floats; note that torch keeps float64 for float64 arrays —
    minigrad does too: NumPy inputs keep their dtype).
    """
    if isinstance(data, Tensor):
        arr = np.array(data._data, copy=True)
    elif isinstance(data, np.ndarray):
        arr = np.array(data, copy=True)
    else:
        arr = np.array(_unwrap(data))
        arr = arr.astype(_infer_dtype(arr))
    if dtype is not None:
        arr = arr.astype(_dtype.to_numpy_dtype(dtype))
    return _finish(arr, requires_grad)


def _unwrap(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like :func:`tensor` but shares memory with a NumPy array or returns a tensor as is."""
    if isinstance(data, Tensor) and dtype is None:
        return data
    if isinstance(data, np.ndarray) and dtype is None:
        return Tensor._make(data)
    return tensor(data, dtype=dtype)


def from_numpy(arr: np.ndarray) -> Tensor:
    """Tensor sharing memory with ``arr`` (``torch.from_numpy``); keeps its dtype."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    _dtype.from_numpy_dtype(arr.dtype)
    return Tensor._make(arr)


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if int(s) < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
    return tuple(int(s) for s in size)


def zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Tensor of zeros with shape ``size`` (``torch.zeros``)."""
    return _finish(np.zeros(_shape(size), dtype=_np_dtype(dtype)), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Tensor of ones with shape ``size`` (``torch.ones``)."""
    return _finish(np.ones(_shape(size), dtype=_np_dtype(dtype)), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Uninitialised tensor (zeros here) with shape ``size`` (``torch.empty``)."""
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Tensor filled with ``fill_value`` (``torch.full``); dtype inferred from the value."""
    if dtype is None:
        dtype = np.bool_ if isinstance(fill_value, bool) else np.int64 if isinstance(
            fill_value, int) else np.float32
    return _finish(np.full(_shape((size,)), fill_value, dtype=_np_dtype(dtype)), requires_grad)



def zeros_like(input, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Zeros with ``input``'s shape and dtype (``torch.zeros_like``)."""
    return zeros(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Ones with ``input``'s shape and dtype (``torch.ones_like``)."""
    return ones(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``fill_value`` with ``input``'s shape and dtype (``torch.full_like``)."""
    return full(input.shape, fill_value, dtype=dtype or input.dtype, requires_grad=requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Evenly spaced values in ``[start, end)`` (``torch.arange``); int64 for int arguments."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_int = all(isinstance(v, int) for v in (start, end, step))
        dtype = np.int64 if is_int else np.float32
    return _finish(np.arange(start, end, step).astype(_np_dtype(dtype)), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` (``torch.linspace``)."""
    return _finish(np.linspace(start, end, steps).astype(_np_dtype(dtype)), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Identity matrix (``torch.eye``)."""
    return _finish(np.eye(n, m, dtype=_np_dtype(dtype)), requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None) -> Tensor:
    """Standard normal samples (``torch.randn``)."""
    dt = _np_dtype(dtype)
    return _finish(_rng.standard_normal(_shape(size)).astype(dt), requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None) -> Tensor:
    """Uniform samples in ``[0, 1)`` (``torch.rand``)."""
    dt = _np_dtype(dtype)
    return _finish(_rng.random(_shape(size)).astype(dt), requires_grad)


def randint(low, high=None, size=(), *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Integers in ``[low, high)`` (``torch.randint``); int64 by default."""
    if high is None:
        low, high = 0, low
    return _finish(_rng.integers(low, high, size=_shape((size,))).astype(_np_dtype(
        dtype, np.int64)), requires_grad)


def randperm(n, *, dtype=None, device=None) -> Tensor:
    """A random permutation of ``0..n-1`` (``torch.randperm``)."""
    return Tensor._make(_rng.permutation(n).astype(_np_dtype(dtype, np.int64)))


def randn_like(input, *, dtype=None, requires_grad=False) -> Tensor:
    """Normal samples with ``input``'s shape (``torch.randn_like``)."""
    return randn(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def rand_like(input, *, dtype=None, requires_grad=False) -> Tensor:
    """Uniform samples with ``input``'s shape (``torch.rand_like``)."""
    return rand(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)
