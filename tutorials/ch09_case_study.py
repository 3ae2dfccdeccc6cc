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
# # Case study: the loss that does not move
#
# This is the investigation the project started from, replayed on real data (scikit-learn's
# 8x8 handwritten digits) in minigrad and PyTorch side by side. A student wrote an image
# classifier from scratch; in week one its training loss never moved. We follow the write-up
# step by step, run an experiment for each guess, and fix the model, using three tools of
# `minigrad.debug` that work on minigrad *and* torch models: the gradient-flow monitor,
# `find_unregistered`, and graph rendering.

# %%
import math
import warnings

import matplotlib.pyplot as plt
import numpy as np
import torch
from sklearn.datasets import load_digits

import minigrad
from minigrad.debug import GradientFlowMonitor, find_unregistered
from minigrad.parity import graph_trace
from minigrad.tutorial import output_dir, save_figure, save_graph, shown
from minigrad.viz import make_dot, track_modules

torch.set_num_threads(1)  # tiny tensors: one thread is the fastest
OUT = output_dir(9)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")

digits = load_digits()
X = (digits.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)  # values in [0, 1]
Y = digits.target.astype(np.int64)
order = np.random.default_rng(0).permutation(len(X))
X, Y = X[order], Y[order]
X_train, Y_train, X_test, Y_test = X[:1500], Y[:1500], X[1500:], Y[1500:]
print(f"train {X_train.shape}, test {X_test.shape}, 10 classes")

# %% [markdown]
# ## The model
#
# A convolution block, a fully connected feature block and a linear head. Written once, as a
# function of the library. Look at `forward`: that is the student's code.

# %%
def build(lib, fixed=False):
    nn = lib.nn

    class DigitNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
            if fixed:
                self.features = nn.Sequential(nn.Flatten(), nn.Linear(128, 32), nn.ReLU())
            self.head = nn.Linear(32, 10)

        def forward(self, x):
            h = self.conv(x)
            if fixed:
                features = self.features
            else:  # the student's version: the block is built here, on every call
                features = nn.Sequential(nn.Flatten(), nn.Linear(128, 32), nn.ReLU())
            return self.head(features(h))

    return DigitNet()


def twins(fixed):
    """The same model in both libraries: PyTorch's initial weights copied into minigrad."""
    torch.manual_seed(0)
    minigrad.manual_seed(0)
    t_model, m_model = build(torch, fixed), build(minigrad, fixed)
    m_model.load_state_dict(t_model.state_dict())
    return {"minigrad": (minigrad, m_model), "torch": (torch, t_model)}


def train(lib, model, epochs, batch=100, lr=0.1):
    """Plain SGD with momentum; returns the loss of every step and the test accuracy."""
    opt = lib.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for _ in range(epochs):
        for i in range(0, len(X_train), batch):
            opt.zero_grad()
            out = model(lib.tensor(X_train[i:i + batch]))
            loss = lib.nn.functional.cross_entropy(out, lib.tensor(Y_train[i:i + batch]))
            loss.backward()
            opt.step()
            losses.append(loss.item())
    with lib.no_grad():
        pred = model(lib.tensor(X_test)).argmax(1).numpy()
    return np.array(losses), float((pred == Y_test).mean())


# %% [markdown]
# ## Step 1: the symptom
#
# Six epochs of training. The loss of a 10-class classifier that knows nothing is
# `ln 10 ≈ 2.303`.

# %%
stuck = {name: train(lib, model, epochs=6) for name, (lib, model) in twins(False).items()}
for name, (losses, acc) in stuck.items():
    print(f"{name:>8}: loss {losses[0]:.3f} -> {losses[-1]:.3f}, test accuracy {acc:.1%}")
    assert abs(losses[-10:].mean() - math.log(10)) < 0.05, "the loss should not move"

# %% [markdown]
# Flat at `ln 10` in both libraries, and chance-level accuracy. (The two curves are not
# identical: the block built in `forward` draws fresh weights from each library's own random
# generator; we will see why that matters.)
#
# ## Step 2: "vanishing gradients"
#
# The student's first guess: vanishing gradients, from a missing weight initialisation, or
# activations passing gradients of about zero. A gradient-flow monitor tells the two apart in
# one step: it hooks every module (`register_full_backward_hook`) and every parameter
# (`register_post_accumulate_grad_hook`) and records mean, mean |g|, max |g|, NaN/Inf, and
# `None` for a parameter backward never reached. This is what the student wrote by hand.

# %%
# The input does not require grad, so the model's own full backward hook gets grad_input=None;
# PyTorch (and minigrad) warn about that on every call. Expected here:
warnings.filterwarnings("ignore", message="Full backward hook is firing")


def monitor_one_step(lib, model):
    with GradientFlowMonitor(model) as monitor:
        out = model(lib.tensor(X_train[:100]))
        lib.nn.functional.cross_entropy(out, lib.tensor(Y_train[:100])).backward()
    return monitor


monitors = {name: monitor_one_step(lib, model) for name, (lib, model) in twins(False).items()}
rows = {name: [r for r in mon.records() if r.kind == "param"] for name, mon in monitors.items()}
print(f"{'parameter':<16}{'shape':<16}{'mean |g| minigrad':>20}{'mean |g| torch':>18}  flags")
for r_mg, r_pt in zip(rows["minigrad"], rows["torch"]):
    flags = ", ".join(r_mg.flags) or "ok"
    print(f"{r_mg.name:<16}{str(tuple(r_mg.shape)):<16}{r_mg.abs_mean:>20.2e}"
          f"{r_pt.abs_mean:>18.2e}  {flags}")
assert [r.name for r in rows["minigrad"]] == [r.name for r in rows["torch"]]
assert all(not r.flags for rs in rows.values() for r in rs), "nothing vanishes"

fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), sharey=True)
for ax, (name, mon) in zip(axes, monitors.items()):
    mon.plot(ax=ax)
    ax.set_title(f"{name}: gradients of the parameters")
save_figure(fig, OUT / "gradient_flow.png")

# %% [markdown]
# Every parameter the monitor watches gets a healthy gradient (mean |g| around 1e-3 to 1e-2,
# no flag), in both libraries. Nothing vanishes. But read the list of parameters again:
# `conv.0.*` and `head.*`. **The `Linear(128, 32)` of the feature block is not there at all.**
# The monitor watches what `model.named_modules()` and `model.named_parameters()` list, and
# that layer is in neither.
#
# ## Step 3: what the model does not own
#
# `find_unregistered(model, x)` runs one forward pass, notes every module that is called and
# where it was created, and compares the graph's leaves with the model's parameters:

# %%
findings = {}
for name, (lib, model) in twins(False).items():
    findings[name] = find_unregistered(model, lib.tensor(X_train[:4]))
for f in findings["minigrad"]:
    print(f, end="\n\n")
assert [(f.kind, f.name) for f in findings["minigrad"]] == \
    [(f.kind, f.name) for f in findings["torch"]]
assert findings["minigrad"][0].kind == "unregistered_module"

# %% [markdown]
# ## Step 4: the student's explanation, tested
#
# The write-up said: *"the `Sequential` built inside `forward()` lived on the function's stack
# and vanished, so its gradients were skipped."* The fix it proposed is right, the cause is
# not: the block's weights **do** get gradients (they are leaves of the graph, kept alive by
# its `AccumulateGrad` nodes; `find_unregistered` said so: "it gets a gradient"). The real
# causes:
#
# 1. `model.parameters()` does not list them, so the optimizer never updates them;
# 2. the block is rebuilt with fresh random weights on every call, so the head is trained on
#    features that change at every step: it cannot learn anything, and the loss stays at
#    `ln 10`;
# 3. `model.modules()` does not list the block, so the monitor (and any hook attached by
#    walking the modules) never saw it.
#
# The graph shows it too. Drawn with `modules=` (one cluster per registered module), the
# feature block's weights are the two **unnamed** blue leaves, outside every cluster:

# %%
dots = {}
for name, (lib, model) in twins(False).items():
    tracker = track_modules(model)
    out = model(lib.tensor(X_train[:2]))
    tracker.remove()
    dots[name] = make_dot(out, params=dict(model.named_parameters()), modules=tracker)
    dots[name + " graph"] = graph_trace(out)
save_graph(dots["minigrad"], OUT / "stuck_graph_minigrad")
save_graph(dots["torch"], OUT / "stuck_graph_torch")
assert dots["minigrad graph"] == dots["torch graph"]

# %% [markdown]
# ## Step 5: the fix
#
# Build the block once, in `__init__`, and assign it as an attribute (`build(lib,
# fixed=True)`). Now every weight is registered, so both libraries start from the *same*
# weights, and the training curves must agree step for step.

# %%
fixed = {name: train(lib, model, epochs=6) for name, (lib, model) in twins(True).items()}
for name, (losses, acc) in fixed.items():
    print(f"{name:>8}: loss {losses[0]:.3f} -> {losses[-1]:.3f}, test accuracy {acc:.1%}")
np.testing.assert_allclose(fixed["minigrad"][0], fixed["torch"][0], rtol=1e-3, atol=1e-4)
assert fixed["minigrad"][1] == fixed["torch"][1]
assert fixed["minigrad"][1] > 0.85

model = twins(True)["minigrad"][1]
assert not find_unregistered(model, minigrad.tensor(X_train[:4]))
print("find_unregistered(fixed model): nothing to report")

fig, ax = plt.subplots(figsize=(7, 3.5))
for label, runs, style in [("stuck", stuck, "-"), ("fixed", fixed, "--")]:
    for name, color in [("minigrad", "tab:blue"), ("torch", "tab:orange")]:
        ax.plot(runs[name][0], style, color=color, label=f"{label} ({name})", alpha=0.8)
ax.axhline(math.log(10), color="gray", lw=0.8)
ax.text(len(fixed["torch"][0]) * 0.8, math.log(10) - 0.15, "ln 10", color="gray")
ax.set_xlabel("step (batches of 100)")
ax.set_ylabel("cross-entropy")
ax.legend()
ax.set_title("digits: the Sequential built in forward() vs registered in __init__")
save_figure(fig, OUT / "loss_curves.png")

# %% [markdown]
# ## The short version
#
# | step | guess | experiment | what is true |
# |---|---|---|---|
# | loss flat | vanishing gradients | `GradientFlowMonitor` | gradients are healthy where the monitor can see |
# | monitor's list | every layer is watched | compare with the code | one block is missing from `named_modules()` |
# | unregistered block | its gradients are skipped | `find_unregistered`, graph leaves | it gets gradients; the optimizer never sees it and it is re-initialised on every call |
# | fix | move it to `__init__` | train again | loss drops, minigrad and PyTorch agree step by step |
#
# From the command line, `minigrad doctor stuck` runs the same diagnosis on a built-in copy of
# this bug (and `minigrad doctor path/to/model.py:factory` on your own model).
