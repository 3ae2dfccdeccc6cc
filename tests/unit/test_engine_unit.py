"""Unit tests of minigrad's engine mechanics (no PyTorch): dependency counting, the ready
queue, sequence numbers, version-counter sharing, saved-tensor release, reference cycles,
recursion-free traversal, pruning with ``inputs=``, grad mode restored on errors."""

import gc
import sys
import threading
import weakref

import numpy as np
import pytest

import minigrad
from minigrad.autograd import engine, grad_mode
from minigrad.autograd.graph import EXEC_INFO, UINT64_MAX, AccumulateGrad


def leaf(values=(1.0, 2.0)):
    return minigrad.tensor(list(values), requires_grad=True)


def test_shared_node_runs_once_after_all_producers():
    x = leaf()
    h = x * 3
    calls = []
    h.grad_fn.register_prehook(lambda go: calls.append(go[0].tolist()))
    (h.exp() + h.sin() + h * 2).sum().backward()
    assert len(calls) == 1  # ran once, with the three contributions summed
    hv = (x * 3).detach().numpy()
    np.testing.assert_allclose(calls[0], np.exp(hv) + np.cos(hv) + 2, rtol=1e-6)


def test_dependency_counts_and_reachable():
    x = leaf()
    h = x * 2
    y = h + h  # two edges from the same node to h's node
    deps, seen = engine._reachable([y.grad_fn])
    assert deps[h.grad_fn] == 2
    assert deps[h.grad_fn.next_functions[0][0]] == 1
    assert y.grad_fn in seen and len(seen) == 3


def test_sequence_numbers_increase_and_accumulate_grad_takes_none():
    x = leaf()
    a = x * 2
    acc = a.grad_fn.next_functions[0][0]
    b = a + 1
    assert isinstance(acc, AccumulateGrad) and acc._sequence_nr() == UINT64_MAX
    assert b.grad_fn._sequence_nr() == a.grad_fn._sequence_nr() + 1
    y = minigrad.tensor([1.0], requires_grad=True)  # a new leaf's accumulator ...
    c = y * 1  # ... is created here but does not use a number
    assert c.grad_fn._sequence_nr() == b.grad_fn._sequence_nr() + 1


def test_accumulate_grad_reused_while_alive_then_recreated():
    x = leaf()
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    assert (x + 1).grad_fn.next_functions[0][0] is acc
    ref = weakref.ref(acc)
    del y, acc
    gc.collect()
    assert ref() is None  # nothing keeps it: the leaf holds it only weakly
    assert (x * 1).grad_fn.next_functions[0][0].variable is x


def test_graph_freed_by_refcount_without_gc():
    x = leaf()
    gc.disable()
    try:
        y = (x.exp() * x).sigmoid()
        nodes = [weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.next_functions[0][0])]
        del y
        assert all(r() is None for r in nodes)  # no reference cycles through saved outputs
    finally:
        gc.enable()


def test_saved_values_released_after_backward():
    x = leaf()
    y = x.exp()
    sv = y.grad_fn._raw_saved_result
    y.sum().backward()
    assert sv._freed and sv._data is None
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        sv.unpack()


def test_version_counter_objects_shared_by_views_not_data():
    b = minigrad.zeros(3, 4)
    views = [b[0], b.t(), b[:, 1:], b.view(12), b.detach(), b.unsqueeze(0)]
    assert all(v._vc is b._vc for v in views)
    assert b.data._vc is not b._vc
    assert all(v._base is b for v in views if v._is_view())
    assert b[0][1:]._base is b  # a view of a view points at the root base


def test_engine_is_iterative_under_low_recursion_limit():
    x = leaf([1.0])
    h = x
    for _ in range(3000):
        h = h.tanh() * 1.0 + h * 0.0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100)
    try:
        h.sum().backward()
        del h
    finally:
        sys.setrecursionlimit(limit)
    assert x.grad is not None


def test_inputs_prunes_branches_that_do_not_lead_to_inputs():
    a, b = leaf(), leaf()
    ran = []
    left = a.exp()
    right = b.sin()
    left.grad_fn.register_prehook(lambda go: ran.append("exp"))
    right.grad_fn.register_prehook(lambda go: ran.append("sin"))
    (left * right).sum().backward(inputs=[a])
    assert ran == ["exp"]
    assert b.grad is None and a.grad is not None


@pytest.mark.filterwarnings("ignore:Using backward")
def test_grad_mode_restored_when_a_hook_raises():
    x = leaf()

    def boom(g):
        raise ValueError("boom")

    x.register_hook(boom)
    with pytest.raises(ValueError):
        (x * 2).sum().backward(create_graph=False)
    assert grad_mode.is_grad_enabled()
    y = (x * 2).sum()
    with minigrad.no_grad():
        with pytest.raises(ValueError):
            y.backward(create_graph=True)  # the engine turns grad mode on while it runs
        assert not grad_mode.is_grad_enabled()
    assert grad_mode.is_grad_enabled()


def test_copy_slices_positions_for_non_contiguous_base():
    x = minigrad.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4), requires_grad=True)
    b = x.t() * 1  # a fresh contiguous array in minigrad, whatever its history
    b._data = np.asfortranarray(b._data)  # force a non-C-contiguous storage
    b[1, 1:] = 0.0
    b.sum().backward()
    expected = np.ones((3, 4), dtype=np.float32)
    expected[1:, 1] = 0
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_inputs_pruning_state_is_per_thread():
    """What a backward with ``inputs=`` computes for (the engine's ``EXEC_INFO.needed``, read by
    ``Node._should_compute_output``) belongs to its thread: a backward running in another thread
    at the same time sees only its own (here: none, everything runs)."""
    seen = {}

    def other_thread():
        seen["other"] = EXEC_INFO.needed

    def hook(g):
        seen["own"] = EXEC_INFO.needed is not None
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        return g

    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor([3.0], requires_grad=True)
    y = a * 2
    y.register_hook(hook)
    (y.sum() + b.sum()).backward(inputs=[a])
    assert seen == {"own": True, "other": None}
    assert a.grad.tolist() == [2.0, 2.0] and b.grad is None
