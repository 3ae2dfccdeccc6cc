"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

Mirrors ``torch/autograd/grad_mode.py``. One global flag decides whether new ops record a
backward node; ops read it through :func:`is_grad_enabled`. Each class works as a context
manager and as a decorator.
"""

from __future__ import annotations

import functools

_enabled = True


def is_grad_enabled() -> bool:
    """True when new operations record backward nodes (``torch.is_grad_enabled``)."""
    return _enabled


def _set(mode: bool) -> None:
    global _enabled
    _enabled = bool(mode)


class _GradModeContext:
    """Shared machinery: set the flag on enter, restore the previous value on exit."""

    _mode: bool

    def __enter__(self):
        self._prev = _enabled
        _set(self._mode)
        return self

    def __exit__(self, *exc):
        _set(self._prev)
        return False

    def __call__(self, fn):
        # Used as a decorator: a fresh context per call, so recursion and threads nest correctly.
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self._fresh():
                return fn(*args, **kwargs)

        return wrapper

    def _fresh(self):
        return type(self)()


class no_grad(_GradModeContext):
    """Context manager / decorator that disables recording (``torch.no_grad``).

    Results computed inside have ``requires_grad=False`` and no ``grad_fn``; factory functions
    still honour an explicit ``requires_grad=True``.
    """

    _mode = False


class enable_grad(_GradModeContext):
    """Context manager / decorator that enables recording (``torch.enable_grad``)."""

    _mode = True


class set_grad_enabled(_GradModeContext):
    """Set grad mode on or off (``torch.set_grad_enabled``).

    Takes effect immediately, so it works as a plain call (global until changed again) and as a
    context manager (restores the previous mode on exit).
    """

    def __init__(self, mode: bool):
        self._prev = _enabled
        self._mode = bool(mode)
        _set(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(self._prev)
        return False

    def __call__(self, fn):
        _set(self._prev)  # as a decorator, constructing it must not change the global mode
        return super().__call__(fn)

    def _fresh(self):
        return set_grad_enabled(self._mode)
