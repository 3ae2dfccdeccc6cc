"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Mirrors ``torch/autograd/grad_mode.py`` and ``torch/utils/_contextlib.py``. A per-thread flag
decides whether new ops record a backward node; ops read it through `is_grad_enabled`.
As in PyTorch the state is **thread-local**: a new thread starts with grad mode on and inference
mode off, whatever the thread that started it had. Each class works as a context manager
(``with`` binds None, as in PyTorch) and as a decorator (``@no_grad()``, also bare
``@no_grad``); a decorated generator runs every step in the mode.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings


class _State(threading.local):
    """Per-thread modes (``c10::AutoGradMode`` / ``c10::InferenceMode`` thread-local state)."""

    grad_enabled = True
    inference = False


_tls = _State()

# How many ``inference_mode(True)`` blocks are open, in all threads together. Reading a
# thread-local flag costs about 7 times a module attribute, and every new tensor checks for
# inference mode: while no block is open anywhere, ``inference_active()`` is False and the
# flag need not be read. (A count, not a flag: threads enter and leave blocks independently.)
_inference_blocks = 0
_count_lock = threading.Lock()


# How many threads have grad mode off right now, likewise: while none has, grad mode is on in
# this thread too and ``record`` (every op) need not read the thread-local flag. (A thread that
# ends with grad mode off leaves the count up for good: correct, only no longer a shortcut.)
_grad_off_threads = 0


def inference_active() -> bool:
    """``is_inference_mode_enabled()``, answered from the open-block count when it is 0."""
    return _inference_blocks != 0 and _tls.inference


def _count_inference_block(step: int) -> None:
    global _inference_blocks
    with _count_lock:
        _inference_blocks += step


def is_grad_enabled() -> bool:
    """True when new operations record backward nodes (``torch.is_grad_enabled``)."""
    return not _grad_off_threads or _tls.grad_enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` (``torch.is_inference_mode_enabled``)."""
    return _tls.inference


def _set(mode: bool) -> None:
    """Set this thread's grad mode (every change goes through here: see _grad_off_threads)."""
    global _grad_off_threads
    mode = bool(mode)
    if _tls.grad_enabled is not mode:
        with _count_lock:
            _grad_off_threads += 1 if not mode else -1
            _tls.grad_enabled = mode


CLASS_DECORATION_WARNING = (
    "Decorating classes is deprecated and will be disabled in future versions. You should only "
    "decorate functions or methods. To preserve the current behavior of class decoration, you "
    "can directly decorate the `__init__` method and nothing else.")


def _check_bool(mode, fn: str = "set_grad_enabled", arg: str = "enabled") -> bool:
    """``mode`` if it is a bool; else PyTorch's TypeError from its argument parser."""
    if not isinstance(mode, bool):
        raise TypeError(f"{fn}(): argument '{arg}' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    return mode


class _GradModeContext:
    """Shared machinery: set the flag on enter, restore the previous value on exit."""

    _mode: bool

    def __enter__(self) -> None:
        self._prev = _tls.grad_enabled
        _set(self._mode)

    def __exit__(self, *exc):
        _set(self._prev)
        return False

    def __call__(self, fn):
        """Use as a decorator: a fresh context per call (and per step of a generator). A class
        is wrapped as a function that constructs it, with PyTorch's FutureWarning."""
        if inspect.isclass(fn):
            warnings.warn(CLASS_DECORATION_WARNING, FutureWarning, stacklevel=2)
            cls = fn
            fn = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731 - as PyTorch
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
        self._prev = _tls.grad_enabled
        self._mode = _check_bool(mode)
        _set(mode)

    def __enter__(self) -> None:
        # (the mode again: a stored object entered later, or twice, sets it each time; and
        # __exit__ restores the mode from before construction, as PyTorch's object does)
        _set(self._mode)

    def __call__(self, fn):
        _set(self._prev)  # as a decorator, constructing it must not change the global mode
        return super().__call__(fn)

    def _fresh(self):
        return _Mode(self._mode)


class _Mode(_GradModeContext):
    """A plain ``with`` context for one mode (used by ``set_grad_enabled`` as a decorator)."""

    def __init__(self, mode: bool):
        self._mode = mode


class inference_mode(_GradModeContext):
    """Context manager / decorator for inference (``torch.inference_mode``; basic support).

    ``inference_mode()`` (or ``inference_mode(True)``) turns grad mode off and marks every tensor
    created inside as an *inference tensor* (``is_inference()`` True): it has no version counter
    (reading ``_version`` raises RuntimeError), cannot be modified in place outside inference
    mode, cannot be saved for backward, and cannot be made to require grad outside inference
    mode. Views of normal tensors made inside stay normal tensors (``requires_grad`` kept,
    no ``grad_fn``), but may not be modified in place later with grad mode on.
    ``inference_mode(False)`` turns inference mode off and grad mode on, for a nested block.
    ``@inference_mode`` works with or without parentheses.
    """

    def __new__(cls, mode=True):
        if callable(mode):  # bare ``@inference_mode``
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True):
        self._inference = bool(mode)

    def __enter__(self) -> None:
        self._prev = (_tls.grad_enabled, _tls.inference)
        if self._inference:
            _count_inference_block(1)
        _tls.inference = self._inference
        _set(not self._inference)

    def __exit__(self, *exc):
        _set(self._prev[0])
        _tls.inference = self._prev[1]
        if self._inference:
            _count_inference_block(-1)
        return False

    def _fresh(self):
        return type(self)(self._inference)
