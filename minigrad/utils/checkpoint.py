"""Activation checkpointing: trade compute for memory (``torch/utils/checkpoint.py``).

`checkpoint(fn, *args)` runs ``fn`` *without* recording a graph, so none of the tensors its
ops would save for backward are kept; only ``args`` are. When backward reaches the
checkpoint, ``fn`` runs again, this time with grad mode on, and a nested backward through that
fresh graph gives the gradients of ``args`` (and accumulates those of the parameters ``fn``
uses). The forward of ``fn`` therefore runs once more per backward.

This is the *reentrant* variant (``use_reentrant=True``): a custom `Function`,
``CheckpointFunction``, whose node shows as ``CheckpointFunctionBackward`` in the graph, and
whose backward calls the engine again (it "re-enters" it). Its limits are PyTorch's:

* the nested backward accumulates into ``.grad``, so it cannot serve ``autograd.grad`` or
  ``backward(inputs=...)`` (RuntimeError);
* if no argument requires grad, the output does not either (a warning says so), even when
  ``fn`` uses parameters that do;
* keyword arguments for ``fn`` are refused (ValueError).

With ``preserve_rng_state=True`` (the default) the state of minigrad's random generator is
saved before the forward and restored for the recomputation, so ``dropout`` draws the same mask
twice; the caller's generator is left as it was after the backward.

The non-reentrant variant (``use_reentrant=False``) recomputes through saved-tensor hooks,
which minigrad does not have yet: it raises NotImplementedError.
"""

from __future__ import annotations

import warnings

from .. import _creation
from ..autograd import grad_mode
from ..autograd.function import Function
from ..autograd.graph import EXEC_INFO

__all__ = ["checkpoint", "checkpoint_sequential", "detach_variable", "check_backward_validity"]

_MISSING_REENTRANT = (
    "minigrad.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")
_MISSING_REENTRANT_SEQUENTIAL = (
    "minigrad.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
    "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")
_NON_REENTRANT = (
    "minigrad.utils.checkpoint: use_reentrant=False is not supported yet: the non-reentrant "
    "checkpoint recomputes through saved-tensor hooks (torch.autograd.graph."
    "saved_tensors_hooks), which minigrad does not implement. Pass use_reentrant=True.")


def detach_variable(inputs: tuple) -> tuple:
    """Each tensor of ``inputs`` detached, keeping its ``requires_grad``; others as they are.

    Raises:
        RuntimeError: ``inputs`` is not a tuple.
    """
    from .._tensor import Tensor

    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    """Warn (UserWarning) when no tensor among ``inputs`` requires grad."""
    from .._tensor import Tensor

    if not any(isinstance(t, Tensor) and t.requires_grad for t in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


class CheckpointFunction(Function):
    """The reentrant checkpoint as a custom Function; its node is ``CheckpointFunctionBackward``.

    ``forward(ctx, run_function, preserve_rng_state, *args)`` runs ``run_function(*args)``
    unrecorded and saves only the tensor ``args``. ``backward`` reruns it on detached copies
    with grad enabled and returns the gradients of ``args`` found by a nested backward.
    """

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        """Run ``run_function(*args)`` (under no_grad, as every Function forward); keep the
        tensor arguments (saved) and the others (as they are), and the generator's state."""
        from .._tensor import Tensor

        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = _creation.get_rng_state()
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_indices))
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Recompute the forward with grad enabled and backpropagate ``grad_outputs`` through it.

        Raises:
            RuntimeError: the backward was started by ``autograd.grad`` or
                ``backward(inputs=...)``; or no output of the recomputation requires grad.
        """
        from .._tensor import Tensor
        from ..autograd import backward

        if EXEC_INFO.needed is not None:  # only part of the graph is run: grad / inputs=
            raise RuntimeError(
                "When use_reentrant=True, minigrad.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        outer_state = _creation.get_rng_state() if ctx.preserve_rng_state else None
        try:
            if ctx.preserve_rng_state:
                _creation.set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*detached)
        finally:  # the caller's generator continues as if backward had drawn nothing
            if outer_state is not None:
                _creation.set_rng_state(outer_state)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(t.grad if isinstance(t, Tensor) else None for t in detached)
        return (None, None) + grads


def _noop_context_fn():
    return None


def checkpoint(function, *args, use_reentrant=None, context_fn=_noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Run ``function(*args)`` without keeping its intermediate tensors; recompute them in
    backward (``torch.utils.checkpoint.checkpoint``).

    Args:
        function: what to run, e.g. a module or a block of layers.
        *args: its arguments. Gradients flow to the tensors among them that require grad (and
            to the parameters ``function`` uses, as long as one argument requires grad).
        use_reentrant: True for the reentrant variant (the only one minigrad has). Not
            passing it warns (UserWarning) and means True, as in PyTorch 2.13.
        context_fn: an option of the non-reentrant variant; must keep its default with
            ``use_reentrant=True``.
        determinism_check: an option of the non-reentrant variant (ignored here).
        debug: an option of the non-reentrant variant; must stay False.
        early_stop: an option of the non-reentrant variant (ignored here).
        **kwargs: only ``preserve_rng_state`` (bool, default True): replay the random
            generator's state during the recomputation.

    Returns:
        Whatever ``function`` returns; its tensors have ``CheckpointFunctionBackward`` as
        ``grad_fn`` when an argument requires grad.

    Raises:
        ValueError: other keyword arguments, or ``context_fn`` / ``debug`` with the reentrant
            variant.
        NotImplementedError: ``use_reentrant=False`` (needs saved-tensor hooks).
    """
    if use_reentrant is None:
        warnings.warn(_MISSING_REENTRANT, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if not use_reentrant:
        raise NotImplementedError(_NON_REENTRANT)
    if context_fn is not _noop_context_fn or debug is not False:
        raise ValueError("Passing `context_fn` or `debug` is only supported when "
                         "use_reentrant=False.")
    return CheckpointFunction.apply(function, preserve, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of functions (or an `nn.Sequential`) as ``segments`` checkpointed
    pieces (``torch.utils.checkpoint.checkpoint_sequential``).

    The functions are cut into ``segments`` runs of ``len(functions) // segments``; every run
    but the last is checkpointed (the last one's graph is needed right away by backward), so
    only the tensors passed between runs are kept.

    Args:
        functions: a list of callables of one argument, or an `nn.Sequential`.
        segments: how many pieces.
        input: the tensor given to the first function.
        use_reentrant: as in `checkpoint` (a missing one warns and means True).
        **kwargs: only ``preserve_rng_state``.

    Returns:
        The output of the last function.

    Raises:
        ValueError: other keyword arguments.
        NotImplementedError: ``use_reentrant=False``.
    """
    from ..nn.modules.container import Sequential

    if use_reentrant is None:
        warnings.warn(_MISSING_REENTRANT_SEQUENTIAL, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run(start, end):
        def forward(x):
            for fn in functions[start:end + 1]:
                x = fn(x)
            return x
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
