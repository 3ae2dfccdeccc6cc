"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

Mirrors ``torch/autograd/grad_mode.py`` and ``torch/utils/_contextlib.py``. One global flag
decides whether new ops record a backward node; ops read it through :func:`is_grad_enabled`.
Each class works as a context manager (``with`` binds None, as in PyTorch) and as a decorator
(``@no_grad()``, also bare ``@no_grad``); a decorated generator runs every step in the mode.
"""

from __future__ import annotations

import functools
import inspect

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

    def __enter__(self) -> None:
        self._prev = _enabled
        _set(self._mode)

    def __exit__(self, *exc):
        _set(self._prev)
        return False

    def __call__(self, fn):
        """Use as a decorator: a fresh context per call (and per step of a generator)."""
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen_wrapper(*args, **kwargs):
                gen = fn(*args, **kwargs)
                try:
                    with self._fresh():
                        value = gen.send(None)
                    while True:
                        try:
                            sent = yield value
                        except GeneratorExit:
                            with self._fresh():
                                gen.close()
                            raise
                        except BaseException as e:  # noqa: BLE001 - forwarded to the generator
                            with self._fresh():
                                value = gen.throw(e)
                        else:
                            with self._fresh():
                                value = gen.send(sent)
                except StopIteration as stop:
                    return stop.value

            return gen_wrapper

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
    still honour an explicit ``requires_grad=True``; views of a tensor that requires grad keep
    ``requires_grad=True`` (as leaves). ``@no_grad`` works with or without parentheses.
    """

    _mode = False

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # bare ``@no_grad``


class enable_grad(_GradModeContext):
    """Context manager / decorator that enables recording (``torch.enable_grad``).

    ``@enable_grad`` works with or without parentheses.
    """

    _mode = True

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class set_grad_enabled(_GradModeContext):
    """Set grad mode on or off (``torch.set_grad_enabled``).

    Takes effect immediately, so it works as a plain call (global until changed again) and as a
    context manager (restores the previous mode on exit). As a decorator it does not change the
    mode at decoration time, only during calls.
    """

    def __init__(self, mode: bool):
        self._prev = _enabled
        self._mode = bool(mode)
        _set(mode)

    def __enter__(self) -> None:
        return None

    def __call__(self, fn):
        _set(self._prev)  # as a decorator, constructing it must not change the global mode
        return super().__call__(fn)

    def _fresh(self):
        return _Mode(self._mode)


class _Mode(_GradModeContext):
    """A plain ``with`` context for one mode (used by ``set_grad_enabled`` as a decorator)."""

    def __init__(self, mode: bool):
        self._mode = mode
