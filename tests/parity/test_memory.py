"""Memory: saved tensors are released by a non-retaining backward, and graphs die by reference
counting alone (no reference cycles), so training does not grow memory.

The freeing scenarios run on minigrad and torch (a weak reference to an intermediate tensor that
only the graph keeps alive). The training-loop checks are minigrad-only: they measure minigrad's
own objects with ``gc`` disabled, so anything kept alive by a reference cycle would show up.
"""

import functools
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, capture_error

X = np.linspace(-1.0, 1.0, 1000, dtype=np.float32)


def _read_saved_self(out):
    return out.grad_fn.next_functions[0][0]._saved_self  # SinBackward0's input


def _freeing_trace(lib, retain: bool):
    x = lib.tensor(X, requires_grad=True)
    h = x.exp()  # saved by SinBackward0 (as input) and ExpBackward0 (as result)
    ref = weakref.ref(h)
    z = h.sin().sum()
    del h
    out = {"alive_before": ref() is not None}
    z.backward(retain_graph=retain)
    out["alive_after_backward"] = ref() is not None
    out["saved_access"] = capture_error(functools.partial(_read_saved_self, z))
    del z
    out["alive_after_del_output"] = ref() is not None
    if out["saved_access"] is not None:
        out["saved_access"] = (out["saved_access"][0],
                               "backward through the graph a second time" in out["saved_access"][1])
    return out


@pytest.mark.parametrize("retain", [False, True])
def test_saved_tensor_released_by_backward(retain):
    assert_parity(_freeing_trace, retain)


def test_saved_arrays_freed_right_after_backward():
    """The NumPy arrays a graph saved are collectable as soon as ``backward()`` returns."""
    x = minigrad.tensor(X, requires_grad=True)
    h = x.exp()
    e = h * h  # MulBackward0 saves h twice (self, other)
    out = (e.tanh() * 3).sum()  # TanhBackward0 saves its result
    refs = [weakref.ref(h._data), weakref.ref(e.tanh()._data)]
    saved_result = out.grad_fn.next_functions[0][0].next_functions[0][0]._raw_saved_result
    refs.append(weakref.ref(saved_result._data))
    del h, e, saved_result
    assert all(r() is not None for r in refs[::2])
    out.backward()
    assert [r() for r in refs] == [None, None, None]


def test_retained_graph_keeps_arrays_until_output_dies():
    x = minigrad.tensor(X, requires_grad=True)
    h = x.exp()
    ref = weakref.ref(h._data)
    out = h.sin().sum()
    del h
    out.backward(retain_graph=True)
    assert ref() is not None
    out.backward()  # the second, non-retaining call frees
    assert ref() is None


def _cyclic_garbage() -> list:
    """Type names of minigrad objects that only the cycle collector could free. (Other objects
    may show up: pytest-xdist's I/O thread runs while ``gc`` is disabled.)"""
    from minigrad.autograd.graph import Node, SavedTensor

    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return [type(o).__name__ for o in gc.garbage
                if isinstance(o, (minigrad.Tensor, Node, SavedTensor))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


class _Square(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        out = a * a
        ctx.save_for_backward(a, out)  # saving an output must not make a cycle
        return out

    @staticmethod
    def backward(ctx, g):
        a, _ = ctx.saved_tensors
        return 2 * a * g


def _graphs(x):
    """Graphs of several kinds: plain ops, in-place rebase, in-place through a view (CopySlices),
    a custom Function, retain_grad, a tensor hook, multi-output views."""
    b = x * 2
    b.add_(1)
    v = b[1:3]
    v.mul_(3)
    c = _Square.apply(b)
    c.retain_grad()
    c.register_hook(lambda g: g * 1)
    parts = c.split(2)
    loss = (parts[0].sum() + parts[1].exp().sum()).relu()
    return loss, c


def test_graphs_die_without_cycles():
    """With ``gc`` disabled, every node and saved array of these graphs is freed by reference
    counting as soon as the user drops the output (before and after backward)."""
    x = minigrad.tensor(np.arange(5, dtype=np.float32) / 5, requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        for run_backward in (False, True):
            loss, c = _graphs(x)
            node_refs = [weakref.ref(loss.grad_fn), weakref.ref(c.grad_fn)]
            if run_backward:
                loss.backward()
                assert c.grad is not None
            del loss, c
            assert [r() for r in node_refs] == [None, None]
        assert _cyclic_garbage() == []  # nothing of ours was left for the cycle collector
    finally:
        gc.enable()


def test_training_loop_memory_is_flat():
    """1,000 SGD steps of a small MLP with ``gc`` disabled: no cyclic garbage at all, and
    traced memory after warm-up stays flat (a leaked graph would cost >10 KB per step)."""
    minigrad.manual_seed(0)
    nn, F = minigrad.nn, minigrad.nn.functional
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = minigrad.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    x = minigrad.tensor(rng.standard_normal((32, 8)).astype(np.float32))
    y = minigrad.tensor(rng.integers(0, 4, 32))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return weakref.ref(loss.grad_fn)

    gc.collect()
    gc.disable()
    try:
        for _ in range(200):
            step()
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            dead = [step()() is None for _ in range(800)]
            growth = tracemalloc.get_traced_memory()[0] - start
        finally:
            tracemalloc.stop()
        assert all(dead)  # each step's graph was gone as soon as step() returned
        assert _cyclic_garbage() == []
    finally:
        gc.enable()
    # Python's free lists (tuples, frames) keep a bounded few hundred KB; one leaked graph per
    # step would be ~10 MB here
    assert growth < 1_000_000, f"traced memory grew by {growth} bytes over 800 steps"
