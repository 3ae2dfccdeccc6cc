"""Generate the "Parity coverage" page of the site from the parity test suite.

The page is built from the test ids pytest collects in ``tests/parity`` (nothing is run), so it
is always as up to date as the tests:

* **Ops**: one row per op case of the op tables (tests parametrised with ``fn`` and ``specs``,
  checked by ``tests/parity/_opcheck.check_op``: values, dtype, graph, saved tensors and
  gradients against PyTorch). The node column is the backward node the op records, found by
  running the case once on minigrad;
* **Backward nodes**: one row per node class of ``tests/parity/test_node_coverage.py``, with the
  op cases whose graph starts with that node;
* **Behaviours**: every other parity test function (engine, versions, hooks, modules, errors...).

Each ✓ carries the id of the test that backs it (hover to read it). The CPU column counts ids
run against PyTorch on the CPU. The CUDA column shows the *results* of the last recorded GPU run,
a pytest JUnit XML file at ``docs/parity-cuda-run.xml`` (on a GPU machine: ``pytest -m cuda
tests/parity --junitxml=docs/parity-cuda-run.xml``, then commit it): ✓ passed, ✗ failed, "skipped";
without a recorded run it says "not run" (a test id is not a result). Run as a script to print
the page: ``python docs/gen_parity_coverage.py``.
"""

from __future__ import annotations

import contextlib
import html
import io
import os
import sys
import warnings
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = "tests/parity"
CUDA_RUN = ROOT / "docs" / "parity-cuda-run.xml"
CHECK = "✓"
CROSS = "✗"
NONE = "—"


def cuda_results(path: Path = CUDA_RUN) -> dict | None:
    """``{nodeid: "passed" | "failed" | "skipped"}`` of a recorded GPU run (a pytest JUnit XML
    file), or None when no run is recorded."""
    if not Path(path).is_file():
        return None
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").split(".")
        # pytest writes a test class into classname too: keep the part that is a file
        parts = []
        for i in range(len(module), 0, -1):
            if (ROOT / Path(*module[:i])).with_suffix(".py").is_file() or i == 1:
                parts = ["/".join(module[:i]) + ".py", *module[i:]]
                break
        nodeid = "::".join([*parts, case.get("name", "")])
        outcome = "passed"
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
        elif case.find("skipped") is not None:
            outcome = "skipped"
        out[nodeid] = outcome
    return out


class _Collector:
    """pytest plugin keeping the collected items."""

    def __init__(self):
        self.items = []

    def pytest_collection_modifyitems(self, items):
        self.items = list(items)


def collect(path: str = TESTS) -> list:
    """``[(nodeid, file, function, params, callspec id, docstring)]`` of the tests under
    ``path``."""
    import pytest

    collector = _Collector()
    old = os.getcwd()
    os.chdir(ROOT)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = pytest.main(["--collect-only", "-qq", "-p", "no:cacheprovider", path],
                               plugins=[collector])
    finally:
        os.chdir(old)
    if code not in (0, 5):  # 5: nothing collected
        raise RuntimeError(f"collecting {path} failed (pytest exit code {code})")
    out = []
    for item in collector.items:
        spec = getattr(item, "callspec", None)
        file = item.nodeid.split("::")[0]
        func = getattr(item, "originalname", item.name.split("[")[0])
        doc = getattr(getattr(item, "function", None), "__doc__", None) or ""
        out.append((item.nodeid, file, func, dict(spec.params) if spec else {},
                    spec.id if spec else "", " ".join(doc.strip().split("\n\n")[0].split())))
    return out


def _case_id(params: dict, callspec_id: str) -> str:
    """The callspec id without its device and dtype parts (``cpu-add-float32`` -> ``add``)."""
    parts = callspec_id.split("-")
    for key in ("device", "dtype"):
        value = str(params.get(key, ""))
        if value in parts:
            parts.remove(value)
    return "-".join(parts) or callspec_id


def _root_node(fn, specs) -> str:
    """Name of the node the op case records (run once on minigrad), or — when none."""
    import numpy as np

    import minigrad
    from tests.parity._opcheck import make_leaf

    rng = np.random.default_rng(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            leaves = [make_leaf(minigrad, s.array(rng, "float32"), s, "cpu") for s in specs]
            out = fn(minigrad, *leaves)
    except Exception:  # noqa: BLE001 - a case that errors here simply shows no node
        return NONE
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    node = next((o.grad_fn for o in outs if getattr(o, "grad_fn", None) is not None), None)
    return NONE if node is None else type(node).__name__


def _tick(ids) -> str:
    """A ✓ whose tooltip lists the backing test ids (× n when several)."""
    ids = sorted(set(ids))
    if not ids:
        return NONE
    title = html.escape("\n".join(ids), quote=True).replace("\n", "&#10;")
    count = f" ×{len(ids)}" if len(ids) > 1 else ""
    return f'<span title="{title}">{CHECK}{count}</span>'


def _cuda(ids, results) -> str:
    """The CUDA cell: the recorded results of ``ids`` (✓ passed, ✗ failed, skipped), or "not
    run" without a recorded GPU run."""
    ids = sorted(set(ids))
    if not ids:
        return NONE
    title = html.escape("\n".join(ids), quote=True).replace("\n", "&#10;")
    if results is None:
        return f'<span title="{title}">not run</span>'
    outcomes = [results.get(i, "not run") for i in ids]
    parts = []
    for outcome, mark in (("passed", CHECK), ("failed", CROSS), ("skipped", "skipped"),
                          ("not run", "not run")):
        n = outcomes.count(outcome)
        if n:
            parts.append(mark + (f" ×{n}" if n > 1 else ""))
    return f'<span title="{title}">{" ".join(parts)}</span>'


def _short(nodeid: str) -> str:
    return "`" + nodeid.split("::", 1)[1] + "`"


def generate(path: str = TESTS) -> str:
    """The Markdown of the parity coverage page."""
    items = collect(path)
    results = cuda_results()
    ops = defaultdict(lambda: {"cpu": [], "cuda": [], "fn": None, "specs": None})
    nodes = {}
    behaviours = defaultdict(lambda: {"cpu": [], "cuda": [], "other": []})
    docs = {}
    for nodeid, file, func, params, spec_id, doc in items:
        device = params.get("device")
        if "fn" in params and "specs" in params and "phrase" not in params:
            row = ops[(file, func, _case_id(params, spec_id))]
            row["fn"], row["specs"] = params["fn"], params["specs"]
            row["cuda" if device == "cuda" else "cpu"].append(nodeid)
            continue
        if func == "test_node_parity":
            nodes[params["name"]] = nodeid
            continue
        row = behaviours[(file, func)]
        row["cuda" if device == "cuda" else "cpu" if device == "cpu" else "other"].append(nodeid)
        docs[(file, func)] = doc or func.removeprefix("test_").replace("_", " ")

    for row in ops.values():
        row["node"] = _root_node(row["fn"], row["specs"])
        row["grads"] = row["node"] != NONE and any(s.grad for s in row["specs"])

    n_cpu = sum(len(r["cpu"]) for r in ops.values()) + len(nodes) + sum(
        len(r["cpu"]) + len(r["other"]) for r in behaviours.values())
    n_cuda = sum(len(r["cuda"]) for r in ops.values()) + sum(len(r["cuda"])
                                                            for r in behaviours.values())
    lines = [
        "# Parity coverage",
        "",
        "What the parity tests check, generated from the test ids of `tests/parity` when the "
        "site is built (`docs/gen_parity_coverage.py`). Every test runs the same code on "
        "minigrad and on PyTorch and compares the results; hover over a ✓ to read the test id "
        "behind it. **CPU**: ids whose PyTorch side runs on the CPU; **CUDA**: the results of "
        "the ids whose PyTorch side runs on a GPU, " + (
            "**not run on a GPU here**: no GPU run is recorded (`docs/parity-cuda-run.xml`; see "
            "the README for running them on a GPU machine)." if results is None else
            f"from the recorded GPU run (`docs/parity-cuda-run.xml`: "
            f"{sum(v == 'passed' for v in results.values())} passed, "
            f"{sum(v == 'failed' for v in results.values())} failed, "
            f"{sum(v == 'skipped' for v in results.values())} skipped).")
        + " minigrad itself always runs on NumPy.",
        "",
        f"**{len(items)} parity test ids**: {n_cpu} CPU, {n_cuda} CUDA; {len(ops)} op cases, "
        f"{len(nodes)} backward node classes, {len(behaviours)} behaviour tests.",
        "",
        "Column meaning: **Values** outputs (and dtype/shape) equal; **Grads** gradients of "
        "every input equal; **Graph** backward graph equal (node names, `next_functions`, "
        "`input_nr`, saved-tensor attributes); **Hooks** hook calls (order and arguments) equal.",
        "",
        "## Backward nodes",
        "",
        "One program per node class (`test_node_parity`); the last columns count the op cases "
        "of the tables below whose graph starts with that node.",
        "",
        "| Node | Values | Grads | Graph | Hooks | CPU | CUDA | op cases |",
        "|---|---|---|---|---|---|---|---|",
    ]
    by_node = defaultdict(list)
    for row in ops.values():
        by_node[row["node"]].append(row)
    for name in sorted(set(nodes) | {n for n in by_node if n != NONE}):
        own = [nodes[name]] if name in nodes else []
        rows = by_node.get(name, [])
        cpu = own + [i for r in rows for i in r["cpu"]]
        cuda = [i for r in rows for i in r["cuda"]]
        grads = own + [i for r in rows if r["grads"] for i in r["cpu"][:1]]
        first = own or [i for r in rows for i in r["cpu"][:1]]
        lines.append(f"| `{name}` | {_tick(first)} | {_tick(grads)} | {_tick(first)} | {NONE} "
                     f"| {_tick(cpu)} | {_cuda(cuda, results)} | {len(rows)} |")

    lines += ["", "## Ops", "",
              "One row per case of the op tables (`check_op`: values, dtype, graph, saved "
              "tensors and gradients; each case runs in float32 and float64 where listed).", ""]
    for file in sorted({k[0] for k in ops}):
        lines += [f"### `{file}`", "",
                  "| Op | Node | Values | Grads | Graph | Hooks | CPU | CUDA | Test |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for (f, _func, case), row in sorted(ops.items(), key=lambda kv: kv[0]):
            if f != file:
                continue
            first = row["cpu"][:1]
            graph = first if row["node"] != NONE else []
            grads = first if row["grads"] else []
            lines.append(f"| `{case}` | `{row['node']}` | {_tick(first)} | {_tick(grads)} | "
                         f"{_tick(graph)} | {NONE} | {_tick(row['cpu'])} | "
                         f"{_cuda(row['cuda'], results)}"
                         f" | {_short(first[0]) if first else NONE} |")
        lines.append("")

    lines += ["## Behaviours", "",
              "Every other parity test: engine order and accumulation, versions and in-place "
              "errors, `retain_graph`, hooks, module registration, optimizers, error messages.",
              "", "| Test | Checks | Hooks | CPU | CUDA |", "|---|---|---|---|---|"]
    for (file, func), row in sorted(behaviours.items()):
        all_ids = row["cpu"] + row["cuda"] + row["other"]
        hooks = _tick(all_ids[:1]) if "hook" in (file + func).lower() else NONE
        doc = docs[(file, func)].replace("|", "\\|")
        lines.append(f"| `{file.removeprefix(TESTS + '/')}::{func}` | {doc} | {hooks} | "
                     f"{_tick(row['cpu'] + row['other'])} | {_cuda(row['cuda'], results)} |")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(generate())
