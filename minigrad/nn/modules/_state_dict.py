"""``Module.state_dict`` / ``load_state_dict`` and their hooks, as a mixin of `Module`.

Mirrors the state-dict half of ``torch/nn/modules/module.py`` (kept in its own file so
``module.py`` stays readable): ``state_dict`` runs the state-dict pre-hooks, `_save_to_state_dict`,
the children, then the post-hooks; ``load_state_dict`` walks the tree calling each module's
``_load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
unexpected_keys, error_msgs)`` — which runs the module's load pre-hooks first, and which a
subclass may override to migrate an old checkpoint — then, after a module's children, its load
post-hooks with the shared ``incompatible_keys``. Only then are missing/unexpected keys turned
into the RuntimeError.

A rejected load leaves partial state, as PyTorch's does (``DESIGN.md``: where PyTorch leaves
partial state, minigrad matches it): every entry that matched is copied (its ``_version`` goes
up by one; with ``assign=True`` the tensor is replaced) before the RuntimeError names the
missing and unexpected keys and the size mismatches; the tensors that failed are unchanged.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import numpy as np

from ... import _dtype
from ..._tensor import Size, Tensor
from ...autograd import grad_mode
from ...autograd.graph import RemovableHandle
from ..parameter import Parameter

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: ``(missing_keys, unexpected_keys)``."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _as_array(value):
    """A state-dict value as an ndarray: minigrad/torch tensors, NumPy arrays, array-likes.

    Returns None when the value is not numeric tensor-like data.
    """
    if isinstance(value, Tensor):
        return value._data
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch tensor (any device)
        value = value.detach()
        value = value.cpu() if hasattr(value, "cpu") else value
        if str(value.dtype) == "torch.bfloat16":  # (no NumPy bfloat16 in torch: its bits)
            import torch

            return value.view(torch.int16).numpy().view(_dtype.bfloat16.np)
        return np.asarray(value.numpy())
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - anything NumPy cannot read is "not tensor-like"
        return None
    return arr if arr.dtype.kind in "biuf" or _dtype.is_float_np(arr.dtype) else None


class _WrappedLoadHook:
    """A load-state-dict pre-hook that gets its module (held weakly) as first argument."""

    def __init__(self, hook, module) -> None:
        self.hook = hook
        self.module = None if module is None else weakref.ref(module)

    def __call__(self, *args):
        if self.module is None:
            return self.hook(*args)
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args)


class _StateDictMixin:
    """``state_dict``, ``load_state_dict`` and their hooks (see the module docstring)."""

    # ------------------------------------------------------------------ saving
    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        """Put this module's own parameters and persistent buffers (detached unless
        ``keep_vars``) and its extra state into ``destination``; the children are not here."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not _StateDictMixin.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def get_extra_state(self):
        """State beyond parameters and buffers to save in ``state_dict`` (override it, with
        `set_extra_state`); the base class has none and raises RuntimeError."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called. Please file an issue on GitHub.")

    def set_extra_state(self, state) -> None:
        """Restore what `get_extra_state` saved (override both)."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called. Please file an issue on GitHub.")

    def state_dict(self, *, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of parameters and persistent buffers, by dotted name.

        Own entries first (parameters, then buffers, then extra state), then each child's.
        Values are detached tensors sharing storage and version counter (``keep_vars=True``:
        the Parameters themselves). Shared parameters appear under every name. Runs the
        state-dict pre-hooks ``hook(module, prefix, keep_vars)`` before and the post-hooks
        ``hook(module, state_dict, prefix, local_metadata)`` after (RuntimeError if a public
        post-hook returns something). ``destination._metadata`` maps each prefix to
        ``{"version": ...}``.
        """
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if result is not None:
                    destination = result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """Run ``hook(module, prefix, keep_vars)`` before ``state_dict`` saves this module."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after this module and its
        children are saved; it may change ``state_dict`` in place and must return None."""
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        """The private post-hook: its non-None result replaces the state dict."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via "
                               "register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    # ------------------------------------------------------------------ loading
    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        """The private form: ``hook(state_dict, prefix, local_metadata, strict,
        missing_keys, unexpected_keys, error_msgs)``, with the module first if
        ``with_module``."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedLoadHook(
            hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` at the start of this module's `_load_from_state_dict`
        (it may rename or add keys of ``state_dict`` in place)."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        """Run ``hook(module, incompatible_keys)`` after this module and its children are
        loaded; it may change ``incompatible_keys.missing_keys`` / ``.unexpected_keys`` in
        place (they decide the strict error). AssertionError if it returns something."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        """Load this module's own entries from ``state_dict`` (keys ``prefix + name``).

        Runs the load pre-hooks, then copies each present entry in place under no_grad (or
        assigns it when ``local_metadata['assign_to_params_buffers']``), appending to
        ``error_msgs`` for a non-tensor value or a size mismatch, and to ``missing_keys``
        (``strict``) for an absent one; with ``strict``, keys under ``prefix`` that name no
        parameter, buffer or child go to ``unexpected_keys``. Override it to migrate old
        checkpoints (rename keys in ``state_dict``, then call ``super()``).
        """
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            arr = _as_array(state_dict[key])
            if arr is None:
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  "minigrad.Tensor or Tensor-like object from checkpoint but "
                                  f"received {type(state_dict[key])}")
                continue
            if param.ndim == 0 and arr.shape == (1,):
                arr = arr.reshape(())
            if arr.shape != param._data.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{Size(arr.shape)} from checkpoint, the shape in current "
                                  f"model is {param.shape}.")
                continue
            with grad_mode.no_grad():
                if not assign:
                    param.copy_(Tensor._make(arr))
                elif isinstance(param, Parameter):
                    setattr(self, name, Parameter(Tensor._make(np.array(arr)),
                                                  param.requires_grad))
                else:
                    self._buffers[name] = Tensor._make(np.array(arr))
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not _StateDictMixin.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head, dot, _ = key[len(prefix):].partition(".")
                    if (dot and head not in self._modules) or (not dot and head not in local_state):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy parameters and persistent buffers from ``state_dict`` into this module.

        Values may be minigrad Tensors, NumPy arrays, array-likes or torch tensors (anything
        with ``.detach().cpu().numpy()``). Copies are in place under no_grad (each copied
        tensor's ``_version`` goes up by one) and cast to the existing dtype; ``assign=True``
        replaces the tensors instead. Each module's `_load_from_state_dict` gets the entries
        under its prefix (and its metadata), then its post-hooks run. Raises TypeError if
        ``state_dict`` is not a mapping and RuntimeError ``Error(s) in loading state_dict for
        <Class>`` listing missing keys, unexpected keys (``strict``) and the other errors —
        after copying every entry that matched, as PyTorch does (the load is not undone; see
        the module docstring). Returns ``_IncompatibleKeys(missing_keys, unexpected_keys)``.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items()
                                        if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible_keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)
