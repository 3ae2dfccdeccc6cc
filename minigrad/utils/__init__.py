"""``minigrad.utils``: helpers mirroring ``torch.utils``: `minigrad.utils.hooks` and
`minigrad.utils.checkpoint`, `minigrad.utils.data`."""

from . import checkpoint, data, hooks

__all__ = ["hooks", "checkpoint", "data"]
