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

The non-reentrant variant (``use_reentrant=False``, the one PyTorch recommends) adds no node:
``fn`` runs with grad mode on, so its graph is the ordinary one, but inside a
``saved_tensors_hooks`` block whose pack hook keeps a placeholder (a ``_Holder``) instead of
each tensor an op saves. The first unpack of a backward (one graph task) recomputes ``fn`` on
the saved arguments under a second pair of hooks that files every tensor the recomputation
saves under its placeholder, stopping as soon as the last one is filed (``early_stop``); each
unpack then takes its tensor (once). So it serves ``autograd.grad`` and ``backward(inputs=)``,
takes keyword arguments for ``fn``, and checks that the recomputation saved as many tensors,
of the same shapes, dtypes and devices, as the forward (``determinism_check="default"``:
`CheckpointError` otherwise).
"""

from __future__ import annotations

import contextlib
import uuid
import warnings
import weakref
from collections import defaultdict

from .. import _creation
from ..autograd import grad_mode
from ..autograd.function import Function
from ..autograd.graph import EXEC_INFO, SavedTensor
from ..autograd.graph_utils import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "detach_variable", "check_backward_validity",
           "CheckpointError", "set_checkpoint_early_stop", "noop_context_fn"]

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
_DEBUG_TIP = ("\nTip: To see a more detailed error message, either pass `debug=True` to "
              "`minigrad.utils.checkpoint.checkpoint(...)` or wrap the code block with "
              "`with minigrad.utils.checkpoint.set_checkpoint_debug_enabled(True):` to enable "
              "checkpoint-debug mode globally (minigrad: not implemented, the message stays "
              "as it is).\n")


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


class CheckpointError(RuntimeError):
    """What the non-reentrant checkpoint raises when the recomputation does not match the
    forward, or a saved tensor is unpacked twice in one backward
    (``torch.utils.checkpoint.CheckpointError``)."""


_early_stop_override = None  # set by set_checkpoint_early_stop


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Context manager: whether the non-reentrant recomputation stops as soon as every needed
    tensor is recomputed, for the checkpoints run inside it (overrides their ``early_stop``)."""
    global _early_stop_override
    previous = _early_stop_override
    try:
        _early_stop_override = enable
        yield
    finally:
        _early_stop_override = previous


class _Handle:
    """Key of one recomputed tensor in one backward (weakly held: dropped once unpacked)."""


class _Holder:
    """The placeholder a node keeps instead of a tensor saved inside the checkpoint: the
    handles of its recomputed value, one per backward (graph task id)."""

    def __init__(self):
        self.handles: dict = {}


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once every needed tensor is recomputed."""


def _metadata(x) -> dict:
    """What ``determinism_check="default"`` compares (PyTorch's ``_default_meta_extractor``)."""
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_DETERMINISM_CHECKS = {"default": _metadata, "none": lambda _: None}


class _CheckpointFrame:
    """The state of one non-reentrant checkpoint (PyTorch's ``_CheckpointFrame``).

    ``weak_holders``: one weak reference per tensor saved in the forward, in order (a holder
    dies with the node that keeps it); ``x_metadatas``: their metadata; ``recomputed``: per
    backward, handle -> recomputed tensor; ``recomp_counter``: per backward, tensors saved by
    the recomputation so far; ``is_recomputed``: per backward, whether it ran.
    """

    def __init__(self, recompute_fn, early_stop: bool, metadata_fn):
        self.recompute_fn = recompute_fn
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.saved_args: list = []
        self.weak_holders: list = []
        self.x_metadatas: list = []
        self.recomputed = defaultdict(weakref.WeakKeyDictionary)
        self.recomp_counter = defaultdict(int)
        self.is_recomputed = defaultdict(bool)
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, *args) -> None:
        """Keep the arguments; tensors as saved tensors (an in-place change before the
        backward is then the usual version error)."""
        from .._tensor import Tensor

        self.saved_args = [SavedTensor(a, None, False) if isinstance(a, Tensor) else a
                           for a in args]

    def get_inputs(self) -> list:
        return [a.unpack() if isinstance(a, SavedTensor) else a for a in self.saved_args]

    def check_recomputed_tensors_match(self, gid) -> None:
        """CheckpointError when the recomputation saved another number of tensors, or tensors
        of other metadata, than the forward."""
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recomp_counter[gid]:
            raise CheckpointError(
                "minigrad.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recomp_counter[gid]}.\n"
                + _DEBUG_TIP)
        different = []
        for idx, weak_holder in enumerate(self.weak_holders):
            holder = weak_holder()
            if holder is None:
                continue
            recomputed = self.recomputed[gid][holder.handles[gid]]
            if self.x_metadatas[idx] != self.metadata_fn(recomputed):
                different.append((idx, self.x_metadatas[idx], self.metadata_fn(recomputed)))
        if different:
            lines = "".join(f"tensor at position {idx}:\nsaved metadata: {saved}\n"
                            f"recomputed metadata: {now}\n" for idx, saved, now in different)
            raise CheckpointError(
                "minigrad.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{lines}.\n" + _DEBUG_TIP)


class _recomputation_hook(saved_tensors_hooks):  # noqa: N801  (PyTorch's name)
    """Hooks of the recomputation: each saved tensor (detached) is filed under the holder of
    the same position in the forward; ``_StopRecomputation`` once all are filed."""

    def __init__(self, frame_ref, gid):
        def pack_hook(x):
            x = x.detach() if x.requires_grad else x
            frame = frame_ref()
            idx = frame.recomp_counter[gid]
            frame.recomp_counter[gid] += 1
            if idx >= len(frame.weak_holders):
                if not frame.forward_completed:  # (a backward inside the forward)
                    frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError("minigrad.utils.checkpoint: trying to save more tensors "
                                      "during recomputation than during the original forward "
                                      "pass.\n" + _DEBUG_TIP)
            holder = frame.weak_holders[idx]()
            if holder is not None:  # (None: its node is gone, nothing needs it)
                holder.handles[gid] = _Handle()
                frame.recomputed[gid][holder.handles[gid]] = x
            if frame.early_stop and frame.recomp_counter[gid] == len(frame.weak_holders):
                raise _StopRecomputation
            return x

        super().__init__(pack_hook, lambda x: x)


class _checkpoint_hook(saved_tensors_hooks):  # noqa: N801  (PyTorch's name)
    """Hooks of the checkpointed forward: pack keeps a `_Holder` (and the tensor's metadata);
    the first unpack of a backward recomputes, every unpack takes its tensor once."""

    def __init__(self, frame):
        def pack_hook(x):
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            if frame.metadata_fn is not None:
                with grad_mode.no_grad():
                    frame.x_metadatas.append(frame.metadata_fn(x))
            return holder

        def unpack_hook(holder):
            gid = EXEC_INFO.task_id
            if gid == -1:  # outside a backward (a read of node._saved_x): a fresh id each time
                gid = int(uuid.uuid4())
            if not frame.is_recomputed[gid]:
                args = frame.get_inputs()
                try:
                    with _recomputation_hook(weakref.ref(frame), gid), grad_mode.enable_grad():
                        frame.recompute_fn(*args)
                except _StopRecomputation:
                    pass
                frame.is_recomputed[gid] = True
                frame.check_recomputed_tensors_match(gid)
            if holder.handles.get(gid) is None:
                raise CheckpointError(
                    "minigrad.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    "already unpacked once. If you are calling ctx.saved_tensors in backward, "
                    "make sure to do so only once. Otherwise please open an issue with details "
                    "on your use case.")
            ret = frame.recomputed[gid][holder.handles[gid]]
            holder.handles[gid] = None
            return ret

        super().__init__(pack_hook, unpack_hook)


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check,
                                  debug, early_stop, args, kwargs):
    """``function(*args, **kwargs)`` with its saved tensors replaced by placeholders (see the
    module docstring); PyTorch's ``_checkpoint_without_reentrant_generator``."""
    if debug and context_fn is not _noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError("determinism_check should be one of "
                         f"{list(_DETERMINISM_CHECKS)}, but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    fwd_state = _creation.get_rng_state() if preserve_rng_state else None

    def recompute_fn(*inputs):
        outer = _creation.get_rng_state() if preserve_rng_state else None
        try:  # (fork_rng: the caller's generator is left as it was)
            if preserve_rng_state:
                _creation.set_rng_state(fwd_state)
            with recompute_context:
                function(*inputs, **kwargs)
        finally:
            if outer is not None:
                _creation.set_rng_state(outer)

    frame = _CheckpointFrame(recompute_fn, early_stop if _early_stop_override is None
                             else _early_stop_override, _DETERMINISM_CHECKS[determinism_check])
    if not grad_mode.is_grad_enabled():
        return function(*args, **kwargs)
    frame.save_inputs(*args)
    with _checkpoint_hook(frame), forward_context:
        out = function(*args, **kwargs)
    frame.forward_completed = True
    return out


def noop_context_fn():
    """The default ``context_fn``: two contexts that do nothing (PyTorch's
    ``noop_context_fn``)."""
    return contextlib.nullcontext(), contextlib.nullcontext()


_noop_context_fn = noop_context_fn


def checkpoint(function, *args, use_reentrant=None, context_fn=_noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Run ``function(*args)`` without keeping its intermediate tensors; recompute them in
    backward (``torch.utils.checkpoint.checkpoint``).

    Args:
        function: what to run, e.g. a module or a block of layers.
        *args: its arguments. Gradients flow to the tensors among them that require grad and
            (reentrant: only when one argument requires grad) to the parameters it uses.
        use_reentrant: True for the reentrant variant (a ``CheckpointFunctionBackward`` node),
            False for the non-reentrant one (saved-tensor hooks, the ordinary graph). Not
            passing it warns (UserWarning) and means True, as in PyTorch 2.13.
        context_fn: non-reentrant only: returns two context managers, the forward runs in the
            first, the recomputation in the second.
        determinism_check: non-reentrant only: ``"default"`` (compare shape, dtype, device of
            the recomputed tensors with the forward's) or ``"none"``.
        debug: must stay False with the reentrant variant; with the non-reentrant one it is
            accepted and changes nothing (minigrad does not record the operator logs).
        early_stop: non-reentrant only: stop the recomputation once every needed tensor is
            recomputed (see `set_checkpoint_early_stop`).
        **kwargs: ``preserve_rng_state`` (bool, default True): replay the random generator's
            state during the recomputation. Non-reentrant: the others go to ``function``.

    Returns:
        Whatever ``function`` returns; reentrant: its tensors have
        ``CheckpointFunctionBackward`` as ``grad_fn`` when an argument requires grad.

    Raises:
        ValueError: reentrant: other keyword arguments, or ``context_fn`` / ``debug``;
            non-reentrant: an unknown ``determinism_check``, or ``debug=True`` with a
            ``context_fn``.
        CheckpointError: non-reentrant, in backward: the recomputation does not match.
    """
    if use_reentrant is None:
        warnings.warn(_MISSING_REENTRANT, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if not use_reentrant:
        return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                             debug, early_stop, args, kwargs)
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
