"""``NAdam``: Adam with Nesterov momentum (and optional decoupled weight decay).

Mirrors ``torch/optim/nadam.py`` (``_single_tensor_nadam``, PyTorch's CPU path), in the same
order of operations, vectorised with NumPy on each parameter's array.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._single_tensor import (
    SingleTensorOptimizer,
    capturable_message,
    check_adam_like,
    check_param_inplace,
    lerp_,
    step_state,
    zeros_state,
)

__all__ = ["NAdam"]


class NAdam(SingleTensorOptimizer):
    """NAdam (``torch.optim.NAdam``).

    For each parameter ``p`` with gradient ``g`` (others are skipped), at step ``t``::

        g = -g if maximize
        p = p * (1 - lr * weight_decay)   if decoupled_weight_decay   (else g += wd * p)
        mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_product = mu_product * mu_t                    # state, float32 0-d tensor
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        denom = sqrt(v / (1 - beta2**t)) + eps
        p = p - lr * (1 - mu_t) / (1 - mu_product) * g / denom
        p = p - lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / denom

    (two in-place updates of ``p``: ``_version`` + 2 per step, + 1 more for the decoupled
    decay). ``state[p]`` holds ``step`` and ``mu_product`` (float32 0-d tensors),
    ``exp_avg`` and ``exp_avg_sq``.

    Args: ``params``, ``lr=2e-3``, ``betas=(0.9, 0.999)``, ``eps=1e-8``, ``weight_decay=0``,
    ``momentum_decay=4e-3``, ``decoupled_weight_decay=False``; keyword ``foreach=None``,
    ``maximize=False``, ``capturable=False``, ``differentiable=False``.
    ``foreach``, ``capturable`` and ``differentiable`` behave as described in
    `SingleTensorOptimizer` (accepted; PyTorch's AssertionError at ``step()``; PyTorch's
    RuntimeError for the in-place update of a leaf that requires grad).

    Raises ValueError for a negative lr, eps, weight_decay or momentum_decay, or a beta
    outside [0, 1).
    """

    _capturable_message = capturable_message("params, mu_products and state_steps")

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False):
        check_adam_like(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, p, group) -> None:  # (mu_product between step and the moments)
        state = self.state[p]
        state["step"] = step_state()
        state["mu_product"] = Tensor._make(np.array(1.0, dtype=np.float32))
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)

    def _update(self, p, group, state, g, step) -> None:
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        momentum_decay = group["momentum_decay"]
        dt = p._data.dtype.type
        bias_correction2 = 1 - beta2**step
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = state["mu_product"]
        mu_product._data *= np.float32(mu)
        mu_product._vc.bump()
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        lerp_(exp_avg._data, g, dt(1 - beta1))
        exp_avg._vc.bump()
        exp_avg_sq._data *= dt(beta2)
        exp_avg_sq._data += dt(1 - beta2) * g * g  # addcmul_: value * t1 * t2
        exp_avg_sq._vc.value += 2
        denom = np.sqrt(exp_avg_sq._data / dt(bias_correction2))
        denom += dt(eps)
        mu_prod = float(mu_product._data)  # (a Python float from here on, as .item())
        mu_product_next = mu_prod * mu_next
        check_param_inplace(p, group)
        p._data += dt(-lr * (1.0 - mu) / (1.0 - mu_prod)) * g / denom
        p._data += dt((-lr * mu_next) / (1.0 - mu_product_next)) * exp_avg._data / denom
        p._vc.value += 2  # two addcdiv_
