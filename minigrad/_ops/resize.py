"""``Tensor.resize_`` and ``Tensor.resize_as_``: give a tensor a new shape over its memory.

Mirrors ``resize_`` in ``aten/src/ATen/native/Resize.cpp`` and its autograd wrapper in
``torch/csrc/autograd/VariableTypeManual.cpp``. A resized tensor is contiguous and starts where
it started before (its storage offset); it reads the storage's elements from there, and when
the storage is too short it is reallocated, the old elements copied to the front (PyTorch leaves
the new ones uninitialised; minigrad makes them zeros). ``resize_`` is not differentiable: a
tensor that requires grad cannot be resized, even under ``no_grad``.

Storage in minigrad is NumPy memory: the base's array for a view, the tensor's own array
otherwise. Within that memory a resized view keeps sharing it with its base. A reallocation
moves the tensor (and, for a view, its base) to the new memory; other views of the old memory
keep the old memory (PyTorch moves them too, as they share one storage object). The same
helper resizes the ``out=`` tensor of an op (`minigrad._ops.out`), without a version bump.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd import graph as _graph
from ..autograd.graph import _is_dense
from ._util import attach

RESIZE_GRAD_MSG = "cannot resize variables that require grad"


def _memory(t: Tensor):
    """(flat 1-D view of the memory ``t`` lives in, offset of ``t``'s first element in it),
    or ``(None, 0)`` when that memory is not one dense block minigrad can address."""
    root = t._base._data if t._base is not None else t._data
    if root.size == 0:  # resized to 0 elements earlier: the 1-D memory it was cut from
        flat = root.base
        if not (isinstance(flat, np.ndarray) and flat.ndim == 1 and flat.flags.c_contiguous):
            return None, 0
    elif root.flags.c_contiguous:
        flat = root.reshape(-1)
    elif _is_dense(root) and min(root.strides) > 0:  # (a permuted layout: memory order)
        flat = np.lib.stride_tricks.as_strided(root, (root.size,), (root.itemsize,))
    else:
        return None, 0
    start = t._data.__array_interface__["data"][0] - flat.__array_interface__["data"][0]
    if not 0 <= start <= flat.nbytes:  # (an empty array's pointer may be anywhere)
        return flat, 0
    return flat, start // root.itemsize


def resize_storage(t: Tensor, shape: tuple) -> None:
    """Make ``t`` a contiguous tensor of ``shape`` over its memory (reallocated when too short).
    No checks, no version bump: callers do those."""
    n = int(np.prod(shape, dtype=np.int64))
    flat, offset = _memory(t)
    if flat is not None and offset + n <= flat.size:
        t._data = flat[offset:offset + n].reshape(shape)
        return
    old = flat if flat is not None else t._data.reshape(-1)
    new = np.zeros(offset + n, dtype=t._data.dtype)
    new[:min(old.size, new.size)] = old[:new.size]
    base = t._base
    if base is not None and flat is not None and base._data.flags.c_contiguous:
        if new.size >= base._data.size:  # the base moves to the new memory with its view
            base._data = new[:base._data.size].reshape(base.shape)
    t._data = new[offset:].reshape(shape)


def _sizes(args) -> tuple:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    for s in args:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"resize_(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(s).__name__}")
    if any(s < 0 for s in args):
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(int(s) for s in args)


def _check_resizable(t: Tensor) -> None:
    if t.requires_grad:
        raise RuntimeError(RESIZE_GRAD_MSG)
    if _graph.fw_on:
        from ..autograd.forward_ad import fw_grad

        if fw_grad(t) is not None:
            raise RuntimeError("cannot resize variables that has a forward grad")


def resize_(self, *sizes, memory_format=None) -> Tensor:
    """Resize ``self`` in place to ``sizes`` (ints or one tuple) (``Tensor.resize_``).

    Same shape: nothing changes (strides kept, no version bump). Otherwise ``self`` becomes
    contiguous over its storage from its offset (see the module docstring) and ``_version``
    is bumped. Returns ``self``.

    Raises:
        RuntimeError: ``self`` requires grad (in any grad mode); a negative size.
        TypeError: a size that is not an int.
        NotImplementedError: a ``memory_format`` other than ``contiguous_format``.
    """
    from .._memory_format import contiguous_format
    from .inplace import bump

    shape = _sizes(sizes)
    _check_resizable(self)
    if memory_format not in (None, contiguous_format):
        raise NotImplementedError(f"minigrad: resize_(memory_format={memory_format}) is not "
                                  "supported (only contiguous_format)")
    if shape == tuple(self.shape):
        return self
    resize_storage(self, shape)
    bump(self)
    return self


def resize_as_(self, the_template, *, memory_format=None) -> Tensor:
    """Resize ``self`` in place to ``the_template``'s shape (``Tensor.resize_as_``); as
    `resize_` (the result is contiguous whatever the template's strides).

    Raises:
        TypeError: ``the_template`` is not a Tensor.
        RuntimeError: ``self`` requires grad.
    """
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, "
                        f"not {type(the_template).__name__}")
    return resize_(self, tuple(the_template.shape), memory_format=memory_format)


attach(Tensor, resize_=resize_, resize_as_=resize_as_)
