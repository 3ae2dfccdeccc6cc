"""The step-by-step backward page (``BackwardTrace.to_html``, ``minigrad graph --html``) as a
file: self-contained, carrying the trace it plays, the drawing wired to the events, small
enough for 200-node graphs. (Playing it in a browser: test_trace_browser.py.)"""

import json
import re
import shutil

import numpy as np
import pytest

import minigrad
from minigrad.cli import main
from minigrad.viz import trace_backward
from minigrad.viz_page import page_html
from minigrad.viz_trace import toy_traces

from ._trace_graphs import chain_traces

torch = pytest.importorskip("torch")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")


def embedded(text: str) -> dict:
    m = re.search(r'<script type="application/json" id="trace-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


def test_page_is_self_contained_and_carries_both_traces(tmp_path):
    mg, th = toy_traces("residual")
    path = mg.to_html(tmp_path / "p.html", th)
    text = (tmp_path / "p.html").read_text()
    assert path == str(tmp_path / "p.html")
    # nothing is fetched: no external scripts, styles, images or links
    assert not re.search(r'<(script|link|img|iframe)[^>]+(src|href)=', text)
    assert not re.search(r'(src|href)="(https?:)?//', text)
    data = embedded(text)
    assert [t["library"] for t in data["traces"]] == ["minigrad", "torch"]
    assert data["traces"][0]["events"] == json.loads(mg.to_json())["events"]
    assert data["diff"] is None and "Both traces show the same events" in text
    assert len(data["traces"][1]["text"]) == len(th.events)


@needs_dot
def test_drawing_is_wired_to_the_trace():
    mg, _ = toy_traces("shared", hooks=False)
    nodes = {int(n) for n in re.findall(r'class="node fn" data-n="(\d+)"', mg.svg)}
    edges = {int(e) for e in re.findall(r'class="edge flow" data-e="(\d+)"', mg.svg)}
    assert nodes == set(range(len(mg.graph["nodes"])))
    assert edges == set(range(len(mg.graph["edges"])))
    saved = re.findall(r'class="node saved" data-s="\d+" data-fns="([\d ]+)"', mg.svg)
    savers = {int(k) for fns in saved for k in fns.split()}
    assert savers and savers <= {n["id"] for n in mg.graph["nodes"] if n["saved"]}
    assert "<title>1" not in mg.svg  # no memory addresses left


def test_first_difference_is_marked():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def run(lib, scale):
        t = lib.tensor(x, requires_grad=True)
        return trace_backward((t * scale).sum(), params={"t": t})

    a, b = run(minigrad, 2.0), run(torch, 3.0)
    diff = a.first_difference(b)
    assert diff is not None and a.observable()[diff]["type"] == "send"
    text = page_html([a, b])
    assert "First difference at step" in text and embedded(text)["diff"] == diff


def test_failing_second_backward_page_names_the_step(tmp_path):
    x = minigrad.tensor(np.ones(3, np.float32), requires_grad=True)
    y = x.exp().sum()
    y.backward()
    trace = trace_backward(y, params={"x": x})
    text = page_html([trace])
    step = trace.error["step"]
    assert f'data-goto="0:{step}"' in text and "backward fails at step" in text
    freed = [n for n in embedded(text)["traces"][0]["graph"]["nodes"] if n["freed"]]
    assert [n["name"] for n in freed] == ["ExpBackward0"]


def test_200_node_page_stays_under_2_mb(tmp_path):
    mg, th = chain_traces()
    assert len(mg.graph["nodes"]) >= 200 and mg.first_difference(th) is None
    path = tmp_path / "chain.html"
    mg.to_html(path, th)
    size = path.stat().st_size
    assert size < 2 * 1024 * 1024, size


def test_cli_graph_html(tmp_path, capsys):
    page = tmp_path / "steps" / "mlp.html"
    assert main(["graph", "mlp", "--format", "dot", "--out", str(tmp_path),
                 "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert f"step by step:       {page}" in out
    assert "minigrad and PyTorch record the same events" in out
    data = embedded(page.read_text())
    assert len(data["traces"]) == 2 and data["diff"] is None
    hooks = [e for e in data["traces"][0]["events"] if e["type"] == "hook"]
    assert {h["kind"] for h in hooks} == {"tensor", "module", "module_pre", "post_accumulate"}
