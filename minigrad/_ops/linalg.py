"""Matrix products: ``mm addmm bmm dot mv`` and ``matmul`` (``@``) with PyTorch's dispatch.

Mirrors ``aten/src/ATen/native/LinearAlgebra.cpp::_matmul_impl``: 1-D@1-D is ``dot``, 2-D@2-D
``mm``, 2-D@1-D ``mv``, 1-D@2-D ``unsqueeze → mm → squeeze``; an N-D operand against a 1-D/2-D
one is *folded* into a matrix (``reshape → mm/mv → _unsafe_view``); other batched products
expand both batch shapes, reshape to 3-D and use ``bmm``. The graph therefore shows exactly the
nodes PyTorch shows (``UnsafeViewBackward0(BmmBackward0(ViewBackward0(ExpandBackward0...``).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.graph import Node, record
from ._util import attach, broadcast_shapes, result_dtype, sum_to
from .shape import _squeeze_dims, _unsafe_view


def _strides(t: Tensor) -> tuple:
    return tuple(s // t._data.itemsize for s in t._data.strides)


def _save_matrix(node, name, t, needed: bool, own_grad: bool):
    """Save ``t`` if the other operand needs it; sizes always; strides if ``t`` needs grad."""
    node._save(name, t if needed else None)
    node._save(f"{name}_sym_sizes", tuple(t.shape))
    node._save(f"{name}_sym_strides", _strides(t) if own_grad else ())


class MmBackward0(Node):
    """z = self @ mat2 (2-D).  dz/dself = grad @ mat2ᵀ; dz/dmat2 = selfᵀ @ grad.
    Saves: mat2, mat2_sym_sizes, mat2_sym_strides, self, self_sym_sizes, self_sym_strides."""

    def __init__(self, a, b):
        super().__init__()
        _save_matrix(self, "mat2", b, a.requires_grad, b.requires_grad)
        _save_matrix(self, "self", a, b.requires_grad, a.requires_grad)

    def backward(self, g):
        ga = mm(g, self._get("mat2").t()) if self.next_functions[0][0] else None
        gb = mm(self._get("self").t(), g) if self.next_functions[1][0] else None
        return ga, gb


class AddmmBackward0(Node):
    """z = beta * self + alpha * (mat1 @ mat2).  dz/dself = beta * grad (summed to self's
    shape); dz/dmat1 = alpha * grad @ mat2ᵀ; dz/dmat2 = alpha * mat1ᵀ @ grad.
    Saves: alpha, beta, mat1 (+sizes, strides), mat2 (+sizes, strides)."""

    def __init__(self, bias, m1, m2, beta, alpha):
        super().__init__()
        self._save("alpha", alpha)
        self._save("beta", beta)
        _save_matrix(self, "mat1", m1, m2.requires_grad, m1.requires_grad)
        _save_matrix(self, "mat2", m2, m1.requires_grad, m2.requires_grad)
        self._bias_shape = bias.shape

    def backward(self, g):
        alpha, beta = self._saved["alpha"], self._saved["beta"]
        nf = self.next_functions
        gbias = sum_to(g if beta == 1 else g * beta, self._bias_shape) if nf[0][0] else None
        ga = mm(g, self._get("mat2").t()) if nf[1][0] else None
        gb = mm(self._get("mat1").t(), g) if nf[2][0] else None
        if alpha != 1:
            ga = ga * alpha if ga is not None else None
            gb = gb * alpha if gb is not None else None
        return gbias, ga, gb


class BmmBackward0(Node):
    """z = self @ mat2 (batched 3-D).  dz/dself = grad @ mat2ᵀ; dz/dmat2 = selfᵀ @ grad.
    Saves: mat2, self."""

    def __init__(self, a, b):
        super().__init__()
        self._save("mat2", b if a.requires_grad else None)
        self._save("self", a if b.requires_grad else None)

    def backward(self, g):
        ga = bmm(g, self._get("mat2").transpose(1, 2)) if self.next_functions[0][0] else None
        gb = bmm(self._get("self").transpose(1, 2), g) if self.next_functions[1][0] else None
        return ga, gb


class DotBackward0(Node):
    """z = self · tensor (1-D).  dz/dself = grad * tensor; dz/dtensor = grad * self.
    Saves: self, tensor."""

    def __init__(self, a, b):
        super().__init__()
        self._save("self", a if b.requires_grad else None)
        self._save("tensor", b if a.requires_grad else None)

    def backward(self, g):
        ga = g * self._get("tensor") if self.next_functions[0][0] else None
        gb = g * self._get("self") if self.next_functions[1][0] else None
        return ga, gb


class MvBackward0(Node):
    """z = self @ vec (2-D @ 1-D).  dz/dself = outer(grad, vec); dz/dvec = selfᵀ @ grad.
    Saves: self, vec."""

    def __init__(self, a, b):
        super().__init__()
        self._save("self", a if b.requires_grad else None)
        self._save("vec", b if a.requires_grad else None)

    def backward(self, g):
        ga = g.unsqueeze(1) * self._get("vec").unsqueeze(0) if self.next_functions[0][0] else None
        gb = mv(self._get("self").t(), g) if self.next_functions[1][0] else None
        return ga, gb


def _promote(a, b):
    dt = result_dtype(a, b)
    return a._data.astype(dt, copy=False), b._data.astype(dt, copy=False)


def _need(t, n, what):
    if t.ndim != n:
        raise RuntimeError(f"{what} must be a {'matrix' if n == 2 else 'vector'}")


def _cannot(a_shape, b_shape):
    return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a_shape[0]}x{a_shape[1]} "
                        f"and {b_shape[0]}x{b_shape[1]})")


def mm(input, mat2) -> Tensor:
    """Matrix product of two 2-D tensors (``torch.mm``); node ``MmBackward0``.

    Raises RuntimeError if either is not 2-D or the inner sizes differ.
    """
    _need(input, 2, "self")
    _need(mat2, 2, "mat2")
    if input.shape[1] != mat2.shape[0]:
        raise _cannot(input.shape, mat2.shape)
    a, b = _promote(input, mat2)
    out = Tensor._make(a @ b)
    record(MmBackward0, out, (input, mat2), input, mat2)
    return out


def addmm(input, mat1, mat2, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` (``torch.addmm``); slots ``(input, mat1,
    mat2)``. Raises RuntimeError on shape mismatch."""
    _need(mat1, 2, "mat1")
    _need(mat2, 2, "mat2")
    if mat1.shape[1] != mat2.shape[0]:
        raise _cannot(mat1.shape, mat2.shape)
    broadcast_shapes(input.shape, (mat1.shape[0], mat2.shape[1]))
    a, b = _promote(mat1, mat2)
    prod = a @ b
    if alpha != 1:
        prod = prod * alpha
    bias = input._data if beta == 1 else input._data * beta
    out = Tensor._make((prod + bias).astype(prod.dtype, copy=False))
    record(AddmmBackward0, out, (input, mat1, mat2), input, mat1, mat2, beta, alpha)
    return out


def bmm(input, mat2) -> Tensor:
    """Batched matrix product of two 3-D tensors (``torch.bmm``); node ``BmmBackward0``."""
    _need(input, 3, "batch1")
    _need(mat2, 3, "batch2")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: "
                           f"[{mat2.shape[0]}, {mat2.shape[1]}].")
    a, b = _promote(input, mat2)
    out = Tensor._make(np.matmul(a, b))
    record(BmmBackward0, out, (input, mat2), input, mat2)
    return out


def dot(input, other) -> Tensor:
    """Inner product of two 1-D tensors (``torch.dot``); node ``DotBackward0``."""
    _need(input, 1, "1D tensors expected, but got")
    if input.shape != other.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                           f"[{other.shape[0]}] to have the same number of elements, but got "
                           f"{input.shape[0]} and {other.shape[0]} elements respectively")
    a, b = _promote(input, other)
    out = Tensor._make(np.asarray(np.dot(a, b)))
    record(DotBackward0, out, (input, other), input, other)
    return out


def mv(input, vec) -> Tensor:
    """Matrix-vector product (``torch.mv``); node ``MvBackward0``."""
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat ({input.shape[0]}x"
                           f"{input.shape[1]}), vec ({vec.shape[0]})")
    a, b = _promote(input, vec)
    out = Tensor._make(a @ b)
    record(MvBackward0, out, (input, vec), input, vec)
    return out


def matmul(input, other) -> Tensor:
    """Matrix product with broadcasting (``torch.matmul``, ``@``), dispatched as PyTorch does.

    1-D @ 1-D is ``dot``, 2-D @ 1-D ``mv``, 1-D @ 2-D ``unsqueeze → mm → squeeze``, 2-D @ 2-D
    ``mm``. A 3-D operand with batch size 1 that requires grad, against a 3-D one with a larger
    batch, is squeezed to 2-D first. An N-D operand against a 1-D/2-D one is *folded* into
    ``mm``/``mv`` when :func:`_should_fold` says so; everything else expands both batch shapes
    and uses ``bmm``. RuntimeError for 0-d operands or sizes that cannot be multiplied.
    """
    if not isinstance(other, Tensor) or not isinstance(input, Tensor):
        raise TypeError("matmul(): argument 'other' must be Tensor")
    da, db = input.ndim, other.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D "
                           f"and {db}D")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{input.dtype._c_name} != {other.dtype._c_name}")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        return _squeeze_dims(mm(input.unsqueeze(0), other), (0,))
    if da == 2 and db == 2:
        return mm(input, other)
    if da == 3 and db == 3:
        # [b, n, k] @ [1, k, m] with the batch-1 operand requiring grad: squeeze it, so that its
        # gradient is one mm instead of a bmm over b batches summed afterwards.
        if other.shape[0] == 1 and input.shape[0] != 1 and other.requires_grad:
            other = other.squeeze(0)
        elif input.shape[0] == 1 and other.shape[0] != 1 and input.requires_grad:
            input = input.squeeze(0)
    if _should_fold(input, other):
        return _fold(input, other)
    return _batched(input, other)


def _should_fold(a, b) -> bool:
    """Whether matmul folds the batch dims of the larger operand into one ``mm``/``mv``.

    Only for a >=3-D operand against a <=2-D one. Always when the smaller operand requires grad
    (its gradient then stays small); never for 2-D @ N-D otherwise; else only when the
    larger operand (transposed if it is the right one) can be flattened without a copy.
    """
    larger_first = a.ndim >= b.ndim
    big, small = (a, b) if larger_first else (b, a)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if a.ndim == 2:
        return False
    if big.numel() == 0:
        return True
    shape, strides = list(big.shape), list(big.stride())
    if not larger_first:  # the larger operand is used as big.mT
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


def _fold(a, b) -> Tensor:
    """N-D @ 1-D/2-D (or the transposed problem ``(bᵀ @ aᵀ)ᵀ`` for 1-D/2-D @ N-D): reshape
    the N-D operand to a matrix, ``mm``/``mv``, ``_unsafe_view`` back to the batch shape."""
    transpose = b.ndim > a.ndim
    t1 = b.mT if transpose else a
    t2 = (a.t() if a.ndim == 2 else a) if transpose else b
    k = t1.shape[-1]
    out_shape = t1.shape[:-1]
    folded = t1.reshape(int(np.prod(out_shape, dtype=np.int64)), k)
    if t2.ndim == 2:
        out = _unsafe_view(mm(folded, t2), out_shape + (t2.shape[1],))
        return out.mT.contiguous() if transpose else out
    if t2.shape[0] != k:
        raise RuntimeError(f"size mismatch, got input ({folded.shape[0]}), mat ({folded.shape[0]}"
                           f"x{k}), vec ({t2.shape[0]})")
    return _unsafe_view(mv(folded, t2), out_shape)


def _batched(a, b) -> Tensor:
    """Batched product: broadcast the batch dims, expand, reshape both to 3-D, ``bmm``,
    ``_unsafe_view`` to the output shape (a 1-D right operand is a column, squeezed after)."""
    n = a.shape[-2] if a.ndim > 1 else 1
    k = a.shape[-1]
    k2 = b.shape[-2] if b.ndim > 1 else b.shape[0]
    m = b.shape[-1] if b.ndim > 1 else 1
    if k != k2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{int(np.prod(a.shape[:-2], dtype=np.int64))}, {k}] but got: "
                           f"[{int(np.prod(b.shape[:-2], dtype=np.int64))}, {k2}].")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    bsz = int(np.prod(batch, dtype=np.int64))
    a3 = a.expand(batch + (n, k)).reshape(bsz, n, k)
    b3 = (b if b.ndim > 1 else b.unsqueeze(-1)).expand(batch + (k, m)).reshape(bsz, k, m)
    out = bmm(a3, b3)
    if b.ndim == 1:
        out = out.squeeze(-1)
    out_shape = batch + ((n,) if a.ndim > 1 else ()) + ((m,) if b.ndim > 1 else ())
    return _unsafe_view(out, out_shape)


def _rmatmul(self, other):
    return matmul(other, self)


attach(Tensor, matmul=matmul, mm=mm, bmm=bmm, dot=dot, mv=mv, addmm=addmm,
       __matmul__=matmul, __rmatmul__=_rmatmul)
