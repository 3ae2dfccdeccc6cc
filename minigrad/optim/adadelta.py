"""``Adadelta``: per-coordinate step sizes from running averages of squared gradients and
squared updates.

Mirrors ``torch/optim/adadelta.py`` (``_single_tensor_adadelta``, PyTorch's CPU path), in the
same order of operations, vectorised with NumPy on each parameter's array.
"""

from __future__ import annotations

import numpy as np

from ._single_tensor import (
    SingleTensorOptimizer,
    capturable_message,
    check_param_inplace,
)

__all__ = ["Adadelta"]

# (PyTorch's Adadelta lists no XLA among the capturable devices)
_CAPTURABLE = capturable_message(devices="['cuda', 'xpu', 'hpu', 'privateuseone']")


class Adadelta(SingleTensorOptimizer):
    """Adadelta (``torch.optim.Adadelta``).

    For each parameter ``p`` with gradient ``g`` (others are skipped)::

        g = -g if maximize;  g = g + weight_decay * p
        v = rho * v + (1 - rho) * g * g                      # square_avg
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta              # acc_delta
        p = p - lr * delta                                   # in place: p._version + 1

    ``state[p]`` holds ``step`` (a float32 0-d tensor), ``square_avg`` and ``acc_delta``.

    Args: ``params``, ``lr=1.0``, ``rho=0.9``, ``eps=1e-6``, ``weight_decay=0``,
    ``foreach=None``; keyword ``capturable=False``, ``maximize=False``,
    ``differentiable=False``.
    ``foreach``, ``capturable`` and ``differentiable`` behave as described in
    `SingleTensorOptimizer` (accepted; PyTorch's AssertionError at ``step()``; PyTorch's
    RuntimeError for the in-place update of a leaf that requires grad).

    Raises ValueError for a negative lr, eps or weight_decay, or a rho outside [0, 1].
    """

    _capturable_message = _CAPTURABLE
    _zero_state = ("square_avg", "acc_delta")

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach=None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, p, group, state, g, step) -> None:
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        dt = p._data.dtype.type
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg._data *= dt(rho)
        square_avg._data += dt(1 - rho) * g * g  # addcmul_: value * t1 * t2
        square_avg._vc.value += 2
        std = np.sqrt(square_avg._data + dt(eps))
        delta = np.sqrt(acc_delta._data + dt(eps))
        delta /= std
        delta *= g
        acc_delta._data *= dt(rho)
        acc_delta._data += dt(1 - rho) * delta * delta
        acc_delta._vc.value += 2
        check_param_inplace(p, group)
        p._data += dt(-lr) * delta  # add_(delta, alpha=-lr)
        p._vc.bump()
