"""``dir()`` of the public namespaces lists what PyTorch's do: the public names and the
package's own submodules, not the helpers a module imported (``importlib``, ``np``,
``warnings``, the ``annotations`` of ``from __future__ import annotations``)."""

import importlib
import types

import pytest

MODULES = ["minigrad", "minigrad.nn", "minigrad.nn.functional", "minigrad.nn.init",
           "minigrad.optim", "minigrad.autograd", "minigrad.cuda", "minigrad.utils.data",
           "minigrad.linalg", "minigrad.nn.utils", "minigrad.profiler",
           "minigrad.autograd.profiler", "minigrad.autograd.profiler_util", "minigrad.func"]


@pytest.mark.parametrize("name", MODULES)
def test_dir_has_no_stray_names(name):
    module = importlib.import_module(name)
    public = [n for n in dir(module) if not n.startswith("_")]
    stray = [n for n in public if n not in module.__all__ and not (
        isinstance(getattr(module, n, None), types.ModuleType)
        and getattr(module, n).__name__ == f"{name}.{n}")]
    assert not stray, f"dir({name}) shows {stray}"
    assert set(module.__all__) <= set(dir(module))
    for helper in ("np", "importlib", "warnings", "annotations", "math"):
        assert helper not in dir(module), helper
