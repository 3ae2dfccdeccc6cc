"""Parity of backward traces (``minigrad.viz.trace_backward``): the steps of one backward pass
recorded on minigrad (by the engine's observer) and on PyTorch (by node, tensor and module
hooks) are the same events — nodes in the same order, the same hook calls with the same
arguments and results, the same gradient on every edge, the same ``.grad`` written, the same
error — for the toy networks and the hook cases.

Each scenario is written once, as a function of the library; the expected trace is PyTorch's,
recorded live. Checks read off the traces (every node ran once, the hooks asked for fired, the
queue rule) are asserted on both, so a test could not pass by recording nothing.
"""

import json

import numpy as np
import pytest

import minigrad
from minigrad.autograd import engine
from minigrad.parity.hooks import paired_models
from minigrad.toy_models import TOY_MODELS
from minigrad.viz import trace_backward
from minigrad.viz_trace import BackwardTrace, toy_traces

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3)).astype(np.float32)
B = RNG.standard_normal((2, 3)).astype(np.float32)
X = RNG.standard_normal((4, 3)).astype(np.float32)
LIBS = (minigrad, torch)


def assert_same(mg: BackwardTrace, th: BackwardTrace, values: bool = True) -> None:
    i = mg.first_difference(th, values=values)
    if i is not None:
        a, b = mg.observable(values), th.observable(values)
        raise AssertionError(f"event {i} differs:\n  minigrad: {a[i] if i < len(a) else None}"
                             f"\n  torch:    {b[i] if i < len(b) else None}")
    assert mg.observable(values) and len(mg.observable()) == len(th.observable())


def of_type(trace, kind):
    return [e for e in trace.events if e["type"] == kind]


def both(scenario, **kw):
    return [scenario(lib, **kw) for lib in LIBS]


# ------------------------------------------------------------------ toy networks
@pytest.mark.parametrize("hooks", [False, True], ids=["plain", "hooked"])
@pytest.mark.parametrize("name", list(TOY_MODELS))
def test_toy_network_traces_match(name, hooks, device):
    mg, th = toy_traces(name, hooks=hooks, device=device)
    # stuck: its unregistered layers get fresh random weights in each library's forward
    assert_same(mg, th, values=name != "stuck")
    for trace in (mg, th):
        ran = [e["node"] for e in of_type(trace, "node")]
        assert sorted(ran) == list(range(len(trace.graph["nodes"])))  # each node once
        assert len(of_type(trace, "send")) == len(trace.graph["edges"])
        leaves = [n for n in trace.graph["nodes"] if n["name"] == "AccumulateGrad"]
        assert len(of_type(trace, "grad")) == len(leaves)
        kinds = {e["kind"] for e in of_type(trace, "hook")}
        assert kinds == ({"tensor", "module", "module_pre", "post_accumulate"} if hooks
                         else set())
        assert trace.error is None and trace.events[-1]["type"] == "end"
    if name in ("residual", "shared"):  # two paths meet: their gradients are summed
        assert of_type(mg, "accumulate")


def test_grad_events_carry_the_gradients_of_both_libraries():
    mg, th = toy_traces("mlp", hooks=False)
    for e_mg, e_th in zip(of_type(mg, "grad"), of_type(th, "grad")):
        assert e_mg["tensor"] == e_th["tensor"] and e_mg["tensor"].endswith(("weight", "bias"))
        np.testing.assert_allclose(np.array(e_mg["grad"]["norm"]), e_th["grad"]["norm"],
                                   rtol=1e-5)


# ------------------------------------------------------------------ hook cases
def diamond(lib):
    """A non-leaf used twice; a tensor hook on it doubles its gradient."""
    x = lib.tensor(A, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 2)
    z = (y.exp() + y.sin()).sum()
    return trace_backward(z, params={"x": x, "y": y})


def test_diamond_accumulates_then_runs_the_tensor_hook():
    mg, th = both(diamond)
    assert_same(mg, th)
    for trace in (mg, th):
        acc = of_type(trace, "accumulate")
        assert len(acc) == 1 and trace.graph["nodes"][acc[0]["node"]]["name"] == "MulBackward0"
        (hook,) = of_type(trace, "hook")
        assert hook["kind"] == "tensor" and hook["where"] == "y"
        assert hook["returned"]["shape"] == [2, 3]
        # the hook runs after both gradients were summed, before the node
        steps = [e["step"] for e in trace.events]
        assert acc[0]["step"] < hook["step"] < steps[-1]


def node_hooks(lib):
    """Pre- and post-hooks on nodes that replace gradients, a leaf hook and a post-accumulate
    hook."""
    a = lib.tensor(A, requires_grad=True)
    b = lib.tensor(B, requires_grad=True)
    c = a * b
    out = c.sum()
    out.grad_fn.register_prehook(lambda g: (g[0] * 3,))
    c.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
    a.register_hook(lambda g: g * 10)
    b.register_post_accumulate_grad_hook(lambda t: None)
    return trace_backward(out, params={"a": a, "b": b})


def test_node_hooks_replace_gradients_in_both_libraries():
    mg, th = both(node_hooks)
    assert_same(mg, th)
    for trace in (mg, th):
        kinds = [e["kind"] for e in of_type(trace, "hook")]
        assert kinds == ["pre", "post", "tensor", "post_accumulate"]
        grads = {e["tensor"]: e["grad"] for e in of_type(trace, "grad")}
        assert "b" not in grads  # the post-hook sent None to b: nothing written, hook called
        assert of_type(trace, "hook")[-1]["args"] == [None]
        # a: (b * 3 + 1) * 10 through the replaced gradients
        np.testing.assert_allclose(grads["a"]["values"], (B * 3 + 1) * 10, rtol=1e-5)


def two_branches(lib):
    """Two nodes ready at once: the newer one runs first."""
    a = lib.tensor(A, requires_grad=True)
    b = lib.tensor(B, requires_grad=True)
    loss = (a.exp() + b.sin()).sum()
    return trace_backward(loss, params={"a": a, "b": b})


def test_ready_queue_is_newest_first():
    mg, th = both(two_branches)
    assert_same(mg, th)
    for trace in (mg, th):
        names = {n["id"]: n["name"] for n in trace.graph["nodes"]}
        starts = of_type(trace, "node")
        order = [names[e["node"]] for e in starts]
        assert order.index("SinBackward0") < order.index("ExpBackward0")
        sin = next(e for e in starts if names[e["node"]] == "SinBackward0")
        assert [names[n] for n in sin["queue"]] == ["ExpBackward0"]  # waiting its turn
    begin = of_type(mg, "begin")[0]
    add = next(n for n in mg.graph["nodes"] if n["name"] == "AddBackward0")
    assert dict(map(tuple, begin["deps"]))[add["id"]] == 1


def module_hooks(lib, legacy=False):
    """A module used twice with full backward hooks (or a legacy one) and a pre-hook."""
    mm, tm = paired_models(lambda L: L.nn.Linear(3, 3))
    model = mm if lib is minigrad else tm
    if legacy:
        model.register_backward_hook(lambda m, gi, go: None)
    else:
        model.register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
        model.register_full_backward_hook(lambda m, gi, go: None)
    x = lib.tensor(X, requires_grad=True)
    out = model(model(x)).sum()
    return trace_backward(out, params={"x": x, **dict(model.named_parameters())},
                          modules=model)


@pytest.mark.parametrize("legacy", [False, True], ids=["full", "legacy"])
def test_module_hooks_on_a_shared_module(legacy):
    with pytest.warns(FutureWarning) if legacy else _nothing():
        mg = module_hooks(minigrad, legacy)
    with pytest.warns(FutureWarning) if legacy else _nothing():
        th = module_hooks(torch, legacy)
    assert_same(mg, th)
    for trace in (mg, th):
        kinds = [(e["kind"], e["where"]) for e in of_type(trace, "hook")]
        if legacy:
            assert [k for k, _ in kinds] == ["post", "post"]
        else:  # each call of the module: pre-hook on the way in, full hook on the way out
            assert kinds == [("module_pre", "root"), ("module", "root")] * 2
            assert of_type(trace, "hook")[0]["args"][0] == {"module": "root"}


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def chunks(lib):
    """A node with two outputs, one of which gets no gradient (zeros are materialised)."""
    x = lib.tensor(X, requires_grad=True)
    a, b = x.chunk(2)
    return trace_backward((a * 3).sum(), params={"x": x})


def test_multi_output_node():
    mg, th = both(chunks)
    assert_same(mg, th)


def second_backward(lib, retain):
    x = lib.tensor(A, requires_grad=True)
    loss = x.exp().sum()
    loss.backward(retain_graph=retain)
    return trace_backward(loss, params={"x": x})


def test_second_backward_fails_at_the_node_whose_saved_tensor_was_freed():
    mg, th = both(second_backward, retain=False)
    assert_same(mg, th)
    for trace in (mg, th):
        assert trace.error["type"] == "RuntimeError"
        assert "second time" in trace.error["message"]
        failed = trace.events[trace.error["step"]]
        assert trace.graph["nodes"][failed["node"]]["name"] == "ExpBackward0"
        assert not of_type(trace, "grad") and not of_type(trace, "release")
        # the drawing marks the freed saved tensor
        assert trace.svg is None or "[freed]" in trace.svg


def test_retained_graph_runs_again_and_then_releases():
    mg, th = both(second_backward, retain=True)
    assert_same(mg, th)
    for trace in (mg, th):
        assert trace.error is None
        (grad,) = of_type(trace, "grad")
        np.testing.assert_allclose(grad["grad"]["values"], 2 * np.exp(A), rtol=1e-5)
        released = {trace.graph["nodes"][e["node"]]["name"] for e in of_type(trace, "release")}
        assert released == {"ExpBackward0"}  # (SumBackward0 saves no tensor)


def post_hook_reads_saved(lib):
    """A node post-hook still sees the node's saved tensors (released after the hooks)."""
    x = lib.tensor(A, requires_grad=True)
    y = x.exp()
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append(y.grad_fn._saved_result.sum().item()))
    y.sum().backward()
    return seen


def test_post_hook_can_read_saved_tensors():
    mg, th = both(post_hook_reads_saved)
    np.testing.assert_allclose(mg, th, rtol=1e-6)
    assert len(mg) == 1


# ------------------------------------------------------------------ minigrad mechanics
def test_tracing_leaves_no_observer_and_restores_hooks():
    x = minigrad.tensor(A, requires_grad=True)

    def hook(g):
        return None

    x.register_hook(hook)
    y = (x * x).sum()
    y.grad_fn.register_prehook(hook)
    trace = trace_backward(y)
    assert engine.observer is None
    assert list(x._backward_hooks.values()) == [hook]
    assert list(y.grad_fn._pre_hooks.values()) == [hook]
    assert [e["hook"] for e in of_type(trace, "hook")] == [hook.__qualname__] * 2
    failed = trace_backward(y)  # freed: the error is recorded, the observer removed
    assert failed.error is not None and engine.observer is None


def test_trace_is_plain_json():
    trace = two_branches(minigrad)
    data = json.loads(trace.to_json())
    assert data == json.loads(json.dumps(trace.to_dict()))
    assert BackwardTrace.from_dict(data).observable() == trace.observable()
    assert data["library"] == "minigrad" and data["graph"]["nodes"][0]["name"] == "SumBackward0"


def test_bad_arguments():
    with pytest.raises(TypeError):
        trace_backward(3.0)
    with pytest.raises(RuntimeError, match="does not require grad"):
        trace_backward(minigrad.tensor(A).sum())
