"""Shared fixtures: ``lib`` pairs (minigrad, torch) and the ``device`` axis for CUDA parity."""

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
