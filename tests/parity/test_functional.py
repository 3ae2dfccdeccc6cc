"""Parity of ``nn.functional``: linear, activations, softmax, dropout, and a small CNN step.

Every scenario is a function of ``lib`` (minigrad or torch) run on both and compared with
``minigrad.parity.compare``: forward values, the gradient of every input, the backward graph
(``graph_trace``), the ``_saved_*`` attribute names of the output node, and errors
(type + message). ``run_op`` and ``leaf`` are reused by ``test_conv_pool.py`` and
``test_losses.py``.
"""

import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional  # noqa: F401  (binds minigrad.nn.functional)
from minigrad.parity import assert_parity, capture_error, graph_trace, to_numpy

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1234)


def rand(*shape, dtype=np.float32):
    """Fixed-seed standard-normal array (the same for both libraries)."""
    return RNG.standard_normal(shape).astype(dtype)


def is_torch(lib) -> bool:
    return lib.__name__ == "torch"


def leaf(lib, arr, device="cpu", requires_grad=True):
    """A leaf tensor holding ``arr``; the torch side lives on ``device``."""
    if arr is None:
        return None
    if is_torch(lib):
        return lib.tensor(arr, device=device, requires_grad=requires_grad)
    return lib.tensor(arr, requires_grad=requires_grad)


def saved_names(node) -> list:
    """The ``_saved_*`` attribute names ``dir()`` lists for a node."""
    return sorted(a for a in dir(node) if a.startswith("_saved_"))


def run_op(lib, fn, arrays, no_grad=(), device="cpu"):
    """Build leaves from ``arrays`` (index in ``no_grad`` → requires_grad False; None stays
    None), compute ``out = fn(F, *leaves)``, backprop a fixed non-uniform gradient and return
    a trace: output, graph, saved-attribute names, every leaf's grad."""
    F = lib.nn.functional
    leaves = [leaf(lib, a, device, requires_grad=i not in no_grad and a is not None and
                   a.dtype.kind == "f") for i, a in enumerate(arrays)]
    out = fn(F, *leaves)
    trace = {"out": to_numpy(out), "graph": graph_trace(out),
             "saved": saved_names(out.grad_fn) if out.grad_fn is not None else None}
    if out.requires_grad:
        g = np.linspace(-1.0, 2.0, max(out.numel(), 1)).reshape(tuple(out.shape))
        out.backward(leaf(lib, g.astype(np.float32), device, requires_grad=False))
        trace["grads"] = [to_numpy(t.grad) if t is not None else None for t in leaves]
    return trace


def error_of(lib, fn):
    """``(type name, message)`` of what ``fn(F)`` raises (None if nothing)."""
    return capture_error(lambda: fn(lib.nn.functional))


# ----------------------------------------------------------------------------- linear
LINEAR_CASES = [
    ((3, 4), True), ((3, 4), False), ((4,), True), ((4,), False), ((2, 3, 4), True),
    ((2, 3, 4), False), ((2, 1, 3, 4), True),
]


@pytest.mark.parametrize("shape,bias", LINEAR_CASES)
@pytest.mark.parametrize("x_grad", [True, False])
def test_linear_graph_values_grads(device, shape, bias, x_grad):
    arrays = [rand(*shape), rand(5, 4), rand(5) if bias else None]
    assert_parity(run_op, lambda F, x, w, b: F.linear(x, w, b), arrays,
                  no_grad=() if x_grad else (0,), device=device)


@pytest.mark.parametrize("bias", [True, False])
def test_linear_non_contiguous_input(device, bias):
    # A transposed 3-D input is not contiguous: PyTorch takes matmul + in-place add_.
    arrays = [rand(4, 2, 3), rand(5, 4), rand(5) if bias else None]
    assert_parity(run_op, lambda F, x, w, b: F.linear(x.transpose(0, 2), w, b), arrays,
                  device=device)


def test_linear_saved_attributes(device):
    def scenario(lib, device):
        x, w, b = leaf(lib, rand(3, 4), device), leaf(lib, rand(5, 4), device), \
            leaf(lib, rand(5), device)
        node = lib.nn.functional.linear(x, w, b).grad_fn
        return {"saved": saved_names(node), "mat1_is_x": node._saved_mat1 is x,
                "sizes": node._saved_mat2_sym_sizes, "strides": node._saved_mat2_sym_strides}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("xshape", [(3, 3), (2, 3, 3), (3,)])
def test_linear_size_mismatch_error(xshape):
    x, w, b = rand(*xshape), rand(5, 4), rand(5)
    for bias in (b, None):
        errs = [error_of(lib, lambda F, lib=lib, bias=bias: F.linear(
            lib.tensor(x), lib.tensor(w), None if bias is None else lib.tensor(bias)))
            for lib in (minigrad, torch)]
        assert errs[0] is not None and errs[0] == errs[1]


# ----------------------------------------------------------------------------- activations
ACTIVATIONS = {
    "relu": lambda F, x: F.relu(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.2),
    "leaky_relu_default": lambda F, x: F.leaky_relu(x),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x),
    "softplus": lambda F, x: F.softplus(x),
    "softplus_beta": lambda F, x: F.softplus(x, beta=2, threshold=3),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "tanh": lambda F, x: F.tanh(x),
    "softmax": lambda F, x: F.softmax(x, dim=1),
    "softmax_neg_dim": lambda F, x: F.softmax(x, -1),
    "log_softmax": lambda F, x: F.log_softmax(x, 1),
    "log_softmax_dtype": lambda F, x: F.log_softmax(x, 0, dtype=x.double().dtype),
    # the Tensor methods (and torch.softmax / torch.log_softmax) take dtype too
    "softmax_method_dtype": lambda F, x: x.softmax(1, dtype=x.double().dtype),
    "log_softmax_method_dtype": lambda F, x: x.log_softmax(-1, dtype=x.double().dtype),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4)])
def test_activation_parity(device, name, shape):
    x = rand(*shape) * 3
    x.flat[0] = 12.0  # exercise softplus's linear region and large gelu/silu inputs
    x.flat[1] = -9.0
    assert_parity(run_op, ACTIVATIONS[name], [x], device=device)


@pytest.mark.parametrize("name", ["gelu", "gelu_tanh"])
def test_gelu_tails_match(device, name):
    # Accuracy of minigrad's erfc-based exact GELU in the tails and near 0.
    x = np.concatenate([np.linspace(-10, 10, 201), np.linspace(-1e-3, 1e-3, 11)])
    assert_parity(run_op, ACTIVATIONS[name], [x.astype(np.float32)], device=device,
                  atol=1e-6, rtol=1e-5)


def _saved_values(node):
    """Non-tensor saved values, plus the shape of each tensor-valued one."""
    out = {}
    for name in saved_names(node):
        v = getattr(node, name)
        out[name] = tuple(v.shape) if hasattr(v, "shape") else v
    return out


@pytest.mark.parametrize("name", ["leaky_relu", "gelu", "gelu_tanh", "silu", "softplus",
                                  "softplus_beta"])
def test_activation_saved_values(device, name):
    def scenario(lib, device):
        x = leaf(lib, rand(3, 4), device)
        return _saved_values(ACTIVATIONS[name](lib.nn.functional, x).grad_fn)

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("call", [
    lambda F, h: F.relu(h, inplace=True),
    lambda F, h: F.leaky_relu(h, 0.1, inplace=True),
    lambda F, h: F.silu(h, inplace=True),
])
def test_inplace_activations(device, call):
    def scenario(lib, arr, device):
        x = leaf(lib, arr, device)
        h = x * 1
        out = call(lib.nn.functional, h)
        trace = {"same": out is h, "version": h._version, "graph": graph_trace(out),
                 "saved": _saved_values(out.grad_fn)}
        out.sum().backward()
        trace["grad"] = to_numpy(x.grad)
        return trace

    assert_parity(scenario, rand(3, 4), device=device)


def test_relu_backward_nan_input_and_inf_grad(device):
    # threshold_backward: a NaN input lets its gradient through, an infinite gradient where the
    # input was cut off gives 0 (a product with a 0/1 mask would give 0 and NaN)
    def scenario(lib, device):
        x = leaf(lib, np.array([np.nan, -1.0, 2.0, 0.0], np.float32), device)
        g = leaf(lib, np.array([1.0, np.inf, 3.0, np.inf], np.float32), device,
                 requires_grad=False)
        lib.nn.functional.relu(x).backward(g)
        return {"grad": to_numpy(x.grad)}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("call", [
    lambda F, x: F.relu(x, inplace=True),
    lambda F, x: F.leaky_relu(x, inplace=True),
])
def test_inplace_on_leaf_errors(call):
    errs = [error_of(lib, lambda F, lib=lib: call(F, lib.tensor(rand(3), requires_grad=True)))
            for lib in (minigrad, torch)]
    assert errs[0] is not None and errs[0] == errs[1]


def test_gelu_bad_approximate():
    errs = [error_of(lib, lambda F, lib=lib: F.gelu(lib.tensor(rand(3)), approximate="fast"))
            for lib in (minigrad, torch)]
    assert errs[0] == errs[1] == ("RuntimeError", "approximate argument must be either none or "
                                                  "tanh.")


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_softmax_implicit_dim_warns(ndim):
    def scenario(lib, arr):
        x = lib.tensor(arr)
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            out = lib.nn.functional.softmax(x)
        return {"out": to_numpy(out), "warn": [(w.category.__name__, "Implicit dimension" in
                                                str(w.message)) for w in ws]}

    assert_parity(scenario, rand(*(2, 3, 4)[:ndim]))


# ----------------------------------------------------------------------------- dropout
def test_dropout_training_graph_and_statistics(device):
    if device == "cuda":
        pytest.skip("PyTorch's CUDA dropout records NativeDropoutBackward0 (a fused kernel); "
                    "minigrad follows the CPU graph, MulBackward0(input, None)")

    def scenario(lib, device):
        lib.manual_seed(0)
        x = leaf(lib, np.ones((200, 100), np.float32), device)
        out = lib.nn.functional.dropout(x, p=0.3)
        vals = to_numpy(out)
        kept = vals != 0
        trace = {"graph": graph_trace(out), "saved": saved_names(out.grad_fn),
                 "self_none": out.grad_fn._saved_self is None,
                 "other_shape": tuple(out.grad_fn._saved_other.shape),
                 "zero_fraction_ok": abs(1 - kept.mean() - 0.3) < 0.02,
                 "survivors": np.unique(vals[kept]), "dtype": str(out.dtype).split(".")[-1]}
        out.backward(leaf(lib, np.ones((200, 100), np.float32), device, False))
        trace["grad_matches_mask"] = bool(np.array_equal(to_numpy(x.grad), vals))
        return trace

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("p,training", [(0.5, False), (0.0, True), (0.0, False)])
def test_dropout_identity_returns_input(device, p, training):
    def scenario(lib, device):
        x = leaf(lib, rand(3, 4), device)
        h = x * 1
        return {"leaf": lib.nn.functional.dropout(x, p, training) is x,
                "nonleaf": lib.nn.functional.dropout(h, p, training) is h}

    assert_parity(scenario, device=device)


def test_dropout_p_one_and_inplace_and_no_grad(device):
    def scenario(lib, device):
        F = lib.nn.functional
        x = leaf(lib, rand(3, 4), device)
        zero = F.dropout(x, 1.0)
        h = x * 1
        same = F.dropout(h, 0.5, inplace=True)
        with lib.no_grad():
            ng = F.dropout(x, 0.5)
        return {"zero": np.abs(to_numpy(zero)), "zero_graph": graph_trace(zero),
                "inplace_same": same is h, "inplace_version": h._version,
                "inplace_graph": graph_trace(same), "no_grad_requires": ng.requires_grad}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_bad_p(p):
    errs = [error_of(lib, lambda F, lib=lib: F.dropout(lib.tensor(rand(3)), p))
            for lib in (minigrad, torch)]
    assert errs[0] is not None and errs[0] == errs[1]


def test_dropout_uses_minigrad_generator():
    x = minigrad.ones(50)
    minigrad.manual_seed(7)
    a = minigrad.nn.functional.dropout(x, 0.5).numpy()
    minigrad.manual_seed(7)
    b = minigrad.nn.functional.dropout(x, 0.5).numpy()
    c = minigrad.nn.functional.dropout(x, 0.5).numpy()
    assert np.array_equal(a, b) and not np.array_equal(b, c)


# ----------------------------------------------------------------------------- a CNN step
def _cnn_step(lib, params, x_arr, y_arr, device):
    """Conv → ReLU → MaxPool → Conv → ReLU → flatten → Linear → cross_entropy, functional."""
    F = lib.nn.functional
    p = {k: leaf(lib, v, device) for k, v in params.items()}
    x = leaf(lib, x_arr, device, requires_grad=False)
    y = lib.tensor(y_arr, device=device) if is_torch(lib) else lib.tensor(y_arr)
    h = F.relu(F.conv2d(x, p["w1"], p["b1"], padding=1))
    h = F.max_pool2d(h, 2)
    h = F.relu(F.conv2d(h, p["w2"], p["b2"], padding=1))
    logits = F.linear(h.flatten(1), p["w3"], p["b3"])
    loss = F.cross_entropy(logits, y)
    loss.backward()
    return {"loss": loss.item(), "graph": graph_trace(loss),
            "grads": {k: to_numpy(v.grad) for k, v in p.items()}}


def test_small_cnn_training_step(device):
    params = {"w1": rand(8, 1, 3, 3) * 0.3, "b1": rand(8) * 0.1, "w2": rand(16, 8, 3, 3) * 0.1,
              "b2": rand(16) * 0.1, "w3": rand(10, 256) * 0.05, "b3": rand(10) * 0.1}
    x = RNG.random((64, 1, 8, 8), dtype=np.float32)
    y = RNG.integers(0, 10, 64)
    assert_parity(_cnn_step, params, x, y, device=device, rtol=1e-4, atol=1e-5)



# ----------------------------------------------------------------------------- double backward
DOUBLE_BACKWARD = {
    "silu": lambda F, x, t: F.silu(x).pow(2).sum(),
    "softplus": lambda F, x, t: F.softplus(x, beta=2, threshold=3).pow(2).sum(),
    "gelu_tanh": lambda F, x, t: F.gelu(x, approximate="tanh").pow(2).sum(),
    "leaky_relu": lambda F, x, t: F.leaky_relu(x, 0.1).pow(2).sum(),
    "mse_loss": lambda F, x, t: F.mse_loss(x * x, t),
    # targets: number of positive entries per row, folded into the 4 valid classes
    "cross_entropy": lambda F, x, t: F.cross_entropy(x, (t > 0).long().sum(1) % 4),
    "label_smoothing": lambda F, x, t: F.cross_entropy(x, (t > 0).long().sum(1) % 4,
                                                       label_smoothing=0.2),
}


@pytest.mark.parametrize("name", sorted(DOUBLE_BACKWARD))
def test_double_backward(device, name):
    # Backward formulas written with tensor ops: create_graph=True gives second derivatives.
    def scenario(lib, xa, ta, device):
        x = leaf(lib, xa, device)
        t = leaf(lib, ta, device, requires_grad=False)
        y = DOUBLE_BACKWARD[name](lib.nn.functional, x, t)
        (g,) = lib.autograd.grad(y, [x], create_graph=True)
        (g * g).sum().backward()
        return {"g": to_numpy(g), "gg": to_numpy(x.grad)}

    x = rand(3, 4) * 2
    x.flat[0] = 5.0  # softplus's linear region (beta * x > threshold)
    assert_parity(scenario, x, rand(3, 4), device=device, rtol=1e-4, atol=1e-5)


def test_double_backward_through_numpy_backward_is_refused():
    """The exact gelu's second derivative is a node (GeluBackwardBackward0, parity in
    test_node_coverage); its own backward is NumPy: third order is refused."""
    x = minigrad.tensor(rand(3), requires_grad=True)
    y = minigrad.nn.functional.gelu(x).sum()
    (g,) = minigrad.autograd.grad(y, [x], create_graph=True)
    minigrad.autograd.grad(g.sum(), [x], retain_graph=True)
    with pytest.raises(NotImplementedError, match="GeluBackwardBackward0"):
        minigrad.autograd.grad(g.sum(), [x], create_graph=True)
