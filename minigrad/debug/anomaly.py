"""``first_nonfinite``: which op produced the first NaN/Inf, and which line of code made it.

Built on anomaly detection (``torch.autograd.detect_anomaly`` for torch, minigrad's own
`minigrad.autograd.anomaly_mode`): with it on, every node remembers the Python stack of
the forward call that created it (``node.metadata["traceback_"]``), and backward stops at the
first node whose gradient is NaN.

Two places can go non-finite, and they are reported separately:

* **forward**: an op whose *result* is NaN/Inf (``log`` of a negative number). Backward alone
  cannot see this (``LogBackward0`` computes ``grad / x``, finite), so when given a callable
  the forward is re-run under anomaly mode while every new node's outputs are checked — for
  torch with a ``TorchFunctionMode``, for minigrad through anomaly mode's node watchers;
* **backward**: the first node (in execution order) that *returns* a NaN/Inf gradient, found
  with node post-hooks while backward runs under anomaly detection (via ``autograd.grad``, so
  no ``.grad`` is touched).
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, field

import numpy as np

from ._util import (
    ModuleStack,
    as_array,
    is_tensor,
    lib_of,
    qualified_name,
    scalar_of,
    tensors_in,
    user_frame,
    walk_graph,
    where,
)

__all__ = ["first_nonfinite", "NonFiniteReport", "NodeReport"]


@dataclass
class NodeReport:
    """A node that produced non-finite values.

    ``node``: its name (``'LogBackward0'``); ``phase``: ``"forward"`` (its output) or
    ``"backward"`` (its gradient); ``nan`` / ``inf``: counts; ``index``: which output;
    ``file``, ``line``, ``code``: the user code that created it (None when the forward ran
    without anomaly detection); ``traceback``: the stored forward stack; ``module``: the
    qualified name of the module whose forward ran the op (``"layer3.1.bn2"``, ``""`` for the
    model's own forward; None when not known).
    """

    node: str
    phase: str
    index: int
    nan: int
    inf: int
    file: str | None = None
    line: int | None = None
    code: str | None = None
    traceback: list = field(default_factory=list)
    module: str | None = None

    @property
    def where(self) -> str:
        """``'file.py:12: code'`` of the creating line, or 'unknown location'."""
        return where(None if self.file is None else (self.file, self.line, self.code))

    @property
    def label(self) -> str:
        """The node and, when known, its module: ``"LogBackward0 in module 'body.1'"``."""
        if self.module is None:
            return self.node
        return f"{self.node} in {'the model' if not self.module else repr(self.module)}"


@dataclass
class NonFiniteReport:
    """Result of `first_nonfinite`: ``forward`` / ``backward`` NodeReports (None when
    that phase stayed finite or was not inspected), ``loss_finite``, and ``error``: the
    anomaly-detection error message raised by backward, if any."""

    forward: NodeReport | None
    backward: NodeReport | None
    loss_finite: bool
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when nothing non-finite was found."""
        return self.forward is None and self.backward is None and self.loss_finite

    def __str__(self) -> str:
        if self.ok:
            return "no NaN/Inf in the forward values or in the gradients"
        lines = []
        for r in (self.forward, self.backward):
            if r is not None:
                what = "output" if r.phase == "forward" else "gradient"
                lines.append(f"{r.phase}: {r.label} produced a non-finite {what} "
                             f"({r.nan} NaN, {r.inf} Inf) — created at {r.where}")
        if not lines:
            lines.append("the loss is not finite, but no node was found (the forward ran "
                         "outside first_nonfinite: pass a callable to re-run it)")
        return "\n".join(lines)


def _counts(t):
    arr = as_array(t)
    return int(np.isnan(arr).sum()), int(np.isinf(arr).sum())


def _node_report(node, phase, index, nan, inf, module=None) -> NodeReport:
    stack = list(node.metadata.get("traceback_", []))
    frame = user_frame(stack)
    file, line, code = frame if frame else (None, None, None)
    return NodeReport(node=node.name(), phase=phase, index=index, nan=nan, inf=inf, file=file,
                      line=line, code=code, traceback=stack, module=module)


def first_nonfinite(target, *args, **kwargs) -> NonFiniteReport:
    """Find the first node that produced NaN/Inf and the line of code that created it.

    Args:
        target: a callable (e.g. ``lambda: loss_fn(model(x), y)``), called with ``*args,
            **kwargs`` under anomaly detection; or a tensor (a loss) whose graph exists
            already. For a tensor, the forward culprit is found from the graph's *saved
            tensors*: a non-finite saved tensor was made by its ``grad_fn``, and the earliest
            such node (by creation order) is where the NaN/Inf first appeared; creation lines
            are known only if the forward ran under ``detect_anomaly``.

    Returns a `NonFiniteReport`. Works for minigrad and torch (torch imported only
    when the values are torch tensors). A non-scalar result is summed before backward.
    Raises TypeError when ``target`` is neither a callable nor a tensor.
    """
    forward = None
    if is_tensor(target):
        output = target
        forward = _producer_from_saved(output)
    elif callable(target):
        output, forward = _watched_forward(target, args, kwargs)
    else:
        raise TypeError(f"first_nonfinite expects a callable or a tensor, got "
                        f"{type(target).__name__}")
    outs = tensors_in(output)
    loss_finite = all(np.isfinite(as_array(t)).all() for t in outs
                      if t.dtype.is_floating_point)
    backward, error = _watched_backward(output)
    return NonFiniteReport(forward=forward, backward=backward, loss_finite=loss_finite,
                           error=error)


def _watched_forward(fn, args, kwargs):
    """Run ``fn`` under anomaly detection; return (result, first non-finite NodeReport)."""
    found: list = []
    modules: list = []  # the stack of modules whose forward is running

    def check(node, outputs):
        if found or node is None:
            return
        for i, t in enumerate(outputs):
            if t is not None and t.dtype.is_floating_point:
                nan, inf = _counts(t)
                if nan or inf:
                    found.append((node, i, nan, inf, qualified_name(modules)))
                    return

    import contextlib

    import minigrad

    with contextlib.ExitStack() as stack:
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        # both libraries are watched: the callable may build either (torch only if imported)
        stack.enter_context(_MinigradWatcher(check))
        stack.enter_context(minigrad.autograd.detect_anomaly())
        stack.enter_context(ModuleStack(minigrad, modules))
        torch = sys.modules.get("torch")
        if torch is not None:
            stack.enter_context(_TorchWatcher(check))
            stack.enter_context(torch.autograd.detect_anomaly())
            stack.enter_context(ModuleStack(torch, modules))
        output = fn(*args, **kwargs)
    report = None
    if found:
        node, i, nan, inf, module = found[0]
        report = _node_report(node, "forward", i, nan, inf, module)
    return output, report


class _MinigradWatcher:
    def __init__(self, check):
        self.check = check

    def __enter__(self):
        from ..autograd import anomaly_mode

        anomaly_mode._node_watchers.append(self.check)

    def __exit__(self, *exc):
        from ..autograd import anomaly_mode

        anomaly_mode._node_watchers.remove(self.check)


class _TorchWatcher:
    """A ``TorchFunctionMode`` that passes each call's tensor results (with their grad_fn)
    to ``check``."""

    def __init__(self, check):
        from torch.overrides import TorchFunctionMode

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                for t in tensors_in(out):
                    if t.grad_fn is not None:
                        check(t.grad_fn, [t])
                        break
                return out

        self.mode = Mode()

    def __enter__(self):
        self.mode.__enter__()

    def __exit__(self, *exc):
        self.mode.__exit__(*exc)


def _watched_backward(output):
    """Backward from ``output`` under anomaly detection, with a post-hook on every node;
    returns (first node returning a NaN/Inf gradient as NodeReport, anomaly error text)."""
    scalar = scalar_of(output)
    if scalar is None or scalar.grad_fn is None:
        return None, None
    lib = lib_of(scalar)
    nodes = walk_graph([scalar.grad_fn])
    leaves = [n.variable for n in nodes if hasattr(n, "variable")]
    found: list = []
    handles = []

    def make(node):
        def post(grad_inputs, grad_outputs):
            if found:
                return
            for i, g in enumerate(grad_inputs):
                if g is not None:
                    nan, inf = _counts(g)
                    if nan or inf:
                        # the node *made* the non-finite gradient only if what it got and
                        # what it saved were finite; otherwise it passed on a NaN from further
                        # down (the first of those is the stand-in loss's, blamed for nothing)
                        if _all_finite(grad_outputs) and _all_finite(_saved_tensors(node)):
                            found.append(_node_report(node, "backward", i, nan, inf))
                        return
        return post

    for node in nodes:
        if not hasattr(node, "variable"):
            handles.append(node.register_hook(make(node)))
    error = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                lib.autograd.grad(scalar, leaves or [scalar], allow_unused=True,
                                  retain_graph=True)
    except RuntimeError as e:
        error = str(e)
    finally:
        for h in handles:
            h.remove()
    return (found[0] if found else None), error


def _all_finite(tensors) -> bool:
    return all(np.isfinite(as_array(t)).all() for t in tensors
               if t is not None and t.dtype.is_floating_point)


def _saved_tensors(node) -> list:
    """The tensors ``node`` saved for backward (``_saved_<name>`` attributes; tuples of
    tensors included). A released or stale one is skipped."""
    out = []
    for attr in dir(node):
        if not attr.startswith("_saved_"):
            continue
        try:
            value = getattr(node, attr)
        except RuntimeError:  # freed by an earlier backward, or modified in place
            continue
        for v in value if isinstance(value, (tuple, list)) else (value,):
            if is_tensor(v):
                out.append(v)
    return out


def _producer_from_saved(output) -> NodeReport | None:
    """The forward culprit of a finished graph: every non-finite tensor the graph saved (and
    the output itself) was made by its ``grad_fn``; the earliest-created of those nodes is
    where the first NaN/Inf was made. A leaf that is already non-finite is reported as
    ``AccumulateGrad`` of that leaf."""
    roots = [t.grad_fn for t in tensors_in(output) if t.grad_fn is not None]
    candidates = [t for t in tensors_in(output) if t.dtype.is_floating_point]
    for node in walk_graph(roots):
        candidates += _saved_tensors(node)
    best = None
    for t in candidates:
        if not t.dtype.is_floating_point:
            continue
        nan, inf = _counts(t)
        if not (nan or inf):
            continue
        node = t.grad_fn
        order = -1 if node is None else node._sequence_nr()
        if best is None or order < best[0]:
            best = (order, t, node, nan, inf)
    if best is None:
        return None
    _, t, node, nan, inf = best
    if node is None:
        return NodeReport(node=f"a leaf tensor {tuple(t.shape)}", phase="forward", index=0,
                          nan=nan, inf=inf)
    return _node_report(node, "forward", getattr(t, "output_nr", 0), nan, inf)
