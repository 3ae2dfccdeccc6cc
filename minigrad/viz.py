"""Draw backward graphs with Graphviz: ``make_dot`` for minigrad **and** PyTorch graphs.

Mirrors torchviz's ``torchviz/dot.py`` (``make_dot(var, params, show_attrs, show_saved,
max_attr_chars)``): the same statements in the same order, the same colours, shapes and labels,
so the output of ``make_dot`` equals torchviz's after renaming node ids (wherever torchviz
declares each node once; otherwise it draws the same picture, minus torchviz's mistakes below).
Everything is
duck-typed on ``grad_fn``, ``next_functions``, ``variable``, ``_saved_*`` and ``saved_tensors``,
so one function draws graphs of both libraries; nothing here imports torch.

What torchviz users hit, fixed here:

* the walk is iterative (a graph of 10,000 nodes renders, no ``RecursionError``);
* outputs may be a tensor, a tuple, a list or a dict of tensors (dict keys label the outputs);
* every tensor object is declared once. torchviz names a node by ``id()`` of the Python
  object and re-declares it for every role it plays, so a saved tensor that *is* a leaf, a
  parameter or an output (``y = a * a`` saves ``a`` as ``self`` and ``other``) got the colour and
  label of whichever declaration came last, and an output that some node saved was never drawn as
  an output. Here a tensor keeps its strongest role (leaf > output/view base > saved), its node
  is connected to every node that saved it, and names saved twice are joined (``other, self``);
* a stale saved tensor (modified in place) or a freed one (after backward) does not crash the
  drawing; no ``distutils``; a missing Graphviz ``dot`` program raises
  `GraphvizNotFoundError`, which says how to install it.

Extras, off by default so the default output stays torchviz's: ``show_versions`` (saved vs
current ``_version`` of each saved tensor, stale ones red), ``show_hooks`` (nodes and tensors
with hooks get a double border and a ``hooks:`` line) and ``modules`` (clusters per submodule,
recorded by `track_modules` with forward hooks during the forward pass).

`trace_backward` (from `minigrad.viz_trace`) records one backward pass step by step, for
minigrad and PyTorch graphs, and writes a page that plays it (``trace.to_html(path)``).
"""

from __future__ import annotations

import os
import re
import weakref

import graphviz
from graphviz.quoting import quote

__all__ = ["make_dot", "track_modules", "ModuleTracker", "render", "GraphvizNotFoundError",
           "INSTALL_HINT", "trace_backward", "BackwardTrace"]

SAVED_PREFIX = "_saved_"
NODE_ATTR = dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1",
                 height="0.2", fontname="monospace")

INSTALL_HINT = ("Graphviz's `dot` program was not found on PATH; it turns DOT source into "
                "images. Install Graphviz (Debian/Ubuntu: `sudo apt-get install graphviz`, "
                "macOS: `brew install graphviz`, conda: `conda install graphviz`, others: "
                "https://graphviz.org/download/) and make sure `dot -V` works.")

# roles a tensor node can play; a stronger role wins when one object plays several
_SAVED, _OUTPUT, _LEAF = 0, 1, 2
_VERSION_RE = re.compile(r"is at version (\d+); expected version (\d+)")


class GraphvizNotFoundError(graphviz.ExecutableNotFound):
    """Raised when rendering needs Graphviz's ``dot`` program and it is not installed.

    A subclass of ``graphviz.ExecutableNotFound`` (so of ``RuntimeError``) whose message says
    how to install Graphviz.
    """

    def __init__(self, message: str = INSTALL_HINT):
        RuntimeError.__init__(self, message)


class Digraph(graphviz.Digraph):
    """``graphviz.Digraph`` whose ``render``/``pipe`` explain a missing ``dot`` program."""

    def render(self, *args, **kwargs):
        try:
            return super().render(*args, **kwargs)
        except graphviz.ExecutableNotFound as e:
            raise GraphvizNotFoundError() from e

    def pipe(self, *args, **kwargs):
        try:
            return super().pipe(*args, **kwargs)
        except graphviz.ExecutableNotFound as e:
            raise GraphvizNotFoundError() from e


# ---------------------------------------------------------------------------- duck typing
def _is_tensor(obj) -> bool:
    """A minigrad or torch tensor (anything with ``grad_fn``, ``size`` and ``requires_grad``)."""
    return hasattr(obj, "grad_fn") and hasattr(obj, "size") and hasattr(obj, "requires_grad")


def _size_str(size) -> str:
    return "(" + ", ".join(str(int(v)) for v in size) + ")"


def _saved_names(fn) -> list:
    return [a[len(SAVED_PREFIX):] for a in dir(fn) if a.startswith(SAVED_PREFIX)]


def _unpack_saved(fn, name):
    """``(value, problem)`` for ``fn._saved_<name>``.

    ``problem`` is None, or ``(kind, saved_version, current_version, tensor, size)`` when
    unpacking raised (``kind`` ``'stale'``: modified in place; ``'freed'``: after backward).
    ``tensor`` is the saved object when it can still be reached (torch: ``raw.data``; minigrad:
    the SavedTensor's reference), else None.
    """
    try:
        return getattr(fn, SAVED_PREFIX + name), None
    except RuntimeError as e:
        raw = getattr(fn, "_raw_saved_" + name, None)
        obj = getattr(raw, "data", None)
        if obj is None:
            obj = getattr(raw, "_tensor", None)
        size = obj.size() if obj is not None else getattr(raw, "_shape", None)
        m = _VERSION_RE.search(str(e))
        if m:
            return None, ("stale", int(m.group(2)), int(m.group(1)), obj, size)
        return None, ("freed", None, None, obj, size)


def _attr_table(fn, max_attr_chars: int) -> str:
    """torchviz's ``show_attrs`` label: the node name over a two-column table of ``_saved_*``."""
    name = type(fn).__name__
    attrs = {}
    for key in _saved_names(fn):
        val, problem = _unpack_saved(fn, key)
        if problem is not None or _is_tensor(val):
            attrs[key] = "[saved tensor]"
        elif isinstance(val, tuple) and any(_is_tensor(t) for t in val):
            attrs[key] = "[saved tensors]"
        else:
            attrs[key] = str(val)
    if not attrs:
        return name
    width_v = min(max(len(v) for v in attrs.values()), max(max_attr_chars, 3))
    width_k = max(len(k) for k in attrs)
    rows = [k.ljust(width_k) + ": " + (v if len(v) <= width_v else v[:width_v - 3] + "...")
            .rjust(width_v) for k, v in attrs.items()]
    sep = "-" * max(width_k + width_v + 2, len(name))
    return name + "\n" + sep + "\n" + "\n".join(rows)


def _node_hooks(fn) -> str:
    """``'pre=1 post=2'``: a minigrad node's own pre- and post-hooks (PyTorch keeps a node's
    hooks out of Python's reach: ``''`` there). Hooks of tensors are shown on the tensors."""
    d = getattr(fn, "__dict__", {})
    counts = (("pre", d.get("_pre_hooks")), ("post", d.get("_post_hooks")))
    return " ".join(f"{k}={len(v)}" for k, v in counts if v)


def _tensor_hooks(t) -> str:
    """``'grad=1 post_acc=1'``: hooks registered on tensor ``t`` (minigrad or torch)."""
    grad = len(getattr(t, "_backward_hooks", None) or ())
    post = len(getattr(t, "_post_accumulate_grad_hooks", None) or ())
    return " ".join(f"{k}={n}" for k, n in (("grad", grad), ("post_acc", post)) if n)


# ---------------------------------------------------------------------------- the builder
class _TensorNode:
    """A declared tensor node: where its statement is, its role, names and saved edges."""

    __slots__ = ("index", "role", "names", "tensor", "extra", "size", "saved_edges")

    def __init__(self, role, name, tensor, size, extra):
        self.index, self.role, self.names = None, role, [name]
        self.tensor, self.size, self.extra = tensor, size, extra
        self.saved_edges = []  # (body index, fn id, saved name, version text, stale)


class _Builder:
    """Writes the statements of one ``make_dot`` call, in torchviz's order."""

    def __init__(self, params, show_attrs, show_saved, max_attr_chars, show_versions,
                 show_hooks):
        self.param_map = {id(v): k for k, v in params.items()}
        self.show_attrs, self.show_saved = show_attrs, show_saved
        self.max_attr_chars = max_attr_chars
        self.show_versions, self.show_hooks = show_versions, show_hooks
        self.body: list = []
        self.tensors: dict = {}  # node id -> _TensorNode
        self.fns: dict = {}  # id(fn) -> fn (keeps every visited node alive: ids stay unique)
        self.keep: list = []  # saved tensors unpacked as new objects, kept alive for their ids
        self.duplicates = 0  # declarations torchviz would have repeated (counted for its size)
        self.owner: dict = {}  # node id -> id(fn) that introduced it (for module clusters)
        self.quoted: dict = {}

    # -- statements --------------------------------------------------------------------
    def _q(self, label: str) -> str:
        q = self.quoted.get(label)
        if q is None:
            q = self.quoted[label] = quote(label)
        return q

    def edge(self, tail: str, head: str, attrs: str = "") -> None:
        self.body.append(f"\t{tail} -> {head}{attrs}\n")

    def fn_node(self, fn) -> None:
        label = (_attr_table(fn, self.max_attr_chars) if self.show_attrs
                 else type(fn).__name__)
        extra = ""
        if self.show_hooks:
            hooks = _node_hooks(fn)
            if hooks:
                label += "\nhooks: " + hooks
                extra = " peripheries=2"
        self.body.append(f"\t{id(fn)} [label={self._q(label)}{extra}]\n")

    def write_tensor(self, nid: str, node: _TensorNode, color: str) -> None:
        """Write (or rewrite in place) the one declaration of tensor node ``nid``."""
        name = ", ".join(n for n in node.names if n) if node.role == _SAVED else node.names[0]
        label = name if node.size is None else f"{name}\n {_size_str(node.size)}"
        label += node.extra
        attrs = f" fillcolor={color}"
        if self.show_hooks and node.tensor is not None:
            hooks = _tensor_hooks(node.tensor)
            if hooks:
                label += "\nhooks: " + hooks
                attrs += " peripheries=2"
        line = f"\t{nid} [label={self._q(label)}{attrs}]\n"
        if node.index is None:
            node.index = len(self.body)
            self.body.append(line)
        else:
            self.body[node.index] = line

    def tensor(self, t, role: int, name: str, color: str, *, nid: str | None = None,
               size=None, extra: str = "", owner=None) -> bool:
        """Declare tensor ``t`` (node ``nid``, default ``str(id(t))``) in ``role``.

        The first declaration writes the statement. A stronger role rewrites it in place
        (leaf > output = view base > saved), a second saved name is joined to the first;
        otherwise nothing is written and False is returned.
        """
        nid = nid or str(id(t))
        node = self.tensors.get(nid)
        if node is None:
            size = t.size() if size is None and t is not None else size
            node = self.tensors[nid] = _TensorNode(role, name, t, size, extra)
            if owner is not None:
                self.owner[nid] = owner
            self.write_tensor(nid, node, color)
            return True
        if role in (_SAVED, _LEAF):  # torchviz writes these declarations every time
            self.duplicates += 1
        if role > node.role:
            was_saved = node.role == _SAVED
            node.role, node.names, node.tensor, node.extra = role, [name], t, extra
            node.size = t.size()
            if owner is not None:
                self.owner[nid] = owner
            if was_saved:  # the saved names and versions move onto the saved edges
                for edge in node.saved_edges:
                    self.saved_edge(*edge, labelled=self.show_versions)
        elif role == node.role == _SAVED:
            if name not in node.names:
                node.names.append(name)
        else:
            return False
        self.write_tensor(nid, node, color)
        return True

    # -- saved tensors -----------------------------------------------------------------
    def saved(self, fn) -> None:
        """The ``show_saved`` statements of ``fn``: ``fn -> t [dir=none]`` and ``t`` (orange)."""
        for name in _saved_names(fn):
            val, problem = _unpack_saved(fn, name)
            if problem is not None:
                self.saved_problem(fn, name, problem)
            elif _is_tensor(val):
                self.saved_tensor(fn, name, val, (val._version, val._version))
            elif isinstance(val, tuple):
                for i, t in enumerate(val):
                    if _is_tensor(t):
                        self.saved_tensor(fn, f"{name}[{i}]", t, (t._version, t._version))

    def saved_problem(self, fn, name: str, problem) -> None:
        """A saved tensor that cannot be unpacked: stale (modified in place) or freed."""
        kind, saved_v, current_v, obj, size = problem
        nid = quote(f"{id(fn)}_{name}")  # a node of its own when the object is out of reach
        if kind == "freed":
            self.saved_tensor(fn, name, None, (None, None), nid=nid, note="\n [freed]")
        elif obj is not None:
            self.saved_tensor(fn, name, obj, (saved_v, current_v))
        else:
            self.saved_tensor(fn, name, None, (saved_v, current_v), nid=nid, size=size)

    def saved_tensor(self, fn, name: str, t, versions, *, nid=None, size=None, note="") -> None:
        """``fn -> t [dir=none]`` and the orange node of ``t`` (unless ``t`` is drawn in a
        stronger role: then only the edge, labelled with the versions if ``show_versions``)."""
        if t is not None:
            self.keep.append(t)
        nid = nid or str(id(t))
        saved_v, current_v = versions
        stale = saved_v != current_v
        vtext = ""
        if self.show_versions and saved_v is not None:
            vtext = f"version {saved_v}" + (f", now {current_v}" if stale else "")
        edge = (len(self.body), str(id(fn)), nid, name, vtext, stale)
        self.saved_edge(*edge, labelled=False)
        node = self.tensors.get(nid)
        if node is not None and node.role > _SAVED:
            self.duplicates += 1  # torchviz would re-declare the node (orange, this name)
            if self.show_versions:
                self.saved_edge(*edge, labelled=True)
            return
        color = "red" if stale and self.show_versions else "orange"
        extra = note + ("\n " + vtext if vtext else "")
        self.tensor(t, _SAVED, name, color, nid=nid, size=size, extra=extra, owner=id(fn))
        self.tensors[nid].saved_edges.append(edge)

    def saved_edge(self, index, tail, head, name, vtext, stale, *, labelled) -> None:
        """Write (``index == len(body)``) or rewrite the undirected edge ``fn -> saved``."""
        attrs = " [dir=none]"
        if labelled and vtext:
            red = " color=red" if stale else ""
            attrs = f" [label={self._q(name + ': ' + vtext)} dir=none{red}]"
        line = f"\t{tail} -> {head}{attrs}\n"
        if index == len(self.body):
            self.body.append(line)
        else:
            self.body[index] = line

    # -- the walk ------------------------------------------------------------------------
    def enter(self, fn) -> None:
        """Statements written when the walk first reaches ``fn`` (before its children)."""
        self.fns[id(fn)] = fn
        if self.show_saved:
            self.saved(fn)
        var = getattr(fn, "variable", None)
        if var is not None:  # AccumulateGrad: the leaf it accumulates into
            self.tensor(var, _LEAF, self.param_map.get(id(var), ""), "lightblue",
                        owner=id(fn))
            self.edge(str(id(var)), str(id(fn)))
        self.fn_node(fn)

    def leave(self, fn) -> None:
        """Statements written after ``fn``'s children: tensors a custom Function saved."""
        try:
            saved = getattr(fn, "saved_tensors", None)
        except RuntimeError:  # freed after backward or modified in place
            saved = None
        for t in saved or ():
            if not _is_tensor(t):
                continue
            self.keep.append(t)
            self.edge(str(id(t)), str(id(fn)), " [dir=none]")
            self.tensor(t, _SAVED, "", "orange", owner=id(fn))

    def walk(self, root) -> None:
        """Depth-first from ``root`` with an explicit stack, in torchviz's statement order."""
        if id(root) in self.fns:
            return
        self.enter(root)
        stack = [(root, iter(getattr(root, "next_functions", ())))]
        while stack:
            fn, children = stack[-1]
            for child, _ in children:
                if child is None:
                    continue
                self.edge(str(id(child)), str(id(fn)))
                if id(child) not in self.fns:
                    self.enter(child)
                    stack.append((child, iter(getattr(child, "next_functions", ()))))
                    break
            else:
                stack.pop()
                self.leave(fn)

    def output(self, var, name: str | None = None, color: str = "darkolivegreen1") -> None:
        """An output tensor, its graph, and (for a view) its base, as torchviz draws them."""
        if name is None:
            name = self.param_map.get(id(var), "")
        if not self.tensor(var, _OUTPUT, name, color):
            return
        self.keep.append(var)
        if var.grad_fn is not None:
            self.walk(var.grad_fn)
            self.edge(str(id(var.grad_fn)), str(id(var)))
        if var._is_view():
            self.output(var._base, None, "darkolivegreen3")
            self.edge(str(id(var._base)), str(id(var)), " [style=dotted]")


def _outputs(var) -> list:
    """``[(tensor, name or None)]`` for a tensor, a tuple/list of tensors or a dict of them."""
    if _is_tensor(var):
        return [(var, None)]
    if isinstance(var, dict):
        items = [(v, str(k)) for k, v in var.items()]
    elif isinstance(var, (tuple, list)):
        items = [(v, None) for v in var]
    else:
        raise TypeError(f"make_dot(): var must be a tensor or a tuple, list or dict of tensors, "
                        f"got {type(var).__name__}")
    for v, _ in items:
        if not _is_tensor(v):
            raise TypeError(f"make_dot(): every output must be a tensor, got {type(v).__name__}")
    return items


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50, *,
             show_versions=False, show_hooks=False, modules=None) -> Digraph:
    """Graphviz drawing of the backward graph that produced ``var`` (torchviz's ``make_dot``).

    Args:
        var: the output: a minigrad or torch tensor, or a tuple, list or dict of them (dict
            keys become the output labels). Outputs are green (``darkolivegreen1``); the base
            of an output that is a view is dark green, joined by a dotted edge.
        params: names for tensors, e.g. ``dict(model.named_parameters())`` (any mapping or
            iterable of ``(name, tensor)``): leaves reached through ``AccumulateGrad`` are
            light blue, labelled ``name\\n (shape)``; without a name just ``(shape)``.
        show_attrs: label each backward node that has ``_saved_*`` attributes with a table of
            them (tensors as ``[saved tensor]``), values cut to ``max_attr_chars``.
        show_saved: draw each saved tensor (orange) joined to its node by an undirected edge.
            Tensors a custom Function saved with ``save_for_backward`` are always drawn.
        max_attr_chars: width limit of the value column for ``show_attrs`` (at least 3).
        show_versions: with ``show_saved``, print each saved tensor's version at save time
            and now; stale ones (modified in place: backward would fail) are red.
        show_hooks: nodes and tensors with hooks get a double border and a ``hooks:`` line
            (PyTorch keeps node hooks out of Python's reach, so on torch graphs only tensor
            hooks are shown).
        modules: a `ModuleTracker`, or a model passed to `track_modules` before
            its forward pass: nodes are grouped in one cluster per submodule that made them.

    Returns:
        a ``graphviz.Digraph`` (subclass `Digraph`); ``.source`` is the DOT text,
        ``.render(format="svg")`` draws it (`GraphvizNotFoundError` without Graphviz).

    Raises:
        TypeError: ``var`` is not a tensor or a tuple/list/dict of tensors, or a ``params``
            value is not a tensor.
        ValueError: ``modules`` is a model that was not tracked with `track_modules`.
    """
    params = {} if params is None else dict(params)
    for k, v in params.items():
        if not _is_tensor(v):
            raise TypeError(f"make_dot(): params[{k!r}] must be a tensor, got {type(v).__name__}")
    tracker = _tracker_of(modules) if modules is not None else None
    b = _Builder(params, show_attrs, show_saved, max_attr_chars, show_versions, show_hooks)
    for v, name in _outputs(var):
        b.output(v, name)
    dot = Digraph(node_attr=dict(NODE_ATTR), graph_attr=dict(size="12,12"))
    dot.body = b.body
    size = max(12, 0.15 * (len(b.body) + b.duplicates))  # torchviz: 0.15 inch per statement
    dot.graph_attr.update(size=f"{size},{size}")
    if tracker is not None:
        _add_clusters(dot, b, tracker)
    return dot


# ---------------------------------------------------------------------------- module clusters
_TRACKERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _tensors_in(obj) -> list:
    """Tensors in a (nested) tuple, list or dict of forward arguments or outputs."""
    out, stack = [], [obj]
    while stack:
        o = stack.pop()
        if _is_tensor(o):
            out.append(o)
        elif isinstance(o, (tuple, list)):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
    return out


class ModuleTracker:
    """Records, with forward hooks, which submodule's forward created each backward node.

    Made by `track_modules`. Each forward pass of the root model starts a new record
    (it keeps the nodes of the last pass alive). ``remove()`` (or leaving a ``with`` block)
    unregisters the hooks; the record stays usable by `make_dot`.
    """

    def __init__(self, model):
        self._root = weakref.ref(model)  # weak: the registry below must not keep models alive
        self.names = {}  # id(module) -> qualified name ('' for the root)
        self.classes = {}  # qualified name -> class name
        self.owner = {}  # id(node) -> qualified name of the innermost module that made it
        self._nodes = []  # keeps recorded nodes alive so their ids stay theirs
        self._frontiers = []
        self._handles = []
        for name, m in model.named_modules():
            self.names[id(m)] = name
            self.classes[name] = type(m).__name__
            self._handles.append(m.register_forward_pre_hook(self._pre, with_kwargs=True))
            self._handles.append(m.register_forward_hook(self._post, always_call=True))

    def _pre(self, module, args, kwargs):
        if module is self._root():
            self.owner.clear()
            self._nodes.clear()
            self._frontiers.clear()
        # nodes that existed before this call: the inputs' grad_fns, and the AccumulateGrad of
        # a leaf input (recognised by its ``variable``)
        tensors = _tensors_in((args, kwargs))
        self._frontiers.append(({id(t.grad_fn) for t in tensors if t.grad_fn is not None},
                                {id(t) for t in tensors}))

    def _post(self, module, args, output):
        frontier, inputs = self._frontiers.pop() if self._frontiers else (set(), set())
        name = self.names[id(module)]
        inner = name + "."
        seen = set(frontier)
        stack = [t.grad_fn for t in _tensors_in(output) if t.grad_fn is not None]
        while stack:
            fn = stack.pop()
            if id(fn) in seen or id(getattr(fn, "variable", None)) in inputs:
                continue
            seen.add(id(fn))
            owner = self.owner.get(id(fn))
            if owner is None:
                self.owner[id(fn)] = name
                self._nodes.append(fn)
            elif name and owner != name and not owner.startswith(inner):
                continue  # made outside this module (reached through a captured tensor)
            stack.extend(c for c, _ in getattr(fn, "next_functions", ()) if c is not None)

    def remove(self) -> None:
        """Unregister the forward hooks (the last record stays)."""
        for h in self._handles:
            h.remove()
        self._handles.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def track_modules(model) -> ModuleTracker:
    """Start recording which submodule of ``model`` creates each backward node.

    Call it before the forward pass, then ``make_dot(y, modules=model)`` (or pass the returned
    tracker) groups the drawing into one cluster per submodule, labelled
    ``qualified.name (ClassName)``. Works for minigrad and torch modules (forward hooks).
    Modules built inside ``forward`` (never registered) are not tracked: their nodes stay
    outside every cluster, which is how such a model shows up.
    """
    tracker = ModuleTracker(model)
    _TRACKERS[model] = tracker
    return tracker


def _tracker_of(modules) -> ModuleTracker:
    if isinstance(modules, ModuleTracker):
        return modules
    tracker = _TRACKERS.get(modules) if _weakrefable(modules) else None
    if tracker is None:
        raise ValueError("make_dot(modules=model): this model's forward pass was not recorded; "
                         "call minigrad.viz.track_modules(model) before running it")
    return tracker


def _weakrefable(obj) -> bool:
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False


def _add_clusters(dot: Digraph, b: _Builder, tracker: ModuleTracker) -> None:
    """One nested ``subgraph cluster_*`` per submodule (the root module gets none)."""
    members: dict = {}
    for fid in b.fns:
        name = tracker.owner.get(fid)
        if name:
            members.setdefault(name, []).append(str(fid))
    for nid, fid in b.owner.items():
        name = tracker.owner.get(fid)
        if name:
            members.setdefault(name, []).append(nid)
    if not members:
        return
    names = set()
    for name in members:  # every ancestor of a used module gets a cluster too
        parts = name.split(".")
        names.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))

    def build(prefix: str) -> list:
        children = sorted((n for n in names if _parent(n) == prefix), key=_natural)
        lines = []
        for child in children:
            lines.append(f"\tsubgraph {quote('cluster_' + child)} {{\n")
            label = f"{child} ({tracker.classes.get(child, '?')})"
            lines.append(f"\t\tlabel={quote(label)} style=dashed\n")
            lines += [f"\t\t{nid}\n" for nid in members.get(child, ())]
            lines += ["\t" + line for line in build(child)]
            lines.append("\t}\n")
        return lines

    dot.body.extend(build(""))


def _parent(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name else ""


def _natural(name: str) -> list:
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in name.split(".")]


# ---------------------------------------------------------------------------- rendering
def render(dot: graphviz.Digraph, stem: str, format: str = "svg") -> tuple:
    """Write ``stem.<format>`` (``svg``, ``png``, ``pdf`` or ``dot``); returns ``(path, None)``.

    Without Graphviz's ``dot`` program the DOT source is written to ``stem.dot`` instead and
    ``(that path, INSTALL_HINT)`` is returned, so callers can print the hint (no traceback).
    """
    if format == "dot":
        path = f"{stem}.dot"
        with open(path, "w", encoding="utf-8") as f:
            f.write(dot.source)
        return path, None
    try:
        return dot.render(outfile=f"{stem}.{format}", format=format, cleanup=True), None
    except graphviz.ExecutableNotFound:
        leftover = f"{stem}.gv"  # the source graphviz saved before trying to run `dot`
        if os.path.exists(leftover):
            os.remove(leftover)
        path, _ = render(dot, stem, "dot")
        return path, INSTALL_HINT


def graph_page(model: str, out_dir: str, fmt: str = "svg", show_saved: bool = False,
               modules: bool = False) -> dict:
    """Draw toy network ``model`` (see `minigrad.toy_models`) for minigrad and torch.

    Writes ``<model>_minigrad.<fmt>`` and ``<model>_torch.<fmt>`` (``.dot`` files when ``fmt``
    is ``dot`` or Graphviz is missing) and ``<model>.html`` showing both side by side into
    ``out_dir`` (created if needed). Without torch only the minigrad drawing is made.
    Returns ``{"files": [paths], "hint": None or INSTALL_HINT}``.
    """
    import html

    import minigrad

    from . import toy_models

    toy = toy_models.get(model)
    os.makedirs(out_dir, exist_ok=True)
    libs = [("minigrad", minigrad)]
    try:
        import torch

        libs.append(("torch", torch))
    except ImportError:  # pragma: no cover - torch is a test dependency
        pass
    files, hint, cells = [], None, []
    for label, lib in libs:
        run = toy_models.run(model, lib, track=modules)
        dot = make_dot(run["output"], params=run["params"], show_saved=show_saved,
                       modules=run["tracker"])
        path, problem = render(dot, os.path.join(out_dir, f"{model}_{label}"), fmt)
        hint = hint or problem
        files.append(path)
        name = os.path.basename(path)
        title = f"{label} {lib.__version__}" if hasattr(lib, "__version__") else label
        if path.endswith(".dot"):
            body = f"<pre>{html.escape(dot.source)}</pre>"
        elif fmt == "pdf":
            body = f'<embed src="{name}" type="application/pdf" width="100%" height="800">'
        else:
            body = f'<img src="{name}" alt="{label} backward graph">'
        cells.append(f'<div class="cell"><h2>{html.escape(title)}</h2>\n<p><a href="{name}">'
                     f"{name}</a></p>\n{body}</div>")
    note = f"<p>{html.escape(hint)}</p>" if hint else ""
    page = (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{model}: backward "
            f"graphs</title>\n<style>body{{font-family:sans-serif}} .row{{display:flex;gap:2em}}"
            f" .cell{{flex:1}} img{{max-width:100%}}</style></head><body>\n"
            f"<h1>{model}: {html.escape(toy.description)}</h1>\n{note}\n<div class=\"row\">\n"
            + "\n".join(cells) + "\n</div></body></html>\n")
    page_path = os.path.join(out_dir, f"{model}.html")
    with open(page_path, "w", encoding="utf-8") as f:
        f.write(page)
    files.append(page_path)
    return {"files": files, "hint": hint}


# ---------------------------------------------------------------------------- backward traces
# (defined in viz_trace, which uses make_dot above: imported last)
from .viz_trace import BackwardTrace, trace_backward  # noqa: E402
