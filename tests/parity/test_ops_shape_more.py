"""Parity of the shape ops of issue 19: ``flip roll tril triu diag diagonal trace``, the split
family (``split_with_sizes tensor_split hsplit vsplit``), ``repeat_interleave tile movedim
swapdims unflatten meshgrid broadcast_to as_strided view_as expand_as reshape_as type_as``
(values, graphs, saved attributes, gradients, second order), the in-place ``tril_ triu_ t_
transpose_ squeeze_ unsqueeze_`` (``_version``, history, leaf error), the views ``diagonal`` and
``as_strided`` (``_base``, shared version, in-place through the view), and PyTorch's errors."""

import warnings

import numpy as np
import pytest

from minigrad.parity import compare, graph_trace, run_both, to_numpy

from ._more import check_inplace, check_second_order, check_view
from ._opcheck import In, check_error, check_op


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


X = In(3, 4)
XT = In(3, 4, T=True)
X3 = In(2, 3, 4)
E = In(0, 4)

TRANSFORM = [
    C("flip", lambda L, x: x.flip(0), X),
    C("flip_two_neg", lambda L, x: L.flip(x, (0, -1)), X3),
    C("flip_list", lambda L, x: x.flip([1]), XT),
    C("flip_none", lambda L, x: x.flip(()), X),
    C("flip_empty", lambda L, x: x.flip(0), E),
    C("fliplr", lambda L, x: x.fliplr(), X3),
    C("flipud", lambda L, x: L.flipud(x), In(4)),
    C("rot90", lambda L, x: x.rot90(), X),
    C("rot90_k", lambda L, x: L.rot90(x, 2, (1, -1)), X3),
    C("rot90_neg", lambda L, x: x.rot90(-1, [1, 0]), XT),
    C("rot90_k0", lambda L, x: x.rot90(0), X),
    C("diagflat", lambda L, x: L.diagflat(x), In(2, 2)),
    C("diagflat_offset", lambda L, x: x.diagflat(-1), In(3)),
    C("roll", lambda L, x: x.roll(1, 0), X),
    C("roll_neg", lambda L, x: L.roll(x, -1, -1), XT),
    C("roll_two", lambda L, x: x.roll((1, 5), (0, 1)), X3),
    C("roll_flat", lambda L, x: x.roll(5), X),
    C("tril", lambda L, x: x.tril(), X),
    C("tril_k", lambda L, x: L.tril(x, 1), XT),
    C("tril_neg_batched", lambda L, x: x.tril(-1), X3),
    C("triu", lambda L, x: L.triu(x), X),
    C("triu_neg", lambda L, x: x.triu(diagonal=-1), X3),
    C("triu_empty", lambda L, x: x.triu(1), E),
    C("diagonal", lambda L, x: x.diagonal(), X),
    C("diagonal_offset", lambda L, x: L.diagonal(x, 1), XT),
    C("diagonal_neg_offset", lambda L, x: x.diagonal(-1), X),
    C("diagonal_past", lambda L, x: x.diagonal(5), X),
    C("diagonal_dims", lambda L, x: x.diagonal(0, -1, 0), X3),
    C("diagonal_dims_offset", lambda L, x: L.diagonal(x, offset=-1, dim1=2, dim2=1), X3),
    C("diag_matrix", lambda L, x: x.diag(), X),
    C("diag_matrix_k", lambda L, x: L.diag(x, -1), XT),
    C("diag_vector", lambda L, x: x.diag(), In(4)),
    C("diag_vector_k", lambda L, x: L.diag(x, 2), In(3)),
    C("diag_vector_neg", lambda L, x: x.diag(-1), In(3)),
    C("diag_embed", lambda L, x: L.diag_embed(x), X),
    C("diag_embed_offset_dims", lambda L, x: x.diag_embed(1, 0, 2), X),
    C("diag_embed_neg", lambda L, x: L.diag_embed(x, -1, dim1=-1, dim2=0), In(2, 3)),
    C("trace", lambda L, x: x.trace(), X),
    C("trace_tall_T", lambda L, x: L.trace(x), In(4, 3, T=True)),
]

COMPOSITE = [
    C("split_with_sizes", lambda L, x: x.split_with_sizes([1, 3], 1), X),
    C("tensor_split_n", lambda L, x: x.tensor_split(3, 1), X),
    C("tensor_split_more_than_size", lambda L, x: L.tensor_split(x, 5, -1), X),
    C("tensor_split_idx", lambda L, x: x.tensor_split([1, 3], 1), X),
    C("tensor_split_idx_past", lambda L, x: x.tensor_split([1, 9]), X),
    C("tensor_split_tensor", lambda L, x, i: x.tensor_split(i, 1), X,
      In(kind="fixed", values=[1, 3], grad=False)),
    C("hsplit", lambda L, x: x.hsplit(2), X),
    C("hsplit_list", lambda L, x: L.hsplit(x, [1]), XT),
    C("hsplit_1d", lambda L, x: x.hsplit(2), In(4)),
    C("vsplit", lambda L, x: L.vsplit(x, [1]), X),
    C("dsplit", lambda L, x: x.dsplit(2), X3),
    C("dsplit_list", lambda L, x: L.dsplit(x, [1, 3]), X3),
    C("repeat_interleave", lambda L, x: x.repeat_interleave(2), X),
    C("repeat_interleave_dim", lambda L, x: L.repeat_interleave(x, 3, dim=1), X),
    C("repeat_interleave_neg_dim", lambda L, x: x.repeat_interleave(2, -2), XT),
    C("repeat_interleave_tensor", lambda L, x, r: x.repeat_interleave(r, dim=0), X,
      In(kind="fixed", values=[1, 2, 0], grad=False)),
    C("repeat_interleave_0d", lambda L, x: x.repeat_interleave(3), In()),
    C("tile", lambda L, x: x.tile(2), X),
    C("tile_more", lambda L, x: L.tile(x, (2, 1, 1)), X),
    C("movedim", lambda L, x: x.movedim(0, 1), X),
    C("movedim_multi", lambda L, x: L.movedim(x, (0, 1), (2, 0)), X3),
    C("moveaxis_neg", lambda L, x: L.moveaxis(x, -1, 0), X3),
    C("swapdims", lambda L, x: x.swapdims(0, 1), X),
    C("swapaxes_fn", lambda L, x: L.swapaxes(x, -1, 0), X3),
    C("unflatten", lambda L, x: x.unflatten(1, (2, 2)), X),
    C("unflatten_fn", lambda L, x: L.unflatten(x, -1, (2, -1)), X),
    C("meshgrid_ij", lambda L, a, b: L.meshgrid(a, b, indexing="ij"), In(4), In(3)),
    C("meshgrid_xy", lambda L, a, b: L.meshgrid(a, b, indexing="xy"), In(4), In(3)),
    C("meshgrid_list_3", lambda L, a, b, c: L.meshgrid([a, b, c], indexing="ij"), In(2), In(),
      In(3)),
    C("broadcast_to", lambda L, x: x.broadcast_to(3, 4), In(4)),
    C("broadcast_to_fn", lambda L, x: L.broadcast_to(x, (2, 3, 4)), In(3, 1)),
    C("view_as", lambda L, x, o: x.view_as(o), X, In(12, grad=False)),
    C("expand_as", lambda L, x, o: x.expand_as(o), In(4), X),
    C("reshape_as", lambda L, x, o: x.reshape_as(o), XT, In(12, grad=False)),
    C("type_as", lambda L, x, o: x.type_as(o), X, In(1, dtype="float64", grad=False)),
    C("type_as_int", lambda L, x, o: x.type_as(o), X, In(1, kind="int", grad=False)),
    C("as_strided", lambda L, x: x.as_strided((2, 2), (1, 2)), X),
    C("as_strided_offset", lambda L, x: L.as_strided(x, (3, 2), (4, 1), 1), X),
    C("as_strided_overlap", lambda L, x: x.as_strided((3, 3), (1, 1)), X),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,specs", TRANSFORM + COMPOSITE)
def test_shape_op(fn, specs, dtype, device):
    check_op(fn, specs, dtype, device)


SECOND = [
    C("flip", lambda L, x: x.flip(0) * x, X),
    C("roll", lambda L, x: x.roll(1, 1) * x, X),
    C("rot90", lambda L, x: (x * x).rot90(3) ** 2, X),
    C("tril", lambda L, x: (x * x).tril(1) ** 2, X),
    C("triu", lambda L, x: (x * x).triu(-1) ** 2, X),
    C("diagonal", lambda L, x: (x * x).diagonal(1) ** 2, X),
    C("diag_matrix", lambda L, x: (x * x).diag() ** 2, X),
    C("diag_vector", lambda L, x: (x * x).diag(1) ** 2, In(3)),
    C("trace", lambda L, x: (x * x).trace() ** 2, X),
    C("diag_embed", lambda L, x: (x * x).diag_embed(1) ** 2, X),
    C("repeat_interleave", lambda L, x: (x * x).repeat_interleave(2, 1) ** 2, X),
    C("meshgrid", lambda L, a, b: L.meshgrid(a * a, b, indexing="ij")[0] ** 2 * b, In(4), In(3)),
]


@pytest.mark.parametrize("fn,specs", SECOND)
def test_second_order(fn, specs, device):
    check_second_order(fn, specs, device)


INPLACE = [
    C("tril_", lambda L, h: h.tril_(), X),
    C("triu_", lambda L, h: h.triu_(1), X3),
    C("t_", lambda L, h: h.t_(), X),
    C("t_1d", lambda L, h: h.t_(), In(4)),
    C("transpose_", lambda L, h: h.transpose_(0, -1), X3),
    C("swapdims_", lambda L, h: h.swapdims_(0, 1), X),
    C("squeeze_", lambda L, h: h.squeeze_(), In(1, 3, 1)),
    C("squeeze_dim", lambda L, h: h.squeeze_(-1), In(3, 1)),
    C("squeeze_dims", lambda L, h: h.squeeze_((0, 2)), In(1, 3, 1)),
    C("unsqueeze_", lambda L, h: h.unsqueeze_(1), X),
    C("unsqueeze_neg", lambda L, h: h.unsqueeze_(-1), X),
    C("as_strided_", lambda L, h: h.as_strided_((2, 2), (1, 2)), X),
    C("as_strided_offset_", lambda L, h: h.as_strided_((3, 3), (4, 1), 1), X),
]


@pytest.mark.parametrize("fn,specs", INPLACE)
def test_inplace(fn, specs, device):
    check_inplace(fn, specs, device)


VIEWS = [
    pytest.param(lambda L, b: b.diagonal(), X, id="diagonal"),
    pytest.param(lambda L, b: b.diagonal(1, -1, 0), X3, id="diagonal_dims"),
    pytest.param(lambda L, b: b.as_strided((2, 2), (4, 2), 1), X, id="as_strided"),
    pytest.param(lambda L, b: b.movedim(0, -1), X3, id="movedim"),
    pytest.param(lambda L, b: b.tensor_split(2, 1)[1], X, id="tensor_split"),
    pytest.param(lambda L, b: b.broadcast_to(2, 3, 4)[1], X, id="broadcast_to"),
]


@pytest.mark.parametrize("fn,spec", VIEWS)
def test_view_semantics(fn, spec, device):
    check_view(fn, spec, device)


def test_inplace_view_op_on_view(device):
    """``unsqueeze_``/``t_`` on a view of a non-leaf change the view itself (still a view of
    the same base, version shared), with PyTorch's history; the gradient reaches the leaf."""

    def scenario(lib, device):
        x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True, device=device)
        base = x * 1
        v = base[1:]
        v.t_()
        u = base[0]
        u.unsqueeze_(0)
        out = (v * v).sum() + (u * 3).sum()
        out.backward()
        return [v._is_view(), v._base is base, u._base is base, base._version, v._version,
                tuple(v.shape), tuple(u.shape), graph_trace(out), to_numpy(x.grad)]

    a, b = run_both(scenario, device=device)
    compare(a, b)


def test_as_strided_of_a_view(device):
    """``as_strided`` of a view of a non-leaf (storage offsets count from the base's start):
    the graph points at the view's node, the gradient reaches the view's own elements only
    (overlapping output elements accumulate)."""

    def scenario(lib, device):
        x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True, device=device)
        base = x * 1
        v = base[1:, 1:]
        y = v.as_strided((2, 3), (4, 1), 5)
        z = v.as_strided((3, 2), (1, 1), 2)  # overlaps, and partly outside v
        w = lib.tensor(np.arange(6.0).reshape(2, 3), device=device)
        ((y * w).sum() + (z ** 2).sum()).backward()
        return [to_numpy(y), to_numpy(z), graph_trace(y), y.grad_fn._saved_storage_offset,
                to_numpy(x.grad), y._base is base]

    a, b = run_both(scenario, device=device)
    compare(a, b)


def test_meshgrid_default_indexing_warns():
    """Without ``indexing``, PyTorch warns and uses "ij"; so does minigrad."""

    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.meshgrid(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0, 5.0]))
        return [to_numpy(t) for t in out], [str(w.message)[:60] for w in caught]

    a, b = run_both(scenario)
    compare(a, b)


ERRORS = [
    C("flip dup", lambda L, x: x.flip(0, 0), "dim 0 appears multiple times"),
    C("flip oob", lambda L, x: x.flip(2), "Dimension out of range"),
    C("fliplr 1d", lambda L, x: x[0].fliplr(), "Input must be >= 2-d."),
    C("rot90 1d", lambda L, x: x[0].rot90(), "expected total dims >= 2, but got total dims = 1"),
    C("rot90 dims", lambda L, x: x.rot90(1, (0, 0)), "expected rotation dims to be different"),
    C("rot90 three dims", lambda L, x: x.rot90(1, (0, 1, 1)),
      "expected total rotation dims == 2, but got dims = 3"),
    C("roll mismatch", lambda L, x: x.roll((1, 2), (0,)), "shifts and dimensions must align"),
    C("tril 1d", lambda L, x: x[0].tril(), "tril: input tensor must have at least 2 dimensions"),
    C("triu 1d", lambda L, x: x[0].triu(), "triu: input tensor must have at least 2 dimensions"),
    C("diag 3d", lambda L, x: x[None].diag(), "diag(): Supports 1D or 2D tensors. Got 3D"),
    C("diagonal same", lambda L, x: x.diagonal(0, 1, 1), "diagonal dimensions cannot be identical"),
    C("diagonal oob", lambda L, x: x.diagonal(0, 0, 2), "Dimension out of range"),
    C("trace 1d", lambda L, x: x[0].trace(), "trace: expected a matrix"),
    C("t_ 3d", lambda L, x: x[None].detach().t_(), "t_() expects a tensor with <= 2 dimensions"),
    C("t_ leaf", lambda L, x: x.t_(), "a leaf Variable that requires grad"),
    C("tril_ leaf", lambda L, x: x.tril_(), "a leaf Variable that requires grad"),
    C("unsqueeze_ leaf", lambda L, x: x.unsqueeze_(0), "a leaf Variable that requires grad"),
    C("split_with_sizes sum", lambda L, x: x.split_with_sizes([1, 2], 1),
      "split_with_sizes expects split_sizes to sum exactly to 4"),
    C("tensor_split 0", lambda L, x: x.tensor_split(0), "number of sections must be larger than 0"),
    C("hsplit indivisible", lambda L, x: x.hsplit(3), "is not divisible by the split_size 3"),
    C("vsplit 1d", lambda L, x: x[0].vsplit(2), "torch.vsplit requires a tensor with at least 2"),
    C("hsplit 0d", lambda L, x: x[0, 0].hsplit(2),
      "torch.hsplit requires a tensor with at least 1"),
    C("repeat_interleave neg", lambda L, x: x.repeat_interleave(-1),
      "Repeats must be non-negative"),
    C("repeat_interleave size", lambda L, x: x.repeat_interleave(L.tensor([1, 2]), dim=0),
      "repeats must have the same size as input along dim"),
    C("movedim dup", lambda L, x: x.movedim((0, 0), (1, 0)), "movedim: repeated dim in `source`"),
    C("movedim len", lambda L, x: x.movedim((0, 1), (1,)),
      "should contain the same number of dims as destination"),
    C("meshgrid indexing", lambda L, x: L.meshgrid(x[0], x[1], indexing="foo"),
      'torch.meshgrid: indexing must be one of "xy" or "ij"'),
    C("meshgrid 2d", lambda L, x: L.meshgrid(x, x[0], indexing="ij"),
      "torch.meshgrid: Expected 0D or 1D tensor in the tensor list"),
    C("broadcast_to", lambda L, x: x.broadcast_to(3, 5),
      "The expanded size of the tensor (5) must match the existing size (4)"),
    C("as_strided length", lambda L, x: x.as_strided((2, 2), (1,)),
      "mismatch in length of strides and shape"),
    C("as_strided oob", lambda L, x: x.as_strided((4, 4), (4, 1)),
      "are out of bounds for storage of size"),
    C("unflatten", lambda L, x: x.unflatten(1, (3, 2)), "don't multiply up to the size of dim 1"),
]


@pytest.mark.parametrize("fn,phrase", [pytest.param(p.values[0], p.values[1][0], id=p.id)
                                       for p in ERRORS])
def test_errors(fn, phrase, device):
    check_error(fn, [X], phrase, device)
