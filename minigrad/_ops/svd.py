"""Singular value decomposition: ``torch.linalg.svd``, ``torch.linalg.svdvals`` and the matrix
norms built on them (``matrix_norm`` with ord ``'nuc'``, 2, -2).

Mirrors ``linalg_svd`` / ``linalg_svdvals`` in ``aten/src/ATen/native/BatchLinearAlgebra.cpp``
(both go through ``_linalg_svd``, whose node is ``LinalgSvdBackward0``), ``svd_backward`` in
``torch/csrc/autograd/FunctionsManual.cpp`` for the gradient, and ``linalg_matrix_norm`` in
``aten/src/ATen/native/LinearAlgebra.cpp``: the two matrix dims are permuted to the end, the
singular values taken, then summed (``'nuc'``), or their max (2) / min (-2) taken over the
last dim; ``keepdim`` unsqueezes and permutes back. NumPy's ``linalg.svd`` computes the
factors. Singular vectors are defined up to sign, so only losses that do not depend on that
sign (PyTorch's "gauge") have gradients that agree with PyTorch's.
"""

from __future__ import annotations

import numpy as np

from .._dtype import is_float_np
from .._tensor import Tensor
from ..autograd.graph import Node, record


def _skew(X: Tensor) -> Tensor:
    return X - X.transpose(-1, -2)


def _undefined(g) -> bool:
    """An output that got no gradient (the engine passes constant zeros): PyTorch's
    undefined gradient, left out of the formula."""
    return g is None or (g.grad_fn is None and not g.requires_grad and not g._data.any())


class LinalgSvdBackward0(Node):
    """(U, S, Vh) = linalg.svd(A, full_matrices).  With k = min(m, n), E[i, j] = S[j]^2 - S[i]^2
    (1 on the diagonal), skew(X) = X - X^T:
    dA = U [ (skew(U^T gU) S + S skew(Vh gVh^T)) / E + diag(gS) ] Vh
    plus (I - U U^T) gU S^-1 Vh when m > k and S^-1 gVh (I - Vh^T Vh) when n > k (U, Vh
    narrowed to k columns / rows for full matrices); with only gS, dA = U diag(gS) Vh.
    Saves: S, S_sym_argsize_minus_1 (k), U, Vh (outputs), full_matrices."""

    def __init__(self, full_matrices: bool, k: int):
        Node.__init__(self)
        self._save("full_matrices", bool(full_matrices))
        self._save("S_sym_argsize_minus_1", int(k))

    def backward(self, gU, gS, gVh):
        gU, gS, gVh = (None if _undefined(g) else g for g in (gU, gS, gVh))
        U, S, Vh = self._get("U"), self._get("S"), self._get("Vh")
        m, n, k = U.shape[-2], Vh.shape[-1], S.shape[-1]
        if gU is None and gS is None and gVh is None:
            return (Tensor._make(np.zeros(U.shape[:-2] + (m, n), dtype=S._data.dtype)),)
        if self._saved["full_matrices"] and m != n:
            U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
            gU = None if gU is None else gU.narrow(-1, 0, k)
            gVh = None if gVh is None else gVh.narrow(-2, 0, k)
        if gU is None and gVh is None:
            return ((U * gS.unsqueeze(-2)) @ Vh,)
        s_row, s_col = S.unsqueeze(-2), S.unsqueeze(-1)
        S2 = S * S
        E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + Tensor._make(np.eye(k, dtype=S._data.dtype))
        UhgU = None if gU is None else _skew(U.transpose(-1, -2) @ gU)
        VhgV = None if gVh is None else _skew(Vh @ gVh.transpose(-1, -2))
        if UhgU is not None and VhgV is not None:
            gA = (UhgU * s_row + s_col * VhgV) / E
        elif UhgU is not None:
            gA = (UhgU / E) * s_row
        else:
            gA = s_col * (VhgV / E)
        if gS is not None:
            from .transform import diag_embed

            gA = gA + diag_embed(gS)
        if m > k and gU is not None:
            gA = U @ gA
            gU_Sinv = gU / s_row
            gA = (gA + gU_Sinv - U @ (U.transpose(-1, -2) @ gU_Sinv)) @ Vh
        elif n > k and gVh is not None:
            gA = gA @ Vh
            gVh_Sinv = gVh / s_col
            gA = U @ (gA + gVh_Sinv - (gVh_Sinv @ Vh.transpose(-1, -2)) @ Vh)
        else:
            gA = U @ (gA @ Vh) if m >= n else (U @ gA) @ Vh
        return (gA,)

    @staticmethod
    def jvp(inputs, tangents, outputs, full_matrices, k):
        """PyTorch's ``linalg_svd_jvp`` (real case), U, Vh narrowed to k columns / rows: with
        dP = U^T dA V, dS = diag(dP), dX = dP - diag(dS), sym(X) = X + X^T and E as above:
        dU = U (sym(dX S) / E) (+ (I - U U^T) dA V S^-1 when m > n), dVh = (sym(-S dX) / E) Vh
        (+ S^-1 U^T dA (I - V Vh) when m < n); zero columns / rows pad dU / dVh for full
        matrices."""
        from . import pointwise as P
        from .shape import cat
        from .transform import diag_embed

        dA = tangents[0]
        U, S, Vh = outputs
        m, n = dA.shape[-2], dA.shape[-1]
        if full_matrices:
            U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        V = Vh.mT
        dP = U.mT @ (dA @ V) if m < n else (U.mT @ dA) @ V
        dS = dP.diagonal(0, -2, -1)
        dP = dP - diag_embed(dS)
        S2 = S * S
        E = P.masked_fill(S2.unsqueeze(-2) - S2.unsqueeze(-1),
                          Tensor._make(np.eye(k, dtype=bool)), 1)

        def sym(X):
            return X + X.mT

        dU = U @ (sym(dP * S.unsqueeze(-2)) / E)
        if m > n:
            dAVSinv = dA @ (V / S.unsqueeze(-2))
            dU = dU + dAVSinv - U @ (U.mT @ dAVSinv)
            if full_matrices:
                pad = Tensor._make(np.zeros(dU.shape[:-1] + (m - n,), dU._data.dtype))
                dU = cat([dU, pad], -1)
        dVh = (sym(dP * (-S).unsqueeze(-1)) / E) @ Vh
        if m < n:
            UHdASinv = (U.mT / S.unsqueeze(-1)) @ dA
            dVh = dVh + UHdASinv - (UHdASinv @ V) @ Vh
            if full_matrices:
                pad = Tensor._make(np.zeros(dVh.shape[:-2] + (n - m,) + dVh.shape[-1:],
                                            dVh._data.dtype))
                dVh = cat([dVh, pad], -2)
        return dU, dS, dVh


def _check(A, fn: str) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg_{fn}(): argument 'A' (position 1) must be Tensor, not "
                        f"{type(A).__name__}")
    if not is_float_np(A._data.dtype):
        raise RuntimeError(f"linalg.svd: Expected a floating point or complex tensor as input. "
                           f"Got {A.dtype._legacy[:-6]}")
    if A.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    if A._data.itemsize < 4:  # (PyTorch's CPU SVD has no float16/bfloat16 kernel)
        raise NotImplementedError(f'"linalg_svd_cpu" not implemented for '
                                  f"'{A.dtype._legacy[:-6]}'")


def _column_major(x: np.ndarray) -> np.ndarray:
    """``x`` with each matrix laid out column by column (strides ``(..., 1, rows)``), as
    LAPACK writes ``U`` and ``Vh`` in PyTorch."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)


def _factors(a: np.ndarray, full_matrices: bool):
    """NumPy's SVD (batched), with PyTorch's shapes for matrices with no elements."""
    m, n = a.shape[-2:]
    if m and n:
        U, S, Vh = np.linalg.svd(a, full_matrices=full_matrices)
        return _column_major(U.astype(a.dtype)), S.astype(a.dtype), _column_major(
            Vh.astype(a.dtype))
    batch, k = a.shape[:-2], 0
    U = np.broadcast_to(np.eye(m, m if full_matrices else k, dtype=a.dtype), batch + (
        m, m if full_matrices else k)).copy()
    Vh = np.broadcast_to(np.eye(n if full_matrices else k, n, dtype=a.dtype), batch + (
        n if full_matrices else k, n)).copy()
    return U, np.zeros(batch + (k,), dtype=a.dtype), Vh


def _linalg_svd(A: Tensor, full_matrices: bool):
    U, S, Vh = (Tensor._make(x) for x in _factors(A._data, full_matrices))
    node = record(LinalgSvdBackward0, [U, S, Vh], (A,), full_matrices, S.shape[-1])
    if node is not None:
        for name, t in (("S", S), ("U", U), ("Vh", Vh)):
            node._save(name, t, is_output=True)
    return U, S, Vh


def svd(A, full_matrices: bool = True, *, driver=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh`` (``torch.linalg.svd``): shapes ``(*, m, m)``,
    ``(*, k)``, ``(*, n, n)`` (``(*, m, k)``, ``(*, k)``, ``(*, k, n)`` without
    ``full_matrices``), k = min(m, n); S descending. One ``LinalgSvdBackward0`` node for the
    three outputs. Returns ``minigrad.return_types.linalg_svd``.

    Raises:
        RuntimeError: an integer input; fewer than 2 dims.
    """
    from ..return_types import linalg_svd

    _check(A, "svd")
    return linalg_svd(*_linalg_svd(A, full_matrices))


def svdvals(A, *, driver=None) -> Tensor:
    """The singular values of ``A``, shape ``(*, k)``, descending (``torch.linalg.svdvals``);
    node ``LinalgSvdBackward0`` (``full_matrices=False``; U and Vh computed and saved only for
    the gradient, as PyTorch does).

    Raises:
        RuntimeError: an integer input; fewer than 2 dims.
    """
    _check(A, "svdvals")
    return _linalg_svd(A, False)[1]


def spectral_matrix_norm(A: Tensor, ord, dims, keepdim: bool) -> Tensor:
    """``matrix_norm`` for ord ``'nuc'``, 2 and -2 over the two dims ``dims`` (normalized):
    ``sum``/``amax``/``amin`` over the last dim of ``svdvals(A.permute(...))``, with the
    matrix dims moved to the end first (``PermuteBackward0``) and, for ``keepdim``, the
    result unsqueezed and permuted back."""
    from .reduction import amax, amin

    if not is_float_np(A._data.dtype):
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {A.dtype._legacy[:-6]}")
    if A._data.itemsize < 4:
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got "
                           f"{A.dtype._legacy[:-6]}")
    rest = [d for d in range(A.ndim) if d not in dims]
    perm = rest + list(dims)
    S = svdvals(A.permute(*perm))
    if ord == "nuc":
        r = S.sum(-1, keepdim=keepdim)
    elif S.shape[-1] == 0:  # (PyTorch: the norm of an empty matrix is 0)
        r = Tensor._make(np.zeros(S.shape[:-1] + ((1,) if keepdim else ()), S._data.dtype))
    else:
        r = (amax if ord == 2 else amin)(S, (-1,), keepdim)
    if keepdim:
        reverse = [perm.index(d) for d in range(A.ndim)]
        r = r.unsqueeze(-1).permute(*reverse)
    return r
