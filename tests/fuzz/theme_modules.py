"""The ``modules`` theme: random module trees, every kind of module hook, state_dict round trips.

Steps (``m`` indexes the runner's ``mods``, the root modules made so far; ``path`` names a
submodule as ``get_submodule`` does, ``""`` the root):

- ``("mod", spec, seed, dtype)``: build a tree from ``spec`` (see :func:`build`) in ``dtype``,
  weights and buffers loaded from NumPy data drawn in ``state_dict`` order.
- ``("mcall", m, i, kw, mode, n_out)``: ``mods[m](env[i], **kw)``; the output joins the env.
- ``("mparam", m, name)``: the parameter ``name`` joins the env (tensor hooks, post-accumulate
  hooks, ``.grad =`` ... of the other step kinds then reach it).
- ``("mhook", m, path, kind, variant)``: a forward pre / forward / full backward pre / full
  backward / legacy backward hook on a submodule (see :data:`HOOK_KINDS`), or ``"remove"`` of
  an earlier handle.
- ``("ghook", kind, variant)``: a global module hook (removed when the program ends).
- ``("msd", m, variant)``: ``state_dict`` / ``load_state_dict`` round trip (same values,
  changed values, a missing / unexpected / mis-sized key, ``strict=False``, ``keep_vars``,
  into a deep copy).
- ``("mtrain", m, path, flag)``, ``("mreq", m, path, flag)``, ``("mzero", m, set_to_none)``,
  ``("mcopy", m)`` (``copy.deepcopy``, a new root), ``("mset", m, path, what)`` (attribute
  assignments: a new submodule, a parameter, a plain tensor where a parameter was, None).

Hook calls are logged with the module's path (global hooks: its class name), the shapes and
sums of their tensor arguments, and the kwargs' names; the final trace has every root's
named parameters (values, ``.grad``, ``requires_grad``, ``_version``), buffers, training flags
and ``state_dict`` keys.
"""

from __future__ import annotations

import copy

import numpy as np

from minigrad.parity import to_numpy

HOOK_KINDS = {
    "fpre": ["log", "scale", "kw", "prepend"],
    "fwd": ["log", "replace", "kw", "always", "prepend"],
    "bpre": ["log", "scale"],
    "bfull": ["log", "scale"],
    "blegacy": ["log"],
}
GLOBAL_KINDS = ["fpre", "fwd", "bfull", "bpre", "blegacy"]
ACTS = ["ReLU", "Tanh", "Sigmoid", "Identity", "Softmax", "LogSoftmax", "Dropout"]


def _desc(x):
    """Plain-data description of a hook argument."""
    if x is None:
        return None
    if hasattr(x, "grad_fn"):
        arr = to_numpy(x)
        return (tuple(x.shape), float(arr.astype(np.float64).sum()) if arr.size else 0.0)
    if isinstance(x, (tuple, list)):
        return [_desc(v) for v in x]
    if isinstance(x, dict):
        return {k: _desc(v) for k, v in x.items()}
    return repr(x)


_CLASSES: dict = {}


def _classes(L):
    """The custom module classes of library ``L`` (made once per library)."""
    if L.__name__ in _CLASSES:
        return _CLASSES[L.__name__]
    nn = L.nn

    class Block(nn.Module):
        """``inner(x) * gain * scale`` (a keyword argument); counts calls in a buffer."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            self.gain = nn.Parameter(L.ones(1))
            self.register_buffer("count", L.zeros(()))
            self.register_buffer("tmp", L.zeros(2), persistent=False)

        def forward(self, x, scale=1.0):
            self.count.add_(1)
            return self.inner(x) * self.gain * scale

    class Chain(nn.Module):
        """A ModuleList applied in order."""

        def __init__(self, mods):
            super().__init__()
            self.layers = nn.ModuleList(mods)

        def forward(self, x):
            for m in self.layers:
                x = m(x)
            return x

    class DictNet(nn.Module):
        """A ModuleDict applied in insertion order."""

        def __init__(self, items):
            super().__init__()
            self.layers = nn.ModuleDict(dict(items))

        def forward(self, x):
            for m in self.layers.values():
                x = m(x)
            return x

    _CLASSES[L.__name__] = Block, Chain, DictNet
    return _CLASSES[L.__name__]


def build(L, spec, made=None):
    """The module of ``spec``: ``["linear", fin, fout, bias]``, ``["conv", cin, cout, k,
    stride, padding, bias]``, ``["act", name]``, ``["pool", "max"|"avg", k]``,
    ``["flatten"]``, ``["seq", [...]]``, ``["list", [...]]``, ``["dict", [[name, spec], ...]]``,
    ``["block", spec]``, ``["shared", k]`` (the k-th module made before, again)."""
    nn = L.nn
    made = [] if made is None else made
    kind = spec[0]
    if kind == "shared":
        return made[spec[1]]
    Block, Chain, DictNet = _classes(L)
    if kind == "linear":
        m = nn.Linear(spec[1], spec[2], bias=spec[3])
    elif kind == "conv":
        m = nn.Conv2d(spec[1], spec[2], spec[3], stride=spec[4], padding=spec[5], bias=spec[6])
    elif kind == "act":
        name = spec[1]
        m = (nn.Softmax(dim=-1) if name == "Softmax" else nn.LogSoftmax(dim=-1)
             if name == "LogSoftmax" else nn.Dropout(0.0) if name == "Dropout"
             else getattr(nn, name)())
    elif kind == "pool":
        m = (nn.MaxPool2d if spec[1] == "max" else nn.AvgPool2d)(spec[2])
    elif kind == "flatten":
        m = nn.Flatten()
    elif kind == "seq":
        m = nn.Sequential(*[build(L, s, made) for s in spec[1]])
    elif kind == "list":
        m = Chain([build(L, s, made) for s in spec[1]])
    elif kind == "dict":
        m = DictNet([(k, build(L, s, made)) for k, s in spec[1]])
    elif kind == "block":
        m = Block(build(L, spec[1], made))
    else:  # pragma: no cover
        raise ValueError(kind)
    made.append(m)
    return m


def _fill(L, m, seed):
    """Load NumPy data (drawn in ``state_dict`` order) into every parameter and buffer."""
    rng = np.random.default_rng(seed)
    sd = m.state_dict()
    new = {k: (rng.standard_normal(tuple(v.shape)) * 0.5).astype(str(v.dtype).split(".")[-1])
           for k, v in sd.items()}
    m.load_state_dict({k: L.tensor(v) for k, v in new.items()})


def _tag_hook(log, tag, kind, variant, name_of):
    """The hook function of ``kind``/``variant`` logging under ``tag``."""
    if kind == "fpre":
        if variant == "kw":
            def hook(mod, args, kwargs):
                log.append((tag, name_of(mod), _desc(args), sorted(kwargs)))
        else:
            def hook(mod, args):
                log.append((tag, name_of(mod), _desc(args)))
                if variant == "scale" and args and hasattr(args[0], "grad_fn"):
                    return (args[0] * 2,) + tuple(args[1:])
                return None
    elif kind == "fwd":
        if variant == "kw":
            def hook(mod, args, kwargs, out):
                log.append((tag, name_of(mod), _desc(args), sorted(kwargs), _desc(out)))
        else:
            def hook(mod, args, out):
                log.append((tag, name_of(mod), _desc(args), _desc(out)))
                if variant == "replace" and hasattr(out, "grad_fn"):
                    return out * 1.5
                return None
    elif kind == "bpre":
        def hook(mod, grad_output):
            log.append((tag, name_of(mod), _desc(grad_output)))
            if variant == "scale":
                return tuple(None if g is None else g * 2 for g in grad_output)
            return None
    else:  # bfull / blegacy
        def hook(mod, grad_input, grad_output):
            log.append((tag, name_of(mod), _desc(grad_input), _desc(grad_output)))
            if variant == "scale":
                return tuple(None if g is None else g * 0.5 for g in grad_input)
            return None
    return hook


class ModuleSteps:
    """Runner mixin: the module steps."""

    def _mod(self, spec, seed, dtype):
        m = build(self.L, spec)
        if dtype == "float64":
            m.double()
        _fill(self.L, m, seed)
        self.mods.append(m)
        return self.mod_record(m)

    def mod_record(self, m) -> dict:
        return {"modules": [(n, type(s).__name__, s.training) for n, s in m.named_modules()],
                "state_dict": [(k, tuple(v.shape)) for k, v in m.state_dict().items()],
                "params": [n for n, _ in m.named_parameters()],
                "buffers": [n for n, _ in m.named_buffers()],
                "repr": repr(m)}

    def mod_final(self, m) -> dict:
        params = {}
        for n, p in m.named_parameters():
            params[n] = {"value": to_numpy(p), "requires_grad": p.requires_grad,
                         "version": p._version, "grad": self.grad_record(p)}
        return {"params": params,
                "buffers": {n: to_numpy(b) for n, b in m.named_buffers()},
                "training": [s.training for _, s in m.named_modules()],
                "state_dict": list(m.state_dict())}

    def _sub(self, m, path):
        root = self.mods[m]
        return root if path == "" else root.get_submodule(path)

    def _mcall(self, m, i, kw, mode, n_out):
        x = self._get(i)
        out = self._in_mode(mode, lambda: self.mods[m](x, **kw))
        return self._push(out, [i])

    def _mparam(self, m, name):
        return self._push(self.mods[m].get_parameter(name))

    def _mhook(self, m, path, kind, variant):
        if kind == "remove":
            self.keep[variant].remove()
            return None
        mod = self._sub(m, path)
        tag = f"{kind}_{variant}_{len(self.keep)}"
        hook = _tag_hook(self.log, tag, kind, variant, lambda _mod, p=path: p)
        if kind == "fpre":
            h = mod.register_forward_pre_hook(hook, prepend=variant == "prepend",
                                              with_kwargs=variant == "kw")
        elif kind == "fwd":
            h = mod.register_forward_hook(hook, prepend=variant == "prepend",
                                          with_kwargs=variant == "kw",
                                          always_call=variant == "always")
        elif kind == "bpre":
            h = mod.register_full_backward_pre_hook(hook)
        elif kind == "bfull":
            h = mod.register_full_backward_hook(hook)
        else:
            h = mod.register_backward_hook(hook)
        self.keep.append(h)
        return None

    def _ghook(self, kind, variant):
        M = self.L.nn.modules.module
        tag = f"g{kind}_{variant}_{len(self.globals)}"
        hook = _tag_hook(self.log, tag, kind, variant, lambda mod: type(mod).__name__)
        reg = {"fpre": M.register_module_forward_pre_hook,
               "fwd": M.register_module_forward_hook,
               "bfull": M.register_module_full_backward_hook,
               "bpre": M.register_module_full_backward_pre_hook,
               "blegacy": M.register_module_backward_hook}[kind]
        self.globals.append(reg(hook))
        return None

    def _msd(self, m, variant):
        mod = self.mods[m]
        sd = mod.state_dict(keep_vars=variant == "keep_vars")
        rec = {"keys": list(sd), "requires_grad": [v.requires_grad for v in sd.values()]}
        L = self.L
        if variant in ("same", "keep_vars"):
            res = mod.load_state_dict(sd)
        elif variant == "copy":
            other = copy.deepcopy(mod)
            res = other.load_state_dict({k: v * 0.5 for k, v in sd.items()})
            self.mods.append(other)
        else:
            new = {k: L.tensor(to_numpy(v) * 0.5 + 0.25) for k, v in sd.items()}
            keys = list(new)
            if variant == "missing" and keys:
                del new[keys[-1]]
            elif variant == "missing_loose" and keys:
                del new[keys[0]]
            elif variant == "unexpected":
                new["extra.weight"] = L.zeros(1)
            elif variant == "bad_shape" and keys:
                new[keys[0]] = L.zeros(7)
            # a strict load that fails is tried on a deep copy: PyTorch copies the matching
            # entries before raising, minigrad checks everything first and changes nothing (as
            # its load_state_dict documents; DESIGN.md "Bad input")
            target = copy.deepcopy(mod) if variant in ("missing", "unexpected",
                                                       "bad_shape") else mod
            res = target.load_state_dict(new, strict=variant != "missing_loose")
        rec["missing"], rec["unexpected"] = list(res.missing_keys), list(res.unexpected_keys)
        rec["versions"] = [p._version for p in mod.parameters()]
        return rec

    def _mtrain(self, m, path, flag):
        mod = self._sub(m, path)
        mod.train(flag) if flag is not None else mod.eval()
        return [s.training for _, s in self.mods[m].named_modules()]

    def _mreq(self, m, path, flag):
        self._sub(m, path).requires_grad_(flag)
        return [p.requires_grad for p in self.mods[m].parameters()]

    def _mzero(self, m, set_to_none):
        self.mods[m].zero_grad(set_to_none=set_to_none)
        return [self.grad_record(p) for p in self.mods[m].parameters()]

    def _mcopy(self, m):
        self.mods.append(copy.deepcopy(self.mods[m]))
        return self.mod_record(self.mods[-1])

    def _mset(self, m, path, what):
        L, mod = self.L, self._sub(m, path)
        if what == "new_linear":
            lin = L.nn.Linear(2, 2)
            _fill(L, lin, 99)  # (not PyTorch's random init)
            mod.extra = lin
        elif what == "param":
            mod.extra_p = L.nn.Parameter(L.ones(2))
        elif what == "tensor_over_param":
            name = next(iter(mod._parameters), "weight")
            setattr(mod, name, L.ones(2))
        elif what == "none_param":
            name = next(iter(mod._parameters), None)
            if name is not None:
                setattr(mod, name, None)
        elif what == "plain":
            mod.note = L.ones(2)
        return self.mod_record(self.mods[m])


class ModuleGen:
    """Generator mixin: module trees and the module steps."""

    def tree(self, tail, depth=0, made=None):
        """``(spec, out_tail)`` of a random module taking inputs ending in ``tail``; ``made``
        collects ``(in_tail, out_tail)`` per module built, in construction order."""
        from hypothesis import strategies as st

        made = [] if made is None else made
        kinds = ["linear", "linear", "act", "act"]
        if len(tail) == 3 and min(tail[1:]) >= 2:
            kinds += ["conv", "pool", "flatten"]
        if depth < 2:
            kinds += ["seq", "seq", "list", "dict", "block"]
        ok = [k for k, (i, _) in enumerate(made) if i == tuple(tail)]
        if ok:
            kinds += ["shared"]
        kind = self.d(st.sampled_from(kinds))
        if kind == "shared":
            k = self.d(st.sampled_from(ok))
            return ["shared", k], made[k][1]
        if kind == "linear":
            fin = tail[-1] if tail else 1
            fout = self.d(st.integers(1, 4))
            spec, out = ["linear", fin, fout, self.d(st.booleans())], tuple(tail[:-1]) + (fout,)
        elif kind == "act":
            spec, out = ["act", self.d(st.sampled_from(ACTS))], tuple(tail)
        elif kind == "conv":
            c, h, w = tail
            k = self.d(st.integers(1, min(3, h, w)))
            stride, pad = self.d(st.sampled_from([1, 2])), self.d(st.sampled_from([0, 1]))
            cout = self.d(st.integers(1, 3))
            spec = ["conv", c, cout, k, stride, pad, self.d(st.booleans())]
            out = (cout, (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1)
        elif kind == "pool":
            k = 2
            spec, out = ["pool", self.d(st.sampled_from(["max", "avg"])), k], (
                tail[0], tail[1] // k, tail[2] // k)
        elif kind == "flatten":
            spec, out = ["flatten"], (int(np.prod(tail)),)
        elif kind == "block":
            inner, out = self.tree(tail, depth + 1, made)
            spec = ["block", inner]
        else:
            children, cur = [], tuple(tail)
            for _ in range(self.d(st.integers(1, 3))):
                child, cur = self.tree(cur, depth + 1, made)
                children.append(child)
            if kind == "dict":
                children = [[f"m{j}", c] for j, c in enumerate(children)]
            spec, out = [kind, children], cur
        made.append((tuple(tail), tuple(out)))
        return spec, tuple(out)

    def s_mod(self):
        from hypothesis import strategies as st

        tail = (self.d(st.integers(1, 4)),) if self.chance(2) else (
            self.d(st.integers(1, 2)), self.d(st.integers(2, 5)), self.d(st.integers(2, 5)))
        spec, _ = self.tree(tail)
        self.seed += 1
        self.emit(("mod", spec, self.seed, self.dtype))
        self.mod_in.append(tail)

    def mod_index(self):
        from hypothesis import strategies as st

        if not self.runner.mods:
            self.s_mod()
        return self.d(st.integers(0, len(self.runner.mods) - 1))

    def paths(self, m):
        return [n for n, _ in self.runner.mods[m].named_modules()]

    def s_mcall(self):
        from hypothesis import strategies as st

        m = self.mod_index()
        tail = self.mod_in[m] if m < len(self.mod_in) else None
        if tail is None:  # a deep copy: same input as its original
            tail = (1,)
        shape = (self.d(st.integers(1, 3)),) + tuple(tail)
        if self.chance(25):
            shape = shape[:-1] + (shape[-1] + 1,)  # a wrong size: both libraries raise
        i = self.exact(shape)
        kw = {}
        if type(self.runner.mods[m]).__name__ == "Block" and self.chance(2):
            kw = {"scale": self.d(st.sampled_from([2.0, 0.5]))}
        self.emit(("mcall", m, i, kw, self.no_grad(), 1))

    def s_mparam(self):
        from hypothesis import strategies as st

        m = self.mod_index()
        names = [n for n, _ in self.runner.mods[m].named_parameters()]
        if names:
            self.emit(("mparam", m, self.d(st.sampled_from(names))))

    def s_mhook(self):
        from hypothesis import strategies as st

        m = self.mod_index()
        if self.runner.keep and self.chance(8):
            self.emit(("mhook", m, "", "remove",
                       self.d(st.integers(0, len(self.runner.keep) - 1))))
            return
        kind = self.d(st.sampled_from(list(HOOK_KINDS)))
        self.emit(("mhook", m, self.d(st.sampled_from(self.paths(m))), kind,
                   self.d(st.sampled_from(HOOK_KINDS[kind]))))

    def s_ghook(self):
        from hypothesis import strategies as st

        if len(self.runner.globals) >= 3:
            return
        kind = self.d(st.sampled_from(GLOBAL_KINDS))
        self.emit(("ghook", kind, self.d(st.sampled_from(HOOK_KINDS[kind][:2]))))

    def s_msd(self):
        from hypothesis import strategies as st

        m = self.mod_index()
        self.emit(("msd", m, self.d(st.sampled_from(
            ["same", "same", "keep_vars", "copy", "perturb", "perturb", "missing",
             "missing_loose", "unexpected", "bad_shape"]))))
        if len(self.runner.mods) > len(self.mod_in):  # "copy" made a deep copy
            self.mod_in.append(self.mod_in[m] if m < len(self.mod_in) else None)

    def s_mtrain(self):
        from hypothesis import strategies as st

        m = self.mod_index()
        self.emit(("mtrain", m, self.d(st.sampled_from(self.paths(m))),
                   self.d(st.sampled_from([True, False, None]))))

    def s_mreq(self):
        from hypothesis import strategies as st

        m = self.mod_index()
        self.emit(("mreq", m, self.d(st.sampled_from(self.paths(m))), self.d(st.booleans())))

    def s_mzero(self):
        from hypothesis import strategies as st

        self.emit(("mzero", self.mod_index(), self.d(st.booleans())))

    def s_mcopy(self):
        m = self.mod_index()
        self.emit(("mcopy", m))
        self.mod_in.append(self.mod_in[m] if m < len(self.mod_in) else None)

    def s_mset(self):
        from hypothesis import strategies as st

        m = self.mod_index()
        self.emit(("mset", m, self.d(st.sampled_from(self.paths(m))), self.d(st.sampled_from(
            ["new_linear", "param", "tensor_over_param", "none_param", "plain"]))))
