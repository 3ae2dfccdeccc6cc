"""Twin models for the debug tests: the same builder for minigrad and torch, same weights."""

import numpy as np

import minigrad


def mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 3))


def cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(4 * 3 * 3, 3))


INPUT_SHAPES = {mlp: (6, 4), cnn: (2, 1, 8, 8)}


def twins(build, seed=0):
    """(minigrad model, torch model, input array): torch's initial weights copied over."""
    import torch

    torch.manual_seed(seed)
    tm = build(torch)
    mm = build(minigrad)
    mm.load_state_dict({k: v.detach().numpy() for k, v in tm.state_dict().items()})
    x = np.random.default_rng(seed).standard_normal(INPUT_SHAPES[build]).astype(np.float32)
    return mm, tm, x


def loss_of(out):
    return (out * out).mean()


def direct_stats(arr):
    """The statistics a user would compute by hand from one gradient array."""
    a = np.asarray(arr, dtype=np.float64)
    return {"mean": a.mean(), "abs_mean": np.abs(a).mean(), "max_abs": np.abs(a).max(),
            "norm": np.linalg.norm(a.ravel())}
