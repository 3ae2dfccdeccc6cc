"""Checks shared by the issue-19 op tables (``test_ops_*_more.py``, ``test_ops_sort.py``):
second-order gradients, in-place variants and view semantics, each a scenario written once as a
function of the library and compared with ``compare`` (expected values from live PyTorch)."""

from __future__ import annotations

import numpy as np

from minigrad.parity import compare, graph_trace, run_both, to_numpy

from ._opcheck import In, make_leaf


def _leaves(lib, specs, dtype="float64", device="cpu", seed=0):
    rng = np.random.default_rng(seed)
    return [make_leaf(lib, s.array(rng, dtype), s, device) for s in specs]


def second_order_scenario(lib, fn, specs, device="cpu"):
    """First gradients with ``create_graph=True`` and the gradients of ``sum(g * g * w)``."""
    leaves = _leaves(lib, specs, device=device)
    out = fn(lib, *leaves)
    out = out[0] if isinstance(out, (tuple, list)) else out
    w = lib.tensor(np.random.default_rng(5).standard_normal(tuple(out.shape)), device=device)
    diff = [t for t in leaves if t.requires_grad]
    gs = lib.autograd.grad((out * w).sum(), diff, create_graph=True, allow_unused=True)
    used = [(t, g) for t, g in zip(diff, gs) if g is not None and g.requires_grad]
    trace = {"g": [None if g is None else to_numpy(g) for g in gs]}
    if used:
        total = sum(((g * g) * (k + 1)).sum() for k, (_, g) in enumerate(used))
        hs = lib.autograd.grad(total, diff, allow_unused=True)
        trace["h"] = [None if h is None else to_numpy(h) for h in hs]
    return trace


def check_second_order(fn, specs, device="cpu"):
    a, b = run_both(second_order_scenario, fn, specs, device=device)
    compare(a, b, rtol=1e-9, atol=1e-10)


def inplace_scenario(lib, fn, specs, device="cpu"):
    """``fn(lib, h, *others)`` modifies ``h = leaf * 1`` in place: value, ``_version``, the
    grad_fn name, the graph, gradients of the leaves; then the same op on the leaf itself (the
    leaf error) and under no_grad on a detached copy (value, version)."""
    leaves = _leaves(lib, specs, device=device)
    x, others = leaves[0], leaves[1:]
    h = x * 1
    v0 = h._version
    r = fn(lib, h, *others)
    trace = {"same": r is h, "value": to_numpy(h), "bump": h._version - v0,
             "name": None if h.grad_fn is None else h.grad_fn.name(),
             "graph": graph_trace(h) if h.grad_fn is not None else None}
    w = lib.tensor(np.random.default_rng(3).standard_normal(tuple(h.shape)), device=device)
    (h * w).sum().backward()
    trace["grads"] = [None if t.grad is None else to_numpy(t.grad) for t in leaves]
    try:
        fn(lib, x, *others)
        trace["leaf"] = None
    except RuntimeError as e:
        trace["leaf"] = ("RuntimeError", "leaf Variable that requires grad" in str(e))
    d = x.detach().clone()
    with lib.no_grad():
        fn(lib, d, *[o.detach() for o in others])
    trace["nograd"] = (to_numpy(d), d._version)
    return trace


def check_inplace(fn, specs, device="cpu"):
    a, b = run_both(inplace_scenario, fn, specs, device=device)
    compare(a, b, rtol=1e-10, atol=1e-12)
    return a, b


def view_scenario(lib, fn, spec, device="cpu"):
    """``fn(lib, base)`` returns a view of a non-leaf ``base``: ``_is_view``, ``_base`` is
    ``base``, shared storage and version; then an in-place op through the view, the base's
    history (CopySlices) and the leaf's gradient."""
    (x,) = _leaves(lib, [spec], device=device)
    base = x * 1
    v = fn(lib, base)
    trace = {"is_view": v._is_view(), "base_ok": v._base is base, "name": v.grad_fn.name(),
             "graph": graph_trace(v), "value": to_numpy(v)}
    before = base._version
    v.mul_(2)
    trace["versions"] = (base._version - before, v._version - before)
    trace["base_value"] = to_numpy(base)
    trace["base_fn"] = base.grad_fn.name()
    w = lib.tensor(np.random.default_rng(4).standard_normal(tuple(base.shape)), device=device)
    (base * w).sum().backward()
    trace["grad"] = to_numpy(x.grad)
    return trace


def check_view(fn, spec, device="cpu"):
    a, b = run_both(view_scenario, fn, spec, device=device)
    compare(a, b, rtol=1e-10, atol=1e-12)


__all__ = ["In", "check_inplace", "check_second_order", "check_view"]
