"""``RMSprop`` with momentum, centering, weight decay and maximize.

Mirrors ``torch/optim/rmsprop.py`` (``_single_tensor_rmsprop``, PyTorch's CPU path), in the
same order of float32 operations, vectorised with NumPy on each parameter's array; each state
tensor's ``_version`` counts the in-place updates PyTorch makes to it.
"""

from __future__ import annotations

import numpy as np

from ._single_tensor import SingleTensorOptimizer, lerp_, zeros_state

__all__ = ["RMSprop"]


class RMSprop(SingleTensorOptimizer):
    """RMSprop (``torch.optim.RMSprop``).

    For each parameter ``p`` with gradient ``g`` (others are skipped)::

        g = -g if maximize;  g = g + weight_decay * p
        v = alpha * v + (1 - alpha) * g * g                 # square_avg
        avg = sqrt(v - ga * ga) + eps, ga = lerp(ga, g, 1 - alpha)   if centered
        avg = sqrt(v) + eps                                          otherwise
        buf = momentum * buf + g / avg;  p = p - lr * buf   if momentum > 0
        p = p - lr * g / avg                                otherwise

    ``state[p]`` holds ``step`` (a float32 0-d tensor), ``square_avg`` and, when used,
    ``momentum_buffer`` and ``grad_avg``. Args: ``params``, ``lr=1e-2``, ``alpha=0.99``,
    ``eps=1e-8``, ``weight_decay=0``, ``momentum=0``, ``centered=False``,
    ``capturable=False``, ``foreach=None``, ``maximize=False``, ``differentiable=False``
    (``foreach`` and ``capturable`` are accepted and change nothing here). Raises ValueError
    for a negative lr, eps, momentum, weight_decay or alpha.
    """

    _zero_state = ("square_avg",)

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False):
        for name, value in (("learning rate", lr), ("epsilon value", eps),
                            ("momentum value", momentum), ("weight_decay value", weight_decay),
                            ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        if differentiable:
            raise NotImplementedError("minigrad: RMSprop(differentiable=True) is not supported")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, p, group) -> None:
        super()._init_state(p, group)
        state = self.state[p]
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_state(p)
        if group["centered"]:
            state["grad_avg"] = zeros_state(p)

    def _update(self, p, group, state, g, step) -> None:
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        dt = p._data.dtype.type
        sq = state["square_avg"]
        sq._data *= dt(alpha)
        sq._data += dt(1 - alpha) * g * g  # addcmul_: value * t1 * t2
        sq._vc.value += 2
        if group["centered"]:
            ga = state["grad_avg"]
            lerp_(ga._data, g, dt(1 - alpha))
            ga._vc.bump()
            avg = np.sqrt(sq._data + dt(-1) * ga._data * ga._data)
        else:
            avg = np.sqrt(sq._data)
        avg += dt(eps)
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf._data *= dt(momentum)
            buf._data += g / avg  # addcdiv_ with value 1
            buf._vc.value += 2
            p._data += dt(-lr) * buf._data
        else:
            p._data += dt(-lr) * g / avg  # addcdiv_: value * t1 / t2
        p._vc.bump()
