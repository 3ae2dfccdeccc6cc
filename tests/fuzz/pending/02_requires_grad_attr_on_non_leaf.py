"""Pending (_tensor.py, the ``requires_grad`` setter): ``y.requires_grad = True`` on a non-leaf.

PyTorch's setter refuses any change of the flag on a non-leaf, also to True (RuntimeError "you
can only change requires_grad flags of leaf variables."), while ``y.requires_grad_(True)`` is
allowed; minigrad's setter accepts True. Found by the fuzzer (function theme); the generator
steers around it with ``generate.REQUIRES_GRAD_ATTR_NON_LEAF = False``.
Run: ``PYTHONPATH=. python tests/fuzz/pending/02_requires_grad_attr_on_non_leaf.py``
"""

import numpy as np
import torch

import minigrad


def scenario(L):
    out = []
    for flag in (True, False):
        y = L.tensor(np.ones(2), requires_grad=True) * 2
        try:
            y.requires_grad = flag
            out.append(f"y.requires_grad = {flag}: ok")
        except Exception as e:  # noqa: BLE001
            out.append(f"y.requires_grad = {flag}: {type(e).__name__}: {str(e)[:60]}")
    y = L.tensor(np.ones(2), requires_grad=True) * 2
    y.requires_grad_(True)
    out.append("y.requires_grad_(True): ok")
    return out


for lib in (minigrad, torch):
    print(f"{lib.__name__:9s}", scenario(lib))
