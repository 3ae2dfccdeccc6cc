"""The ``minigrad`` command.

``minigrad demo`` trains the same network (``--model``: a CNN, a CNN with BatchNorm, an LSTM
or a tiny transformer encoder) on the real digits data with minigrad and PyTorch and prints,
per epoch, each library's train loss and test accuracy and the largest difference between
their parameters and buffers. Output uses ``rich`` (progress bar, tables).
"""

from __future__ import annotations

import argparse
import sys


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not value > 0:  # also rejects nan
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``minigrad`` command (one sub-command per job)."""
    parser = argparse.ArgumentParser(prog="minigrad", description="minigrad: PyTorch-style "
                                     "autograd in NumPy, side by side with PyTorch.")
    sub = parser.add_subparsers(dest="command", required=True)
    from .demo import DEMOS

    demo = sub.add_parser("demo", help="train the same network on real digits with minigrad "
                          "and PyTorch and compare them epoch by epoch",
                          description="Train the same network on scikit-learn's digits with "
                          "minigrad and PyTorch (same initial weights, same batches) and compare "
                          "them epoch by epoch. With its defaults each model reaches, in both "
                          "libraries, at least: " + "; ".join(
                              f"{d.name} {100 * d.target:.0f}% test accuracy ({d.epochs} "
                              f"epochs, {d.optimizer} lr {d.lr:g})" for d in DEMOS.values())
                          + ".")
    demo.add_argument("--model", choices=list(DEMOS), default="cnn",
                      help="; ".join(f"{d.name}: {d.description}" for d in DEMOS.values())
                      + " (default cnn)")
    demo.add_argument("--epochs", type=_positive_int, default=None,
                      help="epochs (default: the model's, 8 for cnn)")
    demo.add_argument("--optimizer", choices=["sgd", "adam"], default=None,
                      help="sgd (momentum 0.9) or adam (default: the model's, sgd for cnn)")
    demo.add_argument("--lr", type=_positive_float, default=None,
                      help="learning rate (default: the model's with its optimizer, else 0.05 "
                      "for sgd, 0.003 for adam)")
    demo.add_argument("--seed", type=_integer, default=0, help="seed for split, init, batches")
    demo.add_argument("--batch-size", type=_positive_int, default=64, help="batch size (64)")
    from .toy_models import TOY_MODELS

    graph = sub.add_parser("graph", help="draw the backward graph of a toy network for minigrad "
                           "and PyTorch side by side (two images and an HTML page)")
    graph.add_argument("model", choices=list(TOY_MODELS),
                       help="; ".join(f"{t.name}: {t.description}" for t in TOY_MODELS.values()))
    graph.add_argument("--format", choices=["svg", "png", "pdf", "dot"], default="svg",
                       help="image format (default svg; dot writes only the DOT source)")
    graph.add_argument("--out", default="graphs", help="output directory (default ./graphs)")
    graph.add_argument("--show-saved", action="store_true",
                       help="draw saved tensors (make_dot(show_saved=True))")
    graph.add_argument("--modules", action=argparse.BooleanOptionalAction, default=True,
                       help="group nodes into one cluster per submodule (default; "
                       "--no-modules draws a flat graph)")
    graph.add_argument("--html", metavar="PATH", default=None,
                       help="also write a page that plays one backward pass step by step "
                       "(ready queue, gradients, hooks, freed tensors), minigrad and PyTorch "
                       "side by side")
    doctor = sub.add_parser("doctor", help="run one step of a model (built-in or "
                            "file.py:factory, minigrad or torch) and report unregistered "
                            "modules, bad gradients and NaN/Inf, with a verdict")
    doctor.add_argument("target", metavar="TARGET",
                        help="built-in model (stuck, nan, healthy, dead-relu) or "
                        "path/to/file.py:factory (returns a model, (model, input), (model, "
                        "input, target, loss_fn) or (model, step))")
    doctor.add_argument("--input-shape", type=_shape, default=None,
                        help="shape of a random example input, e.g. 1,3,32,32")
    doctor.add_argument("--framework", choices=["auto", "minigrad", "torch"], default="auto",
                        help="library to build with (built-ins / factories taking lib) or "
                        "expected of the model (default auto)")
    doctor.add_argument("--loss", choices=["mse", "cross_entropy"], default=None,
                        help="a real loss against a generated target, when the factory gives "
                        "none (default: the stand-in mean(output**2))")
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    from .parity.cases import CASES

    parity = sub.add_parser("parity", help="run the built-in paired cases (ops, toy models, hook "
                            "traces) on minigrad and PyTorch and print whether graphs, gradients "
                            "and hook traces are identical")
    parity.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                        help="device of the PyTorch side (minigrad always runs on NumPy)")
    parity.add_argument("--case", action="append", metavar="NAME", dest="cases",
                        help="run only this case (repeatable); one of: " + ", ".join(CASES))
    parity.add_argument("--verbose", action="store_true",
                        help="print both hook traces side by side for every case")
    tutorial = sub.add_parser("tutorial", help="list the tutorial chapters, or run chapter N "
                              "(its narrative, code and output, minigrad and PyTorch side by "
                              "side)")
    tutorial.add_argument("chapter", nargs="?", type=_positive_int, metavar="N",
                          help="chapter to run (without it: the list)")
    tutorial.add_argument("--list", action="store_true", help="list the chapters and exit")
    tutorial.add_argument("--no-code", action="store_true",
                          help="print only the narrative and the output, not the code")
    return parser


def _shape(text: str) -> tuple:
    try:
        dims = tuple(int(d) for d in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated sizes like 1,3,32,32, "
                                         f"got {text!r}") from None
    if not dims or any(d < 1 for d in dims):
        raise argparse.ArgumentTypeError(f"sizes must be positive integers, got {text!r}")
    return dims


def _rich():
    try:
        import rich  # noqa: F401
    except ImportError as e:
        raise SystemExit("the minigrad command prints with rich: pip install 'minigrad[tutorials]'"
                         ) from e
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    return Console, Progress, BarColumn, TextColumn, TimeElapsedColumn, Table


def cmd_demo(args) -> int:
    """Run `minigrad.demo.run_demo` with a progress bar and print the results table."""
    from .demo import DEMOS, run_demo

    Console, Progress, BarColumn, TextColumn, TimeElapsedColumn, Table = _rich()
    console = Console()
    spec = DEMOS[args.model]
    layout = "images 1x8x8" if spec.layout == "image" else "sequences of 8 rows of 8 pixels"
    console.print(f"[bold]minigrad demo[/]: digits 8x8 (scikit-learn) as {layout}, "
                  f"{spec.description}, {args.optimizer or spec.optimizer}, "
                  f"{args.epochs or spec.epochs} epochs, batch {args.batch_size}, "
                  f"seed {args.seed}", highlight=False)
    with Progress(TextColumn("training"), BarColumn(), TextColumn("{task.completed}/{task.total}"
                  " steps"), TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("train", total=None)

        def progress(done, total):
            bar.update(task, completed=done, total=total)

        result = run_demo(epochs=args.epochs, optimizer=args.optimizer, lr=args.lr,
                          seed=args.seed, batch_size=args.batch_size, progress=progress,
                          model=args.model)
    mark = "[green]identical[/]" if result.graphs_identical else "[red]DIFFERENT[/]"
    console.print(f"First step: backward graphs (node types and next_functions edges, "
                  f"{len(result.first_graph)} nodes) are {mark}.")
    table = Table(title="minigrad vs PyTorch (same weights, same batches)")
    for col in ("epoch", "loss minigrad", "loss torch", "test acc minigrad", "test acc torch",
                "max |state diff|"):
        table.add_column(col, justify="right")
    for row in result.rows:
        table.add_row(str(row.epoch), f"{row.loss['minigrad']:.4f}", f"{row.loss['torch']:.4f}",
                      f"{100 * row.acc['minigrad']:.1f}%", f"{100 * row.acc['torch']:.1f}%",
                      f"{row.max_diff:.2e}")
    console.print(table)
    if result.rows and result.rows[-1].max_diff > DRIFT_NOTE_ABOVE:
        console.print(DRIFT_NOTE, highlight=False)
    if result.rows:
        last = result.rows[-1].acc
        console.print(f"Stated test accuracy of {spec.name} with its defaults: >= "
                      f"{100 * spec.target:.0f}% in both libraries; this run: minigrad "
                      f"{100 * last['minigrad']:.1f}%, torch {100 * last['torch']:.1f}%.",
                      highlight=False)
    secs = result.rows[-1].seconds if result.rows else {}
    total = {name: sum(r.seconds.get(name, 0.0) for r in result.rows) for name in secs}
    if total:
        console.print(training_time_line(total), highlight=False)  # one colour, not fragments
    return 0 if result.graphs_identical else 1


# printed under the demo's table when the state difference is past float32 rounding
DRIFT_NOTE_ABOVE = 1e-4
DRIFT_NOTE = ("max |state diff| is past float32 rounding: the two libraries round differently, "
              "and training amplifies it (a ReLU input within rounding of 0 falls on different "
              "sides of the kink; Adam's first steps have size lr whatever the gradient). "
              "Losses and accuracies stay together; in float64 the same runs agree to ~1e-12.")


def training_time_line(total: dict) -> str:
    """The demo's footer: both training times to 3 significant digits (so that they and their
    ratio agree when read: "0.235 s, 0.158 s (1.49x)", not "0.2 s, 0.2 s (1.49x)")."""
    ratio = total["minigrad"] / max(total["torch"], 1e-9)
    return ("Training time: " + ", ".join(f"{k} {v:.3g} s" for k, v in total.items())
            + f" (minigrad / torch: {ratio:.2f}x)")


def cmd_graph(args) -> int:
    """Render a toy network's backward graph with minigrad and PyTorch; say what was drawn and
    where each file is.

    Writes ``<out>/<model>_minigrad.<fmt>``, ``<out>/<model>_torch.<fmt>`` and
    ``<out>/<model>.html`` (both drawings side by side). Without Graphviz's ``dot`` program the
    DOT sources are written instead, the install hint is printed, and the exit status is 1.
    """
    import os

    from .toy_models import TOY_MODELS
    from .viz import graph_page

    result = graph_page(args.model, args.out, fmt=args.format, show_saved=args.show_saved,
                        modules=args.modules)
    extras = [what for what, on in (("one cluster per submodule", args.modules),
                                    ("saved tensors", args.show_saved)) if on]
    print(f"backward graph of the toy network {args.model!r} "
          f"({TOY_MODELS[args.model].description})"
          + (f", with {' and '.join(extras)}" if extras else "") + ":")
    for path in result["files"]:
        stem = os.path.splitext(os.path.basename(path))[0]
        label = stem.rsplit("_", 1)[1] if "_" in stem and stem.startswith(args.model + "_") \
            else "both side by side"
        kind = "DOT source" if path.endswith(".dot") else "page" if path.endswith(
            ".html") else "image"
        print(f"  {label + ':':<19} {path}  ({kind})")
    if args.html:
        print(trace_page_line(args.model, args.html))
    if result["hint"]:
        print(result["hint"], file=sys.stderr)
        return 1
    return 0


def trace_page_line(model: str, path: str) -> str:
    """Write the step-by-step backward page of toy ``model`` (`minigrad.viz_trace.toy_traces`)
    to ``path``; return the line that says where it is and whether both libraries agree."""
    import os

    from .viz_trace import toy_traces

    traces = toy_traces(model)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    traces[0].to_html(path, *traces[1:], title=f"{model}: backward, step by step")
    steps = len(traces[0].events)
    if len(traces) == 1:
        verdict = "minigrad only (PyTorch is not installed)"
    else:
        diff = traces[0].first_difference(traces[1])
        verdict = ("minigrad and PyTorch record the same events" if diff is None
                   else f"first difference at observable event {diff}")
    return f"  {'step by step:':<19} {path}  (page: {steps} steps; {verdict})"


def cmd_doctor(args) -> int:
    """Run `minigrad.debug.doctor.run_doctor`: 0 healthy, 1 problems, 2 bad usage."""
    from .debug.doctor import run_doctor

    return run_doctor(args.target, input_shape=args.input_shape, framework=args.framework,
                      loss=args.loss, as_json=args.json)


def cmd_parity(args) -> int:
    """Run `minigrad.parity.cases.parity_command`: 0 identical, 1 mismatch, 2 bad usage."""
    _rich()
    from .parity.cases import parity_command

    return parity_command(args.device, args.cases, args.verbose)


def cmd_tutorial(args) -> int:
    """List the chapters (``--list`` or no N) or run chapter N with
    `minigrad.tutorial.run_chapter`: 0 when it ran through, 1 when it raised, 2 for an
    unknown chapter or a missing tutorials folder."""
    Console, *_, Table = _rich()
    from . import tutorial

    console = Console()
    try:
        if args.list or args.chapter is None:
            table = Table(title="minigrad tutorial chapters", show_lines=False)
            for col in ("N", "chapter", "file"):
                table.add_column(col)
            for ch in tutorial.chapters():
                table.add_row(str(ch.number), ch.title.replace("`", ""), ch.path.name)
            console.print(table)
            console.print("run one with: minigrad tutorial N (figures go to "
                          f"{tutorial.DEFAULT_OUT}/chNN, or to ${tutorial.OUT_ENV}/chNN)")
            return 0
        tutorial.find_chapter(args.chapter)
    except (ValueError, FileNotFoundError) as e:
        print(f"minigrad tutorial: {e}", file=sys.stderr)
        return 2
    return tutorial.run_chapter(args.chapter, show_code=not args.no_code, console=console)


def main(argv=None) -> int:
    """Entry point of the ``minigrad`` console script."""
    args = build_parser().parse_args(argv)
    handlers = {"demo": cmd_demo, "graph": cmd_graph, "doctor": cmd_doctor, "parity": cmd_parity,
                "tutorial": cmd_tutorial}
    return handlers[args.command](args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
