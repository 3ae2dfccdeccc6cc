"""Parity of ``nll_loss``, ``cross_entropy``, ``mse_loss`` and ``l1_loss``.

Values, gradients, graphs and saved attributes (``NllLossBackward0``: ``ignore_index`` as
uint64, ``reduction`` enum, ``total_weight``...; ``MseLossBackward0``), over reductions,
class weights, ``ignore_index``, spatial (N, C, d1, ...) inputs, label smoothing and
probability targets; errors and the broadcasting warning.
"""

import warnings

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import RNG, error_of, is_torch, leaf, rand, saved_names

torch = pytest.importorskip("torch")


def _target(lib, arr, device):
    return lib.tensor(arr, device=device) if is_torch(lib) else lib.tensor(arr)


def loss_scenario(lib, fn, x_arr, t_arr, w_arr=None, t_grad=False, device="cpu"):
    """``fn(F, x, target, weight)``: values, graph, saved names and values, grads."""
    F = lib.nn.functional
    x = leaf(lib, x_arr, device)
    t = leaf(lib, t_arr, device) if t_grad else _target(lib, t_arr, device)
    w = None if w_arr is None else _target(lib, w_arr, device)
    out = fn(F, x, t, w)
    node = out.grad_fn
    saved = {}
    for name in saved_names(node):
        v = getattr(node, name)
        saved[name] = to_numpy(v) if hasattr(v, "shape") else v
    if device == "cuda" and saved.get("_saved_reduction") == 0 and "_saved_total_weight" in saved:
        # PyTorch's CUDA kernel leaves total_weight uninitialised for reduction='none'.
        saved["_saved_total_weight"] = "not computed for reduction='none' on CUDA"
    trace = {"out": to_numpy(out), "graph": graph_trace(out), "saved": saved}
    g = np.linspace(-1.0, 2.0, max(out.numel(), 1)).astype(np.float32).reshape(tuple(out.shape))
    out.backward(leaf(lib, g, device, requires_grad=False))
    trace["grad"] = to_numpy(x.grad)
    if t_grad:
        trace["target_grad"] = to_numpy(t.grad)
    return trace


def _classes(shape, c, ignore=()):
    t = RNG.integers(0, c, shape).astype(np.int64)
    for i in ignore:
        t.flat[i] = -100
    return t


# ----------------------------------------------------------------------------- nll / CE
NLL_CASES = {
    "2d": ((4, 5), (4,), ()),
    "2d_ignored": ((6, 5), (6,), (1, 4)),
    "1d": ((5,), (), ()),
    "4d": ((2, 5, 3, 4), (2, 3, 4), (0, 7)),
    "3d": ((2, 5, 3), (2, 3), (2,)),
    "5d": ((2, 3, 2, 2, 3), (2, 2, 2, 3), ()),
}


@pytest.mark.parametrize("case", sorted(NLL_CASES))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy(device, case, reduction, weighted):
    xs, ts, ignore = NLL_CASES[case]
    c = xs[0] if len(xs) == 1 else xs[1]
    w = RNG.random(c).astype(np.float32) + 0.5 if weighted else None
    assert_parity(loss_scenario, lambda F, x, t, w: F.cross_entropy(x, t, w, reduction=reduction),
                  rand(*xs), _classes(ts, c, ignore), w, device=device)


@pytest.mark.parametrize("case", sorted(NLL_CASES))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_on_leaf(device, case, reduction):
    xs, ts, ignore = NLL_CASES[case]
    c = xs[0] if len(xs) == 1 else xs[1]
    assert_parity(loss_scenario, lambda F, x, t, w: F.nll_loss(x, t, reduction=reduction),
                  rand(*xs), _classes(ts, c, ignore), device=device)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_custom_ignore_index_and_all_ignored(device, reduction):
    t = np.array([1, 2, 2], np.int64)
    assert_parity(loss_scenario, lambda F, x, t, w: F.nll_loss(x, t, ignore_index=2,
                                                               reduction=reduction),
                  rand(3, 5), t, device=device)
    all_ignored = np.full(3, -100, np.int64)  # mean: 0/0 = nan, gradient 0
    assert_parity(loss_scenario, lambda F, x, t, w: F.nll_loss(x, t, reduction=reduction),
                  rand(3, 5), all_ignored, device=device)


def test_nll_loss_uint8_target(device):
    assert_parity(loss_scenario, lambda F, x, t, w: F.nll_loss(x, t),
                  rand(4, 3), np.array([0, 2, 1, 2], np.uint8), device=device)


def test_cross_entropy_non_contiguous_logits(device):
    assert_parity(loss_scenario, lambda F, x, t, w: F.cross_entropy(x.t(), t),
                  rand(5, 4), _classes((4,), 5), device=device)


def test_nll_loss_saved_attribute_names():
    traces = []
    for lib in (minigrad, torch):
        x = lib.tensor(rand(3, 5), requires_grad=True)
        node = lib.nn.functional.nll_loss(x, lib.tensor(np.array([1, 0, 4]))).grad_fn
        traces.append((saved_names(node), node._saved_ignore_index, node._saved_reduction,
                       node._saved_self is x, node._saved_weight))
    assert traces[0] == traces[1]
    assert traces[1][1] == 18446744073709551516  # -100 as uint64, as PyTorch stores it


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", ["2d", "2d_ignored", "3d", "1d"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_label_smoothing(device, reduction, case, weighted):
    xs, ts, ignore = NLL_CASES[case]
    c = xs[0] if len(xs) == 1 else xs[1]
    w = RNG.random(c).astype(np.float32) + 0.5 if weighted else None
    fn = lambda F, x, t, w: F.cross_entropy(x, t, w, reduction=reduction,  # noqa: E731
                                            label_smoothing=0.1)
    assert_parity(loss_scenario, fn, rand(*xs), _classes(ts, c, ignore), w, device=device)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("xs", [(3, 5), (2, 5, 3), (5,)])
@pytest.mark.parametrize("weighted,smoothing", [(False, 0.0), (True, 0.0), (False, 0.2)])
def test_cross_entropy_probability_targets(device, reduction, xs, weighted, smoothing):
    c = xs[0] if len(xs) == 1 else xs[1]
    p = RNG.random(xs).astype(np.float32)
    p /= p.sum(axis=0 if len(xs) == 1 else 1, keepdims=True)
    w = RNG.random(c).astype(np.float32) + 0.5 if weighted else None
    fn = lambda F, x, t, w: F.cross_entropy(x, t, w, reduction=reduction,  # noqa: E731
                                            label_smoothing=smoothing)
    assert_parity(loss_scenario, fn, rand(*xs), p, w, device=device)


def test_cross_entropy_probability_target_requires_grad(device):
    p = RNG.random((3, 4)).astype(np.float32)
    assert_parity(loss_scenario, lambda F, x, t, w: F.cross_entropy(x, t), rand(3, 4), p,
                  t_grad=True, device=device)


def test_cross_entropy_input_without_grad_has_no_graph(device):
    def scenario(lib, xa, ta, device):
        out = lib.nn.functional.cross_entropy(leaf(lib, xa, device, requires_grad=False),
                                              _target(lib, ta, device))
        return to_numpy(out), out.grad_fn is None, out.requires_grad

    assert_parity(scenario, rand(3, 4), _classes((3,), 4), device=device)


LOSS_ERRORS = {
    "target_out_of_range": lambda F, lib: F.cross_entropy(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([1, 7, 0]))),
    "nll_target_negative": lambda F, lib: F.nll_loss(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([1, -3, 0]))),
    "nll_2d_target_out_of_range": lambda F, lib: F.nll_loss(
        lib.tensor(rand(2, 5, 3, 4)), lib.tensor(np.full((2, 3, 4), 9))),
    "batch_mismatch": lambda F, lib: F.cross_entropy(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([1, 0]))),
    "batch_mismatch_nll": lambda F, lib: F.nll_loss(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([1, 0]))),
    "batch_mismatch_2d_target": lambda F, lib: F.cross_entropy(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([[1, 0, 2]]))),
    "float_target": lambda F, lib: F.nll_loss(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([1.0, 0.0, 2.0], np.float32))),
    "int32_target": lambda F, lib: F.nll_loss(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([1, 0, 2], np.int32))),
    "multi_target": lambda F, lib: F.cross_entropy(
        lib.tensor(rand(3, 5)), lib.tensor(rand(3, 4))),
    "bad_reduction": lambda F, lib: F.cross_entropy(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([1, 0, 2])), reduction="foo"),
    "weight_size": lambda F, lib: F.cross_entropy(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([1, 0, 2])), weight=lib.ones(4)),
    "weight_dtype": lambda F, lib: F.nll_loss(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([1, 0, 2])),
        weight=lib.ones(5, dtype=lib.float64)),
    "spatial_target_rank": lambda F, lib: F.cross_entropy(
        lib.tensor(rand(2, 5, 3, 4)), lib.tensor(np.zeros((2, 4), np.int64))),
    "spatial_size": lambda F, lib: F.cross_entropy(
        lib.tensor(rand(2, 5, 3, 4)), lib.tensor(np.zeros((2, 3, 5), np.int64))),
    "zero_dim_input": lambda F, lib: F.nll_loss(
        lib.tensor(np.float32(1.0)), lib.tensor(1)),
    "label_smoothing_range": lambda F, lib: F.cross_entropy(
        lib.tensor(rand(3, 5)), lib.tensor(np.array([1, 0, 2])), label_smoothing=1.5),
    "mse_bad_reduction": lambda F, lib: F.mse_loss(
        lib.tensor(rand(3, 2)), lib.tensor(rand(3, 2)), reduction="bad"),
    "mse_not_broadcastable": lambda F, lib: F.mse_loss(
        lib.tensor(rand(3, 2)), lib.tensor(rand(3))),
}


@pytest.mark.parametrize("name", sorted(LOSS_ERRORS))
def test_loss_errors(name):
    errs = []
    for lib in (minigrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            errs.append(error_of(lib, lambda F, lib=lib: LOSS_ERRORS[name](F, lib)))
    assert errs[0] is not None and errs[0] == errs[1]


def test_loss_error_key_messages():
    # The two errors the brief names, spelled out (also covered by test_loss_errors).
    e = error_of(minigrad, lambda F: LOSS_ERRORS["target_out_of_range"](F, minigrad))
    assert e == ("IndexError", "Target 7 is out of bounds.")
    e = error_of(minigrad, lambda F: LOSS_ERRORS["batch_mismatch"](F, minigrad))
    assert e == ("ValueError", "Expected input batch_size (3) to match target batch_size (2).")


# ----------------------------------------------------------------------------- mse / l1
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("t_grad", [False, True])
@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss"])
def test_regression_losses(device, reduction, t_grad, loss):
    fn = lambda F, x, t, w: getattr(F, loss)(x, t, reduction=reduction)  # noqa: E731
    assert_parity(loss_scenario, fn, rand(3, 4), rand(3, 4), t_grad=t_grad, device=device)


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("xs,ts", [((3, 1), (3,)), ((4,), (3, 4)), ((3, 4), (4,))])
def test_regression_losses_broadcast_with_warning(device, loss, xs, ts):
    def scenario(lib, xa, ta, device):
        x, t = leaf(lib, xa, device), _target(lib, ta, device)
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            out = getattr(lib.nn.functional, loss)(x, t)
        msgs = [str(w.message).replace("minigrad.Size", "torch.Size") for w in ws]
        out.backward()
        return {"out": to_numpy(out), "graph": graph_trace(out), "grad": to_numpy(x.grad),
                "warnings": [w.category.__name__ for w in ws], "messages": msgs}

    assert_parity(scenario, rand(*xs), rand(*ts), device=device)


def test_mse_loss_saved_values_and_promotion(device):
    def scenario(lib, xa, ta, device):
        x = leaf(lib, xa, device)
        t = _target(lib, ta, device).double()
        out = lib.nn.functional.mse_loss(x, t, reduction="sum")
        node = out.grad_fn
        return {"dtype": str(out.dtype).split(".")[-1], "names": saved_names(node),
                "reduction": node._saved_reduction, "self_is_x": node._saved_self is x,
                "graph": graph_trace(out), "out": to_numpy(out)}

    assert_parity(scenario, rand(3, 4), rand(3, 4), device=device)


def test_legacy_size_average_flags(device):
    def scenario(lib, xa, ta, device):
        x, t = leaf(lib, xa, device), _target(lib, ta, device)
        F = lib.nn.functional
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            a = F.mse_loss(x, t, size_average=False)
            b = F.cross_entropy(x, _target(lib, np.zeros(3, np.int64), device), reduce=False)
        return to_numpy(a), to_numpy(b), [w.category.__name__ for w in ws]

    assert_parity(scenario, rand(3, 4), rand(3, 4), device=device)
