"""``Adagrad`` with learning-rate decay, weight decay and maximize.

Mirrors ``torch/optim/adagrad.py`` (``_single_tensor_adagrad``, PyTorch's CPU path for dense
gradients), in the same order of float32 operations. As in PyTorch, the state of every
parameter (``step`` and ``sum``) is made by the constructor, not by the first step (that of a
group added later by its first step, see `SingleTensorOptimizer`).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._single_tensor import SingleTensorOptimizer, step_state

__all__ = ["Adagrad"]


class Adagrad(SingleTensorOptimizer):
    """Adagrad (``torch.optim.Adagrad``).

    For each parameter ``p`` with gradient ``g`` (others are skipped), at step ``t``::

        g = -g if maximize;  g = g + weight_decay * p
        clr = lr / (1 + (t - 1) * lr_decay)
        sum = sum + g * g
        p = p - clr * g / (sqrt(sum) + eps)

    ``state[p]`` holds ``step`` (a float32 0-d tensor) and ``sum`` (filled with
    ``initial_accumulator_value``), for every parameter from the start. Args: ``params``,
    ``lr=1e-2``, ``lr_decay=0``, ``weight_decay=0``, ``initial_accumulator_value=0``,
    ``eps=1e-10``, ``foreach=None``; keyword ``maximize=False``, ``differentiable=False``,
    ``fused=None`` (``foreach``/``fused`` accepted, the plain loop runs). Raises ValueError
    for a negative lr, lr_decay, weight_decay, initial_accumulator_value or eps.
    """

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *,
                 maximize: bool = False, differentiable: bool = False, fused=None):
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay),
                            ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        if differentiable:
            raise NotImplementedError("minigrad: Adagrad(differentiable=True) is not supported")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    def _init_state(self, p, group) -> None:
        """``step`` and ``sum``; the accumulator starts at the constructor's
        ``initial_accumulator_value`` (``defaults``, as PyTorch, also for a group added later)."""
        state = self.state[p]
        state["step"] = step_state()
        initial = self.defaults["initial_accumulator_value"]
        state["sum"] = Tensor._make(np.full_like(p._data, initial))

    def _update(self, p, group, state, g, step) -> None:
        lr, eps, lr_decay = group["lr"], group["eps"], group["lr_decay"]
        dt = p._data.dtype.type
        clr = lr / (1 + (step - 1) * lr_decay)
        s = state["sum"]
        s._data += dt(1) * g * g  # addcmul_ with value 1
        s._vc.bump()
        std = np.sqrt(s._data)
        std += dt(eps)
        p._data += dt(-clr) * g / std  # addcdiv_: value * t1 / t2
        p._vc.bump()
