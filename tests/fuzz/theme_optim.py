"""The ``optim`` theme: optimizers over random parameter groups, stepped mid-program.

Steps (``o`` indexes the runner's ``opts``; parameters are env tensors, usually leaves made by
``leaf`` steps, whose gradients come from the program's own ``backward`` steps; a parameter
that no backward reached has no gradient and is skipped by ``step``):

- ``("opt", kind, groups, hyper)``: ``kind`` (``"SGD"`` / ``"Adam"``) over ``groups``, a list
  of ``[env ids, per-group hyperparameters]`` (one group without overrides: a plain list of
  tensors is passed), with defaults ``hyper``.
- ``("ostep", o, n_out)`` (``n_out`` is 0): ``opts[o].step()``.
- ``("otrain", o, ids, seed, set_to_none, closure, n_out)``: one training iteration: zero_grad,
  ``loss = sum(((env[i] - target_i) ** 2).sum())`` over ``ids`` (targets from ``seed``),
  backward, ``step`` (with ``closure`` the closure computes the loss and its backward).
- ``("ozero", o, set_to_none)``: ``opts[o].zero_grad(set_to_none)``.
- ``("osd", o, variant)``: ``state_dict`` / ``load_state_dict`` round trip: ``"same"`` (into
  itself), ``"fresh"`` (into a new optimizer of the same kind and groups, which replaces it),
  ``"groups"`` (into one with the groups merged: ValueError unless there was one).
- ``("oadd", o, ids, hyper)``: ``add_param_group``.
- ``("olr", o, g, lr)``: ``param_groups[g]["lr"] = lr`` between steps.

Each step records the optimizer's ``state_dict`` (structure and values) and its parameters
(values and ``_version``); the final trace has them for every optimizer.
"""

from __future__ import annotations

import copy

import numpy as np

from minigrad.parity import to_numpy


def _plain(v):
    if hasattr(v, "grad_fn"):
        return {"tensor": to_numpy(v), "dtype": str(v.dtype).split(".")[-1]}
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_plain(x) for x in v)
    return v


def _version(t):
    """``t._version``, or the error type (an inference tensor has no version counter)."""
    try:
        return t._version
    except RuntimeError as e:
        return ("error", type(e).__name__)


class OptimSteps:
    """Runner mixin: the optimizer steps."""

    def opt_record(self, opt) -> dict:
        sd = opt.state_dict()
        return {"state": {k: _plain(v) for k, v in sd["state"].items()},
                "param_groups": [_plain(g) for g in sd["param_groups"]],
                "params": [(to_numpy(p), _version(p)) for g in opt.param_groups
                           for p in g["params"]]}

    def _make_opt(self, kind, groups, hyper):
        cls = getattr(self.L.optim, kind)
        if len(groups) == 1 and not groups[0][1]:
            params = [self._get(i) for i in groups[0][0]]
        else:
            params = [dict(params=[self._get(i) for i in ids], **h) for ids, h in groups]
        return cls(params, **hyper)

    def _opt(self, kind, groups, hyper):
        opt = self._make_opt(kind, groups, hyper)
        opt._fuzz_spec = (kind, groups, hyper)
        self.opts.append(opt)
        return self.opt_record(opt)

    def _ostep(self, o, n_out):
        opt = self.opts[o]
        opt.step()
        return self.opt_record(opt)

    def _otrain(self, o, ids, seed, set_to_none, closure, n_out):
        opt = self.opts[o]
        rng = np.random.default_rng(seed)
        xs = [self._get(i) for i in ids]
        targets = [self.tensor(rng.standard_normal(tuple(x.shape)).astype(
            str(x.dtype).split(".")[-1])) for x in xs]

        def loss_fn():
            opt.zero_grad(set_to_none=set_to_none)
            loss = sum(((x - t) ** 2).sum() for x, t in zip(xs, targets))
            loss.backward()
            return loss

        if closure:
            loss = opt.step(loss_fn)
        else:
            loss = loss_fn()
            opt.step()
        rec = self.opt_record(opt)
        rec["loss"] = to_numpy(loss)
        return rec

    def _ozero(self, o, set_to_none):
        self.opts[o].zero_grad(set_to_none=set_to_none)
        return [self.grad_record(p) for g in self.opts[o].param_groups for p in g["params"]]

    def _osd(self, o, variant):
        opt = self.opts[o]
        sd = opt.state_dict()
        if variant == "same":
            opt.load_state_dict(copy.deepcopy(sd))
        else:
            kind, groups, hyper = opt._fuzz_spec
            if variant == "groups":
                groups = [[[i for ids, _ in groups for i in ids], {}]]
            new = self._make_opt(kind, groups, hyper)
            new.load_state_dict(copy.deepcopy(sd))
            new._fuzz_spec = opt._fuzz_spec
            self.opts[o] = new
        return self.opt_record(self.opts[o])

    def _oadd(self, o, ids, hyper):
        self.opts[o].add_param_group(dict(params=[self._get(i) for i in ids], **hyper))
        return self.opt_record(self.opts[o])

    def _olr(self, o, g, lr):
        self.opts[o].param_groups[g]["lr"] = lr
        return None

    def optim_final(self):
        return [self.opt_record(o) for o in self.opts]


def _hyper(draw, st, kind, group=False):
    """Random hyperparameters of ``kind`` (a group overrides only some)."""
    h = {}
    if kind == "SGD":
        opts = dict(lr=[0.1, 0.01, 0.5], momentum=[0.0, 0.9, 0.5], dampening=[0.0, 0.1],
                    weight_decay=[0.0, 0.1], nesterov=[False, True], maximize=[False, True])
    else:
        opts = dict(lr=[0.01, 0.1, 0.001], betas=[(0.9, 0.999), (0.5, 0.9), (0.0, 0.99)],
                    eps=[1e-8, 1e-3], weight_decay=[0.0, 0.1], amsgrad=[False, True],
                    maximize=[False, True], decoupled_weight_decay=[False, True])
    for k, vals in opts.items():
        if draw(st.integers(0, 2 if group else 1)) == 0:
            h[k] = draw(st.sampled_from(vals))
    if draw(st.integers(0, 30)) == 0:
        h["lr"] = -1.0  # invalid: ValueError in both
    if kind == "SGD" and h.get("nesterov") and draw(st.integers(0, 3)):
        h["momentum"], h["dampening"] = 0.9, 0.0  # mostly valid Nesterov
    return h


class OptimGen:
    """Generator mixin: draws the optimizer steps."""

    def params(self, k_max=3):
        from hypothesis import strategies as st

        cands = self.live(lambda t: t.is_leaf and t.is_floating_point())
        if not cands or self.chance(4):
            cands = cands + [self.leaf(requires_grad=not self.chance(8))]
        if self.chance(25):  # a non-leaf: ValueError
            cands = self.live(lambda t: not t.is_leaf) or cands
        ids = self.d(st.lists(st.sampled_from(cands[::-1]), min_size=1, max_size=k_max,
                              unique=True))
        return sorted(ids)

    def s_opt(self):
        from hypothesis import strategies as st

        kind = self.d(st.sampled_from(["SGD", "Adam"]))
        hyper = _hyper(self.d, st, kind)
        if kind == "SGD" and "lr" not in hyper and self.chance(2):
            hyper["lr"] = 0.1
        groups, used = [], set()
        for _ in range(self.d(st.integers(1, 3))):
            ids = [i for i in self.params() if i not in used or self.chance(20)]
            if not ids:
                continue
            used.update(ids)
            groups.append([ids, _hyper(self.d, st, kind, group=True) if self.chance(2) else {}])
        if not groups:
            groups = [[self.params(), {}]]
        self.emit(("opt", kind, groups, hyper))

    def opt_index(self):
        from hypothesis import strategies as st

        if not self.runner.opts:
            self.s_opt()
        if not self.runner.opts:
            return None
        return self.d(st.integers(0, len(self.runner.opts) - 1))

    def s_ostep(self):
        o = self.opt_index()
        if o is not None:
            self.emit(("ostep", o, 0))

    def s_otrain(self):
        from hypothesis import strategies as st

        o = self.opt_index()
        if o is None:
            return
        params = [p for g in self.runner.opts[o].param_groups for p in g["params"]]
        ids = [i for i, t in enumerate(self.env) if any(t is p for p in params)
               and t.requires_grad]
        if not ids:
            return
        ids = sorted(set(self.d(st.lists(st.sampled_from(ids), min_size=1, max_size=3))))
        self.seed += 1
        self.emit(("otrain", o, ids, self.seed, self.d(st.booleans()), self.chance(3), 0))

    def s_ozero(self):
        from hypothesis import strategies as st

        o = self.opt_index()
        if o is not None:
            self.emit(("ozero", o, self.d(st.booleans())))

    def s_osd(self):
        from hypothesis import strategies as st

        o = self.opt_index()
        if o is not None:
            self.emit(("osd", o, self.d(st.sampled_from(["same", "fresh", "fresh", "groups"]))))

    def s_oadd(self):
        from hypothesis import strategies as st

        o = self.opt_index()
        if o is not None:
            kind = type(self.runner.opts[o]).__name__
            self.emit(("oadd", o, self.params(2), _hyper(self.d, st, kind, group=True)))

    def s_olr(self):
        from hypothesis import strategies as st

        o = self.opt_index()
        if o is not None:
            g = self.d(st.integers(0, len(self.runner.opts[o].param_groups) - 1))
            self.emit(("olr", o, g, self.d(st.sampled_from([0.05, 0.0, 1.0]))))

