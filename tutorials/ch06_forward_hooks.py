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
# # Forward hooks: looking at feature maps, changing inputs and outputs
#
# A forward hook is a function a module calls around its `forward`:
#
# * `register_forward_pre_hook(hook)`: `hook(module, args)` runs **before** `forward`;
# * `register_forward_hook(hook)`: `hook(module, args, output)` runs **after** it.
#
# The student used forward hooks to look at feature maps, which is exactly what they are for.
# This chapter does that on a small CNN for the 8x8 handwritten digits of scikit-learn, in
# minigrad and PyTorch with the same weights, then tests two guesses: *"a forward hook only
# watches"* and *"`model.forward(x)` is the same as `model(x)`"*.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch
from sklearn.datasets import load_digits

import minigrad
from minigrad.demo import build_cnn
from minigrad.tutorial import output_dir, quote, save_figure, shown, side_by_side

torch.set_num_threads(1)  # tiny tensors: one thread is the fastest
OUT = output_dir(6)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")

# %% [markdown]
# ## The model and the data
#
# `build_cnn(lib)` (from `minigrad/demo.py`, the model of `minigrad demo`) is
# `Conv2d(1, 8) → ReLU → MaxPool2d → Conv2d(8, 16) → ReLU → Flatten → Linear(256, 10)`. We
# train it for a few epochs with PyTorch (fast, and not the point here) and copy the weights
# into the minigrad twin with `load_state_dict`.

# %%
digits = load_digits()
images = (digits.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
labels = digits.target.astype(np.int64)

torch.manual_seed(0)
t_model = build_cnn(torch)
opt = torch.optim.SGD(t_model.parameters(), lr=0.05, momentum=0.9)
xs, ys = torch.tensor(images), torch.tensor(labels)
for _epoch in range(3):
    for i in range(0, len(xs), 64):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(t_model(xs[i:i + 64]), ys[i:i + 64]).backward()
        opt.step()
m_model = build_cnn(minigrad)
m_model.load_state_dict(t_model.state_dict())
models = {"minigrad": m_model, "torch": t_model}
print(m_model)

# %% [markdown]
# ## Capturing feature maps
#
# A forward hook that stores its `output` is all it takes. We hook the two `ReLU`s (index 1
# and 4 of the `Sequential`), run one digit through, and compare what the hooks captured.

# %%
def feature_maps(lib, image_index=0):
    model = models[lib.__name__]
    captured = {}

    def keep(name):
        def hook(module, args, output):
            captured[name] = output.detach().numpy().copy()
        return hook

    handles = [model[1].register_forward_hook(keep("relu1")),
               model[4].register_forward_hook(keep("relu2"))]
    with lib.no_grad():
        logits = model(lib.tensor(images[image_index:image_index + 1]))
    for h in handles:
        h.remove()  # hooks stay until removed
    return {"relu1 (1, 8, 8, 8)": captured["relu1"], "relu2 (1, 16, 4, 4)": captured["relu2"],
            "predicted digit": int(logits.argmax(1).item())}


ours = feature_maps(minigrad)
theirs = feature_maps(torch)
for key in ours:
    assert np.allclose(ours[key], theirs[key], atol=1e-5), key
print(f"digit {labels[0]}: predicted {ours['predicted digit']} (minigrad) and "
      f"{theirs['predicted digit']} (torch); both feature maps agree")

fig, axes = plt.subplots(3, 8, figsize=(10, 4))
axes[0, 0].imshow(images[0, 0], cmap="gray_r")
axes[0, 0].set_title(f"input: {labels[0]}", fontsize=8)
for ax in axes.flat:
    ax.set_xticks([])
    ax.set_yticks([])
for k in range(8):
    axes[1, k].imshow(ours["relu1 (1, 8, 8, 8)"][0, k], cmap="viridis")
    axes[1, k].set_title(f"relu1 ch{k}", fontsize=8)
    axes[2, k].imshow(ours["relu2 (1, 16, 4, 4)"][0, k], cmap="viridis")
    axes[2, k].set_title(f"relu2 ch{k}", fontsize=8)
for k in range(1, 8):
    axes[0, k].axis("off")
fig.suptitle("feature maps captured by forward hooks (minigrad; PyTorch's are identical)")
save_figure(fig, OUT / "feature_maps.png")

# %% [markdown]
# The hooks are called by `Module.__call__` (`_call_impl` in
# `minigrad/nn/modules/module.py`), around the call to `forward`:

# %%
quote(minigrad.nn.Module._call_impl, "result = self.forward(", "result = new")

# %% [markdown]
# ## Guess: "a forward hook only watches"
#
# A hook that **returns** something changes the computation. A pre-hook's return value
# replaces the arguments of `forward`, a forward hook's return value replaces the output.
# Below, a pre-hook scales the input by 2 and a forward hook adds 1 to the output of a
# `Linear`; the gradient of the input is affected too, because the replacement happens inside
# the graph.

# %%
def changing_hooks(lib):
    lib.manual_seed(0)
    fc = lib.nn.Linear(3, 2)
    with lib.no_grad():
        fc.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]]))
        fc.bias.zero_()
    x = lib.tensor([[1.0, 1.0, 1.0]], requires_grad=True)
    plain = fc(x)
    h1 = fc.register_forward_pre_hook(lambda module, args: (args[0] * 2,))
    h2 = fc.register_forward_hook(lambda module, args, output: output + 1)
    hooked = fc(x)
    hooked.sum().backward()
    h1.remove()
    h2.remove()
    return {"fc(x) without hooks": plain, "fc(x) with hooks": hooked, "x.grad": x.grad,
            "hooked.grad_fn": hooked.grad_fn.name(), "after remove()": fc(x)}


mg, pt = side_by_side(changing_hooks)
assert np.allclose(mg["fc(x) with hooks"].detach().numpy(),
                   2 * pt["fc(x) without hooks"].detach().numpy() + 1)

# %% [markdown]
# The output is `2 * fc(x) + 1`, `x.grad` is doubled, and the output's `grad_fn` is the
# `AddBackward0` of the hook's `+ 1`.
#
# ## Guess: "`model.forward(x)` is the same as `model(x)`"
#
# Same result, but **no hooks run**: hooks are called by `__call__`, and `forward` is just the
# method you wrote. Code that calls `.forward` directly silently skips every hook (and so
# every tool built on hooks: feature-map capture, the gradient monitor of chapter 9).

# %%
def direct_forward(lib):
    fc = lib.nn.Linear(3, 2)
    calls = []
    fc.register_forward_hook(lambda module, args, output: calls.append("hook"))
    x = lib.ones(1, 3)
    fc(x)
    after_call = len(calls)
    fc.forward(x)
    return {"hook calls after fc(x)": after_call, "after fc.forward(x) too": len(calls)}


mg, pt = side_by_side(direct_forward)
assert mg["after fc.forward(x) too"] == 1

# %% [markdown]
# ## Order of hooks in nested modules
#
# Pre-hooks run on the way in, forward hooks on the way out: the parent's pre-hook first,
# the parent's forward hook last. `prepend=True` puts a hook before those already registered.

# %%
def nesting(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    log = []
    for name, m in model.named_modules():
        label = name or "root"
        m.register_forward_pre_hook(lambda mod, args, label=label: log.append(f"pre {label}"))
        m.register_forward_hook(lambda mod, args, out, label=label: log.append(f"fwd {label}"))
    model[0].register_forward_hook(lambda mod, args, out: log.append("fwd 0 (prepend)"),
                                   prepend=True)
    model(lib.ones(1, 2))
    return {"order": log}


mg, pt = side_by_side(nesting)

# %% [markdown]
# ## What to remember
#
# * `register_forward_hook(fn(module, args, output))` sees every output: feature maps,
#   activation statistics, shapes.
# * Returning a value from a hook replaces the arguments (pre-hook) or the output (forward
#   hook), inside the graph: gradients follow the change.
# * Hooks run only through `module(x)`, never through `module.forward(x)`; remove them with
#   the handle (`handle.remove()`, or `with handle:`).
