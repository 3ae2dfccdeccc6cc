"""``SGD`` with momentum, dampening, Nesterov, weight decay and maximize.

Mirrors ``torch/optim/sgd.py`` (``_single_tensor_sgd``, the path PyTorch takes on the CPU), in
the same order of float32 operations, vectorised with NumPy on each parameter's array.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer, add_scaled_

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (``torch.optim.SGD``).

    For each parameter ``p`` with a gradient ``g`` (parameters whose ``.grad`` is None are
    skipped)::

        g = -g if maximize;  g = g + weight_decay * p
        buf = g (first step) | momentum * buf + (1 - dampening) * g     (if momentum != 0)
        g = g + momentum * buf if nesterov else buf                     (if momentum != 0)
        p = p - lr * g          # in place: p._version + 1

    ``state[p]['momentum_buffer']`` holds ``buf``. Raises ValueError for a negative lr,
    momentum or weight_decay, and for Nesterov without momentum or with dampening.
    """

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach=None, differentiable: bool = False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("minigrad: SGD(differentiable=True) is not supported")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            lr, wd, momentum = group["lr"], group["weight_decay"], group["momentum"]
            dampening, nesterov, maximize = group["dampening"], group["nesterov"], group["maximize"]
            for p in group["params"]:
                grad = p._grad  # (optimized tensors are leaves: .grad never warns)
                if grad is None:
                    continue
                dt = p._data.dtype.type  # Python scalars are cast to the parameter's dtype
                g = -grad._data if maximize else grad._data
                if wd != 0:
                    g = g + dt(wd) * p._data
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = Tensor._make(np.array(g, copy=True))
                    else:
                        buf._data *= dt(momentum)
                        buf._data += g if dampening == 0 else dt(1 - dampening) * g
                        buf._vc.value += 2  # mul_ and add_ in PyTorch
                    g = g + dt(momentum) * buf._data if nesterov else buf._data
                add_scaled_(p._data, g, dt(-lr))
                p._vc.bump()
        return loss
