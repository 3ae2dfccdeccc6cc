"""The loop shared by the optimizers that follow PyTorch's single-tensor (CPU) path —
``Adam``/``AdamW``, ``Adamax``, ``NAdam``, ``RAdam``, ``Adadelta``, ``Adagrad``, ``RMSprop`` —
and their small helpers (``SGD``, with no step counter and a lazily made momentum buffer, keeps
its own loop).

PyTorch's ``step()`` first initialises the state of every parameter of a group that has a
gradient (``_init_group``), then runs the per-tensor update (``_single_tensor_<name>``), whose
first act with ``capturable=True`` on a CPU tensor is an AssertionError (capturable steps need
a device that CUDA graphs can capture). `SingleTensorOptimizer.step` reproduces that order and
the preamble every update shares (step count, maximize, weight decay), so that each
optimizer's file shows only its ``_init_state`` and the formula of its ``_update``.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer

_DEVICES = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"


def capturable_message(tensors: str = "params and state_steps", devices: str = _DEVICES) -> str:
    """PyTorch's AssertionError message for ``capturable=True`` with CPU tensors."""
    return f"If capturable=True, {tensors} must be on supported devices: {devices}."


def check_adam_like(lr, eps, betas, weight_decay) -> None:
    """PyTorch's ValueErrors for ``lr``, ``eps``, ``betas`` and ``weight_decay``."""
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


class SingleTensorOptimizer(Optimizer):
    """An optimizer whose ``step()`` is PyTorch's single-tensor loop; subclasses give
    ``_init_state(p, group)`` (fill ``self.state[p]``) and ``_update(p, group, state, g, step)``
    (the formula), and may name the ``_capturable_message`` that ``capturable=True`` raises.

    ``step(closure=None)`` returns ``closure()``'s loss (run with grad mode on) and, for each
    param group:

    1. takes the parameters whose ``.grad`` is not None (the others are skipped);
    2. initialises the state of each whose state is empty (before any update);
    3. raises AssertionError(``_capturable_message``) for a ``capturable`` group, if the class
       has one (minigrad tensors live on the CPU), after creating the state, as PyTorch;
    4. per parameter: ``step`` += 1 (the float32 0-d state tensor, one in-place op), ``g`` = the
       gradient's array, negated for ``maximize`` (a new array: ``.grad`` is never written),
       then weight decay — ``p *= 1 - lr * weight_decay`` in place for a group with
       ``decoupled_weight_decay`` (AdamW's), else ``g = g + weight_decay * p`` — and last
       ``_update`` with the new step count as a Python float.

    Python scalars are cast to the parameter's dtype before they meet its arrays, as PyTorch's
    ops on a float32 tensor compute in float32.

    The default ``_init_state`` makes ``step`` (see `step_state`) and a tensor of zeros like
    the parameter for each name in ``_zero_state``; an optimizer with more state extends it.

    Options the optimizers share: ``foreach`` (and ``fused`` where PyTorch has it) is accepted
    and changes nothing, minigrad has one single-tensor path. ``capturable=True`` makes
    ``step()`` raise PyTorch's AssertionError for CPU tensors (where the class names a
    ``_capturable_message``). ``differentiable=True`` makes the first in-place update of a
    leaf parameter that requires grad raise PyTorch's RuntimeError (PyTorch steps with grad
    mode on then; see `check_param_inplace`); minigrad's update records no graph in any case.
    """

    _capturable_message: str | None = None
    _zero_state: tuple[str, ...] = ()

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss."""
        loss = self._run_closure(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            for p in params:
                if len(self.state[p]) == 0:
                    self._init_state(p, group)
            if params and self._capturable_message is not None and group["capturable"]:
                raise AssertionError(self._capturable_message)
            for p in params:
                state = self.state[p]
                step_t = state["step"]
                bump_(step_t, 1, np.float32(1))
                g = -p.grad._data if group["maximize"] else p.grad._data
                if group["weight_decay"] != 0:
                    g = _weight_decay(p, g, group)
                self._update(p, group, state, g, float(step_t._data))
        return loss

    def _init_state(self, p, group) -> None:
        state = self.state[p]
        state["step"] = step_state()
        for name in self._zero_state:
            state[name] = zeros_state(p)

    def _update(self, p, group, state: dict, g: np.ndarray, step: float) -> None:
        raise NotImplementedError


def _weight_decay(p, g: np.ndarray, group) -> np.ndarray:
    """``g`` after the group's (nonzero) weight decay: ``p`` shrunk in place when it is
    decoupled, else ``g + weight_decay * p``."""
    wd, dt = group["weight_decay"], p._data.dtype.type
    if group.get("decoupled_weight_decay", False):
        check_param_inplace(p, group)
        p._data *= dt(1 - group["lr"] * wd)
        p._vc.bump()
        return g
    return g + dt(wd) * p._data


def zeros_state(p) -> Tensor:
    """A state tensor of zeros shaped and typed as ``p`` (``torch.zeros_like``)."""
    return Tensor._make(np.zeros_like(p._data))


def step_state() -> Tensor:
    """A fresh step counter: a float32 0-d tensor holding 0 (``torch.tensor(0.0)``)."""
    return Tensor._make(np.array(0.0, dtype=np.float32))


def bump_(t: Tensor, versions: int, add) -> None:
    """``t += add`` in place, counting ``versions`` in-place ops."""
    t._data += add
    t._vc.value += versions


def lerp_(m: np.ndarray, g: np.ndarray, w) -> None:
    """``m.lerp_(g, w)`` with PyTorch's two-branch formula (exact at w = 0 and w = 1)."""
    if abs(w) < 0.5:
        m += w * (g - m)
    else:
        m[...] = g - (g - m) * (type(w)(1) - w)


def check_param_inplace(p, group) -> None:
    """With ``differentiable=True`` PyTorch runs the step with grad mode on, so its first
    in-place update of a leaf parameter that requires grad raises (after the state updates
    that come before it); call this just before each in-place update of ``p``."""
    if group["differentiable"] and p.is_leaf and p.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
