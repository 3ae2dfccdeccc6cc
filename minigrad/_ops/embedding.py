"""``embedding`` (node ``EmbeddingBackward0``) and ``one_hot``.

Mirrors ``aten/src/ATen/native/Embedding.cpp`` and ``Onehot.cpp``. The forward is a row
lookup ``weight[indices]``; the backward scatters the incoming gradient rows back into a zero
matrix of the weight's shape (``np.add.at``, so repeated indices add up), skipping rows whose
index is ``padding_idx`` and, with ``scale_grad_by_freq``, dividing each row by how often its
index occurs. Under ``create_graph`` that scatter is recorded as
``EmbeddingDenseBackwardBackward0`` (PyTorch's name), whose own backward gathers the rows
back; a third derivative raises NotImplementedError.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.graph import Node, record
from ._util import saved_int
from .nn_activation import no_double_backward

_INDEX_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "bool": "BoolTensor",
                "uint8": "ByteTensor", "int16": "ShortTensor", "int8": "CharTensor",
                "float16": "HalfTensor"}


class EmbeddingBackward0(Node):
    """z = weight[indices].
    dz/dweight = zeros(num_weights, D) with ``grad[k]`` added to row ``indices[k]`` for every
    position k whose index is not ``padding_idx`` (divided by the index's count when
    ``scale_grad_by_freq``). Saves: indices, padding_idx, scale_grad_by_freq, sparse,
    weight_sym_argsize_0."""

    def __init__(self, indices, padding_idx, scale_grad_by_freq, sparse, num_weights):
        Node.__init__(self)
        self._save("indices", indices)
        self._save("padding_idx", saved_int(padding_idx))
        self._padding_idx = padding_idx
        self._save("scale_grad_by_freq", scale_grad_by_freq)
        self._save("sparse", sparse)
        self._save("weight_sym_argsize_0", num_weights)

    def backward(self, g):
        indices = self._get("indices")
        idx = indices._data.reshape(-1).astype(np.int64)
        rows = g._data.reshape(idx.size, g._data.shape[-1])  # (no -1: idx may be empty)
        keep = idx != self._padding_idx
        idx, rows = idx[keep], rows[keep]
        if self._saved["scale_grad_by_freq"]:
            counts = np.bincount(idx, minlength=self._saved["weight_sym_argsize_0"])
            rows = rows / counts[idx, None].astype(rows.dtype)
        out = np.zeros((self._saved["weight_sym_argsize_0"], g._data.shape[-1] if g.ndim else 1),
                       dtype=g._data.dtype)
        np.add.at(out, idx, rows)
        res = Tensor._make(out)
        if grad_mode.is_grad_enabled():
            record(EmbeddingDenseBackwardBackward0, res, (g,), indices, self._padding_idx, self)
        return (res,)

    @staticmethod
    def jvp(inputs, tangents, outputs, indices, padding_idx, scale_grad_by_freq, sparse,
            num_weights):
        """dz = embedding(weight_t, indices) (linear: PyTorch's ``auto_linear``)."""
        return embedding(tangents[0], indices, padding_idx, scale_grad_by_freq, sparse)


class EmbeddingDenseBackwardBackward0(Node):
    """z = embedding_dense_backward(grad_output, indices, num_weights, padding_idx, ...): the
    scatter of `EmbeddingBackward0`, linear in grad_output.
    dz/dgrad_output = grad[indices], zero at positions whose index is ``padding_idx`` (PyTorch's
    ``embedding_dense_double_backward``, which ignores ``scale_grad_by_freq``).
    Saves: indices, padding_idx."""

    def __init__(self, indices, padding_idx, forward_node=None):
        Node.__init__(self)
        self._save("indices", indices)
        self._save("padding_idx", saved_int(padding_idx))
        self._padding_idx = padding_idx

    @staticmethod
    def jvp(inputs, tangents, outputs, indices, padding_idx, forward_node):
        """dz = embedding_dense_backward(grad_output_t, indices, ...) with the forward's
        arguments (linear: ``auto_linear``)."""
        return forward_node.backward(tangents[0])[0]

    def backward(self, g):
        no_double_backward(self)
        idx = self._get("indices")._data
        rows = g._data[idx]
        rows[idx == self._padding_idx] = 0
        return (Tensor._make(rows),)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` (num_embeddings, D) picked by integer ``indices`` of any shape: the
    output has shape ``indices.shape + (D,)`` (``torch.embedding``). ``padding_idx`` (already
    made non-negative; -1 for none) gets no gradient. Node ``EmbeddingBackward0(weight)``.

    Raises RuntimeError for non-integer indices and IndexError for an index out of range.
    ``sparse=True`` (a sparse gradient) is not implemented (NotImplementedError).
    """
    dt = indices._data.dtype
    if dt.kind not in "iu" or dt == np.uint8:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got minigrad."
                           f"{_INDEX_NAMES.get(dt.name, dt.name)} instead (while checking "
                           "arguments for embedding)")
    if sparse:
        raise NotImplementedError("minigrad: embedding(sparse=True) is not implemented "
                                  "(minigrad has no sparse tensors)")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = indices._data
    n = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    out = Tensor._make(weight._data[idx])
    record(EmbeddingBackward0, out, (weight,), indices, padding_idx, scale_grad_by_freq, sparse,
           n)
    return out


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """One-hot encoding of int64 class indices (``torch.nn.functional.one_hot``): shape
    ``tensor.shape + (num_classes,)``, dtype int64; ``num_classes=-1`` takes ``max + 1``.

    Raises RuntimeError for a non-int64 tensor, a negative class or a class >= num_classes.
    """
    arr = tensor._data
    if arr.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if arr.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    elif arr.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(arr.max()) + 1
    elif arr.size and arr.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.zeros(arr.shape + (num_classes,), dtype=np.int64)
    np.put_along_axis(out, arr[..., None], 1, axis=-1)
    return Tensor._make(out)
