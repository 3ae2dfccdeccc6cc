"""Memory: graphs are freed by reference counting alone, and training keeps memory flat.

Reference counting: each scenario runs with the cyclic garbage collector disabled, returns
weak references to every tensor and node it made (except the leaves it keeps), and once it
returns they must all be dead; ``gc.collect()`` must then find nothing unreachable (no
reference cycle between tensors, nodes, saved tensors and hooks). Training: 10,000 steps of
the demo MLP (64-128-128-10, batch 8) do not grow the number of live Python memory blocks,
and tracemalloc sees no growth of NumPy-buffer memory over a shorter traced run (tracing
makes a step about ten times slower).
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
import weakref

import numpy as np
import pytest

import minigrad
from minigrad.demo import train_step

nn = minigrad.nn
F = nn.functional


def refs_of(*tensors) -> list:
    """Weak references to the tensors and to every node of their graphs."""
    out, seen, stack = [], set(), []
    for t in tensors:
        out.append(weakref.ref(t))
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        out.append(weakref.ref(n))
        stack.extend(c for c, _ in n.next_functions if c is not None)
    return out


def mlp_step(x):
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    h = m[0](x)
    h.retain_grad()
    out = m[2](m[1](h))
    loss = F.cross_entropy(out, minigrad.tensor([0, 1, 2, 0, 1]))
    loss.backward()
    return refs_of(loss, out, h) + [weakref.ref(m), weakref.ref(m[0].weight)]


def retained_graph(x):
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    return refs_of(y)


def graph_never_backwarded(x):
    y = x.tanh().sigmoid() @ x.t()
    return refs_of(y)


def hooks(x):
    y = x * 2
    log = []
    y.register_hook(lambda g: log.append(g.sum().item()))
    y.grad_fn.register_hook(lambda gi, go: None)
    y.grad_fn.register_prehook(lambda go: None)
    z = y.relu().sum()
    z.backward()
    return refs_of(z, y)


def module_hooks(x):
    m = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
    m.register_forward_hook(lambda mod, i, o: None)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    m[0].register_forward_pre_hook(lambda mod, i: None)
    out = m(x).sum()
    out.backward()
    return refs_of(out) + [weakref.ref(m)]


def inplace_and_views(x):
    h = x * 1
    v = h[1:3]
    v.mul_(2)  # CopySlices on h, AsStridedBackward0 on v
    h.add_(1)
    w = h.t()
    w.exp_()
    s = (h.sum() + v.sum())
    s.backward()
    return refs_of(s, h, v, w)


def saved_outputs(x):
    y = x.sigmoid()  # saves its own output
    z = y.exp().tanh()
    z.sum().backward()
    return refs_of(z, y)


def autograd_grad(x):
    y = (x ** 3).sum()
    (g,) = minigrad.autograd.grad(y, x, create_graph=True)
    (g2,) = minigrad.autograd.grad(g.sum(), x)
    return refs_of(y, g, g2)


def multi_output(x):
    a, b = x.split([2, 3])
    m, i = x.max(1)
    out = (a.sum() + b.exp().sum() + m.sum())
    out.backward()
    return refs_of(out, a, b, m, i)


def conv_pool(x):
    img = x.reshape(1, 1, 5, 4)
    c = nn.Conv2d(1, 2, 2)
    y = F.max_pool2d(c(img).relu(), 2, ceil_mode=True)
    y.sum().backward()
    return refs_of(y) + [weakref.ref(c)]


SCENARIOS = [mlp_step, retained_graph, graph_never_backwarded, hooks, module_hooks,
             inplace_and_views, saved_outputs, autograd_grad, multi_output, conv_pool]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_graph_freed_by_refcount(scenario):
    x = minigrad.tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32),
                        requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        refs = scenario(x)
        alive = [r() for r in refs if r() is not None]
        assert not alive, f"still alive without the cyclic GC: {[type(a).__name__ for a in alive]}"
        left = minigrad_garbage()
        assert not left, f"reference cycles were left for the cyclic GC: {left}"
    finally:
        gc.enable()


def minigrad_garbage() -> list:
    """Type names of the objects in reference cycles that the cyclic GC finds now and that are
    minigrad's (tensors, nodes, saved tensors) or this module's (the scenarios' closures).

    Not ``gc.collect() == 0``: a graph of an earlier *PyTorch* test in the same worker (a node
    whose hook refers to the node, a cycle through C++) may be released during a scenario, and
    its objects then count too, depending on which tests ran before."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        left = [o for o in gc.garbage if type(o).__module__.startswith("minigrad")
                or getattr(o, "__module__", None) == __name__]
        return sorted({type(o).__name__ for o in left})
    finally:
        gc.garbage.clear()
        gc.set_debug(0)


def test_create_graph_cycle_is_broken_by_resetting_grad():
    """``backward(create_graph=True)`` makes ``x.grad`` hold a graph that holds ``x`` (the
    cycle PyTorch warns about); setting ``x.grad = None`` breaks it, as PyTorch says."""
    import warnings

    gc.collect()
    gc.disable()
    try:
        x = minigrad.ones(3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x ** 3).sum().backward(create_graph=True)
        node = weakref.ref(x.grad.grad_fn)
        x.grad = None
        assert node() is None
        ref = weakref.ref(x)
        del x
        assert ref() is None
        assert not minigrad_garbage()
    finally:
        gc.enable()


def demo_mlp():
    minigrad.manual_seed(0)
    m = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                      nn.Linear(128, 10))
    opt = minigrad.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 64)).astype(np.float32)
    y = rng.integers(0, 10, 8)
    return lambda: train_step(minigrad, m, opt, x, y)


@pytest.mark.slow
def test_10000_training_steps_keep_memory_flat():
    """10,000 steps of the demo MLP with the cyclic GC off: the number of live Python memory
    blocks (every tensor, node and NumPy array object is one or more) does not grow over the
    last 5,000 (the first few thousand steps fill the interpreter's own caches once, about
    6,000 blocks, then nothing changes; a leak of one object per step would add 5,000)."""
    step = demo_mlp()
    for _ in range(200):  # momentum buffers: the steady state
        step()
    gc.collect()
    gc.disable()
    try:
        for _ in range(5_000):
            step()
        start = sys.getallocatedblocks()
        for _ in range(5_000):
            step()
        grown = sys.getallocatedblocks() - start
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert grown < 100, f"{grown} more live memory blocks over 5,000 steps"
    assert unreachable == 0, "training steps left reference cycles"


def _large_traced_bytes(min_size: int = 256) -> int:
    """Bytes in traced blocks of at least ``min_size`` bytes: NumPy buffers, not the small
    objects CPython keeps on its free lists (tuples, floats) after their first use."""
    return sum(t.size for t in tracemalloc.take_snapshot().traces if t.size >= min_size)


def test_training_steps_traced_memory_flat():
    """tracemalloc over 300 steps after warm-up: the memory in NumPy-buffer-sized blocks stays
    where it was (one leaked gradient or activation per step would add megabytes)."""
    step = demo_mlp()
    for _ in range(50):
        step()
    tracemalloc.start()
    try:
        step()
        base = _large_traced_bytes()
        for _ in range(300):
            step()
        grown = _large_traced_bytes() - base
    finally:
        tracemalloc.stop()
    assert grown < 16 * 1024, f"traced memory grew by {grown} bytes over 300 steps"
