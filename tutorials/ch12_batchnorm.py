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
# # BatchNorm, `train()` and `eval()`: state that is not a parameter
#
# Most of a model's state is its parameters: tensors that require grad, that `backward()` fills
# with gradients and that the optimizer updates. A `BatchNorm` layer also keeps *buffers*:
# statistics it updates itself, during the forward pass, with no gradient and no optimizer.
# They are why a model with BatchNorm behaves differently after `model.eval()`, why a
# checkpoint must hold more than the parameters, and why one innocent-looking evaluation loop
# gives wrong answers.
#
# The guess to test: *"`with torch.no_grad():` is all that evaluation needs; `eval()` only
# switches dropout off, and my model has no dropout."*

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad.demo import load_digits_split
from minigrad.parity import to_numpy
from minigrad.toy_models import build_cnn_bn
from minigrad.tutorial import output_dir, quote, same_error, save_figure, shown, side_by_side

torch.set_num_threads(1)  # tiny tensors: one thread is the fastest
OUT = output_dir(12)
print(f"figures for this chapter go to {shown(OUT)}")
print(f"minigrad {minigrad.__version__}, torch {torch.__version__}")

RNG = np.random.default_rng(0)
X4 = RNG.standard_normal((4, 3, 2, 2)) * 2 + 5  # a batch of 4, 3 channels, 2x2 pixels

# %% [markdown]
# ## What a BatchNorm layer holds
#
# `BatchNorm2d(3)` normalises each of 3 channels over the batch and the pixels, then scales
# and shifts it by a learned `weight` and `bias`. Those two are parameters. The running
# statistics `running_mean`, `running_var` and the counter `num_batches_tracked` are buffers:
# registered on the module (so `.to()`, `.double()` and `state_dict()` see them) but not in
# `parameters()`, so no optimizer ever touches them.

# %%
def what_it_holds(lib):
    bn = lib.nn.BatchNorm2d(3)
    return {"parameters": [n for n, _ in bn.named_parameters()],
            "buffers": [n for n, _ in bn.named_buffers()],
            "state_dict keys": list(bn.state_dict()),
            "requires_grad of buffers": [b.requires_grad for b in bn.buffers()],
            "num_batches_tracked dtype": str(bn.num_batches_tracked.dtype).split(".")[1],
            "initial running_mean": bn.running_mean, "initial running_var": bn.running_var,
            "running_mean._version": bn.running_mean._version,
            "format version in state_dict": bn.state_dict()._metadata[""]["version"]}


mg, pt = side_by_side(what_it_holds)
assert mg["buffers"] == ["running_mean", "running_var", "num_batches_tracked"]

# %% [markdown]
# `running_mean._version` is already 1: the constructor calls `reset_running_stats()`, which
# fills the buffers in place (`zero_()`, `fill_(1)`), and every in-place operation counts
# (chapter 3). The `"version": 2` stored with the state dict is something else: the layer's
# checkpoint format (version 2 added `num_batches_tracked`; `_load_from_state_dict` uses it to
# read old checkpoints).
#
# ## One training step moves the running statistics
#
# In `train()` mode (a new module is in training mode) the layer normalises with the *batch's*
# mean and biased variance, and moves the running statistics a step of size `momentum` (0.1)
# toward the batch's mean and *unbiased* variance:
#
# `running = (1 - momentum) * running + momentum * batch_statistic`
#
# We compute both formulas with NumPy, independently, and compare.

# %%
def one_training_forward(lib):
    bn = lib.nn.BatchNorm2d(3, dtype=lib.float64)
    versions = (bn.running_mean._version, bn.num_batches_tracked._version)
    y = bn(lib.tensor(X4))
    return {"training": bn.training, "output mean per channel": y.mean((0, 2, 3)),
            "output var per channel": y.var((0, 2, 3), unbiased=False),
            "running_mean": bn.running_mean, "running_var": bn.running_var,
            "num_batches_tracked": int(bn.num_batches_tracked),
            "versions before (mean, count)": versions,
            "versions after (mean, count)": (bn.running_mean._version,
                                             bn.num_batches_tracked._version),
            "grad_fn": y.grad_fn.name(),
            "its inputs": [type(f).__name__ if f is not None else None
                           for f, _ in y.grad_fn.next_functions]}


mg, pt = side_by_side(one_training_forward)
n = 4 * 2 * 2  # values per channel
batch_mean, batch_var = X4.mean((0, 2, 3)), X4.var((0, 2, 3))  # NumPy: biased variance
assert np.allclose(to_numpy(mg["running_mean"]), 0.9 * 0 + 0.1 * batch_mean)
assert np.allclose(to_numpy(mg["running_var"]), 0.9 * 1 + 0.1 * batch_var * n / (n - 1))
assert np.allclose(to_numpy(mg["output var per channel"]), batch_var / (batch_var + 1e-5))
(mean_v, count_v), after = mg["versions before (mean, count)"], mg["versions after (mean, count)"]
assert after == (mean_v, count_v + 1)  # add_(1) counts; the kernel's write does not

# %% [markdown]
# Three things to read in that output:
#
# * The output is normalised with the batch's own statistics: mean 0 and variance 1 per
#   channel (a hair under 1, because of `eps`).
# * `num_batches_tracked` went from 0 to 1 with `add_(1)`, an ordinary in-place op, so its
#   `_version` went up. `running_mean` and `running_var` changed *values* but kept their
#   `_version`: PyTorch's CPU kernel writes them directly, not through an in-place tensor
#   operation, and minigrad does the same. A version counter tells you about in-place tensor
#   ops, not about every write to memory.
# * The graph: `NativeBatchNormBackward0` has three inputs, the layer's input (`None`: `X4` does
#   not require grad), `weight` and `bias`. The buffers are not in the graph at all.
#
# In minigrad, `_BatchNorm.forward` is where the counter moves and the momentum is chosen:

# %%
quote(minigrad.nn.modules.batchnorm._BatchNorm.forward, "factor = ", "bn_training =")

# %% [markdown]
# ## `momentum=None`: a plain average
#
# With `momentum=None` the step size is `1 / num_batches_tracked`, so after n batches the
# running mean is the average of the n batch means (a cumulative average, instead of an
# exponential one that forgets old batches).

# %%
BATCHES = [RNG.standard_normal((8, 2)) * s + m for s, m in ((1, 0), (2, 3), (0.5, -1))]


def cumulative(lib):
    bn = lib.nn.BatchNorm1d(2, momentum=None, dtype=lib.float64)
    for b in BATCHES:
        bn(lib.tensor(b))
    return {"momentum": bn.momentum, "running_mean": bn.running_mean,
            "num_batches_tracked": int(bn.num_batches_tracked)}


mg, pt = side_by_side(cumulative)
assert np.allclose(to_numpy(mg["running_mean"]), np.mean([b.mean(0) for b in BATCHES], axis=0))

# %% [markdown]
# ## `eval()`: the running statistics normalise, and nothing moves
#
# After `bn.eval()` the same input is normalised with the running statistics. The output is
# different, and the buffers stay as they are. `no_grad()` does *not* do this: it only stops
# the recording of the graph. A forward pass in training mode under `no_grad()` still updates
# the running statistics.

# %%
def train_vs_eval(lib):
    bn = lib.nn.BatchNorm2d(3, dtype=lib.float64)
    x = lib.tensor(X4)
    y_train = bn(x)
    with lib.no_grad():
        bn(x)  # training mode under no_grad: still one more batch
    after_no_grad = int(bn.num_batches_tracked)
    bn.eval()
    mean_before = bn.running_mean.clone()
    y_eval = bn(x)
    return {"count after train + no_grad": after_no_grad,
            "count after eval forward": int(bn.num_batches_tracked),
            "eval moved running_mean": bool((bn.running_mean != mean_before).any()),
            "eval output == train output": bool(np.allclose(to_numpy(y_eval),
                                                            to_numpy(y_train.detach()))),
            "eval output[0, :, 0, 0]": y_eval[0, :, 0, 0],
            "eval output records a graph": y_eval.grad_fn is not None}


mg, pt = side_by_side(train_vs_eval)
# eval: (x - running_mean) / sqrt(running_var + eps), weight 1, bias 0, after two batches of X4
rm = 0.19 * batch_mean
rv = 0.81 + 0.19 * batch_var * n / (n - 1)
assert np.allclose(to_numpy(mg["eval output[0, :, 0, 0]"]),
                   (X4[0, :, 0, 0] - rm) / np.sqrt(rv + 1e-5))
assert mg["count after train + no_grad"] == 2 and not mg["eval output == train output"]

# %% [markdown]
# The eval output is far from mean 0 / variance 1: after two batches the running statistics
# are still mostly their initial 0 and 1, while the data has mean 5. In eval mode a BatchNorm
# is a fixed affine map per channel, so it still records a graph (`weight` and `bias` get
# gradients) when grad mode is on.
#
# ## The classic bug: evaluating in training mode, one example at a time
#
# The guess says `eval()` does not matter without dropout. Let us train the BatchNorm CNN of
# `minigrad demo --model cnn-bn` for two epochs on the digits (the same initial weights and
# batches in both libraries; float64, so that the two runs stay equal to many digits: in
# float32 a ReLU input within rounding of 0 can fall on different sides of the kink in the two
# libraries, and the runs slowly drift apart, as the last column of `minigrad demo --model
# cnn-bn` shows), then classify the test images one at a time, as a demo app or a serving
# loop would: once in `eval()` mode, once forgetting it.

# %%
X_train, X_test, Y_train, Y_test = load_digits_split(0)
X_train, X_test = X_train.astype(np.float64), X_test.astype(np.float64)
torch.manual_seed(0)
INIT = {k: to_numpy(v) for k, v in build_cnn_bn(torch).state_dict().items()}


_RUNS = {}  # library name -> (trained state_dict as NumPy arrays, per-step record)


def trained(lib):
    """The demo's BatchNorm CNN after two epochs of SGD (trained once per library, then
    rebuilt from the saved state), and per step: the mean of channel 0 entering the first
    BatchNorm and that layer's running_mean[0]."""
    if lib.__name__ not in _RUNS:
        model = build_cnn_bn(lib).double()
        model.load_state_dict({k: lib.tensor(v) for k, v in INIT.items()})
        opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        order = np.random.default_rng(0).permutation(len(X_train))
        record = []
        for _ in range(2):
            for i in range(0, len(order), 64):
                idx = order[i:i + 64]
                h = model[0](lib.tensor(X_train[idx]))  # the first convolution
                loss = lib.nn.functional.cross_entropy(model[1:](h), lib.tensor(Y_train[idx]))
                opt.zero_grad()
                loss.backward()
                opt.step()
                record.append((h[:, 0].mean().item(), model[1].running_mean[0].item()))
        _RUNS[lib.__name__] = ({k: to_numpy(v).copy() for k, v in model.state_dict().items()},
                               record)
    state, record = _RUNS[lib.__name__]
    model = build_cnn_bn(lib).double()
    model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    return model, record


def accuracy_one_at_a_time(lib, model, n_images=120):
    with lib.no_grad():
        preds = [int(model(lib.tensor(X_test[i:i + 1])).argmax()) for i in range(n_images)]
    return float(np.mean(np.array(preds) == Y_test[:n_images]))


def accuracy_of_the_test_set(lib, model):
    """In eval() mode a batch gives the same answers as one image at a time: one call."""
    with lib.no_grad():
        preds = to_numpy(model(lib.tensor(X_test)).argmax(1))
    return float(np.mean(preds == Y_test))


def alone_vs_in_a_batch(lib, model):
    """Are the logits of test image 0 the same alone and inside a batch of 32?"""
    with lib.no_grad():
        alone = model(lib.tensor(X_test[:1]))[0]
        in_batch = model(lib.tensor(X_test[:32]))[0]
    return bool(np.allclose(to_numpy(alone), to_numpy(in_batch)))


def forgetting_eval(lib):
    model, _ = trained(lib)
    bn = model[1]
    count, mean = int(bn.num_batches_tracked), bn.running_mean.clone()
    model.eval()
    good = accuracy_one_at_a_time(lib, model)
    eval_same = alone_vs_in_a_batch(lib, model)
    model.train()  # the bug: evaluation in training mode
    bad = accuracy_one_at_a_time(lib, model)
    train_same = alone_vs_in_a_batch(lib, model)
    return {"batches seen in training": count, "eval(): accuracy": good,
            "train(): accuracy": bad,
            "eval(): image 0 alone = in a batch": eval_same,
            "train(): image 0 alone = in a batch": train_same,
            "count after train-mode evaluation": int(bn.num_batches_tracked),
            "running_mean moved by": float((bn.running_mean - mean).abs().max())}


mg, pt = side_by_side(forgetting_eval, rtol=1e-6, atol=1e-9)
assert mg["eval(): accuracy"] >= 0.9 and mg["eval(): accuracy"] > mg["train(): accuracy"]
assert mg["eval(): image 0 alone = in a batch"] and not mg["train(): image 0 alone = in a batch"]
assert mg["count after train-mode evaluation"] == mg["batches seen in training"] + 120 + 2
assert mg["running_mean moved by"] > 0

# %% [markdown]
# The same weights, the same images, and three differences:
#
# * Accuracy drops. In training mode each image is normalised with the statistics of a batch
#   of *one image*, its own mean and variance over its pixels, instead of the training set's:
#   every image is pushed to mean 0 and variance 1 per channel, and how bright a feature is
#   compared with the training set, which the network learned to read, is gone. (On these
#   clean, centred digits the damage is a few points; on photos with varied lighting it is
#   usually much worse.)
# * The prediction of an image depends on which other images share its batch: image 0 alone
#   and image 0 among 32 others get different logits. In `eval()` mode they are equal.
# * `no_grad()` did not protect the model: each of the 120 evaluation calls (and the two of
#   the batch check) counted as a training batch and pulled the running statistics toward
#   single test images. A model evaluated this way is changed by the evaluation: its running
#   statistics are no longer the ones training left.
#
# With a `BatchNorm1d`, or a `BatchNorm2d` whose feature maps are 1x1, one example per batch
# gives a single value per channel, and training mode refuses outright:

# %%
def one_value_per_channel(lib):
    lib.nn.BatchNorm1d(4)(lib.ones(1, 4))


same_error(one_value_per_channel, "Expected more than 1 value per channel when training")


def failed_forward_still_counts(lib):
    bn = lib.nn.BatchNorm1d(4)
    try:
        bn(lib.ones(1, 4))
    except ValueError:
        pass
    return {"num_batches_tracked after the error": int(bn.num_batches_tracked)}


mg, pt = side_by_side(failed_forward_still_counts)
assert mg["num_batches_tracked after the error"] == 1

# %% [markdown]
# (The counter is incremented before the statistics are checked, so even the failed call
# counted a batch, in both libraries.) In `eval()` mode a batch of one is fine: nothing is
# computed from the batch.
#
# ## Checkpoints: the buffers are part of the model
#
# `state_dict()` holds the buffers next to the parameters. A checkpoint made of the
# parameters alone (`dict(model.named_parameters())`, or only what an optimizer saw) loses
# the running statistics; loading it with `strict=False` silently keeps the fresh model's
# running mean 0 and variance 1, and the model in eval mode normalises with the wrong
# statistics.

# %%
def checkpoints(lib):
    model, _ = trained(lib)
    model.eval()
    full = build_cnn_bn(lib).double().eval()
    full.load_state_dict(model.state_dict())
    params_only = build_cnn_bn(lib).double().eval()
    missing = params_only.load_state_dict(dict(model.named_parameters()), strict=False)
    return {"state_dict keys of BN layer 1": [k for k in model.state_dict() if k[0] == "1"],
            "missing keys (params only)": missing.missing_keys,
            "accuracy, full state_dict": accuracy_of_the_test_set(lib, full),
            "accuracy, parameters only": accuracy_of_the_test_set(lib, params_only)}


mg, pt = side_by_side(checkpoints, rtol=1e-6, atol=1e-9)
assert mg["accuracy, full state_dict"] > mg["accuracy, parameters only"]
assert "1.running_mean" in mg["missing keys (params only)"]
assert "1.num_batches_tracked" not in mg["missing keys (params only)"]

# %% [markdown]
# The full `state_dict` gives back the trained model exactly. The parameters alone give a
# model that is less accurate, and `strict=False` only *reports* the missing running
# statistics in its return value. `num_batches_tracked` is not in the missing list: a plain
# dict carries no format version, so BatchNorm's `_load_from_state_dict` treats it as a
# checkpoint older than version 2 (which added the counter) and keeps the layer's own count.
# minigrad's override is PyTorch's logic:

# %%
quote(minigrad.nn.modules.batchnorm._NormBase._load_from_state_dict, "version = ",
      "super()._load_from_state_dict")

# %% [markdown]
# A buffer can also be registered with `persistent=False`: it is still moved by `.to()` and
# `.double()`, but it is left out of `state_dict()` (a cache that can be recomputed). And with
# `track_running_stats=False` a BatchNorm keeps no statistics at all: its buffers are `None`,
# and it normalises with the batch's statistics in `eval()` mode too.

# %%
def buffer_kinds(lib):
    class WithCache(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("total", lib.zeros(2))
            self.register_buffer("cache", lib.zeros(2), persistent=False)

    m = WithCache()
    stateless = lib.nn.BatchNorm1d(2, track_running_stats=False, dtype=lib.float64).eval()
    x = lib.tensor(BATCHES[1])
    return {"buffers": [n for n, _ in m.named_buffers()], "state_dict": list(m.state_dict()),
            "double() reaches the cache": str(m.double().cache.dtype).split(".")[1],
            "no stats: running_mean": stateless.running_mean,
            "no stats: state_dict": list(stateless.state_dict()),
            "no stats, eval: output mean": stateless(x).mean(0)}


mg, pt = side_by_side(buffer_kinds)

# %% [markdown]
# ## The running mean, step by step
#
# Back to the training run of the CNN: at every step we recorded the mean of channel 0 of the
# batch entering the first BatchNorm, and that layer's `running_mean[0]` after the step. With
# `momentum=0.1` the running mean is an exponential moving average of the batch means; we
# compute that average with NumPy from the recorded batch means and compare.

# %%
def trajectory(lib):
    batch_means, running = np.array(trained(lib)[1]).T
    return {"steps": len(running), "first batch mean": batch_means[0],
            "running_mean[0] after step 1": running[0],
            "last batch mean": batch_means[-1], "final running_mean[0]": running[-1],
            "trajectory": running}


mg, pt = side_by_side(lambda lib: {k: v for k, v in trajectory(lib).items()
                                   if k != "trajectory"}, rtol=1e-6, atol=1e-9)
batch_means, running = np.array(trained(minigrad)[1]).T
ema, expected = 0.0, []
for m in batch_means:
    ema = 0.9 * ema + 0.1 * m
    expected.append(ema)
assert np.allclose(running, expected)
torch_running = trajectory(torch)["trajectory"]
assert np.allclose(running, torch_running)

fig, ax = plt.subplots(figsize=(7, 3.5))
ax.plot(batch_means, ".", color="grey", label="mean of the batch (channel 0)")
ax.plot(running, lw=3, alpha=0.6, label="running_mean[0], minigrad")
ax.plot(torch_running, "k--", lw=1, label="running_mean[0], torch")
ax.set_xlabel("training step")
ax.set_title("BatchNorm2d running mean (momentum 0.1) follows the batch means")
ax.legend(fontsize=8)
save_figure(fig, OUT / "running_mean.png")

# %% [markdown]
# The running mean starts at 0 and needs a few dozen steps (about `1 / momentum` = 10 steps
# per e-fold) to catch up with batch means that drift as the convolution before it learns:
# a model evaluated after very few training steps has running statistics that still remember
# their initial 0 and 1.

# %% [markdown]
# ## What to remember
#
# * A BatchNorm layer has parameters (`weight`, `bias`: gradients, optimizer) and buffers
#   (`running_mean`, `running_var`, `num_batches_tracked`: updated by the forward pass itself,
#   no gradient, not in the graph).
# * `train()` normalises with the batch's statistics and moves the running ones by `momentum`
#   (`None`: a cumulative average); `eval()` normalises with the running ones and moves
#   nothing. `no_grad()` changes neither: it only stops the recording of the graph.
# * Always `model.eval()` before evaluating or serving, and `model.train()` before training
#   again. Forgetting it makes predictions depend on the batch (a batch of one: on the image
#   alone) and silently rewrites the running statistics.
# * Save and load `state_dict()`, which includes the buffers (`persistent=False` ones
#   excepted); `strict=False` hides the missing running statistics (its return value lists
#   them).
# * `num_batches_tracked` moves by an in-place `add_(1)` (its `_version` counts batches); the
#   running statistics are written by the kernel and keep their `_version`.
# * More: `minigrad/nn/modules/batchnorm.py` and `minigrad/_ops/normalization.py`; chapter 5
#   for registration (buffers are registered like parameters and submodules).
