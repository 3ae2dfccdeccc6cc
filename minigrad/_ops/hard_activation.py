"""Piecewise and parametric activations: ``hardtanh`` (and ``relu6``), ``hardswish``,
``hardsigmoid``, ``mish``, ``prelu``.

Mirrors ``aten/src/ATen/native/Activation.cpp`` and the matching entries of
``tools/autograd/derivatives.yaml``. Each node saves its input (``_saved_self``) and its scalar
arguments; the in-place forms (``hardtanh_``, ``hardswish_``, ...) go through
`minigrad._ops.inplace._apply_inplace`, which saves a clone of ``self`` as PyTorch does.

Under ``create_graph=True``: ``hardtanh`` and ``hardswish`` backward are PyTorch's kernels with
nodes of their own (``HardtanhBackwardBackward0``, ``HardswishBackwardBackward0``); ``mish``
uses tensor ops, as PyTorch's ``infinitely_differentiable_mish_backward``; ``hardsigmoid``'s
backward has no derivative in PyTorch either (its node is ``torch::autograd::NotImplemented``,
which raises when it runs); ``prelu``'s is ``PreluKernelBackwardBackward0`` (two outputs, one
node, as PyTorch's).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd import graph as _graph
from ..autograd.forward_ad import fw_grad, tangent_sum
from ..autograd.graph import Node, record
from . import pointwise as P
from ._util import quiet_fp, sum_to, widened, wrap_scalar
from .nn_activation import _float_kernel, no_double_backward
from .pointwise_unary import log1p


def _make(arr: np.ndarray, like: np.ndarray) -> Tensor:
    return Tensor._make(np.asarray(arr).astype(like.dtype, copy=False))


# ----------------------------------------------------------------------------- hardtanh
class HardtanhBackward0(Node):
    """z = clamp(self, min_val, max_val).
    dz/dself = hardtanh_backward(grad, self, min_val, max_val): grad where
    min_val < self < max_val, else 0 (``HardtanhBackwardBackward0`` under create_graph).
    Saves: max_val, min_val, self."""

    def __init__(self, input, min_val, max_val):
        Node.__init__(self)
        self._save("max_val", max_val)
        self._save("min_val", min_val)
        self._save("self", input)

    def backward(self, g):
        s = self._saved
        return (hardtanh_backward(g, self._get("self"), s["min_val"], s["max_val"]),)

    @staticmethod
    def jvp(inputs, tangents, outputs, input, min_val, max_val):
        """dz = hardtanh_backward(self_t, self, min_val, max_val)."""
        return hardtanh_backward(tangents[0], input, min_val, max_val)


class HardtanhBackwardBackward0(Node):
    """z = hardtanh_backward(grad_output, self, min_val, max_val): linear in grad_output.
    dz/dgrad_output = hardtanh_backward(grad, self, min_val, max_val); dz/dself = 0
    (``zeros_like(grad)``). Saves: max_val, min_val, self."""

    def __init__(self, input, min_val, max_val):
        Node.__init__(self)
        self._save("max_val", max_val)
        self._save("min_val", min_val)
        self._save("self", input)

    def backward(self, g):
        (n_go, _), (n_self, _) = self.next_functions
        s = self._saved
        g_go = hardtanh_backward(g, self._get("self"), s["min_val"], s["max_val"]) if n_go else None
        return g_go, Tensor._make(np.zeros_like(g._data)) if n_self else None

    @staticmethod
    def jvp(inputs, tangents, outputs, input, min_val, max_val):
        """dz = where(min_val < self < max_val, grad_output_t, 0)."""
        t = tangents[0]
        x = input._data
        if t is None:  # (PyTorch: no tangent from self's alone)
            return None
        inside = Tensor._make(np.asarray((x > min_val) & (x < max_val)))
        return P.where(inside, t, wrap_scalar(0.0))


def hardtanh_backward(grad_output, self, min_val, max_val) -> Tensor:
    """``grad_output`` where ``min_val < self < max_val``, else 0
    (``aten::hardtanh_backward``). Node ``HardtanhBackwardBackward0`` (create_graph)."""
    x, g = self._data, grad_output._data
    out = _make(np.where((x <= min_val) | (x >= max_val), 0, g), g)
    record(HardtanhBackwardBackward0, out, (grad_output, self), self, min_val, max_val)
    return out


def hardtanh(input: Tensor, min_val=-1.0, max_val=1.0) -> Tensor:
    """``clamp(x, min_val, max_val)`` (``torch.nn.functional.hardtanh``; ``relu6`` is
    ``hardtanh(x, 0, 6)``). Node ``HardtanhBackward0``. NotImplementedError for bool input."""
    if input._data.dtype == np.bool_:
        _float_kernel("hardtanh", input)
    x = input._data
    out = _make(np.clip(x, min_val, max_val), x)
    record(HardtanhBackward0, out, (input,), input, min_val, max_val)
    return out


# ----------------------------------------------------------------------------- hardswish
class HardswishBackward0(Node):
    """z = self * relu6(self + 3) / 6.
    dz/dself = hardswish_backward(grad, self): 0 where self <= -3, grad * (self / 3 + 0.5)
    where -3 < self < 3, grad where self >= 3 (``HardswishBackwardBackward0`` under
    create_graph). Saves: self."""

    def __init__(self, input):
        Node.__init__(self)
        self._save("self", input)

    def backward(self, g):
        return (hardswish_backward(g, self._get("self")),)

    @staticmethod
    def jvp(inputs, tangents, outputs, input):
        """dz = hardswish_backward(self_t, self)."""
        return hardswish_backward(tangents[0], input)


class HardswishBackwardBackward0(Node):
    """z = hardswish_backward(grad_output, self).
    dz/dgrad_output = hardswish_backward(grad, self); dz/dself = grad * grad_output / 3 where
    -3 < self < 3, else 0. Saves: grad_output, self. Third order is not supported."""

    def __init__(self, grad_output, input):
        Node.__init__(self)
        self._save("grad_output", grad_output)
        self._save("self", input)

    def backward(self, g):
        no_double_backward(self)
        (n_go, _), (n_self, _) = self.next_functions
        x = self._get("self")
        g_go = hardswish_backward(g, x) if n_go else None
        g_self = None
        if n_self:
            xs, go = x._data, self._get("grad_output")._data
            g_self = _make(np.where((xs > -3) & (xs < 3), g._data * go / 3, 0), xs)
        return g_go, g_self

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, input):
        """dz = hardswish_backward(grad_output_t, self) + where(-3 < self < 3,
        self_t * grad_output / 3, 0)."""
        t_go, t_x = tangents
        x = input._data
        inside = Tensor._make(np.asarray((x > -3) & (x < 3)))
        zero = Tensor._make(np.zeros((), x.dtype))
        return tangent_sum(None if t_go is None else hardswish_backward(t_go, input),
                           None if t_x is None else P.where(inside, t_x * grad_output / 3.0, zero))


def hardswish_backward(grad_output, self) -> Tensor:
    """The derivative of hardswish applied to ``grad_output`` (``aten::hardswish_backward``),
    one kernel. Node ``HardswishBackwardBackward0`` (create_graph)."""
    x, g = self._data, grad_output._data
    out = _make(np.where(x <= -3, 0, np.where(x < 3, g * (x / 3 + 0.5), g)), g)
    record(HardswishBackwardBackward0, out, (grad_output, self), grad_output, self)
    return out


def hardswish(input: Tensor) -> Tensor:
    """``x * relu6(x + 3) / 6`` (``torch.nn.functional.hardswish``). Node
    ``HardswishBackward0``. NotImplementedError for integer input."""
    _float_kernel("hardswish_cpu", input)
    x = input._data
    w = widened(x)  # (float16/bfloat16: in float32, rounded once, as PyTorch)
    out = _make(w * np.clip(w + 3, 0, 6) / 6, x)
    record(HardswishBackward0, out, (input,), input)
    return out


# ----------------------------------------------------------------------------- hardsigmoid
_ONE_SIXTH = np.float32(1) / np.float32(6)  # (PyTorch's kernel: ``1.0f / 6.0f``, in float64 too)


class HardsigmoidBackward0(Node):
    """z = relu6(self + 3) / 6.
    dz/dself = hardsigmoid_backward(grad, self): grad / 6 where -3 < self < 3, else 0.
    Under create_graph its result's node is `NotImplemented` (PyTorch defines no derivative
    of ``hardsigmoid_backward``). Saves: self."""

    def __init__(self, input):
        Node.__init__(self)
        self._save("self", input)

    def backward(self, g):
        x = self._get("self")
        xs, gd = x._data, g._data
        if _graph.fw_on and fw_grad(g) is not None:  # (the op's inputs are (grad, self))
            NotImplemented.jvp((), (), (), "aten::hardsigmoid_backward")
        out = _make(np.where((xs > -3) & (xs < 3), gd * _ONE_SIXTH.astype(gd.dtype), 0), gd)
        # (PyTorch's NotImplemented node here has one edge, to ``self``'s history)
        record(NotImplemented, out, (x,), "aten::hardsigmoid_backward")
        return (out,)

    @staticmethod
    def jvp(inputs, tangents, outputs, input):
        """dz = hardsigmoid_backward(self_t, self)."""
        return HardsigmoidBackward0(input).backward(tangents[0])[0]


class NotImplemented(Node):
    """The node PyTorch records for an op without a derivative formula
    (``torch::autograd::NotImplemented``): running it raises RuntimeError
    "derivative for <op> is not implemented". Saves nothing."""

    _runs_unmasked = True  # (raises, or calls its fn, whatever is needed)

    def __init__(self, op: str):
        Node.__init__(self)
        self._op = op

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def backward(self, g):
        raise RuntimeError(f"derivative for {self._op} is not implemented")

    @staticmethod
    def jvp(inputs, tangents, outputs, op):
        """No forward formula (PyTorch's NotImplementedError)."""
        raise NotImplementedError(f"Trying to use forward AD with {op} that does not support it.")


def hardsigmoid(input: Tensor) -> Tensor:
    """``relu6(x + 3) / 6`` (``torch.nn.functional.hardsigmoid``). Node
    ``HardsigmoidBackward0``. NotImplementedError for integer input."""
    _float_kernel("hardsigmoid_cpu", input)
    x = input._data
    out = _make(np.clip(x + 3, 0, 6) / 6, x)
    record(HardsigmoidBackward0, out, (input,), input)
    return out


# ----------------------------------------------------------------------------- mish
def _mish_factor(x: np.ndarray) -> np.ndarray:
    with quiet_fp():
        sig = 1 / (1 + np.exp(-x))
        ts = np.tanh(np.log1p(np.exp(x)))
    return ts + x * sig * (1 - ts * ts)


class MishBackward0(Node):
    """z = self * tanh(softplus(self)).
    dz/dself = grad * (t + self * sigmoid(self) * (1 - t²)), t = tanh(softplus(self)): one
    kernel (``mish_backward``), or under create_graph the same formula in tensor ops, as
    PyTorch's ``infinitely_differentiable_mish_backward``. Saves: self."""

    def __init__(self, input):
        Node.__init__(self)
        self._save("self", input)

    def backward(self, g):
        x = self._get("self")
        if not grad_mode.is_grad_enabled():
            return (_make(g._data * _mish_factor(x._data), g._data),)
        sig = P.sigmoid(x)
        ts = P.tanh(log1p(P.exp(x)))
        return (g * (ts + x * sig * P.sub(wrap_scalar(1.0), ts * ts)),)

    @staticmethod
    def jvp(inputs, tangents, outputs, input):
        """dz = mish_backward(self_t, self) (tensor ops under grad mode, as the backward)."""
        return MishBackward0(input).backward(tangents[0])[0]


def mish(input: Tensor) -> Tensor:
    """``x * tanh(softplus(x))`` (``torch.nn.functional.mish``). Node ``MishBackward0``.
    NotImplementedError for integer input."""
    _float_kernel("mish_cpu", input)
    x = input._data
    w = widened(x)  # (float16/bfloat16: in float32, rounded once, as PyTorch)
    with quiet_fp():
        out = _make(w * np.tanh(np.log1p(np.exp(w))), x)
    record(MishBackward0, out, (input,), input)
    return out


# ----------------------------------------------------------------------------- prelu
class PreluKernelBackward0(Node):
    """z = self if self > 0 else weight * self (``weight`` already viewed to broadcast).
    dz/dself = grad where self > 0, else weight * grad; dz/dweight = sum over the broadcast
    dims of (0 where self > 0, else self * grad) — PyTorch's ``_prelu_kernel_backward``, one
    two-output kernel (``PreluKernelBackwardBackward0`` under create_graph). Saves: self,
    weight."""

    def __init__(self, input, weight):
        Node.__init__(self)
        self._save("self", input)
        self._save("weight", weight)

    def backward(self, g):
        (n_x, _), (n_w, _) = self.next_functions
        w = self._get("weight")
        g_x, g_w = prelu_kernel_backward(g, self._get("self"), w)
        # (the kernel's weight gradient has the input's shape; summed back as PyTorch does)
        return (g_x if n_x else None), (sum_to(g_w, tuple(w.shape)) if n_w else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, input, weight):
        """dz = where(self >= 0, self_t, weight * self_t + weight_t * self)."""
        t_x, t_w = (_or_zeros(t, p) for t, p in zip(tangents, inputs))  # (as PyTorch: a
        return P.where(_nonneg(input), t_x, weight * t_x + t_w * input)  # missing one is 0)


class PreluKernelBackwardBackward0(Node):
    """(gx, gw) = _prelu_kernel_backward(grad_output, self, weight), gx = where(self > 0,
    grad_output, weight * grad_output), gw = sum_to(where(self > 0, 0, self * grad_output)).
    With incoming (ggx, ggw): dgrad_output = where(self >= 0, ggx, ggx * weight + ggw * self);
    dself = where(self >= 0, 0, grad_output * ggw); dweight = sum_to(where(self >= 0, 0,
    grad_output * ggx)) (derivatives.yaml). Saves: grad_output, self, weight. Third order is
    not supported."""

    def __init__(self, grad_output, input, weight):
        Node.__init__(self)
        self._save("grad_output", grad_output)
        self._save("self", input)
        self._save("weight", weight)

    def backward(self, ggx, ggw):
        no_double_backward(self)
        go, x, w = (self._get(n)._data for n in ("grad_output", "self", "weight"))
        a, b = ggx._data, ggw._data
        nonneg = x >= 0
        (n_go, _), (n_x, _), (n_w, _) = self.next_functions
        d_go = _make(np.where(nonneg, a, a * w + b * x), go) if n_go else None
        d_x = _make(np.where(nonneg, 0, go * b), x) if n_x else None
        d_w = _make(_sum_to(np.where(nonneg, 0, go * a), w.shape), w) if n_w else None
        return d_go, d_x, d_w

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, input, weight):
        """dgx = where(self >= 0, grad_output_t, grad_output_t * weight + grad_output *
        weight_t); dgw = where(self >= 0, 0, grad_output * self_t + grad_output_t * self)."""
        used0, used1 = (tangents[0], tangents[2]), (tangents[0], tangents[1])
        t_go, t_x, t_w = (_or_zeros(t, p) for t, p in zip(tangents, inputs))
        nonneg = _nonneg(input)
        zero = Tensor._make(np.zeros((), input._data.dtype))
        d_gx = d_gw = None  # (an output's tangent needs one of the tangents its formula uses)
        if any(t is not None for t in used0):
            d_gx = P.where(nonneg, t_go, t_go * weight + grad_output * t_w)
        if any(t is not None for t in used1):
            d_gw = P.where(nonneg, zero, grad_output * t_x + t_go * input)
        return d_gx, d_gw


def _or_zeros(t, primal: Tensor) -> Tensor:
    """``t``, or zeros like ``primal`` for a missing tangent (PyTorch's multi-input formulas
    take an undefined tangent as a zero tensor: the primals still enter the graph)."""
    return Tensor._make(np.zeros_like(primal._data)) if t is None else t


def _nonneg(x: Tensor) -> Tensor:
    return Tensor._make(np.asarray(x._data >= 0))


def _sum_to(full: np.ndarray, shape: tuple) -> np.ndarray:
    lead = full.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and full.shape[lead + i] != 1)
    return full.sum(axis=axes, keepdims=True).reshape(shape) if axes else full.reshape(shape)


def prelu_kernel_backward(grad_output, self, weight):
    """``aten::_prelu_kernel_backward``: ``(grad_input, grad_weight)`` in one kernel; node
    ``PreluKernelBackwardBackward0`` (create_graph)."""
    x, w, gd = self._data, weight._data, grad_output._data
    pos = x > 0
    g_x = _make(np.where(pos, gd, w * gd), gd)
    g_w = _make(np.where(pos, 0, x * gd), w)
    record(PreluKernelBackwardBackward0, (g_x, g_w), (grad_output, self, weight), grad_output,
           self, weight)
    return g_x, g_w


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``max(0, x) + weight * min(0, x)``, one weight per channel (dim 1) or one for all
    (``torch.nn.functional.prelu``).

    ``weight``: a scalar or 1-D tensor of ``input``'s dtype with 1 or ``input.shape[1]``
    elements; it is viewed to broadcast over ``input`` (a ``ViewBackward0`` when the ranks
    differ) and the op is ``_prelu_kernel``: node ``PreluKernelBackward0``. RuntimeError, with
    PyTorch's messages, for a dtype mismatch, a channel count mismatch, a 0-d input with
    several weights or a weight of more than one dimension.
    """
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype._legacy[:-6]}"
                           f" and {weight.dtype._legacy[:-6]}")
    n = int(weight._data.size)
    if n != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != n:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {n} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    _float_kernel("prelu_cpu", input)
    w = weight
    if input.ndim != weight.ndim:
        dims = [1] * input.ndim
        if input.ndim > 1:
            dims[1] = n
        w = weight.view(*dims) if dims else weight.view(())
    x = input._data
    out = _make(np.where(x > 0, x, w._data * x), x)
    record(PreluKernelBackward0, out, (input, w), input, w)
    return out
