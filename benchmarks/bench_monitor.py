"""Cost of watching gradients: a training step with ``GradientFlowMonitor`` attached vs without.

Not a test: prints the median step time without and with the monitor and their ratio (target:
<= 1.5x), in minigrad and in PyTorch, for the cases of ``python -m benchmarks`` (the demo CNN,
batch 64; a 64-128-128-10 MLP, batch 128) and a larger MLP (784-512-512-10, batch 128). A step
is forward, cross-entropy, backward and an SGD update; the monitor watches every module and
every parameter, in its default mode (``auto``: full backward hooks where the module has them,
else tensor hooks) and in ``mode="tensor"``. The row "no-op full hooks" shows what the
library's own full backward hooks cost with hooks that do nothing: the floor for any tool built
on them. Each pair is timed ``--rounds`` times, alternating, and the best of each is kept (the
machine may be busy).

Run: ``python -m benchmarks.bench_monitor [--repeat 30] [--rounds 3]`` from the repository
root.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one thread for both libraries (fair timing)

import numpy as np  # noqa: E402


def mlp_small(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def mlp_large(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10))


def demo_cnn(lib):
    from minigrad.demo import build_cnn

    return build_cnn(lib)


CASES = {"demo CNN (b64)": (demo_cnn, (64, 1, 8, 8)),
         "MLP 64-128-128-10 (b128)": (mlp_small, (128, 64)),
         "MLP 784-512-512-10 (b128)": (mlp_large, (128, 784))}


def make_step(lib, build, shape):
    """``(model, step)``: one SGD training step of ``build(lib)`` on fixed random data."""
    lib.manual_seed(0)
    model = build(lib)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(shape).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, shape[0]))
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return model, step


def median_time(fn, repeat: int) -> float:
    """Median seconds of ``repeat`` calls (after three warm-up calls)."""
    for _ in range(3):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


class _NoopHooks:
    """Full backward hooks that do nothing, on every module: the cost of the mechanism."""

    def __init__(self, model):
        self.handles = [m.register_full_backward_hook(lambda *a: None) for m in model.modules()]

    def detach(self):
        for h in self.handles:
            h.remove()


def main(argv=None) -> list:
    """Print one line per (library, case, variant); returns rows
    ``(library, case, variant, ms without, ms with, ratio)``."""
    import minigrad
    from minigrad.debug import GradientFlowMonitor

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    libs = [minigrad]
    try:
        import torch

        torch.set_num_threads(1)
        libs.append(torch)
    except ImportError:
        print("torch not installed: minigrad only")
    warnings.simplefilter("ignore")  # torch: "Full backward hook is firing ..." (expected)
    rows = []
    print(f"{'library':<9} {'case':<26} {'variant':<17} {'step ms':>8} {'watched ms':>11} "
          f"{'ratio':>6}")
    for lib in libs:
        for case, (build, shape) in CASES.items():
            model, step = make_step(lib, build, shape)
            variants = {"monitor (auto)": lambda m=model: GradientFlowMonitor(m).attach(),
                        "monitor (tensor)": lambda m=model: GradientFlowMonitor(
                            m, mode="tensor").attach()}
            if hasattr(model, "register_full_backward_hook"):
                variants["no-op full hooks"] = lambda m=model: _NoopHooks(m)
            for variant, attach in variants.items():
                plain, watched = [], []
                for _ in range(args.rounds):  # alternate, keep the best: robust to a busy box
                    plain.append(median_time(step, args.repeat))
                    attached = attach()
                    watched.append(median_time(step, args.repeat))
                    attached.detach()
                row = (lib.__name__, case, variant, min(plain), min(watched),
                       min(watched) / min(plain))
                rows.append(row)
                print(f"{row[0]:<9} {row[1]:<26} {row[2]:<17} {row[3] * 1e3:>8.2f} "
                      f"{row[4] * 1e3:>11.2f} {row[5]:>5.2f}x")
    ours = [r for r in rows if r[2].startswith("monitor")]
    over = [r for r in ours if r[5] > 1.5]
    print(f"target <= 1.5x: {len(ours) - len(over)} of {len(ours)} monitor rows within it"
          + ("" if not over else "; over: " + ", ".join(f"{r[0]} {r[1]} {r[2]} {r[5]:.2f}x"
                                                         for r in over)))
    return rows


if __name__ == "__main__":
    main()
