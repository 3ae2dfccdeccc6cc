"""Case 06 (pytorch/pytorch#95617): on ``ReLU(inplace=True)`` the forward hook's input already
holds the result (same object as the output, version 1); the pre-hook saw the original values.
Same script on both libraries, everything it prints compared."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy

torch = pytest.importorskip("torch")


def scenario(lib, device):
    printed = []

    def pre_hook(m, inp):
        printed.append(("pre-hook input", to_numpy(inp[0]), inp[0]._version))

    def fwd_hook(m, inp, out):
        printed.append(("fwd-hook input", to_numpy(inp[0]), inp[0]._version))
        printed.append(("fwd-hook output", to_numpy(out), out is inp[0]))

    for inplace in (True, False):
        x = lib.tensor([1.23, -4.56])
        x = x.to(device) if lib is torch else x
        m = lib.nn.ReLU(inplace=inplace)
        m.register_forward_pre_hook(pre_hook)
        m.register_forward_hook(fwd_hook)
        printed.append(f"ReLU(inplace={inplace})")
        m(x)
        printed.append(("caller's x after call", to_numpy(x), x._version))
    return printed


def test_case_06(device):
    mg, _ = assert_parity(scenario, device=device)
    assert mg[3][2] is True and mg[4][2] == 1 and np.allclose(mg[2][1], [1.23, 0.0])
