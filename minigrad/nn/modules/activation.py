"""Activation modules: ``ReLU``, ``LeakyReLU``, ``ELU``, ``GELU``, ``SiLU``, ``Softplus``,
``Sigmoid``, ``Tanh``, ``Softmax``, ``LogSoftmax``, ``Hardtanh``, ``ReLU6``, ``Hardswish``,
``Hardsigmoid``, ``Mish``, ``PReLU``, ``MultiheadAttention``.

Mirrors ``torch/nn/modules/activation.py``: each module only stores its options and calls the
functional form in ``forward``.
"""

from __future__ import annotations

import warnings

from .. import functional as F
from .module import Module


class ReLU(Module):
    """``max(x, 0)`` elementwise (``torch.nn.ReLU``); ``inplace=True`` modifies the input."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``x if x > 0 else negative_slope * x`` (``torch.nn.LeakyReLU``); ``inplace=True``
    modifies the input. Node ``LeakyReluBackward0`` (``LeakyReluBackward1`` in place)."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


class ELU(Module):
    """``x if x > 0 else alpha * (exp(x) - 1)`` (``torch.nn.ELU``); node ``EluBackward0``
    (``EluBackward1`` with ``inplace=True``)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class GELU(Module):
    """Gaussian error linear unit ``x * Φ(x)`` (``torch.nn.GELU``); ``approximate='tanh'``
    for the tanh approximation. Node ``GeluBackward0``."""

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """``x * sigmoid(x)`` (``torch.nn.SiLU``); node ``SiluBackward0``."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``
    (``torch.nn.Softplus``); node ``SoftplusBackward0``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise (``torch.nn.Sigmoid``)."""

    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """``tanh(x)`` elementwise (``torch.nn.Tanh``)."""

    def forward(self, input):
        return F.tanh(input)


class Softmax(Module):
    """Softmax along ``dim`` (``torch.nn.Softmax``); ``dim=None`` picks one as PyTorch does
    (with its deprecation warning)."""

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log of softmax along ``dim`` (``torch.nn.LogSoftmax``)."""

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Hardtanh(Module):
    """``clamp(x, min_val, max_val)`` (``torch.nn.Hardtanh``); node ``HardtanhBackward0``.

    ``min_value``/``max_value`` are the deprecated spellings (FutureWarning).
    AssertionError when ``max_val <= min_val``, as PyTorch.
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)`` (``torch.nn.ReLU6``): a `Hardtanh` with bounds 0.0 and 6.0."""

    def __init__(self, inplace: bool = False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Hardswish(Module):
    """``x * relu6(x + 3) / 6`` (``torch.nn.Hardswish``); node ``HardswishBackward0``.
    (PyTorch's repr shows no ``inplace``.)"""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Hardsigmoid(Module):
    """``relu6(x + 3) / 6`` (``torch.nn.Hardsigmoid``); node ``HardsigmoidBackward0``."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Mish(Module):
    """``x * tanh(softplus(x))`` (``torch.nn.Mish``); node ``MishBackward0``."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.mish(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class PReLU(Module):
    """Parametric ReLU with a learnt negative slope (``torch.nn.PReLU``).

    Args: ``num_parameters=1`` (1, or the number of channels, dim 1 of the input),
    ``init=0.25`` (the initial slope), ``device``, ``dtype``. Parameter ``weight`` of shape
    ``(num_parameters,)``, filled with ``init`` in place (``_version`` 1). Input ``(N, C, *)``
    or any shape when ``num_parameters=1``; node ``PreluKernelBackward0``.
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        from .linear import _empty_param

        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = _empty_param((num_parameters,), dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Refill ``weight`` with ``init`` (in place)."""
        from .. import init as _init

        _init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class MultiheadAttention(Module):
    """Multi-head attention (``torch.nn.MultiheadAttention``), running
    ``F.multi_head_attention_forward`` (PyTorch's training-mode composition; its eval-mode
    fused fast path is not mirrored, the results agree).

    Args: ``embed_dim``, ``num_heads``, ``dropout=0.0``, ``bias=True``, ``add_bias_kv=False``,
    ``add_zero_attn=False``, ``kdim``/``vdim`` (default ``embed_dim``), ``batch_first=False``,
    ``device``, ``dtype``. Parameters with PyTorch's names: ``in_proj_weight`` (3E, E) — or
    ``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` when kdim/vdim differ —
    ``in_proj_bias`` (3E), ``bias_k``/``bias_v`` (1, 1, E), ``out_proj.weight``/``.bias``.
    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` → ``(output, weights or None)``.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        from .linear import NonDynamicallyQuantizableLinear, _empty_param

        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = _empty_param((embed_dim, embed_dim), dtype)
            self.k_proj_weight = _empty_param((embed_dim, self.kdim), dtype)
            self.v_proj_weight = _empty_param((embed_dim, self.vdim), dtype)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = _empty_param((3 * embed_dim, embed_dim), dtype)
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = _empty_param((3 * embed_dim,), dtype)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = _empty_param((1, 1, embed_dim), dtype)
            self.bias_v = _empty_param((1, 1, embed_dim), dtype)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        from .. import init

        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True,
                attn_mask=None, average_attn_weights: bool = True, is_causal: bool = False):
        is_batched = query.ndim == 3
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
            "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            average_attn_weights=average_attn_weights, is_causal=is_causal, **separate)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights
