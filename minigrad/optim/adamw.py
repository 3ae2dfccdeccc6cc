"""``AdamW``: Adam with decoupled weight decay.

Mirrors ``torch/optim/adamw.py``, where ``AdamW`` is ``Adam`` with
``decoupled_weight_decay=True`` and a default ``weight_decay`` of 0.01.
"""

from __future__ import annotations

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW (``torch.optim.AdamW``): each step first shrinks the parameter,
    ``p = p * (1 - lr * weight_decay)``, then takes Adam's step with the plain gradient (the
    decay never enters the moment estimates). See `minigrad.optim.Adam` for the update and the
    state (``step``, ``exp_avg``, ``exp_avg_sq``, ``max_exp_avg_sq`` with amsgrad).

    Args: ``params``, ``lr=1e-3``, ``betas=(0.9, 0.999)``, ``eps=1e-8``,
    ``weight_decay=1e-2``, ``amsgrad=False``; keyword ``maximize``, ``foreach``,
    ``capturable``, ``differentiable``, ``fused`` (the last ones accepted as in Adam).
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach=None, capturable: bool = False, differentiable: bool = False,
                 fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
