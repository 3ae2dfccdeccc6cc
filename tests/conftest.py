"""Shared fixtures: ``lib`` pairs (minigrad, torch) and the ``device`` axis for CUDA parity."""

import zlib

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

# Tests use tiny arrays: BLAS/OpenMP threads only add contention under pytest-xdist (a
# multi-threaded OpenBLAS on small matrices is many times slower on a busy 2-core machine).
torch.set_num_threads(1)
try:
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
except ImportError:  # pragma: no cover - threadpoolctl is in the test extra
    pass


def _spend_the_once_per_process_warnings():
    """float() of a tensor that requires grad warns once per process in both libraries
    (tests/parity/test_scalar_warning.py checks that in subprocesses). Spend it here, in both,
    so that which test happens to be first cannot make one library warn and not the other."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lib in (minigrad, torch):
            float(lib.ones(1, requires_grad=True))


_spend_the_once_per_process_warnings()


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def device(request):
    """Device the PyTorch side runs on; minigrad always runs on NumPy."""
    if request.param == "cuda":
        if not torch.cuda.is_available():
            pytest.skip("CUDA parity: no GPU on this machine")
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    return request.param


@pytest.fixture
def libs():
    """The two libraries every parity scenario runs on."""
    return minigrad, torch


_GLOBAL_HOOK_DICTS = ("_global_forward_pre_hooks", "_global_forward_hooks",
                      "_global_backward_pre_hooks", "_global_backward_hooks")
# Flag dicts keyed by hook id. PyTorch's handle for a global forward hook does not remove its
# ``with_kwargs`` flag (a harmless stale entry), so these are cleared without failing the test.
_GLOBAL_FLAG_DICTS = ("_global_forward_hooks_with_kwargs", "_global_forward_hooks_always_called")


@pytest.fixture(autouse=True)
def _isolate_global_module_hooks():
    """A test that fails half-way must not leave a global module hook behind: it would change
    every later test in the same worker (in both libraries). Fails the test that leaked one."""
    import torch.nn.modules.module as torch_module

    import minigrad.nn.modules.module as mg_module

    yield
    leaked = []
    for mod in (torch_module, mg_module):
        for name in _GLOBAL_HOOK_DICTS:
            hooks = getattr(mod, name, None)
            if hooks:
                leaked.append(f"{mod.__name__}.{name}")
                hooks.clear()
        for name in _GLOBAL_FLAG_DICTS:
            getattr(mod, name).clear()
        mod._global_is_full_backward_hook = None
    assert not leaked, f"test left global module hooks registered: {leaked}"


@pytest.fixture(autouse=True)
def _per_test_rng(request):
    """Reseed a test module's module-level NumPy generator (``RNG``/``rng``) from the test id, so
    every test draws the same data whatever ran before it in the same xdist worker."""
    seed = zlib.crc32(request.node.nodeid.encode())
    for name in ("RNG", "rng", "_RNG"):
        if isinstance(getattr(request.module, name, None), np.random.Generator):
            setattr(request.module, name, np.random.default_rng(seed))
