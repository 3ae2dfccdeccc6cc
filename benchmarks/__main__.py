"""``python -m benchmarks``: minigrad vs PyTorch CPU, side by side, as ratios of medians.

``--suite issue9`` (the default) runs issue 9's cases (see ``benchmarks/suite.py``): first in
this process with one thread for both libraries (``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``
and ``MKL_NUM_THREADS`` set to 1 before NumPy is imported, ``torch.set_num_threads(1)``), then
in a child process with the default threads; it prints both tables and, with ``--out DIR``,
writes ``DIR/benchmarks.json`` and ``DIR/benchmarks_table.md``. ``--threads N`` runs one table
only, with N threads (0: the libraries' defaults).

``--suite train`` runs issue 2's cases: one SGD-momentum step of the demo CNN (batch 64) and of
a 64-128-128-10 MLP (batch 128).

Published numbers: run with ``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python -m
benchmarks``; these two variables, set on the development machines, slow NumPy's matmul.
Speed is reported, never asserted: this is not a test.
"""

from __future__ import annotations

import argparse
import os
import sys

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

if __name__ == "__main__":
    _threads = "1"
    for i, a in enumerate(sys.argv):
        if a == "--threads" and i + 1 < len(sys.argv):
            _threads = sys.argv[i + 1]
    if _threads != "0":
        for var in THREAD_VARS:
            os.environ[var] = _threads  # must happen before NumPy is imported

import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402


def build_mlp(lib):
    """64-128-128-10 MLP with ReLU, in ``lib``."""
    nn = lib.nn
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def _step_fn(lib, model, x, y):
    from minigrad.demo import train_step

    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    xb, yb = x, y
    return lambda: train_step(lib, model, opt, xb, yb)


def _median_time(fn, repeat: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def run(repeat: int = 30, threads: int = 1) -> list:
    """Time each case on both libraries; returns rows of plain data."""
    import torch

    import minigrad
    from minigrad.demo import build_cnn

    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    cases = {
        "demo CNN step (batch 64)": (build_cnn, rng.random((64, 1, 8, 8), dtype=np.float32),
                                     rng.integers(0, 10, 64)),
        "MLP 64-128-128-10 step (batch 128)": (build_mlp, rng.random((128, 64), dtype=np.float32),
                                               rng.integers(0, 10, 128)),
    }
    rows = []
    for name, (build, x, y) in cases.items():
        t_model = build(torch)
        m_model = build(minigrad)
        m_model.load_state_dict(t_model.state_dict())
        t_mg = _median_time(_step_fn(minigrad, m_model, x, y), repeat)
        t_pt = _median_time(_step_fn(torch, t_model, x, y), repeat)
        rows.append({"case": name, "minigrad_ms": 1e3 * t_mg, "torch_ms": 1e3 * t_pt,
                     "ratio": t_mg / t_pt, "target": 3.0})
    return rows


def machine() -> dict:
    """Machine and library details for the table's caption."""
    import torch

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__, "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(),
            "env": {v: os.environ.get(v) for v in
                    THREAD_VARS + ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}}


def run_issue9(repeat: int, threads: int, only=None) -> dict:
    """One table of issue 9's suite in this process, with ``threads`` (0: default) threads."""
    import torch

    import benchmarks.suite
    from benchmarks.suite import run_suite

    if threads:
        torch.set_num_threads(threads)
    info = machine()
    label = f"{threads} thread(s)" if threads else f"default threads ({info['torch_threads']})"
    print(f"issue 9 suite, {label}, median of {repeat}:", file=sys.stderr)
    rows = run_suite(repeat, only, log=lambda m: print(m, file=sys.stderr))
    clock = "CPU time" if benchmarks.suite.TIMER is time.process_time else "wall clock"
    return {"threads": label, "repeat": repeat, "clock": clock, "machine": info, "rows": rows}


def print_table(result: dict) -> None:
    """Print one table of the issue 9 suite with rich."""
    from rich.console import Console
    from rich.table import Table

    m = result["machine"]
    table = Table(title=f"minigrad vs PyTorch CPU, {result['threads']}, median of "
                        f"{result['repeat']} ({m['cpu']}, {m['cores']} cores)")
    for col in ("case", "minigrad", "PyTorch", "NumPy by hand", "ratio", "target"):
        table.add_column(col, justify="right")
    for r in result["rows"]:
        u = r["unit"]
        ok = "green" if r["met"] else "red"
        ratio = f"{r['ratio']:.2f}x" + (f" ({r['ratio_numpy']:.2f}x)" if "ratio_numpy" in r
                                        else "")
        target = f"<= {r['target']:.1f}x" + (f" (<= {r['target_numpy']:.1f}x)"
                                             if "target_numpy" in r else "")
        table.add_row(r["case"], f"{r['minigrad']:.2f} {u}", f"{r['torch']:.2f} {u}",
                      f"{r['numpy']:.2f} {u}" if "numpy" in r else "",
                      f"[{ok}]{ratio}[/]", target)
    Console(width=max(Console().width, 130)).print(table)


def markdown(results: list) -> str:
    """The tables of ``results`` as Markdown, each with its caption."""
    from benchmarks.suite import markdown_table

    parts = []
    for res in results:
        m = res["machine"]
        env = ", ".join(f"{k}={v}" for k, v in m["env"].items() if v is not None) or "none"
        parts.append(f"**{res['threads']}**, median of {res['repeat']} runs "
                     f"({res.get('clock', 'wall clock')}); {m['cpu']} "
                     f"({m['cores']} cores), Python {m['python']}, NumPy {m['numpy']}, "
                     f"PyTorch {m['torch']}; environment: {env}.\n\n"
                     + markdown_table(res["rows"]))
    return "\n\n".join(parts) + "\n"


def main(argv=None) -> int:
    """Parse arguments, run the chosen suite, print the tables, write JSON / Markdown."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", choices=("issue9", "train"), default="issue9")
    parser.add_argument("--repeat", type=int, default=None,
                        help="timed runs per case (default: 50 for issue9, 30 for train)")
    parser.add_argument("--threads", type=int, default=None,
                        help="run one table with N threads (0: default threads)")
    parser.add_argument("--only", nargs="*", help="issue9 case keys: chain mlp cnn conv2d "
                        "make_dot lstm cnn_bn transformer mlp_memory")
    parser.add_argument("--out", help="issue9: write benchmarks.json and benchmarks_table.md "
                        "into this folder")
    parser.add_argument("--json", help="write the results to this JSON file")
    parser.add_argument("--cpu-time", action="store_true",
                        help="issue9: time with the process's CPU time instead of the wall clock "
                        "(for a machine shared with other processes)")
    args = parser.parse_args(argv)
    if args.cpu_time:
        import benchmarks.suite

        benchmarks.suite.TIMER = time.process_time
    if args.suite == "train":
        return main_train(args)
    repeat = args.repeat or 50
    if args.threads is not None:
        results = [run_issue9(repeat, args.threads, args.only)]
    else:
        results = [run_issue9(repeat, 1, args.only)]
        with tempfile.TemporaryDirectory() as tmp:
            child = os.path.join(tmp, "default.json")
            env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
            cmd = [sys.executable, "-m", "benchmarks", "--threads", "0", "--repeat",
                   str(repeat), "--json", child] + (["--only", *args.only] if args.only else []) \
                + (["--cpu-time"] if args.cpu_time else [])
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
            with open(child) as f:
                results += json.load(f)
    for res in results:
        print_table(res)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "benchmarks.json"), "w") as f:
            json.dump(results, f, indent=2)
        with open(os.path.join(args.out, "benchmarks_table.md"), "w") as f:
            f.write(markdown(results))
    return 0


def main_train(args) -> int:
    """Issue 2's training-step cases, one table."""
    repeat = args.repeat or 30
    rows = run(repeat, args.threads or 1)
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"minigrad vs PyTorch CPU ({args.threads or 1} thread(s), "
                        f"{platform.processor() or platform.machine()}, median of {repeat})")
    for col in ("case", "minigrad ms", "torch ms", "ratio", "target"):
        table.add_column(col, justify="right")
    for r in rows:
        ok = "green" if r["ratio"] <= r["target"] else "red"
        table.add_row(r["case"], f"{r['minigrad_ms']:.2f}", f"{r['torch_ms']:.2f}",
                      f"[{ok}]{r['ratio']:.2f}x[/]", f"<= {r['target']:.1f}x")
    Console().print(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
