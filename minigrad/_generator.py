"""``minigrad.Generator`` and the default generator's seeding (``torch.Generator``,
``torch/random.py``: ``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state``).

A `Generator` wraps a NumPy ``Generator`` (PCG64). The random functions take one through
``generator=``; without it they draw from the default generator, which `manual_seed` reseeds.
The numbers differ from PyTorch's (its CPU generator is a Mersenne Twister): a seed makes a
run reproducible *within* one library, and the distributions are the same.
"""

from __future__ import annotations

import numpy as np

from ._device import CPU, check_device

DEFAULT_SEED = 67280421310721  # a fresh torch.Generator's initial_seed()
_MASK = (1 << 64) - 1
# 16 bytes of PCG64 state, 16 of increment, a flag, a buffered 32-bit value, the seed (8 bytes:
# restoring a state restores initial_seed(), as PyTorch's does)
STATE_BYTES = 45


class Generator:
    """A source of random numbers with its own state (``torch.Generator``).

    ``Generator(device='cpu')``; ``manual_seed(seed)`` (returns self), ``seed()`` (a fresh
    non-deterministic seed, returned), ``initial_seed()``, ``get_state()`` (a uint8 tensor) and
    ``set_state(state)`` (returns self). Pass it as ``generator=`` to ``rand``, ``randn``,
    ``randint``, ``randperm``, ``normal``, ``bernoulli``, ``multinomial``, the in-place
    ``uniform_`` / ``normal_`` / ``random_`` / ``bernoulli_``, ``DataLoader``, ``random_split``
    and the samplers.

    Raises:
        AssertionError / RuntimeError: ``device`` is not the CPU (see `minigrad.device`).
    """

    def __init__(self, device="cpu"):
        check_device(device)
        self.device = CPU
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed) -> Generator:
        """Reseed with ``seed`` (an int; negative ones wrap to 64 bits, as PyTorch's); returns
        self. RuntimeError for a seed that is not an int."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -(1 << 63) <= seed <= _MASK:
            raise RuntimeError("Overflow when unpacking long long")
        self._seed = seed & _MASK
        self._np = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        new = int(np.random.SeedSequence().entropy) & _MASK
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with."""
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor (opaque bytes: give them back to `set_state`)."""
        from ._tensor import Tensor

        state = self._np.bit_generator.state
        parts = (state["state"]["state"].to_bytes(16, "little"),
                 state["state"]["inc"].to_bytes(16, "little"),
                 bytes([state["has_uint32"]]), int(state["uinteger"]).to_bytes(4, "little"),
                 self._seed.to_bytes(8, "little"))
        return Tensor._make(np.frombuffer(b"".join(parts), dtype=np.uint8).copy())

    def set_state(self, new_state) -> Generator:
        """Restore a state from `get_state`.

        Raises:
            TypeError: ``new_state`` is not a uint8 tensor.
            RuntimeError: it does not have the length `get_state` gives.
        """
        from ._tensor import Tensor

        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a minigrad.ByteTensor, but got "
                            f"{type(new_state).__name__}")
        if new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a minigrad.ByteTensor")
        raw = new_state._data.tobytes()
        if len(raw) != STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but "
                               f"found the input RNG state size to be {len(raw)}")
        self._np.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[:16], "little"),
                      "inc": int.from_bytes(raw[16:32], "little")},
            "has_uint32": raw[32], "uinteger": int.from_bytes(raw[33:37], "little")}
        self._seed = int.from_bytes(raw[37:], "little")
        return self

    def __repr__(self) -> str:
        return f"<minigrad.Generator object at {hex(id(self))}>"


default = Generator()  # what the random functions draw from without generator=
default.seed()  # (as PyTorch: a fresh process starts from a non-deterministic seed)


def numpy_rng(generator=None, fn: str = "") -> np.random.Generator:
    """The NumPy generator behind ``generator=`` (the default generator for None).

    Raises:
        TypeError: ``generator`` is not a `Generator`.
    """
    if generator is None:
        return default._np
    if not isinstance(generator, Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be minigrad.Generator, not "
                        f"{type(generator).__name__}")
    return generator._np


def manual_seed(seed) -> Generator:
    """Seed the default generator (``torch.manual_seed``); returns it."""
    return default.manual_seed(seed)


def seed() -> int:
    """Seed the default generator non-deterministically (``torch.seed``); returns the seed."""
    return default.seed()


def initial_seed() -> int:
    """The default generator's seed (``torch.initial_seed``)."""
    return default.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor (``torch.get_rng_state``).

    Like PyTorch's, the bytes are opaque: give them back to `set_rng_state` to replay the same
    random numbers (what `minigrad.utils.checkpoint` does to recompute a dropout mask). Here
    they encode NumPy's PCG64 state: 16 bytes of state, 16 of increment, a flag, 4 bytes
    of a buffered 32-bit value and the 8-byte seed."""
    return default.get_state()


def set_rng_state(new_state) -> None:
    """Restore a state given by `get_rng_state` (``torch.set_rng_state``).

    Raises:
        TypeError: ``new_state`` is not a uint8 tensor.
        RuntimeError: it does not have the length `get_rng_state` gives.
    """
    default.set_state(new_state)
