"""``minigrad.nn.functional``: the functional neural-network ops, with PyTorch's signatures.

Mirrors ``torch/nn/functional.py``. Each function validates its arguments as PyTorch does and
records the same backward graph: ``linear`` is ``addmm``/``matmul`` on ``weight.t()``,
``conv2d`` is one ``ConvolutionBackward0``, ``cross_entropy`` is
``NllLossBackward0(LogSoftmaxBackward0(...))``, ``dropout`` multiplies by a scaled random mask.
The ops themselves live in ``minigrad/_ops/`` (``conv.py``, ``pool.py``, ``loss.py``,
``nn_activation.py``, ``activation.py``, ``pointwise.py``).
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _creation
from .._ops import activation as _act
from .._ops import conv as _conv
from .._ops import inplace as _inplace
from .._ops import loss as _loss
from .._ops import nn_activation as _nnact
from .._ops import pointwise as _pw
from .._ops import pool as _pool
from .._ops.linalg import addmm as _addmm
from .._ops.linalg import matmul as _matmul
from .._tensor import Tensor

__all__ = [
    "linear", "relu", "relu_", "leaky_relu", "gelu", "silu", "softplus", "sigmoid", "tanh",
    "softmax", "log_softmax", "conv2d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d",
    "adaptive_avg_pool2d", "dropout", "pad", "cross_entropy", "nll_loss", "mse_loss", "l1_loss",
]


# ----------------------------------------------------------------------------- linear
def _check_tensors(fn: str, **args) -> None:
    """PyTorch's argument parser: a non-tensor where a tensor is expected is a TypeError (a
    parameter set to None, say), not an AttributeError from inside the op."""
    for pos, (name, value) in enumerate(args.items(), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                            f"{type(value).__name__}")


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` (``torch.nn.functional.linear``).

    Shapes: input (*, in_features), weight (out_features, in_features), bias (out_features,)
    or None; output (*, out_features). The graph is PyTorch's (``aten/src/ATen/native/
    Linear.cpp``): 2-D input with bias → ``AddmmBackward0(bias, input, TBackward0(weight))``;
    other contiguous input with a 1-D bias → ``ViewBackward0(AddmmBackward0(bias,
    ViewBackward0(input), TBackward0(weight)))``; otherwise ``matmul(input, weight.t())``
    (``MmBackward0``, ``UnsafeViewBackward0(MmBackward0)``, ``SqueezeBackward4(...)`` for 1-D)
    followed by an in-place ``add_(bias)`` when there is a bias.
    Raises RuntimeError ``mat1 and mat2 shapes cannot be multiplied (...)`` on a size mismatch.
    """
    _check_tensors("linear", input=input, weight=weight)
    ndim = input._data.ndim
    if ndim == 0 or weight._data.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    if bias is not None and ndim == 2:
        return _addmm(bias, input, weight.t())
    if bias is not None and bias.ndim == 1 and input.is_contiguous():
        lead = input.shape[:-1]
        flat = input.reshape(int(np.prod(lead, dtype=np.int64)), input.shape[-1])
        out = _addmm(bias, flat, weight.t())
        return out.view(lead + (out.shape[1],))
    out = _matmul(input, weight.t())
    if bias is not None:
        out.add_(bias)
    return out


# ----------------------------------------------------------------------------- activations
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` (``torch.nn.functional.relu``); node ``ReluBackward0``.

    ``inplace=True`` modifies ``input`` (``Tensor.relu_``) and returns the same object; that
    raises RuntimeError on a leaf that requires grad, as in PyTorch.
    """
    return input.relu_() if inplace else _act.relu(input)


def relu_(input: Tensor) -> Tensor:
    """In-place ``relu`` (``torch.nn.functional.relu_``)."""
    return input.relu_()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x if x > 0 else negative_slope * x`` (``torch.nn.functional.leaky_relu``).

    Node ``LeakyReluBackward0`` (saves ``self``); ``inplace=True`` gives ``LeakyReluBackward1``
    (saves ``result``) and returns ``input`` itself.
    """
    if inplace:
        return _inplace._apply_inplace(
            input, lambda: _nnact.leaky_relu_result(input, negative_slope))
    return _nnact.leaky_relu(input, negative_slope)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit (``torch.nn.functional.gelu``): exact ``x * Φ(x)`` or the
    ``approximate='tanh'`` form. Node ``GeluBackward0``. RuntimeError for another
    ``approximate``."""
    return _nnact.gelu(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (``torch.nn.functional.silu``); node ``SiluBackward0``.
    ``inplace=True`` overwrites ``input`` and returns it."""
    if inplace:
        return _inplace._apply_inplace(input, lambda: _nnact.silu(input))
    return _nnact.silu(input)


def softplus(input: Tensor, beta=1, threshold=20) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``
    (``torch.nn.functional.softplus``); node ``SoftplusBackward0``."""
    return _nnact.softplus(input, beta, threshold)


def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-x))`` (``torch.nn.functional.sigmoid``); node ``SigmoidBackward0``."""
    return _pw.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent (``torch.nn.functional.tanh``); node ``TanhBackward0``."""
    return _pw.tanh(input)


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """Softmax along ``dim`` (``torch.nn.functional.softmax``); node ``SoftmaxBackward0``.

    ``dim=None`` picks PyTorch's legacy default (0 for 0-D/1-D/3-D input, else 1) and warns.
    ``dtype`` converts the input first (``ToCopyBackward0``).
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return _act.softmax(input, dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype=None) -> Tensor:
    """Log of softmax along ``dim`` (``torch.nn.functional.log_softmax``); node
    ``LogSoftmaxBackward0``. ``dim=None`` and ``dtype`` behave as in `softmax`."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return _act.log_softmax(input, dim)


# ----------------------------------------------------------------------------- conv / pool
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """2-D convolution (``torch.nn.functional.conv2d``); see `minigrad._ops.conv.conv2d`.

    input (N, C, H, W) or (C, H, W), weight (O, C/groups, kh, kw), bias (O,) or None;
    ``padding`` an int, a pair, ``'valid'`` or ``'same'``. Node ``ConvolutionBackward0(input,
    weight, bias)``. RuntimeError with PyTorch's messages on channel/group mismatch, kernel
    larger than the padded input, and invalid arguments.
    """
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)):
        raise TypeError("conv2d() received an invalid combination of arguments - got ("
                        f"{type(input).__name__}, {type(weight).__name__}, ...)")
    return _conv.conv2d(input, weight, bias, stride, padding, dilation, groups)


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """2-D max pooling (``torch.nn.functional.max_pool2d``); node
    ``MaxPool2DWithIndicesBackward0``. Returns ``(output, indices)`` when ``return_indices``.
    See `minigrad._ops.pool.max_pool2d`."""
    return _pool.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode,
                            return_indices)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """``max_pool2d(..., return_indices=True)``: returns ``(output, indices)``."""
    return _pool.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None) -> Tensor:
    """2-D average pooling (``torch.nn.functional.avg_pool2d``); node ``AvgPool2DBackward0``.
    See `minigrad._ops.pool.avg_pool2d`."""
    return _pool.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                            divisor_override)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average pooling to ``output_size`` (``torch.nn.functional.adaptive_avg_pool2d``).
    Size 1 → ``MeanBackward1`` (a ``mean`` over H, W), else ``AdaptiveAvgPool2DBackward0``."""
    return _pool.adaptive_avg_pool2d(input, output_size)


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims (``torch.nn.functional.pad``); negative entries
    crop. Only ``mode='constant'`` is implemented (NotImplementedError otherwise). Node
    ``ConstantPadNdBackward0``."""
    if mode != "constant":
        raise NotImplementedError(f"minigrad: F.pad mode '{mode}' is not implemented "
                                  "(only 'constant')")
    return _conv.constant_pad_nd(input, pad, 0.0 if value is None else value)


# ----------------------------------------------------------------------------- dropout
def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``
    (``torch.nn.functional.dropout``).

    In training the result is ``input * mask`` (``MulBackward0(input, None)``; the mask is
    ``_saved_other``), or ``input.mul_(mask)`` with ``inplace=True``. When ``training`` is False,
    ``p == 0`` or the input is empty, returns ``input`` itself (no new tensor, no node). The mask
    is drawn from ``minigrad``'s generator (`minigrad.manual_seed`), so the zeroed
    positions differ from PyTorch's. Raises ValueError for ``p`` outside [0, 1].
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    dt = input._data.dtype
    if p == 1:
        mask = np.zeros(input.shape, dtype=dt)
    else:
        keep = _creation.default_generator().random(input.shape, dtype=np.float32) >= p
        mask = keep.astype(dt) * (dt.type(1) / dt.type(1 - p))
    m = Tensor._make(mask)
    return input.mul_(m) if inplace else input * m


# ----------------------------------------------------------------------------- losses
def _reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return _loss.legacy_reduction(size_average, reduce)
    return reduction


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood loss (``torch.nn.functional.nll_loss``); see
    `minigrad._ops.loss.nll_loss`. Node ``NllLossBackward0`` (or ``NllLoss2DBackward0``
    for spatial input); the target gets no slot. ``size_average``/``reduce`` are the
    deprecated flags (they warn and override ``reduction``)."""
    red = _reduction(size_average, reduce, reduction)
    return _loss.nll_loss(input, target, weight, ignore_index, red)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy between logits and class indices or class probabilities
    (``torch.nn.functional.cross_entropy``).

    input (C,), (N, C) or (N, C, d1, ...); target int64 class indices of shape (), (N,) or
    (N, d1, ...), or float probabilities of ``input``'s shape. Graph
    ``NllLossBackward0(LogSoftmaxBackward0(input))`` for class indices; label smoothing and
    probability targets add PyTorch's extra nodes. Errors as `nll_loss`, plus
    RuntimeError for ``label_smoothing`` outside [0, 1].
    """
    red = _reduction(size_average, reduce, reduction)
    return _loss.cross_entropy(input, target, weight, ignore_index, red, label_smoothing)


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
             reduction: str = "mean", weight=None) -> Tensor:
    """Mean squared error (``torch.nn.functional.mse_loss``); node ``MseLossBackward0``.
    Shape mismatch warns (UserWarning) and broadcasts. ``weight`` is not implemented
    (NotImplementedError)."""
    if weight is not None:
        raise NotImplementedError("minigrad: mse_loss(weight=...) is not implemented")
    red = _reduction(size_average, reduce, reduction)
    return _loss.mse_loss(input, target, red)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
            reduction: str = "mean", weight=None) -> Tensor:
    """Mean absolute error (``torch.nn.functional.l1_loss``): ``MeanBackward0(AbsBackward0(
    SubBackward0(...)))``. ``weight`` is not implemented (NotImplementedError)."""
    if weight is not None:
        raise NotImplementedError("minigrad: l1_loss(weight=...) is not implemented")
    red = _reduction(size_average, reduce, reduction)
    return _loss.l1_loss(input, target, red)


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
