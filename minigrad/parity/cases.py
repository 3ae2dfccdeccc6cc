"""Built-in paired cases for ``minigrad parity``: ops, toy models, hook traces and the
real-world cases from public bug reports.

Each `ParityCase` runs the same program on minigrad and on PyTorch (the torch side on
``device``). For op, model and hook cases `run_case` compares three things:

* **graph** — the backward graph (`minigrad.parity.graph_trace`: node names and
  ``next_functions`` edges) of the output, built without hooks;
* **grads** — the ``.grad`` of every input and parameter after ``output.sum().backward()``
  (largest absolute difference reported, equal within ``rtol=1e-5, atol=1e-5``);
* **hooks** — the hook trace of `minigrad.parity.record_hooks` (op cases: tensor and node
  hooks; model cases: every kind of hook).

Inputs come from a fixed NumPy generator, model weights are copied from the torch model, so
the two sides compute the same numbers.

Real-world cases (kind ``"case"``, named like their original scripts, e.g.
``16_reused_non_leaf_diamond``; ``--case 16`` also works) run a scenario of
`minigrad.parity.real_cases` on both libraries and compare everything it prints (values,
gradients, node names, versions, hook calls, warnings, errors); ``minigrad parity --case NAME``
prints the two outputs side by side. PyTorch is imported lazily.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import compare, graph_trace, to_numpy, torch_lib
from .hooks import compare_traces, make_inputs, paired_models, record_hooks
from .real_cases import REAL_CASES, normalise_message

__all__ = ["ParityCase", "CaseResult", "CASES", "run_case", "run_cases", "resolve",
           "printed_entries"]

RTOL, ATOL = 1e-5, 1e-5


@dataclass(frozen=True)
class ParityCase:
    """A named paired program.

    ``kind``: ``"op"`` (``fn(lib, *tensors) -> tensor`` on ``arrays``), ``"model"``
    (``build(lib) -> Module`` called on ``arrays``), ``"hooks"`` (a model case whose point is
    the hook trace; ``record`` holds extra `record_hooks` arguments) or ``"case"`` (a
    real-world case: ``scenario(lib, device) -> printed trace``, ``description`` its summary).
    """

    name: str
    kind: str
    description: str
    arrays: tuple
    fn: Callable | None = None
    build: Callable | None = None
    requires_grad: object = True
    record: dict = field(default_factory=dict)
    scenario: Callable | None = None


@dataclass
class CaseResult:
    """Outcome of one case: ``graph_same`` / ``hooks_same`` / ``printed_same`` (None when not
    checked), ``max_grad_diff`` (None when there are no gradients), ``ok`` and, on a mismatch,
    ``detail`` (the first difference). ``traces`` holds the two hook traces (real-world cases:
    the two printed traces) for ``--verbose``."""

    name: str
    kind: str
    graph_same: bool | None
    max_grad_diff: float | None
    grads_close: bool
    hooks_same: bool | None
    detail: str = ""
    traces: tuple = ()
    printed_same: bool | None = None

    @property
    def ok(self) -> bool:
        return (self.graph_same is not False and self.grads_close and self.hooks_same is not False
                and self.printed_same is not False)


# ------------------------------------------------------------------------------ inputs
def _rng(seed=0):
    return np.random.default_rng(seed)


def _a(*shape, positive=False, seed=0):
    arr = _rng(seed).standard_normal(shape).astype(np.float32)
    return np.abs(arr) + 0.5 if positive else arr


def _op(name, description, fn, *arrays, requires_grad=True):
    return ParityCase(name, "op", description, arrays, fn=fn, requires_grad=requires_grad)


def _f(lib):
    return lib.nn.functional


_OPS = [
    _op("add", "a + b (broadcast)", lambda L, a, b: a + b, _a(2, 3), _a(3, seed=1)),
    _op("sub", "a - b", lambda L, a, b: a - b, _a(2, 3), _a(2, 3, seed=1)),
    _op("mul", "a * b (broadcast)", lambda L, a, b: a * b, _a(2, 3), _a(2, 1, seed=1)),
    _op("div", "a / b", lambda L, a, b: a / b, _a(2, 3), _a(2, 3, positive=True, seed=1)),
    _op("pow", "a ** 3", lambda L, a: a ** 3, _a(2, 3)),
    _op("neg_abs", "(-a).abs()", lambda L, a: (-a).abs(), _a(2, 3)),
    _op("exp_log", "a.exp() + a.log()", lambda L, a: a.exp() + a.log(), _a(4, positive=True)),
    _op("sqrt", "a.sqrt()", lambda L, a: a.sqrt(), _a(4, positive=True)),
    _op("trig", "a.sin() * a.cos()", lambda L, a: a.sin() * a.cos(), _a(4)),
    _op("tanh_sigmoid", "a.tanh() + a.sigmoid()", lambda L, a: a.tanh() + a.sigmoid(), _a(4)),
    _op("relu", "a.relu()", lambda L, a: a.relu(), _a(2, 3)),
    _op("clamp", "a.clamp(-0.5, 0.5)", lambda L, a: a.clamp(-0.5, 0.5), _a(2, 3)),
    _op("maximum", "maximum(a, b)", lambda L, a, b: L.maximum(a, b), _a(5), _a(5, seed=1)),
    _op("where", "where(a > 0, a, b)", lambda L, a, b: L.where(a > 0, a, b), _a(5), _a(5, seed=1)),
    _op("sum_dim", "a.sum(1)", lambda L, a: a.sum(1), _a(2, 3)),
    _op("mean", "a.mean()", lambda L, a: a.mean(), _a(2, 3)),
    _op("amax", "a.amax(0)", lambda L, a: a.amax(0), _a(3, 4)),
    _op("max_dim", "a.max(1).values", lambda L, a: a.max(1).values, _a(3, 4)),
    _op("var", "a.var(1)", lambda L, a: a.var(1), _a(3, 4)),
    _op("logsumexp", "a.logsumexp(1)", lambda L, a: a.logsumexp(1), _a(3, 4)),
    _op("matmul", "a @ b", lambda L, a, b: a @ b, _a(2, 3), _a(3, 4, seed=1)),
    _op("bmm", "bmm(a, b)", lambda L, a, b: L.bmm(a, b), _a(2, 2, 3), _a(2, 3, 2, seed=1)),
    _op("addmm", "addmm(c, a, b)", lambda L, c, a, b: L.addmm(c, a, b), _a(4), _a(2, 3),
        _a(3, 4, seed=1)),
    _op("transpose", "a.t() * 2", lambda L, a: a.t() * 2, _a(2, 3)),
    _op("reshape_permute", "a.reshape(3, 2, 2).permute(2, 0, 1)",
        lambda L, a: a.reshape(3, 2, 2).permute(2, 0, 1), _a(2, 6)),
    _op("unsqueeze_expand", "a.unsqueeze(0).expand(3, 4)",
        lambda L, a: a.unsqueeze(0).expand(3, 4), _a(4)),
    _op("cat_stack", "cat([a, b]) + stack([a, b]).sum(0)",
        lambda L, a, b: L.cat([a, b]) * L.stack([a, b]).sum(0).repeat(2),
        _a(3), _a(3, seed=1)),
    _op("split", "split(2) weighted", lambda L, a: L.cat(
        [p * (i + 1) for i, p in enumerate(a.split(2))]), _a(5)),
    _op("index", "a[1:, [0, 2]]", lambda L, a: a[1:, [0, 2]], _a(3, 3)),
    _op("softmax", "softmax(a, 1) * a", lambda L, a: _f(L).softmax(a, 1) * a, _a(2, 4)),
    _op("log_softmax", "log_softmax(a, 1)", lambda L, a: _f(L).log_softmax(a, 1), _a(2, 4)),
    _op("linear", "F.linear(x, w, b)", lambda L, x, w, b: _f(L).linear(x, w, b), _a(2, 3),
        _a(4, 3, seed=1), _a(4, seed=2)),
    _op("conv2d", "F.conv2d(x, w, b, padding=1)",
        lambda L, x, w, b: _f(L).conv2d(x, w, b, padding=1), _a(1, 2, 5, 5), _a(3, 2, 3, 3),
        _a(3)),
    _op("max_pool2d", "F.max_pool2d(x, 2)", lambda L, x: _f(L).max_pool2d(x, 2), _a(1, 2, 4, 4)),
    _op("avg_pool2d", "F.avg_pool2d(x, 2)", lambda L, x: _f(L).avg_pool2d(x, 2), _a(1, 2, 4, 4)),
    _op("cross_entropy", "F.cross_entropy(x, y)", lambda L, x, y: _f(L).cross_entropy(x, y),
        _a(3, 4), np.array([0, 3, 1]), requires_grad=(True, False)),
    _op("mse_loss", "F.mse_loss(a, b)", lambda L, a, b: _f(L).mse_loss(a, b), _a(2, 3),
        _a(2, 3, seed=1)),
]


# ------------------------------------------------------------------------------ models
def _toy(name):
    def build(lib):
        from ..toy_models import TOY_MODELS

        return TOY_MODELS[name].build(lib)[0]

    return build


def _seq3(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


def _two_out(lib):
    nn = lib.nn

    class TwoOut(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, a, b, k):
            h = self.lin(a)
            return h * b * k, h + b

    return TwoOut()


def _kwargs_model(lib):
    nn = lib.nn

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)

        def forward(self, x, scale=1.0, shift=None):
            y = self.lin(x) * scale
            return y if shift is None else y + shift

    return Scaled()


_MODELS = [
    ParityCase(f"model_{n}", "model", d, (_a(2, 1, 8, 8) if n == "cnn" else _a(2, 4),),
               build=_toy(n))
    for n, d in [("mlp", "toy MLP, every hook"), ("cnn", "toy CNN, every hook"),
                 ("residual", "h + block(h), every hook"),
                 ("shared", "one Linear used twice, every hook"),
                 ("inplace", "ReLU(inplace=True): full hooks raise the view error")]
] + [
    ParityCase("hooks_facts_5_2", "hooks", "facts §5.2: Sequential(Linear, ReLU, Linear)",
               (_a(5, 3),), build=_seq3),
    ParityCase("hooks_input_no_grad", "hooks", "input without grad: grad_input=(None,) + warning",
               (_a(5, 3),), build=_seq3, requires_grad=False),
    ParityCase("hooks_tuple_output", "hooks", "forward(a, b, k) -> (h*b*k, h+b), b without grad",
               (_a(2, 2), _a(2, 2, seed=1), 3.0), build=_two_out,
               requires_grad=(True, False, False)),
    ParityCase("hooks_kwargs", "hooks", "forward(x, shift=tensor): kwargs seen by hooks",
               (_a(2, 4),), build=_kwargs_model, record={"kwargs": {"shift": _a(2, 3, seed=1)}}),
    ParityCase("hooks_legacy", "hooks", "legacy register_backward_hook: last node's grads",
               (_a(5, 3),), build=_seq3,
               record={"kinds": ("global", "forward", "legacy", "tensor", "post_acc")}),
]

_REAL = [ParityCase(c.name, "case", c.summary, (), scenario=c.scenario)
         for c in REAL_CASES.values()]

CASES = {c.name: c for c in _OPS + _MODELS + _REAL}
"""Every built-in case by name (ops first, then models and hook cases, then the real-world
cases of `minigrad.parity.real_cases`)."""


def resolve(name: str) -> str:
    """The case called ``name``; a real-world case may also be named by its number (``16``,
    ``case16``). Raises KeyError naming the unknown case and listing the choices."""
    if name in CASES:
        return name
    digits = name.lower().removeprefix("case").lstrip("_")
    if digits.isdigit():
        for real in REAL_CASES.values():
            if real.number == int(digits):
                return real.name
    raise KeyError(f"unknown case {name!r}; choose from: {', '.join(CASES)}")


# ------------------------------------------------------------------------------ running
class _Fn:
    """A module wrapping an op function (so op cases can be traced like models)."""

    def __new__(cls, lib, fn):
        class Op(lib.nn.Module):
            def forward(self, *args):
                return fn(lib, *args)

        return Op()


def _plain_run(lib, model, inputs, kwargs):
    """Forward without hooks; returns (graph trace, {name: grad array})."""
    out = model(*inputs, **kwargs)
    flat = out if isinstance(out, tuple) else (out,)
    graph = [graph_trace(t) for t in flat if hasattr(t, "grad_fn")]
    terms = [t.sum() for t in flat if hasattr(t, "grad_fn") and t.requires_grad]
    if terms:
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        total.backward()
    grads = {f"input[{i}]": to_numpy(t.grad) for i, t in enumerate(inputs)
             if hasattr(t, "grad_fn") and t.requires_grad}
    grads.update({f"param {n}": to_numpy(p.grad) for n, p in model.named_parameters()})
    return graph, grads


def printed_entries(trace) -> list:
    """A real-world case's trace as ``[(label, value)]``, one per thing the script prints: the
    items of a list, or the key/value pairs of a dict (a list value gives one entry per
    item, labelled ``key[i]``)."""
    if isinstance(trace, dict):
        out = []
        for k, v in trace.items():
            if isinstance(v, list):
                out.extend((f"{k}[{i}]", x) for i, x in enumerate(v))
            else:
                out.append((k, v))
        return out
    return [(None, x) for x in trace]


def _plain(value) -> str:
    """A printed value as text: arrays rounded to 4 digits, tuples joined with `` | ``."""
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=4, separator=", ", suppress_small=True)
    if isinstance(value, tuple):
        return " | ".join(_plain(v) for v in value)
    if isinstance(value, list):
        return "[" + ", ".join(_plain(v) if isinstance(v, (np.ndarray, list, tuple)) else repr(v)
                               for v in value) + "]"
    return str(value)


def _entry_text(entry) -> str:
    label, value = entry
    return _plain(value) if label is None else f"{label}: {_plain(value)}"


def _wrapped(entry, width: int) -> list:
    """An entry's text as lines of at most ``width`` (its own lines kept, tabs expanded)."""
    return [w for line in _entry_text(entry).expandtabs(4).splitlines()
            for w in textwrap.wrap(line, width, subsequent_indent="  ") or [""]]


def _first_printed_difference(a, b):
    """Index of the first differing entry of two printed traces (None when equal)."""
    ea, eb = printed_entries(a), printed_entries(b)
    for i, (x, y) in enumerate(zip(ea, eb)):
        try:
            compare(x, y, rtol=RTOL, atol=ATOL)
        except (AssertionError, TypeError, ValueError):
            return i
    return None if len(ea) == len(eb) else min(len(ea), len(eb))


def printed_side_by_side(a, b, width: int = 200, names=("minigrad", "torch")) -> str:
    """Two printed traces as two columns of ``width`` in all, long lines wrapped, ``>``
    marking the first entry that differs."""
    col = max(20, (width - 5) // 2)
    ea, eb = printed_entries(a), printed_entries(b)
    mark = _first_printed_difference(a, b)
    rows = [f"  {names[0]:<{col}} | {names[1]}"]
    for i in range(max(len(ea), len(eb))):
        left = _wrapped(ea[i], col) if i < len(ea) else []
        right = _wrapped(eb[i], col) if i < len(eb) else []
        for j in range(max(len(left), len(right), 1)):
            lt = left[j] if j < len(left) else ""
            rt = right[j] if j < len(right) else ""
            rows.append(f"{'>' if i == mark and j == 0 else ' '} {lt:<{col}} | {rt}")
    return "\n".join(rows)


def _run_real(case: ParityCase, device: str) -> CaseResult:
    """Run a real-world case's scenario on both libraries and compare what it prints; a
    scenario that raises gives a one-entry trace ``[("raised", type, message)]``."""
    import minigrad

    traces = []
    for lib, dev in ((minigrad, "cpu"), (torch_lib(), device)):
        try:
            traces.append(case.scenario(lib, dev))
        except Exception as e:  # noqa: BLE001 - a crash is a result to show
            traces.append([("raised", type(e).__name__, normalise_message(e))])
    detail = ""
    try:
        compare(*traces, rtol=RTOL, atol=ATOL)
    except (AssertionError, TypeError, ValueError) as e:
        detail = str(e).splitlines()[0] or "the printed traces differ"
    return CaseResult(case.name, case.kind, None, None, True, None, detail, tuple(traces),
                      printed_same=not detail)


def run_case(case: ParityCase | str, device: str = "cpu") -> CaseResult:
    """Run one case on both libraries and compare graph, gradients and hook trace (a
    real-world case: everything it prints). A name may be a real-world case's number."""
    import minigrad

    case = CASES[resolve(case)] if isinstance(case, str) else case
    if case.kind == "case":
        return _run_real(case, device)
    torch = torch_lib()
    if case.kind == "op":
        models = (_Fn(minigrad, case.fn), _Fn(torch, case.fn))
        record = {"kinds": ("tensor", "post_acc", "node")}
    else:
        models = paired_models(case.build, device)
        record = {k: v for k, v in case.record.items() if k != "kwargs"}
    kw_arrays = case.record.get("kwargs", {})
    runs, traces = [], []
    for lib, model in zip((minigrad, torch), models):
        kwargs = dict(zip(kw_arrays, make_inputs(lib, tuple(kw_arrays.values()), False, device)))
        try:
            inputs = make_inputs(lib, case.arrays, case.requires_grad, device)
            runs.append(_plain_run(lib, model, inputs, kwargs))
        except Exception as e:  # noqa: BLE001 - an error is a result to compare
            runs.append(((type(e).__name__, str(e).splitlines()[0]), {}))
        inputs = make_inputs(lib, case.arrays, case.requires_grad, device)
        model.zero_grad()
        traces.append(record_hooks(model, inputs, kwargs=kwargs, lib=lib, **record))
    (g_mg, grads_mg), (g_th, grads_th) = runs
    detail = ""
    graph_same = g_mg == g_th
    if not graph_same:
        detail = f"graph: minigrad {g_mg} vs torch {g_th}"
    diff, close = None, list(grads_mg) == list(grads_th)
    for k in grads_mg:
        a, b = grads_mg[k], grads_th.get(k)
        if a is None or b is None:
            close = close and a is None and b is None
            continue
        if a.shape != b.shape:
            close = False
            continue
        d = float(np.max(np.abs(a.astype(np.float64) - b)) if a.size else 0.0)
        diff = d if diff is None else max(diff, d)
        try:
            compare(a, b, path=k, rtol=RTOL, atol=ATOL)
        except AssertionError as e:
            close = False
            detail = detail or str(e).splitlines()[0]
    if not close and not detail:
        detail = f"gradients: minigrad has {list(grads_mg)}, torch has {list(grads_th)}"
    report = compare_traces(*traces, rtol=RTOL, atol=ATOL, quiet=True)
    if report and not detail:
        detail = report
    return CaseResult(case.name, case.kind, graph_same, diff, close, report is None, detail,
                      tuple(traces))


def run_cases(names=None, device: str = "cpu", progress=None) -> list:
    """Run the named cases (all by default); ``progress(i, n, name)`` is called before each.

    Raises KeyError naming the unknown case and listing the choices.
    """
    names = list(CASES) if not names else [resolve(n) for n in names]
    results = []
    for i, n in enumerate(names):
        if progress is not None:
            progress(i, len(names), n)
        results.append(run_case(n, device))
    return results


# ------------------------------------------------------------------------------ the command
def _mark(value) -> str:
    return "[dim]-[/]" if value is None else ("[green]yes[/]" if value else "[red]NO[/]")


def parity_command(device: str = "cpu", names=None, verbose: bool = False, console=None) -> int:
    """``minigrad parity``: run the cases, print a ``rich`` table; return the exit status.

    0 when every case matches, 1 on any mismatch (the two hook traces are then printed side by
    side from the first difference, as with ``verbose``), 2 for an unknown case or when
    ``device='cuda'`` but PyTorch sees no GPU. A real-world case named with ``names`` always
    shows its source, its summary and the two printed outputs side by side.
    """
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console()
    torch = torch_lib()
    if device == "cuda":
        if not torch.cuda.is_available():
            console.print(f"[red]--device cuda: PyTorch {torch.__version__} sees no CUDA GPU on "
                          "this machine.[/] Run with --device cpu (minigrad itself always runs "
                          "on NumPy).")
            return 2
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    for n in names or ():
        try:
            resolve(n)
        except KeyError:
            console.print(f"[red]unknown case {escape(repr(n))}[/]; choose from: "
                          f"{', '.join(CASES)}")
            return 2
    names = [resolve(n) for n in names] if names else None
    results = run_cases(names, device)
    table = Table(title=f"minigrad vs PyTorch ({device}): {len(results)} cases",
                  box=box.SIMPLE_HEAD)  # no column rules: more room at 80 columns
    # headers broken by hand, so the long case names fit whole from about 110 columns; a
    # narrower terminal folds them
    for col in ("case", "kind", "graph\nidentical", "max |grad\ndiff|",
                "hook trace\nidentical", "printed\noutput\nidentical", "verdict"):
        table.add_column(col, justify="left" if col in ("case", "kind") else "center",
                         overflow="fold")
    for r in results:
        diff = "-" if r.max_grad_diff is None else f"{r.max_grad_diff:.1e}"
        if not r.grads_close:
            diff = f"[red]{diff}[/]"
        table.add_row(r.name, r.kind, _mark(r.graph_same), diff, _mark(r.hooks_same),
                      _mark(r.printed_same), "[green]PASS[/]" if r.ok else "[red]FAIL[/]")
    console.print(table)
    failed = [r for r in results if not r.ok]
    for r in results:
        chosen = r.kind == "case" and names is not None
        if r.ok and not verbose and not chosen:
            continue
        console.rule(f"{r.name}: {'PASS' if r.ok else 'FAIL'}")
        if r.detail:
            console.print(escape(r.detail.splitlines()[0]))
        if r.kind == "case":
            real = REAL_CASES[r.name]
            console.print(escape(f"{real.source}\n{CASES[r.name].description}"))
            console.print(escape(printed_side_by_side(*r.traces, width=console.width)),
                          soft_wrap=True)
            continue
        from .hooks import first_difference, side_by_side

        first = first_difference(*r.traces, RTOL, ATOL)
        start = 0 if first is None else max(0, first[0] - 3)
        console.print(escape(side_by_side(*r.traces, start=start,
                                          mark=None if first is None else first[0])),
                      soft_wrap=True)
    console.print(f"{len(results) - len(failed)} of {len(results)} cases identical"
                  + ("" if not failed else f"; mismatches: {', '.join(r.name for r in failed)}"))
    return 1 if failed else 0
