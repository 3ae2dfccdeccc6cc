"""Parity of ``nn.utils``: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``,
``clip_grads_with_norm_``, ``parameters_to_vector``, ``vector_to_parameters``, ``skip_init``.

Each scenario runs on both libraries and records the returned norm (value, dtype,
``requires_grad``), every ``.grad`` after clipping and its ``_version`` (PyTorch bumps it once
per ``mul_``; ``clip_grad_value_`` twice on its default foreach path), warnings and errors.
"""

import math
import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import leaf, rand
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

INF = float("inf")


def _params(lib, device, grad_arrays, backward=False):
    """Leaves of the shapes of ``grad_arrays``; their ``.grad`` is assigned (None stays None),
    or, with ``backward``, made by a real backward of ``sum(g * p)``."""
    params = [leaf(lib, np.zeros(g.shape if g is not None else (2,), np.float32), device)
              for g in grad_arrays]
    if backward:
        loss = sum((p * leaf(lib, g, device, False)).sum() for p, g in zip(params, grad_arrays)
                   if g is not None)
        loss.backward()
    else:
        for p, g in zip(params, grad_arrays):
            if g is not None:
                p.grad = leaf(lib, g, device, False)
    return params


def _grads(params):
    return [(to_numpy(p.grad), p.grad._version) if p.grad is not None else None for p in params]


def _norm(t):
    return {"value": to_numpy(t), "dtype": str(t.dtype).split(".")[-1],
            "requires_grad": t.requires_grad, "shape": tuple(t.shape)}


GRADS = [rand(3, 4) * 3, rand(5), None, rand(2, 1, 3)]


# ----------------------------------------------------------------------------- clip_grad_norm_
@pytest.mark.parametrize("norm_type", [2, 2.0, 1, 3.5, 0.5, 0, INF, "inf", -INF, -1.0, 1e3, "2"])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm(device, norm_type, max_norm, foreach):
    def scenario(lib, device):
        params = _params(lib, device, GRADS)
        total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type,
                                             foreach=foreach)
        return {"norm": _norm(total), "grads": _grads(params)}

    assert_parity(scenario, device=device, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("form", ["list", "tuple", "generator", "module", "tensor",
                                  "backward"])
def test_clip_grad_norm_forms(device, form):
    w, b, x = rand(3, 4), rand(3), rand(2, 4)

    def scenario(lib, device):
        params = _params(lib, device, GRADS, backward=form == "backward")
        if form == "module":
            model = lib.nn.Linear(4, 3).to(device)
            model.load_state_dict({"weight": leaf(lib, w, device, False),
                                   "bias": leaf(lib, b, device, False)})
            model(leaf(lib, x, device, False)).pow(2).sum().backward()
            params = list(model.parameters())
            arg = model.parameters()
        else:
            arg = {"list": params, "tuple": tuple(params), "generator": (p for p in params),
                   "tensor": params[0], "backward": params}[form]
        before = _grads(params)
        total = lib.nn.utils.clip_grad_norm_(arg, 0.3)
        return {"before": before, "norm": _norm(total), "grads": _grads(params)}

    assert_parity(scenario, device=device, rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_noncontiguous_and_empty(device):
    g = rand(3, 4)

    def scenario(lib, device):
        a = leaf(lib, np.zeros((4, 3), np.float32), device)
        b = leaf(lib, np.zeros((0, 3), np.float32), device)
        a.grad = leaf(lib, g, device, False).t()
        b.grad = leaf(lib, np.zeros((0, 3), np.float32), device, False)
        total = lib.nn.utils.clip_grad_norm_([a, b], 0.1)
        return {"norm": _norm(total), "grads": _grads([a, b]),
                "contiguous": a.grad.is_contiguous()}

    assert_parity(scenario, device=device)


def test_clip_grad_norm_mixed_dtypes_and_float64(device):
    ga, gb = rand(3) * 4, rand(3, dtype=np.float64) * 4

    def scenario(lib, device):
        a = leaf(lib, np.zeros(3, np.float32), device)
        b = leaf(lib, np.zeros(3, np.float64), device)
        a.grad = leaf(lib, ga, device, False)
        b.grad = leaf(lib, gb, device, False)
        mixed = lib.nn.utils.clip_grad_norm_([a, b], 0.5)
        only64 = lib.nn.utils.clip_grad_norm_([b], 0.1, norm_type=3)
        return {"mixed": _norm(mixed), "only64": _norm(only64), "grads": _grads([a, b]),
                "dtypes": [str(p.grad.dtype).split(".")[-1] for p in (a, b)]}

    assert_parity(scenario, device=device)


def test_clip_grad_norm_empty(device):
    def scenario(lib, device):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from_gen = lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
            from_list = lib.nn.utils.clip_grad_norm_([], 1.0)
            no_grads = lib.nn.utils.clip_grad_norm_([leaf(lib, np.ones(3, np.float32), device)],
                                                    1.0)
        return {"gen": _norm(from_gen), "list": _norm(from_list), "none": _norm(no_grads),
                "warnings": [(w.category.__name__, str(w.message)) for w in caught]}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("bad", [INF, -INF, math.nan])
@pytest.mark.parametrize("norm_type", [2.0, INF, 1])
def test_clip_grad_norm_nonfinite(device, bad, norm_type):
    g, g2 = rand(3, 4), rand(5)
    g[1, 2] = bad

    def scenario(lib, device):
        params = _params(lib, device, [g, g2])
        error = err(lambda: lib.nn.utils.clip_grad_norm_(params, 1.0, norm_type,
                                                         error_if_nonfinite=True))
        after_error = _grads(params)
        total = lib.nn.utils.clip_grad_norm_(params, 1.0, norm_type)
        return {"error": error, "after_error": after_error, "norm": _norm(total),
                "grads": _grads(params)}

    assert_parity(scenario, device=device)


def test_clip_grad_norm_deprecated_and_bad_norm_type(device):
    g = rand(3, 4)

    def scenario(lib, device):
        params = _params(lib, device, [g])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            total = lib.nn.utils.clip_grad_norm(params, 0.2)
        return {"norm": _norm(total), "grads": _grads(params),
                "warnings": [(w.category.__name__, str(w.message).replace("torch", "minigrad"))
                             for w in caught],
                "bad": err(lambda: lib.nn.utils.clip_grad_norm_(params, 1.0, "fro"))}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- the two halves
@pytest.mark.parametrize("norm_type", [2.0, INF, 1.5])
def test_get_total_norm_and_clip_grads_with_norm(device, norm_type):
    t1, t2, g = rand(2, 3), rand(4), rand(3)
    g[0] = INF

    def scenario(lib, device):
        U = lib.nn.utils
        params = _params(lib, device, GRADS)
        tensors = [leaf(lib, t1, device), leaf(lib, t2, device, False)]
        total = U.get_total_norm(tensors, norm_type)
        single = U.get_total_norm(tensors[0], norm_type)
        empty = U.get_total_norm([], norm_type)
        grad_norm = U.get_total_norm([p.grad for p in params if p.grad is not None], norm_type)
        out = U.clip_grads_with_norm_(params, 0.5, grad_norm)
        bigger = U.clip_grads_with_norm_(params[0], 100.0, leaf(lib, np.float32(2.0), device,
                                                                   False))
        error = err(lambda: U.get_total_norm([leaf(lib, g, device, False)], norm_type,
                                             error_if_nonfinite=True))
        return {"total": _norm(total), "single": _norm(single), "empty": _norm(empty),
                "grad_norm": _norm(grad_norm), "returns": (out, bigger), "grads": _grads(params),
                "error": error, "leaf_versions": [t._version for t in tensors]}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- clip_grad_value_
@pytest.mark.parametrize("foreach", [None, True, False])
@pytest.mark.parametrize("form", ["list", "generator", "tensor", "backward"])
def test_clip_grad_value(device, foreach, form):
    def scenario(lib, device):
        params = _params(lib, device, GRADS, backward=form == "backward")
        arg = {"list": params, "generator": (p for p in params), "tensor": params[0],
               "backward": params}[form]
        before = _grads(params)
        out = lib.nn.utils.clip_grad_value_(arg, 0.7, foreach=foreach)
        int_clip = lib.nn.utils.clip_grad_value_(params, 2, foreach=foreach)
        after = _grads(params)
        # a negative bound: clamp_min_ then clamp_max_ (or clamp_ with min > max) gives the max
        lib.nn.utils.clip_grad_value_(params, -0.25, foreach=foreach)
        return {"before": before, "out": (out, int_clip), "after": after,
                "grads": _grads(params)}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- vector forms
STATE = {"0.weight": rand(2, 3), "0.bias": rand(2), "1.weight": rand(1, 2), "1.bias": rand(1)}


def _model(lib, device):
    model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Linear(2, 1)).to(device)
    model.load_state_dict({k: leaf(lib, v, device, False) for k, v in STATE.items()})
    return model


def test_parameters_to_vector(device):
    g, f1, f2, nc = rand(11), rand(2, 2), rand(3), rand(3, 2)

    def scenario(lib, device):
        model = _model(lib, device)
        vec = lib.nn.utils.parameters_to_vector(model.parameters())
        (vec * leaf(lib, g, device, False)).sum().backward()
        frozen = lib.nn.utils.parameters_to_vector(
            [leaf(lib, f1, device, False), leaf(lib, f2, device, False)])
        return {"vec": to_numpy(vec), "graph": graph_trace(vec) if device == "cpu" else None,
                "grads": [to_numpy(p.grad) for p in model.parameters()],
                "frozen": (to_numpy(frozen), frozen.requires_grad, frozen.grad_fn is None),
                "versions": [p._version for p in model.parameters()],
                "empty": err(lambda: lib.nn.utils.parameters_to_vector([]), "expected a non-empty"),
                "noncontig": err(lambda: lib.nn.utils.parameters_to_vector(
                    [leaf(lib, nc, device).t()]), "view size is not compatible")}

    assert_parity(scenario, device=device)


def test_vector_to_parameters(device):
    v, x = rand(13), rand(4, 3)  # two more elements than the 11 parameters

    def scenario(lib, device):
        model = _model(lib, device)
        params = list(model.parameters())
        versions = [p._version for p in params]
        vec = leaf(lib, v, device, False)
        out = lib.nn.utils.vector_to_parameters(vec, model.parameters())
        trace = {"out": out, "values": [to_numpy(p) for p in params],
                 "is_param": [type(p).__name__ for p in params],
                 "requires_grad": [p.requires_grad for p in params],
                 "versions": [p._version - v for p, v in zip(params, versions)]}
        with lib.no_grad():
            vec.mul_(2)  # the parameters' data are views of vec, as in PyTorch
        trace["shared"] = [to_numpy(p) for p in params]
        y = model(leaf(lib, x, device, False)).sum()
        y.backward()
        trace["grads"] = [to_numpy(p.grad) for p in params]
        trace["roundtrip"] = to_numpy(lib.nn.utils.parameters_to_vector(params))
        trace["errors"] = [
            err(lambda: lib.nn.utils.vector_to_parameters([1.0, 2.0], params)),
            err(lambda: lib.nn.utils.vector_to_parameters(v, params)),
            err(lambda: lib.nn.utils.vector_to_parameters(
                leaf(lib, v[:3], device, False), params), "shape"),
        ]
        return trace

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- skip_init
def test_skip_init(device):
    def scenario(lib, device):
        U = lib.nn.utils

        class NoDevice(lib.nn.Module):
            def __init__(self, n):
                super().__init__()
                self.w = lib.nn.Parameter(lib.ones(n))

        m1 = U.skip_init(lib.nn.Linear, 5, 1)
        m2 = U.skip_init(lib.nn.Linear, in_features=6, out_features=2, bias=False,
                         device=device)
        m3 = U.skip_init(lib.nn.Conv2d, 2, 3, 3, dtype=lib.float64)
        return {"types": [type(m).__name__ for m in (m1, m2, m3)],
                "params": [[(k, tuple(p.shape), str(p.dtype).split(".")[-1], p.requires_grad,
                             type(p).__name__, p.is_leaf) for k, p in m.named_parameters()]
                           for m in (m1, m2, m3)],
                "training": [m.training for m in (m1, m2, m3)],
                "not_module": err(lambda: U.skip_init(dict), "Expected a Module; got"),
                "no_device": err(lambda: U.skip_init(NoDevice, 3)),
                "not_class": err(lambda: U.skip_init(lib.nn.Linear(2, 2)))[0]}

    assert_parity(scenario, device=device)


def test_namespace():
    import minigrad
    import minigrad.nn.utils as mg_utils
    from minigrad.nn.utils import clip_grad_norm_

    assert clip_grad_norm_ is minigrad.nn.utils.clip_grad_norm_ is mg_utils.clip_grad_norm_
    assert mg_utils.clip_grad.clip_grad_norm_ is clip_grad_norm_
    assert mg_utils.convert_parameters.parameters_to_vector is mg_utils.parameters_to_vector
    assert mg_utils.init.skip_init is mg_utils.skip_init
    for name in mg_utils.__all__:
        assert hasattr(torch.nn.utils, name), name
        assert getattr(mg_utils, name).__name__ == getattr(torch.nn.utils, name).__name__, name
