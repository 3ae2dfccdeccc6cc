"""Parity of the losses' dtypes when input, target, ``weight`` and ``pos_weight`` differ:
``F.binary_cross_entropy_with_logits`` / ``BCEWithLogitsLoss``, ``F.binary_cross_entropy``,
``F.mse_loss``, ``F.l1_loss``, ``F.smooth_l1_loss``, ``F.huber_loss``.

Each case returns the loss's dtype and values, the gradients' dtypes and values (of the input
and of a float target that requires grad), or the exception PyTorch raises (type and message,
kernel names checked only on the CPU). Facts measured on PyTorch 2.13: the logits loss has the
**target's** dtype (its kernel writes ``(1 - target).mul_(input)`` in place), Huber has the
input's and refuses differing dtypes in its backward only, smooth L1 / MSE / L1 promote, and
``-`` refuses any bool operand.
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy

from .test_tensor_meta import err

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 4))
T = RNG.uniform(0.0, 1.0, (3, 4))
PROB = RNG.uniform(0.05, 0.95, (3, 4))
W = RNG.uniform(0.5, 2.0, (3, 4))
PW = np.array([0.5, 1.0, 2.0, 3.0])
FLOATS = ("float32", "float64")
MIXED = [("float32", "float64"), ("float64", "float32"), ("float32", "float32"),
         ("float64", "float64"), ("float16", "float32")]


def _name(dt) -> str:
    return str(dt).split(".")[-1]


def _tensor(lib, arr, dtype, device, requires_grad=False):
    dt = getattr(lib, dtype)
    if dtype == "bool":
        arr = arr > 0.5
    elif dtype in ("int64", "int32"):
        arr = np.round(arr * 2)
    t = lib.tensor(np.array(arr), dtype=dt)
    if lib.__name__ == "torch":
        t = t.to(device)
    return t.requires_grad_() if requires_grad else t


def _loss_case(lib, device, loss, x_dtype, t_dtype, x_arr=X, **extra):
    """Run ``loss(lib.nn.functional)(x, t, **extras)``, sum, backward; trace dtypes/values."""
    F = lib.nn.functional
    x = _tensor(lib, x_arr, x_dtype, device, requires_grad=x_dtype.startswith("float"))
    t = _tensor(lib, T, t_dtype, device, requires_grad=t_dtype.startswith("float"))
    kw = {k: _tensor(lib, *v, device) if isinstance(v, tuple) else v for k, v in extra.items()}

    def run():
        out = getattr(F, loss)(x, t, **kw)
        trace = {"dtype": _name(out.dtype), "out": to_numpy(out)}
        if x.requires_grad or t.requires_grad:
            out.sum().backward()
        for name, leaf in (("x", x), ("t", t)):
            if leaf.grad is not None:
                trace[f"grad_{name}"] = (_name(leaf.grad.dtype), to_numpy(leaf.grad))
        return trace

    try:
        return run()
    except Exception as e:  # noqa: BLE001 - the error is the trace
        msg = str(e).replace("torch", "minigrad")
        if device != "cpu" and "not implemented for" in msg:  # kernel names are per device
            msg = msg[msg.index("not implemented for"):]
        return type(e).__name__, msg


def _tol(*dtypes):
    """float16 values agree to float16's precision, the others to float32's."""
    return {"rtol": 2e-3, "atol": 2e-3} if "float16" in dtypes else {"rtol": 1e-5, "atol": 1e-6}


# ----------------------------------------------------------------------------- with logits
@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("x_dtype, t_dtype", MIXED)
def test_bce_with_logits_input_target_dtypes(x_dtype, t_dtype, reduction, device):
    def scenario(lib, device):
        return _loss_case(lib, device, "binary_cross_entropy_with_logits", x_dtype, t_dtype,
                          reduction=reduction)

    assert_parity(scenario, device=device, **_tol(x_dtype, t_dtype))


@pytest.mark.parametrize("extra_dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("which", ["weight", "pos_weight"])
@pytest.mark.parametrize("x_dtype, t_dtype", [("float32", "float64"), ("float64", "float32"),
                                              ("float32", "float32")])
def test_bce_with_logits_weight_dtypes(x_dtype, t_dtype, which, extra_dtype, device):
    arr = W if which == "weight" else PW

    def scenario(lib, device):
        return _loss_case(lib, device, "binary_cross_entropy_with_logits", x_dtype, t_dtype,
                          reduction="none", **{which: (arr, extra_dtype)})

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("x_dtype, t_dtype", [("float32", "int64"), ("float64", "int32"),
                                              ("float32", "bool"), ("int64", "float32"),
                                              ("bool", "float32")])
def test_bce_with_logits_dtype_errors(x_dtype, t_dtype, device):
    def scenario(lib, device):
        return _loss_case(lib, device, "binary_cross_entropy_with_logits", x_dtype, t_dtype)

    a, _ = assert_parity(scenario, device=device)
    assert a[0] in ("RuntimeError", "NotImplementedError")  # (every case here raises)


def test_bce_with_logits_module_mixed_dtypes(device):
    """``BCEWithLogitsLoss(weight=float64, pos_weight=float32)`` on a float32 input and a
    float64 target: the module passes its buffers through, the loss is float64."""
    def scenario(lib, device):
        crit = lib.nn.BCEWithLogitsLoss(weight=_tensor(lib, W, "float64", device),
                                        pos_weight=_tensor(lib, PW, "float32", device))
        x = _tensor(lib, X, "float32", device, requires_grad=True)
        t = _tensor(lib, T, "float64", device)
        out = crit(x, t)
        out.backward()
        return _name(out.dtype), to_numpy(out), _name(x.grad.dtype), to_numpy(x.grad)

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- probabilities
@pytest.mark.parametrize("w_dtype", [None, "float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("x_dtype, t_dtype", [("float32", "float32"), ("float64", "float64"),
                                              ("float32", "float64"), ("float64", "float32")])
def test_bce_dtypes(x_dtype, t_dtype, w_dtype, device):
    """The target must have the input's dtype (RuntimeError otherwise); ``weight`` may have
    any dtype and the loss keeps the input's."""
    def scenario(lib, device):
        extra = {} if w_dtype is None else {"weight": (W, w_dtype)}
        return _loss_case(lib, device, "binary_cross_entropy", x_dtype, t_dtype, x_arr=PROB,
                          reduction="none", **extra)

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- regression losses
@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("x_dtype, t_dtype", MIXED + [
    ("float32", "int64"), ("float64", "int64"), ("float32", "bool"), ("int64", "float32"),
    ("int64", "int64"), ("bool", "bool")])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_regression_loss_dtypes(loss, x_dtype, t_dtype, reduction, device):
    def scenario(lib, device):
        return _loss_case(lib, device, loss, x_dtype, t_dtype, reduction=reduction)

    assert_parity(scenario, device=device, **_tol(x_dtype, t_dtype))


# ----------------------------------------------------------------------------- bool subtraction
@pytest.mark.parametrize("case", ["float-bool", "bool-float", "bool-bool", "int-bool",
                                  "number-bool", "bool-True", "float-True", "rsub", "sub_"])
def test_subtraction_refuses_bool(case, device):
    """``-`` with a bool operand (one or two: two messages), as ``l1_loss`` meets it."""
    def scenario(lib, device):
        f = _tensor(lib, T, "float32", device)
        b = _tensor(lib, T, "bool", device)
        i = _tensor(lib, T, "int64", device)
        ops = {"float-bool": lambda: f - b, "bool-float": lambda: b - f,
               "bool-bool": lambda: b - b, "int-bool": lambda: lib.sub(i, b),
               "number-bool": lambda: 1 - b, "bool-True": lambda: b - True,
               "float-True": lambda: f - True, "rsub": lambda: lib.rsub(b, 2),
               "sub_": lambda: f.sub_(b)}
        return err(ops[case]), f._version

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- bfloat16
@pytest.mark.parametrize("loss", ["binary_cross_entropy_with_logits", "mse_loss", "l1_loss",
                                  "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("x_dtype, t_dtype", [("bfloat16", "bfloat16"), ("bfloat16", "float32"),
                                              ("float32", "bfloat16")])
def test_bfloat16_losses(loss, x_dtype, t_dtype, device):
    """bfloat16 counts as floating in every dtype check of the losses (its NumPy kind is "V"):
    a bfloat16 target is not refused as an integer one, and the result dtypes are PyTorch's."""
    pytest.importorskip("ml_dtypes")

    def scenario(lib, device):
        x = _tensor(lib, X, x_dtype, device, requires_grad=True)
        t = _tensor(lib, T, t_dtype, device, requires_grad=True)
        out = getattr(lib.nn.functional, loss)(x, t, reduction="none")
        try:
            out.sum().backward()
        except RuntimeError as e:  # (Huber refuses differing dtypes in its backward)
            return _name(out.dtype), str(e)
        # (read as float32: torch's .numpy() has no bfloat16)
        return ([_name(v.dtype) for v in (out, x.grad, t.grad)],
                [to_numpy(v.float()) for v in (out, x.grad, t.grad)])

    assert_parity(scenario, device=device, rtol=2e-2, atol=2e-2)
