"""Case 01 (pytorch/pytorch#598): a legacy ``register_backward_hook`` sees the grad_input of the
module's *last* autograd node only (2 entries for ``x + y + z``), with a FutureWarning at forward
time; a full backward hook sees one gradient per module input. Same script on both libraries,
everything it prints compared."""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy

torch = pytest.importorskip("torch")

XYZ = np.random.default_rng(1).standard_normal((3, 1, 5)).astype(np.float32)
INP = np.random.default_rng(2).standard_normal((2, 5)).astype(np.float32)


def shapes(gs):
    return [tuple(g.shape) if g is not None else None for g in gs]


def scenario(lib, device):
    nn, printed = lib.nn, []

    class Sum3(nn.Module):
        def forward(self, x, y, z):
            return x + y + z

    def legacy_hook(mod, grad_input, grad_output):
        printed.append(("legacy hook", len(grad_input), shapes(grad_input), len(grad_output),
                        shapes(grad_output)))

    def full_hook(mod, grad_input, grad_output):
        printed.append(("full hook", len(grad_input), shapes(grad_input), len(grad_output),
                        shapes(grad_output)))

    def call(phase, fn):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            res = fn()
        for wi in w:
            printed.append((f"warning during {phase}", wi.category.__name__,
                            str(wi.message).splitlines()[0]))
        return res

    def leaf(arr):
        t = lib.tensor(arr)
        return (t.to(device) if lib is torch else t).requires_grad_()

    x, y, z = (leaf(a) for a in XYZ)
    m = Sum3()
    m.register_backward_hook(legacy_hook)
    out = call("forward", lambda: m(x, y, z))
    printed.append(("out.grad_fn", type(out.grad_fn).__name__,
                    [type(f).__name__ for f, _ in out.grad_fn.next_functions]))
    call("backward", lambda: out.sum().backward())
    # (minigrad has no Tensor.all(); the check is made on the NumPy values)
    printed.append(("x/y/z grads are all ones", all(bool(np.all(to_numpy(t.grad) == 1))
                                                    for t in (x, y, z))))

    seq = nn.Sequential(nn.Linear(5, 3), nn.ReLU())
    seq = seq.to(device) if lib is torch else seq
    seq.register_backward_hook(legacy_hook)
    out = call("forward", lambda: seq(leaf(INP)))
    call("backward", lambda: out.sum().backward())

    m2 = Sum3()
    m2.register_full_backward_hook(full_hook)
    out = call("forward", lambda: m2(x, y, z))
    call("backward", lambda: out.sum().backward())
    return printed


def test_case_01(device):
    mg, _ = assert_parity(scenario, device=device)
    assert [p[1] for p in mg if p[0] in ("legacy hook", "full hook")] == [2, 1, 3]
