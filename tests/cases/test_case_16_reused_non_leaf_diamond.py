"""Case 16 (karpathy/micrograd#2): a non-leaf used on several paths must push its gradient back
once, summed, after all its consumers ran (the early micrograd pushed it once per use and
over-counted the leaf gradients). The script's logic is
``minigrad.parity.real_cases.case_16``, run on both libraries, everything it prints compared.

Beyond the one input, the kind (every node runs once, with the summed gradient, in PyTorch's
order) is checked on a family of reuse shapes: a tensor hook, a node pre-hook and a node post
hook on every intermediate record each call with its gradient, in order."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, graph_trace, to_numpy
from minigrad.parity.real_cases import case_16


def test_case_16(device):
    mg, _ = assert_parity(case_16, device=device)
    calls = next(p[1] for p in mg if p[0] == "calls")
    assert calls == [("c.grad_fn prehook", 1.5), ("b tensor hook", 13.5),
                     ("b.grad_fn prehook", 13.5)]
    assert mg[-1][1] == mg[-1][3] == 54.0


# each builder: (lib, a) -> {name: tensor} in creation order; the last one is the root
REUSE = {
    "three uses in one chain": lambda lib, a: _chain(b=a * a, f=lambda t: t["b"] * t["b"] * t["b"]),
    "three branches": lambda lib, a: _chain(
        b=a * 2, s=lambda t: t["b"].sin(), x=lambda t: t["b"].exp(),
        r=lambda t: t["s"] + t["x"] + t["b"] * 3),
    "nested diamonds": lambda lib, a: _chain(
        b=a * a, c=lambda t: t["b"] + t["b"], d=lambda t: t["c"] * t["c"] + t["c"],
        e=lambda t: (t["d"] + t["b"]).sum()),
    "through views": lambda lib, a: _chain(
        b=a * 3, v=lambda t: t["b"][1:], w=lambda t: t["b"].view(2, 2),
        r=lambda t: t["v"].sum() * t["w"].sum() + t["b"].sum()),
    "reuse after an in-place op": lambda lib, a: _chain(
        b=a * 1, c=lambda t: t["b"] * 2, m=lambda t: t["c"].mul_(t["b"]),
        r=lambda t: (t["m"] + t["b"]).sum()),
    "long skip connection": lambda lib, a: _chain(
        b=a.tanh(), h1=lambda t: t["b"] * 2, h2=lambda t: t["h1"].relu(),
        h3=lambda t: t["h2"] * t["h2"], r=lambda t: (t["h3"] + t["b"]).sum()),
    "detached branch": lambda lib, a: _chain(
        b=a * a, c=lambda t: t["b"].detach() * t["b"], r=lambda t: (t["c"] + t["b"]).sum()),
    "matmul twice": lambda lib, a: _chain(
        b=a.view(2, 2) * 1, c=lambda t: t["b"] @ t["b"], r=lambda t: (t["c"] @ t["b"]).sum()),
}


def _chain(b, **steps):
    """``{"b": b, name: step(tensors so far), ...}`` evaluated in order."""
    t = {"b": b}
    for name, step in steps.items():
        t[name] = step(t)
    return t


@pytest.mark.parametrize("shape", list(REUSE))
def test_every_node_runs_once_with_the_summed_gradient(shape, device):
    def scenario(lib, device):
        a = lib.tensor(np.array([0.5, -1.0, 2.0, 1.5], np.float32))
        a = (a.to(device) if lib.__name__ == "torch" else a).requires_grad_()
        tensors = REUSE[shape](lib, a)
        root = list(tensors.values())[-1]
        calls = []
        for name, t in tensors.items():
            if name == list(tensors)[-1]:
                root.retain_grad()
            t.register_hook(lambda g, n=name: calls.append(("tensor", n, to_numpy(g))))
            t.grad_fn.register_prehook(
                lambda go, n=name: calls.append(("node pre", n, [to_numpy(g) for g in go])))
            t.grad_fn.register_hook(lambda gi, go, n=name: calls.append(
                ("node", n, [to_numpy(g) for g in gi])))
        graph = graph_trace(root)
        root.backward(lib.ones_like(root))
        return {"graph": graph, "calls": calls, "a.grad": to_numpy(a.grad),
                "versions": [t._version for t in tensors.values()]}

    mg, _ = assert_parity(scenario, device=device)
    # each hooked node ran exactly once
    names = [c[1] for c in mg["calls"] if c[0] == "node"]
    assert len(names) == len(set(names))
