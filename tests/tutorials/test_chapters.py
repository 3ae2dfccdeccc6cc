"""Every tutorial chapter runs as a script in a fresh process, agrees with PyTorch, and writes
its figures where it says; the chapter files are valid jupytext percent notebooks.

A chapter asserts that minigrad and PyTorch agree (``side_by_side`` / ``same_error`` /
explicit asserts), so a chapter that stops agreeing fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from minigrad.tutorial import chapters, parse_cells

pytest.importorskip("torch")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "tutorials").glob("ch[0-9][0-9]_*.py"))
TIME_LIMIT = 60  # seconds; chapters are meant to take < 30 s on 2 cores (slack for busy CI)


def test_thirteen_chapters_in_order():
    numbers = [c.number for c in chapters()]
    assert numbers == list(range(1, 14)), numbers


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_runs_and_agrees_with_torch(path, tmp_path):
    env = dict(os.environ, MINIGRAD_TUTORIAL_OUT=str(tmp_path), MPLBACKEND="Agg",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=env, text=True,
                          capture_output=True, timeout=4 * TIME_LIMIT)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, f"{path.name} failed:\n{proc.stdout[-3000:]}\n{proc.stderr}"
    assert elapsed < TIME_LIMIT, f"{path.name} took {elapsed:.1f} s"
    assert "quote: marker" not in proc.stdout, "a quoted source marker is gone: " + proc.stdout
    number = int(path.name[2:4])
    out_dir = tmp_path / f"ch{number:02d}"
    assert f"figures for this chapter go to {out_dir.relative_to(tmp_path)}" in proc.stdout or \
        str(out_dir) in proc.stdout
    written = re.findall(r"(?:figure|graph) written: (\S+)", proc.stdout)
    assert written, "a chapter writes at least one figure and prints where"
    for name in written:
        file = Path(name) if Path(name).is_absolute() else tmp_path / name
        assert file.is_file() and file.stat().st_size > 0, name
        assert file.parent == out_dir


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_is_a_percent_notebook_comparing_both_libraries(path):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# ---\n# jupyter:"), "jupytext header"
    cells = parse_cells(text)
    kinds = [k for k, _ in cells]
    assert kinds[0] == "markdown" and cells[0][1].startswith("# "), "starts with a title"
    assert kinds.count("code") >= 3 and kinds.count("markdown") >= 3
    code = "\n".join(src for k, src in cells if k == "code")
    assert "import torch" in code and "minigrad" in code
    # at least one assertion comparing the libraries (side_by_side / same_error assert inside)
    assert re.search(r"side_by_side\(|same_error\(|assert .*(pt|torch)", code)
    jupytext = pytest.importorskip("jupytext")
    nb = jupytext.reads(text, fmt="py:percent")
    assert [c.cell_type for c in nb.cells] == kinds
