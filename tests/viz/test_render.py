"""Rendering with Graphviz's ``dot`` program: SVG and PNG files that are real drawings.

Skipped when ``dot`` is not installed (CI installs it in ``.ci/run``).
"""

import shutil
import xml.etree.ElementTree as ET

import pytest

import minigrad
from minigrad import toy_models
from minigrad.viz import make_dot, render

pytestmark = pytest.mark.skipif(shutil.which("dot") is None,
                                reason="Graphviz's dot program is not installed")


def _mlp_dot():
    r = toy_models.run("mlp", minigrad)
    return make_dot(r["output"], params=r["params"])


def test_render_svg(tmp_path):
    path, hint = render(_mlp_dot(), str(tmp_path / "mlp"), "svg")
    assert hint is None and path.endswith("mlp.svg")
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    texts = [t.text for t in root.iter() if t.tag.endswith("text")]
    assert texts.count("AddmmBackward0") == 3 and "0.weight" in texts
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mlp.svg"]  # no leftover source


def test_render_png_is_a_real_image(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    path, hint = render(_mlp_dot(), str(tmp_path / "mlp"), "png")
    assert hint is None
    with Image.open(path) as img:
        assert img.format == "PNG"
        width, height = img.size
        # 17 boxes in a column-ish layout: taller than wide, a few hundred pixels at 96 dpi
        assert 150 < width < 3000 and 400 < height < 5000
        colors = img.convert("RGB").getcolors(maxcolors=1 << 16)
    filled = {rgb for _, rgb in colors}
    assert (173, 216, 230) in filled  # lightblue parameters
    assert (202, 255, 112) in filled  # darkolivegreen1 output


def test_digraph_methods_render_too(tmp_path):
    dot = make_dot(minigrad.ones(2, requires_grad=True).exp())
    assert dot.pipe(format="svg").startswith(b"<?xml")
    out = dot.render(outfile=str(tmp_path / "g.png"))
    assert out.endswith("g.png")
