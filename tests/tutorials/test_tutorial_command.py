"""``minigrad tutorial [N] [--list]`` and the chapter parser behind it."""

from __future__ import annotations

import pytest

from minigrad.cli import main
from minigrad.tutorial import parse_cells

pytest.importorskip("rich")
pytest.importorskip("torch")

CHAPTER = """# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown]
# # A title
#
# First paragraph
# on two lines.

# %%
x = 1 + 1
print("x is", x)

# %% [markdown]
# ## More

# %%
assert x == {expected}, "minigrad and torch disagree"
print("done")
"""


@pytest.fixture
def chapters_dir(tmp_path, monkeypatch):
    folder = tmp_path / "tutorials"
    folder.mkdir()
    (folder / "ch01_ok.py").write_text(CHAPTER.format(expected=2))
    (folder / "ch02_broken.py").write_text(CHAPTER.format(expected=3))
    monkeypatch.setenv("MINIGRAD_TUTORIALS_DIR", str(folder))
    monkeypatch.setenv("MINIGRAD_TUTORIAL_OUT", str(tmp_path / "out"))
    monkeypatch.setenv("COLUMNS", "120")
    return folder


def test_parse_cells_drops_header_and_comment_marks():
    cells = parse_cells(CHAPTER.format(expected=2))
    assert [k for k, _ in cells] == ["markdown", "code", "markdown", "code"]
    assert cells[0][1] == "# A title\n\nFirst paragraph\non two lines."
    assert cells[1][1] == 'x = 1 + 1\nprint("x is", x)'


def test_list(chapters_dir, capsys):
    assert main(["tutorial", "--list"]) == 0
    out = capsys.readouterr().out
    assert "A title" in out and "ch01_ok.py" in out and "ch02_broken.py" in out
    assert main(["tutorial"]) == 0  # no N: the list too
    assert "ch01_ok.py" in capsys.readouterr().out


def test_run_prints_narrative_code_and_output(chapters_dir, capsys):
    assert main(["tutorial", "1"]) == 0
    out = capsys.readouterr().out
    for text in ("Chapter 1: A title", "First paragraph", "x = 1 + 1", "x is 2", "done",
                 "end of chapter 1"):
        assert text in out, text
    assert (chapters_dir.parent / "out" / "ch01").is_dir()


def test_no_code(chapters_dir, capsys):
    assert main(["tutorial", "1", "--no-code"]) == 0
    out = capsys.readouterr().out
    assert "x is 2" in out and "x = 1 + 1" not in out


def test_failing_chapter_exits_1_with_traceback(chapters_dir, capsys):
    assert main(["tutorial", "2"]) == 1
    captured = capsys.readouterr()
    assert "minigrad and torch disagree" in captured.err
    # the traceback names the line of the chapter file, not of the cell
    line = CHAPTER.splitlines().index("assert x == {expected}, \"minigrad and torch disagree\"") + 1
    assert f'ch02_broken.py", line {line}' in captured.err
    assert "Chapter 2 stopped" in captured.out


def test_unknown_chapter_exits_2(chapters_dir, capsys):
    assert main(["tutorial", "7"]) == 2
    assert "no chapter 7; chapters are 1, 2" in capsys.readouterr().err


def test_bad_chapter_number_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["tutorial", "0"])
    assert e.value.code == 2


def test_missing_folder_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MINIGRAD_TUTORIALS_DIR", str(tmp_path / "nowhere"))
    assert main(["tutorial", "--list"]) == 2
    assert "no tutorials folder" in capsys.readouterr().err


def test_real_chapter_one_runs(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("MINIGRAD_TUTORIAL_OUT", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.delenv("MINIGRAD_TUTORIALS_DIR", raising=False)
    assert main(["tutorial", "1"]) == 0
    out = capsys.readouterr().out
    assert "AddBackward0" in out and "graph written:" in out


def test_side_by_side_keeps_its_columns_for_long_labels(capsys):
    """A label longer than the 26-character column goes on its own line, values below it."""
    from minigrad.tutorial import side_by_side

    side_by_side(lambda lib: {"short": 1, "eval(): image 0 alone = in a batch": True})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].index("minigrad") == lines[1].index("1") == 29
    assert lines[1].index("1", 29 + 1) == 62
    assert lines[2:] == ["  eval(): image 0 alone = in a batch", "    minigrad: True",
                         "    torch:    True"]
