"""Case 09 (jmschrei/tangermeme#54): a module called twice fires its forward hook twice (call
order) and its backward pre/full hooks twice in reverse order with per-call gradients; the
shared weight's gradient is the sum; ``parameters()`` lists it once. Same script on both
libraries, everything it prints compared (weights copied from PyTorch's seeded init)."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy
from minigrad.parity.hooks import paired_models

torch = pytest.importorskip("torch")


def build(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.shared = nn.Linear(2, 2)
            self.act = nn.Tanh()

        def forward(self, x):
            return self.shared(self.act(self.shared(x)))

    return Net()


def scenario(lib, device):
    import minigrad

    mm, tm = paired_models(build, device)
    net = mm if lib is minigrad else tm
    calls = []

    def fwd(m, inp, out):
        calls.append(("fwd", to_numpy(inp[0])))
        m.saved_input = inp[0].detach()

    def bwd_pre(m, gout):
        calls.append(("bwd_pre gout", to_numpy(gout[0])))

    def bwd(m, gin, gout):
        calls.append(("bwd gin", to_numpy(gin[0])))

    net.shared.register_forward_hook(fwd)
    net.shared.register_full_backward_pre_hook(bwd_pre)
    net.shared.register_full_backward_hook(bwd)
    x = lib.tensor([[1.0, -1.0]])
    x = (x.to(device) if lib is torch else x).requires_grad_()
    out = net(x)
    saved = to_numpy(net.shared.saved_input)
    out.sum().backward()
    return {"saved_input": saved, "calls": calls, "x.grad": to_numpy(x.grad),
            "shared.weight.grad": to_numpy(net.shared.weight.grad),
            "parameters() count": len(list(net.parameters()))}


def test_case_09(device):
    mg, _ = assert_parity(scenario, device=device)
    assert [c[0] for c in mg["calls"]] == ["fwd", "fwd", "bwd_pre gout", "bwd gin",
                                           "bwd_pre gout", "bwd gin"]
    assert np.allclose(mg["saved_input"], mg["calls"][1][1]) and mg["parameters() count"] == 2
