"""Pending (_tensor.py, ``detach``): ``x.detach()`` of a normal tensor inside
``inference_mode()`` is a normal tensor in PyTorch (like a view of it: it shares the version
counter, which stays readable); minigrad makes an inference tensor (``_version`` raises).

Reached by the fuzzer through a custom Function that returns an input requiring grad as-is
under inference mode (PyTorch, and minigrad's function.py, return ``input.detach()`` there);
the generator steers around it with ``generate.INFERENCE_DETACH = False``.
Run: ``PYTHONPATH=. python tests/fuzz/pending/03_detach_under_inference_mode.py``
"""

import numpy as np
import torch

import minigrad


def scenario(L):
    x = L.tensor(np.ones(2), requires_grad=True)
    with L.inference_mode():
        d = x.detach()
    try:
        version = d._version
    except RuntimeError as e:
        version = f"RuntimeError: {str(e)[:50]}"
    return f"is_inference={d.is_inference()} _version={version}"


for lib in (minigrad, torch):
    print(f"{lib.__name__:9s}", scenario(lib))
