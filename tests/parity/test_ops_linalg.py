"""Parity of matrix products: ``@``/``matmul`` in every 1-D / 2-D / batched / broadcast-batched
combination, plus ``mm addmm bmm dot mv``. PyTorch's ``matmul`` picks a different graph
depending on the ranks, on which operands require grad and on their memory layout (it folds
batch dims into ``mm``/``mv`` when that avoids a copy or a large backward buffer), so each
combination is checked with both operands requiring grad, each one alone, and transposed
(non-contiguous) operands."""

import pytest

from ._opcheck import In, check_op

MATMUL_SHAPES = [
    ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)),
    ((2, 3, 4), (4,)), ((4,), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
    ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (1, 4, 5)), ((1, 3, 4), (2, 4, 5)),
    ((1, 3, 4), (1, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((2, 2, 3, 4), (4,)),
    ((4,), (2, 2, 4, 5)), ((1, 3, 4), (4, 5)), ((3, 4), (1, 4, 5)), ((1, 4), (2, 4, 5)),
    ((2, 3, 4), (2, 4, 1)), ((1, 1, 3, 4), (2, 4, 5)), ((2, 3, 4), (1, 1, 4, 5)),
    ((2, 2, 3, 4), (1, 4, 5)), ((3, 2, 3, 4), (2, 4, 5)), ((2, 3, 4), (2, 2, 1, 4, 5)),
]
GRADS = [(True, True), (True, False), (False, True)]


def _specs(sa, sb, ga, gb, ta=False, tb=False):
    return [In(*sa, grad=ga, T=ta and len(sa) > 1), In(*sb, grad=gb, T=tb and len(sb) > 1)]


def _id(sa, sb, *rest):
    flags = {(True, False): "-a_only", (False, True): "-b_only"}.get(rest[:2], "")
    flags += "-aT" if len(rest) > 2 and rest[2] else ""
    flags += "-bT" if len(rest) > 3 and rest[3] else ""
    return f"{'x'.join(map(str, sa))}@{'x'.join(map(str, sb))}{flags}"


MATMUL_CASES = [(sa, sb, ga, gb) for sa, sb in MATMUL_SHAPES for ga, gb in GRADS]
MATMUL_CASES += [(sa, sb, True, True, ta, tb) for sa, sb in MATMUL_SHAPES
                 for ta, tb in [(True, False), (False, True)]]
MATMUL_CASES += [((4,), (2, 4, 5), False, True, False, True),
                 ((2, 3, 4), (4,), False, True, True, False),
                 ((2, 3, 4), (4, 5), False, True, True, False),
                 ((3, 4), (2, 4, 5), False, True, False, True),
                 ((2, 3, 4), (1, 4, 5), True, False, True, False)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", MATMUL_CASES, ids=[_id(*c) for c in MATMUL_CASES])
def test_matmul(case, dtype, device):
    check_op(lambda L, a, b: a @ b, _specs(*case), dtype, device)


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


PRODUCTS = [
    C("matmul_fn", lambda L, a, b: L.matmul(a, b), In(2, 3, 4), In(4, 5)),
    C("matmul_method", lambda L, a, b: a.matmul(b), In(3, 4), In(4)),
    C("mm", lambda L, a, b: L.mm(a, b), In(3, 4), In(4, 5)),
    C("mm_method_T", lambda L, a, b: a.mm(b), In(3, 4, T=True), In(4, 5, T=True)),
    C("mm_a_only", lambda L, a, b: L.mm(a, b), In(3, 4), In(4, 5, grad=False)),
    C("mm_b_only", lambda L, a, b: L.mm(a, b), In(3, 4, grad=False), In(4, 5)),
    C("mm_of_t", lambda L, a, b: L.mm(a, b.t()), In(3, 4), In(5, 4)),
    C("addmm", lambda L, c, a, b: L.addmm(c, a, b), In(5), In(3, 4), In(4, 5)),
    C("addmm_full_bias", lambda L, c, a, b: L.addmm(c, a, b), In(3, 5), In(3, 4), In(4, 5)),
    C("addmm_beta_alpha", lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2.0), In(3, 1),
      In(3, 4), In(4, 5)),
    C("addmm_int_beta_alpha", lambda L, c, a, b: c.addmm(a, b, beta=2, alpha=3), In(5),
      In(3, 4), In(4, 5)),
    C("addmm_beta0", lambda L, c, a, b: L.addmm(c, a, b, beta=0), In(5), In(3, 4), In(4, 5)),
    C("addmm_no_bias_grad", lambda L, c, a, b: L.addmm(c, a, b), In(5, grad=False), In(3, 4),
      In(4, 5)),
    C("addmm_bias_only", lambda L, c, a, b: L.addmm(c, a, b), In(5), In(3, 4, grad=False),
      In(4, 5, grad=False)),
    C("addmm_linear_like", lambda L, c, x, w: L.addmm(c, x, w.t()), In(5), In(3, 4),
      In(5, 4)),
    C("addmm_x_nograd", lambda L, c, x, w: L.addmm(c, x, w.t()), In(5), In(3, 4, grad=False),
      In(5, 4)),
    C("bmm", lambda L, a, b: L.bmm(a, b), In(2, 3, 4), In(2, 4, 5)),
    C("bmm_method_T", lambda L, a, b: a.bmm(b), In(2, 3, 4, T=True), In(2, 4, 5)),
    C("bmm_b_only", lambda L, a, b: L.bmm(a, b), In(2, 3, 4, grad=False), In(2, 4, 5)),
    C("dot", lambda L, a, b: L.dot(a, b), In(4), In(4)),
    C("dot_method_a_only", lambda L, a, b: a.dot(b), In(4), In(4, grad=False)),
    C("mv", lambda L, a, b: L.mv(a, b), In(3, 4), In(4)),
    C("mv_method_T", lambda L, a, b: a.mv(b), In(3, 4, T=True), In(4)),
    C("mv_b_only", lambda L, a, b: L.mv(a, b), In(3, 4, grad=False), In(4)),
    C("matmul_chain", lambda L, a, b, c: ((a @ b).relu() @ c).sum(-1), In(2, 3, 4), In(4, 5),
      In(5)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,specs", PRODUCTS)
def test_products(fn, specs, dtype, device):
    check_op(fn, specs, dtype, device)
