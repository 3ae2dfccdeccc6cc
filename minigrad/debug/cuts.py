"""Where a forward *cut the graph*: the op that turned a tensor with history into one without.

A parameter gets no gradient for one of two reasons: its module never ran (it is "not used in
forward"), or the graph between it and the loss was cut. The cut leaves no trace in the graph
(the graph simply stops), so it has to be seen while the forward runs:

* **torch**: a ``TorchFunctionMode`` sees every op. A cut is an op that received a tensor that
  requires grad and returned a floating tensor that does not (``detach``, ``.data``, any op
  under ``no_grad``); ``Tensor.numpy`` and ``torch.tensor(...)`` are noted as the two halves of
  a NumPy round trip;
* **minigrad**: there is no function mode, so the few entry points that make a tensor without
  history are wrapped while the forward runs (``Tensor.detach``, ``Tensor.data``,
  ``Tensor.numpy``, ``minigrad.tensor``, and entering ``no_grad`` / ``set_grad_enabled(False)``
  from user code).

Each event keeps the op and the line of user code that ran it; `describe` turns the first
one into the sentence and the fix a report shows.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from ._util import current_user_frame, is_internal, is_tensor, where

__all__ = ["CutEvent", "CutRecorder", "describe"]


@dataclass
class CutEvent:
    """``kind``: ``"detach"``, ``"data"``, ``"no_grad"``, ``"numpy"`` (a tensor left for
    NumPy), ``"from_data"`` (a new tensor made from data, e.g. ``torch.tensor(array)``) or
    ``"op"`` (another op returning no history); ``op``: the op's name; ``where``: its
    ``file:line: code``."""

    kind: str
    op: str
    where: str
    entered: str | None = None  # for "no_grad" in torch: where the no_grad block began


_FIXES = {
    "detach": "remove .detach() from the forward (detach only values you log, or targets)",
    "data": "use the tensor itself, not .data (.data is a view without history)",
    "no_grad": "remove the no_grad block from forward (use no_grad for evaluation only)",
    "numpy": "keep the computation in tensor ops: a NumPy round trip (.numpy(), then "
             "tensor(...)) makes a new tensor without history",
    "op": "do not compute this part without history",
}


def describe(events) -> tuple | None:
    """``(what, fix, where)`` for the cut that explains missing gradients, or None.

    The first *cutting* event wins; a NumPy conversion anywhere makes the message name the
    round trip (the detach before ``.numpy()`` is only how the round trip starts)."""
    cuts = [e for e in events if e.kind in ("detach", "data", "no_grad", "op")]
    if not cuts:
        return None
    first = cuts[0]
    numpy = next((e for e in events if e.kind == "numpy"), None)
    if numpy is not None:
        back = next((e for e in events if e.kind == "from_data"), None)
        what = (f"the graph is cut by a NumPy round trip: {first.op} then .numpy() at "
                f"{numpy.where}" + (f", back as a new tensor at {back.where}" if back else ""))
        return what, _FIXES["numpy"], first.where
    if first.kind == "no_grad":
        block = f" (the no_grad block starts at {first.entered})" if first.entered else ""
        return (f"the graph is cut by an op under no_grad at {first.where}{block}",
                _FIXES["no_grad"], first.entered or first.where)
    return f"the graph is cut by {first.op} at {first.where}", _FIXES[first.kind], first.where


class CutRecorder:
    """Context manager recording `CutEvent`s for ``lib`` (the ``minigrad`` or
    ``torch`` module) while a forward runs; the events are in ``.events``."""

    def __init__(self, lib):
        self.lib = lib
        self.events: list = []
        self._undo: list = []

    def _add(self, kind, op):
        self.events.append(CutEvent(kind, op, where(current_user_frame())))

    def __enter__(self) -> CutRecorder:
        if self.lib.__name__ == "torch":
            self._enter_torch()
        else:
            self._enter_minigrad()
        return self

    def __exit__(self, *exc) -> None:
        while self._undo:
            self._undo.pop()()

    # ------------------------------------------------------------------ torch
    def _enter_torch(self):
        torch = sys.modules["torch"]
        from torch.overrides import TorchFunctionMode

        add, events = self._add, self.events
        entered = []  # where the innermost no_grad block in user code began

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                name = getattr(func, "__name__", str(func))
                if name == "_set_grad_enabled":  # torch.no_grad().__enter__ / __exit__
                    if args and args[0] is False:
                        entered.append(where(current_user_frame()))
                    elif entered:
                        entered.pop()
                    return out
                if name == "__get__":  # a property: .data, .grad, .T ...
                    name = getattr(getattr(func, "__self__", None), "__name__", name)
                if name == "numpy":
                    add("numpy", ".numpy()")
                elif name in ("tensor", "as_tensor") and not _any_grad(args):
                    add("from_data", f"torch.{name}(...)")
                elif is_tensor(out) and out.dtype.is_floating_point and \
                        not out.requires_grad and _any_grad(args, kwargs):
                    kind = {"detach": "detach", "data": "data"}.get(name) or (
                        "no_grad" if not torch.is_grad_enabled() else "op")
                    add(kind, {"detach": ".detach()", "data": ".data"}.get(name, name))
                    if kind == "no_grad" and entered:
                        events[-1].entered = entered[-1]
                return out

        mode = Mode()
        mode.__enter__()
        self._undo.append(lambda: mode.__exit__(None, None, None))

    # ------------------------------------------------------------------ minigrad
    def _enter_minigrad(self):
        import minigrad

        from .. import _tensor
        from ..autograd import grad_mode

        tensor_cls = _tensor.Tensor
        add = self._add

        def from_user_code():
            # the caller of the wrapped function, 2 frames up (past this one and the wrapper);
            # minigrad's own calls (the engine, the debug tools) are no cut. (A frame object,
            # not traceback.extract_stack: this runs for every detach in the forward.)
            return not is_internal(sys._getframe(2).f_code.co_filename)

        def wrap(owner, attr, kind, label, when=lambda *a: True):
            own = attr in vars(owner)
            original = getattr(owner, attr)

            def wrapper(*args, **kwargs):
                if when(*args, **kwargs) and from_user_code():
                    add(kind, label)
                return original(*args, **kwargs)

            setattr(owner, attr, wrapper)
            self._undo.append(lambda: setattr(owner, attr, original) if own
                              else delattr(owner, attr))

        wrap(tensor_cls, "detach", "detach", ".detach()", lambda t: t.requires_grad)
        wrap(tensor_cls, "numpy", "numpy", ".numpy()")
        wrap(minigrad, "tensor", "from_data", "minigrad.tensor(...)",
             lambda data, *a, **k: not is_tensor(data))
        wrap(grad_mode.no_grad, "__enter__", "no_grad", "no_grad")
        wrap(grad_mode.set_grad_enabled, "__init__", "no_grad", "set_grad_enabled(False)",
             lambda ctx, mode: not mode)
        data = vars(tensor_cls)["data"]

        def data_get(t):
            if t.requires_grad and not is_internal(sys._getframe(1).f_code.co_filename):
                add("data", ".data")
            return data.fget(t)

        tensor_cls.data = property(data_get, data.fset, data.fdel, data.__doc__)
        self._undo.append(lambda: setattr(tensor_cls, "data", data))


def _any_grad(args, kwargs=None) -> bool:
    """True when a tensor argument (top level, or in a list / tuple argument) requires grad."""
    items = list(args) + list((kwargs or {}).values())
    for a in items:
        if isinstance(a, (list, tuple)):
            items.extend(a)
        elif is_tensor(a) and a.requires_grad:
            return True
    return False
