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
# # Drawing graphs of toy networks with `make_dot`
#
# `minigrad.viz.make_dot` draws a backward graph with Graphviz. It takes torchviz's arguments
# (`make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50)`) and
# draws torchviz's picture, for **minigrad and PyTorch tensors alike**: it only reads
# `grad_fn`, `next_functions`, `variable` and the `_saved_*` attributes, which both libraries
# have. This chapter draws the toy networks of `minigrad/toy_models.py` in both libraries and
# checks that the drawings are the same, statement for statement.
#
# Rendering needs Graphviz's `dot` program (`apt-get install graphviz`, `brew install
# graphviz`); without it the DOT source is written instead and the chapter says so.

# %%
import re

import torch

import minigrad
from minigrad import toy_models
from minigrad.tutorial import output_dir, quote, save_graph, shown
from minigrad.viz import make_dot

OUT = output_dir(8)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")


def canonical(dot) -> str:
    """DOT source with node ids (``str(id(obj))``, different on every run) renamed N0, N1..."""
    names = {}
    return re.sub(r"\b\d{6,}\b", lambda m: names.setdefault(m.group(0), f"N{len(names)}"),
                  dot.source)


def draw(name, lib, **options):
    """Run toy ``name`` once with ``lib`` and draw its graph (params named)."""
    run = toy_models.run(name, lib, track=bool(options.pop("modules", False)))
    return make_dot(run["output"], params=run["params"], modules=run["tracker"], **options)


# %% [markdown]
# ## An MLP: `Linear → ReLU → Linear → ReLU → Linear`

# %%
mg_dot, pt_dot = draw("mlp", minigrad), draw("mlp", torch)
save_graph(mg_dot, OUT / "mlp_minigrad")
save_graph(pt_dot, OUT / "mlp_torch")
assert canonical(mg_dot) == canonical(pt_dot)
print("the two DOT sources are identical after renaming ids:")
print("\n".join(canonical(mg_dot).splitlines()[:12]) + "\n  ...")

# %% [markdown]
# How to read it:
#
# * the **green** box at the top of the data flow (drawn at the bottom) is the output, with
#   its shape; arrows follow the forward direction, from inputs to output;
# * **blue** boxes are leaves reached through an `AccumulateGrad` node, labelled with their
#   name from `params` (here `dict(model.named_parameters())`) and shape;
# * **grey** boxes are backward nodes. Each `nn.Linear` became `AddmmBackward0`
#   (`bias + input @ weight.T`), with a `TBackward0` for the transposed weight;
# * the input `x` does not require grad, so it is not drawn at all.
#
# ## What the nodes saved: `show_saved` and `show_attrs`
#
# `show_saved=True` adds each saved tensor (orange) to its node; `show_attrs=True` lists every
# `_saved_*` attribute in the node's label. `AddmmBackward0` saved `mat1` (the layer's input)
# and `mat2` (the transposed weight): the two factors its derivative needs.

# %%
mg_saved = draw("mlp", minigrad, show_saved=True, show_attrs=True)
pt_saved = draw("mlp", torch, show_saved=True, show_attrs=True)
save_graph(mg_saved, OUT / "mlp_saved_minigrad")
assert canonical(mg_saved) == canonical(pt_saved)

# %% [markdown]
# ## One cluster per module
#
# An extra of minigrad's `make_dot`: with `modules=` it groups the nodes by the submodule that
# created them. `minigrad.viz.track_modules(model)` records this with forward hooks (chapter
# 6) during the forward pass; `toy_models.run(..., track=True)` does that for us. The residual
# toy (`h + block(h)`) shows two paths meeting in an `AddBackward0`:

# %%
mg_res, pt_res = draw("residual", minigrad, modules=True), draw("residual", torch, modules=True)
save_graph(mg_res, OUT / "residual_modules_minigrad")
save_graph(pt_res, OUT / "residual_modules_torch")
assert canonical(mg_res) == canonical(pt_res)

# %% [markdown]
# ## The stuck model of chapter 5
#
# Its `Sequential` is built inside `forward`. In the drawing its weights are **blue leaves
# without a name** (they are not in `named_parameters()`), and its nodes sit outside every
# module cluster (the tracker hooked only registered modules):

# %%
mg_stuck = draw("stuck", minigrad, modules=True)
pt_stuck = draw("stuck", torch, modules=True)
save_graph(mg_stuck, OUT / "stuck_minigrad")
assert canonical(mg_stuck) == canonical(pt_stuck)
unnamed = re.findall(r'label="\n \((\d+(?:, \d+)*)\)" fillcolor=lightblue', mg_stuck.source)
print("unnamed leaves (shapes):", unnamed)
assert sorted(unnamed) == ["8", "8, 4"]

# %% [markdown]
# ## In place: the graph is rewritten
#
# `ReLU(inplace=True)` modifies the output of the first `Linear`. Its tensor's `grad_fn`
# becomes `ReluBackward0`, stacked on `AddmmBackward0` (chapter 3). With `show_saved` and
# `show_versions`, each saved tensor shows the version it was saved at and the version it has
# now; a stale one would be red.

# %%
mg_inp = draw("inplace", minigrad, show_saved=True, show_versions=True)
pt_inp = draw("inplace", torch, show_saved=True, show_versions=True)
save_graph(mg_inp, OUT / "inplace_minigrad")
assert canonical(mg_inp) == canonical(pt_inp)

# %% [markdown]
# ## Same picture as torchviz
#
# On a PyTorch graph, minigrad's `make_dot` writes what torchviz writes (when torchviz is
# installed we check it here). What it fixes: the walk is iterative (graphs deeper than
# Python's recursion limit render), a tensor playing several roles is declared once, freed or
# stale saved tensors do not crash the drawing, and a missing `dot` program gives an install
# hint instead of a traceback. The walk is `_Builder.walk` in `minigrad/viz.py`:

# %%
quote(minigrad.viz._Builder.walk, "stack = [(root", "self.leave(fn)")
try:
    import torchviz
except ImportError:
    print("torchviz is not installed: skipping the torchviz comparison")
else:
    run = toy_models.run("cnn", torch)
    theirs = torchviz.make_dot(run["output"], params=run["params"])
    ours = make_dot(run["output"], params=run["params"])
    assert canonical(ours) == canonical(theirs)
    print("cnn: minigrad.viz.make_dot == torchviz.make_dot on the same PyTorch graph")

# %% [markdown]
# From the command line, `minigrad graph mlp --out graphs` draws a toy network in both
# libraries and writes an HTML page with the two pictures side by side
# (`minigrad graph --help` lists the toys and options).
#
# ## What to remember
#
# * `make_dot(output, params=dict(model.named_parameters()))` works on minigrad and torch.
# * Blue: leaves (named if in `params`), grey: backward nodes, green: outputs, orange: saved.
# * `modules=` clusters nodes by submodule; unregistered modules show up as unnamed leaves
#   outside every cluster.
