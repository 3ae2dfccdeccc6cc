"""Memory formats (``torch.memory_format``; ``torch.preserve_format``, ``torch.contiguous_format``).

A tensor's layout is its strides. ``clone`` keeps a dense tensor's strides by default
(``preserve_format``: ``x.t().clone()`` is *not* contiguous, as in PyTorch) and ``contiguous()``
asks for ``contiguous_format`` (row-major). Channels-last formats are not supported.
"""

from __future__ import annotations


class memory_format:  # noqa: N801  (PyTorch's name)
    """One memory layout; compare with ``is`` (there is one object per format)."""

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"minigrad.{self._name}"


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
