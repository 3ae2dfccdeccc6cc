"""One docstring style across the package: Markdown (Google sections), rendered by mkdocstrings.

Sphinx roles (``:class:`X```, ``:func:`f```...) are not Markdown: the API pages showed them raw
("• :class: GradientFlowMonitor"). Names are written as code (`` `X` ``) or as mkdocstrings
cross-references (``[`X`][minigrad.debug.X]``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPHINX_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):`")
PENDING: set = set()  # files kept out of the check while another branch reworks them


def _docstrings(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "name", "<module>"), doc


def test_no_sphinx_roles_in_docstrings():
    found = []
    for path in sorted((ROOT / "minigrad").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in PENDING:
            continue
        for name, doc in _docstrings(path):
            for m in SPHINX_ROLE.finditer(doc):
                found.append(f"{rel}:{name}: {doc[m.start():m.start() + 40]!r}")
    assert not found, "Sphinx roles in docstrings (write `X` or [`X`][path.X]):\n" + "\n".join(
        found)
