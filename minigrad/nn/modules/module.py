"""``Module``: registration of parameters, buffers and submodules, ``state_dict``, forward hooks.

Mirrors ``torch/nn/modules/module.py``. The whole trick of ``nn.Module`` is its
``__setattr__``: assigning a `Parameter` puts it in ``self._parameters``,
assigning a ``Module`` puts it in ``self._modules``, and a tensor assigned to an existing buffer
name replaces the buffer. Everything else (plain tensors, Python lists of modules, a module kept
inside a dict) is an ordinary attribute that ``parameters()``, ``state_dict()``, ``eval()`` and
optimizers never see. ``__getattr__`` is the way back: ``self.fc`` is found in ``_modules``.

``Module.__call__`` (PyTorch's ``_call_impl``) runs, in this order: the global then the
module's own forward pre-hooks; when there are full backward (pre-)hooks, the tensor arguments
are passed through a ``BackwardHookFunction`` (`minigrad.utils.hooks`); ``forward``; the
global then own forward hooks; the output passes through a second ``BackwardHookFunction``; a
legacy ``register_backward_hook`` hook is attached as a post hook of the output's ``grad_fn``
(the module's *last* node, so its ``grad_input`` are that node's input gradients).
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict

from ..._tensor import Tensor
from ...autograd import grad_mode
from ...autograd.graph import RemovableHandle
from ...utils.hooks import BackwardHook
from ..parameter import Buffer, Parameter
from ._state_dict import _IncompatibleKeys, _StateDictMixin  # noqa: F401 (re-exported)

__all__ = ["Module", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook", "register_module_forward_pre_hook",
           "register_module_forward_hook",
           "register_module_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_full_backward_hook"]

MIXED_HOOKS_MSG = ("Cannot use both regular backward hooks and full backward hooks on a single "
                   "Module. Please use only one of them.")
MIXED_GLOBAL_HOOKS_MSG = ("Cannot use both regular backward hooks and full backward hooks as a "
                          "global Module hook. Please use only one of them.")

# Hooks that run for every module (torch.nn.modules.module's globals of the same names).
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()
_global_is_full_backward_hook: bool | None = None  # None until a global backward hook is added


_global_buffer_registration_hooks: OrderedDict = OrderedDict()
_global_module_registration_hooks: OrderedDict = OrderedDict()
_global_parameter_registration_hooks: OrderedDict = OrderedDict()


def register_module_buffer_registration_hook(hook) -> RemovableHandle:
    """Run ``hook(module, name, buffer) -> None | new buffer`` whenever any module registers a
    buffer (``register_buffer`` or assignment to a buffer name)."""
    handle = RemovableHandle(_global_buffer_registration_hooks)
    _global_buffer_registration_hooks[handle.id] = hook
    return handle


def register_module_module_registration_hook(hook) -> RemovableHandle:
    """Run ``hook(module, name, submodule) -> None | new submodule`` whenever any module
    registers a child (``add_module`` or attribute assignment)."""
    handle = RemovableHandle(_global_module_registration_hooks)
    _global_module_registration_hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook) -> RemovableHandle:
    """Run ``hook(module, name, param) -> None | new param`` whenever any module registers a
    Parameter (``register_parameter`` or attribute assignment; not for ``None``)."""
    handle = RemovableHandle(_global_parameter_registration_hooks)
    _global_parameter_registration_hooks[handle.id] = hook
    return handle


def _run_registration_hooks(hooks, module, name, value):
    for hook in hooks.values():
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """Register ``hook(module, args) -> None | new_args`` to run before every module's forward.

    Global pre-hooks run before the module's own pre-hooks
    (``torch.nn.modules.module.register_module_forward_pre_hook``).
    """
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def reset_grads(params, set_to_none: bool = True) -> None:
    """``.grad = None`` for each parameter, or zero it in place (detached; same object,
    ``_version`` + 1). Shared by ``Module.zero_grad`` and ``Optimizer.zero_grad``."""
    for p in params:
        if p._grad is None:  # (a parameter is a leaf: reading .grad would never warn)
            continue
        if set_to_none:
            p._grad = None
            continue
        if p.grad.grad_fn is not None:
            p.grad.detach_()
        else:
            p.grad.requires_grad_(False)
        p.grad.zero_()


def register_module_forward_hook(hook, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """Register ``hook(module, args, output) -> None | new_output`` for every module.

    ``with_kwargs=True``: ``hook(module, args, kwargs, output)``. ``always_call=True``: also run
    (with the output so far, usually None) when ``forward`` raises. Global hooks run before the
    module's own forward hooks (``torch.nn.modules.module.register_module_forward_hook``).
    """
    handle = RemovableHandle(_global_forward_hooks, _global_forward_hooks_with_kwargs,
                             _global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook) -> RemovableHandle:
    """Legacy (deprecated) backward hook for every module, like
    `Module.register_backward_hook`; RuntimeError if global full hooks were registered."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError(MIXED_GLOBAL_HOOKS_MSG)
    _global_is_full_backward_hook = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """Register ``hook(module, grad_output) -> None | new_grad_output`` for every module.

    Runs before the module's own backward pre-hooks
    (``torch.nn.modules.module.register_module_full_backward_pre_hook``).
    """
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """Register ``hook(module, grad_input, grad_output) -> None | new_grad_input`` for every
    module; runs before the module's own full backward hooks. RuntimeError if legacy global
    backward hooks were registered (``torch.nn.modules.module.register_module_full_backward_hook``).
    """
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError(MIXED_GLOBAL_HOOKS_MSG)
    _global_is_full_backward_hook = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


class _WrappedHook:
    """A legacy module backward hook as a node post hook: ``(gi, go) -> hook(module, gi, go)``.

    Holds the module weakly; carries the user hook's ``__name__`` (used in error messages).
    """

    def __init__(self, hook, module) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.module = weakref.ref(module)

    def __call__(self, *args):
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args)


def _typename(obj) -> str:
    """``torch.typename``: ``'minigrad.FloatTensor'`` for tensors, else module-qualified name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module, qualname = getattr(obj, "__module__", "") or "", getattr(obj, "__qualname__", None)
    if qualname is None:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _addindent(s: str, num_spaces: int) -> str:
    """Indent every line but the first by ``num_spaces`` (used by ``__repr__``)."""
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    rest = [num_spaces * " " + line if line.strip() else "" for line in lines[1:]]
    return lines[0] + "\n" + "\n".join(rest)


class Module(_StateDictMixin):
    """Base class of every layer and model (``torch.nn.Module``).

    Subclasses call ``super().__init__()`` first, assign parameters/submodules as attributes,
    and define ``forward``. Call the module (``m(x)``), not ``m.forward(x)``, so hooks run.
    """

    _version: int = 1  # format version stored in state_dict metadata, as in PyTorch
    training: bool
    call_super_init: bool = False

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        setattr_ = super().__setattr__  # bypass Module.__setattr__ for the bookkeeping dicts
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:  # (the next class in the MRO gets the arguments)
            super().__init__(*args, **kwargs)

    def forward(self, *args, **kwargs):
        """The computation; every subclass must override it."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ------------------------------------------------------------------ registration
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter (e.g. running statistics).

        Persistent buffers appear in ``state_dict``; ``None`` is kept but skipped.
        Raises AttributeError before ``__init__``, TypeError for a non-string name or a
        non-tensor value, KeyError for a name with ``.``, an empty name, or an existing
        attribute.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(minigrad Tensor or None required)")
        tensor = _run_registration_hooks(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or a ``None`` placeholder, skipped by ``parameters()``).

        Raises AttributeError before ``__init__``, TypeError for a non-string name or a value
        that is not a Parameter, KeyError for a bad or taken name, ValueError for a non-leaf.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(minigrad.nn.Parameter or None required)")
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        else:
            param = _run_registration_hooks(_global_parameter_registration_hooks, self, name,
                                            param)
            self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` as the child ``name`` (``None`` keeps a placeholder).

        Raises TypeError for a non-Module or a non-string name, KeyError for a bad or taken name.
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        module = _run_registration_hooks(_global_module_registration_hooks, self, name, module)
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias for `add_module`."""
        self.add_module(name, module)

    def __getattr__(self, name: str):
        # Only called when normal lookup fails: look in the three registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        def remove_from(*containers):
            for c in containers:
                if name in c:
                    if isinstance(c, dict):
                        del c[name]
                    else:
                        c.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(minigrad.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._buffers,
                        self._non_persistent_buffers_set)
            modules[name] = _run_registration_hooks(_global_module_registration_hooks, self, name,
                                                    value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(minigrad.nn.Module or None expected)")
            modules[name] = _run_registration_hooks(_global_module_registration_hooks, self, name,
                                                    value)
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(minigrad.nn.Buffer, minigrad.Tensor or None expected)")
            persistent = value.persistent if isinstance(value, Buffer) else (
                name not in self._non_persistent_buffers_set)
            self.register_buffer(name, value, persistent)
            return
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path ``target`` (``''`` is self); AttributeError if absent."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at dotted path ``target`` (its parent must exist). ValueError for an
        empty target or a non-Module; AttributeError when the name holds something that is not
        a Module, or (``strict``) does not exist yet."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The Parameter at dotted path ``target``; AttributeError if absent or not a Parameter."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``; AttributeError if absent or not a buffer."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return getattr(mod, buffer_name)

    # ------------------------------------------------------------------ iteration
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(qualified name, member)`` over modules; identical objects once when
        ``remove_duplicate`` (the first name wins); ``None`` entries skipped."""
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True):
        """Iterator over parameters (own first, then children depth-first; shared ones once)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True):
        """Iterator of ``(name, Parameter)`` with dotted names such as ``'0.weight'``."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse: bool = True):
        """Iterator over buffers (persistent or not)."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True):
        """Iterator of ``(name, buffer)``."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def children(self):
        """Iterator over direct children (each object once)."""
        for _, m in self.named_children():
            yield m

    def named_children(self):
        """Iterator of ``(name, child)`` over direct children (each object once)."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True):
        """Iterator over all modules in the tree, pre-order, self first."""
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True):
        """Iterator of ``(dotted name, module)``, pre-order; self is ``''``."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    # ------------------------------------------------------------------ modes and utilities
    def train(self, mode: bool = True) -> Module:
        """Set ``training`` on this module and every descendant; returns self.

        Raises ValueError if ``mode`` is not a bool.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``; returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset parameter gradients: ``.grad = None`` (default) or zero them in place."""
        reset_grads(self.parameters(), set_to_none)

    def apply(self, fn) -> Module:
        """Call ``fn(module)`` on every child (recursively, post-order), then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse: bool = True) -> Module:
        """Apply ``fn`` to every parameter, its ``.grad`` and every buffer (``Module._apply``,
        behind ``.to()``/``.double()``/...): parameters and gradients keep their objects and
        get the result as ``.data`` (``fn`` runs under ``no_grad``, so it may work in place);
        buffers are replaced by the result. Children first, unless ``recurse=False``."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for p in self._parameters.values():
            if p is None:
                continue
            with grad_mode.no_grad():
                p.data = fn(p)
            grad = p._grad
            if grad is not None:
                with grad_mode.no_grad():
                    grad.data = fn(grad)
        for name, b in self._buffers.items():
            if b is not None:
                self._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move and/or cast parameters and buffers (``Module.to``): ``to(device)``,
        ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``, ``non_blocking=``. A dtype casts
        only the floating ones.

        Raises:
            TypeError: a dtype that is not floating (PyTorch's "nn.Module.to only accepts
                floating point or complex dtypes"), or arguments of no signature of ``to``.
            AssertionError: a CUDA device (minigrad computes with NumPy on the CPU).
        """
        from ..._device import check_device
        from ..._dtype import from_numpy_dtype, to_numpy_dtype
        from ..._ops.shape import parse_to

        device, dtype, _, _ = parse_to(args, kwargs)
        if dtype is not None:
            dt = from_numpy_dtype(to_numpy_dtype(dtype))
            if not dt.is_floating_point:
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dt}")
        check_device(device)
        if dtype is None:
            return self
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def cpu(self) -> Module:
        """Returns self (minigrad is CPU-only)."""
        return self

    def cuda(self, device=None) -> Module:
        """Raises AssertionError "Torch not compiled with CUDA enabled", as a CPU-only PyTorch
        does: minigrad computes with NumPy on the CPU."""
        from ..._device import NO_CUDA

        raise AssertionError(NO_CUDA)

    def float(self) -> Module:
        """Cast floating parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        """Cast floating parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        """Cast floating parameters and buffers to float16 (``torch.nn.Module.half``)."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        """Cast floating parameters and buffers to bfloat16 (``torch.nn.Module.bfloat16``);
        ImportError without the optional package ml_dtypes."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    # ------------------------------------------------------------------ hooks and call
    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Register ``hook(module, args) -> None | new_args`` to run before ``forward``.

        A non-tuple return value becomes the single positional argument. ``with_kwargs=True``:
        ``hook(module, args, kwargs) -> None | (new_args, new_kwargs)``. ``prepend=True`` runs it
        before the module's other pre-hooks (global pre-hooks still run first).
        """
        handle = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Register ``hook(module, args, output) -> None | new_output`` to run after ``forward``.

        ``with_kwargs=True``: ``hook(module, args, kwargs, output)``. ``always_call=True``: also
        run when ``forward`` (or an earlier hook) raises; its own exception is then turned into
        a warning and the original error propagates. ``prepend=True`` puts it first.
        """
        handle = RemovableHandle(self._forward_hooks, self._forward_hooks_with_kwargs,
                                 self._forward_hooks_always_called)
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(module, grad_output) -> None | new_grad_output``.

        Runs each time the gradient w.r.t. the module's output is computed, before any of the
        module's own backward nodes; a returned tuple (same length) replaces ``grad_output`` for
        everything downstream. ``grad_output`` has ``None`` for non-tensor outputs. Global
        pre-hooks run first; ``prepend=True`` puts this one before the module's others. The
        module's inputs and outputs become ``BackwardHookFunction`` views: modifying them in
        place raises RuntimeError.
        """
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook) -> RemovableHandle:
        """Legacy hook ``hook(module, grad_input, grad_output)`` (deprecated in PyTorch).

        It is a post hook on the ``grad_fn`` of the module's output, i.e. its *last* autograd
        node: ``grad_input`` are the gradients of that node's inputs (for ``Linear``: bias,
        input and weight.T of the ``AddmmBackward0``), not of the module's inputs. The forward
        warns (FutureWarning) when that node is not the only one. RuntimeError if the module
        already has full backward hooks.
        """
        if self._is_full_backward_hook is True:
            raise RuntimeError(MIXED_HOOKS_MSG)
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(module, grad_input, grad_output) -> None | new_grad_input``.

        Fires when the gradients w.r.t. the module's positional tensor inputs are computed
        (after its parameters' gradients were accumulated); if no input requires grad, it fires
        with ``grad_input`` all ``None`` when the output gradient is computed (UserWarning);
        if no output requires grad, it never fires. An input that does not require grad gets a
        zero tensor while another input does; non-tensor inputs get ``None``. A returned tuple
        (same length) replaces ``grad_input``. Global full hooks run first; ``prepend=True``
        puts this one before the module's others. RuntimeError if the module has legacy
        backward hooks (even removed ones).
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError(MIXED_HOOKS_MSG)
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _get_backward_hooks(self):
        """``(full hooks, legacy hooks)`` for this call: global ones first."""
        full, legacy = [], []
        if _global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        elif _global_is_full_backward_hook is False:
            legacy += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        elif self._is_full_backward_hook is False:
            legacy += self._backward_hooks.values()
        return full, legacy

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn) -> None:
        """PyTorch's FutureWarnings for a legacy hook that will miss some gradients."""
        def warn(text):
            warnings.warn(text, FutureWarning, stacklevel=4)

        if isinstance(result, Tensor):
            result = (result,)
        elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            return warn("Using non-full backward hooks on a Module that does not return a single "
                        "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                        "versions. This hook will be missing some of the grad_output. Please use "
                        "register_full_backward_hook to get the documented behavior.")
        if isinstance(inputs, Tensor):
            inputs = (inputs,)
        elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            return warn("Using non-full backward hooks on a Module that does not take as input a "
                        "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                        "future versions. This hook will be missing some of the grad_input. "
                        "Please use register_full_backward_hook to get the documented behavior.")
        out_fns = {r.grad_fn for r in result if r.grad_fn is not None}
        if not out_fns or (len(out_fns) == 1 and grad_fn not in out_fns):
            warn("Using a non-full backward hook when outputs are nested in python data structure "
                 "is deprecated and will be removed in future versions. This hook will be missing "
                 "some grad_output.")
        elif len(out_fns) > 1:
            warn("Using a non-full backward hook when outputs are generated by different autograd "
                 "Nodes is deprecated and will be removed in future versions. This hook will be "
                 "missing some grad_output. Please use register_full_backward_hook to get the "
                 "documented behavior.")
        elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {
                n for n, _ in grad_fn.next_functions}:
            warn("Using a non-full backward hook when the forward contains multiple autograd "
                 "Nodes is deprecated and will be removed in future versions. This hook will be "
                 "missing some grad_input. Please use register_full_backward_hook to get the "
                 "documented behavior.")

    def __call__(self, *args, **kwargs):
        return self._call_impl(*args, **kwargs)

    def _call_impl(self, *args, **kwargs):
        """Run pre-hooks, ``forward`` and forward hooks, in PyTorch's order.

        Global hooks of a kind run before the module's own hooks of that kind. Without any
        hook this is just ``self.forward(*args, **kwargs)``.
        """
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks
                or _global_backward_hooks or _global_forward_hooks or _global_forward_pre_hooks):
            return self.forward(*args, **kwargs)
        result = None
        called_always = set()
        try:
            full_hooks, legacy_hooks = self._get_backward_hooks()
            pre_hooks = self._get_backward_pre_hooks()
            for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                  *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    new = hook(self, args, kwargs)
                    if new is not None:
                        if not (isinstance(new, tuple) and len(new) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {new}.")
                        args, kwargs = new
                else:
                    new = hook(self, args)
                    if new is not None:
                        args = new if isinstance(new, tuple) else (new,)
            bw_hook = None
            if full_hooks or pre_hooks:  # inputs go through a BackwardHookFunctionBackward
                bw_hook = BackwardHook(self, full_hooks, pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if (hook_id in self._forward_hooks_always_called
                        or hook_id in _global_forward_hooks_always_called):
                    called_always.add(hook_id)
                if (hook_id in self._forward_hooks_with_kwargs
                        or hook_id in _global_forward_hooks_with_kwargs):
                    new = hook(self, args, kwargs, result)
                else:
                    new = hook(self, args, result)
                if new is not None:
                    result = new
            if bw_hook is not None:  # and so do the outputs
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  "Tensor or a tuple of Tensors but received "
                                  f"{type(result)}", stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            if legacy_hooks:  # a post hook on the grad_fn of the first output tensor
                var = result
                while not isinstance(var, Tensor):
                    var = (next(v for v in var.values() if isinstance(v, Tensor))
                           if isinstance(var, dict) else var[0])
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in legacy_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result
        except Exception:
            self._run_always_called_hooks(args, kwargs, result, called_always)
            raise

    def _run_always_called_hooks(self, args, kwargs, result, already_called) -> None:
        """After an error: run the ``always_call`` forward hooks not yet run, silencing theirs."""
        for hook_id, hook in _global_forward_hooks.items():
            if hook_id in _global_forward_hooks_always_called and hook_id not in already_called:
                try:
                    new = hook(self, args, result)
                    result = new if new is not None else result
                except Exception as e:  # noqa: BLE001 - PyTorch silences it into a warning
                    warnings.warn("global module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {e}", stacklevel=3)
        for hook_id, hook in self._forward_hooks.items():
            if hook_id in self._forward_hooks_always_called and hook_id not in already_called:
                try:
                    if hook_id in self._forward_hooks_with_kwargs:
                        new = hook(self, args, kwargs, result)
                    else:
                        new = hook(self, args, result)
                    result = new if new is not None else result
                except Exception as e:  # noqa: BLE001 - PyTorch silences it into a warning
                    warnings.warn("module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {e}", stacklevel=3)

    # ------------------------------------------------------------------ repr
    def extra_repr(self) -> str:
        """One line (or several) shown inside ``ClassName(...)``; empty by default."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
