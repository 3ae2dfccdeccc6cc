"""``parameters_to_vector`` and ``vector_to_parameters``.

Mirrors ``torch/nn/utils/convert_parameters.py``: a model's parameters flattened into one
vector (through autograd: ``cat`` of ``view(-1)``), and a vector's slices written back as the
parameters' ``.data``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Flatten parameters into one 1-D tensor (``torch.nn.utils.parameters_to_vector``).

    Args:
        parameters: an iterable of tensors (each viewable as ``(-1,)``).

    Returns:
        ``cat([p.view(-1) for p in parameters])``, length ``sum(p.numel())``; it is part of the
        graph (``CatBackward0`` over ``ViewBackward0``) when the parameters require grad.

    Raises:
        RuntimeError: no parameters (``cat`` of an empty list), or a parameter that cannot be
            viewed (non-contiguous).
    """
    import minigrad

    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return minigrad.cat(vec)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' ``.data``
    (``torch.nn.utils.vector_to_parameters``).

    Each parameter's ``.data`` becomes a view of ``vec`` shaped like it (no copy, as in
    PyTorch); the parameters' ``_version`` do not change.

    Args:
        vec: a 1-D tensor with at least ``sum(p.numel())`` elements.
        parameters: an iterable of tensors.

    Raises:
        TypeError: ``vec`` is not a Tensor.
        RuntimeError: ``vec`` is too short for the parameters.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected minigrad.Tensor, but got: {_typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


def _typename(obj) -> str:
    """``torch.typename``: ``'list'``, ``'numpy.ndarray'``, ..."""
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def _check_param_device(param: Tensor, old_param_device: int | None) -> int:
    """-1 for a CPU parameter (the only device minigrad has); PyTorch raises TypeError for
    parameters on different devices, which cannot happen here."""
    return -1
