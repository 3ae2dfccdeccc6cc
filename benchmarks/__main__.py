"""``python -m benchmarks``: time training steps in minigrad and PyTorch CPU, print ratios.

Cases (issue 2): one SGD-momentum training step of the demo CNN (batch 64) and of a
64-128-128-10 MLP (batch 128). Both libraries run in this process with one thread
(``--threads`` to change); the median of ``--repeat`` timed steps is reported after warm-up.
Speed is reported, never asserted: this is not a test.
"""

from __future__ import annotations

import argparse
import os
import sys

if __name__ == "__main__":
    _threads = "1"
    for i, a in enumerate(sys.argv):
        if a == "--threads" and i + 1 < len(sys.argv):
            _threads = sys.argv[i + 1]
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, _threads)  # must happen before NumPy is imported

import json  # noqa: E402
import platform  # noqa: E402
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


def main(argv=None) -> int:
    """Parse arguments, run the cases, print a table (and JSON with ``--json``)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    rows = run(args.repeat, args.threads)
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"minigrad vs PyTorch CPU ({args.threads} thread(s), "
                        f"{platform.processor() or platform.machine()}, median of {args.repeat})")
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
