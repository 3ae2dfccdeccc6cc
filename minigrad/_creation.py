"""Factory functions: ``tensor``, ``zeros``, ``ones``, ``full``, ``arange``, ``randn`` ...

Mirrors ``torch/_refs`` factory semantics: float32 by default for floating values, int64 for
Python ints, bool for bools; ``requires_grad=True`` is honoured even under ``no_grad`` and
rejected (RuntimeError) for non-float dtypes. Random numbers come from one NumPy generator
seeded by `manual_seed` (values differ from PyTorch's RNG; distributions are the same).
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _defaults, _dtype, _generator
from ._device import check_device
from ._generator import get_rng_state, manual_seed, set_rng_state  # noqa: F401  (old home)
from ._ops._util import quiet_fp
from ._ops.out import creation_out
from ._tensor import Tensor, _empty_layout


def default_generator() -> np.random.Generator:
    """The NumPy generator behind the default `minigrad.Generator` (what dropout, the
    initialisers and gradcheck draw from)."""
    return _generator.default._np


def _finish(arr: np.ndarray, requires_grad: bool, keep_layout: bool = False) -> Tensor:
    t = Tensor._make(arr)
    if keep_layout and not arr.size:  # an empty array's own strides (NumPy's 0s), as
        t._data = _empty_layout(arr, keep=True)  # torch.tensor(ndarray) keeps them
    if requires_grad:
        if not _dtype.is_float_np(arr.dtype):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _np_dtype(dtype, default=None):
    """The NumPy dtype for ``dtype=``; None gives ``default`` (the default float dtype)."""
    if dtype is None:
        return _defaults.FLOAT if default is None else np.dtype(default)
    return _dtype.to_numpy_dtype(dtype)


_INT64 = (-(2**63), 2**63 - 1)
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."
)


def _promote(dtypes) -> np.dtype:
    """PyTorch's promotion of element dtypes: the highest category (bool < int < float) wins,
    and within it the widest dtype (so ``[int64 tensor, 2.5]`` is float32, not float64)."""
    if not dtypes:
        return _defaults.FLOAT
    cat = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2}  # ("V": bfloat16, from ml_dtypes)
    top = max(cat[d.kind] for d in dtypes)
    return np.result_type(*[d for d in dtypes if cat[d.kind] == top])


def _infer(data, depth: int = 0):
    """``(shape, element dtypes)`` of nested data, with PyTorch's errors for ragged or
    unsupported input. Python floats count as the default dtype, ints as int64."""
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
        return (), [_defaults.FLOAT]
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


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor holding a **copy** of ``data`` (``torch.tensor``).

    ``data``: a number, a (nested) list/tuple of numbers or 0-dim tensors, a NumPy array, or a
    tensor. The dtype is inferred as PyTorch does: Python floats give the default dtype
    (float32 unless `set_default_dtype` changed it), ints int64, bools bool; NumPy arrays and
    scalars keep theirs (float64 stays float64); mixed elements promote (bool < int < float).
    ``requires_grad=True`` needs a float dtype (RuntimeError). ValueError for ragged lists,
    TypeError / RuntimeError for data that is not numeric; ``device`` must be the CPU.
    """
    check_device(device)
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
    check_device(device)
    if isinstance(data, Tensor) and dtype is None:
        return data
    if isinstance(data, np.ndarray) and dtype is None:
        return _finish(data, False, keep_layout=True)
    if isinstance(data, Tensor):
        return data.to(dtype)
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


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """Tensor of zeros with shape ``size`` (ints or one tuple) (``torch.zeros``); the default
    float dtype unless ``dtype`` is given. RuntimeError for a negative size, or requires_grad
    on a non-float dtype; ``device`` must be the CPU."""
    check_device(device)
    flat = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if any(int(s) < 0 for s in flat):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    if out is not None:
        return creation_out("zeros", out, lambda dt: np.zeros(_shape(size), dt), dtype,
                            requires_grad)
    return _finish(np.zeros(_shape(size), dtype=_np_dtype(dtype)), requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """Tensor of ones with shape ``size`` (``torch.ones``)."""
    check_device(device)
    if out is not None:
        return creation_out("ones", out, lambda dt: np.ones(_shape(size), dt), dtype,
                            requires_grad)
    return _finish(np.ones(_shape(size), dtype=_np_dtype(dtype)), requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None) -> Tensor:
    """Uninitialised tensor (zeros here) with shape ``size`` (``torch.empty``)."""
    if out is not None:  # (out keeps its values; resized only when its shape differs)
        return creation_out("empty", out, lambda dt: np.zeros(_shape(size), dt), dtype,
                            requires_grad, fill=False)
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False) -> Tensor:
    """Tensor filled with ``fill_value`` (``torch.full``); dtype inferred from the value
    (bool, int64, or the default float dtype)."""
    check_device(device)
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    if out is not None:
        return creation_out("full", out, lambda dt: np.full(_shape((size,)), fill_value, dt),
                            dtype, requires_grad)
    if dtype is None:
        dtype = np.bool_ if isinstance(fill_value, bool) else np.int64 if isinstance(
            fill_value, int) else _defaults.FLOAT
    return _finish(np.full(_shape((size,)), fill_value, dtype=_np_dtype(dtype)), requires_grad)


def _like_dtype(input, dtype):
    if not isinstance(input, Tensor):
        raise TypeError(f"argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.dtype if dtype is None else dtype


def like(input, dtype, memory_format, device, requires_grad, fill) -> Tensor:
    """A new tensor of ``input``'s shape (and dtype unless ``dtype``) holding ``fill`` (a
    number or an array of that shape), laid out as PyTorch's ``*_like`` functions: in
    ``preserve_format`` (the default) a dense input's strides are kept (a transposed input
    gives a transposed result), ``contiguous_format`` gives row-major strides."""
    from ._memory_format import contiguous_format
    from ._ops._util import empty_preserving

    check_device(device)
    dt = _np_dtype(_like_dtype(input, dtype))
    if memory_format is contiguous_format:
        arr = np.empty(input.shape, dt)
    else:
        arr = empty_preserving(input._data, dt)
    with quiet_fp():
        arr[...] = fill
    return _finish(arr, requires_grad)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    """Zeros with ``input``'s shape, dtype and layout (``torch.zeros_like``); never part of a
    graph (``requires_grad`` is the argument's, not ``input``'s)."""
    return like(input, dtype, memory_format, device, requires_grad, 0)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    """Ones with ``input``'s shape, dtype and layout (``torch.ones_like``)."""
    return like(input, dtype, memory_format, device, requires_grad, 1)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    """Uninitialised (zeros here) with ``input``'s shape, dtype and layout
    (``torch.empty_like``)."""
    return like(input, dtype, memory_format, device, requires_grad, 0)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    """``fill_value`` with ``input``'s shape, dtype and layout (``torch.full_like``); the value
    is cast to that dtype (``full_like(int_tensor, 2.7)`` holds 2s)."""
    return like(input, dtype, memory_format, device, requires_grad, fill_value)


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False) -> Tensor:
    """Evenly spaced values in ``[start, end)`` (``torch.arange``); int64 for int arguments,
    else the default float dtype."""
    check_device(device)
    if end is None:
        start, end = 0, start
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if out is not None:
        return creation_out("arange", out, lambda dt: np.arange(start, end, step).astype(dt),
                            dtype, requires_grad)
    if dtype is None:
        is_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if is_int else _defaults.FLOAT
    return _finish(np.arange(start, end, step).astype(_np_dtype(dtype)), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` (``torch.linspace``); the
    default float dtype. RuntimeError for negative ``steps``."""
    check_device(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if out is not None:
        return creation_out("linspace", out, lambda dt: np.linspace(start, end, steps).astype(
            dt), dtype, requires_grad)
    return _finish(np.linspace(start, end, steps).astype(_np_dtype(dtype)), requires_grad)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:
    """``steps`` values ``base ** linspace(start, end, steps)`` (``torch.logspace``)."""
    check_device(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _np_dtype(dtype)
    with quiet_fp():
        arr = np.power(float(base), np.linspace(start, end, steps))
    if out is not None:
        return creation_out("logspace", out, lambda d: arr.astype(d), dtype, requires_grad)
    return _finish(arr.astype(dt), requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad=False) -> Tensor:
    """Identity matrix ``(n, m)`` (``torch.eye``); ``m`` defaults to ``n``."""
    check_device(device)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    if out is not None:
        return creation_out("eye", out, lambda dt: np.eye(n, m, dtype=dt), dtype, requires_grad)
    return _finish(np.eye(n, m, dtype=_np_dtype(dtype)), requires_grad)


# ----------------------------------------------------------------- Tensor.new_* methods
def _new_dtype(self, dtype):
    return self.dtype if dtype is None else dtype


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False) -> Tensor:
    """Zeros of shape ``size`` with self's dtype unless ``dtype`` is given
    (``Tensor.new_zeros``)."""
    return zeros(*size, dtype=_new_dtype(self, dtype), device=device,
                 requires_grad=requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False) -> Tensor:
    """Ones of shape ``size`` with self's dtype (``Tensor.new_ones``)."""
    return ones(*size, dtype=_new_dtype(self, dtype), device=device, requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False) -> Tensor:
    """Uninitialised (zeros here) of shape ``size`` with self's dtype (``Tensor.new_empty``)."""
    return zeros(*size, dtype=_new_dtype(self, dtype), device=device,
                 requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False) -> Tensor:
    """``fill_value`` in shape ``size`` with self's dtype (``Tensor.new_full``)."""
    return full(tuple(size), fill_value, dtype=_new_dtype(self, dtype), device=device,
                requires_grad=requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False) -> Tensor:
    """A copy of ``data`` with self's dtype unless ``dtype`` is given (``Tensor.new_tensor``);
    warns as `tensor` does when ``data`` is a tensor."""
    if isinstance(data, Tensor):
        warnings.warn(COPY_CONSTRUCT_WARNING, UserWarning, stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tensor(data, dtype=_new_dtype(self, dtype), device=device,
                      requires_grad=requires_grad)


for _name in ("new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"):
    setattr(Tensor, _name, globals()[_name])
