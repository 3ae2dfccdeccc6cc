"""Anomaly detection: remember where each node was made, and stop backward at the first NaN.

Mirrors ``torch/autograd/anomaly_mode.py`` (the Python switches) and
``torch/csrc/autograd/anomaly_mode.cpp`` / ``python_anomaly_mode.cpp`` (what the engine does):

* while anomaly mode is on, every node created stores the Python stack of the forward call that
  made it in ``node.metadata["traceback_"]`` (a list of ``traceback.format_list`` strings,
  outermost frame first, as PyTorch stores it);
* during backward, when a node raises, a ``UserWarning`` prints that stack ("Error detected in
  MulBackward0. Traceback of forward call that caused the error: ...") and the error propagates;
* with ``check_nan`` (the default), a node that returns a gradient containing NaN raises
  ``RuntimeError: Function 'LogBackward0' returned nan values in its 0th output.`` (checked after
  the node's post-hooks, as PyTorch does; Inf is not checked).

minigrad's own stacks leave out its internal frames (``minigrad/autograd``, ``minigrad/_ops``,
``_tensor.py``, ``nn/functional.py``), where PyTorch's stop at the C++ boundary, so the last frame
is the line of user (or ``nn.Module``) code that called the op in both libraries.

``_node_watchers`` is a minigrad extension used by `minigrad.debug`: callables
``fn(node, outputs)`` run for every node recorded by an op while anomaly mode is on.
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings

import numpy as np

__all__ = ["set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]

ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and "
                   "should only be enabled for debugging.")

_enabled = False
_check_nan = True
_node_watchers: list = []

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_INTERNAL = tuple(os.path.join(_PKG, p) for p in (
    "autograd" + os.sep, "_ops" + os.sep, "_tensor.py", "_creation.py",
    os.path.join("nn", "functional.py")))


def is_anomaly_enabled() -> bool:
    """True while anomaly detection is on (``torch.is_anomaly_enabled``)."""
    return _enabled


def is_anomaly_check_nan_enabled() -> bool:
    """True when anomaly detection also checks backward outputs for NaN
    (``torch.is_anomaly_check_nan_enabled``)."""
    return _check_nan


def _set(mode: bool, check_nan: bool) -> None:
    global _enabled, _check_nan
    _enabled, _check_nan = bool(mode), bool(check_nan)


class detect_anomaly:
    """Context manager: anomaly detection on (``torch.autograd.detect_anomaly``).

    Warns once per use that it slows things down. Inside it, nodes remember their forward
    traceback and backward raises ``RuntimeError`` at the first node returning NaN (unless
    ``check_nan=False``). The previous state is restored on exit.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _enabled
        self.prev_check_nan = _check_nan
        self.check_nan = check_nan
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        _set(True, self.check_nan)

    def __exit__(self, *exc) -> None:
        _set(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Set anomaly detection on or off (``torch.autograd.set_detect_anomaly(mode, check_nan)``).

    Takes effect when called, so it works as a plain function; used as a context manager it
    restores the previous state on exit.
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _enabled
        self.prev_check_nan = _check_nan
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set(self.prev, self.prev_check_nan)


def _user_stack() -> list:
    """The current Python stack as ``format_list`` strings, minigrad's engine frames dropped."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_INTERNAL):
        frames.pop()
    return traceback.format_list(frames)


def on_node_created(node) -> None:
    """Called by ``Node.__init__`` while anomaly mode is on: store the forward traceback."""
    node.metadata["traceback_"] = _user_stack()


def on_outputs(node, outputs) -> None:
    """Called by ``graph.record`` while anomaly mode is on: let watchers see the new outputs."""
    for fn in list(_node_watchers):
        fn(node, outputs)


def _warn_forward_trace(node) -> None:
    stack = node.metadata.get("traceback_")
    if stack is None:
        msg = (f"Error detected in {node.name()}. No forward pass information available. Enable "
               "detect anomaly during forward pass for more information.")
    else:
        msg = (f"Error detected in {node.name()}. Traceback of forward call that caused the "
               "error:\n" + "".join(stack))
    try:
        warnings.warn(msg, UserWarning, stacklevel=4)
    except Exception:  # (a warnings filter of "error"): as PyTorch, the node's error is what
        # propagates; the warning is only printed to stderr
        print(warnings.formatwarning(msg, UserWarning, __file__, 0).rstrip(), file=sys.stderr)


def run_node(call, node, *args):
    """Run ``call(node, *args)`` (the engine's node step) under anomaly detection.

    On any error, warn with the node's forward traceback and re-raise. With ``check_nan``, a
    gradient containing NaN raises ``RuntimeError`` naming the node and the output index.
    """
    try:
        outs = call(node, *args)
        if _check_nan:
            for i, g in enumerate(outs):
                if g is not None and np.isnan(g._data).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its "
                                       f"{i}th output.")
    except Exception:
        _warn_forward_trace(node)
        raise
    return outs
