"""Options torchviz does not have: ``show_versions``, ``show_hooks``, ``modules``.

Each is checked on minigrad and on torch graphs; where both libraries expose the same
information the two drawings must be identical.
"""

import numpy as np
import pytest

import minigrad
from minigrad import toy_models
from minigrad.viz import ModuleTracker, make_dot, track_modules

from ._dot import canonical_source, clusters, rendered, statements

torch = pytest.importorskip("torch")

LIBS = pytest.mark.parametrize("lib", [minigrad, torch], ids=["minigrad", "torch"])
A = np.linspace(-1, 1, 4, dtype=np.float32)


def _labels(dot) -> dict:
    return {a.get("label"): a for a in rendered(dot)["nodes"].values()}


# ------------------------------------------------------------------- show_versions
def _versions(lib):
    x = lib.tensor(A).requires_grad_()
    b = x * 1
    y = b.exp() * b  # MulBackward0 saves exp's result and b (version 0)
    b.mul_(2)  # b is now at version 1: stale for MulBackward0
    z = x.sin()  # nothing stale here
    return (y, z), {"x": x}


def test_show_versions_marks_stale_saved_tensors_red():
    dots = [make_dot(*_versions(lib), show_saved=True, show_versions=True)
            for lib in (minigrad, torch)]
    assert canonical_source(dots[0]) == canonical_source(dots[1])
    labels = _labels(dots[0])
    reds = sorted(k for k, a in labels.items() if a.get("fillcolor") == "red")
    assert reds == ["other\n (4)\n version 0, now 1"]  # b, saved by MulBackward0
    assert labels["self\n (4)\n version 0"]["fillcolor"] == "orange"  # exp's output: fresh
    assert labels["result\n (4)\n version 0"]["fillcolor"] == "orange"
    assert labels["x\n (4)"]["fillcolor"] == "lightblue"
    default = make_dot(*_versions(minigrad), show_saved=True)
    assert "version" not in default.source and "red" not in default.source


# ------------------------------------------------------------------- show_hooks
def _hooked(lib):
    x = lib.tensor(A).requires_grad_()
    x.register_hook(lambda g: None)
    x.register_post_accumulate_grad_hook(lambda p: None)
    y = x.sin() * 2
    y.register_hook(lambda g: None)
    return y, {"x": x}


def test_show_hooks_marks_tensors_with_hooks():
    dots = [make_dot(*_hooked(lib), show_hooks=True) for lib in (minigrad, torch)]
    assert canonical_source(dots[0]) == canonical_source(dots[1])
    labels = _labels(dots[0])
    assert labels["x\n (4)\nhooks: grad=1 post_acc=1"]["peripheries"] == "2"
    assert labels["\n (4)\nhooks: grad=1"]["fillcolor"] == "darkolivegreen1"
    assert canonical_source(make_dot(*_hooked(minigrad))) == canonical_source(
        make_dot(*_hooked(torch)))
    assert "hooks" not in make_dot(*_hooked(minigrad)).source


def test_show_hooks_on_minigrad_nodes():
    """PyTorch does not expose a node's hooks to Python; minigrad's nodes show them."""
    x = minigrad.tensor(A).requires_grad_()
    h = x.sin()
    h.register_hook(lambda g: None)  # a tensor hook: not a hook of the node
    y = h * 2
    y.grad_fn.register_prehook(lambda g: None)
    y.grad_fn.register_hook(lambda gi, go: None)
    labels = _labels(make_dot(y, show_hooks=True))
    assert labels["MulBackward0\nhooks: pre=1 post=1"]["peripheries"] == "2"
    assert "peripheries" not in labels["SinBackward0"]
    assert "peripheries" not in labels["AccumulateGrad"]


# ------------------------------------------------------------------- modules
def _clustered(name, lib, **kw):
    r = toy_models.run(name, lib, track=True, **kw)
    return make_dot(r["output"], params=r["params"], modules=r["tracker"]), r


def _members(dot, label) -> list:
    """Labels of a cluster's direct members."""
    nodes = rendered(dot)["nodes"]
    return sorted(nodes[n].get("label") for n in clusters(dot)[label])


@pytest.mark.parametrize("name", list(toy_models.TOY_MODELS))
def test_module_clusters_same_for_minigrad_and_torch(name):
    m, _ = _clustered(name, minigrad)
    t, _ = _clustered(name, torch)
    assert canonical_source(m) == canonical_source(t)
    assert clusters(m)  # every toy has at least one registered submodule that made nodes
    # the clusters only add subgraph statements: the drawing is otherwise the default one
    plain = toy_models.run(name, minigrad)
    default = statements(make_dot(plain["output"], params=plain["params"]))
    drawing = [st for st in statements(m) if st[0] == "edge" or (st[0] == "node" and st[2])]
    assert drawing == default


def test_residual_clusters_follow_the_module_tree():
    dot, _ = _clustered("residual", minigrad)
    assert set(clusters(dot)) == {"fc (Linear)", "block (Sequential)", "block.0 (Linear)",
                                  "block.1 (ReLU)", "head (Linear)"}
    assert _members(dot, "block.1 (ReLU)") == ["ReluBackward0"]
    assert _members(dot, "block (Sequential)") == []  # all its nodes are in its children
    assert _members(dot, "fc (Linear)") == [
        "AccumulateGrad", "AccumulateGrad", "AddmmBackward0", "TBackward0",
        "fc.bias\n (8)", "fc.weight\n (8, 4)"]
    in_clusters = {n for members in clusters(dot).values() for n in members}
    outside = {rendered(dot)["nodes"][n]["label"] for n in rendered(dot)["nodes"]
               if n not in in_clusters}
    # made by Residual.forward itself: the relu() method call, the skip connection, the output
    assert outside == {"ReluBackward0", "AddBackward0", "\n (2, 3)"}
    src = dot.source
    assert src.index('subgraph "cluster_block.0"') > src.index("subgraph cluster_block {")


@LIBS
def test_shared_module_collects_both_calls(lib):
    dot, _ = _clustered("shared", lib)
    assert _members(dot, "fc (Linear)").count("AddmmBackward0") == 2
    assert _members(dot, "act (ReLU)") == ["ReluBackward0", "ReluBackward0"]


@LIBS
def test_stuck_model_shows_unregistered_layers_outside_clusters(lib):
    dot, r = _clustered("stuck", lib)
    assert list(clusters(dot)) == ["head (Linear)"]
    in_head = {rendered(dot)["nodes"][n]["label"] for n in clusters(dot)["head (Linear)"]}
    assert {"head.weight\n (3, 8)", "head.bias\n (3)"} <= in_head
    unnamed = [a["label"] for a in rendered(dot)["nodes"].values()
               if a.get("fillcolor") == "lightblue" and a["label"].startswith("\n")]
    assert sorted(unnamed) == ["\n (8)", "\n (8, 4)"]  # the Sequential's weights: no names


@LIBS
def test_leaf_input_stays_outside_the_first_layer(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 3))
    x = lib.tensor(np.ones((2, 4), np.float32)).requires_grad_()
    track_modules(model)
    y = model(x)
    dot = make_dot(y, params={"x": x, **dict(model.named_parameters())}, modules=model)
    assert "x\n (2, 4)" not in _members(dot, "0 (Linear)")
    assert "0.weight\n (3, 4)" in _members(dot, "0 (Linear)")


@LIBS
def test_modules_needs_a_tracked_forward_pass(lib):
    model = lib.nn.Sequential(lib.nn.Linear(2, 2))
    y = model(lib.ones(1, 2))
    with pytest.raises(ValueError, match="track_modules"):
        make_dot(y, modules=model)
    with track_modules(model) as tracker:
        assert isinstance(tracker, ModuleTracker)
        y = model(lib.ones(1, 2))
    y2 = model(lib.ones(1, 2))  # after remove(): not recorded, the last record stays
    assert list(clusters(make_dot(y, modules=model))) == ["0 (Linear)"]
    # y2's own nodes were not recorded (its parameters' AccumulateGrad nodes are shared with
    # the recorded graph, which keeps them alive, so those still are)
    dot2 = make_dot(y2, modules=tracker)
    assert "AddmmBackward0" not in _members(dot2, "0 (Linear)")
    assert "AddmmBackward0" in _members(make_dot(y, modules=tracker), "0 (Linear)")
