"""``Adam`` (with AMSGrad, L2 weight decay, maximize).

Mirrors ``torch/optim/adam.py`` (``_single_tensor_adam``, PyTorch's CPU path), in the same
order of float32 operations, vectorised with NumPy on each parameter's array.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
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
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused=None, decoupled_weight_decay: bool = False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        if differentiable:
            raise NotImplementedError("minigrad: Adam(differentiable=True) is not supported")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self._update(p, group)
        return loss

    def _update(self, p, group) -> None:
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        dt = p._data.dtype.type  # Python scalars are cast to the parameter's dtype
        state = self.state[p]
        if len(state) == 0:
            state["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
            state["exp_avg"] = Tensor._make(np.zeros_like(p._data))
            state["exp_avg_sq"] = Tensor._make(np.zeros_like(p._data))
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = Tensor._make(np.zeros_like(p._data))
        g = -p.grad._data if group["maximize"] else p.grad._data
        state["step"]._data += np.float32(1)
        state["step"]._vc.bump()  # (each state tensor counts PyTorch's in-place updates)
        step = float(state["step"]._data)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p._data *= dt(1 - lr * wd)
                p._vc.bump()
            else:
                g = g + dt(wd) * p._data
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        w = dt(1 - beta1)  # m.lerp_(g, w): PyTorch's two-branch formula
        if abs(w) < 0.5:
            m += w * (g - m)
        else:
            m[...] = g - (g - m) * (dt(1) - w)
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
