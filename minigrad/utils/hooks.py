"""Hook plumbing: ``RemovableHandle`` and ``BackwardHook`` (mirrors ``torch/utils/hooks.py``).

``RemovableHandle`` is what every ``register_*hook`` returns (defined next to the nodes, in
`minigrad.autograd.graph`, and re-exported here under PyTorch's import path).

``BackwardHook`` is how ``Module`` implements full backward hooks, exactly as PyTorch does: the
module's tensor inputs and its tensor outputs are each passed through an identity autograd
Function, `BackwardHookFunction`, whose backward node is ``BackwardHookFunctionBackward``
and is visible in the graph (``out.grad_fn``). Node hooks on those two nodes do the work:

* on the *output* node (runs first in backward): its incoming gradients are the module's
  ``grad_output``; the backward pre-hooks run here and may replace them;
* on the *input* node (runs once the gradient has flowed through the module's own nodes, so
  the module's parameter gradients are already accumulated): its outgoing gradients are the
  module's ``grad_input``; the full backward hooks run here and may replace them.

If no tensor input requires grad there is no input node, so the full backward hooks run at the
output node with ``grad_input`` all ``None`` (and PyTorch's warning). Every module call makes a
new ``BackwardHook``, so a module used twice fires its hooks twice.
"""

from __future__ import annotations

import warnings

from ..autograd import grad_mode
from ..autograd.function import Function
from ..autograd.graph import RemovableHandle

__all__ = ["RemovableHandle", "BackwardHook", "BackwardHookFunction", "unserializable_hook",
           "warn_if_has_hooks"]

NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")


def unserializable_hook(f):
    """Mark ``f`` as a hook that need not be serialised (``torch.utils.hooks``); returns ``f``."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor) -> None:
    """Warn for each tensor hook that is not marked `unserializable_hook`."""
    for hook in tensor._backward_hooks.values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this is "
                          "expected, you can decorate the function with "
                          "@minigrad.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)


class BackwardHookFunction(Function):
    """Identity on its tensor arguments; its node ``BackwardHookFunctionBackward`` is where a
    module's gradients are caught (``torch/nn/modules/_functions.py``).

    Arguments that do not require grad are marked non-differentiable. Each output is a view of
    its input, made by a custom Function: modifying it in place raises PyTorch's RuntimeError.
    Backward: ``grad_i -> grad_i`` (missing gradients arrive as zeros); saves nothing.
    """

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """One module call's full backward hooks (``torch.utils.hooks.BackwardHook``).

    ``module``: the module; ``user_hooks``: ``hook(module, grad_input, grad_output)`` callables
    (global ones first); ``user_pre_hooks``: ``hook(module, grad_output)`` callables.
    ``setup_input_hook(args)`` and ``setup_output_hook(result)`` return the arguments/result with
    every tensor replaced by its ``BackwardHookFunction`` view. Non-tensor positions appear as
    ``None`` in ``grad_input`` / ``grad_output``.

    Errors (as PyTorch): a pre-hook returning the wrong number of gradients →
    ``RuntimeError: Backward pre hook returned an invalid number of grad_output, got N, but
    expected M``; a hook likewise → ``... invalid number of grad_input ...``; a hook of a module
    none of whose inputs requires grad returning gradients → RuntimeError.
    """

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None  # set by the output node, consumed by the input node
        self.n_inputs = self.n_outputs = -1
        self.input_tensors_index = self.output_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size) -> tuple:
        """``size`` slots, ``values`` at ``indices`` and None elsewhere."""
        res = [None] * size
        for i, v in zip(indices, values):
            res[i] = v
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values) -> tuple:
        return tuple(values[i] for i in indices)

    def _wrap_tensors(self, args, on_node):
        """Pass the tensors of ``args`` through one ``BackwardHookFunction``; call
        ``on_node(node)``. Returns ``(new_args, tensor positions)``, or ``(args, None)`` when no
        tensor requires grad or grad mode is off."""
        from .._tensor import Tensor

        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and grad_mode.is_grad_enabled()):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        if len(new) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        nodes = [t.grad_fn for t in new
                 if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not nodes:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue with "
                               "a code sample to reproduce this.")
        on_node(nodes[0])
        out = list(args)
        for i, t in zip(index, new):
            out[i] = t
        out = tuple(out) if type(args) is tuple else type(args)(*out)  # namedtuples too
        return out, index

    # ---------------------------------------------------------------- inputs: full hooks
    def setup_input_hook(self, args):
        """Wrap the module's positional arguments; the node's post hook runs the full hooks."""
        def on_node(node):
            def hook(grad_input, _):
                if self.grad_outputs is None:  # gradient reached the inputs without the outputs
                    return None
                res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(res):
                        raise RuntimeError("Backward hook returned an invalid number of "
                                           f"grad_input, got {len(out)}, but expected {len(res)}")
                    res = out
                self.grad_outputs = None
                return self._unpack_none(self.input_tensors_index, res)

            node.register_hook(hook)

        res, self.input_tensors_index = self._wrap_tensors(args, on_node)
        self.n_inputs = len(args)
        return res

    # ---------------------------------------------------------------- outputs: pre-hooks
    def setup_output_hook(self, result):
        """Wrap the module's output(s); the node's post hook runs the backward pre-hooks (and
        the full hooks too when no input required grad)."""
        def on_node(node):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                         self.n_outputs)
                for pre_hook in self.user_pre_hooks:
                    new = pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError(
                            "Backward pre hook returned an invalid number of grad_output, got "
                            f"{len(new)}, but expected {len(self.grad_outputs)}")
                    self.grad_outputs = new
                grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:  # no input requires grad: fire now
                    warnings.warn(NO_INPUT_GRAD_WARNING, UserWarning, stacklevel=2)
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple)
                                                    and all(r is None for r in res)):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients.")
                    self.grad_outputs = None
                return self._unpack_none(self.output_tensors_index, grad_outputs)

            node.register_hook(hook)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_tensors_index = self._wrap_tensors(args, on_node)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]
