"""Parity of the dim / mask indexing ops of issue 19: ``gather scatter scatter_add
scatter_reduce index_select index_add index_copy index_fill masked_select masked_scatter take``
(values, graph, saved attributes, gradients, second order), their in-place variants
(``_version``, history, leaf error), ``fill_diagonal_``, the forward-only ``nonzero argwhere
unique``, and PyTorch's errors (out-of-range index, index dtype, shapes)."""

import warnings

import numpy as np
import pytest

from minigrad.parity import compare, graph_trace, run_both, to_numpy

from ._more import check_inplace, check_second_order
from ._opcheck import In, check_error, check_op


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


def F(values, dtype=None):
    return In(kind="fixed", values=values, grad=False, dtype=dtype)


X = In(3, 4)
XT = In(3, 4, T=True)
I2 = F([[0, 1, 2, 0], [2, 1, 0, 0]])
I2N = F([[0, 2], [1, 1], [3, 0]])  # dim 1 of a 3x4 input
V = F([2, 0])
MASK = F([[True, False, True, False], [False, False, True, True], [True, True, False, False]])

GATHER = [
    C("gather", lambda L, x, i: x.gather(0, i), X, I2),
    C("gather_dim1", lambda L, x, i: L.gather(x, 1, i), X, I2N),
    C("gather_neg_dim", lambda L, x, i: x.gather(-1, i), X, I2N),
    C("gather_T", lambda L, x, i: x.gather(0, i), XT, I2),
    C("gather_int32", lambda L, x, i: x.gather(1, i), X, F([[1], [0], [3]], "int32")),
    C("gather_empty", lambda L, x, i: x.gather(1, i), X, F(np.zeros((3, 0), np.int64))),
    C("gather_3d", lambda L, x, i: x.gather(1, i), In(2, 3, 2), F([[[0, 1]], [[2, 2]]])),
    C("take_along_dim", lambda L, x, i: x.take_along_dim(i, 1), X, F([[0], [2], [1]])),
    C("take_along_dim_bcast", lambda L, x, i: L.take_along_dim(x, i, dim=0), In(3, 1),
      F([[0, 1, 2, 0]])),
    C("take_along_dim_flat", lambda L, x, i: L.take_along_dim(x, i), X, F([0, 5, 5])),
    C("gather_0d", lambda L, x, i: x.gather(0, i), In(), F(0)),
    C("scatter_0d", lambda L, x, i, s: x.scatter(0, i, s), In(), F(0), In()),
    C("index_select_0d", lambda L, x, i: x.index_select(0, i), In(), F([0])),
    C("take_0d", lambda L, x, i: x.take(i), In(), F([0, 0])),
    C("scatter", lambda L, x, i, s: x.scatter(0, i, s), X, I2, In(2, 4)),
    C("scatter_small_index", lambda L, x, i, s: x.scatter(1, i, s), X, F([[3], [0], [1]]),
      In(3, 1)),
    C("scatter_larger_src_nograd", lambda L, x, i, s: x.scatter(1, i, s), X,
      F([[3], [0], [1]]), In(3, 2, grad=False)),
    C("scatter_value", lambda L, x, i: x.scatter(0, i, 2.5), X, I2),
    C("scatter_value_kw", lambda L, x, i: L.scatter(x, 1, i, value=-1.0), X, I2N),
    C("scatter_nograd_src", lambda L, x, i, s: x.scatter(0, i, s), X, I2, In(2, 4, grad=False)),
    C("scatter_add", lambda L, x, i, s: x.scatter_add(0, i, s), X, I2, In(2, 4)),
    C("scatter_add_fn", lambda L, x, i, s: L.scatter_add(x, -1, i, s), X, I2N, In(3, 2)),
    C("scatter_add_T", lambda L, x, i, s: x.scatter_add(0, i, s), XT, I2, In(2, 4, T=True)),
    C("scatter_reduce_sum", lambda L, x, i, s: x.scatter_reduce(0, i, s, "sum"), X, I2,
      In(2, 4)),
    C("scatter_reduce_sum_excl", lambda L, x, i, s: x.scatter_reduce(0, i, s, "sum",
                                                                     include_self=False),
      X, I2, In(2, 4)),
    C("scatter_reduce_amax", lambda L, x, i, s: L.scatter_reduce(x, 0, i, s, "amax"), X, I2,
      In(2, 4)),
    C("scatter_reduce_amax_excl", lambda L, x, i, s: x.scatter_reduce(0, i, s, "amax",
                                                                      include_self=False),
      X, I2, In(2, 4)),
    C("scatter_reduce_amin", lambda L, x, i, s: x.scatter_reduce(1, i, s, "amin"), X, I2N,
      In(3, 2)),
    C("scatter_reduce_mean", lambda L, x, i, s: x.scatter_reduce(0, i, s, "mean"), X, I2,
      In(2, 4)),
    C("scatter_reduce_prod", lambda L, x, i, s: x.scatter_reduce(0, i, s, "prod"), In(3, 4),
      I2, In(2, 4)),
    C("scatter_reduce_prod_excl", lambda L, x, i, s: x.scatter_reduce(1, i, s, "prod",
                                                                      include_self=False),
      X, I2N, In(3, 2)),
    C("scatter_reduce_prod_zeros", lambda L, x, i, s: x.scatter_reduce(0, i, s, "prod"),
      In(kind="fixed", values=[[1.0, 2.0], [3.0, 0.0], [4.0, 0.0]]), F([[1, 1], [1, 2]]),
      In(kind="fixed", values=[[0.0, 5.0], [2.0, 0.0]])),
    C("scatter_reduce_prod_zeros_excl", lambda L, x, i, s: x.scatter_reduce(
        0, i, s, "prod", include_self=False),
      In(kind="fixed", values=[[1.0, 2.0], [3.0, 0.0], [4.0, 0.0]]), F([[1, 1], [1, 2]]),
      In(kind="fixed", values=[[0.0, 5.0], [0.0, 0.0]])),
    C("scatter_reduce_mean_excl", lambda L, x, i, s: x.scatter_reduce(0, i, s, "mean",
                                                                      include_self=False),
      X, I2, In(2, 4)),
    C("scatter_reduce_amax_ties", lambda L, x, i, s: x.scatter_reduce(0, i, s, "amax"),
      In(kind="fixed", values=np.ones((3, 4))), I2, In(kind="fixed", values=np.ones((2, 4)))),
]

INDEX = [
    C("index_select", lambda L, x, i: x.index_select(1, i), X, V),
    C("index_select_fn_dim0", lambda L, x, i: L.index_select(x, 0, i), X, F([2, 2, 0, 1])),
    C("index_select_neg_dim", lambda L, x, i: x.index_select(-1, i), XT, F([3, 0])),
    C("index_select_int32", lambda L, x, i: x.index_select(0, i), X, F([1], "int32")),
    C("index_select_0d_index", lambda L, x, i: x.index_select(0, i), X, F(2)),
    C("index_select_empty", lambda L, x, i: x.index_select(0, i), X, F(np.zeros(0, np.int64))),
    C("index_add", lambda L, x, i, s: x.index_add(1, i, s), X, V, In(3, 2)),
    C("index_add_alpha", lambda L, x, i, s: L.index_add(x, 0, i, s, alpha=2.5), X,
      F([2, 0, 2]), In(3, 4)),
    C("index_add_T", lambda L, x, i, s: x.index_add(0, i, s), XT, F([1]), In(1, 4)),
    C("index_copy", lambda L, x, i, s: x.index_copy(1, i, s), X, V, In(3, 2)),
    C("index_copy_fn", lambda L, x, i, s: L.index_copy(x, 0, i, s), X, F([2]), In(1, 4)),
    C("index_fill", lambda L, x, i: x.index_fill(1, i, 3.0), X, V),
    C("index_fill_neg", lambda L, x, i: L.index_fill(x, -2, i, -1.5), X, F([-1])),
    C("index_fill_tensor", lambda L, x, i, v: x.index_fill(1, i, v), X, V, In()),
    C("masked_select", lambda L, x, m: x.masked_select(m), X, MASK),
    C("masked_select_bcast_mask", lambda L, x, m: L.masked_select(x, m), X,
      F([True, False, True, True])),
    C("masked_select_bcast_self", lambda L, x, m: x.masked_select(m), In(4), MASK),
    C("masked_select_T", lambda L, x, m: x.masked_select(m), XT, MASK),
    C("masked_scatter", lambda L, x, m, s: x.masked_scatter(m, s), X, MASK, In(12)),
    C("masked_scatter_short", lambda L, x, m, s: L.masked_scatter(x, m, s), X, MASK, In(2, 3)),
    C("masked_scatter_bcast", lambda L, x, m, s: x.masked_scatter(m, s), X,
      F([True, False, False, True]), In(3, 3)),
    C("take", lambda L, x, i: x.take(i), X, F([0, 5, 11, 5])),
    C("put", lambda L, x, i, s: x.put(i, s), X, F([0, 5, -1]), In(3)),
    C("put_accumulate", lambda L, x, i, s: L.put(x, i, s, accumulate=True), XT, F([[0, 5], [5, 0]]),
      In(2, 2)),
    C("index_put", lambda L, x, i, j, v: x.index_put((i, j), v), X, F([0, 2]), F([1, 3]),
      In(2)),
    C("index_put_accumulate", lambda L, x, i, v: L.index_put(x, (i,), v, accumulate=True), X,
      F([0, 2, 0]), In(3, 4)),
    C("index_put_bcast_mask", lambda L, x, m, v: x.index_put((m,), v), X, MASK, In(1)),
    C("index_put_two_dims_acc", lambda L, x, i, j, v: x.index_put((i, j), v, True), X,
      F([1, 1]), F([0, 0]), In(1)),
    C("take_2d_neg", lambda L, x, i: L.take(x, i), XT, F([[-1, 0], [3, 3]])),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,specs", GATHER + INDEX)
def test_indexing_op(fn, specs, dtype, device):
    check_op(fn, specs, dtype, device)


SECOND = [
    C("put", lambda L, x, i, s: (x * x).put(i, s * s) ** 2, X, F([0, 5]), In(2)),
    C("index_put", lambda L, x, i, v: (x * x).index_put((i,), v * v, True) ** 2, X, F([0, 0]),
      In(4)),
    C("gather", lambda L, x, i: x.gather(0, i) ** 2, X, I2),
    C("scatter", lambda L, x, i, s: x.scatter(0, i, s * s) ** 2, X, I2, In(2, 4)),
    C("scatter_add", lambda L, x, i, s: (x * x).scatter_add(0, i, s * x[:2]) ** 2, X, I2,
      In(2, 4)),
    C("scatter_reduce_sum", lambda L, x, i, s: x.scatter_reduce(0, i, s * s, "sum") ** 2, X,
      I2, In(2, 4)),
    C("scatter_reduce_amax", lambda L, x, i, s: x.scatter_reduce(0, i, s * s, "amax") ** 2, X,
      I2, In(2, 4)),
    C("scatter_reduce_prod", lambda L, x, i, s: x.scatter_reduce(0, i, s, "prod") ** 2, X, I2,
      In(2, 4)),
    C("scatter_reduce_mean", lambda L, x, i, s: x.scatter_reduce(0, i, s * x[:2], "mean") ** 2,
      X, I2, In(2, 4)),
    C("take_along_dim", lambda L, x, i: x.take_along_dim(i, 1) ** 3, X, F([[0], [2], [1]])),
    C("index_select", lambda L, x, i: x.index_select(1, i) ** 3, X, V),
    C("index_add", lambda L, x, i, s: (x * x).index_add(1, i, s * s, alpha=2) ** 2, X, V,
      In(3, 2)),
    C("index_copy", lambda L, x, i, s: (x * x).index_copy(1, i, s ** 3) ** 2, X, V, In(3, 2)),
    C("index_fill", lambda L, x, i, v: (x * x).index_fill(1, i, v * v) ** 2, X, V, In()),
    C("masked_select", lambda L, x, m: x.masked_select(m) ** 3, X, MASK),
    C("masked_scatter", lambda L, x, m, s: (x * x).masked_scatter(m, s * s) ** 2, X, MASK,
      In(12)),
    C("take", lambda L, x, i: x.take(i) ** 3, X, F([0, 5, 11, 5])),
]


@pytest.mark.parametrize("fn,specs", SECOND)
def test_second_order(fn, specs, device):
    check_second_order(fn, specs, device)


INPLACE = [
    C("scatter_", lambda L, h, i, s: h.scatter_(0, i, s), X, I2, In(2, 4)),
    C("scatter_value_", lambda L, h, i: h.scatter_(1, i, 0.5), X, I2N),
    C("scatter_add_", lambda L, h, i, s: h.scatter_add_(0, i, s), X, I2, In(2, 4)),
    C("scatter_reduce_", lambda L, h, i, s: h.scatter_reduce_(0, i, s, "amax"), X, I2,
      In(2, 4)),
    C("index_add_", lambda L, h, i, s: h.index_add_(1, i, s, alpha=-2), X, V, In(3, 2)),
    C("index_copy_", lambda L, h, i, s: h.index_copy_(1, i, s), X, V, In(3, 2)),
    C("index_fill_", lambda L, h, i: h.index_fill_(1, i, 7.0), X, V),
    C("index_fill_tensor_", lambda L, h, i, v: h.index_fill_(0, i, v), X, F([1]), In()),
    C("masked_scatter_", lambda L, h, m, s: h.masked_scatter_(m, s), X, MASK, In(12)),
    C("masked_fill_", lambda L, h, m: h.masked_fill_(m, 0.25), X, MASK),
    C("index_put_", lambda L, h, i, v: h.index_put_((i,), v), X, F([2, 0]), In(4)),
    C("put_", lambda L, h, i, s: h.put_(i, s, accumulate=True), X, F([1, 1, 7]), In(3)),
    C("index_put_accumulate_", lambda L, h, i, v: h.index_put_((i,), v, accumulate=True), X,
      F([2, 2]), In(2, 4)),
    C("fill_diagonal_", lambda L, h: h.fill_diagonal_(5.0), X),
    C("fill_diagonal_tall", lambda L, h: h.fill_diagonal_(5.0), In(5, 2)),
    C("fill_diagonal_wrap", lambda L, h: h.fill_diagonal_(-1.0, wrap=True), In(7, 3)),
    C("fill_diagonal_3d", lambda L, h: h.fill_diagonal_(2.0), In(3, 3, 3)),
]


@pytest.mark.parametrize("fn,specs", INPLACE)
def test_inplace(fn, specs, device):
    check_inplace(fn, specs, device)


def test_inplace_through_view(device):
    """``scatter_add_`` on a row view of a non-leaf: the base's history is CopySlices, the
    version is shared, and the gradient flows to the leaf and the source."""

    def scenario(lib, device):
        rng = np.random.default_rng(0)
        x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True, device=device)
        s = lib.tensor(rng.standard_normal((1, 2)), requires_grad=True, device=device)
        base = x * 1
        row = base[1:2]
        row.scatter_add_(1, lib.tensor([[3, 3]], device=device), s)
        out = (base ** 2).sum()
        out.backward()
        return [base._version, row._version, base.grad_fn.name(), row.grad_fn.name(),
                to_numpy(base), to_numpy(x.grad), to_numpy(s.grad)]

    a, b = run_both(scenario, device=device)
    compare(a, b, rtol=1e-10, atol=1e-12)


LAYOUT = [  # (a transposed 3x4 input: strides (1, 3))
    C("scatter", lambda L, x, i, s: x.scatter(0, i, s), I2, In(2, 4)),
    C("scatter_value", lambda L, x, i, s: x.scatter(0, i, 2.5), I2, In(2, 4)),
    C("scatter_legacy_reduce", lambda L, x, i, s: x.scatter(0, i, s, reduce="add"), I2,
      In(2, 4)),
    C("scatter_add", lambda L, x, i, s: x.scatter_add(0, i, s), I2, In(2, 4)),
    C("scatter_reduce", lambda L, x, i, s: x.scatter_reduce(0, i, s, "amax"), I2, In(2, 4)),
    C("index_add", lambda L, x, i, s: x.index_add(0, i, s), V, In(2, 4)),
    C("index_copy", lambda L, x, i, s: x.index_copy(0, i, s), V, In(2, 4)),
    C("index_fill", lambda L, x, i, s: x.index_fill(0, i, 1.0), V, In(2, 4)),
    C("masked_scatter", lambda L, x, m, s: x.masked_scatter(m, s), MASK, In(12)),
]


@pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")
@pytest.mark.parametrize("fn,specs", LAYOUT)
def test_result_layout(fn, specs, device):
    """The strides of the result for a transposed input: PyTorch's structured kernels
    (scatter, scatter_add, scatter_reduce, index_add, index_copy, masked_scatter) allocate a
    contiguous result; index_fill clones the input, keeping its strides."""
    index, src = specs

    def scenario(lib, device):
        x = lib.tensor(np.arange(12.0).reshape(4, 3), device=device).t()
        i = lib.tensor(np.asarray(index.values), device=device)
        s = lib.tensor(np.ones(src.shape), device=device)
        out = fn(lib, x, i, s)
        return [out.stride(), out.is_contiguous(), to_numpy(out)]

    a, b = run_both(scenario, device=device)
    compare(a, b, rtol=1e-12, atol=1e-12)


FORWARD_ONLY = [
    C("scatter_reduce_add", lambda L, x, i: x.scatter(0, i, 2.0, reduce="add"),
      In(3, 4, grad=False), I2),
    C("scatter_reduce_multiply_src", lambda L, x, i, s: x.scatter(0, i, s, reduce="multiply"),
      In(3, 4, grad=False), I2, In(2, 4, grad=False)),
    C("nonzero", lambda L, x: x.nonzero(), F([[1, 0, 2], [0, 0, 3]])),
    C("nonzero_fn_float", lambda L, x: L.nonzero(x), F([[0.5, 0.0], [0.0, -1.0]])),
    C("nonzero_tuple", lambda L, x: L.nonzero(x, as_tuple=True), F([[1, 0, 2], [0, 0, 3]])),
    C("nonzero_0d", lambda L, x: x.nonzero(), F(3)),
    C("nonzero_0d_tuple", lambda L, x: x.nonzero(as_tuple=True), F(3)),
    C("nonzero_empty", lambda L, x: x.nonzero(), F(np.zeros((0, 2)))),
    C("nonzero_bool", lambda L, x: x.nonzero(), MASK),
    C("argwhere", lambda L, x: L.argwhere(x), F([[1, 0, 2], [0, 0, 3]])),
    C("unique", lambda L, x: x.unique(), F([3, 1, 3, 2, 1])),
    C("unique_all", lambda L, x: L.unique(x, return_inverse=True, return_counts=True),
      F([[3, 1], [3, 2]])),
    C("unique_counts", lambda L, x: L.unique(x, return_counts=True), F([0.5, -1.0, 0.5])),
    C("unique_dim", lambda L, x: x.unique(dim=0, return_inverse=True, return_counts=True),
      F([[1, 2], [1, 2], [0, 5]])),
    C("unique_dim1", lambda L, x: L.unique(x, dim=1), F([[1, 1, 0], [2, 2, 5]])),
    C("unique_unsorted", lambda L, x: L.unique(x, sorted=False, return_inverse=True),
      F([3, 1, 3, 2, 0])),
    C("unique_empty", lambda L, x: x.unique(return_counts=True), F(np.zeros(0))),
]


@pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")
@pytest.mark.parametrize("fn,specs", FORWARD_ONLY)
def test_forward_only(fn, specs, device):
    check_op(fn, specs, "float64", device)


ERRORS = [
    C("gather oob", lambda L, x: x.gather(0, L.tensor([[5, 0, 0, 0]])), "index 5 is out of bounds"),
    C("gather neg", lambda L, x: x.gather(0, L.tensor([[-1, 0, 0, 0]])), "out of bounds"),
    C("gather float index", lambda L, x: x.gather(0, L.tensor([[1.0]])),
      "Expected dtype int32/int64 for index"),
    C("gather ndim", lambda L, x: x.gather(0, L.tensor([0, 1])), "same number of dimensions"),
    C("gather size", lambda L, x: x.gather(0, L.zeros(2, 5, dtype=L.int64)), "no larger than"),
    C("scatter dtype", lambda L, x: x.scatter(0, L.tensor([[0]]), L.ones(1, 1, dtype=L.float64)),
      "Expected self.dtype to be equal to src.dtype"),
    C("scatter oob", lambda L, x: x.scatter(0, L.tensor([[3]]), 1.0), "out of bounds"),
    C("scatter src small", lambda L, x: x.scatter(0, L.zeros(2, 4, dtype=L.int64), L.ones(1, 4)),
      "no larger size than src"),
    C("scatter_add oob", lambda L, x: x.scatter_add(1, L.tensor([[4]]), L.ones(1, 1)),
      "out of bounds"),
    C("scatter legacy reduce", lambda L, x: x.detach().scatter(0, L.tensor([[0]]), 1.0,
                                                                 reduce="sum"),
      "reduce argument must be either add or multiply."),
    C("scatter_reduce bad", lambda L, x: x.scatter_reduce(0, L.tensor([[0]]), L.ones(1, 1), "x"),
      "reduce argument must be either sum, prod, mean, amax or amin"),
    C("index_select oob", lambda L, x: x.index_select(0, L.tensor([3])),
      "index out of range in self"),
    C("index_select float", lambda L, x: x.index_select(0, L.tensor([1.0])),
      "Expected dtype int32 or int64 for index"),
    C("index_select negative index", lambda L, x: x.index_select(-1, L.tensor([-1])),
      "INDICES element is out of DATA bounds, id=-1 axis_dim=4"),
    C("index_select 2d", lambda L, x: x.index_select(0, L.tensor([[1]])),
      "Index is supposed to be a vector"),
    C("index_add oob", lambda L, x: x.index_add(0, L.tensor([3]), L.ones(1, 4)),
      "index 3 is out of bounds for dimension 0 with size 3"),
    C("index_add count", lambda L, x: x.index_add(0, L.tensor([1]), L.ones(2, 4)),
      "Number of indices (1) should be equal to source.size(dim)"),
    C("index_add dtype", lambda L, x: x.index_add(0, L.tensor([1]), L.ones(1, 4, dtype=L.float64)),
      "must have the same scalar type"),
    C("index_copy oob", lambda L, x: x.index_copy(0, L.tensor([3]), L.ones(1, 4)),
      "index 3 is out of bounds"),
    C("index_copy int32", lambda L, x: x.index_copy(0, L.tensor([1], dtype=L.int32), L.ones(1, 4)),
      "Expected a long tensor for index, but got Int"),
    C("index_fill int32", lambda L, x: x.index_fill(0, L.tensor([1], dtype=L.int32), 1.0),
      "Expected dtype int64 for index"),
    C("index_fill oob", lambda L, x: x.index_fill(1, L.tensor([4]), 1.0), "out of bounds"),
    C("masked_select float mask", lambda L, x: x.masked_select(L.ones(3, 4)),
      "expected BoolTensor for mask"),
    C("masked_select shape", lambda L, x: x.masked_select(L.ones(2, 4, dtype=L.bool)),
      "must match the size of tensor b"),
    C("masked_scatter small", lambda L, x: x.masked_scatter(L.ones(3, 4, dtype=L.bool), L.ones(5)),
      "Number of elements of source < number of ones in mask"),
    C("masked_scatter float mask", lambda L, x: x.masked_scatter(L.ones(3, 4), L.ones(12)),
      "only supports boolean masks"),
    C("take_along_dim flat non-contiguous", lambda L, x: x.t().take_along_dim(L.tensor([0])),
      "view size is not compatible with input tensor's size and stride"),
    C("take_along_dim ndim", lambda L, x: x.take_along_dim(L.tensor([0]), 1),
      "input and indices should have the same number of dimensions"),
    C("index_put oob", lambda L, x: x.index_put((L.tensor([5]),), L.ones(4)),
      "index 5 is out of bounds for dimension 0 with size 3"),
    C("index_put float index", lambda L, x: x.index_put((L.tensor([1.0]),), L.ones(4)),
      "tensors used as indices must be long, int, byte or bool tensors"),
    C("index_put dtype", lambda L, x: x.index_put((L.tensor([1]),), L.ones(4, dtype=L.float64)),
      "Index put requires the source and destination dtypes match"),
    C("index_put shape", lambda L, x: x.index_put((L.tensor([1]),), L.ones(3)),
      "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape"),
    C("put count", lambda L, x: x.put(L.tensor([0, 1]), L.ones(3)),
      "Expected source and index to have the same number of elements"),
    C("put oob", lambda L, x: x.put(L.tensor([12]), L.ones(1)), "out of range: tried to access"),
    C("put int32", lambda L, x: x.put(L.tensor([1], dtype=L.int32), L.ones(1)),
      "put_(): Expected a long tensor for index, but got Int"),
    C("take oob", lambda L, x: x.take(L.tensor([12])), "out of range: tried to access index 12"),
    C("take int32", lambda L, x: x.take(L.tensor([1], dtype=L.int32)),
      "Expected a long tensor for index"),
    C("fill_diagonal 1d", lambda L, x: x[0].detach().fill_diagonal_(1.0),
      "dimensions must larger than 1"),
    C("scatter src larger: backward", lambda L, x: x.scatter(
        1, L.tensor([[3], [0], [1]]), L.ones(3, 2, requires_grad=True)).sum().backward(),
      "returned an invalid gradient at index 1 - got [3, 1] but expected shape compatible"),
    C("fill_diagonal_ leaf", lambda L, x: x.fill_diagonal_(1.0), "a leaf Variable"),
    C("index_add_ leaf", lambda L, x: x.index_add_(0, L.tensor([0]), L.ones(1, 4)),
      "a leaf Variable"),
]


@pytest.mark.parametrize("fn,phrase", [pytest.param(p.values[0], p.values[1][0], id=p.id)
                                       for p in ERRORS])
def test_errors(fn, phrase, device):
    check_error(fn, [X], phrase, device)


@pytest.mark.parametrize("call", [lambda L, x: x.unique(), lambda L, x: L.unique(x, dim=0),
                                  lambda L, x: x.unique(return_counts=True)[0],
                                  lambda L, x: x.unique_consecutive()],
                         ids=["unique", "unique_dim", "unique_counts", "unique_consecutive"])
def test_unique_is_not_differentiable(call):
    """The values of ``unique`` require grad and carry PyTorch's node (``Unique2Backward0``,
    ``UniqueDimBackward0``, ``UniqueConsecutiveBackward0``); a backward through it raises
    NotImplementedError naming the ATen function."""

    def scenario(lib):
        x = lib.tensor([3.0, 1.0, 3.0, 3.0], requires_grad=True)
        u = call(lib, x)
        try:
            u.sum().backward()
            err = None
        except NotImplementedError as e:
            err = str(e)
        return [u.requires_grad, u.grad_fn.name(), graph_trace(u), err]

    a, b = run_both(scenario)
    compare(a, b)


@pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")
def test_scatter_legacy_reduce_not_differentiable():
    """``scatter(..., reduce=)`` on tensors that require grad records PyTorch's
    ``NotImplemented`` node; backward raises its RuntimeError."""

    def scenario(lib):
        x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        s = lib.ones(1, 2, dtype=lib.float64, requires_grad=True)
        out = []
        for y in (x.scatter(0, lib.tensor([[0, 2]]), s, reduce="add"),
                  x.scatter(1, lib.tensor([[0], [3]]), 2.0, reduce="multiply")):
            try:
                y.sum().backward()
                err = None
            except RuntimeError as e:
                err = str(e)
            out.append([to_numpy(y), y.requires_grad, y.grad_fn.name(), graph_trace(y), err])
        return out

    a, b = run_both(scenario)
    compare(a, b)


def test_scatter_reduce_argument_warns():
    """``scatter(..., src=tensor, reduce=...)`` gives PyTorch's deprecation warning."""

    def scenario(lib):
        x = lib.zeros(2, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = x.scatter(1, lib.tensor([[0, 0], [2, 1]]), lib.ones(2, 2), reduce="add")
        return to_numpy(out), [str(w.message)[:70] for w in caught]

    a, b = run_both(scenario)
    compare(a, b)


def test_validation_before_mutation(device):
    """A rejected in-place op leaves the tensor's values and version as they were."""

    def scenario(lib, device):
        h = lib.tensor(np.arange(12.0).reshape(3, 4), device=device)
        try:
            h.index_add_(0, lib.tensor([5], device=device), lib.ones(1, 4, dtype=lib.float64,
                                                                      device=device))
        except RuntimeError:
            pass
        try:
            h.scatter_(0, lib.tensor([[9]], device=device), 1.0)
        except RuntimeError:
            pass
        return to_numpy(h), h._version

    a, b = run_both(scenario, device=device)
    compare(a, b)
