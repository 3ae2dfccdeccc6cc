"""``explain_inplace_error``: turn "one of the variables needed for gradient computation has
been modified by an inplace operation" into which tensor, which op saved it, and which in-place
op(s) changed it afterwards, each with its line of code, and the fix.

PyTorch's message gives only the tensor's shape, the op that made it and two version numbers.
Everything else is recorded while the step is run again:

* **the version bumps**: every in-place op adds one to the tensor's version counter (shared by
  all views of a storage). For torch, a ``TorchFunctionMode`` compares the ``_version`` of each
  op's tensor arguments before and after the call; for minigrad, the counter's ``bump`` is
  wrapped. Each bump keeps the op, the line of user code and the version it reached;
* **the node that saved the tensor**: anomaly detection stores where each node was created;
  after the error, the graph's nodes are asked for their ``_saved_<name>`` values, and the one
  that raises the same error is the node that needed the old value;
* **who made the tensor**: the module (qualified name) and line of the op that produced it.

The bumps that matter are those between the version saved (``expected version 1``) and the
version found (``is at version 2``).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import warnings
from dataclasses import dataclass, field

from ._util import (
    ModuleStack,
    current_user_frame,
    is_debug_tool,
    is_internal,
    is_tensor,
    qualified_name,
    tensors_in,
    user_frame,
    walk_graph,
    where,
)

__all__ = ["explain_inplace_error", "InplaceExplanation", "Bump", "is_inplace_error"]

_PHRASE = "modified by an inplace operation"
_MESSAGE = re.compile(r"\[\S+ \[([\d, ]*)\]\](?:, which is output (\d+) of (\w+),)? is at "
                      r"version (\d+); expected version (\d+)")


def is_inplace_error(exc) -> bool:
    """True for autograd's "modified by an inplace operation" RuntimeError."""
    return isinstance(exc, RuntimeError) and _PHRASE in str(exc)


@dataclass
class Bump:
    """One in-place change: ``op`` (``"add_"``, ``"relu"``, ``"SGD.step"``), ``where``
    (``file:line: code``), ``version``: the version the tensor reached; ``module``: the
    qualified name of the module whose forward ran it (None outside any module)."""

    op: str
    where: str
    version: int
    module: str | None = None

    def __str__(self) -> str:
        inside = "" if self.module is None else \
            f" in {'the model' if not self.module else repr(self.module)}"
        return f"{self.op}{inside} at {self.where}"


@dataclass
class InplaceExplanation:
    """What `explain_inplace_error` found.

    ``shape``; ``producer``: the op that made the tensor (``"Sigmoid"``; None for a leaf such
    as a parameter) and ``made_at`` / ``module``: where and in which module; ``saved_by``: the
    backward node that needed the old value, ``saved_attr`` its attribute and ``saved_at``
    where its op ran; ``expected`` / ``found``: the versions; ``bumps``: the in-place ops
    that took it from ``expected`` to ``found``; ``fix``: what to change; ``error``: the
    original message; ``parameter``: the parameter's qualified name when the tensor is a
    parameter (or a view of one, as the ``weight.t()`` a Linear saves).
    """

    shape: tuple
    producer: str | None
    expected: int
    found: int
    error: str
    saved_by: str | None = None
    saved_attr: str | None = None
    saved_at: str | None = None
    made_at: str | None = None
    module: str | None = None
    bumps: list = field(default_factory=list)
    fix: str = ""
    parameter: str | None = None

    def __str__(self) -> str:
        what = f"the tensor of shape {list(self.shape)}"
        if self.parameter is not None:
            what += f" (parameter '{self.parameter}'" + (
                f", through a {self.producer} view)" if self.producer else ")")
        elif self.producer:
            what += f" made by {self.producer}"
        else:
            what += " (a leaf: a parameter or an input)"
        if self.module is not None:
            what += f" in {'the model' if not self.module else repr(self.module)}"
        if self.made_at:
            what += f" at {self.made_at}"
        lines = [f"in-place error: {what}"]
        if self.saved_by:
            lines.append(f"  was saved for backward by {self.saved_by} ({self.saved_attr}), "
                         f"whose op ran at {self.saved_at or 'an unknown location'}")
        lines.append(f"  was then modified in place (version {self.expected} -> {self.found}) "
                     "by:" if self.bumps else
                     f"  was then modified in place (version {self.expected} -> {self.found}) "
                     "by an op that was not seen")
        lines += [f"    {b}" for b in self.bumps]
        lines.append(f"  fix: {self.fix}")
        return "\n".join(lines)


def explain_inplace_error(step, *args, **kwargs) -> InplaceExplanation | None:
    """Run ``step(*args, **kwargs)`` (a forward and backward that raises the in-place error)
    while recording version bumps and saved tensors; explain the error.

    Args:
        step: a callable doing the forward and the backward (and whatever runs between, e.g.
            an optimizer step), minigrad or torch.

    Returns an `InplaceExplanation`, or None when the step ran without the in-place error.
    Any other exception from the step propagates.
    """
    rec = _Recorder()
    try:
        with rec:
            step(*args, **kwargs)
    except RuntimeError as e:
        if not is_inplace_error(e):
            raise
        return rec.explain(str(e))
    return None


def _op_name(frame) -> str:
    """The op a minigrad bump came from, read off the internal frames between the counter
    and the innermost user frame: an optimizer's ``step``, an operator (``__iadd__``), the
    op an in-place wrapper applies (``mul_``: the ``op`` closure of ``_ops/inplace.py`` keeps
    its out-of-place function as ``fn``), else the most specific public function name."""
    inner = _internal_frames(frame)  # innermost first
    step = _optimizer_step(inner)
    if step:
        return step
    for f in reversed(inner):  # outermost first: the call the user wrote
        name = f.f_code.co_name
        if name.startswith("__i") or name in ("__setitem__",):
            return name
        if name == "op" and callable(f.f_locals.get("fn")):
            return f"{f.f_locals['fn'].__name__}_"
        if not name.startswith("_") and name not in ("forward", "bump", "wrapper", "step"):
            return name
    return "an in-place op"


def _optimizer_step(frames) -> str | None:
    """``"SGD.step"`` when one of ``frames`` is an optimizer's ``step`` (minigrad or torch)."""
    for f in frames:
        if f.f_code.co_name == "step" and f"{os.sep}optim{os.sep}" in f.f_code.co_filename:
            return f"{type(f.f_locals.get('self')).__name__}.step"
    return None


def _internal_frames(frame) -> list:
    """``frame`` and its callers up to the innermost frame of user code (or of the debugging
    tools, which ran the step)."""
    out = []
    while frame is not None and is_internal(frame.f_code.co_filename) and \
            not is_debug_tool(frame.f_code.co_filename):
        out.append(frame)
        frame = frame.f_back
    return out


class _Recorder:
    """Records bumps, created nodes and where tensors were made, for both libraries."""

    def __init__(self):
        self.bumps: list = []  # (key, Bump): key = torch tensor, or minigrad version counter
        self.made: dict = {}  # id(key) -> (key, module name, where) of the op that made it
        self.nodes: list = []
        self.modules: list = []
        self.roots: list = []  # the outermost modules seen running: where parameters live
        self._stack = contextlib.ExitStack()

    def __enter__(self):
        import minigrad

        from .._tensor import _VersionCounter
        from ..autograd import anomaly_mode

        s = self._stack
        s.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        s.enter_context(minigrad.autograd.detect_anomaly(check_nan=False))
        s.enter_context(ModuleStack(minigrad, self.modules))
        original_bump = _VersionCounter.bump
        rec = self

        def bump(counter):
            original_bump(counter)
            op = _op_name(sys._getframe(1))
            rec.bumps.append((counter, Bump(op, where(current_user_frame()), counter.value,
                                            qualified_name(rec.modules))))

        _VersionCounter.bump = bump
        s.callback(setattr, _VersionCounter, "bump", original_bump)

        def watch(node, outputs):
            self.nodes.append(node)
            for t in outputs:
                if t is not None:
                    self._made(t._vc, where(current_user_frame()))

        anomaly_mode._node_watchers.append(watch)
        s.callback(anomaly_mode._node_watchers.remove, watch)
        torch = sys.modules.get("torch")
        if torch is not None:
            s.enter_context(torch.autograd.detect_anomaly(check_nan=False))
            s.enter_context(ModuleStack(torch, self.modules))
            s.enter_context(self._torch_mode())
        return self

    def __exit__(self, *exc):
        self._stack.close()

    def _made(self, key, loc):
        if self.modules and self.modules[0] not in self.roots:
            self.roots.append(self.modules[0])
        if id(key) not in self.made:
            self.made[id(key)] = (key, qualified_name(self.modules), loc)

    def _torch_mode(self):
        from torch.overrides import TorchFunctionMode

        rec = self

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                before = [(t, t._version) for t in tensors_in(list(args) + list(kwargs.values()))]
                out = func(*args, **kwargs)
                name = getattr(func, "__name__", str(func))
                if any(t._version != v for t, v in before):
                    name = _optimizer_step(_internal_frames(sys._getframe(1))) or name
                for t, v in before:
                    if t._version != v:
                        rec.bumps.append((t, Bump(name, where(current_user_frame()),
                                                  t._version, qualified_name(rec.modules))))
                for t in tensors_in(out):
                    if t.grad_fn is not None:
                        rec.nodes.append(t.grad_fn)
                    rec._made(t, where(current_user_frame()))
                return out

        return Mode()

    # ------------------------------------------------------------------ explaining
    def explain(self, message: str) -> InplaceExplanation:
        m = _MESSAGE.search(message)
        shape = tuple(int(d) for d in m.group(1).split(",") if d.strip()) if m else ()
        producer = m.group(3) if m else None
        found, expected = (int(m.group(4)), int(m.group(5))) if m else (0, 0)
        ex = InplaceExplanation(shape=shape, producer=producer, expected=expected, found=found,
                                error=message)
        saver = self._saver()
        key = None
        if saver is not None:
            node, attr = saver
            ex.saved_by, ex.saved_attr = node.name(), attr
            stack = node.metadata.get("traceback_", [])
            ex.saved_at = where(user_frame(stack)) if stack else None
            raw = getattr(node, "_raw" + attr, None)
            key = getattr(raw, "_vc", None)  # minigrad: the saved tensor's own counter
        if key is None:
            key = self._torch_key(shape, found)
        if key is not None:
            ex.bumps = [b for k, b in self.bumps if k is key and expected < b.version <= found]
            made = self.made.get(id(key))
            if made is not None:
                ex.module, ex.made_at = made[1], made[2]
            ex.parameter = self._parameter_of(key)
        if producer is None or ex.parameter is not None:
            ex.made_at = ex.module = None  # a leaf: not made by the step
        ex.fix = _fix(ex)
        return ex

    def _parameter_of(self, key) -> str | None:
        """The qualified name of the parameter that ``key`` (a torch tensor, or a minigrad
        version counter) is, or shares its version counter with."""
        for root in self.roots:
            for name, p in root.named_parameters():
                if p is key or getattr(p, "_vc", None) is key:
                    return name
        return None

    def _saver(self):
        """(node, '_saved_<name>') of the node whose saved tensor is stale."""
        for node in walk_graph(self.nodes):
            for attr in dir(node):
                if not attr.startswith("_saved_"):
                    continue
                try:
                    getattr(node, attr)
                except RuntimeError as e:
                    if is_inplace_error(e):
                        return node, attr
        return None

    def _torch_key(self, shape, found):
        """The torch tensor whose bumps explain the error: bumped, now at the reported version,
        of the reported shape (or its transpose: a Linear saves ``weight.t()``)."""
        def fits(t):
            return is_tensor(t) and t._version == found and sorted(t.shape) == sorted(shape)
        keys = [k for k, _ in self.bumps if fits(k)]
        exact = [k for k in keys if tuple(k.shape) == shape]
        # else the base of a view: views share the base's counter, so it is at that version
        bases = [k for k, _ in self.bumps if is_tensor(k) and k._version == found]
        return (exact or keys or bases or [None])[0]


def _fix(ex: InplaceExplanation) -> str:
    ops = " ".join(b.op for b in ex.bumps)
    if "step" in ops:
        return ("call optimizer.step() only after the last backward through this graph (or run "
                "the forward again after the step)")
    if ex.producer is None or ex.parameter is not None:
        return ("update parameters only after backward (loss.backward(), then the update under "
                "no_grad), or run the forward again after updating them")
    if "relu" in ops or "inplace" in ex.error:
        if any(re.search(r"relu|sigmoid_|tanh_|leaky|elu|hardtanh|silu", b.op)
               for b in ex.bumps):
            return ("use the activation out of place: nn.ReLU() instead of nn.ReLU(inplace=True) "
                    "(or F.relu(x), not F.relu(x, inplace=True)) after an op that saves its "
                    "output")
    return ("use the out-of-place form (x = x + y, not x += y; x = x.mul(2), not x.mul_(2)) "
            "or .clone() the tensor before modifying it, so the saved value stays unchanged")
