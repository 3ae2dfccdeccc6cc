"""Parity of shape / view ops and joins: view reshape transpose permute .T .mT t unsqueeze
squeeze expand flatten contiguous clone split chunk unbind narrow repeat cat stack. Checks values,
graph (which reshape is a view, an alias or a copy), saved attributes and gradients."""

import numpy as np
import pytest

from ._opcheck import In, check_op


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


X = In(3, 4)
X3 = In(2, 3, 4)
XT = In(3, 4, T=True)  # non-contiguous leaf (a transposed view, detached)

VIEWS = [
    C("view", lambda L, x: x.view(12), X),
    C("view_infer", lambda L, x: x.view(-1, 2), X3),
    C("view_tuple", lambda L, x: x.view((4, 3)), X),
    C("view_same_shape", lambda L, x: x.view(3, 4), X),
    C("view_size1_T", lambda L, x: x.t().view(3), In(3, 1)),
    C("view_as", lambda L, x, y: x.view_as(y), X, In(6, 2, grad=False)),
    C("reshape_contig", lambda L, x: x.reshape(12), X),
    C("reshape_fn", lambda L, x: L.reshape(x, (4, -1)), X3),
    C("reshape_same", lambda L, x: x.reshape(3, 4), X),
    C("reshape_T_copy", lambda L, x: x.t().reshape(12), X),
    C("reshape_noncontig_leaf", lambda L, x: x.reshape(-1), XT),
    C("reshape_alias_T", lambda L, x: x.t().reshape(4, 3), X),
    C("reshape_alias_slice", lambda L, x: x[:, :2].reshape(3, 2), X),
    C("reshape_copy_slice", lambda L, x: x[:, :2].reshape(2, 3), X),
    C("reshape_alias_step", lambda L, x: x[:, ::2].reshape(6), X),
    C("reshape_unsqueezed_T", lambda L, x: x.t().unsqueeze(0).reshape(4, 3), X),
    C("reshape_as", lambda L, x, y: x.reshape_as(y), XT, In(2, 6, grad=False)),
    C("transpose", lambda L, x: x.transpose(0, 1), X),
    C("transpose_neg", lambda L, x: x.transpose(-1, -3), X3),
    C("transpose_fn_same", lambda L, x: L.transpose(x, 1, 1), X3),
    C("t", lambda L, x: x.t(), X),
    C("t_1d", lambda L, x: x.t(), In(4)),
    C("t_fn", lambda L, x: L.t(x), XT),
    C("T_2d", lambda L, x: x.T, X),
    pytest.param(lambda L, x: x.T, (X3,), id="T_3d",
                 marks=pytest.mark.filterwarnings("ignore:The use of `x.T`")),
    C("mT", lambda L, x: x.mT, X3),
    C("permute", lambda L, x: x.permute(2, 0, 1), X3),
    C("permute_tuple_neg", lambda L, x: x.permute((-1, 0, 1)), X3),
    C("permute_fn", lambda L, x: L.permute(x, (1, 0)), X),
    C("unsqueeze", lambda L, x: x.unsqueeze(0), X),
    C("unsqueeze_neg", lambda L, x: x.unsqueeze(-1), X),
    C("unsqueeze_mid_fn", lambda L, x: L.unsqueeze(x, 1), X3),
    C("squeeze_all", lambda L, x: x.squeeze(), In(1, 3, 1, 4)),
    C("squeeze_none_to_drop", lambda L, x: x.squeeze(), X),
    C("squeeze_dim", lambda L, x: x.squeeze(0), In(1, 3, 4)),
    C("squeeze_dim_neg", lambda L, x: x.squeeze(-1), In(3, 4, 1)),
    C("squeeze_dim_not1", lambda L, x: x.squeeze(1), X),
    C("squeeze_tuple", lambda L, x: x.squeeze((0, 2)), In(1, 3, 1, 4)),
    C("squeeze_fn", lambda L, x: L.squeeze(x, 2), In(3, 4, 1)),
    C("squeeze_0dim", lambda L, x: x.squeeze(), In()),
    C("expand", lambda L, x: x.expand(2, 3, 4), X),
    C("expand_same", lambda L, x: x.expand(3, 4), X),
    C("expand_size1", lambda L, x: x.expand(3, 5, 4), In(3, 1, 4)),
    C("expand_minus1", lambda L, x: x.expand(2, -1, 4), In(3, 1)),
    C("expand_tuple", lambda L, x: x.expand((2, 4)), In(4)),
    C("expand_as", lambda L, x, y: x.expand_as(y), In(4), In(3, 4, grad=False)),
    C("expand_0dim", lambda L, x: x.expand(2, 3), In()),
    C("expand_then_sum", lambda L, x: (x.expand(2, 3, 4) * 2).sum(0), X),
    C("flatten", lambda L, x: x.flatten(), X3),
    C("flatten_start", lambda L, x: x.flatten(1), X3),
    C("flatten_neg", lambda L, x: L.flatten(x, 0, -2), X3),
    C("flatten_same_dim", lambda L, x: x.flatten(1, 1), X3),
    C("flatten_T", lambda L, x: x.flatten(), XT),
    C("flatten_0dim", lambda L, x: x.flatten(), In()),
    C("flatten_1d", lambda L, x: x.flatten(), In(4)),
    C("contiguous_T", lambda L, x: x.t().contiguous(), X),
    C("contiguous_leaf_T", lambda L, x: x.contiguous(), XT),
    C("clone", lambda L, x: x.clone(), X),
    C("clone_T", lambda L, x: L.clone(x), XT),
    C("unflatten", lambda L, x: x.unflatten(1, (2, 2)), X),
]

MULTI = [
    C("split", lambda L, x: x.split(2), In(5, 3)),
    C("split_dim_neg", lambda L, x: x.split(3, -1), X),
    C("split_sizes", lambda L, x: x.split([1, 3], 1), X),
    C("split_sizes_fn", lambda L, x: L.split(x, [2, 1], dim=0), X),
    C("split_one_used", lambda L, x: x.split(2)[1] * 2, In(5, 3)),
    C("split_two_used", lambda L, x: (lambda s: s[0] + s[1])(x.split(1)), X),
    C("chunk", lambda L, x: x.chunk(2), In(5, 3)),
    C("chunk_neg", lambda L, x: L.chunk(x, 3, -1), X),
    C("chunk_uneven", lambda L, x: x.chunk(4, 1), In(3, 6)),
    C("unbind", lambda L, x: x.unbind(), X),
    C("unbind_neg", lambda L, x: L.unbind(x, -1), X3),
    C("unbind_one_used", lambda L, x: x.unbind(1)[2] * 1, X),
    C("narrow", lambda L, x: x.narrow(1, 1, 2), X),
    C("narrow_neg_dim", lambda L, x: L.narrow(x, -1, 0, 3), X3),
    C("narrow_neg_start", lambda L, x: x.narrow(0, -2, 2), X),
    C("repeat", lambda L, x: x.repeat(2, 1), X),
    C("repeat_more_dims", lambda L, x: x.repeat(2, 1, 3), X),
    C("repeat_T", lambda L, x: x.repeat(1, 2), XT),
    C("repeat_tuple", lambda L, x: x.repeat((3,)), In(2)),
]

JOIN = [
    C("cat", lambda L, x, y: L.cat([x, y]), X, X),
    C("cat_dim1", lambda L, x, y: L.cat((x, y), 1), X, In(3, 2)),
    C("cat_neg_dim", lambda L, x, y: L.cat([x, y], dim=-1), X3, In(2, 3, 1)),
    C("cat_repeat_input", lambda L, x, y: L.cat([x, y, x]), X, In(1, 4)),
    C("cat_nograd_mid", lambda L, x, p, y: L.cat([x, p, y]), X, In(2, 4, grad=False), X),
    C("cat_T", lambda L, x, y: L.cat([x, y], 1), XT, X),
    C("cat_promote", lambda L, x, y: L.cat([x, y]), In(2, dtype="float32"),
      In(3, dtype="float64")),
    C("cat_single", lambda L, x: L.cat([x]), X),
    C("stack", lambda L, x, y: L.stack([x, y]), X, X),
    C("stack_dim1", lambda L, x, y: L.stack((x, y), 1), X, X),
    C("stack_neg", lambda L, x, y: L.stack([x, y], -1), X, X),
    C("stack_nograd_mid", lambda L, x, p, y: L.stack([x, p, y]), X, In(3, 4, grad=False), X),
    C("stack_0dim", lambda L, x, y: L.stack([x, y]), In(), In()),
    C("stack_T", lambda L, x, y: L.stack([x, y], 2), XT, X),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,specs", VIEWS + MULTI + JOIN)
def test_shape(fn, specs, dtype, device):
    check_op(fn, specs, dtype, device)


def test_T_on_3d_warns():
    """``x.T`` on a 3-D tensor warns (deprecation). torch warns once per process, so its
    warning is captured in a fresh interpreter."""
    import subprocess
    import sys
    import warnings

    import minigrad

    code = "import torch; torch.ones(2, 3, 4).T"
    err = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True,
                         text=True, timeout=60).stderr
    phrase = "The use of `x.T` on tensors of dimension other than 2"
    assert phrase in err and "UserWarning" in err
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _ = minigrad.ones(2, 3, 4).T
        _ = minigrad.ones(2, 3).T
    assert [(x.category, phrase in str(x.message)) for x in w] == [(UserWarning, True)]


def _view_facts(lib, op):
    x = lib.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4), requires_grad=True)
    y = op(x)
    return {"base_is_x": y._base is x, "is_view": y._is_view(),
            "contiguous": y.is_contiguous(), "stride": tuple(y.stride())}


@pytest.mark.parametrize("op", [
    pytest.param(lambda t: t.view(12), id="view"),
    pytest.param(lambda t: t.t(), id="t"),
    pytest.param(lambda t: t.t().reshape(4, 3), id="reshape_alias"),
    pytest.param(lambda t: t.t().reshape(12), id="reshape_copy"),
    pytest.param(lambda t: t[:, 1:], id="slice"),
    pytest.param(lambda t: t.expand(2, 3, 4), id="expand"),
    pytest.param(lambda t: t.unsqueeze(1), id="unsqueeze"),
    pytest.param(lambda t: t.split(2)[1], id="split"),
    pytest.param(lambda t: t.clone(), id="clone"),
])
def test_view_metadata(op):
    """Which results are views of their input (``_base``, ``_is_view``, strides)."""
    import minigrad
    from minigrad.parity import compare, torch_lib

    compare(_view_facts(minigrad, op), _view_facts(torch_lib(), op))


LAYOUTS = {
    "transposed": lambda x: x.transpose(0, 2), "sliced": lambda x: x[:, ::2],
    "expanded": lambda x: x.expand(2, 2, 3, 4),
    "permuted_size1": lambda x: x.permute(1, 0, 2)[None],
    "permuted_sliced": lambda x: x.permute(2, 0, 1)[:, ::2],
    "expanded_column": lambda x: x[:, :, :1].expand(2, 3, 5),
    "transposed_sliced": lambda x: x.transpose(0, 1)[::2],
    "empty_transposed": lambda x: x[0, :0].t(),
    "expanded_transposed": lambda x: x[0].t()[None].expand(3, 4, 3), "row": lambda x: x[:1],
}


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_clone_preserves_layout(name, device):
    """``clone()`` keeps a dense tensor's strides (a transposed clone is not contiguous) and
    lays out others densely in their order of strides; ``contiguous_format`` and
    ``contiguous()`` give row-major strides; values, graph and gradients as PyTorch."""
    from minigrad.parity import assert_parity, graph_trace, to_numpy
    from tests.parity.test_tensor_meta import mk

    def scenario(lib, device):
        x = mk(lib, device, np.arange(24.0).reshape(2, 3, 4), requires_grad=True)
        v = LAYOUTS[name](x)
        c, r = v.clone(), v.clone(memory_format=lib.contiguous_format)
        (c * 2 + r.exp()).sum().backward()
        return (c.stride(), c.is_contiguous(), r.stride(), v.contiguous().stride(),
                to_numpy(c), graph_trace(c), to_numpy(x.grad))

    assert_parity(scenario, device=device)
