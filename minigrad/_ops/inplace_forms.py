"""The ``torch``-namespace spellings of in-place methods: ``torch.sin_(x)`` is ``x.sin_()``,
``torch.relu_(h)`` is ``h.relu_()``, ``torch.clamp_(x, min=0)`` is ``x.clamp_(min=0)`` ...

PyTorch generates these functions from the same ATen ops as the methods (``sin_`` in
``native_functions.yaml`` has ``variants: function, method``), so they modify ``input`` itself,
return it (the same object), bump its ``_version`` and rewrite its history exactly as the
method does; the only difference is the check of ``input``, which the function's argument
parser makes ("sin_(): argument 'input' (position 1) must be Tensor, not int"). Each function
here looks the method up on ``input`` when it is called and hands it the remaining arguments:
the op and its checks are the method's (``minigrad/_ops/inplace.py`` and each family's file).
"""

from __future__ import annotations

from .._tensor import Tensor

# The in-place functions of the ``torch`` namespace whose method minigrad has.
NAMES = (
    "abs_",
    "acos_",
    "acosh_",
    "addmv_",
    "arccos_",
    "arccosh_",
    "arcsin_",
    "arcsinh_",
    "arctan_",
    "arctanh_",
    "as_strided_",
    "asin_",
    "asinh_",
    "atan_",
    "atanh_",
    "ceil_",
    "clamp_",
    "clamp_max_",
    "clamp_min_",
    "clip_",
    "cos_",
    "cosh_",
    "detach_",
    "exp2_",
    "exp_",
    "expm1_",
    "fill_",
    "fix_",
    "floor_",
    "frac_",
    "index_put_",
    "log10_",
    "log1p_",
    "log2_",
    "log_",
    "nan_to_num_",
    "neg_",
    "negative_",
    "reciprocal_",
    "relu_",
    "resize_as_",
    "round_",
    "rsqrt_",
    "sigmoid_",
    "sin_",
    "sinh_",
    "sqrt_",
    "square_",
    "tan_",
    "tanh_",
    "trunc_",
    "zero_",
)


def _function(name: str):
    def op(*args, **kwargs) -> Tensor:
        if args:
            input, args = args[0], args[1:]
        elif "input" in kwargs:
            input = kwargs.pop("input")
        else:
            raise TypeError(f"{name}() missing 1 required positional argument: 'input'")
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{type(input).__name__}\n(torch.{name}(t, ...) modifies the tensor "
                f"t, as t.{name}(...) does)"
            )
        return getattr(input, name)(*args, **kwargs)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"``torch.{name}(input, ...)``: ``input.{name}(...)`` (modifies ``input`` and "
        f"returns it; see ``Tensor.{name}``).\n\n    Raises:\n        TypeError: "
        f"``input`` is not a tensor."
    )
    return op


FUNCTIONS = {name: _function(name) for name in NAMES}
