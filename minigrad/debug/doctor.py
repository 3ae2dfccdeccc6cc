"""``minigrad doctor``: one training step of a model, examined by every tool of
`minigrad.debug`, as a readable report with a verdict.

``TARGET`` is a built-in example (``stuck``, ``nan``, ``healthy``, ``dead-relu``) or
``path/to/file.py:factory``: a callable returning a model (minigrad or torch), optionally
``(model, example_input)``; a factory with one parameter is given the library
(``minigrad`` or ``torch``, per ``--framework``). The step: forward, a stand-in loss
``mean(output ** 2)`` (any scalar shows where gradients flow), backward. Then:

1. `find_unregistered` — modules/tensors used but not registered;
2. `GradientFlowMonitor` — gradients that are None, zero, NaN/Inf,
   vanishing or exploding;
3. `first_nonfinite` — the op and source line where NaN/Inf appeared.

Exit status: 0 healthy, 1 problems found, 2 bad usage (unknown target, unreadable file, factory
or forward error), as returned by `run_doctor`.

The built-in models live in `minigrad.debug.examples` (user code, as far as the reports
are concerned); this file is the doctor's own code and is never named as the culprit.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import os
import sys
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

from ._util import graph_leaves, is_internal, lib_of, tensors_in
from .anomaly import NonFiniteReport, first_nonfinite
from .cuts import CutRecorder
from .examples import BUILTINS, _example_input
from .inplace import explain_inplace_error, is_inplace_error
from .monitor import GradientFlowMonitor
from .unregistered import ForwardRecorder

__all__ = ["BUILTINS", "Case", "Diagnosis", "diagnose", "generated_loss", "run_doctor",
           "load_target", "UsageError"]



class UsageError(Exception):
    """Bad TARGET / factory / input: ``minigrad doctor`` exits with status 2."""


# ---------------------------------------------------------------------------- loading
def _library(name: str):
    if name == "torch":
        try:
            import torch
        except ImportError as e:
            raise UsageError("--framework torch needs PyTorch: pip install torch") from e
        return torch
    import minigrad

    return minigrad


@dataclass
class Case:
    """What a TARGET resolved to: the model, its example input (None when not given), a
    label for the report, and the loss when the factory gave one: ``target`` and
    ``loss_fn(output, target)``, or ``step(model) -> loss``."""

    model: object
    x: object
    label: str
    target: object = None
    loss_fn: object = None
    step: object = None


def load_target(target: str, framework: str = "auto") -> Case:
    """Resolve TARGET to a `Case`.

    A factory returns ``model``, ``(model, input)``, ``(model, input, target, loss_fn)`` or
    ``(model, step)`` with ``step(model) -> loss``. Raises `UsageError` with a readable
    message for an unknown built-in, a missing or unreadable file, a missing factory, a factory
    that raises or returns something else, or a model of the other framework than
    ``--framework``.
    """
    if target in BUILTINS:
        lib = _library("minigrad" if framework == "auto" else framework)
        model, x = BUILTINS[target].build(lib)
        return Case(model, x, f"built-in '{target}'")
    path, sep, factory_name = target.rpartition(":")
    if not sep or not path.endswith(".py") or not factory_name:
        raise UsageError(f"unknown target {target!r}: give a built-in model "
                         f"({', '.join(BUILTINS)}) or path/to/file.py:factory")
    if not os.path.isfile(path):
        raise UsageError(f"cannot read {path}: no such file")
    factory = _load_factory(path, factory_name)
    lib = _library("minigrad" if framework == "auto" else framework)
    try:
        params = [p for p in inspect.signature(factory).parameters.values()
                  if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                         p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    label = f"{path}:{factory_name}"
    try:
        result = factory(lib) if len(params) == 1 else factory()
    except Exception as e:  # noqa: BLE001 - reported as a usage error with its location
        raise UsageError(f"{label}() raised {type(e).__name__}: {e}\n"
                         f"{_last_frames(e)}") from e
    case = _case_of(result, label)
    try:
        model_lib = lib_of(case.model)
    except TypeError:
        raise UsageError(f"{label}() returned {type(case.model).__name__}, not a minigrad or "
                         "torch nn.Module (return model, (model, input), (model, input, "
                         "target, loss_fn) or (model, step))") from None
    if case.x is not None and not tensors_in(case.x):
        raise UsageError(f"{label}() returned an example input of type "
                         f"{type(case.x).__name__}; expected a tensor (or a tuple of tensors)")
    if case.loss_fn is not None and not callable(case.loss_fn):
        raise UsageError(f"{label}() returned a loss_fn of type "
                         f"{type(case.loss_fn).__name__}; expected loss_fn(output, target)")
    if framework != "auto" and model_lib.__name__ != framework:
        raise UsageError(f"{label}() returned a {model_lib.__name__} model but "
                         f"--framework {framework} was given")
    return case


def _case_of(result, label) -> Case:
    if not isinstance(result, tuple):
        return Case(result, None, label)
    if len(result) == 2 and callable(result[1]) and not tensors_in(result[1]):
        return Case(result[0], None, label, step=result[1])
    if len(result) == 2:
        return Case(result[0], result[1], label)
    if len(result) == 4:
        return Case(result[0], result[1], label, target=result[2], loss_fn=result[3])
    raise UsageError(f"{label}() returned a tuple of {len(result)} items; expected (model, "
                     "input), (model, input, target, loss_fn) or (model, step)")


def _load_factory(path: str, name: str):
    mod_name = "_minigrad_doctor_" + os.path.splitext(os.path.basename(path))[0]
    try:
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        try:
            spec.loader.exec_module(module)
        finally:
            sys.path.pop(0)
    except SyntaxError as e:
        raise UsageError(f"cannot load {path}: SyntaxError at line {e.lineno}: {e.msg}") from e
    except Exception as e:  # noqa: BLE001 - any import-time failure is a usage error
        raise UsageError(f"cannot load {path}: {type(e).__name__}: {e}\n{_last_frames(e)}"
                         ) from e
    factory = getattr(module, name, None)
    if not callable(factory):
        found = sorted(k for k, v in vars(module).items()
                       if callable(v) and not k.startswith("_") and
                       getattr(v, "__module__", None) == mod_name)
        raise UsageError(f"{path} has no callable {name!r}"
                         + (f" (callables defined there: {', '.join(found)})" if found else ""))
    return factory


def _last_frames(exc, n: int = 2) -> str:
    """The last ``n`` frames of user code in the exception's traceback, and the frame that
    raised (doctor's own frames left out)."""
    frames = traceback.extract_tb(exc.__traceback__)
    here = os.path.dirname(os.path.abspath(__file__))
    user = [f for f in frames if not is_internal(f.filename)
            and not os.path.abspath(f.filename).startswith(here)]
    picked = user[-n:]
    if frames and (not picked or picked[-1] is not frames[-1]):
        picked.append(frames[-1])
    return "".join(traceback.format_list(picked)).rstrip()


# ---------------------------------------------------------------------------- diagnosis
def _stand_in_loss(output):
    """Stand-in loss when none is given: the mean of the squares of every floating output
    tensor that requires grad (any scalar shows where gradients flow); None when no output
    requires grad."""
    total = None
    for t in tensors_in(output):
        if t.dtype.is_floating_point and t.requires_grad:
            term = (t * t).mean()
            total = term if total is None else total + term
    return total


def generated_loss(lib, kind: str):
    """``loss_fn(output, target)`` for ``--loss``: ``mse`` against a fixed random target of
    the output's shape, ``cross_entropy`` against fixed random class indices (the output's
    dim 1 being the classes). The ``target`` argument is ignored (None)."""
    if kind not in ("mse", "cross_entropy"):
        raise UsageError(f"--loss must be mse or cross_entropy, got {kind!r}")
    F = lib.nn.functional

    def loss_fn(output, _target):
        out = tensors_in(output)[0]
        rng = np.random.default_rng(0)
        if kind == "mse":
            target = lib.tensor(rng.standard_normal(tuple(out.shape)).astype(np.float32))
            return F.mse_loss(out, target)
        target = lib.tensor(rng.integers(0, out.shape[1], out.shape[0]).astype(np.int64))
        return F.cross_entropy(out, target)

    loss_fn.kind = kind
    return loss_fn


@dataclass
class Diagnosis:
    """What `diagnose` found.

    ``unregistered``: `Finding`s (registration, unused modules, cuts); ``monitor``: the
    `GradientFlowMonitor` after the backward; ``nonfinite``: a `NonFiniteReport`;
    ``loss``: its value (None when there was no loss: no output required grad);
    ``loss_kind``: ``"stand-in"``, ``"loss_fn"`` or ``"step"``; ``frozen``: names of the
    parameters with ``requires_grad=False`` (information, not a problem); ``inplace``: an
    `InplaceExplanation` when backward raised the in-place error; ``problems``: one line per
    kind of problem (empty when healthy).
    """

    unregistered: list
    monitor: GradientFlowMonitor
    nonfinite: object
    loss: float | None
    problems: list = field(default_factory=list)
    loss_kind: str = "stand-in"
    frozen: list = field(default_factory=list)
    inplace: object = None

    @property
    def healthy(self) -> bool:
        return not self.problems


_FLAG_HINTS = {
    "none": "no gradient reached it (not used in forward, or cut by detach / no_grad)",
    "zero": "the gradient is exactly zero (dead ReLUs: every pre-activation negative? a "
            "multiplication by zero?)",
    "nan": "NaN gradient (see the NaN/Inf section for the op that made it)",
    "inf": "infinite gradient (overflow, division by zero, log(0)?)",
    "vanishing": "vanishing gradient: weights' gradients below 1e-7 of the weights, or module "
                 "gradients below 1e-7 (one step, so a strong hint rather than proof: deep "
                 "stack of saturating activations? initialisation?)",
    "exploding": "exploding gradient (learning rate, initialisation, missing normalisation?)",
}
# findings that already explain a missing gradient (the monitor's "none" says it again)
_EXPLAINS_NONE = ("unused_module", "cut_graph", "no_grad", "unregistered_module")
_REGISTRATION = ("unregistered_module", "recreated_module", "unregistered_tensor")


def _run(model, args, target, loss_fn, step):
    """One forward and loss: ``(output, loss)`` (the loss is the output for ``step``)."""
    if step is not None:
        loss = step(model)
        return loss, loss
    output = model(*args)
    return output, loss_fn(output, target) if loss_fn is not None else _stand_in_loss(output)


def diagnose(model, x=None, target=None, loss_fn=None, step=None) -> Diagnosis:
    """Run one step of ``model`` and examine it.

    Args:
        model: a minigrad or torch ``nn.Module``.
        x: its example input (a tensor or a tuple of tensors); not needed with ``step``.
        target, loss_fn: the real loss, ``loss_fn(model(x), target)``; without them a
            stand-in ``mean(output ** 2)`` is used (and never blamed).
        step: instead of ``x`` and the loss, ``step(model) -> loss``.

    One instrumented forward and backward serve the registration check and the gradient
    monitor. The step is run again only to look closer: when a gradient is missing (to see
    where the graph was cut), when something is non-finite (under anomaly detection,
    `first_nonfinite`), when backward raises the in-place error (`explain_inplace_error`).
    Leaves the model's ``.grad`` holding this step's gradients. Other exceptions from the
    model propagate.
    """
    args = () if x is None else tuple(x) if isinstance(x, (tuple, list)) else (x,)
    kind = "step" if step is not None else "loss_fn" if loss_fn is not None else "stand-in"

    def again():
        return _run(model, args, target, loss_fn, step)[1]

    model.zero_grad(set_to_none=True)
    inplace = None
    # tensor hooks, not full backward hooks: the doctor needs each module's grad_output and
    # each parameter's grad, and full hooks are what makes a watched torch step slow
    with GradientFlowMonitor(model, mode="tensor") as monitor, warnings.catch_warnings():
        # torch warns that the first module's full backward hook fires with no input needing
        # grad; that is expected here
        warnings.filterwarnings("ignore", "Full backward hook is firing")
        with ForwardRecorder(model, watch_cuts=False) as recorder:
            output, loss = _run(model, args, target, loss_fn, step)
        if loss is not None and not loss.requires_grad:
            loss = None
        leaves = graph_leaves(loss) if loss is not None else []
        if loss is not None:
            try:
                loss.backward()
            except RuntimeError as e:
                if not is_inplace_error(e):
                    raise
                model.zero_grad(set_to_none=True)
                inplace = explain_inplace_error(lambda: again().backward())
    grads = {id(t): t.grad for t in leaves}
    if inplace is None and any(p.requires_grad and grads.get(id(p)) is None
                               for p in model.parameters()):
        # a gradient is missing: run the forward again to see where the graph was cut
        with CutRecorder(lib_of(model)) as recorder.cuts, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _run(model, args, target, loss_fn, step)
    unregistered = recorder.findings(loss if loss is not None else output, args, grads=grads)
    loss_value = None if loss is None else float(loss.item())
    flagged = [] if inplace is not None else monitor.findings()
    if (loss_value is not None and not math.isfinite(loss_value)) or \
            any(r.nan or r.inf for r in flagged):
        nonfinite = first_nonfinite(again)
    else:
        nonfinite = NonFiniteReport(forward=None, backward=None, loss_finite=True)
    frozen = [n for n, p in model.named_parameters() if not p.requires_grad]
    problems = _problems(model, loss, kind, unregistered, flagged, nonfinite, inplace)
    return Diagnosis(unregistered, monitor, nonfinite, loss_value, problems, kind, frozen,
                     inplace)


def _problems(model, loss, kind, unregistered, flagged, nonfinite, inplace) -> list:
    """One line per kind of problem, each naming the mechanism."""
    problems = []
    if inplace is not None:
        by = str(inplace.bumps[0]) if inplace.bumps else "an unseen op"
        problems.append(f"in-place error: a tensor saved by {inplace.saved_by} was modified "
                        f"in place by {by}; fix: {inplace.fix}")
    if loss is None:
        if any(p.requires_grad for p in model.parameters()):
            problems.append(f"the {'loss' if kind != 'stand-in' else 'output'} does not "
                            "require grad: no gradient can reach the parameters (see section 1 "
                            "for where the graph was cut)")
        else:
            problems.append("nothing to train: every parameter has requires_grad=False")
    registration = [f for f in unregistered if f.kind in _REGISTRATION and f.owner is None]
    if registration:
        kinds = sorted({f.kind for f in registration})
        problems.append(f"{len(registration)} registration problem(s): {', '.join(kinds)}")
    for f in unregistered:
        if f.kind not in _REGISTRATION:
            problems.append(f"{f.kind}: {f.message}" + (f" (at {f.where})" if f.where else ""))
    explained = any(f.kind in _EXPLAINS_NONE for f in unregistered) or loss is None
    for flag in ("none", "zero", "nan", "inf", "vanishing", "exploding"):
        if flag == "none" and explained:
            continue
        hits = [r for r in flagged if flag in r.flags]
        if flag == "vanishing":  # the weights first: their ratio is the stronger evidence
            hits.sort(key=lambda r: r.kind != "param")
        names = [f"{r.name}" + (f" ({r.grad})" if r.kind == "module" else "")
                 + (f" (|g|/|w| = {r.rel:.1e})" if flag == "vanishing" and r.rel else "")
                 for r in hits]
        if names:
            problems.append(f"{flag}: {_FLAG_HINTS[flag]} — {', '.join(names[:6])}"
                            + (f" and {len(names) - 6} more" if len(names) > 6 else ""))
    if not nonfinite.ok:
        first = nonfinite.forward or nonfinite.backward
        problems.append(f"non-finite values: first made by {first.label} at {first.where}"
                        if first else "non-finite loss")
    return problems


def render(diag: Diagnosis, console, title: str) -> None:
    """Print a `Diagnosis` with ``rich``."""
    from rich.markup import escape

    console.print(f"[bold]minigrad doctor[/]: {escape(title)}")
    name = {"stand-in": "Stand-in loss mean(output**2)", "loss_fn": "Loss loss_fn(output, "
            "target)", "step": "Loss step(model)"}[diag.loss_kind]
    if diag.loss is None:
        console.print(f"{name}: none (the {'output' if diag.loss_kind == 'stand-in' else 'loss'}"
                      " does not require grad)")
    else:
        console.print(f"{name} = {diag.loss:.6g}")
    if diag.frozen:
        console.print(f"frozen (requires_grad=False, not trained, as intended): "
                      f"{len(diag.frozen)} parameter tensors: {escape(_summary(diag.frozen))}")
    if diag.inplace is not None:
        console.rule("In-place error (explain_inplace_error)")
        console.print(escape(str(diag.inplace)))
    console.rule("1. Registration (find_unregistered)")
    if not diag.unregistered:
        console.print("[green]every module and tensor used in forward is registered[/]")
    owned: dict = {}  # one line per unregistered module for its parameters, not one each
    for f in diag.unregistered:
        if f.owner is not None:
            owned.setdefault(f.owner, []).append(f.name[len(f.owner) + 1:])
    for f in diag.unregistered:
        if f.owner is not None:
            continue
        console.print(f"[red]\\[{f.kind}][/] {escape(f.message)}")
        if f.where:
            console.print(f"    at {escape(f.where)}")
        if f.kind == "unregistered_module" and owned.get(f.name):
            console.print(f"    its parameters {escape(', '.join(owned.pop(f.name)))} get "
                          "gradients, but model.parameters() does not list them")
        console.print(f"    [bold]fix[/]: {escape(f.fix)}")
    console.rule("2. Gradient flow (GradientFlowMonitor)")
    flagged = diag.monitor.findings()
    total = len(diag.monitor.records())
    if flagged:
        console.print(diag.monitor.table(f"{len(flagged)} of {total} gradients flagged",
                                         records=flagged))
    else:
        console.print(f"[green]all {total} gradients look fine[/] (none missing, zero, NaN/Inf, "
                      "vanishing or exploding)")
    console.rule("3. NaN / Inf (first_nonfinite, anomaly detection)")
    nf = diag.nonfinite
    if nf.ok:
        console.print("[green]no NaN/Inf in the forward values or in the gradients[/]")
    else:
        for r in (nf.forward, nf.backward):
            if r is not None:
                what = "output" if r.phase == "forward" else "gradient"
                console.print(f"[red]{r.phase}[/]: [bold]{escape(r.label)}[/] produced a "
                              f"non-finite {what} ({r.nan} NaN, {r.inf} Inf), created at "
                              f"{escape(r.where)}")
        if nf.error and nf.forward is None and nf.backward is None:
            # anomaly detection stops at the first node *returning* NaN, which is usually the
            # loss passing on a NaN made earlier: worth showing only when nothing else is known
            console.print(f"anomaly detection: {escape(nf.error)}")
    console.rule("Verdict")
    if diag.healthy:
        console.print("[bold green]HEALTHY[/]: no problems found")
    else:
        console.print(f"[bold red]PROBLEMS FOUND[/] ({len(diag.problems)}):")
        for p in diag.problems:
            console.print(f"  - {escape(p)}")


def _input_from_shape(lib, shape):
    return _example_input(lib, tuple(shape))


def run_doctor(target: str, input_shape=None, framework: str = "auto", console=None,
               loss: str | None = None, as_json: bool = False) -> int:
    """The ``minigrad doctor`` command: load, diagnose, print; returns the exit status
    (0 healthy, 1 problems, 2 bad usage).

    ``loss``: ``"mse"`` / ``"cross_entropy"`` against a generated target, used when the
    factory gives no loss. ``as_json``: print `to_json` instead of the report."""
    from rich.console import Console
    from rich.markup import escape

    console = console or Console()
    err = Console(stderr=True) if console.file is sys.stdout else console
    try:
        case = load_target(target, framework)
        lib = lib_of(case.model)
        if input_shape is not None:
            case.x = _input_from_shape(lib, input_shape)
        if case.x is None and case.step is None:
            raise UsageError(f"{case.label} gave no example input: return (model, input) from "
                             "the factory or pass --input-shape, e.g. --input-shape 1,3,32,32")
        if loss is not None and case.loss_fn is None and case.step is None:
            case.loss_fn = generated_loss(lib, loss)
        try:
            diag = diagnose(case.model, case.x, case.target, case.loss_fn, case.step)
        except Exception as e:  # noqa: BLE001 - the step could not run: show why
            raise UsageError(f"running one step of {case.label} failed: {type(e).__name__}: "
                             f"{e}\n{_last_frames(e)}") from e
    except UsageError as e:
        err.print(f"[bold red]minigrad doctor: error:[/] {escape(str(e))}")
        return 2
    if as_json:
        console.print_json(to_json(diag))
    else:
        shapes = "step(model)" if case.x is None else f"input {_shapes(case.x)}"
        render(diag, console, f"{case.label} ({lib.__name__} model "
                              f"{type(case.model).__name__}, {shapes})")
    return 0 if diag.healthy else 1


def to_json(diag: Diagnosis) -> str:
    """The diagnosis as JSON, for scripts: ``healthy``, ``problems``, ``loss``,
    ``loss_kind``, ``frozen``, ``findings``, ``gradients`` (the flagged records), ``nonfinite``
    and ``inplace``."""
    import json
    from dataclasses import asdict

    nf = diag.nonfinite
    return json.dumps({
        "healthy": diag.healthy, "problems": diag.problems, "loss": diag.loss,
        "loss_kind": diag.loss_kind, "frozen": diag.frozen,
        "findings": [asdict(f) for f in diag.unregistered],
        "gradients": [asdict(r) for r in diag.monitor.findings()],
        "nonfinite": None if nf.ok else {
            "forward": None if nf.forward is None else _node_dict(nf.forward),
            "backward": None if nf.backward is None else _node_dict(nf.backward),
            "loss_finite": nf.loss_finite, "error": nf.error},
        "inplace": None if diag.inplace is None else asdict(diag.inplace),
    }, default=_json_default)


def _node_dict(r) -> dict:
    return {"node": r.node, "module": r.module, "phase": r.phase, "nan": r.nan, "inf": r.inf,
            "where": r.where}


def _json_default(value):
    return None if isinstance(value, float) and not math.isfinite(value) else str(value)


def _summary(names, n: int = 6) -> str:
    """``a.weight, a.bias, ... and 4 more``, grouped by module when there are many."""
    if len(names) > n:
        names = list(dict.fromkeys(name.rpartition(".")[0] + ".*" for name in names))
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


def _shapes(x) -> str:
    return ", ".join(str(tuple(t.shape)) for t in tensors_in(x))
