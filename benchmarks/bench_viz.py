"""Time building the ``Digraph`` of a 100-layer MLP graph: minigrad's ``make_dot`` vs torchviz.

Not a test: prints timings and ratios (target: minigrad's ``make_dot`` on the PyTorch graph
takes at most as long as ``torchviz.make_dot`` on the same graph). The graph is
``Sequential(100 x (Linear(16, 16), ReLU()))`` applied to a (4, 16) input: about 600 backward
nodes and 200 parameters. Only the building of the DOT statements is timed, not rendering.

Run: ``python -m benchmarks.bench_viz [--layers 100] [--repeat 20]`` from the repository root
(or ``python benchmarks/bench_viz.py`` with minigrad installed).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings


def build(lib, layers: int):
    """Output and named parameters of the MLP in ``lib`` (minigrad or torch)."""
    nn = lib.nn
    lib.manual_seed(0)
    mods = []
    for _ in range(layers):
        mods += [nn.Linear(16, 16), nn.ReLU()]
    model = nn.Sequential(*mods)
    return model(lib.randn(4, 16)), dict(model.named_parameters())


def timeit(fn, repeat: int) -> float:
    """Median seconds of ``repeat`` calls (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)

    import torch

    import minigrad
    from minigrad.viz import make_dot

    warnings.filterwarnings("ignore", category=DeprecationWarning)  # torchviz imports distutils
    try:
        import torchviz
    except ImportError:
        torchviz = None

    t_out, t_params = build(torch, args.layers)
    m_out, m_params = build(minigrad, args.layers)
    print(f"{args.layers}-layer MLP, median of {args.repeat} runs "
          f"({len(make_dot(t_out, params=t_params).body)} DOT statements)")
    rows = []
    for opts in ({}, {"show_saved": True, "show_attrs": True}):
        label = ", ".join(f"{k}=True" for k in opts) or "default"
        ours_t = timeit(lambda o=opts: make_dot(t_out, params=t_params, **o), args.repeat)
        ours_m = timeit(lambda o=opts: make_dot(m_out, params=m_params, **o), args.repeat)
        ref = (timeit(lambda o=opts: torchviz.make_dot(t_out, params=t_params, **o), args.repeat)
               if torchviz else float("nan"))
        rows.append((label, ref, ours_t, ours_m))
    print(f"{'options':<32}{'torchviz':>12}{'make_dot torch':>16}{'ratio':>8}"
          f"{'make_dot minigrad':>19}")
    for label, ref, ours_t, ours_m in rows:
        print(f"{label:<32}{ref * 1e3:>10.2f}ms{ours_t * 1e3:>14.2f}ms{ours_t / ref:>7.2f}x"
              f"{ours_m * 1e3:>17.2f}ms")
    if torchviz is None:
        print("torchviz is not installed (pip install torchviz): no reference timings")


if __name__ == "__main__":
    main()
