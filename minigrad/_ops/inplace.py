"""In-place ops: ``add_ sub_ mul_ div_ pow_ zero_ fill_ copy_ clamp_ relu_ ...``, ``+=``,
``t[idx] = v`` (``index_put_``); the random fills ``uniform_`` ... are in ``_ops/random.py``.

Mirrors PyTorch's in-place semantics (``torch/csrc/autograd/VariableTypeManual.cpp``,
``check_inplace``, ``rebase_history``, ``CopySlices`` in ``functions/tensor.cpp``): every in-place
op bumps the version counter shared with all views; a leaf that requires grad (or a view of one)
cannot be modified while grad mode is on; on a non-leaf the op *rewrites its history*: the same
tensor object gets the op's node as ``grad_fn``. Saved inputs that are the modified tensor itself
are saved as a clone first (as PyTorch does), and saved outputs are re-pointed at the modified
tensor. An in-place op on a *view* rewrites the history of its base instead: the base gets a
``CopySlices`` node wrapping the op's node, and the view an ``AsStridedBackward0`` pointing at it.
``t[idx] = v`` is decomposed as PyTorch does: basic indices give a view (or ``t`` itself when they
keep everything), then ``fill_`` (0-dim value), ``copy_`` (tensor value) or ``index_put_``
(integer / bool tensor indices) is applied to it.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._dtype import from_numpy_dtype
from .._tensor import Tensor, empty_strided, view_rebase_message
from .._type_promotion import can_cast
from ..autograd import grad_mode
from ..autograd import graph as _graph
from ..autograd.forward_ad import linked, promoted, tangent_sum
from ..autograd.graph import Node, SavedTensor, _is_dense, edge_of, record
from . import activation as A
from . import pointwise as P
from ._util import _HALF, as_tensor, attach, internal_overlap, laid_out, result_dtype
from .indexing import IndexBackward0, _IndexNode
from .scalar import mul_scalar

LEAF_MSG = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_MSG = "a view of a leaf Variable that requires grad is being used in an in-place " \
                "operation."
INFERENCE_INPLACE_MSG = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
    "to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17"
    " for more details.")


def check_inplace(self: Tensor, *others) -> None:
    """Raise PyTorch's RuntimeError when ``self`` may not be modified in place.

    ``others``: the op's other arguments. With grad mode on and any tensor involved requiring
    grad: a view made in a special way (``_creation_meta``: under no_grad / inference mode, by a
    multi-output op, returned as-is by a custom Function) is refused, then a view of a leaf
    that requires grad, then such a leaf. (Inference tensors are refused by `bump`.)
    Every in-place op calls it before writing, so ``allow_mutation_on_saved_tensors`` watches
    writes here (``graph.before_inplace``)."""
    if _graph.before_inplace is not None:
        _graph.before_inplace(self)
    if not grad_mode.is_grad_enabled():
        return
    if not (self.requires_grad or any(isinstance(o, Tensor) and o.requires_grad for o in others)):
        return
    base = self._base
    if base is not None:
        if self._creation_meta is not None:
            raise RuntimeError(view_rebase_message(self, indirect=False))
        # (the base is a leaf: whether or not it requires grad, as PyTorch's check_inplace
        # reads only the view's flag; a view made to require grad itself is refused too)
        if self.requires_grad and base._grad_fn is None:
            raise RuntimeError(VIEW_LEAF_MSG)
    elif self._requires_grad and self._grad_fn is None:
        raise RuntimeError(LEAF_MSG)


def bump(self: Tensor, others=()) -> None:
    """Count an in-place change of ``self`` (every view sees it).

    An inference tensor has no counter: outside inference mode this raises PyTorch's
    RuntimeError *after* the data was written, as PyTorch does (the check is in the bump).
    In inference mode one that has a counter (the detached tensor of an inference tensor,
    made outside inference mode) is counted when one of ``others`` (the op's operands) is a
    normal tensor: its dispatch keys bring in PyTorch's ADInplaceOrView kernel."""
    if self._inference:
        if grad_mode.is_inference_mode_enabled():
            if self._own_vc and any(isinstance(o, Tensor) and not o._inference
                                    for o in others):
                self._vc.bump()
            return
        if not self._own_vc:  # (the detached tensor of one outside inference mode has one)
            raise RuntimeError(INFERENCE_INPLACE_MSG)
    self._vc.bump()


OVERLAP_MSG = ("unsupported operation: more than one element of the written-to tensor refers to a "
               "single memory location. Please clone() the tensor before performing the "
               "operation.")
EXPANDED_WARNING = {op: f"Use of {op} on expanded tensors is deprecated. Please clone() the "
                    f"tensor before performing this operation. This also applies to advanced "
                    f"indexing e.g. tensor[{what}] = {value}"
                    for op, what, value in (("masked_fill_", "mask", "scalar"),
                                            ("index_put_", "indices", "tensor"))}


def _warn_expanded(op: str, stacklevel: int) -> None:
    warnings.warn(EXPANDED_WARNING[op], UserWarning, stacklevel=stacklevel + 1)


def _is_masked_fill(arrays, value: Tensor) -> bool:
    """PyTorch's ``canDispatchToMaskedFill``: ``self[arrays] = value`` with a one-element value
    and a single bool mask (of >= 1 dims; a 0-dim bool tensor is an index) is done as
    ``masked_fill_(mask, value.item())``, which casts and ignores memory shared with self."""
    return value.numel() == 1 and len(arrays) == 1 and (
        arrays[0].dtype == np.bool_ and arrays[0].ndim > 0)


def _write(self: Tensor, r: Tensor, overlap_ok: bool = False, where=None) -> None:
    """Write ``r`` (the op's out-of-place result) into ``self``.

    A view of an expanded array is read-only in NumPy; it is written through its base's memory
    (`_write_through`) unless its elements overlap and the op is not one PyTorch lets
    write there (``overlap_ok``: fill_/zero_ with a number, masked_fill_, index_put_; ``where``,
    a function giving the bool mask of the elements the op writes)."""
    if r.shape != self.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(r.shape)}")
    if r._data.dtype != self._data.dtype and not can_cast(r.dtype, self.dtype):
        raise RuntimeError(f"result type {r.dtype._scalar_name} can't be cast to the desired "
                           f"output type {self.dtype._scalar_name}")
    if not self._data.size:  # nothing to write (an empty expanded view is fine too)
        return
    if not self._data.flags.writeable:  # a view of an expanded array
        if internal_overlap(self._data) and not overlap_ok:
            raise RuntimeError(OVERLAP_MSG)
        _write_through(self, r._data, None if where is None else where())
        return
    self._data[...] = r._data


def _write_through(self: Tensor, values: np.ndarray, where=None) -> None:
    """Write ``values`` (shaped like ``self``) into the base's memory at the cells of ``self``
    (only where the bool mask ``where`` is True). Several elements of ``self`` may be one cell,
    which then keeps one of the values written to it, as in PyTorch."""
    base = self._base
    cells = None if base is None else base._data if base.ndim else base._data.reshape(1)
    if cells is None or not cells.flags.writeable:  # (no writable memory behind it)
        raise RuntimeError(OVERLAP_MSG)
    index = _base_index(base, self)
    if where is not None:
        index, values = tuple(i[where] for i in index), values[where]
    cells[index] = values


def _apply_inplace(self: Tensor, compute, others=(), overlap_ok=False, where=None,
                   int_history=True) -> Tensor:
    """Run ``compute()`` (the out-of-place op on ``self``), write it into self, rewrite history.

    On a non-view the result's node becomes ``self.grad_fn``. On a view, the base's history is
    rewritten with ``CopySlices(node)`` and the view gets ``AsStridedBackward0(CopySlices)``.
    ``others``: the op's other arguments (for `check_inplace`); ``overlap_ok`` and
    ``where``: see `_write`; ``int_history``: see `_compute_on_integer`.
    """
    if _graph.saved_hooks_open and _graph.SAVED_HOOKS.stack:  # (one global read otherwise)
        return _apply_inplace_hooked(self, compute, others, overlap_ok, where, int_history)
    check_inplace(self, *others)
    if _graph.fw_on and grad_mode.is_grad_enabled():  # (forward AD: the formulas see clones
        from ..autograd import forward_ad  # of self and its tangent: forward_ad._old_self)

        forward_ad._inplace_self = self
    for o in others:  # PyTorch's TensorIterator refuses inputs partially overlapping self
        if isinstance(o, Tensor) and o._data is not self._data and np.shares_memory(
                o._data, self._data):
            _check_overlap(self, o)
    if int_history and self._data.dtype.kind not in "fV":
        r = _compute_on_integer(self, compute)
    elif self._inference and not grad_mode.is_inference_mode_enabled():
        r = _compute_on_inference(self, compute)
    else:
        r = compute()
    node = r._grad_fn
    if node is not None:
        sv = node._saved.get("self")  # PyTorch saves a clone of ``self`` (only under that name:
        if isinstance(sv, SavedTensor) and sv._tensor is self:  # ``b.mul_(b)`` still fails)
            node._saved["self"] = SavedTensor(self.clone(), node, False)
    _write(self, r, overlap_ok, where)
    bump(self, others)
    if _graph.fw_on and not grad_mode.is_inference_mode_enabled():  # (forward AD: the new
        # tangent goes into self's; inference mode leaves the old one as it was)
        from ..autograd import forward_ad

        forward_ad.after_inplace(self, r)
    if node is not None:
        for sv in node._saved.values():
            if isinstance(sv, SavedTensor) and sv._is_output:
                sv._data, sv._vc, sv._saved_version = self._data, self._vc, self._vc.value
                if sv._fw_grad is not None:  # (forward AD: self's tangent, now the result's)
                    sv._keep_tangent(self._fw_grad)
        if self._base is None:
            self._set_history(node)
        else:
            base = self._base
            base._set_history(CopySlices(base, self, node))
            self._set_history(AsStridedBackward0(base, self))
            self._view_version = self._vc.value
    return self


def _compute_on_integer(self: Tensor, compute) -> Tensor:
    """``compute()`` for an in-place op on a tensor of an integer (or bool) dtype: an operand
    that requires grad and that the op casts to self's dtype (``fill_``, ``masked_fill_``,
    ``index_put_`` of a bool mask and one value) gives self the op's node, as PyTorch's
    ``rebase_history`` does (see ``graph.inplace_int_self``); ``copy_`` records nothing there
    (its autograd kernel checks self's dtype first)."""
    if self._inference and not grad_mode.is_inference_mode_enabled():
        return _compute_on_inference(self, compute)
    _graph.inplace_int_self = True
    try:
        return compute()
    finally:
        _graph.inplace_int_self = False


def _compute_on_inference(self: Tensor, compute) -> Tensor:
    """``compute()`` for an in-place op on the inference tensor ``self`` outside inference
    mode. PyTorch saves ``self.clone()`` (a normal tensor) where the formula needs the old
    ``self``, writes, and only then refuses the update (in the version bump: `bump`), so the
    data is changed; saving ``self`` under another name (``b.mul_(b)``) still raises."""
    _graph.inplace_inference_self = self
    try:
        r = compute()
    finally:
        _graph.inplace_inference_self = None
    node = r._grad_fn
    if node is not None and any(isinstance(sv, SavedTensor) and sv._tensor is self
                                for name, sv in node._saved.items() if name != "self"):
        raise RuntimeError(_graph.INFERENCE_SAVE_MSG)
    return r


def _apply_inplace_hooked(self, compute, others, overlap_ok, where, int_history) -> Tensor:
    """`_apply_inplace` inside ``saved_tensors_hooks``: the pack hook must get what PyTorch
    saves for an in-place op — the clone of ``self`` and ``self`` after the write (as the
    output) — not the out-of-place result that minigrad computes first. So the op runs with
    the hooks set aside, and then its saved tensors are packed in their final form."""
    state = _graph.SAVED_HOOKS
    hooks, nodes = state.stack, []

    def compute_and_keep_node():
        r = compute()
        nodes.append(r._grad_fn)
        return r

    state.stack = ()
    try:
        _apply_inplace(self, compute_and_keep_node, others, overlap_ok, where, int_history)
    finally:
        state.stack = hooks
    node = nodes[0] if nodes else None
    if node is not None:
        for name, sv in list(node._saved.items()):
            if type(sv) is SavedTensor:
                node._saved[name] = SavedTensor(self if sv._is_output else sv._tensor, node,
                                                sv._is_output)
    return self


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _storage_start(a: np.ndarray) -> int:
    """The address of the memory ``a`` views: that of the array owning it."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return _address(a)


def _data_replaced(base: Tensor, view: Tensor) -> bool:
    """Whether ``view.data = y`` (or the base's) gave the view memory apart from its base's.
    PyTorch keeps the view a view of the base all the same, and takes it for
    ``base.as_strided(view.size(), view.stride(), view.storage_offset())`` with the view's
    new geometry (so an in-place op on it records CopySlices on the base)."""
    b, v = base._data, view._data
    return bool(v.size and b.size and not np.shares_memory(b, v))


def _view_storage_offset(base: Tensor, view: Tensor) -> int:
    """``view.storage_offset()`` in elements: where the view starts in its base's memory, or
    in its own memory once its data was replaced (`_data_replaced`)."""
    start = _storage_start(view._data) if _data_replaced(base, view) else _address(base._data)
    return (_address(view._data) - start) // view._data.itemsize


def _byte_offsets(a: np.ndarray) -> np.ndarray:
    """The address of every element of ``a``, shaped like ``a``."""
    off = np.full(a.shape, _address(a), dtype=np.int64)
    for d, (n, st) in enumerate(zip(a.shape, a.strides)):
        off += (np.arange(n, dtype=np.int64) * st).reshape((n,) + (1,) * (a.ndim - d - 1))
    return off


def _positions(base: Tensor, view: Tensor) -> np.ndarray:
    """For every element of ``view``, its flat (C-order) index in ``base`` (same memory; for a
    view whose data was replaced, the cell its geometry names in the base's memory)."""
    b, v = base._data, view._data
    vo = _byte_offsets(v)
    if _data_replaced(base, view):  # the same strides and offset, laid on the base's memory
        vo = vo - _storage_start(v) + _storage_start(b)
    bo = _byte_offsets(b).reshape(-1)
    if b.flags.c_contiguous:
        pos = (vo - bo[0]) // b.itemsize if bo.size else vo * 0
        found = not vo.size or (pos.min() >= 0 and pos.max() < b.size)
    else:
        order = np.argsort(bo, kind="stable")
        at = np.minimum(np.searchsorted(bo[order], vo), max(bo.size - 1, 0))
        pos = order[at] if bo.size else vo * 0
        found = not vo.size or np.array_equal(bo[pos], vo)
    if not found:  # (only a view whose data was replaced can name cells the base lacks)
        raise _BeyondBase(_beyond_base_message(base, view))
    return pos


class _BeyondBase(RuntimeError):
    """A view whose data was replaced names cells past its base's memory. PyTorch records the
    in-place op all the same and fails in backward, in ``as_strided``: the nodes keep the
    message (`_deferred_base_index`) and raise it there."""


def _beyond_base_message(base: Tensor, view: Tensor) -> str:
    v, item = view._data, view._data.itemsize
    size, stride = list(v.shape), [st // item for st in v.strides]
    offset = _view_storage_offset(base, view)
    need = 0 if 0 in size else offset + 1 + sum((n - 1) * st for n, st in zip(size, stride))
    return (f"setStorage: sizes {size}, strides {stride}, storage offset {offset}, and itemsize "
            f"{item} requiring a storage size of {need * item} are out of bounds for storage of "
            f"size {base._data.size * item}")


def _deferred_base_index(base: Tensor, view: Tensor):
    """``(_base_index(base, view), None)``, or ``(None, message)`` for a view beyond its base
    (`_BeyondBase`): the backward of the node raises the message."""
    try:
        return _base_index(base, view), None
    except _BeyondBase as e:
        return None, str(e)


def _base_index(base: Tensor, view: Tensor) -> tuple:
    """Where the elements of ``view`` sit in ``base``: a tuple of integer arrays shaped like the
    view, indexing ``base`` (a 0-dim base as its one-element 1-D reshape: NumPy has no index
    arrays for 0-dim arrays)."""
    return np.unravel_index(_positions(base, view), base.shape or (1,))


def _gather(g: Tensor, index: tuple) -> Tensor:
    """``g[index]`` (a tuple of integer arrays), recorded as ``IndexBackward0`` so that it can be
    differentiated again under ``create_graph``."""
    out = Tensor._make(g._data[index])
    record(IndexBackward0, out, (g,), [Tensor._make(i) for i in index], index, g.shape)
    return out


def _scatter(v: Tensor, index: tuple, shape: tuple, unique: bool) -> Tensor:
    """``zeros(shape)`` with ``v`` added at ``index`` (recorded as ``IndexPutImplBackward0``)."""
    from .indexing import IndexPutImplBackward0

    zeros = Tensor._make(np.zeros(shape, dtype=v._data.dtype))
    out = Tensor._make(np.zeros(shape, dtype=v._data.dtype))
    if unique:
        out._data[index] = v._data
    else:  # an expanded view: several of its elements are one element of the base
        np.add.at(out._data, index, np.broadcast_to(v._data, index[0].shape))
    record(IndexPutImplBackward0, out, (zeros, v), [Tensor._make(i) for i in index], index)
    return out


class AsStridedBackward0(Node):
    """z = base.as_strided(size, stride, storage_offset): a view whose history was rewritten by
    an in-place op.  dz/dbase = zeros(base) with grad added at the viewed positions.
    Saves: size, storage_offset, stride."""

    _may_overlap = False  # set by as_strided, whose elements may share memory cells
    _input_index = None  # as_strided of a view: where the view's elements sit in the base

    def __init__(self, base: Tensor, view: Tensor):
        Node.__init__(self)
        item = view._data.itemsize
        self._save("size", tuple(view.shape))
        self._save("storage_offset", _view_storage_offset(base, view))
        self._save("stride", tuple(st // item for st in view._data.strides))
        self._index, self._index_error = _deferred_base_index(base, view)
        self._base_shape = base.shape
        self.next_functions = (edge_of(base),)
        self._out_meta += ((view.shape, _graph.meta_dtype(view._data.dtype)),)

    def backward(self, g):
        if self._index is None:
            raise RuntimeError(self._index_error)
        unique = 0 not in self._saved["stride"]
        if unique and self._may_overlap:  # (an as_strided view may overlap with any strides)
            unique = np.unique(np.ravel_multi_index(self._index, self._base_shape or (1,))
                               ).size == g.numel()
        grad = _scatter(g, self._index, self._base_shape or (1,), unique)
        # PyTorch writes g in place into a new zeros storage and returns a view of that
        # storage: the gradient is a view (``_base`` set) and its version is 1 (under
        # create_graph the gradient keeps its IndexPutImpl history instead of a view's)
        grad._vc.bump()
        if self._input_index is not None:  # as_strided of a view: back to the view's elements
            return (_gather(grad, self._input_index),)
        if not self._base_shape:
            return (grad.reshape(()),)
        return (grad if grad.requires_grad else grad._make_view(grad._data),)


class CopySlices(Node):
    """base[view] = fn(base[view], *others), done in place through a view of ``base``.

    ``fn`` is the node of the in-place op on the view (e.g. ``MulBackward0``); CopySlices takes
    its place in the base's history: ``next_functions`` is the base's previous edge followed by
    ``fn``'s edges for its other inputs. Backward: the view's part of the incoming gradient goes
    through ``fn``; grad wrt the old base = grad with that part replaced by fn's grad wrt its
    first input; the other inputs get fn's other grads. ``name()`` is
    ``torch::autograd::CopySlices``. Saves nothing itself (``fn`` keeps its own saved values).
    As PyTorch's, the gradient wrt the base is laid out as the base (``new_empty_strided``
    of its strides, then ``copy_``; not under ``create_graph``) and ``fn`` gets a contiguous
    gradient (the gathered view part).
    """

    _runs_unmasked = True  # (raises, or calls its fn, whatever is needed)

    def __init__(self, base: Tensor, view: Tensor, fn: Node):
        Node.__init__(self)
        self.fn = fn
        self._index, self._index_error = _deferred_base_index(base, view)
        self._view_overlaps = internal_overlap(view._data)
        self.next_functions = (edge_of(base),) + fn.next_functions[1:]
        self._out_meta += ((base.shape, _graph.meta_dtype(base._data.dtype)),)
        data = base._data  # (a base that is not dense keeps the gradient's layout)
        self._base_strides = [st // data.itemsize for st in data.strides] \
            if _is_dense(data) and data.size else None
        self._released = False  # (PyTorch drops fn with the graph: running again raises)

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def backward(self, g):
        if self._released:  # even when fn saved nothing
            raise RuntimeError(_graph.FREED_MSG)
        if self._index is None:
            raise RuntimeError(self._index_error)
        shape = g.shape
        if not shape:  # (see _base_index)
            g = g.reshape(1)
        res = self.fn.backward(_gather(g, self._index))
        grad_base = None
        if self.next_functions[0][0] is not None:
            if self._view_overlaps:  # PyTorch copies the view's gradient into an as_strided
                raise RuntimeError(OVERLAP_MSG)  # view of the base's: refused there
            outside = np.ones(g.shape, dtype=g._data.dtype)
            outside[self._index] = 0
            grad_base = g * Tensor._make(outside)
            if res[0] is not None:
                grad_base = grad_base + _scatter(res[0], self._index, g.shape, True)
            if not shape:
                grad_base = grad_base.reshape(())
            elif self._base_strides is not None and not grad_mode._tls.grad_enabled:
                have = grad_base._data  # (laid out as the base: see the docstring)
                if [st // have.itemsize for st in have.strides] != self._base_strides:
                    arr = empty_strided(have.shape, self._base_strides, have.dtype)
                    arr[...] = have
                    grad_base = Tensor._make(arr)
        return (grad_base,) + tuple(res[1:])

    def _release_variables(self) -> None:
        self.fn._release_variables()
        self._released = True


def _inplace_of(fn, doc_name):
    def op(self, *args, **kwargs):
        return _apply_inplace(self, lambda: fn(self, *args, **kwargs),
                              args + tuple(kwargs.values()))

    op.__name__ = doc_name
    op.__doc__ = f"In-place ``{doc_name[:-1]}``: modifies self, bumps ``_version``, returns self."
    return op


_clamp_tensor_ = _inplace_of(P.clamp, "clamp_")


def clamp_(self, min=None, max=None) -> Tensor:
    """In-place ``clamp``: modifies self, bumps ``_version``, returns self.

    Raises:
        RuntimeError: a Python-number bound whose type promotes past self's dtype (a float
            bound on an integer tensor): PyTorch's clamp_(Scalar) kernel names the output
            type in C++ ("result type Float can't be cast to the desired output type long
            int"); tensor bounds give the usual in-place message ("... type Long").
    """
    numbers = [b for b in (min, max) if b is not None and not isinstance(b, Tensor)]
    if numbers:
        common = from_numpy_dtype(result_dtype(self, *numbers))
        if not can_cast(common, self.dtype):
            raise RuntimeError(f"result type {common._scalar_name} can't be cast to the desired "
                               f"output type {self.dtype._c_name}")
    return _clamp_tensor_(self, min, max)


class ZeroBackward0(Node):
    """z = zeros_like(self) written in place.  dz/dself = 0. Saves nothing."""

    def backward(self, g):
        return (Tensor._make(np.zeros_like(g._data)),)

    @staticmethod
    def jvp(inputs, tangents, outputs, *args):
        """dz = zeros (the tangent of a constant fill)."""
        return Tensor._make(np.zeros_like(tangents[0]._data))


class FillBackward2(ZeroBackward0):
    """z = self filled with a Python scalar, in place.  dz/dself = 0. Saves nothing."""


class FillBackward3(Node):
    """z = self filled with a 0-dim tensor ``value``, in place.  dz/dself = 0;
    dz/dvalue = grad.sum(). Saves nothing."""

    def backward(self, g):
        return (Tensor._make(np.zeros_like(g._data)) if self.next_functions[0][0] is not None
                else None,
                g.sum() if self.next_functions[1][0] is not None else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, *args):
        """dz = value_t expanded to self's shape (zeros without one)."""
        tv = tangents[1]
        if tv is None:
            return Tensor._make(np.zeros(outputs[0].shape, tangents[0]._data.dtype))
        return tv.expand(outputs[0].shape)


class CopyBackwards(Node):
    """self.copy_(src).  dz/dself = 0; dz/dsrc = grad (summed to src's shape, cast to its
    dtype). ``name()`` is ``torch::autograd::CopyBackwards``. Saves nothing."""

    def __init__(self, src):
        Node.__init__(self)
        self._src_shape, self._src_dtype = src.shape, src.dtype

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"

    def backward(self, g):
        from ._util import sum_to

        gs = None
        if self.next_functions[1][0] is not None:
            gs = sum_to(g, self._src_shape)
            if gs.dtype is not self._src_dtype:
                gs = gs.to(self._src_dtype)
        return (Tensor._make(np.zeros_like(g._data)) if self.next_functions[0][0] is not None
                else None, gs)

    @staticmethod
    def jvp(inputs, tangents, outputs, src):
        """dz = src_t (self's tangent is overwritten: a zero one when src has none)."""
        return tangents[1]


class IndexPutBackward0(_IndexNode):
    """z = self.index_put(indices, values) (``self[indices] = values``).
    dz/dself = grad with zeros at the indexed positions; dz/dvalues = grad[indices] summed to
    values' shape (with ``accumulate``, dz/dself = grad). Saves: accumulate, indices."""

    def __init__(self, np_index, saved_indices, values, accumulate=False):
        super().__init__()
        self._save("accumulate", bool(accumulate))
        self._save_indices(saved_indices)
        self._np_index, self._values_shape = np_index, values.shape

    def backward(self, g):
        # with recorded ops (a mask product, an IndexBackward0), so that a create_graph pass
        # can differentiate the gradients again
        from ._util import sum_to

        self._check_indices()
        gself = gvals = None
        if self.next_functions[0][0] is not None and self._saved["accumulate"]:
            gself = g
        elif self.next_functions[0][0] is not None:
            outside = np.ones(g.shape, dtype=g._data.dtype)
            outside[self._np_index] = 0
            gself = g * Tensor._make(outside)
        if self.next_functions[1][0] is not None:
            picked = Tensor._make(g._data[self._np_index])
            record(IndexBackward0, picked, (g,), self._saved["indices"], self._np_index, g.shape)
            gvals = sum_to(picked, self._values_shape)
        return gself, gvals

    @staticmethod
    def jvp(inputs, tangents, outputs, np_index, saved_indices, values, accumulate=False):
        """dz = self_t.index_put(indices, values_t, accumulate) (zeros for a missing
        tangent)."""
        from .index_ops import index_put

        ts, tv = _zeros_for_missing(inputs, tangents)
        return index_put(ts, tuple(saved_indices), tv, accumulate)


def _constant_like(self, value, node_cls, inputs=None, *args):
    out = Tensor._make(np.full(self.shape, value, dtype=self._data.dtype))
    record(node_cls, out, inputs or (self,), *args)
    return out


def zero_(self) -> Tensor:
    """Fill with zeros in place (``Tensor.zero_``); node ``ZeroBackward0`` on a non-leaf."""
    return _apply_inplace(self, lambda: _constant_like(self, 0, ZeroBackward0), overlap_ok=True)


def fill_(self, value) -> Tensor:
    """Fill with a value in place (``Tensor.fill_``): node ``FillBackward2`` for a Python
    scalar, ``FillBackward3`` (two slots: self, value) for a 0-dim tensor.

    Raises RuntimeError for a tensor value with dimensions."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")
        return _apply_inplace(self, lambda: _constant_like(self, value.item(), FillBackward3,
                                                           (self, value)), (value,))
    # (a number may be written to an expanded tensor; a tensor value may not, as in PyTorch)
    return _apply_inplace(self, lambda: _constant_like(self, value, FillBackward2),
                          overlap_ok=True)


def masked_fill_(self, mask, value) -> Tensor:
    """``masked_fill`` in place (``Tensor.masked_fill_``). On an expanded tensor PyTorch writes
    the masked cells (with a deprecation warning), and so does minigrad."""
    if internal_overlap(self._data):
        _warn_expanded("masked_fill_", stacklevel=2)
    return _apply_inplace(self, lambda: P.masked_fill(self, mask, value), (mask, value),
                          overlap_ok=True,
                          where=lambda: np.broadcast_to(as_tensor(mask)._data, self.shape))


def copy_(self, src, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` (broadcast, cast) into self (``Tensor.copy_``); node ``CopyBackwards``."""
    src = as_tensor(src)
    same = _same_data(self._data, src._data)  # PyTorch returns before writing (or checking
    if not same and np.shares_memory(src._data, self._data):  # self's overlap): history only
        _check_overlap(self, src, copy=True)

    def compute():
        try:
            arr = np.broadcast_to(src._data, self.shape)
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({self.shape[-1] if self.ndim else 1}) "
                               f"must match the size of tensor b ({src.shape[-1]}) at "
                               "non-singleton dimension "
                               f"{max(self.ndim - 1, 0)}") from None
        out = Tensor._make(np.array(arr.astype(self._data.dtype, copy=False)))
        if out._data.dtype.kind in "fV":  # (into an integer self: no history, as PyTorch)
            record(CopyBackwards, out, (self, src), src)
        return out

    # identical data: even an expanded tensor takes it (each cell gets the value it has)
    return _apply_inplace(self, compute, (src,), overlap_ok=same, int_history=False)


def _index_put_(self, np_index, saved_indices, values: Tensor) -> Tensor:
    """``self[np_index] = values`` in place with an ``IndexPutBackward0`` history."""

    def compute():
        arr = np.array(self._data, copy=True)
        arr[np_index] = values._data
        out = Tensor._make(arr)
        record(IndexPutBackward0, out, (self, values), np_index, saved_indices, values)
        return out

    def written():
        mask = np.zeros(self.shape, dtype=bool)
        mask[np_index] = True
        return mask

    _warn_if_expanded(self, np_index, values)
    return _apply_inplace(self, compute, (values,), overlap_ok=True, where=written)


def _warn_if_expanded(target: Tensor, np_index, values) -> None:
    """PyTorch's deprecation warnings for index_put_ (and its masked_fill_ path: one bool mask
    and a one-element value) on a tensor whose elements share memory."""
    if not internal_overlap(target._data):
        return
    _warn_expanded("index_put_", stacklevel=4)
    if _is_masked_fill([i for i in np_index if isinstance(i, np.ndarray)], values):
        _warn_expanded("masked_fill_", stacklevel=4)


def _split_index(self, index):
    """PyTorch's ``applySlicing`` split of ``self[index]``: the basic part (ints, slices, None,
    Ellipsis) as a tuple for a view, whether it keeps ``self`` whole, and the integer/bool
    arrays with the dim of the view each applies to."""
    from .indexing import _as_index_array, _BoolScalar, _dims_used, _is_advanced, _normalize_item

    if index is True:  # alone, PyTorch's set_item writes to self.unsqueeze(0), as for None
        index = None
    items = tuple(_normalize_item(i) for i in (index if isinstance(index, tuple) else (index,)))
    n_used = sum(_dims_used(i) for i in items)
    if n_used > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim}")
    basic, advanced, d, trivial = [], [], 0, True
    filled = False  # (only the first Ellipsis fills dims, as in PyTorch)
    for ix in items:
        if ix is Ellipsis:
            n = 0 if filled else self.ndim - n_used
            basic += [slice(None)] * n
            d += n
            filled = True
        elif _is_advanced(ix):
            arr = _as_index_array(ix)
            n = arr.ndim if arr.dtype == np.bool_ else 1
            basic += [slice(None)] * n
            advanced.append((d, ix, arr))
            d += n
        elif isinstance(ix, _BoolScalar):  # a new dim, indexed by [0] (True) or [] (False)
            basic.append(None)
            advanced.append((d, None, np.zeros(1 if ix.value else 0, dtype=np.int64)))
            trivial = False
            d += 1
        elif isinstance(ix, slice):
            basic.append(ix)  # while `trivial`, every earlier item kept a dim of self whole
            trivial = trivial and ix.step in (None, 1) and ix.start in (None, 0) and (
                ix.stop is None or ix.stop >= self.shape[len(basic) - 1])
            d += 1
        else:  # an int or None
            basic.append(ix)
            trivial = False
            d += ix is None
    return tuple(basic), trivial, advanced


def setitem(self, index, value) -> None:
    """``self[index] = value`` in place (bumps ``_version``), decomposed as PyTorch does.

    Basic indices select a view (``self`` itself when they keep everything); then a 0-dim value
    is written with ``fill_``, a tensor with ``copy_`` and integer/bool tensor indices with
    ``index_put_`` (node ``IndexPutBackward0``). On a view the base's history becomes
    ``CopySlices``. Raises the in-place RuntimeErrors of `check_inplace`, and TypeError
    for a value that is not a tensor or a Python number (lists, arrays), as PyTorch does.
    """
    if not isinstance(value, (Tensor, bool, int, float)):
        name = type(value).__name__
        if type(value).__module__ not in ("builtins", None):
            name = f"{type(value).__module__}.{name}"
        raise TypeError(f"can't assign a {name} to a minigrad.{self.dtype._legacy}")
    if index is False:  # PyTorch writes nothing and checks nothing more (no version bump)
        return
    split = _split_index(self, index)
    needs_graph = _graph.fw_on or grad_mode.is_grad_enabled() and (  # (forward AD: the
        self.requires_grad or (isinstance(value, Tensor) and value.requires_grad))  # tangent)
    try:
        _check_setitem(self, index, value)
    except (IndexError, RuntimeError) as e:
        # PyTorch first takes the view of the basic indices (their errors come first), then
        # (for a tensor value on basic indices) expands the value to the view's shape, then
        # runs the in-place checks, then checks index tensors and the value: same order here
        if getattr(e, "_before_inplace_checks", False):
            raise
        if needs_graph:
            basic, trivial, _ = split
            check_inplace(self if trivial else self[basic], value)
        else:
            check_inplace(self, value)
        raise
    if not needs_graph:
        check_inplace(self, value)
        _setitem_data(self, index, value)
        bump(self, (value,))
        return
    basic, trivial, advanced = split
    target = self if trivial else self[basic]
    value = as_tensor(value, self._data.dtype)
    stripped = list(value.shape)
    while stripped and stripped[0] == 1:  # NumPy rule: leading unit dims of the value go
        stripped.pop(0)
    if advanced:
        np_index, saved = _array_index(target, advanced)
        if len(stripped) != value.ndim:
            value = value.view(stripped)
        _index_put_(target, np_index, saved, value)
    elif value.ndim == 0 and target.ndim > 0:  # (a 0-dim self is written with copy_)
        fill_(target, value)
    else:
        if value.shape != target.shape:  # as PyTorch's copy_to: view, then expand
            value = value.view(stripped)
            if value.shape != target.shape:
                value = value.expand(target.shape)
        copy_(target, value)


def _array_index(target: Tensor, advanced):
    """NumPy index tuple (and PyTorch's saved ``indices``) for integer / bool index arrays."""
    np_index, saved, cur = [], [], 0
    for d, ix, arr in advanced:
        np_index += [slice(None)] * (d - cur)
        saved += [None] * (d - cur)
        np_index.append(arr if arr.dtype == np.bool_ else arr.astype(np.int64))
        saved.append(ix if isinstance(ix, Tensor) else Tensor._make(arr))
        cur = d + (arr.ndim if arr.dtype == np.bool_ else 1)
    return tuple(np_index), tuple(saved)


def _setitem_source(region: Tensor, value: Tensor) -> Tensor:
    """The source PyTorch's ``self[index] = value`` copies into ``region`` (``copy_to`` in
    python_variable_indexing.cpp): ``value`` itself when the shapes match, else ``value``
    without leading size-1 dims, expanded to the region's shape (already checked to fit)."""
    if value.shape == region.shape:
        return value
    from .shape import expanded

    return Tensor._make(expanded(value._data.reshape(_stripped(value)), region.shape))


def _stripped(value: Tensor) -> list:
    """``value``'s shape without leading size-1 dims (PyTorch drops them before writing)."""
    shape = list(value.shape)
    while shape and shape[0] == 1:
        shape.pop(0)
    return shape


def _check_setitem(self, index, value) -> None:
    """PyTorch's errors for ``self[index] = value``, raised before anything is written: index
    out of range, index_put dtype mismatch, value shape that does not broadcast."""
    from .indexing import _as_index_array, _is_advanced
    from .shape import _expand_target

    region = Tensor._make(self._data)[index]  # PyTorch's indexing and errors
    target = tuple(region.shape)
    if not isinstance(value, Tensor):
        return
    items = index if isinstance(index, tuple) else (index,)
    advanced = [_as_index_array(i) for i in items if _is_advanced(i)]
    # other index tensors go to index_put_, which refuses a value sharing memory with self
    masked_fill = _is_masked_fill(advanced, value)
    shared = np.shares_memory(value._data, self._data) and not masked_fill and (
        value.ndim > 0 or advanced)  # (a 0-dim value on basic indices: a fill)
    if shared and advanced:
        _check_overlap(None, value, True)
    if advanced and not masked_fill and value.dtype is not self.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{self.dtype._legacy[:-6]} for the destination and "
                           f"{value.dtype._legacy[:-6]} for the source.")
    stripped = _stripped(value)
    if advanced:
        try:
            ok = np.broadcast_shapes(tuple(stripped), target) == target
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(value.shape)} cannot "
                               f"be broadcast to indexing result of shape {list(target)}")
    else:
        if tuple(value.shape) != target:
            try:  # PyTorch's copy_to expands the value before copy_ runs its in-place checks
                _expand_target(Tensor._make(value._data.reshape(stripped)), target)
            except RuntimeError as e:
                e._before_inplace_checks = True  # (see setitem)
                raise
        if shared:  # after the shape check: copy_to expands the value before copy_ checks
            _check_overlap(region, _setitem_source(region, value), True)


def _byte_range(a: np.ndarray) -> tuple:
    """First and one-past-last byte address an array touches."""
    lo = hi = a.__array_interface__["data"][0]
    for n, st in zip(a.shape, a.strides):
        lo, hi = lo + min(0, st * (n - 1)), hi + max(0, st * (n - 1))
    return lo, hi + a.itemsize


def _overlap_status(a: Tensor, b: Tensor) -> str:
    """How two tensors share memory, as ATen's ``get_overlap_status`` (MemoryOverlap.cpp) sees
    it: ``"no"``; ``"full"`` (the same bytes with the same strides, size-1 dims included);
    ``"partial"``; or ``"too_hard"`` when one is not dense (PyTorch does not look further)."""
    x, y = a._data, b._data
    if x.size == 0 or y.size == 0:
        return "no"
    if not (_is_dense(x) and _is_dense(y)):
        return "too_hard"
    (x0, x1), (y0, y1) = _byte_range(x), _byte_range(y)
    if (x0, x1) == (y0, y1):
        return "full" if a.stride() == b.stride() else "partial"
    return "partial" if x0 < y1 and y0 < x1 else "no"


def _same_data(a: np.ndarray, b: np.ndarray) -> bool:
    """The same elements in the same layout: a copy between them is skipped (``copy_``)."""
    return (a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides and
            a.__array_interface__["data"][0] == b.__array_interface__["data"][0])


def _check_overlap(target, src, copy: bool = False) -> None:
    """PyTorch's error when ``src`` shares memory in part with the region ``target`` it is
    written to (TensorIterator's ``assert_no_partial_overlap``): a full overlap, and arrays too
    irregular for PyTorch to analyse, pass. ``copy``: a copy of identical data is skipped
    before any check. ``target`` None: an indexed write (``index_put_``), where any sharing
    counts."""
    if target is not None and (copy and _same_data(target._data, src._data) or
                               _overlap_status(target, src) != "partial"):
        return
    raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                       "written-to tensor refer to a single memory location. Please clone() the "
                       "tensor before performing the operation.")


def _setitem_data(self, index, value) -> None:
    """Write ``value`` at ``index`` (no graph; `_check_setitem` has run), decomposed as
    PyTorch does: basic indices give a view, integer/bool arrays then index into it (NumPy
    alone would order mixed basic/advanced dims differently)."""
    val = value._data.reshape(_stripped(value)) if isinstance(value, Tensor) else value
    basic, trivial, advanced = _split_index(self, index)
    if self._data.flags.writeable:
        _assign(self._data, basic, trivial, advanced, val)
        return
    # a view of an expanded array: PyTorch refuses a basic-index write to cells several
    # elements share, warns for index_put_, and writes through the base's memory
    region = self._data if trivial else self._data[basic + (Ellipsis,)]
    if advanced:
        _warn_if_expanded(Tensor._make(region), _array_index(Tensor._make(region), advanced)[0],
                          value if isinstance(value, Tensor) else Tensor._make(np.asarray(val)))
    elif internal_overlap(region):
        raise RuntimeError(OVERLAP_MSG)
    new, written = np.array(self._data), np.zeros(self.shape, dtype=bool)
    _assign(new, basic, trivial, advanced, val)
    _assign(written, basic, trivial, advanced, True)
    _write_through(self, new, written)


def _assign(arr: np.ndarray, basic, trivial, advanced, val) -> None:
    """``arr[index] = val`` with the index split by `_split_index`."""
    target = arr if trivial else arr[basic + (Ellipsis,)]  # (always a view)
    if advanced:
        target[_array_index(Tensor._make(target), advanced)[0]] = val
    else:
        target[...] = val


class _Ternary(Node):
    """Base of addcmul/addcdiv/lerp nodes: input shapes, to sum broadcast gradients back.
    Made from ``(inputs, number)``: the op's tensors and its ``value`` / ``weight`` number
    (None for a tensor weight), as `_fused` records them."""

    def __init__(self, inputs, number=None):
        Node.__init__(self)
        self._shapes = [t.shape if isinstance(t, Tensor) else () for t in inputs]

    def _grads(self, *grads):
        from ._util import sum_to

        return tuple(None if g is None or nf is None else sum_to(g, shape)
                     for g, (nf, _), shape in zip(grads, self.next_functions, self._shapes))


class AddcmulBackward0(_Ternary):
    """z = self + value * tensor1 * tensor2.  dz/dself = grad; dz/dtensor1 = grad * tensor2 *
    value; dz/dtensor2 = grad * tensor1 * value. Saves: tensor1 (when tensor2 needs grad),
    tensor2 (when tensor1 does), value."""

    def backward(self, g):
        v = self._saved["value"]
        n = [nf is not None for nf, _ in self.next_functions]
        return self._grads(g, g * mul_scalar(self._get("tensor2"), v) if n[1] else None,
                           g * mul_scalar(self._get("tensor1"), v) if n[2] else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, tensors, value):
        """dz = self_t + value * tensor1_t * tensor2 + value * tensor2_t * tensor1."""
        (_, t1, t2), (ts, ta, tb) = inputs, tangents
        return promoted(linked(tangent_sum(
            ts, None if ta is None else _maybe_multiply(ta * t2, value),
            None if tb is None else _maybe_multiply(tb * t1, value)),
            t2 if ta is None else None, t1 if tb is None else None),
            inputs[0] if ts is None else None)


class AddcdivBackward0(_Ternary):
    """z = self + value * tensor1 / tensor2.  dz/dself = grad; dz/dtensor1 = grad * value /
    tensor2; dz/dtensor2 = -grad * value * tensor1 / tensor2^2. Saves: tensor1 (when tensor2
    needs grad), tensor2, value."""

    def backward(self, g):
        v = self._saved["value"]
        n = [nf is not None for nf, _ in self.next_functions]
        t2 = self._get("tensor2") if n[1] or n[2] else None
        value = Tensor._make(np.asarray(v, g._data.dtype))  # (C++'s value / tensor2)
        return self._grads(g, g * P.div(value, t2) if n[1] else None,
                           -g * (mul_scalar(self._get("tensor1"), v) / (t2 * t2))
                           if n[2] else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, tensors, value):
        """dz = self_t + value * tensor1_t / tensor2
        - value * tensor2_t * (tensor1 / tensor2) / tensor2."""
        (_, t1, t2), (ts, ta, tb) = inputs, tangents
        return promoted(linked(tangent_sum(
            ts, None if ta is None else _maybe_multiply(ta / t2, value),
            None if tb is None else -_maybe_multiply(tb * (t1 / t2) / t2, value)),
            t2 if ta is None else None, *((t1, t2) if tb is None else ())),
            inputs[0] if ts is None else None)


class LerpBackward0(_Ternary):
    """z = self + weight * (end - self), scalar weight.  dz/dself = grad * (1 - weight);
    dz/dend = grad * weight. Saves: weight."""

    def backward(self, g):
        w = self._saved["weight"]
        return self._grads(g * (1 - w), g * w)

    @staticmethod
    def jvp(inputs, tangents, outputs, tensors, weight):
        """dz = lerp(self_t, end_t, weight)."""
        from .pointwise_binary import lerp  # (with its dtype checks, as PyTorch's at::lerp)

        ts, te = _zeros_for_missing(inputs, tangents)
        return lerp(ts, te, weight)


class LerpBackward1(_Ternary):
    """z = self + weight * (end - self), tensor weight.  dz/dself = grad * (1 - weight);
    dz/dend = grad * weight; dz/dweight = grad * (end - self). Saves: end and self (when
    weight needs grad), weight."""

    def backward(self, g):
        n = [nf is not None for nf, _ in self.next_functions]
        w = self._get("weight") if n[0] or n[1] else None
        one_minus = P.sub(Tensor._make(np.ones_like(w._data)), w) if n[0] else None  # (C++)
        return self._grads(g * one_minus if n[0] else None, g * w if n[1] else None,
                           g * (self._get("end") - self._get("self")) if n[2] else None)

    @staticmethod
    def jvp(inputs, tangents, outputs, tensors, number):
        """dz = lerp(self_t, end_t, weight) + weight_t * (end - self)."""
        (s, e, w), (ts, te, tw) = inputs, tangents
        from .pointwise_binary import lerp  # (with its dtype checks, as PyTorch's at::lerp)

        first = None
        if ts is not None or te is not None:
            first = lerp(*_zeros_for_missing(inputs[:2], tangents[:2]), w)
        return linked(tangent_sum(first, None if tw is None else tw * (e - s)),
                      w if first is None else None, *((s, e) if tw is None else ()))


def _maybe_multiply(t: Tensor, number) -> Tensor:
    """PyTorch's ``maybe_multiply``: ``t`` as is for a number 1, else ``t * number``."""
    return t if number == 1 else mul_scalar(t, number)


def _zeros_for_missing(inputs, tangents) -> list:
    """The tangents, zeros like its input where missing (PyTorch's efficient zeros)."""
    return [Tensor._make(np.zeros(x.shape, x._data.dtype)) if t is None else t
            for x, t in zip(inputs, tangents)]


def _fused(node_cls, compute, inputs, saved, number=None):
    """Run ``compute()`` without recording (nor tangents) and record one ``node_cls`` node
    for it (ops that PyTorch differentiates as a whole), made from ``(inputs, number)``
    (``number``: the op's value or number weight), saving what ``saved()`` gives (name ->
    value; called only when a node is recorded). The result is laid out as PyTorch's one
    TensorIterator over ``inputs`` lays it out (`laid_out`), not as the chain of ops in
    ``compute`` did."""
    fw_on, _graph.fw_on = _graph.fw_on, False
    try:
        with grad_mode.no_grad():
            out = compute()
    finally:
        _graph.fw_on = fw_on
    arr = out._data
    arrays = [t._data for t in inputs if isinstance(t, Tensor)]
    if not all(a.flags.c_contiguous for a in arrays):
        arr = laid_out(arr, *arrays)
    out = Tensor._make(arr)
    node = record(node_cls, out, inputs, inputs, number)
    if node is not None:
        for name, value in saved().items():
            node._save(name, value)
    return out


def _rg(*ts) -> bool:
    """Whether any of ``ts`` requires grad: PyTorch saves a tensor only for the gradients
    that will be computed (``None`` in its ``_saved_*`` attribute otherwise)."""
    return any(isinstance(t, Tensor) and t.requires_grad for t in ts)


def _in_float32(fn, *args) -> Tensor:
    """``fn(*args)`` with float16/bfloat16 tensors widened to float32 and the result rounded
    back once, as PyTorch's CPU kernels for ``addcmul``/``addcdiv``/``lerp`` compute (the
    composite of rounded ops differs in about a sixth of the elements)."""
    dt = args[0]._data.dtype
    if dt not in _HALF:
        return fn(*args)
    wide = [Tensor._make(a._data.astype(np.float32)) if isinstance(a, Tensor) and
            a._data.dtype in _HALF else a for a in args]
    return Tensor._make(fn(*wide)._data.astype(dt))


def _addcmul(self, t1, t2, value=1):
    return _fused(AddcmulBackward0, lambda: _in_float32(
        lambda s, a, b: P.add(s, P.mul(P.mul(a, b), value)), self, t1, t2),
                  (self, t1, t2), lambda: {"tensor1": t1 if _rg(t2) else None,
                                           "tensor2": t2 if _rg(t1) else None, "value": value},
                  value)


def _addcdiv(self, t1, t2, value=1):
    return _fused(AddcdivBackward0, lambda: _in_float32(
        lambda s, a, b: P.add(s, P.mul(P.div(a, b), value)), self, t1, t2),
                  (self, t1, t2), lambda: {"tensor1": t1 if _rg(t2) else None,
                                           "tensor2": t2, "value": value}, value)


def _lerp(self, end, weight):
    def compute():
        return _in_float32(lambda s, e, w: P.add(s, P.mul(P.sub(e, s), w)), self, end, weight)

    if isinstance(weight, Tensor):
        return _fused(LerpBackward1, compute, (self, end, weight),
                      lambda: {"end": end if _rg(weight) else None,
                               "self": self if _rg(weight) else None,
                               "weight": weight})
    return _fused(LerpBackward0, compute, (self, end), lambda: {"weight": weight}, weight)


attach(
    Tensor,
    add_=_inplace_of(P.add, "add_"), sub_=_inplace_of(P.sub, "sub_"),
    mul_=_inplace_of(P.mul, "mul_"), div_=_inplace_of(P.div, "div_"),
    pow_=_inplace_of(P.pow, "pow_"), clamp_=clamp_,
    clamp_min_=_inplace_of(P.clamp_min, "clamp_min_"), exp_=_inplace_of(P.exp, "exp_"),
    neg_=_inplace_of(P.neg, "neg_"), sqrt_=_inplace_of(P.sqrt, "sqrt_"),
    sigmoid_=_inplace_of(P.sigmoid, "sigmoid_"), tanh_=_inplace_of(P.tanh, "tanh_"),
    relu_=_inplace_of(A.relu, "relu_"), masked_fill_=masked_fill_,
    addcmul_=_inplace_of(_addcmul, "addcmul_"), addcdiv_=_inplace_of(_addcdiv, "addcdiv_"),
    lerp_=_inplace_of(_lerp, "lerp_"),
    zero_=zero_, fill_=fill_, copy_=copy_,
    __setitem__=setitem,
    __iadd__=_inplace_of(P.add, "add_"), __isub__=_inplace_of(P.sub, "sub_"),
    __imul__=_inplace_of(P.mul, "mul_"), __itruediv__=_inplace_of(P.div, "div_"),
)
