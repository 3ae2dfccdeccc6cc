"""Helpers shared by the optimizers that follow PyTorch's single-tensor (CPU) path:
``Adamax``, ``NAdam``, ``RAdam``, ``Adadelta``.

PyTorch's ``step()`` first initialises the state of every parameter of a group that has a
gradient (``_init_group``), then runs the per-tensor update, whose first act with
``capturable=True`` on a CPU tensor is an AssertionError (capturable steps need a device
that CUDA graphs can capture); `step_groups` reproduces that order.
"""

from __future__ import annotations

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


def step_groups(optimizer, closure, capturable_msg: str):
    """One step of ``optimizer``: per group, the state of each parameter with a gradient
    (``optimizer._init_state(p)`` when empty), then ``optimizer._update(p, group)`` for
    each; AssertionError(``capturable_msg``) in between for a ``capturable`` group (minigrad
    tensors live on the CPU). Returns ``closure()``'s loss."""
    loss = optimizer._run_closure(closure)
    for group in optimizer.param_groups:
        params = [p for p in group["params"] if p.grad is not None]
        for p in params:
            if len(optimizer.state[p]) == 0:
                optimizer._init_state(p)
        if params and group["capturable"]:
            raise AssertionError(capturable_msg)
        for p in params:
            optimizer._update(p, group)
    return loss


def check_param_inplace(p, group) -> None:
    """With ``differentiable=True`` PyTorch runs the step with grad mode on, so its first
    in-place update of a leaf parameter that requires grad raises (after the state updates
    that come before it); call this just before each in-place update of ``p``."""
    if group["differentiable"] and p.is_leaf and p.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
