# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Backward hooks: tensor, node and module hooks; full vs legacy; changing gradients
#
# Backward hooks are called with gradients. There are three families:
#
# | on | register with | called as | may return |
# |---|---|---|---|
# | a tensor | `t.register_hook(fn)` | `fn(grad)` | a replacement `grad` |
# | a leaf, after `.grad` is written | `t.register_post_accumulate_grad_hook(fn)` | `fn(t)` | nothing |
# | a node | `node.register_prehook(fn)` / `node.register_hook(fn)` | `fn(grad_outputs)` / `fn(grad_inputs, grad_outputs)` | replacement tuple |
# | a module | `register_full_backward_pre_hook` / `register_full_backward_hook` | `fn(module, grad_output)` / `fn(module, grad_input, grad_output)` | replacement tuple |
# | a module (legacy) | `register_backward_hook` | `fn(module, grad_input, grad_output)` | replacement tuple |
#
# The student's guess: *"backward hooks run after backward, and can change gradients."* They
# can change gradients, but they run **during** backward, which decides what they see and what
# a change affects. And the legacy module hook does not see what its name suggests.

# %%
import warnings

import numpy as np
import torch

import minigrad
from minigrad.parity import graph_trace
from minigrad.parity.hooks import compare_traces, format_trace, hook_traces, paired_models
from minigrad.tutorial import (
    output_dir,
    quote,
    save_backward_page,
    save_graph,
    shown,
    side_by_side,
)
from minigrad.viz import make_dot, trace_backward

OUT = output_dir(7)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")


def shapes(grads):
    """Shapes of a tuple of gradients (None stays None)."""
    return [None if g is None else tuple(g.shape) for g in grads]


def mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


# %% [markdown]
# ## Guess: "backward hooks run after backward"
#
# We put a full backward hook on each layer of an MLP and, inside each hook, look at whether
# the first layer's weight already has its gradient.

# %%
def during_backward(lib):
    lib.manual_seed(0)
    model = mlp(lib)
    log = []
    for name, layer in model.named_children():
        def hook(module, grad_input, grad_output, name=name):
            log.append(f"layer {name}: 0.weight.grad is "
                       f"{'None' if model[0].weight.grad is None else 'set'}")
        layer.register_full_backward_hook(hook)
    model(lib.ones(5, 3, requires_grad=True)).sum().backward()
    return {"hook calls, in order": log}


mg, pt = side_by_side(during_backward)
assert mg["hook calls, in order"][0] == "layer 2: 0.weight.grad is None"

# %% [markdown]
# The hooks fire from the last layer to the first, *while* the engine is running: when layer
# 2's hook runs, layer 0's gradient does not exist yet. A module's own parameter gradients are
# written just before its full backward hook fires (layer 0 sees `set`).
#
# `minigrad.parity.hook_traces` registers every kind of hook at once and records each call;
# the trace is the same in both libraries, call for call. How to read it: `bwd_pre [2]` and
# `bwd [2]` are the full backward pre-hook and hook of module `2` of the `Sequential` (`root`
# is the model itself), `tensor [...]` a `register_hook` on a tensor, `post_acc [...]` a
# post-accumulate-grad hook (called once `.grad` is written); shapes are in parentheses. The
# `grad` lines at the end are not hook calls: they record every `.grad` after backward.

# %%
x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
mg_trace, pt_trace = hook_traces(mlp, (x,), kinds=("backward", "tensor", "post_acc"))
print("\n".join(format_trace(mg_trace)))
assert compare_traces(mg_trace, pt_trace) is None

# %% [markdown]
# ## How a module sees its gradients: `BackwardHookFunctionBackward`
#
# A module is not a node of the graph, so how can backward call a module hook "when the
# module is done"? PyTorch (and minigrad, the same way) wraps the module's inputs and outputs
# in an identity operation whose backward node, `BackwardHookFunctionBackward`, calls the
# hooks. It is visible in the graph:

# %%
def wrapped(lib):
    lib.manual_seed(0)
    fc = lib.nn.Linear(3, 2)
    fc.register_full_backward_hook(lambda module, gi, go: None)
    out = fc(lib.ones(1, 3, requires_grad=True))
    return {"graph": graph_trace(out)}


mg, pt = side_by_side(wrapped)

fc = minigrad.nn.Linear(3, 2)
fc.register_full_backward_hook(lambda module, gi, go: None)
x_in = minigrad.ones(1, 3, requires_grad=True)
save_graph(make_dot(fc(x_in), params={**dict(fc.named_parameters()), "x": x_in}),
           OUT / "full_hook_graph")

# %% [markdown]
# The wrapping is `BackwardHook.setup_input_hook` / `setup_output_hook` in
# `minigrad/utils/hooks.py` (PyTorch: `torch/utils/hooks.py`, same names), called from
# `Module._call_impl`:

# %%
quote(minigrad.nn.Module._call_impl, "if full_hooks or pre_hooks",
      "args = bw_hook.setup_input_hook")

# %% [markdown]
# ### The hooks firing, step by step
#
# `minigrad.viz.trace_backward` records one backward pass of the MLP, with a full backward
# pre-hook and hook on each layer, a tensor hook on the input and a post-accumulate-grad hook
# on `0.weight`. The hook calls appear in the page's log as they happen (click one to jump to
# its step): each module's pre-hook fires in the post-hook of the `BackwardHookFunctionBackward`
# node around its output, its full hook in the one around its input, and `0.weight`'s hook
# right after its `.grad` is written, before layer 0's full hook. minigrad and PyTorch (same
# weights) record the same calls with the same gradients:

# %%
models = dict(zip(("minigrad", "torch"), paired_models(mlp)))


def hooked_backward(lib):
    model = models[lib.__name__]

    def pre_hook(module, grad_output):
        return None

    def full_hook(module, grad_input, grad_output):
        return None

    for layer in model.children():
        layer.register_full_backward_pre_hook(pre_hook)
        layer.register_full_backward_hook(full_hook)
    model[0].weight.register_post_accumulate_grad_hook(lambda param: None)
    x_in = lib.tensor(x, requires_grad=True)
    x_in.register_hook(lambda grad: None)
    out = model(x_in).sum()
    return trace_backward(out, params={"x": x_in, **dict(model.named_parameters())},
                          modules=model)


mg_steps, pt_steps = save_backward_page(hooked_backward, OUT / "hooks_steps",
                                        title="MLP with backward hooks, step by step")
for e in mg_steps.events:
    if e["type"] == "hook":
        print(f"step {e['step']:>3}: {e['kind']:<15} on {e['where']}")

# %% [markdown]
# ## Full vs legacy module hooks
#
# `register_full_backward_hook` gives `grad_input` = the gradients with respect to the
# **module's inputs**. The legacy `register_backward_hook` instead attaches to the *last node*
# the module created and reports that node's input gradients. For `Linear` the last node is
# `AddmmBackward0(bias, input, weight.T)`, so the legacy hook sees three gradients (bias,
# input, transposed weight); for `Sequential(Linear, ReLU)` it sees only `ReLU`'s input.

# %%
def full_vs_legacy(lib):
    lib.manual_seed(0)
    nn = lib.nn
    got = {}

    def record(key):
        def hook(module, grad_input, grad_output):
            got[key] = (shapes(grad_input), shapes(grad_output))
        return hook

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the legacy hook warns that it is deprecated
        full, legacy = nn.Linear(3, 2), nn.Linear(3, 2)
        full.register_full_backward_hook(record("Linear, full"))
        legacy.register_backward_hook(record("Linear, legacy"))
        seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
        seq.register_backward_hook(record("Sequential, legacy"))
        for m in (full, legacy):
            m(lib.ones(5, 3, requires_grad=True)).sum().backward()
        seq(lib.ones(2, 3, requires_grad=True)).sum().backward()
    return {f"{k} (grad_input, grad_output)": v for k, v in got.items()}


mg, pt = side_by_side(full_vs_legacy)
assert mg["Linear, legacy (grad_input, grad_output)"][0] == [(2,), (5, 3), (3, 2)]

# %% [markdown]
# Use full hooks. (A module cannot mix both kinds: PyTorch and minigrad refuse.)
#
# ## Changing gradients
#
# A hook that returns a value replaces a gradient *from that point of the backward pass on*.
# Where the hook sits decides what changes:
#
# * a module **pre**-hook replacing `grad_output` changes everything below the module: the
#   module's parameters and its input;
# * a full backward hook replacing `grad_input` changes only what flows on to the input: the
#   module's parameter gradients were already written;
# * a tensor hook changes the gradient of that tensor and everything computed from it.

# %%
def changing(lib, where):
    fc = lib.nn.Linear(3, 2)
    with lib.no_grad():  # fixed weights, the same in both libraries
        fc.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]]))
    x = lib.ones(1, 3, requires_grad=True)
    if where == "pre-hook x10":
        fc.register_full_backward_pre_hook(lambda module, go: (go[0] * 10,))
    elif where == "full hook x100":
        fc.register_full_backward_hook(lambda module, gi, go: (gi[0] * 100,))
    elif where == "tensor hook on x x2":
        x.register_hook(lambda g: g * 2)
    fc(x).sum().backward()
    return {"x.grad": x.grad, "weight.grad": fc.weight.grad}


results = {}
for where in ["none", "pre-hook x10", "full hook x100", "tensor hook on x x2"]:
    print(where)
    results[where], _ = side_by_side(changing, where)
base = results["none"]
assert np.allclose(results["full hook x100"]["weight.grad"].numpy(), base["weight.grad"].numpy())
assert np.allclose(results["pre-hook x10"]["weight.grad"].numpy(),
                   10 * base["weight.grad"].numpy())

# %% [markdown]
# ## One addition, two inputs
#
# The student noticed that replacing the gradient in a hook on an addition changed the
# gradients of *both* variables joined by it. Right: `AddBackward0` passes the same gradient
# to each input (`d(a + b)/da = d(a + b)/db = 1`), so a replaced gradient reaches both. And a
# binary node has exactly two `next_functions` entries, one per operand.

# %%
def add_node_hook(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    s = a + b
    seen = {}

    def post(grad_inputs, grad_outputs):
        seen["grad_inputs"] = [g.clone() for g in grad_inputs]

    s.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
    s.grad_fn.register_hook(post)
    (s * lib.tensor([1.0, -1.0])).sum().backward()
    return {"next_functions": len(s.grad_fn.next_functions), "AddBackward0 gave":
            seen["grad_inputs"], "a.grad": a.grad, "b.grad": b.grad}


mg, pt = side_by_side(add_node_hook)
assert np.allclose(mg["a.grad"].numpy(), mg["b.grad"].numpy())

# %% [markdown]
# The engine calls the hooks of each node in a fixed order: tensor hooks, node pre-hooks, the
# node, then node post-hooks (`_call_node` in `minigrad/autograd/engine.py`):

# %%
quote(minigrad.autograd.engine._call_node, "for fn in list(node._pre_hooks",
      "grads = _check_hook_tuple")

# %% [markdown]
# ## What to remember
#
# * Backward hooks run *during* backward, in the engine's order; a module's full backward hook
#   fires after its parameters' `.grad` were written.
# * Full module hooks work through a `BackwardHookFunctionBackward` node around the module.
# * The legacy `register_backward_hook` sees the inputs of the module's last node; use
#   `register_full_backward_hook`.
# * A returned value replaces a gradient from that point on: pre-hooks change the module's
#   parameters' gradients too; full hooks only the input's.
