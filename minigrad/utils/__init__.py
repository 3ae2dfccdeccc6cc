"""``minigrad.utils``: helpers mirroring ``torch.utils`` (only `minigrad.utils.hooks`)."""

from . import hooks

__all__ = ["hooks"]
