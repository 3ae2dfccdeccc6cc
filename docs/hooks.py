"""MkDocs hooks of the minigrad site (``hooks:`` in ``mkdocs.yml``).

* the tutorial chapters live in ``tutorials/`` (runnable scripts, not docs sources): they are
  added to the site as ``tutorials/chNN_*.py`` pages, which mkdocs-jupyter executes and renders
  with their outputs and figures (``MINIGRAD_DOCS_EXECUTE=false`` renders them unexecuted);
* the parity coverage page is generated from the test suite (``docs/gen_parity_coverage.py``);
* a concept page named in the nav that does not exist yet gets a placeholder, so the site
  builds while other pages are being written.

The chapters write their figure files to a temporary folder during the build
(``MINIGRAD_TUTORIAL_OUT``); the figures themselves are embedded in the rendered pages.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import tempfile
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
# API reference pages: page -> (title, module, intro). Generated from each module's __all__.
API_PAGES = {
    "api/minigrad.md": ("minigrad", "minigrad", "The top-level package: `Tensor`, factories, "
                        "dtypes, ops and grad modes; everything in `minigrad.__all__`."),
    "api/autograd.md": ("minigrad.autograd", "minigrad.autograd", "`backward`, `grad`, nodes, "
                        "custom `Function`s, grad modes, anomaly detection."),
    "api/nn.md": ("minigrad.nn", "minigrad.nn", "Modules, parameters, `nn.functional` and "
                  "`nn.init`."),
    "api/optim.md": ("minigrad.optim", "minigrad.optim", "Optimizers."),
    "api/viz.md": ("minigrad.viz", "minigrad.viz", "Drawing backward graphs of minigrad and "
                   "PyTorch tensors."),
    "api/debug.md": ("minigrad.debug", "minigrad.debug", "Finding out why a model does not "
                     "learn (minigrad and PyTorch models)."),
    "api/parity.md": ("minigrad.parity", "minigrad.parity", "The parity harness: run the same "
                      "scenario on minigrad and PyTorch and compare."),
    "api/utils.md": ("minigrad.utils", "minigrad.utils", "`RemovableHandle`, `BackwardHook`."),
    "api/tutorial.md": ("minigrad.tutorial", "minigrad.tutorial", "Listing and running the "
                        "tutorial chapters, and the helpers they use."),
}

PLACEHOLDER = """# {title}

This page is being written. Meanwhile, the tutorial chapters cover the topic:
[the tutorials](../tutorials/index.md).
"""


def on_config(config):
    """Chapters write their figures to a temporary folder, and import minigrad from here."""
    if not os.environ.get("MINIGRAD_TUTORIAL_OUT"):
        os.environ["MINIGRAD_TUTORIAL_OUT"] = tempfile.mkdtemp(prefix="minigrad-docs-")
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
    return inspect.isfunction(obj) and ("<locals>" in obj.__qualname__ or obj.__name__ != name)


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
