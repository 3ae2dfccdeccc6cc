"""Hook-trace harness: which hook fires, in what order, with which arguments.

`record_hooks` registers every kind of hook on a model — global and per-module forward
pre/forward hooks and full backward pre/backward hooks, tensor hooks and post-accumulate-grad
hooks on the inputs, parameters and outputs, and pre/post hooks on every node of the backward
graph — runs one forward and backward pass, removes everything again and returns the ordered
list of calls. It works on a minigrad model and on a torch model alike (the hooks are written
once against the shared API), so `compare_traces` can put the two side by side::

    from minigrad.parity import record_hooks, compare_traces, format_trace
    mg = record_hooks(mg_model, (mg_x,))
    th = record_hooks(torch_model, (torch_x,))
    print("\\n".join(format_trace(mg)))
    compare_traces(mg, th)          # None if identical, else prints the first difference

A trace is a list of plain dicts ``{"kind", "where", "args"}``. ``kind`` is one of
``fwd_pre fwd bwd_pre bwd legacy_bwd`` (module hooks; prefixed ``global_`` for global ones),
``tensor`` (``Tensor.register_hook``), ``post_acc`` (post-accumulate-grad hook), ``node_pre`` /
``node`` (node pre/post hooks), ``warning``, ``error`` and finally ``grad`` (the ``.grad`` of each
input and parameter after backward). ``where`` names the module (qualified name, ``root`` for the
model), the tensor (``input[0]``, ``param 0.weight``, ``output[0]``) or the node (its type name
and its number in the canonical graph walk, ``AddmmBackward0#3``). ``args`` summarises every
argument: a tensor as ``{"shape", "value", "grad_fn"}``, ``None`` as None, tuples element-wise.
Messages are normalised so that ``minigrad`` reads ``torch`` (and ``torch.cuda.`` type names read
``torch.``); ``DeprecationWarning``s are not recorded (they come from NumPy or Python, not hooks).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

__all__ = ["record_hooks", "compare_traces", "first_difference", "format_trace", "format_entry",
           "paired_models", "make_inputs", "hook_traces", "ALL_KINDS", "DEFAULT_KINDS"]

ALL_KINDS = ("global", "forward", "backward", "legacy", "tensor", "post_acc", "node")
"""Hook families `record_hooks` can register (``kinds=``).

``global``: the four ``register_module_*`` global hooks (forward pre, forward, full backward
pre, full backward; only the forward ones when ``backward`` is not also asked for);
``forward``: per-module forward pre/forward hooks (``with_kwargs=True``, so kwargs are
recorded); ``backward``: per-module full backward pre/backward hooks; ``legacy``: per-module
``register_backward_hook`` (cannot be combined with ``backward``); ``tensor``:
``register_hook`` on inputs, parameters and outputs; ``post_acc``:
``register_post_accumulate_grad_hook`` on leaf inputs and parameters; ``node``: pre and post
hooks on every node reachable from the outputs (registered after the forward pass).
"""

DEFAULT_KINDS = ("global", "forward", "backward", "tensor", "post_acc", "node")


def _is_tensor(x) -> bool:
    return hasattr(x, "grad_fn") and hasattr(x, "requires_grad") and hasattr(x, "shape")


def _norm(text: str) -> str:
    """First line of a message, without PyTorch's C++ suffix, ``minigrad`` spelled ``torch``."""
    line = str(text).splitlines()[0] if str(text) else ""
    line = line.split(" (Triggered internally at")[0]
    return line.replace("minigrad", "torch").replace("torch.cuda.", "torch.")


def _summary(x, values: bool = True):
    """Plain-data summary of a hook argument (tensor, None, tuple/list, dict or other)."""
    if x is None:
        return None
    if _is_tensor(x):
        out = {"shape": tuple(x.shape), "grad_fn": None if x.grad_fn is None else
               type(x.grad_fn).__name__}
        if values:
            arr = x.detach()
            arr = arr.cpu() if hasattr(arr, "cpu") else arr
            out["value"] = np.array(arr.numpy(), copy=True)
        return out
    if isinstance(x, (tuple, list)):
        return tuple(_summary(v, values) for v in x)
    if isinstance(x, dict):
        return {k: _summary(v, values) for k, v in x.items()}
    if isinstance(x, (bool, int, float, str)):
        return x
    return type(x).__name__


def _lib_of(model):
    """``minigrad`` or ``torch``: the library ``model`` belongs to."""
    import minigrad

    if isinstance(model, minigrad.nn.Module):
        return minigrad
    from . import torch_lib

    return torch_lib()


def _default_loss(output):
    """Sum of ``.sum()`` over every output tensor that requires grad (in order)."""
    flat = output if isinstance(output, (tuple, list)) else (output,)
    terms = [t.sum() for t in flat if _is_tensor(t) and t.requires_grad]
    if not terms:
        return None
    loss = terms[0]
    for t in terms[1:]:
        loss = loss + t
    return loss


class _Recorder:
    """Registers the hooks, keeps their handles and appends calls to ``self.trace``."""

    def __init__(self, lib, kinds, values):
        self.lib, self.kinds, self.values = lib, set(kinds), values
        self.trace: list = []
        self.handles: list = []

    def add(self, kind, where, *args):
        self.trace.append({"kind": kind, "where": where,
                           "args": tuple(_summary(a, self.values) for a in args)})

    # -- modules --------------------------------------------------------------------------
    def module_hooks(self, model):
        names = {}
        for name, mod in model.named_modules():
            names[id(mod)] = name or "root"
        mm = self.lib.nn.modules.module
        if "global" in self.kinds:
            self.handles.append(mm.register_module_forward_pre_hook(
                lambda m, args: self.add("global_fwd_pre", names.get(id(m), "?"), args)))
            self.handles.append(mm.register_module_forward_hook(
                lambda m, args, out: self.add("global_fwd", names.get(id(m), "?"), args, out)))
            if "backward" in self.kinds:
                self.handles.append(mm.register_module_full_backward_pre_hook(
                    lambda m, go: self.add("global_bwd_pre", names.get(id(m), "?"), go)))
                self.handles.append(mm.register_module_full_backward_hook(
                    lambda m, gi, go: self.add("global_bwd", names.get(id(m), "?"), gi, go)))
        for name, mod in model.named_modules():
            where = name or "root"
            if "forward" in self.kinds:
                self.handles.append(mod.register_forward_pre_hook(
                    lambda m, args, kw, w=where: self.add("fwd_pre", w, args, kw),
                    with_kwargs=True))
                self.handles.append(mod.register_forward_hook(
                    lambda m, args, kw, out, w=where: self.add("fwd", w, args, kw, out),
                    with_kwargs=True))
            if "backward" in self.kinds:
                self.handles.append(mod.register_full_backward_pre_hook(
                    lambda m, go, w=where: self.add("bwd_pre", w, go)))
                self.handles.append(mod.register_full_backward_hook(
                    lambda m, gi, go, w=where: self.add("bwd", w, gi, go)))
            if "legacy" in self.kinds:
                self.handles.append(mod.register_backward_hook(
                    lambda m, gi, go, w=where: self.add("legacy_bwd", w, gi, go)))

    # -- tensors and nodes ----------------------------------------------------------------
    def tensor_hooks(self, where, t):
        if not (_is_tensor(t) and t.requires_grad):
            return
        if "tensor" in self.kinds:
            self.handles.append(t.register_hook(lambda g, w=where: self.add("tensor", w, g)))
        if "post_acc" in self.kinds and t.grad_fn is None:
            self.handles.append(t.register_post_accumulate_grad_hook(
                lambda p, w=where: self.add("post_acc", w, p.grad)))

    def node_hooks(self, roots):
        from . import graph_nodes

        for i, node in enumerate(graph_nodes(roots)):
            where = f"{type(node).__name__}#{i}"
            self.handles.append(node.register_prehook(
                lambda go, w=where: self.add("node_pre", w, go)))
            self.handles.append(node.register_hook(
                lambda gi, go, w=where: self.add("node", w, gi, go)))

    def warning(self, message, category, *args, **kwargs):
        if issubclass(category, (DeprecationWarning, PendingDeprecationWarning)):
            return  # NumPy/Python deprecations say nothing about hooks
        self.trace.append({"kind": "warning", "where": category.__name__,
                           "args": (_norm(message),)})


def _global_flag(lib):
    return lib.nn.modules.module._global_is_full_backward_hook


def record_hooks(model, inputs, *, kwargs=None, kinds=DEFAULT_KINDS, loss=None,
                 backward: bool = True, values: bool = True, lib=None) -> list:
    """Run ``model(*inputs, **kwargs)`` and backward with every kind of hook; return the calls.

    Args:
        model: a ``minigrad.nn.Module`` or a ``torch.nn.Module`` (the library is inferred, or
            pass ``lib``).
        inputs: the positional arguments (a tensor or a tuple; non-tensors allowed).
        kwargs: keyword arguments for the call (recorded by the with-kwargs forward hooks).
        kinds: which hook families to register, a subset of `ALL_KINDS`.
        loss: ``loss(output) -> scalar tensor``; default: the sum of ``.sum()`` of every output
            tensor that requires grad.
        backward: run the backward pass (default True).
        values: record tensor values (default True); otherwise shapes only.

    Returns the trace (list of dicts, see the module docstring). An exception raised by the
    forward or backward pass is recorded as a final ``error`` entry (type and first line,
    normalised) instead of propagating. Every hook is removed before returning — also on error
    — and the "full vs. legacy backward hook" flags PyTorch keeps on modules and globally are
    put back as they were, so the model (and the process) can be used again.
    Raises ValueError for an unknown kind or for ``legacy`` combined with ``backward``.
    """
    kinds = tuple(kinds)
    unknown = set(kinds) - set(ALL_KINDS)
    if unknown:
        raise ValueError(f"unknown hook kinds {sorted(unknown)}; choose from {ALL_KINDS}")
    if "legacy" in kinds and "backward" in kinds:
        raise ValueError("'legacy' and 'backward' hooks cannot be used on the same module")
    lib = lib or _lib_of(model)
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    kwargs = dict(kwargs or {})
    rec = _Recorder(lib, kinds, values)
    flags = [(m, m._is_full_backward_hook) for m in model.modules()]
    global_flag = _global_flag(lib)
    leaves = [(f"input[{i}]", t) for i, t in enumerate(inputs)]
    leaves += [(f"input[{k}]", t) for k, t in kwargs.items()]
    leaves += [(f"param {n}", p) for n, p in model.named_parameters()]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = rec.warning
            rec.module_hooks(model)
            for where, t in leaves:
                rec.tensor_hooks(where, t)
            try:
                output = model(*inputs, **kwargs)
                if backward:
                    flat = output if isinstance(output, (tuple, list)) else (output,)
                    for i, t in enumerate(flat):
                        if _is_tensor(t) and t.grad_fn is not None:
                            rec.tensor_hooks(f"output[{i}]", t)
                    if "node" in kinds:
                        rec.node_hooks([t.grad_fn for t in flat
                                        if _is_tensor(t) and t.grad_fn is not None])
                    root = (loss or _default_loss)(output)
                    if root is not None:
                        root.backward()
            except Exception as e:  # noqa: BLE001 - recorded, compared like any other call
                rec.trace.append({"kind": "error", "where": type(e).__name__,
                                  "args": (_norm(e),)})
                return rec.trace
        for where, t in leaves:
            if _is_tensor(t) and t.requires_grad and t.grad_fn is None:
                rec.trace.append({"kind": "grad", "where": where, "args": (
                    _summary(t.grad, values),)})
        return rec.trace
    finally:
        for h in rec.handles:
            h.remove()
        for m, flag in flags:
            if not m._backward_hooks:
                m._is_full_backward_hook = flag
        mm = lib.nn.modules.module
        if not mm._global_backward_hooks:
            mm._global_is_full_backward_hook = global_flag


# ------------------------------------------------------------------------------ pairs
def paired_models(build, device: str = "cpu", seed: int = 0):
    """``(minigrad model, torch model)`` from one builder ``build(lib)``.

    The torch model is built after ``torch.manual_seed(seed)`` and moved to ``device``; the
    minigrad twin gets its weights with ``load_state_dict``.
    """
    import minigrad

    from . import torch_lib

    torch = torch_lib()
    torch.manual_seed(seed)
    tm = build(torch).to(device)
    mm = build(minigrad)
    mm.load_state_dict(tm.state_dict())
    return mm, tm


def make_inputs(lib, arrays, requires_grad=True, device: str = "cpu") -> tuple:
    """Tensors of ``lib`` from NumPy ``arrays`` (other values pass through unchanged).

    ``requires_grad``: one bool for all tensors or one per argument; torch tensors go to
    ``device``.
    """
    flags = requires_grad if isinstance(requires_grad, (tuple, list)) else \
        (requires_grad,) * len(arrays)
    out = []
    for arr, rg in zip(arrays, flags):
        if isinstance(arr, np.ndarray):
            t = lib.tensor(arr, requires_grad=bool(rg) and arr.dtype.kind == "f")
            if getattr(lib, "__name__", "") == "torch":
                t = t.to(device).detach().requires_grad_(t.requires_grad)
            out.append(t)
        else:
            out.append(arr)
    return tuple(out)


def hook_traces(build, arrays, *, requires_grad=True, device: str = "cpu", seed: int = 0,
                kwargs=None, **record_kwargs):
    """Build the paired models, make the inputs and `record_hooks` on both.

    ``kwargs`` (dict of NumPy arrays / values) become keyword arguments of the call. Returns
    ``(minigrad trace, torch trace)``.
    """
    import minigrad

    from . import torch_lib

    torch = torch_lib()
    mm, tm = paired_models(build, device, seed)
    traces = []
    for lib, model in ((minigrad, mm), (torch, tm)):
        inputs = make_inputs(lib, arrays, requires_grad, device)
        kw = dict(zip((kwargs or {}).keys(), make_inputs(
            lib, tuple((kwargs or {}).values()), requires_grad, device)))
        traces.append(record_hooks(model, inputs, kwargs=kw, **record_kwargs))
    return tuple(traces)


# ------------------------------------------------------------------------------ formatting
def _fmt(s) -> str:
    if s is None:
        return "None"
    if isinstance(s, dict) and "shape" in s:
        return "(" + ",".join(map(str, s["shape"])) + ("," if len(s["shape"]) == 1 else "") + ")"
    if isinstance(s, tuple):
        return "(" + ", ".join(_fmt(v) for v in s) + ("," if len(s) == 1 else "") + ")"
    if isinstance(s, dict):
        return "{" + ", ".join(f"{k}: {_fmt(v)}" for k, v in s.items()) + "}"
    return repr(s)


_ARG_NAMES = {
    "fwd_pre": ("args", "kwargs"), "global_fwd_pre": ("args",),
    "fwd": ("args", "kwargs", "out"), "global_fwd": ("args", "out"),
    "bwd_pre": ("grad_output",), "global_bwd_pre": ("grad_output",),
    "bwd": ("grad_input", "grad_output"), "global_bwd": ("grad_input", "grad_output"),
    "legacy_bwd": ("grad_input", "grad_output"),
    "tensor": ("grad",), "post_acc": (".grad",), "grad": (".grad",),
    "node_pre": ("grad_outputs",), "node": ("grad_inputs", "grad_outputs"),
}


def format_entry(entry) -> str:
    """One trace entry as a line, e.g. ``bwd [2] grad_input=((5,4),) grad_output=((5,2),)``."""
    kind, where, args = entry["kind"], entry["where"], entry["args"]
    if kind in ("warning", "error"):
        return f"{kind} {where}: {args[0]}"
    names = _ARG_NAMES.get(kind, ())
    parts = []
    for i, a in enumerate(args):
        if names[i:i + 1] == ("kwargs",) and a == {}:
            continue
        parts.append(f"{names[i] if i < len(names) else i}={_fmt(a)}")
    return f"{kind} [{where}] " + " ".join(parts)


def format_trace(trace, numbered: bool = True) -> list:
    """The trace as one line per call (shapes, not values)."""
    return [(f"{i:3d} " if numbered else "") + format_entry(e) for i, e in enumerate(trace)]


# ------------------------------------------------------------------------------ comparing
def first_difference(a, b, rtol: float = 1e-5, atol: float = 1e-6):
    """``(index, reason)`` of the first differing call of traces ``a`` and ``b``, or None.

    Kinds, places, ``None`` positions, shapes and ``grad_fn`` names must be equal; values
    equal within ``rtol``/``atol``. A trace that is a prefix of the other differs at its end.
    """
    from . import compare

    for i, (x, y) in enumerate(zip(a, b)):
        if (x["kind"], x["where"]) != (y["kind"], y["where"]):
            return i, f"different call: {format_entry(x)!r} vs {format_entry(y)!r}"
        try:
            compare(x["args"], y["args"], path="args", rtol=rtol, atol=atol)
        except (AssertionError, TypeError, ValueError) as e:  # a dict vs an array: differ
            return i, f"{x['kind']} [{x['where']}]: {e}"
    if len(a) != len(b):
        return min(len(a), len(b)), f"length {len(a)} vs {len(b)}"
    return None


def compare_traces(a, b, *, rtol: float = 1e-5, atol: float = 1e-6, names=("minigrad", "torch"),
                   context: int = 8, file=None, quiet: bool = False):
    """Compare two hook traces; return None when identical, else a report of the difference.

    The report names the first differing call and shows both traces side by side from a few
    calls before it (``context`` lines after). It is also printed to ``file`` (default: standard
    output) unless ``quiet``.
    """
    diff = first_difference(a, b, rtol, atol)
    if diff is None:
        return None
    index, reason = diff
    lines = [f"hook traces differ at call {index}: {reason}", side_by_side(
        a, b, start=max(0, index - 3), stop=index + context, names=names, mark=index)]
    report = "\n".join(lines)
    if not quiet:
        print(report, file=file if file is not None else sys.stdout)
    return report


def side_by_side(a, b, *, start: int = 0, stop: int | None = None, names=("minigrad", "torch"),
                 mark: int | None = None, width: int = 60) -> str:
    """Two traces as two columns (calls ``start`` to ``stop``), ``>`` marking call ``mark``."""
    la, lb = format_trace(a), format_trace(b)
    stop = max(len(la), len(lb)) if stop is None else stop
    rows = [f"  {names[0]:<{width}} | {names[1]}"]
    for i in range(start, min(stop, max(len(la), len(lb)))):
        left = la[i] if i < len(la) else ""
        right = lb[i] if i < len(lb) else ""
        if len(left) > width:
            left = left[:width - 3] + "..."
        rows.append(f"{'>' if i == mark else ' '} {left:<{width}} | {right}")
    return "\n".join(rows)
