"""Shared machinery for the op parity tables (``test_ops_*.py``, ``test_creation.py``).

One parity case = an op written once as ``fn(lib, *leaves)`` plus input specs (``In``). The
scenario builds the leaves from the same NumPy arrays in both libraries, runs the op, and records:
output values / dtype / shape / requires_grad, the backward graph (``graph_trace``), for every node
of that graph the sorted ``_saved_*`` attribute names and their values (tensors as arrays, the rest
as plain data), then runs ``backward`` with a random upstream gradient and records every leaf's
``.grad`` (None for leaves that do not require grad). The two traces must be equal.
"""

from __future__ import annotations

import contextlib

import numpy as np

from minigrad.parity import compare, graph_trace, run_both, to_numpy
from minigrad.parity import graph_nodes as parity_graph_nodes

TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


class In:
    """Spec of one op input.

    ``shape``; ``grad`` (requires_grad); ``kind``: ``"randn"`` (default), ``"pos"`` (values in
    [0.5, 2]), ``"int"`` (int64 in [-3, 3]), ``"idx"`` (int64 in [0, high)), ``"bool"``, or
    ``"fixed"`` with ``values``; ``dtype`` overrides the case dtype; ``T`` makes the leaf a
    non-contiguous tensor (its last two dims are a transposed view, the leaf itself is detached).
    """

    def __init__(self, *shape, grad=True, kind="randn", dtype=None, T=False, values=None,
                 high=3):
        self.shape, self.grad, self.kind, self.dtype, self.T = shape, grad, kind, dtype, T
        self.values, self.high = values, high

    def array(self, rng, dtype: str) -> np.ndarray:
        shape = self.shape[:-2] + self.shape[-2:][::-1] if self.T else self.shape
        if self.kind == "fixed":
            arr = np.asarray(self.values)
            return arr.astype(self.dtype or (dtype if arr.dtype.kind == "f" else arr.dtype))
        if self.kind == "int":
            return rng.integers(-3, 4, size=shape).astype(self.dtype or "int64")
        if self.kind == "idx":
            return rng.integers(0, self.high, size=shape).astype("int64")
        if self.kind == "bool":
            return rng.random(size=shape) > 0.5
        arr = rng.standard_normal(size=shape)
        if self.kind == "pos":
            arr = rng.uniform(0.5, 2.0, size=shape)
        if self.kind == "unit":  # inside (-1, 1), away from its ends (asin, atanh, ...)
            arr = rng.uniform(-0.9, 0.9, size=shape)
        return arr.astype(self.dtype or dtype)

    def __repr__(self):
        flags = [self.kind] if self.kind != "randn" else []
        flags += ["nograd"] if not self.grad else []
        flags += ["T"] if self.T else []
        flags += [self.dtype] if self.dtype else []
        return "x".join(map(str, self.shape)) + ("" if not flags else "[" + ",".join(flags) + "]")


def make_leaf(lib, arr: np.ndarray, spec: In, device: str):
    """A leaf built from ``arr`` on ``device`` (torch), transposed/detached for ``spec.T``."""
    t = lib.tensor(arr, device=device)
    if spec.T:
        t = t.transpose(-1, -2).detach()
    if spec.grad:
        t.requires_grad_(True)
    return t


def dtype_name(dt) -> str:
    """``torch.float32`` / ``minigrad.float32`` → ``'float32'``."""
    return str(dt).split(".")[-1]


def saved_value(v):
    """A ``_saved_*`` value as plain data: tensors become ``("T", dtype, array)``."""
    if hasattr(v, "detach") and hasattr(v, "shape"):
        return ("T", dtype_name(v.dtype), to_numpy(v))
    if isinstance(v, (list, tuple)):
        return type(v).__name__, [saved_value(x) for x in v]
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    return repr(v)


def saved_names(node) -> list:
    """Sorted ``_saved_*`` attribute names of a node, as ``dir()`` lists them."""
    return sorted(a for a in dir(node) if a.startswith("_saved_"))


def graph_nodes(root) -> list:
    """Nodes reachable from ``root`` (a tensor) in ``graph_trace`` order."""
    node = getattr(root, "grad_fn", root)
    return [] if node is None else parity_graph_nodes([node])


def tensor_trace(t) -> dict:
    """Values and metadata of one tensor (an op output)."""
    return {"value": to_numpy(t), "dtype": dtype_name(t.dtype), "shape": tuple(t.shape),
            "requires_grad": t.requires_grad, "is_leaf": t.is_leaf}


def default_device(lib, device: str):
    """Context in which factory calls inside an op (``L.ones``) create tensors on ``device``
    (torch's ``with torch.device(...)``); minigrad always runs on the CPU."""
    return lib.device(device) if device != "cpu" else contextlib.nullcontext()


def op_scenario(lib, fn, specs, dtype="float32", device="cpu", seed=0, backward=True):
    """Run ``fn(lib, *leaves)`` and return the trace described in the module docstring."""
    rng = np.random.default_rng(seed)
    leaves = [make_leaf(lib, s.array(rng, dtype), s, device) for s in specs]
    with default_device(lib, device):
        out = fn(lib, *leaves)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    trace = {"out": [tensor_trace(o) for o in outs]}
    root = next((o for o in outs if o.grad_fn is not None), None)
    if root is None:
        return trace
    trace["graph"] = graph_trace(root)
    trace["saved"] = [{n: saved_value(getattr(node, n)) for n in saved_names(node)}
                      for node in graph_nodes(root) if type(node).__name__ != "AccumulateGrad"]
    if backward:
        diff = [o for o in outs if o.requires_grad]
        grads = [lib.tensor(rng.standard_normal(size=tuple(o.shape)).astype(dtype_name(o.dtype)),
                            device=device) for o in diff]
        lib.autograd.backward(diff, grads)
        trace["grads"] = [None if not leaf.requires_grad else
                          (None if leaf.grad is None else
                           (dtype_name(leaf.grad.dtype), to_numpy(leaf.grad))) for leaf in leaves]
    return trace


def check_op(fn, specs, dtype="float32", device="cpu", tol=None, **kw):
    """Assert minigrad and torch give the same ``op_scenario`` trace."""
    a, b = run_both(op_scenario, fn, specs, dtype, device=device, **kw)
    compare(a, b, **(tol or TOL[dtype]))
    return a, b


def error_scenario(lib, fn, specs, device="cpu"):
    """Run ``fn`` on fresh leaves and return ``(exception type name, message)`` or None."""
    rng = np.random.default_rng(0)
    leaves = [make_leaf(lib, s.array(rng, "float32"), s, device) for s in specs]
    try:
        with default_device(lib, device):
            fn(lib, *leaves)
    except Exception as e:  # noqa: BLE001 - any exception is recorded and compared
        return type(e).__name__, str(e)
    return None


def check_error(fn, specs, phrase: str, device="cpu"):
    """Same exception type in both libraries, and ``phrase`` (taken from torch's message)
    present in both messages."""
    a, b = run_both(error_scenario, fn, specs, device=device)
    assert b is not None, "torch raised nothing: the case is wrong"
    assert a is not None, f"minigrad raised nothing; torch raised {b}"
    assert a[0] == b[0], f"exception type {a[0]} (minigrad) != {b[0]} (torch): {a[1]!r} / {b[1]!r}"
    assert phrase in b[1], f"phrase {phrase!r} not in torch's message {b[1]!r}"
    assert phrase in a[1], f"phrase {phrase!r} not in minigrad's message {a[1]!r}"
