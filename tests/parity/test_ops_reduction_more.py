"""Parity of the reductions and norms of issue 19: prod (with zeros), cumsum, cumprod (with
zeros), logsumexp (dim tuples, -inf rows), logcumsumexp, var_mean/std_mean, count_nonzero,
norm / linalg.vector_norm / linalg.matrix_norm, and the functional ops built on them
(normalize, cosine_similarity, pairwise_distance) and binary cross entropy — values, dtype,
graph, saved attributes, gradients, second-order gradients and errors.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from minigrad.parity import compare, run_both

from ._opcheck import In, check_error, check_op
from .test_ops_pointwise_more import gradient_graph_scenario, second_order_scenario

DTYPES = ["float32", "float64"]
INF = float("inf")
ONE_ZERO = [[1.5, 0.0, -2.0, 0.5], [0.7, 1.2, -0.4, 2.0], [0.0, 3.0, 0.0, 1.0]]
TWO_ZEROS = [0.0, 2.0, 0.0, -1.5]
MANY_ZEROS = np.where(np.random.default_rng(2).random((4, 7)) < 0.3, 0.0,
                      np.random.default_rng(3).uniform(0.5, 1.5, (4, 7)))
NEG_INF_ROW = [[-INF, -INF, -INF], [0.5, -INF, 1.0], [1.0, 2.0, -1.0]]


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


def Z(values, **kw):
    return In(kind="fixed", values=values, **kw)


REDUCE = [
    C("prod", lambda L, x: x.prod(), In(3, 4)),
    C("prod_dim", lambda L, x: x.prod(1), In(3, 4)),
    C("prod_negdim_keep", lambda L, x: L.prod(x, -2, keepdim=True), In(2, 3, 4)),
    C("prod_T", lambda L, x: x.prod(0), In(3, 4, T=True)),
    C("prod_one_zero", lambda L, x: x.prod(), Z([1.5, 0.0, -2.0, 0.5])),
    C("prod_two_zeros", lambda L, x: x.prod(), Z(TWO_ZEROS)),
    C("prod_dim_zeros", lambda L, x: x.prod(1), Z(ONE_ZERO)),
    C("prod_dim0_zeros", lambda L, x: x.prod(0, keepdim=True), Z(ONE_ZERO)),
    C("prod_empty", lambda L, x: [x.prod(), x.prod(0)], In(0, 3)),
    C("prod_0dim", lambda L, x: [x.prod(), x.prod(0)], In()),
    C("prod_dtype", lambda L, x: x.prod(dtype=L.float64), In(3, 4)),
    C("cumsum", lambda L, x: x.cumsum(1), In(3, 4)),
    C("cumsum_negdim_T", lambda L, x: L.cumsum(x, -2), In(3, 4, T=True)),
    C("cumsum_dtype", lambda L, x: x.cumsum(0, dtype=L.float64), In(3, 4)),
    C("cumsum_size1", lambda L, x: x.cumsum(0), In(1, 4)),
    C("cumsum_empty", lambda L, x: x.cumsum(0), In(0, 3)),
    C("cumprod", lambda L, x: x.cumprod(1), In(3, 4)),
    C("cumprod_negdim", lambda L, x: L.cumprod(x, -1), In(2, 3, 4)),
    C("cumprod_zeros", lambda L, x: x.cumprod(1), Z(ONE_ZERO)),
    C("cumprod_zeros_dim0", lambda L, x: x.cumprod(0), Z(ONE_ZERO)),
    C("cumprod_two_zeros", lambda L, x: x.cumprod(0), Z(TWO_ZEROS)),
    C("cumprod_zeros_many", lambda L, x: x.cumprod(-1), Z(MANY_ZEROS)),
    C("prod_zeros_many", lambda L, x: [x.prod(-1), x.prod(0)], Z(MANY_ZEROS)),
    C("logsumexp_tuple", lambda L, x: x.logsumexp((0, -1)), In(2, 3, 4)),
    C("logsumexp_keep", lambda L, x: L.logsumexp(x, 1, keepdim=True), In(3, 4)),
    C("logsumexp_T", lambda L, x: x.logsumexp(0), In(3, 4, T=True)),
    C("logsumexp_neg_inf_row", lambda L, x: x.logsumexp(1), Z(NEG_INF_ROW)),
    C("logcumsumexp", lambda L, x: x.logcumsumexp(1), In(3, 4)),
    C("logcumsumexp_negdim_T", lambda L, x: L.logcumsumexp(x, -2), In(3, 4, T=True)),
    C("logcumsumexp_neg_inf", lambda L, x: x.logcumsumexp(1), Z(NEG_INF_ROW[1:])),
    C("logcumsumexp_size1_empty", lambda L, x, e: [x.logcumsumexp(1), e.logcumsumexp(0)],
      In(3, 1), In(0, 2)),
    C("var_mean", lambda L, x: L.var_mean(x, 1), In(3, 4)),
    C("var_mean_all", lambda L, x: L.var_mean(x), In(3, 4)),
    C("var_mean_unbiased_false", lambda L, x: L.var_mean(x, unbiased=False), In(3, 4)),
    C("var_mean_tuple_corr", lambda L, x: L.var_mean(x, (0, -1), correction=0, keepdim=True),
      In(2, 3, 4)),
    C("var_mean_only_mean_used", lambda L, x: L.var_mean(x, 0)[1] * 2, In(3, 4)),
    C("std_mean", lambda L, x: L.std_mean(x, -1), In(3, 4)),
    C("std_mean_keep_corr2", lambda L, x: L.std_mean(x, 1, keepdim=True, correction=2),
      In(3, 5)),
    C("std_mean_T", lambda L, x: L.std_mean(x, 0), In(3, 4, T=True)),
    C("count_nonzero", lambda L, x: [L.count_nonzero(x), x.count_nonzero(-1),
                                     L.count_nonzero(x, (0, 1))], Z(ONE_ZERO)),
]

NORMS = [
    C("norm", lambda L, x: x.norm(), In(3, 4)),
    C("norm_p1", lambda L, x: x.norm(1), In(3, 4)),
    C("norm_inf", lambda L, x: x.norm(INF), In(3, 4)),
    C("norm_neg_inf_dim", lambda L, x: x.norm(-INF, dim=1), In(3, 4)),
    C("norm_p0", lambda L, x: L.norm(x, 0, dim=1), Z(ONE_ZERO)),
    C("norm_p3_keep", lambda L, x: x.norm(3, dim=-1, keepdim=True), In(3, 4)),
    C("norm_p_half", lambda L, x: x.norm(0.5, dim=0), In(3, 4, kind="pos")),
    C("norm_p1_5", lambda L, x: x.norm(1.5, dim=1), In(3, 4)),
    C("norm_fro", lambda L, x: x.norm("fro"), In(3, 4)),
    C("norm_fro_dim", lambda L, x: x.norm("fro", dim=(0, 1), keepdim=True), In(2, 3, 4)),
    C("norm_dim_T", lambda L, x: x.norm(dim=0), In(3, 4, T=True)),
    C("norm_zero_vector", lambda L, x: [x.norm(dim=1), x.norm(1, dim=1)],
      Z([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]])),
    C("norm_zero_vector_inf", lambda L, x: x.norm(INF, dim=1),
      Z([[0.0, 0.0, 0.0], [1.0, -2.0, 2.0]])),
    C("norm_zero_vector_p3", lambda L, x: x.norm(3, dim=1), Z([[0.0, 0.0], [1.0, -2.0]])),
    C("norm_empty", lambda L, x: x.norm(dim=1), In(0, 3)),
    C("vector_norm", lambda L, x: L.linalg.vector_norm(x), In(3, 4)),
    C("vector_norm_ord_dim", lambda L, x: L.linalg.vector_norm(x, ord=3, dim=(-1, 0)),
      In(2, 3, 4)),
    C("vector_norm_keep_inf", lambda L, x: L.linalg.vector_norm(x, INF, -1, True), In(3, 4)),
    C("matrix_norm", lambda L, x: L.linalg.matrix_norm(x), In(2, 3, 4)),
    C("matrix_norm_dims_keep", lambda L, x: L.linalg.matrix_norm(x, "fro", (0, -1), True),
      In(2, 3, 4)),
    C("linalg_norm", lambda L, x: [L.linalg.norm(x), L.linalg.norm(x, dim=-1)], In(3, 4)),
    C("linalg_norm_ord", lambda L, x: [L.linalg.norm(x, 1), L.linalg.norm(x, INF, dim=0),
                                       L.linalg.norm(x, "fro", keepdim=True)], In(3, 4)),
    C("linalg_norm_dims", lambda L, x: [L.linalg.norm(x, dim=(0, 2)),
                                        L.linalg.norm(x, -1, dim=(1, 2))], In(2, 3, 4)),
    C("linalg_norm_1d", lambda L, x: L.linalg.norm(x, 3), In(5)),
    C("matrix_norm_1", lambda L, x: L.linalg.matrix_norm(x, 1), In(2, 3, 4)),
    C("matrix_norm_neg1_keep", lambda L, x: L.linalg.matrix_norm(x, -1, keepdim=True),
      In(2, 3, 4)),
    C("matrix_norm_inf", lambda L, x: L.linalg.matrix_norm(x, INF), In(3, 4, T=True)),
    C("matrix_norm_neg_inf_dims", lambda L, x: L.linalg.matrix_norm(x, -INF, (0, 2)),
      In(2, 3, 4)),
    C("matrix_norm_1_dims_keep", lambda L, x: L.linalg.matrix_norm(x, 1, (2, 0), True),
      In(2, 3, 4)),
]

FUNCTIONAL = [
    C("normalize", lambda L, x: L.nn.functional.normalize(x), In(3, 4)),
    C("normalize_p1_dim0", lambda L, x: L.nn.functional.normalize(x, p=1, dim=0), In(3, 4)),
    C("normalize_zero_row", lambda L, x: L.nn.functional.normalize(x, dim=-1),
      Z([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]])),
    C("normalize_T", lambda L, x: L.nn.functional.normalize(x, eps=0.5), In(3, 4, T=True)),
    C("cosine_similarity", lambda L, x, y: L.nn.functional.cosine_similarity(x, y), In(3, 4),
      In(3, 4)),
    C("cosine_similarity_bcast", lambda L, x, y: L.nn.functional.cosine_similarity(x, y, -1),
      In(3, 4), In(4)),
    C("cosine_similarity_zero", lambda L, x, y: L.nn.functional.cosine_similarity(x, y),
      Z([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]]), In(2, 3)),
    C("cosine_similarity_nograd", lambda L, x, y: L.nn.functional.cosine_similarity(x, y, 0),
      In(3, 4), In(3, 4, grad=False)),
    C("pairwise_distance", lambda L, x, y: L.nn.functional.pairwise_distance(x, y), In(3, 4),
      In(3, 4)),
    C("pairwise_distance_p1_keep",
      lambda L, x, y: L.nn.functional.pairwise_distance(x, y, p=1, keepdim=True), In(3, 4),
      In(4)),
    C("pairwise_distance_same", lambda L, x: L.nn.functional.pairwise_distance(x, x), In(3, 4)),
    C("bce_logits", lambda L, x, t: L.nn.functional.binary_cross_entropy_with_logits(x, t),
      In(3, 4), In(3, 4, kind="pos", grad=False)),
    C("bce_logits_target_grad",
      lambda L, x, t: L.nn.functional.binary_cross_entropy_with_logits(x, t.sigmoid()),
      In(3, 4), In(3, 4)),
    C("bce_logits_weights_sum",
      lambda L, x, t, w, pw: L.nn.functional.binary_cross_entropy_with_logits(
          x, t, weight=w, pos_weight=pw, reduction="sum"),
      In(3, 4), In(3, 4), In(4, kind="pos", grad=False), In(4, kind="pos", grad=False)),
    C("bce_logits_none", lambda L, x, t, pw: L.nn.functional.binary_cross_entropy_with_logits(
        x * 20, t.sigmoid(), pos_weight=pw, reduction="none"), In(3, 4), In(3, 4),
      In(3, 1, kind="pos", grad=False)),
    C("bce", lambda L, x, t: L.nn.functional.binary_cross_entropy(x.sigmoid(), t), In(3, 4),
      In(3, 4, kind="fixed", values=np.linspace(0, 1, 12).reshape(3, 4))),
    C("bce_weight_bcast_sum", lambda L, x, t, w: L.nn.functional.binary_cross_entropy(
        x.sigmoid(), t.sigmoid(), weight=w, reduction="sum"), In(3, 4), In(3, 4),
      In(4, kind="pos", grad=False)),
    C("bce_edges", lambda L, x, t: L.nn.functional.binary_cross_entropy(x, t, reduction="none"),
      Z([0.0, 1.0, 0.5, 1e-3]), Z([0.0, 1.0, 1.0, 0.0], grad=False)),
    C("bce_modules", lambda L, x, t, pw: [L.nn.BCEWithLogitsLoss(pos_weight=pw)(x, t),
                                          L.nn.BCELoss(reduction="sum")(x.sigmoid(), t)],
      In(3, 4), In(3, 4, kind="fixed", values=np.linspace(0, 1, 12).reshape(3, 4)),
      In(4, kind="pos", grad=False)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,specs", REDUCE + NORMS + FUNCTIONAL)
def test_reduction_more(fn, specs, dtype, device):
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else None
    check_op(fn, specs, dtype, device, tol=tol)


HYPO_REDUCE = {
    "prod": lambda L, x, d, k: x.prod(d, keepdim=k),
    "cumsum": lambda L, x, d, k: x.cumsum(d), "cumprod": lambda L, x, d, k: x.cumprod(d),
    "logcumsumexp": lambda L, x, d, k: x.logcumsumexp(d),
    "logsumexp": lambda L, x, d, k: x.logsumexp(d, keepdim=k),
    "norm": lambda L, x, d, k: x.norm(dim=d, keepdim=k),
    "norm1": lambda L, x, d, k: x.norm(1, dim=d, keepdim=k),
    "norm_inf": lambda L, x, d, k: L.linalg.vector_norm(x, INF, d, k),
    "norm3": lambda L, x, d, k: L.linalg.vector_norm(x, 3, d, k),
    "var_mean": lambda L, x, d, k: L.var_mean(x, d, keepdim=k, correction=0),
    "std_mean": lambda L, x, d, k: L.std_mean(x, d, keepdim=k),
    "normalize": lambda L, x, d, k: L.nn.functional.normalize(x, dim=d),
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4),
       op=st.sampled_from(sorted(HYPO_REDUCE)), data=st.data(), keepdim=st.booleans(),
       zeros=st.booleans(), seed=st.integers(0, 2**16))
def test_reduction_property(shape, op, data, keepdim, zeros, seed):
    """Random shapes, dims (negative too), keepdim and zero entries: values, graph, saved
    attributes and gradients match torch."""
    d = data.draw(st.integers(-len(shape), len(shape) - 1))
    values = np.random.default_rng(seed).standard_normal(shape)
    if zeros:
        values[np.random.default_rng(seed + 1).random(shape) < 0.3] = 0.0
    check_op(lambda L, x: HYPO_REDUCE[op](L, x, d, keepdim),
             [In(kind="fixed", values=values)], "float64", seed=seed)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
       op=st.sampled_from(["prod", "cumprod", "cumsum", "logcumsumexp", "norm", "norm3",
                           "var_mean", "normalize"]),
       data=st.data(), keepdim=st.booleans(), zeros=st.booleans(), seed=st.integers(0, 2**16))
def test_reduction_second_order_property(shape, op, data, keepdim, zeros, seed):
    """Second-order gradients (create_graph) of random reductions, zeros included."""
    d = data.draw(st.integers(-len(shape), len(shape) - 1))
    values = np.random.default_rng(seed).standard_normal(shape)
    if zeros:
        values[np.random.default_rng(seed + 1).random(shape) < 0.3] = 0.0
    fn = HYPO_REDUCE[op]

    def first(L, x):
        out = fn(L, x, d, keepdim)
        return out[0] * out[1] if isinstance(out, tuple) else out

    a, b = run_both(second_order_scenario, first, [In(kind="fixed", values=values)])
    compare(a, b, rtol=1e-8, atol=1e-10)


MIXED = [
    C("cosine_similarity_mixed", lambda L, x, y: L.nn.functional.cosine_similarity(x, y),
      In(3, 4, dtype="float32"), In(3, 4, dtype="float64")),
    C("cosine_similarity_int_float", lambda L, i, y: L.nn.functional.cosine_similarity(i, y),
      In(3, 4, kind="int", grad=False), In(3, 4, dtype="float64")),
    C("pairwise_distance_int", lambda L, i, j: L.nn.functional.pairwise_distance(i, j, p=1),
      In(3, 4, kind="int", grad=False), In(3, 4, kind="int", grad=False)),
    C("vector_norm_dtype", lambda L, x: L.linalg.vector_norm(x, dtype=L.float64),
      In(3, 4, dtype="float32")),
    C("vector_norm_dtype_p1_dim", lambda L, x: L.linalg.vector_norm(x, 1, 0, dtype=L.float64),
      In(3, 4, dtype="float32")),
    C("prod_int", lambda L, i: [i.prod(), i.prod(0), i.cumsum(0), i.cumprod(0)],
      In(4, kind="int", grad=False)),
    C("prod_bool", lambda L, b: [b.prod(), b.cumsum(0)], In(4, kind="bool", grad=False)),
    C("cumsum_int_to_float", lambda L, i: i.cumsum(0, dtype=L.float32),
      In(4, kind="int", grad=False)),
]


@pytest.mark.parametrize("fn,specs", MIXED)
def test_reduction_mixed_dtypes(fn, specs, device):
    check_op(fn, specs, "float32", device, tol=dict(rtol=1e-6, atol=1e-7))


SECOND = [
    C("prod", lambda L, x: x.prod(), In(3, 4)),
    C("prod_one_zero", lambda L, x: x.prod(), Z([1.5, 0.0, -2.0, 0.5])),
    C("prod_two_zeros", lambda L, x: x.prod(), Z(TWO_ZEROS)),
    C("prod_dim_zeros", lambda L, x: x.prod(1), Z(ONE_ZERO)),
    C("cumsum", lambda L, x: x.cumsum(1) * x, In(3, 4)),
    C("cumprod", lambda L, x: x.cumprod(1), In(3, 4)),
    C("cumprod_zeros", lambda L, x: x.cumprod(1), Z(ONE_ZERO)),
    C("logsumexp", lambda L, x: x.logsumexp((0, 1)), In(3, 4)),
    C("logcumsumexp", lambda L, x: x.logcumsumexp(0), In(3, 4)),
    C("var_mean", lambda L, x: L.var_mean(x, 1)[0] * L.var_mean(x, 1)[1], In(3, 4)),
    C("std_mean", lambda L, x: L.std_mean(x, 0)[0] + L.std_mean(x, 0)[1] ** 2, In(3, 4)),
    C("norm2", lambda L, x: x.norm(dim=1), In(3, 4)),
    C("norm1", lambda L, x: x.norm(1) * x, In(3, 4)),
    C("norm3", lambda L, x: x.norm(3, dim=0), In(3, 4)),
    C("norm_inf", lambda L, x: x.norm(INF, dim=1) * x.sum(1), In(3, 4)),
    C("normalize", lambda L, x: L.nn.functional.normalize(x), In(3, 4)),
    C("cosine_similarity", lambda L, x, y: L.nn.functional.cosine_similarity(x, y), In(3, 4),
      In(3, 4)),
    C("pairwise_distance", lambda L, x, y: L.nn.functional.pairwise_distance(x, y), In(3, 4),
      In(3, 4)),
    C("bce_logits", lambda L, x, t: L.nn.functional.binary_cross_entropy_with_logits(
        x, t.sigmoid(), reduction="none"), In(3, 4), In(3, 4)),
    C("bce_logits_pos_weight", lambda L, x, t, pw:
      L.nn.functional.binary_cross_entropy_with_logits(x, t.sigmoid(), pos_weight=pw,
                                                       reduction="none"),
      In(3, 4), In(3, 4), In(4, kind="pos", grad=False)),
    C("bce", lambda L, x, t: L.nn.functional.binary_cross_entropy(
        x.sigmoid(), t.sigmoid(), reduction="none"), In(3, 4), In(3, 4)),
    C("bce_self", lambda L, x, t: L.nn.functional.binary_cross_entropy(
        x.sigmoid(), t.sigmoid(), reduction="none"), In(3, 4), In(3, 4, grad=False)),
    C("bce_mean_weight", lambda L, x, t, w: L.nn.functional.binary_cross_entropy(
        x.sigmoid(), t.sigmoid(), weight=w) * x, In(3, 4), In(3, 4, grad=False),
      In(4, kind="pos", grad=False)),
]


@pytest.mark.parametrize("fn,specs", SECOND)
def test_second_order(fn, specs):
    a, b = run_both(second_order_scenario, fn, specs)
    compare(a, b, rtol=1e-8, atol=1e-10)


# formulas as PyTorch's term for term: the gradient's graph under create_graph is PyTorch's
# (prod with zeros and the scans use ``flip``, written here as an index, and the BCE target
# gradients ``logit``/``log_sigmoid``, which minigrad lacks: not listed)
GRADIENT_GRAPH = [p for p in SECOND if p.id in (
    "prod", "var_mean", "std_mean", "norm2", "norm1", "norm3", "norm_inf", "normalize",
    "cosine_similarity", "pairwise_distance", "bce_logits", "bce_self", "bce_mean_weight")]


@pytest.mark.parametrize("fn,specs", GRADIENT_GRAPH)
def test_gradient_graph(fn, specs):
    a, b = run_both(gradient_graph_scenario, fn, specs)
    compare(a, b)


ERRORS = [
    ("prod_dim_range", lambda L, x: x.prod(2), [In(3, 4)], "Dimension out of range"),
    ("cumsum_dim_range", lambda L, x: x.cumsum(-3), [In(3, 4)], "Dimension out of range"),
    ("cumsum_no_dim", lambda L, x: x.cumsum(), [In(3, 4)], "missing"),
    ("logcumsumexp_int", lambda L, i: i.logcumsumexp(0), [In(3, kind="int", grad=False)],
     "not implemented for 'Long'"),
    ("var_mean_int", lambda L, i: L.var_mean(i), [In(3, kind="int", grad=False)],
     "floating point"),
    ("norm_int", lambda L, i: L.linalg.vector_norm(i), [In(3, kind="int", grad=False)],
     "Expected a floating point or complex tensor as input"),
    ("vector_norm_narrowing", lambda L, x: L.linalg.vector_norm(x, dtype=L.float32),
     [In(3, dtype="float64")], "should be convertible without narrowing"),
    ("vector_norm_inf_empty", lambda L, x: L.linalg.vector_norm(x, INF), [In(0)],
     "does not have an identity"),
    ("linalg_norm_3d_ord", lambda L, x: L.linalg.norm(x, 2), [In(2, 3, 4)],
     "If dim is not specified but ord is, the input must be 1D or 2D"),
    ("norm_dim_range", lambda L, x: x.norm(dim=2), [In(3, 4)], "Dimension out of range"),
    ("norm_repeated_dim", lambda L, x: L.linalg.vector_norm(x, dim=(1, -1)), [In(3, 4)],
     "appears multiple times"),
    ("count_nonzero_dim_range", lambda L, x: L.count_nonzero(x, 3), [In(3, 4)],
     "Dimension out of range"),
    ("logcumsumexp_dim_range", lambda L, x: x.logcumsumexp(2), [In(3, 4)],
     "Dimension out of range"),
    ("var_mean_repeated_dim", lambda L, x: L.var_mean(x, (0, 0)), [In(3, 4)],
     "appears multiple times"),
    ("prod_0dim_dim_range", lambda L, x: x.prod(1), [In()], "Dimension out of range"),
    ("cosine_similarity_shapes", lambda L, x, y: L.nn.functional.cosine_similarity(x, y),
     [In(3, 4), In(3, 5)], "must match the size"),
    ("cosine_similarity_int", lambda L, i: L.nn.functional.cosine_similarity(i, i),
     [In(2, 3, kind="int", grad=False)], "expected common dtype to be floating point"),
    ("normalize_dim_range", lambda L, x: L.nn.functional.normalize(x, dim=2), [In(3, 4)],
     "Dimension out of range"),
    ("matrix_norm_1d", lambda L, x: L.linalg.matrix_norm(x), [In(3)], "at least 2"),
    ("prod_tuple", lambda L, x: x.prod((0, 1)), [In(3, 4)],
     "prod() received an invalid combination of arguments - got (tuple)"),
    ("std_mean_int", lambda L, i: L.std_mean(i), [In(3, kind="int", grad=False)],
     "std_mean only support floating point and complex dtypes"),
    ("bce_logits_size", lambda L, x, t: L.nn.functional.binary_cross_entropy_with_logits(x, t),
     [In(3, 4), In(4, grad=False)], "must be the same as input size"),
    ("bce_logits_weight_grad", lambda L, x, t, w:
     L.nn.functional.binary_cross_entropy_with_logits(x, t, weight=w),
     [In(3, 4), In(3, 4, grad=False), In(4)], "not differentiable with respect to argument"),
    ("bce_size", lambda L, x, t: L.nn.functional.binary_cross_entropy(x.sigmoid(), t),
     [In(3, 4), In(4, grad=False)], "that is different to the input size"),
    ("bce_range", lambda L, x, t: L.nn.functional.binary_cross_entropy(x * 3, t),
     [In(3, 4), In(3, 4, grad=False)], "between 0 and 1"),
    ("bce_reduction", lambda L, x, t: L.nn.functional.binary_cross_entropy_with_logits(
        x, t, reduction="avg"), [In(3), In(3, grad=False)], "is not a valid value for reduction"),
]


@pytest.mark.parametrize("fn,specs,phrase", [pytest.param(*e[1:], id=e[0]) for e in ERRORS])
def test_errors(fn, specs, phrase):
    check_error(fn, specs, phrase)


def test_var_mean_degrees_of_freedom_warning(libs):
    """``var_mean``/``std_mean`` with no degrees of freedom warn (UserWarning, PyTorch's
    text) and return NaN."""
    for lib in libs:
        for fn in (lib.var_mean, lib.std_mean):
            with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
                v, m = fn(lib.ones(1, 3), 0)
            assert np.isnan(v.numpy()).all() and (m.numpy() == 1).all()


def test_bce_modules_state(libs):
    """``BCEWithLogitsLoss`` keeps ``weight``/``pos_weight`` as buffers (None when not given);
    ``BCELoss`` keeps ``weight``; both in the state dict as PyTorch's."""
    out = []
    for lib in libs:
        m1 = lib.nn.BCEWithLogitsLoss(pos_weight=lib.ones(3))
        m2 = lib.nn.BCELoss(weight=lib.ones(3))
        out.append((sorted(m1.state_dict()), sorted(m2.state_dict()), m1.weight, m1.reduction,
                    repr(m2)))
    assert out[0] == out[1]
