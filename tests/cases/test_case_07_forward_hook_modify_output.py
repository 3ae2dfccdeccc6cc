"""Case 07 (discuss.pytorch.org 46584): a forward hook's return value replaces the output (and
its graph); an in-place edit with a None return is visible to the caller; hooks chain; a
pre-hook may replace the input. Same script on both libraries, everything it prints compared
(weights copied from PyTorch's seeded init)."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy

torch = pytest.importorskip("torch")

X = np.random.default_rng(0).standard_normal((1, 3)).astype(np.float32)


def linear(lib, device, seed):
    torch.manual_seed(seed)
    ref = torch.nn.Linear(3, 2)
    lin = lib.nn.Linear(3, 2)
    lin.load_state_dict(ref.state_dict())
    return lin.to(device) if lib is torch else lin


def scenario(lib, device):
    printed = []
    lin = linear(lib, device, 0)
    x = lib.tensor(X)
    x = (x.to(device) if lib is torch else x).requires_grad_()
    base = lin(x)
    printed.append(("plain output", to_numpy(base), type(base.grad_fn).__name__))

    h = lin.register_forward_hook(lambda m, i, o: o * 2)
    out = lin(x)
    printed.append(("hook returns o*2", to_numpy(out), type(out.grad_fn).__name__))
    out.sum().backward()
    printed.append(("x.grad", to_numpy(x.grad)))
    h.remove()

    def inplace_hook(m, i, o):
        o.mul_(2)
        return None

    x.grad = None
    h = lin.register_forward_hook(inplace_hook)
    out = lin(x)
    printed.append(("hook does o.mul_(2)", to_numpy(out), type(out.grad_fn).__name__,
                    out._version))
    out.sum().backward()
    printed.append(("x.grad", to_numpy(x.grad)))
    h.remove()

    lin.register_forward_hook(lambda m, i, o: o + 100)
    lin.register_forward_hook(lambda m, i, o: printed.append(("2nd hook sees", to_numpy(o))))
    out = lin(x)
    printed.append(("two hooks, final", to_numpy(out), type(out.grad_fn).__name__))

    lin2 = linear(lib, device, 1)
    zeros = lib.zeros(1, 3)
    zeros = zeros.to(device) if lib is torch else zeros
    lin2.register_forward_pre_hook(lambda m, i: zeros)
    # (the script uses torch.allclose, which minigrad lacks: compared on the NumPy values)
    printed.append(("pre-hook zeros input", bool(np.allclose(
        to_numpy(lin2(x)), to_numpy(lin2.bias.unsqueeze(0))))))
    return printed


def test_case_07(device):
    mg, _ = assert_parity(scenario, device=device)
    assert mg[3][3] == 1 and mg[-1] == ("pre-hook zeros input", True)
