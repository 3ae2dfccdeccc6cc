"""``minigrad graph MODEL``: two drawings (minigrad, torch) and one HTML page showing both."""

import re
import shutil

import pytest

from minigrad.cli import main
from minigrad.toy_models import TOY_MODELS

from ._dot import parse_statement

pytest.importorskip("torch")
HAS_DOT = shutil.which("dot") is not None


def _paths(out: str) -> list:
    """The paths ``minigrad graph`` printed (one per ``  label: path  (kind)`` line)."""
    return re.findall(r"^  [\w ]+: +(\S+)  \(", out, re.M)


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot program is not installed")
def test_graph_svg_side_by_side(tmp_path, capsys):
    assert main(["graph", "shared", "--out", str(tmp_path), "--show-saved", "--modules"]) == 0
    printed = _paths(capsys.readouterr().out)
    assert printed == [str(tmp_path / n) for n in
                       ("shared_minigrad.svg", "shared_torch.svg", "shared.html")]
    page = (tmp_path / "shared.html").read_text()
    assert '<img src="shared_minigrad.svg"' in page and '<img src="shared_torch.svg"' in page
    svgs = [(tmp_path / f"shared_{lib}.svg").read_text() for lib in ("minigrad", "torch")]
    for svg in svgs:
        assert "fc (Linear)" in svg and "mat1" in svg  # clusters and saved tensors drawn
    for kind in ('class="node"', 'class="edge"', 'class="cluster"'):
        assert svgs[0].count(kind) == svgs[1].count(kind) > 0


def test_graph_dot_format_needs_no_graphviz(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["graph", "stuck", "--format", "dot", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "stuck_minigrad.dot").read_text().startswith("digraph {")
    assert "<pre>digraph {" in (tmp_path / "stuck.html").read_text()


def test_graph_without_dot_program_writes_source_and_hint(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["graph", "mlp", "--format", "png", "--out", str(tmp_path / "o")]) == 1
    out, err = capsys.readouterr()
    assert _paths(out) == [str(tmp_path / "o" / n) for n in
                           ("mlp_minigrad.dot", "mlp_torch.dot", "mlp.html")]
    assert "install graphviz" in err.lower() and "Traceback" not in err
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == [
        "mlp.html", "mlp_minigrad.dot", "mlp_torch.dot"]


def test_graph_rejects_unknown_model(capsys):
    with pytest.raises(SystemExit) as info:
        main(["graph", "transformer"])
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
    assert set(TOY_MODELS) == {"mlp", "cnn", "residual", "shared", "stuck", "inplace", "bn",
                               "lstm", "attention"}


def _node_labels(dot_text: str) -> list:
    """Sorted labels of the nodes a DOT file draws (a node's last declaration wins). Statements
    start with a tab; a label may span lines (``"\n (2, 3)"`` of an output tensor)."""
    labels = {}
    for line in re.split(r"\n(?=\t)", dot_text):
        st = parse_statement(line)
        if st[0] == "node" and "label" in st[2]:
            labels[st[1]] = st[2]["label"]
    return sorted(labels.values())


# What PyTorch's CPU graph of each new toy contains (read off torch's own drawing below).
TORCH_NODES = {
    "bn": {"NativeBatchNormBackward0", "ConvolutionBackward0", "ReluBackward0"},
    "lstm": {"UnsafeSplitBackward0", "SigmoidBackward0", "TanhBackward0", "StackBackward0"},
    "attention": {"BmmBackward0", "SoftmaxBackward0", "NativeLayerNormBackward0"},
}


@pytest.mark.parametrize("name", sorted(TORCH_NODES))
@pytest.mark.parametrize("flags", [[], ["--show-saved", "--no-modules"]], ids=["modules",
                                                                             "saved_flat"])
def test_graph_of_new_toys_names_the_nodes_as_torch(name, flags, tmp_path, capsys):
    """``minigrad graph bn|lstm|attention``: the minigrad drawing has exactly the node labels of
    the torch drawing (node names, parameter names and shapes; saved tensors when shown)."""
    assert main(["graph", name, "--format", "dot", "--out", str(tmp_path), *flags]) == 0
    ours = _node_labels((tmp_path / f"{name}_minigrad.dot").read_text())
    theirs = _node_labels((tmp_path / f"{name}_torch.dot").read_text())
    assert TORCH_NODES[name] <= set(theirs), theirs
    assert ours == theirs
    assert "MkldnnRnnLayerBackward0" not in theirs  # the lstm toy is float64: no fused node
