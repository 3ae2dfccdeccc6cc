"""``Embedding``. Mirrors ``torch/nn/modules/sparse.py``.

An embedding is a lookup table: ``weight`` (num_embeddings, embedding_dim) and integer indices
that pick its rows (``F.embedding``, node ``EmbeddingBackward0``).
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import _empty_param
from .module import Module


class Embedding(Module):
    """A table of ``num_embeddings`` vectors of size ``embedding_dim`` looked up by index
    (``torch.nn.Embedding``).

    Args: ``num_embeddings``, ``embedding_dim``, ``padding_idx=None`` (that row starts at zero
    and gets no gradient), ``max_norm=None``, ``norm_type=2.0``, ``scale_grad_by_freq=False``,
    ``sparse=False``, ``_weight=None`` (a given initial weight), ``_freeze=False``, ``device``,
    ``dtype``. ``weight`` is drawn from N(0, 1). Input: int64 indices of any shape; output
    ``input.shape + (embedding_dim,)``. AssertionError for a ``padding_idx`` out of range or a
    ``_weight`` of the wrong shape.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < num_embeddings, "Padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -num_embeddings, \
                    "Padding_idx must be within num_embeddings"
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = _empty_param((num_embeddings, embedding_dim), dtype, device)
            self.weight.requires_grad_(not _freeze)
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self) -> None:
        """Weight from N(0, 1), then the ``padding_idx`` row zeroed (each in place)."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=True"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx=None, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False):
        """An `Embedding` whose weight is ``embeddings`` (2-D), frozen by default."""
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(rows, cols, _weight=embeddings, _freeze=freeze, padding_idx=padding_idx,
                   max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
