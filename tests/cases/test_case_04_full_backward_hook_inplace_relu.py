"""Case 04 (pytorch/pytorch#61519): full backward hooks wrap a module's inputs and outputs in
``BackwardHookFunction`` views, so an in-place ReLU on them raises PyTorch's custom-Function view
error; out-of-place works; a tensor hook installed by a forward hook is the workaround.
Same script on both libraries, everything it prints compared."""

import numpy as np
import pytest

from minigrad.parity import assert_parity

torch = pytest.importorskip("torch")

X = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)


def scenario(lib, device):
    nn, F, printed = lib.nn, lib.nn.functional, []

    def to_dev(m):
        return m.to(device) if lib is torch else m

    def hook(m, gi, go):
        printed.append(("hook fired", type(m).__name__, [tuple(g.shape) for g in go]))

    def first_line(e):
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"

    mod = to_dev(nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4),
                               nn.ReLU(inplace=True)))
    mod[3].register_full_backward_hook(hook)
    x = lib.tensor(X)
    x = (x.to(device) if lib is torch else x).requires_grad_()
    try:
        mod(x)
        printed.append("A forward OK")
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        printed.append(("A forward raised", first_line(e)))

    block = to_dev(nn.Sequential(nn.Linear(4, 4)))
    block.register_full_backward_hook(hook)
    out = block(x)
    printed.append(("B out.grad_fn", type(out.grad_fn).__name__, out._is_view()))
    try:
        F.relu(out, inplace=True)
        printed.append("B in-place OK")
    except Exception as e:  # noqa: BLE001
        printed.append(("B in-place raised", first_line(e)))

    F.relu(block(x)).sum().backward()  # C

    mod2 = to_dev(nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True)))

    def fw_hook(m, i, o):
        o.register_hook(lambda g: printed.append(("D tensor hook grad shape", tuple(g.shape))))

    mod2[1].register_forward_hook(fw_hook)
    mod2(x).sum().backward()
    return printed


def test_case_04(device):
    mg, _ = assert_parity(scenario, device=device)
    assert "BackwardHookFunction is a view" in mg[0][1] and mg[1][1:] == (
        "BackwardHookFunctionBackward", True)
