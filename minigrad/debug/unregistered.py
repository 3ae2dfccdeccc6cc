"""``find_unregistered``: parts of a model that take part in ``forward`` but that the model does
not own — so ``parameters()`` (and every optimizer) never sees them.

The classic case (``shared/cases/23``): a ``Sequential`` built inside ``forward()``. Its
parameters *do* get gradients (they are leaves of the graph), but ``model.parameters()`` does
not list them, so the optimizer never updates them, and they are rebuilt with fresh random
weights on every call. Only modules and ``Parameter``\\ s assigned as attributes of a module
(``self.block = ...``) or put in ``ModuleList`` / ``ModuleDict`` / ``ParameterList`` are
registered.

One forward (and one gradient computation with ``autograd.grad``, so ``.grad`` is left alone)
is enough to see it:

* a global forward pre-hook lists every module called during the forward; those not in
  ``model.modules()`` are unregistered. While the forward runs, ``Module.__init__`` is wrapped
  to remember where each new module is created (file:line), so a module made in ``forward`` is
  reported with that line;
* the graph's leaves (``AccumulateGrad.variable``) that are neither parameters of the model nor
  its inputs are tensors the optimizer does not own;
* registered parameters that require grad but receive no gradient are listed too.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from ._util import (
    current_user_frame,
    graph_leaves,
    lib_of,
    scalar_of,
    tensors_in,
    user_frame,
    where,
)
from .cuts import CutRecorder, describe

__all__ = ["Finding", "find_unregistered"]


@dataclass
class Finding:
    """One problem found in a model.

    ``kind``: ``"unregistered_module"``, ``"recreated_module"``, ``"unregistered_tensor"``,
    ``"unused_module"`` (defined, never called), ``"cut_graph"`` (called, but the graph was cut
    after it: ``where`` is the cutting op) or ``"no_grad"`` (no gradient, cause unknown);
    ``name``: what it is about (module or parameter name); ``message``: what is wrong; ``fix``:
    how to fix it; ``where``: ``file:line: code`` when known; ``owner``: for a parameter of
    an unregistered module, that module's label (reports print them as one line under it).
    """

    kind: str
    name: str
    message: str
    fix: str
    where: str | None = None
    owner: str | None = None  # a parameter's finding: the unregistered module it belongs to

    def __str__(self) -> str:
        loc = f"\n    at {self.where}" if self.where else ""
        return f"[{self.kind}] {self.message}{loc}\n    fix: {self.fix}"


def _module_base(lib):
    return lib.nn.Module


def _container_attr(model, target):
    """``('block.layers[0]', container type)`` when ``target`` sits in a plain list / tuple /
    dict attribute of a registered module, else None."""
    for mod_name, mod in model.named_modules():
        for attr, value in vars(mod).items():
            if attr.startswith("_"):
                continue
            items = value.items() if isinstance(value, dict) else enumerate(value) \
                if isinstance(value, (list, tuple)) else ()
            for key, item in items:
                if item is target:
                    label = f"{mod_name}.{attr}" if mod_name else attr
                    return f"{label}[{key!r}]", type(value).__name__
    return None


def _tensor_attr(model, target):
    """``(module name, attribute)`` when ``target`` is a plain tensor attribute of a registered
    module, else None."""
    for mod_name, mod in model.named_modules():
        for attr, value in vars(mod).items():
            if value is target:
                return mod_name, attr
    return None


def find_unregistered(model, *inputs, **kwargs) -> list:
    """Run ``model(*inputs, **kwargs)`` once and report what it uses but does not own.

    Works on ``minigrad.nn.Module`` and ``torch.nn.Module`` models. Returns a list of
    `Finding` (empty when everything is registered). Gradients are computed with
    ``autograd.grad`` on the sum of the floating outputs, so no ``.grad`` is modified; the
    forward itself runs as usual (in the model's current train/eval mode). Exceptions from the
    model propagate unchanged.
    """
    with ForwardRecorder(model) as rec:
        output = model(*inputs, **kwargs)
    return rec.findings(output, inputs, kwargs)


class ForwardRecorder:
    """Context manager that watches one forward of ``model``: which modules are called (and
    from where), which are created (and where), and where the graph is cut
    (`minigrad.debug.cuts.CutRecorder`). `findings` then analyses the output.

    `find_unregistered` is this plus one ``autograd.grad``; ``minigrad doctor`` uses it
    around its own step and passes the gradients its backward made, so the model runs once.
    """

    def __init__(self, model, watch_cuts: bool = True):
        self.model = model
        self.lib = lib_of(model)
        self.registered = {id(m) for m in model.modules()}
        self.created: dict = {}  # id(module) -> (module, creation frame)
        self.called: dict = {}  # id(module) -> (module, call frame)
        # watch_cuts=False: the caller records cuts itself, only when a gradient is missing
        # (the torch function mode costs more than the rest of the recording together)
        self.cuts = CutRecorder(self.lib)
        self.watch_cuts = watch_cuts
        self._undo: list = []

    def __enter__(self) -> ForwardRecorder:
        base = _module_base(self.lib)
        original_init = base.__init__
        created, called = self.created, self.called

        def recording_init(module, *args, **kw):
            original_init(module, *args, **kw)
            if id(module) not in created:
                created[id(module)] = (module, user_frame(traceback.extract_stack()[:-1],
                                                          skip_init=True))

        registered = self.registered

        def pre_hook(module, args):
            # where a module was called matters only for one the model does not own; reading
            # the stack costs more than a small module's forward, so registered ones skip it
            if id(module) not in called:
                called[id(module)] = (module, None if id(module) in registered
                                      else current_user_frame())

        handle = self.lib.nn.modules.module.register_module_forward_pre_hook(pre_hook)
        base.__init__ = recording_init
        self._undo += [handle.remove, lambda: setattr(base, "__init__", original_init)]
        if self.watch_cuts:
            self.cuts.__enter__()
            self._undo.append(lambda: self.cuts.__exit__(None, None, None))
        return self

    def __exit__(self, *exc) -> None:
        while self._undo:
            self._undo.pop()()

    def findings(self, output, inputs=(), kwargs=None, grads=None) -> list:
        """The `Finding`s for this forward's ``output``. ``grads``: ``{id(leaf):
        gradient or None}`` from the caller's backward; None computes them with
        ``autograd.grad`` on the sum of the floating outputs."""
        return _analyse(self, inputs, kwargs or {}, output, grads)


def _analyse(rec, inputs, kwargs, output, grads) -> list:
    lib, model, created, called = rec.lib, rec.model, rec.created, rec.called
    registered_before = rec.registered
    findings: list = []
    registered_now = {id(m) for m in model.modules()}
    # a loss module (nn.CrossEntropyLoss() called by the user's loss or step) has nothing to
    # train, so its not being registered is no problem
    loss_cls = lib.nn.modules.loss._Loss
    unregistered = [(m, frame) for key, (m, frame) in called.items()
                    if key not in registered_now and not isinstance(m, loss_cls)]
    # report only the outermost unregistered module of a nest (the Sequential, not its Linear)
    inner = {id(child) for m, _ in unregistered for child in m.modules() if child is not m}
    owned: list = []  # (module label, parameter name, parameter) of unregistered modules
    for m, call_frame in unregistered:
        if id(m) in inner:
            continue
        n_params = sum(1 for _ in m.parameters())
        what = f"{type(m).__name__} ({n_params} parameter tensors)"
        made = created.get(id(m))
        container = _container_attr(model, m)
        label = container[0] if container is not None and made is None else type(m).__name__
        owned += [(label, p_name, p) for p_name, p in m.named_parameters()]
        if made is not None:
            message = (f"{what} is created inside forward() on every call and is not registered "
                       "on the model: model.parameters() does not list its parameters, so no "
                       "optimizer updates them, and it starts from fresh random weights each "
                       "call")
            fix = ("create it once in __init__ and assign it as an attribute "
                   f"(self.block = {type(m).__name__}(...)), then call self.block(x) in forward")
            loc = where(made[1])
        elif container is not None:
            holder, ctype = container
            message = (f"{what} is called in forward() but is kept in a plain Python {ctype} "
                       f"({holder}), so it is not registered: its parameters are not in "
                       "model.parameters()")
            fix = "use nn.ModuleList (for a list) or nn.ModuleDict (for a dict) instead"
            loc = where(call_frame)
        else:
            message = (f"{what} is called in forward() but is not a registered submodule of the "
                       "model, so its parameters are not in model.parameters()")
            fix = ("assign it as an attribute of the model in __init__ (self.name = module), or "
                   "add it with add_module / nn.ModuleList")
            loc = where(call_frame)
        findings.append(Finding("unregistered_module", label, message, fix, loc))

    for key, (m, frame) in created.items():  # registered, but made during this forward
        if key in registered_now and key not in registered_before:
            name = next(n for n, mm in model.named_modules() if mm is m)
            findings.append(Finding(
                "recreated_module", name,
                f"submodule '{name}' ({type(m).__name__}) is assigned inside forward(): it is "
                "registered only after the first call and replaced by a new one with fresh "
                "weights on every call, so the optimizer holds stale parameters",
                f"create it once in __init__ (self.{name.split('.')[-1]} = "
                f"{type(m).__name__}(...))", where(frame)))

    params = dict(model.named_parameters())
    param_ids = {id(p) for p in params.values()}
    input_ids = {id(t) for t in tensors_in(list(inputs) + list(kwargs.values()))}
    leaves = graph_leaves(output)
    leaf_ids = {id(t) for t in leaves}
    owned_ids = set()
    for label, p_name, p in owned:  # in each unregistered module's parameter order
        if id(p) in leaf_ids and id(p) not in owned_ids:
            owned_ids.add(id(p))
            findings.append(Finding(
                "unregistered_tensor", f"{label}.{p_name}",
                f"parameter '{p_name}' {tuple(p.shape)} of the unregistered {label} reaches the "
                "graph (it gets a gradient) but is not in model.parameters(): the optimizer "
                "never updates it", "register its module (see above)", owner=label))
    for leaf in leaves:
        if id(leaf) in param_ids or id(leaf) in input_ids or id(leaf) in owned_ids:
            continue
        shape = tuple(leaf.shape)
        maker = next(((m, p_name, frame) for m, frame in created.values()
                      for p_name, p in m.named_parameters() if p is leaf), None)
        if maker is not None:  # a parameter of a module made in forward but never called
            m, p_name, frame = maker
            findings.append(Finding(
                "unregistered_tensor", f"{type(m).__name__}.{p_name}",
                f"parameter '{p_name}' {shape} of a {type(m).__name__} created inside forward() "
                "reaches the graph but is not in model.parameters(): the optimizer never "
                "updates it, and it is re-created with fresh weights on every call",
                "create the module once in __init__ and assign it as an attribute",
                where(frame)))
            continue
        attr = _tensor_attr(model, leaf)
        label = f"'{attr[0]}.{attr[1]}'" if attr and attr[0] else \
            f"'{attr[1]}'" if attr else "a tensor"
        findings.append(Finding(
            "unregistered_tensor", label.strip("'"),
            f"{label} {shape} requires grad and reaches the graph as a leaf but is not a "
            "registered parameter of the model: the optimizer never updates it",
            "wrap it in nn.Parameter and assign it as a module attribute (or pass it to the "
            "optimizer); use register_buffer if it should not be trained"))

    reached = _gradients(lib, output, leaves) if grads is None else grads
    missing = [name for name, p in params.items()
               if p.requires_grad and reached.get(id(p)) is None]
    findings += _missing_gradients(rec, missing, params)
    return findings


def _missing_gradients(rec, missing, params) -> list:
    """Registered trainable parameters that got no gradient, one finding per cause: modules
    that never ran ("not used in forward"), then the cut that stopped the gradient before the
    others (with the op and line), else a plain "received no gradient"."""
    if not missing:
        return []
    named = dict(rec.model.named_modules())
    ran = {name for name, m in named.items() if id(m) in rec.called}

    def owner(p_name):
        return p_name.rpartition(".")[0]

    unused = sorted({_outermost_unused(owner(n), ran) for n in missing
                     if owner(n) not in ran})
    findings = []
    for name in unused:
        m = named[name]
        n_params = sum(1 for _ in m.parameters())
        findings.append(Finding(
            "unused_module", name,
            f"submodule '{name}' ({type(m).__name__}, {n_params} parameter tensors) is "
            "defined but never called in forward(): its parameters get no gradient (the "
            "graph is not cut; the module is simply not used)",
            f"call self.{name.split('.')[-1]}(...) in forward, or delete it from __init__"))
    rest = [n for n in missing if owner(n) in ran]
    if not rest:
        return findings
    modules = list(dict.fromkeys(owner(n) or "(model)" for n in rest))
    shown = ", ".join(modules[:6]) + (f" and {len(modules) - 6} more" if len(modules) > 6
                                      else "")
    n_tensors = f"{len(rest)} parameter tensor{'s' if len(rest) > 1 else ''}"
    cut = describe(rec.cuts.events)
    if cut is not None:
        what, fix, loc = cut
        findings.append(Finding(
            "cut_graph", shown, f"{what}: no gradient flows back to {n_tensors} of {shown}, "
            "although these modules ran in forward", fix, loc))
    else:
        findings.append(Finding(
            "no_grad", shown,
            f"registered {n_tensors} of {shown} received no gradient although the modules ran "
            f"in forward ({', '.join(rest[:3])}{', ...' if len(rest) > 3 else ''}): their "
            "results do not reach the loss",
            "make the loss depend on them, or remove them / set requires_grad_(False) if they "
            "are not meant to train"))
    return findings


def _outermost_unused(name, ran) -> str:
    """The outermost module on the path to ``name`` that never ran (its parent did)."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        if ".".join(parts[:i]) not in ran:
            return ".".join(parts[:i])
    return name


def _gradients(lib, output, leaves) -> dict:
    """id(leaf) -> gradient (or None) of the sum of the outputs, via ``autograd.grad``."""
    scalar = scalar_of(output)
    wanted = [t for t in leaves if t.requires_grad]
    if scalar is None or not wanted:
        return {}
    grads = lib.autograd.grad(scalar, wanted, allow_unused=True)
    return {id(t): g for t, g in zip(wanted, grads)}
