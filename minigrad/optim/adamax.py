"""``Adamax``: Adam with the infinity norm in place of the second moment.

Mirrors ``torch/optim/adamax.py`` (``_single_tensor_adamax``, PyTorch's CPU path), in the same
order of operations, vectorised with NumPy on each parameter's array.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._single_tensor import capturable_message, check_adam_like, check_param_inplace, step_groups
from .optimizer import Optimizer
from .rmsprop import _bump, _lerp_

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (``torch.optim.Adamax``).

    For each parameter ``p`` with gradient ``g`` (others are skipped), at step ``t``::

        g = -g if maximize;  g = g + weight_decay * p
        m = lerp(m, g, 1 - beta1)                          # exp_avg
        u = max(beta2 * u, |g| + eps)                      # exp_inf
        p = p - lr / (1 - beta1**t) * m / u                # in place: p._version + 1

    ``state[p]`` holds ``step`` (a float32 0-d tensor), ``exp_avg`` and ``exp_inf``.

    Args: ``params``, ``lr=2e-3``, ``betas=(0.9, 0.999)``, ``eps=1e-8``, ``weight_decay=0``,
    ``foreach=None``; keyword ``maximize=False``, ``differentiable=False``,
    ``capturable=False``. ``foreach`` is accepted and changes nothing (minigrad has one
    single-tensor path); ``capturable=True`` makes ``step()`` raise PyTorch's AssertionError for
    CPU tensors; ``differentiable=True`` makes the update of a leaf parameter that requires grad
    raise PyTorch's RuntimeError (PyTorch steps with grad mode on then); minigrad's update
    records no graph in any case.

    Raises ValueError for a negative lr, eps or weight_decay, or a beta outside [0, 1).
    """

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False):
        check_adam_like(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss.

        Raises AssertionError for a ``capturable`` group (after creating its state), as
        PyTorch does for CPU tensors.
        """
        return step_groups(self, closure, capturable_message())

    def _init_state(self, p) -> None:
        state = self.state[p]
        state["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
        state["exp_avg"] = Tensor._make(np.zeros_like(p._data))
        state["exp_inf"] = Tensor._make(np.zeros_like(p._data))

    def _update(self, p, group) -> None:
        lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        dt = p._data.dtype.type  # Python scalars are cast to the parameter's dtype
        state = self.state[p]
        g = -p.grad._data if group["maximize"] else p.grad._data
        _bump(state["step"], 1, np.float32(1))
        if wd != 0:
            g = g + dt(wd) * p._data
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        _lerp_(exp_avg._data, g, dt(1 - beta1))
        exp_avg._vc.bump()
        exp_inf._data *= dt(beta2)
        np.maximum(exp_inf._data, np.abs(g) + dt(eps), out=exp_inf._data)
        exp_inf._vc.value += 2  # mul_, maximum(out=)
        clr = lr / (1 - beta1 ** float(state["step"]._data))
        check_param_inplace(p, group)
        p._data += dt(-clr) * exp_avg._data / exp_inf._data  # addcdiv_: value * t1 / t2
        p._vc.bump()
