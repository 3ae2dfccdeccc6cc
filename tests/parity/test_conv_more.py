"""Parity of ``conv1d``/``Conv1d``, ``conv_transpose2d``/``ConvTranspose2d``,
``adaptive_max_pool2d``/``AdaptiveMaxPool2d`` and ``interpolate``/``Upsample``.

Forward values, gradients of input/weight/bias, graph (node names, edges, including the
``Unsqueeze``/``Squeeze`` nodes around unbatched inputs and the ``ConstantPadNd`` of an odd
``'same'`` padding), saved attributes, errors (type and message), module repr and state_dict
keys. Convolution tolerance as in ``test_conv_pool.py`` (float32 sums in different orders).
"""

import re
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import error_of, leaf, rand, run_op, saved_names

torch = pytest.importorskip("torch")

CONV_TOL = {"rtol": 1e-5, "atol": 1e-5}


def _ids(cases):
    return [f"{c[0]}-{c[1]}-{c[2]}" for c in cases]


def _saved_values(node):
    out = {}
    for name in saved_names(node):
        v = getattr(node, name)
        out[name] = ("tensor", tuple(v.shape)) if hasattr(v, "shape") else v
    return out


def _errors(fn):
    """(type, message) raised by ``fn`` on both libraries; equal up to the library name in a
    printed ``Size``."""
    errs = [error_of(lib, lambda F, lib=lib: fn(lib, F)) for lib in (minigrad, torch)]
    if errs[1] is not None:
        errs[1] = (errs[1][0], errs[1][1].replace("torch.Size", "minigrad.Size"))
    assert errs[0] is not None and errs[0] == errs[1], errs
    return errs[0]


# ----------------------------------------------------------------------------- conv1d
CONV1D_CASES = [
    ((2, 3, 9), (4, 3, 3), {}),
    ((2, 3, 10), (4, 3, 3), {"padding": 1}),
    ((2, 3, 11), (5, 3, 2), {"stride": 2, "padding": (2,)}),
    ((1, 2, 13), (3, 2, 3), {"dilation": 3, "padding": 2}),
    ((2, 4, 9), (6, 2, 3), {"groups": 2, "stride": (3,), "dilation": (2,)}),
    ((1, 4, 7), (8, 1, 3), {"groups": 4}),
    ((2, 3, 8), (4, 3, 1), {}),
    ((2, 3, 8), (4, 3, 5), {"padding": "same"}),
    ((2, 3, 8), (4, 3, 4), {"padding": "same"}),
    ((2, 3, 9), (4, 3, 3), {"padding": "same", "dilation": 3}),
    ((2, 3, 8), (4, 3, 3), {"padding": "valid"}),
    ((3, 8), (4, 3, 3), {"padding": 1}),
    ((2, 3, 5), (4, 3, 5), {}),
]


def _conv1d(F, x, w, b, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 'same' with an even kernel warns
        return F.conv1d(x, w, b, **kwargs)


@pytest.mark.parametrize("xs,ws,kwargs", CONV1D_CASES, ids=_ids(CONV1D_CASES))
@pytest.mark.parametrize("bias", [True, False])
def test_conv1d_values_grads_graph(device, xs, ws, kwargs, bias):
    arrays = [rand(*xs), rand(*ws), rand(ws[0]) if bias else None]
    assert_parity(run_op, lambda F, x, w, b: _conv1d(F, x, w, b, kwargs), arrays,
                  device=device, **CONV_TOL)


@pytest.mark.parametrize("no_grad", [(0,), (1,), (1, 2)], ids=["input", "weight", "w+b"])
def test_conv1d_inputs_without_grad(device, no_grad):
    assert_parity(run_op, lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
                  [rand(2, 3, 9), rand(4, 3, 3), rand(4)], no_grad=no_grad, device=device,
                  **CONV_TOL)


def test_conv1d_non_contiguous_input(device):
    assert_parity(run_op, lambda F, x, w, b: F.conv1d(x.transpose(1, 2), w, b, padding=1),
                  [rand(2, 9, 3), rand(4, 3, 3), rand(4)], device=device, **CONV_TOL)


@pytest.mark.parametrize("kwargs,bias", [
    ({"padding": 1}, True), ({"stride": 2, "dilation": 2, "groups": 3}, False),
    ({"padding": "same"}, True), ({"padding": "valid"}, False),
])
def test_conv1d_saved_attributes(device, kwargs, bias):
    def scenario(lib, xa, wa, ba, device):
        x, w, b = leaf(lib, xa, device), leaf(lib, wa, device), leaf(lib, ba, device)
        node = lib.nn.functional.conv1d(x, w, b, **kwargs).grad_fn
        return {"saved": _saved_values(node), "input_is_x": node._saved_input is x,
                "weight_is_w": node._saved_weight is w}

    assert_parity(scenario, rand(2, 6, 11), rand(6, 6 // kwargs.get("groups", 1), 3),
                  rand(6) if bias else None, device=device)


CONV1D_ERRORS = {
    "channels": ((2, 2, 8), (4, 3, 3), None, {}),
    "channels_groups": ((1, 3, 8), (4, 3, 3), None, {"groups": 2}),
    "groups_divisible": ((1, 4, 8), (3, 2, 3), None, {"groups": 2}),
    "kernel_too_large": ((2, 3, 2), (4, 3, 3), None, {}),
    "bias_size": ((1, 3, 4), (4, 3, 3), (3,), {}),
    "input_rank": ((2, 3, 8, 8), (4, 3, 3), None, {}),
    "weight_rank": ((1, 3, 8), (4, 3, 3, 3), None, {}),
    "padding_string": ((1, 3, 4), (4, 3, 3), None, {"padding": "foo"}),
    "same_strided": ((1, 3, 4), (4, 3, 3), None, {"padding": "same", "stride": 2}),
    "stride_zero": ((1, 3, 4), (4, 3, 3), None, {"stride": 0}),
    "stride_len": ((1, 3, 4), (4, 3, 3), None, {"stride": (1, 2)}),
    "padding_negative": ((1, 3, 4), (4, 3, 3), None, {"padding": -1}),
    "dilation_zero": ((2, 3, 8), (4, 3, 3), None, {"dilation": 0}),
    "groups_zero": ((1, 3, 4), (4, 3, 3), None, {"groups": 0}),
}


@pytest.mark.parametrize("name", sorted(CONV1D_ERRORS))
def test_conv1d_errors(name):
    xs, ws, bs, kwargs = CONV1D_ERRORS[name]
    x, w, b = rand(*xs), rand(*ws), None if bs is None else rand(*bs)
    _errors(lambda lib, F: F.conv1d(lib.tensor(x), lib.tensor(w),
                                    None if b is None else lib.tensor(b), **kwargs))


# ----------------------------------------------------------------------------- conv_transpose2d
CONVT_CASES = [
    ((2, 3, 5, 5), (3, 4, 3, 3), {}),
    ((2, 3, 5, 6), (3, 4, 3, 2), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 4, 4, 5), (4, 3, 3, 3), {"stride": (3, 2), "padding": (2, 0),
                                  "output_padding": (2, 1), "groups": 2, "dilation": (1, 2)}),
    ((2, 2, 4, 4), (2, 3, 3, 3), {"dilation": 2, "padding": 3}),
    ((2, 2, 4, 4), (2, 3, 3, 3), {"stride": 1, "dilation": 3, "output_padding": 2}),
    ((3, 5, 5), (3, 4, 3, 3), {"stride": 2}),
    ((2, 3, 1, 1), (3, 2, 4, 4), {}),
]


@pytest.mark.parametrize("xs,ws,kwargs", CONVT_CASES, ids=_ids(CONVT_CASES))
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose2d_values_grads_graph(device, xs, ws, kwargs, bias):
    o = ws[1] * kwargs.get("groups", 1)
    arrays = [rand(*xs), rand(*ws), rand(o) if bias else None]
    assert_parity(run_op, lambda F, x, w, b: F.conv_transpose2d(x, w, b, **kwargs), arrays,
                  device=device, **CONV_TOL)


@pytest.mark.parametrize("no_grad", [(0,), (1,), (1, 2)], ids=["input", "weight", "w+b"])
def test_conv_transpose2d_inputs_without_grad(device, no_grad):
    assert_parity(run_op, lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2),
                  [rand(2, 3, 4, 4), rand(3, 2, 3, 3), rand(2)], no_grad=no_grad,
                  device=device, **CONV_TOL)


def test_conv_transpose2d_non_contiguous_input(device):
    assert_parity(run_op, lambda F, x, w, b: F.conv_transpose2d(x.permute(0, 1, 3, 2), w, b,
                                                                stride=2, padding=1),
                  [rand(2, 3, 6, 4), rand(3, 2, 3, 3), rand(2)], device=device, **CONV_TOL)


def test_conv_transpose2d_saved_attributes(device):
    def scenario(lib, xa, wa, ba, device):
        x, w, b = leaf(lib, xa, device), leaf(lib, wa, device), leaf(lib, ba, device)
        node = lib.nn.functional.conv_transpose2d(x, w, b, 2, 1, 1, 2, 1).grad_fn
        return {"saved": _saved_values(node), "input_is_x": node._saved_input is x}

    assert_parity(scenario, rand(2, 4, 5, 5), rand(4, 3, 3, 3), rand(6), device=device)


CONVT_ERRORS = {
    "output_padding": ((2, 3, 5, 5), (3, 4, 3, 3), None, {"stride": 2, "output_padding": 2}),
    "channels": ((2, 4, 5, 5), (3, 4, 3, 3), None, {}),
    "groups_divisible": ((2, 4, 5, 5), (4, 3, 3, 3), None, {"groups": 3}),
    "bias_size": ((2, 4, 5, 5), (4, 3, 3, 3), (4,), {}),
    "input_rank": ((2, 5), (4, 3, 3, 3), None, {}),
    "padding_negative": ((2, 4, 5, 5), (4, 3, 3, 3), None, {"padding": -1}),
    "stride_zero": ((2, 4, 5, 5), (4, 3, 3, 3), None, {"stride": 0}),
    "weight_rank": ((2, 4, 5, 5), (4, 3, 3), None, {}),
    "padding_string": ((2, 4, 5, 5), (4, 3, 3, 3), None, {"padding": "same"}),
    "output_too_small": ((1, 4, 1, 1), (4, 3, 3, 3), None, {"padding": 2}),
}


@pytest.mark.parametrize("name", sorted(CONVT_ERRORS))
def test_conv_transpose2d_errors(name):
    xs, ws, bs, kwargs = CONVT_ERRORS[name]
    x, w, b = rand(*xs), rand(*ws), None if bs is None else rand(*bs)
    _errors(lambda lib, F: F.conv_transpose2d(lib.tensor(x), lib.tensor(w),
                                              None if b is None else lib.tensor(b), **kwargs))


def _empty_batch(lib, fn, xa, wa, ba):
    x, w, b = (lib.tensor(a, requires_grad=True) for a in (xa, wa, ba))
    y = fn(lib.nn.functional, x, w, b)
    y.sum().backward()
    return {"shape": tuple(y.shape), "graph": graph_trace(y), "gx": to_numpy(x.grad),
            "gw": to_numpy(w.grad), "gb": to_numpy(b.grad)}


@pytest.mark.parametrize("fn,shapes", [
    (lambda F, x, w, b: F.conv1d(x, w, b, padding=1), ((0, 3, 8), (4, 3, 3), (4,))),
    (lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2), ((0, 3, 5, 5), (3, 4, 3, 3),
                                                                (4,))),
], ids=["conv1d", "conv_transpose2d"])
def test_empty_batch(fn, shapes):
    assert_parity(_empty_batch, fn, *(rand(*s) for s in shapes))


def test_conv_transpose2d_dtype_mismatch():
    x, w = rand(1, 2, 4, 4), rand(2, 3, 3, 3)
    _errors(lambda lib, F: F.conv_transpose2d(lib.tensor(x), lib.tensor(w).double()))


# ----------------------------------------------------------------------------- modules
def _module_trace(lib, make, xa, call=None):
    lib.manual_seed(0)
    m = make(lib.nn)
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(lib.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)) * (i + 1)))
    x = lib.tensor(xa, requires_grad=True)
    y = m(x) if call is None else call(m, x)
    y.sum().backward()
    kinds = [isinstance(m, c) for c in (lib.nn.Conv1d, lib.nn.Conv2d, lib.nn.ConvTranspose2d)]
    return {"repr": repr(m), "keys": list(m.state_dict()), "out": to_numpy(y), "kinds": kinds,
            "shapes": {k: tuple(v.shape) for k, v in m.state_dict().items()},
            "gx": to_numpy(x.grad), "grads": [to_numpy(p.grad) for p in m.parameters()]}


MODULES = {
    "conv1d": (lambda nn: nn.Conv1d(4, 6, 3), (2, 4, 9)),
    "conv1d_opts": (lambda nn: nn.Conv1d(4, 6, 2, stride=2, padding=1, dilation=2, groups=2,
                                         bias=False), (2, 4, 9)),
    "conv1d_same": (lambda nn: nn.Conv1d(4, 6, 5, padding="same"), (4, 9)),
    "convt": (lambda nn: nn.ConvTranspose2d(4, 6, 3), (2, 4, 5, 5)),
    "convt_opts": (lambda nn: nn.ConvTranspose2d(4, 6, (3, 2), stride=2, padding=1,
                                                 output_padding=1, groups=2, bias=False,
                                                 dilation=(1, 2)), (2, 4, 5, 5)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_conv_modules(name):
    make, shape = MODULES[name]
    assert_parity(_module_trace, make, rand(*shape), **CONV_TOL)


@pytest.mark.parametrize("size", [(11, 12), [2, 6, 12, 11], (6, 12, 11)])
def test_conv_transpose2d_output_size(size):
    shape = (6, 6, 6) if len(size) == 3 else (2, 6, 6, 6)
    assert_parity(_module_trace, lambda nn: nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1),
                  rand(*shape), lambda m, x: m(x, output_size=size), **CONV_TOL)


@pytest.mark.parametrize("size", [(20, 11), (11,), (1, 2, 3)])
def test_conv_transpose2d_output_size_errors(size):
    def fn(lib, F):
        m = lib.nn.ConvTranspose2d(6, 4, 3, stride=2, padding=1)
        m(lib.tensor(rand(2, 6, 6, 6)), output_size=size)
    _errors(fn)


@pytest.mark.parametrize("make", [
    lambda nn: nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"),
    lambda nn: nn.Conv1d(4, 6, 3, groups=4),
    lambda nn: nn.Conv1d(4, 6, 3, padding="same", stride=2),
    lambda nn: nn.Conv1d(4, 6, 3, padding="full"),
    lambda nn: nn.Conv1d(4, 6, 3, padding_mode="mirror"),
], ids=["convt_mode", "groups", "same_strided", "padding_string", "padding_mode"])
def test_conv_module_errors(make):
    # (the messages print a Python set of the valid choices, in hash order: compared as sets)
    errs = [error_of(lib, lambda F, lib=lib: make(lib.nn)) for lib in (minigrad, torch)]
    assert errs[0] is not None and errs[1] is not None
    split = [(t, re.sub(r"\{[^}]*\}", "{}", m), set(re.findall(r"'(\w+)'", m)))
             for t, m in errs]
    assert split[0] == split[1], errs


# ----------------------------------------------------------------------------- adaptive max
AMAX_CASES = [
    ((2, 3, 8, 8), 4), ((2, 3, 7, 5), (3, 2)), ((1, 2, 5, 7), (4, None)), ((3, 5, 6), 4),
    ((2, 2, 4, 5), (7, 9)), ((1, 1, 5, 5), 1), ((2, 3, 6, 6), (6, 6)), ((2, 2, 11, 3), (5, 2)),
]


@pytest.mark.parametrize("shape,size", AMAX_CASES, ids=[f"{c[0]}-{c[1]}" for c in AMAX_CASES])
def test_adaptive_max_pool2d(device, shape, size):
    def fn(F, x):
        out, idx = F.adaptive_max_pool2d(x, size, return_indices=True)
        assert not idx.requires_grad
        return out + idx * 0  # the indices enter the compared values
    assert_parity(run_op, fn, [rand(*shape)], device=device)


def test_adaptive_max_pool2d_indices_ties_nan(device):
    a = np.zeros((1, 2, 5, 6), dtype=np.float32)
    a[0, 0, 1, 1] = a[0, 0, 3, 4] = 2.0
    a[0, 1, 0, 2] = a[0, 1, 2, 3] = a[0, 1, 4, 4] = np.nan
    a[0, 1, 4, :2] = -np.inf

    def scenario(lib, arr, device):
        x = leaf(lib, arr, device)
        out, idx = lib.nn.functional.adaptive_max_pool2d(x, (3, 4), return_indices=True)
        node = out.grad_fn
        out2, idx2 = lib.nn.functional.adaptive_max_pool2d_with_indices(x, (3, 4))
        assert np.array_equal(to_numpy(idx2), to_numpy(idx))
        return {"out": to_numpy(out), "idx": to_numpy(idx), "saved": _saved_values(node),
                "out2": to_numpy(out2), "node2": out2.grad_fn.name(),
                "result1": to_numpy(node._saved_result1), "self_is_x": node._saved_self is x}

    assert_parity(scenario, a, device=device)


def test_adaptive_max_pool2d_non_contiguous_and_empty_batch(device):
    assert_parity(run_op, lambda F, x: F.adaptive_max_pool2d(x.transpose(2, 3), (2, 3)),
                  [rand(2, 3, 7, 5)], device=device)

    def empty(lib, arr, device):
        x = leaf(lib, arr, device)
        y = lib.nn.functional.adaptive_max_pool2d(x, 2)
        y.sum().backward()
        return {"shape": tuple(y.shape), "graph": graph_trace(y), "gx": to_numpy(x.grad)}

    assert_parity(empty, rand(0, 3, 4, 5), device=device)


def test_adaptive_max_pool2d_double_backward_refused():
    x = minigrad.tensor(rand(1, 2, 5, 5), requires_grad=True)
    y = minigrad.nn.functional.adaptive_max_pool2d(x, 2).sum()
    with pytest.raises(NotImplementedError, match="double backward"):
        minigrad.autograd.grad(y, [x], create_graph=True)


@pytest.mark.parametrize("shape,size,dtype", [
    ((2, 5), 2, "float32"), ((2, 3, 0, 5), 2, "float32"), ((2, 3, 4, 5), (2, 2, 2), "float32"),
    ((2, 3, 4, 5), -1, "float32"), ((3, 4, 5), 2, "int64"),
])
def test_adaptive_max_pool2d_errors(shape, size, dtype):
    arr = rand(*shape).astype(dtype)
    _errors(lambda lib, F: F.adaptive_max_pool2d(lib.tensor(arr), size))


@pytest.mark.parametrize("size,ret", [((2, None), False), (3, True)])
def test_adaptive_max_pool2d_module(size, ret):
    def scenario(lib, arr):
        m = lib.nn.AdaptiveMaxPool2d(size, ret)
        x = lib.tensor(arr, requires_grad=True)
        out = m(x)
        y = out[0] if ret else out
        y.sum().backward()
        return {"repr": repr(m), "keys": list(m.state_dict()), "out": to_numpy(y),
                "idx": to_numpy(out[1]) if ret else None, "gx": to_numpy(x.grad),
                "graph": graph_trace(y)}
    assert_parity(scenario, rand(2, 3, 7, 6))


@pytest.mark.parametrize("size,shape", [((2, None), (2, 3, 7, 6)), (1, (3, 5, 4)),
                                        ((3, 4), (2, 2, 7, 9))])
def test_adaptive_avg_pool2d_module(size, shape):
    def scenario(lib, arr):
        m = lib.nn.AdaptiveAvgPool2d(size)
        x = lib.tensor(arr, requires_grad=True)
        y = m(x)
        y.sum().backward()
        return {"repr": repr(m), "keys": list(m.state_dict()), "out": to_numpy(y),
                "gx": to_numpy(x.grad), "graph": graph_trace(y)}
    assert_parity(scenario, rand(*shape))


# ----------------------------------------------------------------------------- interpolate
INTERP_CASES = [
    ((2, 3, 5, 5), {"scale_factor": 2}),
    ((2, 3, 5, 6), {"scale_factor": 1.7}),
    ((2, 3, 5, 6), {"scale_factor": (0.6, 2.5)}),
    ((2, 3, 5, 6), {"size": (7, 3)}),
    ((2, 3, 5, 6), {"size": 4}),
    ((2, 3, 5, 6), {"size": (5, 6)}),
    ((2, 3, 5, 6), {"scale_factor": 1.5, "recompute_scale_factor": True}),
    ((2, 3, 4, 7), {"scale_factor": 1.3, "recompute_scale_factor": False}),
    ((1, 1, 1, 1), {"size": (3, 2)}),
    ((2, 3, 7), {"scale_factor": 2.3}),
    ((2, 3, 7), {"size": 4}),
    ((1, 2, 3, 4, 5), {"scale_factor": (2, 1.5, 0.5)}),
]
MODES = [("nearest", None), ("bilinear", False), ("bilinear", True), ("linear", False),
         ("linear", True)]


@pytest.mark.parametrize("shape,kwargs", INTERP_CASES, ids=[f"{c[0]}-{c[1]}"
                                                             for c in INTERP_CASES])
@pytest.mark.parametrize("mode,align", MODES, ids=[f"{m}-{a}" for m, a in MODES])
def test_interpolate(device, shape, kwargs, mode, align):
    k = len(shape) - 2
    if mode != "nearest" and {"linear": 1, "bilinear": 2}[mode] != k:
        pytest.skip("mode needs another rank (errors tested below)")
    assert_parity(run_op, lambda F, x: F.interpolate(x, mode=mode, align_corners=align,
                                                     **kwargs), [rand(*shape)], device=device)


@pytest.mark.parametrize("mode,align", [("nearest", None), ("bilinear", True)])
def test_interpolate_saved_float64_noncontiguous(device, mode, align):
    def scenario(lib, arr, device):
        x = leaf(lib, arr, device)
        y = lib.nn.functional.interpolate(x.transpose(2, 3), scale_factor=(1.5, 2.25),
                                          mode=mode, align_corners=align)
        y.backward(lib.ones_like(y) * lib.arange(y.shape[-1], dtype=y.dtype, device=y.device))
        return {"saved": _saved_values(y.grad_fn), "out": to_numpy(y), "gx": to_numpy(x.grad),
                "graph": graph_trace(y)}

    assert_parity(scenario, rand(2, 2, 5, 4, dtype=np.float64), device=device)


def test_interpolate_unbatched_and_empty(device):
    assert_parity(run_op, lambda F, x: F.interpolate(x[None], scale_factor=2), [rand(3, 4, 5)],
                  device=device)

    def empty(lib, arr, device):
        x = leaf(lib, arr, device)
        y = lib.nn.functional.interpolate(x, size=3, mode="bilinear")
        y.sum().backward()
        return {"shape": tuple(y.shape), "graph": graph_trace(y), "gx": to_numpy(x.grad)}

    assert_parity(empty, rand(0, 3, 4, 5), device=device)


INTERP_ERRORS = {
    "both": ((1, 2, 4, 4), {"size": 3, "scale_factor": 2}),
    "neither": ((1, 2, 4, 4), {}),
    "size_len": ((1, 2, 4, 4), {"size": (3, 3, 3)}),
    "size_type": ((1, 2, 4, 4), {"size": (3, 2.5)}),
    "scale_len": ((1, 2, 4, 4), {"scale_factor": (2,)}),
    "align_nearest": ((1, 2, 4, 4), {"size": 3, "align_corners": True}),
    "recompute_size": ((1, 2, 4, 4), {"size": 3, "recompute_scale_factor": True}),
    "bilinear_3d": ((1, 2, 4), {"size": 3, "mode": "bilinear"}),
    "linear_4d": ((1, 2, 4, 4), {"size": 3, "mode": "linear"}),
    "rank": ((2, 4), {"size": 3}),
    "zero_out": ((1, 2, 4, 4), {"size": 0}),
    "zero_out_1d": ((1, 2, 4), {"size": 0}),
    "zero_in": ((1, 2, 0, 4), {"size": 3}),
    "small_scale": ((1, 2, 4, 4), {"scale_factor": 0.2}),
}


@pytest.mark.parametrize("name", sorted(INTERP_ERRORS))
def test_interpolate_errors(name):
    shape, kwargs = INTERP_ERRORS[name]
    arr = rand(*shape)
    _errors(lambda lib, F: F.interpolate(lib.tensor(arr), **kwargs))


@pytest.mark.parametrize("kwargs", [
    {"scale_factor": 2}, {"scale_factor": (2, 1.5), "mode": "bilinear"},
    {"size": (3, 7), "mode": "bilinear", "align_corners": True}, {"size": 4},
    {"scale_factor": 1.5, "recompute_scale_factor": True},
])
@pytest.mark.parametrize("cls", ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"])
def test_upsample_module(kwargs, cls):
    if cls != "Upsample" and set(kwargs) - {"size", "scale_factor"}:
        pytest.skip("the fixed-mode subclasses take only size and scale_factor")

    def scenario(lib, arr):
        m = getattr(lib.nn, cls)(**kwargs)
        x = lib.tensor(arr, requires_grad=True)
        y = m(x)
        y.sum().backward()
        return {"repr": repr(m), "keys": list(m.state_dict()), "out": to_numpy(y),
                "gx": to_numpy(x.grad), "graph": graph_trace(y), "scale": m.scale_factor}
    assert_parity(scenario, rand(2, 3, 5, 4))


# ------------------------------------------------------------------ reflect / replicate pad
PAD_CASES = [((2, 3, 6), (2, 1)), ((3, 6), (2, -1)), ((2, 3, 6, 5), (2, 1, 1, 3)),
             ((3, 6, 5), (1, 1, 0, 2)), ((0, 3, 4), (1, 2)), ((1, 2, 4, 4), (-1, 3, 3, -2))]


@pytest.mark.parametrize("shape,pad", PAD_CASES, ids=[f"{c[0]}-{c[1]}" for c in PAD_CASES])
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_reflect_replicate(device, shape, pad, mode):
    _pad_parity(device, shape, pad, mode)


# (not PAD_CASES' (-1, 3, 3, -2): a pad larger than the cropped size makes PyTorch read its
# uninitialised output, so its values are undefined)
CIRCULAR_CASES = PAD_CASES[:-1] + [((1, 2, 3, 4, 5), (1, 2, 0, 1, 2, 2)), ((2, 3, 4), (4, 4)),
                                   ((2, 3, 6), (-2, 3)), ((1, 2, 4, 4), (-1, 2, 1, -2))]


@pytest.mark.parametrize("shape,pad", CIRCULAR_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CIRCULAR_CASES])
def test_pad_circular(device, shape, pad):
    """A composition (empty output, slices copied in place): CopySlices over SliceBackward0."""
    def scenario(lib, arr, device):
        x = leaf(lib, arr, device)
        y = lib.nn.functional.pad(x, pad, mode="circular")
        w = lib.arange(y.numel(), dtype=y.dtype, device=y.device).reshape(tuple(y.shape))
        (y * w).sum().backward()
        return {"out": to_numpy(y), "gx": to_numpy(x.grad), "graph": graph_trace(y)}

    assert_parity(scenario, rand(*shape), device=device)


def _pad_parity(device, shape, pad, mode):
    def scenario(lib, arr, device):
        x = leaf(lib, arr, device)
        y = lib.nn.functional.pad(x, pad, mode=mode)
        saved = (_saved_values(y.grad_fn), y.grad_fn._saved_self is x)
        w = lib.arange(y.numel(), dtype=y.dtype, device=y.device).reshape(tuple(y.shape))
        (y * w).sum().backward()
        return {"out": to_numpy(y), "gx": to_numpy(x.grad), "graph": graph_trace(y),
                "saved": saved}

    assert_parity(scenario, rand(*shape), device=device)


@pytest.mark.parametrize("shape,pad,kwargs", [
    ((2, 3, 2), (2, 1), {"mode": "reflect"}), ((2, 3, 2, 4), (1, 1, 2, 1), {"mode": "reflect"}),
    ((2, 3, 0), (1, 1), {"mode": "replicate"}), ((6,), (1, 1), {"mode": "reflect"}),
    ((2, 3, 6), (1, 1, 1), {"mode": "reflect"}), ((2, 3, 6), (1,) * 6, {"mode": "replicate"}),
    ((2, 3, 6), (1, 1), {"mode": "foo"}), ((2, 3, 6), (1, 1), {"mode": "reflect", "value": 1.0}),
    ((2, 3, 4), (5, 1), {"mode": "circular"}), ((2, 3, 0), (1, 1), {"mode": "circular"}),
    ((6,), (1, 1), {"mode": "circular"}), ((2, 3, 6), (1, 1, 1), {"mode": "circular"}),
])
def test_pad_reflect_replicate_errors(shape, pad, kwargs):
    arr = rand(*shape)
    _errors(lambda lib, F: F.pad(lib.tensor(arr), pad, **kwargs))


@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.Conv1d(3, 4, 3, padding=2, padding_mode="reflect"), (2, 3, 7)),
    (lambda nn: nn.Conv1d(3, 4, 4, padding="same", padding_mode="replicate"), (3, 7)),
    (lambda nn: nn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode="reflect"), (2, 3, 5, 6)),
    (lambda nn: nn.Conv2d(3, 4, (2, 3), padding="same", padding_mode="replicate"),
     (2, 3, 5, 6)),
    (lambda nn: nn.Conv1d(3, 4, 3, padding=2, padding_mode="circular"), (2, 3, 7)),
    (lambda nn: nn.Conv2d(3, 4, 3, padding=(1, 2), padding_mode="circular"), (3, 5, 6)),
], ids=["conv1d_reflect", "conv1d_same_replicate", "conv2d_reflect", "conv2d_same_replicate",
        "conv1d_circular", "conv2d_circular"])
def test_conv_padding_modes(make, shape):
    def scenario(lib, arr):
        trace = _module_trace(lib, make, arr)
        lib.manual_seed(0)
        m = make(lib.nn)
        trace["graph"] = graph_trace(m(lib.tensor(arr, requires_grad=True)))
        return trace

    assert_parity(scenario, rand(*shape), **CONV_TOL)
