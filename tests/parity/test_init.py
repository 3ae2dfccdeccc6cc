"""Parity of ``nn.init``: every initialiser PyTorch has for dense tensors.

Deterministic results are compared exactly (``calculate_gain``, fan computations, ``eye_``,
``dirac_``, ``constant_``/``ones_``/``zeros_``, errors, warnings, the ``_version`` each
initialiser leaves, that it returns its argument and keeps a leaf a leaf). Random ones cannot be
bit-equal to PyTorch's (minigrad has its own generator), so they are compared statistically on
a large tensor: bounds, mean and standard deviation within a tolerance far below the spread of
a wrong formula, orthogonality of ``orthogonal_``, the number of zeros per column of
``sparse_``.
"""

import math
import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, compare, run_both, to_numpy

from .test_functional import leaf
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

NONLINEARITIES = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh", "relu",
                  "leaky_relu", "selu"]


def _param(lib, shape, device, dtype="float32"):
    """A leaf that requires grad (in-place initialisers must run under no_grad)."""
    return leaf(lib, np.zeros(shape, dtype), device)


def _meta(t, v0):
    """What an initialiser leaves besides the values: version delta, leaf, requires_grad."""
    return {"dversion": t._version - v0, "is_leaf": t.is_leaf, "requires_grad": t.requires_grad,
            "grad_fn": t.grad_fn is None, "dtype": str(t.dtype).split(".")[-1],
            "shape": tuple(t.shape)}


def _run(lib, fn, t):
    v0 = t._version
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(lib.nn.init, t)
    return out is t, _meta(t, v0), [(w.category.__name__, str(w.message)) for w in caught]


# ----------------------------------------------------------------------------- calculate_gain
def test_calculate_gain():
    def scenario(lib):
        I = lib.nn.init
        gains = {n: I.calculate_gain(n) for n in NONLINEARITIES}
        params = [I.calculate_gain("leaky_relu", p) for p in (None, 0, 0.2, 1, -0.5, 3)]
        others = [I.calculate_gain(n, 0.3) for n in ("tanh", "relu", "linear")]
        errors = [err(lambda p=p: I.calculate_gain("leaky_relu", p)) for p in (True, "0.1",
                                                                                [0.1])]
        errors += [err(lambda n=n: I.calculate_gain(n)) for n in ("gelu", "Relu", "")]
        return {"gains": gains, "types": {n: type(g).__name__ for n, g in gains.items()},
                "params": params, "others": others, "errors": errors}

    assert_parity(scenario, rtol=0, atol=0)


# ----------------------------------------------------------------------------- fan computations
@pytest.mark.parametrize("shape", [(2, 3), (4, 3, 5), (4, 3, 2, 2), (6, 2, 1, 3, 2), (0, 3),
                                   (3,), (), (5, 0, 3)], ids=str)
def test_fans(device, shape):
    def scenario(lib, device):
        I = lib.nn.init
        t = _param(lib, shape, device)
        return {"fans": err(lambda: I._calculate_fan_in_and_fan_out(t)) or
                I._calculate_fan_in_and_fan_out(t),
                "fan_in": err(lambda: I._calculate_correct_fan(t, "fan_in")) or
                I._calculate_correct_fan(t, "FAN_OUT"),
                "bad_mode": err(lambda: I._calculate_correct_fan(t, "fan_avg"))}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- deterministic
@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 3), (0, 3), (1, 1)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eye(device, shape, dtype):
    def scenario(lib, device):
        t = _param(lib, shape, device, dtype)
        same, meta, warns = _run(lib, lambda I, t: I.eye_(t), t)
        return {"values": to_numpy(t), "same": same, "meta": meta, "warnings": warns}

    assert_parity(scenario, device=device)


def test_eye_errors(device):
    def scenario(lib, device):
        return [err(lambda s=s: lib.nn.init.eye_(_param(lib, s, device))) for s in
                ((3,), (2, 2, 2), ())]

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("shape,groups", [((4, 3, 3), 1), ((4, 3, 3, 3), 1), ((4, 3, 3, 3), 2),
                                          ((6, 2, 3, 3, 3), 3), ((2, 5, 4), 1), ((6, 4, 2, 5), 2),
                                          ((3, 3, 1, 1), 3)], ids=str)
def test_dirac(device, shape, groups):
    def scenario(lib, device):
        t = leaf(lib, np.full(shape, 7.0, np.float32), device)
        same, meta, warns = _run(lib, lambda I, t: I.dirac_(t, groups), t)
        return {"values": to_numpy(t), "same": same, "meta": meta, "warnings": warns}

    assert_parity(scenario, device=device)


def test_dirac_errors(device):
    def scenario(lib, device):
        I = lib.nn.init
        return [err(lambda s=s: I.dirac_(_param(lib, s, device))) for s in
                ((3, 3), (2, 2, 2, 2, 2, 2), (3,))] + [
            err(lambda: I.dirac_(_param(lib, (4, 3, 3), device), groups=3))]

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("which", ["constant", "constant_int", "ones", "zeros"])
@pytest.mark.parametrize("shape", [(2, 3), (4,), (), (0, 2)], ids=str)
def test_fills(device, which, shape):
    fn = {"constant": lambda I, t: I.constant_(t, -2.5), "constant_int": lambda I, t:
          I.constant_(t, val=3), "ones": lambda I, t: I.ones_(t),
          "zeros": lambda I, t: I.zeros_(t)}[which]

    def scenario(lib, device):
        t = leaf(lib, np.full(shape, 7.0, np.float32), device)
        same, meta, warns = _run(lib, fn, t)
        return {"values": to_numpy(t), "same": same, "meta": meta, "warnings": warns}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- random, stats
def _stats(t):
    a = to_numpy(t).astype(np.float64)
    return {"mean": float(a.mean()), "std": float(a.std()), "min": float(a.min()),
            "max": float(a.max())}


SHAPE = (400, 250)  # 100 000 samples: the sample mean and std are within ~1% of the truth
RANDOM = {
    "uniform_": (lambda I, t: I.uniform_(t), ("mean", "std", "min", "max")),
    "uniform_ab": (lambda I, t: I.uniform_(t, -3.0, 0.5), ("mean", "std", "min", "max")),
    "normal_": (lambda I, t: I.normal_(t), ("mean", "std")),
    "normal_ms": (lambda I, t: I.normal_(t, mean=2.0, std=0.1), ("mean", "std")),
    "xavier_uniform_": (lambda I, t: I.xavier_uniform_(t), ("mean", "std", "min", "max")),
    "xavier_uniform_gain": (lambda I, t: I.xavier_uniform_(t, gain=I.calculate_gain("relu")),
                            ("mean", "std", "min", "max")),
    "xavier_normal_": (lambda I, t: I.xavier_normal_(t, 3.0), ("mean", "std")),
    "kaiming_uniform_": (lambda I, t: I.kaiming_uniform_(t), ("mean", "std", "min", "max")),
    "kaiming_uniform_sqrt5": (lambda I, t: I.kaiming_uniform_(t, a=math.sqrt(5)),
                              ("mean", "std", "min", "max")),
    "kaiming_uniform_out_relu": (lambda I, t: I.kaiming_uniform_(t, mode="fan_out",
                                                                 nonlinearity="relu"),
                                 ("mean", "std", "min", "max")),
    "kaiming_normal_": (lambda I, t: I.kaiming_normal_(t), ("mean", "std")),
    "kaiming_normal_tanh_out": (lambda I, t: I.kaiming_normal_(t, 0, "fan_out", "tanh"),
                                ("mean", "std")),
    "kaiming_normal_leaky": (lambda I, t: I.kaiming_normal_(t, a=0.2), ("mean", "std")),
    "trunc_normal_": (lambda I, t: I.trunc_normal_(t), ("mean", "std", "min", "max")),
    "trunc_normal_narrow": (lambda I, t: I.trunc_normal_(t, std=1.0, a=-0.1, b=0.1),
                            ("mean", "std", "min", "max")),
    "trunc_normal_shifted": (lambda I, t: I.trunc_normal_(t, mean=1.0, std=0.5, a=0.0, b=3.0),
                             ("mean", "std", "min")),  # b is 4 std out: the max varies
    "trunc_normal_onesided": (lambda I, t: I.trunc_normal_(t, 0.0, 2.0, a=1.0, b=9.0),
                              ("mean", "std", "min")),  # the max of a tail varies too much
}
TRUNC_BOUNDS = {"trunc_normal_": (-2, 2), "trunc_normal_narrow": (-0.1, 0.1),
                "trunc_normal_shifted": (0, 3), "trunc_normal_onesided": (1, 9)}


@pytest.mark.parametrize("name", list(RANDOM))
@pytest.mark.parametrize("shape", [SHAPE, (100, 50, 4, 5)], ids=["2d", "4d"])
def test_random_initialisers(device, name, shape):
    fn, keys = RANDOM[name]

    def scenario(lib, device):
        lib.manual_seed(0)  # reproducible; the tolerances hold for any seed
        t = _param(lib, shape, device)
        same, meta, warns = _run(lib, fn, t)
        stats = _stats(t)
        scale = stats["std"]
        lo, hi = TRUNC_BOUNDS.get(name, (-np.inf, np.inf))
        # normalised by the std, so one tolerance fits every scale; the std itself as a log
        # (atol 0.02 on it is 2% relative)
        return {"same": same, "meta": {k: v for k, v in meta.items() if k != "dversion"},
                "warnings": warns, "inside": bool(np.float32(lo) <= stats["min"]
                                                    and stats["max"] <= np.float32(hi)),
                "stats": {k: stats[k] / scale for k in keys if k != "std"},
                "log_std": math.log(scale)}

    a, b = run_both(scenario, device=device)
    assert abs(a.pop("log_std") - b.pop("log_std")) < 0.02, "std differs by more than 2%"
    compare(a, b, rtol=0.01, atol=0.02)
    assert a["inside"]


@pytest.mark.parametrize("fn", ["uniform_", "normal_", "xavier_uniform_", "xavier_normal_",
                                "kaiming_uniform_", "kaiming_normal_", "constant_", "ones_",
                                "zeros_", "eye_", "orthogonal_", "sparse_"])
def test_versions(device, fn):
    args = {"constant_": (0.5,), "sparse_": (0.4,)}.get(fn, ())

    def scenario(lib, device):
        t = _param(lib, (6, 5), device)
        same, meta, warns = _run(lib, lambda I, t: getattr(I, fn)(t, *args), t)
        return {"same": same, "meta": meta, "warnings": warns}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("fn", ["uniform_", "normal_", "xavier_uniform_", "xavier_normal_",
                                "kaiming_uniform_", "kaiming_normal_", "trunc_normal_",
                                "orthogonal_", "sparse_"])
def test_generator(device, fn):
    args = {"sparse_": (0.4,)}.get(fn, ())

    def scenario(lib, device):
        def draw(seed):
            g = lib.Generator(device=device).manual_seed(seed)
            t = _param(lib, (6, 5), device)
            if fn == "sparse_":  # PyTorch draws its zero rows from the global generator
                lib.manual_seed(0)
            getattr(lib.nn.init, fn)(t, *args, generator=g)
            return to_numpy(t)

        first, again, other = draw(1), draw(1), draw(2)
        return {"same_seed": bool(np.array_equal(first, again)),
                "other_seed": bool(np.array_equal(first, other))}

    assert_parity(scenario, device=device)


def test_zero_element_and_float64(device):
    def scenario(lib, device):
        lib.manual_seed(0)
        I = lib.nn.init
        out = {}
        for name in ("kaiming_uniform_", "kaiming_normal_", "orthogonal_", "xavier_uniform_",
                     "trunc_normal_", "uniform_"):
            t = _param(lib, (0, 3), device)
            out[name] = _run(lib, lambda I, t, name=name: getattr(I, name)(t), t)
        t = _param(lib, (50, 40), device, "float64")
        out["f64"] = _run(lib, lambda I, t: I.kaiming_normal_(t, nonlinearity="relu"), t)
        out["f64_log_std"] = math.log(_stats(t)["std"])
        t = _param(lib, (50, 40), device, "float64")
        out["f64_orth"] = _run(lib, lambda I, t: I.orthogonal_(t), t)
        out["bad_mode"] = err(lambda: I.kaiming_uniform_(_param(lib, (3, 3), device), mode="x"))
        out["bad_nl"] = err(lambda: I.kaiming_normal_(_param(lib, (3, 3), device),
                                                      nonlinearity="gelu"))
        out["vector"] = err(lambda: I.xavier_uniform_(_param(lib, (3,), device)))
        out["under_grad"] = lib.is_grad_enabled()
        return out

    assert_parity(scenario, device=device, rtol=0, atol=0.05)


def test_trunc_normal_far_mean_warns(device):
    def scenario(lib, device):
        t = _param(lib, (200, 50), device)
        same, meta, warns = _run(lib, lambda I, t: I.trunc_normal_(t, mean=5.0, std=1.0,
                                                                    a=-1.0, b=1.0), t)
        a = to_numpy(t)
        return {"same": same, "warnings": warns, "inside": bool((a >= -1).all() and
                                                                (a <= 1).all())}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- orthogonal_
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (2, 3, 4), (6, 2, 2), (1, 7)],
                         ids=str)
@pytest.mark.parametrize("gain", [1, 2.5])
def test_orthogonal(device, shape, gain):
    def scenario(lib, device):
        t = _param(lib, shape, device)
        same, meta, warns = _run(lib, lambda I, t: I.orthogonal_(t, gain=gain), t)
        flat = to_numpy(t).reshape(shape[0], -1).astype(np.float64)
        gram = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
        return {"same": same, "meta": meta, "warnings": warns, "gram": gram}

    assert_parity(scenario, device=device, rtol=1e-5, atol=1e-5)


def test_orthogonal_errors(device):
    def scenario(lib, device):
        return [err(lambda s=s: lib.nn.init.orthogonal_(_param(lib, s, device))) for s in
                ((3,), ())]

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- sparse_
@pytest.mark.parametrize("shape,sparsity", [((40, 30), 0.1), ((10, 5), 0.5), ((7, 3), 0.0),
                                            ((5, 4), 1.0), ((9, 6), 0.33)], ids=str)
def test_sparse(device, shape, sparsity):
    def scenario(lib, device):
        t = leaf(lib, np.full(shape, 7.0, np.float32), device)
        same, meta, warns = _run(lib, lambda I, t: I.sparse_(t, sparsity, std=0.5), t)
        a = to_numpy(t)
        return {"same": same, "meta": meta, "warnings": warns,
                "zeros_per_column": (a == 0).sum(axis=0), "no_sevens": bool((a != 7).all())}

    assert_parity(scenario, device=device)


def test_sparse_errors_and_std(device):
    def scenario(lib, device):
        lib.manual_seed(0)
        I = lib.nn.init
        t = _param(lib, (1000, 100), device)
        I.sparse_(t, 0.5, std=0.2)
        a = to_numpy(t)
        return {"std": float(a[a != 0].std()),
                "errors": [err(lambda s=s: I.sparse_(_param(lib, s, device), 0.1)) for s in
                           ((3,), (2, 2, 2))]}

    assert_parity(scenario, device=device, rtol=0.02, atol=0)


# ----------------------------------------------------------------------------- deprecated
@pytest.mark.parametrize("old", ["uniform", "normal", "constant", "eye", "dirac",
                                 "xavier_uniform", "xavier_normal", "kaiming_uniform",
                                 "kaiming_normal", "orthogonal", "sparse"])
def test_deprecated_aliases(device, old):
    args = {"constant": (0.5,), "sparse": (0.4,)}.get(old, ())
    shape = (4, 3, 3) if old == "dirac" else (4, 3)

    def scenario(lib, device):
        fn = getattr(lib.nn.init, old)
        t = _param(lib, shape, device)
        same, meta, warns = _run(lib, lambda I, t: fn(t, *args), t)
        return {"name": fn.__name__, "same": same, "meta": meta, "warnings": warns,
                "values": to_numpy(t) if old in ("constant", "eye", "dirac") else None}

    assert_parity(scenario, device=device)


def test_init_in_a_module_keeps_parameters(device):
    def scenario(lib, device):
        model = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.Conv2d(2, 2, 3)).to(device)
        I = lib.nn.init
        I.orthogonal_(model[0].weight)
        I.zeros_(model[0].bias)
        I.dirac_(model[1].weight)
        I.constant_(model[1].bias, 0.1)
        x = leaf(lib, np.arange(2 * 2 * 3 * 3, dtype=np.float32).reshape(2, 2, 3, 3), device)
        y = model[1](x)
        y.sum().backward()
        return {"types": [type(p).__name__ for p in model.parameters()],
                "y": to_numpy(y), "x_grad": to_numpy(x.grad),
                "versions": [p._version for p in model.parameters()]}

    assert_parity(scenario, device=device)


def test_namespace():
    import minigrad

    for name in minigrad.nn.init.__all__:
        assert name in torch.nn.init.__all__, name
    missing = [n for n in torch.nn.init.__all__ if not hasattr(minigrad.nn.init, n)]
    assert not missing, missing
