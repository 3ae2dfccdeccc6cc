"""Parity harness: run one scenario on minigrad and on PyTorch and compare plain-data traces.

A scenario is a function of the library (``lib=minigrad`` or ``lib=torch``) that returns a
*trace*: nested dicts/lists/tuples of str, int, float, bool, None and NumPy arrays. Helpers
here turn tensors and graphs into such data (``to_numpy``, ``graph_trace``) and ``compare``
walks two traces and raises ``AssertionError`` at the first difference, naming its path.
PyTorch is imported lazily (only ``torch_lib()`` imports it).
"""

from __future__ import annotations

import numpy as np

__all__ = ["to_numpy", "graph_nodes", "graph_trace", "compare", "run_both", "torch_lib",
           "node_name", "record_hooks", "compare_traces", "format_trace"]


def torch_lib():
    """Import and return ``torch`` (raises ImportError with the extra to install)."""
    try:
        import torch
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("PyTorch is needed for parity checks: pip install 'minigrad[test]' "
                          "(install the CPU wheel first: pip install torch)") from e
    return torch


def to_numpy(t):
    """A tensor (minigrad or torch, any device) as a NumPy array; None stays None."""
    if t is None:
        return None
    if hasattr(t, "detach"):
        t = t.detach()
    if hasattr(t, "cpu"):
        t = t.cpu()
    if getattr(t, "_is_zerotensor", None) is not None and t._is_zerotensor():
        # PyTorch's "efficient zeros" (e.g. the gradient sgn's backward returns) refuse a plain
        # .numpy(); minigrad has no such tensors, its zeros are ordinary
        return np.array(t.numpy(force=True), copy=True)
    return np.array(t.numpy(), copy=True)


def node_name(node) -> str | None:
    """A node's type name (``type(node).__name__``), or None."""
    return None if node is None else type(node).__name__


def graph_nodes(roots) -> list:
    """Nodes reachable from the nodes ``roots``, in iterative DFS visit order (each once)."""
    order, seen = [], set()
    for root in roots:
        stack = [root]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            order.append(n)
            stack.extend(reversed([c for c, _ in n.next_functions if c is not None]))
    return order


def graph_trace(root) -> list:
    """Canonical description of the backward graph reachable from ``root``.

    ``root`` is a tensor or a node. Nodes are numbered in iterative DFS visit order; each is
    ``(type name, [(child number or None, input_nr), ...])``. Never uses ``id()``, so the same
    walk on minigrad and torch graphs gives comparable lists.
    """
    node = getattr(root, "grad_fn", root)
    order = graph_nodes([node]) if node is not None else []
    index = {n: i for i, n in enumerate(order)}
    return [(type(n).__name__, [(None if c is None else index[c], nr) for c, nr in
                                n.next_functions]) for n in order]


def compare(a, b, path: str = "trace", rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Assert two traces are equal; floats/arrays within tolerance, all else exactly.

    Raises AssertionError naming the first differing path with both values.
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        if a_arr.shape != b_arr.shape:
            raise AssertionError(f"{path}: shape {a_arr.shape} (minigrad) != {b_arr.shape} (torch)")
        if a_arr.dtype.kind in "fc" or b_arr.dtype.kind in "fc":
            if not np.allclose(a_arr, b_arr, rtol=rtol, atol=atol, equal_nan=True):
                diff = np.nanmax(np.abs(a_arr.astype(np.float64) - b_arr.astype(np.float64)))
                raise AssertionError(f"{path}: values differ (max abs diff {diff:.3g})\n"
                                     f"minigrad: {a_arr}\ntorch:    {b_arr}")
        elif not np.array_equal(a_arr, b_arr):
            raise AssertionError(f"{path}: {a_arr} (minigrad) != {b_arr} (torch)")
        return
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            raise AssertionError(f"{path}: keys {list(a)} (minigrad) != {list(b)} (torch)")
        for k in a:
            compare(a[k], b[k], f"{path}[{k!r}]", rtol, atol)
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            raise AssertionError(f"{path}: length {len(a)} (minigrad) != {len(b)} (torch)\n"
                                 f"minigrad: {a}\ntorch:    {b}")
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]", rtol, atol)
        return
    if isinstance(a, float) and isinstance(b, float):
        if not np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            raise AssertionError(f"{path}: {a} (minigrad) != {b} (torch)")
        return
    if a != b:
        raise AssertionError(f"{path}: {a!r} (minigrad) != {b!r} (torch)")


def run_both(scenario, *args, device: str = "cpu", **kwargs):
    """Run ``scenario(lib, *args, **kwargs)`` on minigrad and torch; return both traces.

    The torch side gets ``device=`` in kwargs when the scenario accepts it.
    """
    import inspect

    import minigrad

    torch = torch_lib()
    extra = {"device": device} if "device" in inspect.signature(scenario).parameters else {}
    mg_extra = {"device": "cpu"} if extra else {}
    return (scenario(minigrad, *args, **kwargs, **mg_extra),
            scenario(torch, *args, **kwargs, **extra))


def assert_parity(scenario, *args, rtol=1e-5, atol=1e-6, device: str = "cpu", **kwargs):
    """Run ``scenario`` on both libraries and ``compare`` the traces."""
    a, b = run_both(scenario, *args, device=device, **kwargs)
    compare(a, b, rtol=rtol, atol=atol)
    return a, b


def capture_error(fn):
    """Run ``fn()``; return ``(exception type name, message)`` or None if nothing was raised."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - we record whatever was raised
        return type(e).__name__, str(e)
    return None


from .hooks import compare_traces, format_trace, record_hooks  # noqa: E402 (uses compare above)
