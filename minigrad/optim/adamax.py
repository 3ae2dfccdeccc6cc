"""``Adamax``: Adam with the infinity norm in place of the second moment.

Mirrors ``torch/optim/adamax.py`` (``_single_tensor_adamax``, PyTorch's CPU path), in the same
order of operations, vectorised with NumPy on each parameter's array.
"""

from __future__ import annotations

import numpy as np

from ._single_tensor import (
    SingleTensorOptimizer,
    capturable_message,
    check_adam_like,
    check_param_inplace,
    lerp_,
)

__all__ = ["Adamax"]


class Adamax(SingleTensorOptimizer):
    """Adamax (``torch.optim.Adamax``).

    For each parameter ``p`` with gradient ``g`` (others are skipped), at step ``t``::

        g = -g if maximize;  g = g + weight_decay * p
        m = lerp(m, g, 1 - beta1)                          # exp_avg
        u = max(beta2 * u, |g| + eps)                      # exp_inf
        p = p - lr / (1 - beta1**t) * m / u                # in place: p._version + 1

    ``state[p]`` holds ``step`` (a float32 0-d tensor), ``exp_avg`` and ``exp_inf``.

    Args: ``params``, ``lr=2e-3``, ``betas=(0.9, 0.999)``, ``eps=1e-8``, ``weight_decay=0``,
    ``foreach=None``; keyword ``maximize=False``, ``differentiable=False``,
    ``capturable=False``.
    ``foreach``, ``capturable`` and ``differentiable`` behave as described in
    `SingleTensorOptimizer` (accepted; PyTorch's AssertionError at ``step()``; PyTorch's
    RuntimeError for the in-place update of a leaf that requires grad).

    Raises ValueError for a negative lr, eps or weight_decay, or a beta outside [0, 1).
    """

    _capturable_message = capturable_message()
    _zero_state = ("exp_avg", "exp_inf")

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False):
        check_adam_like(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _update(self, p, group, state, g, step) -> None:
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        dt = p._data.dtype.type
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        lerp_(exp_avg._data, g, dt(1 - beta1))
        exp_avg._vc.bump()
        exp_inf._data *= dt(beta2)
        np.maximum(exp_inf._data, np.abs(g) + dt(eps), out=exp_inf._data)
        exp_inf._vc.value += 2  # mul_, maximum(out=)
        clr = lr / (1 - beta1**step)
        check_param_inplace(p, group)
        p._data += dt(-clr) * exp_avg._data / exp_inf._data  # addcdiv_: value * t1 / t2
        p._vc.bump()
