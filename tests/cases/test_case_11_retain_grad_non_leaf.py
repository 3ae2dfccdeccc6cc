"""Case 11 (pytorch/tutorials#3652): ``retain_grad()`` on a non-leaf fills its ``.grad`` (and
accumulates across backward calls); on a leaf it is a no-op; on a tensor without grad it
raises; reading ``.grad`` of a non-retaining non-leaf warns. Same script on both libraries,
everything it prints compared."""

import warnings

import pytest

from minigrad.parity import assert_parity, to_numpy

torch = pytest.importorskip("torch")


def scenario(lib, device):
    printed = []

    def t(values, **kw):
        x = lib.tensor(values)
        return (x.to(device) if lib is torch else x).requires_grad_(kw.get("requires_grad",
                                                                           False))

    x = t([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = y * y
    c = t([5.0])
    printed.append(("is_leaf", x.is_leaf, y.is_leaf, z.is_leaf, c.is_leaf))
    printed.append(("retains_grad before", x.retains_grad, y.retains_grad, z.retains_grad))
    x.retain_grad()
    y.retain_grad()
    printed.append(("retains_grad after", x.retains_grad, y.retains_grad, z.retains_grad))
    try:
        c.retain_grad()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        printed.append(("c.retain_grad()", type(e).__name__, str(e).splitlines()[0]))
    z.sum().backward()
    printed.append(("x.grad", to_numpy(x.grad), "y.grad", to_numpy(y.grad)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        zg = z.grad
    printed.append(("z.grad", zg, len(w)))
    for wi in w:
        printed.append((wi.category.__name__, str(wi.message).splitlines()[0].split(
            " (Triggered internally")[0]))
    y2 = x * 3
    y2.retain_grad()
    (y2 * y2).sum().backward(retain_graph=True)
    first = y2.grad.clone()
    (y2 * y2).sum().backward()
    printed.append(("retained grad after 1st / 2nd backward", to_numpy(first),
                    to_numpy(y2.grad)))
    return printed


def test_case_11(device):
    mg, _ = assert_parity(scenario, device=device)
    assert mg[2] == ("retains_grad after", False, True, False) and mg[5][2] == 1
