"""Forward-mode AD parity of the shape, view and indexing ops (issue 23): view ops (tangents
made as views of the input's tangent: values, strides, ``_base``), copy-making ops (clone,
contiguous, to, reshape's copy), cat/stack with inputs that are not dual, flip/roll/rot90/
repeat/tril/triu/diagonals, indexing and index ops, scatter/gather, sorting (values get
tangents, indices none), padding, random ops (zero tangents), in-place forms and ``out=``
forms (refused, as PyTorch). Each case runs on PyTorch and minigrad (`check_jvp`), PyTorch's
tangent also checked against finite differences."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, capture_error, to_numpy
from tests.parity._forward_ad import check_jvp

R = np.random.default_rng(2323)
A, VA = R.standard_normal((3, 4)), R.standard_normal((3, 4))
C, VC = R.standard_normal((3, 4)), R.standard_normal((3, 4))
B, VB = R.standard_normal((2, 3, 4)), R.standard_normal((2, 3, 4))
E, VE = np.zeros((0, 4)), np.zeros((0, 4))  # an empty input
IX = [[0, 1], [0, 0], [1, 2]]  # a gather/scatter index for (3, 4) inputs along dim 1


def _mask(lib, x):
    return lib.tensor(A > 0)


# (name, fn(lib, *duals), primals, tangents); a tangent None: that input is not dual
VIEWS = [
    ("view", lambda L, x: x.view(4, 3), [A], [VA]),
    ("view_neg", lambda L, x: x.view(-1, 2), [A], [VA]),
    ("view_of_view", lambda L, x: x.view(12)[2:7].view(5, 1), [A], [VA]),
    ("reshape_view", lambda L, x: x.reshape(2, 6), [A], [VA]),
    ("reshape_alias", lambda L, x: x[:, ::2].reshape(6), [A], [VA]),
    ("reshape_copy", lambda L, x: x.t().reshape(12), [A], [VA]),
    ("flatten_copy", lambda L, x: x.transpose(0, 2).flatten(), [B], [VB]),
    ("flatten", lambda L, x: x.flatten(1), [B], [VB]),
    ("unflatten", lambda L, x: x.unflatten(-1, (2, 2)), [A], [VA]),
    ("view_as", lambda L, x, y: x.view_as(y), [A, C.T.copy()], [VA, None]),
    ("reshape_as", lambda L, x, y: x.t().reshape_as(y), [A, C], [VA, None]),
    ("transpose", lambda L, x: x.transpose(-1, 0), [B], [VB]),
    ("permute", lambda L, x: x.permute(2, 0, -2), [B], [VB]),
    ("movedim", lambda L, x: L.movedim(x, (0, 1), (2, 0)), [B], [VB]),
    ("swapdims", lambda L, x: L.swapdims(x, 0, -1), [B], [VB]),
    ("T", lambda L, x: x.T, [A], [VA]),
    ("mT", lambda L, x: x.mT, [B], [VB]),
    ("t", lambda L, x: x.t(), [A], [VA]),
    ("expand", lambda L, x: x[:, :1].expand(3, 5), [A], [VA]),
    ("expand_new_dims", lambda L, x: x.expand(2, -1, -1), [A], [VA]),
    ("broadcast_to", lambda L, x: L.broadcast_to(x, (2, 3, 4)), [A], [VA]),
    ("squeeze", lambda L, x: x[:1].squeeze(), [A], [VA]),
    ("squeeze_dim", lambda L, x: x[:, None].squeeze(-2), [A], [VA]),
    ("unsqueeze", lambda L, x: x.unsqueeze(-1), [A], [VA]),
    ("select", lambda L, x: x.select(-1, 2), [B], [VB]),
    ("select_neg", lambda L, x: x.select(0, -1), [B], [VB]),
    ("slice", lambda L, x: x[1:, ::2], [A], [VA]),
    ("narrow", lambda L, x: x.narrow(-1, 1, 2), [A], [VA]),
    ("basic_index", lambda L, x: x[None, 1, ..., 1:3], [B], [VB]),
    ("alias", lambda L, x: x[...], [A], [VA]),
    ("diagonal", lambda L, x: x.diagonal(1), [A], [VA]),
    ("diagonal_neg", lambda L, x: x.diagonal(-1, -1, 0), [B], [VB]),
    ("split", lambda L, x: x.split(3, -1), [A], [VA]),
    ("split_sizes", lambda L, x: x.split([1, 3], 1), [A], [VA]),
    ("chunk", lambda L, x: x.chunk(2, 0), [A], [VA]),
    ("unbind", lambda L, x: x.unbind(-1), [A], [VA]),
    ("tensor_split", lambda L, x: L.tensor_split(x, 3, 1), [A], [VA]),
    ("hsplit", lambda L, x: L.hsplit(x, 2), [A], [VA]),
    ("unsafe_chunk", lambda L, x: x.unsafe_chunk(2, 1), [A], [VA]),
    ("meshgrid", lambda L, x, y: L.meshgrid(x[0], y[:, 0], indexing="ij"), [A, C], [VA, VC]),
    ("as_strided", lambda L, x: x.as_strided((2, 2), (1, 2), 1), [A], [VA]),
    ("as_strided_of_view", lambda L, x: x[1:].as_strided((2, 2), (1, 2)), [A], [VA]),
    ("view_of_transposed", lambda L, x: x.t()[1:].unsqueeze(0), [A], [VA]),
]

COPIES = [
    ("clone", lambda L, x: x.t().clone(), [A], [VA]),
    ("clone_contiguous", lambda L, x: x.t().clone(memory_format=L.contiguous_format), [A], [VA]),
    ("contiguous", lambda L, x: x.t().contiguous(), [A], [VA]),
    ("to_same_dtype_copy", lambda L, x: x.to(L.float64, copy=True), [A], [VA]),
    ("to_int", lambda L, x: x.to(L.int64), [A], [VA]),
    ("cat", lambda L, x, y: L.cat([x, y], -1), [A, C], [VA, VC]),
    ("cat_second_dual", lambda L, x, y: L.cat([x, y], 0), [A, C], [None, VC]),
    ("cat_first_dual", lambda L, x, y: L.cat([x, y.t().t()], 1), [A, C], [VA, None]),
    ("cat_repeated", lambda L, x: L.cat([x, x.flip(0)]), [A], [VA]),
    ("cat_empty", lambda L, x, y: L.cat([x, y], 0), [A, E], [VA, VE]),
    ("stack", lambda L, x, y: L.stack([x, y], -1), [A, C], [VA, VC]),
    ("stack_one_dual", lambda L, x, y: L.stack([x, y], 1), [A, C], [VA, None]),
    ("flip", lambda L, x: x.flip(-1, 0), [A], [VA]),
    ("flip_transposed", lambda L, x: x.t().flip(0), [A], [VA]),
    ("fliplr", lambda L, x: L.fliplr(x), [A], [VA]),
    ("flipud", lambda L, x: L.flipud(x), [A], [VA]),
    ("rot90", lambda L, x: L.rot90(x, 1, (0, 1)), [A], [VA]),
    ("rot90_neg", lambda L, x: L.rot90(x, -1, (2, 0)), [B], [VB]),
    ("rot90_2", lambda L, x: L.rot90(x, 2, (-1, -2)), [B], [VB]),
    ("roll", lambda L, x: x.roll(1, -1), [A], [VA]),
    ("roll_dims", lambda L, x: x.roll((1, -2), (0, 2)), [B], [VB]),
    ("roll_flat", lambda L, x: x.t().roll(5), [A], [VA]),
    ("repeat", lambda L, x: x.repeat(2, 1, 2), [A], [VA]),
    ("repeat_transposed", lambda L, x: x.t().repeat(1, 2), [A], [VA]),
    ("tile", lambda L, x: x.tile(2), [A], [VA]),
    ("repeat_interleave", lambda L, x: x.repeat_interleave(2, dim=-1), [A], [VA]),
    (
        "repeat_interleave_tensor",
        lambda L, x: x.repeat_interleave(L.tensor([1, 0, 2]), dim=0),
        [A],
        [VA],
    ),
    ("tril", lambda L, x: x.tril(-1), [A], [VA]),
    ("triu", lambda L, x: x.triu(1), [B], [VB]),
    ("diag_embed", lambda L, x: L.diag_embed(x, 1, 0, -1), [A], [VA]),
    ("diag_vector", lambda L, x: L.diag(x[0], -1), [A], [VA]),
    ("diag_matrix", lambda L, x: L.diag(x, 1), [A], [VA]),
    ("diagflat", lambda L, x: L.diagflat(x[:2]), [A], [VA]),
    ("trace", lambda L, x: L.trace(x), [A], [VA]),
    ("trace_transposed", lambda L, x: L.trace(x.t()), [A], [VA]),
    ("pad_constant", lambda L, x: L.nn.functional.pad(x, (1, 2)), [A], [VA]),
    ("pad_crop", lambda L, x: L.nn.functional.pad(x, (-1, 0, 1, -1), value=2.0), [A], [VA]),
    ("pad_reflect", lambda L, x: L.nn.functional.pad(x, (1, 2), mode="reflect"), [B], [VB]),
    ("pad_replicate", lambda L, x: L.nn.functional.pad(x, (2, 1), mode="replicate"), [B], [VB]),
    ("pad_reflect2d", lambda L, x: L.nn.functional.pad(x, (1, 1, 1, 2), mode="reflect"), [B], [VB]),
    (
        "pad_replicate2d",
        lambda L, x: L.nn.functional.pad(x, (0, 1, 2, 0), mode="replicate"),
        [B],
        [VB],
    ),
    ("pad_circular", lambda L, x: L.nn.functional.pad(x, (1, 2), mode="circular"), [B], [VB]),
]

INDEXING = [
    ("index_int_list", lambda L, x: x[[0, 2, 0]], [A], [VA]),
    ("index_tensor_neg", lambda L, x: x[:, L.tensor([-1, 0])], [A], [VA]),
    ("index_two_arrays", lambda L, x: x[L.tensor([0, 1]), :, L.tensor([3, 3])], [B], [VB]),
    ("index_mask", lambda L, x: x[_mask(L, x)], [A], [VA]),
    ("index_transposed", lambda L, x: x.t()[[1, 1, 0]], [A], [VA]),
    ("index_select", lambda L, x: x.index_select(-1, L.tensor([3, 0, 3])), [A], [VA]),
    ("index_select_empty", lambda L, x: x.index_select(0, L.tensor([], dtype=L.int64)), [A], [VA]),
    ("gather", lambda L, x: x.gather(1, L.tensor(IX)), [A], [VA]),
    ("gather_neg_dim", lambda L, x: x.t().gather(-2, L.tensor(IX).t()), [A], [VA]),
    ("take_along_dim", lambda L, x: L.take_along_dim(x, L.tensor([[0], [1], [2]]), 1), [A], [VA]),
    (
        "scatter",
        lambda L, x, y: x.scatter(1, L.tensor([[0, 1], [2, 3], [1, 2]]), y[:, :2]),
        [A, C],
        [VA, VC],
    ),
    (
        "scatter_src_only",
        lambda L, x, y: x.scatter(1, L.tensor([[0, 1], [2, 3], [1, 2]]), y[:, :2]),
        [A, C],
        [None, VC],
    ),
    (
        "scatter_self_only",
        lambda L, x, y: x.scatter(1, L.tensor([[0, 1], [2, 3], [1, 2]]), y[:, :2]),
        [A, C],
        [VA, None],
    ),
    (
        "scatter_value",
        lambda L, x: x.scatter(1, L.tensor([[0, 1], [2, 3], [1, 2]]), 2.0),
        [A],
        [VA],
    ),
    ("scatter_add", lambda L, x, y: x.scatter_add(1, L.tensor(IX), y[:, :2]), [A, C], [VA, VC]),
    (
        "scatter_add_src_only",
        lambda L, x, y: x.scatter_add(-1, L.tensor(IX), y[:, :2]),
        [A, C],
        [None, VC],
    ),
    (
        "index_add",
        lambda L, x, y: x.index_add(0, L.tensor([0, 2, 0]), y, alpha=2),
        [A, C],
        [VA, VC],
    ),
    (
        "index_add_source_only",
        lambda L, x, y: x.index_add(-1, L.tensor([0, 2, 0, 1]), y),
        [A, C],
        [None, VC],
    ),
    ("index_copy", lambda L, x, y: x.index_copy(0, L.tensor([2, 0, 1]), y), [A, C], [VA, VC]),
    (
        "index_copy_self_only",
        lambda L, x, y: x.index_copy(1, L.tensor([3, 1]), y[:, :2]),
        [A, C],
        [VA, None],
    ),
    ("index_fill", lambda L, x: x.index_fill(1, L.tensor([0, 2]), 3.0), [A], [VA]),
    (
        "index_fill_tensor",
        lambda L, x, v: x.index_fill(-1, L.tensor([1]), v),
        [A, np.array(2.0)],
        [VA, np.array(0.5)],
    ),
    ("masked_select", lambda L, x: x.masked_select(_mask(L, x)), [A], [VA]),
    (
        "masked_select_broadcast",
        lambda L, x: x.masked_select(L.tensor([True, False, True, False])),
        [A],
        [VA],
    ),
    ("masked_scatter", lambda L, x, y: x.masked_scatter(_mask(L, x), y), [A, C], [VA, VC]),
    (
        "masked_scatter_source_only",
        lambda L, x, y: x.masked_scatter(_mask(L, x), y),
        [A, C],
        [None, VC],
    ),
    ("take", lambda L, x: x.take(L.tensor([[0, 5], [11, -1]])), [A], [VA]),
    ("take_transposed", lambda L, x: x.t().take(L.tensor([0, 1, 2])), [A], [VA]),
    ("put", lambda L, x, y: x.put(L.tensor([0, 5, 11]), y[0, :3]), [A, C], [VA, VC]),
    (
        "put_accumulate",
        lambda L, x, y: x.put(L.tensor([0, 5, 0]), y[0, :3], accumulate=True),
        [A, C],
        [VA, VC],
    ),
    ("index_put", lambda L, x, y: x.index_put((L.tensor([0, 2]),), y[:2]), [A, C], [VA, VC]),
    (
        "index_put_values_only",
        lambda L, x, y: x.index_put((L.tensor([[0], [2]]), L.tensor([1, 3])), y[:2, :2]),
        [A, C],
        [None, VC],
    ),
    (
        "index_put_accumulate",
        lambda L, x, y: x.index_put((L.tensor([0, 0]),), y[:2], accumulate=True),
        [A, C],
        [VA, VC],
    ),
]

SORTING = [
    ("sort", lambda L, x: x.sort(-1), [A], [VA]),
    ("sort_descending", lambda L, x: x.sort(0, descending=True), [A], [VA]),
    ("sort_stable", lambda L, x: x.t().sort(stable=True, dim=0), [A], [VA]),
    ("sort_0dim", lambda L, x: x[0, 0].sort(), [A], [VA]),
    ("argsort", lambda L, x: x.argsort(-1), [A], [VA]),
    ("msort", lambda L, x: L.msort(x), [A], [VA]),
    ("topk", lambda L, x: x.topk(2, -1), [A], [VA]),
    ("topk_smallest", lambda L, x: x.topk(2, 0, largest=False), [A], [VA]),
    ("kthvalue", lambda L, x: x.kthvalue(2, 0), [A], [VA]),
    ("kthvalue_keepdim", lambda L, x: x.kthvalue(3, -1, keepdim=True), [A], [VA]),
    ("median_dim", lambda L, x: x.median(-1), [A], [VA]),
    ("median_keepdim", lambda L, x: x.median(0, keepdim=True), [B], [VB]),
    ("median", lambda L, x: x.median(), [A], [VA]),
    ("nanmedian", lambda L, x: x.nanmedian(), [A], [VA]),
    ("nanmedian_dim", lambda L, x: x.nanmedian(1), [A], [VA]),
]


@pytest.mark.parametrize("fn,primals,tangents", [c[1:] for c in VIEWS], ids=[c[0] for c in VIEWS])
def test_view_ops(fn, primals, tangents):
    check_jvp(fn, primals, tangents)


@pytest.mark.parametrize("fn,primals,tangents", [c[1:] for c in COPIES], ids=[c[0] for c in COPIES])
def test_copy_ops(fn, primals, tangents):
    check_jvp(fn, primals, tangents)


@pytest.mark.parametrize(
    "fn,primals,tangents", [c[1:] for c in INDEXING], ids=[c[0] for c in INDEXING]
)
def test_indexing_ops(fn, primals, tangents):
    check_jvp(fn, primals, tangents)


@pytest.mark.parametrize(
    "fn,primals,tangents", [c[1:] for c in SORTING], ids=[c[0] for c in SORTING]
)
def test_sorting_values(fn, primals, tangents):
    check_jvp(fn, primals, tangents)


_FLOAT32 = [
    "view_of_view",
    "reshape_copy",
    "as_strided",
    "clone",
    "cat_second_dual",
    "stack_one_dual",
    "rot90",
    "roll_flat",
    "repeat",
    "triu",
    "trace",
    "pad_reflect",
    "index_mask",
    "gather",
    "scatter",
    "index_add",
    "masked_scatter",
    "put_accumulate",
    "index_put",
    "sort",
    "median",
    "kthvalue",
]
_ALL = {c[0]: c[1:] for c in VIEWS + COPIES + INDEXING + SORTING}


@pytest.mark.parametrize("name", _FLOAT32)
def test_float32(name):
    fn, primals, tangents = _ALL[name]
    check_jvp(fn, primals, tangents, dtype="float32", rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "name",
    [
        "reshape_copy",
        "clone",
        "cat_first_dual",
        "stack",
        "flip",
        "rot90",
        "tril",
        "diag_matrix",
        "trace",
        "pad_replicate2d",
        "index_two_arrays",
        "index_select",
        "scatter_src_only",
        "index_copy",
        "masked_select",
        "take",
        "put",
        "sort",
        "topk",
        "median",
        "as_strided",
        "unsafe_chunk",
    ],
)
def test_under_no_grad(name):
    fn, primals, tangents = _ALL[name]

    def under_no_grad(lib, *xs):
        with lib.no_grad():
            return fn(lib, *xs)

    check_jvp(under_no_grad, primals, tangents)


@pytest.mark.parametrize(
    "name",
    [
        "reshape_copy",
        "cat_second_dual",
        "rot90",
        "index_mask",
        "gather",
        "scatter",
        "index_put",
        "masked_scatter",
        "sort",
        "median",
        "pad_reflect2d",
        "as_strided",
    ],
)
def test_tangent_requires_grad_with_primal_grad(name):
    """A primal requiring grad: the tangents are computed with grad mode on, so their
    ``requires_grad`` is compared (reverse over forward)."""
    fn, primals, tangents = _ALL[name]
    check_jvp(fn, primals, tangents, primal_grad=True)


def test_to_other_dtype():
    """``to(float32)`` of a float64 dual: the tangent converted (finite differences would
    run in float32, so only parity)."""
    check_jvp(lambda L, x: x.to(L.float32), [A], [VA], fd=False)
    check_jvp(lambda L, x: x.t().float(), [A], [VA], fd=False)
    check_jvp(lambda L, x, y: x.type_as(y), [A, C.astype(np.float32)], [VA, None], fd=False)


@pytest.mark.parametrize("shape", [(0, 4), (3, 0)])
def test_empty_inputs(shape):
    x, v = np.zeros(shape), np.zeros(shape)
    for fn in (
        lambda L, x: x.t().clone(),
        lambda L, x: x.flip(0),
        lambda L, x: x.roll(1, 0),
        lambda L, x: L.cat([x, x], 1),
        lambda L, x: L.stack([x, x]),
        lambda L, x: x.repeat(2, 1),
        lambda L, x: x.tril(),
        lambda L, x: x.sort(0),
        lambda L, x: x[L.tensor([], dtype=L.int64)],
        lambda L, x: x.reshape(shape[::-1]),
        lambda L, x: x.t().contiguous(),
    ):
        check_jvp(fn, [x], [v])


# ------------------------------------------------------------------------------ scatter_reduce
T = np.array([[1.0, 2, 2, 0], [3, 3, 1, 1], [0, 0, 0, 0]])  # ties with src's values
S = np.array([[2.0, 2], [3, 1], [0, 5]])


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("which", ["both", "src", "self"])
def test_scatter_reduce(reduce, include_self, which):
    """sum/mean linear; amax/amin: the tangents of the elements equal to the result averaged
    (ties between self and src here); prod: PyTorch gives no tangent."""
    tangents = {"both": [VA, VC[:, :2]], "src": [None, VC[:, :2]], "self": [VA, None]}[which]

    def fn(lib, x, y):
        return x.scatter_reduce(1, lib.tensor(IX), y, reduce, include_self=include_self)

    check_jvp(fn, [T, S], tangents, fd=False)


# ------------------------------------------------------------------------------ in place
INPLACE = [
    ("index_add_", lambda L, x, y: x.clone().index_add_(0, L.tensor([0, 2, 0]), y)),
    ("index_copy_", lambda L, x, y: x.clone().index_copy_(0, L.tensor([2, 0, 1]), y)),
    ("index_fill_", lambda L, x, y: x.clone().index_fill_(1, L.tensor([3]), -1.0) + y),
    ("masked_scatter_", lambda L, x, y: x.clone().masked_scatter_(_mask(L, x), y)),
    ("put_", lambda L, x, y: x.clone().put_(L.tensor([1, 4]), y[0, :2])),
    ("index_put_", lambda L, x, y: x.clone().index_put_((L.tensor([1]),), y[0])),
    ("scatter_", lambda L, x, y: x.clone().scatter_(1, L.tensor(IX), y)),
    ("scatter_add_", lambda L, x, y: x.clone().scatter_add_(0, L.tensor(IX).t(), y)),
    ("scatter_reduce_", lambda L, x, y: x.clone().scatter_reduce_(1, L.tensor(IX), y, "amax")),
    ("tril_", lambda L, x, y: x.clone().tril_() + y),
    ("triu_", lambda L, x, y: x.clone().t().triu_(1) * y.t()),
    ("setitem_index", lambda L, x, y: _setitem(x.clone(), ([0, 2],), y[:2])),
    ("setitem_mask", lambda L, x, y: _setitem(x.clone(), (_mask(L, x),), y[0, 0])),
    ("setitem_slice", lambda L, x, y: _setitem(x.clone(), (slice(None), 1), y[:, 0])),
    ("setitem_number", lambda L, x, y: _setitem(x.clone(), (slice(1, None),), 2.0) * y),
    ("fill_", lambda L, x, y: x.clone().fill_(2.0) + y),
    ("fill_tensor", lambda L, x, y: x.clone().fill_(y[0, 0])),
    ("zero_", lambda L, x, y: x.clone().zero_() + y),
    (
        "view_index_add_",
        lambda L, x, y: _base_of(
            x.clone(), lambda v: v[1:].index_add_(1, L.tensor([0, 0]), y[1:, :2])
        ),
    ),
    (
        "into_non_dual",
        lambda L, x, y: L.zeros(3, 4, dtype=x.dtype).index_copy_(1, L.tensor([3, 1]), y[:, :2]),
    ),
    ("fill_diagonal_", lambda L, x, y: _base_of(x, lambda v: v.fill_diagonal_(2.0)) * y),
    ("fill_diagonal_of_view", lambda L, x, y: _base_of(x, lambda v: v.t().fill_diagonal_(1.0))),
    (
        "fill_diagonal_wrap",
        lambda L, x, y: _base_of(L.cat([x, y]), lambda v: v.fill_diagonal_(0.0, wrap=True)),
    ),
    ("t_", lambda L, x, y: x.clone().t_() + y.t()),
    ("transpose_", lambda L, x, y: x.clone().unsqueeze_(0).transpose_(0, -1).squeeze_(-1)),
    ("as_strided_", lambda L, x, y: x.clone().as_strided_((2, 3), (1, 2), 1)),
]


def _setitem(t, index, value):
    t[index] = value
    return t


def _base_of(t, fn):
    fn(t)
    return t


@pytest.mark.parametrize("fn", [c[1] for c in INPLACE], ids=[c[0] for c in INPLACE])
@pytest.mark.parametrize("which", ["both", "self", "other"])
def test_inplace(fn, which):
    """In-place forms write the out-of-place tangent into self's (a dual source into a
    non-dual self gives self a tangent)."""
    tangents = {"both": [VA, VC], "self": [VA, None], "other": [None, VC]}[which]
    check_jvp(fn, [A, C], tangents, fd=False)


def test_setitem_without_grad_keeps_the_tangent():
    """Regression: ``x[idx] = dual`` took a no-graph fast path (nothing requires grad) that
    wrote the value but skipped the tangent."""

    def fn(lib, x, y):
        t = lib.zeros(3, 4, dtype=lib.float64)
        t[[0, 2]] = y[:2]
        t[:, 3] = x[:, 0]
        return t

    check_jvp(fn, [A, C], [VA, VC])


# ------------------------------------------------------------------------------ structure
def _view_structure(lib):
    fwAD = lib.autograd.forward_ad
    out = {}
    with fwAD.dual_level():
        t = lib.tensor(VB)
        d = fwAD.make_dual(lib.tensor(B), t)
        views = {
            "view": d.view(6, 4),
            "view_of_view": d.view(6, 4)[1:].t(),
            "select": d.select(1, -1),
            "diagonal": d.diagonal(0, -1, -2),
            "expand": d[:, :1].expand(2, 5, 4),
            "unbind": d.unbind(-1)[2],
            "split": d.split(2, 1)[1],
            "movedim": d.movedim(0, -1),
            "alias": d[...],
            "as_strided": d.as_strided((3, 2), (2, 5), 1),
        }
        for name, v in views.items():
            tv = fwAD.unpack_dual(v).tangent
            out[name] = [tuple(tv.stride()), tv._base is t, to_numpy(tv)]
        tt = lib.tensor(np.ascontiguousarray(VA.T)).t()  # a transposed tangent
        dt = fwAD.make_dual(lib.tensor(A), tt)
        tv = fwAD.unpack_dual(dt[1:, ::2]).tangent
        out["of_transposed_tangent"] = [tuple(tv.stride()), tv._base is tt._base, to_numpy(tv)]
        out["alias_is_the_tangent"] = [
            fwAD.unpack_dual(d[...]).tangent is t,
            fwAD.unpack_dual(d.movedim(1, 1)).tangent is t,
            fwAD.unpack_dual(d[1:][...]).tangent._base is t,
        ]
        out["detach"] = fwAD.unpack_dual(d.detach()).tangent is None
        out["data"] = fwAD.unpack_dual(d.data).tangent is None
        dc = d.clone()
        out["detach_"] = fwAD.unpack_dual(dc.detach_()).tangent is None
        c = d.clone()
        out["clone_fresh"] = fwAD.unpack_dual(c).tangent is not t
        r = d.transpose(0, 2).reshape(-1)  # a copy: its tangent is its own
        out["reshape_copy_base"] = fwAD.unpack_dual(r).tangent._base is None
        v = d[0]
        v.mul_(2)  # an in-place op through a view writes the base's tangent
        out["inplace_view"] = [to_numpy(t), t._version]
        w = d.clone()
        w.t_() if w.ndim == 2 else w.transpose_(0, 2)
        tw = fwAD.unpack_dual(w).tangent
        out["transpose_"] = [tuple(tw.shape), tuple(tw.stride()), tw._version]
    return out


def test_view_tangents_are_views_of_the_input_tangent():
    assert_parity(_view_structure)


# ------------------------------------------------------------------------------ random ops
RANDOM = [
    ("uniform_", lambda L, x: x.clone().uniform_()),
    ("normal_", lambda L, x: x.clone().normal_(1.0, 2.0)),
    ("bernoulli_", lambda L, x: x.clone().bernoulli_(0.3)),
    ("exponential_", lambda L, x: x.clone().exponential_()),
    ("random_", lambda L, x: x.clone().random_(0, 5)),
    ("bernoulli", lambda L, x: L.bernoulli(x.sigmoid())),
    ("normal_mean", lambda L, x: L.normal(x, 1.0)),
    ("normal_std", lambda L, x: L.normal(0.0, x.exp())),
    ("normal_both", lambda L, x: L.normal(x, x.exp())),
]


def _random_tangent(lib, fn):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(A), lib.tensor(VA))
        z = fn(lib, d)
        t = fwAD.unpack_dual(z).tangent
        return None if t is None else [to_numpy(t), tuple(t.stride()), str(t.dtype)[-7:]]


@pytest.mark.parametrize("fn", [c[1] for c in RANDOM], ids=[c[0] for c in RANDOM])
def test_random_ops_give_zero_tangents(fn):
    assert_parity(_random_tangent, fn)


def test_dropout():
    for name, p, training in [
        ("dropout", 0.0, True),
        ("dropout", 0.5, False),
        ("dropout", 1.0, True),
        ("dropout1d", 0.0, True),
        ("dropout2d", 1.0, True),
        ("dropout2d", 0.3, False),
    ]:

        def fn(L, x, name=name, p=p, training=training):
            f = getattr(L.nn.functional, name)
            return f(x[None, None] if name == "dropout2d" else x, p, training=training)

        check_jvp(fn, [A], [VA])


def _dropout_tangent_follows_its_mask(lib):
    """A random dropout: the tangent is the input's, masked and scaled as the value."""
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(A), lib.tensor(VA))
        z = lib.nn.functional.dropout(d, 0.4)
        t = to_numpy(fwAD.unpack_dual(z).tangent)
        kept = to_numpy(z) != 0
        return bool(np.allclose(t, np.where(kept, VA / 0.6, 0.0))), t.shape


def test_dropout_random_mask():
    assert_parity(_dropout_tangent_follows_its_mask)


# ------------------------------------------------------------------------------ errors
def _error(lib, fn, dual_out=False):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        x = lib.tensor(A)
        d = fwAD.make_dual(x, lib.tensor(VA))
        try:
            r = fn(lib, d, x)
        except Exception as e:  # noqa: BLE001 - compared
            return type(e).__name__, str(e)
        r = r if isinstance(r, lib.Tensor) else r[0]
        t = fwAD.unpack_dual(r).tangent
        return None if t is None else to_numpy(t)


def _f64(lib, *shape):
    return lib.empty(*shape, dtype=lib.float64)


ERRORS = [
    ("resize_", lambda L, d, x: d.clone().resize_(2, 6)),
    ("resize_same_shape", lambda L, d, x: d.clone().resize_(3, 4)),
    ("resize_as_", lambda L, d, x: d.clone().resize_as_(L.ones(12))),
    ("out_sin", lambda L, d, x: L.sin(d, out=_f64(L, 3, 4))),
    ("out_cat", lambda L, d, x: L.cat([x, d], out=_f64(L, 6, 4))),
    ("out_square", lambda L, d, x: L.square(d, out=_f64(L, 3, 4))),
    ("out_eq", lambda L, d, x: L.eq(d, 0, out=L.empty(3, 4, dtype=L.bool))),
    ("out_floor_divide", lambda L, d, x: L.floor_divide(d, 2, out=_f64(L, 3, 4))),
    ("out_sort", lambda L, d, x: L.sort(d, out=(_f64(L, 0), L.empty(0, dtype=L.int64)))),
    ("out_max", lambda L, d, x: L.max(d, 0, out=(_f64(L, 4), L.empty(4, dtype=L.int64)))),
    ("out_index_select", lambda L, d, x: L.index_select(d, 1, L.tensor([0]), out=_f64(L, 3, 1))),
    (
        "out_is_dual",
        lambda L, d, x: L.sin(
            x, out=L.autograd.forward_ad.make_dual(_f64(L, 3, 4), L.ones(3, 4, dtype=L.float64))
        ),
    ),
    ("out_dtype_error_first", lambda L, d, x: L.sin(d, out=L.empty(3, 4, dtype=L.int64))),
    ("out_not_dual", lambda L, d, x: L.sin(x, out=_f64(L, 3, 4))),
    ("scatter_legacy_reduce", lambda L, d, x: d.scatter(1, L.tensor(IX), x, reduce="add")),
    ("out_stack", lambda L, d, x: L.stack([d, x], out=_f64(L, 2, 3, 4))),
    ("out_gather", lambda L, d, x: L.gather(d, 1, L.tensor(IX), out=_f64(L, 3, 2))),
    ("out_nonzero", lambda L, d, x: L.nonzero(d, out=L.empty(0, dtype=L.int64))),
    ("out_topk", lambda L, d, x: L.topk(d, 2, out=(_f64(L, 0), L.empty(0, dtype=L.int64)))),
    ("out_vector_norm", lambda L, d, x: L.linalg.vector_norm(d, out=_f64(L, ()))),
    ("out_matrix_norm_copies", lambda L, d, x: L.linalg.matrix_norm(d, out=_f64(L, ()))),
]


@pytest.mark.parametrize("fn", [c[1] for c in ERRORS], ids=[c[0] for c in ERRORS])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_errors(fn):
    assert_parity(_error, fn)


def _out_written(lib):
    """PyTorch writes ``out`` before refusing the dual input."""
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(A), lib.tensor(VA))
        o = lib.zeros(3, 4, dtype=lib.float64)
        try:
            lib.sin(d, out=o)
        except NotImplementedError:
            pass
        return [to_numpy(o), o._version, fwAD.unpack_dual(o).tangent is None]


def test_out_is_written_before_the_error():
    assert_parity(_out_written)


def _rot90_layout(lib):
    x = lib.tensor(B)
    return [
        tuple(lib.rot90(x, k, dims).stride())
        for k in range(-3, 5)
        for dims in ((0, 1), (2, 0), (-1, 1))
    ]


def _index_put_none(lib):
    x = lib.zeros(3, 4)
    return [
        capture_error(lambda: x.index_put((None, lib.tensor([1])), lib.ones(1))),
        capture_error(lambda: lib.index_put(x, (lib.tensor([1]), None), lib.ones(1))),
        capture_error(lambda: x.clone().index_put_([lib.tensor([1]), 5], lib.ones(1))),
    ]


def test_index_put_refuses_entries_that_are_not_tensors():
    """Regression: ``index_put`` took None entries (PyTorch's argument parser refuses them)."""
    assert_parity(_index_put_none)


def test_rot90_strides():
    """Regression: an odd ``k`` gives PyTorch's transposed layout (was C-contiguous)."""
    assert_parity(_rot90_layout)


_AFTER_SIN = [
    c[0] for c in VIEWS + COPIES + INDEXING + SORTING if c[0] not in ("to_int", "argsort")
]


@pytest.mark.parametrize("name", _AFTER_SIN)
def test_tangent_requires_grad_after_sin(name):
    """The op applied to ``sin(x)`` of a primal requiring grad: the incoming tangent
    ``cos(x) * v`` requires grad, so each formula must keep it differentiable (reverse over
    forward): the tangent's ``requires_grad`` is compared."""
    fn, primals, tangents = _ALL[name]

    def after_sin(lib, x, *rest):
        return fn(lib, x.sin(), *rest)

    check_jvp(after_sin, primals, tangents, primal_grad=True)


def _differentiable_tangent_copies(lib):
    """Core regressions: a tangent copied into its primal's layout (``set_fw_grad``) or
    written into an in-place op's old tangent (``after_inplace``) was copied in NumPy, so a
    tangent that requires grad lost its history; PyTorch copies with ``copy_``."""
    fwAD = lib.autograd.forward_ad
    x = lib.tensor(A, requires_grad=True)
    tt = lib.tensor(np.ascontiguousarray(VA.T), requires_grad=True)
    out = {}

    def info(t):
        fn = t.grad_fn
        return [
            t.requires_grad,
            None if fn is None else fn.name().rsplit("::", 1)[-1],
            tuple(t.stride()),
            to_numpy(t),
        ]

    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(A), (tt * 2).t())  # another layout: copied
        out["make_dual"] = info(fwAD.unpack_dual(d).tangent)
        s = fwAD.make_dual(x, lib.tensor(VA)).sin()
        out["sort_layout"] = info(fwAD.unpack_dual(s.t().sort(stable=True, dim=0)[0]).tangent)
        z = lib.zeros(3, 4, dtype=lib.float64)
        z.copy_(s)
        out["copy_into_non_dual"] = info(fwAD.unpack_dual(z).tangent)
        w = lib.zeros(3, 4, dtype=lib.float64)
        w[1:].copy_(s[:2])
        out["copy_into_view"] = info(fwAD.unpack_dual(w).tangent)
        q = fwAD.make_dual(lib.zeros(3, 4, dtype=lib.float64), lib.ones(3, 4, dtype=lib.float64))
        q.mul_(s)
        out["inplace_on_dual"] = info(fwAD.unpack_dual(q).tangent)
        q2 = fwAD.make_dual(lib.zeros(3, 4, dtype=lib.float64), lib.ones(3, 4, dtype=lib.float64))
        q2[1:].mul_(s[1:])
        out["inplace_on_view_of_dual"] = info(fwAD.unpack_dual(q2).tangent)
        total = sum(fwAD.unpack_dual(t).tangent.sum() for t in (d, z, w, q, q2))
        gx, gt = lib.autograd.grad(total, (x, tt))
        out["grads"] = [to_numpy(gx), to_numpy(gt)]
    return out


def test_tangent_copies_stay_differentiable():
    assert_parity(_differentiable_tangent_copies)


def _tangents_not_shared(lib):
    """Core regression: a formula returning an input's tangent as is (``x + dual``,
    ``z.copy_(dual)``) gave the output that very tensor, so an in-place op on the output
    rewrote the input's tangent."""
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        t = lib.ones(3, 4, dtype=lib.float64)
        d = fwAD.make_dual(lib.ones(3, 4, dtype=lib.float64), t)
        w = lib.zeros(3, 4, dtype=lib.float64) + d
        shared = [fwAD.unpack_dual(w).tangent is t]
        w.mul_(2)
        z = lib.zeros(3, 4, dtype=lib.float64)
        z.copy_(d)
        shared.append(fwAD.unpack_dual(z).tangent is t)
        z.mul_(3)
        c = lib.cat([d])
        c.add_(1.0)
        return shared + [
            to_numpy(t),
            to_numpy(fwAD.unpack_dual(w).tangent),
            to_numpy(fwAD.unpack_dual(z).tangent),
        ]


def test_outputs_do_not_share_input_tangents():
    assert_parity(_tangents_not_shared)


@pytest.mark.parametrize("fn", [c[1] for c in INPLACE], ids=[c[0] for c in INPLACE])
def test_inplace_under_no_grad(fn):
    """``no_grad`` does not stop forward AD: the in-place forms still write the tangent."""

    def under_no_grad(lib, x, y):
        with lib.no_grad():
            return fn(lib, x, y)

    check_jvp(under_no_grad, [A, C], [VA, VC], fd=False)


def _unique_error(lib, fn):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(T), lib.tensor(VA))
        return capture_error(lambda: fn(lib, d))


@pytest.mark.parametrize(
    "fn",
    [
        lambda L, d: L.unique(d),
        lambda L, d: L.unique(d, return_inverse=True, return_counts=True),
        lambda L, d: L.unique(d, dim=1),
        lambda L, d: L.unique_consecutive(d),
    ],
    ids=["unique", "unique_inverse", "unique_dim", "unique_consecutive"],
)
def test_unique_has_no_forward_formula(fn):
    """PyTorch has none: its NotImplementedError, naming the aten op."""
    assert_parity(_unique_error, fn)


N = A.copy()
N[1, 2] = np.nan
TIE = np.array([[1.0, 1, 2, 2], [0, 0, 0, 0], [3, 1, 3, 1]])
Z, VZ = np.array(1.5), np.array(0.3)  # 0-dim
EDGES = [
    ("median_nan", lambda L, x: x.median(), [N], [VA]),
    ("nanmedian_nan", lambda L, x: x.nanmedian(), [N], [VA]),
    ("median_dim_nan", lambda L, x: x.median(1), [N], [VA]),
    ("median_ties", lambda L, x: x.median(), [TIE], [VA]),
    ("sort_ties", lambda L, x: x.sort(1, descending=True), [TIE], [VA]),
    ("mode_ties", lambda L, x: x.mode(1), [TIE], [VA]),
    ("topk_0", lambda L, x: x.topk(0, 1), [A], [VA]),
    ("kthvalue_0d", lambda L, x: x.kthvalue(1), [Z], [VZ]),
    ("topk_0d", lambda L, x: x.topk(1), [Z], [VZ]),
    ("median_0d_dim", lambda L, x: x.median(0), [Z], [VZ]),
    ("mode_0d", lambda L, x: x.mode(), [Z], [VZ]),
    ("sort_empty", lambda L, x: x.sort(0), [E], [VE]),
    ("gather_empty_index", lambda L, x: x.gather(1, L.zeros(3, 0, dtype=L.int64)), [A], [VA]),
    (
        "scatter_empty_index",
        lambda L, x, y: x.scatter(1, L.zeros(3, 0, dtype=L.int64), y),
        [A, C],
        [VA, VC],
    ),
    ("index_select_0d", lambda L, x: x.index_select(0, L.tensor([0])), [Z], [VZ]),
    ("take_0d", lambda L, x: x.take(L.tensor([0, 0])), [Z], [VZ]),
    ("cat_0d_error", lambda L, x: L.cat([x, x]), [Z], [VZ]),
    ("stack_0d", lambda L, x: L.stack([x, x * 2]), [Z], [VZ]),
    ("flip_0d", lambda L, x: x.flip(()), [Z], [VZ]),
    ("repeat_0d", lambda L, x: x.repeat(3), [Z], [VZ]),
    ("roll_0d", lambda L, x: x.roll(1), [Z], [VZ]),
    (
        "masked_scatter_broadcast",
        lambda L, x, y: x[0].masked_scatter(L.tensor([[True, False, True, False]] * 3), y),
        [A, C],
        [VA, VC],
    ),
    ("index_put_mask_0d_value", lambda L, x, y: x.index_put((x > 0,), y[0, 0]), [A, C], [VA, VC]),
    ("index_add_0d", lambda L, x, y: x.index_add(0, L.tensor([0]), y), [Z, Z], [VZ, VZ]),
]


@pytest.mark.parametrize("fn,primals,tangents", [c[1:] for c in EDGES], ids=[c[0] for c in EDGES])
def test_edge_cases(fn, primals, tangents):
    """NaNs and ties (median's evenly read tangent), 0-dim and empty inputs."""
    check_jvp(fn, primals, tangents, fd=False)


FACTORIES = [
    ("zeros", lambda L, o: L.zeros(4, out=o)),
    ("ones_resized", lambda L, o: L.ones(5, out=o)),
    ("empty", lambda L, o: L.empty(4, out=o)),
    ("full", lambda L, o: L.full((4,), 2.0, out=o)),
    ("arange", lambda L, o: L.arange(4.0, out=o)),
    ("linspace", lambda L, o: L.linspace(0, 1, 4, out=o)),
    ("logspace", lambda L, o: L.logspace(0, 1, 4, out=o)),
    ("eye", lambda L, o: L.eye(2, out=o.view(2, 2))),
    ("randn", lambda L, o: L.randn(4, out=o)),
    ("rand", lambda L, o: L.rand(4, out=o)),
    ("randint", lambda L, o: L.randint(0, 3, (4,), out=o)),
    ("randperm", lambda L, o: L.randperm(4, out=o)),
    ("normal", lambda L, o: L.normal(0.0, 1.0, (4,), out=o)),
]


def _factory_out(lib, fn):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        o = fwAD.make_dual(lib.full((4,), 7.0, dtype=lib.float64), lib.ones(4, dtype=lib.float64))
        err = capture_error(lambda: fn(lib, o))
        return err, to_numpy(o), o._version


@pytest.mark.parametrize("fn", [c[1] for c in FACTORIES], ids=[c[0] for c in FACTORIES])
def test_factory_out_into_a_dual(fn):
    """A factory writing into a dual ``out``: PyTorch refuses before writing (``aten::zeros``
    has no forward formula; ``empty``/``randn`` resize first: the resize error)."""
    assert_parity(_factory_out, fn)
