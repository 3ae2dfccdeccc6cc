"""Activations: ``relu``, ``softmax``, ``log_softmax`` (more live in ``nn.functional``).

Mirrors ``aten/src/ATen/native/Activation.cpp`` / ``SoftMax.cpp`` and their
``derivatives.yaml`` entries. These nodes save their *output* (``_saved_result``).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.graph import Node, record
from ._util import attach, normalize_dim, quiet_fp, saved_int
from .pointwise import where


class ReluBackward0(Node):
    """z = max(self, 0).  dz/dself = where(result > 0, grad, 0) (PyTorch's
    ``threshold_backward``: a NaN or inf gradient does not leak where result is 0).
    Saves: result."""

    def backward(self, g):
        keep = self._get("result")._data > 0
        if not grad_mode.is_grad_enabled():  # no create_graph: one NumPy call, same values
            return (Tensor._make(np.where(keep, g._data, g._data.dtype.type(0))),)
        return (where(Tensor._make(keep), g, Tensor._make(np.zeros((), g._data.dtype))),)


def relu(input) -> Tensor:
    """Rectified linear unit (``torch.relu``); node ``ReluBackward0`` saving its result.
    RuntimeError for a bool tensor, as PyTorch."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    out = Tensor._make(np.maximum(input._data, 0).astype(input._data.dtype, copy=False))
    node = record(ReluBackward0, out, (input,))
    if node:
        node._save("result", out, is_output=True)
    return out


class SoftmaxBackward0(Node):
    """z = softmax(self, dim).  dz/dself = result * (grad - sum(grad * result, dim)).
    Saves: dim (as given, see ``saved_int``), result."""

    def __init__(self, dim, d):
        super().__init__()
        self._save("dim", saved_int(dim))
        self._d = d

    def backward(self, g):
        r, d = self._get("result"), self._d
        return (r * (g - (g * r).sum(d, keepdim=True)),)


class LogSoftmaxBackward0(Node):
    """z = log_softmax(self, dim).  dz/dself = grad - exp(result) * sum(grad, dim).
    Saves: dim, result."""

    def __init__(self, dim, d):
        super().__init__()
        self._save("dim", saved_int(dim))
        self._d = d

    def backward(self, g):
        r, d = self._get("result"), self._d
        return (g - r.exp() * g.sum(d, keepdim=True),)


def _shifted(x: np.ndarray, d: int) -> np.ndarray:
    """``x - max(x, d)``; as in PyTorch a slice whose max is inf or -inf becomes NaN (its
    softmax is NaN throughout)."""
    m = np.max(x, axis=d, keepdims=True) if x.size else x
    with quiet_fp():
        return x - m


def _float_only(name: str, input, d: int) -> None:
    """PyTorch's NotImplementedError for (log_)softmax of an integer/bool tensor."""
    if input._data.dtype.kind != "f":
        kernel = f"{name}_lastdim_kernel_impl" if d == max(input.ndim - 1, 0) else \
            f"{name}_kernel_impl"
        legacy = input.dtype._legacy[:-len("Tensor")]
        raise NotImplementedError(f'"{kernel}" not implemented for \'{legacy}\'')


def softmax(input, dim: int, dtype=None) -> Tensor:
    """Softmax along ``dim`` (``torch.softmax``), computed stably; node ``SoftmaxBackward0``.
    NotImplementedError for integer input, as PyTorch's float-only kernels."""
    d = normalize_dim(dim, input.ndim)
    _float_only("softmax", input, d)
    e = np.exp(_shifted(input._data, d))
    with quiet_fp():
        out = Tensor._make((e / e.sum(axis=d, keepdims=True)).astype(input._data.dtype,
                                                                       copy=False))
    node = record(SoftmaxBackward0, out, (input,), dim, d)
    if node:
        node._save("result", out, is_output=True)
    return out


def log_softmax(input, dim: int, dtype=None) -> Tensor:
    """Log of softmax along ``dim``, computed stably (``torch.log_softmax``); node
    ``LogSoftmaxBackward0``. NotImplementedError for integer input."""
    d = normalize_dim(dim, input.ndim)
    _float_only("log_softmax", input, d)
    s = _shifted(input._data, d)
    with quiet_fp():  # (no classes: log(0))
        out = Tensor._make((s - np.log(np.exp(s).sum(axis=d, keepdims=True))).astype(
            input._data.dtype, copy=False))
    node = record(LogSoftmaxBackward0, out, (input,), dim, d)
    if node:
        node._save("result", out, is_output=True)
    return out


attach(Tensor, relu=relu, softmax=softmax, log_softmax=log_softmax)
