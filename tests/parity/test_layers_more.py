"""Parity of the simple layers: ``LeakyReLU``, ``ELU``, ``GELU``, ``SiLU``, ``Softplus``,
``Dropout2d``, ``Identity``, ``Embedding``; ``F.elu``, ``F.dropout2d``, ``F.embedding``,
``F.one_hot``.

Values, gradients, graphs and saved attributes, reprs, parameter versions, state_dict keys and
errors. Dropout masks come from each library's own generator, so ``Dropout2d`` is compared
through what does not depend on the draw: the graph, which elements are zero together (whole
channels), the scale of the kept ones and the gradient's agreement with the output.
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import leaf, rand, saved_names
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

X = (rand(3, 5) * 3).astype(np.float32)
X.flat[0], X.flat[1] = 25.0, -9.0  # softplus's linear region, elu's saturation


def _saved(node):
    out = {}
    for name in saved_names(node):
        v = getattr(node, name)
        out[name] = (tuple(v.shape), v._version) if hasattr(v, "shape") else v
    return out


MODULES = {
    "LeakyReLU": ((), {}), "LeakyReLU_slope": ((0.2,), {}),
    "ELU": ((), {}), "ELU_alpha": ((0.5,), {}),
    "GELU": ((), {}), "GELU_tanh": (("tanh",), {}),
    "SiLU": ((), {}), "Softplus": ((), {}), "Softplus_beta": ((2, 3), {}),
    "Identity": ((54, "unused"), {"x": 1}),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_activation_modules(device, name):
    args, kwargs = MODULES[name]

    def scenario(lib, device):
        m = getattr(lib.nn, name.split("_")[0])(*args, **kwargs)
        x = leaf(lib, X, device)
        h = x * 1
        out = m(h)
        trace = {"repr": repr(m), "out": to_numpy(out), "same": out is h,
                 "graph": graph_trace(out), "saved": _saved(out.grad_fn),
                 "params": list(m.state_dict())}
        (out * out).sum().backward()
        trace["grad"] = to_numpy(x.grad)
        return trace

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("name,args", [("LeakyReLU", (0.1, True)), ("ELU", (0.7, True)),
                                       ("SiLU", (True,))])
def test_inplace_activation_modules(device, name, args):
    def scenario(lib, device):
        m = getattr(lib.nn, name)(*args)
        x = leaf(lib, X, device)
        h = x * 1
        out = m(h)
        trace = {"repr": repr(m), "same": out is h, "version": h._version,
                 "graph": graph_trace(out), "saved": _saved(out.grad_fn), "out": to_numpy(out)}
        (out * out).sum().backward()
        trace["grad"] = to_numpy(x.grad)
        return trace

    assert_parity(scenario, device=device)


def test_elu_functional(device):
    def scenario(lib, device):
        F = lib.nn.functional
        x = leaf(lib, X.astype(np.float64), device)
        out = F.elu(x, alpha=1.5)
        trace = {"out": to_numpy(out), "saved": _saved(out.grad_fn)}
        out.backward(lib.ones_like(out) * 0.5)
        trace["grad"] = to_numpy(x.grad)
        trace["int"] = err(lambda: F.elu(lib.tensor([1, 2])), "not implemented for 'Long'")
        return trace

    assert_parity(scenario, device=device, rtol=1e-12, atol=1e-14)


def test_elu_inplace_on_leaf_is_an_error(device):
    def scenario(lib, device):
        x = leaf(lib, X, device)
        return err(lambda: lib.nn.functional.elu(x, inplace=True),
                   "a leaf Variable that requires grad")

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- dropout2d
@pytest.mark.parametrize("shape", [(4, 6, 3, 3), (5, 4, 7)], ids=str)
@pytest.mark.parametrize("p", [0.3, 0.5, 1.0])
@pytest.mark.parametrize("inplace", [False, True])
def test_dropout2d_structure(device, shape, p, inplace):
    arr = np.abs(rand(*shape)) + 0.5  # no zeros of its own

    def scenario(lib, device):
        lib.manual_seed(0)
        m = lib.nn.Dropout2d(p, inplace=inplace)
        x = leaf(lib, arr, device)
        h = x * 1
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = m(h)
        o = to_numpy(out)
        zero = o == 0
        per_channel = zero.reshape(shape[0], shape[1], -1)
        kept = o[~zero] / np.broadcast_to(arr, shape)[~zero]
        graph, saved = graph_trace(out), _saved(out.grad_fn)
        out.backward(lib.ones_like(out))
        g = to_numpy(x.grad)
        return {"repr": repr(m), "same": out is h, "graph": graph, "saved": saved,
                "whole_channels": bool((per_channel.all(-1) | ~per_channel.any(-1)).all()),
                "scale": np.allclose(kept, 1 / (1 - p)) if p < 1 else kept.size == 0,
                "grad_is_mask": bool(np.allclose(g, np.where(zero, 0.0, 1 / (1 - p))))
                if p < 1 else bool((g == 0).all()),
                "warnings": [str(x.message).replace("torch", "minigrad")[:60] for x in w]}

    assert_parity(scenario, device=device)


def test_dropout2d_identity_cases_and_errors(device):
    arr = rand(2, 3, 2, 2)

    def scenario(lib, device):
        F = lib.nn.functional
        x = leaf(lib, arr, device)
        m = lib.nn.Dropout2d(0.4)
        m.eval()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            two_d = F.dropout2d(leaf(lib, rand(3, 4), device), 0.0)
        return {"eval": m(x) is x, "p0": F.dropout2d(x, 0.0) is x,
                "not_training": F.dropout2d(x, 0.5, training=False) is x,
                "two_d_warns": [str(x.message)[:40] for x in w], "two_d": tuple(two_d.shape),
                "module_p": err(lambda: lib.nn.Dropout2d(1.5), "between 0 and 1, but got 1.5"),
                "fn_p": err(lambda: F.dropout2d(x, -0.1), "between 0 and 1, but got -0.1")}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- embedding
IDX = np.array([[0, 2, 4], [4, 2, 2]])
W = rand(5, 3)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1},
                                    {"scale_grad_by_freq": True},
                                    {"padding_idx": 0, "scale_grad_by_freq": True}], ids=str)
def test_functional_embedding(device, kwargs):
    def scenario(lib, device):
        w = leaf(lib, W, device)
        idx = lib.tensor(IDX)
        if lib.__name__ == "torch":
            idx = idx.to(device)
        out = lib.nn.functional.embedding(idx, w, **kwargs)
        trace = {"out": to_numpy(out), "graph": graph_trace(out), "saved": _saved(out.grad_fn),
                 "indices_same": out.grad_fn._saved_indices is idx}
        g = np.linspace(-1, 2, out.numel()).reshape(tuple(out.shape)).astype(np.float32)
        out.backward(leaf(lib, g, device, requires_grad=False))
        trace["grad"] = to_numpy(w.grad)
        return trace

    assert_parity(scenario, device=device)


def test_embedding_module(device):
    def build(lib):
        return lib.nn.Embedding(6, 4, padding_idx=1)

    def scenario(lib, device):
        lib.manual_seed(0)
        nn = lib.nn
        e = build(lib)
        fresh = {"repr": repr(e), "keys": list(e.state_dict()), "version": e.weight._version,
                 "pad_row": to_numpy(e.weight[1]),
                 "reprs": [repr(nn.Embedding(3, 2)), repr(nn.Embedding(3, 2, max_norm=1.0)),
                           repr(nn.Embedding(3, 2, scale_grad_by_freq=True, norm_type=1.0))]}
        e.load_state_dict({"weight": (torch.tensor if lib.__name__ == "torch" else lib.tensor)(
            np.arange(24, dtype=np.float32).reshape(6, 4) / 10)})
        e = e.to(device)
        idx = lib.tensor(np.array([[1, 3], [5, 1]]))
        if lib.__name__ == "torch":
            idx = idx.to(device)
        out = e(idx)
        out.square().sum().backward()
        opt = lib.optim.SGD(e.parameters(), lr=0.5)
        opt.step()
        return {"fresh": fresh, "out": to_numpy(out), "graph": graph_trace(out),
                "grad": to_numpy(e.weight.grad), "after_step": to_numpy(e.weight),
                "version": e.weight._version}

    assert_parity(scenario, device=device)


def test_embedding_from_pretrained_and_max_norm(device):
    base = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], np.float32)

    def scenario(lib, device):
        nn = lib.nn
        w = leaf(lib, base, device, requires_grad=False)
        e = nn.Embedding.from_pretrained(w)
        e2 = nn.Embedding.from_pretrained(w.clone(), freeze=False, max_norm=1.0)
        idx = lib.tensor(np.array([0, 2, 0]))
        if lib.__name__ == "torch":
            idx = idx.to(device)
        out = e2(idx)
        return {"frozen": e.weight.requires_grad, "thawed": e2.weight.requires_grad,
                "out": to_numpy(out), "renormed": to_numpy(e2.weight),
                "version": e2.weight._version, "graph": graph_trace(out)}

    assert_parity(scenario, device=device)


def test_embedding_errors(device):
    def scenario(lib, device):
        nn, F = lib.nn, lib.nn.functional
        w = leaf(lib, W, device)

        def ix(*v):
            t = lib.tensor(np.array(v))
            return t.to(device) if lib.__name__ == "torch" else t

        return {
            "float_idx": err(lambda: F.embedding(ix(1.0), w), "'indices' to have one of the "
                             "following scalar types: Long, Int"),
            "range": err(lambda: F.embedding(ix(7), w), "index out of range in self")
            if device == "cpu" else None,
            "neg": err(lambda: F.embedding(ix(-1), w), "index out of range in self")
            if device == "cpu" else None,
            "pad_fn": err(lambda: F.embedding(ix(1), w, padding_idx=9), "Padding_idx must be"),
            "pad_fn_neg": err(lambda: F.embedding(ix(1), w, padding_idx=-6), "Padding_idx"),
            "pad_module": err(lambda: nn.Embedding(5, 2, padding_idx=5), "Padding_idx must be"),
            "weight_shape": err(lambda: nn.Embedding(5, 2, _weight=lib.zeros(4, 2)),
                                "Shape of weight does not match"),
        }

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- one_hot
def test_one_hot(device):
    def scenario(lib, device):
        F = lib.nn.functional

        def ix(arr, dtype=None):
            t = lib.tensor(np.array(arr, dtype=dtype))
            return t.to(device) if lib.__name__ == "torch" else t

        a = F.one_hot(ix([0, 3, 1]))
        b = F.one_hot(ix([[0, 1], [2, 1]]), 4)
        c = F.one_hot(ix(2), 3)
        return {"a": (to_numpy(a), str(a.dtype).split(".")[-1]), "b": to_numpy(b),
                "c": to_numpy(c),
                "float": err(lambda: F.one_hot(ix([0.0, 1.0])), "only applicable to index "
                             "tensor of type LongTensor"),
                "int32": err(lambda: F.one_hot(ix([0, 1], np.int32)), "LongTensor"),
                "big": err(lambda: F.one_hot(ix([0, 5]), 3),
                           "Class values must be smaller than num_classes")
                if device == "cpu" else None,
                "neg": err(lambda: F.one_hot(ix([-1, 1])), "Class values must be non-negative")
                if device == "cpu" else None}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("inplace", [False, True])
def test_elu_second_order(device, inplace):
    """create_graph through ELU: ``EluBackwardBackward0`` (self or, in place, the result)."""
    arr, c = X.astype(np.float64) / 3, rand(3, 5).astype(np.float64)

    def scenario(lib, device):
        F = lib.nn.functional
        x = leaf(lib, arr, device)
        w = leaf(lib, c, device)
        out = F.elu(x * 1, 0.8, inplace=True) if inplace else F.elu(x, 0.8)
        gx, = lib.autograd.grad((out * w).sum(), x, create_graph=True)
        trace = {"graph": graph_trace(gx), "saved": _saved(gx.grad_fn), "gx": to_numpy(gx)}
        trace["grads"] = [to_numpy(t) for t in lib.autograd.grad((gx * gx).sum(), [x, w])]
        return trace

    assert_parity(scenario, device=device, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_second_order(device, padding_idx):
    def scenario(lib, device):
        w = leaf(lib, W, device)
        g = leaf(lib, rand_g, device)
        idx = lib.tensor(IDX)
        if lib.__name__ == "torch":
            idx = idx.to(device)
        out = lib.nn.functional.embedding(idx, w, padding_idx=padding_idx)
        gw, = lib.autograd.grad(out, w, g, create_graph=True)
        node = gw.grad_fn
        trace = {"graph": graph_trace(gw), "saved": _saved(node), "gw": to_numpy(gw)}
        weights = leaf(lib, np.arange(15, dtype=np.float32).reshape(5, 3), device, False)
        gg, = lib.autograd.grad((gw * weights).sum(), g)
        trace["gg"] = to_numpy(gg)
        return trace

    rand_g = rand(2, 3, 3)
    assert_parity(scenario, device=device)


@pytest.mark.parametrize("shape,inplace", [((5, 4, 7), False), ((5, 4, 7), True),
                                           ((4, 7), False)], ids=str)
@pytest.mark.parametrize("p", [0.4, 1.0])
def test_dropout1d_structure(device, shape, inplace, p):
    arr = np.abs(rand(*shape)) + 0.5

    def scenario(lib, device):
        lib.manual_seed(0)
        m = lib.nn.Dropout1d(p, inplace=inplace)
        x = leaf(lib, arr, device)
        h = x * 1
        out = m(h)
        o = to_numpy(out)
        zero = (o == 0).reshape((-1,) + shape[-2:])
        graph, saved = graph_trace(out), _saved(out.grad_fn)
        out.backward(lib.ones_like(out))
        g = to_numpy(x.grad)
        return {"repr": repr(m), "same": out is h, "graph": graph, "saved": saved,
                "whole_channels": bool((zero.all(-1) | ~zero.any(-1)).all()),
                "grad_is_mask": bool(np.allclose(g, np.where(o == 0, 0.0, 1 / (1 - p))))
                if p < 1 else bool((g == 0).all()),
                "eval_same": m.eval()(h) is h if len(shape) == 3 else None}

    assert_parity(scenario, device=device)


def test_dropout1d_errors(device):
    def scenario(lib, device):
        F = lib.nn.functional
        x = leaf(lib, rand(2, 3, 2, 2), device)
        return {"dims": err(lambda: F.dropout1d(x, 0.5), "dropout1d: Expected 2D or 3D input, "
                            "but received a 4D input"),
                "p": err(lambda: F.dropout1d(x, 2.0), "between 0 and 1, but got 2.0"),
                "module_p": err(lambda: lib.nn.Dropout1d(-1), "between 0 and 1")}

    assert_parity(scenario, device=device)
