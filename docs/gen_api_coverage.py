"""Generate ``docs/api-coverage.md``: which of PyTorch's public names minigrad has, and which of
those the parity tests use.

The page is computed without running a test, from three sources:

* **PyTorch's public names**, introspected from the installed PyTorch for each namespace of
  ``NAMESPACES``: the module's ``__all__`` where it defines one, else its ``dir()`` without the
  names that start with ``_``; in both cases without submodules and without what the module
  only imported for its own use (typing aliases such as ``Optional``, TorchScript helpers such
  as ``BroadcastingList1``, documentation dicts such as ``reproducibility_notes``, classes
  re-exported from ``torch`` such as ``F.Tensor``). For ``torch.Tensor``: every public
  (no leading ``_``) method and property of the class;
* **supported**: minigrad's matching namespace has an attribute of that name
  (``hasattr(minigrad.nn.functional, "relu")``); support can be partial, and the name's
  docstring in minigrad says what is missing;
* **parity-tested**: the name is *used* in a parity scenario, found by reading (``ast``) the
  files of ``SOURCES``, code that runs on minigrad and on PyTorch and compares the results. A use
  is an attribute access (or a call, which contains one) whose base resolves to the namespace:
  ``lib.name``/``L.name``/``torch.name``/``minigrad.name`` for ``torch``;
  ``lib.nn.functional.name``, ``F.name`` for ``torch.nn.functional`` (likewise ``nn.``,
  ``lib.autograd.``, ``lib.autograd.graph.``, ``lib.optim.lr_scheduler.``, ...), also through a
  local alias (``F = lib.nn.functional``, ``import minigrad.nn.functional as F``) or a helper
  of the same file that returns the namespace (``def _data(lib): return lib.utils.data``,
  then ``_data(lib).Subset`` or ``data = _data(lib)``); any other
  base (``x.name``, ``m.weight.name``, ``f(x).name``) counts for ``torch.Tensor``. A
  ``getattr(ns, "name")`` counts as ``ns.name``; ``getattr(ns, variable)`` on a namespace other
  than ``torch`` and ``torch.Tensor`` (``getattr(lib.nn, cls)``, the tables of module and
  optimizer names) counts every string literal of that file that is a name of ``ns``. A name
  bound to the same object as a used one, in PyTorch and in minigrad (``torch.double`` is
  ``torch.float64``, ``torch.autograd.no_grad`` is ``torch.no_grad``), counts too. The rule
  over-approximates (a ``.split`` on a string counts for ``Tensor.split``): "parity-tested"
  means that the parity suite exercises the name, not that every argument is covered.

Names that are not supported get a reason where leaving them out is deliberate (``REASONS``:
rules by name pattern, first match wins). Run ``python docs/gen_api_coverage.py --write`` to
rewrite the committed page (``tests/docs/test_api_coverage.py`` fails when it is stale), or
without ``--write`` to print it.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.machinery
import inspect
import re
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "api-coverage.md"

# (PyTorch namespace, minigrad counterpart). torch.Tensor is the class, the others modules.
NAMESPACES = [
    ("torch", "minigrad"),
    ("torch.Tensor", "minigrad.Tensor"),
    ("torch.nn", "minigrad.nn"),
    ("torch.nn.functional", "minigrad.nn.functional"),
    ("torch.autograd", "minigrad.autograd"),
    ("torch.autograd.graph", "minigrad.autograd.graph"),
    ("torch.autograd.functional", "minigrad.autograd.functional"),
    ("torch.autograd.forward_ad", "minigrad.autograd.forward_ad"),
    ("torch.func", "minigrad.func"),
    ("torch.optim", "minigrad.optim"),
    ("torch.optim.lr_scheduler", "minigrad.optim.lr_scheduler"),
    ("torch.utils.data", "minigrad.utils.data"),
    ("torch.linalg", "minigrad.linalg"),
    ("torch.cuda", "minigrad.cuda"),
]
NS_NAMES = [ns for ns, _ in NAMESPACES]

# Files of parity scenarios: each runs the same code on minigrad and on PyTorch and compares.
SOURCES = ["tests/parity/*.py", "tests/fuzz/*.py", "tests/cases/*.py", "tests/scripts/**/*.py",
           "minigrad/parity/cases.py", "minigrad/parity/real_cases.py"]

# Names a parity scenario binds to a library (``lib`` is minigrad or torch).
LIB_NAMES = {"lib", "L", "torch", "minigrad"}
# Default aliases of namespaces, when a file does not bind the name itself.
DEFAULT_ALIASES = {"F": "torch.nn.functional", "nn": "torch.nn"}
# Bases that are not tensors: their attributes count for no namespace.
NOT_TENSORS = {"np", "numpy", "math", "pytest", "st", "hypothesis", "re", "os", "sys", "warnings",
               "itertools", "functools", "collections", "json", "inspect", "copy", "pickle",
               "weakref", "random", "textwrap", "types", "dataclasses", "subprocess", "io",
               "contextlib", "rng", "RNG", "string", "operator", "shutil", "tempfile", "Path",
               "time", "gc", "threading", "traceback", "importlib", "html", "ast", "typing"}
# Modules where helpers that a namespace only imported for itself are defined.
HELPER_MODULES = {"typing", "typing_extensions", "collections.abc", "builtins",
                  "torch._jit_internal", "torch.overrides"}

# Why a name is not supported, where leaving it out is deliberate: (reason, namespaces or None
# for all, regular expression searched in the name). The first matching rule wins.
REASONS = [
    ("CUDA-only: minigrad computes with NumPy on the CPU", {"torch.cuda"}, r""),
    ("sparse tensors", None, r"[Ss]parse|_csr|_csc|_bsr|_bsc|^to_dense$|coalesce|^indices$|"
     r"^values$|crow_indices|col_indices|row_indices|^smm$|^sspaddmm$|^hspmm$|^dense_dim$|"
     r"^nnz$"),
    ("complex numbers", None, r"complex|^real$|^imag$|^conj|^angle$|^polar$|^view_as_real|"
     r"resolve_conj|resolve_neg|^is_conj$|^is_neg$|^chalf$|^cfloat$|^cdouble$|^adjoint$"),
    ("quantization", None, r"quantiz|^q_|qint|quint|qscheme|^int_repr$|fake_quant|fbgemm"),
    ("dtypes NumPy has no arithmetic for (float8, float4, sub-byte integers, bits)", None,
     r"^float8|^float4|^u?int[1-7]$|^bits|^bit$|^scaled_(grouped_)?mm$|^ScalingType$|^SwizzleType$"),
    ("uint16/uint32/uint64: PyTorch's limited-support unsigned dtypes (few kernels, no "
     "promotion with the signed ones); minigrad keeps to uint8", None, r"^uint(16|32|64)$"),
    ("distributed and multi-process training", None, r"[Dd]istributed|DataParallel|"
     r"^SyncBatchNorm$|rpc|nccl|gloo"),
    ("TorchScript, FX, torch.compile and export", None, r"jit|^compile|compiled|^fx$|Script|"
     r"^script|^export|dynamo|^sym_|^Sym|^is_tracing$"),
    ("TorchScript's IR and the C++ runtime's internals (types, graphs, schemas, dispatch "
     "keys, loggers)", {"torch"}, r"Type$|^Argument|^Block$|^Code$|^CompilationUnit$|^Graph|"
     r"^Node$|^Use$|^Value$|^FileCheck$|^parse_ir$|^parse_schema$|^import_ir_module|"
     r"^ErrorReport$|^Gradient$|^ExecutionPlan$|^TracingState$|type_comment|^unify_type_list$|"
     r"^AliasDb$|^fork$|^wait$|^Future$|^CallStack$|^Capsule$|^StaticModule$|^IODescriptor$|"
     r"^JITException$|^OperatorInfo$|^DeepCopyMemoTable$|^Dispatch|^ExcludeDispatchKeyGuard$|"
     r"^Tag$|Benchmark|^AggregationType$|Logger$|^PyTorchFile|^cond$|^while_loop$"),
    ("`__torch_function__` overrides (tensor subclass dispatch)", None,
     r"torch_function|TorchFunction"),
    ("accelerators and backends other than NumPy on the CPU", None, r"cuda|^mps|xpu|mtia|hip|"
     r"cudnn|miopen|mkldnn|onednn|vulkan|xnnpack|^pin_memory$|^is_pinned$|^ipu|^hpu|"
     r"privateuse|accelerator|^Event$|^Stream|nvtx|^ve$|metal|^record_stream$"),
    ("autocast and gradient scaling (mixed precision on accelerators)", None,
     r"autocast|GradScaler"),
    ("storage internals (minigrad tensors wrap NumPy arrays)", None, r"Storage|^storage$|"
     r"^storage_type$|^untyped_storage$|^is_storage$|^data_ptr$|^set_$|share_memory|^is_shared$|^from_file$"),
    ("named tensors", None, r"^names$|refine_names|align_to|align_as|^rename_?$|^has_names$"),
    ("nested tensors", None, r"nested"),
    ("DataPipes (deprecated by PyTorch)", {"torch.utils.data"}, r"DataPipe|^DataChunk$|"
     r"^functional_datapipe$|^guaranteed_datapipes_determinism$|^non_deterministic$|"
     r"^argument_validation$|^runtime_validation"),
    ("vmap and batching rules (torch.func's jacrev/jacfwd loop over basis vectors)", None,
     r"^vmap$"),
]

TESTED = "supported, parity-tested"
UNTESTED = "supported, not parity-tested"
MISSING = "not supported"


def _resolve(path: str):
    """The module or class at dotted ``path`` (``minigrad.Tensor``), or None when there is no
    such namespace. Submodules are looked up only in their package's own folder: an editable
    install's finder would otherwise supply a module that this checkout does not have."""
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=1):
        if isinstance(obj, types.ModuleType) and hasattr(obj, "__path__") and (
                importlib.machinery.PathFinder.find_spec(".".join(parts[:i + 1]), obj.__path__)):
            obj = importlib.import_module(".".join(parts[:i + 1]))
        elif hasattr(obj, part) and not isinstance(getattr(obj, part), types.ModuleType):
            obj = getattr(obj, part)
        else:
            return None
    return obj


def _is_helper(obj) -> bool:
    """An object a module only imported for its own use (typing alias, TorchScript helper)."""
    return getattr(obj, "__module__", None) in HELPER_MODULES


def public_names(ns: str) -> list:
    """PyTorch's public names of namespace ``ns`` (see the module docstring)."""
    obj = _resolve(ns)
    if inspect.isclass(obj):
        return sorted(n for n in dir(obj) if not n.startswith("_"))
    declared = getattr(obj, "__all__", None)
    names = list(declared) if declared is not None else [n for n in dir(obj)
                                                          if not n.startswith("_")]
    out = []
    for name in dict.fromkeys(names):
        if not hasattr(obj, name):
            continue
        value = getattr(obj, name)
        if isinstance(value, types.ModuleType):
            continue
        if declared is None and (_is_helper(value) or not (callable(value) or inspect.isclass(
                value)) or inspect.isclass(value) and value.__module__ == "torch"):
            continue
        out.append(name)
    return sorted(out, key=lambda n: (n.lower(), n))


# ---------------------------------------------------------------------------------------------
# Reading the parity scenarios


def _chain(node):
    """``["lib", "nn", "functional"]`` of ``lib.nn.functional``; None when the base is not a
    chain of names (a call, a subscript, a literal)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def _namespace(path: list) -> str | None:
    """The namespace of ``["torch", "nn", "functional"]``, or None when it is none of ours."""
    dotted = ".".join(path)
    return dotted if dotted in NS_NAMES else None


class _Scanner:
    """Collects ``{namespace: {name}}`` used by one parsed file (see the module docstring)."""

    def __init__(self, tree: ast.AST):
        self.tree = tree
        self.used: dict = {ns: set() for ns in NS_NAMES}
        self.dynamic: set = set()  # namespaces looked up with getattr(ns, variable)
        self.strings: set = set()
        self.helpers: dict = {}  # functions of the file that return a namespace
        for node in getattr(tree, "body", []):
            if isinstance(node, ast.FunctionDef) and len(node.body) == 1 and isinstance(
                    node.body[0], ast.Return) and node.body[0].value is not None:
                ns = self._base(node.body[0].value, [dict(DEFAULT_ALIASES)], module_only=True)
                if ns is not None:
                    self.helpers[node.name] = ns
        self._visit(tree, [dict(DEFAULT_ALIASES)])

    # -- aliases ---------------------------------------------------------------------------
    def _own_nodes(self, scope):
        """The statements of ``scope``'s body (those of ``if``/``for``/``with``/``try`` too),
        not those of nested functions or classes: where names are bound."""
        stack = list(getattr(scope, "body", []))
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                stack.extend(getattr(node, field, []) or [])

    def _aliases(self, scope, scopes) -> dict:
        """Names bound in ``scope`` to one of the namespaces (``F = lib.nn.functional``,
        ``import minigrad.nn.functional as F``, ``from minigrad import nn``)."""
        found: dict = {}
        for node in self._own_nodes(scope):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                    node.targets[0], ast.Name):
                ns = self._base(node.value, [*scopes, found], module_only=True)
                name = node.targets[0].id
                if ns is not None:
                    found[name] = ns
                elif name in DEFAULT_ALIASES or name in LIB_NAMES:
                    found[name] = None  # rebound to something else here
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    ns = _namespace(["torch", *alias.name.split(".")[1:]])
                    if alias.asname and alias.name.split(".")[0] in ("torch", "minigrad") and ns:
                        found[alias.asname] = ns
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[
                    0] in ("torch", "minigrad"):
                for alias in node.names:
                    ns = _namespace(["torch", *node.module.split(".")[1:], alias.name])
                    if ns:
                        found[alias.asname or alias.name] = ns
        return found

    # -- resolution ------------------------------------------------------------------------
    def _base(self, node, scopes, module_only=False) -> str | None:
        """The namespace an expression stands for: one of ``NS_NAMES``; ``torch.Tensor`` for
        anything that is not a namespace (unless ``module_only``); None for a base that is
        none of ours (``np.``, ``pytest.``, ``lib.nn.init.``)."""
        if isinstance(node, ast.Constant):
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id in getattr(self, "helpers", {})):
            return self.helpers[node.func.id]  # _data(lib), with def _data(lib): return ...
        parts = _chain(node)
        if parts is None:
            return None if module_only else "torch.Tensor"
        root = parts[0]
        prefix = None
        for scope in reversed(scopes):
            if root in scope:
                prefix = scope[root]
                break
        else:
            if root in LIB_NAMES:
                prefix = "torch"
        if prefix is None:  # self.L.nn, R.F: a library or alias stored on an object
            for i in range(len(parts) - 1, 0, -1):
                if parts[i] in ("L", "lib"):
                    prefix, parts = "torch", parts[i:]
                    break
                if parts[i] in DEFAULT_ALIASES:
                    prefix, parts = DEFAULT_ALIASES[parts[i]], parts[i:]
                    break
        if prefix is not None:
            return _namespace([*prefix.split("."), *parts[1:]])
        if module_only or root in NOT_TENSORS:
            return None
        return "torch.Tensor"

    def _visit(self, node, scopes):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scopes = [*scopes, self._aliases(node, scopes)]  # (a lambda binds no alias)
        if isinstance(node, ast.Attribute):
            ns = self._base(node.value, scopes)
            if ns is not None:
                self.used[ns].add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id == "getattr") and len(node.args) >= 2:
            ns = self._base(node.args[0], scopes)
            name = node.args[1]
            if ns is not None and isinstance(name, ast.Constant) and isinstance(name.value, str):
                self.used[ns].add(name.value)
            elif ns is not None and ns not in ("torch", "torch.Tensor"):
                self.dynamic.add(ns)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            self.strings.add(node.value)
        for child in ast.iter_child_nodes(node):
            self._visit(child, scopes)


def source_files() -> list:
    """The parity scenario files (``SOURCES``), relative to the repository root."""
    files = set()
    for pattern in SOURCES:
        files.update(p for p in ROOT.glob(pattern) if p.is_file())
    return sorted(p.relative_to(ROOT).as_posix() for p in files)


def parity_uses(names: dict) -> dict:
    """``{namespace: {name: [files]}}``: the names of each namespace that the parity scenarios
    use; ``names`` (``{namespace: [public names]}``) are the candidates of the string literals
    of files that look names up with ``getattr(ns, variable)``."""
    out: dict = {ns: {} for ns in NS_NAMES}
    for file in source_files():
        scan = _Scanner(ast.parse((ROOT / file).read_text(encoding="utf-8"), filename=file))
        for ns in NS_NAMES:
            used = set(scan.used[ns])
            if ns in scan.dynamic:
                used |= scan.strings & set(names[ns])
            for name in used:
                out[ns].setdefault(name, []).append(file)
    return out


# ---------------------------------------------------------------------------------------------
# The page


def reason(ns: str, name: str) -> str:
    """Why ``ns.name`` is deliberately not supported ("" when it simply is not done yet)."""
    for text, where, pattern in REASONS:
        if (where is None or ns in where) and re.search(pattern, name):
            return text
    return ""


def _by_object(uses: dict, mg_objects: dict) -> dict:
    """``{(id of PyTorch's object, id of minigrad's): [(namespace, name), ...]}`` of the names
    the scenarios use, public or not (``torch.set_grad_enabled`` is not in ``torch.__all__``),
    to credit other names of the same objects (``torch.autograd.set_grad_enabled``)."""
    index: dict = {}
    for ns in NS_NAMES:
        torch_ns, mg_ns = _resolve(ns), mg_objects[ns]
        if mg_ns is None:
            continue
        for name in sorted(uses[ns]):
            obj, mine = getattr(torch_ns, name, None), getattr(mg_ns, name, None)
            if obj is None or mine is None or isinstance(obj, (int, float, str, bool)):
                continue
            index.setdefault((id(obj), id(mine)), []).append((ns, name))
    return index


def _supported(mg_ns, torch_ns, name: str) -> bool:
    """minigrad has ``name`` (and it is not a minigrad submodule standing for a PyTorch
    function, as ``minigrad.autograd.variable`` for ``torch.autograd.variable``)."""
    if mg_ns is None or not hasattr(mg_ns, name):
        return False
    return not (isinstance(getattr(mg_ns, name), types.ModuleType)
                and not isinstance(getattr(torch_ns, name, None), types.ModuleType))


def coverage() -> dict:
    """``{namespace: [(name, status, files, reason)]}`` for every namespace of ``NAMESPACES``.

    ``files`` are the scenario files that use the name, or that use another name of the same
    object (``via`` then names it: ``files`` ends with ``"as torch.float64"``)."""
    names = {ns: public_names(ns) for ns in NS_NAMES}
    mg_objects = {ns: _resolve(mg) for ns, mg in NAMESPACES}
    uses = parity_uses(names)
    same = _by_object(uses, mg_objects)
    out = {}
    for ns, _ in NAMESPACES:
        mg, torch_ns = mg_objects[ns], _resolve(ns)
        rows = []
        for name in names[ns]:
            if not _supported(mg, torch_ns, name):
                rows.append((name, MISSING, [], reason(ns, name)))
                continue
            files = sorted(uses[ns].get(name, []))
            via = ""
            obj = getattr(torch_ns, name)
            if not files and not isinstance(obj, (int, float, str, bool)):
                for ns2, name2 in same.get((id(obj), id(getattr(mg, name))), []):
                    files, via = sorted(uses[ns2][name2]), f"{ns2}.{name2}"
                    break
            rows.append((name, TESTED if files else UNTESTED, files, via))
        out[ns] = rows
    return out


MAX_LINKS = 6  # files linked per name (parity test files first); the rest are counted


def _file_order(file: str):
    return (not file.startswith("tests/parity/"), file)


def _link(file: str) -> str:
    return f"[`{Path(file).name}`](../{file})"


def generate(cov: dict | None = None) -> str:
    """The Markdown of ``docs/api-coverage.md`` (from ``coverage()``, computed when not
    given)."""
    import torch

    cov = coverage() if cov is None else cov
    lines = [
        "# API coverage",
        "",
        "<!-- generated by docs/gen_api_coverage.py: run `python docs/gen_api_coverage.py "
        "--write` after changing minigrad or the parity tests -->",
        "",
        f"Which public names of PyTorch {torch.__version__.split('+')[0]} minigrad has, and "
        "which of those its parity tests exercise. Generated by `docs/gen_api_coverage.py` "
        "from the installed PyTorch, the `minigrad` package and the source of the parity "
        "tests (nothing is run); `tests/docs/test_api_coverage.py` fails when this page is "
        "stale.",
        "",
        "- **Public names**: the namespace's `__all__` where PyTorch defines one, else its "
        "`dir()` without `_` names; without submodules and without helpers the module only "
        "imported (typing aliases, TorchScript helpers, documentation dicts). For "
        "`torch.Tensor`: the public methods and properties of the class.",
        f"- **{TESTED}**: minigrad's namespace has the name, and a parity scenario uses it. The "
        "rule, computed from the source (`ast`) of " + ", ".join(f"`{s}`" for s in SOURCES)
        + ": an attribute access or call `lib.name` (`lib`, `L`, `torch` or `minigrad`: "
        "`torch`), `F.name`/`lib.nn.functional.name` (`torch.nn.functional`), `nn.Name`, "
        "`lib.autograd.name`, `lib.optim.lr_scheduler.Name`, ... (also through local aliases "
        "such as `F = lib.nn.functional`, or a one-line helper of the same file that returns "
        "the namespace, as `def _data(lib): return lib.utils.data`), any other base such as "
        "`x.name(` or `m.weight.name` "
        "(`torch.Tensor`); `getattr(ns, \"name\")`; and, in a file that looks names up with "
        "`getattr(ns, variable)` (tables of module, loss or optimizer names), the string "
        "literals that are names of `ns` (not for `torch` and `torch.Tensor`, whose op tables "
        "are keyed by case ids). A name bound to the same object as a used name, in PyTorch "
        "and in minigrad, counts too (`torch.double` is `torch.float64`, "
        "`torch.autograd.no_grad` is `torch.no_grad`: shown as \"(as `torch.float64`)\"). "
        "The rule over-approximates: it says that the parity suite "
        "uses the name, not that every argument of it is covered. The files that use it are "
        f"linked (at most {MAX_LINKS}, those of `tests/parity` first).",
        f"- **{UNTESTED}**: minigrad has the name (support may be partial: its docstring says "
        "what is missing), and no parity scenario uses it.",
        f"- **{MISSING}**: minigrad has no such name; the reason is given where leaving it out "
        "is deliberate (rules below).",
        "",
        "## Summary",
        "",
        "| Namespace | Public names | Supported, parity-tested | Supported, not parity-tested "
        "| Not supported | of which deliberate |",
        "|---|---|---|---|---|---|",
    ]
    totals = [0] * 5
    for ns, rows in cov.items():
        status = [r[1] for r in rows]
        counts = [len(rows), status.count(TESTED), status.count(UNTESTED), status.count(MISSING),
                  sum(r[1] == MISSING and bool(r[3]) for r in rows)]
        totals = [a + b for a, b in zip(totals, counts)]
        lines.append(f"| [`{ns}`](#{_anchor(ns)}) | " + " | ".join(map(str, counts)) + " |")
    lines.append("| **all** | " + " | ".join(f"**{n}**" for n in totals) + " |")
    lines += ["", "## Reasons for names left out", "",
              "A name that minigrad does not have gets the first reason whose pattern (a regular "
              "expression searched in the name) matches, within the namespaces given.", "",
              "| Reason | Namespaces | Name pattern |", "|---|---|---|"]
    for text, where, pattern in REASONS:
        shown = ", ".join(f"`{n}`" for n in sorted(where)) if where else "all"
        pat = f"`{pattern}`".replace("|", "\\|") if pattern else "every name"
        lines.append(f"| {text} | {shown} | {pat} |")
    for ns, rows in cov.items():
        lines += ["", f"## `{ns}`", "", "| Name | Status | Tests / reason |", "|---|---|---|"]
        for name, status, files, why in rows:
            shown = sorted(files, key=_file_order)[:MAX_LINKS]
            detail = ", ".join(_link(f) for f in shown) if files else why
            if len(files) > len(shown):
                detail += f" and {len(files) - len(shown)} more"
            if files and why:  # used under another name of the same object
                detail += f" (as `{why}`)"
            mark = {TESTED: "✓ " + TESTED, UNTESTED: "○ " + UNTESTED, MISSING: "✗ " + MISSING}
            lines.append(f"| `{name}` | {mark[status]} | {detail} |")
    lines.append("")
    return "\n".join(lines)


def _anchor(ns: str) -> str:
    """The heading id that Python-Markdown's toc gives ``## `torch.nn` ``."""
    return ns.replace(".", "").lower()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {PAGE.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    text = generate()
    if args.write:
        PAGE.write_text(text, encoding="utf-8")
        print(f"wrote {PAGE.relative_to(ROOT)}")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
