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
# # In-place operations and version counters
#
# Many backward nodes keep tensors from the forward pass (chapter 1: `MulBackward0` saves both
# inputs). What if one of those tensors is changed in place (`y.mul_(2)`, `y += 1`,
# `relu(..., inplace=True)`) after it was saved and before `backward()`?
#
# The student's guess: *"the nodes notice the change and recompute the gradient; the `version`
# attribute marks the change."* Half right. Every tensor carries a version counter
# (`t._version`) that each in-place operation increments, and every saved tensor remembers the
# version it had when it was saved. But nothing is recomputed: when backward needs a saved
# tensor whose version moved on, it **refuses**, with an error.

# %%
import numpy as np
import torch

import minigrad
from minigrad.tutorial import output_dir, quote, same_error, save_graph, shown, side_by_side
from minigrad.viz import make_dot

OUT = output_dir(3)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")

# %% [markdown]
# ## The experiment
#
# `sigmoid` saves its *result* (the derivative of `s = sigmoid(x)` is `s * (1 - s)`). We
# double the result in place, then call backward.

# %%
def versions(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = x.sigmoid()
    before = s._version
    s.mul_(2)
    return {"version before mul_": before, "version after mul_": s._version,
            "s.grad_fn now": s.grad_fn.name(),
            "below it": s.grad_fn.next_functions[0][0].name()}


mg, pt = side_by_side(versions)


def inplace_then_backward(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = x.sigmoid()
    s.mul_(2)
    s.sum().backward()


same_error(inplace_then_backward, ["modified by an inplace operation", "output 0 of Sigmoid",
                                    "is at version 1; expected version 0"])

# %% [markdown]
# Both libraries raise the same `RuntimeError` and say exactly what happened: the tensor that
# `Sigmoid` produced is at version 1, but `SigmoidBackward0` saved it at version 0. The graph
# was *rewritten* by the in-place op (`s.grad_fn` is now `MulBackward0`, sitting on top of
# `SigmoidBackward0`), yet the saved result is stale, and a gradient computed from it would be
# wrong. Refusing is the only safe answer.
#
# In minigrad the check is a few lines of `SavedTensor._check` (run by `unpack`) in
# `minigrad/autograd/graph.py`, and the counter is `_VersionCounter` in `minigrad/_tensor.py`:

# %%
quote(minigrad.autograd.graph.SavedTensor._check, "if self._vc.value != self._saved_version",
      "raise RuntimeError")
quote(minigrad._tensor._VersionCounter)

# %% [markdown]
# ## Not every in-place operation is an error
#
# The error needs a *saved* tensor that changed. `AddBackward0` saves nothing, so doubling the
# result of an addition in place is fine: the in-place op is simply recorded as one more node.

# %%
def harmless(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x + 1
    y.mul_(2)
    y.sum().backward()
    return {"y._version": y._version, "y.grad_fn": y.grad_fn.name(), "x.grad": x.grad}


mg, pt = side_by_side(harmless)

# %% [markdown]
# ## Views share one counter
#
# A view (`a[0]`, `a.view(...)`, `a.t()`, `x.detach()`) shares its base's memory, and so its
# version counter. Changing a row changes the version of the whole tensor and of every other
# view of it. This is how a change made through a detached copy is still caught:

# %%
def shared_counter(lib):
    a = lib.zeros(2, 3)
    row0, row1 = a[0], a[1]
    row0.add_(1)
    return {"a._version": a._version, "row0._version": row0._version,
            "row1._version": row1._version}


mg, pt = side_by_side(shared_counter)


def through_detach(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()  # ExpBackward0 saves its result
    y.detach().zero_()  # same memory, same counter
    y.sum().backward()


print("y = x.exp(); y.detach().zero_(); backward:")
same_error(through_detach, "which is output 0 of Exp")

# %% [markdown]
# ## The bug people actually write
#
# Updating the weights between the forward pass and `backward()`: for example calling
# `optimizer.step()` too early, or a manual update under `no_grad`. `no_grad` allows the
# in-place change of a leaf (that is how optimizers work), but the multiplication saved `w`:

# %%
def step_too_early(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    x = lib.tensor([3.0, 4.0], requires_grad=True)
    loss = (w * x).sum()
    with lib.no_grad():
        w.sub_(0.1)  # the "optimizer step", one line too early
    loss.backward()


same_error(step_too_early, "is at version 1; expected version 0")

# %% [markdown]
# Changing a leaf that requires grad *outside* `no_grad` is refused right away, before any
# backward:

# %%
def leaf_inplace(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    w.add_(1)


same_error(leaf_inplace, "a leaf Variable that requires grad is being used in an in-place")

# %% [markdown]
# ## Fixes
#
# * Use the out-of-place form: `s = s * 2` instead of `s.mul_(2)` (a new tensor; the saved one
#   is untouched).
# * Or `clone()` before modifying: the clone has its own memory and its own counter.
# * Keep the order *forward → backward → step*.

# %%
def fixed(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = x.sigmoid()
    s = s * 2  # out of place
    s.sum().backward()
    g1 = x.grad.clone()
    x.grad = None
    s = x.sigmoid().clone()
    s.mul_(2)  # in place on the clone: the saved result is not touched
    s.sum().backward()
    return {"out of place: x.grad": g1, "clone then mul_: x.grad": x.grad}


mg, pt = side_by_side(fixed)
sig = 1 / (1 + np.exp(-np.array([1.0, 2.0, 3.0])))
assert np.allclose(mg["out of place: x.grad"].numpy(), 2 * sig * (1 - sig), atol=1e-6)

# %% [markdown]
# ## Seeing the stale tensor
#
# `make_dot(..., show_saved=True, show_versions=True)` draws each saved tensor with the version
# it was saved at and the version it has now; a stale one (backward would fail) is red.

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
s = x.sigmoid()
s.mul_(2)
save_graph(make_dot(s, params={"x": x}, show_saved=True, show_versions=True), OUT / "stale")

# %% [markdown]
# ## What to remember
#
# * In-place ops bump `_version`; views share the counter with their base.
# * Saved tensors remember their version; backward *refuses* (RuntimeError) when it changed.
#   Nothing is ever recomputed.
# * The error names the tensor, the op that made it and both versions; anomaly detection
#   (`set_detect_anomaly(True)`) also prints where that op was called in your forward pass.
# * More: the concept page on versions, and `minigrad/_ops/inplace.py` for how each in-place op
#   rewrites the graph.
