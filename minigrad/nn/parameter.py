"""``Parameter``: a Tensor that a Module registers as one of its parameters.

Mirrors ``torch/nn/parameter.py``. A Parameter is an ordinary leaf tensor with
``requires_grad=True`` by default; what makes it special is only how ``Module.__setattr__``
treats it (it lands in ``module._parameters``). ``Parameter(t)`` shares ``t``'s storage **and**
version counter, as in PyTorch. Ops on a Parameter return plain `Tensor` s.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter (``torch.nn.Parameter``).

    Args:
        data: the Tensor to wrap (shared, not copied); ``None`` gives an empty float32 tensor.
        requires_grad: default True. Raises RuntimeError for a non-float ``data`` that is asked
            to require grad (pass ``requires_grad=False`` for integer parameters).

    The result is always a leaf (``grad_fn`` None), even when ``data`` was computed by an op.
    ``repr`` is ``Parameter containing:\\n`` followed by the tensor's repr.
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from .. import _defaults

            data = Tensor._make(np.empty((0,), dtype=_defaults.FLOAT))
        if not isinstance(data, Tensor):
            # PyTorch calls ``data.detach()`` here and fails the same way.
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        p = Tensor.__new__(cls)
        p._init(data._data)
        p._vc = data._vc  # same storage, same version counter (torch's _make_subclass)
        p._requires_grad = bool(requires_grad)
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        pass  # everything happens in __new__ (Tensor.__init__ would re-initialise)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        """``Parameter(self.data.clone(), self.requires_grad)`` (``Parameter.__deepcopy__``):
        unlike a plain tensor's copy, no ``.grad`` and no user attributes; ``_version`` 0."""
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.data.clone(), self.requires_grad)
        return memo[id(self)]
