"""Parity of normalization: ``F.batch_norm``/``layer_norm``/``group_norm`` and the modules
``BatchNorm1d``, ``BatchNorm2d``, ``BatchNorm3d``, ``LayerNorm``, ``GroupNorm``.

Forward values, gradients of the input and of every parameter, the backward graph
(``NativeBatchNormBackward0`` etc., PyTorch's CPU nodes) and saved attributes, the running
statistics and ``num_batches_tracked`` after several training steps (with their ``_version``),
``momentum=None``, ``affine=False``, ``track_running_stats=False``, eval mode, state_dict keys,
reprs and errors. On CUDA PyTorch records cuDNN's nodes instead, so graphs and saved names are
compared on the CPU only (``on_cpu``).

Tolerance ``rtol=1e-5, atol=1e-5``: each statistic is a float32 sum over the batch, which the
two libraries add in different orders.
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy

from .test_functional import leaf, rand, saved_names
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

TOL = {"rtol": 1e-5, "atol": 1e-5}


def _saved(node):
    """Saved attributes: plain values as they are, tensors as (shape, _version)."""
    out = {}
    for name in saved_names(node):
        v = getattr(node, name)
        out[name] = (tuple(v.shape), v._version) if hasattr(v, "shape") else v
    return out


def _fn_trace(lib, fn, arrays, no_grad, extra, on_cpu, device):
    """``out = fn(F, *leaves, *extra_tensors)``; output, graph, saved values, every grad."""
    F = lib.nn.functional
    leaves = [leaf(lib, a, device, requires_grad=i not in no_grad) if a is not None else None
              for i, a in enumerate(arrays)]
    others = [leaf(lib, a.copy(), device, requires_grad=False) if a is not None else None
              for a in extra]
    out = fn(F, *leaves, *others)
    trace = {"out": to_numpy(out)}
    if on_cpu:
        trace["graph"] = graph_trace(out)
        trace["saved"] = _saved(out.grad_fn)
    g = np.linspace(-1.0, 2.0, out.numel()).reshape(tuple(out.shape)).astype(np.float32)
    out.backward(leaf(lib, g, device, requires_grad=False))
    trace["grads"] = [to_numpy(t.grad) if t is not None else None for t in leaves]
    trace["extra"] = [(to_numpy(t), t._version) if t is not None else None for t in others]
    return trace


# ----------------------------------------------------------------------------- F.batch_norm
BN_SHAPES = [(4, 3), (4, 3, 5), (2, 3, 4, 5)]


# (training, running statistics given): eval without statistics is an error (tested below)
BN_MODES = [(True, True), (True, False), (False, True)]


@pytest.mark.parametrize("shape", BN_SHAPES, ids=str)
@pytest.mark.parametrize("training,stats", BN_MODES, ids=["train", "train-nostats", "eval"])
@pytest.mark.parametrize("affine", ["wb", "w", "none"])
def test_functional_batch_norm(device, shape, training, affine, stats):
    c = shape[1]
    arrays = [rand(*shape) * 2 + 0.5, rand(c) if affine != "none" else None,
              rand(c) if affine == "wb" else None]
    extra = (rand(c), np.abs(rand(c)) + 0.5) if stats else (None, None)

    def fn(F, x, w, b, rm, rv):
        return F.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3, eps=1e-3)

    assert_parity(_fn_trace, fn, arrays, (), extra, device == "cpu", device=device, **TOL)


# ----------------------------------------------------------------------------- modules
def _build_loaded(lib, build, device):
    """``build(lib)`` with the weights and buffers of a seeded torch build, loaded with
    ``load_state_dict`` on *both* sides (so ``_version``s match: loading copies in place)."""
    torch.manual_seed(0)
    state = {k: to_numpy(v) for k, v in build(torch).state_dict().items()}
    model = build(lib)
    if lib.__name__ == "torch":
        model = model.to(device)
        state = {k: torch.tensor(v, device=device) for k, v in state.items()}
    model.load_state_dict(state)
    return model


def _module_steps(lib, build, shapes, on_cpu, device, steps=3, eval_after=True):
    """Paired ``build(lib)``: ``steps`` training forward/backward passes on fresh inputs, then
    one in eval mode. Records outputs, graphs, gradients of the input and every parameter,
    every buffer with its ``_version``, and the state_dict keys."""
    model = _build_loaded(lib, build, device)
    rng = np.random.default_rng(5)
    trace = {"state_dict": list(model.state_dict()),
             "params": [n for n, _ in model.named_parameters()],
             "buffers0": {n: (to_numpy(b), b._version) for n, b in model.named_buffers()}}
    modes = ["train"] * steps + (["eval"] if eval_after else [])
    for i, mode in enumerate(modes):
        model.train(mode == "train")
        x = leaf(lib, (rng.standard_normal(shapes) * 1.5 + 0.3).astype(np.float32), device)
        out = model(x)
        g = rng.standard_normal(tuple(out.shape)).astype(np.float32)
        step = {"out": to_numpy(out)}
        if on_cpu:
            step["graph"] = graph_trace(out)
        for p in model.parameters():
            p.grad = None
        out.backward(leaf(lib, g, device, requires_grad=False))
        step["x.grad"] = to_numpy(x.grad)
        step["grads"] = {n: to_numpy(p.grad) for n, p in model.named_parameters()}
        step["buffers"] = {n: (to_numpy(b), b._version) for n, b in model.named_buffers()}
        trace[f"{i}:{mode}"] = step
    return trace


BN_MODULES = {
    "bn1d": ("BatchNorm1d", (3,), {}, (6, 3)),
    "bn1d_3d": ("BatchNorm1d", (3,), {"momentum": 0.5}, (4, 3, 5)),
    "bn1d_cumulative": ("BatchNorm1d", (3,), {"momentum": None}, (6, 3)),
    "bn1d_no_affine": ("BatchNorm1d", (3,), {"affine": False}, (6, 3)),
    "bn1d_no_stats": ("BatchNorm1d", (3,), {"track_running_stats": False}, (6, 3)),
    "bn1d_no_bias": ("BatchNorm1d", (3,), {"bias": False, "eps": 1e-3}, (6, 3)),
    "bn2d": ("BatchNorm2d", (4,), {}, (2, 4, 3, 5)),
    "bn2d_cumulative": ("BatchNorm2d", (4,), {"momentum": None, "affine": False}, (2, 4, 3, 3)),
    "bn2d_no_stats": ("BatchNorm2d", (4,), {"track_running_stats": False, "affine": False},
                      (2, 4, 3, 3)),
    "bn3d": ("BatchNorm3d", (3,), {"momentum": 0.3}, (2, 3, 2, 3, 2)),
    "ln": ("LayerNorm", (5,), {}, (4, 5)),
    "ln_2d": ("LayerNorm", ((3, 4),), {"eps": 1e-3}, (2, 3, 4)),
    "ln_no_affine": ("LayerNorm", (4,), {"elementwise_affine": False}, (2, 3, 4)),
    "ln_no_bias": ("LayerNorm", ([4],), {"bias": False}, (2, 3, 4)),
    "gn": ("GroupNorm", (2, 4), {}, (3, 4, 5)),
    "gn_4d": ("GroupNorm", (3, 6), {"eps": 1e-3}, (2, 6, 3, 2)),
    "gn_one_group": ("GroupNorm", (1, 4), {"affine": False}, (2, 4, 3, 3)),
    "gn_no_bias": ("GroupNorm", (4, 4), {"bias": False}, (2, 4, 3)),
    "in2d": ("InstanceNorm2d", (3,), {}, (2, 3, 4, 3)),
    "in2d_affine": ("InstanceNorm2d", (3,), {"affine": True}, (2, 3, 3, 3)),
    "in2d_stats": ("InstanceNorm2d", (3,), {"track_running_stats": True, "momentum": 0.4},
                   (2, 3, 3, 3)),
    "in2d_stats_cumulative": ("InstanceNorm2d", (2,), {"track_running_stats": True,
                                                       "momentum": None, "affine": True},
                              (3, 2, 2, 3)),
    "in2d_unbatched": ("InstanceNorm2d", (3,), {"affine": True}, (3, 4, 3)),
    "in1d": ("InstanceNorm1d", (3,), {"affine": True, "track_running_stats": True}, (2, 3, 5)),
}


@pytest.mark.parametrize("name", sorted(BN_MODULES))
def test_norm_module_training_steps(device, name):
    cls, args, kwargs, shape = BN_MODULES[name]

    def build(lib):
        layer = getattr(lib.nn, cls)(*args, **kwargs)
        # non-trivial affine parameters, the same in both (load_state_dict copies them)
        for p in layer.parameters():
            with lib.no_grad():
                p.add_(lib.arange(p.numel(), dtype=p.dtype).reshape(p.shape) * 0.1)
        return layer

    assert_parity(_module_steps, build, shape, device == "cpu", device=device, **TOL)


def test_batchnorm_in_a_cnn(device):
    """Conv → BatchNorm2d → ReLU → Linear, a few SGD steps: parameters and running stats."""
    def build(lib):
        nn = lib.nn
        return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                             nn.Flatten(), nn.Linear(4 * 5 * 5, 3))

    def scenario(lib, device):
        model = _build_loaded(lib, build, device)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        rng = np.random.default_rng(3)
        for _ in range(3):
            x = leaf(lib, rng.standard_normal((4, 2, 5, 5)).astype(np.float32), device, False)
            opt.zero_grad()
            model(x).square().mean().backward()
            opt.step()
        model.eval()
        x = leaf(lib, rng.standard_normal((2, 2, 5, 5)).astype(np.float32), device, False)
        return {"eval": to_numpy(model(x)),
                "state": {k: to_numpy(v) for k, v in model.state_dict().items()},
                "versions": {n: b._version for n, b in model.named_buffers()}}

    assert_parity(scenario, device=device, rtol=1e-4, atol=1e-5)


def test_module_attributes_and_repr():
    def scenario(lib):
        nn = lib.nn
        mods = [nn.BatchNorm1d(3), nn.BatchNorm2d(4, eps=1e-3, momentum=None, affine=False),
                nn.BatchNorm1d(2, track_running_stats=False), nn.BatchNorm2d(2, bias=False),
                nn.LayerNorm(3), nn.LayerNorm((2, 3), elementwise_affine=False),
                nn.LayerNorm([3], bias=False), nn.GroupNorm(2, 4), nn.GroupNorm(1, 3, affine=False),
                nn.GroupNorm(2, 2, bias=False), nn.InstanceNorm2d(3),
                nn.InstanceNorm1d(2, affine=True, track_running_stats=True),
                nn.BatchNorm3d(2, eps=1e-4)]
        return [{"repr": repr(m), "keys": list(m.state_dict()),
                 "params": {n: (to_numpy(p), p._version) for n, p in m.named_parameters()},
                 "buffers": {n: (to_numpy(b), b._version, str(b.dtype).split(".")[-1])
                             for n, b in m.named_buffers()},
                 "none_buffers": sorted(k for k, v in m._buffers.items() if v is None),
                 "training": m.training} for m in mods]

    assert_parity(scenario)


def test_batch_norm_saved_tensors_are_the_buffers(device):
    arr = rand(4, 3)

    def scenario(lib, device):
        bn = lib.nn.BatchNorm1d(3).to(device)
        x = leaf(lib, arr, device)
        node = bn(x).grad_fn
        return {"input": node._saved_input is x, "mean": node._saved_running_mean is
                bn.running_mean, "weight": node._saved_weight is bn.weight,
                "eps": node._saved_eps, "training": node._saved_training,
                "result1": to_numpy(node._saved_result1), "result2": to_numpy(node._saved_result2)}

    assert_parity(scenario, device=device, **TOL)


# ----------------------------------------------------------------------------- functional
LN_CASES = [((4, 5), (5,)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)), ((3, 4), [4])]


@pytest.mark.parametrize("shape,norm", LN_CASES, ids=str)
@pytest.mark.parametrize("affine", ["wb", "w", "none"])
@pytest.mark.parametrize("no_grad", [(), (0,)], ids=["all", "no-input-grad"])
def test_functional_layer_norm(device, shape, norm, affine, no_grad):
    nshape = tuple(norm)
    arrays = [rand(*shape) * 2 + 1, rand(*nshape) if affine != "none" else None,
              rand(*nshape) if affine == "wb" else None]
    if no_grad and affine == "none":
        arrays[1] = rand(*nshape)  # something must require grad

    def fn(F, x, w, b):
        return F.layer_norm(x, norm, w, b, eps=1e-4)

    assert_parity(_fn_trace, fn, arrays, no_grad, (), device == "cpu", device=device, **TOL)


GN_CASES = [((3, 6), 2), ((2, 4, 5), 2), ((2, 6, 3, 2), 3), ((2, 4, 3, 3), 1), ((2, 4, 3), 4)]


@pytest.mark.parametrize("shape,groups", GN_CASES, ids=str)
@pytest.mark.parametrize("affine", ["wb", "w", "none"])
def test_functional_group_norm(device, shape, groups, affine):
    c = shape[1]
    arrays = [rand(*shape) * 2 + 1, rand(c) if affine != "none" else None,
              rand(c) if affine == "wb" else None]

    def fn(F, x, w, b):
        return F.group_norm(x, groups, w, b, eps=1e-4)

    assert_parity(_fn_trace, fn, arrays, (), (), device == "cpu", device=device, **TOL)


IN_CASES = [((2, 3, 4, 3), "wb", False), ((2, 3, 5), "none", False), ((3, 2, 2, 2), "w", True),
            ((2, 3, 4), "wb", True)]


@pytest.mark.parametrize("shape,affine,stats", IN_CASES, ids=str)
@pytest.mark.parametrize("use_input_stats", [True, False])
def test_functional_instance_norm(device, shape, affine, stats, use_input_stats):
    c = shape[1]
    arrays = [rand(*shape) * 2 + 1, rand(c) if affine != "none" else None,
              rand(c) if affine == "wb" else None]
    extra = (rand(c), np.abs(rand(c)) + 0.5) if stats or not use_input_stats else (None, None)

    def fn(F, x, w, b, rm, rv):
        return F.instance_norm(x, rm, rv, w, b, use_input_stats, momentum=0.2, eps=1e-4)

    assert_parity(_fn_trace, fn, arrays, (), extra, device == "cpu", device=device, **TOL)


def test_functional_float64(device):
    # (its own draws: group_norm over 2 elements amplifies rounding where they are close, so
    # the shared RNG's order-dependent data put near-zero gradients 6e-12 apart on some orders)
    rng = np.random.default_rng(284)
    xa, wa = rng.standard_normal((4, 3, 2)), rng.standard_normal(3)

    def scenario(lib, device):
        F = lib.nn.functional
        x, w = leaf(lib, xa, device), leaf(lib, wa, device)
        outs = [F.batch_norm(x, None, None, w, None, training=True),
                F.layer_norm(x, (2,)), F.group_norm(x, 3, w)]
        lib.stack([o.sum() * (i + 1) for i, o in enumerate(outs)]).sum().backward()
        return {"outs": [to_numpy(o) for o in outs], "x": to_numpy(x.grad), "w": to_numpy(w.grad),
                "dtypes": [str(o.dtype).split(".")[-1] for o in outs]}

    assert_parity(scenario, device=device, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_batch_norm_half_precision(device, dtype, training):
    """float16 / bfloat16 batch norm: the elementwise work runs in float32, the per-channel
    sums in float64, the results are rounded to the input's dtype (PyTorch's CPU kernel)."""
    shape = (6, 4, 5, 3)
    arrays = [rand(*shape), rand(4), rand(4), rand(4), np.abs(rand(4)) + 0.5, rand(*shape)]

    def scenario(lib, device):
        dt = getattr(lib, dtype)
        x, w, b = (leaf(lib, a, device).to(dt).detach().requires_grad_() for a in arrays[:3])
        rm, rv = (leaf(lib, a, device, requires_grad=False).to(dt) for a in arrays[3:5])
        out = lib.nn.functional.batch_norm(x, rm, rv, w, b, training=training)
        out.backward(leaf(lib, arrays[5], device, requires_grad=False).to(dt))
        f32 = [t.detach().float() for t in (out, x.grad, w.grad, b.grad, rm, rv)]
        return {"values": [to_numpy(t) for t in f32],
                "dtypes": [str(t.dtype).split(".")[-1] for t in (out, x.grad, w.grad, rm)]}

    # (one float16 ulp at 1 is 1e-3, bfloat16's 8e-3: the rounding of the results)
    tol = 2e-3 if dtype == "float16" else 1.6e-2
    assert_parity(scenario, device=device, rtol=tol, atol=tol)


def test_no_grad_updates_running_stats(device):
    arr = rand(5, 2)

    def scenario(lib, device):
        bn = lib.nn.BatchNorm1d(2).to(device)
        with lib.no_grad():
            out = bn(leaf(lib, arr, device))
        return {"grad_fn": out.grad_fn is None, "mean": to_numpy(bn.running_mean),
                "var": to_numpy(bn.running_var), "n": int(bn.num_batches_tracked),
                "versions": [b._version for b in bn.buffers()]}

    assert_parity(scenario, device=device, **TOL)


# ----------------------------------------------------------------------------- errors
def test_norm_errors(device):
    def scenario(lib, device):
        nn, F = lib.nn, lib.nn.functional

        def t(*shape, dtype=np.float32):
            return leaf(lib, rand(*shape, dtype=dtype), device, requires_grad=False)

        phrases = {
            "bn1d_4d": (lambda: nn.BatchNorm1d(3).to(device)(t(2, 3, 2, 2)), "expected 2D or 3D"),
            "bn2d_2d": (lambda: nn.BatchNorm2d(3).to(device)(t(2, 3)), "expected 4D input"),
            "bn3d_4d": (lambda: nn.BatchNorm3d(3).to(device)(t(2, 3, 2, 2)),
                        "expected 5D input (got 4D input)"),
            "one_value": (lambda: nn.BatchNorm1d(3).to(device)(t(1, 3)),
                          "Expected more than 1 value per channel when training"),
            "one_value_3d": (lambda: F.batch_norm(t(1, 3, 1), None, None, training=True),
                             "Expected more than 1 value per channel"),
            "channels": (lambda: nn.BatchNorm1d(3).to(device)(t(4, 5)),
                         "running_mean should contain 5 elements not 3"),
            # fewer than 2 dims: 0 channels for the per-channel checks, then dim 1 is out of
            # range (minigrad raised RuntimeError before any check; long fuzz profile)
            "bn_1d": (lambda: F.batch_norm(t(3), None, None, training=True),
                      "Dimension out of range"),
            "bn_1d_stats": (lambda: F.batch_norm(t(3), t(3), t(3)),
                            "running_mean should contain 0 elements not 3"),
            "bn_1d_weight": (lambda: F.batch_norm(t(3), None, None, t(3), training=True),
                             "weight should contain 0 elements not 3"),
            "bn_0d_stats": (lambda: F.batch_norm(t(), t(1), t(1)),
                            "running_mean should contain 0 elements not 1"),
            "bn_1d_eval_no_stats": (lambda: F.batch_norm(t(3), None, None),
                                    "running_mean must be defined in evaluation mode"),
            "eps_train": (lambda: F.batch_norm(t(4, 3), None, None, training=True, eps=0.0),
                          "eps must be positive during training"),
            "eps_eval": (lambda: F.batch_norm(t(4, 3), t(3), t(3), eps=-1.0),
                         "eps must be non-negative"),
            "eval_no_stats": (lambda: F.batch_norm(t(4, 3), None, None),
                              "running_mean must be defined in evaluation mode"),
            "eval_no_mean": (lambda: F.batch_norm(t(4, 3), None, t(3)),
                             "running_mean must be defined in evaluation mode"),
            "eval_no_var": (lambda: F.batch_norm(t(4, 3), t(3), None),
                            "running_var must be defined in evaluation mode"),
            "mixed": (lambda: nn.BatchNorm1d(3).to(device)(t(4, 3, dtype=np.float64)),
                      "mixed dtype"),
            "ln_shape": (lambda: F.layer_norm(t(4, 3), (4,)),
                         "Given normalized_shape=[4], expected input with shape [*, 4], but got "
                         "input of size[4, 3]"),
            "ln_int": (lambda: F.layer_norm(t(4, 3), 3), "must be tuple of ints, not int"),
            "ln_weight": (lambda: F.layer_norm(t(4, 3), (3,), t(4)),
                          "Expected weight to be of same shape as normalized_shape"),
            "gn_module": (lambda: nn.GroupNorm(3, 4), "num_channels (4) must be divisible by "
                          "num_groups (3)"),
            "gn_channels": (lambda: F.group_norm(t(4, 3), 2),
                            "Expected number of channels in input to be divisible by num_groups, "
                            "but got input of shape [4, 3] and num_groups=2"),
            "gn_1d": (lambda: F.group_norm(t(4), 2),
                      "Expected at least 2 dimensions for input tensor but received 1"),
            "gn_one_value": (lambda: F.group_norm(t(1, 2), 2), "Expected more than 1 value"),
            "in_spatial": (lambda: F.instance_norm(t(2, 3, 1, 1)),
                           "Expected more than 1 spatial element when training"),
            "in2d_dims": (lambda: nn.InstanceNorm2d(3)(t(2, 3)), "expected 3D or 4D input"),
            "in1d_dims": (lambda: nn.InstanceNorm1d(3)(t(2, 3, 2, 2)), "expected 2D or 3D"),
            "in_features": (lambda: nn.InstanceNorm2d(4, affine=True).to(device)(t(2, 3, 2, 2)),
                            "expected input's size at dim=1 to match num_features (4)"),
        }
        return {k: err(fn, phrase) for k, (fn, phrase) in phrases.items()}

    assert_parity(scenario, device=device)


SECOND_ORDER = {
    "batch_train": lambda F, x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, training=True),
    "batch_train_no_affine": lambda F, x, w, b, rm, rv: F.batch_norm(x, None, None,
                                                                      training=True),
    "batch_eval": lambda F, x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, training=False),
    "layer": lambda F, x, w, b, rm, rv: F.layer_norm(x.transpose(1, 2), [3], w, b,
                                                     eps=1e-3).transpose(1, 2),
    "layer_2d": lambda F, x, w, b, rm, rv: F.layer_norm(x, [3, 4]),
    "group": lambda F, x, w, b, rm, rv: F.group_norm(x, 3, w, b),
    "group_one": lambda F, x, w, b, rm, rv: F.group_norm(x, 1, None, b),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_gradients(device, name):
    """Gradients of gradients (create_graph=True) equal PyTorch's. minigrad records them with
    ordinary nodes, PyTorch with one ``Native*BackwardBackward0``: values only. In float64:
    second derivatives through a variance of a few elements amplify float32 rounding."""
    shapes = [(4, 3, 4), (3,), (3,), (3,), (3,), (4, 3, 4), (4, 3, 4), (3,)]
    arrays = [rand(*s, dtype=np.float64) for s in shapes]
    arrays[0] = arrays[0] * 2 + 0.5
    arrays[4] = np.abs(arrays[4]) + 0.5

    def scenario(lib, device):
        F = lib.nn.functional
        x, w, b = (leaf(lib, a, device) for a in arrays[:3])
        rm, rv, c, d, e = (leaf(lib, a, device, requires_grad=False) for a in arrays[3:])
        out = SECOND_ORDER[name](F, x, w, b, rm, rv)
        gx, gw = lib.autograd.grad((out * c).sum(), [x, w], create_graph=True,
                                   allow_unused=True)
        loss2 = (gx * d).sum() + ((gw * e).sum() if gw is not None else 0) + (gx * gx).sum()
        grads = lib.autograd.grad(loss2, [x, w, b], allow_unused=True)
        return {"gx": to_numpy(gx), "gw": to_numpy(gw), "grads": [to_numpy(t) for t in grads]}

    assert_parity(scenario, device=device, rtol=1e-9, atol=1e-11)


def test_silenced_warnings_stay_clean():
    x = rand(3, 2)

    def scenario(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = lib.nn.BatchNorm1d(2)(lib.tensor(x))
        return [x.category.__name__ for x in w], to_numpy(out)

    mg, pt = assert_parity(scenario)
    assert mg[0] == [], mg[0]  # no warning from a plain training-mode forward


# (not groups of no elements with a batch, e.g. (2, 4, 0): PyTorch's weight gradient is NaN
# there, its kernel's mean 0 times an rstd of NaN; minigrad's empty sum gives 0)
EMPTY_CASES = [("group", (0, 4, 2)), ("group", (2, 0, 2)),
               ("group", (0, 0, 2, 4)), ("batch", (0, 3)), ("batch", (1, 0, 3)),
               ("batch_eval", (0, 3)), ("batch_wrong_size", (0, 3))]


@pytest.mark.parametrize("op,shape", EMPTY_CASES, ids=str)
def test_inputs_of_no_elements(op, shape):
    """Group norm returns the empty normalisation (no NumPy "Mean of empty slice" warning);
    batch norm checks nothing and returns ``input.clone() * weight[0] + bias[0]`` (a weight of
    the wrong size is fine; one of no elements raises select's IndexError)."""
    c = shape[1]

    def scenario(lib):
        F = lib.nn.functional
        x = lib.zeros(*shape, requires_grad=True)
        w = lib.ones(2 if op == "batch_wrong_size" else c, requires_grad=True)
        b = lib.full((2 if op == "batch_wrong_size" else c,), 0.5, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if op == "group":
                    out = F.group_norm(x, 2, w, b)
                else:
                    out = F.batch_norm(x, None, None, w, b, training=op != "batch_eval")
            except IndexError as e:
                return {"error": ("IndexError", "select(): index 0 out of range" in str(e))}
            out.sum().backward()
        return {"out": to_numpy(out), "graph": graph_trace(out),
                "warnings": [str(m.message) for m in caught],
                "grads": [to_numpy(t.grad) for t in (x, w, b)]}

    assert_parity(scenario)


@pytest.mark.parametrize("view", ["transpose", "slice"])
@pytest.mark.parametrize("op", ["batch", "layer", "group"])
def test_non_contiguous_input(device, view, op):
    """PyTorch's group_norm makes its input contiguous first (``CloneBackward0``); batch and
    layer norm take the view as it is."""
    def fn(F, x, w, b):
        v = x.transpose(1, 2) if view == "transpose" else x[:, :, ::2]
        if op == "batch":
            return F.batch_norm(v, None, None, w[:v.shape[1]], b[:v.shape[1]], training=True)
        if op == "layer":
            return F.layer_norm(v, [v.shape[-1]], w[:v.shape[-1]], b[:v.shape[-1]])
        return F.group_norm(v, 2, w[:v.shape[1]], b[:v.shape[1]])

    # (float64: layer norm over the slice's 3 elements is ill-conditioned enough that float32
    # rounding alone differs by ~1e-4 for some draws of the shared RNG, depending on test order)
    arrays = [rand(3, 4, 6, dtype=np.float64), rand(6, dtype=np.float64),
              rand(6, dtype=np.float64)]
    assert_parity(_fn_trace, fn, arrays, (), (), device == "cpu", device=device, **TOL)


@pytest.mark.parametrize("no_grad", [(0,), (1,), (2,), (1, 2), (0, 2)], ids=str)
@pytest.mark.parametrize("op", ["batch", "batch_eval", "layer", "group"])
def test_inputs_without_grad(device, no_grad, op):
    """Empty slots in next_functions for what does not require grad; the others' gradients."""
    def fn(F, x, w, b, rm, rv):
        if op == "batch":
            return F.batch_norm(x, rm, rv, w, b, training=True)
        if op == "batch_eval":
            return F.batch_norm(x, rm, rv, w, b)
        if op == "layer":
            return F.layer_norm(x, [4, 5], w.reshape(4, 5)[:, :5] * 1, b.reshape(4, 5))
        return F.group_norm(x, 2, w[:4], b[:4])

    shape = (2, 3, 4, 5) if op.startswith("batch") else (2, 4, 4, 5)
    c = shape[1]
    wshape = (20,) if op == "layer" else (c,)
    arrays = [rand(*shape), rand(*wshape), rand(*wshape)]
    extra = (rand(3), np.abs(rand(3)) + 0.5)
    assert_parity(_fn_trace, fn, arrays, no_grad, extra, device == "cpu", device=device, **TOL)
