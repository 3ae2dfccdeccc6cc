"""``minigrad.profiler``: the ``torch.profiler`` spelling of the profiler.

Mirrors ``torch/profiler/profiler.py`` in the small part a learner meets first:
``profile(activities=[ProfilerActivity.CPU], record_shapes=...)`` as a ``with`` block or with
``start()`` / ``stop()``, ``events()``, ``key_averages()``, and ``record_function`` (the very
object of `minigrad.autograd.profiler`, as in PyTorch). Everything is recorded by
`minigrad.autograd.profiler.profile` (see its module docstring for what is recorded and what is
left out); ``schedule``, ``on_trace_ready``, traces and memory timelines are not provided.
"""

from __future__ import annotations

import enum

from ..autograd.profiler import profile as _autograd_profile
from ..autograd.profiler import record_function

__all__ = ["profile", "record_function", "ProfilerActivity", "supported_activities"]


class ProfilerActivity(enum.Enum):
    """What a profile records (PyTorch's ``ProfilerActivity`` members). minigrad runs on
    NumPy only, so every activity records the CPU events; the others measure nothing."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities() -> set:
    """The activities minigrad can record: ``{ProfilerActivity.CPU}``."""
    return {ProfilerActivity.CPU}


class profile(_autograd_profile):  # noqa: N801 - PyTorch's name
    """``torch.profiler.profile``: `minigrad.autograd.profiler.profile` with the newer API's
    arguments (``activities`` may list ``ProfilerActivity`` members; CPU events are recorded
    whatever it lists) and methods: ``start()``, ``stop()``, ``step()`` (counts steps only:
    there is no schedule), ``events()`` (the recorded `EventList`)."""

    def __init__(self, *, activities=None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_flops: bool = False, with_modules: bool = False, **ignored):
        super().__init__(record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops,
                         with_modules=with_modules)
        self.activities = set(activities) if activities is not None else supported_activities()
        self.step_num = 0

    def start(self) -> None:
        """Begin recording (what entering the ``with`` block does)."""
        self.__enter__()

    def stop(self) -> None:
        """End recording (what leaving the ``with`` block does)."""
        self.__exit__(None, None, None)

    def step(self) -> None:
        """Mark the end of one training step (only counted: minigrad has no schedule)."""
        self.step_num += 1

    def events(self):
        """The recorded events (`minigrad.autograd.profiler.EventList`), in start order."""
        return self._finished_events("events")


def __dir__():
    """`dir()` lists the public names (`__all__`), not the helpers imported here."""
    from .._namespace import public_dir

    return public_dir(globals())
