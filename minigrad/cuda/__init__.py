"""``minigrad.cuda``: the honest "no GPU here" answers (``torch/cuda/__init__.py``).

minigrad computes with NumPy on the CPU. These functions answer as a CPU-only build of PyTorch
does, so ``device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`` picks the
CPU and the rest of a script runs unchanged: `is_available` is False, `device_count` 0, seeding
is accepted and does nothing (there is no CUDA generator), and asking for a GPU
(`current_device`, `set_device`, `get_device_name`, `synchronize`, `init`) raises PyTorch's
AssertionError "Torch not compiled with CUDA enabled". The parity suite can still run
PyTorch's side on a GPU (tests parametrised over ``device``).
"""

from __future__ import annotations

from .._device import NO_CUDA as _NO_CUDA

__all__ = ["is_available", "device_count", "is_initialized", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "current_device", "set_device", "get_device_name",
           "synchronize", "init", "empty_cache", "memory_allocated", "is_bf16_supported"]


def is_available() -> bool:
    """False: minigrad has no CUDA (``torch.cuda.is_available``)."""
    return False


def device_count() -> int:
    """0 (``torch.cuda.device_count``)."""
    return 0


def is_initialized() -> bool:
    """False: CUDA is never initialised (``torch.cuda.is_initialized``)."""
    return False


def manual_seed(seed) -> None:
    """Accepted and ignored, as PyTorch without a GPU does (``torch.cuda.manual_seed``)."""


def manual_seed_all(seed) -> None:
    """Accepted and ignored (``torch.cuda.manual_seed_all``)."""


def seed() -> None:
    """Accepted and ignored (``torch.cuda.seed``)."""


def seed_all() -> None:
    """Accepted and ignored (``torch.cuda.seed_all``)."""


def empty_cache() -> None:
    """Nothing to free (``torch.cuda.empty_cache``)."""


def memory_allocated(device=None) -> int:
    """0 bytes (``torch.cuda.memory_allocated``)."""
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False (``torch.cuda.is_bf16_supported``)."""
    return False


def current_device() -> int:
    """Raises AssertionError: there is no CUDA device (``torch.cuda.current_device``)."""
    raise AssertionError(_NO_CUDA)


def set_device(device) -> None:
    """Raises AssertionError: there is no CUDA device (``torch.cuda.set_device``)."""
    raise AssertionError(_NO_CUDA)


def get_device_name(device=None) -> str:
    """Raises AssertionError: there is no CUDA device (``torch.cuda.get_device_name``)."""
    raise AssertionError(_NO_CUDA)


def synchronize(device=None) -> None:
    """Raises AssertionError: there is no CUDA device (``torch.cuda.synchronize``)."""
    raise AssertionError(_NO_CUDA)


def init() -> None:
    """Raises AssertionError: there is no CUDA to initialise (``torch.cuda.init``)."""
    raise AssertionError(_NO_CUDA)


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
