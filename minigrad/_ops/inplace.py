"""In-place ops: ``add_ sub_ mul_ div_ pow_ zero_ fill_ copy_ clamp_ relu_ ...``, ``+=``,
``t[idx] = v``, and the random initialisers ``uniform_``/``normal_``.

Mirrors PyTorch's in-place semantics (``torch/csrc/autograd/VariableTypeManual.cpp``,
``check_inplace``): every in-place op bumps the version counter shared with all views; a leaf
that requires grad (or a view of one) cannot be modified while grad mode is on; on a non-leaf
the op *rewrites its history*: the same tensor object gets the op's node as ``grad_fn``.
Saved inputs that are the modified tensor itself are saved as a clone first (as PyTorch does),
and saved outputs are re-pointed at the modified tensor.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.graph import Node, SavedTensor, record
from . import activation as A
from . import pointwise as P
from ._util import as_tensor, attach

LEAF_MSG = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_MSG = "a view of a leaf Variable that requires grad is being used in an in-place " \
                "operation."


def check_inplace(self: Tensor) -> None:
    """Raise PyTorch's RuntimeError when ``self`` may not be modified in place."""
    if not grad_mode.is_grad_enabled():
        return
    base = self._base
    if base is not None and base._requires_grad and base._grad_fn is None and (
            self._requires_grad):
        raise RuntimeError(VIEW_LEAF_MSG)
    if self._requires_grad and self._grad_fn is None and base is None:
        raise RuntimeError(LEAF_MSG)
    if self._view_meta is not None and self._requires_grad:
        raise RuntimeError(
            f"Output {self._output_nr} of {self._view_meta} is a view and is being modified "
            "inplace. This view is the output of a function that returns multiple views. Such "
            "functions do not allow the output views to be modified inplace. You should replace "
            "the inplace operation by an out-of-place one.")


def _write(self: Tensor, r: Tensor) -> None:
    if r.shape != self.shape:
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(r.shape)}")
    if r._data.dtype.kind == "f" and self._data.dtype.kind != "f":
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{self.dtype._legacy[:-6]}")
    self._data[...] = r._data


def _apply_inplace(self: Tensor, compute) -> Tensor:
    """Run ``compute()`` (the out-of-place op on ``self``), write it into self, rewrite history."""
    check_inplace(self)
    r = compute()
    node = r._grad_fn
    if node is not None:
        if self._base is not None:
            raise NotImplementedError(
                "minigrad: in-place ops on a view of a tensor that requires grad (CopySlices) "
                "are not supported yet; use an out-of-place op")
        for name, sv in list(node._saved.items()):
            if isinstance(sv, SavedTensor) and not sv._is_output and sv._tensor is self:
                node._saved[name] = SavedTensor(self.clone(), node, False)
    _write(self, r)
    self._vc.bump()
    if node is not None:
        self._grad_fn = node
        self._requires_grad = True
        self._output_nr = 0
        for sv in node._saved.values():
            if isinstance(sv, SavedTensor) and sv._is_output:
                sv._data, sv._vc, sv._saved_version = self._data, self._vc, self._vc.value
    return self


def _inplace_of(fn, doc_name):
    def op(self, *args, **kwargs):
        return _apply_inplace(self, lambda: fn(self, *args, **kwargs))

    op.__name__ = doc_name
    op.__doc__ = f"In-place ``{doc_name[:-1]}``: modifies self, bumps ``_version``, returns self."
    return op


class ZeroBackward0(Node):
    """z = zeros_like(self) written in place.  dz/dself = 0. Saves nothing."""

    def backward(self, g):
        return (g * 0,)


class FillBackward2(ZeroBackward0):
    """z = self filled with a scalar, in place.  dz/dself = 0. Saves nothing."""


class CopyBackwards(Node):
    """self.copy_(src).  dz/dself = 0; dz/dsrc = grad (summed to src's shape, cast to its
    dtype). ``name()`` is ``torch::autograd::CopyBackwards``. Saves nothing."""

    def __init__(self, src):
        super().__init__()
        self._src_shape, self._src_dtype = src.shape, src.dtype

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"

    def backward(self, g):
        from ._util import sum_to

        gs = sum_to(g, self._src_shape) if self.next_functions[1][0] is not None else None
        return (g * 0 if self.next_functions[0][0] is not None else None, gs)


def _constant_like(self, value, node_cls, inputs=None, *args):
    out = Tensor._make(np.full(self.shape, value, dtype=self._data.dtype))
    record(node_cls, out, inputs or (self,), *args)
    return out


def zero_(self) -> Tensor:
    """Fill with zeros in place (``Tensor.zero_``); node ``ZeroBackward0`` on a non-leaf."""
    return _apply_inplace(self, lambda: _constant_like(self, 0, ZeroBackward0))


def fill_(self, value) -> Tensor:
    """Fill with a scalar in place (``Tensor.fill_``); node ``FillBackward2`` on a non-leaf."""
    v = value.item() if isinstance(value, Tensor) else value
    return _apply_inplace(self, lambda: _constant_like(self, v, FillBackward2))


def copy_(self, src, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` (broadcast, cast) into self (``Tensor.copy_``); node ``CopyBackwards``."""
    src = as_tensor(src)

    def compute():
        arr = np.broadcast_to(src._data, self.shape).astype(self._data.dtype)
        out = Tensor._make(np.array(arr))
        record(CopyBackwards, out, (self, src), src)
        return out

    return _apply_inplace(self, compute)


def setitem(self, index, value) -> None:
    """``self[index] = value`` (in place; bumps ``_version``)."""
    check_inplace(self)
    val = value._data if isinstance(value, Tensor) else value
    needs_graph = grad_mode.is_grad_enabled() and (
        self._requires_grad or (isinstance(value, Tensor) and value._requires_grad))
    if needs_graph:
        raise NotImplementedError("minigrad: t[idx] = v on tensors that require grad "
                                  "(CopySlices) is not supported yet")
    from .indexing import _as_index_array, _is_advanced

    if isinstance(index, tuple):
        index = tuple(_as_index_array(i) if _is_advanced(i) else i for i in index)
    elif _is_advanced(index):
        index = _as_index_array(index)
    self._data[index] = val
    self._vc.bump()


def uniform_(self, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with uniform samples from ``[a, b)`` in place (no graph; bumps ``_version``)."""
    from .._creation import default_generator

    self._data[...] = default_generator().uniform(a, b, self.shape)
    self._vc.bump()
    return self


def normal_(self, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with normal samples in place (no graph; bumps ``_version``)."""
    from .._creation import default_generator

    self._data[...] = default_generator().normal(mean, std, self.shape)
    self._vc.bump()
    return self


def _addcmul(self, t1, t2, value=1):
    return P.add(self, P.mul(P.mul(t1, t2), value) if value != 1 else P.mul(t1, t2))


def _addcdiv(self, t1, t2, value=1):
    return P.add(self, P.mul(P.div(t1, t2), value) if value != 1 else P.div(t1, t2))


def _lerp(self, end, weight):
    return P.add(self, P.mul(P.sub(end, self), weight))


attach(
    Tensor,
    add_=_inplace_of(P.add, "add_"), sub_=_inplace_of(P.sub, "sub_"),
    mul_=_inplace_of(P.mul, "mul_"), div_=_inplace_of(P.div, "div_"),
    pow_=_inplace_of(P.pow, "pow_"), clamp_=_inplace_of(P.clamp, "clamp_"),
    clamp_min_=_inplace_of(P.clamp_min, "clamp_min_"), exp_=_inplace_of(P.exp, "exp_"),
    neg_=_inplace_of(P.neg, "neg_"), sqrt_=_inplace_of(P.sqrt, "sqrt_"),
    sigmoid_=_inplace_of(P.sigmoid, "sigmoid_"), tanh_=_inplace_of(P.tanh, "tanh_"),
    relu_=_inplace_of(A.relu, "relu_"), masked_fill_=_inplace_of(P.masked_fill, "masked_fill_"),
    addcmul_=_inplace_of(_addcmul, "addcmul_"), addcdiv_=_inplace_of(_addcdiv, "addcdiv_"),
    lerp_=_inplace_of(_lerp, "lerp_"),
    zero_=zero_, fill_=fill_, copy_=copy_, uniform_=uniform_, normal_=normal_,
    __setitem__=setitem,
    __iadd__=_inplace_of(P.add, "add_"), __isub__=_inplace_of(P.sub, "sub_"),
    __imul__=_inplace_of(P.mul, "mul_"), __itruediv__=_inplace_of(P.div, "div_"),
)
