"""Parity of the products of issue 19: ``outer ger addmv baddbmm addbmm cross einsum`` (and
the existing ``dot mv bmm addmm`` on new shapes), values, graphs, saved attributes, gradients,
second order; the in-place ``addmm_ addmv_ baddbmm_ addbmm_``; PyTorch's shape and dtype
errors. ``einsum`` is compared node for node with the graph PyTorch records for it (its
decomposition into permute / unsqueeze / diagonal / sum / bmm / view)."""

import warnings

import numpy as np
import pytest

from minigrad.parity import compare, graph_trace, run_both, to_numpy

from ._more import check_inplace, check_second_order
from ._opcheck import In, check_error, check_op


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


V3, V4 = In(3), In(4)
M34, M45 = In(3, 4), In(4, 5)
B234, B245 = In(2, 3, 4), In(2, 4, 5)

PRODUCTS = [
    C("outer", lambda L, a, b: L.outer(a, b), V3, V4),
    C("ger", lambda L, a, b: a.ger(b), V4, V3),
    C("outer_nograd", lambda L, a, b: a.outer(b), V3, In(4, grad=False)),
    C("outer_strided", lambda L, a, b: L.outer(a[::2], b), In(6), V4),
    C("outer_empty", lambda L, a, b: L.outer(a, b), In(0), V3),
    C("dot", lambda L, a, b: L.dot(a, b), V4, V4),
    C("mv_T", lambda L, m, v: L.mv(m, v), In(3, 4, T=True), V4),
    C("bmm_T", lambda L, a, b: L.bmm(a, b), In(2, 3, 4, T=True), B245),
    C("addmv", lambda L, s, m, v: L.addmv(s, m, v), V3, M34, V4),
    C("addmv_scaled", lambda L, s, m, v: s.addmv(m, v, beta=0.5, alpha=2), V3, M34, V4),
    C("addmv_bcast", lambda L, s, m, v: L.addmv(s, m, v), In(1), In(3, 4, T=True), V4),
    C("addmv_nograd_vec", lambda L, s, m, v: L.addmv(s, m, v), V3, M34, In(4, grad=False)),
    C("baddbmm", lambda L, s, a, b: L.baddbmm(s, a, b), In(2, 3, 5), B234, B245),
    C("baddbmm_bcast", lambda L, s, a, b: s.baddbmm(a, b, beta=0.5, alpha=-1), In(3, 5), B234,
      B245),
    C("baddbmm_beta0", lambda L, s, a, b: L.baddbmm(s, a, b, beta=0), In(1, 5), B234, B245),
    C("baddbmm_nograd_b2", lambda L, s, a, b: L.baddbmm(s, a, b), In(2, 3, 5), B234,
      In(2, 4, 5, grad=False)),
    C("addbmm", lambda L, s, a, b: L.addbmm(s, a, b), In(3, 5), B234, B245),
    C("addbmm_scaled", lambda L, s, a, b: s.addbmm(a, b, beta=2, alpha=0.5), In(5), B234, B245),
    C("addbmm_nograd_b1", lambda L, s, a, b: L.addbmm(s, a, b), In(3, 5),
      In(2, 3, 4, grad=False), B245),
    C("cross", lambda L, a, b: L.cross(a, b, dim=1), In(4, 3), In(4, 3)),
    C("cross_neg_dim_bcast", lambda L, a, b: a.cross(b, -1), In(2, 4, 3), In(1, 4, 3)),
    C("cross_dim0_T", lambda L, a, b: L.cross(a, b, 0), In(3, 4, T=False), In(3, 4, grad=False)),
]


def E(eq, *specs, id=None):
    return pytest.param(lambda L, *ops: L.einsum(eq, *ops), specs, id=id or eq)


EINSUM = [
    E("ij,jk->ik", M34, M45),
    E("ij,jk", M34, M45, id="implicit_ij,jk"),
    E("ij->ji", M34),
    E("ij->", M34),
    E("ij->j", M34),
    E("ij", M34, id="implicit_single"),
    E("ii->i", In(3, 3)),
    E("ii", In(3, 3), id="trace_implicit"),
    E("i,i->", V4, V4),
    E("i,j->ij", V3, V4),
    E("bij,bjk->bik", B234, B245),
    E("ij,j->i", M34, V4),
    E("ij,ij->ij", M34, M34),
    E("...j,jk", M34, M45, id="ellipsis_left"),
    E("b...,b...->b", In(2, 3, 4), In(2, 3, 4), id="ellipsis_both"),
    E("i...->...", In(2, 3, 4), id="ellipsis_sum"),
    E("ij,jk,kl->il", M34, M45, In(5, 2)),
    E("bn,anm,bm->ba", In(2, 3), In(4, 3, 5), In(2, 5)),
    E("ij,kj->ik", In(3, 4, T=True), In(2, 4)),
    E("ij,jk->ik", In(3, 1), In(1, 5), id="broadcast_dims"),
    E("iij->ij", In(3, 3, 2)),
    E("Ab,bc->Ac", M34, M45, id="upper_case"),
    E("ij,jk->ik", In(0, 4), M45, id="empty"),
    pytest.param(lambda L, a, b: L.einsum("ij,jk->ik", [a, b]), (M34, M45), id="list_operands"),
    pytest.param(lambda L, a, b: L.einsum(a, [0, 1], b, [1, 27], [0, 27]), (M34, M45),
                 id="sublists"),
    pytest.param(lambda L, a: L.einsum(a, [..., 1]), (In(2, 3, 4),), id="sublist_ellipsis"),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,specs", PRODUCTS + EINSUM)
def test_product(fn, specs, dtype, device):
    check_op(fn, specs, dtype, device)


SECOND = [
    C("outer", lambda L, a, b: L.outer(a * a, b) ** 2, V3, V4),
    C("addmv", lambda L, s, m, v: L.addmv(s * s, m, v, alpha=2) ** 2, V3, M34, V4),
    C("baddbmm", lambda L, s, a, b: L.baddbmm(s, a, b, beta=0.5) ** 2, In(3, 5), B234, B245),
    C("addbmm", lambda L, s, a, b: L.addbmm(s, a, b, alpha=3) ** 2, In(3, 5), B234, B245),
    C("cross", lambda L, a, b: L.cross(a, b, dim=1) ** 2, In(4, 3), In(4, 3)),
    C("einsum_bmm", lambda L, a, b: L.einsum("bij,bjk->bik", a, b) ** 2, B234, B245),
    C("einsum_diag", lambda L, a: L.einsum("ii->i", a * a) ** 2, In(3, 3)),
]


@pytest.mark.parametrize("fn,specs", SECOND)
def test_second_order(fn, specs, device):
    check_second_order(fn, specs, device)


INPLACE = [
    C("addmm_", lambda L, h, a, b: h.addmm_(a, b, beta=0.5), In(3, 5), M34, M45),
    C("addmv_", lambda L, h, m, v: h.addmv_(m, v, alpha=2), V3, M34, V4),
    C("baddbmm_", lambda L, h, a, b: h.baddbmm_(a, b), In(2, 3, 5), B234, B245),
    C("addbmm_", lambda L, h, a, b: h.addbmm_(a, b, beta=-1), In(3, 5), B234, B245),
]


@pytest.mark.parametrize("fn,specs", INPLACE)
def test_inplace(fn, specs, device):
    check_inplace(fn, specs, device)


@pytest.mark.parametrize("eq", ["ij,jk->ki", "bij,bjk->kbi"])
def test_einsum_transposed_output_known_difference(eq):
    """Known difference: when the output's label order transposes an operand, PyTorch's C++
    einsum records ``ReshapeAliasBackward0`` for its internal reshape where minigrad's (and
    PyTorch's own Python-level ``reshape`` of the same tensor) records ``ViewBackward0``.
    Values and gradients agree; the graph differs only in that node name."""

    def scenario(lib):
        rng = np.random.default_rng(0)
        shapes = [(3, 4), (4, 5)] if eq.count(",") == 1 and eq[0] == "i" else [(2, 3, 4),
                                                                               (2, 4, 5)]
        ops = [lib.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
        out = lib.einsum(eq, *ops)
        (out * out).sum().backward()
        names = sorted({n for n, _ in graph_trace(out)} - {"ReshapeAliasBackward0",
                                                           "ViewBackward0"})
        return to_numpy(out), [to_numpy(t.grad) for t in ops], names

    a, b = run_both(scenario)
    compare(a, b, rtol=1e-10, atol=1e-12)


def test_cross_without_dim_warns():
    """``torch.cross`` without ``dim`` warns and uses the first dim of size 3."""

    def scenario(lib):
        rng = np.random.default_rng(0)
        a = lib.tensor(rng.standard_normal((3, 3)), requires_grad=True)
        b = lib.tensor(rng.standard_normal((3, 3)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.cross(a, b)
        out.sum().backward()
        return (to_numpy(out), to_numpy(a.grad), out.grad_fn._saved_dim,
                [str(w.message)[:60] for w in caught])

    a, b = run_both(scenario)
    compare(a, b)


ERRORS = [
    C("outer 2d", lambda L, x: L.outer(x, x[0]), "outer: Expected 1-D argument self"),
    C("outer vec2 2d", lambda L, x: L.outer(x[0], x), "outer: Expected 1-D argument vec2"),
    C("dot sizes", lambda L, x: L.dot(x[0], x[0, :3]), "inconsistent tensor size"),
    C("bmm 2d", lambda L, x: L.bmm(x, x), "batch1 must be a 3D tensor"),
    C("addmv size", lambda L, x: L.addmv(L.zeros(3), x, L.zeros(3)),
      "size mismatch, got input (3), mat (3x4), vec (3)"),
    C("addmv input size", lambda L, x: L.addmv(L.zeros(4), x, L.zeros(4)),
      "size mismatch, got input (4), mat (3x4), vec (4)"),
    C("addmv dtype", lambda L, x: L.addmv(L.zeros(3), x, L.zeros(4, dtype=L.float64)),
      "addmv input tensors must have the same dtype"),
    C("addmv rank", lambda L, x: L.addmv(L.zeros(3), x[None], L.zeros(4)),
      "vector + matrix @ vector expected"),
    C("baddbmm inner", lambda L, x: L.baddbmm(L.zeros(2, 3, 3), L.zeros(2, 3, 4),
                                              L.zeros(2, 5, 3)),
      "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5]."),
    C("baddbmm input", lambda L, x: L.baddbmm(L.zeros(2, 4, 3), L.zeros(2, 3, 4),
                                              L.zeros(2, 4, 3)),
      "The expanded size of the tensor (3) must match the existing size (4)"),
    C("baddbmm dtype", lambda L, x: L.baddbmm(L.zeros(3, 5), L.zeros(2, 3, 4),
                                              L.zeros(2, 4, 5, dtype=L.float64)),
      "expected scalar type Float but found Double"),
    C("addbmm batches", lambda L, x: L.addbmm(L.zeros(3, 5), L.zeros(2, 3, 4),
                                              L.zeros(3, 4, 5)),
      "batch1 and batch2 must have same number of batches, got 2 and 3"),
    C("cross length", lambda L, x: L.cross(x, x, dim=1),
      "linalg.cross: inputs dimension 1 must have length 3. Got 4 and 4"),
    C("cross bcast", lambda L, x: L.cross(L.zeros(2, 3), L.zeros(4, 3), dim=1),
      "The size of tensor a (2) must match the size of tensor b (4)"),
    C("cross ndim", lambda L, x: L.cross(L.zeros(2, 3), L.zeros(3), dim=-1),
      "linalg.cross: inputs must have the same number of dimensions."),
    C("einsum sizes", lambda L, x: L.einsum("ij,jk->ik", x, x),
      "einsum(): subscript j has size 3 for operand 1 which does not broadcast with previously "
      "seen size 4"),
    C("einsum too few", lambda L, x: L.einsum("ij,jk->ik", x),
      "einsum(): fewer operands were provided than specified in the equation"),
    C("einsum too many", lambda L, x: L.einsum("ij->ij", x, x),
      "einsum(): more operands were provided than specified in the equation"),
    C("einsum ndim", lambda L, x: L.einsum("i->i", x),
      "einsum(): the number of subscripts in the equation (1) does not match the number of "
      "dimensions (2) for operand 0 and no ellipsis was given"),
    C("einsum out label", lambda L, x: L.einsum("ij->k", x),
      "einsum(): output subscript k does not appear in the equation for any input operand"),
    C("einsum out twice", lambda L, x: L.einsum("ij->ii", x),
      "einsum(): output subscript i appears more than once in the output"),
    C("einsum diag sizes", lambda L, x: L.einsum("ii->i", x),
      "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 4 != 3"),
    C("addmm_ leaf", lambda L, x: x.addmm_(L.zeros(3, 2), L.zeros(2, 4)), "a leaf Variable"),
]


@pytest.mark.parametrize("fn,phrase", [pytest.param(p.values[0], p.values[1][0], id=p.id)
                                       for p in ERRORS])
def test_errors(fn, phrase, device):
    check_error(fn, [In(3, 4)], phrase, device)
