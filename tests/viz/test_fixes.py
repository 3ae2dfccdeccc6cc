"""What torchviz gets wrong and ``make_dot`` gets right, on minigrad and torch graphs.

Each test shows torchviz's behaviour where it is cheap to (so the test would notice if the
fix were no longer needed) and checks that minigrad's ``make_dot`` draws the same thing for the
minigrad graph and for the torch graph.
"""

import subprocess
import sys
from pathlib import Path

import graphviz
import numpy as np
import pytest

import minigrad
from minigrad.viz import GraphvizNotFoundError, make_dot, render

from ._dot import canonical_source, declared_twice, rendered, statements

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LIBS = pytest.mark.parametrize("lib", [minigrad, torch], ids=["minigrad", "torch"])
A = np.linspace(-1, 1, 5, dtype=np.float32)


def _leaf(lib, arr=A):
    return lib.tensor(arr).requires_grad_()


def _nodes_by_label(dot) -> dict:
    return {a.get("label"): (n, a) for n, a in rendered(dot)["nodes"].items()}


def _both(build, **kw):
    """Canonical source of make_dot for the minigrad and the torch version of a graph."""
    srcs = [canonical_source(make_dot(*build(lib), **kw)) for lib in (minigrad, torch)]
    assert srcs[0] == srcs[1], f"minigrad:\n{srcs[0]}\ntorch:\n{srcs[1]}"
    return srcs[0]


# ------------------------------------------------------------------- deep graphs
def _chain(lib, n):
    t = _leaf(lib, A[:2])
    for i in range(n):
        t = t * 1.0 if i % 2 else t + 1.0
    return t


@LIBS
def test_10000_node_graph_renders_without_recursion_error(lib):
    dot = make_dot(_chain(lib, 10_000))
    sts = statements(dot)
    fns = [s for s in sts if s[0] == "node" and "fillcolor" not in s[2]]
    assert len(fns) == 10_001  # 10,000 ops + AccumulateGrad
    assert sum(s[0] == "edge" for s in sts) == 10_002  # chain + leaf + output edges
    assert dot.graph_attr["size"] == f"{0.15 * len(dot.body)},{0.15 * len(dot.body)}"


def test_torchviz_recursion_error_on_deep_graph():
    torchviz = pytest.importorskip("torchviz")
    with pytest.raises(RecursionError):
        torchviz.make_dot(_chain(torch, 5_000))


# ------------------------------------------------------------------- outputs
@LIBS
def test_list_and_dict_outputs(lib):
    a = _leaf(lib)
    y1, y2 = a.sin(), a.exp()
    assert canonical_source(make_dot([y1, y2])) == canonical_source(make_dot((y1, y2)))
    as_dict = statements(make_dot({"sin": y1, "exp": y2}))
    as_tuple = statements(make_dot((y1, y2)))
    greens = [i for i, st in enumerate(as_tuple)
              if st[0] == "node" and st[2].get("fillcolor") == "darkolivegreen1"]
    assert [as_dict[i][2]["label"] for i in greens] == ["sin\n (5)", "exp\n (5)"]
    for i in greens:  # apart from the names, the statements are the same
        as_dict[i][2]["label"] = as_tuple[i][2]["label"]
    assert as_dict == as_tuple


@LIBS
def test_bad_arguments_raise_type_error(lib):
    a = _leaf(lib)
    with pytest.raises(TypeError, match="tensor or a tuple, list or dict"):
        make_dot("y")
    with pytest.raises(TypeError, match="every output must be a tensor"):
        make_dot((a.sin(), 3))
    with pytest.raises(TypeError, match=r"params\['w'\] must be a tensor"):
        make_dot(a.sin(), params={"w": 1.0})


# ------------------------------------------------------------------- one node per tensor
def _square(lib):
    a = _leaf(lib)
    return (a * a,), {"a": a}


def test_saved_leaf_is_one_node_with_two_saved_edges():
    """Case 26: ``a * a`` saves ``a`` as ``self`` and ``other``; torchviz declares ``a``
    three times (orange, orange, blue); ours declares it once, blue, and joins MulBackward0 to
    it by one undirected edge per saved name."""
    torchviz = pytest.importorskip("torchviz")
    out, params = _square(torch)
    assert declared_twice(torchviz.make_dot(out[0], params=params, show_saved=True))
    src = _both(_square, show_saved=True)
    dot = make_dot(*_square(minigrad), show_saved=True)
    assert not declared_twice(dot)
    leaf, attrs = _nodes_by_label(dot)["a\n (5)"]
    assert attrs["fillcolor"] == "lightblue"
    mul = _nodes_by_label(dot)["MulBackward0"][0]
    assert rendered(dot)["edges"].count((mul, leaf, (("dir", "none"),))) == 2
    assert "orange" not in src


def _sin_cos(lib):
    w = _leaf(lib)
    return w.sin() + w.cos(), {"w": w}


def test_leaf_saved_after_it_was_drawn_stays_a_leaf():
    """``w.sin() + w.cos()``: the walk draws ``w`` (blue) under SinBackward0, then
    CosBackward0 saves it. torchviz re-declares it orange ``self`` (the parameter's name and
    colour are lost); ours keeps the blue ``w`` node, joined to both saving nodes."""
    torchviz = pytest.importorskip("torchviz")
    ref = rendered(torchviz.make_dot(*_sin_cos(torch), show_saved=True))
    assert "self\n (5)" in [a["label"] for a in ref["nodes"].values()]  # torchviz's bug
    _both(_sin_cos, show_saved=True)
    dot = make_dot(*_sin_cos(minigrad), show_saved=True)
    labels = _nodes_by_label(dot)
    assert labels["w\n (5)"][1]["fillcolor"] == "lightblue"
    w = labels["w\n (5)"][0]
    savers = {e[0] for e in rendered(dot)["edges"] if e[1] == w and e[2] == (("dir", "none"),)}
    assert savers == {labels["SinBackward0"][0], labels["CosBackward0"][0]}


def _output_saved(lib):
    a = _leaf(lib)
    h = a.sin()
    return (h * h, h), None


def test_output_saved_by_another_node_is_still_an_output():
    """Outputs ``(h * h, h)``: MulBackward0 saved ``h``. torchviz marks ``h`` seen as a saved
    tensor and never draws it as an output (no green node, no ``SinBackward0 -> h`` edge)."""
    torchviz = pytest.importorskip("torchviz")
    ref = rendered(torchviz.make_dot(_output_saved(torch)[0], show_saved=True))
    assert [a.get("fillcolor") for a in ref["nodes"].values()].count("darkolivegreen1") == 1
    _both(_output_saved, show_saved=True)
    dot = make_dot(_output_saved(minigrad)[0], show_saved=True)
    r = rendered(dot)
    greens = [n for n, a in r["nodes"].items() if a.get("fillcolor") == "darkolivegreen1"]
    assert len(greens) == 2
    sin = _nodes_by_label(dot)["SinBackward0"][0]
    mul = _nodes_by_label(dot)["MulBackward0"][0]
    h = next(g for g in greens if (sin, g, ()) in r["edges"])
    assert r["edges"].count((mul, h, (("dir", "none"),))) == 2


def _exps(lib):
    t = _leaf(lib)
    for _ in range(40):
        t = t.exp() * 0.5
    return t, None


def test_saved_outputs_unpacked_as_new_objects_never_share_an_id():
    """``_saved_result`` returns a new tensor each time; ids of dead temporaries get reused,
    so each one is kept alive until the drawing is done: 40 exps, 40 distinct result nodes."""
    src = _both(_exps, show_saved=True)
    assert src.count("label='result\\n (5)' fillcolor='orange'") == 40


# ------------------------------------------------------------------- stale and freed
def _stale(lib):
    x, w = _leaf(lib), _leaf(lib, A[::-1].copy())
    s = x.sigmoid()
    y = s * w
    s.mul_(2)  # SigmoidBackward0's result and MulBackward0's self are now stale
    with lib.no_grad():
        w.mul_(3)  # MulBackward0's other (a leaf) too
    return y, {"x": x, "w": w}


def test_stale_saved_tensors_are_drawn_not_fatal():
    torchviz = pytest.importorskip("torchviz")
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torchviz.make_dot(*_stale(torch), show_saved=True)
    plain = _both(_stale, show_saved=True, show_attrs=True)
    assert "red" not in plain
    src = _both(_stale, show_saved=True, show_versions=True)
    dot = make_dot(*_stale(minigrad), show_saved=True, show_versions=True)
    r = rendered(dot)
    reds = [a["label"] for a in r["nodes"].values() if a.get("fillcolor") == "red"]
    assert sorted(reds) == ["result\n (5)\n version 0, now 1", "self\n (5)\n version 0, now 1"]
    # w is drawn as the blue leaf; its stale version is on MulBackward0's edge to it
    w = _nodes_by_label(dot)["w\n (5)"][0]
    edge_attrs = [dict(e[2]) for e in r["edges"] if e[1] == w and e[2]]
    assert edge_attrs == [{"label": "other: version 0, now 1", "dir": "none", "color": "red"}]
    assert "version 0, now 1" in src


def _freed(lib):
    x = _leaf(lib)
    y = x.exp()
    y.sum().backward()
    return y, None


def test_freed_saved_tensors_after_backward():
    torchviz = pytest.importorskip("torchviz")
    with pytest.raises(RuntimeError, match="second time"):
        torchviz.make_dot(*_freed(torch), show_saved=True)
    src = _both(_freed, show_saved=True, show_attrs=True)
    assert "label='result\\n [freed]' fillcolor='orange'" in src
    assert "result: [saved tensor]" in src


# ------------------------------------------------------------------- environment
def test_missing_dot_program_gives_install_hint(tmp_path, monkeypatch):
    dot = make_dot(_leaf(minigrad).sin())
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(GraphvizNotFoundError, match="apt-get install graphviz") as info:
        dot.render(outfile=str(tmp_path / "g.svg"))
    assert isinstance(info.value, graphviz.ExecutableNotFound)
    path, hint = render(dot, str(tmp_path / "g"), "png")
    assert path.endswith("g.dot") and "graphviz.org" in hint
    assert (tmp_path / "g.dot").read_text() == dot.source
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot"]


def test_no_distutils_and_no_torch_import():
    code = ("import sys; sys.modules['distutils'] = None; sys.modules['torch'] = None\n"
            "import minigrad, minigrad.viz\n"
            "x = minigrad.ones(3, requires_grad=True)\n"
            "print(len(minigrad.viz.make_dot(x.exp(), show_saved=True, show_attrs=True).body))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "9"  # output, ExpBackward0, saved result, leaf, acc + 4 edges
