"""Shape and view ops: ``view reshape transpose permute t unsqueeze squeeze expand flatten
contiguous clone``, ``split chunk unbind narrow repeat``, ``cat stack``, dtype conversion.

Mirrors the view entries of ``tools/autograd/derivatives.yaml`` and ``aten/src/ATen/native/
TensorShape.cpp``. A *view* shares memory and the version counter with its base (``_base``);
NumPy views give the memory sharing for free. ``reshape`` is a view when the memory layout
allows it (``ViewBackward0``) and a copy otherwise (``UnsafeViewBackward0(CloneBackward0)``),
exactly as in PyTorch.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as _dt
from .._memory_format import contiguous_format, preserve_format
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd import graph as _graph
from ..autograd.graph import Node, record
from ._util import (
    attach,
    copy_preserving,
    internal_overlap,
    normalize_dim,
    normalize_dims,
    quietly,
    result_dtype,
    saved_dims,
    saved_int,
    sum_to,
)


def _sizes(args) -> tuple:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


def _infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one ``-1`` in ``shape``; RuntimeError when the sizes do not fit."""
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _try_view(arr: np.ndarray, shape: tuple):
    """A NumPy view of ``arr`` with ``shape``, or None when that needs a copy."""
    try:
        return arr.reshape(shape, copy=False)
    except ValueError:  # the layout needs a copy
        return None
    except TypeError:  # NumPy < 2.1 has no copy=; assigning .shape is deprecated in 2.5+
        v = arr.view()
        try:
            v.shape = shape
        except AttributeError:
            return None
        return v


def _view_of(base: Tensor, arr: np.ndarray, node_cls, *args) -> Tensor:
    out = base._make_view(arr)
    if grad_mode._tls.grad_enabled or _graph.fw_on:  # (else record() does nothing: views in
        record(node_cls, out, (base,), *args)  # derivative formulas skip the call)
    return out


# ----------------------------------------------------------------------------- view nodes
class ViewBackward0(Node):
    """z = self.view(shape).  dz/dself = grad.reshape(self_sym_sizes). Saves: self_sym_sizes."""

    def __init__(self, sizes):
        Node.__init__(self)
        self._save("self_sym_sizes", tuple(sizes))

    def backward(self, g):
        return (g.reshape(self._saved["self_sym_sizes"]),)


class UnsafeViewBackward0(ViewBackward0):
    """z = _unsafe_view(self, shape) (reshape of a fresh copy).  dz/dself = grad.reshape(sizes).
    Saves: self_sym_sizes."""

    @staticmethod
    def jvp(inputs, tangents, outputs, shape):
        """dz = _unsafe_view(self_t, size) (auto_linear: not a view op, its output is no view)."""
        return _unsafe_view(tangents[0], outputs[0].shape)


class ReshapeAliasBackward0(ViewBackward0):
    """z = _reshape_alias(self, shape, strides): ``reshape`` of a non-contiguous tensor whose
    layout still allows a view.  dz/dself = grad.reshape(self_sym_sizes). Saves: self_sym_sizes.
    """


class CloneBackward0(Node):
    """z = self.clone().  dz/dself = grad. Saves nothing."""

    def backward(self, g):
        return (g,)

    @staticmethod
    def jvp(inputs, tangents, outputs, *args):
        """dz = self_t.clone() (auto_linear)."""
        return clone(tangents[0])


class AliasBackward0(CloneBackward0):
    """z = alias of self (``x[...]``).  dz/dself = grad. Saves nothing."""


class ToCopyBackward0(Node):
    """z = self.to(dtype).  dz/dself = grad converted back to self's dtype. Saves nothing."""

    def __init__(self, dtype):
        Node.__init__(self)
        self._dtype = dtype

    def backward(self, g):
        return (to_dtype(g, self._dtype),)

    @staticmethod
    def jvp(inputs, tangents, outputs, *args):
        """dz = _to_copy(self_t, dtype): the tangent converted to the result's dtype."""
        return to_dtype(tangents[0], outputs[0].dtype, copy=True)


class TransposeBackward0(Node):
    """z = self.transpose(dim0, dim1).  dz/dself = grad.transpose(dim0, dim1).
    Saves: dim0, dim1 (as given, see ``saved_int``)."""

    def __init__(self, dim0, dim1, d0, d1):
        Node.__init__(self)
        self._save("dim0", saved_int(dim0))
        self._save("dim1", saved_int(dim1))
        self._d = (d0, d1)

    def backward(self, g):
        return (g.transpose(*self._d),)


class TBackward0(Node):
    """z = self.t() (2-D transpose).  dz/dself = grad.t(). Saves nothing."""

    def backward(self, g):
        return (g.t(),)


class PermuteBackward0(Node):
    """z = self.permute(dims).  dz/dself = grad.permute(inverse(dims)). Saves: dims (as
    given)."""

    def __init__(self, dims, nd):
        Node.__init__(self)
        self._save("dims", saved_dims(dims))
        self._inverse = tuple(np.argsort(nd).tolist())

    def backward(self, g):
        return (g.permute(*self._inverse),)


class UnsqueezeBackward0(Node):
    """z = self.unsqueeze(dim).  dz/dself = grad.squeeze(dim). Saves: dim (as given)."""

    def __init__(self, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._d = d

    def backward(self, g):
        return (g.squeeze(self._d),)


def unsqueeze_to(g: Tensor, sizes: tuple, dims=None) -> Tensor:
    """``grad`` with the size-1 dims of ``sizes`` (only those in ``dims``, if given) put back
    by ``unsqueeze``, as PyTorch's ``unsqueeze_to``: when there are none, ``grad`` *itself* is
    returned (no new tensor: a leaf's ``.grad`` then copies it, ``_version`` 1)."""
    for i, n in enumerate(sizes):
        if n == 1 and (dims is None or i in dims):
            g = g.unsqueeze(i)
    return g


class SqueezeBackward0(Node):
    """z = self.squeeze().  dz/dself = unsqueeze_to(grad, self_sym_sizes).
    Saves: self_sym_sizes."""

    def __init__(self, sizes):
        Node.__init__(self)
        self._save("self_sym_sizes", tuple(sizes))

    def backward(self, g):
        return (unsqueeze_to(g, self._saved["self_sym_sizes"]),)


class SqueezeBackward1(Node):
    """z = self.squeeze(dim).  dz/dself = unsqueeze_to(grad, dim, self_sym_sizes).
    Saves: dim (as given), self_sym_sizes."""

    def __init__(self, dim, sizes):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("self_sym_sizes", tuple(sizes))
        self._dims = normalize_dims(dim, len(sizes))  # (the saved dim shows negatives unsigned)

    def backward(self, g):
        return (unsqueeze_to(g, self._saved["self_sym_sizes"], self._dims),)


class ExpandBackward0(Node):
    """z = self.expand(sizes).  dz/dself = grad summed over the expanded dims.
    Saves: self_sym_sizes."""

    def __init__(self, sizes):
        Node.__init__(self)
        self._save("self_sym_sizes", tuple(sizes))

    def backward(self, g):
        return (sum_to(g, self._saved["self_sym_sizes"]),)


# ----------------------------------------------------------------------------- view functions
def view(self, *shape) -> Tensor:
    """A view with a new shape (``Tensor.view``); ``-1`` is inferred.

    Raises RuntimeError if the sizes do not match or the memory layout does not allow a view.
    """
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int, np.integer)):
        return to_dtype(self, shape[0])
    shape = _infer_shape(_sizes(shape), self.numel())
    arr = _try_view(self._data, shape)
    if arr is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return _view_of(self, arr, ViewBackward0, self.shape)


def reshape(self, *shape) -> Tensor:
    """Reshape (``torch.reshape``), deciding as PyTorch does: a contiguous input gives a view
    (``ViewBackward0``); a non-contiguous one whose strides still allow a view gives
    ``_reshape_alias`` (``ReshapeAliasBackward0``); otherwise a contiguous copy is reshaped
    (``UnsafeViewBackward0(CloneBackward0)``). RuntimeError when the sizes do not match."""
    shape = _infer_shape(_sizes(shape), self.numel())
    arr = _try_view(self._data, shape)
    if arr is not None:
        node_cls = ViewBackward0 if self.is_contiguous() else ReshapeAliasBackward0
        return _view_of(self, arr, node_cls, self.shape)
    copy = clone(self, memory_format=contiguous_format)
    out = Tensor._make(copy._data.reshape(shape))
    record(UnsafeViewBackward0, out, (copy,), copy.shape)
    return out


def view_as(self, other) -> Tensor:
    """``self.view(other.shape)``."""
    return view(self, other.shape)


def reshape_as(self, other) -> Tensor:
    """``self.reshape(other.shape)``."""
    return reshape(self, other.shape)


def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim..end_dim`` into one (``torch.flatten``); a reshape."""
    if self.ndim == 0:  # (the dims are checked first: a 0-dim tensor wraps them as 1-dim)
        normalize_dim(start_dim, 1), normalize_dim(end_dim, 1)
        return reshape(self, 1)
    s, e = normalize_dim(start_dim, self.ndim), normalize_dim(end_dim, self.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    shape = self.shape[:s] + (int(np.prod(self.shape[s:e + 1])),) + self.shape[e + 1:]
    return reshape(self, shape)


def unflatten(self, dim: int, sizes) -> Tensor:
    """Split dim ``dim`` into ``sizes`` (``torch.unflatten``). RuntimeError for a 0-dim
    tensor (PyTorch wraps the dim error) or sizes that do not multiply up to the dim."""
    if self.ndim == 0:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as "
                           f"{dim} but tensor has no dimensions")
    d = normalize_dim(dim, self.ndim)
    sizes = tuple(sizes)
    known = int(np.prod([s for s in sizes if s != -1], dtype=np.int64))
    if (-1 not in sizes and known != self.shape[d]) or (-1 in sizes and self.shape[d] % known):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({self.shape[d]}) in the input tensor")
    sizes = _infer_shape(sizes, self.shape[d])
    return view(self, self.shape[:d] + tuple(sizes) + self.shape[d + 1:])


def transpose(self, dim0: int, dim1: int) -> Tensor:
    """Swap two dims, as a view (``torch.transpose``); node ``TransposeBackward0``."""
    d0, d1 = normalize_dim(dim0, self.ndim), normalize_dim(dim1, self.ndim)
    arr = np.swapaxes(self._data, d0, d1) if self.ndim else self._data.view()
    return _view_of(self, arr, TransposeBackward0, dim0, dim1, d0, d1)


def t(self) -> Tensor:
    """2-D transpose (``torch.t``); node ``TBackward0``. RuntimeError above 2 dims."""
    if self._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _view_of(self, self._data.T, TBackward0)


def permute(self, *dims) -> Tensor:
    """Reorder dims, as a view (``torch.permute``); node ``PermuteBackward0``."""
    dims = _sizes(dims)
    if len(dims) != self.ndim:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {self.ndim} is not equal to len(dims) = {len(dims)}")
    nd = tuple(normalize_dim(d, self.ndim) for d in dims)
    if len(set(nd)) != len(nd):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view_of(self, self._data.transpose(nd), PermuteBackward0, dims, nd)


T_DEPRECATED = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
    "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
    "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
    "tensor."
)


def _T(self) -> Tensor:
    """``x.T``: all dims reversed, as ``permute`` (``PermuteBackward0``, not ``TBackward0``).
    Warns (UserWarning, deprecated) for tensors that are not 2-D, as PyTorch does."""
    if self.ndim != 2:
        warnings.warn(T_DEPRECATED, UserWarning, stacklevel=2)
    return permute(self, *range(self.ndim - 1, -1, -1))


def _mT(self) -> Tensor:
    """``x.mT``: the last two dims swapped (``TransposeBackward0``); a 0-dim tensor is returned
    as it is (PyTorch does so), a 1-D one raises RuntimeError."""
    if self.ndim == 0:
        return self
    if self.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self.ndim}-D tensor.")
    return transpose(self, -2, -1)


def unsqueeze(self, dim: int) -> Tensor:
    """Insert a size-1 dim, as a view (``torch.unsqueeze``); node ``UnsqueezeBackward0``."""
    d = normalize_dim(dim, self.ndim + 1)
    arr = np.expand_dims(self._data, d)
    if not arr.size:  # PyTorch's stride for the new dim: the next dim's size times its stride
        st = self._data.strides  # (NumPy's reshape counts an empty dim as 1 instead)
        new = st[d] * self.shape[d] if d < self.ndim else self._data.itemsize
        arr = np.lib.stride_tricks.as_strided(arr, arr.shape, st[:d] + (new,) + st[d:])
    return _view_of(self, arr, UnsqueezeBackward0, dim, d)


def squeeze(self, dim=None) -> Tensor:
    """Drop size-1 dims, as a view (``torch.squeeze``): all of them (``SqueezeBackward0``),
    ``dim`` if its size is 1 (``SqueezeBackward1``), or those of a tuple of dims
    (``SqueezeBackward2``). A dim whose size is not 1 is kept (no error)."""
    if dim is None:
        arr = self._data.reshape([s for s in self.shape if s != 1])
        return _view_of(self, arr, SqueezeBackward0, self.shape)
    if isinstance(dim, (tuple, list)):
        dims = normalize_dims(dim, self.ndim)
        keep = [s for i, s in enumerate(self.shape) if not (i in dims and s == 1)]
        return _view_of(self, self._data.reshape(keep), SqueezeBackward2, dim, self.shape)
    d = normalize_dim(dim, self.ndim)
    arr = np.squeeze(self._data, d) if self.ndim and self.shape[d] == 1 else self._data.view()
    return _view_of(self, arr, SqueezeBackward1, dim, self.shape)


def expand(self, *sizes) -> Tensor:
    """Broadcast to a larger shape without copying (``Tensor.expand``); ``-1`` keeps a size.

    Raises RuntimeError when a non-1 dim would change. The view is read-only where elements
    repeat (in-place ops on it then raise PyTorch's memory-overlap error).
    """
    target = _expand_target(self, _sizes(sizes))
    return _view_of(self, expanded(self._data, target), ExpandBackward0, self.shape)


def expanded(arr: np.ndarray, shape: tuple) -> np.ndarray:
    """A view of ``arr`` expanded to ``shape``, with the strides PyTorch's ``expand`` gives
    (``inferExpandGeometry``): broadcast dims get stride 0, and a new leading dim of size 1
    gets size * stride of the dim after it (where NumPy's broadcast_to puts 0 — which
    PyTorch's memory-overlap checks would see). Read-only where elements repeat (in-place ops
    on it then raise PyTorch's memory-overlap error); otherwise writable, as in PyTorch."""
    sizes, steps = arr.shape, [st // arr.itemsize for st in arr.strides]
    out = [0] * len(shape)
    for i in range(len(shape) - 1, -1, -1):
        d = i - (len(shape) - len(sizes))
        size = sizes[d] if d >= 0 else 1
        # (a 0-dim arr has no dim after the last one: PyTorch gives it stride 0, and so all)
        step = steps[d] if d >= 0 else shape[i + 1] * out[i + 1] if i + 1 < len(shape) else 0
        out[i] = 0 if size != shape[i] else step
    view = np.lib.stride_tricks.as_strided(arr, shape, [st * arr.itemsize for st in out],
                                           writeable=arr.flags.writeable)
    if internal_overlap(view):
        view.flags.writeable = False
    return view


def _expand_target(self, sizes: tuple) -> tuple:
    """The shape ``self.expand(*sizes)`` has (``-1`` keeps a size); RuntimeError as PyTorch."""
    if len(sizes) < self.ndim:
        raise RuntimeError(f"expand(minigrad.{self.dtype._legacy}{{{list(self.shape)}}}, "
                           f"size={list(sizes)}): the number of sizes provided ({len(sizes)}) "
                           f"must be greater or equal to the number of dimensions in the tensor "
                           f"({self.ndim})")
    lead = len(sizes) - self.ndim
    target = []
    for i in reversed(range(len(sizes))):  # (from the last dim, as PyTorch: which mismatch
        s = sizes[i]  # its error names)
        cur = self.shape[i - lead] if i >= lead else None
        if s == -1:
            if cur is None:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            s = cur
        if cur is not None and cur != 1 and cur != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({cur}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(self.shape)}")
        target.append(s)
    return tuple(target[::-1])


def expand_as(self, other) -> Tensor:
    """``self.expand(other.shape)``."""
    return expand(self, other.shape)


def clone(self, *, memory_format=preserve_format) -> Tensor:
    """A copy with its own storage (``torch.clone``); node ``CloneBackward0``.

    ``memory_format``: ``preserve_format`` (default) keeps the layout of a dense tensor (a
    transposed one stays transposed: not contiguous) and lays out others densely in the same
    order of strides (c10's ``infer_dense_strides``); ``contiguous_format`` gives row-major
    strides.
    TypeError for any other value."""
    if memory_format is not preserve_format and memory_format is not contiguous_format:
        raise TypeError(f"clone(): memory_format must be minigrad.preserve_format or "
                        f"minigrad.contiguous_format, not {memory_format!r}")
    if memory_format is contiguous_format:
        arr = np.array(self._data, copy=True, order="C")
    else:
        arr = copy_preserving(self._data)
    out = Tensor._make(arr)
    record(CloneBackward0, out, (self,))
    return out


def contiguous(self, memory_format=contiguous_format) -> Tensor:
    """Self if already contiguous, else a row-major clone (``Tensor.contiguous``)."""
    return self if self._data.flags.c_contiguous else clone(self, memory_format=memory_format)


def _alias(self) -> Tensor:
    return _view_of(self, self._data.view(), AliasBackward0)


def to_dtype(self, dtype, copy: bool = False) -> Tensor:
    """Convert the element type; returns self when it already has ``dtype`` and ``copy`` is
    False (``Tensor.to``); node ``ToCopyBackward0``."""
    from .. import _dtype as D

    np_dt = D.to_numpy_dtype(dtype)
    if self._data.dtype == np_dt and not copy:
        return self
    # (a dense tensor keeps its layout; out-of-range values become inf silently, as PyTorch)
    out = Tensor._make(quietly(copy_preserving, self._data, np_dt))
    if out.dtype.is_floating_point:
        record(ToCopyBackward0, out, (self,), self.dtype)
    return out


_TO_KEYWORDS = ("device", "dtype", "non_blocking", "copy", "memory_format")


def _is_dtype(value) -> bool:
    from .. import _dtype as D

    return isinstance(value, D.dtype) or str(value).startswith("torch.") or value in (
        float, int, bool)


def _to_error(args, kwargs) -> TypeError:
    got = ", ".join([_arg_type(a) for a in args] + [f"{k}={_arg_type(v)}"
                                                    for k, v in kwargs.items()])
    return TypeError(
        f"to() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n * (minigrad.device device = None, minigrad.dtype dtype = None, bool non_blocking "
        "= False, bool copy = False, *, minigrad.memory_format memory_format = None)\n * "
        "(minigrad.dtype dtype, bool non_blocking = False, bool copy = False, *, "
        "minigrad.memory_format memory_format = None)\n * (Tensor tensor, bool non_blocking = "
        "False, bool copy = False, *, minigrad.memory_format memory_format = None)\n")


def _arg_type(value) -> str:
    from .._device import device

    if isinstance(value, device):
        return "minigrad.device"
    if _is_dtype(value) and not isinstance(value, type):
        return "minigrad.dtype"
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def parse_to(args, kwargs):
    """``(device, dtype, non_blocking, copy)`` from the arguments of ``Tensor.to`` /
    ``Module.to``, read as PyTorch's three signatures: ``to(device=None, dtype=None,
    non_blocking=False, copy=False)``, ``to(dtype, non_blocking, copy)``, ``to(tensor,
    non_blocking, copy)``. TypeError (PyTorch's "invalid combination of arguments") else."""
    from .._device import is_device

    if any(k not in _TO_KEYWORDS for k in kwargs):
        raise _to_error(args, kwargs)
    rest = list(args)
    device = dtype = None
    if rest and isinstance(rest[0], Tensor):
        dtype = rest.pop(0).dtype
    elif rest and _is_dtype(rest[0]):
        dtype = rest.pop(0)
    elif rest and is_device(rest[0]):
        device = rest.pop(0)
        if rest and _is_dtype(rest[0]):
            dtype = rest.pop(0)
    flags = {"non_blocking": False, "copy": False}
    if len(rest) > 2 or any(not isinstance(v, bool) for v in rest):
        raise _to_error(args, kwargs)
    flags.update(zip(("non_blocking", "copy"), rest))
    for k, v in kwargs.items():
        if k == "device":
            if device is not None or not (v is None or is_device(v)):
                raise _to_error(args, kwargs)
            device = v
        elif k == "dtype":
            if dtype is not None or not (v is None or _is_dtype(v)):
                raise _to_error(args, kwargs)
            dtype = v
        elif k in flags:
            flags[k] = bool(v)
    return device, dtype, flags["non_blocking"], flags["copy"]


def to(self, *args, **kwargs) -> Tensor:
    """``Tensor.to(dtype)`` / ``to(device, dtype)`` / ``to(other)`` with ``non_blocking`` and
    ``copy`` (``Tensor.to``): self when nothing changes and ``copy`` is False, else a copy
    recorded as ``ToCopyBackward0``.

    Raises:
        AssertionError: a CUDA device ("Torch not compiled with CUDA enabled": minigrad
            computes with NumPy on the CPU).
        RuntimeError: another device minigrad cannot hold tensors on, or a malformed one.
        TypeError: arguments that match none of PyTorch's signatures.
    """
    from .._device import check_device
    from .._device import device as _device

    device, dtype, _, copy = parse_to(args, kwargs)
    check_device(device)
    if device is not None and _device(device).index is not None:
        copy = True  # (PyTorch: "cpu:0" is not the tensor's device "cpu", so it copies)
    if dtype is None and not copy:
        return self
    return to_dtype(self, self.dtype if dtype is None else dtype, copy=copy)


# ----------------------------------------------------------------------------- multi-output
class SplitBackward0(Node):
    """outs = self.split(split_size, dim).  dz/dself = cat(grads, dim) (zeros for unused
    outputs). Saves: dim (as given), self_sym_sizes, split_size."""

    _sizes_name = "split_size"

    def __init__(self, dim, d, sizes, split_size):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._save("self_sym_sizes", tuple(sizes))
        self._save(self._sizes_name, split_size)
        self._d = d

    def backward(self, *grads):
        return (cat(list(grads), self._d),)


class SplitWithSizesBackward0(SplitBackward0):
    """outs = self.split([sizes], dim).  dz/dself = cat(grads, dim). Saves: dim,
    self_sym_sizes, split_sizes (a tuple)."""

    _sizes_name = "split_sizes"


class UnsafeSplitBackward0(SplitBackward0):
    """outs = self.unsafe_split(split_size, dim) (also ``unsafe_chunk``): like ``split``, but
    the outputs are not tracked as views (PyTorch's RNN cells chunk their gates with it and
    then modify the chunks in place). dz/dself = cat(grads, dim). Saves: dim, self_sym_sizes,
    split_size."""


class UnbindBackward0(Node):
    """outs = self.unbind(dim).  dz/dself = stack(grads, dim). Saves: dim (as given)."""

    def __init__(self, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._d = d

    def backward(self, *grads):
        return (stack(list(grads), self._d),)


def _multi_view(self, arrays, node_cls, *args):
    outs = [self._make_view(a) for a in arrays]
    record(node_cls, outs, (self,), *args)
    for o in outs:
        o._view_meta = node_cls.__name__[: -len("Backward0")]
    return tuple(outs)


def split(self, split_size_or_sections, dim: int = 0) -> tuple:
    """Split into chunks of ``split_size`` (or the given sizes) along ``dim`` (views).
    RuntimeError for a 0-dim tensor or sizes that do not fit."""
    if self.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = normalize_dim(dim, self.ndim)
    n = self.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = list(split_size_or_sections)
        split_size_or_sections = tuple(sizes)
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={sizes}")
        node_cls = SplitWithSizesBackward0
    else:
        step = int(split_size_or_sections)
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={step}")
        if step == 0 and n != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [min(step, n - i) for i in range(0, n, step)] if n else [0]
        node_cls = SplitBackward0
    bounds = np.cumsum([0] + sizes)
    arrays = [self._data[(slice(None),) * d + (slice(int(a), int(b)),)]
              for a, b in zip(bounds[:-1], bounds[1:])]
    return _multi_view(self, arrays, node_cls, dim, d, self.shape, split_size_or_sections)


def chunk(self, chunks: int, dim: int = 0) -> tuple:
    """Split into ``chunks`` nearly equal views along ``dim`` (``torch.chunk``)."""
    if self.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = self.shape[normalize_dim(dim, self.ndim)]
    if n == 0:  # PyTorch: `chunks` empty pieces (split_with_sizes of zeros)
        return split(self, [0] * chunks, dim)
    return split(self, -(-n // chunks), dim)


def unbind(self, dim: int = 0) -> tuple:
    """All slices along ``dim`` as views (``torch.unbind``); node ``UnbindBackward0``."""
    d = normalize_dim(dim, self.ndim)
    arrays = [self._data[(slice(None),) * d + (i, Ellipsis)] for i in range(self.shape[d])]
    return _multi_view(self, arrays, UnbindBackward0, dim, d)


def unsafe_chunk(self, chunks: int, dim: int = 0) -> tuple:
    """``chunk`` whose outputs are plain tensors, not views (``torch.unsafe_chunk``); node
    ``UnsafeSplitBackward0``. The outputs share memory with ``self`` but no version counter."""
    if self.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = normalize_dim(dim, self.ndim)
    n = self.shape[d]
    step = -(-n // chunks)
    lead = (slice(None),) * d
    outs = tuple(Tensor._make(self._data[lead + (slice(i, i + step),)])
                 for i in range(0, n, step)) if n else (Tensor._make(self._data),) * chunks
    record(UnsafeSplitBackward0, list(outs), (self,), dim, d, self.shape, step)
    return outs


class RepeatBackward0(Node):
    """z = self.repeat(repeats).  dz/dself = grad summed over the tiles.
    Saves: repeats, self_sym_sizes."""

    def __init__(self, repeats, sizes):
        Node.__init__(self)
        self._save("repeats", tuple(repeats))
        self._save("self_sym_sizes", tuple(sizes))

    def backward(self, g):
        reps, sizes = self._saved["repeats"], self._saved["self_sym_sizes"]
        lead = len(reps) - len(sizes)
        full = (1,) * lead + tuple(sizes)
        split_shape = []
        for r, s in zip(reps, full):
            split_shape += [r, s]
        gs = g.reshape(split_shape).sum(list(range(0, 2 * len(reps), 2)))
        return (gs.reshape(sizes),)


def repeat(self, *repeats) -> Tensor:
    """Tile the tensor (``Tensor.repeat``); node ``RepeatBackward0``."""
    reps = _sizes(repeats)
    if len(reps) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    # (C order, as PyTorch's result: np.tile copies a transposed input in its layout)
    out = Tensor._make(np.asarray(np.tile(self._data, reps), order="C"))
    record(RepeatBackward0, out, (self,), reps, self.shape)
    return out


def narrow(self, dim: int, start: int, length: int) -> Tensor:
    """View of ``length`` elements from ``start`` (negative counts from the end) along ``dim``
    (``torch.narrow``); node ``SliceBackward0``. IndexError/RuntimeError when out of range."""
    from .indexing import slice_dim

    if self.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = normalize_dim(dim, self.ndim)
    size = self.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start = start % size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return slice_dim(self, d, start, start + length, 1, saved_dim=dim)


# ----------------------------------------------------------------------------- cat / stack
class CatBackward0(Node):
    """z = cat(tensors, dim).  Each input gets its slice of grad along dim. Saves: dim (as
    given)."""

    def __init__(self, dim, d, sizes):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._sizes, self._d = sizes, d

    def backward(self, g):
        d, out, start = self._d, [], 0
        for size, (nf, _) in zip(self._sizes, self.next_functions):
            if size is None:  # a skipped 1-D empty input: an empty gradient
                out.append(Tensor._make(np.zeros(0, g._data.dtype)) if nf is not None else None)
                continue
            out.append(g.narrow(d, start, size) if nf is not None else None)
            start += size
        return tuple(out)


class StackBackward0(Node):
    """z = stack(tensors, dim).  Each input gets grad.select(dim, i). Saves: dim (as given)."""

    def __init__(self, dim, d):
        Node.__init__(self)
        self._save("dim", saved_int(dim))
        self._d = d

    def backward(self, g):
        d = self._d
        return tuple(g.select(d, i) if nf[0] is not None else None
                     for i, nf in enumerate(self.next_functions))


def _tensors_arg(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if len(tensors) == 0:
        if name == "cat":
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        raise RuntimeError("stack expects a non-empty TensorList")
    return list(tensors)


def cat(tensors, dim: int = 0) -> Tensor:
    """Concatenate along an existing dim (``torch.cat``); one slot per input (repeats kept).

    Raises RuntimeError naming the mismatching size and tensor number.
    """
    ts = _tensors_arg(tensors, "cat")
    for i, t in enumerate(ts):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    # PyTorch's legacy rule: 1-D empty tensors are skipped (any dim, any other shape)
    kept = [t for t in ts if t._data.shape != (0,)]
    ref = (kept[0] if kept else ts[0])._data.shape  # (checks on the arrays' shape tuples)
    d = normalize_dim(dim, len(ref)) if kept else 0
    for i, t in enumerate(ts):
        shape = t._data.shape
        if shape == (0,):
            continue
        if len(shape) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} "
                               f"and {len(shape)}")
        for k in range(len(ref)):
            if k != d and shape[k] != ref[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref[k]} but got size {shape[k]} for "
                                   f"tensor number {i} in the list.")
    dt = result_dtype(*ts)
    # (PyTorch writes a new contiguous tensor; NumPy's result follows its inputs' layout)
    out = Tensor._make(np.ascontiguousarray(np.concatenate(
        [t._data.astype(dt, copy=False) for t in (kept or ts)], axis=d)))
    record(CatBackward0, out, tuple(ts), dim, d,
           [t._data.shape[d] if kept and t._data.shape != (0,) else None for t in ts])
    return out


def stack(tensors, dim: int = 0) -> Tensor:
    """Stack along a new dim (``torch.stack``); RuntimeError if shapes differ."""
    ts = _tensors_arg(tensors, "stack")
    d = normalize_dim(dim, ts[0]._data.ndim + 1)  # (PyTorch checks the dim first)
    for i, t in enumerate(ts):
        if t._data.shape != ts[0]._data.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(ts[0].shape)} at entry 0 and {list(t.shape)} at entry {i}")
    dt = result_dtype(*ts)
    out = Tensor._make(np.ascontiguousarray(  # (contiguous, as PyTorch's: see cat)
        np.stack([t._data.astype(dt, copy=False) for t in ts], axis=d)))
    record(StackBackward0, out, tuple(ts), dim, d)
    return out


class TransposeBackward1(TransposeBackward0):
    """self.transpose_(dim0, dim1) (in place).  dz/dself = grad.transpose(dim0, dim1).
    Saves: dim0, dim1."""


def _transpose_fresh(self, dim0: int, dim1: int) -> Tensor:
    """``self.transpose_(dim0, dim1)`` on a fresh intermediate no one else holds (PyTorch's
    RNN does it to its output when ``batch_first``); node ``TransposeBackward1``. The result
    has ``_version`` 1, as the transposed tensor has in PyTorch."""
    d0, d1 = normalize_dim(dim0, self.ndim), normalize_dim(dim1, self.ndim)
    out = Tensor._make(self._data.swapaxes(d0, d1))
    record(TransposeBackward1, out, (self,), dim0, dim1, d0, d1)
    if not out._inference:
        out._vc.bump()
    return out


def _type_conv(dt):
    """The method ``Tensor.float`` / ``half`` / ... converting to the minigrad dtype ``dt``."""
    def conv(self, memory_format=None):
        return to_dtype(self, dt)

    conv.__doc__ = (f"Convert to {dt.name} (returns self if already that dtype); node "
                    "``ToCopyBackward0`` when the result is floating (``torch.Tensor.to``).")
    return conv


attach(
    Tensor,
    view=view, reshape=reshape, view_as=view_as, reshape_as=reshape_as, flatten=flatten,
    unflatten=unflatten, transpose=transpose, swapaxes=transpose, t=t, permute=permute,
    T=property(_T), mT=property(_mT), unsqueeze=unsqueeze, squeeze=squeeze, expand=expand,
    expand_as=expand_as, clone=clone, contiguous=contiguous, to=to, split=split, chunk=chunk,
    unbind=unbind, repeat=repeat, narrow=narrow, unsafe_chunk=unsafe_chunk,
    float=_type_conv(_dt.float32), double=_type_conv(_dt.float64), half=_type_conv(_dt.float16),
    long=_type_conv(_dt.int64), int=_type_conv(_dt.int32), bool=_type_conv(_dt.bool_),
    bfloat16=_type_conv(_dt.bfloat16), short=_type_conv(_dt.int16), char=_type_conv(_dt.int8),
    byte=_type_conv(_dt.uint8),
)


class SqueezeBackward2(Node):
    """z = self.squeeze(dims) with a tuple of dims.  dz/dself = unsqueeze_to(grad, dim,
    self_sym_sizes). Saves: dim (a tuple, as given), self_sym_sizes."""

    def __init__(self, dim, sizes):
        Node.__init__(self)
        self._save("dim", saved_dims(dim))
        self._save("self_sym_sizes", tuple(sizes))
        self._dims = normalize_dims(dim, len(sizes))  # (the saved dim shows negatives unsigned)

    def backward(self, g):
        return (unsqueeze_to(g, self._saved["self_sym_sizes"], self._dims),)


class SqueezeBackward4(SqueezeBackward1):
    """z = self.squeeze_(dim) (in place, as matmul's 1-D @ 2-D case uses).  dz/dself =
    unsqueeze_to(grad, dim, self_sym_sizes). Saves: dim, self_sym_sizes."""


def _squeeze_dims(self, dims) -> Tensor:
    """``squeeze`` with a tuple of dims (``SqueezeBackward4``), as matmul uses internally."""
    keep = [s for i, s in enumerate(self.shape) if not (i in dims and s == 1)]
    return _view_of(self, self._data.reshape(keep), SqueezeBackward4, dims[0] if len(dims) == 1
                    else tuple(dims), self.shape)


def _unsafe_view(self, shape) -> Tensor:
    """Reshape a fresh intermediate (``_unsafe_view``); node ``UnsafeViewBackward0``."""
    out = Tensor._make(self._data.reshape(shape))
    record(UnsafeViewBackward0, out, (self,), self.shape)
    return out
