"""``dir()`` of the public modules (PEP 562 ``__dir__``): what PyTorch's namespaces show.

A module's namespace also holds what it imported for its own use (``np``, ``warnings``,
``importlib``, the ``annotations`` of ``from __future__ import annotations``); ``dir()`` of a
public module lists its ``__all__``, its own submodules and its dunder attributes instead.
"""

from __future__ import annotations

from types import ModuleType


def public_dir(namespace: dict) -> list:
    """``dir()`` of the module whose globals are ``namespace``."""
    name = namespace["__name__"]
    own = [k for k, v in namespace.items()
           if isinstance(v, ModuleType) and v.__name__ == f"{name}.{k}"]
    dunder = [k for k in namespace if k.startswith("__") and k.endswith("__")]
    return sorted({*namespace.get("__all__", ()), *own, *dunder})
