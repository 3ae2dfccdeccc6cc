"""The ``function`` theme: random custom ``autograd.Function``s inside larger programs.

A ``("fn", spec, args, mode, n_out)`` step applies a custom Function built from ``spec`` (plain
data, so the program stays a repr-able list) to ``args``: ``("t", i)`` is ``env[i]``,
``("c", value)`` a non-tensor argument. ``n_out`` is the number of *tensor* outputs (they are
added to the env; non-tensor outputs are only recorded). ``spec``:

- ``name``: the class name (its node is ``<name>Backward``); a later step with the same name
  reuses the class (double use of one Function);
- ``kind``: what ``forward`` computes, see :data:`KINDS` (each with its analytic backward);
- ``save``: ``"ctx"`` (``ctx.save_for_backward``) or ``"attr"`` (plain ``ctx`` attributes);
- ``bw``: ``"ok"``; ``"needs"`` (None where ``not ctx.needs_input_grad[i]``); ``"none"``
  (all None); ``"scale"`` (twice the gradient); wrong returns compared as errors:
  ``"extra_none"`` (a trailing None too many), ``"few"`` (one value too few), ``"float"`` (a
  float instead of a tensor), ``"t"`` / ``"unsq"`` / ``"sum"`` (a gradient of another shape),
  ``"double"`` (float64 gradient), ``"const_grad"`` (a tensor for a non-tensor input);
- ``once``: ``backward`` decorated with ``once_differentiable``;
- ``nondiff``: output positions passed to ``ctx.mark_non_differentiable``;
- ``materialize``: ``ctx.set_materialize_grads(value)``;
- ``extra``: None, or ``"first"`` / ``"last"``: a non-tensor output (the int 7) there.

``forward`` and ``backward`` log what they see (``needs_input_grad``, grad mode, the incoming
gradients' shapes/dtypes/sums or None) into the runner's hook log, which is compared.
"""

from __future__ import annotations

import numpy as np

from minigrad.parity import to_numpy

# kind -> (argument pattern: "t" tensor / "c" constant, number of tensor outputs)
KINDS = {
    "mul": ("tct", 1),       # x * y * c
    "exp": ("t", 1),         # exp(x), saves the output
    "sigmoid": ("tc", 1),    # sigmoid(x * c), saves the output, c as an attribute
    "two": ("t", 2),         # (2 x, x.sum())
    "dirty": ("tc", 1),      # x.mul_(c), marked dirty, returns x
    "ident": ("t", 1),       # returns x itself
    "argmax": ("t", 2),      # (exp(x), x.argmax()): an integer output
    "matmul": ("tt", 1),     # x @ w (2-D)
    "clone2": ("t", 2),      # (x.clone(), 3 x)
}


def _dn(t) -> str:
    return str(t.dtype).split(".")[-1]


def _grec(g):
    if g is None:
        return None
    if not hasattr(g, "shape"):
        return repr(g)
    arr = to_numpy(g)
    return (tuple(g.shape), _dn(g), float(arr.astype(np.float64).sum()) if arr.size else 0.0)


def _forward(kind, ctx, args, save):
    """Outputs of ``kind`` (a tuple) and what backward needs (saved via ``save``)."""
    if kind == "mul":
        x, c, y = args
        keep = (x, y)
        out = (x * y * c,)
        ctx.c = c
    elif kind == "exp":
        out = (args[0].exp(),)
        keep = out
    elif kind == "sigmoid":
        x, c = args
        out = ((x * c).sigmoid(),)
        keep = out
        ctx.c = c
    elif kind == "two":
        x = args[0]
        out = (x * 2, x.sum())
        keep = ()
    elif kind == "dirty":
        x, c = args
        x.mul_(c)
        ctx.mark_dirty(x)
        ctx.c = c
        out, keep = (x,), ()
    elif kind == "ident":
        out, keep = (args[0],), ()
    elif kind == "argmax":
        x = args[0]
        e = x.exp()
        out = (e, x.argmax())
        keep = (e,)
    elif kind == "matmul":
        x, w = args
        out = (x @ w,)
        keep = (x, w)
    elif kind == "clone2":
        x = args[0]
        out = (x.clone(), x * 3)
        keep = ()
    else:  # pragma: no cover
        raise ValueError(kind)
    if save == "ctx":
        ctx.save_for_backward(*keep)
    else:
        ctx.kept = keep
    return out


def _backward(kind, ctx, grads, save):
    """Gradients per forward argument (None for constants)."""
    keep = ctx.saved_tensors if save == "ctx" else ctx.kept

    if kind == "mul":
        x, y = keep
        g = grads[0]
        if g is None:
            return None, None, None
        return g * y * ctx.c, None, g * x * ctx.c
    if kind in ("exp", "argmax"):
        (e,) = keep
        g = grads[0]
        return (None if g is None else g * e,)
    if kind == "sigmoid":
        (s,) = keep
        g = grads[0]
        return (None if g is None else g * s * (1 - s) * ctx.c), None
    if kind == "two":
        g0, g1 = grads
        parts = [p for p in (None if g0 is None else g0 * 2, g1) if p is not None]
        if not parts:
            return (None,)
        return (parts[0] + parts[1] if len(parts) == 2 else parts[0],)
    if kind == "dirty":
        g = grads[0]
        return (None if g is None else g * ctx.c), None
    if kind == "ident":
        return (grads[0],)
    if kind == "matmul":
        x, w = keep
        g = grads[0]
        if g is None:
            return None, None
        return g @ w.t(), x.t() @ g
    if kind == "clone2":
        g0, g1 = grads
        parts = [p for p in (g0, None if g1 is None else g1 * 3) if p is not None]
        if not parts:
            return (None,)
        return (parts[0] + parts[1] if len(parts) == 2 else parts[0],)
    raise ValueError(kind)  # pragma: no cover


def _base(t):
    """The tensor whose version counter ``t`` uses (its base when it is a view)."""
    return t if t._base is None else t._base


def make_function(L, spec, log):
    """The custom Function class of ``spec`` for library ``L``."""
    name, kind, save, bw = spec["name"], spec["kind"], spec["save"], spec["bw"]
    pattern = KINDS[kind][0]

    def forward(ctx, *args):
        log.append(("fwd", name, tuple(ctx.needs_input_grad), L.is_grad_enabled()))
        if not spec["materialize"]:
            ctx.set_materialize_grads(False)
        out = _forward(kind, ctx, args, save)
        if spec["nondiff"]:
            ctx.mark_non_differentiable(*[out[k] for k in spec["nondiff"] if k < len(out)])
        if spec["extra"] == "first":
            out = (7,) + out
        elif spec["extra"] == "last":
            out = out + (7,)
        return out[0] if len(out) == 1 else out

    def backward(ctx, *grads):
        log.append(("bwd", name, [_grec(g) for g in grads], L.is_grad_enabled(),
                    tuple(ctx.needs_input_grad)))
        if spec["extra"] == "first":
            grads = grads[1:]
        elif spec["extra"] == "last":
            grads = grads[:-1]
        res = list(_backward(kind, ctx, grads, save))
        if bw == "needs":
            res = [r if need else None for r, need in zip(res, ctx.needs_input_grad)]
        elif bw == "none":
            res = [None] * len(res)
        elif bw == "scale":
            res = [None if r is None else r * 2 for r in res]
        elif bw == "extra_none":
            res = res + [None]
        elif bw == "few":
            res = res[:-1]
        elif bw == "float":
            res = [1.0 if r is not None else None for r in res]
        elif bw in ("t", "unsq", "sum", "double"):
            def bend(r):
                if r is None:
                    return None
                if bw == "t":
                    return r.t() if r.ndim <= 2 else r.transpose(0, 1)
                if bw == "unsq":
                    return r.unsqueeze(0)
                if bw == "sum":
                    return r.sum()
                return r.double()
            res = [bend(r) for r in res]
        elif bw == "const_grad":
            res = [r if p == "t" else L.ones(1) for r, p in zip(res, pattern)]
        return res[0] if len(res) == 1 else tuple(res)

    if spec["once"]:
        backward = L.autograd.function.once_differentiable(backward)
    return type(name, (L.autograd.Function,), {"forward": staticmethod(forward),
                                               "backward": staticmethod(backward)})


class FunctionSteps:
    """Runner mixin: the ``fn`` step."""

    def _fn(self, spec, args, mode, n_out):
        cls = self.fns.get(spec["name"])
        if cls is None:
            cls = self.fns[spec["name"]] = make_function(self.L, spec, self.log)
        vals = [self._get(a[1]) if a[0] == "t" else a[1] for a in args]
        ids = [a[1] for a in args if a[0] == "t"]
        out = self._in_mode(mode, lambda: cls.apply(*vals))
        outs = out if isinstance(out, tuple) else (out,)
        tensors = tuple(o for o in outs if hasattr(o, "grad_fn"))
        others = [o if o is None or isinstance(o, int) else type(o).__name__
                  for o in outs if not hasattr(o, "grad_fn")]
        if len(tensors) != n_out:
            raise AssertionError(f"{spec['name']}: {len(tensors)} tensor outputs, expected {n_out}")
        if any(v.is_inference() for v in vals if hasattr(v, "grad_fn")) and not \
                self.L.is_inference_mode_enabled():  # (see Runner._op: not compared)
            self.unversioned.update(range(len(self.env), len(self.env) + len(tensors)))
        # an output that shares the version counter of an input whose version is not compared
        # (a dirty input returned as itself, an input returned as a view of it) is not compared
        # either: abs(inference tensor) is at version 1 in PyTorch (its abs_out call passes
        # ADInplaceOrView), so the dirty Function's x.mul_ leaves it at 3 there, 2 in minigrad
        bases = [_base(self.env[j]) for j in ids if j in self.unversioned]
        if bases:
            self.unversioned.update(len(self.env) + k for k, o in enumerate(tensors)
                                    if any(_base(o) is b for b in bases))
        return {"tensors": self._push(tensors, ids), "others": others,
                "same": [any(o is v for v in vals) for o in tensors]}


class FunctionGen:
    """Generator mixin: draws ``fn`` steps."""

    def s_fn(self):
        from hypothesis import strategies as st

        old = [s[1] for s in self.program if s[0] == "fn"]
        if old and self.chance(4):  # the same Function again
            spec = self.d(st.sampled_from(old))
        else:
            kind = self.d(st.sampled_from(list(KINDS)))
            n = KINDS[kind][1]
            extra = self.d(st.sampled_from([None] * 6 + ["first", "last"]))
            spec = {
                "name": f"Fn{len(old)}", "kind": kind,
                "save": self.d(st.sampled_from(["ctx", "ctx", "attr"])),
                "bw": self.d(st.sampled_from(["ok"] * 8 + ["needs"] * 3 + [
                    "none", "scale", "extra_none", "few", "float", "t", "unsq", "sum", "double",
                    "const_grad"])),
                "once": self.chance(4),
                "nondiff": (sorted(set(self.d(st.lists(st.integers(0, n - 1), max_size=1))))
                            if self.chance(3) else []),
                "materialize": not self.chance(3),
                "extra": extra,
            }
        kind = spec["kind"]
        pattern = KINDS[kind][0]
        args = []
        first = None
        for p in pattern:
            if p == "c":
                args.append(("c", self.d(st.sampled_from([2.0, -0.5, 1.5, 3]))))
            elif first is None:
                if kind == "matmul":
                    i, x = self.one(lambda t: t.ndim == 2, loose=20, ndims=(2, 2))
                elif kind == "dirty":  # non-leaves are valid targets, leaves mostly errors
                    i, x = self.one(lambda t: not t.is_leaf or not t.requires_grad, loose=15)
                else:
                    i, x = self.one()
                first = x
                args.append(("t", i))
            elif kind == "matmul":
                k = first.shape[-1] if first.ndim == 2 else 1
                args.append(("t", self.exact((k, self.size()))))
            else:
                args.append(("t", self.partner(tuple(first.shape))))
        from .generate import INFERENCE_DETACH

        mode = self.no_grad(inference=INFERENCE_DETACH)  # (see the switch)
        self.emit(("fn", spec, args, mode, KINDS[kind][1]))
