"""The kind of fault the cases exposed: scripts from bug reports check their claims with
``torch.equal``, ``torch.allclose``, ``Tensor.all()`` and ``data_ptr()`` (cases 01, 07, 18, 20,
23, 26), which minigrad lacked, so none of them ran under ``import minigrad as torch``. Here the
whole family — ``equal``, ``allclose``, ``isclose``, ``all``, ``any`` (functions and methods)
and ``data_ptr`` — is compared with PyTorch beyond the cases' inputs: dtypes, broadcasting,
NaN/inf, tolerances, dims, views, ``.data``/``detach()`` and the errors."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")


def _outcome(fn, *args):
    """``fn(*args)`` as plain data: bool, (dtype name, array, requires_grad) or (error type,
    first line of the message)."""
    try:
        r = fn(*args)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        msg = str(e).splitlines()[0].replace("minigrad", "torch")
        return (type(e).__name__, msg)
    if isinstance(r, bool):
        return r
    return (str(r.dtype).split(".")[-1], to_numpy(r), r.requires_grad)


def comparisons(lib, device):
    def t(values, dtype=None):
        x = lib.tensor(values, dtype=None if dtype is None else getattr(lib, dtype))
        return x.to(device) if lib is torch else x

    a = t([1.0, 2.0, 3.0])
    pairs = {
        "same": (a, t([1.0, 2.0, 3.0])),
        "tiny diff": (a, t([1.0, 2.0, 3.00001])),
        "boundary float32": (t([1.0]), t([1.00001])),
        "clearly different": (a, t([1.0, 2.5, 3.0])),
        "broadcast row": (t([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]), a),
        "broadcast fails": (a, t([1.0, 2.0])),
        "float vs double": (a, t([1.0, 2.0, 3.0], "float64")),
        "float vs long": (a, t([1, 2, 3])),
        "ints": (t([1, 2, 5]), t([1, 3, 5])),
        "bools": (t([True, False]), t([True, True])),
        "nan": (t([1.0, NAN]), t([1.0, NAN])),
        "inf": (t([INF, -INF, INF]), t([INF, INF, 1e38])),
        "0-dim": (t(2.0), t(2.0)),
        "empty": (t([]), t([])),
        "requires grad": (a.clone().requires_grad_() * 2, a * 2),
        "view vs copy": (t([[1.0, 2.0], [3.0, 4.0]]).t(), t([[1.0, 3.0], [2.0, 4.0]])),
    }
    calls = {
        "equal": lambda x, y: lib.equal(x, y),
        "x.equal": lambda x, y: x.equal(y),
        "allclose": lambda x, y: lib.allclose(x, y),
        "allclose nan": lambda x, y: x.allclose(y, equal_nan=True),
        "allclose loose": lambda x, y: lib.allclose(x, y, 0.2, 0.6),
        "isclose": lambda x, y: lib.isclose(x, y),
        "isclose tol": lambda x, y: x.isclose(y, rtol=0.1, atol=0.5, equal_nan=True),
    }
    out = {name: {c: _outcome(fn, x, y) for c, fn in calls.items()}
           for name, (x, y) in pairs.items()}
    out["errors"] = [
        _outcome(lambda: lib.equal(a, 1.0)),
        _outcome(lambda: lib.equal([1.0], a)),
        _outcome(lambda: lib.allclose(a, 1.0)),
        _outcome(lambda: lib.isclose(1.0, a)),
        _outcome(lambda: lib.isclose(a, a, rtol=-1)),
        _outcome(lambda: lib.isclose(a, a, atol=-0.5)),
    ]
    return out


def test_equal_allclose_isclose(device):
    mg, _ = assert_parity(comparisons, device=device)
    assert mg["tiny diff"]["allclose"] is True and mg["boundary float32"]["allclose"] is False
    assert mg["float vs double"]["equal"] is True and mg["nan"]["equal"] is False
    assert mg["float vs double"]["allclose"][0] == "RuntimeError"


def reductions(lib, device):
    def t(values, dtype=None):
        x = lib.tensor(values, dtype=None if dtype is None else getattr(lib, dtype))
        return x.to(device) if lib is torch else x

    rng = np.random.default_rng(0)
    m = t((rng.standard_normal((2, 3, 4)) > 0).astype(np.float32))
    inputs = {"float": m, "bool": m > 0, "uint8": t([[0, 3], [1, 1]], "uint8"),
              "int": t([[0, 3], [1, 1]]), "0-dim": t(3.0), "empty": t(np.zeros((0, 2))),
              "nan": t([NAN, 0.0]), "requires grad": m.clone().requires_grad_()}
    calls = {
        "all()": lambda x: x.all(), "any()": lambda x: x.any(),
        "all(0)": lambda x: x.all(0), "any(-1)": lambda x: x.any(-1),
        "all(dim=0, keepdim=True)": lambda x: x.all(dim=0, keepdim=True),
        "lib.any(x, (0, 1))": lambda x: lib.any(x, (0, 1)),
        "lib.all(x, dim=())": lambda x: lib.all(x, dim=()),
        "all(5)": lambda x: x.all(5), "any((0, 0))": lambda x: x.any((0, 0)),
    }
    return {f"{name} {c}": _outcome(fn, x) for name, x in inputs.items()
            for c, fn in calls.items()}


def test_all_any(device):
    mg, _ = assert_parity(reductions, device=device)
    assert mg["uint8 all()"][0] == "uint8" and mg["float all(5)"][0] == "IndexError"


def pointers(lib):
    x = lib.arange(12.0).reshape(3, 4)
    x.requires_grad_()
    y = x * 2
    ptr = y.data_ptr()
    return {
        "views share (offset in bytes)": [v.data_ptr() - ptr for v in
                                          (y[1], y[:, 2], y.t(), y.view(12), y[2:, 1:])],
        "detach / .data share": [y.detach().data_ptr() == ptr, y.data.data_ptr() == ptr],
        "copies do not": [y.clone().data_ptr() == ptr, (y + 0).data_ptr() == ptr,
                          y.contiguous().data_ptr() == ptr, y.t().contiguous().data_ptr() == ptr],
        "in-place keeps it": [y.detach().mul_(2).data_ptr() == ptr],
        "empty": lib.zeros(0).data_ptr(),
        "int": isinstance(ptr, int) and ptr != 0,
    }


def test_data_ptr():
    mg, _ = assert_parity(pointers)
    assert mg["views share (offset in bytes)"] == [16, 8, 0, 0, 36]
