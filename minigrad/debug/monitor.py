"""``GradientFlowMonitor``: what gradient reached every module and parameter of a model.

This is the tool the student of the project's story wrote by hand: hook every module with
``fn(module, grad_input, grad_output)``, print each gradient's mean, flag NaN and None. It works
on minigrad models and on ``torch.nn`` models alike.

How it listens (PyTorch's public hook API, the same calls on both libraries):

* modules: ``register_full_backward_hook(hook(module, grad_input, grad_output))``: the gradient
  w.r.t. the module's outputs (``grad_output``) and inputs (``grad_input``), during backward;
* parameters: ``register_post_accumulate_grad_hook(hook(param))``: ``param.grad`` right after
  it was accumulated.

Full backward hooks wrap a module's inputs and outputs in an identity node; PyTorch refuses
that when an in-place op later modifies the wrapped tensor (``ReLU(inplace=True)``). For such
models (and for modules without ``register_full_backward_hook``) the monitor falls back to
*tensor hooks*: a forward hook registers ``Tensor.register_hook`` on each output to capture
``grad_output``; ``grad_input`` is then not recorded (reported as None, never flagged).

Each hook keeps the latest gradient it saw (module gradients by reference, parameter
gradients as a copy, since ``.grad`` is accumulated in place); statistics are computed only
when asked (``report()``), so the cost during training is a hook call per gradient.

Overhead: on minigrad models the step slows by a few percent. On tiny torch models PyTorch's
full backward hooks are themselves costly (even no-op ones make a 0.25 ms MLP step ~1.7x
slower); ``mode="tensor"`` (no ``grad_input``) is the cheap choice there. See
``benchmarks/bench_monitor.py``.
"""

from __future__ import annotations

import csv
import io
import math
import warnings
from dataclasses import asdict, dataclass, field

import numpy as np

from .._tensor import Tensor
from ._util import grad_stats, is_tensor, numpy_of, tensors_in

__all__ = ["GradientFlowMonitor", "GradRecord"]

FLAGS = ("none", "zero", "nan", "inf", "vanishing", "exploding")
_FULL_HOOK_WARNING = "Full backward hook is firing when gradients are computed with respect to " \
                     "module outputs"


@dataclass
class GradRecord:
    """Statistics of one gradient: a module's ``grad_output`` / ``grad_input`` or a
    parameter's ``grad`` (the latest one seen since the monitor was attached or reset).

    ``mean``, ``abs_mean``, ``max_abs``, ``norm`` are over the finite entries (NaN when there
    is none); ``nan`` / ``inf`` count non-finite entries; ``none`` is True when no gradient
    ever arrived; ``calls`` counts hook calls; ``flags`` lists the problems found.

    ``forward_calls`` (modules) counts the calls of the module's forward; ``needs_grad`` is
    False when none of its outputs required grad and it has no trainable parameter (a frozen
    backbone, a layer applied to the raw input): no gradient is expected, so "none" is not a
    problem there. ``rel`` (weight parameters) is mean |g| / mean |w|, what "vanishing" is
    judged on.
    """

    name: str
    kind: str  # "module" or "param"
    grad: str  # "grad_output", "grad_input" or "grad"
    type: str  # module class name, or "Parameter"
    shape: list | None
    numel: int
    mean: float
    abs_mean: float
    max_abs: float
    norm: float
    nan: int
    inf: int
    none: bool
    calls: int
    flags: list = field(default_factory=list)
    forward_calls: int | None = None
    needs_grad: bool = True
    rel: float | None = None


def _ref(t):
    """A module gradient is kept by reference: the engine never modifies it afterwards (it
    accumulates out of place, or in place only into buffers nobody else holds)."""
    return t.detach() if t is not None and t.requires_grad else t


def _copy(t, into=None):
    """A parameter's ``.grad`` is copied (later backwards accumulate into it in place), into
    the previous copy when it fits: reusing the buffer avoids a large allocation per step.
    minigrad gradients are copied as NumPy arrays (one memcpy, no Tensor machinery)."""
    if t is None:
        return None
    if isinstance(t, Tensor):
        if isinstance(into, np.ndarray) and into.shape == t._data.shape and \
                into.dtype == t._data.dtype:
            np.copyto(into, t._data)
            return into
        return t._data.copy()
    t = t.detach()
    if into is not None and not isinstance(into, np.ndarray) and into.shape == t.shape and \
            into.dtype == t.dtype and into.device == t.device:
        return into.copy_(t)
    return t.clone()


class GradientFlowMonitor:
    """Record the gradients reaching every (or the named) submodule and parameter of ``model``.

    Args:
        model: a ``minigrad.nn.Module`` or ``torch.nn.Module``.
        modules: names from ``model.named_modules()`` to watch (``""`` is the model itself);
            None watches every module. Parameters watched are those of the watched modules.
        params: also watch parameters (default True).
        mode: ``"auto"`` (full backward hooks, or tensor hooks for models with an in-place
            module and for modules without ``register_full_backward_hook``), ``"full"`` or
            ``"tensor"``.
        vanishing: flag a module gradient whose mean |g| is non-zero but below this, and a
            weight (a parameter of 2 or more dimensions) whose mean |g| / mean |w| is (default
            1e-7). Biases and other 1-d parameters are never called vanishing: a bias right
            before a training-mode BatchNorm gets a gradient of ~0 *by construction* (the
            normalisation removes the mean it adds), so a small bias gradient says nothing
            about the gradient flow.
        exploding: flag a gradient whose max |g| is above this (default 1e3).

    Use as ``with GradientFlowMonitor(model) as mon: ...`` or ``mon.attach()`` /
    ``mon.detach()``; after backward, ``report()``, ``print()``, ``plot()``, ``to_csv()``.
    Raises KeyError for an unknown module name, ValueError for an unknown mode.
    """

    def __init__(self, model, modules=None, *, params: bool = True, mode: str = "auto",
                 vanishing: float = 1e-7, exploding: float = 1e3):
        if mode not in ("auto", "full", "tensor"):
            raise ValueError(f"mode must be 'auto', 'full' or 'tensor', got {mode!r}")
        named = dict(model.named_modules())
        if modules is None:
            names = list(named)
        else:
            names = [modules] if isinstance(modules, str) else list(modules)
            missing = [n for n in names if n not in named]
            if missing:
                raise KeyError(f"no module named {missing[0]!r} in the model; names are "
                               f"{[n for n in named if n]}")
        self.model = model
        self.modules = {n: named[n] for n in names}
        self.params: dict = {}
        if params:
            owners = [("", model)] if modules is None else self.modules.items()
            for mod_name, mod in owners:
                for p_name, p in mod.named_parameters(prefix=mod_name):
                    if p.requires_grad and all(p is not q for q in self.params.values()):
                        self.params[p_name] = p
        # a module with a trainable parameter must get a gradient; one without (a frozen
        # backbone, a ReLU applied to the raw input) needs none when no output required grad
        trainable = [n for n, p in model.named_parameters() if p.requires_grad]
        self._trainable = {n: any(t.startswith(f"{n}.") or not n for t in trainable)
                           for n in self.modules}
        inplace = any(getattr(m, "inplace", False) for m in model.modules())
        self.mode = mode
        self._tensor_mode = {n: mode == "tensor" or mode == "auto" and (
            inplace or not hasattr(m, "register_full_backward_hook"))
            for n, m in self.modules.items()}
        self.vanishing, self.exploding = vanishing, exploding
        self._handles: list = []
        self.reset()

    # ------------------------------------------------------------------ attach / detach
    def attach(self) -> GradientFlowMonitor:
        """Register the hooks (idempotent); returns self.

        While attached, torch's "Full backward hook is firing when gradients are computed with
        respect to module outputs" warning is silenced (as ``minigrad doctor`` does): it only
        says that the first module's input needs no gradient, which is normal for a model fed
        with data."""
        if self._handles:
            return self
        warnings.filterwarnings("ignore", message=_FULL_HOOK_WARNING)
        self._warning_filter = warnings.filters[0]
        for name, mod in self.modules.items():
            # every module gets a forward hook: it counts calls, notes whether any output
            # required grad, and listens with tensor hooks where a full hook cannot hear
            self._handles.append(mod.register_forward_hook(self._forward_hook(name)))
            if not self._tensor_mode[name]:
                self._handles.append(mod.register_full_backward_hook(self._module_hook(name)))
        for name, p in self.params.items():
            self._handles.append(p.register_post_accumulate_grad_hook(self._param_hook(name)))
        return self

    def detach(self) -> None:
        """Remove every hook; what was recorded stays available."""
        for h in self._handles:
            h.remove()
        self._handles = []
        entry = getattr(self, "_warning_filter", None)
        if entry in warnings.filters:
            warnings.filters.remove(entry)
            warnings._filters_mutated()  # (what warnings.filterwarnings itself calls)
        self._warning_filter = None

    def __enter__(self) -> GradientFlowMonitor:
        return self.attach()

    def __exit__(self, *exc) -> None:
        self.detach()

    def reset(self) -> None:
        """Forget everything recorded so far."""
        self._module_grads = {n: None for n in self.modules}  # name -> (grad_in, grad_out)
        self._param_grads = {n: None for n in self.params}
        self._calls = dict.fromkeys([*self.modules, *self.params], 0)
        self._forward_calls = dict.fromkeys(self.modules, 0)
        self._out_requires_grad = dict.fromkeys(self.modules, False)

    # ------------------------------------------------------------------ hooks
    def _module_hook(self, name):
        def hook(module, grad_input, grad_output):
            self._calls[name] += 1
            self._module_grads[name] = ([_ref(g) for g in grad_input],
                                        [_ref(g) for g in grad_output])
        return hook

    def _forward_hook(self, name):
        tensor_mode = self._tensor_mode[name]

        def hook(module, args, output):
            self._forward_calls[name] += 1
            outs = [t for t in tensors_in(output) if t.requires_grad]
            if not outs:
                return
            self._out_requires_grad[name] = True
            # a full backward hook wraps only a tensor or the tensors directly in a tuple
            # output (torch/utils/hooks.py, BackwardHook._apply_on_tensors): it never fires for
            # a dict or list output, which would then look like "no gradient reached it"
            if not tensor_mode and (is_tensor(output) or isinstance(output, tuple) and all(
                    any(t is o for o in output) for t in outs)):
                return
            slot = [None] * len(outs)  # this call's grad_output, filled as hooks fire

            def make(i):
                def grad_hook(grad):
                    if all(s is None for s in slot):  # first gradient of this call
                        self._calls[name] += 1
                        self._module_grads[name] = (None, slot)
                    slot[i] = _ref(grad)
                return grad_hook

            for i, t in enumerate(outs):
                t.register_hook(make(i))
        return hook

    def _param_hook(self, name):
        def hook(param):
            self._calls[name] += 1
            self._param_grads[name] = _copy(param.grad, self._param_grads[name])
        return hook

    # ------------------------------------------------------------------ results
    def _record(self, key, kind, grad, typ, tensors, flag_none=True, weight=None,
                **extra) -> GradRecord:
        present = [] if tensors is None else [t for t in tensors if t is not None]
        shape = None
        if present:
            shape = list(present[0].shape) if len(present) == 1 else \
                [list(t.shape) for t in present]
        stats = grad_stats([numpy_of(t) for t in present])
        rec = GradRecord(name=key or "(model)", kind=kind, grad=grad, type=typ, shape=shape,
                         none=not present, calls=self._calls[key], **stats, **extra)
        if weight is not None and present:
            w_arr = numpy_of(weight)
            w = float(np.add.reduce(np.abs(w_arr).ravel(), dtype=np.float64)) / w_arr.size \
                if w_arr.size else 0.0
            rec.rel = rec.abs_mean / w if w > 0 else None
        rec.flags = self._flags(rec, flag_none, weight)
        return rec

    def _flags(self, r: GradRecord, flag_none: bool, weight=None) -> list:
        if r.none:
            return ["none"] if flag_none and r.needs_grad else []
        flags = []
        if r.nan:
            flags.append("nan")
        if r.inf:
            flags.append("inf")
        if r.nan or r.inf:
            pass  # the finite rest says nothing about dead ReLUs or vanishing (often all 0)
        elif r.max_abs == 0.0:
            flags.append("zero")
        elif r.kind == "module" and r.abs_mean < self.vanishing:
            flags.append("vanishing")
        elif r.rel is not None and weight is not None and weight.ndim >= 2 and \
                r.rel < self.vanishing:
            flags.append("vanishing")
        if not math.isnan(r.max_abs) and r.max_abs > self.exploding:
            flags.append("exploding")
        return flags

    def records(self) -> list:
        """One `GradRecord` per watched module (``grad_output`` then ``grad_input``) and
        per watched parameter (``grad``), in ``named_modules`` / ``named_parameters`` order."""
        out = []
        for name, mod in self.modules.items():
            got = self._module_grads[name]
            typ = type(mod).__name__
            needs = self._trainable[name] or self._out_requires_grad[name]
            if needs and not self._forward_calls[name]:
                # never called: a problem only if its parameters were not used either (weight
                # tying uses another module's weight without calling that module)
                prefix = f"{name}." if name else ""
                needs = any(g is None for p, g in self._param_grads.items()
                            if p.startswith(prefix))
            extra = {"forward_calls": self._forward_calls[name], "needs_grad": needs}
            out.append(self._record(name, "module", "grad_output", typ,
                                    None if got is None else got[1], **extra))
            if not self._tensor_mode[name]:  # grad_input None = inputs that need no grad
                out.append(self._record(name, "module", "grad_input", typ,
                                        None if got is None or got[0] is None else got[0],
                                        flag_none=False, **extra))
        for name, p in self.params.items():
            out.append(self._record(name, "param", "grad", "Parameter",
                                    None if self._param_grads[name] is None
                                    else [self._param_grads[name]], weight=p))
        return out

    def report(self) -> list:
        """The records as plain dicts (``dataclasses.asdict`` of `records`)."""
        return [asdict(r) for r in self.records()]

    def findings(self) -> list:
        """Only the records that carry a flag."""
        return [r for r in self.records() if r.flags]

    def to_csv(self, path=None) -> str:
        """The report as CSV text (one row per record, flags joined by ``;``); also written to
        ``path`` when given."""
        rows = self.report()
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(GradRecord.__dataclass_fields__),
                                lineterminator="\n")
        writer.writeheader()
        for row in rows:
            row = dict(row, flags=";".join(row["flags"]),
                       shape="" if row["shape"] is None else "x".join(map(str, row["shape"])))
            writer.writerow(row)
        text = buf.getvalue()
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def table(self, title: str = "Gradient flow", records=None):
        """The report (or the given ``records``) as a ``rich.table.Table`` (flags in red)."""
        from rich.table import Table

        table = Table(title=title)
        for col in ("name", "type", "grad", "shape", "mean", "mean |g|", "max |g|", "norm",
                    "NaN", "Inf", "flags"):
            table.add_column(col, justify="left" if col in ("name", "type", "grad", "flags")
                             else "right", overflow="fold")  # narrow terminal: fold, never cut
        for r in self.records() if records is None else records:
            shape = "-" if r.shape is None else str(tuple(r.shape)) if r.shape and isinstance(
                r.shape[0], int) else str(r.shape)
            nums = ["-"] * 4 if r.none else [f"{v:.3e}" for v in
                                               (r.mean, r.abs_mean, r.max_abs, r.norm)]
            flags = f"[bold red]{', '.join(r.flags)}[/]" if r.flags else "[green]ok[/]"
            table.add_row(r.name, r.type, r.grad, shape, *nums, str(r.nan), str(r.inf), flags)
        return table

    def print(self, console=None, title: str = "Gradient flow") -> None:
        """Print `table` with ``rich`` (to ``console`` if given)."""
        if console is None:
            from rich.console import Console

            console = Console()
        console.print(self.table(title))

    def plot(self, ax=None, kind: str = "param"):
        """Bar chart of mean |g| and max |g| per parameter (``kind="param"``) or per module's
        ``grad_output`` (``kind="module"``), log scale; a gradient that never arrived is
        marked ``None`` and one with NaN/Inf ``NaN``/``Inf`` in red. Returns the matplotlib
        Figure (uses ``ax`` when given)."""
        import matplotlib.pyplot as plt

        want = ("param", "grad") if kind == "param" else ("module", "grad_output")
        recs = [r for r in self.records() if (r.kind, r.grad) == want]
        if ax is None:
            fig, ax = plt.subplots(figsize=(max(4.0, 0.6 * len(recs) + 2), 4))
        else:
            fig = ax.figure
        xs = range(len(recs))
        positive = [v for r in recs for v in (r.abs_mean, r.max_abs) if v > 0]  # NaN is not
        tiny = min([1e-12] + [v / 100 for v in positive])

        def height(v):
            return tiny if v is None or math.isnan(v) or v <= 0 else v

        ax.bar(xs, [height(r.max_abs) for r in recs], color="tab:cyan", alpha=0.6,
               label="max |g|")
        ax.bar(xs, [height(r.abs_mean) for r in recs], color="tab:blue", alpha=0.9,
               label="mean |g|")
        ax.set_yscale("log")
        ymax = max([height(r.max_abs) for r in recs] + [1.0])
        for x, r in zip(xs, recs):
            mark = "None" if r.none else "NaN" if r.nan else "Inf" if r.inf else \
                "0" if "zero" in r.flags else None
            if mark:
                ax.text(x, tiny * 10, mark, color="red", ha="center", va="bottom",
                        rotation=90, fontweight="bold")
        ax.set_ylim(tiny, ymax * 10)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r.name for r in recs], rotation=60, ha="right", fontsize=8)
        ax.set_ylabel("gradient magnitude")
        ax.set_title("Gradient flow" + (" (parameters)" if kind == "param" else " (modules)"))
        ax.legend(loc="upper right")
        fig.tight_layout()
        return fig
