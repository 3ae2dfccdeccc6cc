"""Case 18 (pytorch/examples#779): a manual SGD step ``p.add_(-lr, p.grad)`` on a parameter
raised the leaf in-place error; the example's fix went through ``p.data``; ``torch.no_grad()``
is the other fix. The script's logic is ``minigrad.parity.real_cases.case_18``, run on both
libraries, everything it prints compared.

Beyond the one input, the kind (which in-place updates of a leaf that requires grad are
refused, and what each accepted route does to ``_version``, ``is_leaf``, ``grad_fn`` and later
gradients) is checked on a family of update spellings and routes."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, node_name, to_numpy
from minigrad.parity.real_cases import case_18, normalise_message


def test_case_18(device):
    mg, _ = assert_parity(case_18, device=device)
    leaf_error = ("RuntimeError", "a leaf Variable that requires grad is being used in an "
                                  "in-place operation.")
    assert mg[1][1:] == leaf_error and mg[2][1:] == leaf_error and mg[3][1] == 1
    assert mg[4][2] is True and mg[4][4] == 1 and mg[5][2] == 2
    assert np.allclose(mg[-1][1], -0.2)


LR = 0.1
UPDATES = {
    "add_(g, alpha=-lr)": lambda p, g: p.add_(g, alpha=-LR),
    "sub_(lr * g)": lambda p, g: p.sub_(LR * g),
    "-= lr * g": lambda p, g: p.__isub__(LR * g),
    "*= 0.9 (weight decay)": lambda p, g: p.__imul__(0.9),
    "copy_(p - lr * g)": lambda p, g: p.copy_(p.detach() - LR * g),
    "zero_()": lambda p, g: p.zero_(),
    "clamp_(-0.1, 0.1)": lambda p, g: p.clamp_(-0.1, 0.1),
    "addcmul_(g, g)": lambda p, g: p.addcmul_(g, g, value=-LR),
    "p[0] -= lr (view)": lambda p, g: p[0].sub_(LR),
    "setitem p[0, 1] = 0": lambda p, g: p.__setitem__((0, 1), 0.0),
}
ROUTES = ["grad mode", "no_grad", ".data", "detach()", "requires_grad=False leaf"]


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, normalise_message(e)
    return None


@pytest.mark.parametrize("route", ROUTES)
def test_leaf_update_routes(route, device):
    def scenario(lib, device):
        on = (lambda t: t.to(device)) if lib.__name__ == "torch" else (lambda t: t)
        out = {}
        for name, update in UPDATES.items():
            p = on(lib.tensor(np.array([[0.5, -0.3], [0.2, 0.8]], np.float32)))
            p.requires_grad_(route != "requires_grad=False leaf")
            x = on(lib.tensor(np.array([1.0, 2.0], np.float32)))
            g = on(lib.tensor(np.array([[1.0, 2.0], [1.0, 2.0]], np.float32)))
            if route == "grad mode":
                error = _err(lambda: update(p, g))  # noqa: B023 - called at once
            elif route == "no_grad":
                with lib.no_grad():
                    error = _err(lambda: update(p, g))  # noqa: B023
            elif route == ".data":
                error = _err(lambda: update(p.data, g))  # noqa: B023
            else:  # detach() and a plain leaf
                target = p.detach() if route == "detach()" else p
                error = _err(lambda: update(target, g))  # noqa: B023
            row = {"error": error, "version": p._version, "is_leaf": p.is_leaf,
                   "grad_fn": node_name(p.grad_fn), "requires_grad": p.requires_grad,
                   "value": to_numpy(p)}
            if p.requires_grad:  # the parameter still trains: a forward/backward afterwards
                (p @ x).sum().backward()
                row["grad after"] = to_numpy(p.grad)
            out[name] = row
        return out

    mg, _ = assert_parity(scenario, device=device)
    errors = {k: v["error"] for k, v in mg.items()}
    if route == "grad mode":
        assert all(e is not None and e[0] == "RuntimeError" for e in errors.values())
        assert "a view of a leaf Variable" in errors["p[0] -= lr (view)"][1]
    else:
        assert all(e is None for e in errors.values())


def test_optimizer_steps_bump_the_version_once_per_update(device):
    """What the example finally did: ``optimizer.step()`` (no_grad inside): one version bump
    per in-place update it makes (plain SGD, momentum, weight decay)."""

    def scenario(lib, device):
        out = []
        for kw in ({}, {"momentum": 0.9}, {"momentum": 0.9, "weight_decay": 0.01}):
            on = (lambda t: t.to(device)) if lib.__name__ == "torch" else (lambda t: t)
            lin = on(lib.nn.Linear(2, 1))
            with lib.no_grad():
                lin.weight.copy_(on(lib.tensor([[0.3, -0.6]])))
                lin.bias.copy_(on(lib.tensor([0.1])))
            opt = lib.optim.SGD(lin.parameters(), lr=LR, **kw)
            x = on(lib.ones(3, 2))
            start = [p._version for p in lin.parameters()]
            deltas = []
            for _ in range(3):
                before = [p.detach().clone() for p in lin.parameters()]
                opt.zero_grad()
                lin(x).sum().backward()
                opt.step()
                deltas.append([to_numpy(p.detach() - b) for p, b in
                               zip(lin.parameters(), before)])
            out.append((kw, [p._version - s for p, s in zip(lin.parameters(), start)],
                        [p.is_leaf for p in lin.parameters()], deltas))
        return out

    assert_parity(scenario, device=device)
