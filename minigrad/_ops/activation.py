"""Activations: ``relu``, ``softmax``, ``log_softmax`` (more live in ``nn.functional``).

Mirrors ``aten/src/ATen/native/Activation.cpp`` / ``SoftMax.cpp`` and their
``derivatives.yaml`` entries. These nodes save their *output* (``_saved_result``).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.forward_ad import tangent_sum
from ..autograd.graph import Node, record
from ._util import _HALF, attach, normalize_dim, quietly, saved_int, widened


class ReluBackward0(Node):
    """z = max(self, 0).  dz/dself = threshold_backward(grad, result, 0): grad where
    result > 0, else 0, in one kernel (`threshold_backward`). Saves: result."""

    def backward(self, g):
        return (threshold_backward(g, self._get("result"), 0),)

    @staticmethod
    def jvp(inputs, tangents, outputs):
        """dz = threshold_backward(self_t, result, 0)."""
        return threshold_backward(tangents[0], outputs[0], 0)


class ThresholdBackwardBackward0(Node):
    """z = threshold_backward(grad_output, self, threshold) = where(self <= threshold, 0,
    grad_output).  dz/dgrad_output = threshold_backward(grad, self, threshold);
    dz/dself = 0 (``zeros_like(grad)``, as PyTorch: no graph). Saves: self, threshold."""

    def __init__(self, input, threshold):
        Node.__init__(self)
        self._save("self", input)
        self._save("threshold", threshold)

    def backward(self, g):
        (n_grad, _), (n_self, _) = self.next_functions
        s = self._get("self")
        g_grad = threshold_backward(g, s, self._saved["threshold"]) if n_grad else None
        g_self = Tensor._make(np.zeros_like(g._data)) if n_self else None
        return g_grad, g_self

    @staticmethod
    def jvp(inputs, tangents, outputs, self, threshold):
        """dz = threshold_backward(grad_output_t, self, threshold) (+ 0 * self_t)."""
        t_go = tangents[0]  # (a missing grad_output_t is zeros: self enters the graph)
        if t_go is None:
            t_go = Tensor._make(np.zeros_like(outputs[0]._data))
        return threshold_backward(t_go, self, threshold)


def threshold_backward(grad_output, self, threshold) -> Tensor:
    """``grad_output`` where ``self > threshold``, else 0 (``torch.ops.aten.threshold_backward``,
    PyTorch's derivative of relu given its result): one masked product, and under ``create_graph``
    the node ``ThresholdBackwardBackward0`` with slots ``(grad_output, self)``. A NaN in ``self``
    lets the gradient through and an infinite gradient at a cut position gives 0, as in PyTorch
    (a product with a 0/1 mask would give NaN there)."""
    g = grad_output._data
    keep = np.logical_not(self._data <= threshold)  # (a NaN in self: kept)
    # The product is the kernel's value when every gradient is finite (inf * 0 would be NaN);
    # np.where is always exact but branches on every element: 10x slower on a random mask.
    # The mask is cast first: NumPy multiplies two float arrays 3x faster than float by bool.
    if np.isfinite(g).all():
        res = g * keep.astype(g.dtype)
    else:
        res = np.where(keep, g, 0)
    out = Tensor._make(res.astype(g.dtype, copy=False))
    record(ThresholdBackwardBackward0, out, (grad_output, self), self, threshold)
    return out


def relu(input) -> Tensor:
    """Rectified linear unit (``torch.relu``); node ``ReluBackward0`` saving its result.
    RuntimeError for a bool tensor, as PyTorch."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    # (0 first: on a tie NumPy returns the second operand, so -0.0 stays -0.0, as PyTorch's)
    out = Tensor._make(np.maximum(0, input._data).astype(input._data.dtype, copy=False))
    node = record(ReluBackward0, out, (input,))
    if node:
        node._save("result", out, is_output=True)
    return out


class SoftmaxBackward0(Node):
    """z = softmax(self, dim).  dz/dself = _softmax_backward_data(grad, result, dim) =
    result * (grad - sum(grad * result, dim)), one kernel as in PyTorch (under create_graph
    the gradient's node is ``SoftmaxBackwardDataBackward0``). Saves: dim (as given, see
    ``saved_int``), result."""

    def __init__(self, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._dim, self._d = dim, d

    def backward(self, g):
        return (_softmax_backward_data(g, self._get("result"), self._dim, self._d),)

    @staticmethod
    def jvp(inputs, tangents, outputs, dim, d):
        """dz = result * (self_t - logsumexp_jvp(self, self_t, dim))."""
        return outputs[0] * (tangents[0] - _logsumexp_jvp(inputs[0], tangents[0], d))


class LogSoftmaxBackward0(SoftmaxBackward0):
    """z = log_softmax(self, dim).  dz/dself = _log_softmax_backward_data(grad, result, dim) =
    grad - exp(result) * sum(grad, dim), one kernel (``LogSoftmaxBackwardDataBackward0`` under
    create_graph). Saves: dim, result."""

    def backward(self, g):
        return (_log_softmax_backward_data(g, self._get("result"), self._dim, self._d),)

    @staticmethod
    def jvp(inputs, tangents, outputs, dim, d):
        """dz = self_t - logsumexp_jvp(self, self_t, dim)."""
        return tangents[0] - _logsumexp_jvp(inputs[0], tangents[0], d)


def _logsumexp_jvp(x, t, d):
    """The tangent of ``logsumexp(x, d, keepdim=True)``: ``sum(e * t, d) / sum(e, d)`` with
    ``e = exp(x - amax(x, d))`` (PyTorch's ``logsumexp_jvp``, its order of operations)."""
    e = (x - x.amax(d, keepdim=True)).exp() if x.numel() else x.exp()
    return (e * t).sum(d, keepdim=True) / e.sum(d, keepdim=True)


class SoftmaxBackwardDataBackward0(Node):
    """z = _softmax_backward_data(grad_output, output, dim) = output * (grad_output -
    sum(grad_output * output, dim)).
    dz/dgrad_output = _softmax_backward_data(grad, output, dim);
    dz/doutput = grad * grad_output - sum(output * grad_output, dim) * grad
    - grad_output * sum(output * grad, dim) (PyTorch's ``softmax_double_backward``).
    Saves: dim, grad_output, output."""

    def __init__(self, grad_output, output, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("grad_output", grad_output)
        self._save("output", output)
        self._dim, self._d = dim, d

    def backward(self, g):
        (n_go, _), (n_out, _) = self.next_functions
        go, out, d = self._get("grad_output"), self._get("output"), self._d
        g_go = _softmax_backward_data(g, out, self._dim, d) if n_go else None
        g_out = (g * go - (out * go).sum(d, keepdim=True) * g
                 - go * (out * g).sum(d, keepdim=True)) if n_out else None
        return g_go, g_out

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, output, dim, d):
        """PyTorch's decomposition ``p = grad_output * output; p - output * sum(p, dim)``,
        differentiated: dp = grad_output_t * output + output_t * grad_output;
        dz = dp - (output_t * sum(p, dim) + output * sum(dp, dim))."""
        t_go, t_out = tangents
        go, out = grad_output, output
        p = go * out
        dp = tangent_sum(None if t_go is None else t_go * out,
                         None if t_out is None else t_out * go)
        return (dp - tangent_sum(None if t_out is None else t_out * p.sum(d, keepdim=True),
                                 out * dp.sum(d, keepdim=True))).contiguous()


class LogSoftmaxBackwardDataBackward0(SoftmaxBackwardDataBackward0):
    """z = _log_softmax_backward_data(grad_output, output, dim) = grad_output - exp(output) *
    sum(grad_output, dim).
    dz/dgrad_output = grad - sum(grad * exp(output), dim);
    dz/doutput = -sum(grad_output, dim) * exp(output) * grad. Saves: dim, grad_output, output."""

    def backward(self, g):
        (n_go, _), (n_out, _) = self.next_functions
        go, out, d = self._get("grad_output"), self._get("output"), self._d
        g_go = g - (g * out.exp()).sum(d, keepdim=True) if n_go else None
        g_out = -go.sum(d, keepdim=True) * out.exp() * g if n_out else None
        return g_go, g_out

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, output, dim, d):
        """PyTorch's decomposition ``grad_output - exp(output) * sum(grad_output, dim)``,
        differentiated: dz = grad_output_t - (exp(output) * output_t * sum(grad_output, dim)
        + exp(output) * sum(grad_output_t, dim))."""
        t_go, t_out = tangents
        e = output.exp()
        de = None if t_out is None else t_out * e
        dprod = tangent_sum(None if de is None else de * grad_output.sum(d, keepdim=True),
                            None if t_go is None else e * t_go.sum(d, keepdim=True))
        return dprod.neg() if t_go is None else t_go - dprod


def _softmax_backward_data(grad_output, output, dim, d) -> Tensor:
    """The gradient of softmax given its output (``aten::_softmax_backward_data``), one kernel;
    ``d`` is ``dim`` normalised. Node ``SoftmaxBackwardDataBackward0`` (create_graph)."""
    go, out = grad_output._data, output._data
    res = out * (go - (go * out).sum(axis=d, keepdims=True))
    t = Tensor._make(res.astype(out.dtype, copy=False))
    record(SoftmaxBackwardDataBackward0, t, (grad_output, output), grad_output, output, dim, d)
    return t


def _log_softmax_backward_data(grad_output, output, dim, d) -> Tensor:
    """The gradient of log_softmax given its output (``aten::_log_softmax_backward_data``), one
    kernel. Node ``LogSoftmaxBackwardDataBackward0`` (create_graph)."""
    go, out = grad_output._data, output._data
    res = go - np.exp(out) * go.sum(axis=d, keepdims=True)
    t = Tensor._make(res.astype(out.dtype, copy=False))
    record(LogSoftmaxBackwardDataBackward0, t, (grad_output, output), grad_output, output,
           dim, d)
    return t


def _shifted(x: np.ndarray, d: int) -> np.ndarray:
    """``x - max(x, d)``; as in PyTorch a slice whose max is inf or -inf becomes NaN (its
    softmax is NaN throughout). Call it under `quiet_fp`."""
    m = np.max(x, axis=d, keepdims=True) if x.size else x
    return x - m


# (float16/bfloat16 inputs are computed in float32 and rounded once, as PyTorch's kernels do:
# rounding exp(x - max) to the input's dtype first changes about half of the results)
def _softmax_kernel(x: np.ndarray, d: int) -> np.ndarray:
    e = np.exp(_shifted(widened(x), d))
    return (e / e.sum(axis=d, keepdims=True)).astype(x.dtype, copy=False)


def _log_softmax_kernel(x: np.ndarray, d: int) -> np.ndarray:
    s = _shifted(widened(x), d)  # (no classes: log(0), silently)
    total = np.exp(s).sum(axis=d, keepdims=True)
    if x.dtype in _HALF and d == x.ndim - 1:  # (PyTorch's last-dim kernel keeps the sum and
        total = total.astype(x.dtype)  # its log in the input's dtype)
        return (s - np.log(total.astype(np.float32)).astype(x.dtype)).astype(x.dtype)
    return (s - np.log(total)).astype(x.dtype, copy=False)


def _float_only(name: str, input, d: int) -> None:
    """PyTorch's NotImplementedError for (log_)softmax of an integer/bool tensor."""
    if input._data.dtype.kind not in "fV":
        kernel = f"{name}_lastdim_kernel_impl" if d == max(input.ndim - 1, 0) else \
            f"{name}_kernel_impl"
        legacy = input.dtype._legacy[:-len("Tensor")]
        raise NotImplementedError(f'"{kernel}" not implemented for \'{legacy}\'')


def softmax(input, dim: int, dtype=None) -> Tensor:
    """Softmax along ``dim`` (``torch.softmax``), computed stably; node ``SoftmaxBackward0``.
    ``dtype`` casts the input first (``ToCopyBackward0``). NotImplementedError for integer
    input (without ``dtype``), as PyTorch's float-only kernels."""
    if dtype is not None:  # (cast first: ToCopyBackward0 below SoftmaxBackward0)
        input = input.to(dtype)
    d = normalize_dim(dim, input.ndim)
    _float_only("softmax", input, d)
    # (contiguous, as PyTorch's kernel makes its input and result: NumPy keeps the layout)
    out = Tensor._make(np.asarray(quietly(_softmax_kernel, input._data, d), order="C"))
    node = record(SoftmaxBackward0, out, (input,), dim, d)
    if node:
        node._save("result", out, is_output=True)
    return out


def log_softmax(input, dim: int, dtype=None) -> Tensor:
    """Log of softmax along ``dim``, computed stably (``torch.log_softmax``); node
    ``LogSoftmaxBackward0``. ``dtype`` casts the input first. NotImplementedError for integer
    input."""
    if dtype is not None:
        input = input.to(dtype)
    d = normalize_dim(dim, input.ndim)
    _float_only("log_softmax", input, d)
    out = Tensor._make(np.asarray(quietly(_log_softmax_kernel, input._data, d), order="C"))
    node = record(LogSoftmaxBackward0, out, (input,), dim, d)
    if node:
        node._save("result", out, is_output=True)
    return out


attach(Tensor, relu=relu, softmax=softmax, log_softmax=log_softmax)
