"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``, ...

Mirrors ``torch/nn/utils/clip_grad.py``. Everything runs under ``no_grad`` and changes each
``.grad`` in place, so every clipped gradient's ``_version`` goes up as PyTorch's does: one
``mul_`` per gradient for the norm clipping (even when the factor is 1), and for
``clip_grad_value_`` a ``clamp_min_`` and a ``clamp_max_`` (PyTorch's default ``foreach`` path
on CPU and CUDA tensors) or a single ``clamp_`` with ``foreach=False``. ``foreach`` is otherwise
accepted and ignored: minigrad has no fused multi-tensor kernels.
"""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Iterable

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]

_tensor_or_tensors = Tensor | Iterable[Tensor]


def _no_grad(func):
    """Run ``func`` under ``no_grad`` (PyTorch's wrapper of the same name)."""

    @functools.wraps(func)
    def _no_grad_wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)

    return _no_grad_wrapper


@_no_grad
def _get_total_norm(tensors: _tensor_or_tensors, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Norm of the tensors viewed as one vector (``torch.nn.utils.get_total_norm``).

    Args:
        tensors: a tensor or an iterable of tensors (any shapes).
        norm_type: the p of the p-norm, a float; ``inf`` (or ``'inf'``) for the max norm.
        error_if_nonfinite: raise RuntimeError when the total norm is nan or +-inf.
        foreach: accepted and ignored.

    Returns:
        A 0-dim tensor: the p-norm of the per-tensor p-norms, of the promoted dtype of the
        tensors; ``tensor(0.)`` for no tensors.

    Raises:
        RuntimeError: ``error_if_nonfinite`` and the norm is not finite.
    """
    import minigrad

    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return minigrad.tensor(0.0)
    norms = [minigrad.linalg.vector_norm(t, norm_type) for t in tensors]
    total_norm = minigrad.linalg.vector_norm(minigrad.stack(norms), norm_type)
    if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


@_no_grad
def _clip_grads_with_norm_(parameters: _tensor_or_tensors, max_norm: float, total_norm: Tensor,
                           foreach: bool | None = None) -> None:
    """Scale every ``.grad`` by ``min(max_norm / (total_norm + 1e-6), 1)``, in place
    (``torch.nn.utils.clip_grads_with_norm_``).

    Parameters whose ``.grad`` is None are skipped; each other ``.grad`` gets one ``mul_``
    (its ``_version`` + 1), also when the factor is 1. ``foreach`` is accepted and ignored.
    """
    import minigrad

    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = minigrad.clamp(clip_coef, max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped)


@_no_grad
def clip_grad_norm_(parameters: _tensor_or_tensors, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Clip the gradient norm of parameters in place (``torch.nn.utils.clip_grad_norm_``).

    The norm is that of all gradients concatenated into one vector; every gradient is
    multiplied by ``min(max_norm / (total_norm + 1e-6), 1)``. Parameters without ``.grad`` are
    skipped.

    Args:
        parameters: a tensor or an iterable of tensors (e.g. ``model.parameters()``).
        max_norm: the largest norm the gradients keep.
        norm_type: p of the p-norm (float); ``inf`` or ``'inf'`` for the max norm.
        error_if_nonfinite: raise RuntimeError if the total norm is nan/inf (the gradients are
            then left unchanged); otherwise they are scaled by the non-finite norm.
        foreach: accepted and ignored (no fused kernels in minigrad).

    Returns:
        The total norm of the gradients before clipping, a 0-dim tensor.

    Warns:
        UserWarning: ``parameters`` is an empty generator.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = _get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters: _tensor_or_tensors, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated spelling of ``clip_grad_norm_`` (FutureWarning), as in PyTorch."""
    warnings.warn("`minigrad.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`minigrad.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters: _tensor_or_tensors, clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every ``.grad`` to ``[-clip_value, clip_value]`` in place
    (``torch.nn.utils.clip_grad_value_``).

    Args:
        parameters: a tensor or an iterable of tensors; those without ``.grad`` are skipped.
        clip_value: the bound (converted with ``float``).
        foreach: ``None``/``True``: ``clamp_min_`` then ``clamp_max_`` (``_version`` + 2, as
            PyTorch's foreach kernels); ``False``: one ``clamp_`` (``_version`` + 1).

    Returns:
        None.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for grad in grads:
        if foreach is False:
            grad.clamp_(min=-clip_value, max=clip_value)
        else:
            grad.clamp_min_(-clip_value)
            grad.clamp_max_(clip_value)
