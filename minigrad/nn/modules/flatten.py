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


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (``torch.nn.Unflatten``); a view of the
    input (``input.unflatten(dim, unflattened_size)``, node ``ViewBackward0``).

    ``unflattened_size`` is a tuple or list of ints, one of them may be -1. Raises TypeError
    for any other ``unflattened_size`` and, from the forward, RuntimeError when the sizes do not
    multiply up to the size of ``dim``.
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for pos, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError("unflattened_size must be tuple of ints, but found element of "
                                f"type {type(size).__name__} at pos {pos}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
