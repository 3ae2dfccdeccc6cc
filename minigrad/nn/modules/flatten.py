"""``Flatten``. Mirrors ``torch/nn/modules/flatten.py``."""

from __future__ import annotations

from .module import Module


class Flatten(Module):
    """Merge dims ``start_dim..end_dim`` (default: all but the batch dim) into one
    (``torch.nn.Flatten``); a reshape of the input."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
