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
# # Tensors, `requires_grad` and the backward graph
#
# A tensor that `requires_grad` leaves a trail: every operation on it records a *backward
# node* (`grad_fn`) that knows how to turn the gradient of its output into gradients of its
# inputs, and links to the nodes of those inputs (`next_functions`). Leaves end the trail in an
# `AccumulateGrad` node, which writes `.grad`. This chapter builds that graph in minigrad and in
# PyTorch, side by side, and checks they are the same graph.
#
# Everything below is written once, as a function of `lib`, and run with `lib = minigrad` and
# `lib = torch` (minigrad's API is PyTorch's: `import minigrad as torch` works for this code).

# %%
import torch

import minigrad
from minigrad.parity import graph_trace
from minigrad.tutorial import output_dir, quote, save_graph, shown, side_by_side
from minigrad.viz import make_dot

OUT = output_dir(1)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")

# %% [markdown]
# ## A guess to test: "the graph is built when I call `backward()`"
#
# It is tempting to think `backward()` first looks at the expression and *then* builds a graph.
# If that were true, a result would have no `grad_fn` before `backward()` is called. Look:

# %%
def before_backward(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    c = lib.tensor([1.0, 1.0, 1.0])  # a constant: requires_grad is False
    z = x * w + c
    return {"z.grad_fn (no backward yet)": z.grad_fn.name(),
            "z.requires_grad": z.requires_grad,
            "z.is_leaf": z.is_leaf}


mg, pt = side_by_side(before_backward)
assert mg["z.grad_fn (no backward yet)"] == pt["z.grad_fn (no backward yet)"] == "AddBackward0"

# %% [markdown]
# The graph already exists: it is recorded **during the forward pass**, one node per operation,
# at the moment the operation runs. `backward()` only walks it. In minigrad every op calls
# `record()` in `minigrad/autograd/graph.py`; it creates the node only when grad mode is on and
# some input requires grad, and points the node at its inputs:

# %%
quote(minigrad.autograd.graph.record, "needed = False", "node.next_functions")

# %% [markdown]
# ## Leaves and non-leaves
#
# A *leaf* is a tensor you made yourself (or a parameter); everything computed from a tensor
# that requires grad is a non-leaf with a `grad_fn`. `detach()` cuts the trail, and so does
# an operation on tensors that do not require grad.

# %%
def leaves(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    plain = lib.tensor([3.0, 4.0])
    rows = {}
    for label, t in [("x", x), ("plain", plain), ("x * 2", x * 2), ("plain * 2", plain * 2),
                     ("x + plain", x + plain), ("x.detach()", x.detach()),
                     ("x.sum()", x.sum())]:
        fn = None if t.grad_fn is None else t.grad_fn.name()
        rows[label] = (t.requires_grad, t.is_leaf, fn)
    return rows


print("(requires_grad, is_leaf, grad_fn)")
_ = side_by_side(leaves)

# %% [markdown]
# ## `next_functions`: the edges of the graph
#
# Each node has one `(node, input_nr)` pair per differentiable input, in the order of the
# operation's arguments. A binary operation such as `*` or `+` therefore has exactly **two**
# entries. An input that does not require grad gets `(None, 0)`: the constant `c` below.
# A leaf's entry is its `AccumulateGrad` node, whose `.variable` is the leaf itself.

# %%
def edges(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    c = lib.tensor([1.0, 1.0, 1.0])
    z = x * w + c
    add = z.grad_fn
    mul, _ = add.next_functions[0]
    acc_x, _ = mul.next_functions[0]
    return {
        "add.next_functions": [(None if n is None else n.name(), nr)
                               for n, nr in add.next_functions],
        "mul.next_functions": [(n.name(), nr) for n, nr in mul.next_functions],
        "acc_x.variable is x": acc_x.variable is x,
        "acc_x.next_functions": acc_x.next_functions,
        "saved by mul": sorted(a for a in dir(mul) if a.startswith("_saved_")),
        "mul._saved_self is x": mul._saved_self is x,
        "graph_trace(z)": graph_trace(z),
    }


mg, pt = side_by_side(edges)
assert mg["graph_trace(z)"] == pt["graph_trace(z)"]

# %% [markdown]
# `graph_trace` (from `minigrad.parity`) numbers the nodes in the order a depth-first walk
# meets them and writes each as `(name, [(child number, input_nr), ...])`, so two graphs can be
# compared without looking at object ids: the parity tests compare every graph this way.
#
# `MulBackward0` saved both of its inputs (`_saved_self`, `_saved_other`): the derivative of
# `x * w` with respect to `x` is `w`, and the other way round. `AddBackward0` saved nothing;
# the derivative of a sum needs no values. (Chapter 3 shows why saving matters.)
#
# `AccumulateGrad` is the node of a leaf. It is created once per leaf and reused by every
# operation that uses the leaf (`Tensor._grad_accumulator`). Its `backward` stores the first
# gradient as `.grad` and **adds** every later one to it, in place (the last lines of
# `AccumulateGrad.backward`; with `create_graph` it adds out of place, chapter 4):

# %%
quote(minigrad.autograd.graph.AccumulateGrad.backward, "elif grad_mode.is_grad_enabled():",
      "var._grad._vc.bump()")

# %% [markdown]
# ## Running the graph
#
# `backward()` seeds the root with a gradient of 1 and lets each node apply its local
# derivative (the chain rule, node by node). For `z = sum(x * w + c)`: `dz/dx = w` and
# `dz/dw = x`; the constant gets no gradient at all.

# %%
def run_backward(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    c = lib.tensor([1.0, 1.0, 1.0])
    z = (x * w + c).sum()
    z.backward()
    return {"z": z, "x.grad": x.grad, "w.grad": w.grad, "c.grad": c.grad}


mg, pt = side_by_side(run_backward)
assert (mg["x.grad"].numpy() == pt["x.grad"].numpy()).all()

# %% [markdown]
# ## The picture
#
# `minigrad.viz.make_dot` draws the same graph (chapter 8 is about drawing). Blue boxes are
# leaves, grey boxes backward nodes, the green box the output; arrows point the way the forward
# pass went.

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = minigrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
z = (x * w + minigrad.tensor([1.0, 1.0, 1.0])).sum()
save_graph(make_dot(z, params={"x": x, "w": w}), OUT / "z_minigrad")

xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
wt = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
zt = (xt * wt + torch.tensor([1.0, 1.0, 1.0])).sum()
save_graph(make_dot(zt, params={"x": xt, "w": wt}), OUT / "z_torch")
assert graph_trace(z) == graph_trace(zt)

# %% [markdown]
# ## What to remember
#
# * The graph is recorded during the forward pass; `grad_fn` exists before any `backward()`.
# * `next_functions` holds one `(node, input_nr)` per differentiable input: two for `+` and `*`;
#   `(None, 0)` for inputs that do not require grad.
# * Leaves end in `AccumulateGrad` (`.variable` is the leaf); it is what writes `.grad`.
# * Read next: `minigrad/autograd/graph.py` (`Node`, `record`, `edge_of`), and chapter 2, on
#   the order in which the engine runs these nodes.
