"""Helpers of `minigrad.utils.data` (``torch/utils/data/_utils``): collation."""

from . import collate

__all__ = ["collate"]
