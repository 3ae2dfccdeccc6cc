"""Forward-mode AD: dual tensors (``torch.autograd.forward_ad``).

Mirrors ``torch/autograd/forward_ad.py`` (the Python API) and the forward-grad half of
``torch/csrc/autograd/autograd_meta.cpp`` / ``VariableTypeUtils.h`` (how tangents are stored
and flow). Inside a ``dual_level``, a tensor may carry a *tangent* (its forward gradient): a
tensor of its shape. Each op whose input carries one computes its output's tangent right after
the output, with the op's forward-derivative formula (the ``jvp`` static method of its backward
node; its docstring states the formula), so ``unpack_dual(f(make_dual(x, v))).tangent`` is the
Jacobian-vector product ``J_f(x) @ v`` after one forward pass.

How tangents are kept (PyTorch's rules, measured):

* A tangent has the **layout of its primal** (same strides, in elements; its dtype may differ:
  a float64 tangent on a float32 primal stays float64). `make_dual` uses the given tangent
  as-is when its layout matches, or copies it into the primal's layout; an op's tangent is
  copied likewise.
* A **view** of a tensor with a tangent gets the same view of that tangent (its ``_base`` is
  the base tangent): one rule for every view op, replayed on the tangent's memory
  (`_view_of_tangent`). A view made *before* its base got a tangent finds it when read.
* An **in-place** op writes the new tangent into the old one (its ``_version`` counts); on a
  view whose base had no tangent, the base gets a zero tangent first, and the view's is a view
  of it.
* ``no_grad`` does not stop forward AD; leaving the level deletes every tangent made in it.
* One level only: PyTorch does not support nesting ``dual_level``.

Costs nothing outside a level: ``graph.record`` reads one module flag (`graph.fw_on`).
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from . import grad_mode as _grad_mode
from . import graph as _graph

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_current_level = -1
SIZE_MSG = ("Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size {} while the given "
            "forward gradient is of size {}.")
# every tensor that got a tangent in the level, to delete them all when it is left (ids as keys:
# a Tensor's ``==`` is elementwise, so the tensors cannot be set members)
_duals: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def enter_dual_level() -> int:
    """Enter a new forward-grad level and return it (``0``: there is only one).

    Raises:
        RuntimeError: a level is already active ("Nested forward mode AD is not supported").
    """
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level = 0
    _graph.fw_on = _graph.fw_level = True
    return _current_level


def exit_dual_level(*, level=None) -> None:
    """Leave the forward-grad level ``level`` (default: the current one), deleting every
    tangent made in it.

    Raises:
        RuntimeError: ``level`` is not the last level entered, or no level is active.
    """
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    for t in list(_duals.values()):
        t._fw_grad = None
    _duals.clear()
    _current_level = level - 1
    _graph.fw_on = _graph.fw_level = False


class dual_level:
    """Context manager (and decorator) for a forward-AD level: ``with dual_level(): ...``.

    ``__enter__`` returns the level (``enter_dual_level``); ``__exit__`` leaves it, deleting the
    tangents made inside. Mirrors ``torch.autograd.forward_ad.dual_level``.
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)

        return wrapper


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: ``(primal, tangent)``; ``tangent`` is None without one."""

    primal: object
    tangent: object


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: a new view of ``tensor`` carrying ``tangent`` as its forward gradient.

    The tangent is kept as-is when its strides match ``tensor``'s, else copied into
    ``tensor``'s layout. Backward-differentiable: the result's ``grad_fn`` is
    ``ViewBackward0`` when ``tensor`` requires grad.

    Args:
        tensor: the primal, floating point (any shape).
        tangent: same shape, floating point, itself without a tangent.
        level: the level (default: the current one).

    Raises:
        RuntimeError: no level is active; the sizes differ; ``tensor`` or ``tangent`` already
            has a tangent.
        ValueError: ``tensor`` or ``tangent`` is not floating point.
    """
    from .._ops import shape as S

    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not tensor.is_floating_point():
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not tangent.is_floating_point():
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if fw_grad(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    if fw_grad(tangent) is not None:
        raise RuntimeError("Setting a forward grad that itself has a forward gradient at the "
                           f"same level{level} is not supported.")
    if tangent.shape != tensor.shape:
        raise RuntimeError(SIZE_MSG.format(list(tensor.shape), list(tangent.shape)))
    _graph.fw_on = False  # (the view is made as any view; its tangent is set just below)
    try:
        out = S.view(tensor, tensor.shape)
    finally:
        _graph.fw_on = True
    out._fw_view = False  # its tangent is its own, not a view of tensor's
    set_fw_grad(out, tangent)
    return out


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor``: the primal a view of ``tensor`` without a tangent,
    the tangent as stored (None without one, or outside a level).

    Backward-differentiable: with ``tensor`` requiring grad the primal's ``grad_fn`` is an
    alias node. Mirrors ``torch.autograd.forward_ad.unpack_dual``.

    While forward AD is off inside a level (in a custom Function's ``forward`` or ``jvp``, or
    an op's formula), the tangent is None, as PyTorch's (its forward-grad mode is off there)."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    fw = _graph.fw_on
    tangent = fw_grad(tensor) if fw and not _grad_mode.is_inference_mode_enabled() else None
    primal = tensor._make_view(tensor._data)
    primal._fw_view = False
    _graph.fw_on = False  # (the primal carries no tangent)
    try:
        _graph.record(Identity, primal, (tensor,))
    finally:
        _graph.fw_on = fw
    return UnpackedDualTensor(primal, tangent)


class Identity(_graph.Node):
    """z = the primal of a dual tensor (``unpack_dual``).  dz/dself = grad. Saves nothing.
    PyTorch's C++ node, named ``torch::autograd::Identity``."""

    def name(self) -> str:
        return "torch::autograd::Identity"

    def backward(self, g):
        return (g,)


# ------------------------------------------------------------------------------ for formulas
def tangent_sum(*terms):
    """The sum of the terms that are not None (a formula's term for an input without a tangent
    is None); None when all are."""
    total = None
    for t in terms:
        if t is not None:
            total = t if total is None else total + t
    return total


def promoted(tangent, *primals):
    """``tangent`` in the dtype PyTorch's type promotion gives it with efficient zero tensors
    of ``primals`` (the inputs without a tangent, None skipped): ``x + y`` with a float32
    tangent on float64 primals, ``y`` not dual, has a float64 tangent. A 0-dim primal (a
    number) does not raise a dimensioned tangent's dtype."""
    from .._ops._util import result_dtype
    from .._tensor import Tensor

    floats = [p for p in primals if isinstance(p, Tensor) and p.is_floating_point()]
    if tangent is None or not floats:
        return tangent
    dt = result_dtype(tangent, *floats)
    if dt == tangent._data.dtype:
        return tangent
    from .._dtype import from_numpy_dtype

    return tangent.to(from_numpy_dtype(dt))


def linked(tangent, *primals):
    """``tangent``, as PyTorch's formula would have it with the terms of the inputs that have
    no tangent: PyTorch computes those with an efficient zero tensor (a zero value, the
    input's dtype) times some primals, so the tangent takes part in their type promotion
    (a float32 tangent on float64 primals becomes float64) and, in grad mode, is differentiable
    (with a zero gradient) with respect to those primals that require grad (``(x * 2.5)``'s
    tangent requires grad when ``x`` does). A formula calls this with the primals of the terms
    it leaves out (None: none left out)."""
    if tangent is None:
        return tangent
    from .._tensor import Tensor

    floats = [p for p in primals if isinstance(p, Tensor) and p.is_floating_point()]
    if not floats:
        return tangent
    tangent = promoted(tangent, *floats)
    from . import grad_mode

    if tangent._requires_grad or not grad_mode.is_grad_enabled():
        return tangent
    from .._ops.pointwise import where

    never = Tensor._make(np.zeros((), bool))
    for p in floats:
        if p._requires_grad:
            if p.dtype is not tangent.dtype:
                p = p.to(tangent.dtype)
            tangent = where(never, p, tangent)  # (values: the tangent's; p's gradient: 0)
    return tangent


# ------------------------------------------------------------------------------ the mechanism
def fw_grad(t):
    """``t``'s tangent, or None. A view without its own finds its base's (made as a view of the
    base's tangent and kept), as PyTorch's ``AutogradMeta::fw_grad`` does."""
    g = t._fw_grad
    if g is None and t._base is not None and t._fw_view:
        bg = t._base._fw_grad
        if bg is not None:
            g = _view_of_tangent(bg, t._base, t)
            _keep(t, g)
    return g


def set_fw_grad(t, g) -> None:
    """Give ``t`` the tangent ``g`` (copied into ``t``'s layout if its strides differ;
    broadcast to ``t``'s shape first: a formula's only term may have an input's shape)."""
    if g._data.shape != t._data.shape or g._data.size and (
            _element_strides(g._data) != _element_strides(t._data)):
        from .._tensor import Tensor, empty_strided

        arr = empty_strided(t.shape, _element_strides_full(t._data), g._data.dtype)
        if g._requires_grad and _grad_mode.is_grad_enabled():
            # a tangent with a history (reverse over forward): a recorded copy_, as PyTorch's
            # (CopyBackwards), so that the copy keeps it
            _graph.fw_on, was = False, _graph.fw_on
            try:
                g = Tensor._make(arr).copy_(g)
            finally:
                _graph.fw_on = was
        else:
            arr[...] = g._data  # (broadcasts)
            g = Tensor._make(arr)
    _keep(t, g)


def _keep(t, g) -> None:
    t._fw_grad = g
    _duals[id(t)] = t


def _element_strides(a: np.ndarray) -> tuple:
    """Strides in elements, with those of size-1 dims left out (they never move)."""
    return tuple(s // a.itemsize for s, n in zip(a.strides, a.shape) if n != 1)


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


class _Interface:
    """An object NumPy reads an array from (``__array_interface__``), keeping ``base`` alive."""

    def __init__(self, interface: dict, base: np.ndarray):
        self.__array_interface__ = interface
        self.base = base


def _view_of_tangent(tangent, primal, view):
    """The view of ``tangent`` that ``view`` is of ``primal``: same shape, element strides and
    element offset, replayed on the tangent's memory (which has ``primal``'s layout)."""
    src, arr = tangent._data, view._data
    if src.shape != primal._data.shape:  # (``primal.data =`` gave it another shape: the view
        # cannot be replayed on memory of another size; PyTorch's size check refuses it too)
        raise RuntimeError(SIZE_MSG.format(list(view.shape), list(tangent.shape)))
    if not arr.size:
        out = np.empty(arr.shape, src.dtype)
    else:
        size = primal._data.itemsize
        offset = (_address(arr) - _address(primal._data)) // size * src.itemsize
        interface = dict(src.__array_interface__)
        interface.update(shape=arr.shape, data=(_address(src) + offset, not src.flags.writeable),
                         strides=tuple(s // size * src.itemsize for s in arr.strides))
        out = np.asarray(_Interface(interface, src))
    result = tangent._make_view(out)
    if tangent._requires_grad and tangent._grad_fn is not None:
        _differentiable_view(tangent, result)
    return result


def _differentiable_view(tangent, view) -> None:
    """Give the view of a tangent that has a history (reverse over forward) a grad_fn, as
    ``as_strided`` does (``AsStridedBackward0``), so that gradients flow through it back to the
    tangent (PyTorch's tangent of a view is the view op applied to the tangent, e.g.
    ``TransposeBackward0``; minigrad replays the layout, so its node is the generic one)."""
    from .._ops.inplace import AsStridedBackward0, _base_index
    from . import grad_mode
    from .graph import edge_of

    if not grad_mode.is_grad_enabled():
        return
    owner = tangent if tangent._base is None else tangent._base
    node = AsStridedBackward0(owner, view)
    if owner is not tangent:
        node._input_index = _base_index(owner, tangent)
        node.next_functions = (edge_of(tangent),)
    view._set_history(node)


# the tensor an in-place op is about to overwrite (set by ``_ops.inplace._apply_inplace`` in a
# level with grad mode on, cleared by `after_inplace`): formulas get clones (`_old_self`)
_inplace_self = None


def _old_self(inputs, args, tangents) -> tuple:
    """``inputs``, ``args`` and ``tangents`` with the in-place op's self and its tangent
    replaced by clones (PyTorch's ``original_self_p`` and ``self_t.clone()``): a formula that
    saves them for backward must not save the tensors the op then overwrites (self's data,
    and its tangent, which `after_inplace` writes in place)."""
    target = _inplace_self
    if not any(t is target for t in (*inputs, *args)):
        return inputs, args, tangents
    old = target.clone()
    tangents = [None if t is None else t.clone() if x is target else t
                for x, t in zip(inputs, tangents)]
    return ([old if t is target else t for t in inputs],
            tuple(old if t is target else t for t in args), tangents)


def propagate(node_cls, outputs, inputs, args, views_only=False) -> None:
    """Set the tangents of an op's ``outputs`` from those of its ``inputs`` (called by
    ``graph.record`` inside a level). A view op's outputs get views of the input's tangent;
    any other op's come from ``node_cls.jvp``, run with forward AD off (the formula computes
    with the primals, as PyTorch's does) but with grad mode as it is, so a tangent that
    depends on a primal requiring grad is itself differentiable (reverse over forward)."""
    tangents = [None if t is None else fw_grad(t) for t in inputs]
    if not any(t is not None for t in tangents):
        return
    single = not isinstance(outputs, (list, tuple))
    outs = (outputs,) if single else tuple(outputs)
    x = inputs[0]
    root = x if x._base is None else x._base
    if len(inputs) == 1 and all(o is None or (o._base is root and o is not x) for o in outs):
        for o in outs:
            if o is not None and o.is_floating_point():
                _keep(o, _view_of_tangent(tangents[0], x, o))
        return
    if views_only:
        return
    _graph.fw_on = False
    try:
        if _inplace_self is not None:
            inputs, args, tangents = _old_self(inputs, args, tangents)
        try:
            result = node_cls.jvp(tuple(inputs), tuple(tangents), outs, *args)
        except NotImplementedError as e:
            if e.args:
                raise
            raise NotImplementedError(
                f"Trying to use forward AD with {node_cls.__name__} that does not support it "
                "because it has not been implemented yet in minigrad (its node has no jvp "
                "formula).") from None
        result = (result,) if single else result
        same = [g is not None and any(g is t for t in tangents) for g in result]
        if not getattr(node_cls, "_jvp_shares_tangent", False):
            result = [_unshared(g, tangents) for g in result]
    finally:
        _graph.fw_on = True
    # an input whose tangent has another shape (its data replaced by ``.data =``): the
    # formula's result is not broadcast, PyTorch's size check refuses it
    # (an in-place op whose formula is the tangent itself, ``add_(2.0)``, leaves it so: no check)
    stale = any(t is not None and g is not None and tuple(g.shape) != tuple(t.shape)
                for t, g in zip(inputs, tangents))
    for o, g, kept in zip(outs, result, same):
        if o is not None and g is not None and o.is_floating_point():
            if stale and tuple(g.shape) != tuple(o.shape):
                if not kept:
                    raise RuntimeError(SIZE_MSG.format(list(o.shape), list(g.shape)))
                _keep(o, g)  # (as it is: the in-place op writes it back)
                continue
            set_fw_grad(o, g)


def _unshared(g, tangents):
    """``g``, or a clone of it when it is one of the inputs' tangents: a formula's only term
    (``a + b`` with ``a`` not dual, ``copy_``) must not make two tensors share one tangent,
    which a later in-place op on either would write through. PyTorch's formulas give a new
    tensor there; only nodes whose formula is the tangent itself (``frac``, ``fmod`` by a
    number: ``_jvp_shares_tangent``) share it, in PyTorch as here."""
    if g is not None and any(g is t for t in tangents):
        return g.clone()
    return g


def after_inplace(self, r) -> None:
    """Move the tangent of ``r`` (an in-place op's out-of-place result) into ``self``'s: the old
    tangent is overwritten in place (zeroed when the op gives none); on a view whose base had no
    tangent, the base gets a zero one first."""
    global _inplace_self
    _inplace_self = None
    new = r._fw_grad
    old = fw_grad(self)
    if old is None:
        if new is None:
            return
        base = self._base
        if base is not None and self._fw_view:
            from .._tensor import Tensor, empty_strided

            arr = empty_strided(base.shape, _element_strides_full(base._data), new._data.dtype)
            arr[...] = 0
            _keep(base, Tensor._make(arr))
            old = fw_grad(self)
        else:
            set_fw_grad(self, new)
            return
    from .._ops.inplace import bump
    from . import grad_mode

    if new is not None and tuple(new.shape) != tuple(old.shape) and tuple(
            np.broadcast_shapes(new.shape, old.shape)) != tuple(old.shape):
        raise RuntimeError(f"output with shape {list(old.shape)} doesn't match the broadcast "
                           f"shape {list(np.broadcast_shapes(new.shape, old.shape))}")
    if grad_mode.is_grad_enabled() and (old._requires_grad or
                                        new is not None and new._requires_grad):
        # a tangent with a history (reverse over forward): written by a recorded op (PyTorch's
        # ``self_t.copy_(...)``), so the tangent and its base keep it; an old tangent with a
        # history that the op zeroes or overwrites with a plain one is recorded too
        _graph.fw_on, was = False, _graph.fw_on
        try:
            old.zero_() if new is None else old.copy_(new)
        finally:
            _graph.fw_on = was
        return
    old._data[...] = 0 if new is None else new._data
    bump(old)


def _element_strides_full(a: np.ndarray) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)
