"""Case 02 (pytorch/pytorch#100528): pre-hooks push and full backward hooks pop a module name.
With an input that requires grad the pairs nest; without, each full hook fires right after its
pre-hook with ``grad_input=(None,)`` and a UserWarning per module whose inputs need no grad.
Same script on both libraries, everything it prints compared."""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity

torch = pytest.importorskip("torch")

X = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)


def scenario(lib, device):
    nn, events, gi, printed = lib.nn, [], [], []

    def pre(mod, grad_output):
        events.append("Push " + mod._name)

    def post(mod, grad_input, grad_output):
        events.append("Pop  " + mod._name)
        if mod._name == "outer":
            gi.append(["None" if g is None else tuple(g.shape) for g in grad_input])

    inner = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 1))
    outer = nn.Sequential(inner)
    outer = outer.to(device) if lib is torch else outer
    for name, mod in [("outer", outer), ("inner", inner), ("lin1", inner[0]),
                      ("relu", inner[1]), ("lin2", inner[2])]:
        mod._name = name
        mod.register_full_backward_pre_hook(pre)
        mod.register_full_backward_hook(post)

    for req in (True, False):
        events.clear()
        gi.clear()
        x = lib.tensor(X)
        x = (x.to(device) if lib is torch else x).requires_grad_(req)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            outer(x).sum().backward()
        msgs = sorted({str(wi.message).splitlines()[0] for wi in w})
        printed.append((f"input.requires_grad={req}", " | ".join(events), gi[0], len(w), msgs))
    return printed


def test_case_02(device):
    mg, _ = assert_parity(scenario, device=device)
    assert mg[0][1].startswith("Push outer | Push inner") and mg[1][3] == 3
