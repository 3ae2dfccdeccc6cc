"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict``.

Mirrors ``torch/optim/optimizer.py``. An optimizer holds ``param_groups`` (a list of dicts, each
with ``'params'`` and its hyperparameters, defaults filled in from ``defaults``) and ``state``
(a ``defaultdict(dict)`` keyed by parameter). Subclasses implement ``step``.
"""

from __future__ import annotations

import copy
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode

__all__ = ["Optimizer", "required"]


def add_scaled_(dst: np.ndarray, src: np.ndarray, alpha, block: int = 1 << 17) -> None:
    """``dst += alpha * src`` in place (PyTorch's ``dst.add_(src, alpha=alpha)``), computing
    ``alpha * src`` one block at a time: a whole-array temporary would be as large as the
    parameter and raise the peak memory of an optimizer step by that much. Same arithmetic,
    element by element."""
    if dst.size <= block or not (dst.flags.c_contiguous and src.flags.c_contiguous) \
            or dst.shape != src.shape or dst.dtype != src.dtype:
        dst += alpha * src
        return
    d, s = dst.reshape(-1), src.reshape(-1)  # views (both contiguous)
    tmp = np.empty(block, dtype=dst.dtype)
    for i in range(0, d.size, block):
        n = min(block, d.size - i)
        np.multiply(s[i:i + n], alpha, out=tmp[:n])
        d[i:i + n] += tmp[:n]


class _RequiredParameter:
    """Marks a hyperparameter that every param group must specify."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj) -> str:
    from ..nn.modules.module import _typename as typename

    return typename(obj)


def _to_tensor(value):
    """A state value loaded from a state_dict as a minigrad Tensor when it is tensor-like."""
    if isinstance(value, Tensor):
        return Tensor._make(np.array(value._data))
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # e.g. a torch tensor
        return Tensor._make(np.array(value.detach().cpu().numpy()))
    return value


class Optimizer:
    """Base class of all optimizers (``torch.optim.Optimizer``).

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (param groups,
            each with a ``'params'`` entry and optional per-group hyperparameters).
        defaults: default hyperparameters for groups that do not set them.

    Raises TypeError when ``params`` is a single tensor, ValueError for an empty list
    (``optimizer got an empty parameter list``), a non-leaf, or a parameter in two groups.
    """

    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters (a dict with ``'params'``), filling in the defaults.

        Raises TypeError for a non-dict, a set of params, or a non-tensor; ValueError for a
        non-leaf tensor, a missing required hyperparameter, or a parameter already in a group.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(tensors) != len(set(tensors)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen: set = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized parameters: ``.grad = None`` (default) or zero
        them in place (same object, ``_version`` + 1)."""
        from ..nn.modules.module import reset_grads

        reset_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        """Perform one optimization step (implemented by subclasses)."""
        raise NotImplementedError

    def _run_closure(self, closure):
        if closure is None:
            return None
        with grad_mode.enable_grad():
            return closure()

    def state_dict(self) -> dict:
        """``{'state': {index: state}, 'param_groups': [...]}`` with parameters replaced by
        their position (0, 1, ... across groups), as in PyTorch."""
        mapping: dict[int, int] = {}
        groups = []
        start = 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {mapping[id(k)] if isinstance(k, Tensor) else k: v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore hyperparameters and state saved by ``state_dict`` (from minigrad or torch).

        Raises ValueError when the number of groups or of parameters per group differs.
        """
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        groups = self.param_groups
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = {saved: p for g, s in zip(groups, saved_groups)
                  for saved, p in zip(s["params"], g["params"])}
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = {name: _to_tensor(val) for name, val in v.items()}
            else:
                state[k] = v
        for g, s in zip(groups, saved_groups):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
        self.state = state
        self.param_groups = saved_groups

    def __repr__(self) -> str:
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
