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
# # What backward keeps: saved tensors, their hooks, and checkpointing
#
# The guess: *"the graph keeps every intermediate result alive until backward, so the memory of
# a forward pass is the price of autograd, and nothing can be done about it."* Each node keeps
# only what its derivative formula needs, and some keep nothing at all. How a kept tensor is
# stored is yours to decide (saved-tensor hooks), it can be moved away (`save_on_cpu`), or not
# kept at all and computed again when backward needs it (checkpointing). This chapter watches
# each of these happen, in minigrad and PyTorch.

# %%
import gc
import weakref

import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad.parity import graph_nodes
from minigrad.tutorial import (
    output_dir,
    quote,
    same_error,
    save_figure,
    save_graph,
    shown,
    side_by_side,
)
from minigrad.viz import make_dot

OUT = output_dir(10)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")


def forward(lib):
    """``sum(exp(x * w) + 1)`` on two leaves: the example of the first sections."""
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * w
    z = y.exp()
    return x, w, y, z, (z + 1).sum()


# %% [markdown]
# ## What each node keeps
#
# A node's saved values are its `_saved_<name>` attributes (chapter 8 drew them with
# `show_saved`). `MulBackward0` keeps both factors (`d(x*w)/dx = w`), `ExpBackward0` keeps its
# *result* (`d exp(y)/dy = exp(y)`), `AddBackward0` only the number `alpha` and `SumBackward0`
# only a shape: no tensor (a `_raw_saved_<name>` attribute exists for each saved tensor).

# %%
def what_nodes_save(lib):
    x, w, y, z, s = forward(lib)
    nodes = [n for n in graph_nodes([s.grad_fn]) if "AccumulateGrad" not in n.name()]
    kept = {n.name(): [a for a in dir(n) if a.startswith("_saved_")] for n in nodes}
    return {**kept, "of them tensors": [sum(a.startswith("_raw_saved_") for a in dir(n))
                                        for n in nodes],
            "_saved_self is x": y.grad_fn._saved_self is x,
            "_saved_result is z": z.grad_fn._saved_result is z,
            "its grad_fn is z.grad_fn": z.grad_fn._saved_result.grad_fn is z.grad_fn}


mg, pt = side_by_side(what_nodes_save)
assert mg["MulBackward0"] == ["_saved_other", "_saved_self"]
assert mg["of them tensors"] == [0, 0, 1, 2]
assert mg["_saved_self is x"] and not mg["_saved_result is z"] and mg["its grad_fn is z.grad_fn"]

# %% [markdown]
# A saved input comes back as the very tensor `x`. A saved *output* comes back as a new tensor
# object whose `grad_fn` is the node itself: the node cannot hold `z` (which holds the node),
# or the two would keep each other alive.
#
# ## Pack and unpack, step by step
#
# Inside `with autograd.graph.saved_tensors_hooks(pack, unpack):` every tensor an op saves is
# handed to `pack`, and the node keeps whatever `pack` returns; backward hands that back to
# `unpack` and uses the tensor it returns. A log of both hooks, and a node pre-hook (chapter 7)
# that logs each node as it starts, show when each one runs:

# %%
def traced(lib):
    log = []

    def name(t):  # which tensor it is, told by its first value
        return {1.0: "x", 0.5: "w"}.get(t.tolist()[0], "z")

    def pack(t):
        log.append(f"pack {name(t)}" + (f" ({t.grad_fn.name()})" if t.grad_fn else ""))
        return t

    def unpack(t):
        log.append(f"unpack {name(t)}")
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        log.append("-- forward")
        x, w, y, z, s = forward(lib)
    for node in (z.grad_fn, y.grad_fn):
        node.register_prehook(lambda grads, node=node: log.append(f"run {node.name()}"))
    log.append("-- read _saved_other")
    read = y.grad_fn._saved_other
    log.append("-- backward")
    s.backward()
    return {f"step {i}": line for i, line in enumerate(log)} | {
        "_saved_other is w": read is w, "... equal to w": read.tolist() == w.tolist()}


mg, pt = side_by_side(traced)
assert list(mg.values()) == ["-- forward", "pack w", "pack x", "pack z (ExpBackward0)",
                             "-- read _saved_other", "unpack w", "-- backward",
                             "run ExpBackward0", "unpack z", "run MulBackward0", "unpack w",
                             "unpack x", False, True]

# %% [markdown]
# Three packs in the forward, each as its op runs (`w` and `x` for the product, `z` for `exp`).
# Reading `_saved_other` unpacks, and hands out a new tensor with `w`'s values and history,
# although `unpack` returned `w` itself. In backward each node unpacks its tensors as it
# starts, after its pre-hooks: nothing is unpacked before it is needed. In minigrad:

# %%
quote(minigrad.autograd.graph.SavedTensor._unpack_hooked, "data = unpack(packed)",
      "out = Tensor._make")

# %% [markdown]
# ## After backward: freed, and a second backward refused
#
# Here `pack` returns a box around the tensor, and a weak reference tells whether the box is
# still alive. Backward drops each node's packed values as soon as the node has run (unless
# `retain_graph=True`, chapter 4). A second backward then has nothing to unpack:

# %%
class Box:
    def __init__(self, tensor):
        self.tensor = tensor


def freed(lib, retain, backwards=1):
    boxes, unpacks = [], []

    def pack(t):
        boxes.append(weakref.ref(box := Box(t)))
        return box

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda box: unpacks.append(1) or box.tensor):
        s = forward(lib)[-1]
    alive = [sum(b() is not None for b in boxes)]
    for _ in range(backwards):
        s.backward(retain_graph=retain)
    gc.collect()
    alive.append(sum(b() is not None for b in boxes))
    return {f"retain_graph={retain}: boxes alive before/after": alive, "unpacks": len(unpacks)}


assert side_by_side(freed, False)[0]["retain_graph=False: boxes alive before/after"] == [3, 0]
same_error(freed, "Trying to backward through the graph a second time", False, backwards=2)
mg, pt = side_by_side(freed, True, backwards=2)
assert mg["retain_graph=True: boxes alive before/after"] == [3, 3] and mg["unpacks"] == 6

# %% [markdown]
# With `retain_graph=True` the boxes survive, and each backward unpacks all three again.
#
# ## `save_on_cpu`: hooks that move the values
#
# `autograd.graph.save_on_cpu(pin_memory=False)` is a pair of hooks that packs each tensor on
# the CPU and unpacks it onto its device (on a GPU: activations wait in host memory). A CPU
# tensor is packed as itself, or copied with `pin_memory=True`. Hooked values are not
# version-checked (their hooks own them), as an in-place change after the forward shows: `a`
# is multiplied by 10 after `a * a` saved it.

# %%
def changed_after_forward(lib, how):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    hooks = lib.enable_grad() if how == "no hooks" else lib.autograd.graph.save_on_cpu(
        pin_memory="True" in how)
    with hooks:
        a = x * 1.0
        y = (a * a).sum()  # d/dx = 2a
    with lib.no_grad():
        a.mul_(10)
    y.backward()
    return {f"{how}: x.grad": x.grad}


for how in ("save_on_cpu(pin_memory=False)", "save_on_cpu(pin_memory=True)"):
    side_by_side(changed_after_forward, how)
same_error(changed_after_forward, "modified by an inplace operation", "no hooks")

# %% [markdown]
# Without hooks backward refuses (chapter 3). With `pin_memory=False` it uses the changed
# values (`2 * 10a`, no error); with `pin_memory=True` the copy made at save time (`2a`).
#
# ## Checkpointing: keep less, compute again
#
# `utils.checkpoint.checkpoint(block, x, use_reentrant=...)` keeps only the block's inputs and
# runs `block` again in backward. Our block takes `sin(1.5 h)` four times; each `sin` keeps its
# input. We count the calls of `block`; weak references tell which intermediates are alive
# between forward and backward; an outer pack hook adds up the bytes saved (inside a
# checkpoint, the checkpoint's own hooks are innermost: the outer one sees what it keeps).

# %%
def memory(lib, mode):
    calls, inner, saved = [], [], []

    def block(h):
        calls.append(1)
        for _ in range(4):
            inner.append(weakref.ref(m := h * 1.5))
            h = m.sin()
        return h

    def pack(t):
        saved.append(t.numel() * t.dtype.itemsize)
        return t

    x = lib.tensor(np.linspace(-1, 1, 1000, dtype=np.float32), requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = block(x) if mode == "plain" else lib.utils.checkpoint.checkpoint(
            block, x, use_reentrant=mode == "reentrant")
    gc.collect()
    out = {"output's node": y.grad_fn.name(), "block calls after forward": len(calls),
           "intermediates alive": sum(r() is not None for r in inner), "saved bytes": sum(saved)}
    y.sum().backward()
    GRADS[lib.__name__, mode] = x.grad.numpy()
    return out | {"block calls after backward": len(calls)}


GRADS, results = {}, {}
for mode in ("plain", "reentrant", "non-reentrant"):
    print(f"{mode}:")
    results[mode] = side_by_side(memory, mode)[0]
assert results["plain"]["intermediates alive"] == 4 and results["plain"]["saved bytes"] == 16000
for mode in ("reentrant", "non-reentrant"):
    assert results[mode]["intermediates alive"] == 0 and results[mode]["saved bytes"] == 4000
    assert results[mode]["block calls after forward"] == 1
    assert results[mode]["block calls after backward"] == 2
for key, grad in GRADS.items():  # 1,000 gradients each, the same in all six runs
    assert np.allclose(grad, GRADS["minigrad", "plain"], atol=1e-6), key

fig, ax = plt.subplots(figsize=(6, 3))
ax.bar(list(results), [r["saved bytes"] / 1000 for r in results.values()],
       color=["grey", "tab:blue", "tab:green"])
ax.set_ylabel("kB saved for backward")
ax.set_title("Four sin(1.5 h) on 1,000 floats: what waits for backward")
save_figure(fig, OUT / "saved_bytes.png")

# %% [markdown]
# Without checkpointing the four inputs of `sin` wait for backward (16,000 bytes); checkpointed,
# only the block's input (4,000 bytes), and `block` runs twice, the second time in backward.
# The gradients are the same. The non-reentrant variant (`use_reentrant=False`) records the
# usual graph (its output's node is `SinBackward0`) under hooks whose `pack` keeps an empty
# placeholder; the first `unpack` of a backward runs `block` again to fill them. A log shows
# that the recomputation starts when the last `sin`'s node needs its input:

# %%
def recompute_log(lib):
    log = []
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    y = lib.utils.checkpoint.checkpoint(lambda h: log.append("block runs") or h.sin().sin(), x,
                                        use_reentrant=False)
    y.grad_fn.register_prehook(lambda grads: log.append(f"run {y.grad_fn.name()}"))
    y.sum().backward()
    return {"log": log}


assert side_by_side(recompute_log)[0]["log"] == ["block runs", "run SinBackward0", "block runs"]
quote(minigrad.utils.checkpoint._checkpoint_hook.__init__, "holder = _Holder()", "return holder")
quote(minigrad.utils.checkpoint._checkpoint_hook.__init__, "if not frame.is_recomputed[gid]",
      "frame.recompute_fn(*args)")

# %% [markdown]
# The reentrant variant is one node for the whole block, `CheckpointFunctionBackward`, whose
# `backward` calls `block` again under `enable_grad` and runs a nested backward, which writes
# `.grad`. In the drawing, the line from `x` straight into the node is the one tensor the node
# saved, `x` itself. Writing `.grad`, the node cannot serve `autograd.grad` (which returns
# gradients instead); the non-reentrant variant can:

# %%
quote(minigrad.utils.checkpoint.CheckpointFunction.backward, "with grad_mode.enable_grad():",
      "outputs = ctx.run_function")
quote(minigrad.utils.checkpoint.CheckpointFunction.backward, "backward([o for o, _ in pairs]")


def grad_through(lib, reentrant, draw=False):
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    y = lib.utils.checkpoint.checkpoint(lambda h: h.sin().sin(), x, use_reentrant=reentrant)
    if draw:
        save_graph(make_dot(y, params={"x": x}), OUT / f"reentrant_checkpoint_{lib.__name__}")
        return {"saved_tensors of the node": len(y.grad_fn.saved_tensors),
                "it is x": y.grad_fn.saved_tensors[0] is x}
    return {"autograd.grad": lib.autograd.grad(y.sum(), x)[0]}


assert side_by_side(grad_through, True, draw=True)[0]["it is x"]


same_error(grad_through, "incompatible with .grad()", True)
side_by_side(grad_through, False)

# %% [markdown]
# ## What to remember
#
# * A node keeps what its formula needs (`_saved_*`): inputs as themselves, outputs as new
#   tensors with the node as `grad_fn`; `add` and `sum` keep no tensor.
# * `saved_tensors_hooks(pack, unpack)`: `pack` once per saved tensor in the forward, `unpack`
#   when its node starts in backward (or `_saved_x` is read). Backward frees the packed values;
#   a second backward raises, unless `retain_graph=True`.
# * `save_on_cpu` is such a pair of hooks; hooked values are not version-checked.
# * `checkpoint` keeps the inputs and runs the block again in backward: less memory, one more
#   forward. Prefer `use_reentrant=False` (`autograd.grad` works, the graph is the usual one).
# * More: the concept pages on saved-tensor hooks and checkpointing.
