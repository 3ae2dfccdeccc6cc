"""Factory functions: ``tensor``, ``zeros``, ``ones``, ``full``, ``arange``, ``randn`` ...

Mirrors ``torch/_refs`` factory semantics: float32 by default for floating values, int64 for
Python ints, bool for bools; ``requires_grad=True`` is honoured even under ``no_grad`` and
rejected (RuntimeError) for non-float dtypes. Random numbers come from one NumPy generator
seeded by `manual_seed` (values differ from PyTorch's RNG; distributions are the same).
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _dtype
from ._ops._util import quiet_fp
from ._tensor import Tensor, _empty_layout

_rng = np.random.default_rng()


def manual_seed(seed: int):
    """Seed minigrad's random generator (``torch.manual_seed``)."""
    global _rng
    _rng = np.random.default_rng(seed)
    return _rng


def default_generator() -> np.random.Generator:
    """The NumPy generator every random op draws from."""
    return _rng


def get_rng_state() -> Tensor:
    """The state of minigrad's random generator as a uint8 tensor (``torch.get_rng_state``).

    Like PyTorch's, the bytes are opaque: give them back to `set_rng_state` to replay the same
    random numbers (what `minigrad.utils.checkpoint` does to recompute a dropout mask). Here
    they encode NumPy's PCG64 state: 16 bytes of state, 16 of increment, a flag and 4 bytes
    of a buffered 32-bit value."""
    state = _rng.bit_generator.state
    parts = (state["state"]["state"].to_bytes(16, "little"),
             state["state"]["inc"].to_bytes(16, "little"),
             bytes([state["has_uint32"]]), int(state["uinteger"]).to_bytes(4, "little"))
    return Tensor._make(np.frombuffer(b"".join(parts), dtype=np.uint8).copy())


def set_rng_state(new_state: Tensor) -> None:
    """Restore a state given by `get_rng_state` (``torch.set_rng_state``).

    Raises:
        TypeError: ``new_state`` is not a uint8 tensor.
        RuntimeError: it does not have the length `get_rng_state` gives.
    """
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a minigrad.ByteTensor, but got {type(new_state).__name__}")
    if new_state._data.dtype != np.uint8:
        raise TypeError("RNG state must be a minigrad.ByteTensor")
    raw = new_state._data.tobytes()
    if len(raw) != 37:
        raise RuntimeError("Expected a CPUGeneratorImplState of size 37 but found the input RNG "
                           f"state size to be {len(raw)}")
    _rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": int.from_bytes(raw[:16], "little"),
                  "inc": int.from_bytes(raw[16:32], "little")},
        "has_uint32": raw[32], "uinteger": int.from_bytes(raw[33:], "little")}


def _finish(arr: np.ndarray, requires_grad: bool, keep_layout: bool = False) -> Tensor:
    t = Tensor._make(arr)
    if keep_layout and not arr.size:  # an empty array's own strides (NumPy's 0s), as
        t._data = _empty_layout(arr, keep=True)  # torch.tensor(ndarray) keeps them
    if requires_grad:
        if arr.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _np_dtype(dtype, default=np.float32):
    return np.dtype(default) if dtype is None else _dtype.to_numpy_dtype(dtype)


_INT64 = (-(2**63), 2**63 - 1)
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."
)


def _promote(dtypes) -> np.dtype:
    """PyTorch's promotion of element dtypes: the highest category (bool < int < float) wins,
    and within it the widest dtype (so ``[int64 tensor, 2.5]`` is float32, not float64)."""
    if not dtypes:
        return np.dtype(np.float32)
    cat = {"b": 0, "u": 1, "i": 1, "f": 2}
    top = max(cat[d.kind] for d in dtypes)
    return np.result_type(*[d for d in dtypes if cat[d.kind] == top])


def _infer(data, depth: int = 0):
    """``(shape, element dtypes)`` of nested data, with PyTorch's errors for ragged or
    unsupported input. Python floats count as float32 (the default dtype), ints as int64."""
    if isinstance(data, Tensor):
        return tuple(data.shape), [data._data.dtype]
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        return data.shape, [data.dtype]
    if isinstance(data, (bool, np.bool_)):
        return (), [np.dtype(np.bool_)]
    if isinstance(data, np.generic):
        _dtype.from_numpy_dtype(data.dtype)
        return (), [data.dtype]
    if isinstance(data, int):
        if not _INT64[0] <= data <= _INT64[1]:
            raise ValueError("Overflow when unpacking long long")
        return (), [np.dtype(np.int64)]
    if isinstance(data, float):
        return (), [np.dtype(np.float32)]
    if isinstance(data, (list, tuple)):
        if len(data) == 0:
            return (0,), []
        subs = [_infer(d, depth + 1) for d in data]
        first = subs[0][0]
        for shape, _ in subs[1:]:
            if (len(shape) == 0) != (len(first) == 0):
                raise TypeError("not a sequence")
            if shape[:1] != first[:1]:
                raise ValueError(f"expected sequence of length {first[0]} at dim {depth + 1} "
                                 f"(got {shape[0]})")
        return (len(data),) + first, [d for _, ds in subs for d in ds]
    if data is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    raise TypeError(f"new(): invalid data type '{type(data).__name__}'")


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a **copy** of ``data`` (``torch.tensor``).

    ``data``: a number, a (nested) list/tuple of numbers or 0-dim tensors, a NumPy array, or a
    tensor. The dtype is inferred as PyTorch does: Python floats give float32, ints int64,
    bools bool; NumPy arrays and scalars keep theirs (float64 stays float64); mixed elements
    promote (bool < int < float). ``requires_grad=True`` needs a float dtype (RuntimeError).
    ValueError for ragged lists, TypeError / RuntimeError for data that is not numeric.
    """
    if isinstance(data, Tensor):
        warnings.warn(COPY_CONSTRUCT_WARNING, UserWarning, stacklevel=2)
    if isinstance(data, np.ndarray):  # (the common case, e.g. a batch: no promotion)
        own = _dtype.from_numpy_dtype(data.dtype)  # (TypeError for a dtype minigrad lacks)
        dt = own.np if dtype is None else _dtype.to_numpy_dtype(dtype)
    else:
        _, dtypes = _infer(data)
        dt = _dtype.to_numpy_dtype(dtype) if dtype is not None else _promote(dtypes)
    with quiet_fp():
        arr = np.array(_unwrap(data), dtype=dt)
    return _finish(arr, requires_grad, keep_layout=isinstance(data, np.ndarray))


def _unwrap(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like `tensor` but shares memory with a NumPy array or returns a tensor as is."""
    if isinstance(data, Tensor) and dtype is None:
        return data
    if isinstance(data, np.ndarray) and dtype is None:
        return _finish(data, False, keep_layout=True)
    return tensor(data, dtype=dtype)


def from_numpy(arr: np.ndarray) -> Tensor:
    """Tensor sharing memory with ``arr`` (``torch.from_numpy``); keeps its dtype."""
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    _dtype.from_numpy_dtype(arr.dtype)
    return _finish(arr, False, keep_layout=True)


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if int(s) < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
    return tuple(int(s) for s in size)


def zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Tensor of zeros with shape ``size`` (ints or one tuple) (``torch.zeros``); float32 by
    default. RuntimeError for a negative size, or requires_grad on a non-float dtype."""
    flat = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if any(int(s) < 0 for s in flat):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return _finish(np.zeros(_shape(size), dtype=_np_dtype(dtype)), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Tensor of ones with shape ``size`` (``torch.ones``)."""
    return _finish(np.ones(_shape(size), dtype=_np_dtype(dtype)), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Uninitialised tensor (zeros here) with shape ``size`` (``torch.empty``)."""
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Tensor filled with ``fill_value`` (``torch.full``); dtype inferred from the value."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
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
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        is_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if is_int else np.float32
    return _finish(np.arange(start, end, step).astype(_np_dtype(dtype)), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` (``torch.linspace``)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return _finish(np.linspace(start, end, steps).astype(_np_dtype(dtype)), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Identity matrix (``torch.eye``)."""
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
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
    """Integers in ``[low, high)`` (``torch.randint``); int64 by default. Called as
    ``randint(high, size)`` or ``randint(low, high, size)``."""
    if isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    elif high is None:
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
