"""Parity of ``L1Loss``, ``BCELoss``, ``SmoothL1Loss``, ``HuberLoss``, ``KLDivLoss`` and
``F.binary_cross_entropy``, ``F.smooth_l1_loss``, ``F.huber_loss``, ``F.kl_div``: values and
gradients of input (and target where it requires grad) for every reduction, graphs and saved
attributes, warnings, buffers and errors.
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import leaf, rand
from .test_layers_more import _saved
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)
X = rand(4, 5, dtype=np.float64)
T = rand(4, 5, dtype=np.float64)
X[0, :3] = [0.25, 0.5, -0.75]
T[0, :3] = X[0, :3] + np.array([0.5, 1.0, -1.0])  # exactly on the beta/delta kinks
P = RNG.uniform(0.02, 0.98, (4, 5))
P[0, 0], P[0, 1] = 0.0, 1.0  # log clamped at -100
Q = RNG.uniform(0.0, 1.0, (4, 5))
Q[1, 1] = 0.0  # xlogy(0, 0) = 0
REDUCTIONS = ["mean", "sum", "none"]


def _warnings(w):
    return [(x.category.__name__, str(x.message).replace("torch", "minigrad")) for x in w]


def _run(lib, make_loss, x_arr, t_arr, device, target_grad=False, dtype=np.float64):
    x = leaf(lib, x_arr.astype(dtype), device)
    t = leaf(lib, t_arr.astype(dtype), device, requires_grad=target_grad)
    h = x * 1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = make_loss(lib, h, t)
    trace = {"out": to_numpy(out), "graph": graph_trace(out), "saved": _saved(out.grad_fn),
             "warnings": _warnings(w)}
    out.backward(lib.ones_like(out) * 0.5)
    trace["grad"] = to_numpy(x.grad)
    if target_grad:
        trace["tgrad"] = to_numpy(t.grad)
    return trace


MODULES = {
    "L1Loss": ((), X, T), "SmoothL1Loss": ((), X, T), "SmoothL1Loss_beta": ({"beta": 0.5}, X, T),
    "SmoothL1Loss_beta0": ({"beta": 0.0}, X, T), "HuberLoss": ((), X, T),
    "HuberLoss_delta": ({"delta": 0.5}, X, T), "BCELoss": ((), P, Q),
    "KLDivLoss": ((), X, Q), "KLDivLoss_log": ({"log_target": True}, X, T),
}


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("name", sorted(MODULES))
def test_loss_modules(device, name, reduction):
    kwargs, x_arr, t_arr = MODULES[name]
    if reduction == "batchmean" and not name.startswith("KLDiv"):
        pytest.skip("batchmean is KLDivLoss's")

    def scenario(lib, device):
        def make(lib, h, t):
            m = getattr(lib.nn, name.split("_")[0])(reduction=reduction, **dict(kwargs))
            return m(h, t)

        trace = _run(lib, make, x_arr, t_arr, device, target_grad=not name.startswith("BCE"))
        m = getattr(lib.nn, name.split("_")[0])(reduction=reduction, **dict(kwargs))
        trace["repr"], trace["keys"] = repr(m), list(m.state_dict())
        trace["attrs"] = {k: getattr(m, k) for k in ("reduction", "beta", "delta", "log_target")
                          if hasattr(m, k)}
        return trace

    assert_parity(scenario, device=device, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_weight_and_dtypes(device, reduction, dtype):
    wt = RNG.uniform(0.5, 2.0, 5)

    def scenario(lib, device):
        w = leaf(lib, wt.astype(dtype), device, requires_grad=False)
        trace = _run(lib, lambda lib, h, t: lib.nn.functional.binary_cross_entropy(
            h, t, weight=w, reduction=reduction), P, Q, device, target_grad=True, dtype=dtype)
        m = lib.nn.BCELoss(weight=w)
        trace["buffers"] = list(m.state_dict())
        return trace

    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    assert_parity(scenario, device=device, **tol)


@pytest.mark.parametrize("fn", ["smooth_l1_loss", "huber_loss", "l1_loss"])
def test_broadcast_warns_and_expands(device, fn):
    def scenario(lib, device):  # input (5, 4), non-contiguous; target (1, 4)
        return _run(lib, lambda lib, h, t: getattr(lib.nn.functional, fn)(h.t(), t),
                    X, T[:1, :4], device, target_grad=True)

    assert_parity(scenario, device=device, rtol=1e-12, atol=1e-12)


def test_huber_weight(device):
    wt = RNG.uniform(0.5, 2.0, (4, 5))

    def scenario(lib, device):
        F = lib.nn.functional
        w = leaf(lib, wt, device)
        traces = {r: _run(lib, lambda lib, h, t, r=r: F.huber_loss(h, t, reduction=r, delta=0.7,
                                                              weight=w), X, T, device)
                  for r in REDUCTIONS}
        traces["wgrad"] = to_numpy(w.grad)
        traces["shape"] = err(lambda: F.huber_loss(w, w, weight=w[0]),
                              "Weights and input must have the same size.")
        traces["red"] = err(lambda: F.huber_loss(w, w, reduction="x", weight=w), "Invalid")
        return traces

    assert_parity(scenario, device=device, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_batchmean_mean_warning_and_0d(device, log_target):
    def scenario(lib, device):
        F = lib.nn.functional
        t_arr = T if log_target else Q
        out = {r: _run(lib, lambda lib, h, t, r=r: F.kl_div(h, t, reduction=r,
                                                             log_target=log_target),
                       X, t_arr, device, target_grad=True) for r in ("batchmean", "mean")}
        x0 = leaf(lib, np.float64(-0.5), device)
        y = F.kl_div(x0, leaf(lib, np.float64(0.3), device, False), reduction="batchmean")
        out["0d"] = {"out": to_numpy(y), "graph": graph_trace(y)}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            legacy = F.kl_div(x0, x0.detach(), size_average=False)
        out["legacy"] = {"out": to_numpy(legacy), "warnings": _warnings(w)}
        return out

    assert_parity(scenario, device=device, rtol=1e-12, atol=1e-12)


def test_empty_inputs(device):
    def scenario(lib, device):
        F = lib.nn.functional
        e = leaf(lib, np.zeros((0, 3)), device)
        out = {}
        for r in REDUCTIONS:
            for name, fn in [("bce", F.binary_cross_entropy), ("smooth", F.smooth_l1_loss),
                             ("huber", F.huber_loss)]:
                y = fn(e, e.detach(), reduction=r)
                out[f"{name}-{r}"] = to_numpy(y)
                y.sum().backward()
            out[f"kl-{r}"] = to_numpy(F.kl_div(e, e.detach(), reduction=r))
        out["grad"] = to_numpy(e.grad)
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_parity(scenario, device=device)


def test_errors(device):
    def scenario(lib, device):
        F = lib.nn.functional
        p = leaf(lib, P, device)
        q = leaf(lib, Q, device, requires_grad=False)
        x = leaf(lib, X, device)
        before = p._version
        return {
            "bce_range": err(lambda: F.binary_cross_entropy(p * 2, q),
                             "all elements of input should be between 0 and 1"),
            "bce_shape": err(lambda: F.binary_cross_entropy(p, q[0]),
                             "that is different to the input size", "is deprecated"),
            "bce_dtype": err(lambda: F.binary_cross_entropy(p, q.float()),
                             "Found dtype Float but expected Double"),
            "bce_red": err(lambda: F.binary_cross_entropy(p, q, reduction="avg"),
                           "avg is not a valid value for reduction"),
            "bce_weight_grad": err(lambda: F.binary_cross_entropy(p, q, weight=p[0] * 1),
                                   "not differentiable with respect to argument 'weight'"),
            "beta": err(lambda: F.smooth_l1_loss(x, q, beta=-1.0),
                        "does not support negative values for beta"),
            "delta": err(lambda: F.huber_loss(x, q, delta=0.0),
                         "does not support non-positive values for delta"),
            "kl_red": err(lambda: F.kl_div(x, q, reduction="bad"),
                          "bad is not a valid value for reduction"),
            "smooth_red": err(lambda: lib.nn.SmoothL1Loss(reduction="no")(x, q),
                              "no is not a valid value for reduction"),
            "version": p._version - before, "grad": p.grad,
        }

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("fn,kw", [("smooth_l1_loss", {"beta": 0.5}),
                                   ("huber_loss", {"delta": 0.7})], ids=["smooth", "huber"])
def test_double_backward(device, fn, kw, reduction):
    def scenario(lib, device):
        x, t = leaf(lib, X, device), leaf(lib, T, device)
        out = getattr(lib.nn.functional, fn)(x, t, reduction=reduction, **kw)
        go = leaf(lib, np.full(tuple(out.shape), 0.7), device)
        gx, gt = lib.autograd.grad(out, (x, t), go, create_graph=True)
        trace = {"gx": to_numpy(gx), "gt": to_numpy(gt), "graph": graph_trace(gx),
                 "graph_t": graph_trace(gt), "saved": _saved(gx.grad_fn)}
        (gx * gx).sum().backward()
        trace["grads"] = [to_numpy(a.grad) for a in (x, t, go)]
        return trace

    assert_parity(scenario, device=device, rtol=1e-12, atol=1e-12)
