"""The default floating dtype: ``set_default_dtype`` / ``get_default_dtype``.

Mirrors ``torch.set_default_dtype`` (``torch/__init__.py``, ``c10/core/DefaultDtype.cpp``):
float32 at start. Everything that makes a floating tensor without being told a dtype follows
it: the factories (``zeros``, ``rand``, ``arange(0.5)`` ...), ``tensor([1.5])``, Python floats
in ops (``int_tensor * 0.5``), true division of integers, and module parameters and buffers
(``nn.Linear(2, 3).weight``).
"""

from __future__ import annotations

import numpy as np

from . import _dtype

FLOAT = np.dtype(np.float32)  # the NumPy dtype of the default dtype (read by the ops)
_allowed = ("float16", "float32", "float64", "bfloat16")


def set_default_dtype(d) -> None:
    """Make ``d`` (a floating dtype: float32, float64, float16) the default floating dtype.

    Raises:
        TypeError: ``d`` is not a minigrad dtype (``"invalid dtype object"``) or not a
            floating one (``"only floating-point types are supported as the default type"``).
    """
    global FLOAT
    if not isinstance(d, _dtype.dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    if d.name not in _allowed:
        raise TypeError("only floating-point types are supported as the default type")
    FLOAT = d.np


def get_default_dtype():
    """The default floating dtype (``torch.get_default_dtype``); ``minigrad.float32`` unless
    `set_default_dtype` changed it."""
    return _dtype.from_numpy_dtype(FLOAT)
