"""Peak memory of a training step, minigrad vs PyTorch CPU.

``python -m benchmarks.bench_memory [--steps N] [--out FILE.json]``

Each (library, model) pair runs in a fresh process with one thread: import the library, note
the resident set size (``VmRSS``), reset the kernel's peak counter (``/proc/self/clear_refs``),
build the model, the optimizer and a batch, run ``N`` SGD-momentum steps (the demo's
``train_step``, the same code for both libraries), then read the peak (``VmHWM``). The table
reports that peak above the post-import baseline: parameters, gradients, optimizer state, the
batch and the largest working set of one step (activations, saved tensors, gradients in
flight). For minigrad it also reports tracemalloc's peak of one step after warm-up (NumPy
buffers are traced), i.e. the memory a step allocates on top of what lives between steps.

Linux only (``/proc``). Numbers are reported, never asserted: this is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

MODELS = {"mlp": "64-128-128-10 MLP, batch 128", "cnn": "demo CNN (1x8x8 digits), batch 64"}


def _status(field: str) -> int:
    """A ``/proc/self/status`` field in KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def measure(lib_name: str, model: str, steps: int) -> dict:
    """Run in a fresh process: the peak RSS above the post-import baseline and the step peak
    of one warmed-up step (KiB)."""
    import importlib

    import numpy as np

    lib = importlib.import_module(lib_name)
    if lib_name == "torch":
        lib.set_num_threads(1)
    from benchmarks.__main__ import build_mlp
    from minigrad.demo import build_cnn, train_step

    baseline = _status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    rng = np.random.default_rng(0)
    if model == "mlp":
        net, x = build_mlp(lib), rng.standard_normal((128, 64)).astype(np.float32)
        y = rng.integers(0, 10, 128)
    else:
        net, x = build_cnn(lib), rng.standard_normal((64, 1, 8, 8)).astype(np.float32)
        y = rng.integers(0, 10, 64)
    opt = lib.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    for _ in range(steps):
        train_step(lib, net, opt, x, y)
    out = {"lib": lib_name, "model": model, "steps": steps,
           "peak_rss_kib": _status("VmHWM") - baseline}
    step = lambda: train_step(lib, net, opt, x, y)  # noqa: E731
    out["step_peak_kib"] = (_traced_step_peak(step) if lib_name == "minigrad" else
                            _torch_step_peak(step)) // 1024
    return out


def _traced_step_peak(step) -> int:
    """Bytes: tracemalloc's peak during one step above what was live before it."""
    import tracemalloc

    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    step()
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    return peak


def _torch_step_peak(step) -> int:
    """Bytes: the largest sum of tensor allocations minus frees during one step, from the
    profiler's memory timeline (the same quantity as :func:`_traced_step_peak`)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                 with_stack=True) as prof:
        step()
    cur = peak = 0
    for _, action, _, size in prof._memory_profile().timeline:
        if action.name == "CREATE":
            cur += size
        elif action.name == "DESTROY":
            cur -= size
        peak = max(peak, cur)
    return peak


def run(steps: int) -> list:
    """Every (library, model) pair, each in a child process with one thread."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    rows = []
    for model in MODELS:
        for lib in ("minigrad", "torch"):
            code = ("import json, sys; from benchmarks.bench_memory import measure; "
                    f"print(json.dumps(measure({lib!r}, {model!r}, {steps})))")
            res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, check=True)
            rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
    return rows


def table(rows: list) -> str:
    lines = ["| model | step peak: minigrad | PyTorch | ratio | peak RSS: minigrad | PyTorch |",
             "|---|---|---|---|---|---|"]
    for model, desc in MODELS.items():
        m = next(r for r in rows if r["lib"] == "minigrad" and r["model"] == model)
        t = next(r for r in rows if r["lib"] == "torch" and r["model"] == model)
        ratio = m["step_peak_kib"] / max(t["step_peak_kib"], 1)
        lines.append(f"| {desc} | {m['step_peak_kib']} KiB | {t['step_peak_kib']} KiB | "
                     f"{ratio:.2f}x | {m['peak_rss_kib'] / 1024:.1f} MiB | "
                     f"{t['peak_rss_kib'] / 1024:.1f} MiB |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--out", help="write the rows as JSON to this file")
    args = ap.parse_args(argv)
    rows = run(args.steps)
    print(table(rows))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
