"""``floor_divide`` (``//``) and the in-place operator forms PyTorch gives Python's augmented
assignments: ``x //= y``, ``x **= y`` (each modifies ``x``
itself — same object, ``_version`` + 1, history rewritten — instead of rebinding the name to a
new tensor), and the comparison aliases ``greater``/``greater_equal``/``less``/``less_equal``/
``not_equal`` with their in-place forms.

Mirrors ``floor_divide`` in ``aten/src/ATen/native/BinaryOps.cpp`` (``div`` with
``rounding_mode='floor'`` values) and ``derivatives.yaml``, which gives it no derivative: its
node is ``torch::autograd::NotImplemented`` and a backward through it raises. The operator
methods are ``Tensor.__ifloordiv__`` ... in ``torch/_tensor.py``.
"""

from __future__ import annotations

import numpy as np

from .._dtype import is_float_np
from .._tensor import Tensor
from ..autograd import graph as _graph
from ..autograd.forward_ad import fw_grad
from ..autograd.graph import record
from . import inplace as I
from . import pointwise as P
from . import pointwise_binary as PB
from ._util import attach


def floor_divide(input, other) -> Tensor:
    """``input // other`` rounded toward -inf, broadcast and promoted as ``div``
    (``torch.floor_divide``); node ``torch::autograd::NotImplemented`` (one edge per tensor
    operand that requires grad), whose backward raises RuntimeError.

    Raises:
        RuntimeError: an integer division by zero (``ZeroDivisionError``, as PyTorch).
        NotImplementedError: two bool tensors.
    """
    return _floor_divide(input, other, "aten::floor_divide")


def _floor_divide(input, other, op_name: str) -> Tensor:
    a, b, x, y = P._binary(input, other)
    if x.dtype == np.bool_ and y.dtype == np.bool_:
        raise NotImplementedError('"div_floor_cpu" not implemented for \'Bool\'')
    if x.dtype.kind in "iub" and y.dtype.kind in "iub" and not np.all(y):
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(all="ignore"):
        out = P._result(np.floor_divide(x, y), a, b, x, y)
    if _graph.fw_on and any(isinstance(t, Tensor) and fw_grad(t) is not None for t in (a, b)):
        raise NotImplementedError(f"Trying to use forward AD with {op_name} that does not "
                                  "support it.")
    # (PyTorch's NotImplemented node has edges only to the operands that require grad)
    tensors = [t for t in (a, b) if isinstance(t, Tensor) and t.requires_grad]
    if is_float_np(out._data.dtype):
        record(PB.NotImplemented, out, tensors, op_name)
    return out


def _floor_divide_(self, other) -> Tensor:
    """``floor_divide`` in place (``Tensor.floor_divide_``, ``self //= other``); its node
    names ``aten::floor_divide_`` in the backward error."""
    return I._apply_inplace(self, lambda: _floor_divide(self, other, "aten::floor_divide_"),
                            (other,))


def _rfloordiv(self, other):
    return floor_divide(other, self)


def _ipow(self, exponent):
    return self.pow_(exponent)


attach(Tensor, floor_divide=floor_divide, __floordiv__=floor_divide, __rfloordiv__=_rfloordiv,
       floor_divide_=_floor_divide_, __ifloordiv__=_floor_divide_, __ipow__=_ipow,
       greater=P.gt, greater_equal=P.ge, less=P.lt, less_equal=P.le, not_equal=P.ne,
       greater_=Tensor.gt_, greater_equal_=Tensor.ge_, less_=Tensor.lt_,
       less_equal_=Tensor.le_, not_equal_=Tensor.ne_)

greater, greater_equal, less, less_equal, not_equal = P.gt, P.ge, P.lt, P.le, P.ne
