"""Activations used by ``nn.functional``: ``leaky_relu``, ``gelu``, ``silu``, ``softplus``,
``elu``.

Mirrors ``aten/src/ATen/native/Activation.cpp`` and the matching entries of
``tools/autograd/derivatives.yaml``: each node saves its *input* (``_saved_self``) plus its
scalar arguments, except ``LeakyReluBackward1`` (the in-place ``leaky_relu_``), which saves its
result (``EluBackward1``, of ``elu_``, too). ``relu``, ``softmax`` and ``log_softmax`` live in
``activation.py``; ``sigmoid`` and ``tanh`` in ``pointwise.py``.

``leaky_relu``, ``softplus`` and ``elu`` backward are PyTorch's fused kernels
(``leaky_relu_backward``, ``softplus_backward``, ``elu_backward``: ``LeakyReluBackwardBackward0``
/ ``SoftplusBackwardBackward0`` / ``EluBackwardBackward0`` under ``create_graph``); ``silu`` and
``gelu(approximate='tanh')`` use tensor ops, so ``create_graph=True`` works through them too
(with other nodes than PyTorch's).
Exact ``gelu`` needs ``erf``, which minigrad has no tensor op for: its derivative is computed in
NumPy and double backward through ``GeluBackward0(approximate='none')`` raises
NotImplementedError.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.forward_ad import tangent_sum
from ..autograd.graph import Node, record
from . import pointwise as P
from ._util import broadcast_shapes, quiet_fp, widened, wrap_scalar
from .scalar import add_scalar, mul_scalar


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
    dz/dself = leaky_relu_backward(grad, self, negative_slope): grad where self > 0, else
    negative_slope * grad, one kernel (``LeakyReluBackwardBackward0`` under create_graph).
    Saves: negative_slope, self."""

    def __init__(self, input, negative_slope):
        Node.__init__(self)
        self._save("negative_slope", negative_slope)
        self._save("self", input)

    def backward(self, g):
        return (leaky_relu_backward(g, self._get("self"), self._saved["negative_slope"]),)

    @staticmethod
    def jvp(inputs, tangents, outputs, input, negative_slope):
        """dz = leaky_relu_backward(self_t, self, negative_slope)."""
        return leaky_relu_backward(tangents[0], input, negative_slope)


class LeakyReluBackward1(Node):
    """In-place ``leaky_relu_``: z = self if self > 0 else negative_slope * self.
    dz/dself = leaky_relu_backward(grad, result, negative_slope) (the result is positive where
    self is). Saves: negative_slope, result."""

    def __init__(self, negative_slope):
        Node.__init__(self)
        self._save("negative_slope", negative_slope)

    def backward(self, g):
        return (leaky_relu_backward(g, self._get("result"), self._saved["negative_slope"]),)

    @staticmethod
    def jvp(inputs, tangents, outputs, negative_slope):
        """dz = leaky_relu_backward(original_self_t, result, negative_slope, true)."""
        return leaky_relu_backward(tangents[0], outputs[0], negative_slope)


class LeakyReluBackwardBackward0(Node):
    """z = leaky_relu_backward(grad_output, self, negative_slope): linear in grad_output.
    dz/dgrad_output = leaky_relu_backward(grad, self, negative_slope); dz/dself = 0
    (``zeros_like(grad)``, no graph). Saves: negative_slope, self."""

    def __init__(self, input, negative_slope):
        Node.__init__(self)
        self._save("negative_slope", negative_slope)
        self._save("self", input)

    def backward(self, g):
        (n_go, _), (n_self, _) = self.next_functions
        s = self._get("self")
        g_go = leaky_relu_backward(g, s, self._saved["negative_slope"]) if n_go else None
        return g_go, Tensor._make(np.zeros_like(g._data)) if n_self else None

    @staticmethod
    def jvp(inputs, tangents, outputs, input, negative_slope):
        """dz = leaky_relu_backward(grad_output_t, self, negative_slope) (none without it)."""
        if tangents[0] is None:
            return None
        return leaky_relu_backward(tangents[0], input, negative_slope)


def leaky_relu_backward(grad_output, self, negative_slope) -> Tensor:
    """``grad_output`` where ``self > 0``, else ``negative_slope * grad_output``
    (``aten::leaky_relu_backward``): one product with a per-element factor (exact: the factor
    is 1 or the slope). Node ``LeakyReluBackwardBackward0`` (create_graph)."""
    g = grad_output._data
    one, slope = np.ones((), g.dtype), np.asarray(negative_slope, g.dtype)
    out = Tensor._make((g * np.where(self._data > 0, one, slope)).astype(g.dtype, copy=False))
    record(LeakyReluBackwardBackward0, out, (grad_output, self), self, negative_slope)
    return out


def _leaky(x: np.ndarray, slope) -> np.ndarray:
    w = widened(x)  # (float16/bfloat16: the slope in float32, one rounding, as PyTorch)
    return np.where(w > 0, w, w * np.asarray(slope, w.dtype)).astype(x.dtype, copy=False)


_SCALAR = {"int64": "Long", "int32": "Int", "uint8": "Byte", "bool": "Bool", "float16": "Half"}


def _float_kernel(name: str, input: Tensor) -> None:
    """PyTorch's NotImplementedError for a float-only kernel given an integer/bool tensor."""
    if input._data.dtype.kind not in "fV":
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
    Saves: approximate, self. Under create_graph: tensor ops (``'tanh'``), or the one-kernel
    ``gelu_backward`` and its node ``GeluBackwardBackward0`` (exact form; no third order)."""

    def __init__(self, input, approximate):
        Node.__init__(self)
        self._save("approximate", approximate)
        self._save("self", input)

    def backward(self, g):
        x = self._get("self")
        if self._saved["approximate"] == "tanh":
            inner = (x + x * x * x * _GELU_C) * _SQRT_2_OVER_PI
            t = P.tanh(inner)
            dinner = (x * x * (3 * _GELU_C) + 1) * _SQRT_2_OVER_PI
            return (g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * dinner),)
        return (gelu_backward(g, x),)

    @staticmethod
    def jvp(inputs, tangents, outputs, input, approximate):
        """dz = gelu_backward(self_t, self, approximate) (the exact form: one kernel, node
        ``GeluBackwardBackward0``, so the tangent is differentiable in self too)."""
        if approximate == "tanh":
            return GeluBackward0(input, approximate).backward(tangents[0])[0]
        return gelu_backward(tangents[0], input)


def _gelu_slope(xd: np.ndarray) -> np.ndarray:
    """d gelu / dx = Φ(x) + x φ(x) (exact form), in float64."""
    return _normal_cdf(xd) + xd * np.exp(-0.5 * xd * xd) / math.sqrt(2.0 * math.pi)


class GeluBackwardBackward0(Node):
    """z = gelu_backward(grad_output, self) = grad_output * (Φ(self) + self * φ(self)) (the
    exact form). dz/dgrad_output = gelu_backward(grad, self); dz/dself = grad * grad_output *
    φ(self) * (2 - self²). Saves: approximate, grad_output, self. Third order is not supported
    (computed in NumPy)."""

    def __init__(self, grad_output, input):
        Node.__init__(self)
        self._save("approximate", "none")
        self._save("grad_output", grad_output)
        self._save("self", input)

    def backward(self, g):
        no_double_backward(self)
        (n_go, _), (n_x, _) = self.next_functions
        x = self._get("self")
        g_go = gelu_backward(g, x) if n_go else None
        g_x = None
        if n_x:
            xd = x._data.astype(np.float64)
            curve = np.exp(-0.5 * xd * xd) / math.sqrt(2.0 * math.pi) * (2 - xd * xd)
            g_x = _const(g._data * self._get("grad_output")._data * curve, x)
        return g_go, g_x

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, input):
        """dz = gelu_backward(grad_output_t, self) + gelu_double_backward(self_t, grad_output,
        self) = ... + self_t * grad_output * φ(self) (2 - self²)."""
        t_go, t_x = (Tensor._make(np.zeros_like(p._data)) if t is None else t
                     for t, p in zip(tangents, inputs))
        xd = input._data.astype(np.float64)
        curve = np.exp(-0.5 * xd * xd) / math.sqrt(2.0 * math.pi) * (2 - xd * xd)
        return gelu_backward(t_go, input) + t_x * grad_output * _const(curve, input)


def gelu_backward(grad_output, self) -> Tensor:
    """``grad_output * gelu'(self)`` for the exact gelu (``aten::gelu_backward``), one kernel;
    node ``GeluBackwardBackward0``."""
    g = grad_output._data
    out = _const(g * _gelu_slope(self._data.astype(np.float64)).astype(g.dtype), grad_output)
    record(GeluBackwardBackward0, out, (grad_output, self), grad_output, self)
    return out


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
    """z = self * sigmoid(self).  dz/dself = grad * s * (1 + self * (1 - s)), s = sigmoid(self):
    one kernel (PyTorch's ``silu_backward``), or under create_graph the same formula in tensor
    ops, as PyTorch's ``infinitely_differentiable_silu_backward``. Saves: self."""

    def __init__(self, input):
        Node.__init__(self)
        self._save("self", input)

    def backward(self, g):
        x = self._get("self")
        if not grad_mode.is_grad_enabled():
            xs, s = x._data, P._sigmoid(x._data)
            return (Tensor._make((g._data * s * (1 + xs * (1 - s))).astype(xs.dtype, copy=False)),)
        s = P.sigmoid(x)  # (C++'s 1.0 - s wraps the number: SubBackward0, not RsubBackward1)
        return ((g * s) * add_scalar(x * P.sub(wrap_scalar(1.0), s), 1.0),)

    @staticmethod
    def jvp(inputs, tangents, outputs, input):
        """dz = silu_backward(self_t, self) (tensor ops under grad mode, as the backward)."""
        return SiluBackward0(input).backward(tangents[0])[0]


def silu(input: Tensor) -> Tensor:
    """``x * sigmoid(x)`` (``torch.nn.functional.silu``); node ``SiluBackward0``.
    NotImplementedError for integer input."""
    _float_kernel("silu_cpu", input)
    x = input._data
    w = widened(x)  # (float16/bfloat16: in float32, rounded once, as PyTorch)
    out = Tensor._make((w * P._sigmoid(w)).astype(x.dtype, copy=False))
    record(SiluBackward0, out, (input,), input)
    return out


# ----------------------------------------------------------------------------- softplus
class SoftplusBackward0(Node):
    """z = log(1 + exp(beta * self)) / beta, or self where beta * self > threshold.
    dz/dself = softplus_backward(grad, self, beta, threshold) = grad * e / (e + 1), e =
    exp(beta * self), or grad where beta * self > threshold — one kernel
    (``SoftplusBackwardBackward0`` under create_graph). Saves: beta, self, threshold."""

    def __init__(self, input, beta, threshold):
        Node.__init__(self)
        self._save("beta", beta)
        self._save("self", input)
        self._save("threshold", threshold)

    def backward(self, g):
        s = self._saved
        return (softplus_backward(g, self._get("self"), s["beta"], s["threshold"]),)

    @staticmethod
    def jvp(inputs, tangents, outputs, input, beta, threshold):
        """dz = softplus_backward(self_t, self, beta, threshold)."""
        return softplus_backward(tangents[0], input, beta, threshold)


class SoftplusBackwardBackward0(Node):
    """z = softplus_backward(grad_output, self, beta, threshold).
    dz/dgrad_output = softplus_backward(grad, self, beta, threshold);
    dz/dself = sigmoid_backward(grad * grad_output, sigmoid(beta * self)) * (beta * self <
    threshold) * beta (PyTorch's ``softplus_double_backward``).
    Saves: beta, grad_output, self, threshold."""

    def __init__(self, grad_output, input, beta, threshold):
        Node.__init__(self)
        self._save("beta", beta)
        self._save("grad_output", grad_output)
        self._save("self", input)
        self._save("threshold", threshold)

    def backward(self, g):
        (n_go, _), (n_self, _) = self.next_functions
        s = self._saved
        x, beta, threshold = self._get("self"), s["beta"], s["threshold"]
        g_go = softplus_backward(g, x, beta, threshold) if n_go else None
        g_self = None
        if n_self:
            g_self = _softplus_double_backward(g * self._get("grad_output"), x, beta, threshold)
        return g_go, g_self

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, input, beta, threshold):
        """dz = softplus_backward(grad_output_t, self, beta, threshold) +
        softplus_double_backward(self_t * grad_output, self, beta, threshold)."""
        t_go, t_x = tangents
        return tangent_sum(
            None if t_go is None else softplus_backward(t_go, input, beta, threshold),
            None if t_x is None else _softplus_double_backward(t_x * grad_output, input, beta,
                                                               threshold))


def _softplus_double_backward(gg, x, beta, threshold) -> Tensor:
    """``sigmoid_backward(gg, sigmoid(beta * x)) * (beta * x < threshold) * beta`` (PyTorch's
    ``softplus_double_backward``)."""
    bx = mul_scalar(x, beta)
    below = Tensor._make((bx._data < threshold).astype(gg._data.dtype))
    return mul_scalar(P.sigmoid_backward(gg, P.sigmoid(bx)) * below, beta)


def softplus_backward(grad_output, self, beta, threshold) -> Tensor:
    """The derivative of softplus given its input (``aten::softplus_backward``), one kernel.
    Node ``SoftplusBackwardBackward0`` (create_graph). RuntimeError when the shapes do not
    broadcast (an input whose ``.data`` was resized since the forward)."""
    g, x = grad_output._data, self._data
    broadcast_shapes(g.shape, x.shape)  # (TensorIterator's error, not NumPy's ValueError)
    bx = x * np.asarray(beta, x.dtype)
    with quiet_fp():  # (PyTorch's kernel: e / (e + 1), inf / inf is nan)
        e = np.exp(bx)
        res = np.where(bx > threshold, g, g * e / (e + 1)).astype(g.dtype, copy=False)
    out = Tensor._make(res)
    record(SoftplusBackwardBackward0, out, (grad_output, self), grad_output, self, beta,
           threshold)
    return out


def softplus(input: Tensor, beta=1, threshold=20) -> Tensor:
    """Smooth ReLU ``log(1 + exp(beta * x)) / beta`` (``torch.nn.functional.softplus``).

    Reverts to the identity where ``beta * x > threshold`` (numerical stability), as PyTorch
    does. Node ``SoftplusBackward0``. NotImplementedError for integer input.
    """
    _float_kernel("softplus_cpu", input)
    x = input._data
    w = widened(x)  # (float16/bfloat16: in float32, rounded once, as PyTorch)
    bx = w * np.asarray(beta, w.dtype)
    with quiet_fp():
        soft = np.log1p(np.exp(bx)) / np.asarray(beta, w.dtype)
    out = Tensor._make(np.where(bx > threshold, w, soft).astype(x.dtype, copy=False))
    record(SoftplusBackward0, out, (input,), input, beta, threshold)
    return out


# ----------------------------------------------------------------------------- elu
def _elu_grad_factor(x: np.ndarray, alpha, scale, input_scale, is_result: bool) -> np.ndarray:
    """d elu / d input per element, from the input (or, ``is_result``, from the result: where
    it is not positive, ``input_scale * (result + alpha * scale)``)."""
    dt = x.dtype
    with quiet_fp():
        if is_result:
            neg = input_scale * (x + alpha * scale)
        else:
            neg = input_scale * alpha * scale * np.exp(x * input_scale)
    return np.where(x > 0, np.asarray(scale, dt), neg).astype(dt, copy=False)


class EluBackward0(Node):
    """z = scale * (self if self > 0 else alpha * (exp(self * input_scale) - 1)).
    dz/dself = elu_backward(grad, alpha, scale, input_scale, False, self): grad * scale where
    self > 0, else grad * input_scale * alpha * scale * exp(self * input_scale)
    (``EluBackwardBackward0`` under create_graph). Saves: alpha, input_scale, scale, self."""

    def __init__(self, input, alpha, scale, input_scale):
        Node.__init__(self)
        self._save("alpha", alpha)
        self._save("input_scale", input_scale)
        self._save("scale", scale)
        self._save("self", input)

    def backward(self, g):
        s = self._saved
        return (elu_backward(g, s["alpha"], s["scale"], s["input_scale"], False,
                             self._get("self")),)

    @staticmethod
    def jvp(inputs, tangents, outputs, input, alpha, scale, input_scale):
        """dz = elu_backward(self_t, alpha, scale, input_scale, false, self)."""
        return elu_backward(tangents[0], alpha, scale, input_scale, False, input)


class EluBackward1(Node):
    """In-place ``elu_``: the derivative of `EluBackward0` written with the result
    (``input_scale * (result + alpha * scale)`` where the result is not positive).
    Saves: alpha, input_scale, result, scale."""

    def __init__(self, alpha, scale, input_scale):
        Node.__init__(self)
        self._save("alpha", alpha)
        self._save("input_scale", input_scale)
        self._save("scale", scale)

    def backward(self, g):
        s = self._saved
        return (elu_backward(g, s["alpha"], s["scale"], s["input_scale"], True,
                             self._get("result")),)

    @staticmethod
    def jvp(inputs, tangents, outputs, alpha, scale, input_scale):
        """dz = elu_backward(original_self_t, alpha, scale, input_scale, true, result)."""
        return elu_backward(tangents[0], alpha, scale, input_scale, True, outputs[0])


class EluBackwardBackward0(Node):
    """z = elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    linear in grad_output. dz/dgrad_output = elu_backward(grad, ...); dz/dself_or_result =
    grad * grad_output * (the derivative of the factor: ``input_scale`` times the factor where
    the input is not positive, 0 elsewhere; ``input_scale`` where the result is not positive).
    Saves: alpha, grad_output, input_scale, is_result, scale, self_or_result. Third order is
    not supported (computed in NumPy)."""

    def __init__(self, grad_output, alpha, scale, input_scale, is_result, self_or_result):
        Node.__init__(self)
        self._save("alpha", alpha)
        self._save("grad_output", grad_output)
        self._save("input_scale", input_scale)
        self._save("is_result", is_result)
        self._save("scale", scale)
        self._save("self_or_result", self_or_result)

    def backward(self, g):
        no_double_backward(self)
        s = self._saved
        x = self._get("self_or_result")
        args = (s["alpha"], s["scale"], s["input_scale"], s["is_result"])
        (n_go, _), (n_x, _) = self.next_functions
        g_go = elu_backward(g, *args, x) if n_go else None
        g_x = _elu_double_backward(g, self._get("grad_output"), *args, x) if n_x else None
        return g_go, g_x

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, alpha, scale, input_scale, is_result,
            self_or_result):
        """dz = elu_backward(grad_output_t, ..., self_or_result) +
        elu_double_backward(self_or_result_t, grad_output, ..., self_or_result)."""
        t_go, t_x = tangents
        args = (alpha, scale, input_scale, is_result)
        x = self_or_result
        second = None
        if t_x is not None:  # (PyTorch's elu_double_backward, in tensor ops)
            below = Tensor._make((x._data < 0).astype(x._data.dtype))
            g = mul_scalar(t_x * grad_output, input_scale)
            second = (g if is_result else elu_backward(g, *args, x)) * below
        return tangent_sum(None if t_go is None else elu_backward(t_go, *args, x), second)


def _elu_double_backward(g, grad_output, alpha, scale, input_scale, is_result, x) -> Tensor:
    """``g * grad_output * (the derivative of elu's factor at x)`` (PyTorch's
    ``elu_double_backward``), in NumPy."""
    xs, dt = x._data, x._data.dtype
    if is_result:
        d = np.where(xs > 0, 0, input_scale)
    else:
        d = input_scale * _elu_grad_factor(xs, alpha, scale, input_scale, False)
        d = np.where(xs > 0, 0, d)
    return Tensor._make((g._data * grad_output._data * d).astype(dt, copy=False))


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result) -> Tensor:
    """The derivative of ELU applied to ``grad_output`` (``aten::elu_backward``), one kernel.
    Node ``EluBackwardBackward0`` (create_graph)."""
    f = _elu_grad_factor(self_or_result._data, alpha, scale, input_scale, is_result)
    g = grad_output._data
    out = Tensor._make((g * f).astype(g.dtype, copy=False))
    record(EluBackwardBackward0, out, (grad_output, self_or_result), grad_output, alpha, scale,
           input_scale, is_result, self_or_result)
    return out


def _elu(x: np.ndarray, alpha, scale, input_scale) -> np.ndarray:
    with quiet_fp():
        neg = alpha * np.expm1(x.astype(np.float64) * input_scale)
    return (scale * np.where(x > 0, x, neg)).astype(x.dtype, copy=False)


def elu(input: Tensor, alpha: float = 1.0, scale=1, input_scale=1) -> Tensor:
    """``x if x > 0 else alpha * (exp(x) - 1)`` (``torch.nn.functional.elu``; ``scale`` and
    ``input_scale`` are ATen's, used by SELU). Node ``EluBackward0``. NotImplementedError for
    integer input."""
    _float_kernel("elu_cpu", input)
    out = Tensor._make(_elu(input._data, alpha, scale, input_scale))
    record(EluBackward0, out, (input,), input, alpha, scale, input_scale)
    return out


def elu_result(input: Tensor, alpha: float = 1.0, scale=1, input_scale=1) -> Tensor:
    """Out-of-place ELU recorded as ``EluBackward1`` (saves its result): the computation
    behind the in-place ``elu_``."""
    out = Tensor._make(_elu(input._data, alpha, scale, input_scale))
    node = record(EluBackward1, out, (input,), alpha, scale, input_scale)
    if node:
        node._save("result", out, is_output=True)
    return out
