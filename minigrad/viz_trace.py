"""Record one backward pass step by step, as plain data, for minigrad **and** PyTorch graphs.

`trace_backward` runs ``loss.backward()`` once and returns a `BackwardTrace`: the graph (the
nodes and edges `minigrad.viz.make_dot` draws, and its SVG drawing), then one event per step
of the engine. ``trace.to_html(path)`` writes a page that plays the events (see
`minigrad.viz_page`).

How the events are observed:

* **minigrad**: the engine calls an observer (`minigrad.autograd.engine.observer`) when it takes
  a node from the ready queue, runs it, sends a gradient along an edge, writes ``.grad`` and
  releases saved tensors, so the ready queue and dependency counts are the engine's own.
* **PyTorch**: its engine is C++, so the same record is made from what Python can see: a node
  pre-hook and a node post-hook registered (last) on every node of the graph. The ready queue
  and the dependency counts are *derived* (edges counted from the graph, decremented for each
  gradient the post-hooks see, ready nodes ordered by ``_sequence_nr()``, newest first), and
  saved tensors are seen released one step late (when the next node starts). The trace's
  ``notes`` say so.
* **hook calls** (both libraries, the same code): the user's hooks found in the hook tables of
  the graph's nodes and tensors are wrapped for the duration of the backward, so each call is
  recorded with its arguments and its return value, then the tables are restored. Module full
  backward hooks and backward pre-hooks run inside the post-hooks of
  ``BackwardHookFunctionBackward`` nodes (``torch/utils/hooks.py::BackwardHook``, which minigrad
  mirrors); they are recorded one by one under the module's name. Hooks on an intermediate
  tensor are visible in PyTorch only through the tensor itself: pass it in ``params``.

Event types (``event["type"]``): ``begin`` (roots, dependency counts), ``node`` (a node leaves the
ready queue: ``queue`` left behind it, ``waiting`` nodes that got some but not all of their
gradients, with their counts), ``hook`` (``kind`` ``tensor``, ``pre``, ``post``,
``post_accumulate``, ``module_pre`` or ``module``), ``run`` (the node's backward is called with
``grads``), ``grad`` (``.grad`` of a leaf written), ``send`` (a gradient along edge ``edge``:
``deps_left`` of the receiving node), ``accumulate`` (a second gradient summed into a receiving
slot), ``release`` (saved tensors freed), ``error`` and ``end``. A tensor is summarised as
``{"shape", "dtype", "mean", "min", "max", "norm"}`` plus ``"values"`` when it has at most
``values_max`` elements; non-finite numbers are the strings ``"nan"``, ``"inf"``, ``"-inf"``.

PyTorch is never imported here: torch tensors are recognised by duck typing.
"""

from __future__ import annotations

import functools
import html
import json
import math
import re
import warnings
from dataclasses import asdict, dataclass, field

import numpy as np

from .parity import graph_nodes

__all__ = ["BackwardTrace", "trace_backward", "OBSERVABLE_TYPES"]

UINT64_MAX = 2 ** 64 - 1
#: Event types compared between minigrad and PyTorch (`BackwardTrace.observable`): what both
#: libraries show from Python. ``node`` events are compared by node only (PyTorch's queue is
#: derived), ``release`` events not at all (PyTorch's are seen one step late).
OBSERVABLE_TYPES = ("node", "hook", "run", "grad", "send", "accumulate", "error")

TORCH_NOTES = [
    "PyTorch's engine runs in C++: the ready queue and the dependency counts shown are derived "
    "from the graph and from the gradients the node post-hooks saw, not read from the engine.",
    "Saved tensors are seen released when the next node starts (PyTorch frees them after a "
    "node's post-hooks, out of Python's sight).",
    "Hooks on intermediate tensors are recorded only for tensors passed in params.",
]
MINIGRAD_NOTES = ["Ready queue, dependency counts and releases are the engine's own (an "
                  "observer in minigrad/autograd/engine.py)."]


# ---------------------------------------------------------------------------- plain data
def _is_tensor(obj) -> bool:
    return hasattr(obj, "grad_fn") and hasattr(obj, "requires_grad") and hasattr(obj, "shape")


def _num(x):
    """A float rounded to 6 significant digits; non-finite ones as strings (JSON has none)."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(f"{x:.6g}")


def _values(arr):
    if arr.ndim == 0:
        return _num(arr) if arr.dtype.kind in "fc" else arr.item()
    return [_values(a) for a in arr]


def summarize(t, values_max: int = 16):
    """A tensor as plain data: shape, dtype, mean/min/max/norm and, when it has at most
    ``values_max`` elements, its values. None stays None; a tuple or list is summarised
    element-wise; anything else becomes ``{"repr": ...}`` (cut to 60 characters)."""
    if t is None:
        return None
    if isinstance(t, (tuple, list)):
        return [summarize(v, values_max) for v in t]
    if not _is_tensor(t):
        if isinstance(t, (bool, int, float, str)):
            return t
        return {"repr": repr(t)[:60]}
    d = t.detach()
    if hasattr(d, "cpu"):
        d = d.cpu()
    arr = np.array(d.numpy(), copy=True)
    out = {"shape": list(arr.shape), "dtype": str(arr.dtype)}
    if arr.size and arr.dtype.kind in "fiub":
        a = arr.astype(np.float64)
        out.update(mean=_num(a.mean()), min=_num(a.min()), max=_num(a.max()),
                   norm=_num(np.sqrt((a * a).sum())))
    if arr.size <= values_max:
        out["values"] = _values(arr)
    return out


def same(a, b, rtol: float = 1e-5, atol: float = 1e-5) -> bool:
    """Plain data ``a`` equals ``b``: floats within ``rtol``/``atol``, the rest exactly."""
    if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
        return abs(a - b) <= atol + rtol * abs(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], rtol, atol) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y, rtol, atol) for x, y in zip(a, b))
    return a == b


def _hook_name(fn) -> str:
    return (getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
            or type(fn).__name__)


def _message(exc: BaseException) -> str:
    """First line of an error message, PyTorch's C++ suffix dropped, ``minigrad`` read as
    ``torch`` (so messages of both libraries compare)."""
    line = str(exc).splitlines()[0] if str(exc) else ""
    line = re.sub(r"\s*\(Triggered internally at .*$", "", line)
    return line.replace("minigrad", "torch")


# ---------------------------------------------------------------------------- the record
@dataclass
class BackwardTrace:
    """One recorded backward pass: plain data (JSON-serialisable with `to_json`).

    Attributes:
        library: ``"minigrad"`` or ``"torch"``.
        version: the library's version.
        graph: ``{"nodes": [...], "edges": [...], "roots": [...]}``. A node is ``{"id", "name"
            (type name), "label" (``name#id``), "seq" (``_sequence_nr()``, None for
            ``AccumulateGrad``), "saved" (names of saved tensors), "freed" (they were freed
            before this backward), "tensor" (a leaf's name or None), "module" (qualified name
            of the module that made it, when tracked), "deps" (edges pointing at it)}``; an
            edge is ``{"id", "src", "dst", "slot" (index in ``src.next_functions``),
            "input_nr"}``: the gradient flows from ``src`` to ``dst``.
        events: the steps, in order (see the module docstring for their types).
        notes: what was observed and what was derived.
        error: ``{"type", "message", "step"}`` when backward raised, else None.
        svg: the drawing of `minigrad.viz.make_dot` (Graphviz ``dot -Tsvg``) with
            ``data-n`` / ``data-e`` (node / edge id) on node and edge groups, or None without
            Graphviz.
    """

    library: str
    version: str
    graph: dict
    events: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    error: dict | None = None
    svg: str | None = None

    def to_dict(self) -> dict:
        """The trace as nested dicts and lists (what `to_json` writes)."""
        return asdict(self)

    def to_json(self, path=None, **kwargs) -> str:
        """The trace as JSON text; written to ``path`` too when given."""
        text = json.dumps(self.to_dict(), **kwargs)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    @classmethod
    def from_dict(cls, data: dict) -> BackwardTrace:
        """The trace back from `to_dict` (or from the parsed JSON of `to_json`)."""
        return cls(**data)

    def observable(self, values: bool = True) -> list:
        """The events both libraries show, in order, as comparable plain data: ``node`` events
        keep only the node, ``send`` events drop the derived ``deps_left``, ``release``,
        ``begin`` and ``end`` events are left out (see `OBSERVABLE_TYPES`). With ``values``
        False, tensor summaries keep only shape and dtype (for runs whose numbers differ on
        purpose, such as layers made with fresh random weights in ``forward``)."""
        out = []
        for e in self.events:
            if e["type"] not in OBSERVABLE_TYPES:
                continue
            e = {k: v for k, v in e.items() if k not in ("queue", "waiting", "deps_left", "step")}
            out.append(e if values else _no_values(e))
        return out

    def observable_steps(self) -> list:
        """For each event, its index in `observable` (None for the events left out)."""
        out, n = [], 0
        for e in self.events:
            if e["type"] in OBSERVABLE_TYPES:
                out.append(n)
                n += 1
            else:
                out.append(None)
        return out

    def first_difference(self, other: BackwardTrace, rtol: float = 1e-5, atol: float = 1e-5,
                         values: bool = True):
        """Index in `observable` of the first event where this trace and ``other`` differ
        (or where one of them ends first), or None when they agree."""
        a, b = self.observable(values), other.observable(values)
        for i, (x, y) in enumerate(zip(a, b)):
            if not same(x, y, rtol, atol):
                return i
        return None if len(a) == len(b) else min(len(a), len(b))

    def describe(self, i: int) -> str:
        """Event ``i`` in one line of text (as the page shows it)."""
        return describe_event(self.graph, self.events[i])

    def to_html(self, path, other: BackwardTrace | None = None, title: str | None = None) -> str:
        """Write one self-contained page that plays this trace (and ``other`` beside it, with
        the first differing event marked) to ``path``; returns ``path``. See
        `minigrad.viz_page.write_page`."""
        from .viz_page import write_page

        traces = [self] if other is None else [self, other]
        return write_page(path, traces, title=title)


_NUMBERS = ("mean", "min", "max", "norm", "values")


def _no_values(obj):
    if isinstance(obj, dict):
        return {k: _no_values(v) for k, v in obj.items() if k not in _NUMBERS}
    if isinstance(obj, list):
        return [_no_values(v) for v in obj]
    return obj


def _label(graph: dict, nid) -> str:
    return "-" if nid is None else graph["nodes"][nid]["label"]


def _shape(s) -> str:
    if s is None:
        return "None"
    if isinstance(s, list):
        return "(" + ", ".join(_shape(x) for x in s) + ")"
    if isinstance(s, dict) and "shape" in s:
        text = "[" + ", ".join(map(str, s["shape"])) + "]"
        if "values" in s and not s["shape"]:
            text += f"={s['values']}"
        elif "mean" in s:
            text += f" mean={s['mean']}"
        return text
    return str(s)


def describe_event(graph: dict, e: dict) -> str:
    """One line of text for event ``e`` of a trace whose graph is ``graph``."""
    t = e["type"]
    if t == "begin":
        return "backward starts at " + ", ".join(_label(graph, r) for r in e["roots"])
    if t == "node":
        q = ", ".join(_label(graph, n) for n in e.get("queue") or []) or "empty"
        return f"{_label(graph, e['node'])} leaves the ready queue (left: {q})"
    if t == "run":
        return f"{_label(graph, e['node'])} runs on {_shape(e['grads'])}"
    if t == "hook":
        return (f"{e['kind']} hook {e['hook']} on {e['where']} "
                f"-> {'None' if e.get('returned') is None else _shape(e['returned'])}")
    if t == "grad":
        return f".grad of {e['tensor']} written: {_shape(e['grad'])}"
    if t == "send":
        edge = graph["edges"][e["edge"]]
        return (f"{_label(graph, edge['src'])} sends {_shape(e['grad'])} to "
                f"{_label(graph, edge['dst'])} (input {edge['input_nr']}; "
                f"{e.get('deps_left', '?')} left)")
    if t == "accumulate":
        return (f"{_label(graph, e['node'])} input {e['input_nr']}: {e['count']} gradients "
                f"summed: {_shape(e['grad'])}")
    if t == "release":
        return f"{_label(graph, e['node'])} frees saved {', '.join(e['saved'])}"
    if t == "error":
        return f"{e['error']} in {_label(graph, e['node'])}: {e['message']}"
    if t == "end":
        return "backward done"
    return t


# ---------------------------------------------------------------------------- recording
class _Recorder:
    """Collects the events of one backward; shared by the minigrad and the PyTorch watcher."""

    def __init__(self, nodes, graph, values_max, names, module_names):
        self.nodes = nodes  # keeps the nodes alive, so their ids stay theirs
        self.index = {id(n): i for i, n in enumerate(nodes)}
        self.graph = graph
        self.values_max = values_max
        self.names = names  # id(tensor) -> name
        self.module_names = module_names  # id(module) -> qualified name
        self.events: list = []
        self.current = None  # id of the node running now
        self.restore: list = []
        self.edge_of = {(e["src"], e["slot"]): e["id"] for e in graph["edges"]}
        self.deps = {n["id"]: n["deps"] for n in graph["nodes"]}
        self.fed: dict = {}  # (node, input_nr) -> gradients arrived
        self.waiting: set = set()

    def id_of(self, node):
        return None if node is None else self.index.get(id(node))

    def summary(self, t):
        return summarize(t, self.values_max)

    def add(self, **event) -> dict:
        event["step"] = len(self.events)
        self.events.append(event)
        return event

    def node(self, nid, queue) -> None:
        self.current = nid
        self.waiting.discard(nid)
        waiting = [[n, self.deps[n]] for n in sorted(self.waiting) if self.deps[n] > 0]
        self.add(type="node", node=nid, queue=queue, waiting=waiting)

    def send(self, src, slot, dst, nr, grad, deps_left, total=None) -> None:
        self.deps[dst] = deps_left
        self.waiting.add(dst)
        self.add(type="send", node=src, edge=self.edge_of[(src, slot)], to=dst, input_nr=nr,
                 grad=self.summary(grad), deps_left=deps_left)
        if grad is None:
            return
        count = self.fed[(dst, nr)] = self.fed.get((dst, nr), 0) + 1
        if count > 1 and total is not None:
            self.add(type="accumulate", node=dst, input_nr=nr, count=count,
                     grad=self.summary(total))

    # -- hooks
    def wrap(self, fn, kind, nid, where, before=None):
        """A recording stand-in for hook ``fn`` (same name, same result)."""
        rec = self

        def hook(*args):
            if before is not None:
                before()
            node = rec.current if nid is None else nid
            ev = rec.add(type="hook", kind=kind, node=node, where=where, hook=_hook_name(fn),
                         args=rec.hook_args(kind, args), returned=None)
            ret = fn(*args)
            ev["returned"] = rec.summary(ret)
            return ret

        if hasattr(fn, "__name__"):
            functools.update_wrapper(hook, fn)
        else:  # a callable object: error messages name it as before
            hook.__name__ = repr(fn)
        hook._minigrad_traced = True
        return hook

    def hook_args(self, kind, args):
        if kind == "post_accumulate":
            return [self.summary(getattr(args[0], "grad", None))]
        if kind in ("module", "module_pre"):
            module = args[0]
            return [{"module": self.module_names.get(id(module), type(module).__name__)},
                    *(self.summary(a) for a in args[1:])]
        return [self.summary(a) for a in args]

    def wrap_table(self, table, kind, nid, where, skip=(), before=None) -> None:
        """Wrap every hook of dict ``table`` in place (restored by `unwrap`); module backward
        hooks found in it are wrapped in their ``BackwardHook`` instead."""
        if not table:
            return
        for key, fn in list(table.items()):
            if key in skip or getattr(fn, "_minigrad_traced", False):
                continue
            bh = _backward_hook_of(fn)
            if bh is not None:
                self.wrap_module_hooks(bh)
                continue
            table[key] = self.wrap(fn, kind, nid, where, before)
            self.restore.append((table, key, fn))

    def wrap_module_hooks(self, bh) -> None:
        name = self.module_names.get(id(bh.module), type(bh.module).__name__)
        for attr, kind in (("user_pre_hooks", "module_pre"), ("user_hooks", "module")):
            hooks = getattr(bh, attr)
            for i, fn in enumerate(list(hooks)):
                if not getattr(fn, "_minigrad_traced", False):
                    hooks[i] = self.wrap(fn, kind, None, name)
                    self.restore.append((hooks, i, fn))

    def unwrap(self) -> None:
        for table, key, fn in reversed(self.restore):
            try:
                table[key] = fn
            except (IndexError, KeyError):  # pragma: no cover - removed by the hook itself
                pass
        self.restore.clear()

    def tensor_name(self, t, default: str) -> str:
        return self.names.get(id(t), default)


def _backward_hook_of(fn):
    """The ``BackwardHook`` (module full backward hooks) a node hook closes over, or None."""
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            obj = cell.cell_contents
        except ValueError:  # pragma: no cover - an empty cell
            continue
        if all(hasattr(obj, a) for a in ("user_hooks", "user_pre_hooks", "module")):
            return obj
    return None


def _saved_tensor_names(fn) -> tuple:
    """``(names, freed)``: names of the tensors ``fn`` saved (``_raw_saved_<name>``, which only
    tensors have), and whether they were freed already (by an earlier backward)."""
    names, freed = [], False
    for a in dir(fn):
        if a.startswith("_raw_saved_"):
            name = a[len("_raw_saved_"):]
            try:
                getattr(fn, "_saved_" + name)
            except AttributeError:  # (a custom Function's node lists what it cannot show)
                continue
            except RuntimeError as e:  # stale or already freed: still a saved tensor
                freed = freed or "freed" in str(e)
            names.append(name)
    return sorted(names), freed


class _MinigradWatch:
    """minigrad: the engine observer (`minigrad.autograd.engine.observer`)."""

    def __init__(self, rec: _Recorder):
        self.rec = rec
        self.depth = 0

    def install(self, nodes) -> None:
        rec = self.rec
        for k, n in enumerate(nodes):
            d = n.__dict__
            if "_pre_hooks" in d:
                rec.wrap_table(n._pre_hooks, "pre", k, rec.graph["nodes"][k]["label"])
            if "_post_hooks" in d:
                rec.wrap_table(n._post_hooks, "post", k, rec.graph["nodes"][k]["label"])
            if hasattr(n, "variable"):
                var = n.variable
                name = rec.tensor_name(var, rec.graph["nodes"][k]["tensor"] or "leaf")
                rec.wrap_table(var.__dict__.get("_backward_hooks"), "tensor", k, name)
                rec.wrap_table(var.__dict__.get("_post_accumulate_grad_hooks"),
                               "post_accumulate", k, name)
            for nr, table in list(d.get("_tensor_pre_hooks", {}).values()):
                where = self._hooked_tensor(table, f"{rec.graph['nodes'][k]['label']}[{nr}]")
                rec.wrap_table(table, "tensor", k, where)

    def _hooked_tensor(self, table, default):
        for tid, name in self.rec.names.items():
            t = self.rec.tensors.get(tid)
            if t is not None and t.__dict__.get("_backward_hooks") is table:
                return name
        return default

    # -- engine callbacks
    def on_begin(self, roots, deps) -> None:
        self.depth += 1

    def on_end(self) -> None:
        self.depth -= 1

    def on_node(self, node, heap) -> None:
        if self.depth == 1:
            rec = self.rec
            rec.node(rec.id_of(node), [rec.id_of(n) for _, _, n in sorted(heap)])

    def on_run(self, node, grads) -> None:
        if self.depth == 1:
            rec = self.rec
            rec.add(type="run", node=rec.id_of(node), grads=[rec.summary(g) for g in grads])

    def on_grad(self, node) -> None:
        if self.depth == 1:
            rec = self.rec
            nid = rec.id_of(node)
            rec.add(type="grad", node=nid, tensor=rec.graph["nodes"][nid]["tensor"],
                    grad=rec.summary(node.variable.grad))

    def on_release(self, node) -> None:
        if self.depth == 1:
            rec = self.rec
            nid = rec.id_of(node)
            saved = rec.graph["nodes"][nid]["saved"]
            if saved:
                rec.add(type="release", node=nid, saved=saved)

    def on_send(self, node, i, child, nr, grad, left, buffer) -> None:
        if self.depth == 1:
            rec = self.rec
            total = buffer[nr] if buffer is not None else None
            rec.send(rec.id_of(node), i, rec.id_of(child), nr, grad, left, total)


class _TorchWatch:
    """PyTorch: a pre-hook and a post-hook on every node; queue and counts derived."""

    def __init__(self, rec: _Recorder, nodes):
        self.rec = rec
        self.nodes = nodes
        self.started: set = set()
        self.graded: set = set()
        self.fed_leaves: set = set()  # nodes that got a gradient (AccumulateGrad writes .grad)
        self.released: set = set()
        self.ran: list = []
        self.ready: list = []  # (-seq, order, id)
        self.order = 0
        self.handles: list = []
        self.sums: dict = {}  # (node, input_nr) -> running sum (NumPy) of arrived gradients

    def install(self, roots) -> None:
        rec = self.rec
        for r in roots:
            self._push(r)
        for k, n in enumerate(self.nodes):
            label = rec.graph["nodes"][k]["label"]
            pre = n.register_prehook(functools.partial(self._pre, k))
            post = n.register_hook(functools.partial(self._post, k))
            self.handles += [pre, post]
            acc = hasattr(n, "variable")
            rec.wrap_table(pre.hooks_dict_ref(), "pre", k, label, skip=(pre.id,),
                           before=functools.partial(self._start, k))
            rec.wrap_table(post.hooks_dict_ref(), "post", k, label, skip=(post.id,),
                           before=functools.partial(self._grad, k) if acc else None)
            if acc:
                var = n.variable
                name = rec.tensor_name(var, rec.graph["nodes"][k]["tensor"] or "leaf")
                rec.wrap_table(var._backward_hooks, "tensor", k, name,
                               before=functools.partial(self._start, k))
                rec.wrap_table(getattr(var, "_post_accumulate_grad_hooks", None),
                               "post_accumulate", k, name, before=functools.partial(self._grad, k))
        for tid, t in rec.tensors.items():  # hooks on intermediate tensors given by name
            k = rec.id_of(t.grad_fn)
            if k is not None and t._backward_hooks:
                rec.wrap_table(t._backward_hooks, "tensor", k, rec.names[tid],
                               before=functools.partial(self._start, k))

    def remove(self) -> None:
        for h in self.handles:
            h.remove()

    def _push(self, k) -> None:
        seq = self.rec.graph["nodes"][k]["seq"]
        self.ready.append((-(UINT64_MAX if seq is None else seq), self.order, k))
        self.order += 1

    def check_released(self) -> None:
        rec = self.rec
        for k in self.ran:
            if k in self.released:
                continue
            saved = rec.graph["nodes"][k]["saved"]
            if not saved:
                self.released.add(k)
                continue
            try:
                getattr(self.nodes[k], "_saved_" + saved[0])
            except Exception:  # noqa: BLE001 - RuntimeError: freed (the hook must not raise)
                self.released.add(k)
                rec.add(type="release", node=k, saved=saved)

    def _start(self, k) -> None:
        if k in self.started:
            return
        self.check_released()
        self.started.add(k)
        self.ran.append(k)
        self.ready = [r for r in self.ready if r[2] != k]
        self.rec.node(k, [r[2] for r in sorted(self.ready)])

    def _grad(self, k) -> None:
        if k in self.graded or k not in self.fed_leaves:  # (no gradient came: none written)
            return
        self.graded.add(k)
        rec = self.rec
        rec.add(type="grad", node=k, tensor=rec.graph["nodes"][k]["tensor"],
                grad=rec.summary(self.nodes[k].variable.grad))

    def _pre(self, k, grad_outputs):
        self._start(k)
        if grad_outputs and grad_outputs[0] is not None:
            self.fed_leaves.add(k)
        self.rec.add(type="run", node=k, grads=[self.rec.summary(g) for g in grad_outputs])
        return None

    def _post(self, k, grad_inputs, grad_outputs):
        rec = self.rec
        if hasattr(self.nodes[k], "variable"):
            self._grad(k)
        for i, (child, nr) in enumerate(self.nodes[k].next_functions):
            c = rec.id_of(child)
            if c is None:
                continue
            g = grad_inputs[i] if i < len(grad_inputs) else None
            total = None
            if g is not None:
                arr = np.array(g.detach().cpu().numpy(), copy=True)
                prev = self.sums.get((c, nr))
                total = arr if prev is None else prev + arr
                self.sums[(c, nr)] = total
            left = rec.deps[c] - 1
            rec.send(k, i, c, nr, g, left, _Array(total) if total is not None else None)
            if left == 0:
                self._push(c)
        return None


class _Array:
    """A NumPy array dressed as a tensor for `summarize` (PyTorch's summed slots)."""

    def __init__(self, arr):
        self.arr, self.grad_fn, self.requires_grad, self.shape = arr, None, False, arr.shape

    def detach(self):
        return self

    def numpy(self):
        return self.arr


# ---------------------------------------------------------------------------- the graph


def _graph(nodes, roots, names, tracker) -> dict:
    index = {id(n): i for i, n in enumerate(nodes)}
    recs, edges = [], []
    deps = [0] * len(nodes)
    for k, n in enumerate(nodes):
        for slot, (c, nr) in enumerate(n.next_functions):
            if c is None:
                continue
            edges.append({"id": len(edges), "src": k, "dst": index[id(c)], "slot": slot,
                          "input_nr": nr})
            deps[index[id(c)]] += 1
    for k, n in enumerate(nodes):
        name = type(n).__name__
        seq = n._sequence_nr()
        var = getattr(n, "variable", None)
        tensor = None
        saved, freed = _saved_tensor_names(n)
        if var is not None:
            tensor = names.get(id(var)) or "(" + ", ".join(str(int(s)) for s in var.shape) + ")"
        recs.append({"id": k, "name": name, "label": f"{name}#{k}",
                     "seq": None if seq >= UINT64_MAX else int(seq),
                     "saved": saved, "freed": freed, "tensor": tensor,
                     "module": tracker.owner.get(id(n)) if tracker is not None else None,
                     "deps": deps[k]})
    return {"nodes": recs, "edges": edges, "roots": [index[id(r)] for r in roots]}


_NODE_RE = re.compile(r'<g id="node\d+" class="node">\s*<title>([^<]*)</title>')
_EDGE_RE = re.compile(r'<g id="edge\d+" class="edge">\s*<title>([^<]*)</title>')
_DOT_ID = r'("(?:[^"\\]|\\.)*"|[\w.]+)'
_SAVED_EDGE_RE = re.compile(rf"^\t{_DOT_ID} -> {_DOT_ID} \[[^\]]*dir=none", re.M)
_SAVED_NODE_RE = re.compile(
    rf'^\t{_DOT_ID} \[(?:"(?:[^"\\]|\\.)*"|[^\]"])*?fillcolor=(?:orange|red)\b', re.M)


def _unquote(dot_id: str) -> str:
    return dot_id[1:-1].replace('\\"', '"') if dot_id.startswith('"') else dot_id


def _svg(dot, nodes, graph) -> str | None:
    """``dot`` drawn as SVG, its groups marked: ``data-n`` (node id) on backward nodes,
    ``data-e`` (edge id) on the edges between them, ``data-fns`` (the nodes that saved it) on
    saved tensors and their edges; the XML prologue, fixed sizes, element ids and Graphviz's
    ``<title>`` texts (memory addresses) are dropped."""
    try:
        svg = dot.pipe(format="svg").decode("utf-8")
    except Exception:  # noqa: BLE001 - no Graphviz: the page shows the events only
        return None
    fn_ids = {str(id(n)): k for k, n in enumerate(nodes)}
    saved_of: dict = {}
    for tail, head in _SAVED_EDGE_RE.findall(dot.source):
        if _unquote(tail) in fn_ids:
            saved_of.setdefault(_unquote(head), []).append(fn_ids[_unquote(tail)])
    orange = {_unquote(n) for n in _SAVED_NODE_RE.findall(dot.source)}
    saved_ids: dict = {}

    def node(m):
        title = html.unescape(m.group(1))
        if title in fn_ids:
            k = fn_ids[title]
            return (f'<g class="node fn" data-n="{k}">'
                    f"<title>{html.escape(graph['nodes'][k]['label'])}</title>")
        if title in saved_of and title in orange:
            s = saved_ids.setdefault(title, len(saved_ids))
            fns = " ".join(map(str, saved_of[title]))
            return f'<g class="node saved" data-s="{s}" data-fns="{fns}"><title>saved</title>'
        return '<g class="node tensor"><title>tensor</title>'

    by_pair: dict = {}
    for e in graph["edges"]:  # make_dot draws child -> parent
        by_pair.setdefault((e["dst"], e["src"]), []).append(e["id"])

    def edge(m):
        tail, _, head = html.unescape(m.group(1)).partition("->")
        pair = (fn_ids.get(tail), fn_ids.get(head))
        ids = by_pair.get(pair)
        if ids:
            return f'<g class="edge flow" data-e="{ids.pop(0)}"><title>gradient</title>'
        if pair[0] is not None and head in saved_of:
            return (f'<g class="edge saved" data-fns="{pair[0]}"><title>saved by '
                    f"{html.escape(graph['nodes'][pair[0]]['label'])}</title>")
        return '<g class="edge"><title>edge</title>'

    svg = svg[svg.find("<svg"):]
    svg = re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)
    svg = _NODE_RE.sub(node, svg)
    svg = _EDGE_RE.sub(edge, svg)
    return re.sub(r' id="(?:graph|clust|node|edge|a_)\w*"', "", svg)  # (two drawings share a page)


# ---------------------------------------------------------------------------- entry point
def _library(t):
    """``("minigrad" | "torch", version)`` of tensor ``t``."""
    import minigrad

    if isinstance(t, minigrad.Tensor):
        return "minigrad", minigrad.__version__
    mod = type(t).__module__.split(".")[0]
    import sys

    lib = sys.modules.get(mod)
    return mod, getattr(lib, "__version__", "?")


def trace_backward(loss, gradient=None, retain_graph=None, *, params=None, modules=None,
                   values_max: int = 16, show_saved: bool = True, draw: bool = True
                   ) -> BackwardTrace:
    """Run ``loss.backward(gradient, retain_graph)`` once and record every step of it.

    Args:
        loss: a minigrad or torch tensor with a ``grad_fn``.
        gradient: passed to ``backward`` (the gradient of ``loss``; None for a scalar).
        retain_graph: passed to ``backward`` (keep the saved tensors for another backward).
        params: names for tensors, e.g. ``dict(model.named_parameters())`` (as `make_dot`):
            leaves are named after them, and hooks on the intermediate tensors in it are
            recorded in PyTorch traces too.
        modules: a model tracked with `minigrad.viz.track_modules` before its forward pass (or
            its `ModuleTracker`): nodes are grouped by module in the drawing and module hook
            calls are named by the module's qualified name. A model that was not tracked only
            names the module hooks.
        values_max: tensors with at most this many elements are recorded with their values.
        show_saved: draw saved tensors (greyed in the page once released).
        draw: render the graph with Graphviz (``trace.svg``; None without Graphviz).

    Returns:
        a `BackwardTrace`. An error raised by backward (for instance a second backward through
        a freed graph) is recorded as the last event and in ``trace.error``, not raised.

    Raises:
        TypeError: ``loss`` is not a tensor. RuntimeError: ``loss`` has no ``grad_fn``.
    """
    from . import viz
    from .autograd import engine

    if not _is_tensor(loss):
        raise TypeError(f"trace_backward(): loss must be a tensor, got {type(loss).__name__}")
    if loss.grad_fn is None:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                           "grad_fn")
    library, version = _library(loss)
    params = {} if params is None else dict(params)
    names = {id(t): str(k) for k, t in params.items()}
    tensors = {id(t): t for t in params.values()}
    names.setdefault(id(loss), "loss")
    tensors.setdefault(id(loss), loss)
    tracker, module_names = None, {}
    if modules is not None:
        if isinstance(modules, viz.ModuleTracker):
            tracker = modules
        else:
            try:
                tracker = viz._tracker_of(modules)
            except ValueError:
                tracker = None
            module_names = {id(m): n or "root" for n, m in modules.named_modules()}
        if tracker is not None and not module_names:
            module_names = {k: v or "root" for k, v in tracker.names.items()}
    roots = [loss.grad_fn]
    nodes = graph_nodes(roots)  # (DFS visit order, each node once)
    graph = _graph(nodes, roots, names, tracker)
    svg = None
    if draw:
        dot = viz.make_dot(loss, params=params, show_saved=show_saved, modules=tracker)
        svg = _svg(dot, nodes, graph)
    rec = _Recorder(nodes, graph, values_max, names, module_names)
    rec.tensors = tensors
    rec.add(type="begin", roots=graph["roots"],
            deps=[[n["id"], n["deps"]] for n in graph["nodes"]])
    error = None
    if library == "minigrad":
        watch = _MinigradWatch(rec)
        watch.install(nodes)
        saved_observer, engine.observer = engine.observer, watch
    else:
        watch = _TorchWatch(rec, nodes)
        watch.install(graph["roots"])
    try:
        loss.backward(gradient, retain_graph=retain_graph)
    except Exception as e:  # noqa: BLE001 - recorded: the page shows where backward failed
        ev = rec.add(type="error", node=rec.current, error=type(e).__name__, message=_message(e))
        error = {"type": ev["error"], "message": ev["message"], "step": ev["step"]}
    finally:
        if library == "minigrad":
            engine.observer = saved_observer
        else:
            watch.remove()
            if error is None:
                watch.check_released()
        rec.unwrap()
    rec.add(type="end")
    notes = MINIGRAD_NOTES if library == "minigrad" else TORCH_NOTES
    trace = BackwardTrace(library, version, graph, rec.events, list(notes), error, svg)
    rec.nodes = rec.tensors = None
    return trace


# ---------------------------------------------------------------------------- toy networks
def toy_traces(name: str, *, hooks: bool = True, seed: int = 0, libs=("minigrad", "torch"),
               values_max: int = 16, device: str = "cpu") -> list:
    """`trace_backward` of toy network ``name`` (`minigrad.toy_models`) with each library in
    ``libs``, on the loss ``(model(x) ** 2).mean()``, with the same weights (PyTorch's, copied
    into the minigrad twin with ``load_state_dict``) and the same input.

    With ``hooks``, every submodule gets a full backward hook and a backward pre-hook, every
    parameter a post-accumulate-grad hook and the output a tensor hook (all return None), so
    the trace shows where each kind fires. ``device``: where the PyTorch side runs (minigrad
    runs on NumPy). Without torch only the minigrad trace is made. Returns the traces in the
    order of ``libs``.
    """
    import minigrad

    from . import toy_models, viz

    toy = toy_models.get(name)
    built = {}
    if "torch" in libs:
        try:
            import torch
        except ImportError:  # pragma: no cover - torch is a test dependency
            libs = [lib for lib in libs if lib != "torch"]
        else:
            torch.manual_seed(seed)
            model, x = toy.build(torch)
            built["torch"] = (torch, model.to(device), x.to(device))
    if "minigrad" in libs:
        minigrad.manual_seed(seed)
        model, x = toy.build(minigrad)
        if "torch" in built:
            model.load_state_dict(built["torch"][1].state_dict())
        built["minigrad"] = (minigrad, model, x)
    traces = []
    for label in libs:
        lib, model, x = built[label]
        if hooks:
            for qual, m in model.named_modules():
                # (inplace: ReLU(inplace=True) modifies the Linear's output, which a full
                # backward hook on that Linear forbids, in both libraries: the model's only)
                if qual == "" or name != "inplace":
                    m.register_full_backward_pre_hook(_noop_module_pre_hook)
                    m.register_full_backward_hook(_noop_module_hook)
            for p in model.parameters():
                p.register_post_accumulate_grad_hook(_noop_post_accumulate_hook)
        tracker = viz.track_modules(model)
        if label == "torch":  # (stuck's unregistered layers: each library's own random draw)
            torch.manual_seed(seed + 1)
        else:
            minigrad.manual_seed(seed + 1)
        out = model(x)
        tracker.remove()
        if hooks:
            out.register_hook(_noop_tensor_hook)
        loss = (out ** 2).mean()
        named = {**dict(model.named_parameters()), "out": out}  # (out: its hook is seen)
        with warnings.catch_warnings():  # the first module's input needs no gradient: its
            # full hook fires with the output's (both libraries warn, at every call)
            warnings.filterwarnings("ignore", "Full backward hook is firing", UserWarning)
            traces.append(trace_backward(loss, params=named, modules=tracker,
                                         values_max=values_max))
    return traces


def _noop_module_pre_hook(module, grad_output):
    return None


def _noop_module_hook(module, grad_input, grad_output):
    return None


def _noop_post_accumulate_hook(tensor):
    return None


def _noop_tensor_hook(grad):
    return None
