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
from .._ops import attention as _attn
from .._ops import conv as _conv
from .._ops import conv3d as _conv3d
from .._ops import conv_more as _conv_more
from .._ops import embedding as _emb
from .._ops import hard_activation as _hard
from .._ops import inplace as _inplace
from .._ops import loss as _loss
from .._ops import loss_elementwise as _lossel
from .._ops import nn_activation as _nnact
from .._ops import normalization as _norm
from .._ops import padding as _padding
from .._ops import pointwise as _pw
from .._ops import pool as _pool
from .._ops import upsample as _upsample
from .._ops.linalg import addmm as _addmm
from .._ops.linalg import matmul as _matmul
from .._tensor import Tensor

__all__ = [
    "linear", "relu", "relu_", "leaky_relu", "gelu", "silu", "softplus", "sigmoid", "tanh",
    "softmax", "log_softmax", "conv2d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d",
    "adaptive_avg_pool2d", "dropout", "pad", "cross_entropy", "nll_loss", "mse_loss", "l1_loss",
    "elu", "dropout1d", "dropout2d", "batch_norm", "layer_norm", "group_norm", "instance_norm",
    "embedding", "one_hot",
    "normalize", "cosine_similarity", "pairwise_distance", "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
]
__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]
__all__ += ["smooth_l1_loss", "huber_loss", "kl_div"]
__all__ += ["conv1d", "conv_transpose2d"]
__all__ += ["conv_transpose1d"]
__all__ += ["conv3d", "conv_transpose3d"]
__all__ += ["adaptive_max_pool2d", "adaptive_max_pool2d_with_indices"]
__all__ += ["interpolate"]
__all__ += ["hardtanh", "hardtanh_", "relu6", "hardswish", "hardsigmoid", "mish", "prelu"]


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


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x if x > 0 else alpha * (exp(x) - 1)`` (``torch.nn.functional.elu``).

    Node ``EluBackward0`` (saves ``self``); ``inplace=True`` gives ``EluBackward1`` (saves
    ``result``) and returns ``input`` itself.
    """
    if inplace:
        return _inplace._apply_inplace(input, lambda: _nnact.elu_result(input, alpha))
    return _nnact.elu(input, alpha)


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
    crop. Modes 'constant' (``ConstantPadNdBackward0``), 'reflect'/'replicate'/'circular' (see
    `minigrad._ops.padding`)."""
    if mode in ("reflect", "replicate"):
        if value is not None:
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        return _padding.pad_nonconstant(input, pad, mode)
    if mode == "circular":
        return _padding.pad_circular(input, pad)
    if mode != "constant":
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
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
        mask = np.zeros((), dtype=dt)  # (PyTorch: input * zeros({}), a 0-dim other)
    else:
        keep = _creation.default_generator().random(input.shape, dtype=np.float32) >= p
        mask = keep.astype(dt) * (dt.type(1) / dt.type(1 - p))
    m = Tensor._make(mask)
    return input.mul_(m) if inplace else input * m


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) or unbatched (C, L) input with probability ``p`` and
    scale the rest by ``1 / (1 - p)`` (``torch.nn.functional.dropout1d``).

    The result is ``input * mask`` with a (N, C, 1) mask (``MulBackward0``); unbatched input
    goes through ``unsqueeze(0)`` and ``squeeze(0)`` as in PyTorch. ValueError for ``p``
    outside [0, 1], RuntimeError for input that is not 2-D or 3-D. ``inplace=True`` on
    unbatched input (PyTorch's ``unsqueeze_``) is not implemented (NotImplementedError).
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an optional "
                           "batch dimension (i.e. 2D or 3D inputs).")
    if input.ndim == 3:
        return _feature_dropout(input, p, training, inplace)
    if inplace:
        raise NotImplementedError("minigrad: dropout1d(inplace=True) of unbatched input is not "
                                  "implemented (it needs Tensor.unsqueeze_)")
    return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels with probability ``p`` and scale the rest by ``1 / (1 - p)``
    (``torch.nn.functional.dropout2d``).

    input (N, C, H, W) or (N, C, L); the mask has shape (N, C, 1, ...) and the result is
    ``input * mask`` (``MulBackward0(input, None)``, the mask as ``_saved_other``). Input of
    another rank warns (deprecated) and a 3-D input warns that it is taken as (N, C, L), as
    PyTorch does. Not training or ``p == 0`` returns ``input`` itself. ValueError for ``p``
    outside [0, 1].
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    ndim = input.ndim
    if ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated "
                      "and will result in an error in a future release. To retain the behavior "
                      "and silence this warning, please use dropout instead. Note that dropout2d "
                      "exists to provide channel-wise dropout on inputs with 2 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D "
                      "or 4D inputs).", UserWarning, stacklevel=2)
    if ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change in "
                      "a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout "
                      "behavior, please switch to using dropout1d instead.", UserWarning,
                      stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """ATen's ``feature_dropout``: ``input * mask`` with one mask entry per (sample, channel),
    shape (N, C, 1, ...), scaled by ``1 / (1 - p)``; ``input`` itself when not training, for
    ``p == 0`` or empty input."""
    ndim = input.ndim
    if not training or p == 0 or input.numel() == 0:
        return input
    dt = input._data.dtype
    if p == 1:  # PyTorch multiplies by a 0-dim zero (made by zero_: _version 1)
        m = Tensor._make(np.zeros((), dtype=dt))
        m._vc.value = 1
    else:  # a (N, C, 1, ...) mask made by bernoulli_ then div_ (_version 2)
        shape = tuple(input.shape[:2]) + (1,) * (ndim - 2)
        keep = _creation.default_generator().random(shape, dtype=np.float32) >= p
        m = Tensor._make(keep.astype(dt) * (dt.type(1) / dt.type(1 - p)))
        m._vc.value = 2
    return input.mul_(m) if inplace else input * m


# ----------------------------------------------------------------------------- normalization
def _verify_batch_size(size) -> None:
    size = list(size)
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{_size_repr(size)}")


def _size_repr(size) -> str:
    return f"minigrad.Size({list(size)})"


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Batch normalisation over dim 1 (``torch.nn.functional.batch_norm``).

    Shapes: input (N, C, *); running_mean, running_var, weight, bias (C,) or None. With
    ``training`` the batch's mean and biased variance normalise the input and the running
    statistics (when given) move by ``momentum`` toward the batch's mean and *unbiased*
    variance, in place (their ``_version`` does not change, as on PyTorch's CPU). Otherwise
    the running statistics normalise. Node ``NativeBatchNormBackward0(input, weight, bias)``;
    see `minigrad._ops.normalization.native_batch_norm`.

    Raises ValueError for a single value per channel in training and for a non-positive
    ``eps`` (negative outside training); RuntimeError for wrong sizes or mixed dtypes. An
    input of no elements is checked for nothing else: its result is ``input.clone()``
    (times ``weight[0]``, plus ``bias[0]``), as PyTorch's.
    """
    if training:
        _verify_batch_size(input.shape)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _norm.native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                   momentum, eps)


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Layer normalisation over the last ``len(normalized_shape)`` dims
    (``torch.nn.functional.layer_norm``): ``(x - mean) / sqrt(var + eps) * weight + bias``.

    Shapes: input (*, *normalized_shape); weight and bias ``normalized_shape`` or None. Node
    ``NativeLayerNormBackward0(input, weight, bias)``. RuntimeError when the shapes do not
    match; TypeError for an int ``normalized_shape`` (PyTorch's functional form wants a
    sequence; ``nn.LayerNorm`` accepts an int).
    """
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(f"layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    return _norm.native_layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Group normalisation (``torch.nn.functional.group_norm``): the C channels of input
    (N, C, *) split into ``num_groups`` groups normalised per sample; weight/bias (C,) scale
    and shift per channel. Node ``NativeGroupNormBackward0(input, weight, bias)``, after a
    ``CloneBackward0`` (``contiguous()``) for a non-contiguous input, as PyTorch.

    Raises RuntimeError for input with fewer than 2 dims or C not divisible by
    ``num_groups``; ValueError for a single value per group.
    """
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    _verify_batch_size([input.shape[0] * input.shape[1] // num_groups, num_groups]
                       + list(input.shape[2:]))
    if not input.is_contiguous():  # ATen's group_norm: native_group_norm(input.contiguous())
        input = input.contiguous()  # (CloneBackward0 in the graph)
    return _norm.native_group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Instance normalisation (``torch.nn.functional.instance_norm``): every (sample, channel)
    of input (N, C, *) normalised over its spatial dims; weight/bias/running statistics (C,).

    PyTorch computes it as a batch norm of the input viewed as (1, N * C, *): graph
    ``ViewBackward0(NativeBatchNormBackward0(...))``, see
    `minigrad._ops.normalization.instance_norm`. ValueError for a single spatial element
    with ``use_input_stats``.
    """
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {list(input.shape)}")
    return _norm.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                               momentum, eps)


# ----------------------------------------------------------------------------- sparse
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Look up rows of ``weight`` (num_embeddings, D) by integer ``input`` of any shape:
    output ``input.shape + (D,)`` (``torch.nn.functional.embedding``). Node
    ``EmbeddingBackward0(weight)``; the rows of ``padding_idx`` get no gradient.

    ``max_norm`` renormalises the looked-up rows of ``weight`` in place (under no_grad) to norm
    at most ``max_norm``, as PyTorch's ``embedding_renorm_``. Raises AssertionError for a
    ``padding_idx`` outside ``[-num_embeddings, num_embeddings)``, RuntimeError for
    non-integer indices, IndexError for an index out of range.
    """
    n = weight.shape[0]
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return _emb.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float):
    """Rows of ``weight`` named in ``input`` with a ``norm_type``-norm above ``max_norm`` are
    scaled to ``max_norm / (norm + 1e-7)`` in place (one version bump), as
    ``torch.embedding_renorm_``."""
    from ..autograd.grad_mode import no_grad

    rows = np.unique(input._data.reshape(-1))
    w = weight._data
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    with no_grad():
        w[rows] = (w[rows] * scale[:, None]).astype(w.dtype)
        weight._vc.bump()


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding (``torch.nn.functional.one_hot``): shape ``tensor.shape +
    (num_classes,)``; ``num_classes=-1`` infers ``max + 1``. RuntimeError for a non-int64
    input or a class out of range. See `minigrad._ops.embedding.one_hot`."""
    return _emb.one_hot(tensor, num_classes)


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


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Smooth L1 loss (``torch.nn.functional.smooth_l1_loss``): quadratic below ``beta``,
    linear above. Node ``SmoothL1LossBackward0``; ``beta=0`` is `l1_loss`. Different shapes
    warn and broadcast; RuntimeError for a negative ``beta``."""
    red = _reduction(size_average, reduce, reduction)
    if beta == 0.0:
        return _loss.l1_loss(input, target, red)
    return _lossel.smooth_l1_loss(input, target, red, beta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """Huber loss (``torch.nn.functional.huber_loss``): ``0.5 * d²`` below ``delta``,
    ``delta * (|d| - 0.5 * delta)`` above. Node ``HuberLossBackward0``; with ``weight``
    (input's shape, else ValueError) the unreduced loss is multiplied by it and reduced with
    tensor ops, as PyTorch does. RuntimeError for ``delta <= 0``."""
    if weight is None:
        return _lossel.huber_loss(input, target, reduction, delta)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', "
                         "'mean', 'sum'.")
    weighted = _lossel.huber_loss(input, target, "none", delta) * weight
    return weighted if reduction == "none" else weighted.sum() if reduction == "sum" \
        else weighted.mean()


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence of log-probabilities ``input`` from ``target``
    (``torch.nn.functional.kl_div``), composed as ATen: ``xlogy(t, t) - t * input`` (or
    ``exp(t) * (t - input)`` with ``log_target``). ``reduction='batchmean'`` sums and divides
    by ``input.size(0)`` (``DivBackward0``); ``'mean'`` warns (UserWarning, PyTorch's text)
    that it divides by every element. ValueError for another reduction."""
    if size_average is not None or reduce is not None:
        red = _loss.reduction_enum(_loss.legacy_reduction(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the "
                "support size.'batchmean' divides only by the batch size, and aligns with the "
                "KL div math definition.'mean' will be changed to behave the same as "
                "'batchmean' in the next major release.", stacklevel=2)
        red = _loss.reduction_enum("sum" if reduction == "batchmean" else reduction)
    reduced = _lossel.kl_div(input, target, red, log_target)
    if reduction == "batchmean" and input.ndim != 0:
        reduced = reduced / input.shape[0]
    return reduced


# ----------------------------------------------------------------------------- hard activations
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """``clamp(x, min_val, max_val)`` (``torch.nn.functional.hardtanh``); node
    ``HardtanhBackward0`` (saves ``self``, ``min_val``, ``max_val``). ``inplace=True``
    overwrites ``input`` and returns it (the node then saves a clone of ``input``)."""
    if inplace:
        return _inplace._apply_inplace(input, lambda: _hard.hardtanh(input, min_val, max_val))
    return _hard.hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place `hardtanh` (``torch.nn.functional.hardtanh_``)."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(0, x), 6)`` (``torch.nn.functional.relu6``): ``hardtanh(x, 0, 6)``, node
    ``HardtanhBackward0`` with the integer bounds PyTorch saves."""
    return hardtanh(input, 0, 6, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6`` (``torch.nn.functional.hardswish``); node
    ``HardswishBackward0``. ``inplace=True`` overwrites ``input`` and returns it."""
    if inplace:
        return _inplace._apply_inplace(input, lambda: _hard.hardswish(input))
    return _hard.hardswish(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6`` (``torch.nn.functional.hardsigmoid``); node
    ``HardsigmoidBackward0``. ``inplace=True`` overwrites ``input`` and returns it."""
    if inplace:
        return _inplace._apply_inplace(input, lambda: _hard.hardsigmoid(input))
    return _hard.hardsigmoid(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))`` (``torch.nn.functional.mish``); node ``MishBackward0``.
    ``inplace=True`` overwrites ``input`` and returns it."""
    if inplace:
        return _inplace._apply_inplace(input, lambda: _hard.mish(input))
    return _hard.mish(input)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """Parametric ReLU ``max(0, x) + weight * min(0, x)`` (``torch.nn.functional.prelu``);
    ``weight`` has 1 or ``input.shape[1]`` elements. Node ``PreluKernelBackward0``; see
    `minigrad._ops.hard_activation.prelu` for the errors."""
    return _hard.prelu(input, weight)



# ----------------------------------------------------------------------------- attention
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask=None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale=None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value``
    (``torch.nn.functional.scaled_dot_product_attention``).

    query ``(..., L, E)``, key ``(..., S, E)``, value ``(..., S, Ev)`` → ``(..., L, Ev)``.
    ``attn_mask``: bool (True = attend) or float (added), broadcasting to ``(..., L, S)``;
    ``is_causal``: a top-left lower-triangular mask (combined with ``attn_mask`` when both are
    given, as PyTorch's CPU kernel does); ``scale`` defaults to ``1 / sqrt(E)``; ``dropout_p``
    drops attention weights (always, there is no training flag). The graph is PyTorch's CPU
    one: the fused ``ScaledDotProductFlashAttentionForCpuBackward0`` for 4-D inputs of one
    head size without dropout or a mask that requires grad, else the math composition
    (``SafeSoftmaxBackward0`` and ``matmul``). RuntimeError for mixed dtypes; ``enable_gqa``
    is not implemented (NotImplementedError).
    """
    if enable_gqa:
        raise NotImplementedError("minigrad: scaled_dot_product_attention(enable_gqa=True) is "
                                  "not implemented")
    return _attn.scaled_dot_product_attention(
        query, key, value, attn_mask, dropout_p, is_causal, scale,
        dropout_fn=lambda a, p: dropout(a, p, True))



def multi_head_attention_forward(*args, **kwargs):
    """Multi-head attention (``torch.nn.functional.multi_head_attention_forward``); see
    `minigrad.nn._mha.multi_head_attention_forward` for the arguments and shapes."""
    from ._mha import multi_head_attention_forward as _mha_forward

    return _mha_forward(*args, **kwargs)


# ----------------------------------------------------------------------------- issue 19
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out=None) -> Tensor:
    """``input / max(||input||_p over dim, eps)`` (``torch.nn.functional.normalize``), composed
    as PyTorch: ``DivBackward0(input, ExpandBackward0(ClampMinBackward0(
    LinalgVectorNormBackward0)))``. ``out=`` is not supported (NotImplementedError)."""
    if out is not None:
        raise NotImplementedError("minigrad: normalize(out=...) is not implemented")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine similarity along ``dim`` of ``x1`` and ``x2`` (broadcast)
    (``torch.nn.functional.cosine_similarity``), as ATen computes it: each input divided by
    its own 2-norm, the norm clamped to at least ``eps`` without recording the clamp, then
    the product summed over ``dim``."""
    from .._dtype import from_numpy_dtype
    from .._ops._util import result_dtype
    from .._ops.reduction_more import vector_norm
    from ..autograd.grad_mode import no_grad

    _check_tensors("cosine_similarity", x1=x1, x2=x2)
    common = result_dtype(x1, x2)
    if common.kind not in "fV":
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{from_numpy_dtype(common)._legacy[:-len('Tensor')]}")
    # (integer inputs are cast to the common dtype; float ones stay and promote later)
    x1, x2 = (x if x._data.dtype.kind in "fV" else x.to(from_numpy_dtype(common))
              for x in (x1, x2))
    shape = _pw.broadcast_shapes(x1.shape, x2.shape)
    if tuple(x1.shape) != tuple(x2.shape):  # (ATen's expand_outplace: both, or neither)
        x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = vector_norm(x1, 2, dim, True).clone()
    n2 = vector_norm(x2, 2, dim, True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dim (``torch.nn.functional.pairwise_distance``;
    ``eps`` is added to the difference, as ATen does); node ``NormBackward1``."""
    from .._ops.reduction_more import _at_norm
    from .._ops.scalar import add_scalar

    _check_tensors("pairwise_distance", x1=x1, x2=x2)
    diff = x1 - x2  # (C++ adds a number: AddBackward1; to an integer difference, float32)
    shifted = add_scalar(diff, eps) if diff._data.dtype.kind in "fV" else _pw.add(diff, eps)
    return _at_norm(shifted, p, max(x1.ndim, x2.ndim) - 1, keepdim)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Binary cross entropy of probabilities (``torch.nn.functional.binary_cross_entropy``);
    node ``BinaryCrossEntropyBackward0(input, target)``. ValueError when the sizes differ;
    ``weight`` is broadcast to the target's shape first; RuntimeError for inputs outside
    [0, 1]."""
    from .._ops import loss_bce

    red = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape!r}) that is different to the "
                         f"input size ({input.shape!r}) is deprecated. Please ensure they have "
                         f"the same size.")
    if weight is not None:
        shape = _pw.broadcast_shapes(target.shape, weight.shape)
        weight = weight.expand(shape)
    return loss_bce.binary_cross_entropy(input, target, weight, red)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None, size_average=None,
                                     reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Sigmoid and binary cross entropy in one stable op
    (``torch.nn.functional.binary_cross_entropy_with_logits``); node
    ``BinaryCrossEntropyWithLogitsBackward0(input, target)``. ``weight`` and ``pos_weight``
    (per class, broadcast over the last dim) must not require grad. ValueError when the sizes
    differ."""
    from .._ops import loss_bce

    red = _reduction(size_average, reduce, reduction)
    return loss_bce.binary_cross_entropy_with_logits(input, target, weight, red, pos_weight)


# ----------------------------------------------------------------------------- conv1d / transposed
# (defined with their docstrings in minigrad/_ops/conv_more.py and upsample.py)
conv1d = _conv_more.conv1d
conv_transpose2d = _conv_more.conv_transpose2d
conv_transpose1d = _conv_more.conv_transpose1d
conv3d = _conv3d.conv3d
conv_transpose3d = _conv3d.conv_transpose3d
interpolate = _upsample.interpolate
adaptive_max_pool2d = _pool.adaptive_max_pool2d


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """``adaptive_max_pool2d(..., return_indices=True)``: returns ``(output, indices)``."""
    return _pool.adaptive_max_pool2d(input, output_size, True)


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
