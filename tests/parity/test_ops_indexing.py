"""Parity of ``x[index]``: ints, slices (steps, negative and out-of-range bounds), None,
Ellipsis, integer lists / tensors, boolean masks, and mixed basic + advanced indices. The graph
shows how PyTorch decomposes an index (one SelectBackward0 per int, SliceBackward0 per slice that
is not ``:`` in a tuple, AliasBackward0 when nothing changes, one IndexBackward0 for all tensor
indices), and the saved attributes show the raw start/end/index values PyTorch keeps."""

import numpy as np
import pytest

from ._opcheck import In, check_op


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


X = In(3, 4)
X3 = In(2, 3, 4)
XT = In(3, 4, T=True)

BASIC = [
    C("int", lambda L, x: x[0], X),
    C("int_neg", lambda L, x: x[-1], X),
    C("int_int", lambda L, x: x[0, 1], X),
    C("int_neg_pair", lambda L, x: x[-1, -2], X3),
    C("ellipsis_int", lambda L, x: x[..., 0], X3),
    C("ellipsis_neg_int", lambda L, x: x[..., -1], X3),
    C("int_ellipsis_int", lambda L, x: x[0, ..., 1], X3),
    C("ellipsis_only", lambda L, x: x[...], X),
    C("colon_colon", lambda L, x: x[:, :], X),
    C("colon", lambda L, x: x[:], X),
    C("colon_in_tuple", lambda L, x: x[:, ],  X),
    C("ellipsis_colon", lambda L, x: x[..., :], X3),
    C("slice_start", lambda L, x: x[1:], X),
    C("slice_dim1", lambda L, x: x[:, 1:3], X),
    C("slice_step", lambda L, x: x[::2], X),
    C("slice_start_step", lambda L, x: x[:, 1::2], X),
    C("slice_neg_start", lambda L, x: x[-2:], X),
    C("slice_neg_end", lambda L, x: x[:-1], X),
    C("slice_neg_both", lambda L, x: x[-3:-1], X),
    C("slice_past_end", lambda L, x: x[:10], X),
    C("slice_start_past_end", lambda L, x: x[5:], X),
    C("slice_before_start", lambda L, x: x[-10:], X),
    C("slice_empty", lambda L, x: x[1:1], X),
    C("slice_reversed_empty", lambda L, x: x[-1:-3], X),
    C("slice_full_explicit", lambda L, x: x[0:3], X),
    C("slice_full_in_tuple", lambda L, x: x[0:3, 1:], X),
    C("slice_then_int", lambda L, x: x[1:, 0], X),
    C("slice_T", lambda L, x: x[:, 1:], XT),
    C("none", lambda L, x: x[None], X),
    C("none_mid", lambda L, x: x[:, None], X),
    C("none_end", lambda L, x: x[..., None], X),
    C("none_int_slice", lambda L, x: x[None, 0, 1:], X3),
    C("int_0dim_tensor", lambda L, x, i: x[i], X, In(kind="fixed", values=1, grad=False)),
    C("int_0dim_tensor_tuple", lambda L, x, i: x[i, 1:], X,
      In(kind="fixed", values=2, grad=False)),
    C("py_bool_true", lambda L, x: x[True], X),
    C("select_method", lambda L, x: x.select(1, 2), X3),
    C("select_neg", lambda L, x: x.select(-1, -2), X3),
    C("chained", lambda L, x: x[1][2:][0], X3),
    C("int_of_0dim_result", lambda L, x: x[2], In(4)),
]

ADVANCED = [
    C("list", lambda L, x: x[[0, 2]], X),
    C("list_repeat", lambda L, x: x[[0, 2, 0, 0]], X),
    C("list_neg", lambda L, x: x[[-1, 0]], X),
    C("tensor_idx", lambda L, x, i: x[i], X, In(5, kind="idx", high=3, grad=False)),
    C("tensor_idx_2d", lambda L, x, i: x[i], X, In(2, 2, kind="idx", high=3, grad=False)),
    C("tensor_idx_int32", lambda L, x, i: x[i], X,
      In(kind="fixed", values=[2, 0], dtype="int32", grad=False)),
    C("colon_list", lambda L, x: x[:, [1, 3]], X),
    C("ellipsis_list", lambda L, x: x[..., [0, 1]], X3),
    C("two_lists", lambda L, x: x[[0, 1], [1, 2]], X),
    C("two_lists_broadcast", lambda L, x: x[[[0], [2]], [1, 3]], X),
    C("lists_split_by_slice", lambda L, x: x[[0, 1], :, [1, 2]], X3),
    C("slice_list_list", lambda L, x: x[1:, [[0], [1]], [2, 3]], X3),
    C("list_slice", lambda L, x: x[[0, 2], 1:], X),
    C("slice_list_slice", lambda L, x: x[:, [0, 2], 1:3], X3),
    C("int_list", lambda L, x: x[1, [1, 3]], X),
    C("list_int", lambda L, x: x[[0, 1], 1, :], X3),
    C("list_colon_int", lambda L, x: x[[0, 1], :, 1], X3),
    C("none_list", lambda L, x: x[None, [0, 1]], X),
    C("list_none", lambda L, x: x[[0, 1], None], X),
    C("mask_full", lambda L, x: x[x > 0], X),
    C("mask_tensor", lambda L, x, m: x[m], X, In(3, 4, kind="bool", grad=False)),
    C("mask_rows", lambda L, x, m: x[m], X3, In(2, kind="fixed", values=[True, False],
                                                 grad=False)),
    C("mask_list", lambda L, x: x[[True, False, True]], X),
    C("mask_last_dim", lambda L, x, m: x[:, :, m], X3, In(4, kind="bool", grad=False)),
    C("mask_2d_after_colon", lambda L, x, m: x[:, m], X3, In(3, 4, kind="bool", grad=False)),
    C("mask_and_int", lambda L, x, m: x[m, 1], X3, In(2, kind="fixed", values=[False, True],
                                                       grad=False)),
    C("mask_T", lambda L, x: x[x > 0.5], XT),
    C("index_then_slice", lambda L, x: x[[1]][0], X),
    C("slice_then_index", lambda L, x: x[0][[1, 2]], X),
    C("idx_sum_repeat", lambda L, x: x[[0, 0, 1]].sum(0), X),
    # a Python range is an int64 index tensor of its values
    C("range", lambda L, x: x[range(2)], X),
    C("range_step_down", lambda L, x: x[range(2, -1, -2)], X),
    C("range_empty", lambda L, x: x[range(0)], X),
    C("range_target", lambda L, x: x[range(3), L.tensor([0, 3, 1])], X),
    C("range_dim1", lambda L, x: x[:, range(1, 3)], X),
    C("ellipsis_none_range", lambda L, x: x[..., None, range(1, 3)], X3),
    C("none_ellipsis_int", lambda L, x: x[None, ..., 0], X3),
    C("none_range_none", lambda L, x: x[None, range(2), None], X3),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,specs", BASIC + ADVANCED)
def test_indexing(fn, specs, dtype, device):
    check_op(fn, specs, dtype, device)


@pytest.mark.parametrize("index", [
    pytest.param(lambda x: x[:], id="slice"),
    pytest.param(lambda x: x[...], id="ellipsis"),
    pytest.param(lambda x: x[:, :], id="colon_colon"),
    pytest.param(lambda x: x[0], id="int"),
    pytest.param(lambda x: x[None], id="none"),
    pytest.param(lambda x: x[[0]], id="list"),
])
def test_index_result_is_new_object_and_view(libs, index):
    """Every index returns a new tensor object; basic indices give views of x, tensor indices
    a copy."""
    from minigrad.parity import compare

    def facts(lib):
        x = lib.tensor(np.ones((3, 4), dtype=np.float32), requires_grad=True)
        y = index(x)
        return {"is_x": y is x, "view": y._is_view(), "base_is_x": y._base is x}

    compare(*(facts(lib) for lib in libs))


INDEX_LAYOUTS = {
    "column_list": lambda L, x: x[:, [0, 0]],
    "transposed": lambda L, x: x.transpose(0, 2)[:, [0, 1]],
    "rows": lambda L, x: x[[0, 1]], "last_dim": lambda L, x: x[:, :, [1, 2]],
    "apart": lambda L, x: x[[0, 1], :, [0, 1]], "two_adjacent": lambda L, x: x[:, [0, 1], [1, 2]],
    "ellipsis": lambda L, x: x[..., [0, 1], :], "broadcast": lambda L, x: x[:, [[0], [1]], [1, 2]],
    "permuted": lambda L, x: x.permute(1, 2, 0)[:, [1, 2]], "mask": lambda L, x: x[x[..., 0] > 3],
    "sliced_then_index": lambda L, x: x[:, 1:, [1, 2]],
}


@pytest.mark.parametrize("name", list(INDEX_LAYOUTS))
def test_index_result_layout(name, device):
    """Advanced indexing lays its result out as PyTorch's TensorIterator does (row-major for a
    contiguous input, following the input's order of strides otherwise), so whether the result
    is contiguous — and whether ``.view(-1)`` of it works — matches PyTorch."""
    from minigrad.parity import assert_parity, to_numpy
    from tests.parity.test_tensor_meta import err, mk

    def scenario(lib, device):
        x = mk(lib, device, np.arange(24.0).reshape(2, 3, 4), requires_grad=True)
        y = INDEX_LAYOUTS[name](lib, x)
        strides = [st for n, st in zip(y.shape, y.stride()) if n != 1]
        return to_numpy(y), strides, y.is_contiguous(), err(lambda: y.view(-1).shape)

    assert_parity(scenario, device=device)
