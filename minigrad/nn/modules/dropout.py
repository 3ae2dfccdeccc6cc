"""``Dropout``, ``Dropout1d`` and ``Dropout2d``. Mirrors ``torch/nn/modules/dropout.py``."""

from __future__ import annotations

from .module import Module


class _DropoutNd(Module):
    """What every dropout module shares (``torch.nn.modules.dropout._DropoutNd``): ``p`` and
    ``inplace``; ValueError unless ``0 <= p <= 1``."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)`` while
    ``training`` (``torch.nn.Dropout``); in eval mode (or ``p=0``) returns the input itself.

    Raises ValueError unless ``0 <= p <= 1``.
    """

    def forward(self, input):
        from .. import functional as F

        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) input with probability ``p`` while ``training``
    and scale the rest by ``1/(1-p)`` (``torch.nn.Dropout2d``); see ``F.dropout2d``.

    Raises ValueError unless ``0 <= p <= 1``.
    """

    def forward(self, input):
        from .. import functional as F

        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) or (C, L) input with probability ``p`` while
    ``training`` and scale the rest by ``1/(1-p)`` (``torch.nn.Dropout1d``); see
    ``F.dropout1d``. Raises ValueError unless ``0 <= p <= 1``.
    """

    def forward(self, input):
        from .. import functional as F

        return F.dropout1d(input, self.p, self.training, self.inplace)
