"""Fuzz programs: a program is a list of *steps* (plain data), run by one interpreter
(:class:`Runner`) on minigrad and on PyTorch; :func:`check_program` compares the two traces.

Steps (``i``, ``j`` are indices into the runner's ``env``, the list of tensors made so far;
a step that raised leaves ``None`` entries for its outputs):

- ``("leaf", shape, dtype, requires_grad, values, seed)``: a new tensor from NumPy data;
  ``values`` is ``"randn"``, ``"pos"`` (uniform in [0.5, 2]), ``"ties"`` (small integers, so
  max/relu/abs see ties and zeros) or ``"int"`` (an int64 tensor).
- ``("op", name, ids, params, no_grad)``: ``OPS[name](runner, params, *tensors)``; tuple results
  (``split``, ``max(dim)`` ...) add one entry per output.
- ``("inplace", name, i, ids, params, no_grad)``: ``INPLACE[name]`` modifies ``env[i]``.
- ``("detach", i)``, ``("retain_grad", i)``, ``("requires_grad", i, flag)``,
  ``("hook", i, kind)`` (tensor hook: ``"log"``, ``"scale"``, ``"bad_shape"``),
  ``("post_hook", i)`` (post-accumulate-grad hook), ``("set_grad_none", i)``,
  ``("grad_of", i)`` (adds ``env[i].grad`` to the env, e.g. a ``create_graph`` gradient).
- ``("backward", ids, seed, implicit, retain_graph, create_graph, input_ids)``:
  ``autograd.backward`` of the roots with random upstream gradients (or implicit ones).
- ``("grad", out_ids, in_ids, seed, retain_graph, create_graph, allow_unused)``:
  ``autograd.grad``; the results are added to the env.

The trace holds, per step, the outputs' values/dtype/shape/requires_grad/is_leaf/``_version``/
node name, or the exception type; after backward steps every ``.grad``; at the end, for every
tensor, its graph (``graph_trace``: node names and edges), ``.grad`` and ``_version``, and the
ordered log of hook calls.
"""

from __future__ import annotations

import warnings

import numpy as np

from minigrad.parity import compare, graph_trace, to_numpy, torch_lib

from .ops_more import OPS_MORE
from .theme_function import FunctionSteps
from .theme_modules import ModuleSteps
from .theme_optim import OptimSteps

# Differences the comparison leaves out (the generator steers around others:
# generate.KNOWN_GAPS): none now. (The last one, the state after a backward that raised, is
# compared since the fourth session: which nodes had run, accumulated .grad or freed their
# saved tensors before the failure follows from the engine's order, which is PyTorch's.)
KNOWN_GAPS: set = set()

UNSUPPORTED = ("unsupported",)
TOL = {"float64": dict(rtol=1e-7, atol=1e-9), "float32": dict(rtol=2e-4, atol=2e-5)}


def _np(t):
    """``to_numpy``, also for PyTorch's ZeroTensors (zero gradients some of its formulas
    return under ``create_graph``, which refuse ``.numpy()``)."""
    if getattr(t, "_is_zerotensor", lambda: False)():
        return np.zeros(tuple(t.shape), dtype=dtype_name(t.dtype))
    return to_numpy(t)


def _layout(t):
    """Strides of the dims whose size is not 1 (the others' do not matter) and whether ``t``
    is contiguous: they decide which ``view`` calls fail and when ``.grad`` is a copy. Not for
    an empty tensor: there PyTorch's strides follow TensorIterator's internals (an op with a
    wrapped Python number gets other strides than one without) and the strides of an empty
    slice are stride * step where NumPy keeps the stride; minigrad matches the layouts that
    change behaviour (an empty leaf's .grad version, compared) but not every empty stride."""
    if t.numel() == 0:
        return None
    return [st for n, st in zip(t.shape, t.stride()) if n != 1], t.is_contiguous()


def leaf_array(shape, dtype: str, values: str, seed: int) -> np.ndarray:
    """The NumPy data of a ``leaf`` step (same in both libraries)."""
    rng = np.random.default_rng(seed)
    if values == "pos":
        return rng.uniform(0.5, 2.0, size=shape).astype(dtype)
    if values == "ties":
        return rng.integers(-2, 3, size=shape).astype(dtype)
    if values == "int":
        return rng.integers(-3, 4, size=shape).astype("int64")
    return rng.standard_normal(size=shape).astype(dtype)


def dtype_name(dt) -> str:
    """``torch.float32`` / ``minigrad.float32`` -> ``'float32'``."""
    return str(dt).split(".")[-1]


def _tup(x):
    return tuple(x) if isinstance(x, list) else x


def _sum(R, p, x):
    return x.sum() if p.get("dim", "all") == "all" else x.sum(_tup(p["dim"]), keepdim=p["keepdim"])


def _mean(R, p, x):
    if p.get("dim", "all") == "all":
        return x.mean()
    return x.mean(_tup(p["dim"]), keepdim=p["keepdim"])


def _targets(R, p):
    return R.tensor(np.asarray(p["target"], dtype=np.int64).reshape(p["target_shape"]))


def _cross_entropy(R, p, x, *prob):
    target = prob[0] if prob else _targets(R, p)
    return R.F.cross_entropy(x, target, reduction=p["reduction"],
                             label_smoothing=p.get("smoothing", 0.0),
                             ignore_index=p.get("ignore_index", -100))


def _nll(R, p, x):
    return R.F.nll_loss(x, _targets(R, p), reduction=p["reduction"],
                        ignore_index=p.get("ignore_index", -100))


def _getitem(R, p, x):
    if p["index"] == "mask":
        return x[x > p["thr"]]
    return x[p["index"]]


def _where(R, p, x, y):
    return R.L.where(x > p["thr"], x, y)


OPS = {
    # pointwise, unary
    "neg": lambda R, p, x: -x,
    "exp": lambda R, p, x: x.exp(),
    "log": lambda R, p, x: x.log(),
    "sqrt": lambda R, p, x: x.sqrt(),
    "rsqrt": lambda R, p, x: x.rsqrt(),
    "abs": lambda R, p, x: x.abs(),
    "tanh": lambda R, p, x: x.tanh(),
    "sigmoid": lambda R, p, x: x.sigmoid(),
    "sin": lambda R, p, x: x.sin(),
    "cos": lambda R, p, x: x.cos(),
    "reciprocal": lambda R, p, x: x.reciprocal(),
    "sign": lambda R, p, x: x.sign(),
    "round": lambda R, p, x: x.round(),
    "floor": lambda R, p, x: x.floor(),
    "ceil": lambda R, p, x: x.ceil(),
    "square": lambda R, p, x: x.square(),
    "relu": lambda R, p, x: x.relu(),
    "leaky_relu": lambda R, p, x: R.F.leaky_relu(x, p["slope"]),
    "gelu": lambda R, p, x: R.F.gelu(x, approximate=p["approximate"]),
    "silu": lambda R, p, x: R.F.silu(x),
    "softplus": lambda R, p, x: R.F.softplus(x, beta=p["beta"], threshold=p["threshold"]),
    "clamp": lambda R, p, x: x.clamp(p["min"], p["max"]),
    "clamp_min": lambda R, p, x: x.clamp_min(p["min"]),
    "masked_fill": lambda R, p, x: x.masked_fill(x > p["thr"], p["value"]),
    "gt": lambda R, p, x: x > p["thr"],
    # pointwise with a Python scalar
    "add_scalar": lambda R, p, x: x + p["c"],
    "radd_scalar": lambda R, p, x: p["c"] + x,
    "sub_scalar": lambda R, p, x: x - p["c"],
    "rsub_scalar": lambda R, p, x: p["c"] - x,
    "mul_scalar": lambda R, p, x: x * p["c"],
    "div_scalar": lambda R, p, x: x / p["c"],
    "rdiv_scalar": lambda R, p, x: p["c"] / x,
    "pow_scalar": lambda R, p, x: x ** p["c"],
    "rpow_scalar": lambda R, p, x: p["c"] ** x,
    # pointwise, two tensors (broadcasting)
    "add": lambda R, p, x, y: R.L.add(x, y, alpha=p.get("alpha", 1)),
    "sub": lambda R, p, x, y: R.L.sub(x, y, alpha=p.get("alpha", 1)),
    "mul": lambda R, p, x, y: x * y,
    "div": lambda R, p, x, y: x / y,
    "pow": lambda R, p, x, y: x ** y,
    "maximum": lambda R, p, x, y: R.L.maximum(x, y),
    "minimum": lambda R, p, x, y: R.L.minimum(x, y),
    "where": _where,
    "clamp_t": lambda R, p, x, lo, hi: x.clamp(lo, hi),
    # reductions and normalisations
    "sum": _sum,
    "mean": _mean,
    "max_all": lambda R, p, x: x.max(),
    "min_all": lambda R, p, x: x.min(),
    "max_dim": lambda R, p, x: tuple(x.max(p["dim"], keepdim=p["keepdim"])),
    "min_dim": lambda R, p, x: tuple(x.min(p["dim"], keepdim=p["keepdim"])),
    "amax": lambda R, p, x: x.amax(_tup(p["dim"]), keepdim=p["keepdim"]),
    "amin": lambda R, p, x: x.amin(_tup(p["dim"]), keepdim=p["keepdim"]),
    "var": lambda R, p, x: x.var(_tup(p["dim"]), correction=p["correction"],
                                 keepdim=p["keepdim"]),
    "std": lambda R, p, x: x.std(_tup(p["dim"]), correction=p["correction"],
                                 keepdim=p["keepdim"]),
    "logsumexp": lambda R, p, x: x.logsumexp(p["dim"], keepdim=p["keepdim"]),
    "softmax": lambda R, p, x: x.softmax(p["dim"]),
    "log_softmax": lambda R, p, x: x.log_softmax(p["dim"]),
    "argmax": lambda R, p, x: x.argmax(p["dim"], keepdim=p["keepdim"]),
    # shapes and views
    "view": lambda R, p, x: x.view(_tup(p["shape"])),
    "reshape": lambda R, p, x: x.reshape(_tup(p["shape"])),
    "flatten": lambda R, p, x: x.flatten(p["start"], p["end"]),
    "unflatten": lambda R, p, x: x.unflatten(p["dim"], _tup(p["sizes"])),
    "transpose": lambda R, p, x: x.transpose(p["dim0"], p["dim1"]),
    "t": lambda R, p, x: x.t(),
    "T": lambda R, p, x: x.T,
    "mT": lambda R, p, x: x.mT,
    "permute": lambda R, p, x: x.permute(_tup(p["dims"])),
    "unsqueeze": lambda R, p, x: x.unsqueeze(p["dim"]),
    "squeeze": lambda R, p, x: x.squeeze() if p["dim"] == "all" else x.squeeze(_tup(p["dim"])),
    "expand": lambda R, p, x: x.expand(_tup(p["shape"])),
    "expand_as": lambda R, p, x, y: x.expand_as(y),
    "clone": lambda R, p, x: x.clone(),
    "contiguous": lambda R, p, x: x.contiguous(),
    "split": lambda R, p, x: tuple(x.split(_tup(p["size"]) if isinstance(p["size"], list)
                                           else p["size"], p["dim"])),
    "chunk": lambda R, p, x: tuple(x.chunk(p["chunks"], p["dim"])),
    "unbind": lambda R, p, x: tuple(x.unbind(p["dim"])),
    "repeat": lambda R, p, x: x.repeat(_tup(p["reps"])),
    "narrow": lambda R, p, x: x.narrow(p["dim"], p["start"], p["length"]),
    "select": lambda R, p, x: x.select(p["dim"], p["index"]),
    "getitem": _getitem,
    "cat": lambda R, p, *xs: R.L.cat(list(xs), p["dim"]),
    "stack": lambda R, p, *xs: R.L.stack(list(xs), p["dim"]),
    "to": lambda R, p, x: x.to(getattr(R.L, p["dtype"])),
    # linear algebra
    "matmul": lambda R, p, x, y: x @ y,
    "mm": lambda R, p, x, y: R.L.mm(x, y),
    "bmm": lambda R, p, x, y: R.L.bmm(x, y),
    "dot": lambda R, p, x, y: R.L.dot(x, y),
    "mv": lambda R, p, x, y: R.L.mv(x, y),
    "addmm": lambda R, p, b, x, y: R.L.addmm(b, x, y, beta=p["beta"], alpha=p["alpha"]),
    "linear": lambda R, p, x, w, *b: R.F.linear(x, w, *b),
    # nn
    "conv2d": lambda R, p, x, w, *b: R.F.conv2d(x, w, b[0] if b else None, stride=p["stride"],
                                                padding=p["padding"], dilation=p["dilation"],
                                                groups=p["groups"]),
    "max_pool2d": lambda R, p, x: R.F.max_pool2d(x, p["kernel"], p["stride"], p["padding"],
                                                 p["dilation"], ceil_mode=p["ceil_mode"]),
    "avg_pool2d": lambda R, p, x: R.F.avg_pool2d(x, p["kernel"], p["stride"], p["padding"],
                                                 ceil_mode=p["ceil_mode"],
                                                 count_include_pad=p["count_include_pad"]),
    "adaptive_avg_pool2d": lambda R, p, x: R.F.adaptive_avg_pool2d(x, _tup(p["size"])),
    "pad": lambda R, p, x: R.F.pad(x, _tup(p["pad"]), value=p["value"]),
    "mse_loss": lambda R, p, x, y: R.F.mse_loss(x, y, reduction=p["reduction"]),
    "l1_loss": lambda R, p, x, y: R.F.l1_loss(x, y, reduction=p["reduction"]),
    "cross_entropy": _cross_entropy,
    "nll_loss": _nll,
    **OPS_MORE,  # cumulative ops, sorting, gather/scatter, einsum, norms ... (ops_more.py)
}


def _setitem(R, p, x, *v):
    index = x > p["thr"] if p["index"] == "mask" else p["index"]
    x[index] = v[0] if v else p["value"]
    return x


def _masked_fill_(R, p, x):
    return x.masked_fill_(x.detach() > p["thr"], p["value"])


INPLACE = {
    "add_": lambda R, p, x, *y: x.add_(y[0] if y else p["c"], alpha=p.get("alpha", 1)),
    "sub_": lambda R, p, x, *y: x.sub_(y[0] if y else p["c"]),
    "mul_": lambda R, p, x, *y: x.mul_(y[0] if y else p["c"]),
    "div_": lambda R, p, x, *y: x.div_(y[0] if y else p["c"]),
    "iadd": lambda R, p, x, y: x.__iadd__(y),
    "imul": lambda R, p, x, y: x.__imul__(y),
    "pow_": lambda R, p, x: x.pow_(p["c"]),
    "clamp_": lambda R, p, x: x.clamp_(p["min"], p["max"]),
    "relu_": lambda R, p, x: x.relu_(),
    "neg_": lambda R, p, x: x.neg_(),
    "exp_": lambda R, p, x: x.exp_(),
    "sigmoid_": lambda R, p, x: x.sigmoid_(),
    "tanh_": lambda R, p, x: x.tanh_(),
    "zero_": lambda R, p, x: x.zero_(),
    "fill_": lambda R, p, x: x.fill_(p["value"]),
    "copy_": lambda R, p, x, y: x.copy_(y),
    "masked_fill_": _masked_fill_,
    "setitem": _setitem,
}


# key phrases of error messages: an error record holds the first one its message contains
# (compared for the steps of the newer themes, and for every step of their programs)
PHRASES = ["second time", "modified by an inplace operation", "leaf Variable",
           "incorrect number of gradients", "invalid gradient", "once_differentiable",
           "marked as dirty", "expected Variable or None", "different than None",
           "a view", "different type", "different size", "Inference tensor", "own grad",
           "does not require grad", "Missing key", "Unexpected key", "size mismatch",
           "empty parameter list", "more than one parameter group", "Invalid", "Nesterov",
           "different number of parameter groups", "doesn't match the size"]
NEW_KINDS = {"fn", "mod", "mcall", "mparam", "mhook", "ghook", "msd", "mtrain", "mreq", "mzero",
             "mcopy", "mset", "opt", "ostep", "otrain", "ozero", "osd", "oadd", "olr", "set_data",
             "set_grad", "set_requires_grad", "mode_obj"}


def _make_mode(L, kind, decorate=None):
    """A grad-mode object of ``kind``; with ``decorate``, that function decorated with it."""
    if kind == "no_grad_bare":
        return L.no_grad(decorate)
    obj = {"no_grad": L.no_grad, "enable_grad": L.enable_grad,
           "inference": L.inference_mode, "set_false": lambda: L.set_grad_enabled(False),
           "set_true": lambda: L.set_grad_enabled(True)}[kind]()
    return obj if decorate is None else obj(decorate)


def _phrase(msg: str):
    return next((p for p in PHRASES if p in msg), None)


class Runner(FunctionSteps, ModuleSteps, OptimSteps):
    """Runs program steps on one library (``lib`` is minigrad or torch), keeping the env of
    tensors, the hook-call log and the error messages (for failure reports)."""

    def __init__(self, lib, device: str = "cpu"):
        self.L, self.F, self.device = lib, lib.nn.functional, device
        self.env: list = []
        self.log: list = []
        self.messages: list = []
        self.keep: list = []  # hook handles
        self.formula: dict = {}  # env index -> "direct" / "derived" (see ``graph``)
        self.created_graph = False  # a create_graph pass ran (see ``grad_record``)
        # autograd.grad results: PyTorch's formulas may have modified them in place, so their
        # _version is compared relative to its value when they were returned
        self.offsets: list = []
        self.modes: list = []  # stored grad-mode objects
        self.unversioned: set = set()  # env indices whose _version is not compared (see _op)
        self.fns: dict = {}  # custom Function classes by name
        self.mods: list = []  # modules (theme_modules)
        self.opts: list = []  # optimizers (theme_optim)
        self.globals: list = []  # handles of global module hooks: removed by close()
        self.phrases = False  # compare error key phrases in every step (see PHRASES)
        self.dual = False  # inside a forward-AD level (theme "forward": tangents compared)

    def tensor(self, arr):
        return self.L.tensor(arr, device=self.device)

    # ------------------------------------------------------------------ records
    def out_record(self, t, i=None) -> dict:
        """What is compared right after a step produced (or modified) ``t`` (``env[i]``)."""
        if t is None:
            return None
        rec = {"value": _np(t), "dtype": dtype_name(t.dtype), "shape": tuple(t.shape),
               "requires_grad": _attempt(lambda: t.requires_grad)}
        if self.formula.get(i) == "direct":
            # made by a backward formula: which node (if any) made it is an implementation
            # detail (PyTorch may even return the upstream gradient itself)
            return rec
        if self.dual:  # theme "forward": the tangent, as plain data
            tangent = self.L.autograd.forward_ad.unpack_dual(t).tangent
            rec["tangent"] = None if tangent is None else {
                "value": _np(tangent), "dtype": dtype_name(tangent.dtype),
                "requires_grad": tangent.requires_grad}
        node = _attempt(lambda: t.grad_fn)
        base = t if t._base is None else t._base
        rec.update(is_leaf=_attempt(lambda: t.is_leaf), output_nr=t.output_nr,
                   version="-" if i in self.unversioned else _attempt(lambda: t._version - next(
                       (v for g, v in self.offsets if g is base), 0)),
                   grad_fn=node if isinstance(node, tuple) or node is None else
                   type(node).__name__, layout=_layout(t))
        return rec

    def grad_record(self, t, i=None):
        """``t.grad`` as plain data. After a ``create_graph`` pass a zero gradient and no
        gradient compare equal: whether a formula's result still depends (with derivative 0)
        on an input is an implementation detail of PyTorch's formulas."""
        if t is None or self.formula.get(i) == "direct" or not (
                _attempt(lambda: t.is_leaf) is True or t.retains_grad):
            return "-"
        g = t.grad
        if self.created_graph and (g is None or not (np.abs(_np(g)) > 1e-5).any()):
            return "zero or None"
        if g is None:
            return None
        return {"dtype": dtype_name(g.dtype), "value": _np(g),
                "requires_grad": g.requires_grad,
                "has_grad_fn": _attempt(lambda: g.grad_fn is not None)}  # (a view's can raise)

    def grads(self) -> list:
        return [self.grad_record(t, i) for i, t in enumerate(self.env)]

    def graph(self, t, i):
        """``graph_trace(t)``; for tensors whose graph contains nodes made by a backward
        formula under ``create_graph`` only the top node's name (PyTorch builds its formulas
        from other ops than minigrad's, so those subgraphs are compared by value only)."""
        kind = self.formula.get(i)
        if kind is None:
            return _attempt(lambda: graph_trace(t))
        fn = _attempt(lambda: t.grad_fn)
        if kind == "direct":
            return None
        if fn is None or isinstance(fn, tuple):
            return fn
        return type(fn).__name__

    def final(self) -> dict:
        tensors = []
        for i, t in enumerate(self.env):
            if t is None:
                tensors.append(None)
                continue
            rec = self.out_record(t, i)
            rec["graph"] = self.graph(t, i)
            rec["retains_grad"] = t.retains_grad
            rec["grad"] = self.grad_record(t, i)
            tensors.append(rec)
        out = {"tensors": tensors, "hooks": self.log}
        if self.mods:
            out["modules"] = [self.mod_final(m) for m in self.mods]
        if self.opts:
            out["optimizers"] = self.optim_final()
        return out

    def _taint(self, ids, outputs, direct=False) -> None:
        """Mark ``outputs`` (env indices) as holding backward-formula nodes if ``direct`` or if
        one of ``ids`` does; an in-place target passes it on to every tensor sharing its
        storage."""
        if direct:
            self.formula.update({o: "direct" for o in outputs})
        elif any(i in self.formula for i in ids):
            for o in outputs:
                self.formula.setdefault(o, "derived")

    def _share(self, i) -> list:
        def base(t):
            return t if t._base is None else t._base

        b = base(self.env[i])
        return [j for j, t in enumerate(self.env) if t is not None and base(t) is b]

    # ------------------------------------------------------------------ steps
    def run(self, program) -> dict:
        """Run every step; the trace compared by :func:`check_program`. Stops at a step that
        minigrad does not support (double backward through a node computed in NumPy)."""
        steps = []
        self.phrases = any(s[0] in NEW_KINDS for s in program)
        try:
            for s in program:
                steps.append(self.step(s))
                if steps[-1] == UNSUPPORTED:
                    return {"steps": steps, "final": None}
            return {"steps": steps, "final": self.final()}
        finally:
            self.close()

    def close(self) -> None:
        """Undo what outlives a program: global module hooks, a grad mode turned off by a
        ``set_grad_enabled(False)`` object, a forward-AD level."""
        for h in self.globals:
            h.remove()
        self.globals.clear()
        self.L.set_grad_enabled(True)
        if self.dual:
            self.dual = False
            self.L.autograd.forward_ad.exit_dual_level()

    def step(self, s):
        """Run one step; returns its record (or ``("error", type name)``)."""
        n_before = len(self.env)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return getattr(self, "_" + s[0])(*s[1:])
        except Exception as e:  # noqa: BLE001 - both libraries' exceptions are compared
            if isinstance(e, NotImplementedError) and "double backward" in str(e):
                return UNSUPPORTED  # a documented minigrad limitation
            msg = str(e).split("\nException raised from")[0][:300]
            self.messages.append((len(self.messages), s, f"{type(e).__name__}: {msg}"))
            del self.env[n_before:]
            self.env.extend([None] * _n_outputs(s))
            if self.phrases or s[0] in NEW_KINDS:
                return ("error", type(e).__name__, _phrase(msg))
            return ("error", type(e).__name__)

    def _push(self, out, ids=(), direct=False):
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        start = len(self.env)
        self.env.extend(outs)
        new = list(range(start, len(self.env)))
        self._taint(ids, new, direct)
        return [self.out_record(t, i) for i, t in zip(new, outs)]

    def _leaf(self, shape, dtype, requires_grad, values, seed):
        t = self.tensor(leaf_array(tuple(shape), dtype, values, seed))
        if requires_grad:
            t.requires_grad_(True)
        return self._push(t)

    def _dual_level(self):
        """Enter a forward-AD level for the rest of the program (theme ``forward``)."""
        self.L.autograd.forward_ad.enter_dual_level()
        self.dual = True

    def _dual(self, i, seed):
        """``make_dual(env[i], tangent)`` with a random tangent of its shape and dtype."""
        x = self._get(i)
        tangent = self.tensor(leaf_array(tuple(x.shape), dtype_name(x.dtype), "randn", seed))
        return self._push(self.L.autograd.forward_ad.make_dual(x, tangent), [i])

    def _get(self, i):
        t = self.env[i]
        if t is None:
            raise _Skipped
        return t

    def _mode_obj(self, kind):
        """A grad-mode object made now and entered by later steps (``("stored", k)``)."""
        self.modes.append(_make_mode(self.L, kind))
        return _attempt(self.L.is_grad_enabled)

    def _in_mode(self, mode, fn):
        """``fn()`` under grad mode ``mode``: False (enable_grad), True (no_grad), or
        ``("set", flag)`` (``with set_grad_enabled(flag)``), ``("inference",)``,
        ``("stored", k)`` (``with`` the k-th stored object), ``("deco", kind)`` (inside a
        function decorated with a grad-mode object), ``("gen", kind)`` (inside a decorated
        generator, after a first ``yield``). Tuple modes log the grad mode inside and after."""
        L = self.L
        if mode is False or mode is None:
            with L.enable_grad():
                return fn()
        if mode is True:
            with L.no_grad():
                return fn()
        kind = mode[0]
        if kind == "deco":
            out = _make_mode(L, mode[1], decorate=fn)()
        elif kind == "gen":
            def gen():
                yield L.is_grad_enabled()
                yield fn()

            it = _make_mode(L, mode[1], decorate=gen)()
            inside = next(it)
            out = next(it)
            it.close()
            self.log.append(("gen", inside))
        else:
            cm = (L.set_grad_enabled(mode[1]) if kind == "set" else L.inference_mode()
                  if kind == "inference" else self.modes[mode[1]])
            with cm:
                out = fn()
        self.log.append(("mode", kind, L.is_grad_enabled(), L.is_inference_mode_enabled()))
        return out

    def _op(self, name, ids, params, no_grad):
        xs = [self._get(i) for i in ids]
        out = self._in_mode(no_grad, lambda: OPS[name](self, params, *xs))
        start = len(self.env)
        if any(x.is_inference() for x in xs) and not self.L.is_inference_mode_enabled():
            # an op on an inference tensor outside inference mode skips PyTorch's
            # ADInplaceOrView layer, so the in-place ops inside its composite kernel (logsumexp:
            # log_, add_) bump its result's version: an artefact of dispatch, not compared
            self.unversioned.update(range(start, start + (len(out) if isinstance(
                out, (tuple, list)) else 1)))
        elif any(i in self.unversioned for i in ids):  # a view of such a result shares its
            outs = out if isinstance(out, (tuple, list)) else [out]  # counter: not compared
            self.unversioned.update(start + k for k, t in enumerate(outs)
                                    if t is not None and t._base is not None)
        return self._push(out, ids)

    def _inplace(self, name, i, ids, params, no_grad):
        x = self._get(i)
        xs = [self._get(j) for j in ids]
        out = self._in_mode(no_grad, lambda: INPLACE[name](self, params, x, *xs))
        if out is not x:
            raise AssertionError(f"{name} did not return self")
        self._taint([i, *ids], self._share(i))
        return self.out_record(x, i)

    def _detach(self, i):
        return self._push(self._get(i).detach())

    def _retain_grad(self, i):
        self._get(i).retain_grad()
        return self.out_record(self.env[i], i)

    def _requires_grad(self, i, flag):
        self._get(i).requires_grad_(flag)
        return self.out_record(self.env[i], i)

    def _hook(self, i, kind):
        log, tag = self.log, f"hook{i}_{kind}_{len(self.keep)}"

        def hook(g):
            if g is None:  # an undefined gradient (e.g. an unused output of a multi-output op)
                log.append((tag, None))
                return None
            log.append((tag, tuple(g.shape), dtype_name(g.dtype), float(_np(g).sum())))
            if kind == "scale":
                return g * 2
            if kind == "bad_shape":
                return g.sum()
            return None

        t = self._get(i)
        # PyTorch 2.13 segfaults in register_hook on a view whose base was modified in place
        # unless the view's grad_fn was read first, so both libraries read it first (a stale
        # special view raises there; register_hook itself reads it only at the first hook,
        # which tests/parity/test_hooks_tensor.py checks)
        _ = t.grad_fn
        self.keep.append(t.register_hook(hook))
        return None

    def _post_hook(self, i):
        log, tag = self.log, f"post{i}_{len(self.keep)}"

        def hook(t):
            log.append((tag, float(_np(t.grad).sum())))

        self.keep.append(self._get(i).register_post_accumulate_grad_hook(hook))
        return None

    def _set_grad_none(self, i):
        self._get(i).grad = None
        return None

    def _set_data(self, i, j):
        """``env[i].data = env[j]``."""
        self._get(i).data = self._get(j)
        return self.out_record(self.env[i], i)

    def _set_grad(self, i, j):
        """``env[i].grad = env[j]`` (PyTorch checks type, dtype and size)."""
        self._get(i).grad = self._get(j)
        return self.grad_record(self.env[i], i)

    def _set_requires_grad(self, i, flag):
        """``env[i].requires_grad = flag`` (the attribute, not ``requires_grad_``)."""
        self._get(i).requires_grad = flag
        return self.out_record(self.env[i], i)

    def _grad_of(self, i):
        t = self._get(i)
        g = t.grad if (t.is_leaf or t.retains_grad) else None
        return self._push(g, direct=g is not None and (g.grad_fn is not None or
                                                       self.created_graph))

    def _upstream(self, roots, seed, implicit, requires_grad=False):
        """Random upstream gradients (None if ``implicit``). Under ``create_graph`` they
        require grad: PyTorch's backward formulas then give gradients that require grad in
        every library, whatever ops the formulas are made of."""
        if implicit:
            return None
        rng = np.random.default_rng(seed)
        grads = [self.tensor(rng.standard_normal(tuple(r.shape)).astype(
            dtype_name(r.dtype) if r.is_floating_point() else "float32")) for r in roots]
        if requires_grad:
            for g in grads:
                g.requires_grad_(True)
        return grads

    def _backward(self, ids, seed, implicit, retain_graph, create_graph, input_ids):
        roots = [self._get(i) for i in ids]
        inputs = None if input_ids is None else [self._get(i) for i in input_ids]
        self.created_graph |= create_graph
        self.L.autograd.backward(roots, self._upstream(roots, seed, implicit, create_graph),
                                 retain_graph=retain_graph, create_graph=create_graph,
                                 inputs=inputs)
        return self.grads()

    def _grad(self, out_ids, in_ids, seed, retain_graph, create_graph, allow_unused):
        outs = [self._get(i) for i in out_ids]
        ins = [self._get(i) for i in in_ids]
        self.created_graph |= create_graph
        res = self.L.autograd.grad(outs, ins, self._upstream(outs, seed, False, create_graph),
                                   retain_graph=retain_graph, create_graph=create_graph,
                                   allow_unused=allow_unused)
        self.offsets += [(g, g._version) for g in res if g is not None]
        return self._push(tuple(res), direct=create_graph)


def _attempt(fn):
    """``fn()``, or ``("error", exception type name)`` if it raises (reading ``grad_fn`` of a
    view whose base was modified in place can raise)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - compared between the libraries
        return ("error", type(e).__name__)


class _Skipped(Exception):
    """A step refers to the output of a step that raised."""


def _n_outputs(s) -> int:
    """How many env entries a step adds (so a failed step keeps later indices aligned)."""
    kind = s[0]
    if kind in ("leaf", "detach", "grad_of", "dual"):
        return 1
    if kind == "grad":
        return len(s[2])
    if kind in ("fn", "mcall", "ostep", "otrain"):
        return s[-1]
    if kind == "op":
        return s[3].get("n_out", 1)
    return 0


def _compare(a, b, path: str, low: bool = False) -> None:
    """``parity.compare`` with float32 tolerances when ``low`` or for float32 arrays (they
    appear in float64 programs too, e.g. from integer tensors), float64 ones otherwise."""
    if isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b):
        for k in a:
            _compare(a[k], b[k], f"{path}[{k!r}]", low)
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _compare(x, y, f"{path}[{i}]", low)
    else:
        low = low or any(isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float16)
                         for x in (a, b))
        compare(a, b, path, **TOL["float32" if low else "float64"])


def run_program(lib, program, device: str = "cpu"):
    """Run ``program`` on ``lib``; returns ``(trace, runner)``."""
    r = Runner(lib, device)
    return r.run(program), r


def global_state(lib) -> tuple:
    """The process-wide autograd state of ``lib`` that a program could leave behind: grad
    mode, inference mode, anomaly mode, the default dtype."""
    return (lib.is_grad_enabled(), lib.is_inference_mode_enabled(), lib.is_anomaly_enabled(),
            str(lib.get_default_dtype()).split(".")[-1])


CLEAN_STATE = (True, False, False, "float32")


def reset_global_state(lib) -> tuple:
    """Put ``lib``'s global autograd state back to the defaults; returns what it was. A
    program that left it changed would make the next program's values depend on the order
    Hypothesis runs them in (a failure that does not replay: FlakyFailure)."""
    before = global_state(lib)
    lib.set_grad_enabled(True)
    lib.autograd.set_detect_anomaly(False)
    lib.set_default_dtype(lib.float32)
    return before


def check_program(program, device: str = "cpu"):
    """Run ``program`` on minigrad and torch and compare the traces (AssertionError naming the
    first difference, with both libraries' error messages)."""
    import minigrad

    torch = torch_lib()
    for lib in (minigrad, torch):  # (each program starts from the same global state)
        reset_global_state(lib)
    a, ra = run_program(minigrad, program, device="cpu")
    b, rb = run_program(torch, program, device=device)
    for lib in (minigrad, torch):  # a leak fails the program that leaked it, every time
        left = reset_global_state(lib)
        if left != CLEAN_STATE:
            raise AssertionError(f"{lib.__name__}: the program left global state {left} "
                                 f"(grad, inference, anomaly, default dtype)")
    if a["steps"][-1] == UNSUPPORTED:  # compare up to the unsupported step
        k = len(a["steps"]) - 1
        b = {"steps": b["steps"][:k] + [UNSUPPORTED], "final": None}
    try:  # float32 anywhere in the program: float32 tolerances throughout (its rounding
        # reaches float64 results too); else by each array's dtype
        _compare(a, b, "trace", low="float32" in repr(program))
    except AssertionError as e:
        raise AssertionError(f"{e}\nminigrad errors: {ra.messages}\ntorch errors:    "
                             f"{rb.messages}") from None
    return a, b
