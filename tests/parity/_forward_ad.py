"""Shared pieces of the forward-AD parity tests (issue 23).

`jvp_trace` runs ``fn`` on dual tensors made from NumPy arrays inside a ``dual_level`` and
returns plain data: each output's value, and its tangent's value, dtype, strides and
``requires_grad`` (None without a tangent). `check_jvp` compares that trace between minigrad and
PyTorch, and also checks PyTorch's tangent against a central finite difference of ``fn`` so a
formula that is wrong the same way on both sides cannot pass by accident.
"""

import numpy as np

from minigrad.parity import assert_parity, to_numpy


def _tangent_data(lib, t):
    fwAD = lib.autograd.forward_ad
    tangent = fwAD.unpack_dual(t).tangent
    if tangent is None:
        return None
    return {"value": to_numpy(tangent), "dtype": str(tangent.dtype).split(".")[-1],
            "stride": tuple(tangent.stride()) if tangent.numel() else None,
            "requires_grad": tangent.requires_grad}


def _outputs(out):
    if isinstance(out, (tuple, list)):
        return list(out)
    return [out]


def jvp_trace(lib, fn, primals, tangents, dtype="float64", primal_grad=False):
    """Run ``fn(lib, *duals)`` in a level; ``primals``/``tangents``: NumPy arrays (a tangent
    None: that input is not dual). Returns outputs and their tangents as plain data, or the
    error as ``(type name, message)``."""
    fwAD = lib.autograd.forward_ad
    dt = getattr(lib, dtype)
    with fwAD.dual_level():
        duals = []
        for p, t in zip(primals, tangents):
            if not isinstance(p, np.ndarray):
                duals.append(p)
                continue
            x = lib.tensor(p, dtype=dt if p.dtype.kind == "f" else None,
                           requires_grad=primal_grad and p.dtype.kind == "f")
            duals.append(x if t is None else fwAD.make_dual(x, lib.tensor(t, dtype=dt)))
        try:
            out = fn(lib, *duals)
        except Exception as e:  # noqa: BLE001 - the error's type is compared
            return {"error": type(e).__name__}
        return [{"value": to_numpy(o) if hasattr(o, "detach") else o,
                 "tangent": _tangent_data(lib, o) if hasattr(o, "detach") else None}
                for o in _outputs(out)]


def finite_difference(fn, primals, tangents, eps=1e-6):
    """``(f(x + eps v) - f(x - eps v)) / 2 eps`` with PyTorch in float64, per output."""
    import torch

    def run(sign):
        xs = [torch.tensor(p + sign * eps * t if t is not None else p)
              if isinstance(p, np.ndarray) else p for p, t in zip(primals, tangents)]
        return [to_numpy(o) if hasattr(o, "detach") else None for o in _outputs(fn(torch, *xs))]

    # (one entry per output, None for a non-tensor one, so that they line up with the trace's)
    return [None if a is None else (a - b) / (2 * eps) for a, b in zip(run(1), run(-1))]


def check_jvp(fn, primals, tangents, *, fd=True, rtol=1e-7, atol=1e-9, **kw):
    """Parity of `jvp_trace` (float64 by default), and PyTorch's tangents against finite
    differences (``fd=False`` for ops that are not smooth at the chosen points)."""
    assert_parity(jvp_trace, fn, primals, tangents, rtol=rtol, atol=atol, **kw)
    if fd and kw.get("dtype", "float64") == "float64":
        import torch

        got = jvp_trace(torch, fn, primals, tangents, **kw)
        if isinstance(got, dict):
            return
        want = finite_difference(fn, primals, tangents)
        for o, w in zip(got, want):  # (float64 outputs: a float32 one, x.float(), makes
            if (isinstance(o["value"], np.ndarray) and o["value"].dtype == np.float64  # noise)
                    and o["tangent"] is not None):
                np.testing.assert_allclose(o["tangent"]["value"], w, rtol=1e-4, atol=1e-5)
