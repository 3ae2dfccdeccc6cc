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
# # Forward mode: dual numbers and Jacobian-vector products
#
# Reverse mode (chapters 1 to 12) runs the function forward, keeps a graph, then walks it
# backward from the output: one pass gives a row `v @ J`. Forward mode walks the other way, and
# walks *with* the function: every value carries its derivative along a chosen direction `v`, a
# *tangent*, and each op computes its output's tangent right after the output. One pass gives a
# column `J @ v`, with no graph and nothing saved. PyTorch has it as
# `torch.autograd.forward_ad`, and minigrad has the same API.
#
# The guess to test: *"forward mode is the cheaper one: no graph to keep, no second pass. It
# should be what training uses."* This chapter builds forward mode from dual numbers, traces
# tangents through a small function op by op, computes one Jacobian-vector product three ways
# and counts what each costs, and then counts why training uses reverse mode after all.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.ticker import FuncFormatter

import minigrad
from minigrad.parity import graph_nodes
from minigrad.tutorial import (
    output_dir,
    quote,
    same_error,
    save_figure,
    shown,
    side_by_side,
)

torch.set_num_threads(1)  # tiny tensors: one thread is the fastest
OUT = output_dir(13)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")

X = np.array([0.5, 1.0, 2.0])  # float64: the checks against NumPy's formulas are exact
V = np.array([1.0, 0.0, -1.0])  # the direction of every Jacobian-vector product below

# %% [markdown]
# ## Dual numbers by hand
#
# Take numbers of the form `a + b·ε`, where `ε` is a new symbol with `ε² = 0` (and `ε ≠ 0`).
# Multiplying two of them, the `ε²` term drops out:
#
# `(a + b·ε)(c + d·ε) = ac + (ad + bc)·ε`
#
# which is the product rule in the `ε` part. A smooth function extends to them by its Taylor
# series, which stops after the first-order term: `f(a + b·ε) = f(a) + f'(a)·b·ε`. So
# evaluating a function at `x + 1·ε` gives its value *and* its derivative, with no formula for
# the derivative of the whole function: each step only needs its own rule. Here is the whole
# idea in a few lines of plain Python, on `f(x) = exp(x · sin x) + x`:

# %%
class Dual:
    """a + b·eps with eps² = 0: ``a`` the value (primal), ``b`` the derivative (tangent)."""

    def __init__(self, a, b=0.0):
        self.a, self.b = a, b

    def __add__(self, other):
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.a + other.a, self.b + other.b)

    def __mul__(self, other):  # (a + b eps)(c + d eps) = ac + (ad + bc) eps
        other = other if isinstance(other, Dual) else Dual(other)
        return Dual(self.a * other.a, self.a * other.b + self.b * other.a)

    def sin(self):  # sin(a + b eps) = sin a + cos(a) b eps
        return Dual(np.sin(self.a), np.cos(self.a) * self.b)

    def exp(self):  # exp(a + b eps) = exp a + exp(a) b eps
        return Dual(np.exp(self.a), np.exp(self.a) * self.b)


def f(x):
    """exp(x · sin x) + x, written once for dual numbers, minigrad and torch tensors alike."""
    return (x * x.sin()).exp() + x


def f_prime(x):  # by hand, to check: (sin x + x cos x) exp(x sin x) + 1
    return (np.sin(x) + x * np.cos(x)) * np.exp(x * np.sin(x)) + 1


y = f(Dual(0.5, 1.0))
print(f"f(0.5 + eps) = {y.a:.6f} + {y.b:.6f} eps")
print(f"f(0.5) = {np.exp(0.5 * np.sin(0.5)) + 0.5:.6f}, f'(0.5) = {f_prime(0.5):.6f}")
assert np.isclose(y.b, f_prime(0.5), rtol=1e-12)

# %% [markdown]
# `torch.autograd.forward_ad` is the same idea on tensors. Inside a `dual_level()`,
# `make_dual(primal, tangent)` makes the tensor `primal + tangent·ε`, every op carries the `ε`
# part along, and `unpack_dual(result)` gives both parts back:

# %%
def dual_of_f(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        x = fwAD.make_dual(lib.tensor(0.5, dtype=lib.float64),
                           lib.tensor(1.0, dtype=lib.float64))
        primal, tangent = fwAD.unpack_dual(f(x))
    return {"primal": primal, "tangent": tangent}


mg, pt = side_by_side(dual_of_f)
assert np.isclose(mg["tangent"].item(), y.b, rtol=1e-12)

# %% [markdown]
# ## `make_dual` and `unpack_dual`
#
# A dual tensor is not a new kind of tensor. `make_dual` returns a *view* of the primal (its
# `_base` is the primal) that carries the tangent, which `repr` shows as `tangent=`. The
# tangent has the primal's shape; `unpack_dual` returns a named tuple `(primal, tangent)`.
# Nothing here requires grad and no graph is recorded: a tangent is not a `.grad`, and
# `no_grad()`, which stops the recording of graphs, does not stop tangents. Leaving the level
# deletes every tangent made in it.

# %%
def what_a_dual_is(lib):
    fwAD = lib.autograd.forward_ad
    x, t = lib.tensor(X), lib.tensor(V)
    with fwAD.dual_level() as level:
        d = fwAD.make_dual(x, t)
        unpacked = fwAD.unpack_dual(d)
        out = {"level": level, "repr": repr(d).replace("torch.", "").replace("minigrad.", ""),
               "d is x": d is x, "d._base is x": d._base is x,
               "unpacked type": type(unpacked).__name__,
               "tangent is t": unpacked.tangent is t,
               "x itself has a tangent": fwAD.unpack_dual(x).tangent is not None,
               "requires_grad, grad_fn": (d.requires_grad, d.grad_fn)}
        y = d.sin()
        out["sin(d): grad_fn"] = y.grad_fn
        out["sin(d): tangent"] = fwAD.unpack_dual(y).tangent
        with lib.no_grad():
            out["under no_grad: tangent"] = fwAD.unpack_dual(d.sin()).tangent
    out["after the level: tangent"] = fwAD.unpack_dual(y).tangent
    return out


mg, pt = side_by_side(what_a_dual_is)
assert mg["d._base is x"] and mg["tangent is t"] and mg["sin(d): grad_fn"] is None
assert np.allclose(mg["sin(d): tangent"].numpy(), np.cos(X) * V)
assert np.allclose(mg["under no_grad: tangent"].numpy(), np.cos(X) * V)

# %% [markdown]
# ## Tangents, op by op
#
# `f` is four ops. Each one computes its output and, right after, its output's tangent from
# its inputs' primals and tangents, with the op's *forward-derivative formula*. For an
# elementwise op with one input it is the derivative times the tangent; for `*` it is the
# product rule:
#
# | op | output | its tangent |
# |---|---|---|
# | `s = x.sin()` | `sin x` | `ds = cos(x) · dx` |
# | `p = x * s` | `x · s` | `dp = dx · s + x · ds` |
# | `e = p.exp()` | `exp p` | `de = e · dp` |
# | `y = e + x` | `e + x` | `dy = de + dx` |
#
# We run the steps one at a time on a vector `x` with the tangent `v`, print each
# intermediate's primal and tangent, and check each tangent against its row of the table,
# computed with NumPy from the previous rows:

# %%
def traced(lib):
    fwAD = lib.autograd.forward_ad
    steps = {}
    with fwAD.dual_level():
        x = fwAD.make_dual(lib.tensor(X), lib.tensor(V))
        s = x.sin()
        p = x * s
        e = p.exp()
        y = e + x
        for name, value in (("x", x), ("s = sin x", s), ("p = x * s", p), ("e = exp p", e),
                            ("y = e + x", y)):
            primal, tangent = fwAD.unpack_dual(value)
            steps[name + ": primal"] = primal
            steps[name + ": tangent"] = tangent
        steps["graph recorded"] = y.grad_fn
    return steps


mg, pt = side_by_side(traced, rtol=1e-12, atol=1e-12)
s, p = np.sin(X), X * np.sin(X)
ds = np.cos(X) * V
dp = V * s + X * ds
de = np.exp(p) * dp
for name, expected in (("s = sin x", ds), ("p = x * s", dp), ("e = exp p", de),
                       ("y = e + x", de + V)):
    assert np.allclose(mg[name + ": tangent"].numpy(), expected, rtol=1e-12), name
assert np.allclose(mg["y = e + x: tangent"].numpy(), f_prime(X) * V)

# %% [markdown]
# `f` is elementwise, so `y`'s tangent is `f'(x) · v`, the dual-number result of the first
# section, three times at once. Note what forward mode did *not* do: no op recorded a node
# (`grad_fn` is None), and no op saved anything for later. Once `p`'s tangent is computed, `s`
# and its tangent could be freed. Forward mode's memory is that of the forward pass itself,
# where reverse mode keeps every saved tensor until backward (chapter 10).
#
# In minigrad the formulas live next to the backward formulas, as `jvp` methods of the backward
# nodes. `*`'s is the product rule; a one-input elementwise op applies its *backward* formula to
# the tangent (for a real elementwise op the Jacobian is diagonal, so `v @ J` and `J @ v` are
# the same product):

# %%
quote(minigrad._ops.pointwise.MulBackward0.jvp)
quote(minigrad._ops.pointwise._Unary.jvp)

# %% [markdown]
# `graph.record`, the function every op calls to record its node, calls them when a level is
# active (`forward_ad.propagate`): the formulas run on the primals, with forward AD switched
# off inside them.

# %%
quote(minigrad.autograd.forward_ad.propagate, "tangents = [None", "if not any(")
quote(minigrad.autograd.forward_ad.propagate, "result = node_cls.jvp(")
quote(minigrad.autograd.forward_ad.propagate, "for o, g, kept in zip(outs", "set_fw_grad(o, g)")

# %% [markdown]
# ## Views and in-place ops keep their tangents
#
# Chapter 3 showed that a view shares its base's memory, and an in-place op on the view changes
# the base. Tangents follow the same rules: a view of a dual tensor gets *the same view of the
# base's tangent* (no formula needed: its `_base` is the base's tangent), and an in-place op
# writes its new tangent into the old one, so a change made through a view reaches the base's
# tangent too. Copying a dual tensor into a plain buffer in place gives the buffer a tangent.

# %%
def views_and_inplace(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        base = fwAD.make_dual(lib.zeros(4, dtype=lib.float64),
                              lib.arange(4, dtype=lib.float64))
        view = base[1:3]
        base_t, view_t = fwAD.unpack_dual(base).tangent, fwAD.unpack_dual(view).tangent
        out = {"view's tangent": view_t, "its _base: base's tangent": view_t._base is base_t,
               "base's tangent _version": base_t._version}
        x = fwAD.make_dual(lib.tensor([2.0, 3.0], dtype=lib.float64),
                           lib.tensor([1.0, 1.0], dtype=lib.float64))
        view.add_(x)  # d(view) += d(x), written into the base's tangent
        out["after view.add_(x): base"] = base
        out["base's tangent"] = fwAD.unpack_dual(base).tangent
        out["same tensor as before"] = fwAD.unpack_dual(base).tangent is base_t
        out["its _version"] = base_t._version
        buffer = lib.zeros(4, dtype=lib.float64)
        buffer[2:].copy_(x * x)  # a plain tensor gets a (zero) tangent, then its slice
        out["buffer after copy_"] = buffer
        out["buffer's tangent"] = fwAD.unpack_dual(buffer).tangent
    return out


mg, pt = side_by_side(views_and_inplace)
assert mg["its _base: base's tangent"] and mg["same tensor as before"]
assert np.allclose(mg["base's tangent"].numpy(), [0.0, 2.0, 3.0, 3.0])
assert np.allclose(mg["buffer's tangent"].numpy(), [0.0, 0.0, 4.0, 6.0])

# %% [markdown]
# ## One Jacobian-vector product, three ways
#
# Now a function that mixes its inputs: `g(x) = exp(x[:, None] * sin(x)[None, :])`, from R^3
# to R^(3x3) (`g(x)[i, j] = exp(x_i · sin x_j)`), so its Jacobian has 27 entries, shaped
# `(3, 3, 3)`. We want `J @ v`, in three ways:
#
# 1. **forward mode**: one pass of `g` on `make_dual(x, v)`;
# 2. **the double-backward trick**: `autograd.functional.jvp`, which PyTorch and minigrad build
#    from two reverse-mode passes (chapter 11 takes it apart): a backward pass through `g`'s
#    graph with `create_graph=True`, then one through the graph that pass recorded;
# 3. **the full Jacobian**, `autograd.functional.jacobian` (one backward pass per *output*
#    element: 9), times `v`.
#
# To count the cost, `g` counts its own calls and puts a node pre-hook (chapter 7) on every
# node of the graph it records: a hook fires each time a backward pass runs that node. Each
# backward node costs about as much as its op did in the forward pass.

# %%
def hook_nodes(out, log) -> int:
    """Put a pre-hook logging its node's name on every node of ``out``'s graph (leaves'
    ``AccumulateGrad`` aside); return how many there are: the ops that recorded them."""
    nodes = [n for n in graph_nodes([out.grad_fn]) if "AccumulateGrad" not in type(n).__name__]
    for node in nodes:
        node.register_prehook(lambda grads, n=node: log.append(n.name()))
    return len(nodes)


def counted(lib, calls, nodes_run):
    """``g``, counting its calls and the backward nodes run through the graph it records."""

    def g(x):
        calls.append(1)
        out = (x[:, None] * x[None, :].sin()).exp()
        if out.grad_fn is not None:
            hook_nodes(out, nodes_run)
        return out

    return g


def three_ways(lib):
    F, fwAD = lib.autograd.functional, lib.autograd.forward_ad
    x, v = lib.tensor(X), lib.tensor(V)
    result, costs = {}, {}
    for way in ("forward mode", "double backward", "jacobian @ v"):
        calls, nodes_run = [], []
        g = counted(lib, calls, nodes_run)
        if way == "forward mode":
            with fwAD.dual_level():
                jv = fwAD.unpack_dual(g(fwAD.make_dual(x, v))).tangent
        elif way == "double backward":
            jv = F.jvp(g, x, v)[1]
        else:
            J = F.jacobian(g, x)
            result["jacobian's shape"] = tuple(J.shape)
            jv = J @ v
        result[way] = jv
        costs[way] = (len(calls), len(nodes_run))
    result["(calls of g, backward nodes of g run)"] = costs
    return result


mg, pt = side_by_side(three_ways, rtol=1e-12, atol=1e-12)
assert np.allclose(mg["double backward"].numpy(), mg["forward mode"].numpy(), rtol=1e-12)
assert np.allclose(mg["jacobian @ v"].numpy(), mg["forward mode"].numpy(), rtol=1e-12)
COSTS = mg["(calls of g, backward nodes of g run)"]
assert COSTS["forward mode"] == (1, 0)
assert COSTS["jacobian @ v"][1] == 9 * COSTS["double backward"][1]  # 9 passes of 5 nodes

# %% [markdown]
# The same `J @ v` all three ways, and very different bills:
#
# * **forward mode**: one call of `g`, no graph, no backward node. Each of `g`'s five ops also
#   computed a tangent (the two views for free: views of the tangent), so the pass cost about
#   twice a plain forward pass.
# * **double backward**: one forward pass *recording a graph*, then two backward passes: the
#   hooks count the first one's 5 nodes. The second pass runs through the graph that the first
#   one recorded (its formulas, `grad * cos(x)` and so on, became ops with nodes of their own),
#   which the hooks on `g`'s graph do not see. Three passes' work for one column, and every
#   backward formula must be differentiable.
# * **jacobian @ v**: 9 backward passes of 5 nodes, one per output element, to build all 27
#   entries, and then a matrix product that throws away most of the information.
#
# The second pass of the double-backward trick, counted by doing the trick by hand (as chapter
# 11 does) with hooks on the graph the first pass records. Of its nodes, the second pass runs
# the 9 that lead to `u`, the seed it differentiates by:

# %%
def second_pass(lib):
    calls, nodes_run = [], []
    x = lib.tensor(X, requires_grad=True)
    out = counted(lib, calls, nodes_run)(x)
    u = lib.zeros_like(out, requires_grad=True)
    (gu,) = lib.autograd.grad(out, x, grad_outputs=u, create_graph=True)
    first = list(nodes_run)
    second = []
    recorded = hook_nodes(gu, second)
    (jv,) = lib.autograd.grad(gu, u, grad_outputs=lib.tensor(V))
    return {"first pass runs": first, "nodes in the graph it recorded": recorded,
            "second pass runs": sorted(second), "J @ v": jv}


mg, pt = side_by_side(second_pass, rtol=1e-12, atol=1e-12)
assert len(mg["first pass runs"]) == COSTS["double backward"][1]
assert len(mg["second pass runs"]) == 9
assert np.allclose(mg["J @ v"].numpy(), three_ways(minigrad)["forward mode"].numpy())

# %% [markdown]
# ## Why training uses reverse mode
#
# One forward-mode pass gives one column of the Jacobian, `J @ v`; one backward pass gives one
# row, `v @ J`. A training loss is one number computed from `n` parameters: its Jacobian is a
# single row of `n` entries, the gradient. Reverse mode gets it in one backward pass. Forward
# mode needs one pass per parameter, with `v` each unit vector in turn.
#
# To see it, a scalar function of `n` weights: a tiny recurrent net with one weight per step,
# `h = tanh(w_i · h + 0.5)` starting from `h = 1`, whose loss is the last `h`:

# %%
def rnn_loss(lib, w):
    h = lib.ones((), dtype=w.dtype)
    for i in range(w.shape[0]):
        h = (h * w[i] + 0.5).tanh()
    return h


def gradient_both_ways(lib, n):
    fwAD = lib.autograd.forward_ad
    w0 = lib.tensor(np.linspace(0.5, 1.5, n))
    calls, nodes_run = [], []

    def loss_fn(w):
        calls.append(1)
        return rnn_loss(lib, w)

    # reverse mode: one forward pass recording the graph, one backward pass
    w = w0.clone().requires_grad_()
    loss = loss_fn(w)
    ops = hook_nodes(loss, nodes_run)
    loss.backward()
    reverse = (len(calls), len(nodes_run))
    # forward mode: one dual pass per weight, each giving one entry of the gradient
    calls.clear()
    columns = []
    with fwAD.dual_level():
        for i in range(n):
            e_i = lib.zeros(n, dtype=w0.dtype)
            e_i[i] = 1.0
            columns.append(fwAD.unpack_dual(loss_fn(fwAD.make_dual(w0, e_i))).tangent)
    return {"reverse: w.grad": w.grad, "forward: n tangents": lib.stack(columns),
            "ops in one pass": ops, "reverse: calls, nodes run": reverse,
            "forward: calls, nodes run": (len(calls), 0)}


mg, pt = side_by_side(gradient_both_ways, 6, rtol=1e-12, atol=1e-12)
assert np.allclose(mg["reverse: w.grad"].numpy(), mg["forward: n tangents"].numpy(), rtol=1e-12)
assert mg["reverse: calls, nodes run"] == (1, mg["ops in one pass"])
assert mg["forward: calls, nodes run"] == (6, 0)

# %% [markdown]
# The same gradient. Reverse mode: one call of the loss recording `k` = 24 ops (four per step:
# `w[i]`, `*`, `+`, `tanh`), one backward pass running the 24 nodes they recorded. Forward
# mode: 6 calls, one per weight, each computing 24 primals and their tangents. Counting one
# unit of work per op, per tangent formula and per backward node (each about one op's work),
# reverse mode costs `2k` whatever `n` is, forward mode `n · 2k`, and since `k` itself grows
# with `n` here, reverse mode grows like `n` and forward mode like `n²`.
#
# The other way round, forward mode wins: a function of *one* input with `m` outputs, such as
# a curve sampled at `m` points, `c(t) = sin(t · [1, 2, ..., m])`. Its Jacobian is a single
# column: one dual pass gives all of it, while reverse mode needs one backward pass per output
# (that is what `jacobian` does).

# %%
def curve(lib, t, m):
    return (t * lib.arange(1, m + 1, dtype=lib.float64)).sin()


def curve_derivative(lib, m):
    F, fwAD = lib.autograd.functional, lib.autograd.forward_ad
    t0 = lib.tensor(0.3, dtype=lib.float64)
    calls, nodes_run, ops = [], [], []

    def counted_curve(t):
        calls.append(1)
        out = curve(lib, t, m)
        if out.grad_fn is not None:
            ops.append(hook_nodes(out, nodes_run))
        return out

    with fwAD.dual_level():
        forward = fwAD.unpack_dual(counted_curve(fwAD.make_dual(t0, lib.ones_like(t0)))).tangent
    forward_cost = (len(calls), len(nodes_run))
    calls.clear()
    reverse = F.jacobian(counted_curve, t0)
    return {"forward mode: dc/dt": forward, "jacobian: dc/dt": reverse, "ops in one pass": ops[0],
            "forward: calls, nodes run": forward_cost,
            "reverse: calls, nodes run": (len(calls), len(nodes_run))}


mg, pt = side_by_side(curve_derivative, 5, rtol=1e-12, atol=1e-12)
K = np.arange(1, 6)
assert np.allclose(mg["forward mode: dc/dt"].numpy(), K * np.cos(0.3 * K))
assert mg["reverse: calls, nodes run"] == (1, 5 * mg["ops in one pass"])  # 5 backward passes

# %% [markdown]
# `t * [1, ..., m]` and `sin` are two ops, whatever `m` is: the curve's one dual pass costs 4
# units; `jacobian` runs 5 backward passes through the 2 nodes. Here is the work of both cases
# as `n` (or `m`) grows, measured in both libraries (the counts are asserted equal, then
# drawn): reverse mode is `calls · k + nodes run`, forward mode `calls · 2k`.

# %%
def work(lib, size):
    """Units of work (ops + tangent formulas + backward nodes) of the whole derivative in each
    mode, for the RNN loss of ``size`` weights and for the curve of ``size`` points."""
    loss, crv = gradient_both_ways(lib, size), curve_derivative(lib, size)
    out = {}
    for case, m in (("scalar loss", loss), ("curve", crv)):
        k = m["ops in one pass"]
        calls, nodes = m["reverse: calls, nodes run"]
        out[f"{case}: reverse"] = calls * k + nodes
        out[f"{case}: forward"] = m["forward: calls, nodes run"][0] * 2 * k
    return out


SIZES = [1, 2, 4, 8, 16, 32]
counts = {}
for size in SIZES:
    mg_counts, pt_counts = work(minigrad, size), work(torch, size)
    assert mg_counts == pt_counts, (mg_counts, pt_counts)
    counts[size] = mg_counts
print("  size  " + "  ".join(f"{k:>21}" for k in counts[1]))
for size in SIZES:
    print(f"  {size:>4}  " + "  ".join(f"{v:>21}" for v in counts[size].values()))
assert all(counts[n]["scalar loss: reverse"] < counts[n]["scalar loss: forward"]
           for n in SIZES if n > 1)
assert all(counts[n]["curve: forward"] < counts[n]["curve: reverse"] for n in SIZES if n > 1)
assert counts[1]["scalar loss: forward"] == counts[1]["scalar loss: reverse"]  # 1 in, 1 out

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for ax, case, xlabel in ((axes[0], "scalar loss", "n inputs (1 output)"),
                         (axes[1], "curve", "m outputs (1 input)")):
    for mode, style in (("reverse", "o-"), ("forward", "s--")):
        ax.plot(SIZES, [counts[n][f"{case}: {mode}"] for n in SIZES], style,
                label=f"{mode} mode")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.set(xticks=SIZES, xticklabels=[str(n) for n in SIZES], xlabel=xlabel,
           title=f"{case}: the whole derivative")
    ax.legend()
axes[0].set_ylabel("ops + tangents + backward nodes")
save_figure(fig, OUT / "forward_vs_reverse_cost.png")

# %% [markdown]
# So the guess is half right. Forward mode keeps no graph and has no second pass, and for a
# derivative with few inputs and many outputs (a curve, a trajectory of a simulation with a few
# parameters, a column of a Jacobian) it is the cheaper mode. But a training loss is the other
# case, as lopsided as it gets: millions of inputs, one output. Reverse mode gives the whole
# gradient for the price of about two forward passes; forward mode would need one pass per
# parameter. The price of reverse mode is memory: the graph and its saved tensors.
#
# ## Hessian-vector products: reverse over forward
#
# The two modes combine. Take a scalar function `E` (chapter 11's energy,
# `E(a) = a0³ + a1³ + a0·a1`, `H = [[6 a0, 1], [1, 6 a1]]`) and run forward mode on an `a`
# that requires grad. The tangent of `E` is `∇E · v`, a number, and since the formulas ran with
# grad mode on, it was recorded with a graph (its `grad_fn` is the `AddBackward0` of the
# tangents' sum). A backward pass from it gives `∇(∇E · v) = H @ v`: one dual forward pass and
# one backward pass, where `autograd.functional.hvp` uses three backward passes (chapter 11).

# %%
def energy(a):
    return a[0] * a[0] * a[0] + a[1] * a[1] * a[1] + a[0] * a[1]


def reverse_over_forward(lib):
    fwAD = lib.autograd.forward_ad
    a = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
    v = lib.tensor([1.0, 2.0], dtype=lib.float64)
    with fwAD.dual_level():
        primal, directional = fwAD.unpack_dual(energy(fwAD.make_dual(a, v)))
    (hv,) = lib.autograd.grad(directional, a)
    return {"E(a)": primal, "tangent: grad E . v": directional,
            "its grad_fn": directional.grad_fn.name(), "H @ v (reverse over forward)": hv,
            "H @ v (functional.hvp)": lib.autograd.functional.hvp(energy, a.detach(), v)[1]}


mg, pt = side_by_side(reverse_over_forward, rtol=1e-12, atol=1e-12)
H_TRUE = np.array([[6.0, 1.0], [1.0, -12.0]])
assert np.allclose(mg["H @ v (reverse over forward)"].numpy(), H_TRUE @ [1.0, 2.0])
assert np.allclose(mg["H @ v (functional.hvp)"].numpy(), H_TRUE @ [1.0, 2.0])
assert np.isclose(mg["tangent: grad E . v"].item(), np.array([3 + -2, 12 + 1]) @ [1.0, 2.0])

# %% [markdown]
# ## The errors a learner hits
#
# Forward AD has one level at a time: PyTorch does not support nesting `dual_level()`.
# `make_dual` needs an active level, a tangent of exactly the primal's shape (no
# broadcasting), and floating-point tensors; a tensor that is already dual cannot be made dual
# again.

# %%
def nested_levels(lib):
    with lib.autograd.forward_ad.dual_level():
        with lib.autograd.forward_ad.dual_level():
            pass


def outside_a_level(lib):
    lib.autograd.forward_ad.make_dual(lib.tensor(X), lib.tensor(V))


def tangent_shape(lib):
    with lib.autograd.forward_ad.dual_level():
        lib.autograd.forward_ad.make_dual(lib.zeros(2, 3), lib.ones(3))  # would broadcast


def integer_primal(lib):
    with lib.autograd.forward_ad.dual_level():
        lib.autograd.forward_ad.make_dual(lib.arange(3), lib.ones(3))


def dual_twice(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(X), lib.tensor(V))
        fwAD.make_dual(d, lib.tensor(V))


same_error(nested_levels, "Nested forward mode AD is not supported at the moment")
same_error(outside_a_level, "no level exists, make sure to enter_dual_level() first")
same_error(tangent_shape, ["different size than that of the original Tensor",
                           "Tensor is of size [2, 3] while the given forward gradient is of "
                           "size [3]"])
same_error(integer_primal, "Expected primal to be floating point or complex")
same_error(dual_twice, "already has a forward gradient at the same level")

# %% [markdown]
# The quietest mistake raises nothing: reading a tangent after the level is over. The tangents
# were deleted when the level closed, so `unpack_dual` gives `None`, and the primal is the
# result as if no tangent had ever been there. Unpack inside the `with` block.

# %%
def read_too_late(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        y = f(fwAD.make_dual(lib.tensor(X), lib.tensor(V)))
        inside = fwAD.unpack_dual(y).tangent
    return {"tangent read inside": inside, "tangent read after": fwAD.unpack_dual(y).tangent,
            "y after": y}


mg, pt = side_by_side(read_too_late)
assert mg["tangent read after"] is None and mg["tangent read inside"] is not None

# %% [markdown]
# ## What to remember
#
# * Forward mode is dual numbers: every value carries a tangent, every op applies its
#   forward-derivative formula right away. `make_dual(x, v)` in, `unpack_dual(y).tangent` out,
#   inside one `dual_level()`; it is `J @ v` after one pass, with no graph and nothing saved.
# * Views share their base's tangent; in-place ops write into it.
# * `J @ v` three ways: forward mode (one pass), the double-backward trick
#   (`autograd.functional.jvp`: one forward and two backward passes), or the full Jacobian (one
#   backward pass per output) times `v`.
# * One pass of forward mode gives a column, one of reverse mode a row. A loss has one output
#   and many inputs: reverse mode wins. Few inputs and many outputs: forward mode wins.
# * Reverse over forward gives a Hessian-vector product in one forward and one backward pass.
# * More: the concept page on forward mode; chapter 11 for the functional API.
