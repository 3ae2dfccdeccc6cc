"""Parity of ``Hardtanh``, ``ReLU6``, ``Hardswish``, ``Hardsigmoid``, ``Mish``, ``PReLU`` and
their functional forms (``F.hardtanh``, ``F.relu6``, ...): values (at the kinks too), gradients,
graphs and saved attributes, in-place forms, double backward, reprs, parameters and errors.
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import leaf, rand, saved_names
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

# the kinks of every op (hardtanh ±1, relu6 0/6, hardswish/hardsigmoid ±3) and both tails
KINKS = np.array([-40.0, -6.0, -3.0, -2.9, -1.0, -0.5, 0.0, 0.5, 1.0, 2.9, 3.0, 6.0, 7.0, 40.0])
X = np.concatenate([KINKS, rand(22, dtype=np.float64) * 4]).reshape(4, 9)


def _saved(node):
    out = {}
    for name in saved_names(node):
        v = getattr(node, name)
        out[name] = (tuple(v.shape), v._version) if hasattr(v, "shape") else (type(v).__name__, v)
    return out


MODULES = {
    "Hardtanh": ((), {}), "Hardtanh_int": ((-2, 3), {}), "Hardtanh_float": ((-0.5, 2.9), {}),
    "ReLU6": ((), {}), "Hardswish": ((), {}), "Hardsigmoid": ((), {}), "Mish": ((), {}),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(MODULES))
def test_activation_modules(device, name, dtype):
    args, kwargs = MODULES[name]

    def scenario(lib, device):
        m = getattr(lib.nn, name.split("_")[0])(*args, **kwargs)
        x = leaf(lib, X.astype(dtype), device)
        h = x * 1
        out = m(h)
        trace = {"repr": repr(m), "out": to_numpy(out), "same": out is h,
                 "dtype": str(out.dtype).split(".")[-1], "graph": graph_trace(out),
                 "saved": _saved(out.grad_fn),
                 "params": list(m.state_dict())}
        (out * out).sum().backward()
        trace["grad"] = to_numpy(x.grad)
        return trace

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("name", ["Hardtanh", "ReLU6", "Hardswish", "Hardsigmoid", "Mish"])
def test_inplace_modules(device, name):
    def scenario(lib, device):
        m = getattr(lib.nn, name)(inplace=True)
        x = leaf(lib, X, device)
        h = x * 1
        out = m(h)
        trace = {"repr": repr(m), "same": out is h, "version": h._version,
                 "graph": graph_trace(out), "saved": _saved(out.grad_fn), "out": to_numpy(out)}
        h.mul_(2)  # the node saved a clone of the input: no version error
        out.sum().backward()
        trace["grad"] = to_numpy(x.grad)
        return trace

    assert_parity(scenario, device=device, rtol=1e-12, atol=1e-14)


FUNCTIONAL = {
    "hardtanh": lambda F, x: F.hardtanh(x), "hardtanh_kw": lambda F, x: F.hardtanh(x, -2.0, 0.5),
    "hardtanh_": lambda F, x: F.hardtanh_(x * 1, -0.5, 1.5), "relu6": lambda F, x: F.relu6(x),
    "relu6_inplace": lambda F, x: F.relu6(x * 1, inplace=True),
    "hardswish": lambda F, x: F.hardswish(x), "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "mish": lambda F, x: F.mish(x),
}


@pytest.mark.parametrize("shape", [(4, 9), (9, 4), ()], ids=["2d", "t", "0d"])
@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_forms(device, name, shape):
    def scenario(lib, device):
        base = leaf(lib, X, device)
        x = base.t() if shape == (9, 4) else base[1, 3] if shape == () else base
        out = FUNCTIONAL[name](lib.nn.functional, x)
        trace = {"out": to_numpy(out), "graph": graph_trace(out), "saved": _saved(out.grad_fn)}
        out.backward(lib.ones_like(out) * 0.5)
        trace["grad"] = to_numpy(base.grad)
        return trace

    assert_parity(scenario, device=device, rtol=1e-12, atol=1e-14)


def test_empty_and_int_inputs(device):
    def scenario(lib, device):
        F = lib.nn.functional
        e = leaf(lib, np.zeros((0, 3)), device)
        outs = {n: tuple(getattr(F, n)(e).shape) for n in
                ("hardtanh", "relu6", "hardswish", "hardsigmoid", "mish")}
        ints = lib.tensor([-4, 1, 7])
        return {"empty": outs, "hardtanh_int": to_numpy(F.hardtanh(ints)),
                "relu6_int": to_numpy(F.relu6(ints)),
                "hardswish_int": err(lambda: F.hardswish(ints), "not implemented for 'Long'"),
                "mish_int": err(lambda: F.mish(ints), "not implemented for 'Long'"),
                "leaf_inplace": err(lambda: F.hardtanh(e, inplace=True),
                                    "a leaf Variable that requires grad")}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("name", ["hardtanh", "hardswish", "mish"])
def test_double_backward(device, name):
    def scenario(lib, device):
        x = leaf(lib, X, device)
        out = getattr(lib.nn.functional, name)(x * 1)
        (g,) = lib.autograd.grad((out * out).sum(), x, create_graph=True)
        trace = {"g": to_numpy(g), "graph": graph_trace(g)}
        (g * g).sum().backward()
        trace["gg"] = to_numpy(x.grad)
        return trace

    assert_parity(scenario, device=device, rtol=1e-10, atol=1e-12)


def test_hardsigmoid_double_backward_is_not_implemented(device):
    def scenario(lib, device):
        x = leaf(lib, X, device)
        out = lib.nn.functional.hardsigmoid(x * 1)
        (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        return {"graph": graph_trace(g), "g": to_numpy(g),
                "error": err(lambda: g.sum().backward(),
                             "derivative for aten::hardsigmoid_backward is not implemented")}

    assert_parity(scenario, device=device)


def test_hardtanh_module_errors_and_deprecated_names(device):
    def scenario(lib, device):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = lib.nn.Hardtanh(min_value=-3.0, max_value=2.0)
        return {"repr": repr(m), "warnings": [(x.category.__name__, str(x.message)) for x in w],
                "bad": err(lambda: lib.nn.Hardtanh(1.0, 1.0),
                           "max_val (1.0) must be greater than min_val (1.0)")}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- PReLU
PRELU_SHAPES = {"nc": (3, 4), "nchw": (2, 4, 3, 2), "vec": (4,), "0d": ()}


@pytest.mark.parametrize("num", [1, 4])
@pytest.mark.parametrize("shape", sorted(PRELU_SHAPES))
def test_prelu_module(device, shape, num):
    shp = PRELU_SHAPES[shape]
    if num == 4 and shp in [(4,), ()]:
        pytest.skip("several weights need a channel dim")
    arr = rand(*shp) if shp else np.float32(-1.5)

    def scenario(lib, device):
        m = lib.nn.PReLU(num, init=0.1)
        if lib.__name__ == "torch":
            m = m.to(device)
        with lib.no_grad():
            m.weight.mul_(lib.arange(1, num + 1, dtype=lib.float32, device=m.weight.device))
        x = leaf(lib, arr, device)
        out = m(x * 1)
        trace = {"repr": repr(m), "out": to_numpy(out), "graph": graph_trace(out),
                 "saved": _saved(out.grad_fn), "keys": list(m.state_dict()),
                 "version": m.weight._version}
        (out * out).sum().backward()
        trace["grad"] = to_numpy(x.grad)
        trace["wgrad"] = to_numpy(m.weight.grad)
        return trace

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("wshape", [(1,), (), (4,)], ids=str)
def test_prelu_functional_weight_shapes(device, wshape):
    arr = rand(3, 4, 2, dtype=np.float64)

    def scenario(lib, device):
        x = leaf(lib, arr, device)
        w = leaf(lib, np.full(wshape, 0.3) + (np.arange(4) * 0.1 if wshape == (4,) else 0),
                 device)
        out = lib.nn.functional.prelu(x.transpose(0, 2).transpose(0, 2), w)
        trace = {"out": to_numpy(out), "graph": graph_trace(out), "saved": _saved(out.grad_fn)}
        out.backward(lib.ones_like(out) * 0.25)
        trace["grads"] = [to_numpy(x.grad), to_numpy(w.grad)]
        return trace

    assert_parity(scenario, device=device, rtol=1e-12, atol=1e-14)


def test_prelu_errors(device):
    def scenario(lib, device):
        F = lib.nn.functional
        x = leaf(lib, rand(3, 4, 5, dtype=np.float64), device)

        def w(*shape, dtype=np.float64):
            return leaf(lib, np.ones(shape, dtype=dtype), device)

        return {
            "dtype": err(lambda: F.prelu(x, w(4, dtype=np.float32)),
                         "Type promoting not supported"),
            "channels": err(lambda: F.prelu(x, w(3)), "Found parameter numbers = 3 and channel "
                                                      "size = 4."),
            "1d_channels": err(lambda: F.prelu(leaf(lib, rand(4), device), w(4, dtype=np.float32)),
                               "channel size = 1"),
            "ndim": err(lambda: F.prelu(x, w(2, 2)), "scalar or 1D tensor, but got: ndim = 2"),
            "zero_dim": err(lambda: F.prelu(leaf(lib, np.float64(1.0), device), w(2)),
                            "Not allow zero-dim input tensor."),
            "module": err(lambda: lib.nn.PReLU(3)(leaf(lib, rand(2, 4), device)),
                          "parameter numbers = 3"),
        }

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("wshape", [(4,), (1,)], ids=str)
def test_prelu_double_backward(device, wshape):
    arr = rand(3, 4, 2, dtype=np.float64)
    go = rand(3, 4, 2, dtype=np.float64)
    warr = np.full(wshape, 0.3) + (np.arange(4) * 0.1 if wshape == (4,) else 0)

    def scenario(lib, device):
        x, w, g = leaf(lib, arr, device), leaf(lib, warr, device), leaf(lib, go, device)
        out = lib.nn.functional.prelu(x * 1, w)
        gx, gw = lib.autograd.grad(out, (x, w), g, create_graph=True)
        trace = {"gx": to_numpy(gx), "gw": to_numpy(gw), "graph": graph_trace(gx),
                 "graph_w": graph_trace(gw), "saved": _saved(gx.grad_fn.next_functions[0][0])}
        ((gx * gx).sum() + (gw * gw).sum() * 3).backward()
        trace["grads"] = [to_numpy(t.grad) for t in (x, w, g)]
        return trace

    assert_parity(scenario, device=device, rtol=1e-10, atol=1e-12)
