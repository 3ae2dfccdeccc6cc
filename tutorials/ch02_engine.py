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
# # The engine: chain rule, order, accumulation, broadcasting
#
# `backward()` walks the graph of chapter 1 from the output to the leaves, and each node turns
# the gradient of its output into gradients of its inputs: the chain rule, applied node by
# node. That much is what everyone expects. This chapter tests three guesses about the details:
# the order in which nodes run, what happens to `.grad` when gradients meet, and the shape of a
# gradient after broadcasting.

# %%
import numpy as np
import torch

import minigrad
from minigrad.parity import graph_trace
from minigrad.tutorial import (
    output_dir,
    quote,
    same_error,
    save_backward_page,
    save_graph,
    shown,
    side_by_side,
)
from minigrad.viz import make_dot, trace_backward

OUT = output_dir(2)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")

# %% [markdown]
# ## The chain rule, node by node
#
# For `f(x) = sin(x) * x²` the derivative is `cos(x) x² + 2x sin(x)`. The graph is
# `MulBackward0(SinBackward0, PowBackward0)`; `MulBackward0` hands `grad * x²` to the sine
# branch and `grad * sin(x)` to the square branch, each branch multiplies by its own local
# derivative, and the two contributions meet again at the leaf `x`.

# %%
X = np.array([0.5, 1.0, 2.0], dtype=np.float32)


def chain_rule(lib):
    x = lib.tensor(X, requires_grad=True)
    f = x.sin() * x ** 2
    f.sum().backward()
    by_hand = np.cos(X) * X ** 2 + 2 * X * np.sin(X)
    return {"graph": graph_trace(f), "x.grad": x.grad, "by hand": by_hand}


mg, pt = side_by_side(chain_rule)
assert np.allclose(mg["x.grad"].numpy(), mg["by hand"], atol=1e-6)

# %% [markdown]
# ## Guess: "backward visits the graph depth-first, in the order of `next_functions`"
#
# Take `(a * b + c.exp()).sum()`. `AddBackward0.next_functions` lists the `MulBackward0` first,
# so a depth-first walk would run `MulBackward0` before `ExpBackward0`. We log the order with
# a *pre-hook* on every node (a function called just before the node runs; chapter 7 is about
# hooks):

# %%
def run_order(lib, exp_first: bool):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    c = lib.tensor([0.5, 0.1], requires_grad=True)
    out = (c.exp() + a * b).sum() if exp_first else (a * b + c.exp()).sum()
    leaf = {id(a): "a", id(b): "b", id(c): "c"}
    log, seen, stack = [], set(), [out.grad_fn]
    while stack:  # put a logging pre-hook on every node of the graph
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        label = f"Acc({leaf[id(node.variable)]})" if hasattr(node, "variable") else node.name()
        node.register_prehook(lambda grads, label=label: log.append(label))
        stack.extend(n for n, _ in node.next_functions if n is not None)
    out.backward()
    return {"order": log}


print("(a * b + c.exp()).sum()")
mg, pt = side_by_side(run_order, exp_first=False)
assert mg["order"] == pt["order"]
print("(c.exp() + a * b).sum()")
mg2, pt2 = side_by_side(run_order, exp_first=True)
assert mg2["order"] == pt2["order"]

# %% [markdown]
# The guess was wrong: in `a * b + c.exp()` the exponential runs first, although it is the
# *second* input of the addition; write the sum the other way round and the multiplication
# runs first. The rule (PyTorch's, and so minigrad's): every node gets a **sequence number**
# when it is created; among the nodes whose gradients are complete (all their consumers have
# run), the engine runs the one created **last**. `c.exp()` was created after `a * b` in the
# first expression. `AccumulateGrad` nodes get the largest possible number, so a leaf's
# gradient is written as soon as it is ready.
#
# In minigrad the ready nodes sit in a heap keyed on the negative sequence number,
# `_run_backward` in `minigrad/autograd/engine.py` (which `run_backward` calls):

# %%
quote(minigrad.autograd.engine._run_backward, "heap = [", None)
quote(minigrad.autograd.engine._run_backward, "heapq.heappop", None)


def sequence_numbers(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    c = lib.tensor([0.5, 0.1], requires_grad=True)
    mul = a * b
    ex = c.exp()
    # differences only: the counter is global to the process
    return {"exp after mul": ex.grad_fn._sequence_nr() - mul.grad_fn._sequence_nr(),
            "AccumulateGrad": mul.grad_fn.next_functions[0][0]._sequence_nr()}


mg, pt = side_by_side(sequence_numbers)

# %% [markdown]
# ## Guess: "`backward()` sets `.grad`"
#
# It *adds* to `.grad`. Run two backward passes (on two fresh graphs) and the gradients of the
# two runs are summed. This is why a training loop calls `optimizer.zero_grad()` (or
# `model.zero_grad()`) before every `backward()`.

# %%
def two_backwards(lib):
    w = lib.tensor([1.0, -2.0], requires_grad=True)
    (w * 3).sum().backward()
    first = w.grad.clone()
    (w * 3).sum().backward()
    second = w.grad.clone()
    w.grad = None  # what zero_grad() does by default (set_to_none=True)
    (w * 3).sum().backward()
    return {"after 1st backward": first, "after 2nd backward": second,
            "after zeroing, 3rd": w.grad}


mg, pt = side_by_side(two_backwards)
assert np.allclose(mg["after 2nd backward"].numpy(), 2 * pt["after 1st backward"].numpy())

# %% [markdown]
# Inside one backward pass gradients meet too: when a tensor is used twice, its node receives
# one gradient per use, and the engine **sums them in an input buffer before the node runs**. A
# hook on `x` therefore sees the total once, not each part (`x * 2 + x * 3` gives 5):

# %%
def used_twice(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.clone()))
    (x * 2 + x * 3).sum().backward()
    return {"hook calls": len(seen), "hook saw": seen[0], "x.grad": x.grad}


mg, pt = side_by_side(used_twice)
assert mg["hook calls"] == pt["hook calls"] == 1

# %% [markdown]
# The summing happens in `_add_to_buffer` in `minigrad/autograd/engine.py` (PyTorch's
# `InputBuffer::accumulate`), and the final addition into `.grad` in `AccumulateGrad.backward`
# (chapter 1).

# %%
quote(minigrad.autograd.engine._add_to_buffer, "old = buf[nr]", "buf[nr] = old + g")

# %% [markdown]
# ## Guess: "the gradient has the shape of the output"
#
# `x` has shape `(3, 1)` and `b` shape `(4,)`; `x * b` broadcasts to `(3, 4)`. The gradient
# flowing into `MulBackward0` has shape `(3, 4)`, but `.grad` always has the shape of its
# tensor: the node sums the gradient over the broadcast dimensions. `b` was reused for 3 rows,
# so its gradient adds those 3 rows up (`x` is 1, 2, 3: each entry of `b.grad` is 1 + 2 + 3).

# %%
def broadcasting(lib):
    x = lib.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
    b = lib.tensor([1.0, 10.0, 100.0, 1000.0], requires_grad=True)
    y = x * b
    y.sum().backward()
    return {"y.shape": tuple(y.shape), "x.grad.shape": tuple(x.grad.shape),
            "b.grad.shape": tuple(b.grad.shape), "x.grad": x.grad, "b.grad": b.grad}


mg, pt = side_by_side(broadcasting)
assert mg["b.grad.shape"] == pt["b.grad.shape"] == (4,)

# %% [markdown]
# Binary nodes remember both input shapes, and `sum_to` in `minigrad/_ops/_util.py` reduces
# each gradient back to its input's shape:

# %%
quote(minigrad._ops._util.sum_to)

# %% [markdown]
# ## Non-scalar outputs
#
# `backward()` without arguments starts from a gradient of 1, which only makes sense for a
# single number. On a vector you must say what the upstream gradient is:

# %%
def vector_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward()


same_error(vector_backward, "grad can be implicitly created only for scalar outputs")


def with_gradient(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward(gradient=lib.tensor([1.0, 0.1]))
    return {"x.grad": x.grad}


mg, pt = side_by_side(with_gradient)

# %%
a, b, c = (minigrad.tensor(v, requires_grad=True) for v in ([1.0, 2.0], [3.0, 4.0], [0.5, 0.1]))
out = (a * b + c.exp()).sum()
save_graph(make_dot(out, params={"a": a, "b": b, "c": c}), OUT / "order_example")

# %% [markdown]
# ## Watching the engine, step by step
#
# The drawing shows what backward *will* traverse. `minigrad.viz.trace_backward` records the
# traversal itself: each node leaving the ready queue (and what is left in the queue, newest
# first), the gradient sent along each edge, the dependency counts going down, `.grad` written,
# saved tensors freed. The page below plays the same backward in minigrad (its engine reports
# every step) and in PyTorch (recorded with node hooks, as Python sees it); step through it
# with the arrow keys and watch `ExpBackward0` leave the queue before `MulBackward0`:

# %%
def traced_order(lib):
    a, b, c = (lib.tensor(v, requires_grad=True) for v in ([1.0, 2.0], [3.0, 4.0], [0.5, 0.1]))
    out = (a * b + c.exp()).sum()
    return trace_backward(out, params={"a": a, "b": b, "c": c})


mg_trace, pt_trace = save_backward_page(traced_order, OUT / "engine_steps",
                                        title="(a * b + c.exp()).sum(): backward, step by step")
started = [mg_trace.graph["nodes"][e["node"]]["name"] for e in mg_trace.events
           if e["type"] == "node"]
print("nodes in the order they ran:", ", ".join(started))

# %% [markdown]
# ## What to remember
#
# * Each node applies its local derivative; contributions that meet at a tensor are summed
#   (in the engine's input buffer inside one pass, into `.grad` across passes).
# * Ready nodes run newest-first (sequence numbers), not in `next_functions` order.
# * `.grad` accumulates: zero it between steps.
# * A gradient always has its tensor's shape; broadcasting is undone by summing.
