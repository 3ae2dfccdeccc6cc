"""``Adam`` (with AMSGrad, L2 weight decay, maximize).

Mirrors ``torch/optim/adam.py`` (``_single_tensor_adam``, PyTorch's CPU path), in the same
order of float32 operations, vectorised with NumPy on each parameter's array.
"""

from __future__ import annotations

import numpy as np

from ._single_tensor import SingleTensorOptimizer, check_adam_like, lerp_, zeros_state

__all__ = ["Adam"]


class Adam(SingleTensorOptimizer):
    """Adam (``torch.optim.Adam``).

    For each parameter ``p`` with gradient ``g`` (others are skipped), at step ``t``::

        g = -g if maximize;  g = g + weight_decay * p
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        v_hat = max(v_hat, v) if amsgrad else v
        denom = sqrt(v_hat) / sqrt(1 - beta2**t) + eps
        p = p - lr / (1 - beta1**t) * m / denom          # in place: p._version + 1

    ``state[p]`` holds ``step`` (a float32 0-d tensor), ``exp_avg``, ``exp_avg_sq`` and, with
    amsgrad, ``max_exp_avg_sq``. ``decoupled_weight_decay=True`` gives AdamW's
    ``p = p * (1 - lr * weight_decay)`` instead (an extra in-place update, as in PyTorch).
    Raises ValueError for invalid lr, eps, betas (each in [0, 1), both floats), weight_decay.
    The loop around the update (state, maximize, weight decay) is `SingleTensorOptimizer`'s.
    """

    _zero_state = ("exp_avg", "exp_avg_sq")

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused=None, decoupled_weight_decay: bool = False):
        check_adam_like(lr, eps, betas, weight_decay)
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        if differentiable:
            raise NotImplementedError("minigrad: Adam(differentiable=True) is not supported")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _init_state(self, p, group) -> None:
        super()._init_state(p, group)
        if group["amsgrad"]:
            self.state[p]["max_exp_avg_sq"] = zeros_state(p)

    def _update(self, p, group, state, g, step) -> None:
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        dt = p._data.dtype.type
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        lerp_(m, g, dt(1 - beta1))
        v *= dt(beta2)
        v += dt(1 - beta2) * g * g
        state["exp_avg"]._vc.bump()  # lerp_
        state["exp_avg_sq"]._vc.value += 2  # mul_, addcmul_
        step_size = lr / (1 - beta1**step)
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]._data
            np.maximum(vmax, v, out=vmax)
            state["max_exp_avg_sq"]._vc.bump()  # torch.maximum(..., out=)
            v = vmax
        denom = np.sqrt(v) / dt(bias_correction2_sqrt) + dt(eps)
        p._data += dt(-step_size) * m / denom
        p._vc.bump()
