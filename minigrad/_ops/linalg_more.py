"""More products: ``outer``/``ger``, ``addmv baddbmm addbmm`` (and ``addmm_ addmv_ baddbmm_
addbmm_``), ``cross``, and ``einsum`` built from other ops exactly as PyTorch builds it.

Mirrors ``aten/src/ATen/native/LinearAlgebra.cpp`` (outer, addmv, baddbmm, addbmm),
``Cross.cpp`` (``linalg_cross``) and ``Linear.cpp::einsum``/``sumproduct_pair``: einsum permutes
and unsqueezes every operand to one label order, takes diagonals for repeated labels, and
contracts pairs left to right with ``bmm`` (``mul`` when nothing is summed), so its graph shows
the same ``PermuteBackward0``/``ViewBackward0``/``BmmBackward0`` nodes as PyTorch's.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.forward_ad import tangent_sum
from ..autograd.graph import Node, record
from ._util import _HALF, attach, broadcast_shapes, normalize_dim, saved_int, sum_to
from .linalg import _addmm_like_jvp, _half_addmm, _scalar_name, bmm, mv
from .shape import _expand_target


def outer(input, vec2) -> Tensor:
    """``input.reshape(n, 1) * vec2`` (``torch.outer``, ``ger``): PyTorch's decomposition, so the
    graph is ``MulBackward0(ViewBackward0, ...)``. RuntimeError for operands that are not 1-D."""
    for t, name in ((input, "self"), (vec2, "vec2")):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return input.reshape(input.shape[0], 1) * vec2


GER_WARNING = ("torch.ger is deprecated and will be removed in a future PyTorch release. Use "
               "torch.outer instead.")


def ger(input, vec2, *, out=None) -> Tensor:
    """`outer` under its deprecated name (``torch.ger``), with PyTorch's UserWarning first;
    ``out=`` as ``torch.outer``'s (see ``minigrad._ops.out``)."""
    warnings.warn(GER_WARNING, UserWarning, stacklevel=2)
    if out is not None:
        import minigrad

        return minigrad.outer(input, vec2, out=out)
    return outer(input, vec2)


def _scaled(g, factor):
    return g if factor == 1 else g * factor


class AddmvBackward0(Node):
    """z = beta * self + alpha * (mat @ vec).  dz/dself = beta * grad (summed to self's shape);
    dz/dmat = alpha * outer(grad, vec); dz/dvec = alpha * matᵀ @ grad.
    Saves: alpha, beta, mat (if vec needs grad), vec (if mat needs grad)."""

    def __init__(self, self_, mat, vec, beta, alpha):
        Node.__init__(self)
        self._save("alpha", alpha)
        self._save("beta", beta)
        self._save("mat", mat if vec._requires_grad else None)
        self._save("vec", vec if mat._requires_grad else None)
        self._self_shape = self_.shape

    def backward(self, g):
        nf, alpha = self.next_functions, self._saved["alpha"]
        gs = sum_to(_scaled(g, self._saved["beta"]), self._self_shape) if nf[0][0] else None
        gm = _scaled(outer(g, self._get("vec")), alpha) if nf[1][0] else None
        gv = _scaled(mv(self._get("mat").t(), g), alpha) if nf[2][0] else None
        return gs, gm, gv

    @staticmethod
    def jvp(inputs, tangents, outputs, self_, mat, vec, beta, alpha):
        """dz = beta * self_t + alpha * mat_t @ vec + alpha * mat @ vec_t."""
        return _addmm_like_jvp(tangents, self_, mat, vec, beta, alpha, mv)


def addmv(input, mat, vec, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` (``torch.addmv``); node ``AddmvBackward0``
    (slots input, mat, vec). RuntimeError on rank, size or dtype mismatch."""
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, "
                           f"{vec.ndim}")
    n = mat.shape[0]
    if mat.shape[1] != vec.shape[0] or input.shape not in ((n,), (1,), ()):
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), "
                           f"mat ({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    if not (input.dtype is mat.dtype is vec.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{_scalar_name(input)}, {_scalar_name(mat)}, and {_scalar_name(vec)}")
    if mat._data.dtype in _HALF:  # (in float32, rounded once: see linalg._half_addmm)
        arr = _half_addmm(input._data, mat._data, vec._data, beta, alpha)
    else:
        prod = (mat._data @ vec._data) * alpha
        arr = prod if beta == 0 else prod + input._data * beta
    out = Tensor._make(np.asarray(arr, dtype=mat._data.dtype))
    record(AddmvBackward0, out, (input, mat, vec), input, mat, vec, beta, alpha)
    return out


def _check_batches(b1, b2):
    for t, name in ((b1, "batch1"), (b2, "batch2")):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if b1.shape[0] != b2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{b1.shape[0]} and {b2.shape[0]}")
    if b1.shape[2] != b2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b1.shape[0]}, {b1.shape[2]}] but got: [{b2.shape[0]}, "
                           f"{b2.shape[1]}].")
    if b1.dtype is not b2.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(b1)} but found "
                           f"{_scalar_name(b2)}")


class BaddbmmBackward0(Node):
    """z = beta * self + alpha * bmm(batch1, batch2).  dz/dself = beta * grad (summed to
    self's shape); dz/dbatch1 = alpha * grad @ batch2ᵀ; dz/dbatch2 = alpha * batch1ᵀ @ grad.
    Saves: alpha, batch1 (if batch2 needs grad), batch2 (if batch1 needs grad), beta."""

    def __init__(self, self_, b1, b2, beta, alpha):
        Node.__init__(self)
        self._save("alpha", alpha)
        self._save("batch1", b1 if b2._requires_grad else None)
        self._save("batch2", b2 if b1._requires_grad else None)
        self._save("beta", beta)
        self._self_shape = self_.shape

    def _batched_grad(self, g):
        return g

    def backward(self, g):
        nf, alpha = self.next_functions, self._saved["alpha"]
        gs = sum_to(_scaled(g, self._saved["beta"]), self._self_shape) if nf[0][0] else None
        gb = self._batched_grad(g)
        g1 = _scaled(bmm(gb, self._get("batch2").transpose(1, 2)), alpha) if nf[1][0] else None
        g2 = _scaled(bmm(self._get("batch1").transpose(1, 2), gb), alpha) if nf[2][0] else None
        return gs, g1, g2

    @staticmethod
    def jvp(inputs, tangents, outputs, self_, b1, b2, beta, alpha):
        """dz = beta * self_t + alpha * bmm(batch1_t, batch2) + alpha * bmm(batch1, batch2_t)."""
        return _addmm_like_jvp(tangents, self_, b1, b2, beta, alpha, bmm)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)``, ``input`` broadcast to the product's
    shape (``torch.baddbmm``); node ``BaddbmmBackward0``. RuntimeError on shape/dtype mismatch."""
    _check_batches(batch1, batch2)
    shape = (batch1.shape[0], batch1.shape[1], batch2.shape[2])
    if input.shape != shape:
        _expand_target(input, shape)
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(batch1)} but found "
                           f"{_scalar_name(input)}")
    if batch1._data.dtype in _HALF:  # (in float32, rounded once: see linalg._half_addmm)
        arr = _half_addmm(input._data, batch1._data, batch2._data, beta, alpha)
    else:
        prod = np.matmul(batch1._data, batch2._data) * alpha
        arr = prod if beta == 0 else prod + input._data * beta
    out = Tensor._make(np.require(arr, dtype=batch1._data.dtype, requirements="C"))
    record(BaddbmmBackward0, out, (input, batch1, batch2), input, batch1, batch2, beta, alpha)
    return out


class AddbmmBackward0(BaddbmmBackward0):
    """z = beta * self + alpha * sum_b(batch1[b] @ batch2[b]).  dz/dself = beta * grad;
    dz/dbatch1 = alpha * grad (expanded over the batch) @ batch2ᵀ; dz/dbatch2 = alpha *
    batch1ᵀ @ grad (expanded). Saves: alpha, batch1, batch1_sym_argsize_0,
    batch1_sym_argsize_1, batch2, batch2_sym_argsize_2, beta."""

    def __init__(self, self_, b1, b2, beta, alpha):
        super().__init__(self_, b1, b2, beta, alpha)
        self._save("batch1_sym_argsize_0", b1.shape[0])
        self._save("batch1_sym_argsize_1", b1.shape[1])
        self._save("batch2_sym_argsize_2", b2.shape[2])

    def _batched_grad(self, g):
        s = self._saved
        return g.unsqueeze(0).expand(s["batch1_sym_argsize_0"], s["batch1_sym_argsize_1"],
                                     s["batch2_sym_argsize_2"])

    @staticmethod
    def jvp(inputs, tangents, outputs, self_, b1, b2, beta, alpha):
        """dz = beta * self_t + alpha * bmm(batch1_t, batch2).sum(0) + alpha * bmm(batch1,
        batch2_t).sum(0)."""
        return _addmm_like_jvp(tangents, self_, b1, b2, beta, alpha, bmm,
                               lambda t: t.sum(0))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * sum over the batch of batch1[b] @ batch2[b]``
    (``torch.addbmm``); node ``AddbmmBackward0``. RuntimeError on shape/dtype mismatch."""
    _check_batches(batch1, batch2)
    shape = (batch1.shape[1], batch2.shape[2])
    if input.shape != shape:
        _expand_target(input, shape)
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(batch1)} but found "
                           f"{_scalar_name(input)}")
    if batch1._data.dtype in _HALF:  # (as PyTorch: one addmm_ per batch, each rounded)
        arr = np.broadcast_to(input._data, shape)
        for b in range(batch1.shape[0]):
            arr = _half_addmm(arr, batch1._data[b], batch2._data[b], beta if b == 0 else 1,
                              alpha)
        if not batch1.shape[0]:
            arr = _half_addmm(arr, batch1._data.sum(0), batch2._data.sum(0), beta, alpha)
    else:
        prod = np.matmul(batch1._data, batch2._data).sum(0) * alpha
        arr = prod if beta == 0 else prod + input._data * beta
    out = Tensor._make(np.require(arr, dtype=batch1._data.dtype, requirements="C"))
    record(AddbmmBackward0, out, (input, batch1, batch2), input, batch1, batch2, beta, alpha)
    return out


class LinalgCrossBackward0(Node):
    """z = cross(self, other, dim).  dz/dself = cross(other, grad); dz/dother =
    cross(grad, self) (each summed to its input's shape). Saves: dim, other (if self needs
    grad), self (if other needs grad)."""

    def __init__(self, a, b, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("other", b if a._requires_grad else None)
        self._save("self", a if b._requires_grad else None)
        self._d, self._shapes = d, (a.shape, b.shape)

    def backward(self, g):
        nf, d = self.next_functions, self._d
        ga = sum_to(_cross(self._get("other"), g, d), self._shapes[0]) if nf[0][0] else None
        gb = sum_to(_cross(g, self._get("self"), d), self._shapes[1]) if nf[1][0] else None
        return ga, gb

    @staticmethod
    def jvp(inputs, tangents, outputs, a, b, dim, d):
        """dz = cross(self_t, other, dim) + cross(self, other_t, dim)."""
        ta, tb = tangents
        right = None if tb is None else _cross(a, tb, dim)  # (first: see MmBackward0.jvp)
        return tangent_sum(None if ta is None else _cross(ta, b, dim), right)


def _cross(a, b, dim) -> Tensor:
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = broadcast_shapes(a.shape, b.shape)
    d = normalize_dim(dim, len(shape))
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[d]} and {b.shape[d]}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(a)} but found {_scalar_name(b)}")
    arr = np.cross(np.broadcast_to(a._data, shape), np.broadcast_to(b._data, shape), axis=d)
    out = Tensor._make(np.require(arr, dtype=a._data.dtype, requirements="C"))
    record(LinalgCrossBackward0, out, (a, b), a, b, dim, d)
    return out


def cross(input, other, dim=None) -> Tensor:
    """Cross product of 3-vectors along ``dim`` (``torch.cross``; node
    ``LinalgCrossBackward0``), the inputs broadcast. Without ``dim``: the first dim of size 3,
    with PyTorch's deprecation warning. RuntimeError when that dim's size is not 3."""
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
                      "either pass the dim explicitly or simply use torch.linalg.cross.\nThe "
                      "default value of dim will change to agree with that of linalg.cross in a "
                      "future release.", UserWarning, stacklevel=2)
        shape = broadcast_shapes(input.shape, other.shape)
        dim = next((k for k, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _cross(input, other, dim)


def linalg_cross(input, other, *, dim=-1) -> Tensor:
    """``torch.linalg.cross``: the cross product along ``dim`` (the last by default; no search
    for a dim of size 3, unlike ``torch.cross`` without ``dim``), node ``LinalgCrossBackward0``.
    RuntimeError when that dim's size is not 3, for different numbers of dims or dtypes."""
    return _cross(input, other, dim)


# ----------------------------------------------------------------------------- einsum
def _parse(equation: str, operands):
    """Labels of each operand (``"."`` stands for an ellipsis) and of the output (None when
    implicit), with PyTorch's parse errors."""
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.replace(" ", "").split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    labels = []
    for k, term in enumerate(terms):
        if term.count("...") > 1:
            raise RuntimeError(f"einsum(): found '.' for operand {k} for which an ellipsis was "
                               f"already found")
        term = term.replace("...", ".")
        for c in term:
            if c != "." and not c.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {lhs.index(c)} in "
                                   f"the equation string, subscripts must be in [a-zA-Z]")
        labels.append(list(term))
    out = list(rhs.replace(" ", "").replace("...", ".")) if arrow else None
    return labels, out


def _label_key(c: str) -> int:
    """PyTorch's label order: upper case before lower case."""
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + 26


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation (``torch.einsum``), computed as PyTorch's ``Linear.cpp`` does:
    operands permuted (and unsqueezed) to "output labels, then contracted labels", repeated
    labels taken as diagonals, then contracted two at a time, left to right, with ``bmm`` (or
    ``mul`` when nothing is summed), and the contracted dims dropped by a final view (one
    operand: a ``sum``). Operands may also be given as one list. RuntimeError with PyTorch's
    messages for a malformed equation or sizes that do not broadcast. (With three or more
    operands, PyTorch may use the ``opt_einsum`` package to choose the order; minigrad always
    goes left to right, as PyTorch does without it.)"""
    if isinstance(equation, Tensor):  # the sublist format: op, [dims], op, [dims], ..., [out]
        equation, operands = _from_sublists((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    labels, out_labels = _parse(equation, operands)
    counts: dict = {}
    ell_dims = 0
    for k, (op, labs) in enumerate(zip(operands, labels)):
        named = [c for c in labs if c != "."]
        for c in named:
            counts[c] = counts.get(c, 0) + 1
        if "." in labs:
            ell_dims = max(ell_dims, op.ndim - len(named))
            if len(named) > op.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({len(named)}) is more than the number of dimensions "
                                   f"({op.ndim}) for operand {k}")
        elif len(named) != op.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({len(named)}) does not match the number of dimensions "
                               f"({op.ndim}) for operand {k} and no ellipsis was given")
    index: dict = {}  # label -> position in the aligned layout
    if out_labels is None:  # implicit output: the ellipsis, then labels seen once, sorted
        pos, ell_at, ell_out = ell_dims, 0, True
        for c in sorted(counts, key=_label_key):
            if counts[c] == 1:
                index[c] = pos
                pos += 1
    else:
        pos, ell_at, ell_out = 0, 0, False
        for c in out_labels:
            if c == ".":
                ell_at, ell_out = pos, True
                pos += ell_dims
                continue
            if c not in counts or c in index:
                raise RuntimeError(f"einsum(): output subscript {c}" + (
                    " appears more than once in the output" if c in index else
                    " does not appear in the equation for any input operand"))
            index[c] = pos
            pos += 1
    out_dims = pos
    if not ell_out:
        ell_at = pos
        pos += ell_dims
    for c in sorted(counts, key=_label_key):
        if c not in index:
            index[c] = pos
            pos += 1
    total = pos
    size_of: dict = {}
    ell_sizes = [1] * ell_dims
    dim_counts = [0] * total
    ops = []
    for k, (op, labs) in enumerate(zip(operands, labels)):
        perm = [-1] * total
        dim = 0
        for c in labs:
            if c == ".":
                n = op.ndim - (len(labs) - 1)
                for j in range(ell_dims - n, ell_dims):
                    if op.shape[dim] != 1:
                        if ell_sizes[j] not in (1, op.shape[dim]):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {k}"
                                f"has size {op.shape[dim]} which does not broadcast with "
                                f"previously seen ellipsis with size {ell_sizes[j]} for the "
                                f"respective dimension")
                        ell_sizes[j] = op.shape[dim]
                        dim_counts[ell_at + j] += 1
                    perm[ell_at + j] = dim
                    dim += 1
            elif perm[index[c]] == -1:
                if op.shape[dim] != 1:
                    if size_of.get(c, 1) not in (1, op.shape[dim]):
                        raise RuntimeError(f"einsum(): subscript {c} has size {op.shape[dim]} "
                                           f"for operand {k} which does not broadcast with "
                                           f"previously seen size {size_of[c]}")
                    size_of[c] = op.shape[dim]
                    dim_counts[index[c]] += 1
                perm[index[c]] = dim
                dim += 1
            else:  # a repeated label: its diagonal
                prev = perm[index[c]]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but "
                                       f"the sizes don't match, {op.shape[dim]} != "
                                       f"{op.shape[prev]}")
                op = op.diagonal(0, prev, dim).movedim(-1, prev)
        for p in range(total):
            if perm[p] == -1:
                op = op.unsqueeze(dim)
                perm[p] = dim
                dim += 1
        ops.append(op.permute(perm))
    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_dims, total):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = a.sum(a_sum, keepdim=True)
        if b_sum:
            b = b.sum(b_sum, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    result = ops[0]
    if total > out_dims:
        if len(operands) > 1:
            return result.view(result.shape[:out_dims])
        return result.sum(list(range(out_dims, total)))
    return result


def _from_sublists(args):
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])`` as ``("AB,BC->AC", (a, b))``: sublist ints 0-25
    are the labels A-Z, 26-51 a-z, ``...`` an ellipsis (torch.functional's conversion)."""

    def letters(sub):
        out = ""
        for s in sub:
            if s is Ellipsis:
                out += "..."
            elif isinstance(s, int) and 0 <= s < 52:
                out += chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26)
            else:
                raise ValueError("einsum(): expected subscript to be within the range [0, 52), "
                                 f"got {s}")
        return out

    out = args[-1] if len(args) % 2 else None
    pairs = args[:-1] if out is not None else args
    equation = ",".join(letters(sub) for sub in pairs[1::2])
    if out is not None:
        equation += "->" + letters(out)
    return equation, tuple(pairs[0::2])


def _sumproduct_pair(left, right, sum_dims) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)`` as one ``bmm``: dims in both operands
    and the output become the batch, the summed dims the inner dim (``sumproduct_pair``)."""
    if not sum_dims:
        return left * right
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left.ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, keepdim=True)
            elif sr:
                right = right.sum(i, keepdim=True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = ([left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right.shape[d] for d in ro])
    lperm = lro + lo + sum_dims + ro
    rperm = lro + sum_dims + ro + lo
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + sum_dims + ro):
        operm[d] = i
    left = left.permute(lperm).reshape(lro_size, lo_size, sum_size)
    right = right.permute(rperm).reshape(lro_size, sum_size, ro_size)
    return bmm(left, right).view(out_size).permute(operm)


def _inplace_of(fn, doc_name):
    def op(self, *args, **kwargs):
        from .inplace import _apply_inplace

        return _apply_inplace(self, lambda: fn(self, *args, **kwargs), args)

    op.__name__ = doc_name
    op.__doc__ = f"In-place ``{doc_name[:-1]}``: modifies self, bumps ``_version``, returns self."
    return op


def _addmm(self, mat1, mat2, *, beta=1, alpha=1):
    from .linalg import addmm

    return addmm(self, mat1, mat2, beta=beta, alpha=alpha)


attach(Tensor, outer=outer, ger=ger, addmv=addmv, baddbmm=baddbmm, addbmm=addbmm, cross=cross,
       addmm_=_inplace_of(_addmm, "addmm_"), addmv_=_inplace_of(addmv, "addmv_"),
       baddbmm_=_inplace_of(baddbmm, "baddbmm_"), addbmm_=_inplace_of(addbmm, "addbmm_"))
