"""``minigrad.utils``: helpers mirroring ``torch.utils``: `minigrad.utils.hooks` and
`minigrad.utils.checkpoint`."""

from . import checkpoint, hooks

__all__ = ["hooks", "checkpoint"]
