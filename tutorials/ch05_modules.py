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
# # `nn.Module`: how registration works, and the `Sequential`-inside-`forward` trap
#
# A model's `parameters()`, `modules()`, `state_dict()`, `.to()`, `.eval()`, optimizers and
# module hooks all rely on one mechanism: **registration**. Assigning a `Parameter` or a
# `Module` as an attribute (`self.fc = nn.Linear(...)`) does not just set an attribute; the
# module's `__setattr__` files it into `_parameters` or `_modules`. Anything that is not
# assigned that way is invisible to all of the above. This chapter shows the mechanism, then
# replays the bug of the project's story: a `Sequential` built inside `forward()`.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad.tutorial import output_dir, quote, save_figure, shown, side_by_side

torch.set_num_threads(1)  # tiny tensors: one thread is the fastest
OUT = output_dir(5)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")

# %% [markdown]
# ## Where an assignment lands
#
# The class below assigns five kinds of things. Only the `Parameter`, the `Linear` and the
# `ModuleList` are registered; the plain tensor and the Python list of layers are ordinary
# attributes that `parameters()` never sees.

# %%
def probe(lib):
    nn = lib.nn

    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(lib.ones(2))  # -> _parameters
            self.fc = nn.Linear(2, 2)  # -> _modules
            self.offset = lib.zeros(2)  # plain tensor -> __dict__ (invisible)
            self.layers = [nn.Linear(2, 2), nn.Linear(2, 2)]  # plain list -> invisible
            self.blocks = nn.ModuleList([nn.Linear(2, 2)])  # -> _modules

    m = Probe()
    return {"_parameters": list(m._parameters), "_modules": list(m._modules),
            "named_parameters": [n for n, _ in m.named_parameters()],
            "named_modules": [n for n, _ in m.named_modules()],
            "state_dict keys": list(m.state_dict())}


mg, pt = side_by_side(probe)
assert "layers.0.weight" not in mg["named_parameters"]

# %% [markdown]
# In minigrad this is `Module.__setattr__` in `minigrad/nn/modules/module.py` (PyTorch's is
# in `torch/nn/modules/module.py`, same name):

# %%
quote(minigrad.nn.Module.__setattr__, "if isinstance(value, Module):", "return")

# %% [markdown]
# `named_parameters()` then walks `_modules` recursively and yields what each `_parameters`
# holds. A layer kept in a plain list is never reached.
#
# ## The trap: a `Sequential` built inside `forward()`
#
# The student's model was, in essence, this:

# %%
def build_stuck(lib):
    nn = lib.nn

    class Stuck(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            body = nn.Sequential(nn.Linear(4, 8), nn.ReLU())  # built on every call
            return self.head(body(x))

    return Stuck()


def build_fixed(lib):
    nn = lib.nn

    class Fixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU())  # built once, registered
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            return self.head(self.body(x))

    return Fixed()


# %% [markdown]
# The write-up's explanation: *"the `Sequential` lived on `forward`'s stack and vanished when
# `forward` returned, so its gradients were skipped."* Let us test it. If the body's
# gradients were skipped, its weights would have no `.grad` after backward. We find the body's
# weights the way backward does: by walking the graph down to the `AccumulateGrad` nodes and
# reading their `.variable`.

# %%
def graph_leaves(out):
    """Leaf tensors reached by backward from ``out`` (via AccumulateGrad nodes)."""
    found, seen, stack = [], set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            found.append(node.variable)
        stack.extend(n for n, _ in node.next_functions)
    return found


def stuck_experiment(lib):
    lib.manual_seed(0)
    model = build_stuck(lib)
    x = lib.tensor(np.ones((2, 4), dtype=np.float32))
    out = model(x)
    named = {id(p): n for n, p in model.named_parameters()}
    leaves = graph_leaves(out)
    out.sum().backward()
    unnamed = [p for p in leaves if id(p) not in named]
    return {
        "named_parameters()": [n for n, _ in model.named_parameters()],
        "named_modules()": [n for n, _ in model.named_modules()],
        "leaves in the graph": len(leaves),
        "leaves not registered": [tuple(p.shape) for p in unnamed],
        "they got a .grad": [p.grad is not None for p in unnamed],
    }


mg, pt = side_by_side(stuck_experiment)
assert mg["they got a .grad"] == pt["they got a .grad"] == [True, True]

# %% [markdown]
# The guess was wrong about the cause. The body's weights **are** in the graph (the graph holds
# them through `AccumulateGrad.variable`, so they did not vanish) and they **do** get
# gradients. What is wrong is that the `Sequential` is **not registered** on the model:
#
# * `model.parameters()` does not list it, so the optimizer, built from `model.parameters()`,
#   never updates it;
# * `model.modules()` does not list it, so hooks attached by walking the modules (the
#   student's gradient printer, chapter 9's monitor) never see it;
# * and it is **rebuilt with fresh random weights on every call**, so even a gradient step on
#   it would be thrown away. The same input gives a different output on each call:

# %%
def two_calls(lib):
    lib.manual_seed(0)
    model = build_stuck(lib)
    x = lib.tensor(np.ones((1, 4), dtype=np.float32))
    with lib.no_grad():
        a, b = model(x), model(x)
    return {"same output twice?": bool(np.array_equal(a.numpy(), b.numpy()))}


mg, pt = side_by_side(two_calls)
assert mg["same output twice?"] is False

# %% [markdown]
# ## Training both models
#
# A small 3-class problem (the class is the largest of 3 linear scores of 4 inputs), full
# batch, plain SGD. The fixed model gets PyTorch's initial weights copied into minigrad with
# `load_state_dict`, so the two libraries must produce the same loss at every step. The stuck
# model draws new body weights from each library's own random generator, so its curves differ
# in detail, but not in shape.

# %%
rng = np.random.default_rng(0)
X = rng.standard_normal((256, 4)).astype(np.float32)
Y = (X @ rng.standard_normal((4, 3))).argmax(1)


def train(lib, model, steps=80):
    opt = lib.optim.SGD(model.parameters(), lr=0.5)
    x, y = lib.tensor(X), lib.tensor(Y)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses)


curves = {}
for name, build in [("stuck", build_stuck), ("fixed", build_fixed)]:
    torch.manual_seed(0)
    minigrad.manual_seed(0)
    t_model, m_model = build(torch), build(minigrad)
    m_model.load_state_dict(t_model.state_dict())
    curves[name] = {"minigrad": train(minigrad, m_model), "torch": train(torch, t_model)}
    print(f"{name}: loss {curves[name]['minigrad'][0]:.3f} -> {curves[name]['minigrad'][-1]:.3f}"
          f" (minigrad), {curves[name]['torch'][0]:.3f} -> {curves[name]['torch'][-1]:.3f} "
          f"(torch)")

assert np.allclose(curves["fixed"]["minigrad"], curves["fixed"]["torch"], atol=1e-4)
for lib_name in ("minigrad", "torch"):
    last = {name: curves[name][lib_name][-10:].mean() for name in curves}
    assert last["fixed"] < 0.3 < 0.7 < last["stuck"], last

fig, ax = plt.subplots(figsize=(6, 3.5))
for name, style in [("stuck", "-"), ("fixed", "--")]:
    for lib_name, color in [("minigrad", "tab:blue"), ("torch", "tab:orange")]:
        ax.plot(curves[name][lib_name], style, color=color, label=f"{name} ({lib_name})")
ax.set_xlabel("step")
ax.set_ylabel("cross-entropy")
ax.legend()
ax.set_title("Sequential built in forward() (stuck) vs registered in __init__ (fixed)")
save_figure(fig, OUT / "stuck_vs_fixed.png")

# %% [markdown]
# ## The fix, and a subtler variant
#
# Build the `Sequential` in `__init__` and assign it to an attribute (`build_fixed`). Note
# that assigning it to an attribute *inside* `forward` (`self.body = nn.Sequential(...)`)
# registers it at that moment, but an optimizer created before the first call still holds
# only the old parameter list, and the module is still replaced on every call.
#
# ## What to remember
#
# * Registration happens in `Module.__setattr__`: `Parameter` → `_parameters`, `Module` →
#   `_modules`; plain tensors and plain lists are invisible (use `register_buffer`,
#   `nn.ModuleList`, `nn.ParameterList`).
# * A module built in `forward` still gets gradients, but no optimizer or module hook sees it,
#   and it is re-initialised on every call: the loss does not move.
# * Chapter 8 draws this model's graph (its unregistered weights appear as unnamed leaves);
#   chapter 9 finds the bug with `find_unregistered` on real data.
