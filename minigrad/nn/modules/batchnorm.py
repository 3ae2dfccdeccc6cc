"""``BatchNorm1d`` and ``BatchNorm2d``. Mirrors ``torch/nn/modules/batchnorm.py``
(``_NormBase`` → ``_BatchNorm`` → ``BatchNorm1d``/``BatchNorm2d``).

A batch-norm layer holds two kinds of state: the parameters ``weight`` and ``bias`` (learned,
in ``parameters()``) and the buffers ``running_mean``, ``running_var`` and
``num_batches_tracked`` (statistics, in ``buffers()`` and ``state_dict`` but never seen by an
optimizer). In ``train()`` mode each call normalises with the batch's statistics and moves the
running ones toward them; in ``eval()`` mode the running statistics normalise.
"""

from __future__ import annotations

import numpy as np

from ..._dtype import to_numpy_dtype
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from .linear import _empty_param
from .module import Module


class _NormBase(Module):
    """Common state of the batch-norm layers: options, parameters, running-statistic buffers.

    ``_version = 2`` is the format version PyTorch stores in ``state_dict`` metadata (version 2
    added ``num_batches_tracked``).
    """

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = _empty_param((num_features,), dtype, device)
            if bias:
                self.bias = _empty_param((num_features,), dtype, device)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            from ... import _defaults

            np_dtype = _defaults.FLOAT if dtype is None else to_numpy_dtype(dtype)
            self.register_buffer("running_mean",
                                 Tensor._make(np.zeros(num_features, dtype=np_dtype)))
            self.register_buffer("running_var",
                                 Tensor._make(np.ones(num_features, dtype=np_dtype)))
            self.register_buffer("num_batches_tracked",
                                 Tensor._make(np.array(0, dtype=np.int64)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches tracked (in place: each buffer's
        ``_version`` goes up by one)."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """`reset_running_stats`, then weight 1 and bias 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input) -> None:
        raise NotImplementedError

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        """A checkpoint of format version 1 or without a version (a plain dict, such as
        ``dict(model.named_parameters())``, has no ``_metadata``) may lack
        ``num_batches_tracked``, which version 2 added: the current counter is kept (0 for a
        fresh module), so the key is not reported missing. Everything else as
        `Module._load_from_state_dict`. Mirrors ``torch.nn.modules.batchnorm._NormBase``."""
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                                   else Tensor._make(np.array(0, dtype=np.int64)))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    """The forward shared by ``BatchNorm1d`` and ``BatchNorm2d``."""

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            # momentum=None: a cumulative average, 1/n for the n-th batch
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None \
                else self.momentum
        # batch statistics in training, and in eval when there are no running statistics
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        # buffers are passed only where they are updated (training and tracked) or used (eval)
        use_buffers = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_buffers else None,
                            self.running_var if use_buffers else None, self.weight, self.bias,
                            bn_training, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) input over N (and L) per channel
    (``torch.nn.BatchNorm1d``).

    ``y = (x - E[x]) / sqrt(Var[x] + eps) * weight + bias``. Args: ``num_features`` (C),
    ``eps=1e-5``, ``momentum=0.1`` (None: cumulative average), ``affine=True``,
    ``track_running_stats=True``, ``device``, ``dtype``, keyword ``bias=True``.
    Raises ValueError for input that is not 2-D or 3-D.
    """

    def _check_input_dim(self, input) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) input over N, H, W per channel
    (``torch.nn.BatchNorm2d``). Arguments as `BatchNorm1d`. Raises ValueError for input
    that is not 4-D."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) input over N, D, H, W per channel
    (``torch.nn.BatchNorm3d``). Arguments as `BatchNorm1d`. Raises ValueError for input
    that is not 5-D."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")
