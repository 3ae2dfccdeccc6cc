"""Case 26 (szagoruyko/pytorchviz#69): ``y = a * a`` saves the leaf ``a`` itself as ``self``
and ``other`` (unpacking returns the same object), so torchviz, which names nodes by ``id()``,
declares the saved tensors and the leaf as one node three times; ``exp()``'s
``_saved_result`` is a new object sharing the output's storage. The script's logic is
``minigrad.parity.real_cases.case_26``, run on both libraries, everything it prints compared,
including ``minigrad.viz.make_dot`` of both graphs; then the normalised drawings are compared
with torchviz's own.

Beyond the one input, the kind (which saved tensor unpacks to the very object that was saved,
and what the unpacked tensor is: its node, version, storage, view-ness) is checked on a family
of ops saving leaves, non-leaves, views and outputs."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, compare
from minigrad.parity.real_cases import case_26

from ..viz._dot import parse_statement

torch = pytest.importorskip("torch")
torchviz = pytest.importorskip("torchviz")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torchviz: distutils


def _drawn(source: str) -> dict:
    """What Graphviz draws from a normalised DOT source: each node's attributes after all its
    declarations (later ones win) and the sorted list of edges with their attributes."""
    nodes, edges = {}, []
    for line in source.splitlines():
        st = parse_statement(line)
        if st[0] == "node":
            nodes.setdefault(st[1], {}).update(st[2])
        elif st[0] == "edge":
            edges.append((st[1], st[2], tuple(sorted(st[3].items()))))
    return {"nodes": nodes, "edges": sorted(edges)}


def _declarations(source: str) -> list:
    return [st[1] for st in map(parse_statement, source.splitlines()) if st[0] == "node"]


def test_case_26(device):
    mg, th = assert_parity(case_26, device=device)  # make_dot: minigrad graph == torch graph
    assert mg[0][2:] == ("_saved_self is a", True, "_saved_other is a", True,
                         "_saved_self equal a", True)
    assert mg[2][2:] == ("_saved_result is z", False, "equal", True, "shares storage", True)
    tv = case_26(torch, device, draw=torchviz.make_dot)
    compare(tv[0], th[0])
    compare(tv[2], th[2])
    mul_tv, mul_ours = tv[1][1], mg[1][1]
    exp_tv, exp_ours = tv[3][1], mg[3][1]
    # exp(): torchviz declares every node once, and our drawing is statement for statement its
    assert exp_ours == exp_tv
    # a * a: torchviz declares the leaf three times (two orange saved labels, then light blue,
    # which wins); ours declares it once, light blue, with the same two saved-tensor edges:
    # Graphviz draws the same picture
    assert _drawn(mul_ours) == _drawn(mul_tv)
    ids = _declarations(mul_tv)
    assert len(ids) - len(set(ids)) == 2
    ids = _declarations(mul_ours)
    assert len(ids) == len(set(ids)) == 4
    leaf = _drawn(mul_ours)["nodes"]["N2"]
    assert leaf["fillcolor"] == "lightblue"
    assert sum(e[:2] == ("N1", "N2") for e in _drawn(mul_ours)["edges"]) == 2
    assert len(_drawn(mul_ours)["edges"]) == 6 and len(_drawn(exp_ours)["edges"]) == 4


SAVERS = {
    "leaf * leaf": (lambda a, h, v: a * a, "a"),
    "non-leaf * non-leaf": (lambda a, h, v: h * h, "h"),
    "view * view": (lambda a, h, v: v * v, "v"),
    "leaf.pow(2)": (lambda a, h, v: a.pow(2), "a"),
    "non-leaf.sin()": (lambda a, h, v: h.sin(), "h"),
    "view.log()": (lambda a, h, v: v.log(), "v"),
    "leaf @ non-leaf": (lambda a, h, v: a @ h, "a"),
    "non-leaf.exp()": (lambda a, h, v: h.exp(), "h"),
    "leaf.sigmoid()": (lambda a, h, v: a.sigmoid(), "a"),
    "view.tanh()": (lambda a, h, v: v.tanh(), "v"),
    "non-leaf.relu()": (lambda a, h, v: h.relu(), "h"),
    "leaf.sqrt()": (lambda a, h, v: a.sqrt(), "a"),
}


def test_saved_tensor_unpack_identity(device):
    def scenario(lib, device):
        a = lib.tensor(np.arange(1, 6, dtype=np.float32))
        a = (a.to(device) if lib.__name__ == "torch" else a).requires_grad_()
        h = a * 2
        v = h[1:4]
        inputs = {"a": a, "h": h, "v": v}
        out = {}
        for name, (fn, src) in SAVERS.items():
            x = inputs[src]
            y = fn(a, h, v)
            node = y.grad_fn
            rows = []
            for attr in sorted(k for k in dir(node) if k.startswith("_saved_")):
                t = getattr(node, attr)
                if not hasattr(t, "grad_fn"):
                    rows.append((attr, t))
                    continue
                same_shape = tuple(t.shape) == tuple(x.shape)
                rows.append((attr, {
                    "is input": t is x, "is output": t is y, "is leaf a": t is a,
                    "equals input": same_shape and lib.equal(t, x),
                    "shares output storage": t.data_ptr() == y.data_ptr(),
                    "shares input storage": t.data_ptr() == x.data_ptr(),
                    "version": t._version, "requires_grad": t.requires_grad,
                    "is_leaf": t.is_leaf, "is view": t._is_view(),
                    "grad_fn": None if t.grad_fn is None else type(t.grad_fn).__name__,
                    "grad_fn is the saving node": t.grad_fn is node,
                    "unpacks to the same object twice": getattr(node, attr) is t}))
            out[name] = (type(node).__name__, rows)
        return out

    mg, _ = assert_parity(scenario, device=device)
    assert mg["leaf * leaf"][1][0][1]["is leaf a"] is True
    assert mg["non-leaf.exp()"][1][0][1]["grad_fn is the saving node"] is True
