"""Parity of the singular-value ops (issue 19, item 2): ``torch.linalg.svd`` / ``svdvals``, the
matrix norms built on them (``matrix_norm`` ord ``'nuc'``, 2, -2; ``torch.norm(p='nuc')``;
``linalg.norm``) — values, graphs (``PermuteBackward0`` → ``LinalgSvdBackward0`` →
``SumBackward1``/``AmaxBackward0``/``AminBackward0``), the node's saved values, gradients,
second-order gradients and errors, on batched, tall, wide, non-contiguous and empty inputs.

Singular vectors are defined up to sign: the losses through ``U``/``Vh`` here use their squares
(sign-invariant), and the factors are compared through ``U diag(S) Vh``.
"""

import numpy as np
import pytest

from minigrad.parity import capture_error, compare, graph_trace, run_both, to_numpy

from ._more import check_second_order
from ._opcheck import In

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-10)}


def _input(L, shape, dtype, T=False):
    arr = np.random.default_rng(len(shape) * 7 + sum(shape)).standard_normal(shape)
    x = L.tensor(arr.astype(dtype))
    if T:
        x = x.transpose(-1, -2).detach()
    return x.requires_grad_()


def _svd_node_saved(root):
    """The non-tensor saved values of the LinalgSvdBackward0 nodes under ``root``."""
    found, stack, seen = [], [root], set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if n.name() == "LinalgSvdBackward0":
            found.append((n._saved_full_matrices, n._saved_S_sym_argsize_minus_1))
        stack += [c for c, _ in n.next_functions]
    return found


def norm_scenario(L, fn, shape, dtype, T=False):
    x = _input(L, shape, dtype, T)
    y = fn(L, x)
    w = L.tensor(np.random.default_rng(3).standard_normal(tuple(y.shape)).astype(dtype))
    (y * w).sum().backward()
    return {"value": to_numpy(y), "shape": list(y.shape), "graph": graph_trace(y),
            "svd": _svd_node_saved(y.grad_fn), "grad": to_numpy(x.grad)}


def C(id, fn, shape, T=False):
    return pytest.param(fn, shape, T, id=id)


NORMS = [
    C("nuc", lambda L, x: L.linalg.matrix_norm(x, "nuc"), (3, 4)),
    C("nuc_tall_batched", lambda L, x: L.linalg.matrix_norm(x, ord="nuc"), (2, 5, 3)),
    C("nuc_dims_0_2", lambda L, x: L.linalg.matrix_norm(x, "nuc", dim=(0, 2)), (3, 2, 4)),
    C("nuc_dims_2_0", lambda L, x: L.linalg.matrix_norm(x, "nuc", dim=(2, 0)), (3, 2, 4)),
    C("nuc_negative_dims_keepdim", lambda L, x: L.linalg.matrix_norm(
        x, "nuc", dim=(-1, -3), keepdim=True), (3, 2, 4)),
    C("nuc_keepdim", lambda L, x: L.linalg.matrix_norm(x, "nuc", keepdim=True), (2, 3, 4)),
    C("nuc_noncontiguous", lambda L, x: L.linalg.matrix_norm(x, "nuc"), (2, 3, 4), True),
    C("two", lambda L, x: L.linalg.matrix_norm(x, 2), (3, 4)),
    C("two_batched_wide", lambda L, x: L.linalg.matrix_norm(x, ord=2), (2, 2, 5)),
    C("two_dims_keepdim", lambda L, x: L.linalg.matrix_norm(x, 2, dim=(2, 1), keepdim=True),
      (2, 3, 4)),
    C("minus_two", lambda L, x: L.linalg.matrix_norm(x, -2), (4, 3)),
    C("minus_two_dims", lambda L, x: L.linalg.matrix_norm(x, -2, dim=(0, 1)), (3, 4, 2)),
    C("minus_two_noncontiguous_keepdim", lambda L, x: L.linalg.matrix_norm(
        x, -2, keepdim=True), (2, 3, 4), True),
    C("torch_norm_nuc", lambda L, x: L.norm(x, p="nuc"), (3, 4)),
    C("torch_norm_nuc_dim", lambda L, x: L.norm(x, p="nuc", dim=(0, 2)), (3, 2, 4)),
    C("torch_norm_nuc_keepdim", lambda L, x: L.norm(x, "nuc", (1, 2), True), (2, 3, 4)),
    C("tensor_norm_nuc", lambda L, x: x.norm(p="nuc"), (4, 3)),
    C("linalg_norm_nuc", lambda L, x: L.linalg.norm(x, "nuc"), (3, 4)),
    C("linalg_norm_2", lambda L, x: L.linalg.norm(x, 2), (3, 4)),
    C("linalg_norm_minus_2_dim", lambda L, x: L.linalg.norm(x, -2, dim=(0, 1)), (3, 4, 2)),
    C("nuc_of_a_row", lambda L, x: L.linalg.matrix_norm(x[0], "nuc"), (2, 1, 4)),
    C("svdvals", lambda L, x: L.linalg.svdvals(x), (2, 3, 4)),
    C("svdvals_tall_noncontiguous", lambda L, x: L.linalg.svdvals(x), (4, 3), True),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn, shape, T", NORMS)
def test_norms(fn, shape, T, dtype):
    a, b = run_both(norm_scenario, fn, shape, dtype, T)
    compare(a, b, **TOL[dtype])


@pytest.mark.parametrize("fn, shape, T", [p for p in NORMS if "keepdim" not in p.id][:12])
def test_norms_second_order(fn, shape, T):
    check_second_order(lambda L, x: fn(L, x), [In(*shape, T=T)])


def svd_scenario(L, shape, full_matrices, dtype, which=("U", "S", "Vh"), T=False):
    x = _input(L, shape, dtype, T)
    U, S, Vh = L.linalg.svd(x, full_matrices=full_matrices)
    k = S.shape[-1]
    rebuilt = (U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :]
    rng = np.random.default_rng(4)
    weights = {n: L.tensor(rng.standard_normal(tuple(t.shape)).astype(dtype))
               for n, t in (("U", U), ("S", S), ("Vh", Vh))}
    loss = 0
    for n, t in (("U", U), ("S", S), ("Vh", Vh)):
        if n in which:
            loss = loss + ((t if n == "S" else t * t) * weights[n]).sum()
    saved = (S.grad_fn._saved_full_matrices, S.grad_fn._saved_S_sym_argsize_minus_1,
             to_numpy(S.grad_fn._saved_S))
    loss.backward()
    return {"shapes": [list(t.shape) for t in (U, S, Vh)], "S": to_numpy(S),
            "rebuilt": to_numpy(rebuilt), "names": [t.grad_fn.name() for t in (U, S, Vh)],
            "output_nr": [t.output_nr for t in (U, S, Vh)],
            "saved": saved,
            "fields": [to_numpy(getattr(L.linalg.svd(x.detach()), f)).shape
                       for f in ("U", "S", "Vh")],
            "grad": to_numpy(x.grad)}


SVDS = [pytest.param(s, f, w, T, id=f"{'x'.join(map(str, s))}-{'full' if f else 'reduced'}-"
                     f"{'+'.join(w)}{'-T' if T else ''}")
        for s, f, w, T in [
            ((3, 3), True, ("U", "S", "Vh"), False),
            ((4, 3), True, ("U", "S", "Vh"), False),
            ((3, 5), True, ("U", "S", "Vh"), False),
            ((4, 3), False, ("U", "S", "Vh"), False),
            ((3, 5), False, ("U", "S", "Vh"), False),
            ((2, 4, 3), False, ("U",), False),
            ((2, 3, 4), False, ("Vh",), False),
            ((2, 3, 4), True, ("S",), False),
            ((5, 3), False, ("U", "Vh"), True),
            ((3, 5), True, ("Vh",), False),
            ((5, 3), True, ("U",), False)]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, full_matrices, which, T", SVDS)
def test_svd(shape, full_matrices, which, T, dtype):
    a, b = run_both(svd_scenario, shape, full_matrices, dtype, which, T)
    compare(a, b, **TOL[dtype])


def test_svd_second_order_through_s_and_u():
    def fn(L, x):
        U, S, Vh = L.linalg.svd(x, full_matrices=False)
        return (U * U).sum(-1) + S.sum(-1, keepdim=True)

    check_second_order(fn, [In(4, 3)])


def empty_scenario(L):
    e = L.zeros(0, 3)
    U, S, Vh = L.linalg.svd(e)
    u, s, vh = L.linalg.svd(e, full_matrices=False)
    return ([list(t.shape) for t in (U, S, Vh, u, s, vh)], to_numpy(Vh),
            to_numpy(L.linalg.matrix_norm(e, "nuc")), to_numpy(L.linalg.matrix_norm(e, 2)),
            list(L.linalg.svdvals(L.zeros(2, 3, 0)).shape))


def test_empty_matrices():
    compare(*run_both(empty_scenario))


ERRORS = [
    pytest.param(lambda L: L.linalg.svd(L.tensor([[1, 2], [3, 4]])), id="svd_int"),
    pytest.param(lambda L: L.linalg.svdvals(L.zeros(3)), id="svdvals_1d"),
    pytest.param(lambda L: L.linalg.matrix_norm(L.tensor([[1, 2], [3, 4]]), "nuc"),
                 id="matrix_norm_nuc_int"),
    pytest.param(lambda L: L.linalg.matrix_norm(L.zeros(2, 2), 3), id="matrix_norm_ord_3"),
    pytest.param(lambda L: L.linalg.matrix_norm(L.zeros(2, 2), "abc"), id="matrix_norm_abc"),
    pytest.param(lambda L: L.linalg.matrix_norm(L.zeros(2, 2, 2), "nuc", dim=(0, 1, 2)),
                 id="matrix_norm_three_dims"),
    pytest.param(lambda L: L.norm(L.zeros(2, 2, 2), p="nuc"), id="norm_nuc_3d"),
    pytest.param(lambda L: L.norm(L.zeros(2, 2, 2), p="nuc", dim=1), id="norm_nuc_one_dim"),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_errors(fn):
    a, b = run_both(lambda L: capture_error(lambda: fn(L)))
    assert b is not None, "torch raised nothing: the case is wrong"
    assert a == b
