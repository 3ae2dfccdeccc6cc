"""Bitwise ops: ``bitwise_and``/``or``/``xor``/``not`` and the shifts ``bitwise_left_shift``/
``bitwise_right_shift``, as functions (with ``out=``), ``Tensor`` methods, their in-place forms
(``bitwise_and_`` ...), and Python's operators ``& | ^ ~ << >>`` with the reflected
(``3 << t``) and augmented (``t <<= 1``) forms.

Mirrors ``aten/src/ATen/native/BinaryOps.cpp`` (``bitwise_and`` ... ``__lshift__``,
``bitwise_left_shift``) and ``UnaryOps.cpp`` (``bitwise_not``), whose CPU kernels exist for bool
and integer dtypes only: the operands are promoted as for ``add`` (``int8 & uint8`` is int16, an
int8 tensor and a Python int stay int8, a bool tensor and an int give int64), and a promoted
dtype that is floating raises PyTorch's NotImplementedError naming it (``"lshift_cpu" not
implemented for 'Float'``); the shifts have no bool kernel either. A shift by a negative amount
or by at least the width of the dtype gives 0 (``>>`` of a negative value: -1), as PyTorch's
kernels define it and NumPy's ``left_shift``/``right_shift`` compute it. None of these ops is
differentiable; an in-place form on a float leaf that requires grad gets the leaf error first.
The operator methods return ``NotImplemented`` for an operand that is neither a tensor nor a
number, so Python raises its own TypeError (``unsupported operand type(s) for <<``).
"""

from __future__ import annotations

import numpy as np

from .._dtype import from_numpy_dtype, is_float_np
from .._tensor import Tensor
from .._type_promotion import can_cast
from . import inplace as I
from . import pointwise as P
from ._util import attach, broadcast_shapes, is_scalar, result_dtype, wrap_scalar

# name -> (the CPU kernel named in PyTorch's NotImplementedError, the NumPy ufunc, bool kernel?)
_KERNELS = {
    "bitwise_and": ("bitwise_and_cpu", np.bitwise_and, True),
    "bitwise_or": ("bitwise_or_cpu", np.bitwise_or, True),
    "bitwise_xor": ("bitwise_xor_cpu", np.bitwise_xor, True),
    "bitwise_left_shift": ("lshift_cpu", np.left_shift, False),
    "bitwise_right_shift": ("rshift_cpu", np.right_shift, False),
}

# The overloads PyTorch's argument parser lists when it refuses the arguments.
_FUNCTION_FORMS = (
    "(Tensor input, Tensor other, *, Tensor out = None)",
    "(Number self, Tensor other)",
    "(Tensor input, Number other, *, Tensor out = None)",
)
_METHOD_FORMS = ("(Tensor other)", "(Number other)")


def _legacy(np_dtype) -> str:  # "Float", "BFloat16" (as PyTorch's ScalarType prints)
    return from_numpy_dtype(np_dtype)._legacy[:-6]


def _invalid(name: str, got: tuple, forms: tuple) -> TypeError:
    listed = "\n".join(f" * {form}" for form in forms)
    return TypeError(
        f"{name}() received an invalid combination of arguments - got "
        f"({', '.join(got)}), but expected one of:\n{listed}\n"
        f"Pass tensors (bool or integer dtype) or Python numbers."
    )


def _operand(x):
    """``x`` as a tensor: itself, or a wrapped number (promoted as a Python scalar)."""
    return x if isinstance(x, Tensor) else wrap_scalar(x)


def _promoted(a: Tensor, b: Tensor) -> np.dtype:
    """The NumPy dtype of ``a <op> b`` under PyTorch's promotion (``result_dtype``), with the
    common cases first: no promotion, or an integer tensor and a Python int or bool."""
    da, db = a._data.dtype, b._data.dtype
    if da == db or (b._wrapped_number and da.kind in "iu" and db.kind in "ib"):
        return da
    return result_dtype(a, b)


def _compute(name: str, a: Tensor, b: Tensor) -> Tensor:
    """The kernel of ``name`` on two tensors (a wrapped number for a Python scalar)."""
    kernel, ufunc, has_bool = _KERNELS[name]
    dt = _promoted(a, b)
    if is_float_np(dt) or (dt == np.bool_ and not has_bool):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_legacy(dt)}'")
    broadcast_shapes(a._data.shape, b._data.shape)  # (PyTorch's error for shapes)
    x = a._data if a._data.dtype == dt else a._data.astype(dt)
    y = b._data if b._data.dtype == dt else b._data.astype(dt)
    return P._result(np.asarray(ufunc(x, y)), a, b, x, y, common=dt)  # (PyTorch's layout)


def _function(name: str):
    """``torch.<name>(input, other, *, out=None)``: a tensor and a tensor or number, or a number
    and a tensor (then without ``out``)."""

    def op(input, other, *, out=None) -> Tensor:
        ok = (isinstance(input, Tensor) and (isinstance(other, Tensor) or is_scalar(other))) or (
            is_scalar(input) and isinstance(other, Tensor) and out is None
        )
        ok = ok and (out is None or isinstance(out, Tensor))
        if not ok:
            got = [type(v).__name__ for v in (input, other)]
            raise _invalid(
                name,
                tuple(got + ([f"out={type(out).__name__}"] if out is not None else [])),
                _FUNCTION_FORMS,
            )
        if out is None:
            return _compute(name, _operand(input), _operand(other))
        from .out import write_out

        return write_out(
            lambda a, b: _compute(name, a, _operand(b)),
            (input, other),
            {},
            out,
            public=name,
            autograd_name=name,
            rule="cast",
            differentiable=False,
        )

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Element-wise ``{name}`` (``torch.{name}``) of bool/integer tensors or numbers, "
        f"promoted as ``add``; ``out=`` as the other TensorIterator ops (cast when safe)."
        f"\n\n    Raises:\n        NotImplementedError: the promoted dtype is floating"
        f"{'' if _KERNELS[name][2] else ' or bool'}.\n        TypeError: an operand that "
        f"is neither a tensor nor a number; two numbers; a number first with ``out``."
        f"\n        RuntimeError: shapes that do not broadcast."
    )
    return op


def _method(name: str):
    """``Tensor.<name>(other)``."""

    def op(self, other) -> Tensor:
        if not (isinstance(other, Tensor) or is_scalar(other)):
            raise _invalid(name, (type(other).__name__,), _METHOD_FORMS)
        return _compute(name, self, _operand(other))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``torch.{name}(self, other)`` (see there)."
    return op


def _operator(name: str, reflected: bool = False):
    """``Tensor.__and__`` ... (``__rand__`` ... with ``reflected``: ``other <op> self``)."""

    def op(self, other):
        if not (isinstance(other, Tensor) or is_scalar(other)):
            return NotImplemented
        a, b = (_operand(other), self) if reflected else (self, _operand(other))
        return _compute(name, a, b)

    op.__doc__ = (
        f"``{'other <op> self' if reflected else 'self <op> other'}``: "
        f"``{name}``; ``NotImplemented`` for an operand that is not a tensor or number."
    )
    return op


def _inplace(name: str, operator: bool = False):
    """``Tensor.<name>_(other)`` (``operator``: ``__iand__`` ..., which returns
    ``NotImplemented`` for an operand Python should refuse). In PyTorch's order: the leaf /
    view checks, the shapes (the result must keep ``self``'s), the cast of the promoted dtype
    to ``self``'s ("result type Float can't be cast ..."), then the kernel's own error."""

    def op(self, other):
        if not (isinstance(other, Tensor) or is_scalar(other)):
            if operator:
                return NotImplemented
            raise _invalid(name + "_", (type(other).__name__,), _METHOD_FORMS)
        b = _operand(other)
        I.check_inplace(self, other)  # (before the shape: a leaf's error comes first)
        shape = broadcast_shapes(self._data.shape, b._data.shape)
        if shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self.shape)} doesn't match the "
                f"broadcast shape {list(shape)}"
            )
        dt = _promoted(self, b)
        if dt != self._data.dtype and not can_cast(from_numpy_dtype(dt), self.dtype):
            raise RuntimeError(
                f"result type {_legacy(dt)} can't be cast to the desired output "
                f"type {_legacy(self._data.dtype)}"
            )
        return I._apply_inplace(self, lambda: _compute(name, self, b), (other,))

    op.__name__ = op.__qualname__ = f"__i{name[8:].split('_')[0]}__" if operator else name + "_"
    op.__doc__ = (
        f"``{name}`` written into ``self`` (same object, ``_version`` + 1). Raises "
        f"RuntimeError when the promoted dtype cannot be cast to ``self``'s (a float "
        f"operand of an integer tensor, an integer one of a bool tensor)."
    )
    return op


# ----------------------------------------------------------------------------- bitwise_not
def _not(input) -> Tensor:
    if is_float_np(input._data.dtype):
        raise NotImplementedError(
            f"\"bitwise_not_cpu\" not implemented for '{_legacy(input._data.dtype)}'"
        )
    return Tensor._make(np.asarray(np.invert(input._data)))


def bitwise_not(input, *, out=None) -> Tensor:
    """``~input`` element-wise (``torch.bitwise_not``): logical not of a bool tensor, the
    two's-complement inversion of an integer one; same dtype. ``out=`` must have that dtype.

    Raises:
        TypeError: ``input`` is not a tensor.
        NotImplementedError: a floating input.
        RuntimeError: ``out`` of another dtype ("Found dtype ... but expected ...").
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"bitwise_not(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    if out is None:
        return _not(input)
    from .out import write_out

    return write_out(
        _not,
        (input,),
        {},
        out,
        public="bitwise_not",
        autograd_name="bitwise_not",
        rule="found",
        differentiable=False,
    )


def _bitwise_not_(self) -> Tensor:
    """``bitwise_not`` written into ``self`` (same object, ``_version`` + 1)."""
    I.check_inplace(self)
    return I._apply_inplace(self, lambda: _not(self))


def _bitwise_not_method(self) -> Tensor:
    """``torch.bitwise_not(self)`` (see there)."""
    return _not(self)


def _invert(self) -> Tensor:
    """``~self``: ``bitwise_not``; TypeError for a floating tensor (PyTorch's operator check,
    before the kernel's)."""
    if is_float_np(self._data.dtype):
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type "
            "tensors\nFor a float tensor, `x.logical_not()` gives the truth-value "
            "not; or convert it to an integer dtype first."
        )
    return Tensor._make(np.asarray(np.invert(self._data)))


bitwise_and = _function("bitwise_and")
bitwise_or = _function("bitwise_or")
bitwise_xor = _function("bitwise_xor")
bitwise_left_shift = _function("bitwise_left_shift")
bitwise_right_shift = _function("bitwise_right_shift")

_NAMES = {
    "and": "bitwise_and",
    "or": "bitwise_or",
    "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}

attach(
    Tensor,
    bitwise_not=_bitwise_not_method,
    bitwise_not_=_bitwise_not_,
    __invert__=_invert,
    **{name: _method(name) for name in _KERNELS},
    **{name + "_": _inplace(name) for name in _KERNELS},
    **{f"__{op}__": _operator(name) for op, name in _NAMES.items()},
    **{f"__r{op}__": _operator(name, reflected=True) for op, name in _NAMES.items()},
    **{f"__i{op}__": _inplace(name, operator=True) for op, name in _NAMES.items()},
)
