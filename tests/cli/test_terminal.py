"""The ``minigrad`` command in an 80-column terminal, and the text of its errors.

* nothing is cut at 80 columns: a chapter's code panels wrap long lines (``minigrad tutorial 1``
  lost ``== pt[...]`` of an assert), the ``doctor`` and ``parity`` tables fold long cells
  ("Line…", "tanh_sig…"), and no line is wider than the terminal;
* the demo's footer gives both times to 3 significant digits (both were "0.2 s" beside a
  ratio of 1.49x) and prints the ratio in one piece (rich's highlighter coloured "1.50x" in
  fragments);
* every argument that takes a value rejects a bad one with a plain sentence ("invalid
  _positive_int value" named a private function);
* ``minigrad graph`` says what it drew and where, and groups nodes by module by default (the
  README's picture).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from minigrad.cli import build_parser, main, training_time_line

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 80


def _run(*args, timeout=300):
    env = dict(os.environ, COLUMNS=str(WIDTH), LINES="50", PYTHONPATH=str(ROOT),
               MPLBACKEND="Agg", TERM="dumb", NO_COLOR="1")
    env.pop("FORCE_COLOR", None)
    return subprocess.run([sys.executable, "-m", "minigrad.cli", *args], cwd=ROOT, env=env,
                          text=True, capture_output=True, timeout=timeout)


def _assert_fits(out: str):
    wide = [line for line in out.splitlines() if len(line) > WIDTH]
    assert not wide, wide[:3]
    assert "…" not in out, [line for line in out.splitlines() if "…" in line][:3]


def test_tutorial_code_panels_wrap_instead_of_cutting(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from rich.console import Console

    from minigrad import tutorial

    monkeypatch.setenv("MINIGRAD_TUTORIAL_OUT", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    buf = io.StringIO()
    console = Console(file=buf, width=WIDTH, force_terminal=False, color_system=None)
    assert tutorial.run_chapter(1, console=console) == 0
    out = buf.getvalue()
    _assert_fits(out)
    panels = "".join(line.strip()[1:-1] for line in out.splitlines()
                     if line.strip().startswith("│") and line.strip().endswith("│"))
    panels = "".join(panels.split())
    for kind, src in tutorial.parse_cells(tutorial.find_chapter(1).path.read_text()):
        if kind == "code":
            assert "".join(src.split()) in panels, src[:60]
    assert 'mg["z.grad_fn(nobackwardyet)"]==pt["z.grad_fn(nobackwardyet)"]' in panels


@pytest.mark.parametrize("args", [["doctor", "nan"], ["doctor", "stuck"],
                                  ["parity", "--case", "tanh_sigmoid", "--case", "add"]])
def test_tables_fold_at_80_columns(args):
    pytest.importorskip("torch")
    proc = _run(*args)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    _assert_fits(proc.stdout)
    if args[0] == "parity":
        # the case name whole, or folded over two lines (where it folds depends on the headers)
        m = re.search(r"^  (tanh_\w*).*\n  (\w*)", proc.stdout, re.M)
        assert m, proc.stdout
        assert m.group(1) == "tanh_sigmoid" or m.group(1) + m.group(2) == "tanh_sigmoid", m.groups()
    if args[1] == "nan":
        assert "Linear" in proc.stdout or "Linea" in proc.stdout


def test_demo_footer_times_agree_with_their_ratio():
    line = training_time_line({"minigrad": 0.2349, "torch": 0.1577})
    assert "minigrad 0.235 s" in line and "torch 0.158 s" in line and "1.49x" in line
    from rich.console import Console

    buf = io.StringIO()
    Console(file=buf, force_terminal=True, color_system="standard", width=WIDTH).print(
        line, highlight=False)
    assert "1.49x" in buf.getvalue()  # not split by colour codes


def _valued_arguments():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        for action in command._actions:
            if action.type is not None and action.choices is None:
                yield name, action


@pytest.mark.parametrize("bad", ["abc", "-3", "0", "nan", ""])
def test_every_argument_rejects_a_bad_value_in_words(bad, capsys):
    checked = 0
    for command, action in _valued_arguments():
        try:
            action.type(bad)
        except (argparse.ArgumentTypeError, ValueError, TypeError):
            pass
        else:
            continue  # a good value for this argument (e.g. --seed -3)
        option = action.option_strings[0] if action.option_strings else None
        argv = [command, "stuck" if command in ("graph", "doctor") else None,
                *([option, bad] if option else [bad])]
        argv = [a for a in argv if a is not None] if option else [command, bad]
        with pytest.raises(SystemExit) as exc:
            main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2, argv
        message = err.strip().splitlines()[-1]
        assert re.search(r"expected|must be|sizes", message), (argv, message)
        assert not re.search(r"invalid \w+ value", message), (argv, message)
        assert "_positive" not in message and "_shape" not in message, (argv, message)
        checked += 1
    assert checked >= 2


def test_graph_says_what_it_drew_and_groups_modules_by_default(tmp_path, capsys):
    pytest.importorskip("torch")
    code = main(["graph", "stuck", "--format", "dot", "--out", str(tmp_path)])
    assert code == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("backward graph of the toy network 'stuck' (")
    assert "one cluster per submodule" in out.splitlines()[0]
    for label, name in (("minigrad", "stuck_minigrad.dot"), ("torch", "stuck_torch.dot"),
                        ("both side by side", "stuck.html")):
        assert re.search(rf"^  {label}: +{re.escape(str(tmp_path / name))}  \(", out, re.M), out
    assert "subgraph cluster" in (tmp_path / "stuck_minigrad.dot").read_text()
    main(["graph", "stuck", "--format", "dot", "--out", str(tmp_path), "--no-modules"])
    assert "subgraph cluster" not in (tmp_path / "stuck_minigrad.dot").read_text()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_graph_svg_is_labelled_an_image(tmp_path, capsys):
    pytest.importorskip("torch")
    assert main(["graph", "mlp", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"{tmp_path / 'mlp_minigrad.svg'}  (image)" in out
    assert f"{tmp_path / 'mlp.html'}  (page)" in out
