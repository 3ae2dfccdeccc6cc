"""Activations used by ``nn.functional``: ``leaky_relu``, ``gelu``, ``silu``, ``softplus``.

Mirrors ``aten/src/ATen/native/Activation.cpp`` and the matching entries of
``tools/autograd/derivatives.yaml``: each node saves its *input* (``_saved_self``) plus its
scalar arguments, except ``LeakyReluBackward1`` (the in-place ``leaky_relu_``), which saves its
result. ``relu``, ``softmax`` and ``log_softmax`` live in ``activation.py``; ``sigmoid`` and
``tanh`` in ``pointwise.py``.

Backward formulas use tensor ops where the derivative is expressible with them (``silu``,
``softplus``, ``gelu(approximate='tanh')``, ``leaky_relu``), so ``create_graph=True`` works.
Exact ``gelu`` needs ``erf``, which minigrad has no tensor op for: its derivative is computed in
NumPy and double backward through ``GeluBackward0(approximate='none')`` raises
NotImplementedError.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.graph import Node, record
from . import pointwise as P
from ._util import quiet_fp


def _const(arr: np.ndarray, like: Tensor) -> Tensor:
    return Tensor._make(np.asarray(arr, dtype=like._data.dtype))


def no_double_backward(node: Node) -> None:
    """Raise NotImplementedError when ``node`` runs under ``create_graph=True``.

    Nodes whose backward is computed in NumPy cannot record a graph of their own backward, so
    the second derivative would be silently wrong; refuse instead.
    """
    if grad_mode.is_grad_enabled():
        raise NotImplementedError(
            f"minigrad: double backward (create_graph=True) through {node.name()} is not "
            "supported: its backward is computed in NumPy")


# ----------------------------------------------------------------------------- leaky_relu
class LeakyReluBackward0(Node):
    """z = self if self > 0 else negative_slope * self.
    dz/dself = grad where self > 0, else negative_slope * grad. Saves: negative_slope, self."""

    def __init__(self, input, negative_slope):
        super().__init__()
        self._save("negative_slope", negative_slope)
        self._save("self", input)

    def backward(self, g):
        x = self._get("self")._data
        slope = self._saved["negative_slope"]
        return (g * _const(np.where(x > 0, 1.0, slope), g),)


class LeakyReluBackward1(Node):
    """In-place ``leaky_relu_``: z = self if self > 0 else negative_slope * self.
    dz/dself = grad where result > 0, else negative_slope * grad. Saves: negative_slope,
    result."""

    def __init__(self, negative_slope):
        super().__init__()
        self._save("negative_slope", negative_slope)

    def backward(self, g):
        r = self._get("result")._data
        slope = self._saved["negative_slope"]
        return (g * _const(np.where(r > 0, 1.0, slope), g),)


def _leaky(x: np.ndarray, slope) -> np.ndarray:
    return np.where(x > 0, x, x * np.asarray(slope, x.dtype)).astype(x.dtype, copy=False)


_SCALAR = {"int64": "Long", "int32": "Int", "uint8": "Byte", "bool": "Bool", "float16": "Half"}


def _float_kernel(name: str, input: Tensor) -> None:
    """PyTorch's NotImplementedError for a float-only kernel given an integer/bool tensor."""
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{_SCALAR.get(input.dtype.name, input.dtype.name)}'")


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``max(0, x) + negative_slope * min(0, x)`` (``torch.nn.functional.leaky_relu``).

    Same shape and dtype as ``input``; node ``LeakyReluBackward0``. NotImplementedError for
    integer input (PyTorch's kernel is float-only).
    """
    _float_kernel("leaky_relu_cpu", input)
    out = Tensor._make(_leaky(input._data, negative_slope))
    record(LeakyReluBackward0, out, (input,), input, negative_slope)
    return out


def leaky_relu_result(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """Out-of-place leaky ReLU recorded as ``LeakyReluBackward1`` (saves its result): the
    computation behind the in-place ``leaky_relu_``."""
    out = Tensor._make(_leaky(input._data, negative_slope))
    node = record(LeakyReluBackward1, out, (input,), negative_slope)
    if node:
        node._save("result", out, is_output=True)
    return out


# ----------------------------------------------------------------------------- gelu
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


_ERFC = np.frompyfunc(math.erfc, 1, 1)


def _erfc(x: np.ndarray) -> np.ndarray:
    """Complementary error function in float64, to double precision (``math.erfc`` per
    element: NumPy has no erf, and float64 GELU must match PyTorch to ~1e-16)."""
    return np.asarray(_ERFC(np.asarray(x, dtype=np.float64)), dtype=np.float64)


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * _erfc(-x / math.sqrt(2.0))


class GeluBackward0(Node):
    """z = self * Φ(self) (``approximate='none'``) or
    0.5 * self * (1 + tanh(√(2/π) * (self + 0.044715 * self³))) (``'tanh'``).
    dz/dself = grad * (Φ(x) + x * φ(x)), resp. the derivative of the tanh form.
    Saves: approximate, self. Double backward is supported for ``'tanh'`` only."""

    def __init__(self, input, approximate):
        super().__init__()
        self._save("approximate", approximate)
        self._save("self", input)

    def backward(self, g):
        x = self._get("self")
        if self._saved["approximate"] == "tanh":
            inner = (x + x * x * x * _GELU_C) * _SQRT_2_OVER_PI
            t = P.tanh(inner)
            dinner = (x * x * (3 * _GELU_C) + 1) * _SQRT_2_OVER_PI
            return (g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * dinner),)
        no_double_backward(self)
        xd = x._data.astype(np.float64)
        pdf = np.exp(-0.5 * xd * xd) / math.sqrt(2.0 * math.pi)
        return (g * _const(_normal_cdf(xd) + xd * pdf, g),)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit (``torch.nn.functional.gelu``).

    ``approximate``: ``'none'`` (exact, ``x * Φ(x)``) or ``'tanh'``. Raises RuntimeError for any
    other value, with PyTorch's message. Node ``GeluBackward0``.
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _float_kernel("GeluKernelImpl", input)
    xd = input._data.astype(np.float64)
    if approximate == "tanh":
        val = 0.5 * xd * (1.0 + np.tanh(_SQRT_2_OVER_PI * (xd + _GELU_C * xd ** 3)))
    else:
        val = xd * _normal_cdf(xd)
    out = Tensor._make(val.astype(input._data.dtype))
    record(GeluBackward0, out, (input,), input, approximate)
    return out


# ----------------------------------------------------------------------------- silu
class SiluBackward0(Node):
    """z = self * sigmoid(self).  dz/dself = grad * s * (1 + self * (1 - s)), s = sigmoid(self).
    Saves: self."""

    def __init__(self, input):
        super().__init__()
        self._save("self", input)

    def backward(self, g):
        x = self._get("self")
        s = P.sigmoid(x)
        return (g * (s * (x * (1 - s) + 1)),)


def silu(input: Tensor) -> Tensor:
    """``x * sigmoid(x)`` (``torch.nn.functional.silu``); node ``SiluBackward0``.
    NotImplementedError for integer input."""
    _float_kernel("silu_cpu", input)
    x = input._data
    out = Tensor._make((x * P._sigmoid(x)).astype(x.dtype, copy=False))
    record(SiluBackward0, out, (input,), input)
    return out


# ----------------------------------------------------------------------------- softplus
class SoftplusBackward0(Node):
    """z = log(1 + exp(beta * self)) / beta, or self where beta * self > threshold.
    dz/dself = grad * sigmoid(beta * self), or grad where beta * self > threshold.
    Saves: beta, self, threshold."""

    def __init__(self, input, beta, threshold):
        super().__init__()
        self._save("beta", beta)
        self._save("self", input)
        self._save("threshold", threshold)

    def backward(self, g):
        x = self._get("self")
        bx = x * self._saved["beta"]
        linear = Tensor._make(bx._data > self._saved["threshold"])
        return (P.where(linear, g, g * P.sigmoid(bx)),)


def softplus(input: Tensor, beta=1, threshold=20) -> Tensor:
    """Smooth ReLU ``log(1 + exp(beta * x)) / beta`` (``torch.nn.functional.softplus``).

    Reverts to the identity where ``beta * x > threshold`` (numerical stability), as PyTorch
    does. Node ``SoftplusBackward0``. NotImplementedError for integer input.
    """
    _float_kernel("softplus_cpu", input)
    x = input._data
    bx = x * np.asarray(beta, x.dtype)
    with quiet_fp():
        soft = np.log1p(np.exp(bx)) / np.asarray(beta, x.dtype)
    out = Tensor._make(np.where(bx > threshold, x, soft).astype(x.dtype, copy=False))
    record(SoftplusBackward0, out, (input,), input, beta, threshold)
    return out
