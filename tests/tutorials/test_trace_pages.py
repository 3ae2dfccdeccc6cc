"""Step-by-step backward pages in the tutorials (``minigrad.tutorial.save_backward_page``):
written where the chapter says, embedded in notebooks (so in the docs site) as an iframe,
and announced by ``minigrad tutorial N``."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

from minigrad import tutorial
from minigrad.cli import main
from minigrad.viz import trace_backward

pytest.importorskip("torch")
pytest.importorskip("rich")


def scaled(lib, factor=None):
    x = lib.tensor(np.arange(3, dtype=np.float32), requires_grad=True)
    factor = factor or 2.0
    return trace_backward((x * factor).sum(), params={"x": x})


def test_page_written_and_announced(tmp_path, capsys):
    ours, theirs = tutorial.save_backward_page(scaled, tmp_path / "scaled", title="x * 2")
    out = capsys.readouterr().out
    assert f"step-by-step page written: {tmp_path / 'scaled.html'}" in out
    assert "minigrad and PyTorch record the same events" in out
    text = (tmp_path / "scaled.html").read_text()
    assert "<title>x * 2</title>" in text and ours.library == "minigrad"
    assert theirs.library == "torch"


def test_differing_traces_fail_like_side_by_side(tmp_path):
    def differs(lib):
        return scaled(lib, 3.0 if lib.__name__ == "torch" else 2.0)

    with pytest.raises(AssertionError, match="traces differ at observable event"):
        tutorial.save_backward_page(differs, tmp_path / "d")
    assert (tmp_path / "d.html").is_file()  # written anyway, to look at the difference


def test_notebook_gets_an_iframe(tmp_path, monkeypatch):
    display_mod = pytest.importorskip("IPython.display")
    shown = []
    monkeypatch.setattr(tutorial, "in_notebook", lambda: True)
    monkeypatch.setattr(display_mod, "display", shown.append)
    tutorial.save_backward_page(scaled, tmp_path / "nb", title="x * 2", height=300)
    (frame,) = shown
    body = frame.data
    assert "<iframe srcdoc=" in body and "height:300px" in body
    doc = html.unescape(re.search(r'srcdoc="([^"]*)"', body).group(1))
    assert doc == (tmp_path / "nb.html").read_text()


def test_tutorial_command_prints_where_the_page_is(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(tutorial.OUT_ENV, str(tmp_path))
    monkeypatch.delenv(tutorial.SHOWN_ENV, raising=False)
    assert main(["tutorial", "4", "--no-code"]) == 0
    out = capsys.readouterr().out
    page = tmp_path / "ch04" / "second_backward_steps.html"
    assert f"step-by-step page written: {page}" in out.replace("\n", "")
    assert page.is_file() and "backward fails at step" in page.read_text()
