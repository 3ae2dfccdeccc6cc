"""Pending (engine / AccumulateGrad): ``x.data = y`` with ``y`` of another *shape* (same dtype),
then a backward through a graph recorded before the assignment.

PyTorch accumulates the gradient (the shape recorded in the graph, here (4,)) into ``x.grad``;
minigrad raises a NumPy ValueError (could not broadcast (4,) into ()). Found by the fuzzer
(optim theme); the generator steers around it with ``generate.DATA_OTHER_SHAPE = False``.
Run: ``PYTHONPATH=. python tests/fuzz/pending/01_data_other_shape_then_backward.py``
"""

import numpy as np
import torch

import minigrad


def scenario(L):
    x = L.tensor(np.arange(4.0), requires_grad=True)
    y = x.ceil()  # records CeilBackward0 -> AccumulateGrad(x) with x of shape (4,)
    x.data = L.tensor(np.array(1.5))  # now 0-dim
    try:
        y.backward(L.ones(4, dtype=L.float64))
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    return f"x.shape={tuple(x.shape)} x.grad={x.grad}"


for lib in (minigrad, torch):
    print(f"{lib.__name__:9s}", scenario(lib))
