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
from ..autograd import grad_mode
from ..autograd.forward_ad import tangent_sum
from ..autograd.graph import Node, check_saveable, crossed, record
from ._jvp_util import zero_filled
from ._util import _HALF, attach, broadcast_shapes, sum_to, widened
from .shape import _expand_target, _squeeze_dims, _unsafe_view


def _strides(t: Tensor) -> tuple:
    size = t._data.itemsize
    return tuple([s // size for s in t._data.strides])


_MATRIX_NAMES = {n: (n, f"{n}_sym_sizes", f"{n}_sym_strides") for n in ("self", "mat1", "mat2")}


def _save_matrix(node, name, t, needed: bool, own_grad: bool):
    """Save ``t`` if the other operand needs it; sizes always; strides if ``t`` needs grad."""
    tensor_name, sizes_name, strides_name = _MATRIX_NAMES[name]
    node._save(tensor_name, t if needed else None)
    node._save(sizes_name, t._data.shape)
    node._save(strides_name, _strides(t) if own_grad else ())


def _column_major(node, name: str) -> bool:
    """Was the saved matrix ``name`` column-major (a transposed contiguous matrix, as the
    ``weight.t()`` of ``linear``)? Its strides are saved when it needs a gradient."""
    _, sizes_name, strides_name = _MATRIX_NAMES[name]
    sizes, strides = node._saved[sizes_name], node._saved[strides_name]
    return strides == (1, sizes[0])


def _operand_t(m: Tensor) -> Tensor:
    """``m.t()`` as an operand of a product in a derivative formula. Without ``create_graph``
    (grad mode off) nothing but the product sees it, so it is a plain tensor on the
    transposed array, without the view bookkeeping; with it, the ``t()`` view that PyTorch's
    formula records (``TBackward0``)."""
    if grad_mode._tls.grad_enabled:
        return m.t()
    return Tensor._make(m._data.T)


def _mat1_grad(node, name, g, mat2):
    """grad @ mat2ᵀ; as PyTorch (``mm_mat1_backward``), computed as (mat2 @ gradᵀ)ᵀ when mat1
    was column-major, so that the gradient has mat1's layout (no copy when it is accumulated).
    The result's ``.t()`` stays a view, as PyTorch's gradient is (hooks see its ``_base``)."""
    if _column_major(node, name):
        return mm(mat2, _operand_t(g)).t()
    return mm(g, _operand_t(mat2))


def _mat2_grad(node, name, g, mat1):
    """mat1ᵀ @ grad; as PyTorch (``mm_mat2_backward``), computed as (gradᵀ @ mat1)ᵀ when mat2
    was column-major (``linear``'s ``weight.t()``): ``weight.grad`` is then C-contiguous."""
    if _column_major(node, name):
        return mm(_operand_t(g), mat1).t()
    return mm(_operand_t(mat1), g)

def _scaled_t(t, factor):
    """PyTorch's ``maybe_multiply``: ``t * factor``, or ``t`` itself when the factor is 1 (and
    None for a zero tangent)."""
    return None if t is None else t if factor == 1 else t * factor


def _addmm_like_jvp(tangents, bias, m1, m2, beta, alpha, product, reduce=None):
    """The tangent of ``beta * bias + alpha * product(m1, m2)`` (addmm, addmv, baddbmm, and
    addbmm with ``reduce`` summing the batch): ``beta * bias_t + alpha * product(m1_t, m2) +
    alpha * product(m1, m2_t)``."""
    tb, t1, t2 = zero_filled((bias, m1, m2), tangents)  # (a zero term still makes the
    # tangent require grad when its primal factor does, as PyTorch's zero tensors do)

    def term(x, y):
        out = product(x, y)
        return _scaled_t(out if reduce is None else reduce(out), alpha)

    # (the terms right to left, as PyTorch's compiled formula evaluates them: the same error
    # comes first for mismatched dtypes)
    last = None if t2 is None else term(m1, t2)
    middle = None if t1 is None else term(t1, m2)
    return tangent_sum(_scaled_t(tb, beta), middle, last)



class MmBackward0(Node):
    """z = self @ mat2 (2-D).  dz/dself = grad @ mat2ᵀ; dz/dmat2 = selfᵀ @ grad.
    Saves: mat2, mat2_sym_sizes, mat2_sym_strides, self, self_sym_sizes, self_sym_strides."""

    def __init__(self, a, b):
        Node.__init__(self)
        # (record synced the inputs' view state: the flag, not the property)
        _save_matrix(self, "mat2", b, a._requires_grad, b._requires_grad)
        _save_matrix(self, "self", a, b._requires_grad, a._requires_grad)

    def backward(self, g):
        nf = self.next_functions
        ga = _mat1_grad(self, "self", g, self._get("mat2")) if nf[0][0] else None
        gb = _mat2_grad(self, "mat2", g, self._get("self")) if nf[1][0] else None
        return ga, gb

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b):
        """dz = mm(self_t, mat2) + mm(self, mat2_t)."""
        ta, tb = zero_filled(inputs, tangents)  # (PyTorch's zero tangents: see zero_filled)
        right = None if tb is None else mm(a, tb)  # (first, as PyTorch's compiled formula:
        return tangent_sum(None if ta is None else mm(ta, b), right)  # which error comes)


class AddmmBackward0(Node):
    """z = beta * self + alpha * (mat1 @ mat2).  dz/dself = beta * grad (summed to self's
    shape); dz/dmat1 = alpha * grad @ mat2ᵀ; dz/dmat2 = alpha * mat1ᵀ @ grad.
    Saves: alpha, beta, mat1 (+sizes, strides), mat2 (+sizes, strides)."""

    def __init__(self, bias, m1, m2, beta, alpha):
        Node.__init__(self)
        self._save("alpha", alpha)
        self._save("beta", beta)
        _save_matrix(self, "mat1", m1, m2._requires_grad, m1._requires_grad)
        _save_matrix(self, "mat2", m2, m1._requires_grad, m2._requires_grad)
        self._bias_shape = bias._data.shape

    def backward(self, g):
        alpha, beta = self._saved["alpha"], self._saved["beta"]
        nf = self.next_functions
        gbias = sum_to(g if beta == 1 else g * beta, self._bias_shape) if nf[0][0] else None
        ga = _mat1_grad(self, "mat1", g, self._get("mat2")) if nf[1][0] else None
        gb = _mat2_grad(self, "mat2", g, self._get("mat1")) if nf[2][0] else None
        if alpha != 1:
            ga = ga * alpha if ga is not None else None
            gb = gb * alpha if gb is not None else None
        return gbias, ga, gb

    @staticmethod
    def jvp(inputs, tangents, outputs, bias, m1, m2, beta, alpha):
        """dz = beta * self_t + alpha * mat1_t @ mat2 + alpha * mat1 @ mat2_t (each factor left
        out when it is 1)."""
        return _addmm_like_jvp(tangents, bias, m1, m2, beta, alpha, mm)


class BmmBackward0(Node):
    """z = self @ mat2 (batched 3-D).  dz/dself = grad @ mat2ᵀ; dz/dmat2 = selfᵀ @ grad.
    Saves: mat2, self."""

    def __init__(self, a, b):
        Node.__init__(self)
        self._save("mat2", b if a.requires_grad else None)
        self._save("self", a if b.requires_grad else None)

    def backward(self, g):
        ga = bmm(g, self._get("mat2").transpose(1, 2)) if self.next_functions[0][0] else None
        gb = bmm(self._get("self").transpose(1, 2), g) if self.next_functions[1][0] else None
        return ga, gb

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b):
        """dz = bmm(self_t, mat2) + bmm(self, mat2_t)."""
        ta, tb = zero_filled(inputs, tangents)  # (PyTorch's zero tangents: see zero_filled)
        right = None if tb is None else bmm(a, tb)  # (first, as PyTorch's compiled formula:
        return tangent_sum(None if ta is None else bmm(ta, b), right)  # which error comes)


class DotBackward0(Node):
    """z = self · tensor (1-D).  dz/dself = grad * tensor; dz/dtensor = grad * self.
    Saves: self, tensor."""

    def __init__(self, a, b):
        Node.__init__(self)
        self._save("self", a if b.requires_grad else None)
        self._save("tensor", b if a.requires_grad else None)

    def backward(self, g):
        ga = g * self._get("tensor") if self.next_functions[0][0] else None
        gb = g * self._get("self") if self.next_functions[1][0] else None
        return ga, gb

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b):
        """dz = dot(self_t, tensor) + dot(self, tensor_t)."""
        ta, tb = zero_filled(inputs, tangents)  # (PyTorch's zero tangents: see zero_filled)
        right = None if tb is None else dot(a, tb)  # (first, as PyTorch's compiled formula:
        return tangent_sum(None if ta is None else dot(ta, b), right)  # which error comes)


class MvBackward0(Node):
    """z = self @ vec (2-D @ 1-D).  dz/dself = outer(grad, vec); dz/dvec = selfᵀ @ grad.
    Saves: self, vec."""

    def __init__(self, a, b):
        Node.__init__(self)
        self._save("self", a if b.requires_grad else None)
        self._save("vec", b if a.requires_grad else None)

    def backward(self, g):
        ga = g.unsqueeze(1) * self._get("vec").unsqueeze(0) if self.next_functions[0][0] else None
        gb = mv(self._get("self").t(), g) if self.next_functions[1][0] else None
        return ga, gb

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b):
        """dz = mv(self_t, vec) + mv(self, vec_t)."""
        ta, tb = zero_filled(inputs, tangents)  # (PyTorch's zero tangents: see zero_filled)
        right = None if tb is None else mv(a, tb)  # (first, as PyTorch's compiled formula:
        return tangent_sum(None if ta is None else mv(ta, b), right)  # which error comes)


def _cannot(a_shape, b_shape):
    return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a_shape[0]}x{a_shape[1]} "
                        f"and {b_shape[0]}x{b_shape[1]})")


def _scalar_name(t) -> str:
    return t.dtype._legacy[:-6]  # 'Float', 'Double', 'Long' ...


def _in_dtype(prod: np.ndarray, like: np.ndarray) -> np.ndarray:
    """A matrix product in its operands' dtype: ml_dtypes multiplies bfloat16 matrices into
    float32 (PyTorch too accumulates in float32, then rounds the result to bfloat16)."""
    return prod if prod.dtype == like.dtype else prod.astype(like.dtype)


def _half_addmm(bias: np.ndarray, m1: np.ndarray, m2: np.ndarray, beta, alpha) -> np.ndarray:
    """``beta * bias + alpha * (m1 @ m2)`` of float16/bfloat16 arrays as PyTorch's CPU kernels
    compute it: the product accumulated in float32, the bias added in float32, one rounding
    to the operands' dtype at the end (rounding the product first, then the sum, differs in
    about a third of the elements). Also ``addmv``/``baddbmm``/``addbmm``."""
    prod = widened(m1) @ widened(m2)
    if alpha != 1:
        prod = prod * alpha
    if beta != 0:
        prod += widened(bias) if beta == 1 else widened(bias) * beta
    return prod.astype(m1.dtype)


def mm(input, mat2) -> Tensor:
    """Matrix product of two 2-D tensors (``torch.mm``); node ``MmBackward0``.

    RuntimeError (PyTorch's messages) if either is not 2-D, the inner sizes differ, or the
    dtypes differ (no promotion); first, as PyTorch, the inference-tensor error if an
    inference tensor would be saved (see ``check_saveable``).
    """
    if input._inference or mat2._inference:
        check_saveable((input, mat2), crossed(input, mat2))
    a, b = input._data, mat2._data  # (checks on the arrays: no Size / dtype objects made)
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"{'self' if a.ndim != 2 else 'mat2'} must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise _cannot(a.shape, b.shape)
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{input.dtype._c_name} != {mat2.dtype._c_name}")
    if a.dtype == np.bool_:
        raise NotImplementedError('"addmm_impl_cpu_" not implemented for \'Bool\'')
    out = Tensor._make(_in_dtype(a @ b, a))
    record(MmBackward0, out, (input, mat2), input, mat2)
    return out


def addmm(input, mat1, mat2, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` (``torch.addmm``); node ``AddmmBackward0`` with
    slots ``(input, mat1, mat2)``. ``input`` broadcasts to the product's shape; with ``beta=0``
    its values are not read (a nan in it does not reach the result). RuntimeError on shape or
    dtype mismatch, after the inference-tensor error (``check_saveable``)."""
    if mat1._inference or mat2._inference:
        check_saveable((input, mat1, mat2), crossed(mat1, mat2))
    m1, m2 = mat1._data, mat2._data  # (checks on the arrays: no Size / dtype objects made)
    if m1.ndim != 2 or m2.ndim != 2:
        name, t = ("mat1", m1) if m1.ndim != 2 else ("mat2", m2)
        raise RuntimeError(f"{name} must be a matrix, got {t.ndim}-D tensor")
    if m1.shape[1] != m2.shape[0]:
        raise _cannot(m1.shape, m2.shape)
    shape = (m1.shape[0], m2.shape[1])
    if input._data.shape != shape[1:]:  # (a bias row, the common case, broadcasts)
        _expand_target(input, shape)
    if input._data.dtype != m2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{_scalar_name(input)} and {_scalar_name(mat2)}")
    if m1.dtype != m2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{_scalar_name(mat1)} and {_scalar_name(mat2)}")
    if m1.dtype in _HALF:  # (float16/bfloat16: the whole of beta * input + alpha * product
        prod = _half_addmm(input._data, m1, m2, beta, alpha)  # in float32, rounded once)
    else:
        prod = _in_dtype(m1 @ m2, m1)
        if alpha != 1:
            prod = prod * alpha
        if beta != 0:  # (beta 0 ignores input, nan and inf included, as BLAS and PyTorch do)
            prod += input._data if beta == 1 else input._data * beta  # prod is new: in place
    out = Tensor._make(prod)
    record(AddmmBackward0, out, (input, mat1, mat2), input, mat1, mat2, beta, alpha)
    return out


def bmm(input, mat2) -> Tensor:
    """Batched matrix product of two 3-D tensors (``torch.bmm``); node ``BmmBackward0``.
    RuntimeError on rank, size or dtype mismatch, after the inference-tensor error
    (``check_saveable``)."""
    if input._inference or mat2._inference:
        check_saveable((input, mat2), crossed(input, mat2))
    for t, name in ((input, "batch1"), (mat2, "batch2")):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: "
                           f"[{mat2.shape[0]}, {mat2.shape[1]}].")
    if input.numel() == 0 or mat2.numel() == 0:
        # PyTorch skips the dtype check here and returns zeros of batch2's dtype
        out = Tensor._make(np.zeros((input.shape[0], input.shape[1], mat2.shape[2]),
                                    dtype=mat2._data.dtype))
    elif input.dtype is not mat2.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(input)} but found "
                           f"{_scalar_name(mat2)}")
    else:
        out = Tensor._make(_in_dtype(np.matmul(input._data, mat2._data), input._data))
    record(BmmBackward0, out, (input, mat2), input, mat2)
    return out


def dot(input, other) -> Tensor:
    """Inner product of two 1-D tensors (``torch.dot``); node ``DotBackward0``.
    RuntimeError on rank, size or dtype mismatch, after the inference-tensor error
    (``check_saveable``: PyTorch saves the operands before it checks them)."""
    if input._inference or other._inference:
        check_saveable((input, other), crossed(input, other))
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.shape != other.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                           f"[{other.shape[0]}] to have the same number of elements, but got "
                           f"{input.shape[0]} and {other.shape[0]} elements respectively")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_scalar_name(input)} and {_scalar_name(other)}")
    if input._data.dtype == np.bool_:
        raise NotImplementedError('"dot" not implemented for \'Bool\'')
    out = Tensor._make(np.asarray(np.dot(input._data, other._data)))
    record(DotBackward0, out, (input, other), input, other)
    return out


def mv(input, vec) -> Tensor:
    """Matrix-vector product (``torch.mv``); node ``MvBackward0``. RuntimeError on rank,
    size or dtype mismatch, after the inference-tensor error (``check_saveable``)."""
    if input._inference or vec._inference:
        check_saveable((input, vec), crossed(input, vec))
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat ({input.shape[0]}x"
                           f"{input.shape[1]}), vec ({vec.shape[0]})")
    if input.dtype is not vec.dtype:
        v, m = _scalar_name(vec), _scalar_name(input)
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {v}, {m}, "
                           f"and {v}")
    out = Tensor._make(_in_dtype(input._data @ vec._data, input._data))
    record(MvBackward0, out, (input, vec), input, vec)
    return out


def matmul(input, other) -> Tensor:
    """Matrix product with broadcasting (``torch.matmul``, ``@``), dispatched as PyTorch does.

    1-D @ 1-D is ``dot``, 2-D @ 1-D ``mv``, 1-D @ 2-D ``unsqueeze → mm → squeeze``, 2-D @ 2-D
    ``mm``. A 3-D operand with batch size 1 that requires grad, against a 3-D one with a larger
    batch, is squeezed to 2-D first. An N-D operand against a 1-D/2-D one is *folded* into
    ``mm``/``mv`` when `_should_fold` says so; everything else expands both batch shapes
    and uses ``bmm``. RuntimeError for 0-d operands or sizes that cannot be multiplied.
    """
    if not isinstance(other, Tensor) or not isinstance(input, Tensor):
        raise TypeError("matmul(): argument 'other' must be Tensor")
    da, db = input.ndim, other.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D "
                           f"and {db}D")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        # PyTorch squeezes the mm result in place (squeeze_): the result is that tensor, not a
        # view, with history SqueezeBackward4(MmBackward0), at version 1
        out = _squeeze_dims(mm(input.unsqueeze(0), other), (0,))
        # (no view left: nor the view's record of the mode it was made in, which a view of
        # it would inherit and be refused in-place changes for)
        out._base, out._creation_meta, out._via_base = None, None, False
        out._vc.bump()
        return out
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
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    bsz = int(np.prod(batch, dtype=np.int64))
    if k != k2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{bsz}, {k}] but got: [{bsz}, {k2}].")
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
