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
# # Autograd as a function: vjp, jvp, Jacobians and Hessians
#
# The guess: *"backward gives `v @ J`, a row of the Jacobian at a time; for `J @ v`, a column,
# you need forward-mode AD, which is another machine."* `autograd.functional` (PyTorch's
# `torch.autograd.functional`) takes a Python function and a point and returns its derivatives
# there: `vjp`, `jvp`, `jacobian`, `hessian`, `hvp`, `vhp`. All of them, `jvp` included, are a
# few calls of `autograd.grad`, reverse mode only. This chapter counts the backward passes,
# takes `jvp` apart into its two backward passes and draws the graph that makes it work.

# %%
import re

import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad.parity import graph_trace
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

OUT = output_dir(11)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")

W = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]], dtype=np.float32)
X = np.array([0.5, 1.0, 2.0], dtype=np.float32)
J_TRUE = W * np.cos(X)  # d(W @ sin(x))/dx: row i, column j is W[i, j] * cos(x[j])


def setup(lib):
    """``f(x) = W @ sin(x)``, from R^3 to R^2, and a counter of the backward passes through it
    (a hook on ``sin(x)`` fires once per pass)."""
    passes = []

    def f(x):
        s = x.sin()
        s.register_hook(lambda grad: passes.append(1))
        return lib.tensor(W) @ s

    return f, lib.tensor(X), passes


# %% [markdown]
# ## `vjp` and `jacobian`: rows, one backward pass each
#
# `vjp(f, x, v)` returns `f(x)` and `v @ J`: one backward pass seeded with `v`. `jacobian`
# needs every row, so it runs one backward pass per output element, seeded with each unit
# vector in turn; the result has the shape `f(x).shape + x.shape`.

# %%
def rows(lib):
    F = lib.autograd.functional
    f, x, passes = setup(lib)
    out, vj = F.vjp(f, x, lib.tensor([1.0, -1.0]))
    vjp_passes = len(passes)
    J = F.jacobian(f, x)
    return {"f(x)": out, "v @ J": vj, "vjp: backward passes": vjp_passes, "jacobian": J,
            "its shape": tuple(J.shape), "jacobian: backward passes": len(passes) - vjp_passes}


mg, pt = side_by_side(rows)
assert np.allclose(mg["jacobian"].numpy(), J_TRUE, atol=1e-6)
assert np.allclose(mg["v @ J"].numpy(), np.array([1.0, -1.0]) @ J_TRUE, atol=1e-6)
assert (mg["vjp: backward passes"], mg["jacobian: backward passes"]) == (1, 2)
assert mg["its shape"] == (2, 3)

# %% [markdown]
# ## `jvp`: a column from two backward passes
#
# `jvp(f, x, v)` returns `J @ v`, yet the counter sees only one pass through `f`'s graph:

# %%
def column(lib):
    f, x, passes = setup(lib)
    out, jv = lib.autograd.functional.jvp(f, x, lib.tensor([1.0, 0.0, -1.0]))
    return {"J @ v": jv, "backward passes through f": len(passes)}


mg, pt = side_by_side(column)
assert np.allclose(mg["J @ v"].numpy(), J_TRUE @ np.array([1.0, 0.0, -1.0]), atol=1e-6)
assert mg["backward passes through f"] == 1

# %% [markdown]
# The double-backward trick, done by hand:
#
# 1. one backward pass through `f`, seeded with `u`, a tensor shaped like `f(x)` that requires
#    grad, with `create_graph=True` (chapter 4): the result is `g = u @ J`, *and its graph*, in
#    which `u` is a leaf;
# 2. `g` is linear in `u`, its Jacobian with respect to `u` is `J` transposed, so a backward
#    pass from `g` to `u` seeded with `v` gives `v @ J.T = J @ v`. That pass runs through the
#    graph of the first backward, not through `f`'s.
#
# The value of `u` never matters (`jvp` uses zeros); only its graph does.

# %%
def by_hand(lib, u_value):
    f, x, passes = setup(lib)
    x.requires_grad_()
    out = f(x)
    u = lib.full_like(out, u_value, requires_grad=True)
    (g,) = lib.autograd.grad(out, x, grad_outputs=u, create_graph=True)
    (jv,) = lib.autograd.grad(g, u, grad_outputs=lib.tensor([1.0, 0.0, -1.0]))
    return {"u": u, "g = u @ J": g, "graph of g": graph_trace(g), "J @ v": jv,
            "passes through f": len(passes)}


for u_value in (0.0, 5.0):
    mg, pt = side_by_side(by_hand, u_value)
    assert np.allclose(mg["J @ v"].numpy(), J_TRUE @ np.array([1.0, 0.0, -1.0]), atol=1e-6)
    assert mg["passes through f"] == 1

# %% [markdown]
# Here is the graph of `g`, drawn by `make_dot` as in chapter 8. `SinBackward0`'s formula
# (`grad * cos(x)`) became a `MulBackward0` of `CosBackward0` and of the gradient arriving from
# `MvBackward0` (`W.T @ u`), which leads to `u`'s `AccumulateGrad`. The second backward pass
# walks this graph from `g` down to `u`. Both libraries draw the same picture:

# %%
def canonical(dot) -> str:
    """DOT source with node ids (different on every run) renamed N0, N1... (as in chapter 8)."""
    names = {}
    return re.sub(r"\b\d{6,}\b", lambda m: names.setdefault(m.group(0), f"N{len(names)}"),
                  dot.source)


dots = {}
for lib in (minigrad, torch):
    f, x, _ = setup(lib)
    x.requires_grad_()
    out = f(x)
    u = lib.zeros_like(out, requires_grad=True)
    (g,) = lib.autograd.grad(out, x, grad_outputs=u, create_graph=True)
    dots[lib.__name__] = make_dot(g, params={"u": u, "x": x})
save_graph(dots["minigrad"], OUT / "jvp_double_backward")
assert canonical(dots["minigrad"]) == canonical(dots["torch"])
assert "label=MvBackward0" in dots["minigrad"].source

# %% [markdown]
# In minigrad, `jvp` is exactly these two calls (`dummies` are the zeros `u`). Two backward
# passes for one column: PyTorch's documentation suggests forward-mode AD where `jvp` must be fast.

# %%
quote(minigrad.autograd.functional.jvp, "dummies = tuple(zeros_like", "grads = _grad(")

# %% [markdown]
# ## Second order: `hessian`, `hvp`, `vhp`
#
# For a scalar function, `hessian` is the `jacobian` of the gradient; `vhp` is one backward
# pass through the gradient's graph (`v @ H`); `hvp` applies the trick once more (`H @ v`), as
# minigrad's `_second_order` (quoted below) shows.
# The energy `E(a) = sum(a^3) + a0 * a1` has `H = [[6 a0, 1], [1, 6 a1]]`, symmetric, so both
# products agree:

# %%
def energy(a):
    return (a ** 3).sum() + a[0] * a[1]


def second_order(lib):
    F = lib.autograd.functional
    a, v = lib.tensor([1.0, -2.0]), lib.tensor([1.0, 2.0])
    gradient = lambda t: lib.autograd.grad(energy(t), t, create_graph=True)[0]  # noqa: E731
    return {"hessian": F.hessian(energy, a), "jacobian of the gradient": F.jacobian(gradient, a),
            "hvp: H @ v": F.hvp(energy, a, v)[1], "vhp: v @ H": F.vhp(energy, a, v)[1]}


mg, pt = side_by_side(second_order)
H_TRUE = np.array([[6.0, 1.0], [1.0, -12.0]])
assert np.allclose(mg["hessian"].numpy(), H_TRUE)
assert np.allclose(mg["jacobian of the gradient"].numpy(), H_TRUE)
assert np.allclose(mg["hvp: H @ v"].numpy(), H_TRUE @ [1.0, 2.0])
assert np.allclose(mg["vhp: v @ H"].numpy(), mg["hvp: H @ v"].numpy())

fig, axes = plt.subplots(1, 2, figsize=(7, 3))
for ax, (title, m) in zip(axes, [("jacobian of W @ sin(x)", rows(minigrad)["jacobian"]),
                                 ("hessian of E at (1, -2)", mg["hessian"])]):
    top = np.abs(m.numpy()).max()
    ax.imshow(m.numpy(), cmap="coolwarm", vmin=-top, vmax=top)
    for (i, j), value in np.ndenumerate(m.numpy()):
        ax.text(j, i, f"{value:.2f}".replace("-0.00", "0.00"), ha="center", va="center")
    ax.set(title=title, xticks=range(m.shape[1]), yticks=range(m.shape[0]),
           xlabel="input index", ylabel="output index" if "jacobian" in title else "input index")
save_figure(fig, OUT / "jacobian_and_hessian.png")
quote(minigrad.autograd.functional._second_order, "jac = _grad(outputs", "\"double_back\")")

# %% [markdown]
# ## `create_graph`: results you can differentiate
#
# `func` never sees your tensors: each input is replaced by a fresh leaf
# (`inp.detach().requires_grad_()`), and the results come back detached. So your leaves get
# no `.grad`. With `create_graph=True` an input that requires grad is passed through a view
# instead (a `ViewBackward0`), the results keep their graph, and a backward through them
# reaches your leaves. The Jacobian of a linear function is a constant: it has no graph to keep.

# %%
def with_graph(lib):
    F = lib.autograd.functional
    a, seen = lib.tensor([1.0, -2.0], requires_grad=True), []

    def cube(t):  # J = diag(3 t^2); records what it is given: a leaf, or a view of a
        seen.append("a itself" if t is a else t.grad_fn.name() if t.grad_fn else "a new leaf")
        return t ** 3

    plain = F.jacobian(cube, a)
    out = {"plain: func is given": seen[-1], "J requires_grad": plain.requires_grad,
           "a.grad after": a.grad}
    kept = F.jacobian(cube, a, create_graph=True)
    kept.sum().backward()  # d(3 a0^2 + 3 a1^2)/da = 6 a
    linear = F.jacobian(lambda t: t * 2, a, create_graph=True)
    return out | {"create_graph: func is given": seen[-1], "J requires_grad ": kept.requires_grad,
                  "then a.grad": a.grad, "linear: requires_grad": linear.requires_grad}


mg, pt = side_by_side(with_graph)
assert (mg["plain: func is given"], mg["create_graph: func is given"]) == ("a new leaf",
                                                                           "ViewBackward0")
assert mg["a.grad after"] is None and not mg["J requires_grad"] and mg["J requires_grad "]
assert np.allclose(mg["then a.grad"].numpy(), [6.0, -12.0]) and not mg["linear: requires_grad"]

# %% [markdown]
# ## `strict`: zeros, or an error
#
# When an output does not depend on an input, its block of the Jacobian is zeros (which is
# mathematically right). `strict=True` makes that an error, and also an output that does not
# require grad, and, with `create_graph=True`, a Jacobian that does not depend on the input:

# %%
def independent(lib, strict=False, create_graph=False, func=lambda p, q: p * 2):
    a = lib.tensor([1.0, -2.0])
    J = lib.autograd.functional.jacobian(func, (a, a), strict=strict, create_graph=create_graph)
    return {"J for p": J[0], "J for q": J[1]}


mg, pt = side_by_side(independent)
assert not mg["J for q"].numpy().any()
same_error(independent, "is independent of input 1. This is not allowed in strict mode",
           strict=True)
same_error(independent, "does not require gradients", strict=True,
           func=lambda p, q: p.detach())
same_error(independent, "jacobian of the user-provided function is independent of input 0",
           strict=True, create_graph=True)

# %% [markdown]
# ## What to remember
#
# * `vjp`: `v @ J`, one backward pass. `jacobian`: one backward pass per output element.
# * `jvp`: `J @ v` from reverse mode alone, by differentiating a backward pass
#   (`create_graph=True`) with respect to its seed `u`; `hvp` does the same on a gradient.
# * Inputs are replaced by fresh leaves: your `.grad` is untouched and results are detached,
#   unless `create_graph=True`.
# * `strict=True` turns "independent of input i" (zeros) into an error.
# * More: the concept page on the functional API; chapter 4 for `create_graph`.
