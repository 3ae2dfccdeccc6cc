"""``minigrad graph MODEL``: two drawings (minigrad, torch) and one HTML page showing both."""

import re
import shutil

import pytest

from minigrad.cli import main
from minigrad.toy_models import TOY_MODELS

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
    assert set(TOY_MODELS) == {"mlp", "cnn", "residual", "shared", "stuck", "inplace"}
