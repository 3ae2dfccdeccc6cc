"""``minigrad doctor``: one training step of a model, examined by every tool of
:mod:`minigrad.debug`, as a readable report with a verdict.

``TARGET`` is a built-in example (``stuck``, ``nan``, ``healthy``, ``dead-relu``) or
``path/to/file.py:factory``: a callable returning a model (minigrad or torch), optionally
``(model, example_input)``; a factory with one parameter is given the library
(``minigrad`` or ``torch``, per ``--framework``). The step: forward, a stand-in loss
``mean(output ** 2)`` (any scalar shows where gradients flow), backward. Then:

1. :func:`~minigrad.debug.find_unregistered` — modules/tensors used but not registered;
2. :class:`~minigrad.debug.GradientFlowMonitor` — gradients that are None, zero, NaN/Inf,
   vanishing or exploding;
3. :func:`~minigrad.debug.first_nonfinite` — the op and source line where NaN/Inf appeared.

Exit status: 0 healthy, 1 problems found, 2 bad usage (unknown target, unreadable file, factory
or forward error), as returned by :func:`run_doctor`.

The built-in models live in :mod:`minigrad.debug.examples` (user code, as far as the reports
are concerned); this file is the doctor's own code and is never named as the culprit.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import traceback
import warnings
from dataclasses import dataclass, field

from ._util import is_internal, lib_of, tensors_in
from .anomaly import first_nonfinite
from .examples import BUILTINS, _example_input
from .monitor import GradientFlowMonitor
from .unregistered import find_unregistered

__all__ = ["BUILTINS", "Diagnosis", "diagnose", "run_doctor", "load_target", "UsageError"]



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


def load_target(target: str, framework: str = "auto"):
    """Resolve TARGET to ``(model, example input or None, label)``.

    Raises :class:`UsageError` with a readable message for an unknown built-in, a missing or
    unreadable file, a missing factory, a factory that raises or returns something that is not
    a model, or a model of the other framework than ``--framework``.
    """
    if target in BUILTINS:
        lib = _library("minigrad" if framework == "auto" else framework)
        model, x = BUILTINS[target].build(lib)
        return model, x, f"built-in '{target}'"
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
    try:
        result = factory(lib) if len(params) == 1 else factory()
    except Exception as e:  # noqa: BLE001 - reported as a usage error with its location
        raise UsageError(f"{path}:{factory_name}() raised {type(e).__name__}: {e}\n"
                         f"{_last_frames(e)}") from e
    model, x = (result[0], result[1]) if isinstance(result, tuple) and len(result) == 2 \
        else (result, None)
    try:
        model_lib = lib_of(model)
    except TypeError:
        raise UsageError(f"{path}:{factory_name}() returned {type(model).__name__}, not a "
                         "minigrad or torch nn.Module (return model or (model, input))") from None
    if x is not None and not tensors_in(x):
        raise UsageError(f"{path}:{factory_name}() returned an example input of type "
                         f"{type(x).__name__}; expected a tensor (or a tuple of tensors)")
    if framework != "auto" and model_lib.__name__ != framework:
        raise UsageError(f"{path}:{factory_name}() returned a {model_lib.__name__} model but "
                         f"--framework {framework} was given")
    return model, x, f"{path}:{factory_name}"


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
def _loss(output):
    """Stand-in loss: mean of the squares of every floating output tensor."""
    total = None
    for t in tensors_in(output):
        if t.dtype.is_floating_point and t.requires_grad:
            term = (t * t).mean()
            total = term if total is None else total + term
    return total


@dataclass
class Diagnosis:
    """What :func:`diagnose` found: ``unregistered`` (Findings), ``monitor``
    (:class:`GradientFlowMonitor` after one backward), ``nonfinite`` (NonFiniteReport),
    ``loss`` (float) and ``problems`` (one line per kind of problem; empty when healthy)."""

    unregistered: list
    monitor: GradientFlowMonitor
    nonfinite: object
    loss: float
    problems: list = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not self.problems


_FLAG_HINTS = {
    "none": "no gradient reached it (not used in forward, or cut by detach / no_grad)",
    "zero": "the gradient is exactly zero (dead ReLUs: every pre-activation negative? a "
            "multiplication by zero?)",
    "nan": "NaN gradient (see the NaN/Inf section for the op that made it)",
    "inf": "infinite gradient (overflow, division by zero, log(0)?)",
    "vanishing": "vanishing gradient (deep stack of saturating activations? initialisation?)",
    "exploding": "exploding gradient (learning rate, initialisation, missing normalisation?)",
}


def diagnose(model, x) -> Diagnosis:
    """Run one step of ``model`` on ``x`` and examine it with the three tools.

    Leaves the model's ``.grad`` holding the gradients of the stand-in loss. Exceptions from
    the model propagate.
    """
    args = tuple(x) if isinstance(x, (tuple, list)) else (x,)
    unregistered = find_unregistered(model, *args)
    model.zero_grad(set_to_none=True)
    with GradientFlowMonitor(model) as monitor, warnings.catch_warnings():
        # torch warns that the first module's full backward hook fires with no input needing
        # grad; that is expected here
        warnings.filterwarnings("ignore", "Full backward hook is firing")
        loss = _loss(model(*args))
        if loss is not None:
            loss.backward()
    loss_value = float("nan") if loss is None else float(loss.item())
    nonfinite = first_nonfinite(lambda: _loss(model(*args)))
    problems = []
    if loss is None:
        problems.append("the output does not require grad: nothing to train")
    if unregistered:
        kinds = sorted({f.kind for f in unregistered})
        problems.append(f"{len(unregistered)} registration problem(s): {', '.join(kinds)}")
    flagged = monitor.findings()
    for flag in ("none", "zero", "nan", "inf", "vanishing", "exploding"):
        names = [f"{r.name}" + (f" ({r.grad})" if r.kind == "module" else "")
                 for r in flagged if flag in r.flags]
        if names:
            problems.append(f"{flag}: {_FLAG_HINTS[flag]} — {', '.join(names[:6])}"
                            + (f" and {len(names) - 6} more" if len(names) > 6 else ""))
    if not nonfinite.ok:
        first = nonfinite.forward or nonfinite.backward
        problems.append(f"non-finite values: first made by {first.node} at {first.where}"
                        if first else "non-finite loss")
    return Diagnosis(unregistered, monitor, nonfinite, loss_value, problems)


def render(diag: Diagnosis, console, title: str) -> None:
    """Print a :class:`Diagnosis` with ``rich``."""
    from rich.markup import escape

    console.print(f"[bold]minigrad doctor[/]: {escape(title)}")
    console.print(f"Stand-in loss mean(output**2) = {diag.loss:.6g}")
    console.rule("1. Registration (find_unregistered)")
    if not diag.unregistered:
        console.print("[green]every module and tensor used in forward is registered[/]")
    for f in diag.unregistered:
        console.print(f"[red]\\[{f.kind}][/] {escape(f.message)}")
        if f.where:
            console.print(f"    at {escape(f.where)}")
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
                console.print(f"[red]{r.phase}[/]: [bold]{r.node}[/] produced a non-finite "
                              f"{what} ({r.nan} NaN, {r.inf} Inf), created at "
                              f"{escape(r.where)}")
        if nf.error:
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


def run_doctor(target: str, input_shape=None, framework: str = "auto", console=None) -> int:
    """The ``minigrad doctor`` command: load, diagnose, print; returns the exit status
    (0 healthy, 1 problems, 2 bad usage)."""
    from rich.console import Console
    from rich.markup import escape

    console = console or Console()
    err = Console(stderr=True) if console.file is sys.stdout else console
    try:
        model, x, label = load_target(target, framework)
        lib = lib_of(model)
        if input_shape is not None:
            x = _input_from_shape(lib, input_shape)
        if x is None:
            raise UsageError(f"{label} gave no example input: return (model, input) from the "
                             "factory or pass --input-shape, e.g. --input-shape 1,3,32,32")
        try:
            diag = diagnose(model, x)
        except Exception as e:  # noqa: BLE001 - the step could not run: show why
            raise UsageError(f"running one step of {label} failed: {type(e).__name__}: {e}\n"
                             f"{_last_frames(e)}") from e
    except UsageError as e:
        err.print(f"[bold red]minigrad doctor: error:[/] {escape(str(e))}")
        return 2
    render(diag, console, f"{label} ({lib.__name__} model {type(model).__name__}, input "
                          f"{_shapes(x)})")
    return 0 if diag.healthy else 1


def _shapes(x) -> str:
    return ", ".join(str(tuple(t.shape)) for t in tensors_in(x))
