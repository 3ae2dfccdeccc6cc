"""Logical ops: ``logical_and``, ``logical_or``, ``logical_xor`` (and ``logical_not``'s in-place
form), with their in-place variants ``logical_and_`` ...

Mirrors ``aten/src/ATen/native/BinaryOps.cpp`` (``logical_and`` ...) and ``UnaryOps.cpp``
(``logical_not``): the inputs are read as truth values (nonzero is True), broadcast, and the
result is bool. These ops have no derivative: the result never requires grad, and the in-place
forms, which write 0/1 in ``self``'s dtype, skip autograd's in-place checks — PyTorch lets them
modify a leaf that requires grad and leaves ``grad_fn`` as it was; they only bump ``_version``
(so a saved tensor they change still fails its backward).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd import graph as _graph
from ._util import attach, broadcast_shapes, laid_out


def _binary(name: str, np_fn):
    def op(input, other) -> Tensor:
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        broadcast_shapes(tuple(input.shape), tuple(other.shape))  # (PyTorch's error)
        x, y = input._data, other._data
        res = np_fn(x, y)
        if not (x.flags.c_contiguous and y.flags.c_contiguous):  # (PyTorch's layout; its
            res = laid_out(res, x, y, unconverted=2)  # logical kernels convert no operand)
        return Tensor._make(res)

    op.__name__ = name
    op.__doc__ = (f"Element-wise ``{name[8:]}`` of the truth values of ``input`` and ``other`` "
                  f"(``torch.{name}``): broadcast, any dtypes, a bool result that does not "
                  f"require grad.\n\n    Raises:\n        TypeError: ``other`` is not a "
                  f"Tensor.\n        RuntimeError: shapes that do not broadcast.")
    return op


logical_and = _binary("logical_and", np.logical_and)
logical_or = _binary("logical_or", np.logical_or)
logical_xor = _binary("logical_xor", np.logical_xor)


def write_without_grad(self: Tensor, result: Tensor) -> Tensor:
    """Write a non-differentiable op's ``result`` into ``self`` (cast to its dtype) and bump the
    version; no leaf check, no history rewrite (as PyTorch for ops without a derivative).

    Raises:
        RuntimeError: ``result`` has another shape than ``self`` (``self`` is not broadcast).
    """
    from .inplace import _write, bump

    if _graph.before_inplace is not None:  # (allow_mutation_on_saved_tensors watches writes)
        _graph.before_inplace(self)
    _write(self, result)
    bump(self)
    return self


def _inplace(name: str, fn):
    def op(self, *args) -> Tensor:
        return write_without_grad(self, fn(self, *args))

    op.__name__ = name
    op.__doc__ = (f"``{name[:-1]}`` in place: 0/1 in ``self``'s dtype, ``_version`` + 1, no "
                  f"autograd check and no history (PyTorch: the op has no derivative).")
    return op


def _logical_not(self) -> Tensor:
    return Tensor._make(np.logical_not(self._data))


attach(Tensor, logical_and=logical_and, logical_or=logical_or, logical_xor=logical_xor,
       logical_and_=_inplace("logical_and_", logical_and),
       logical_or_=_inplace("logical_or_", logical_or),
       logical_xor_=_inplace("logical_xor_", logical_xor),
       logical_not_=_inplace("logical_not_", _logical_not))
