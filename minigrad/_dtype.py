"""Data types: a thin, PyTorch-named wrapper over NumPy dtypes.

Mirrors ``torch.dtype`` (``torch/_C/__init__.pyi``): ``minigrad.float32`` prints as
``minigrad.float32`` and knows whether it is floating point. The default dtype for tensors made
from Python floats is ``float32``, as in PyTorch.
"""

from __future__ import annotations

import numpy as np


class dtype:
    """A tensor element type (``minigrad.float32`` ...), mirroring ``torch.dtype``.

    Attributes: ``np`` (the NumPy dtype that stores it), ``is_floating_point`` (bool),
    ``itemsize`` (bytes per element).
    """

    def __init__(self, name: str, np_dtype, legacy: str, c_name: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.itemsize = self.np.itemsize
        self._legacy = legacy  # legacy type name, as in ``torch.FloatTensor``
        self._c_name = c_name  # C++ type name used in some messages (``float != double``)

    def __repr__(self) -> str:
        return f"minigrad.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


float32 = dtype("float32", np.float32, "FloatTensor", "float")
float64 = dtype("float64", np.float64, "DoubleTensor", "double")
float16 = dtype("float16", np.float16, "HalfTensor", "c10::Half")
int64 = dtype("int64", np.int64, "LongTensor", "long int")
int32 = dtype("int32", np.int32, "IntTensor", "int")
uint8 = dtype("uint8", np.uint8, "ByteTensor", "unsigned char")
bool_ = dtype("bool", np.bool_, "BoolTensor", "bool")

_ALL = [float32, float64, float16, int64, int32, uint8, bool_]
_FROM_NP = {d.np: d for d in _ALL}


def _by_name(name: str) -> dtype:
    return {d.name: d for d in _ALL}[name]


def from_numpy_dtype(np_dtype) -> dtype:
    """The minigrad dtype for a NumPy dtype; raises TypeError for unsupported ones."""
    found = _FROM_NP.get(np_dtype)  # (an array's own dtype: no conversion needed)
    if found is not None:
        return found
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only "
                        "supported types are: float64, float32, float16, int64, int32, uint8, "
                        "and bool.") from None


def to_numpy_dtype(d) -> np.dtype:
    """NumPy dtype for a minigrad dtype, a torch dtype (by name), a NumPy dtype or a Python type."""
    if isinstance(d, dtype):
        return d.np
    name = getattr(d, "__str__", None) and str(d)
    if isinstance(name, str) and name.startswith("torch."):
        return _by_name(name[len("torch."):]).np
    if d is float:  # (a Python float is a double, as PyTorch reads dtype=float)
        return float64.np
    return np.dtype(d)
