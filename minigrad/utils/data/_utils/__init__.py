"""Helpers of `minigrad.utils.data` (``torch/utils/data/_utils``): collation."""

from . import collate, worker

__all__ = ["collate", "worker"]
