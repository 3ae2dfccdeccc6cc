"""Parity of sorting and order statistics (issue 19): ``sort argsort msort topk kthvalue median
nanmedian mode`` and ``max/min`` with a dim: values, indices, graphs, saved attributes, gradients,
second order, the named-tuple results (type name, fields, printed form), NaN handling, 0-dim and
empty inputs, and PyTorch's errors. Inputs have distinct values where PyTorch leaves the index
of ties unspecified (``kthvalue``, ``median`` with a dim, ``topk``)."""

import numpy as np
import pytest

from minigrad.parity import compare, run_both

from ._more import check_second_order
from ._opcheck import In, check_error, check_op


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


X = In(3, 5)
XT = In(5, 3, T=True)
X3 = In(2, 3, 4)
TIES = In(kind="fixed", values=[[1.0, 2.0, 2.0, 1.0, 3.0], [5.0, 5.0, 4.0, 4.0, 4.0]])
NAN = In(kind="fixed", values=[[1.0, np.nan, 0.0, 2.0], [3.0, -1.0, 0.5, 0.25]])

SEQ = In(kind="fixed", values=[1.0, 3.0, 5.0, 7.0], grad=False)
VALS = In(kind="fixed", values=[[3.0, 6.0], [9.0, 0.0]], grad=False)

SORTING = [
    C("sort", lambda L, x: x.sort(), X),
    C("sort_dim0", lambda L, x: L.sort(x, 0), X),
    C("sort_desc", lambda L, x: x.sort(dim=-1, descending=True), XT),
    C("sort_stable_ties", lambda L, x: L.sort(x, stable=True), TIES),
    C("sort_ties_desc", lambda L, x: x.sort(1, True), TIES),
    C("sort_nan", lambda L, x: x.sort(), NAN),
    C("sort_nan_desc", lambda L, x: x.sort(descending=True), NAN),
    C("sort_3d", lambda L, x: x.sort(1), X3),
    C("sort_0d", lambda L, x: x.sort(), In()),
    C("sort_empty", lambda L, x: x.sort(0), In(0, 3)),
    C("argsort", lambda L, x: x.argsort(), X),
    C("argsort_desc_ties", lambda L, x: L.argsort(x, 1, descending=True), TIES),
    C("argsort_stable", lambda L, x: x.argsort(stable=True, dim=0), TIES),
    C("msort", lambda L, x: L.msort(x), X),
    C("sort_int", lambda L, x: x.sort(), In(3, 5, kind="int", grad=False)),
    C("topk", lambda L, x: x.topk(2), X),
    C("topk_smallest", lambda L, x: L.topk(x, 3, dim=0, largest=False), XT),
    C("topk_k0", lambda L, x: x.topk(0), X),
    C("topk_all_3d", lambda L, x: x.topk(4, -1), X3),
    C("topk_0d", lambda L, x: x.topk(1), In()),
    C("kthvalue", lambda L, x: x.kthvalue(2), X),
    C("kthvalue_keepdim", lambda L, x: L.kthvalue(x, 3, 0, True), XT),
    C("kthvalue_3d", lambda L, x: x.kthvalue(1, dim=-2), X3),
    C("median", lambda L, x: x.median(), X),
    C("median_even", lambda L, x: L.median(x), In(4)),
    C("median_ties", lambda L, x: x.median(), TIES),
    C("median_nan", lambda L, x: x.median(), NAN),
    C("median_empty", lambda L, x: x.median(), In(0, 2)),
    C("median_dim", lambda L, x: x.median(1), X),
    C("median_dim_even_keepdim", lambda L, x: L.median(x, 0, keepdim=True), In(4, 3)),
    C("median_dim_nan", lambda L, x: x.median(-1), NAN),
    C("nanmedian", lambda L, x: x.nanmedian(), NAN),
    C("nanmedian_dim", lambda L, x: L.nanmedian(x, 1), NAN),
    C("mode", lambda L, x: x.mode(), TIES),
    C("mode_dim0_keepdim", lambda L, x: L.mode(x, 0, True), TIES),
    C("mode_distinct", lambda L, x: x.mode(1), X),
    C("max_dim", lambda L, x: x.max(1), X),
    C("searchsorted", lambda L, s, v: L.searchsorted(s, v), SEQ, VALS),
    C("searchsorted_right_int32", lambda L, s, v: L.searchsorted(s, v, right=True,
                                                                out_int32=True), SEQ, VALS),
    C("searchsorted_side", lambda L, s, v: L.searchsorted(s, v, side="right"), SEQ, VALS),
    C("searchsorted_batched", lambda L, s, v: L.searchsorted(s, v),
      In(kind="fixed", values=[[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]),
      In(kind="fixed", values=[[3.0, 0.0], [6.5, 4.0]], grad=False)),
    C("searchsorted_sorter", lambda L, s, v, o: L.searchsorted(s, v, sorter=o),
      In(kind="fixed", values=[5.0, 1.0, 7.0, 3.0]), VALS,
      In(kind="fixed", values=[1, 3, 0, 2], grad=False)),
    C("bucketize", lambda L, s, v: L.bucketize(v, s), SEQ, VALS),
    C("bucketize_right", lambda L, s, v: L.bucketize(v, s, right=True), SEQ, VALS),
    C("unique_consecutive", lambda L, x: L.unique_consecutive(x, return_inverse=True,
                                                              return_counts=True),
      In(kind="fixed", values=[1, 1, 2, 2, 3, 1], grad=False)),
    C("unique_consecutive_dim", lambda L, x: x.unique_consecutive(dim=0, return_counts=True),
      In(kind="fixed", values=[[1, 1], [1, 1], [2, 3]], grad=False)),
    C("unique_consecutive_plain", lambda L, x: x.unique_consecutive(),
      In(kind="fixed", values=[[0.5, 0.5], [1.0, 0.5]], grad=False)),
    C("min_dim_keepdim", lambda L, x: L.min(x, 0, keepdim=True), XT),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,specs", SORTING)
def test_sorting(fn, specs, dtype, device):
    check_op(fn, specs, dtype, device)


SECOND = [
    C("sort", lambda L, x: (x * x).sort(1).values ** 2, X),
    C("topk", lambda L, x: (x * x).topk(2).values ** 2, X),
    C("kthvalue", lambda L, x: (x * x).kthvalue(2, 0).values ** 2, X),
    C("median", lambda L, x: (x * x).median() ** 2, X),
    C("median_dim", lambda L, x: (x * x).median(1).values ** 2, X),
    C("mode", lambda L, x: (x * x).mode(1).values ** 2, TIES),
]


@pytest.mark.parametrize("fn,specs", SECOND)
def test_second_order(fn, specs, device):
    check_second_order(fn, specs, device)


@pytest.mark.parametrize("op", ["sort", "topk", "kthvalue", "median", "mode", "max", "min",
                                "nanmedian"])
def test_return_type(op):
    """The result is a tuple subclass named as PyTorch's ``torch.return_types`` one, with fields
    ``values`` / ``indices``, unpackable, indexable, and printed on one line per field."""

    def scenario(lib):
        x = lib.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
        args = {"sort": (1,), "topk": (2,), "kthvalue": (2,), "median": (1,), "mode": (1,),
                "max": (1,), "min": (1,), "nanmedian": (1,)}[op]
        r = getattr(x, op)(*args)
        values, indices = r
        text = repr(r)
        return [type(r).__name__, isinstance(r, tuple), len(r), r.n_fields,
                values is r.values and indices is r[1],
                text.split("(", 1)[0].split(".")[-1], text.count("\n"),
                text.splitlines()[1].startswith("values=tensor(")]

    a, b = run_both(scenario)
    compare(a, b)


ERRORS = [
    C("sort dim", lambda L, x: x.sort(2), "Dimension out of range"),
    C("topk k", lambda L, x: x.topk(6), "selected index k out of range"),
    C("kthvalue k", lambda L, x: x.kthvalue(6), "kthvalue(): selected number k out of range"),
    C("kthvalue 0", lambda L, x: x.kthvalue(0), "kthvalue(): selected number k out of range"),
    C("median empty dim", lambda L, x: x[:0].median(0),
      "median(): Expected reduction dim 0 to have non-zero size."),
    C("searchsorted dims", lambda L, x: L.searchsorted(x[:2, :3].sort().values, x[:, :1]),
      "boundaries tensor should be 1 dimension or the first N-1 dimensions"),
    C("bucketize 2d", lambda L, x: L.bucketize(x, x[:1]), "boundaries tensor must be 1 dimension"),
    C("mode empty dim", lambda L, x: x[:0].mode(0),
      "mode(): Expected reduction dim 0 to have non-zero size."),
]


@pytest.mark.parametrize("fn,phrase", [pytest.param(p.values[0], p.values[1][0], id=p.id)
                                       for p in ERRORS])
def test_errors(fn, phrase, device):
    check_error(fn, [X], phrase, device)
