"""``minigrad.utils``: helpers mirroring ``torch.utils`` (only :mod:`minigrad.utils.hooks`)."""

from . import hooks

__all__ = ["hooks"]
