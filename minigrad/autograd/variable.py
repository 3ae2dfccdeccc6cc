"""``Variable``: the deprecated name of a tensor that records history.

Mirrors ``torch/autograd/variable.py``. Since PyTorch 0.4 every tensor is a "Variable";
the name survives for old code (and tools such as torchviz) that imports or tests it.
"""

from __future__ import annotations


class _VariableMeta(type):
    """``isinstance(t, Variable)`` is True for every Tensor (a Parameter too), as in PyTorch;
    ``issubclass(Tensor, Variable)`` stays False there and here."""

    def __instancecheck__(cls, other) -> bool:
        from .._tensor import Tensor

        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Deprecated: ``Variable(t, requires_grad=False)`` returns ``t.detach()``, with
    ``requires_grad`` set as asked (``torch.autograd.Variable``); ``Variable()`` an empty
    tensor. New code uses tensors directly.

    Raises:
        TypeError: ``data`` is not a Tensor.
    """

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        from .._creation import tensor as _tensor
        from .._tensor import Tensor

        if data is None:
            return _tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        return out.requires_grad_() if requires_grad else out
