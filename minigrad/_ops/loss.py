"""Losses: ``nll_loss`` (``NllLossBackward0`` / ``NllLoss2DBackward0``), ``mse_loss``
(``MseLossBackward0``), ``cross_entropy`` and ``l1_loss`` (compositions, as in PyTorch).

Mirrors ``aten/src/ATen/native/LossNLL.cpp`` (``nll_loss_nd``, ``cross_entropy_loss`` with its
label-smoothing and class-probability branches), ``LossNLL2d.cpp`` and ``Loss.cpp``. Reductions
are PyTorch's enum: 0 = ``'none'``, 1 = ``'mean'``, 2 = ``'sum'``. ``ignore_index`` is saved as
PyTorch saves it, an unsigned 64-bit integer (``-100`` → 18446744073709551516).

The backward of ``nll_loss`` and ``mse_loss`` is PyTorch's one-kernel ``nll_loss_backward`` /
``mse_loss_backward``; each records its own node under ``create_graph=True``
(``NllLossBackwardBackward0``, ``MseLossBackwardBackward0``), whose formulas are tensor ops, so
higher derivatives work through them with PyTorch's graph.
The label-smoothing and soft-target paths multiply and divide by plain numbers as PyTorch's C++
code does (``MulBackward1`` / ``DivBackward1``, from `_ops.scalar`).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd import graph as _graph
from ..autograd.graph import Node, record
from . import activation as A
from . import pointwise as P
from ._util import _HALF, broadcast_shapes, quietly, result_dtype, sum_dtype
from .reduction import _np_mean
from .scalar import add_scalar, div_scalar, mul_scalar

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def reduction_enum(reduction: str) -> int:
    """``'none' | 'mean' | 'sum'`` → 0 | 1 | 2; ValueError (PyTorch's message) otherwise."""
    try:
        return REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def legacy_reduction(size_average, reduce) -> str:
    """Map the deprecated ``size_average``/``reduce`` flags to a reduction string (warns)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{ret}' instead.", UserWarning, stacklevel=3)
    return ret


# ----------------------------------------------------------------------------- nll_loss
class NllLossBackward0(Node):
    """z = -Σ weight[t] * self[..., t, ...] over non-ignored targets t (then / total_weight for
    ``'mean'``; per element for ``'none'``).
    dz/dself = nll_loss_backward(grad, ...): zeros shaped like self, holding grad *
    -weight[t] (/ total_weight for mean) at each non-ignored target position — one kernel, as
    PyTorch's (under create_graph the gradient's node is ``NllLossBackwardBackward0``).
    Saves: ignore_index, reduction, self, target, total_weight, weight."""

    _double = None  # the node class of this backward's own derivative (set below)
    _size_error = None

    def __init__(self, input, target, weight, reduction, ignore_index, total_weight, where):
        Node.__init__(self)
        self._save("ignore_index", int(ignore_index) % 2**64)
        self._save("reduction", reduction)
        self._save("self", input)
        self._save("target", target)
        self._save("total_weight", total_weight)
        self._save("weight", weight)
        self._ignore_index = ignore_index
        # (the target positions in self, the value per unit of grad there, the mask of the
        # targets not ignored or None when none is; see _nll)
        self._where = where

    def backward(self, g):
        if self._size_error:
            raise RuntimeError(self._size_error)
        return (_nll_loss_backward(g, self._get("self"), self),)

    @classmethod
    def jvp(cls, inputs, tangents, outputs, input, target, weight, reduction, ignore_index,
            total_weight, where):
        """dz = nll_loss(self_t, target, weight, reduction, ignore_index) (linear in self)."""
        axis = 1 if cls is NllLoss2DBackward0 else input.ndim - 1
        return _nll(tangents[0], target, weight, reduction, ignore_index, cls, axis)


class NllLoss2DBackward0(NllLossBackward0):
    """``nll_loss`` over (N, C, H, W) input and (N, H, W) target: the same formula and saved
    values as ``NllLossBackward0``; ``NllLoss2DBackwardBackward0`` under create_graph."""


class NllLossBackwardBackward0(Node):
    """z = nll_loss_backward(grad_output, self, target, weight, ...), the gradient of
    ``nll_loss``: linear in grad_output, constant in self.
    dz/dgrad_output = nll_loss(grad, target, weight, reduction, ignore_index);
    dz/dself = 0 (``zeros_like(grad)``, no graph). Saves: ignore_index, reduction, target,
    weight."""

    def __init__(self, target, weight, reduction, ignore_index, first=None):
        Node.__init__(self)  # (first: the nll node whose gradient this is, for the jvp)
        self._save("ignore_index", int(ignore_index) % 2**64)
        self._save("reduction", reduction)
        self._save("target", target)
        self._save("weight", weight)
        self._ignore_index = ignore_index

    def _loss(self, g, target, weight):
        return nll_loss(g, target, weight, self._ignore_index,
                        ("none", "mean", "sum")[self._saved["reduction"]])

    def backward(self, g):
        (n_go, _), (n_self, _) = self.next_functions
        g_go = self._loss(g, self._get("target"), self._get("weight")) if n_go else None
        return g_go, Tensor._make(np.zeros_like(g._data)) if n_self else None

    @staticmethod
    def jvp(inputs, tangents, outputs, target, weight, reduction, ignore_index, first):
        """dz = nll_loss_backward(grad_output_t, self, target, ...) (linear in grad_output,
        constant in self: PyTorch's decomposition for forward AD)."""
        t_go = tangents[0]
        if t_go is None:  # (self only gives the shape)
            return None
        return _nll_loss_backward(t_go, inputs[1], first)


class NllLoss2DBackwardBackward0(NllLossBackwardBackward0):
    """The gradient of ``nll_loss2d``: as ``NllLossBackwardBackward0``, with nll_loss2d."""

    def _loss(self, g, target, weight):
        return _nll2d(g, target, weight, self._saved["reduction"], self._ignore_index)


NllLossBackward0._double = NllLossBackwardBackward0
NllLoss2DBackward0._double = NllLoss2DBackwardBackward0


def _nll_loss_backward(grad_output, input, node) -> Tensor:
    """PyTorch's ``nll_loss_backward`` kernel: zeros like ``input`` with ``grad_output`` times
    the node's per-target values written at the target positions (``grad_output`` is 0-d, or
    shaped like the target for ``'none'``). Records ``node._double`` (create_graph)."""
    at, scale, keep = node._where
    res = np.zeros_like(input._data)
    if at is not None:  # (None: no classes, nothing to write)
        vals = grad_output._data * scale
        res[at] = vals if keep is None else np.where(keep, vals, 0)  # (ignored: 0, even for
    out = Tensor._make(res)  # an infinite grad)
    s = node._saved
    record(node._double, out, (grad_output, input), node._get("target"), node._get("weight"),
           s["reduction"], node._ignore_index, node)
    return out


def _check_nll(input, target, weight, n_classes):
    if target._data.dtype not in (np.int64, np.uint8):
        name = {"f": "Float" if target._data.dtype == np.float32 else "Double",
                "i": "Int", "b": "Bool"}.get(target._data.dtype.kind, str(target.dtype))
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {name}")
    if weight is not None:
        if weight.ndim != 1 or weight.shape[0] != n_classes:
            raise RuntimeError(f"weight tensor should be defined either for all {n_classes} "
                               f"classes or no classes but got weight tensor of shape: "
                               f"{list(weight.shape)}")
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype._legacy[:-6]} but found "
                               f"{weight.dtype._legacy[:-6]}")


def _half_nll_sums(terms: np.ndarray, wt: np.ndarray, valid: np.ndarray, weighted: bool):
    """The sums PyTorch's CPU ``nll_loss``/``nll_loss2d`` kernels reduce a float16/bfloat16 loss
    with (``aten/src/ATen/native/LossNLL.cpp``, ``LossNLL2d.cpp``): ``-terms`` and ``wt`` summed
    over the flattened samples, skipping the ignored ones, in the input's dtype with every
    addition rounded, through a cascade of 8 partial sums (level ``j`` is added into level
    ``j + 1`` whenever the sample index is a multiple of ``2 ** (power * (j + 1))``, ``power``
    at least 4) that are added up in order at the end. Without ``weighted`` (``nll_loss``
    without ``weight``) the total weight is the number of samples left, in the dtype."""
    dt, levels, n = terms.dtype.type, 8, terms.size
    power = max(4, int(np.ceil(np.log2(n))) // levels if n > 1 else 0)
    mask = (1 << power) - 1
    loss, wsum = [dt(0)] * levels, [dt(0)] * levels
    for b, (term, w, ok) in enumerate(zip(terms.ravel(), wt.ravel(), valid.ravel())):
        if not ok:
            continue
        loss[0] = dt(loss[0] - term)
        wsum[0] = dt(wsum[0] + w)
        for j in range(levels - 1):
            if b & (mask << (j * power)):
                break
            loss[j + 1], wsum[j + 1] = dt(loss[j + 1] + loss[j]), dt(wsum[j + 1] + wsum[j])
            loss[j], wsum[j] = dt(0), dt(0)
    total_loss, total_weight = dt(0), dt(0)
    for part_loss, part_weight in zip(loss, wsum):
        total_loss, total_weight = dt(total_loss + part_loss), dt(total_weight + part_weight)
    if not weighted:
        total_weight = dt(int(valid.sum()))
    return total_loss, total_weight


def _nll(input, target, weight, reduction: int, ignore_index: int, node_cls, class_axis):
    """Core of ``nll_loss`` for input (N, C) / (C,) [class_axis 1 / 0] or (N, C, H, W)."""
    x, t = input._data, target._data.astype(np.int64, copy=False)
    c = x.shape[class_axis]
    _check_nll(input, target, weight, c)
    valid = t != ignore_index
    outside = (t < 0) | (t >= c)
    if outside.any():
        bad = valid & outside
        if bad.any():
            raise IndexError(f"Target {t[bad].flat[0]} is out of bounds.")
    everyone = valid.all()  # (the common case: no ignored target, no masking below)
    safe = t if everyone else np.where(valid, t, 0)
    if weight is None:  # weight of each target: 1, or 0 if ignored
        wt = valid.astype(x.dtype)
    else:
        wt = np.where(valid, weight._data[safe], 0).astype(x.dtype)
    # the target's position in the input, for each sample (and pixel)
    at = [np.arange(n).reshape([-1 if i == d else 1 for i in range(t.ndim)])
          for d, n in enumerate(t.shape)]
    at.insert(class_axis, safe)
    at = tuple(at)
    if c == 0:  # no classes: every target was ignored (else the bounds check raised)
        losses = np.zeros(t.shape, x.dtype)
    else:
        losses = -x[at] * wt
        if not everyone:  # an ignored target gives 0, even where the input is inf or nan
            losses = np.where(valid, losses, 0)
    # one sample (1-D input) is reduced like 'sum' even for 'none', as PyTorch does
    red = 2 if reduction == 0 and x.ndim == 1 else reduction
    if red and x.dtype in _HALF and c:  # (PyTorch's kernels sum in the dtype, rounding)
        terms = x[at] if weight is None and node_cls is NllLossBackward0 else x[at] * wt
        loss_sum, weight_sum = _half_nll_sums(terms, wt, valid, weight is not None or
                                              node_cls is not NllLossBackward0)
        total = np.asarray(weight_sum)
        res = np.asarray(loss_sum if red == 2 else quietly(np.divide, loss_sum, weight_sum))
    elif red == 0:
        res, total = losses, np.asarray(0, dtype=x.dtype)
    else:
        acc = sum_dtype(x) or x.dtype
        total = np.asarray(wt.sum(dtype=acc), dtype=x.dtype)
        res = np.asarray(losses.sum(dtype=acc)) if red == 2 else np.asarray(  # (all ignored:
            quietly(np.divide, losses.sum(dtype=acc), total), dtype=x.dtype)  # 0/0 = nan)
    out = Tensor._make(np.asarray(res, dtype=x.dtype))
    if input.requires_grad or _graph.fw_on:  # (the backward writes grad * scale at the
        # targets' positions; inside a forward-AD level the tangent needs the node's formula)
        scale = -wt / total if red == 1 and total != 0 else -wt
        where = (at if c else None, scale, None if everyone else valid)
        record(node_cls, out, (input,), input, target, weight, reduction, ignore_index,
               Tensor._make(total), where)
    return out


def nll_loss(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean"):
    """Negative log-likelihood loss on log-probabilities (``torch.nn.functional.nll_loss``).

    Shapes: input (C,), (N, C) or (N, C, d1, ...); target (), (N,) or (N, d1, ...) of int64 class
    indices (uint8 accepted). ``weight`` (C,) rescales each class; targets equal to
    ``ignore_index`` contribute nothing (``'mean'`` divides by the summed weight of the others:
    NaN when all are ignored). Nodes: ``NllLossBackward0`` for 1-D/2-D input,
    ``NllLoss2DBackward0`` otherwise (3-D and >4-D input are viewed as 4-D first, as PyTorch
    does). The target gets no slot in ``next_functions``.

    Raises ValueError for a 0-d input, batch-size mismatch, a 1-D target of more than one
    element for 1-D input or bad ``reduction``; IndexError for a target out of ``[0, C)``;
    RuntimeError for a wrong target dtype/shape or weight size.
    """
    red = reduction_enum(reduction)
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and (target.ndim == 0 or input.shape[0] != target.shape[0]):
        tb = target.shape[0] if target.ndim else 0
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({tb}).")
    if input.ndim <= 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if input.ndim == 1 and target.ndim == 1:  # PyTorch takes a 1-element target as 0-D
            if target.shape[0] != 1:
                raise ValueError(f"For 1D input, 1D target must have size 1, but got target "
                                 f"size: {target.shape[0]}")
            out = _nll(input, Tensor._make(target._data.reshape(())), weight, red,
                       ignore_index, NllLossBackward0, 0)
            if out.grad_fn is not None:  # PyTorch's backward then rejects the target's shape
                out.grad_fn._size_error = (f"size mismatch (got input: {list(input.shape)}, "
                                           f"target: {list(target.shape)})")
            return out
        return _nll(input, target, weight, red, ignore_index, NllLossBackward0, input.ndim - 1)
    if input.ndim == 4:
        return _nll2d(input, target, weight, red, ignore_index)
    n, c = input.shape[:2]
    out_size = (n,) + tuple(input.shape[2:])
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {list(out_size)}, got {list(target.shape)}")
    # viewed as 4-D / 3-D as PyTorch's nll_loss_nd does; an empty one as (n, c, 0, 0) / (n, 0, 0),
    # so an input without classes (c == 0) meets a non-empty target in the size check below
    rest = int(np.prod(input.shape[2:], dtype=np.int64))  # (explicit: -1 is ambiguous if 0)
    x4 = input.contiguous().view(n, c, 1, rest) if input.numel() else input.view(n, c, 0, 0)
    t3 = target.contiguous().view(n, 1, rest) if target.numel() else target.view(n, 0, 0)
    out = _nll2d(x4, t3, weight, red, ignore_index)
    return out.view(out_size) if red == 0 else out


def _nll2d(input, target, weight, red, ignore_index):
    """PyTorch's ``nll_loss2d``: 4-D input (N, C, H, W), 3-D target (N, H, W)."""
    if target.ndim != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.ndim}")
    if target.shape != input.shape[:1] + input.shape[2:]:
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                           f"{list(target.shape)}")
    return _nll(input, target, weight, red, ignore_index, NllLoss2DBackward0, 1)


# ----------------------------------------------------------------------------- cross entropy
def cross_entropy(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0):
    """``nll_loss(log_softmax(input, class_dim), target)`` with PyTorch's three branches.

    * class-index targets: ``NllLossBackward0(LogSoftmaxBackward0(...))``;
    * with ``label_smoothing > 0``: ``(1 - ε) * nll + ε / C * smooth`` where ``smooth`` is the
      (weighted) negative sum of log-probabilities over classes, masked at ignored targets;
    * float targets of the same shape as ``input``: class probabilities,
      ``-(log_softmax(input) * target [* weight]).sum(...)`` divided by N for ``'mean'``.

    Raises RuntimeError for ``label_smoothing`` outside [0, 1] or a non-float probability
    target, plus everything ``nll_loss`` raises.
    """
    red = reduction_enum(reduction)
    class_dim = 0 if input.ndim == 1 else 1  # (1 for a 0-d input too: log_softmax then fails)
    if target._data.shape == input._data.shape:
        if not target.dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {target.dtype._legacy[:-6]}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _soft_cross_entropy(input, target, weight, red, label_smoothing, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                               f"{label_smoothing}")
        return _smoothed_cross_entropy(input, target, weight, red, ignore_index,
                                       label_smoothing, class_dim)
    return nll_loss(A.log_softmax(input, class_dim), target, weight, ignore_index, reduction)


def _weight_view(weight, ndim: int, class_dim: int):
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


def _smoothed_cross_entropy(input, target, weight, red, ignore_index, eps, class_dim):
    logp = A.log_softmax(input, class_dim)
    nll = nll_loss(logp, target, weight, ignore_index, ["none", "mean", "sum"][red])
    ignore = Tensor._make(np.asarray(target._data == ignore_index))
    if weight is not None:
        smooth = -(logp * _weight_view(weight, input.ndim, class_dim)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = P.masked_fill(smooth, ignore, 0.0)
    if red == 1:
        if weight is not None:
            kept = target._data[~ignore._data].ravel()
            denom = Tensor._make(np.asarray(weight._data[kept].sum(), dtype=weight._data.dtype))
        else:
            denom = Tensor._make(np.asarray((~ignore._data).sum(), dtype=np.int64))
        smooth = smooth.sum() / denom
    elif red == 2:
        smooth = smooth.sum()
    n_classes = input.shape[class_dim]
    return mul_scalar(nll, 1 - eps) + mul_scalar(smooth, eps / n_classes if n_classes else
                                                 float("inf"))  # (C++: 0.1 / 0 is inf)


def _soft_cross_entropy(input, target, weight, red, eps, class_dim):
    n_classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    logp = A.log_softmax(input, class_dim)
    if eps > 0.0:
        if eps > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {eps}")
        target = add_scalar(mul_scalar(target, 1 - eps), eps / n_classes if n_classes else
                            float("inf"))
    prod = logp * target
    if weight is not None:
        prod = prod * (_weight_view(weight, input.ndim, class_dim) if input.ndim > 1 else weight)
    if red == 0:
        return -prod.sum(class_dim)
    if red == 2:
        return -prod.sum()
    if input.numel() == 0:  # PyTorch fills the empty sum with NaN (FillBackward2) instead
        return -prod.sum().fill_(float("nan"))
    return div_scalar(-prod.sum(), input.numel() // n_classes)


# ----------------------------------------------------------------------------- mse / l1
class MseLossBackward0(Node):
    """z = (self - target)² (then mean or sum).
    dz/dself = mse_loss_backward(grad, self, target) = 2 * (self - target) * grad (/ numel for
    mean); dz/dtarget = mse_loss_backward(grad, target, self) — one kernel each, as PyTorch's
    (``MseLossBackwardBackward0`` under create_graph). Saves: reduction, self, target."""

    def __init__(self, input, target, reduction):
        Node.__init__(self)
        self._save("reduction", reduction)
        self._save("self", input)
        self._save("target", target)

    def backward(self, g):
        x, t, red = self._get("self"), self._get("target"), self._saved["reduction"]
        nf = self.next_functions
        gx = mse_loss_backward(g, x, t, red) if nf[0][0] is not None else None
        gt = mse_loss_backward(g, t, x, red) if nf[1][0] is not None else None
        # mixed dtypes compute in the promoted one; each input gets a grad of its own dtype
        if gx is not None and gx.dtype is not x.dtype:
            gx = gx.to(x.dtype)
        if gt is not None and gt.dtype is not t.dtype:
            gt = gt.to(t.dtype)
        return gx, gt

    @staticmethod
    def jvp(inputs, tangents, outputs, input, target, reduction):
        """dz = reduce(mse_loss_backward(self_t, self, target, none) +
        mse_loss_backward(target_t, target, self, none))."""
        t_x, t_t = (_or_zeros(t, p) for t, p in zip(tangents, inputs))
        return apply_loss_reduction(mse_loss_backward(t_x, input, target, 0)
                                    + mse_loss_backward(t_t, target, input, 0), reduction)


class MseLossBackwardBackward0(Node):
    """z = mse_loss_backward(grad_output, self, target) = norm * (self - target) *
    grad_output, norm = 2 (/ numel for mean).
    dz/dgrad_output = mse_loss_backward(grad, self, target), summed unless reduction is
    'none'; dz/dself = 2 * grad * grad_output (/ numel for mean); dz/dtarget = -dz/dself
    (PyTorch's ``mse_loss_double_backward``). Saves: grad_output, reduction, self, target."""

    def __init__(self, grad_output, input, target, reduction):
        Node.__init__(self)
        self._save("grad_output", grad_output)
        self._save("reduction", reduction)
        self._save("self", input)
        self._save("target", target)

    def backward(self, g):
        (n_go, _), (n_self, _), (n_t, _) = self.next_functions
        red = self._saved["reduction"]
        x, t = self._get("self"), self._get("target")
        g_go = None
        if n_go:
            g_go = mse_loss_backward(g, x, t, red)
            g_go = g_go if red == 0 else g_go.sum()
        g_self = g_t = None
        if n_self or n_t:
            scaled = mul_scalar(g * self._get("grad_output"), 2)
            if red == 1:
                scaled = div_scalar(scaled, x.numel())
            g_self = scaled if n_self else None
            g_t = -scaled if n_t else None
        return g_go, g_self, g_t

    @staticmethod
    def jvp(inputs, tangents, outputs, grad_output, input, target, reduction):
        """dz = mse_loss_double_backward(self_t * grad_output, self) -
        mse_loss_double_backward(target_t * grad_output, target) +
        mse_loss_backward(grad_output_t, self, target), mse_loss_double_backward(g, x) =
        2 * g (/ numel for the mean)."""
        t_go, t_x, t_t = (_or_zeros(t, p) for t, p in zip(tangents, inputs))

        def double(g, x):
            g2 = mul_scalar(g, 2)
            return div_scalar(g2, x.numel()) if reduction == 1 else g2
        return (double(t_x * grad_output, input) - double(t_t * grad_output, target)
                + mse_loss_backward(t_go, input, target, reduction))


def _or_zeros(t, primal: Tensor) -> Tensor:
    """``t``, or zeros like ``primal`` for a missing tangent (PyTorch's multi-input formulas
    take an undefined tangent as a zero tensor: the primals still enter the graph)."""
    return Tensor._make(np.zeros_like(primal._data)) if t is None else t


def apply_loss_reduction(loss: Tensor, reduction: int) -> Tensor:
    """``loss``, its mean or its sum (reduction 0, 1, 2), as PyTorch's
    ``apply_loss_reduction``."""
    return loss.mean() if reduction == 1 else loss.sum() if reduction == 2 else loss


def mse_loss_backward(grad_output, self, target, reduction: int) -> Tensor:
    """``norm * (self - target) * grad_output``, norm = 2 (``/ numel`` for mean), in the
    promoted dtype (``aten::mse_loss_backward``): one kernel. Node ``MseLossBackwardBackward0``
    (create_graph)."""
    x, t = self._data, target._data
    dt = result_dtype(self, target)
    n = x.size  # (an empty input has an empty gradient whatever the scale)
    norm = (2.0 / n if n else float("nan")) if reduction == 1 else 2.0
    res = quietly(_mse_grad_kernel, norm, x.astype(dt, copy=False), t.astype(dt, copy=False),
                  grad_output._data)
    out = Tensor._make(np.asarray(res, dtype=np.result_type(dt, grad_output._data.dtype)))
    record(MseLossBackwardBackward0, out, (grad_output, self, target), grad_output, self, target,
           reduction)
    return out


def _mse_grad_kernel(norm, x, t, g):
    return (x - t) * norm * g


def _broadcast_pair(input, target):
    """Warn (UserWarning, PyTorch's text) when shapes differ, then expand both to one shape."""
    if target._data.shape == input._data.shape:
        return input, target
    warnings.warn(f"Using a target size ({target.shape!r}) that is different to the input size "
                  f"({input.shape!r}). This will likely lead to incorrect results due to "
                  "broadcasting. Please ensure they have the same size.", UserWarning,
                  stacklevel=4)
    shape = broadcast_shapes(input.shape, target.shape)
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in (input, target))


def mse_loss(input, target, reduction: str = "mean") -> Tensor:
    """Mean squared error (``torch.nn.functional.mse_loss``); node ``MseLossBackward0(input,
    target)`` (the target slot is None unless it requires grad).

    Different shapes warn (UserWarning) and broadcast, as in PyTorch (the graph then shows
    ``ExpandBackward0``); shapes that do not broadcast raise RuntimeError; a bad reduction
    raises ValueError. The result dtype is the promoted dtype of both inputs.
    """
    red = reduction_enum(reduction)
    input, target = _broadcast_pair(input, target)
    dt = result_dtype(input, target)  # (PyTorch's promotion: float32 input + int64 target)
    if dt.kind not in "fV":  # PyTorch's kernel is float-only
        name = {"i": "Long", "u": "Byte", "b": "Bool"}[dt.kind] if dt != np.int32 else "Int"
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{name}'")
    diff = input._data.astype(dt, copy=False) - target._data.astype(dt, copy=False)
    sq = diff * diff
    res = sq if red == 0 else np.asarray(_np_mean(sq) if red == 1 else sq.sum(), dtype=dt)
    out = Tensor._make(np.asarray(res, dtype=dt))
    record(MseLossBackward0, out, (input, target), input, target, red)
    return out


def l1_loss(input, target, reduction: str = "mean") -> Tensor:
    """Mean absolute error (``torch.nn.functional.l1_loss``), composed as PyTorch does:
    ``(input - target).abs()`` then ``mean()`` / ``sum()`` (``MeanBackward0(AbsBackward0(
    SubBackward0(...)))``). Warns and broadcasts on a shape mismatch like ``mse_loss``."""
    red = reduction_enum(reduction)
    input, target = _broadcast_pair(input, target)
    err = (input - target).abs()
    return err if red == 0 else err.mean() if red == 1 else err.sum()
