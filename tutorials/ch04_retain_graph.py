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
# # `retain_graph`, freed saved tensors, and higher-order gradients
#
# The student's guess: *"`retain_graph=True` keeps the graph so it can be logged, say to
# TensorBoard."* The graph's structure (`grad_fn`, `next_functions`) survives `backward()`
# anyway, flag or no flag. What `backward()` frees are the **saved tensors** inside the nodes,
# to give the memory back as early as possible. `retain_graph=True` keeps them, so that a
# second backward can run through the same graph. And `create_graph=True` goes one step
# further: the backward pass itself is recorded as a graph, so gradients can be differentiated
# again.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad.parity import graph_trace
from minigrad.tutorial import (
    output_dir,
    quote,
    same_error,
    save_backward_page,
    save_figure,
    save_graph,
    shown,
    side_by_side,
)
from minigrad.viz import make_dot, trace_backward

OUT = output_dir(4)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")

# %% [markdown]
# ## A second backward
#
# `x * x` saves `x` (twice: as `self` and as `other`). After one backward the saved values are
# released:

# %%
def twice(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


print("y.backward() twice:")
same_error(twice, "Trying to backward through the graph a second time")


def read_saved_after_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    return y.grad_fn.next_functions[0][0]._saved_self


print("reading MulBackward0._saved_self after backward():")
same_error(read_saved_after_backward, "after they have already been freed")

# %% [markdown]
# The structure is still there after `backward()`: `grad_fn` and `next_functions` can be read
# (and drawn, and logged) as before. Only the saved tensors are gone:

# %%
def structure_survives(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    before = graph_trace(y)
    y.backward()
    return {"graph before": before, "graph after": graph_trace(y)}


mg, pt = side_by_side(structure_survives)
assert mg["graph after"] == pt["graph after"] == mg["graph before"]

# %% [markdown]
# So a graph whose nodes saved nothing can be run twice *without* `retain_graph`: `x + 1` and
# `sum` need no values to compute their derivatives. (A surprise the first time; it is the
# same in PyTorch.)

# %%
def nothing_saved(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    return {"x.grad after two backwards": x.grad}


mg, pt = side_by_side(nothing_saved)

# %% [markdown]
# `retain_graph=True` on the first call keeps the saved tensors; the second call then works
# (and, as chapter 2 showed, adds to `.grad`):

# %%
def retained(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    first = x.grad.clone()
    y.backward()
    return {"after 1st": first, "after 2nd": x.grad}


mg, pt = side_by_side(retained)
assert np.allclose(mg["after 2nd"].numpy(), pt["after 2nd"].numpy())

# %% [markdown]
# In minigrad the engine releases a node's saved values right after running it (and its
# post-hooks, which may still read them), unless `retain_graph` is set (`_call_node` in
# `minigrad/autograd/engine.py`); a released `SavedTensor` raises the error above when
# unpacked:

# %%
quote(minigrad.autograd.engine._call_node, "if not retain_graph", "_release_variables")
quote(minigrad.autograd.graph.SavedTensor._check, "if self._freed", "raise RuntimeError")

# %% [markdown]
# ### The second backward, step by step
#
# `minigrad.viz.trace_backward` records a backward pass as it runs. Here it records the
# *second* backward of `(x * x).sum()`: the page starts with the saved `self` and `other` greyed
# (the first backward freed them), `SumBackward0` runs (it saved no tensor), and the run stops
# at `MulBackward0`, the first node that needs a freed value; the red button jumps to that step.
# Both libraries stop at the same step with the same error:

# %%
def second_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    return trace_backward(y, params={"x": x})


mg_trace, pt_trace = save_backward_page(second_backward, OUT / "second_backward_steps",
                                        title="(x * x).sum(), second backward", height=520)
failed = mg_trace.events[mg_trace.error["step"]]
print(f"backward failed at step {mg_trace.error['step']}, in "
      f"{mg_trace.graph['nodes'][failed['node']]['name']}: {mg_trace.error['message'][:52]}...")

# %% [markdown]
# ## Higher-order gradients: `create_graph=True`
#
# Every backward formula in minigrad is written with tensor operations (for `sin` the gradient
# is `grad * cos(x)`). When `create_graph=True` those operations are recorded like any forward
# computation, so the gradient has its own `grad_fn` and can be differentiated again. Without
# it, the gradient is a plain tensor.

# %%
def second_derivative(lib):
    x = lib.tensor([0.0, 1.0, 2.0], requires_grad=True)
    (g,) = lib.autograd.grad(x.sin().sum(), x, create_graph=True)  # cos(x)
    (h,) = lib.autograd.grad(g.sum(), x)  # -sin(x)
    (plain,) = lib.autograd.grad(x.sin().sum(), x)
    return {"dy/dx": g, "graph of dy/dx": graph_trace(g), "d2y/dx2": h,
            "no create_graph: requires_grad": plain.requires_grad}


mg, pt = side_by_side(second_derivative)
assert np.allclose(mg["d2y/dx2"].numpy(), -np.sin([0.0, 1.0, 2.0]), atol=1e-6)

# %% [markdown]
# The graph of the gradient is the formula of `SinBackward0` (`minigrad/_ops/pointwise.py`):
# a `MulBackward0` whose first input is the incoming gradient (a constant here, hence `None`)
# and whose second is `CosBackward0`.

# %%
quote(minigrad._ops.pointwise.SinBackward0)

# %% [markdown]
# For a few ops PyTorch has dedicated double-backward nodes (`TanhBackwardBackward0`,
# `SigmoidBackwardBackward0`) where minigrad records the elementary operations of the same
# formula; the graphs of such second derivatives differ in their node names, the values do not.
# So below only the values are compared.
#
# Repeating `autograd.grad(..., create_graph=True)` gives the derivatives of `tanh`, to any
# order. We compute the first three on both libraries and plot minigrad's:

# %%
def tanh_derivatives(lib):
    t = lib.tensor(np.linspace(-4, 4, 201, dtype=np.float32), requires_grad=True)
    ys = [t.tanh()]
    for _ in range(3):
        (d,) = lib.autograd.grad(ys[-1].sum(), t, create_graph=True)
        ys.append(d)
    return {f"order {k}": y.detach().numpy() for k, y in enumerate(ys)}


mg_d = tanh_derivatives(minigrad)
pt_d = tanh_derivatives(torch)
for k in mg_d:
    assert np.allclose(mg_d[k], pt_d[k], atol=1e-5), k
print("tanh and its first three derivatives agree with PyTorch at 201 points")

fig, ax = plt.subplots(figsize=(6, 3.5))
xs = np.linspace(-4, 4, 201)
for k, y in mg_d.items():
    ax.plot(xs, y, label=f"tanh {k} (minigrad)")
ax.plot(xs, pt_d["order 3"], "k:", label="order 3 (torch)")
ax.legend(fontsize=8)
ax.set_title("autograd.grad(..., create_graph=True), applied repeatedly")
save_figure(fig, OUT / "tanh_derivatives.png")

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
(g,) = minigrad.autograd.grad(x.sin().sum(), x, create_graph=True)
save_graph(make_dot(g, params={"x": x}), OUT / "graph_of_the_gradient")

# %% [markdown]
# ## What to remember
#
# * `backward()` frees saved tensors, not the graph's structure. A second backward through
#   nodes that saved something raises "Trying to backward through the graph a second time".
# * `retain_graph=True` keeps the saved tensors (and the memory); it has nothing to do with
#   logging.
# * `create_graph=True` records the backward pass as a graph: higher-order derivatives.
# * More: the concept pages on `retain_graph` and higher-order gradients.
