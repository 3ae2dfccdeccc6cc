"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, ``state_dict``.

Mirrors ``torch/optim/optimizer.py``. An optimizer holds ``param_groups`` (a list of dicts, each
with ``'params'`` and its hyperparameters, defaults filled in from ``defaults``) and ``state``
(a ``defaultdict(dict)`` keyed by parameter). Subclasses implement ``step``.
"""

from __future__ import annotations

import copy
import functools
import re
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd import profiler as _profiler
from ..autograd.graph import RemovableHandle
from ..autograd.profiler import record_function

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]

# Hooks run around the step of every optimizer (PyTorch's ``_global_optimizer_*_hooks``).
_global_optimizer_pre_hooks: OrderedDict = OrderedDict()
_global_optimizer_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)``, run before the ``step()`` of every
    optimizer (before the optimizer's own pre-hooks). Like those it may return
    ``(new_args, new_kwargs)`` to replace the step's arguments (``args`` includes the
    optimizer itself). Returns a handle whose ``remove()`` unregisters it."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)``, run after the ``step()`` of every
    optimizer (after the optimizer's own post-hooks); its return value is ignored. Returns
    a handle whose ``remove()`` unregisters it."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _inplace_broadcast_error(e: ValueError) -> RuntimeError | None:
    """The RuntimeError PyTorch's in-place op raises where NumPy's raised ``e``: an update of a
    state tensor (a momentum buffer, ``exp_avg`` ...) by a gradient of a larger shape, after
    ``param.data =`` resized the parameter. The steps update in place in PyTorch's order, so the
    state is left as PyTorch leaves it (updates before the failing one done); None for any
    other ValueError."""
    m = re.match(r"non-broadcastable output operand with shape \(([\d, ]*)\) doesn't match "
                 r"the broadcast shape \(([\d, ]*)\)", str(e))
    if m is None:
        return None
    have, out = ([int(n) for n in g.replace(",", " ").split()] for g in m.groups())
    return RuntimeError(f"output with shape {have} doesn't match the broadcast shape {out}")


def _hooked_step(func):
    """Wrap an optimizer class's ``step``: the global then the optimizer's pre-hooks (each
    may return ``(args, kwargs)`` to replace the arguments, anything else but None is a
    RuntimeError), the step, then the optimizer's and the global post-hooks, all inside a
    profiler label ``Optimizer.step#<class>.step`` (PyTorch's ``Optimizer.profile_hook_step``)."""

    def hooked(self, args, kwargs):
        for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{func} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        try:
            out = func(*args, **kwargs)
        except ValueError as e:  # NumPy's in-place broadcast error: PyTorch's RuntimeError
            raise _inplace_broadcast_error(e) or e from None
        for post_hook in chain(self._optimizer_step_post_hooks.values(),
                               _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        self = args[0]
        if _profiler._active is None:  # (no label to make: one attribute read)
            return hooked(self, args, kwargs)
        # a profile shows the whole step, hooks included, under PyTorch's label
        with record_function(f"Optimizer.step#{type(self).__name__}.step"):
            return hooked(self, args, kwargs)

    wrapper.hooked = True
    return wrapper


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


def _cast_to_param(param, key: str, value):
    """A loaded state value as PyTorch's ``_process_value_according_to_param_policy`` leaves
    it: a tensor other than ``step`` in the dtype of a floating-point parameter (its dtype
    now: ``param.data =`` may have changed it since the state was saved)."""
    from .._tensor import Tensor

    if key == "step" or not isinstance(value, Tensor) or not param.dtype.is_floating_point:
        return value
    return value if value.dtype == param.dtype else value.to(param.dtype)


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
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._patch_step_function()
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

    def _patch_step_function(self) -> None:
        """Wrap the class's ``step`` (once per class) so that it runs the step hooks."""
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _hooked_step(cls.step)

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)``, run
        before each ``step()`` of this optimizer (after the global pre-hooks, in
        registration order). Returns a handle whose ``remove()`` unregisters it."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs) -> None``, run after each ``step()`` of
        this optimizer (before the global post-hooks). Returns a handle whose ``remove()``
        unregisters it."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _add_hook(self, hooks: OrderedDict, hook, prepend: bool) -> RemovableHandle:
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer) -> None``, run at the start of ``state_dict()`` (first
        of all with ``prepend=True``). Returns a removable handle."""
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict) -> None or state_dict``, run on the packed
        state dict before ``state_dict()`` returns; a returned dict replaces it. Returns a
        removable handle."""
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook,
                                          prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict) -> None or state_dict``, run by
        ``load_state_dict()`` on a shallow copy of its argument before anything is checked;
        a returned dict is loaded instead. Returns a removable handle."""
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook,
                                           prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer) -> None``, run after ``load_state_dict()`` has restored
        the state. Returns a removable handle."""
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

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

        params = (p for group in self.param_groups for p in group["params"])
        if _profiler._active is None:
            reset_grads(params, set_to_none)
            return
        with record_function(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
            reset_grads(params, set_to_none)

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
        their position (0, 1, ... across groups), as in PyTorch (state-dict hooks run
        before and after)."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
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
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore hyperparameters and state saved by ``state_dict`` (from minigrad or torch).

        Raises ValueError when the number of groups or of parameters per group differs.
        """
        state_dict = state_dict.copy()  # (shallow, as for modules)
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
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
                param = id_map[k]
                state[param] = {name: _cast_to_param(param, name, _to_tensor(val))
                                for name, val in v.items()}
            else:
                state[k] = v
        for g, s in zip(groups, saved_groups):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
        self.state = state
        self.param_groups = saved_groups
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

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
        for name in ("step_pre", "step_post", "state_dict_pre", "state_dict_post",
                     "load_state_dict_pre", "load_state_dict_post"):
            self.__dict__.setdefault(f"_optimizer_{name}_hooks", OrderedDict())
        self._patch_step_function()
