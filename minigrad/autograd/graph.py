"""Backward nodes: ``Node``, ``AccumulateGrad``, saved tensors, and how ops record them.

Mirrors ``torch/autograd/graph.py`` (the Python view of a node) and
``torch/csrc/autograd/function.h`` / ``saved_variable.cpp`` (what a node holds).

A node is created by an op when grad mode is on and some input requires grad. It holds
``next_functions`` — one ``(node, input_nr)`` edge per differentiable input, ``(None, 0)`` for an
input that does not require grad — and the tensors its derivative formula needs, wrapped in
`SavedTensor` so that in-place changes and freed graphs are detected on use.
"""

from __future__ import annotations

import itertools
import threading
import types
import weakref

import numpy as np

from .._dtype import from_numpy_dtype
from . import anomaly_mode, grad_mode

__all__ = ["Node", "AccumulateGrad", "SavedTensor", "RemovableHandle", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks", "GradientEdge", "get_gradient_edge",
           "register_multi_grad_hook", "increment_version", "allow_mutation_on_saved_tensors",
           "record", "edge_of", "zeros_grad",
           "own_table", "HookDict"]

UINT64_MAX = 2**64 - 1

FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)

INFERENCE_SAVE_MSG = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a clone "
    "to get a normal tensor and use it in autograd, or use `minigrad.no_grad()` instead of "
    "`minigrad.inference_mode()`."
)

_sequence = itertools.count()
fw_on = False  # a forward-AD level is active and no forward formula is running (forward_ad)
fw_level = False  # a forward-AD level is active (saved outputs then remember their tensor)
_TENSOR = None
# The shared "nothing registered" value of the hook and retain_grad tables of nodes and
# tensors: read-only, so a registration must go through ``own_table`` and can never write into
# another object's table.
_EMPTY = types.MappingProxyType({})
# False until ``own_table`` makes the first table: until then no node or tensor has a hook or
# retains grad, and the engine need not read the (empty) tables of every node it runs (each read
# falls back to the class default, which Python 3.11 does not speed up: ~200 instructions).
tables_made = False
# False until the first ``Tensor.detach_()``: until then no saved tensor can have been detached in
# place, and the engine need not ask each one (see SavedTensor._detached).
detached_in_place = False

PACK_INPLACE_MSG = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
    "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
    "Please open an issue if you need to perform in-place operations on the input to a pack hook."
)
REGISTER_TWICE_MSG = (
    "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one "
    "pair of hooks is allowed at a time.")
REGISTER_FREED_MSG = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values "
    "of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you need to "
    "access saved variables after calling backward.")


class _SavedHooksState(threading.local):
    """Per thread, as PyTorch's ``SavedTensorDefaultHooks`` TLS: ``stack`` holds the
    ``(pack_hook, unpack_hook)`` pairs of the open ``saved_tensors_hooks`` blocks, innermost
    last; ``disabled`` the error message of an open ``disable_saved_tensors_hooks`` (or None)."""

    stack: tuple = ()
    disabled = None


SAVED_HOOKS = _SavedHooksState()
# Number of ``saved_tensors_hooks`` blocks open in any thread: while 0 (the usual case), saving a
# tensor reads this one global and nothing else of the hook machinery.
saved_hooks_open = 0

# ``fn(tensor)`` called before each in-place op writes into ``tensor`` (from ``check_inplace``)
# while ``allow_mutation_on_saved_tensors`` is active; None otherwise.
before_inplace = None

# The inference tensor an in-place op outside inference mode is about to modify, while the op's
# out-of-place node is built (see ``_ops.inplace._apply_inplace``): saved as ``self``, it is
# replaced by a clone (as PyTorch saves ``self.clone()``), so saving it does not raise here;
# the op then writes and PyTorch's in-place error on inference tensors comes from the bump.
inplace_inference_self = None

# True while an in-place op on a tensor of a non-differentiable dtype builds its out-of-place
# node (see ``_ops.inplace._apply_inplace``): PyTorch's rebase_history sets the history of
# such a self without the dtype check of set_history (``t[t > 0] = v`` with an int64 ``t``
# and a float ``v`` that requires grad gives ``t`` an IndexPutBackward0), so its result
# joins the graph here too.
inplace_int_self = False
NOT_DIFFERENTIABLE_MSG = "isDifferentiableType(grad.scalar_type()) INTERNAL ASSERT FAILED"

DETACHED_MSG = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is "
    "not supported, please use out-of-place `.detach()` instead")


def own_table(obj, table: str) -> dict:
    """``obj``'s own hook table ``table`` (a node's ``"_pre_hooks"``, a tensor's
    ``"_backward_hooks"``, ...), made on first use in place of the shared read-only default."""
    global tables_made
    d = obj.__dict__.get(table)
    if d is None:
        d = HookDict()
        setattr(obj, table, d)
        tables_made = True
    return d


def _tensor_cls():
    """``minigrad.Tensor``, imported on first use (``_tensor`` imports this module); cached,
    since an import statement in a hot function costs more than the rest of it."""
    global _TENSOR
    if _TENSOR is None:
        from .._tensor import Tensor

        _TENSOR = Tensor
    return _TENSOR


class RemovableHandle:
    """Handle returned by every ``register_*hook``; ``remove()`` unregisters the hook.

    Mirrors ``torch/utils/hooks.py::RemovableHandle``: usable as a context manager (removes on
    exit); ``id`` is the hook's key in the dict(s) it lives in.
    """

    _next_id = itertools.count()

    def __init__(self, *hooks_dicts):
        self.id = next(RemovableHandle._next_id)
        self._refs = [weakref.ref(d) if _weakrefable(d) else (lambda d=d: d) for d in hooks_dicts]

    def remove(self) -> None:
        """Unregister the hook (a second call does nothing)."""
        for ref in self._refs:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _weakrefable(obj) -> bool:
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False


class HookDict(dict):
    """A plain dict that can be weakly referenced (so handles do not keep hooks alive)."""


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    Mirrors ``torch._C._autograd.SavedTensor`` / ``saved_variable.cpp``. An *input* is kept by
    reference (unpacking returns the very object); an *output* keeps only its array and version
    counter (to avoid a reference cycle with its own grad_fn) and unpacking builds a new tensor
    whose ``grad_fn`` is the producing node. ``unpack()`` raises ``RuntimeError`` when the graph was
    freed (backward without ``retain_graph``) or the tensor was modified in place since.
    """

    # defaults as class attributes: a save sets only what differs (ops save on every call);
    # but ``_freed`` and ``_is_output``, read on every use, are the instance's own (a read that
    # falls back to the class costs ~200 instructions more)
    _tensor = None  # an input: the tensor itself
    # an output: its array (the tensor is not kept, see above); hooked: what the hooks need
    _data = None
    _was_leaf = True  # an input: whether it had no grad_fn when saved
    _hooked = False  # True once pack/unpack hooks own the value (see _set_hooks)
    _prefetched = None  # the engine's unpack of a hooked tensor, for the node's own read
    _out_ref = None  # an output saved inside a forward-AD level: a weak reference to it
    _fw_grad = None  # and its tangent (deleted when the level is left, as tensors' tangents)

    def __init__(self, tensor=None, node=None, is_output: bool = False):
        if tensor is None:  # (autograd makes these; PyTorch refuses ``SavedTensor()``)
            raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")
        if tensor._inference and tensor is not inplace_inference_self:
            raise RuntimeError(INFERENCE_SAVE_MSG)
        # (one global read when no hook is open; a wrapped Python number never reaches the
        # user's hooks, as in PyTorch)
        if saved_hooks_open and SAVED_HOOKS.stack and not tensor._wrapped_number:
            pack, unpack = SAVED_HOOKS.stack[-1]  # the innermost pair applies
            self._set_hooks(pack, unpack, tensor, node, is_output, tensor)
            return
        self._vc = vc = tensor._vc
        self._saved_version = vc.value
        self._freed = False
        self._is_output = is_output
        if is_output:
            self._data = tensor._data
            self._node = weakref.ref(node)
            self._node_cls = type(node)  # names the producer if the node is gone
            self._output_nr = tensor._output_nr
            if fw_level:  # inside a forward-AD level: its tangent is kept too (see unpack)
                self._out_ref = weakref.ref(tensor)
                if tensor._fw_grad is not None:
                    from . import forward_ad

                    forward_ad._keep(self, tensor._fw_grad)
        else:
            self._tensor = tensor
            if tensor._grad_fn is not None:  # unpacked with its grad_fn: see _detached
                self._was_leaf = False

    def _keep_tangent(self, g) -> None:
        """Keep ``g`` as the saved output's tangent (deleted when the level is left)."""
        from . import forward_ad

        forward_ad._keep(self, g)

    # -- saved-tensor hooks ---------------------------------------------------------------
    def _set_hooks(self, pack, unpack, tensor, node, is_output, arg) -> None:
        """Hand the value to ``pack(arg)`` and keep the tensor's autograd metadata
        (``SavedVariable::save_metadata`` and ``set_hooks_and_pack_data``).

        ``arg`` is the tensor itself when saved under ``saved_tensors_hooks`` and a detached
        alias for ``register_hooks``, as in PyTorch. ``pack`` runs with grad mode off; it must
        not modify ``arg`` in place (RuntimeError). Everything the hooks need lives in
        ``_data`` (a tuple), so freeing the graph (which clears ``_data``) frees the packed
        value and the hooks with no extra work on the freeing path.
        """
        vc = tensor._vc
        grad_fn = acc = None
        leaf_requires_grad = False
        if is_output:
            if node is not None:  # (None: register_hooks after the producer died)
                self._node = weakref.ref(node)
                self._node_cls = type(node)
        elif tensor._grad_fn is not None:
            grad_fn = tensor._grad_fn
        else:
            leaf_requires_grad = tensor.requires_grad
            if leaf_requires_grad and not tensor._via_base:  # unpacked leaves share its .grad
                acc = tensor._grad_accumulator()
        before = vc.value
        with grad_mode.no_grad():
            packed = pack(arg)
        if vc.value != before:
            raise RuntimeError(PACK_INPLACE_MSG)
        self._vc = vc
        self._saved_version = -1  # never a version: unpack() and the engine take the slow path
        self._freed = False
        self._is_output = is_output
        self._output_nr = tensor._output_nr
        self._hooked = True
        self._tensor = None
        self._data = (packed, unpack, grad_fn, acc, leaf_requires_grad, tuple(tensor.shape))

    @property
    def data(self):
        """What this saved tensor holds (``SavedTensor.data``): the object the pack hook
        returned when hooks own it; for a saved input, the tensor itself; for a saved output,
        a new tensor without history on the saved values. None once freed."""
        if self._freed or (self._hooked and self._data is None):
            return None
        if self._hooked:
            return self._data[0]
        if self._is_output:
            tensor = _tensor_cls()._make(self._data)
            tensor._vc = self._vc
            return tensor
        return self._tensor

    @property
    def unpack_hook(self):
        """The unpack hook that will rebuild the tensor (None without hooks, or once freed)."""
        if self._hooked and not self._freed and self._data is not None:
            return self._data[1]
        return None

    def register_hooks(self, *hooks) -> None:
        """Give this saved tensor its own ``pack_hook(tensor) -> Any`` and
        ``unpack_hook(packed) -> Tensor`` (``torch._C._autograd.SavedTensor.register_hooks``).

        ``pack_hook`` runs now, on a detached alias of the saved tensor; from then on reading
        ``node._saved_<name>`` or running backward calls ``unpack_hook`` on what it returned.

        Raises:
            TypeError: not exactly two callables (``pack_hook``, ``unpack_hook``).
            RuntimeError: hooks were already set on this saved tensor (only one pair is
                allowed), or the graph was freed by a backward without ``retain_graph``.
        """
        # (PyTorch's binding takes exactly two callables, positionally)
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            got = ", ".join(type(h).__name__ for h in hooks) or "nothing"
            raise TypeError(
                "register_hooks(): incompatible function arguments: expected two callables, "
                f"pack_hook(tensor) and unpack_hook(packed), got {got}")
        pack_hook, unpack_hook = hooks
        if self._freed:  # (checked first, as PyTorch: a freed hooked one says "freed")
            raise RuntimeError(REGISTER_FREED_MSG)
        if self._hooked:
            raise RuntimeError(REGISTER_TWICE_MSG)
        if not self._is_output and self._tensor is None:  # a saved None (custom Functions)
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        if self._is_output:
            tensor = _tensor_cls()._make(self._data)  # the saved array, without history
            tensor._vc, tensor._output_nr = self._vc, self._output_nr
            node = self._node()
            arg = tensor
        else:
            tensor, node = self._tensor, None
            arg = tensor.detach()
        self._set_hooks(pack_hook, unpack_hook, tensor, node, self._is_output, arg)

    def _unpack_hooked(self):
        """``unpack()`` of a hooked saved tensor: ``unpack_hook(packed)``, given the saved
        history. TypeError if the hook returns something other than a Tensor."""
        if self._freed:
            raise RuntimeError(FREED_MSG)
        cached = self._prefetched
        if cached is not None:
            self._prefetched = None
            return cached
        packed, unpack, grad_fn, acc, leaf_requires_grad, _ = self._data
        Tensor = _tensor_cls()
        data = unpack(packed)
        if not isinstance(data, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(data).__name__}")
        if self._is_output:
            grad_fn = self._node()
        if grad_fn is None and not leaf_requires_grad and not data.requires_grad:
            return data  # nothing to attach: the hook's tensor as it is
        out = Tensor._make(data._data)  # a new tensor with the saved history (never a view)
        out._vc = data._vc
        if grad_fn is not None:
            out._requires_grad, out._grad_fn, out._output_nr = True, grad_fn, self._output_nr
        else:
            out._requires_grad = leaf_requires_grad
            if acc is not None:  # its gradients go where the saved leaf's go
                out._acc_ref = weakref.ref(acc)
        return out

    def _prefetch(self) -> None:
        """Unpack a hooked tensor once before its node runs (PyTorch's generated nodes unpack
        every saved variable up front); the node's own read then takes this value."""
        self._prefetched = None
        self._prefetched = self._unpack_hooked()

    @property
    def _shape(self):
        """The saved tensor's shape (a plain tuple), None once freed."""
        if self._hooked:
            return None if self._data is None else self._data[-1]
        arr = self._data if self._is_output else getattr(self._tensor, "_data", None)
        return None if arr is None else arr.shape

    def _detached(self) -> bool:
        """True for a saved non-leaf input that was ``detach_()``-ed since: PyTorch unpacks it
        through its grad_fn, which is gone (``saved_variable.cpp``), and refuses."""
        return not self._is_output and not self._was_leaf and self._tensor is not None and (
            self._tensor._grad_fn is None)

    def _check(self) -> None:
        """RuntimeError if freed, detached in place, or modified in place since saving (what
        unpacking checks, in PyTorch's order)."""
        if self._freed:
            raise RuntimeError(FREED_MSG)
        if self._hooked:  # (the hooks own the value: no version to check)
            return
        if detached_in_place and self._detached():
            raise RuntimeError(DETACHED_MSG)
        if self._vc.value != self._saved_version:
            raise RuntimeError(self._version_message())

    def unpack(self):
        """Return the saved tensor; RuntimeError if freed, detached in place or modified in
        place since saving."""
        if self._freed or self._vc.value != self._saved_version or (  # (_check's test, inlined)
                detached_in_place and self._detached()):
            if self._hooked:
                return self._unpack_hooked()
            self._check()
        if not self._is_output:
            return self._tensor
        t = _tensor_cls()._make(self._data)
        t._vc = self._vc
        node = self._node()
        if node is not None:
            t._requires_grad = True
            t._grad_fn = node
            t._output_nr = self._output_nr
        if self._out_ref is not None:  # (PyTorch's SavedVariable keeps an output's fw_grad:
            tangent = self._fw_grad  # forward over reverse through a formula using the result)
            if tangent is None:
                out = self._out_ref()
                tangent = None if out is None else out._fw_grad
            if tangent is not None:
                from . import forward_ad

                forward_ad._keep(t, tangent)
        return t

    def _version_message(self) -> str:
        arr = self._data if self._is_output else self._tensor._data
        dims = ", ".join(map(str, arr.shape))
        desc = f"[minigrad.{from_numpy_dtype(arr.dtype)._legacy} [{dims}]]"
        producer = None
        if self._is_output:
            node = self._node()
            producer = node.name() if node is not None else self._node_cls.__name__
        elif self._tensor is not None and self._tensor.grad_fn is not None:
            producer = self._tensor.grad_fn.name()
        which = ""
        if producer is not None:
            op = producer.rsplit("Backward", 1)[0]
            which = f", which is output 0 of {op},"
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {desc}{which} is at version {self._vc.value}; expected version "
            f"{self._saved_version} instead. Hint: enable anomaly detection to find the operation "
            "that failed to compute its gradient, with "
            "minigrad.autograd.set_detect_anomaly(True, check_nan=False)."
        )

    def _release(self) -> None:
        self._freed = True
        self._tensor = self._data = None


_SAVED_NAMES: set = set()  # the names that have a _SavedAttribute on Node


class _SavedAttribute:
    """``node._saved_<name>`` (the unpacked value) or ``node._raw_saved_<name>`` (the
    `SavedTensor` itself), as PyTorch's generated node properties; AttributeError on a
    node that saved no ``name``.

    One pair per name, put on ``Node`` by the first ``_save`` of that name: a class attribute
    rather than a ``__getattr__`` fallback, because Python does not specialise (speed up) any
    attribute read on instances of a class that defines ``__getattr__``, and the engine reads
    node attributes all the time (measured: 6% of a chain of small ops).
    """

    def __init__(self, name: str, raw: bool):
        self.name, self.raw = name, raw

    @staticmethod
    def install(name: str) -> None:
        setattr(Node, f"_saved_{name}", _SavedAttribute(name, raw=False))
        setattr(Node, f"_raw_saved_{name}", _SavedAttribute(name, raw=True))
        _SAVED_NAMES.add(name)

    def __get__(self, node, owner=None):
        if node is None:
            return self
        saved = node.__dict__.get("_saved", _EMPTY)
        if self.name in saved:
            if not self.raw:
                return node._get(self.name)
            if isinstance(saved[self.name], SavedTensor):
                return saved[self.name]
        prefix = "_raw_saved_" if self.raw else "_saved_"
        raise AttributeError(f"'{type(node).__name__}' object has no attribute "
                             f"'{prefix}{self.name}'")


class _ExecInfo(threading.local):
    """What the running backward is computing for (PyTorch's ``GraphTask::exec_info_``):
    ``needed`` is the set of nodes that lead to an ``inputs=`` target, or None when everything
    reachable runs; ``reachable`` the nodes reachable from the roots; ``task_id`` numbers the
    backward (-1 outside one: PyTorch's ``_current_graph_task_id``); ``accumulate`` is False for
    ``autograd.grad``. Set by the engine for the duration of a backward; per thread, as grad
    mode is (two threads may run backwards at once)."""

    needed = None
    reachable = ()
    task_id = -1
    accumulate = True


EXEC_INFO = _ExecInfo()


class Node:
    """A backward function in the graph (``torch.autograd.graph.Node``).

    Subclasses are named exactly as PyTorch names them (``MulBackward0``) and implement
    ``backward(*grad_outputs) -> tuple`` with one gradient (Tensor or None) per entry of
    ``next_functions``. Their docstrings state the derivative formula and what they save.

    Public attributes: ``next_functions`` (tuple of ``(Node | None, input_nr)``), ``metadata``
    (dict), ``name()``, ``register_hook(fn(grad_inputs, grad_outputs))``,
    ``register_prehook(fn(grad_outputs))``; saved values read as ``_saved_<name>`` and
    ``_raw_saved_<name>``.

    Node classes call ``Node.__init__(self)`` (their base by name) rather than
    ``super().__init__()``: a node is made for every recorded op, and ``super()`` costs about
    800 instructions more per call.
    """

    _n_outputs = 1
    _forward_cls = None  # custom Function nodes: the Function class (read by the engine)
    # whether the node runs its backward even when no gradient it returns is wanted (PyTorch's
    # hand-written nodes that raise or copy whatever the mask says): generated formulas do not
    _runs_unmasked = False
    next_functions: tuple = ()
    # Most nodes never get a hook: until ``_own`` gives a node its own table these are _EMPTY
    _pre_hooks = _EMPTY  # id -> fn(grad_outputs)
    _post_hooks = _EMPTY  # id -> fn(grad_inputs, grad_outputs)
    _tensor_pre_hooks = _EMPTY  # per hooked output tensor: n -> (output_nr, its hook table)
    _retains_grad = _EMPTY  # output_nr -> weakref to the tensor that retains grad

    def __init__(self, _seq=None):
        self._seq = next(_sequence) if _seq is None else _seq
        self._saved: dict = {}  # name -> SavedTensor or plain value (see _save)
        # (shape, NumPy dtype) per output (to make missing grads): a tuple, not a list, so
        # that the garbage collector stops tracking it (a graph's nodes live long enough to reach
        # the old generations, whose collections walk every tracked object)
        self._out_meta: tuple = ()
        if anomaly_mode._enabled:  # remember the forward call that made this node
            anomaly_mode.on_node_created(self)

    def _own(self, table: str) -> dict:
        """This node's own ``table`` (see `own_table`)."""
        return own_table(self, table)

    @property
    def metadata(self) -> dict:
        """A plain dict for user data (PyTorch's ``Node.metadata``); anomaly mode stores the
        forward traceback under ``"traceback_"``. Made on first access; read-only attribute
        (assigning raises PyTorch's AttributeError)."""
        d = self.__dict__.get("_metadata")
        if d is None:
            d = self._metadata = {}
        return d

    @metadata.setter
    def metadata(self, value) -> None:
        raise AttributeError(f"attribute 'metadata' of '{type(self).__name__}' objects is not "
                             "writable")

    # -- identity ---------------------------------------------------------------------------
    def name(self) -> str:
        """The node's type name, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def _should_compute_output(self, i: int) -> bool:
        """Whether the running backward wants the gradient for ``next_functions[i]`` (PyTorch's
        ``task_should_compute_output``, which fills a formula's ``grad_input_mask``): its edge
        leads somewhere and, under ``inputs=``, toward one of the inputs. Formulas compute the
        others too; this matters where PyTorch's result or error depends on the mask."""
        child = self.next_functions[i][0]
        needed = EXEC_INFO.needed
        return child is not None and (needed is None or child in needed)

    def _sequence_nr(self) -> int:
        """Creation order: the engine runs newer nodes first when several are ready."""
        return self._seq

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"  # as PyTorch: class name

    # -- saved values -----------------------------------------------------------------------
    def _save(self, name: str, value, is_output: bool = False) -> None:
        """Save a tensor (wrapped in SavedTensor) or a plain value under ``name``; the node
        then shows it as ``_saved_<name>`` (see `_SavedAttribute`)."""
        if isinstance(value, _TENSOR or _tensor_cls()):  # (no call once it is imported)
            value = SavedTensor(value, self, is_output)
        self._saved[name] = value
        if name not in _SAVED_NAMES:
            _SavedAttribute.install(name)

    def _get(self, name: str):
        """Unpack a saved value for use in ``backward`` (checks version and freed state)."""
        value = self._saved[name]
        return value.unpack() if isinstance(value, SavedTensor) else value

    def __dir__(self):
        """Lists ``_saved_<name>`` for every saved value and ``_raw_saved_<name>`` for tensors,
        as ``dir()`` does on a PyTorch node."""
        saved = self.__dict__.get("_saved", {})
        extra = [f"_saved_{k}" for k in saved]
        extra += [f"_raw_saved_{k}" for k, v in saved.items() if isinstance(v, SavedTensor)]
        # (the class lists every name any node saved: keep only this node's own)
        own = [a for a in super().__dir__() if not a.startswith(("_saved_", "_raw_saved_"))]
        return sorted(set(own) | set(extra))

    def _release_variables(self) -> None:
        for value in self._saved.values():
            if type(value) is SavedTensor:
                value._freed = True  # (SavedTensor._release, inlined: runs for every node)
                value._tensor = value._data = None

    # -- hooks ------------------------------------------------------------------------------
    def register_hook(self, fn) -> RemovableHandle:
        """Register ``fn(grad_inputs, grad_outputs)`` to run after this node; a returned tuple
        replaces ``grad_inputs``."""
        handle = RemovableHandle(self._own("_post_hooks"))
        self._post_hooks[handle.id] = fn
        return handle

    def register_prehook(self, fn) -> RemovableHandle:
        """Register ``fn(grad_outputs)`` to run before this node; a returned tuple replaces
        ``grad_outputs``."""
        handle = RemovableHandle(self._own("_pre_hooks"))
        self._pre_hooks[handle.id] = fn
        return handle

    # -- running ----------------------------------------------------------------------------
    def backward(self, *grad_outputs):  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def jvp(inputs, tangents, outputs, *args):
        """The op's forward-mode derivative: its outputs' tangents from its inputs' (forward AD).

        Called by `record` inside a ``dual_level`` when an input has a tangent, with the
        arguments ``record`` got: ``inputs`` (the differentiable inputs, in slot order),
        ``tangents`` (theirs, None for none: a zero tangent), the computed ``outputs`` (a
        tuple) and the node constructor's ``args``. Returns one tangent (or None) per output,
        or a tensor for a one-output op. Each op states its formula in its docstring.

        Raises:
            NotImplementedError: the op has no forward formula in minigrad.
        """
        raise NotImplementedError

    def __call__(self, *grad_outputs):
        """Apply the node's derivative directly (as ``grad_fn(grad)`` does in PyTorch)."""
        out = self.backward(*grad_outputs)
        return out[0] if len(out) == 1 else out


class AccumulateGrad(Node):
    """Sink node of a leaf: adds the incoming gradient into ``variable.grad``.

    ``name()`` is ``'torch::autograd::AccumulateGrad'`` as in PyTorch; ``next_functions`` is
    ``()``; ``_sequence_nr()`` is UINT64_MAX so it runs as soon as it is ready.
    First gradient, as PyTorch's ``AccumulateGrad::accumulateGrad``: when the engine holds the
    only reference to it (``_stealable``, set by the engine) and it is dense, it *becomes*
    ``.grad`` (no copy; ``_version`` is the gradient's own, often 0) if it has the leaf's
    strides; otherwise ``.grad`` is a copy made like ``empty_strided(...).copy_(grad)``, so its
    ``_version`` is 1 — e.g. after ``x.sum()`` (an expanded gradient), ``x.t()`` (it arrives
    transposed) or when the caller still holds the gradient.
    Later gradients are added in place (same object, version +1).
    With ``create_graph`` (grad mode on) the first gradient is copied with ``copy_`` so that it
    keeps a graph (``grad_fn`` CopyBackwards, version 1, as in PyTorch) and later ones are added
    out of place (``AddBackward0``, a new object).
    """

    _stealable = False

    def __init__(self, variable):
        super().__init__(UINT64_MAX)  # takes no number from the global sequence counter
        self.variable = variable
        # PyTorch's input metadata, fixed when the node is made (a leaf's ``.data =`` may change
        # both later): the engine checks a root's gradient against the shape, casts to the dtype
        self._shape, self._dtype = variable._data.shape, variable._data.dtype

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def backward(self, grad):
        var = self.variable
        if grad is None or not var._requires_grad:  # requires_grad_(False) since the forward
            return ()
        if var._grad is None:
            Tensor = _tensor_cls()
            g, v = grad._data, var._data  # (compared as arrays: no Size / dtype objects)
            if grad_mode.is_grad_enabled():  # create_graph: keep the graph of the gradient
                # (in the leaf's layout if it is dense, else contiguous: clone_obey_contract)
                arr = np.empty_like(v) if _is_dense(v) else np.empty(v.shape, v.dtype)
                var._grad = Tensor._make(arr).copy_(grad)
            # (shapes differ only after ``var.data =`` of another shape since the forward:
            # a gradient that passes PyTorch's layout check is taken as it comes, another one
            # is broadcast into the leaf's new shape by clone_obey_contract)
            elif self._stealable and _same_strides(g, v):
                var._grad = Tensor._make(grad._data)  # as ``grad.detach()``: same counter
                var._grad._vc = grad._vc
            else:
                if g.shape != v.shape and _is_dense(v):
                    _check_accumulates_into(v.shape, g.shape)
                var._grad = _copy_obeying_contract(grad, var)
            self._stealable = False
        elif grad_mode.is_grad_enabled():
            var._grad = var._grad + grad
        else:
            have = var._grad._data
            if grad._data.shape != have.shape:  # (only after ``.data =`` of another shape)
                _check_accumulates_into(have.shape, grad._data.shape)
            have += grad._data.astype(have.dtype, copy=False)
            var._grad._vc.bump()
        return ()


def _check_accumulates_into(have: tuple, new: tuple) -> None:
    """PyTorch accumulates into an existing ``.grad`` in place (``grad += new``): the errors of
    an in-place add whose operand does not broadcast to the ``.grad``'s shape."""
    from .._ops._util import broadcast_shapes  # (lazily: the ops import the autograd package)

    out = broadcast_shapes(have, new)  # (its RuntimeError for shapes that do not match)
    if out != tuple(have):
        raise RuntimeError(f"output with shape {list(have)} doesn't match the broadcast shape "
                           f"{list(out)}")


def _copy_obeying_contract(grad, var):
    """A new ``.grad`` for leaf ``var`` from ``grad`` (PyTorch's ``clone_obey_contract``): for a
    dense leaf, ``empty_strided`` in the leaf's layout then ``copy_`` (so ``_version`` 1);
    otherwise a plain contiguous copy (``clone(contiguous_format)``, version 0)."""
    Tensor = _tensor_cls()
    if not _is_dense(var._data):
        return Tensor._make(np.array(grad._data, var._data.dtype, copy=True, order="C"))
    arr = np.empty_like(var._data)  # (empty_like keeps a dense layout)
    if not arr.size:  # (and an empty one's strides, which NumPy drops)
        arr = np.lib.stride_tricks.as_strided(arr, var.shape, var._data.strides)
    out = Tensor._make(arr)
    out._data[...] = grad._data
    out._vc.value = 1
    return out


def _same_strides(g: np.ndarray, v: np.ndarray) -> bool:
    """PyTorch's layout contract for ``.grad`` (``obeys_layout_contract``): for a dense leaf,
    the leaf's strides (in elements: after ``var.data =`` of another dtype the gradient keeps
    the old one) except in dims of size 1, where any stride but 0 will do (a 0 there marks a
    view); for a leaf that is not dense, a contiguous gradient."""
    if g.itemsize == v.itemsize and g.strides == v.strides and 0 not in g.strides:
        return True  # (the common case, without the loop)
    if not _is_dense(v):
        return g.flags.c_contiguous  # (NumPy's flag, as PyTorch's, ignores dims of size 1)
    gs = [st // g.itemsize for st in g.strides]
    vs = [st // v.itemsize for st in v.strides] + _stale_strides(v.ndim, g.ndim)
    return all(a != 0 if n == 1 else a == b for n, a, b in zip(g.shape, gs, vs))


def _stale_strides(ndim: int, upto: int) -> list:
    """The strides PyTorch's loop reads past a leaf's last dim, where after ``var.data =`` of
    fewer dims the gradient has more: the loop runs over the gradient's dims and reads the
    leaf's stride slots unchecked. Those slots (``SizesAndStrides`` keeps 5 inline, copied
    whole by ``.data =``) hold what a tensor made with ``ndim`` dims leaves there: zeros, but
    1 in the first slot of a 0-dim tensor (the slot its empty constructor wrote). (A leaf
    whose dims changed in place, by ``unsqueeze_`` say, keeps other values there.)"""
    return [1 if ndim == 0 and i == 0 else 0 for i in range(ndim, upto)]


def _is_dense(a: np.ndarray) -> bool:
    """No gaps or overlaps: some permutation of the dims is C-contiguous."""
    if a.flags.c_contiguous:  # (the common case, without the sort below; an empty array
        return True  # is contiguous in NumPy and PyTorch)
    size = a.itemsize
    for n, st in sorted(zip(a.shape, a.strides), key=lambda p: abs(p[1])):
        if n != 1 and st != size:
            return False
        size *= n
    return True


def edge_of(t):
    """The ``(node, input_nr)`` pair a new node uses to point at input ``t``."""
    if t is None:
        return (None, 0)
    if t._base is not None:
        t._sync_view()
    if not t._requires_grad:
        return (None, 0)
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    return _leaf_edge(t)


def _leaf_edge(t):
    """The edge to a leaf ``t`` that requires grad: its gradient accumulator."""
    if t._via_base:  # requires grad only through its base: no accumulator (as PyTorch)
        return (None, 0)
    return (t._grad_accumulator(), 0)


def meta_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a node records for the gradient of an output: an integer one (an in-place
    op's history on an integer tensor, see ``inplace_int_self``) as a copy, never `is` a
    gradient's dtype, so that the engine's dtype check runs and refuses the gradient (PyTorch's
    isDifferentiableType assertion)."""
    return dtype if dtype.kind in "fV" else np.dtype(dtype, copy=True)


def record(node_cls, outputs, inputs, *args):
    """Attach a new ``node_cls(*args)`` as ``grad_fn`` of ``outputs`` if grad is needed.

    ``outputs``: a Tensor or a sequence of Tensors (multi-output ops); ``inputs``: the
    differentiable inputs in PyTorch's slot order (None or a tensor that does not require grad
    gives an empty slot). Returns the node, or None when nothing requires grad or grad mode
    is off — callers then skip saving anything. ``node_cls(*args)`` runs after every input's
    view state is synced, so a constructor may read an input's ``_requires_grad`` directly.
    """
    # (is_grad_enabled() and inference_active(), inlined)
    if fw_on:  # inside a forward-AD level: the outputs' tangents (forward_ad.propagate)
        return _record_dual(node_cls, outputs, inputs, args)
    if (grad_mode._grad_off_threads and not grad_mode._tls.grad_enabled) or (
            grad_mode._inference_blocks and grad_mode._tls.inference):
        return None  # (enable_grad inside inference_mode still records nothing, as PyTorch)
    needed = False
    edges = []  # (edge_of(t) for each input, inlined: one pass, no call per input)
    for t in inputs:
        if t is None:
            edges.append((None, 0))
            continue
        if t._base is not None:
            t._sync_view()  # a view of storage modified in place may have joined a graph
        if not t._requires_grad:
            edges.append((None, 0))
            continue
        needed = True
        fn = t._grad_fn
        edges.append((fn, t._output_nr) if fn is not None else _leaf_edge(t))
    if not needed:
        return None
    node = node_cls(*args)
    node.next_functions = tuple(edges)
    # (most ops make one Tensor: the type test first, cheaper than the isinstance of a tuple)
    single = type(outputs) is _TENSOR or not isinstance(outputs, (list, tuple))
    outs = (outputs,) if single else outputs
    for nr, out in enumerate(outs):
        if out is None:
            continue
        arr = out._data
        if arr.dtype.kind in "fV":  # integer outputs (indices) are not differentiable:
            out._requires_grad = True  # no gradient slot for them, as in PyTorch ("V":
            # bfloat16, the only NumPy kind-V dtype minigrad holds)
            out._grad_fn = node
            out._output_nr = nr  # (stored even when 0: edge_of reads it, see SavedTensor)
            node._out_meta += ((arr.shape, arr.dtype),)
        elif inplace_int_self:
            out._requires_grad, out._grad_fn, out._output_nr = True, node, nr
            node._out_meta += ((arr.shape, meta_dtype(arr.dtype)),)
        elif not node._out_meta and all(o is None or o._data.dtype.kind not in "fV"
                                        for o in outs):
            # no differentiable output at all (an op on an integer tensor with a history, or
            # index_put of a float value requiring grad into an integer one): PyTorch's
            # set_history refuses its (first) output
            raise RuntimeError("Autograd not support dtype: "
                               f"{from_numpy_dtype(arr.dtype)._scalar_name}")
    if anomaly_mode._enabled:
        anomaly_mode.on_outputs(node, outs)
    return node


def _record_dual(node_cls, outputs, inputs, args):
    """`record` inside a forward-AD level: the node first (PyTorch makes it before the forward
    grads), then the outputs' tangents."""
    global fw_on
    fw_on = False
    try:
        node = record(node_cls, outputs, inputs, *args)
    finally:
        fw_on = True
    from . import forward_ad

    # (inference mode turns forward AD off, as PyTorch's, but for views: a view made there
    # has the view of its base's tangent, seen once inference mode is left)
    forward_ad.propagate(node_cls, outputs, inputs, args, views_only=bool(
        grad_mode._inference_blocks and grad_mode._tls.inference))
    if node is not None:  # outputs saved by the node before they had their tangents
        for sv in getattr(node, "_saved", {}).values():
            if (isinstance(sv, SavedTensor) and sv._out_ref is not None
                    and sv._fw_grad is None):
                out = sv._out_ref()
                if out is not None and out._fw_grad is not None:
                    forward_ad._keep(sv, out._fw_grad)
    return node


def check_saveable(inputs, saved) -> None:
    """Raise the inference-tensor error now if recording the op would save an inference tensor.

    PyTorch's autograd layer (``VariableType``) makes the node and saves its tensors *before*
    the op's kernel checks the arguments, so ``dot(x, s)`` with ``x`` requiring grad and ``s``
    a 0-D inference tensor raises "Inference tensors cannot be saved for backward", not
    "1D tensors expected". An op whose node saves inputs calls this ahead of its checks, when
    one of them is an inference tensor (``_inference``: the check costs nothing otherwise).

    Args:
        inputs: the op's differentiable inputs, as for ``record`` (None for an empty slot).
        saved: the tensors its node would save, given which inputs require grad (None where
            nothing is saved), e.g. `crossed` for a product.
    """
    if not grad_mode.is_grad_enabled() or grad_mode.inference_active():
        return  # (no node is made: nothing is saved)
    if not any(t is not None and t.requires_grad for t in inputs):
        return
    # (the self of an in-place op outside inference mode is saved as a clone: see
    # inplace_inference_self)
    if any(t is not None and t._inference and t is not inplace_inference_self for t in saved):
        raise RuntimeError(INFERENCE_SAVE_MSG)


def crossed(a, b) -> tuple:
    """What a product's node saves (``MulBackward0``, ``MmBackward0``, ``DotBackward0`` ...):
    each operand when the *other* one requires grad (its gradient is grad times that one)."""
    return (a if b.requires_grad else None, b if a.requires_grad else None)


def zeros_grad(shape, dtype):
    """A zero gradient (used to materialise gradients of unused outputs); ``dtype`` a NumPy
    dtype."""
    return _tensor_cls()._make(np.zeros(shape, dtype=dtype))


# The user-facing half of ``torch.autograd.graph`` (saved_tensors_hooks, GradientEdge, ...), kept
# in its own module and shown here, where PyTorch has it.
from .graph_utils import (  # noqa: E402, F401  (re-exported)
    GradientEdge,
    allow_mutation_on_saved_tensors,
    disable_saved_tensors_hooks,
    get_gradient_edge,
    increment_version,
    register_multi_grad_hook,
    save_on_cpu,
    saved_tensors_hooks,
)
