"""``Tensor``: a NumPy array plus the autograd metadata PyTorch keeps next to it.

Mirrors ``torch/_tensor.py`` and the autograd metadata of ``c10::TensorImpl``
(``torch/csrc/autograd/variable.h``): ``requires_grad``, ``grad``, ``grad_fn`` with
``output_nr``, a version counter shared by all views of one storage, ``_base`` for views,
``retains_grad`` and tensor hooks. Operator methods (``+``, ``@``, ``sum`` ...) are attached by the
op-family modules in ``minigrad/_ops/`` (one file per family).
"""

from __future__ import annotations

import copy
import warnings
import weakref

import numpy as np

from . import _defaults, _dtype
from .autograd import grad_mode, graph
from .autograd.graph import _EMPTY, AccumulateGrad, RemovableHandle, own_table

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
# float() of a tensor that requires grad: PyTorch warns once per process (TORCH_WARN_ONCE)
SCALAR_OF_REQUIRES_GRAD_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)
_SCALAR_WARNING_GIVEN = False

# dtype names as PyTorch's C++ core prints them in the .grad dtype error
_CPP_NAMES = {d.name: d._c_name for d in _dtype._ALL}
_SCALAR_NAMES = {d.name: d._scalar_name for d in _dtype._ALL}  # c10's ScalarType names


_META_SUFFIX = {
    "multi_output": " This view is the output of a function that returns multiple views. Such "
                    "functions do not allow the output views to be modified inplace. You should "
                    "replace the inplace operation by an out-of-place one.",
    "no_grad": " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
               "clarify your code by moving both the view and the inplace either both inside the "
               "no_grad block (if you don't want the inplace to be tracked) or both outside (if "
               "you want the inplace to be tracked).",
    "inference": " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
                 "clarify your code by moving both the view and the inplace either both inside the "
                 "inference_mode block (if you don't want the inplace to be tracked) or both "
                 "outside (if you want the inplace to be tracked).",
    "custom_function": " This view was created inside a custom Function (or because an input was "
                       "returned as-is) and the autograd logic to handle view+inplace would "
                       "override the custom backward associated with the custom Function, leading "
                       "to incorrect gradients. This behavior is forbidden. You can fix this by "
                       "cloning the output of the custom Function.",
}


def view_rebase_message(view: Tensor, indirect: bool) -> str:
    """PyTorch's error for an in-place change that would rewrite the history of a view that was
    not created in the normal way (``view._creation_meta``: made under no_grad or inference
    mode, one of several views returned by one op, or returned by a custom Function).
    ``indirect``: the base or another view was modified (noticed when the view is next used)."""
    fn, meta = view._grad_fn, view._creation_meta
    modified = "its base or another view of its base has been" if indirect else "is being"
    name = None if fn is None else fn.name().rsplit("Backward", 1)[0]
    if meta in ("no_grad", "inference") or fn is None:
        head = ("A view was created in" if fn is None else
                f"Output {view._output_nr} of {name} is a view of a view which was created in")
        if meta == "inference":
            msg = f"{head} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{head} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {view._output_nr} of {name} is a view and {modified} modified inplace."
    return msg + _META_SUFFIX[meta]


class _VersionCounter:
    """Counts in-place modifications of one storage; shared by a tensor and all its views."""

    value = 0  # (a class default: a fresh counter costs one empty instance)

    def bump(self) -> None:
        self.value += 1


class _MadeOnFirstUse:
    """``tensor._vc`` of a tensor that has no version counter yet: makes one (most op outputs
    are never viewed, saved or modified in place, so most never need one). A non-data
    descriptor: the counter it stores on the tensor shadows it from then on, and assigning
    ``t._vc`` (a view sharing its base's counter) just sets the tensor's own."""

    def __get__(self, t, owner=None):
        if t is None:
            return self
        vc = t._vc = _VersionCounter()
        return vc


class Size(tuple):
    """A tensor shape (``torch.Size``): a tuple that prints as ``minigrad.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"minigrad.Size({list(self)})"

    def numel(self) -> int:
        """Number of elements of a tensor of this shape."""
        return int(np.prod(self, dtype=np.int64))


def _leaf_only_message(requires_grad: bool) -> str:
    """PyTorch's ``requires_grad_leaf_error``: asking a non-leaf to stop requiring grad also
    says how to get a tensor that does not."""
    msg = "you can only change requires_grad flags of leaf variables."
    if requires_grad:
        return msg
    return (msg + " If you want to use a computed variable in a subgraph that doesn't require "
            "differentiation use var_no_grad = var.detach().")


def _typename(obj) -> str:
    """A type's name as PyTorch's messages print it: ``list``, but ``numpy.ndarray``."""
    t = type(obj)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def contiguous_strides(shape) -> list:
    """Row-major strides in elements (a size of 0 counted as 1, as PyTorch does)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return strides[::-1]


def empty_strided(shape, strides, dtype) -> np.ndarray:
    """An uninitialised array with ``strides`` in elements (``torch.empty_strided``); the
    strides must be dense (or the array empty): the buffer holds exactly its elements."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    return np.lib.stride_tricks.as_strided(np.empty(size, dtype), tuple(shape),
                                           [st * dtype.itemsize for st in strides])


def _empty_layout(arr: np.ndarray, keep: bool = False) -> np.ndarray:
    """An empty array as PyTorch lays it out. NumPy gives every new empty array strides 0;
    PyTorch gives a new empty tensor contiguous strides, which ``.grad``'s layout contract
    compares: a gradient of an empty leaf is copied (``_version`` 1) when the strides differ.
    With ``keep`` (a view, ``torch.tensor`` of an ndarray) the array's own strides stay. The
    result views a fresh buffer through ``as_strided``; that marks it as laid out, so wrapping
    it again (``detach``, a stolen gradient) keeps its strides, and it is writable (an empty
    expanded view has no element two could share)."""
    if keep:
        strides = [st // arr.itemsize for st in arr.strides]
    elif arr.base is not None and not isinstance(arr.base, np.ndarray):
        return arr  # (laid out already: as_strided's base is not an ndarray)
    else:
        strides = contiguous_strides(arr.shape)
    return empty_strided(arr.shape, strides, arr.dtype)


# ``x.data = t`` between an inference tensor and a normal one: PyTorch 2.13 gives ``x`` the kind
# of ``t`` but keeps ``x``'s own version counter, a mix its later ops treat inconsistently
# (``requires_grad`` lost, "Inference tensors do not track version counter" from views and
# products). minigrad refuses it instead of copying that state (docs/concepts/versions.md).
DATA_INFERENCE_MSG = (
    "minigrad refuses `.data =` between an inference tensor and a normal one (PyTorch accepts it "
    "but leaves a tensor whose kind and version counter disagree). Give both the same kind "
    "first: outside inference_mode, `t.clone()` of an inference tensor is a normal one.")


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    Construct with `minigrad.tensor` or the factory functions. ``data`` lives in a NumPy
    array (of the default dtype, float32 unless changed). See ``torch.Tensor`` for the meaning
    of every attribute; the ones here behave the same, including the warnings and errors.
    """

    __array_priority__ = 1000  # make ``ndarray * Tensor`` call Tensor.__rmul__

    def __init__(self, data=None, *, requires_grad: bool = False):
        arr = np.asarray(data if data is not None else [], dtype=_defaults.FLOAT)
        self._init(arr)
        if requires_grad:
            self.requires_grad_(True)

    # Autograd metadata defaults, as class attributes: a new tensor stores only its array and
    # version counter, and an op sets just what differs (making tensors is the engine's
    # hottest path). Assigning an attribute gives the instance its own value.
    _requires_grad = False
    _grad = None
    _grad_fn = None
    _output_nr = 0
    _base = None
    _acc_ref = None  # weakref to this leaf's AccumulateGrad, reused while alive
    _backward_hooks = _EMPTY  # register_hook's table (own_table makes the tensor's own)
    _post_accumulate_grad_hooks = _EMPTY
    _hooked = False  # register_hook was called (PyTorch: ``_backward_hooks`` is not None)
    _retains_grad = False
    # views only: how the view was made, as PyTorch's CreationMeta: None (normal),
    # "no_grad", "inference", "multi_output" (split/unbind), "custom_function"
    _creation_meta = None
    # views: requires_grad comes from the base (no flag of its own, so no AccumulateGrad)
    _via_base = False
    _view_version = 0  # views: storage version when grad_fn was last set
    _inference = False  # created in inference mode
    _own_vc = False  # an inference tensor with a version counter (see detach)
    _wrapped_number = False  # a Python scalar operand wrapped as a 0-dim tensor
    _fw_grad = None  # the tangent inside a forward-AD level (autograd/forward_ad.py)
    _fw_view = True  # a view's tangent is a view of its base's (not make_dual's/unpack_dual's)
    _vc = _MadeOnFirstUse()  # the version counter, shared with views: made when first needed

    def _init(self, arr: np.ndarray) -> None:
        self._data = arr
        self._vc = _VersionCounter()
        if grad_mode.inference_active():
            self._inference = True

    @staticmethod
    def _make(arr: np.ndarray, requires_grad: bool = False) -> Tensor:
        """Wrap an ndarray without copying (internal constructor used by every op). A NumPy
        scalar (what NumPy returns for 0-dim operands) becomes a 0-dim array, so in-place
        writes and views work on 0-dim results too. Always a plain Tensor (a staticmethod: a
        classmethod call makes a bound method object every time)."""
        if not isinstance(arr, np.ndarray):
            arr = np.asarray(arr)
        if not arr.size:
            arr = _empty_layout(arr)
        t = Tensor.__new__(Tensor)  # (Tensor._init, inlined: this runs for every op's output)
        t._data = arr
        t._base = None  # (the class default, stored: ops read their inputs' _base, and a read
        # that falls back to the class costs ~200 instructions more than an instance's own)
        if grad_mode._inference_blocks and grad_mode._tls.inference:  # (inference_active(),
            t._inference = True  # inlined: every op makes tensors)
        if requires_grad:
            t._requires_grad = True
        return t

    def _make_view(self, arr: np.ndarray) -> Tensor:
        """A new tensor viewing ``arr`` (which shares memory with self): shares the counter.

        The view's creation mode is recorded (``_creation_meta``); a view of a view keeps the
        special mode of its base unless it is made in a special mode itself."""
        t = Tensor._make(arr)
        if not arr.size:  # (the strides NumPy derived from the base's)
            t._data = _empty_layout(arr, keep=True)
        t._base = self._base if self._base is not None else self
        t._vc = vc = self._vc
        t._view_version = vc.value
        t._inference = self._inference  # views of normal tensors stay normal tensors
        # (inference_active() and is_grad_enabled(), inlined: views are made in every
        # linear layer's forward and backward)
        if grad_mode._inference_blocks and grad_mode._tls.inference and not self._inference:
            t._creation_meta = "inference"
        elif not grad_mode._tls.grad_enabled:
            t._creation_meta = "no_grad"
        else:
            t._creation_meta = self._creation_meta
        # A view without grad_fn (made under no_grad, or of a base that did not require grad)
        # requires grad while its base does (PyTorch's DifferentiableViewMeta), re-read at each
        # use by _sync_view, but it is a leaf without a gradient accumulator: a graph built on
        # it stops there. An op recorded on the view gives it a grad_fn instead.
        t._via_base = True
        if t._base._requires_grad:
            t._requires_grad = True
        return t

    @property
    def _view_meta(self):
        """For views returned by a multi-output op (split/unbind): that op's name, else None."""
        if self._creation_meta == "multi_output" and self._grad_fn is not None:
            return self._grad_fn.name().rsplit("Backward", 1)[0]
        return None

    @_view_meta.setter
    def _view_meta(self, value) -> None:
        if value is not None and grad_mode.is_grad_enabled():  # (under no_grad / inference
            self._creation_meta = "multi_output"  # mode that mode is what the view records)

    def _set_history(self, node, output_nr: int = 0) -> None:
        """Make ``node`` this tensor's ``grad_fn`` (history rewritten by an in-place op).

        As PyTorch's ``update_tensor_hooks_on_new_gradfn``: ``retain_grad`` moves to the new node
        (``.grad`` is the gradient of the *current* value); hooks registered earlier stay on the
        old node; hooks registered from now on go to the new one."""
        old = self._grad_fn
        if self._retains_grad and old is not None and old is not node:
            old._own("_retains_grad").pop(self._output_nr, None)
            node._own("_retains_grad")[output_nr] = weakref.ref(self)
        if old is not node and "_backward_hooks" in self.__dict__:  # (the old node keeps the
            del self._backward_hooks  # old table; the next hook starts a table on the new one)
            self._hooked = False
        self._grad_fn, self._requires_grad, self._output_nr = node, True, output_nr

    def _sync_view(self, check: bool = True) -> None:
        """Views only: if the shared storage was modified in place since this view's
        ``grad_fn`` was set and the base is part of a graph, the view's history is regenerated
        as ``AsStridedBackward0(base.grad_fn)`` (as PyTorch does lazily on access).

        For a view made in a special way (``_creation_meta``: no_grad, inference, multi-output,
        custom Function) that cannot be done: RuntimeError, as PyTorch raises on ``grad_fn``
        access (``check=False`` skips it, as reading ``requires_grad`` does not raise).
        First, a view without grad_fn re-reads ``requires_grad`` from its base."""
        if self._grad_fn is None and self._via_base:
            self._requires_grad = self._base._requires_grad
        if self._vc.value == self._view_version:
            return
        base = self._base
        if self._grad_fn is None and not base._requires_grad:
            return
        if self._creation_meta is not None:
            if check:
                raise RuntimeError(view_rebase_message(self, indirect=True))
            return
        self._view_version = self._vc.value
        from ._ops.inplace import AsStridedBackward0

        self._set_history(AsStridedBackward0(base, self))

    # ---------------------------------------------------------------- basic properties
    @property
    def shape(self) -> Size:
        """The shape, a `Size` (tuple of ints)."""
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """The shape, or the length of one dimension (negative dims count from the end)."""
        if dim is None:
            return self.shape
        from ._ops._util import normalize_dim

        return self._data.shape[normalize_dim(dim, self.ndim)]

    @property
    def dtype(self) -> _dtype.dtype:
        """Element type (``minigrad.float32`` by default)."""
        return _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return self._data.ndim

    def dim(self) -> int:
        """Number of dimensions (``Tensor.dim``)."""
        return self._data.ndim

    def numel(self) -> int:
        """Number of elements."""
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        """Bytes per element of this tensor's dtype (``Tensor.element_size``): 4 for float32,
        8 for float64/int64, 1 for bool."""
        return int(self._data.itemsize)

    @property
    def itemsize(self) -> int:
        """Bytes per element, the same as `element_size` (``Tensor.itemsize``)."""
        return int(self._data.itemsize)

    @property
    def nbytes(self) -> int:
        """``numel() * itemsize`` (``Tensor.nbytes``): the bytes this tensor's elements would
        take, not the size of its storage, so a view or an ``expand`` counts only its own
        elements (an expanded tensor counts repeated elements again)."""
        return int(self._data.size) * int(self._data.itemsize)

    @property
    def device(self):
        """Always ``device(type='cpu')`` (a `minigrad.device`): minigrad computes with NumPy."""
        from ._device import CPU

        return CPU

    def get_device(self) -> int:
        """-1, the index PyTorch gives a CPU tensor (``Tensor.get_device``)."""
        return -1

    @property
    def is_cuda(self) -> bool:
        """Always False (NumPy only)."""
        return False

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def type(self, dtype=None, non_blocking: bool = False, **kwargs):
        """The legacy type name, or a conversion (``torch.Tensor.type``).

        ``t.type()`` is ``'minigrad.FloatTensor'``, ``'minigrad.HalfTensor'``, ... : PyTorch's
        ``'torch.FloatTensor'`` with minigrad's prefix, as dtypes print ``minigrad.float32``.
        ``t.type(dtype)`` converts as ``t.to(dtype)`` (self when already of it); ``dtype`` may
        be a dtype or a legacy name (``'minigrad.DoubleTensor'`` or ``'torch.DoubleTensor'``).

        Raises:
            ValueError: an unknown type name (``"invalid type: 'torch.Foo'"``).
            TypeError: ``dtype`` is neither a type name nor a dtype.
        """
        if dtype is None:
            return f"minigrad.{self.dtype._legacy}"
        if isinstance(dtype, str):
            prefix, _, legacy = dtype.rpartition(".")
            found = [d for d in _dtype._ALL if d._legacy == legacy]
            if prefix not in ("torch", "minigrad") or not found:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = found[0]
        elif not isinstance(dtype, (_dtype.dtype, type)) and not str(dtype).startswith("torch."):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self.to(dtype)

    def is_signed(self) -> bool:
        """True for a signed dtype: a floating one or int8/16/32/64
        (``torch.Tensor.is_signed``)."""
        return self.dtype.is_signed

    def is_floating_point(self) -> bool:
        """True for float dtypes."""
        return self.dtype.is_floating_point

    def is_contiguous(self) -> bool:
        """True when the array is C-contiguous."""
        return bool(self._data.flags.c_contiguous)

    def _is_view(self) -> bool:
        """True when this tensor is a view of another (it has a ``_base``)."""
        return self._base is not None

    def stride(self, dim: int | None = None):
        """Strides in elements (not bytes)."""
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[dim]

    # ---------------------------------------------------------------- autograd metadata
    @property
    def requires_grad(self) -> bool:
        """Whether ops on this tensor are recorded for backward."""
        if self._grad_fn is None and self._via_base:  # (a view may follow its base; the
            # read regenerates no history, as PyTorch's requires_grad(): see retain_grad)
            self._requires_grad = self._base._requires_grad
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        # (PyTorch's THPVariable_set_requires_grad: stricter than requires_grad_())
        if not isinstance(value, bool):
            raise RuntimeError("requires_grad must be a bool")
        if self._grad_fn is not None:  # (the raw field, as PyTorch's C++ is_leaf; even True:
            # requires_grad_(True) is a no-op there)
            raise RuntimeError(_leaf_only_message(value))
        if value and not self.dtype.is_floating_point:
            # the attribute setter words this error differently from requires_grad_()
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self.requires_grad_(value)

    @requires_grad.deleter
    def requires_grad(self) -> None:
        raise RuntimeError("requires_grad must be a bool")

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place (leaves only); returns self.

        Raises RuntimeError for a non-leaf, or for a non-float dtype asked to require grad.
        """
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(_leaf_only_message(False))
            return self
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._inference and not grad_mode._tls.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        if self._base is not None:  # a leaf view: its own flag, or its base's
            self._via_base = not requires_grad
            self._sync_view(check=False)
        return self

    @property
    def grad_fn(self):
        """The backward node that produced this tensor, or None for leaves."""
        if self._base is not None:
            self._sync_view()
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded op (user-created or under no_grad)."""
        if self._base is not None:
            self._sync_view()
        return self._grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of ``grad_fn`` this tensor is."""
        return self._output_nr

    @property
    def _version(self) -> int:
        """Number of in-place modifications of this tensor's storage (shared with views).

        RuntimeError for an inference tensor (it has no version counter)."""
        if self._inference and not self._own_vc:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc.value

    def is_inference(self) -> bool:
        """True for a tensor created inside ``inference_mode()`` (``Tensor.is_inference``)."""
        return self._inference

    @property
    def grad(self):
        """Accumulated gradient (leaves, or non-leaves after ``retain_grad()``); else None.

        Reading it on a non-leaf that does not retain grad warns (UserWarning) as PyTorch does.
        """
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
                    f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor "
                    "are the same size"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_CPP_NAMES[value.dtype.name]}'"
                    f" to a tensor with grad_dtype '{_SCALAR_NAMES[self.dtype.name]}'. The "
                    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype)."
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None  # (``del t.grad`` is ``t.grad = None``, as in PyTorch)

    @property
    def data(self) -> Tensor:
        """A new tensor sharing this storage, detached, with its **own** version counter.

        As in PyTorch, in-place changes through ``.data`` are invisible to autograd's checks.
        Assigning ``t.data = other`` replaces the storage.
        """
        return Tensor._make(self._data)

    @data.setter
    def data(self, value) -> None:
        # (PyTorch's VariableHooks::set_data: checks first, so a refused value changes nothing)
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_typename(value)}")
        if self.requires_grad and not value.dtype.is_floating_point:
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        if value._inference != self._inference:  # a deliberate difference (docs: versions.md)
            raise RuntimeError(DATA_INFERENCE_MSG)
        if value._data.dtype != self._data.dtype:  # the gradient accumulator is for the old
            self._acc_ref = None  # dtype: a new one is made on next use, as in PyTorch
        self._data = value._data  # (the version counter stays this tensor's own)

    @data.deleter
    def data(self) -> None:
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    def _grad_accumulator(self) -> AccumulateGrad:
        """This leaf's AccumulateGrad node: the same object while any graph holds it."""
        node = self._acc_ref() if self._acc_ref is not None else None
        if node is None:
            node = AccumulateGrad(self)
            self._acc_ref = weakref.ref(node)
        return node

    def retain_grad(self) -> None:
        """Make a non-leaf keep its ``.grad`` after backward (no-op on leaves).

        Raises RuntimeError if the tensor does not require grad.
        """
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        # (as PyTorch: a leaf by the raw field, then the history read, which can raise for a
        # view and then changes nothing, then the flag; a view made before its base required
        # grad, whose history nothing has read since, is a leaf there: a no-op)
        if self._grad_fn is None or self._retains_grad:
            return
        node = self.grad_fn
        self._retains_grad = True
        node._own("_retains_grad")[self._output_nr] = weakref.ref(self)

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf after ``retain_grad()``."""
        return self._retains_grad

    def _accumulate_retained(self, g: Tensor) -> None:
        if self._grad is None:  # a copy (a CloneBackward0 of it under create_graph)
            self._grad = g.clone() if grad_mode.is_grad_enabled() else g._detached_copy(self.dtype)
        else:
            self._grad = self._grad + g

    def register_hook(self, hook) -> RemovableHandle:
        """Register ``hook(grad) -> Tensor | None`` to run when this tensor's gradient is computed.

        A returned tensor replaces the gradient for everything downstream (and for ``.grad``).
        Raises RuntimeError on a tensor that does not require grad.
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if not self._hooked:  # PyTorch reads ``grad_fn`` at the first registration only (it
            self._hooked = True  # makes the hook dict first): a stale special view raises once
            if self._base is not None:
                self._sync_view()
        new_table = "_backward_hooks" not in self.__dict__
        hooks = own_table(self, "_backward_hooks")
        if new_table and self._grad_fn is not None:
            # as PyTorch: the node gets one entry per hooked output tensor, which calls all of
            # that tensor's hooks; entries in the order the tensors were first hooked
            table = self._grad_fn._own("_tensor_pre_hooks")
            table[len(table)] = (self._output_nr, hooks)
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
        """Register ``hook(tensor)`` to run after ``.grad`` was accumulated (leaves only)."""
        if self.grad_fn is not None:  # (the property, as PyTorch's: a view's history is read)
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        hooks = own_table(self, "_post_accumulate_grad_hooks")
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (``torch.Tensor.backward``).

        ``gradient`` is required unless self has one element. ``retain_graph`` defaults to
        ``create_graph``; without it saved tensors are freed. Errors as in PyTorch.
        """
        from .autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ---------------------------------------------------------------- conversions
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The underlying array (shared memory). Raises RuntimeError if it requires grad while
        grad mode is on (under ``no_grad()`` it is allowed, as in PyTorch)."""
        if not force and self.requires_grad and grad_mode.is_grad_enabled():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data

    def item(self):
        """The single value as a Python number; RuntimeError if more than one element."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        """Nested Python lists of the values."""
        return self._data.tolist()

    def data_ptr(self) -> int:
        """Address of the first element, as ``torch.Tensor.data_ptr``: a view (or ``.data`` /
        ``detach()``) shares its base's memory, so equal pointers mean shared storage and
        ``view.data_ptr() - base.data_ptr()`` is the view's offset in bytes. 0 for a tensor
        with no elements."""
        return 0 if self._data.size == 0 else self._data.__array_interface__["data"][0]

    def __float__(self):
        """``float(t)``. Like PyTorch, the first call in a process on a tensor that requires
        grad (with grad mode on) warns once that the result is cut off from the graph;
        ``item()`` and ``int()`` do not warn. Python's ``complex(t)`` comes here too."""
        global _SCALAR_WARNING_GIVEN
        if self.requires_grad and grad_mode.is_grad_enabled() and not _SCALAR_WARNING_GIVEN:
            _SCALAR_WARNING_GIVEN = True
            warnings.warn(SCALAR_OF_REQUIRES_GRAD_WARNING, UserWarning, stacklevel=2)
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def detach(self) -> Tensor:
        """A new leaf sharing storage **and** the version counter, with requires_grad False."""
        t = Tensor._make(self._data)
        t._vc = self._vc
        if t._inference and not self._inference:  # (inside inference_mode, the detached
            t._inference = False  # tensor of a normal one stays normal, as a view of it does)
        elif self._inference and not t._inference:
            # outside inference_mode, the detached tensor of an inference tensor is one too,
            # but with a version counter of its own (new, at 0), as PyTorch's: in-place ops on
            # it work and count there (not on its views, which have none)
            t._inference, t._own_vc, t._vc = True, True, _VersionCounter()
        return t

    def detach_(self) -> Tensor:
        """Detach in place: drop ``grad_fn`` and ``requires_grad``; returns self.

        RuntimeError on a view (use ``detach()``), as PyTorch."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in minigrad/optim/optimizer.py as the solution.")
        graph.detached_in_place = True  # (saved tensors now check for it: SavedTensor._detached)
        self._grad_fn = None
        self._requires_grad = False
        self._fw_grad = None  # (its forward-AD tangent goes too, as PyTorch's)
        return self

    def _detached_copy(self, dtype=None) -> Tensor:
        """Fresh tensor with its own copy of the data (used to store gradients)."""
        arr = self._data
        if dtype is not None and arr.dtype != dtype.np:
            return Tensor._make(arr.astype(dtype.np))
        return Tensor._make(np.array(arr, copy=True))

    def cpu(self, memory_format=None) -> Tensor:
        """Returns self (everything is on the CPU), as PyTorch's for a CPU tensor."""
        return self

    def cuda(self, device=None, non_blocking: bool = False, memory_format=None) -> Tensor:
        """Raises what a CPU-only PyTorch raises: AssertionError "Torch not compiled with CUDA
        enabled" (RuntimeError for an integer ``device``); minigrad computes with NumPy."""
        from ._device import NO_ACCELERATOR, NO_CUDA, check_device

        if device is not None and not isinstance(device, int):
            check_device(device)  # (a cpu device is refused below all the same)
        raise RuntimeError(NO_ACCELERATOR) if isinstance(device, int) else AssertionError(NO_CUDA)

    def __repr__(self) -> str:
        return _format(self)

    def __format__(self, format_spec: str) -> str:
        """``format(t, spec)`` / f-strings: a 0-dim tensor formats as its Python number (so
        ``f"{loss:.4f}"`` works), any other as ``repr``, as ``torch.Tensor.__format__``."""
        if self.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __deepcopy__(self, memo):
        """A new leaf with a copy of the data, ``requires_grad`` and ``.grad`` and deep copies of
        the user's own attributes — but none of the autograd state (``Tensor.__deepcopy__``):
        no hooks, and its own gradient accumulator (sharing the original's would send the
        copy's gradients into the original, e.g. after ``copy.deepcopy(model)`` while a graph
        of the model is alive)."""
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.")
        if id(self) in memo:
            return memo[id(self)]
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        new._init(_deepcopy_storage(self._data, memo))
        new._vc.value = 1  # (PyTorch sets the copied storage into a new tensor: a change)
        new._requires_grad = self._requires_grad
        if self._grad is not None:
            new._grad = copy.deepcopy(self._grad, memo)
        for k, v in self.__dict__.items():
            if k not in _AUTOGRAD_STATE and k not in new.__dict__:
                new.__dict__[k] = copy.deepcopy(v, memo)
        return new

    def __reduce_ex__(self, protocol):
        """Pickling (``Tensor.__reduce_ex__``): a copy of the values, ``requires_grad`` and the
        user's own attributes; not ``.grad``, the history or hooks (a UserWarning for each hook
        not marked ``unserializable_hook``). Unpickled: a leaf at ``_version`` 1, as PyTorch."""
        from .utils.hooks import warn_if_has_hooks

        warn_if_has_hooks(self)
        state = {k: v for k, v in self.__dict__.items() if k not in _AUTOGRAD_STATE}
        return _rebuild_tensor, (type(self), np.array(self._data), self.requires_grad, state)


def _rebuild_tensor(cls, arr: np.ndarray, requires_grad: bool, state: dict) -> Tensor:
    """Unpickle a tensor (``torch._utils._rebuild_tensor_v2``)."""
    t = cls.__new__(cls)
    t._init(arr)
    t._vc.value = 1
    t._requires_grad = requires_grad
    t.__dict__.update(state)
    return t


def _deepcopy_storage(arr: np.ndarray, memo: dict) -> np.ndarray:
    """A copy of ``arr`` for ``copy.deepcopy``: arrays on the same memory (a tensor and its
    views) copied in one ``deepcopy`` call share the copied memory, as PyTorch's storages do."""
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not arr.size or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return arr.copy()
    new_root = memo.get(id(root))
    if new_root is None:  # (keyed by the root array, which the tensor keeps alive meanwhile)
        new_root = memo[id(root)] = root.copy(order="K")
        copy._keep_alive(root, memo)  # (as deepcopy does for what it memoises)
    if root is arr:
        return new_root
    offset = arr.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(arr.shape, arr.dtype, buffer=new_root, offset=offset, strides=arr.strides)


# what a Tensor stores about autograd (the class defaults above, set per instance when they
# differ): __deepcopy__ leaves it behind, as PyTorch's keeps only the Python attributes
_AUTOGRAD_STATE = frozenset(
    k for k, v in vars(Tensor).items() if k.startswith("_") and not k.startswith("__")
    and not callable(v) and not isinstance(v, property)) | {"_data", "_vc"}


# ---------------------------------------------------------------- repr (torch/_tensor_str.py)
_PRECISION, _LINEWIDTH, _THRESHOLD, _EDGEITEMS = 4, 80, 1000, 3  # torch's print options


class _Formatter:
    """Chooses one number format (int-like / fixed / scientific) and width for all elements."""

    def __init__(self, arr: np.ndarray):
        self.floating = _dtype.is_float_np(arr.dtype)
        self.int_mode, self.sci_mode, self.width = True, False, 1
        flat = arr.reshape(-1)
        if not self.floating:
            self.width = max([len(str(v)) for v in flat.tolist()] + [1])
            return
        vals = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if vals.size == 0:
            return
        lo, hi = np.abs(vals).min(), np.abs(vals).max()
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
            fmt = "{:.4e}" if self.sci_mode else "{:.0f}."
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
            fmt = "{:.4e}" if self.sci_mode else "{:.4f}"
        self.width = max(len(fmt.format(v)) for v in vals.tolist())

    def format(self, value) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.{_PRECISION}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if np.isinf(value) or np.isnan(value) else ".")
        else:
            text = f"{value:.{_PRECISION}f}"
        return " " * (self.width - len(text)) + text


def _summarized(arr: np.ndarray) -> np.ndarray:
    """Only the first and last ``_EDGEITEMS`` entries along every dim (what gets printed)."""
    e = _EDGEITEMS
    for d in range(arr.ndim):
        if arr.shape[d] > 2 * e:
            idx = list(range(e)) + list(range(arr.shape[d] - e, arr.shape[d]))
            arr = np.take(arr, idx, axis=d)
    return arr


def _body(arr: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    e = _EDGEITEMS
    if arr.ndim == 0:
        return fmt.format(arr.item())
    if arr.ndim == 1:
        vals = arr.tolist()
        if summarize and len(vals) > 2 * e:
            items = [fmt.format(v) for v in vals[:e]] + [" ..."] + [fmt.format(v)
                                                                  for v in vals[-e:]]
        else:
            items = [fmt.format(v) for v in vals]
        per_line = max(1, (_LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(arr.shape[0])
    if summarize and arr.shape[0] > 2 * e:
        rows = list(range(e)) + [None] + list(range(arr.shape[0] - e, arr.shape[0]))
    parts = ["..." if i is None else _body(arr[i], indent + 1, summarize, fmt) for i in rows]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _format(t: Tensor) -> str:
    """``repr(t)`` laid out exactly as PyTorch's ``torch/_tensor_str.py`` does (CPU tensors):
    shared number format, 80-column wrapping, summarising above 1000 elements, then the
    ``dtype=``, ``grad_fn=<...>`` / ``requires_grad=True`` suffixes."""
    arr = t._data
    if arr.dtype == np.float16 or arr.dtype == _dtype.BF16_NP:  # (printed as float32s)
        arr = arr.astype(np.float32)
    prefix = "tensor("
    suffixes = []
    if arr.size == 0:
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
        if t._data.dtype != _defaults.FLOAT:
            suffixes.append(f"dtype={t.dtype!r}")
        body = "[]"
    else:
        if t._data.dtype not in (_defaults.FLOAT, np.int64, np.bool_):
            suffixes.append(f"dtype={t.dtype!r}")
        summarize = arr.size > _THRESHOLD
        fmt = _Formatter(_summarized(arr) if summarize else arr)
        body = _body(arr, len(prefix), summarize, fmt)
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t._grad_fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    if (graph.fw_on or t._fw_grad is not None) and not grad_mode.is_inference_mode_enabled():
        from .autograd.forward_ad import fw_grad

        tangent = fw_grad(t)
        if tangent is not None:
            suffixes.append(f"tangent={tangent}")
    out = [prefix + body]
    last_len = len(out[0]) - out[0].rfind("\n") + 1
    for sfx in suffixes:
        if last_len + len(sfx) + 2 > _LINEWIDTH:
            out.append(",\n" + " " * len(prefix) + sfx)
            last_len = len(prefix) + len(sfx)
        else:
            out.append(", " + sfx)
            last_len += len(sfx) + 2
    return "".join(out) + ")"
