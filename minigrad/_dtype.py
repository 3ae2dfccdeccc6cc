"""Data types: a thin, PyTorch-named wrapper over NumPy dtypes.

Mirrors ``torch.dtype`` (``torch/_C/__init__.pyi``, ``c10/core/ScalarType.h``):
``minigrad.float32`` prints as ``minigrad.float32`` and knows whether it is floating point,
signed, and how many bytes an element takes. The default dtype for tensors made from Python
floats is ``float32``, as in PyTorch.

``bfloat16`` needs the optional package ``ml_dtypes`` (``pip install ml_dtypes``, or the
``minigrad[bfloat16]`` extra), which gives NumPy a bfloat16 element type. Without it
``minigrad.bfloat16`` still exists (it prints and answers ``is_floating_point``), but making a
tensor of it raises ImportError saying to install the package. NumPy reports bfloat16's kind
as ``"V"``, not ``"f"``: code that asks "is this array floating?" uses `is_float_np`, or, in
the op kernels, ``arr.dtype.kind in "fV"`` (no other kind-``"V"`` dtype is ever a tensor's).
"""

from __future__ import annotations

import numpy as np

try:  # (optional: NumPy itself has no bfloat16)
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - exercised by tests/unit/test_dtypes_optional.py
    _ml_dtypes = None

BFLOAT16_MISSING = ("minigrad.bfloat16 needs the optional package ml_dtypes, which gives NumPy a "
                    "bfloat16 element type: pip install ml_dtypes (or pip install "
                    "'minigrad[bfloat16]')")


class dtype:
    """A tensor element type (``minigrad.float32`` ...), mirroring ``torch.dtype``.

    Attributes: ``np`` (the NumPy dtype that stores it), ``is_floating_point``,
    ``is_complex`` (always False: minigrad has no complex dtypes), ``is_signed`` (bool),
    ``itemsize`` (bytes per element).
    """

    def __init__(self, name: str, np_dtype, legacy: str, c_name: str, scalar_name: str,
                 is_floating_point: bool | None = None):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = (self.np.kind == "f" if is_floating_point is None
                                  else is_floating_point)
        self.is_complex = False
        self.is_signed = self.is_floating_point or self.np.kind == "i"
        self.itemsize = self.np.itemsize
        self._legacy = legacy  # legacy type name, as in ``torch.FloatTensor``
        self._c_name = c_name  # C++ type name used in some messages (``float != double``)
        self._scalar_name = scalar_name  # c10 ScalarType name (``result type Float ...``)

    def to_real(self) -> dtype:
        """The real dtype of this one: itself (``torch.dtype.to_real``; no complex here)."""
        return self

    def __repr__(self) -> str:
        return f"minigrad.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


class _MissingBfloat16(dtype):
    """``minigrad.bfloat16`` when ``ml_dtypes`` is not installed: it prints and answers the
    dtype's questions, but has no NumPy dtype, so any tensor of it raises ImportError."""

    def __init__(self):  # (no NumPy dtype to read the attributes from)
        self.name, self.is_floating_point, self.is_complex = "bfloat16", True, False
        self.is_signed, self.itemsize = True, 2
        self._legacy, self._c_name, self._scalar_name = ("BFloat16Tensor", "c10::BFloat16",
                                                         "BFloat16")

    @property
    def np(self):
        raise ImportError(BFLOAT16_MISSING)


float32 = dtype("float32", np.float32, "FloatTensor", "float", "Float")
float64 = dtype("float64", np.float64, "DoubleTensor", "double", "Double")
float16 = dtype("float16", np.float16, "HalfTensor", "c10::Half", "Half")
if _ml_dtypes is not None:
    bfloat16 = dtype("bfloat16", _ml_dtypes.bfloat16, "BFloat16Tensor", "c10::BFloat16",
                     "BFloat16", is_floating_point=True)
    BF16_NP = bfloat16.np
else:  # pragma: no cover
    bfloat16 = _MissingBfloat16()
    BF16_NP = None
int64 = dtype("int64", np.int64, "LongTensor", "long int", "Long")
int32 = dtype("int32", np.int32, "IntTensor", "int", "Int")
int16 = dtype("int16", np.int16, "ShortTensor", "short int", "Short")
int8 = dtype("int8", np.int8, "CharTensor", "signed char", "Char")
uint8 = dtype("uint8", np.uint8, "ByteTensor", "unsigned char", "Byte")
bool_ = dtype("bool", np.bool_, "BoolTensor", "bool", "Bool")

_ALL = [float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool_]
_FROM_NP = {d.np: d for d in _ALL if not isinstance(d, _MissingBfloat16)}
_BY_NAME = {d.name: d for d in _ALL}


def is_float_np(np_dtype) -> bool:
    """True for a NumPy dtype that stores a floating minigrad dtype (bfloat16 included, whose
    NumPy kind is ``"V"``)."""
    return np_dtype.kind == "f" or np_dtype == BF16_NP


def category(np_dtype) -> int:
    """The promotion category of a NumPy dtype: 0 bool, 1 integer, 2 floating."""
    if np_dtype.kind == "b":
        return 0
    return 2 if is_float_np(np_dtype) else 1


def _by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype) -> dtype:
    """The minigrad dtype for a NumPy dtype; raises TypeError for unsupported ones."""
    found = _FROM_NP.get(np_dtype)  # (an array's own dtype: no conversion needed)
    if found is not None:
        return found
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only "
                        "supported types are: float64, float32, float16, bfloat16, int64, "
                        "int32, int16, int8, uint8, and bool.") from None


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


def as_dtype(d) -> dtype:
    """The minigrad dtype for anything `to_numpy_dtype` reads."""
    if isinstance(d, dtype):
        return d
    return from_numpy_dtype(to_numpy_dtype(d))
