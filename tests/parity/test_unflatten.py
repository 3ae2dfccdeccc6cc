"""Parity of ``nn.Unflatten``: output shape and values, the ``ViewBackward0`` node, the input
gradient, repr, and the TypeError / RuntimeError messages for bad sizes."""

import numpy as np

from minigrad.parity import assert_parity, node_name, to_numpy

from .test_tensor_meta import err

X = np.arange(24, dtype=np.float32).reshape(4, 6)


def test_unflatten_module():
    def scenario(lib):
        nn = lib.nn
        x = lib.tensor(X, requires_grad=True)
        m = nn.Unflatten(1, (2, -1))
        y = m(x)
        (y * y).sum().backward()
        return {
            "shape": tuple(y.shape), "values": to_numpy(y), "node": node_name(y.grad_fn),
            "grad": to_numpy(x.grad), "repr": repr(m), "list repr": repr(nn.Unflatten(-1, [3, 2])),
            "list": tuple(nn.Unflatten(-1, [3, 2])(x).shape),
            "in a Sequential": tuple(nn.Sequential(nn.Flatten(), nn.Unflatten(1, (3, 2, 4)))(
                lib.tensor(X.reshape(1, 4, 6))).shape),
            "int size": err(lambda: nn.Unflatten(1, 6), "unflattened_size must be a tuple of "
                            "ints, but found type int"),
            "float element": err(lambda: nn.Unflatten(1, (2.0, 3)), "unflattened_size must be "
                                 "tuple of ints, but found element of type float at pos 0"),
            "product": err(lambda: nn.Unflatten(1, (4, 3))(x), "don't multiply up to the size "
                           "of dim 1 (6)"),
        }

    assert_parity(scenario)
