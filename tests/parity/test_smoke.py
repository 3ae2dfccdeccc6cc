"""A first parity check: the same tiny program on minigrad and torch."""

import numpy as np


def _program(lib, x_arr):
    x = lib.tensor(x_arr, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    return y.item(), x.grad.detach().numpy() if hasattr(x.grad, "detach") else x.grad.numpy(), \
        type(y.grad_fn).__name__


def test_square_sum(libs):
    mg, torch = libs
    arr = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    a, b = _program(mg, arr), _program(torch, arr)
    assert a[0] == b[0]
    np.testing.assert_allclose(a[1], b[1])
    assert a[2] == b[2]
