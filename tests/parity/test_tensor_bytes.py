"""Parity: the byte-size queries ``Tensor.element_size()``, ``Tensor.itemsize`` and
``Tensor.nbytes`` — minigrad vs PyTorch, per dtype, on views, expanded and empty tensors.

``nbytes`` is ``numel() * itemsize`` in PyTorch (the tensor's own elements, not its storage), so
a strided view counts fewer bytes than its base and an ``expand`` counts repeated elements.
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity

DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]


def sizes(t):
    """(element_size(), itemsize, nbytes) of ``t`` and the Python types of the three."""
    got = (t.element_size(), t.itemsize, t.nbytes)
    return got, [type(v).__name__ for v in got]


@pytest.mark.parametrize("dtype", DTYPES)
def test_bytes_per_dtype(dtype, device):
    def scenario(lib, device):
        dt = getattr(lib, dtype)
        base = lib.zeros(3, 4, dtype=dt, device=device)
        return {
            "dtype_itemsize": dt.itemsize,
            "base": sizes(base),
            "scalar": sizes(lib.zeros((), dtype=dt, device=device)),
            "empty": sizes(lib.zeros(0, 5, dtype=dt, device=device)),
            "strided_view": sizes(base[:, ::2]),
            "transposed": sizes(base.t()),
            "row": sizes(base[1]),
            "expanded": sizes(lib.zeros(3, 1, dtype=dt, device=device).expand(3, 5)),
        }

    assert_parity(scenario, device=device)


def test_bytes_follow_conversion_and_grad(device):
    def scenario(lib, device):
        x = lib.tensor(np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
        if lib.__name__ == "torch":
            x = x.to(device)
        y = (x * 2).sum(0)
        return {
            "leaf": sizes(x),
            "nonleaf": sizes(y),
            "double": sizes(x.double()),
            "long": sizes(x.detach().long()),
            "bool": sizes(x > 1),
            "detached": sizes(x.detach()),
        }

    assert_parity(scenario, device=device)
