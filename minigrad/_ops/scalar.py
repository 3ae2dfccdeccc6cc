"""Tensor-Scalar arithmetic as PyTorch's C++ code records it: ``MulBackward1``,
``DivBackward1``, ``AddBackward1``.

When a derivative formula or a composite op in ATen multiplies a tensor by a plain C++ number
(``grad / numel`` in ``mean``, ``2 / dof * grad`` in ``var``, ``(1 - ε) * nll`` in label
smoothing), PyTorch dispatches to the Tensor-Scalar overload, whose node is ``MulBackward1`` /
``DivBackward1`` / ``AddBackward1`` and saves the number itself (``_saved_other``), not a
wrapped 0-dim tensor as ``x * 2`` from Python does (``MulBackward0``). Mirrors the ``mul.Scalar``
/ ``div.Scalar`` / ``add.Scalar`` entries of ``derivatives.yaml``, forward formulas (``jvp``)
included: they carry tangents through backward formulas (forward over reverse).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import Node, record
from ._util import quietly


class MulBackward1(Node):
    """z = self * other, ``other`` a plain number.  dz/dself = grad * other (itself a
    Tensor-Scalar product: ``MulBackward1`` under create_graph). Saves: other."""

    def __init__(self, other):
        Node.__init__(self)
        self._save("other", other)

    def backward(self, g):
        return (mul_scalar(g, self._saved["other"]),)

    @staticmethod
    def jvp(inputs, tangents, outputs, other):
        """dz = self_t * other."""
        return mul_scalar(tangents[0], other)


class DivBackward1(Node):
    """z = self / other, ``other`` a plain number.  dz/dself = grad / other
    (``DivBackward1`` under create_graph). Saves: other."""

    def __init__(self, other):
        Node.__init__(self)
        self._save("other", other)

    def backward(self, g):
        return (div_scalar(g, self._saved["other"]),)

    @staticmethod
    def jvp(inputs, tangents, outputs, other):
        """dz = self_t / other."""
        return div_scalar(tangents[0], other)


class AddBackward1(Node):
    """z = self + other, ``other`` a plain number.  dz/dself = grad. Saves nothing."""

    def backward(self, g):
        return (g,)

    @staticmethod
    def jvp(inputs, tangents, outputs):
        """dz = self_t.clone()."""
        return tangents[0].clone()


def add_scalar(input: Tensor, other) -> Tensor:
    """``input + other`` recorded as ``AddBackward1`` (PyTorch's C++ Tensor-Scalar overload)."""
    out = Tensor._make(np.asarray(np.add(input._data, other), dtype=input._data.dtype))
    record(AddBackward1, out, (input,))
    return out


def mul_scalar(input: Tensor, other) -> Tensor:
    """``input * other`` recorded as ``MulBackward1`` (PyTorch's C++ Tensor-Scalar overload)."""
    out = Tensor._make(np.asarray(np.multiply(input._data, other), dtype=input._data.dtype))
    record(MulBackward1, out, (input,), other)
    return out


def div_scalar(input: Tensor, other) -> Tensor:
    """``input / other`` recorded as ``DivBackward1`` (PyTorch's C++ Tensor-Scalar overload)."""
    out = Tensor._make(np.asarray(quietly(np.divide, input._data, other),  # (x / 0: inf or
                                  dtype=input._data.dtype))  # nan, silently, as PyTorch)
    record(DivBackward1, out, (input,), other)
    return out
