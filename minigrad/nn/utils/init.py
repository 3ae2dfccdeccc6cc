"""``skip_init``: build a module without paying for its parameter initialisation.

Mirrors ``torch/nn/utils/init.py``.
"""

from __future__ import annotations

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Instantiate ``module_cls(*args, **kwargs)`` with uninitialised parameters and buffers
    (``torch.nn.utils.skip_init``).

    PyTorch builds the module on the ``meta`` device and then allocates empty storage with
    ``to_empty``; minigrad has no meta device, so it builds the module on ``device`` (the
    initialisers run) — the values are as unspecified as ``torch.empty``'s either way, so
    initialise them yourself.

    Args:
        module_cls: a subclass of ``nn.Module`` whose constructor takes ``device``.
        *args: positional arguments of the constructor.
        **kwargs: keyword arguments of the constructor; ``device`` defaults to ``'cpu'``.

    Returns:
        The module.

    Raises:
        RuntimeError: ``module_cls`` is not a Module subclass, or its constructor has no
            ``device`` argument.
    """
    from ..modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    return module_cls(*args, device=final_device, **kwargs)
