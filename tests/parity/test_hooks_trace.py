"""Parity of full hook traces (``minigrad.parity.record_hooks``): every kind of hook on every
module, tensor and node of a model, in PyTorch's order with PyTorch's arguments.

Each test builds the same model in both libraries (weights copied from torch), records the
trace on both and compares it call by call (kind, place, ``None`` positions, shapes, values).
Rules read off PyTorch's trace (facts §5.2, §5.4) are asserted on both traces too, so a test
could not pass by recording nothing.
"""

import numpy as np
import pytest

import minigrad
from minigrad.parity import compare_traces, format_trace, record_hooks
from minigrad.parity.cases import _two_out
from minigrad.parity.hooks import hook_traces, make_inputs, paired_models
from minigrad.toy_models import TOY_MODELS

torch = pytest.importorskip("torch")

NO_NODES = ("global", "forward", "backward", "tensor", "post_acc")
RNG = np.random.default_rng(0)
X53 = RNG.standard_normal((5, 3)).astype(np.float32)
X24 = RNG.standard_normal((2, 4)).astype(np.float32)
X_IMG = RNG.standard_normal((2, 1, 8, 8)).astype(np.float32)


def seq3(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


def toy(name):
    return lambda lib: TOY_MODELS[name].build(lib)[0]


def assert_same(mg, th):
    diff = compare_traces(mg, th, quiet=True)
    assert diff is None, diff
    return mg


def pos(trace, kind, where):
    """Indices of the calls of ``kind`` at ``where``."""
    return [i for i, e in enumerate(trace) if e["kind"] == kind and e["where"] == where]


# ------------------------------------------------------------------ facts §5.2
@pytest.mark.parametrize("kinds", [NO_NODES, None], ids=["no_node_hooks", "all"])
def test_facts_full_trace_sequential(device, kinds):
    kw = {} if kinds is None else {"kinds": kinds}
    mg, th = hook_traces(seq3, (X53,), device=device, **kw)
    assert_same(mg, th)
    for trace in (mg, th):
        if kinds is not None:  # exactly the 43 calls of facts §5.2, then 5 final .grad entries
            assert len(trace) == 48
            assert [e["kind"] for e in trace[:2]] == ["global_fwd_pre", "fwd_pre"]
        # parameters of a module are accumulated before its full backward hook fires
        assert pos(trace, "post_acc", "param 2.weight")[0] < pos(trace, "bwd", "2")[0]
        assert pos(trace, "post_acc", "param 0.bias")[0] < pos(trace, "bwd", "0")[0]
        # backward pre-hooks top-down; root's full hook after all children; input hooks last
        assert pos(trace, "bwd_pre", "root")[0] < pos(trace, "bwd_pre", "2")[0]
        assert pos(trace, "bwd", "0")[0] < pos(trace, "bwd", "root")[0]
        assert pos(trace, "bwd", "root")[0] < pos(trace, "post_acc", "input[0]")[0]
        assert pos(trace, "global_bwd", "1")[0] + 1 == pos(trace, "bwd", "1")[0]


def test_hooked_graph_has_backward_hook_nodes(device):
    def scenario(lib):
        mm, tm = paired_models(seq3, device)
        model = mm if lib is minigrad else tm
        model.register_full_backward_hook(lambda *a: None)
        model[2].register_full_backward_pre_hook(lambda *a: None)
        out = model(make_inputs(lib, (X53,), True, device)[0])
        from minigrad.parity import graph_trace

        return graph_trace(out), out._is_view()

    a, b = scenario(minigrad), scenario(torch)
    assert a == b
    assert a[0][0][0] == "BackwardHookFunctionBackward" and a[1] is True


# ------------------------------------------------------------------ toy models
@pytest.mark.parametrize("name", ["mlp", "cnn", "residual", "shared"])
def test_toy_model_traces(device, name):
    x = X_IMG if name == "cnn" else X24
    mg, th = hook_traces(toy(name), (x,), device=device)
    assert_same(mg, th)
    assert any(e["kind"] == "node" for e in mg) and mg[-1]["kind"] == "grad"


def test_module_used_twice_fires_twice(device):
    """Facts §5.4: one pre/full pair per use, parameter hooks once with the summed grad."""
    mg, th = hook_traces(toy("shared"), (X24,), device=device, kinds=NO_NODES)
    assert_same(mg, th)
    for trace in (mg, th):
        assert len(pos(trace, "fwd", "fc")) == 2
        pre, full = pos(trace, "bwd_pre", "fc"), pos(trace, "bwd", "fc")
        assert len(pre) == len(full) == 2 and pre[0] < full[0] < pre[1] < full[1]
        assert len(pos(trace, "post_acc", "param fc.weight")) == 1
        assert pre[1] < pos(trace, "post_acc", "param fc.weight")[0] < full[1]


def test_residual_block(device):
    def build(lib):
        nn = lib.nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.f = nn.Sequential(nn.Linear(4, 4), nn.Tanh())

            def forward(self, x):
                return x + self.f(x)

        return nn.Sequential(Block(), nn.Linear(4, 2))

    mg, th = hook_traces(build, (X24,), device=device)
    assert_same(mg, th)


# ------------------------------------------------------------------ inputs without grad
def test_input_not_requiring_grad(device):
    mg, th = hook_traces(seq3, (X53,), requires_grad=False, device=device)
    assert_same(mg, th)
    for trace in (mg, th):
        warns = [e for e in trace if e["kind"] == "warning"]
        # root and its first child see the raw input: one warning each
        assert len(warns) == 2 and "no inputs require gradients" in warns[0]["args"][0]
        first = pos(trace, "bwd", "0")[0]
        assert trace[first]["args"][0] == (None,)  # grad_input=(None,)
        assert pos(trace, "bwd_pre", "0")[0] < first


# ------------------------------------------------------------------ ReLU(inplace=True)
def test_inplace_relu_with_full_hooks_is_an_error(device):
    mg, th = hook_traces(toy("inplace"), (X24,), device=device)
    assert_same(mg, th)
    assert mg[-1]["kind"] == "error" and "BackwardHookFunction is a view" in mg[-1]["args"][0]


def test_inplace_relu_without_module_backward_hooks(device):
    kinds = ("global", "forward", "tensor", "post_acc", "node")
    mg, th = hook_traces(toy("inplace"), (X24,), device=device, kinds=kinds)
    assert_same(mg, th)
    relu_fwd = mg[pos(mg, "fwd", "1")[0]]
    assert relu_fwd["args"][2]["grad_fn"] == "ReluBackward0"


# ------------------------------------------------------------------ tuple output, kwargs
two_out = _two_out  # the same model `minigrad parity` runs


@pytest.mark.parametrize("use", ["both", "first"])
def test_module_returning_tuple(device, use):
    """Facts §5.6: zero-filled grad_input for an input without grad, None for a non-tensor
    argument, None in grad_output for an unused output."""
    a, b = X24[:, :2].copy(), X24[:, 2:].copy()
    loss = None if use == "both" else (lambda out: out[0].sum())
    mg, th = hook_traces(two_out, (a, b, 3.0), requires_grad=(True, False, False),
                         device=device, loss=loss)
    assert_same(mg, th)
    bwd = mg[pos(mg, "bwd", "root")[0]]
    grad_input, grad_output = bwd["args"]
    assert grad_input[2] is None and np.all(grad_input[1]["value"] == 0)
    assert (grad_output[1] is None) == (use == "first")


def test_module_taking_kwargs(device):
    def build(lib):
        nn = lib.nn

        class Scaled(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 3)

            def forward(self, x, scale=1.0, shift=None):
                y = self.lin(x) * scale
                return y if shift is None else y + shift

        return Scaled()

    shift = RNG.standard_normal((2, 3)).astype(np.float32)
    mg, th = hook_traces(build, (X24,), device=device, kwargs={"shift": shift})
    assert_same(mg, th)
    fwd = mg[pos(mg, "fwd", "root")[0]]
    assert list(fwd["args"][1]) == ["shift"]  # with_kwargs hook sees the kwargs
    assert "input[shift]" in [e["where"] for e in mg if e["kind"] == "tensor"]


# ------------------------------------------------------------------ hooks that modify gradients
def test_hooks_modifying_gradients(device):
    """Tensor, node and module hooks that return new gradients: what later hooks see and the
    resulting ``.grad`` values."""
    mm, tm = paired_models(seq3, device)
    traces = []
    for lib, model in ((minigrad, mm), (torch, tm)):
        model[0].bias.register_hook(lambda g: g * 2)                      # tensor level
        model[2].register_full_backward_pre_hook(lambda m, go: (go[0] * 10,))
        model[1].register_full_backward_hook(lambda m, gi, go: (gi[0] + 1,))

        def add_node_hook(m, args, out):                                  # node level
            out.grad_fn.register_prehook(lambda go: (go[0] * 3,))

        model[0].register_forward_hook(add_node_hook)
        x = make_inputs(lib, (X53,), True, device)
        traces.append(record_hooks(model, x))
    assert_same(*traces)
    grads = {e["where"]: e["args"][0]["value"] for e in traces[1] if e["kind"] == "grad"}
    plain = record_hooks(seq3(torch).to(device), make_inputs(torch, (X53,), True, device),
                         kinds=())
    assert not np.allclose(grads["input[0]"], plain[0]["args"][0]["value"])


def test_handle_remove_mid_training(device):
    mm, tm = paired_models(seq3, device)
    out = []
    for lib, model in ((minigrad, mm), (torch, tm)):
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        h1 = model[2].weight.register_hook(lambda g: g * 0)
        h2 = model[0].register_full_backward_hook(lambda m, gi, go: (gi[0] * 5,))
        x = make_inputs(lib, (X53,), True, device)
        first = record_hooks(model, x, kinds=NO_NODES)
        opt.step()
        opt.zero_grad()
        h1.remove()
        h2.remove()
        h2.remove()  # a second remove is harmless
        x = make_inputs(lib, (X53,), True, device)
        second = record_hooks(model, x, kinds=NO_NODES)
        out.append((first, second, [h1.id < h2.id], len(model[0]._backward_hooks),
                    len(model[2].weight._backward_hooks)))
    (f1, s1, *rest1), (f2, s2, *rest2) = out
    assert_same(f1, f2)
    assert_same(s1, s2)
    assert rest1 == rest2 == [[True], 0, 0]
    w_grads = [e["args"][0]["value"] for e in f1 + s1
               if e["kind"] == "grad" and e["where"] == "param 2.weight"]
    assert np.all(w_grads[0] == 0) and not np.all(w_grads[1] == 0)


# ------------------------------------------------------------------ legacy hooks
def test_legacy_backward_hook_trace(device):
    mg, th = hook_traces(seq3, (X53,), device=device,
                         kinds=("global", "forward", "legacy", "tensor", "post_acc"))
    assert_same(mg, th)
    for trace in (mg, th):
        assert any(e["kind"] == "warning" and e["where"] == "FutureWarning" for e in trace)
        (linear2,) = [e for e in trace if e["kind"] == "legacy_bwd" and e["where"] == "2"]
        assert [g["shape"] for g in linear2["args"][0]] == [(2,), (5, 4), (4, 2)]


def test_record_hooks_cleans_up_and_validates():
    model = seq3(minigrad)
    record_hooks(model, make_inputs(minigrad, (X53,)))
    assert not any(m._forward_hooks or m._backward_hooks or m._backward_pre_hooks
                   or m._forward_pre_hooks for m in model.modules())
    assert model._is_full_backward_hook is None
    assert minigrad.nn.modules.module._global_is_full_backward_hook is None
    assert not any(p._backward_hooks or p._post_accumulate_grad_hooks
                   for p in model.parameters())
    with pytest.raises(ValueError, match="unknown hook kinds"):
        record_hooks(model, make_inputs(minigrad, (X53,)), kinds=("bogus",))
    with pytest.raises(ValueError, match="same module"):
        record_hooks(model, make_inputs(minigrad, (X53,)), kinds=("legacy", "backward"))
    lines = format_trace(record_hooks(model, make_inputs(minigrad, (X53,)), kinds=NO_NODES))
    assert "bwd [2] grad_input=((5,4),) grad_output=((5,2),)" in lines[26]


def test_compare_traces_reports_first_difference(capsys):
    model = seq3(minigrad)
    a = record_hooks(model, make_inputs(minigrad, (X53,)), kinds=NO_NODES)
    b = [dict(e) for e in a]
    b[20], b[21] = b[21], b[20]
    report = compare_traces(a, b)
    assert "differ at call 20" in report and report in capsys.readouterr().out
    assert compare_traces(a, a[:-1], quiet=True).startswith("hook traces differ at call 47")
    c = [dict(e) for e in a]
    c[5] = dict(c[5], args=tuple(np.zeros(1) for _ in c[5]["args"]))
    assert "call 5" in compare_traces(a, c, quiet=True)
