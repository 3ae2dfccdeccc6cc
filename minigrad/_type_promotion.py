"""Type promotion as functions: ``promote_types``, ``result_type``, ``can_cast``.

Mirrors ``torch.promote_types`` / ``torch.result_type`` / ``torch.can_cast``
(``c10/core/ScalarType.h``'s ``promoteTypes`` and ``canCast``, ATen's ``result_type``). The
rules, which every binary op already follows (``_ops._util.result_dtype``):

- dtypes fall in categories bool < integer < floating; two dtypes promote to the smallest dtype
  that holds both (``uint8`` with ``int8`` gives ``int16``; ``float16`` with ``bfloat16`` gives
  ``float32``; any integer with a floating dtype gives the floating one);
- among operands, a higher category always wins, and within the winning category dimensioned
  tensors outrank 0-dim tensors, which outrank Python numbers: ``int8_vector + int64_scalar``
  stays ``int8``, ``int8_vector + 2.5`` is the default dtype, ``float16_vector + 2.5`` stays
  ``float16``.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _dtype
from ._tensor import Tensor


def _check_dtype(fn: str, arg: str, pos: int, value) -> _dtype.dtype:
    if not isinstance(value, _dtype.dtype):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be minigrad.dtype, "
                        f"not {type(value).__name__}")
    return value


def _category(d: _dtype.dtype) -> int:
    """0 bool, 1 integer, 2 floating (read from the dtype: bfloat16 may lack a NumPy dtype)."""
    return 0 if d is _dtype.bool_ else 2 if d.is_floating_point else 1


def promote_types(type1, type2) -> _dtype.dtype:
    """The smallest dtype both ``type1`` and ``type2`` convert to without losing category
    (``torch.promote_types``): bool < integers < floating.

    Raises:
        TypeError: an argument is not a minigrad dtype.
    """
    a = _check_dtype("promote_types", "type1", 1, type1)
    b = _check_dtype("promote_types", "type2", 2, type2)
    if a is b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:  # (the higher category wins whole)
        return a if ca > cb else b
    if _dtype.bfloat16 in (a, b):  # (read without its NumPy dtype, which ml_dtypes gives)
        other = b if a is _dtype.bfloat16 else a
        return _dtype.float32 if other is _dtype.float16 else other  # float32 or float64
    return _dtype.from_numpy_dtype(np.result_type(a.np, b.np))


def _is_number(x) -> bool:
    return isinstance(x, (numbers.Number, np.number, np.bool_)) and not isinstance(x, Tensor)


def result_type(tensor, other) -> _dtype.dtype:
    """The dtype a binary op on ``tensor`` and ``other`` (tensors or Python numbers) computes
    in (``torch.result_type``), by the rules in the module docstring.

    Raises:
        TypeError: an argument is neither a tensor nor a number (PyTorch's "invalid
            combination of arguments").
    """
    from ._ops._util import result_dtype

    for x in (tensor, other):
        if not (isinstance(x, Tensor) or _is_number(x)):
            got = ", ".join("Tensor" if isinstance(v, Tensor) else type(v).__name__
                            for v in (tensor, other))
            raise TypeError(f"result_type() received an invalid combination of arguments - got "
                            f"({got}), but expected one of:\n * (Tensor tensor, Tensor other)\n"
                            " * (Number scalar, Tensor tensor)\n * (Tensor tensor, Number "
                            "other)\n * (Number scalar1, Number scalar2)\n")
    return _dtype.from_numpy_dtype(result_dtype(tensor, other))


def can_cast(from_, to) -> bool:
    """Whether PyTorch's casting rules allow ``from_`` -> ``to`` (``torch.can_cast``): any cast
    within or up the categories, never floating -> integer or bool, nor integer -> bool.

    Raises:
        TypeError: an argument is not a minigrad dtype.
    """
    a = _check_dtype("can_cast", "from_", 1, from_)
    b = _check_dtype("can_cast", "to", 2, to)
    return _category(a) <= _category(b)
