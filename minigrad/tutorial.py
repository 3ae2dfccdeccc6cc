"""The tutorial chapters: listing and running them, and the helpers the chapters use.

The chapters are ``tutorials/chNN_*.py`` files in jupytext "percent" format: ``# %%`` starts a
code cell, ``# %% [markdown]`` a narrative cell whose lines start with ``# ``. They run as plain
scripts (``python tutorials/ch01_graph.py``), open as notebooks with jupytext, and are executed
when the documentation site is built. ``minigrad tutorial N`` prints a chapter's narrative, its
code and its output in the terminal (`run_chapter`).

Helpers for the chapters (all print plain text, so the output reads the same in a terminal and
in a notebook):

* `side_by_side` runs one scenario, written as a function of the library, on minigrad and
  on PyTorch, prints both results next to each other and asserts they agree;
* `same_error` runs a failing scenario on both and asserts the same exception type and key
  phrase;
* `quote` prints lines of minigrad's own source, found by reference (an object and a
  marker), so the chapters never paste code that could go stale;
* `output_dir`, `save_figure`, `save_graph` write figures where the reader is
  told to look (``$MINIGRAD_TUTORIAL_OUT/chNN``, default ``minigrad-out/tutorials/chNN``), and
  `shown` is how a path is printed.

PyTorch is imported only by the helpers that compare against it.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
import textwrap
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["Chapter", "chapters", "find_chapter", "tutorials_dir", "parse_cells", "run_chapter",
           "output_dir", "side_by_side", "same_error", "quote", "save_figure", "save_graph",
           "in_notebook", "shown", "name_cells_after_chapters", "QUOTE_MISSES",
           "save_backward_page"]

OUT_ENV = "MINIGRAD_TUTORIAL_OUT"
SHOWN_ENV = "MINIGRAD_TUTORIAL_OUT_SHOWN"
DIR_ENV = "MINIGRAD_TUTORIALS_DIR"
DEFAULT_OUT = Path("minigrad-out") / "tutorials"
_CHAPTER_RE = re.compile(r"ch(\d\d)_(\w+)\.py$")

#: Markers `quote` could not find (the chapter tests fail when this is not empty).
QUOTE_MISSES: list = []


# ----------------------------------------------------------------------------- chapters
@dataclass(frozen=True)
class Chapter:
    """One chapter file: ``number`` (1..), ``path``, ``title`` (its first heading) and
    ``summary`` (the first paragraph after the heading)."""

    number: int
    path: Path
    title: str
    summary: str


def tutorials_dir() -> Path:
    """The folder holding the chapters: ``$MINIGRAD_TUTORIALS_DIR``, else ``tutorials/`` next to
    the ``minigrad`` package (a source checkout, or ``pip install -e .``).

    Raises FileNotFoundError, saying where it looked, when there is no such folder.
    """
    env = os.environ.get(DIR_ENV)
    path = Path(env) if env else Path(__file__).resolve().parent.parent / "tutorials"
    if not path.is_dir():
        raise FileNotFoundError(f"no tutorials folder at {path}: the chapters ship with the "
                                f"source checkout (git clone, then pip install -e .), or set "
                                f"{DIR_ENV}")
    return path


def parse_cells(text: str) -> list:
    """Split a jupytext percent-format file into ``[(kind, source)]``, kind ``"markdown"`` or
    ``"code"``. The YAML header (``# ---`` ... ``# ---``) is dropped; markdown lines lose their
    leading ``# ``."""
    return [(kind, src) for kind, src, _ in _cells(text)]


def _cells(text: str) -> list:
    """``[(kind, source, line number of the source's first line in the file)]``."""
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "# ---":
        start = next((i for i in range(1, len(lines)) if lines[i].strip() == "# ---"), -1) + 1
    cells, kind, buf = [], None, []

    def flush():
        while buf and not buf[0][1].strip():
            buf.pop(0)
        while buf and not buf[-1][1].strip():
            buf.pop()
        if kind is not None and buf:
            cells.append((kind, "\n".join(body for _, body in buf), buf[0][0]))

    for number, line in enumerate(lines[start:], start + 1):
        if line.startswith("# %%"):
            flush()
            kind, buf = ("markdown" if "[markdown]" in line else "code"), []
        elif kind == "markdown":
            buf.append((number, line[2:] if line.startswith("# ") else line.lstrip("#")))
        elif kind is not None:
            buf.append((number, line))
    flush()
    return cells


def _chapter(path: Path) -> Chapter:
    cells = parse_cells(path.read_text(encoding="utf-8"))
    text = next((src for kind, src in cells if kind == "markdown"), "")
    title, summary = path.stem, ""
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    if paragraphs and paragraphs[0].startswith("#"):
        title = paragraphs.pop(0).lstrip("# ").strip()
    if paragraphs:
        summary = " ".join(paragraphs[0].split())
    return Chapter(int(_CHAPTER_RE.search(path.name).group(1)), path, title, summary)


def chapters() -> list:
    """All chapters, in order (``tutorials/chNN_*.py``)."""
    paths = sorted(p for p in tutorials_dir().glob("ch*.py") if _CHAPTER_RE.search(p.name))
    return [_chapter(p) for p in paths]


def find_chapter(number: int) -> Chapter:
    """Chapter ``number``; ValueError listing the chapters that exist otherwise."""
    found = {c.number: c for c in chapters()}
    if number not in found:
        raise ValueError(f"no chapter {number}; chapters are {', '.join(map(str, found))} "
                         f"(minigrad tutorial --list)")
    return found[number]


def run_chapter(number: int, show_code: bool = True, console=None) -> int:
    """Run chapter ``number`` cell by cell in this process, printing each narrative cell (as
    Markdown), each code cell (unless ``show_code`` is False) and what the code prints.

    Figures go to `output_dir`. Returns 0, or 1 after printing the traceback when a cell
    raises (for instance when minigrad and PyTorch stop agreeing). ``console`` is a
    ``rich.console.Console`` (one is made if None).
    """
    from rich.console import Console
    from rich.markdown import Markdown
    from rich.panel import Panel
    from rich.rule import Rule
    from rich.syntax import Syntax

    console = console or Console()
    chapter = find_chapter(number)
    os.environ.setdefault("MPLBACKEND", "Agg")  # figures are written to files, never shown
    namespace = {"__name__": "__main__", "__file__": str(chapter.path)}
    title = f"Chapter {chapter.number}: {chapter.title}"
    # a rule cuts a title wider than the terminal; the chapter's heading follows anyway
    console.print(Rule(title if len(title) + 8 <= console.width else f"Chapter {number}"))
    for kind, src, line in _cells(chapter.path.read_text(encoding="utf-8")):
        if kind == "markdown":
            console.print(Markdown(src))
            continue
        if show_code:
            code = Syntax(src, "python", theme="ansi_dark", background_color="default",
                          word_wrap=True)  # a long line wraps in the panel, never cut
            console.print(Panel(code, title="code", title_align="left", border_style="dim"))
        sys.stdout.flush()
        try:  # padded so that tracebacks and reports name the line of the chapter file
            code_obj = compile("\n" * (line - 1) + src, str(chapter.path), "exec")
            exec(code_obj, namespace)  # noqa: S102 - a chapter of this project
        except Exception:  # noqa: BLE001 - shown to the reader, then a failing exit status
            traceback.print_exc()
            console.print(f"[red]Chapter {chapter.number} stopped: the cell above raised.[/]")
            return 1
        sys.stdout.flush()
    console.print(Rule(f"end of chapter {chapter.number}"))
    console.print(f"files in {shown(output_dir(number))}", overflow="fold")
    return 0


# ----------------------------------------------------------------------------- outputs
def output_dir(chapter: int) -> Path:
    """Where chapter ``chapter`` writes figures: ``$MINIGRAD_TUTORIAL_OUT/chNN`` (default
    ``minigrad-out/tutorials/chNN`` under the current directory), created if missing."""
    root = Path(os.environ.get(OUT_ENV) or DEFAULT_OUT)
    path = root / f"ch{chapter:02d}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def in_notebook() -> bool:
    """True inside a Jupyter kernel (figures are then also displayed inline)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def shown(path) -> str:
    """``path`` as the chapters print it.

    When ``$MINIGRAD_TUTORIAL_OUT_SHOWN`` is set, the output folder (``$MINIGRAD_TUTORIAL_OUT``)
    is printed as that instead: the documentation build writes the figures to a temporary
    folder and prints the folder a reader's own run uses (``minigrad-out/tutorials``), so no
    build-machine path reaches the site.
    """
    path = Path(path)
    alias = os.environ.get(SHOWN_ENV)
    root = os.environ.get(OUT_ENV)
    if alias and root:
        try:
            return (Path(alias) / path.resolve().relative_to(Path(root).resolve())).as_posix()
        except ValueError:
            pass
    return str(path)


def _display_image(path: Path, mime: str, alt: str) -> None:
    """Show an image inline in a notebook, with ``alt`` as its alternative text."""
    import base64
    import html

    from IPython.display import HTML, display

    data = base64.b64encode(path.read_bytes()).decode("ascii")
    display(HTML(f'<img src="data:{mime};base64,{data}" alt="{html.escape(alt, quote=True)}">'))


def save_figure(fig, path, alt: str | None = None) -> Path:
    """Save a matplotlib figure to ``path`` (PNG), print where, show it in a notebook, close it.

    ``alt`` is the image's alternative text in a notebook (default: the figure's title, else
    its file name).
    """
    import matplotlib.pyplot as plt

    path = Path(path)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    print(f"figure written: {shown(path)}")
    if in_notebook():
        title = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
        titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
        text = alt or title or "; ".join(titles) or path.stem.replace("_", " ")
        _display_image(path, "image/png", f"Figure: {text}" if not alt else alt)
    plt.close(fig)
    return path


def save_graph(dot, stem, alt: str | None = None) -> Path:
    """Render a ``make_dot`` drawing to ``stem.svg`` (``stem.dot`` plus an install hint when
    Graphviz's ``dot`` program is missing), print where, and show it in a notebook.

    ``alt`` is the image's alternative text in a notebook (default: "Backward graph" and the
    file's name).
    """
    from .viz import render

    path, hint = render(dot, str(stem), "svg")
    print(f"graph written: {shown(path)}")
    if hint:
        print(hint)
    elif in_notebook():
        text = alt or f"Backward graph drawn by make_dot ({Path(path).stem.replace('_', ' ')})"
        _display_image(Path(path), "image/svg+xml", text)
    return Path(path)


def save_backward_page(scenario, stem, title: str | None = None, height: int = 640) -> tuple:
    """Trace one backward pass on minigrad and on PyTorch and write the page that plays both
    side by side (`minigrad.viz_trace.BackwardTrace.to_html`) to ``stem.html``; print where and
    whether the two traces agree; embed the page in a notebook (an ``iframe``, ``height``
    pixels high), which is how the documentation site shows it.

    ``scenario(lib)`` builds a graph with ``lib`` and returns ``minigrad.viz.trace_backward(...)``
    of it. Returns ``(minigrad trace, torch trace)``.

    Raises AssertionError when the traces differ (nodes, hooks, gradients or error).
    """
    import html

    import minigrad

    from .parity import torch_lib

    ours, theirs = scenario(minigrad), scenario(torch_lib())
    path = Path(f"{stem}.html")
    ours.to_html(path, theirs, title=title)
    diff = ours.first_difference(theirs)
    print(f"step-by-step page written: {shown(path)} ({len(ours.events)} steps; "
          + ("minigrad and PyTorch record the same events)" if diff is None else
             f"first difference at observable event {diff})"))
    if in_notebook():
        from IPython.display import HTML, display

        page = html.escape(path.read_text(encoding="utf-8"), quote=True)
        label = html.escape(title or "backward, step by step", quote=True)
        display(HTML(f'<div class="backward-page"><iframe srcdoc="{page}" title="{label}" '
                     f'style="width:100%;height:{height}px;border:1px solid #ccc" '
                     'loading="lazy"></iframe></div>'))  # (a bare iframe makes IPython warn)
    assert diff is None, f"minigrad and PyTorch traces differ at observable event {diff}"
    return ours, theirs


def name_cells_after_chapters() -> None:
    """In a Jupyter kernel running a chapter, compile each cell under the chapter's file name
    and line numbers, so that tracebacks and reports (``at ch09_case_study.py:74``) read as
    they do in the terminal instead of naming the kernel's temporary cell files.

    The documentation build runs this when each kernel starts. A cell whose code is not found
    in a chapter keeps IPython's name.
    """
    import linecache

    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return
    compiler = shell.compile
    texts = {}
    try:
        for path in sorted(tutorials_dir().glob("ch[0-9][0-9]_*.py")):
            texts[str(path)] = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    state = {"file": None, "pos": 0, "offset": 0}
    cache, ast_parse = compiler.cache, compiler.ast_parse

    def locate(code: str):
        code = code.strip("\n")
        files = [state["file"]] if state["file"] else list(texts)
        for file in files:
            at = texts[file].find(code, state["pos"] if file == state["file"] else 0)
            if code and at >= 0:
                return file, at
        return None

    def named_cache(transformed_code, number=0, raw_code=None):
        name = cache(transformed_code, number, raw_code)
        state["offset"] = 0
        found = locate(raw_code if raw_code is not None else transformed_code)
        if found is None:
            return name
        file, at = found
        state.update(file=file, pos=at + 1)
        # the cell's first non-blank line is line `offset + 1` of the file
        stripped = transformed_code[:len(transformed_code) - len(transformed_code.lstrip("\n"))]
        state["offset"] = texts[file].count("\n", 0, at) - stripped.count("\n")
        linecache.cache.pop(name, None)
        compiler._filename_map[file] = number
        return file

    def shifted_parse(source, filename="<unknown>", symbol="exec"):
        tree = ast_parse(source, filename, symbol)
        if filename == state["file"] and state["offset"]:
            import ast

            ast.increment_lineno(tree, state["offset"])
        return tree

    compiler.cache, compiler.ast_parse = named_cache, shifted_parse


# ----------------------------------------------------------------------------- comparing
def _fmt(value) -> str:
    if hasattr(value, "detach") and hasattr(value, "shape"):
        from .parity import to_numpy

        value = to_numpy(value)
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=4, suppress_small=True, separator=", ")
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _show(label: str, a, b) -> None:
    sa, sb = _fmt(a), _fmt(b)
    if "\n" not in sa + sb and len(label) <= 26 and len(sa) <= 32 and len(sb) < 32:
        print(f"  {label:<26} {sa:<32} {sb}")
    else:
        print(f"  {label}")
        print("    minigrad: " + sa.replace("\n", "\n              "))
        print("    torch:    " + sb.replace("\n", "\n              "))


def side_by_side(scenario, *args, rtol: float = 1e-5, atol: float = 1e-6, **kwargs):
    """Run ``scenario(lib, *args, **kwargs)`` with ``lib`` = minigrad and with ``lib`` = torch,
    print the two results side by side and assert that they agree.

    ``scenario`` returns a dict ``{label: value}`` (values: str, numbers, lists, tuples, NumPy
    arrays or tensors). Tensors are compared as arrays, within ``rtol``/``atol``; everything
    else exactly (`minigrad.parity.compare`). Returns ``(minigrad result, torch result)``.

    Raises AssertionError naming the first entry where the libraries differ.
    """
    import minigrad

    from .parity import compare, to_numpy, torch_lib

    torch = torch_lib()
    ours, theirs = scenario(minigrad, *args, **kwargs), scenario(torch, *args, **kwargs)
    print(f"  {'':<26} {'minigrad':<32} torch")
    for key in ours:
        _show(str(key), ours[key], theirs.get(key, "<missing>"))

    def plain(v):
        if hasattr(v, "detach") and hasattr(v, "shape"):
            return to_numpy(v)
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v

    compare({k: plain(v) for k, v in ours.items()}, {k: plain(v) for k, v in theirs.items()},
            getattr(scenario, "__name__", "scenario"), rtol=rtol, atol=atol)
    return ours, theirs


def same_error(scenario, phrases, *args, **kwargs) -> None:
    """Run ``scenario(lib)``, which must raise, on minigrad and torch; print both messages and
    assert the same exception type and that both messages contain ``phrases`` (a string or a
    list of strings).

    Raises AssertionError when a library raises nothing, the types differ or a phrase is
    missing.
    """
    import minigrad

    from .parity import capture_error, torch_lib

    torch = torch_lib()
    ours = capture_error(lambda: scenario(minigrad, *args, **kwargs))
    theirs = capture_error(lambda: scenario(torch, *args, **kwargs))
    for label, err in (("minigrad", ours), ("torch", theirs)):
        text = "no error" if err is None else f"{err[0]}: {err[1]}"
        print(textwrap.fill(text, 96, initial_indent=f"  {label + ':':<10}",
                            subsequent_indent=" " * 12))
    assert theirs is not None and ours is not None, "both libraries must raise"
    assert ours[0] == theirs[0], f"exception types differ: {ours[0]} vs {theirs[0]}"
    for phrase in [phrases] if isinstance(phrases, str) else phrases:
        assert phrase in ours[1] and phrase in theirs[1], f"{phrase!r} missing from a message"


def quote(obj, start: str | None = None, stop: str | None = None, *, max_lines: int = 40):
    """Print the source of ``obj`` (a function, class or method of minigrad) with its file and
    line numbers: the whole object, or from the first line containing ``start`` to the next
    line containing ``stop`` (just the ``start`` line when ``stop`` is None).

    When a marker is not found (the source changed) the whole object is printed and the miss is
    recorded in `QUOTE_MISSES`, which the chapter tests check.
    """
    lines, first = inspect.getsourcelines(obj)
    path = Path(inspect.getsourcefile(obj))
    try:
        rel = path.relative_to(Path(__file__).resolve().parent.parent)
    except ValueError:
        rel = path
    lo, hi = 0, len(lines)
    if start is not None:
        hit = next((i for i, line in enumerate(lines) if start in line), None)
        end = None
        if hit is not None:
            end = hit + 1 if stop is None else next(
                (i + 1 for i in range(hit, len(lines)) if stop in lines[i]), None)
        if hit is None or end is None:
            QUOTE_MISSES.append(f"{obj.__qualname__}: {start!r}..{stop!r}")
            print(f"  (quote: marker {start!r} / {stop!r} not found; showing all of it)")
        else:
            lo, hi = hit, end
    hi = min(hi, lo + max_lines)
    print(f"  {rel}:{first + lo}-{first + hi - 1}  ({obj.__qualname__})")
    for i in range(lo, hi):
        print(f"  {first + i:>5} | {lines[i].rstrip()}")
