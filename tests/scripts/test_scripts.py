"""Tutorial-style scripts run unchanged under both libraries, with the printed output compared.

Each ``tests/scripts/*.py`` is plain PyTorch code (``import torch``, ``from torch import nn``,
``from torch.utils.data import ...``). The test runs it as it is with PyTorch, then with
``import minigrad as torch`` (its ``torch`` imports rewritten to ``minigrad``, nothing else),
and compares every printed line; PyTorch's ``torch.`` in printed names (``torch.float32``,
``torch.Size``) reads as ``minigrad.``. On a difference it shows the first differing lines.
"""

import contextlib
import difflib
import io
import re
from pathlib import Path

import pytest

import minigrad

torch = pytest.importorskip("torch")

HERE = Path(__file__).resolve().parent
SCRIPTS = sorted(p.name for p in HERE.glob("*.py") if not p.name.startswith(("test_", "_")))
IMPORTS = [(re.compile(r"^import torch$", re.M), "import minigrad as torch"),
           (re.compile(r"^from torch([. ])", re.M), r"from minigrad\1"),
           (re.compile(r"^import torch\.(\S+) as (\w+)$", re.M), r"import minigrad.\1 as \2")]


def as_minigrad(source: str) -> str:
    """The script with its ``torch`` imports pointing at minigrad."""
    for pattern, replacement in IMPORTS:
        source = pattern.sub(replacement, source)
    return source


def run(source: str, name: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, name, "exec"), {"__name__": "__main__"})  # noqa: S102
    return out.getvalue()


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    for lib in (minigrad, torch):
        lib.set_default_dtype(lib.float32)


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_prints_the_same(script):
    source = (HERE / script).read_text()
    assert "import minigrad" not in source, "scripts are PyTorch code; the test swaps imports"
    assert as_minigrad(source) != source
    expected = run(source, script).replace("torch.", "minigrad.")
    got = run(as_minigrad(source), script)
    if got != expected:
        diff = "\n".join(difflib.unified_diff(expected.splitlines(), got.splitlines(),
                                              "torch", "minigrad", lineterm="", n=1))
        pytest.fail(f"{script} prints differently under minigrad:\n{diff[:3000]}")
    assert expected.strip(), f"{script} printed nothing"


def test_scripts_exist_and_use_the_device_idiom():
    assert len(SCRIPTS) >= 4
    idiom = 'torch.device("cuda" if torch.cuda.is_available() else "cpu")'
    assert any(idiom in (HERE / s).read_text() for s in SCRIPTS)
