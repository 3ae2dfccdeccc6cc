"""``RAdam``: Adam with a rectified (variance-corrected) adaptive learning rate.

Mirrors ``torch/optim/radam.py`` (``_single_tensor_radam``, PyTorch's CPU path), in the same
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

__all__ = ["RAdam"]


class RAdam(SingleTensorOptimizer):
    """RAdam (``torch.optim.RAdam``).

    For each parameter ``p`` with gradient ``g`` (others are skipped), at step ``t``::

        g = -g if maximize
        p = p * (1 - lr * weight_decay)   if decoupled_weight_decay   (else g += wd * p)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
        m_hat = m / (1 - beta1**t)
        p = p - m_hat * lr * sqrt(1 - beta2**t) / (sqrt(v) + eps) * r_t   if rho_t > 5
        p = p - m_hat * lr                                                  otherwise
        r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))

    ``state[p]`` holds ``step`` (a float32 0-d tensor), ``exp_avg`` and ``exp_avg_sq``.

    Args: ``params``, ``lr=1e-3``, ``betas=(0.9, 0.999)``, ``eps=1e-8``, ``weight_decay=0``,
    ``decoupled_weight_decay=False``; keyword ``foreach=None``, ``maximize=False``,
    ``capturable=False``, ``differentiable=False``.
    ``foreach``, ``capturable`` and ``differentiable`` behave as described in
    `SingleTensorOptimizer` (accepted; PyTorch's AssertionError at ``step()``; PyTorch's
    RuntimeError for the in-place update of a leaf that requires grad).

    Raises ValueError for a negative lr, eps or weight_decay, or a beta outside [0, 1).
    """

    _capturable_message = capturable_message()
    _zero_state = ("exp_avg", "exp_avg_sq")

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False):
        check_adam_like(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, p, group, state, g, step) -> None:
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        dt = p._data.dtype.type
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        lerp_(exp_avg._data, g, dt(1 - beta1))
        exp_avg._vc.bump()
        exp_avg_sq._data *= dt(beta2)
        exp_avg_sq._data += dt(1 - beta2) * g * g  # addcmul_: value * t1 * t2
        exp_avg_sq._vc.value += 2
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        m_hat = exp_avg._data / dt(bias_correction1)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = dt(bias_correction2**0.5) / (np.sqrt(exp_avg_sq._data) + dt(eps))
            check_param_inplace(p, group)
            p._data -= m_hat * dt(lr) * adaptive_lr * dt(rect)
        else:
            check_param_inplace(p, group)
            p._data -= m_hat * dt(lr)
        p._vc.bump()
