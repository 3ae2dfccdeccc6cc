"""``finfo`` and ``iinfo``: the numerical limits of the floating and integer dtypes.

Mirrors ``torch.finfo`` / ``torch.iinfo`` (``torch/csrc/TypeInfo.cpp``): the same attributes,
as Python ``float``/``int``/``str``, and the same printed form. The numbers come from
``numpy.finfo`` / ``numpy.iinfo`` (``ml_dtypes.finfo`` for bfloat16).
"""

from __future__ import annotations

import numpy as np

from . import _defaults, _dtype


def _dtype_arg(fn: str, type) -> _dtype.dtype:  # noqa: A002  (PyTorch's argument name)
    if not isinstance(type, _dtype.dtype):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be minigrad.dtype, not "
                        f"{type.__class__.__name__}")
    return type


class finfo:
    """Limits of a floating dtype (``torch.finfo``); ``finfo()`` describes the default dtype.

    Attributes:
        bits: bits per element. eps: the gap between 1.0 and the next larger number.
        max, min: the largest and the most negative finite numbers.
        tiny, smallest_normal: the smallest positive normal number (two names for it).
        resolution: ``10 ** -precision``, the decimal resolution.
        dtype: the dtype's name as a string (``'float32'``).

    Raises:
        TypeError: ``type`` is not a dtype, or not a floating one ("requires a floating point
            input type").
    """

    def __init__(self, type=None):  # noqa: A002  (PyTorch's argument name)
        d = _defaults.get_default_dtype() if type is None else _dtype_arg("finfo", type)
        if not d.is_floating_point:
            raise TypeError("minigrad.finfo() requires a floating point input type. Use "
                            "minigrad.iinfo to handle 'minigrad.finfo'")
        np_dtype = d.np  # (ImportError for bfloat16 without ml_dtypes)
        info = _dtype._ml_dtypes.finfo(np_dtype) if d is _dtype.bfloat16 else np.finfo(np_dtype)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # (exact in double, as PyTorch's)
        self.dtype = d.name

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype (``torch.iinfo``).

    Attributes: ``bits``, ``max``, ``min`` (Python ints), ``dtype`` (the name, ``'int8'``).

    Raises:
        TypeError: ``type`` is not a dtype, is floating ("requires an integer input type") or
            is bool ("minigrad.bool is not supported by minigrad.iinfo").
    """

    def __init__(self, type):  # noqa: A002  (PyTorch's argument name)
        d = _dtype_arg("iinfo", type)
        if d is _dtype.bool_:
            raise TypeError("minigrad.bool is not supported by minigrad.iinfo")
        if d.is_floating_point:
            raise TypeError("minigrad.iinfo() requires an integer input type. Use "
                            "minigrad.finfo to handle 'minigrad.iinfo'")
        info = np.iinfo(d.np)
        self.bits, self.max, self.min = int(info.bits), int(info.max), int(info.min)
        self.dtype = d.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
