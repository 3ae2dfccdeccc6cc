"""Parity of PyTorch's default CPU LSTM: oneDNN's fused layer, ``MkldnnRnnLayerBackward0``.

With ``backends.mkldnn`` enabled (the default), a float32 or bfloat16 ``LSTM`` without
``proj_size`` records one ``MkldnnRnnLayerBackward0`` per layer and direction, in both
libraries; float64, float16 with grad, ``proj_size``, an input with no elements, ``GRU`` and
``RNN`` record the composition of ordinary ops (``test_rnn.py``). Compared here: the graphs
of the output and the final states (node names, edges, input_nr), every saved attribute (the
workspace ``result3`` by dtype and rank: its size is the kernel's own), ``_version``s, values,
the gradients of the input, the initial states and every parameter; hooks on the output and
on the fused node, the errors of a second backward, of reading a freed saved tensor and of
in-place changes to a saved tensor, double backward, and the switch itself.
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import compare, graph_trace, run_both, to_numpy

from .test_functional import leaf, saved_names
from .test_rnn import LAYER_CASES, PROJ_CASES, TOL, H, I, _build, _mkldnn_off, _run
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

FUSED = "MkldnnRnnLayerBackward0"
DEFAULT_CASES = (
    [("LSTM", c) for c in LAYER_CASES]
    + [("LSTM", c) for c in PROJ_CASES]
    + [
        ("GRU", "two_layers_bi"),
        ("RNN_tanh", "batch_first"),
        ("RNN_relu", "state"),
    ]
)


def _names(trace) -> set:
    return {name for graph in trace["graph"] for name, _ in graph}


@pytest.mark.parametrize("kind,case", DEFAULT_CASES, ids=[f"{k}-{c}" for k, c in DEFAULT_CASES])
def test_default_path_parity(kind, case):
    """float32 on the default path: the same graph (fused or composition) in both."""
    kw, shape, with_state = {**LAYER_CASES, **PROJ_CASES}[case]
    ours, theirs = run_both(_run, kind, kw, shape, with_state, np.float32, mkldnn=True)
    compare(ours, theirs, f"{kind}-{case}", **TOL[np.float32])
    fused = kind == "LSTM" and case in LAYER_CASES and case != "empty_batch"
    assert (FUSED in _names(theirs)) == fused  # (PyTorch's choice, which ours must follow)


def test_training_mode_and_given_states_saved_values():
    """Training mode with dropout between layers (``MulBackward0`` between the fused nodes),
    given states (``SelectBackward0`` edges), and what each fused node saves."""

    def scenario(lib):
        m = _build(
            lib, "LSTM", {"num_layers": 2, "dropout": 0.4, "bidirectional": True}, np.float32
        )
        m.train()
        rng = np.random.default_rng(2)
        x = leaf(lib, rng.standard_normal((3, 2, I)).astype(np.float32))
        h0 = leaf(lib, rng.standard_normal((4, 2, H)).astype(np.float32))
        c0 = leaf(lib, rng.standard_normal((4, 2, H)).astype(np.float32))
        out, (h, c) = m(x, (h0, c0))
        node = out.grad_fn.next_functions[1][0]  # the reverse direction of layer 1
        saved = {}
        for a in saved_names(node):
            v = getattr(node, a)
            saved[a] = (tuple(v.shape), str(v.dtype).split(".")[-1]) if hasattr(v, "shape") else v
        saved.pop("_saved_result3")
        return {
            "graph": [graph_trace(t) for t in (out, h, c)],
            "saved": saved,
            "hx": to_numpy(node._saved_hx_),
            "input_is_cat": type(node.next_functions[0][0]).__name__,
        }

    ours, theirs = run_both(scenario)
    compare(ours, theirs, **TOL[np.float32])
    assert theirs["saved"]["_saved_reverse"] and theirs["saved"]["_saved_train"]
    assert "MulBackward0" in {n for g in theirs["graph"] for n, _ in g}


def test_only_the_input_requires_grad_and_no_grad():
    def scenario(lib):
        m = _build(lib, "LSTM", {"num_layers": 2}, np.float32)
        for p in m.parameters():
            p.requires_grad_(False)
        x = leaf(lib, np.linspace(-1, 1, 4 * 2 * I).reshape(4, 2, I).astype(np.float32))
        out, (h, c) = m(x)
        graph = graph_trace(out)
        (out.sum() + c.sum()).backward()
        with lib.no_grad():
            out2, _ = m(x)
        m.weight_hh_l0.requires_grad_(True)
        out3, _ = m(x.detach())
        return {
            "graph": graph,
            "x.grad": to_numpy(x.grad),
            "no_grad": out2.grad_fn is None,
            "values": to_numpy(out2),
            "weights_only": graph_trace(out3),
        }

    ours, theirs = run_both(scenario)
    compare(ours, theirs, **TOL[np.float32])


def test_hooks_on_the_output_and_on_the_fused_node():
    """Tensor hook on the output, pre-hook and post-hook of the fused node: the gradients
    they see (None for an output that got no gradient, and for inputs without an edge)."""

    def scenario(lib):
        m = _build(lib, "LSTM", {}, np.float32)
        rng = np.random.default_rng(4)
        x = leaf(lib, rng.standard_normal((4, 2, I)).astype(np.float32))
        h0 = leaf(lib, rng.standard_normal((1, 2, H)).astype(np.float32))
        calls = []

        def arrays(gs):
            return [None if g is None else to_numpy(g) for g in gs]

        for with_state, loss_of in (
            (False, lambda o, h, c: o.sum()),
            (True, lambda o, h, c: (h * 3).sum()),
        ):
            state = (h0, leaf(lib, np.zeros((1, 2, H), np.float32), requires_grad=False))
            out, (h, c) = m(x, state) if with_state else m(x)
            node = out.grad_fn
            out.register_hook(lambda g: calls.append(("tensor", to_numpy(g))))
            node.register_prehook(lambda go: calls.append(("pre", arrays(go))))
            node.register_hook(lambda gi, go: calls.append(("post", arrays(gi), arrays(go))))
            loss_of(out, h, c).backward()
        return calls

    ours, theirs = run_both(scenario)
    compare(ours, theirs, **TOL[np.float32])


def test_second_backward_and_freed_saved_tensors():
    def scenario(lib):
        m = _build(lib, "LSTM", {"num_layers": 2}, np.float32)
        x = leaf(lib, np.ones((3, 2, I), np.float32))
        out, _ = m(x)
        out.sum().backward(retain_graph=True)
        out.sum().backward()  # retained once: runs, grads add up
        grads = to_numpy(x.grad)
        return {
            "grads": grads,
            "again": err(lambda: out.sum().backward(), "backward through the graph a second time"),
            "saved": err(lambda: out.grad_fn._saved_input, "already been freed"),
        }

    ours, theirs = run_both(scenario)
    compare(ours, theirs, **TOL[np.float32])
    assert theirs["again"] is not None


IN_PLACE = {
    "weight_hh": lambda m, x, out: _no_grad_add(m.weight_hh_l0),
    "bias_ih": lambda m, x, out: _no_grad_add(m.bias_ih_l0),
    "input": lambda m, x, out: _no_grad_add(x),
    "output": lambda m, x, out: out.mul_(2),
}


def _no_grad_add(t):
    import minigrad

    lib = torch if isinstance(t, torch.Tensor) else minigrad
    with lib.no_grad():
        t.add_(1)


@pytest.mark.parametrize("what", list(IN_PLACE))
def test_in_place_change_of_a_saved_tensor(what):
    """The fused node saves the input, the weights, the states and its outputs: changing one
    in place before backward is PyTorch's version error (the output's names the op)."""

    def scenario(lib):
        m = _build(lib, "LSTM", {}, np.float32)
        x = leaf(lib, np.ones((3, 2, I), np.float32))
        out, _ = m(x)
        IN_PLACE[what](m, x, out)
        return err(lambda: out.sum().backward())

    ours, theirs = run_both(scenario)
    compare(ours, theirs)
    assert theirs is not None and "modified by an inplace operation" in theirs[1]


def test_double_backward():
    """PyTorch's fused node has a differentiable backward: with ``create_graph`` the
    gradients have a graph, and their own gradients (of the input, every weight and the
    initial states) agree. (The nodes of that second graph are not compared: PyTorch's
    come from its ``mkldnn_rnn_layer_differentiable_backward``, ours from the composition.)"""

    def scenario(lib):
        m = _build(lib, "LSTM", {"num_layers": 2, "bidirectional": True}, np.float32)
        rng = np.random.default_rng(5)
        x = leaf(lib, rng.standard_normal((3, 2, I)).astype(np.float32))
        h0 = leaf(lib, rng.standard_normal((4, 2, H)).astype(np.float32))
        c0 = leaf(lib, rng.standard_normal((4, 2, H)).astype(np.float32))
        out, (h, c) = m(x, (h0, c0))
        root = type(out.grad_fn.next_functions[0][0]).__name__
        params = list(m.parameters())
        loss = (out * out).sum() + (h * c).sum()
        first = lib.autograd.grad(loss, [x, h0, c0] + params, create_graph=True)
        has_graph = [g.requires_grad and g.grad_fn is not None for g in first]
        total = sum((g * g).sum() for g in first)
        second = lib.autograd.grad(total, [x, h0, c0] + params)
        return {
            "root": root,
            "first": [to_numpy(g) for g in first],
            "has_graph": has_graph,
            "second": [to_numpy(g) for g in second],
        }

    ours, theirs = run_both(scenario)
    assert theirs["root"] == FUSED
    compare(ours, theirs, rtol=1e-4, atol=1e-5)


def test_bfloat16_is_fused_float16_and_float64_are_not():
    """bfloat16 takes the fused path (values within bfloat16's precision); float64 and
    float16 with grad record the composition; float16 under no_grad is fused (no graph)."""
    pytest.importorskip("ml_dtypes")

    def scenario(lib):
        rng = np.random.default_rng(6)
        xs = rng.standard_normal((3, 2, I)).astype(np.float32)
        trace = {}
        for name, method in (("bfloat16", "bfloat16"), ("float16", "half"), ("float64", "double")):
            m = getattr(_build(lib, "LSTM", {"num_layers": 2}, np.float32), method)()
            x = leaf(lib, xs).to(getattr(lib, name)).detach().requires_grad_(True)
            out, (h, c) = m(x)
            (out.sum() + h.sum()).backward()
            trace[name] = {
                "root": graph_trace(out)[0][0],
                "out": to_numpy(out.float()),
                "x.grad": to_numpy(x.grad.float()),
                "w.grad": to_numpy(m.weight_hh_l0.grad.float()),
            }
            with lib.no_grad():
                trace[name]["no_grad"] = to_numpy(m(x)[0].float())
        return trace

    ours, theirs = run_both(scenario)
    assert [theirs[n]["root"] for n in ("bfloat16", "float16", "float64")] == [
        FUSED,
        "StackBackward0",
        "StackBackward0",
    ]
    compare(ours["bfloat16"], theirs["bfloat16"], rtol=2e-2, atol=2e-2)
    compare(ours["float16"], theirs["float16"], rtol=2e-3, atol=2e-3)
    compare(ours["float64"], theirs["float64"], **TOL[np.float64])


def test_the_switch():
    """``backends.mkldnn``: ``enabled`` True by default, ``flags()`` turns it off by default
    and restores it (also after an exception), ``set_flags`` returns the previous values,
    ``is_available()``; an LSTM built once follows the switch at each call."""

    def scenario(lib):
        mk = lib.backends.mkldnn
        m = _build(lib, "LSTM", {}, np.float32)
        x = leaf(lib, np.ones((2, 1, I), np.float32))
        trace = {
            "default": mk.enabled,
            "available": mk.is_available(),
            "on": m(x)[0].grad_fn.name(),
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with mk.flags():
                trace["inside"] = mk.enabled
                trace["off"] = m(x)[0].grad_fn.name()
            try:
                with mk.flags(enabled=False):
                    raise KeyError("x")
            except KeyError:
                pass
        trace["after"] = mk.enabled
        prev = mk.set_flags(False)
        trace["prev"] = prev[0]
        trace["set"] = mk.enabled
        mk.set_flags(*prev)
        trace["restored"] = mk.enabled
        with _mkldnn_off(lib):
            trace["helper"] = m(x)[0].grad_fn.name()
        return trace

    ours, theirs = run_both(scenario)
    compare(ours, theirs)
    assert theirs["on"] == FUSED and theirs["off"] == "StackBackward0"


_PROJ_WARNING = """
import sys, warnings
import numpy as np
lib = __import__(sys.argv[1])
m = lib.nn.LSTM(3, 4, proj_size=2)
x = lib.tensor(np.ones((2, 1, 3), np.float32))
seen = []
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    with lib.backends.mkldnn.flags(enabled=False):
        m(x)
    m.double()(x.double())
    seen.append(sum("projections" in str(x.message) for x in w))
    m.float()(x)
    m(x)
    seen.append([(x.category.__name__, str(x.message).split(" (Triggered")[0]) for x in w
                 if "projections" in str(x.message)])
print(seen)
"""


def test_projections_warn_once_per_process():
    """A projected float32 LSTM with oneDNN on warns (once per process, as PyTorch's
    ``TORCH_WARN_ONCE``) and runs the composition; not with oneDNN off, not for float64."""
    import os
    import subprocess
    import sys

    def scenario(lib):
        env = dict(os.environ, PYTHONPATH=os.getcwd())
        done = subprocess.run(
            [sys.executable, "-c", _PROJ_WARNING, lib.__name__],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    ours, theirs = run_both(scenario)
    assert ours == theirs
    assert "LSTM with projections is not supported with oneDNN" in theirs
