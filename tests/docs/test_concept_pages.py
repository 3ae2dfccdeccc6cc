"""The runnable examples of ``docs/concepts/{versions,retain_graph,higher_order,
saved_tensor_hooks,graph_utils,functional_api,checkpointing,devices_and_data,
custom_functions,profiler,forward_mode}.md``: each
``<!-- example -->`` python block is run with minigrad and must print exactly the ``text`` block
that follows it; the same code with ``import torch`` must print the same (``torch.`` in PyTorch's
messages read as ``minigrad.``)."""

import contextlib
import io
import re
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

DOCS = Path(__file__).resolve().parents[2] / "docs" / "concepts"
PAGES = ["versions.md", "retain_graph.md", "higher_order.md", "saved_tensor_hooks.md",
         "graph_utils.md", "functional_api.md", "checkpointing.md", "devices_and_data.md",
         "custom_functions.md", "profiler.md", "forward_mode.md"]
EXAMPLE = re.compile(r"<!-- example -->\n```python\n(.*?)```\n.*?```text\n(.*?)```", re.S)
IMPORT = "import minigrad as torch\n"


def examples(page):
    found = EXAMPLE.findall((DOCS / page).read_text())
    assert found, f"no <!-- example --> block in {page}"
    return found


def run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<docs example>", "exec"), {"__name__": "__docs__"})  # noqa: S102
    return out.getvalue()


@pytest.mark.parametrize("page", PAGES)
def test_example_output_is_minigrad_output(page):
    for code, expected in examples(page):
        assert code.startswith(IMPORT)
        assert run(code) == expected


@pytest.mark.parametrize("page", PAGES)
def test_same_code_under_torch_prints_the_same(page):
    for code, expected in examples(page):
        printed = run(code.replace(IMPORT, "import torch\n", 1))
        assert printed.replace("torch.", "minigrad.") == expected
