"""Loss modules: ``CrossEntropyLoss``, ``NLLLoss``, ``MSELoss``, ``L1Loss``, ``BCELoss``,
``BCEWithLogitsLoss``, ``SmoothL1Loss``, ``HuberLoss``, ``KLDivLoss``.

Mirrors ``torch/nn/modules/loss.py``: ``_Loss`` stores ``reduction`` (translating the legacy
``size_average``/``reduce`` flags with PyTorch's warning), ``_WeightedLoss`` registers the
class ``weight`` as a buffer (``None`` when not given). ``forward(input, target)`` calls the
functional form.
"""

from __future__ import annotations

import warnings

from .. import functional as F
from .module import Module


def _legacy_reduction(size_average, reduce) -> str:
    """``torch.nn._reduction.legacy_get_string``: old flags → ``'mean'``/``'sum'``/``'none'``."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else ("sum" if reduce else "none")
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{ret}' instead.", stacklevel=3)
    return ret


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _legacy_reduction(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    """``log_softmax`` + ``nll_loss`` over class dim 1 (``torch.nn.CrossEntropyLoss``).

    Args: ``weight=None`` (per-class, a buffer), ``ignore_index=-100``,
    ``reduction='mean'|'sum'|'none'``, ``label_smoothing=0.0`` (legacy ``size_average``,
    ``reduce`` accepted). Input ``(N, C)`` logits, target ``(N,)`` class indices (or
    probabilities, as ``F.cross_entropy`` supports).
    """

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities ``(N, C)`` at target classes ``(N,)``
    (``torch.nn.NLLLoss``). Args as ``CrossEntropyLoss`` without ``label_smoothing``."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error ``(input - target)**2`` reduced by ``reduction``
    (``torch.nn.MSELoss``)."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error ``|input - target|`` reduced by ``reduction`` (``torch.nn.L1Loss``);
    graph ``MeanBackward0(AbsBackward0(SubBackward0))``."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities in [0, 1] (``torch.nn.BCELoss``); ``weight``
    (a buffer) rescales each element, broadcasting to the target. Input and target of one
    shape; node ``BinaryCrossEntropyBackward0``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Smooth L1 loss, quadratic where ``|input - target| < beta`` (``torch.nn.SmoothL1Loss``);
    node ``SmoothL1LossBackward0``."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean",
                 beta: float = 1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss, quadratic where ``|input - target| < delta`` (``torch.nn.HuberLoss``);
    node ``HuberLossBackward0``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of log-probabilities from ``target``
    (``torch.nn.KLDivLoss``); ``reduction`` also takes ``'batchmean'`` (``'mean'`` warns);
    ``log_target=True`` for a target given as log-probabilities."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean",
                 log_target: bool = False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid + binary cross entropy (``torch.nn.BCEWithLogitsLoss``); ``weight`` and
    ``pos_weight`` are buffers (``None`` when not given). See
    ``F.binary_cross_entropy_with_logits``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)
