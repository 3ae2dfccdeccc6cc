"""Parity of reductions: sum mean max min amax amin var std logsumexp argmax argmin, and
softmax / log_softmax (which reduce along a dim). Values, dtype, graph, saved attributes
(dims exactly as PyTorch exposes them, negative dims included) and gradients."""

import pytest

from ._opcheck import In, check_op


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


X = In(3, 4)
X3 = In(2, 3, 4)

REDUCTIONS = [
    C("sum_all", lambda L, x: x.sum(), X),
    C("sum_fn", lambda L, x: L.sum(x), X3),
    C("sum_dim", lambda L, x: x.sum(1), X),
    C("sum_dim0", lambda L, x: x.sum(0), X3),
    C("sum_neg_dim", lambda L, x: x.sum(-1), X3),
    C("sum_keepdim", lambda L, x: x.sum(-1, keepdim=True), X3),
    C("sum_tuple", lambda L, x: x.sum((0, 2)), X3),
    C("sum_tuple_unsorted", lambda L, x: x.sum((2, 0)), X3),
    C("sum_list_neg_keepdim", lambda L, x: x.sum([0, -1], keepdim=True), X3),
    C("sum_all_dims", lambda L, x: x.sum(dim=(0, 1)), X),
    C("sum_T", lambda L, x: x.sum(0), In(3, 4, T=True)),
    C("sum_size1", lambda L, x: x.sum(1), In(3, 1)),
    C("sum_0dim", lambda L, x: x.sum(), In()),
    C("sum_dtype", lambda L, x: x.sum(dtype=L.float64), X),
    C("sum_int", lambda L, i: [i.sum(), i.sum(0)], In(3, 4, kind="int", grad=False)),
    C("sum_bool", lambda L, b: b.sum(), In(3, 4, kind="bool", grad=False)),
    C("mean_all", lambda L, x: x.mean(), X),
    C("mean_dim", lambda L, x: x.mean(1), X),
    C("mean_neg_keepdim", lambda L, x: x.mean(-2, keepdim=True), X3),
    C("mean_tuple", lambda L, x: L.mean(x, (0, -1)), X3),
    C("mean_T", lambda L, x: x.mean(-1), In(2, 3, 4, T=True)),
    C("max_all", lambda L, x: x.max(), X),
    C("min_all", lambda L, x: L.min(x), X3),
    C("max_all_ties", lambda L, x: x.max(), In(kind="fixed", values=[[1.0, 3.0], [3.0, 0.0]])),
    C("min_all_ties", lambda L, x: x.min(), In(kind="fixed", values=[1.0, -2.0, -2.0, -2.0])),
    C("max_dim", lambda L, x: x.max(1), X),
    C("max_dim_values", lambda L, x: x.max(dim=0).values, X3),
    C("max_dim_keepdim_neg", lambda L, x: x.max(-1, keepdim=True), X3),
    C("max_fn_dim", lambda L, x: L.max(x, 1), X3),
    C("min_dim", lambda L, x: x.min(0), X),
    C("min_dim_keepdim", lambda L, x: L.min(x, -2, True), X3),
    C("max_dim_T", lambda L, x: x.max(1), In(3, 4, T=True)),
    C("max_binary", lambda L, x, y: L.max(x, y), X, In(4)),
    C("amax_all", lambda L, x: x.amax(), X),
    C("amax_dim", lambda L, x: x.amax(1), X),
    C("amax_tuple_keepdim", lambda L, x: L.amax(x, (0, -1), keepdim=True), X3),
    C("amin_neg", lambda L, x: x.amin(-1), X3),
    C("amax_ties", lambda L, x: x.amax(1), In(kind="fixed", values=[[1.0, 3.0, 3.0],
                                                                    [2.0, 2.0, 2.0]])),
    C("amin_ties_all", lambda L, x: x.amin(), In(kind="fixed", values=[[0.0, 1.0], [0.0, 0.0]])),
    C("var_all", lambda L, x: x.var(), X),
    C("var_dim", lambda L, x: x.var(1), X),
    C("var_neg_dim", lambda L, x: x.var(-1), X3),
    C("var_unbiased_false", lambda L, x: x.var(1, unbiased=False), X),
    C("var_positional_unbiased", lambda L, x: x.var(0, True), X),
    C("var_bool_only", lambda L, x: x.var(False), X),
    C("var_correction0", lambda L, x: x.var(correction=0), X),
    C("var_correction2_keepdim", lambda L, x: x.var(dim=1, correction=2, keepdim=True), X3),
    C("var_tuple", lambda L, x: L.var(x, (0, 2)), X3),
    C("std_all", lambda L, x: x.std(), X),
    C("std_dim", lambda L, x: x.std(0), X),
    C("std_unbiased_false", lambda L, x: x.std(unbiased=False), X),
    C("std_neg_tuple", lambda L, x: x.std((-1, 0)), X3),
    C("std_keepdim_correction0", lambda L, x: L.std(x, 1, keepdim=True, correction=0), X3),
    C("logsumexp", lambda L, x: x.logsumexp(1), X),
    C("logsumexp_tuple", lambda L, x: x.logsumexp((0, 1)), X),
    C("logsumexp_neg_keepdim", lambda L, x: L.logsumexp(x, -1, True), X3),
    C("logsumexp_big", lambda L, x: x.logsumexp(0), In(kind="fixed", values=[1000.0, 1000.0,
                                                                            -1000.0])),
    C("argmax", lambda L, x: [x.argmax(), x.argmax(1), x.argmax(-1, keepdim=True)], X),
    C("argmin", lambda L, x: [L.argmin(x), x.argmin(0)], X3),
    C("chain_mean_of_max", lambda L, x: x.max(1).values.mean(), X3),
    C("chain_var_sum", lambda L, x, y: (x * y).var(0).sum(), X, In(4)),
]

SOFTMAX = [
    C("softmax", lambda L, x: L.softmax(x, 1), X),
    C("softmax_neg", lambda L, x: x.softmax(-1), X3),
    C("softmax_dim0", lambda L, x: x.softmax(0), X3),
    C("softmax_T", lambda L, x: x.softmax(1), In(3, 4, T=True)),
    C("softmax_big", lambda L, x: x.softmax(0), In(kind="fixed", values=[1000.0, 0.0, -1000.0])),
    C("log_softmax", lambda L, x: L.log_softmax(x, 1), X),
    C("log_softmax_neg", lambda L, x: x.log_softmax(-1), X3),
    C("log_softmax_big", lambda L, x: x.log_softmax(0), In(kind="fixed",
                                                           values=[1000.0, 0.0, -1000.0])),
    C("softmax_then_log", lambda L, x: L.softmax(x, -1).log().sum(-1), X3),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,specs", REDUCTIONS + SOFTMAX)
def test_reduction(fn, specs, dtype, device):
    check_op(fn, specs, dtype, device)


EMPTY_REDUCTIONS = {
    "mean": lambda lib: lib.zeros(0).mean(),
    "mean_dim": lambda lib: lib.zeros(2, 0).mean(1),
    "var": lambda lib: lib.zeros(0).var(),
    "std_one": lambda lib: lib.ones(1).std(),
    "var_dim": lambda lib: lib.zeros(2, 0).var(1),
    "var_0dim": lambda lib: lib.zeros(()).var(),
    "var_ok": lambda lib: lib.ones(3, 2).var(1),
    "mse_empty": lambda lib: lib.nn.functional.mse_loss(lib.zeros(0), lib.zeros(0)),
}


@pytest.mark.parametrize("case", list(EMPTY_REDUCTIONS))
def test_empty_reduction_values_and_warnings(case):
    """Reductions with nothing (or too little) to reduce: nan, and only PyTorch's own warning
    (var/std: degrees of freedom <= 0), never NumPy's RuntimeWarnings."""
    from minigrad.parity import assert_parity, to_numpy
    from tests.parity.test_tensor_meta import warned

    def scenario(lib):
        out, categories = warned(lambda: EMPTY_REDUCTIONS[case](lib))
        return to_numpy(out), categories

    assert_parity(scenario)
