"""Cost of ``minigrad doctor``: one diagnosed step of the demo CNN vs one plain training step.

Not a test: prints the median time of a plain step (forward, cross-entropy, backward) and of
``diagnose`` on the same model, input and loss, and their ratio (target: < 3x), in minigrad and
in PyTorch. The doctor runs the step once with every tool listening (registration recorder,
cut recorder, gradient monitor); it re-runs the step only for a NaN/Inf or an in-place error,
which a healthy model does not have. Each pair is timed ``--rounds`` times, alternating, and
the best median of each is kept (the machine may be busy).

Run: ``python -m benchmarks.bench_doctor [--repeat 20] [--rounds 3]`` from the repository root.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one thread for both libraries (fair timing)

import numpy as np  # noqa: E402


def _case(lib, batch=64):
    from minigrad.demo import build_cnn

    lib.manual_seed(0)
    model = build_cnn(lib)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((batch, 1, 8, 8)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, batch))
    return model, x, y, lib.nn.functional.cross_entropy


def _median(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(lib, repeat: int = 20, rounds: int = 3) -> tuple:
    """``(plain step seconds, diagnosed step seconds)`` for the demo CNN in ``lib``."""
    from minigrad.debug.doctor import diagnose

    model, x, y, loss_fn = _case(lib)

    def plain():
        model.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()

    def doctor():
        diag = diagnose(model, x, y, loss_fn)
        assert diag.healthy, diag.problems

    plain(), doctor()  # warm up
    best_plain = best_doctor = float("inf")
    for _ in range(rounds):
        best_plain = min(best_plain, _median(plain, repeat))
        best_doctor = min(best_doctor, _median(doctor, repeat))
    return best_plain, best_doctor


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    import torch

    import minigrad

    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    print(f"{'library':10} {'plain step':>12} {'doctor':>12} {'ratio':>7}")
    for lib in (minigrad, torch):
        plain, doctor = measure(lib, args.repeat, args.rounds)
        print(f"{lib.__name__:10} {plain * 1e3:10.2f}ms {doctor * 1e3:10.2f}ms "
              f"{doctor / plain:6.2f}x")


if __name__ == "__main__":
    main()
