"""The README's quick start: a new user's first two commands on a fresh machine.

* the first command installs the CPU build of PyTorch *before* the project (so that resolving
  ``.[dev]`` cannot pull a newer PyTorch with the CUDA stack), then the project, then runs the
  demo; the text before it says that Graphviz's ``dot`` is needed and how to get it;
* the second command is ``pytest -n auto``, and pytest's configuration summarises the reasons of
  skipped tests (``-r`` with ``s``), so "N skipped" is explained.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _quick_start() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("## Quick start", 1)[1].split("\n## ", 1)[0]


def _commands(section: str) -> list:
    return re.findall(r"```bash\n(.*?)```", section, flags=re.S)


def test_first_command_installs_cpu_torch_before_the_project_then_runs_the_demo():
    section = _quick_start()
    first = _commands(section)[0].strip()
    steps = [s.strip() for s in first.split("&&")]
    assert len(first.splitlines()) == 1, "the first command is one line"
    torch_step = next(i for i, s in enumerate(steps) if re.search(r"\btorch==2\.13\.0\b", s))
    project = next(i for i, s in enumerate(steps) if '-e ".[dev]"' in s)
    assert torch_step < project, steps
    assert shlex.split(steps[torch_step])[:2] == ["pip", "install"]
    assert steps[-1] == "minigrad demo"
    # nothing a new user must read *after* running it to avoid the CUDA download
    before = " ".join(section.split("```bash", 1)[0].split())
    assert "two commands" in before and "CPU build of PyTorch" in before


def test_graphviz_dot_is_named_as_a_system_requirement_before_the_commands():
    before = " ".join(_quick_start().split("```bash", 1)[0].split())
    assert "`dot`" in before and "Graphviz" in before
    assert "apt-get install -y graphviz" in before


def test_second_command_runs_the_tests_with_skip_reasons():
    second = _commands(_quick_start())[1].strip()
    assert second == "pytest -n auto"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    addopts = shlex.split(re.search(r'^addopts = "(.*)"$', pyproject, re.M).group(1))
    report = "".join(a[2:] for a in addopts if a.startswith("-r"))
    assert "s" in report or "a" in report or "A" in report, addopts


def test_docs_readme_records_the_site_generator_decision():
    """Material for MkDocs' end of life: the decision (keep and pin) is written down, and the
    pin is in the docs extra."""
    text = " ".join((ROOT / "docs" / "README.md").read_text(encoding="utf-8").split())
    assert "Site generator" in text and "Zensical" in text and "pin" in text
    assert "NO_MKDOCS_2_WARNING=1" in text
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"mkdocs-material>=9.5,<10"' in pyproject
    assert "README.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split(
        "exclude_docs:", 1)[1].split("\n\n", 1)[0]


def test_every_documented_torch_install_pins_the_tested_version():
    """README and the getting-started page install the PyTorch the parity tests are run against:
    an unpinned ``pip install torch --index-url ...`` would fetch whatever is newest."""
    for page in ("README.md", "docs/getting-started.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        installs = re.findall(r"pip install torch\S*", text)
        assert installs, page
        assert all(cmd == "pip install torch==2.13.0" for cmd in installs), (page, installs)


def test_first_snippet_prints_what_its_comments_say(capsys):
    """The README's and the home page's first code block, run: each ``print`` line's comment is
    its output, memory addresses written as ``0x...``."""
    for page in ("README.md", "docs/index.md"):
        code = re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(encoding="utf-8"),
                          flags=re.S)[0]
        exec(compile(code, page, "exec"), {})
        printed = [re.sub(r"0x[0-9a-f]+", "0x...", line)
                   for line in capsys.readouterr().out.splitlines()]
        said = [line.split("#", 1)[1].strip() for line in code.splitlines()
                if line.startswith("print(")]
        assert printed == said, page
