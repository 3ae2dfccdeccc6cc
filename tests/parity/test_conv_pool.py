"""Parity of ``conv2d``, ``max_pool2d``, ``avg_pool2d``, ``adaptive_avg_pool2d`` and ``pad``.

Forward values, gradients of input/weight/bias, graph, saved-attribute names and values, and
errors, over shapes, strides, paddings (ints, pairs, ``'same'``, ``'valid'``), dilations,
groups, ``ceil_mode``, unbatched and non-contiguous inputs, inputs that do not require grad,
and no bias.

Tolerance for convolutions: ``rtol=1e-5, atol=1e-5``. Each output is a float32 sum of up to
``C/groups * kh * kw`` products (and each weight gradient a sum over ``N * OH * OW``);
minigrad (NumPy BLAS) and PyTorch (oneDNN / cuDNN) add them in different orders, so
results differ by a few float32 ulps of the *summands*, which ``atol=1e-6`` alone can reject
for outputs near zero.
"""

import warnings

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, to_numpy

from .test_functional import error_of, leaf, rand, run_op, saved_names

torch = pytest.importorskip("torch")

CONV_TOL = {"rtol": 1e-5, "atol": 1e-5}

# (input shape, weight shape, kwargs)
CONV_CASES = [
    ((2, 3, 8, 8), (4, 3, 3, 3), {}),
    ((2, 3, 8, 8), (4, 3, 3, 3), {"padding": 1}),
    ((2, 3, 9, 7), (5, 3, 3, 2), {"stride": 2, "padding": (1, 2)}),
    ((1, 2, 10, 9), (3, 2, 3, 3), {"dilation": 2, "padding": 2}),
    ((2, 3, 11, 8), (4, 3, 2, 3), {"stride": (3, 1), "dilation": (1, 2)}),
    ((2, 4, 7, 9), (6, 2, 3, 3), {"groups": 2, "padding": 1}),
    ((1, 4, 6, 6), (8, 1, 3, 3), {"groups": 4, "stride": 2}),
    ((2, 3, 8, 8), (4, 3, 1, 1), {}),
    ((2, 3, 8, 8), (4, 3, 3, 5), {"padding": "same"}),
    ((2, 3, 8, 8), (4, 3, 3, 3), {"padding": "same", "dilation": 2}),
    ((2, 3, 8, 8), (4, 3, 3, 3), {"padding": "valid"}),
    ((1, 3, 8, 8), (4, 3, 2, 2), {"padding": "same"}),
    ((1, 3, 8, 8), (4, 3, 2, 4), {"padding": "same", "dilation": (1, 2)}),
    ((3, 8, 8), (4, 3, 3, 3), {"padding": 1}),
    ((2, 3, 5, 5), (4, 3, 5, 5), {}),
]


def _ids(cases):
    return [f"{c[0]}-{c[1]}-{c[2]}" for c in cases]


def _conv(F, x, w, b, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 'same' with an even kernel warns (tested below)
        return F.conv2d(x, w, b, **kwargs)


@pytest.mark.parametrize("xs,ws,kwargs", CONV_CASES, ids=_ids(CONV_CASES))
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("layout", ["batch-first", "batch-last"])
def test_conv2d_values_grads_graph(device, xs, ws, kwargs, bias, layout, monkeypatch):
    # minigrad lays the im2col columns out batch-last below an output width (conv.py): both
    # layouts, whatever the width of these small cases
    width = {"batch-first": 0, "batch-last": 10**9}[layout]
    monkeypatch.setattr(minigrad._ops.conv, "BATCH_LAST_BELOW_WIDTH", width)
    arrays = [rand(*xs), rand(*ws), rand(ws[0]) if bias else None]
    assert_parity(run_op, lambda F, x, w, b: _conv(F, x, w, b, kwargs), arrays, device=device,
                  **CONV_TOL)


@pytest.mark.parametrize("no_grad", [(0,), (1,), (1, 2)], ids=["input", "weight", "w+b"])
def test_conv2d_inputs_without_grad(device, no_grad):
    arrays = [rand(2, 3, 7, 7), rand(4, 3, 3, 3), rand(4)]
    assert_parity(run_op, lambda F, x, w, b: F.conv2d(x, w, b, stride=2, padding=1), arrays,
                  no_grad=no_grad, device=device, **CONV_TOL)


@pytest.mark.parametrize("perm", [(0, 1, 3, 2), (1, 0, 2, 3)])
def test_conv2d_non_contiguous_input(device, perm):
    x = rand(2, 3, 8, 6).transpose(perm).copy()  # the leaf; the op sees its permutation
    assert_parity(run_op, lambda F, x, w, b: F.conv2d(x.permute(*perm), w, b, padding=1),
                  [x, rand(4, x.shape[perm[1]], 3, 3), rand(4)], device=device, **CONV_TOL)


def _saved_values(node):
    out = {}
    for name in saved_names(node):
        v = getattr(node, name)
        out[name] = ("tensor", tuple(v.shape)) if hasattr(v, "shape") else v
    return out


@pytest.mark.parametrize("kwargs,bias", [
    ({"padding": 1}, True), ({"stride": (2, 1), "dilation": 2, "groups": 3}, False),
    ({"padding": "same"}, True), ({"padding": "valid"}, False),
])
def test_conv2d_saved_attributes(device, kwargs, bias):
    def scenario(lib, xa, wa, ba, device):
        x, w, b = leaf(lib, xa, device), leaf(lib, wa, device), leaf(lib, ba, device)
        node = lib.nn.functional.conv2d(x, w, b, **kwargs).grad_fn
        return {"saved": _saved_values(node), "input_is_x": node._saved_input is x,
                "weight_is_w": node._saved_weight is w}

    assert_parity(scenario, rand(2, 6, 9, 9), rand(6, 6 // kwargs.get("groups", 1), 3, 3),
                  rand(6) if bias else None, device=device)


def test_conv2d_same_even_kernel_pads(device):
    def scenario(lib, xa, wa, device):
        x, w = leaf(lib, xa, device), leaf(lib, wa, device)
        out = _conv(lib.nn.functional, x, w, None, {"padding": "same"})
        pad_node = out.grad_fn.next_functions[0][0]
        return {"pad": pad_node._saved_pad, "padding": out.grad_fn._saved_padding,
                "input_shape": tuple(out.grad_fn._saved_input.shape), "shape": tuple(out.shape)}

    assert_parity(scenario, rand(1, 3, 8, 8), rand(4, 3, 4, 2), device=device)


def test_conv2d_same_even_kernel_warns():
    # PyTorch warns once per process (TORCH_WARN_ONCE), so only minigrad's side is checked
    # here; the text is PyTorch's.
    x, w = minigrad.tensor(rand(1, 3, 8, 8)), minigrad.tensor(rand(4, 3, 2, 2))
    with pytest.warns(UserWarning, match="padding='same' with even kernel lengths and odd "
                                         "dilation may require a zero-padded copy"):
        minigrad.nn.functional.conv2d(x, w, padding="same")


def test_conv2d_backward_twice_needs_retain_graph():
    def scenario(lib, xa, wa):
        x, w = lib.tensor(xa, requires_grad=True), lib.tensor(wa, requires_grad=True)
        y = lib.nn.functional.conv2d(x, w).sum()
        y.backward(retain_graph=True)
        y.backward()
        grads = (to_numpy(x.grad), to_numpy(w.grad))
        try:
            y.backward()
        except RuntimeError as e:
            return grads, "backward through the graph a second time" in str(e)
        return grads, None

    assert_parity(scenario, rand(1, 2, 5, 5), rand(3, 2, 3, 3), **CONV_TOL)


CONV_ERRORS = {
    "channels": ((2, 2, 8, 8), (4, 3, 3, 3), None, {}),
    "channels_unbatched": ((2, 8, 8), (4, 3, 3, 3), None, {}),
    "channels_groups": ((1, 3, 4, 4), (4, 3, 3, 3), None, {"groups": 2}),
    "groups_divisible": ((1, 4, 8, 8), (3, 2, 3, 3), None, {"groups": 2}),
    "kernel_too_large": ((2, 3, 2, 2), (4, 3, 3, 3), None, {}),
    "dilated_kernel_too_large": ((1, 3, 4, 4), (4, 3, 3, 3), None,
                                 {"padding": (0, 1), "dilation": (2, 3)}),
    "bias_size": ((1, 3, 4, 4), (4, 3, 3, 3), (3,), {}),
    "input_rank": ((8, 8), (4, 3, 3, 3), None, {}),
    "weight_rank": ((1, 3, 4, 4), (4, 3, 3), None, {}),
    "padding_string": ((1, 3, 4, 4), (4, 3, 3, 3), None, {"padding": "foo"}),
    "same_strided": ((1, 3, 4, 4), (4, 3, 3, 3), None, {"padding": "same", "stride": 2}),
    "stride_zero": ((1, 3, 4, 4), (4, 3, 3, 3), None, {"stride": 0}),
    "padding_negative": ((1, 3, 4, 4), (4, 3, 3, 3), None, {"padding": -1}),
    "dilation_zero": ((2, 3, 8, 8), (4, 3, 3, 3), None, {"dilation": 0}),
    "groups_zero": ((1, 3, 4, 4), (4, 3, 3, 3), None, {"groups": 0}),
    "padding_len": ((1, 3, 4, 4), (4, 3, 3, 3), None, {"padding": (1, 2, 3)}),
}


@pytest.mark.parametrize("name", sorted(CONV_ERRORS))
def test_conv2d_errors(name):
    xs, ws, bs, kwargs = CONV_ERRORS[name]
    x, w, b = rand(*xs), rand(*ws), None if bs is None else rand(*bs)
    errs = [error_of(lib, lambda F, lib=lib: F.conv2d(
        lib.tensor(x), lib.tensor(w), None if b is None else lib.tensor(b), **kwargs))
        for lib in (minigrad, torch)]
    assert errs[0] is not None and errs[0] == errs[1]


def test_conv2d_dtype_mismatch_error():
    # (PyTorch's wording depends on its backend; batch 2 takes the generic CPU path.)
    x, w = rand(2, 3, 4, 4), rand(4, 3, 3, 3)
    errs = [error_of(lib, lambda F, lib=lib: F.conv2d(lib.tensor(x), lib.tensor(w).double()))
            for lib in (minigrad, torch)]
    assert errs[0][0] == errs[1][0] == "RuntimeError"
    assert all("should be the same" in e[1] for e in errs)


# ----------------------------------------------------------------------------- max pool
# (input shape, args, kwargs)
MAXPOOL_CASES = [
    ((2, 3, 8, 8), (2,), {}),
    ((2, 3, 9, 7), (3,), {"stride": 2, "padding": 1}),
    ((2, 3, 9, 7), ((3, 2),), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ((1, 2, 6, 6), (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ((1, 2, 5, 5), (2,), {"ceil_mode": True}),
    ((2, 2, 8, 8), ((2, 3),), {"stride": (1, 2), "dilation": 2}),
    ((2, 2, 10, 9), (3,), {"stride": 1, "padding": 1, "dilation": 2}),
    ((3, 8, 8), (2,), {}),
    ((2, 3, 4, 4), (4,), {}),
]


@pytest.mark.parametrize("xs,args,kwargs", MAXPOOL_CASES, ids=_ids(MAXPOOL_CASES))
def test_max_pool2d_values_grads_graph(device, xs, args, kwargs):
    assert_parity(run_op, lambda F, x: F.max_pool2d(x, *args, **kwargs), [rand(*xs)],
                  device=device)


@pytest.mark.parametrize("xs,args,kwargs", MAXPOOL_CASES, ids=_ids(MAXPOOL_CASES))
def test_max_pool2d_indices_and_saved(device, xs, args, kwargs):
    def scenario(lib, xa, device):
        x = leaf(lib, xa, device)
        out, idx = lib.nn.functional.max_pool2d(x, *args, return_indices=True, **kwargs)
        node = out.grad_fn
        saved = {n: getattr(node, n) for n in saved_names(node) if n not in
                 ("_saved_self", "_saved_result1")}
        return {"indices": to_numpy(idx), "idx_dtype": str(idx.dtype).split(".")[-1],
                "idx_grad": idx.requires_grad, "saved_names": saved_names(node), "saved": saved,
                "result1": to_numpy(node._saved_result1), "self_is_x": node._saved_self is x}

    assert_parity(scenario, rand(*xs), device=device)


def test_max_pool2d_ties_and_overlaps(device):
    # Ties go to the first maximum in the window; overlapping windows add their gradients.
    x = np.array([[[[1, 5, 5, 2], [0, 0, 9, 9], [3, 3, -1, 7], [1, 4, 1, 1]]]], np.float32)
    assert_parity(run_op, lambda F, x: F.max_pool2d(x, 2, 1), [x], device=device)


@pytest.mark.parametrize("arr,kwargs", [
    ([[[[np.nan, 1, np.nan, 2], [3, np.nan, 4, 5]]]], {"kernel_size": 2}),
    ([[[[-np.inf, -np.inf], [-np.inf, -np.inf]]]], {"kernel_size": 2, "padding": 1}),
    ([[[[-np.inf, -np.inf, -np.inf, 1], [-np.inf] * 3 + [2], [-np.inf] * 3 + [3]]]],
     {"kernel_size": (3, 2), "padding": 1, "dilation": (1, 2), "stride": 1}),
], ids=["last_nan_wins", "all_neg_inf_padded", "neg_inf_dilated"])
def test_max_pool2d_nan_and_neg_inf_indices(device, arr, kwargs):
    # PyTorch keeps the *last* NaN of a window, and for an all -inf window the first cell
    # inside the input (never a padding cell).
    def scenario(lib, xa, device):
        out, idx = lib.nn.functional.max_pool2d(leaf(lib, xa, device, requires_grad=False),
                                                return_indices=True, **kwargs)
        return to_numpy(out), to_numpy(idx)

    assert_parity(scenario, np.array(arr, np.float32), device=device)


def test_max_pool2d_not_requiring_grad(device):
    def scenario(lib, xa, device):
        out = lib.nn.functional.max_pool2d(leaf(lib, xa, device, requires_grad=False), 2)
        return to_numpy(out), out.grad_fn is None, out.requires_grad

    assert_parity(scenario, rand(1, 2, 4, 4), device=device)


def test_max_pool2d_non_contiguous(device):
    assert_parity(run_op, lambda F, x: F.max_pool2d(x.transpose(2, 3), 3, 2, 1),
                  [rand(2, 3, 7, 9)], device=device)


MAXPOOL_ERRORS = {
    "pad_too_large": ((2, 3, 8, 8), (2,), {"padding": 2}),
    "pad_pair_too_large": ((3, 8, 8), (2,), {"padding": (1, 2)}),
    "output_too_small": ((2, 3, 1, 1), (2,), {}),
    "output_too_small_unbatched": ((3, 8, 8), (9,), {}),
    "stride_zero": ((2, 3, 8, 8), (2,), {"stride": 0}),
    "kernel_zero": ((2, 3, 8, 8), (0,), {}),
    "dilation_zero": ((2, 3, 8, 8), (2,), {"dilation": 0}),
    "kernel_len": ((2, 3, 8, 8), ((2, 2, 2),), {}),
    "input_rank": ((8, 8), (2,), {}),
    "pad_negative": ((2, 3, 8, 8), (2,), {"padding": -1}),
    "pad_negative_before_kernel": ((2, 3, 8, 8), (0, 1), {"padding": -1}),
    "pad_effective_kernel_w": ((2, 3, 8, 8), ((2, 3),), {"padding": (0, 2)}),
    "pad_half_kernel_dilated": ((2, 3, 8, 8), (3,), {"padding": 2, "dilation": 2}),
    "pad_half_kernel_pair": ((2, 3, 8, 8), ((3, 2),), {"padding": (2, 1), "dilation": (2, 1)}),
    "stride_before_pad": ((2, 3, 8, 8), (2,), {"stride": 0, "padding": -1}),
    "empty_channels": ((2, 0, 4, 4), (2,), {}),
}


@pytest.mark.parametrize("name", sorted(MAXPOOL_ERRORS))
def test_max_pool2d_errors(name):
    xs, args, kwargs = MAXPOOL_ERRORS[name]
    x = rand(*xs)
    errs = [error_of(lib, lambda F, lib=lib: F.max_pool2d(lib.tensor(x), *args, **kwargs))
            for lib in (minigrad, torch)]
    assert errs[0] is not None and errs[0] == errs[1]


# ----------------------------------------------------------------------------- avg pool
AVGPOOL_CASES = [
    ((2, 3, 8, 8), (2,), {}),
    ((2, 3, 9, 7), (3,), {"stride": 2, "padding": 1}),
    ((2, 3, 9, 7), (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ((1, 2, 6, 6), (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ((1, 2, 6, 6), (3,), {"stride": 2, "padding": 1, "ceil_mode": True,
                          "count_include_pad": False}),
    ((1, 2, 5, 5), ((2, 3),), {"stride": (1, 2), "ceil_mode": True}),
    ((2, 2, 7, 7), (3,), {"stride": 2, "divisor_override": 2}),
    ((3, 8, 8), (2,), {}),
]


@pytest.mark.parametrize("xs,args,kwargs", AVGPOOL_CASES, ids=_ids(AVGPOOL_CASES))
def test_avg_pool2d_values_grads_graph(device, xs, args, kwargs):
    assert_parity(run_op, lambda F, x: F.avg_pool2d(x, *args, **kwargs), [rand(*xs)],
                  device=device)


@pytest.mark.parametrize("xs,args,kwargs", AVGPOOL_CASES[:4], ids=_ids(AVGPOOL_CASES[:4]))
def test_avg_pool2d_saved(device, xs, args, kwargs):
    def scenario(lib, xa, device):
        node = lib.nn.functional.avg_pool2d(leaf(lib, xa, device), *args, **kwargs).grad_fn
        return {n: getattr(node, n) if n != "_saved_self" else None for n in saved_names(node)}

    assert_parity(scenario, rand(*xs), device=device)


def test_avg_pool2d_non_contiguous(device):
    assert_parity(run_op, lambda F, x: F.avg_pool2d(x.transpose(2, 3), 2),
                  [rand(2, 3, 6, 8)], device=device)


@pytest.mark.parametrize("args,kwargs", [((2,), {"padding": 2}), ((9,), {}),
                                         ((2,), {"stride": 0})])
def test_avg_pool2d_errors(args, kwargs):
    x = rand(2, 3, 8, 8)
    errs = [error_of(lib, lambda F, lib=lib: F.avg_pool2d(lib.tensor(x), *args, **kwargs))
            for lib in (minigrad, torch)]
    assert errs[0] is not None and errs[0] == errs[1]


# ----------------------------------------------------------------------------- adaptive, pad
@pytest.mark.parametrize("size", [1, (1, 1), 2, (3, 2), (None, 2), (7, 5), (9, 6)])
@pytest.mark.parametrize("xs", [(2, 3, 7, 5), (3, 7, 5)])
def test_adaptive_avg_pool2d(device, size, xs):
    assert_parity(run_op, lambda F, x: F.adaptive_avg_pool2d(x, size), [rand(*xs)],
                  device=device)


@pytest.mark.parametrize("pad", [(1, 1), (0, 1, 2, 3), (1, -1, 2, 0), (1, 2, 0, 0, 1, 1),
                                 (0, 0)])
def test_pad_constant(device, pad):
    assert_parity(run_op, lambda F, x: F.pad(x, pad, value=0.5), [rand(2, 3, 4, 5)],
                  device=device)


def test_pad_saved_and_errors():
    node_traces = [saved_names(lib.nn.functional.pad(
        lib.tensor(rand(2, 3), requires_grad=True), (1, 2)).grad_fn) for lib in (minigrad, torch)]
    assert node_traces[0] == node_traces[1] == ["_saved_pad"]
    x = rand(3, 8, 8)
    for pad in [(1, 2, 3), (1, 2, 3, 4, 5, 6, 7, 8)]:
        errs = [error_of(lib, lambda F, lib=lib, pad=pad: F.pad(lib.tensor(x), pad))
                for lib in (minigrad, torch)]
        assert errs[0] is not None and errs[0] == errs[1]


def test_conv_pool_graph_chain(device):
    # conv -> relu -> max_pool -> conv -> avg_pool: the whole chain's graph and gradients.
    def fn(F, x, w1, b1, w2):
        h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=1)), 2)
        return F.avg_pool2d(F.conv2d(h, w2, None, padding="same"), 2)

    arrays = [rand(2, 1, 8, 8), rand(4, 1, 3, 3), rand(4), rand(6, 4, 3, 3)]
    trace = assert_parity(run_op, fn, arrays, device=device, **CONV_TOL)[0]
    assert [n for n, _ in trace["graph"]][:4] == [
        "AvgPool2DBackward0", "ConvolutionBackward0", "MaxPool2DWithIndicesBackward0",
        "ReluBackward0"]


@pytest.mark.parametrize("op", ["conv2d", "max_pool2d", "avg_pool2d", "nll_loss"])
def test_saved_input_modified_in_place_errors(op):
    # Each node saves its input: changing it in place before backward must be detected.
    def scenario(lib, xa, wa):
        F = lib.nn.functional
        x = lib.tensor(xa, requires_grad=True)
        h = x * 1
        if op == "conv2d":
            out = F.conv2d(h, lib.tensor(wa)).sum()
        elif op == "nll_loss":
            out = F.nll_loss(h.flatten(1), lib.zeros(2, dtype=lib.int64))
        else:
            out = getattr(F, op)(h, 2).sum()
        h.add_(1)
        try:
            out.backward()
        except RuntimeError as e:
            return "modified by an inplace operation" in str(e), h._version
        return None

    trace = assert_parity(scenario, rand(2, 3, 4, 4), rand(2, 3, 3, 3))[0]
    assert trace[0] is True
