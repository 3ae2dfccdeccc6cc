"""MkDocs hooks of the minigrad site (``hooks:`` in ``mkdocs.yml``).

* the tutorial chapters live in ``tutorials/`` (runnable scripts, not docs sources): they are
  added to the site as ``tutorials/chNN_*.py`` pages, which mkdocs-jupyter executes and renders
  with their outputs and figures (``MINIGRAD_DOCS_EXECUTE=false`` renders them unexecuted);
* the parity coverage page is generated from the test suite (``docs/gen_parity_coverage.py``);
* a concept page named in the nav that does not exist yet gets a placeholder, so the site
  builds while other pages are being written.

The chapters write their figure files to a temporary folder during the build
(``MINIGRAD_TUTORIAL_OUT``) and print the folder a reader's own run uses
(``MINIGRAD_TUTORIAL_OUT_SHOWN``); the figures themselves are embedded in the rendered pages.
The kernels that execute the chapters are configured by ``docs/jupyter/`` (added to
``JUPYTER_CONFIG_PATH``): no log lines below errors, no ``Out[n]:`` of a cell's last value (a
chapter is a script, and prints what it shows), and cells compiled under the chapter's file
name and line numbers (`minigrad.tutorial.name_cells_after_chapters`).

Executed chapters are cached (mkdocs-jupyter's cache) in a folder named after a digest of
everything their outputs depend on: the chapters, the ``minigrad`` package, the kernel
configuration and the versions of Python, NumPy and PyTorch. A rebuild with none of those
changed reuses them; any change executes every chapter again.
"""

from __future__ import annotations

import hashlib
import html
import importlib
import importlib.util
import inspect
import os
import re
import sys
import tempfile
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from mkdocs.structure.toc import get_toc

ROOT = Path(__file__).resolve().parent.parent
# API reference pages: page -> (title, module, intro). Generated from each module's __all__.
API_PAGES = {
    "api/minigrad.md": ("minigrad", "minigrad", "The top-level package: `Tensor`, factories, "
                        "dtypes, ops and grad modes; everything in `minigrad.__all__`."),
    "api/autograd.md": ("minigrad.autograd", "minigrad.autograd", "`backward`, `grad`, nodes, "
                        "custom `Function`s, grad modes, anomaly detection, the functional API, "
                        "the profiler."),
    "api/func.md": ("minigrad.func", "minigrad.func", "`torch.func`'s transforms for "
                    "functions of tensors: `grad`, `vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian`, "
                    "`functional_call` (no `vmap`: the Jacobians loop over basis vectors)."),
    "api/nn.md": ("minigrad.nn", "minigrad.nn", "Modules, parameters, `nn.functional`, "
                  "`nn.init` and `nn.utils`."),
    "api/optim.md": ("minigrad.optim", "minigrad.optim", "Optimizers and learning-rate "
                     "schedulers."),
    "api/linalg.md": ("minigrad.linalg", "minigrad.linalg", "The `torch.linalg` functions "
                      "minigrad has: vector and matrix norms."),
    "api/viz.md": ("minigrad.viz", "minigrad.viz", "Drawing backward graphs of minigrad and "
                   "PyTorch tensors."),
    "api/debug.md": ("minigrad.debug", "minigrad.debug", "Finding out why a model does not "
                     "learn (minigrad and PyTorch models)."),
    "api/parity.md": ("minigrad.parity", "minigrad.parity", "The parity harness: run the same "
                      "scenario on minigrad and PyTorch and compare."),
    "api/utils.md": ("minigrad.utils", "minigrad.utils", "`RemovableHandle`, `BackwardHook`, "
                     "checkpointing."),
    "api/tutorial.md": ("minigrad.tutorial", "minigrad.tutorial", "Listing and running the "
                        "tutorial chapters, and the helpers they use."),
    "api/utils_data.md": ("minigrad.utils.data", "minigrad.utils.data", "Datasets, samplers, "
                          "`DataLoader` and `default_collate`, as `torch.utils.data`."),
    "api/cuda.md": ("minigrad.cuda", "minigrad.cuda", "The honest \"no GPU here\" answers of "
                    "a CPU-only PyTorch."),
    "api/backends.md": ("minigrad.backends.mkldnn", "minigrad.backends.mkldnn", "The oneDNN "
                        "switch: whether a float32 LSTM records one fused "
                        "`MkldnnRnnLayerBackward0` per layer or the composition of ops."),
    "api/profiler.md": ("minigrad.profiler", "minigrad.profiler", "The `torch.profiler` "
                        "spelling of the profiler; `minigrad.autograd.profiler` (on the "
                        "`minigrad.autograd` page) does the recording."),
}

PLACEHOLDER = """# {title}

This page is being written. Meanwhile, the tutorial chapters cover the topic:
[the tutorials](../tutorials/index.md).
"""


def _outputs_digest() -> str:
    """Digest of what the executed chapters' outputs depend on (see the module docstring)."""
    from importlib.metadata import PackageNotFoundError, version

    digest = hashlib.sha256()
    files = sorted([*(ROOT / "minigrad").rglob("*.py"), *(ROOT / "tutorials").glob("*.py"),
                    *(ROOT / "docs" / "jupyter").glob("*.json")])
    for path in files:
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    for dist in ("numpy", "torch", "matplotlib", "graphviz"):
        try:
            digest.update(f"{dist}={version(dist)}".encode())
        except PackageNotFoundError:
            pass
    digest.update(sys.version.encode())
    digest.update(os.environ.get("MINIGRAD_TUTORIAL_OUT_SHOWN", "").encode())
    return digest.hexdigest()[:16]


def on_config(config):
    """Chapters write their figures to a temporary folder and import minigrad from here; their
    kernels are configured by ``docs/jupyter``; executed chapters are cached by digest."""
    if not os.environ.get("MINIGRAD_TUTORIAL_OUT"):
        os.environ["MINIGRAD_TUTORIAL_OUT"] = tempfile.mkdtemp(prefix="minigrad-docs-")
    os.environ.setdefault("MINIGRAD_TUTORIAL_OUT_SHOWN", "minigrad-out/tutorials")
    jupyter = str(ROOT / "docs" / "jupyter")
    paths = os.environ.get("JUPYTER_CONFIG_PATH", "")
    if jupyter not in paths.split(os.pathsep):
        os.environ["JUPYTER_CONFIG_PATH"] = jupyter + (os.pathsep + paths if paths else "")
    jupyter_plugin = config["plugins"].get("mkdocs-jupyter")
    if jupyter_plugin is not None and jupyter_plugin.config["cache"]:
        base = Path(jupyter_plugin.config["cache_dir"])
        base = base if base.is_absolute() else ROOT / base
        jupyter_plugin.config["cache_dir"] = str(base / _outputs_digest())
    os.environ.setdefault("MPLBACKEND", "Agg")
    path = os.environ.get("PYTHONPATH", "")
    if str(ROOT) not in path.split(os.pathsep):  # the notebook kernels inherit this
        os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + path if path else "")
    for folder in (ROOT, ROOT / "docs"):  # minigrad, and gen_parity_coverage next to this file
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    return config


def _made_by_factory(name: str, obj) -> bool:
    """A function built at import time by a factory (``eq, ne = _compare(...)``): its
    docstring exists only at run time, so it is documented from the live object."""
    # (co_qualname is where the code was written: a factory that renames its function,
    # ``op.__qualname__ = "sin_"``, still leaves "<locals>" there)
    written = getattr(getattr(obj, "__code__", None), "co_qualname", "")
    return inspect.isfunction(obj) and ("<locals>" in obj.__qualname__ or "<locals>" in written
                                        or obj.__name__ != name)


def api_page(title: str, module_name: str, intro: str) -> str:
    """Markdown of one API reference page: one mkdocstrings block for the module's ``__all__``
    (submodules in ``__all__`` get their own block), and run-time documentation of functions
    made by factories, which static analysis cannot see."""
    module = importlib.import_module(module_name)
    names = list(getattr(module, "__all__", []))
    # a submodule, or a function named like the file that defines it (autograd.gradcheck):
    # static analysis sees the module there, so the module gets a block with its members
    submodules = [n for n in names if inspect.ismodule(getattr(module, n, None))
                  or hasattr(module, "__path__")
                  and importlib.util.find_spec(f"{module_name}.{n}") is not None]
    factory = [n for n in names if _made_by_factory(n, getattr(module, n, None))]
    members = [n for n in names if n not in submodules and n not in factory]
    lines = [f"# {title}", "", intro, "", f"::: {module_name}", "    options:",
             "      show_submodules: false", f"      members: {members!r}", ""]
    for sub in submodules:
        lines += [f"::: {module_name}.{sub}", "    options:", "      show_submodules: false",
                  "      heading_level: 2", ""]
    if factory:
        lines += ["## Elementwise functions", ""]
        for name in factory:
            fn = getattr(module, name)
            try:
                sig = str(inspect.signature(fn))
            except (TypeError, ValueError):  # pragma: no cover - builtins
                sig = "(...)"
            lines += [f"### `{module_name}.{name}{sig}` {{#{module_name}.{name}}}", "",
                      inspect.getdoc(fn) or "", ""]
    return "\n".join(lines)


def _nav_pages(nav) -> list:
    out = []
    for item in nav or []:
        if isinstance(item, str):
            out.append((None, item))
        elif isinstance(item, dict):
            for title, value in item.items():
                if isinstance(value, str):
                    out.append((title, value))
                else:
                    out.extend(_nav_pages(value))
    return out


@event_priority(100)  # before mkdocs-jupyter looks at the files
def on_files(files, config):
    """Add the chapters, the generated parity coverage page and missing-page placeholders."""
    for path in sorted((ROOT / "tutorials").glob("ch[0-9][0-9]_*.py")):
        files.append(File(f"tutorials/{path.name}", str(ROOT), config["site_dir"],
                          config["use_directory_urls"]))
    from gen_parity_coverage import generate

    files.append(File.generated(config, "parity-coverage.md", content=generate()))
    for page, spec in API_PAGES.items():
        files.append(File.generated(config, page, content=api_page(*spec)))
    for title, page in _nav_pages(config["nav"]):
        if page.endswith(".md") and files.get_file_from_path(page) is None:
            files.append(File.generated(config, page, content=PLACEHOLDER.format(
                title=title or page)))
    return files


_HEADING = re.compile(r'<h([1-6]) id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)
_ANCHOR = re.compile(r'<a class="anchor-link"[^>]*>.*?</a>', re.S)


def _is_chapter(page) -> bool:
    return re.fullmatch(r"tutorials/ch\d\d_\w+\.py", page.file.src_uri) is not None


def toc_tokens(content: str) -> list:
    """The table of contents of a rendered chapter, from its headings: ``[{level, id, name,
    children}]`` with the heading's whole text as ``name`` (code words included)."""
    root: list = []
    stack: list = []  # (level, children list)
    for level, anchor, inner in _HEADING.findall(content):
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", _ANCHOR.sub("", inner))).split())
        token = {"level": int(level), "id": anchor, "name": html.escape(text), "children": []}
        while stack and stack[-1][0] >= token["level"]:
            stack.pop()
        (stack[-1][1] if stack else root).append(token)
        stack.append((token["level"], token["children"]))
    return root


_REPO_LINK = re.compile(r"\[`([^`\]]+)`\]\(\.\./((?:tests|minigrad)/[^)\s]+)\)")


def on_page_markdown(markdown, page, config, files):
    """The API coverage page links the test files relative to the repository (for reading it
    on the forge); the site has no such files, so there they are code names whose tooltip is
    the path."""
    if page.file.src_uri == "api-coverage.md":
        markdown = _REPO_LINK.sub(lambda m: f'<code title="{m.group(2)}">{m.group(1)}</code>',
                                  markdown)
    return markdown


def on_page_content(content, page, config, files):
    """A chapter's table of contents from its rendered headings.

    mkdocs-jupyter builds it from a Markdown export that drops inline code, so "``next_functions``:
    the edges of the graph" became ": the edges of the graph" and its link pointed at an id
    the page does not have. (Its titles come from the nav: ``ignore_h1_titles`` in
    ``mkdocs.yml``.)
    """
    if _is_chapter(page):
        page.toc = get_toc(toc_tokens(content))
    return content
