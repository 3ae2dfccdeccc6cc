"""The user-facing tools of ``torch.autograd.graph``: saved-tensor hooks, gradient edges,
multi-grad hooks and ``increment_version``.

Mirrors the second half of ``torch/autograd/graph.py``; every name here is re-exported by
`minigrad.autograd.graph`, where PyTorch keeps it (``minigrad.autograd.graph.saved_tensors_hooks``
works as ``torch.autograd.graph.saved_tensors_hooks`` does). The mechanism they drive lives in
`minigrad.autograd.graph` (``SavedTensor``: what a node keeps, and how hooks take it over) and
`minigrad.autograd.engine` (which nodes a backward runs).
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections import defaultdict
from typing import Any, NamedTuple

import numpy as np

from . import graph

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "GradientEdge",
           "get_gradient_edge", "register_multi_grad_hook", "increment_version",
           "allow_mutation_on_saved_tensors"]


# ----------------------------------------------------------------------------- saved tensors
class saved_tensors_hooks:  # noqa: N801  (PyTorch's name)
    """Context manager: tensors saved for backward inside it go through ``pack_hook`` and come
    back through ``unpack_hook`` (``torch.autograd.graph.saved_tensors_hooks``).

    ``pack_hook(tensor) -> Any`` is called once, when an op (or ``ctx.save_for_backward`` of a
    custom Function) saves ``tensor``, with grad mode off; what it returns is all the node keeps.
    ``unpack_hook(packed) -> Tensor`` is called every time the value is needed: by backward
    (once per node run, so once per backward with ``retain_graph=True``) and by each read of
    ``node._saved_<name>``. Its result gets the saved tensor's history (a new tensor object; a
    saved leaf comes back as a leaf that requires grad). Nested blocks: the innermost pair
    applies. The pair is chosen when the tensor is saved: leaving the block does not change
    what already-saved tensors use.

    Args:
        pack_hook: ``fn(tensor) -> Any``; must not modify ``tensor`` in place.
        unpack_hook: ``fn(packed) -> Tensor``, e.g. the same tensor or one equal to it.

    Raises:
        RuntimeError: on entering, while ``disable_saved_tensors_hooks`` is active (with its
            message); when an op saves a tensor that ``pack_hook`` modified in place.
        TypeError: at unpack time, when ``unpack_hook`` returns something that is not a Tensor.

    Example:
        >>> with saved_tensors_hooks(lambda t: t.numpy().copy(), minigrad.from_numpy):
        ...     y = x.exp()  # ExpBackward0 keeps a NumPy copy of its result
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        state = graph.SAVED_HOOKS
        if state.disabled is not None:
            raise RuntimeError(state.disabled)
        state.stack = state.stack + ((self.pack_hook, self.unpack_hook),)
        with _open_lock:
            graph.saved_hooks_open += 1

    def __exit__(self, *exc) -> None:
        state = graph.SAVED_HOOKS
        state.stack = state.stack[:-1]
        with _open_lock:
            graph.saved_hooks_open -= 1


_open_lock = threading.Lock()  # (the count is shared by threads, the stacks are not)


class save_on_cpu(saved_tensors_hooks):  # noqa: N801  (PyTorch's name)
    """Saved tensors are kept "on the CPU" and moved back to their device for backward
    (``torch.autograd.graph.save_on_cpu``).

    minigrad computes on the CPU only, so this keeps PyTorch's CPU behaviour: with
    ``pin_memory=False`` the pack hook keeps ``tensor.cpu()``, which is the tensor itself (no
    copy, as PyTorch for a CPU tensor: an in-place change after the forward is then seen by
    backward, unchecked); with ``pin_memory=True`` it keeps a copy of the data (PyTorch copies
    into a new, here unpinned, buffer), so backward uses the values as they were when saved.
    Unpacking returns ``packed.to(device)``.

    Args:
        pin_memory: copy into a new buffer when packing (see above).
        device_type: accepted for PyTorch's signature; unused (there is no accelerator).
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            copy = graph._tensor_cls()._make(np.array(tensor._data, copy=True))
            return (tensor.device, copy)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Context manager under which ``saved_tensors_hooks`` cannot be used
    (``torch.autograd.graph.disable_saved_tensors_hooks``).

    Entering a ``saved_tensors_hooks`` block (or ``save_on_cpu``) inside it raises
    ``RuntimeError(error_message)``; so does entering it while such a block is open. Nested
    uses restore the outer message on exit.

    Args:
        error_message: the message of those errors: say why hooks are off and what to do.
    """
    state = graph.SAVED_HOOKS
    previous = state.disabled
    try:
        state.disabled = error_message
        if state.stack:
            raise RuntimeError(error_message)
        yield
    finally:
        state.disabled = previous


# ----------------------------------------------------------------------------- mutation
class _Handle:
    """What the pack hook of ``allow_mutation_on_saved_tensors`` gives the node to keep: a key
    to the original (or, once it was about to be modified, its clone)."""


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block (PyTorch's class of the same
    name); cleared on exit.

    ``original`` / ``cloned``: handle -> the saved tensor / its copy made before a write;
    ``tid_to_weakhandle``: (tensor id, storage, version) -> handle, while a node keeps it;
    ``sid_to_tid``: (storage, version) -> those keys, to find every saved alias of a storage.
    The storage is named by the version counter that all its views share (PyTorch uses the
    data pointer, which a view with an offset does not share).
    """

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = defaultdict(set)

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def pack(self, tensor):
        sid = (id(tensor._vc), tensor._version)
        tid = (id(tensor),) + sid
        self.sid_to_tid[sid].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:  # (the same tensor at the same version may be saved many times)
            handle = _Handle()
            self.tid_to_weakhandle[tid] = handle
            self.original[handle] = tensor
        return handle

    def unpack(self, handle):
        if not _mutation_allowed:
            raise AssertionError(MUTATION_OUTSIDE_MSG)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(MUTATION_OUTSIDE_MSG)
        return self.original[handle]

    def before_inplace(self, tensor) -> None:
        """Copy every saved tensor that aliases ``tensor``'s storage at its current version,
        before an in-place op overwrites it."""
        for tid in self.sid_to_tid.get((id(tensor._vc), tensor._version), ()):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:  # freed by a backward, or copied
                continue
            original = self.original.pop(handle)
            self.cloned[handle] = graph._tensor_cls()._make(original._data.copy())


MUTATION_OUTSIDE_MSG = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                        "context in which the graph was originally recorded.")
_mutation_allowed = False


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which tensors saved for backward may be modified in place
    (``torch.autograd.graph.allow_mutation_on_saved_tensors``).

    A saved tensor about to be overwritten by an in-place op is first copied, and backward uses
    the copy: the gradients are those of the unmodified values, where without it backward
    raises "one of the variables needed for gradient computation has been modified by an
    inplace operation". Built from ``saved_tensors_hooks`` (the pack hook records what was
    saved) and a watch on in-place ops (``check_inplace``); run the forward *and* the backward
    inside the block. Writes that bypass the in-place ops (an optimizer's update of ``.data``)
    are not watched.

    Yields:
        The block's state (``_AllowMutationOnSavedContext``), cleared on exit.

    Raises:
        RuntimeError: nested in another such block (which is then switched off too, as in
            PyTorch).
        AssertionError: at backward, for a graph recorded in a block that has been left.
    """
    global _mutation_allowed
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        previous_watch = graph.before_inplace
        graph.before_inplace = ctx.before_inplace
        try:
            if _mutation_allowed:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _mutation_allowed = True
            yield ctx
        finally:
            ctx.clear()
            _mutation_allowed = False
            graph.before_inplace = previous_watch


# ----------------------------------------------------------------------------- gradient edges
class GradientEdge(NamedTuple):
    """One gradient edge of the graph: the ``(node, output_nr)`` pair a gradient flows into
    (``torch.autograd.graph.GradientEdge``).

    ``get_gradient_edge(t)`` gives the edge ``t``'s gradient is computed at; it can stand for
    ``t`` in ``autograd.grad(outputs, inputs=...)`` and ``backward(inputs=...)`` (and as an
    output of ``autograd.grad``), even after ``t`` itself is gone.

    Attributes:
        node: the backward node (``t.grad_fn``, or a leaf's ``AccumulateGrad``).
        output_nr: which of the node's inputs (the tensor's ``output_nr``).
        ownership_token: PyTorch's keep-alive object for Python nodes; always None here (a
            minigrad node is a Python object that the edge itself keeps alive).
    """

    node: Any
    output_nr: int
    ownership_token: Any = None


def get_gradient_edge(tensor) -> GradientEdge:
    """The gradient edge of ``tensor`` (``torch.autograd.graph.get_gradient_edge``): its
    ``grad_fn`` and ``output_nr``, or for a leaf its ``AccumulateGrad`` and 0.

    Raises:
        RuntimeError: ``tensor`` does not require grad.
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node, nr = graph.edge_of(tensor)
    return GradientEdge(node, nr)


def increment_version(tensor) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable) by one, as an
    in-place op would (``torch.autograd.graph.increment_version``): for code that changes a
    tensor's data behind autograd's back (e.g. through ``.numpy()``), so that backward through
    a node that saved it raises the in-place error instead of using the changed values.
    Views share the counter. An inference tensor has no counter: it is skipped, as in PyTorch.

    Raises:
        RuntimeError: ``tensor`` is neither a tensor nor iterable; an element is not a tensor
            (the tensors before it have been bumped already, as in PyTorch).
    """
    Tensor = graph._tensor_cls()
    if isinstance(tensor, Tensor):
        tensors = iter((tensor,))
    else:
        try:
            tensors = iter(tensor)
        except TypeError:
            raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    for t in tensors:
        if not isinstance(t, Tensor):
            raise RuntimeError("increment_version expects each element of the iterable to be a "
                               "tensor")
        if not t._inference:
            t._vc.bump()


# ----------------------------------------------------------------------------- multi-grad hooks
class _MultiHandle(graph.RemovableHandle):
    """The handle of ``register_multi_grad_hook``: ``remove()`` removes every tensor hook it
    registered (PyTorch's ``torch.autograd.graph._MultiHandle``)."""

    def __init__(self, handles: tuple):
        self.handles = handles
        self.id = next(graph.RemovableHandle._next_id)
        self._refs = []

    def remove(self) -> None:
        """Unregister all the hooks (a second call does nothing)."""
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode: str = "all") -> graph.RemovableHandle:
    """Run ``fn`` once per backward, when the gradients of ``tensors`` are computed
    (``torch.autograd.graph.register_multi_grad_hook``).

    ``mode="all"``: ``fn(grads)`` after the last of the gradients this backward computes has
    arrived; ``grads`` has one entry per tensor, None for those the backward does not reach
    (not in its graph, or pruned by ``inputs=``). ``mode="any"``: ``fn(grad)`` with the first
    gradient that arrives, once per backward; tensors that do not require grad are skipped.
    It is built from ``Tensor.register_hook`` on each tensor, so it runs where those hooks run.

    Args:
        tensors: a sequence of tensors.
        fn: ``fn(grads: list) -> None`` (``"all"``) or ``fn(grad) -> None`` (``"any"``).
        mode: ``"all"`` or ``"any"``.

    Returns:
        A handle whose ``remove()`` unregisters every hook.

    Raises:
        ValueError: ``mode`` is neither ``"all"`` nor ``"any"``.
        AssertionError: with ``"all"``, a tensor does not require grad (PyTorch's check).
        RuntimeError: with ``"all"``, a hooked tensor is a leaf and the backward is
            ``autograd.grad`` (PyTorch cannot tell whether a leaf's node will run there).
    """
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError(f"Expects mode to be one of {supported} but got {mode}")
    tensors = tuple(tensors)
    if mode == "all":
        nodes = []
        for t in tensors:
            node = graph.edge_of(t)[0] if t.requires_grad else None
            if node is None:
                raise AssertionError("Expected gradient function to be set")
            nodes.append(node)
        counts: dict = {}  # backward (graph task) id -> hooks called so far
        buffers: dict = {}  # backward id -> the gradients so far
        expected: dict = {}  # backward id -> how many hooks this backward will call

        def make_hook(i):
            def hook(grad):
                task = _current_task()
                if task not in counts:  # first call in this backward: how many will come?
                    counts[task] = 0
                    buffers[task] = [None] * len(tensors)
                    expected[task] = sum(map(_will_engine_execute_node, nodes))
                counts[task] += 1
                buffers[task][i] = grad
                if counts[task] == expected[task]:
                    grads = buffers.pop(task)
                    del counts[task], expected[task]
                    fn(grads)
            return hook

        handles = tuple(t.register_hook(make_hook(i)) for i, t in enumerate(tensors))
    else:
        ran: set = set()  # backward ids in which fn already ran

        def hook(grad):
            task = _current_task()
            if task in ran:
                return
            ran.add(task)
            fn(grad)

        handles = tuple(t.register_hook(hook) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)


def _current_task() -> int:
    """The id of the running backward (PyTorch's ``torch._C._current_graph_task_id``)."""
    task = graph.EXEC_INFO.task_id
    if task == -1:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def _will_engine_execute_node(node) -> bool:
    """Whether the running backward will run ``node`` (``torch._C._will_engine_execute_node``):
    it is reachable from the roots and, under ``inputs=``, leads to one of them."""
    info = graph.EXEC_INFO
    if info.task_id == -1:
        raise RuntimeError("_will_engine_execute_node should only be called during the "
                           "backward pass")
    if info.needed is None:
        return node in info.reachable
    if isinstance(node, graph.AccumulateGrad) and not info.accumulate:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not supported.")
    return node in info.needed

