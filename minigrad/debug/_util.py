"""Helpers shared by the debugging tools: which framework an object belongs to, gradient
statistics, graph walks and "which line of user code" for a stack.

Everything here is duck-typed so the same code serves minigrad and PyTorch objects; PyTorch is
imported only when an object comes from it.
"""

from __future__ import annotations

import math
import os
import sys
import traceback

import numpy as np

_MINIGRAD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# files inside the minigrad package that hold user-level model code (built-in example models)
_USER_FILES = (os.path.join(_MINIGRAD_DIR, "debug", "examples.py"),
               os.path.join(_MINIGRAD_DIR, "toy_models.py"))


def lib_of(obj):
    """The library (``minigrad`` or ``torch`` module) a module or tensor belongs to.

    Raises TypeError for anything else.
    """
    import minigrad

    if isinstance(obj, (minigrad.nn.Module, minigrad.Tensor)):
        return minigrad
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, (torch.nn.Module, torch.Tensor)):
        return torch
    raise TypeError(f"expected a minigrad or torch nn.Module / Tensor, got {type(obj).__name__}")


def is_tensor(obj) -> bool:
    """True for a minigrad or torch tensor. (Called for every op by the recorders of the
    debug tools, hence plain isinstance checks: torch only when it is imported.)"""
    from .._tensor import Tensor

    if isinstance(obj, Tensor):
        return True
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def as_array(t) -> np.ndarray:
    """A tensor (minigrad or torch, any device) or array as a float64 NumPy array."""
    if isinstance(t, np.ndarray):
        return t.astype(np.float64)
    t = t.detach()
    if hasattr(t, "cpu"):
        t = t.cpu()
    return np.asarray(t.numpy(), dtype=np.float64)


def numpy_of(t) -> np.ndarray:
    """A tensor's values as a NumPy array in its own dtype (no float64 copy: `grad_stats`
    sums in float64 anyway)."""
    if isinstance(t, np.ndarray):
        return t
    data = getattr(t, "_data", None)  # a minigrad tensor holds its array
    if isinstance(data, np.ndarray):
        return data
    t = t.detach()
    if hasattr(t, "cpu"):
        t = t.cpu()
    return t.numpy()


def tensors_in(obj) -> list:
    """Every tensor in a (nested) tuple / list / dict output, in order."""
    if is_tensor(obj):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in tensors_in(item)]
    return []


def scalar_of(output):
    """A scalar to differentiate: the sum of every floating output tensor that requires grad
    (None when there is none)."""
    total = None
    for t in tensors_in(output):
        if t.requires_grad and t.dtype.is_floating_point:
            s = t.sum()
            total = s if total is None else total + s
    return total


def grad_stats(arrays) -> dict:
    """Statistics of the gradient made of ``arrays`` (NumPy arrays, flattened together).

    Keys: ``numel``, ``mean``, ``abs_mean``, ``max_abs``, ``norm`` (over the finite entries;
    NaN when there is none) and ``nan`` / ``inf`` (counts of non-finite entries). Sums are
    taken in float64 with NumPy's pairwise reductions, not a BLAS ``dot`` (a multi-threaded
    BLAS on a busy machine takes milliseconds for one small vector).
    """
    flat = np.ravel(arrays[0]) if len(arrays) == 1 else \
        np.concatenate([np.ravel(a) for a in arrays]) if arrays else np.zeros(0, np.float32)
    n_nan = n_inf = 0
    vals = flat
    if flat.size and not np.isfinite(flat.sum(dtype=np.float64)):  # one pass when finite
        finite = np.isfinite(flat)
        n_nan = int(np.isnan(flat).sum())
        n_inf = int(flat.size - finite.sum()) - n_nan
        vals = flat[finite]
    if vals.size:
        absv = np.abs(vals)
        add = np.add.reduce  # (ndarray.mean adds Python overhead on every call)
        mean = float(add(vals, dtype=np.float64)) / vals.size
        abs_mean = float(add(absv, dtype=np.float64)) / vals.size
        max_abs = float(np.maximum.reduce(absv))
        norm = math.sqrt(float(add(np.square(absv, dtype=np.float64))))
    else:
        mean = abs_mean = max_abs = norm = float("nan")
    return {"numel": int(flat.size), "mean": mean, "abs_mean": abs_mean, "max_abs": max_abs,
            "norm": norm, "nan": n_nan, "inf": n_inf}


def walk_graph(root_nodes) -> list:
    """Every node reachable from ``root_nodes`` (iterative DFS, each node once)."""
    seen, order = set(), []
    stack = [n for n in root_nodes if n is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(c for c, _ in node.next_functions if c is not None and c not in seen)
    return order


def graph_leaves(output) -> list:
    """Tensors reached as leaves (``AccumulateGrad.variable``) from the output's graph, in
    visit order."""
    roots = [t.grad_fn for t in tensors_in(output) if t.grad_fn is not None]
    return [n.variable for n in walk_graph(roots) if hasattr(n, "variable")]


def _framework_files() -> tuple:
    dirs = [_MINIGRAD_DIR]
    torch = sys.modules.get("torch")
    if torch is not None:
        dirs.append(os.path.dirname(os.path.abspath(torch.__file__)) + os.sep)
    return tuple(dirs)


_DEBUG_DIR = os.path.join(_MINIGRAD_DIR, "debug") + os.sep


def is_debug_tool(filename: str) -> bool:
    """True for a file of the debugging tools themselves (not the built-in example models):
    a stack that reaches one of them before any user code was run *by* the tool (the doctor
    calling a ``Sequential``), so the caller of the tool is not the line to blame."""
    path = os.path.abspath(filename)
    return path.startswith(_DEBUG_DIR) and path not in _USER_FILES


def is_internal(filename: str) -> bool:
    """True for a file inside minigrad or torch (except minigrad's built-in example models)."""
    path = os.path.abspath(filename)
    return path.startswith(_framework_files()) and path not in _USER_FILES


def user_frame(stack, skip_init: bool = False):
    """``(file, line, code)`` of the innermost frame of user code in ``stack``.

    ``stack``: a ``traceback.StackSummary`` / list of ``FrameSummary`` or a list of
    ``format_list`` strings (``node.metadata["traceback_"]``). Frames inside minigrad or torch
    are skipped (and ``__init__`` methods with ``skip_init``), and the search stops at a frame
    of the debugging tools (the caller of ``minigrad doctor`` did not write the model's
    ``nn.Sequential``); falls back to the innermost frame, or None for an empty stack.
    """
    frames = [_parse_frame(f) if isinstance(f, str) else (f.filename, f.lineno, f.name, f.line)
              for f in stack]
    frames = [f for f in frames if f is not None]
    inner = list(reversed(frames))
    while inner and is_debug_tool(inner[0][0]):
        inner.pop(0)  # the tool's own hook or callback that asked
    for filename, lineno, name, code in inner:
        if is_debug_tool(filename):
            break  # the model ran from inside a debug tool: no line of it is user code
        if not is_internal(filename) and not (skip_init and name == "__init__"):
            return filename, lineno, (code or "").strip()
    if frames:
        filename, lineno, _, code = frames[-1]
        return filename, lineno, (code or "").strip()
    return None


def _parse_frame(text: str):
    """Parse one ``'  File "f.py", line 3, in g\\n    code\\n'`` entry."""
    lines = text.strip("\n").splitlines()
    head = lines[0].strip()
    if not head.startswith('File "'):
        return None
    filename, _, rest = head[len('File "'):].partition('", line ')
    lineno, _, name = rest.partition(", in ")
    code = lines[1].strip() if len(lines) > 1 else ""
    try:
        return filename, int(lineno), name, code
    except ValueError:
        return None


def current_user_frame(skip_init: bool = False):
    """`user_frame` of the caller's current stack."""
    return user_frame(traceback.extract_stack()[:-1], skip_init=skip_init)


def where(frame) -> str:
    """``'file.py:12: code'`` for a ``(file, line, code)`` triple ('unknown' for None)."""
    if frame is None:
        return "unknown location"
    filename, lineno, code = frame
    short = os.path.relpath(filename) if not os.path.relpath(filename).startswith("..") \
        else filename
    return f"{short}:{lineno}: {code}" if code else f"{short}:{lineno}"


def qualified_name(modules) -> str | None:
    """Qualified name of the innermost running module, relative to the outermost one (the
    model), or None outside any module."""
    if not modules:
        return None
    inner = modules[-1]
    return next((n for n, m in modules[0].named_modules() if m is inner), type(inner).__name__)


class ModuleStack:
    """Global forward pre-/post-hooks keeping ``modules`` as the stack of running modules."""

    def __init__(self, lib, modules):
        self.lib, self.modules = lib, modules

    def __enter__(self):
        hooks = self.lib.nn.modules.module
        self.handles = [
            hooks.register_module_forward_pre_hook(lambda m, a: self.modules.append(m)),
            hooks.register_module_forward_hook(lambda m, a, o: self._pop(m))]

    def _pop(self, module):
        if self.modules and self.modules[-1] is module:
            self.modules.pop()

    def __exit__(self, *exc):
        for h in self.handles:
            h.remove()
