"""The oneDNN switch (``torch.backends.mkldnn``).

On PyTorch's CPU, oneDNN (formerly MKL-DNN) runs a float32 or bfloat16 ``nn.LSTM`` (without
``proj_size``) as one fused op per layer and direction, recorded as one
``MkldnnRnnLayerBackward0`` node. minigrad has the same fused path, in NumPy
(`minigrad._ops.rnn`), and takes it exactly where PyTorch does while ``enabled`` is True (the
default); with it off, an LSTM records the composition of ordinary ops, as PyTorch does under
``torch.backends.mkldnn.flags(enabled=False)``. No other op of minigrad reads this switch.

``deterministic``, ``allow_tf32`` and ``fp32_precision`` are kept and restored like PyTorch's
but change nothing (minigrad's kernels are deterministic and compute in full float32).

Example::

    with minigrad.backends.mkldnn.flags(enabled=False):
        out, (h, c) = lstm(x)   # the composition: AddmmBackward0, SigmoidBackward0, ...
"""

from __future__ import annotations

from contextlib import contextmanager

__all__ = ["is_available", "flags", "set_flags", "enabled", "deterministic", "allow_tf32"]

enabled: bool = True
deterministic: bool = False
allow_tf32: bool = True
fp32_precision: str = "none"


def is_available() -> bool:
    """True: minigrad always has its (NumPy) fused LSTM layer (PyTorch: whether it was built
    with oneDNN)."""
    return True


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    """Set the given switches (None leaves one as it is); returns the previous values as a
    tuple ``(enabled, deterministic, allow_tf32, fp32_precision)``, as PyTorch's."""
    global enabled, deterministic, allow_tf32, fp32_precision
    orig = (enabled, deterministic, allow_tf32, fp32_precision)
    if _enabled is not None:
        enabled = bool(_enabled)
    if _deterministic is not None:
        deterministic = bool(_deterministic)
    if _allow_tf32 is not None:
        allow_tf32 = bool(_allow_tf32)
    if _fp32_precision is not None:
        fp32_precision = _fp32_precision
    return orig


@contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """Within the block, the switches take these values (note PyTorch's default: oneDNN
    *off*); on exit, even by an exception, the previous ones come back."""
    orig = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        set_flags(*orig)
