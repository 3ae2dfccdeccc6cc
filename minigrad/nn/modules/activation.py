"""Activation modules: ``ReLU``, ``LeakyReLU``, ``ELU``, ``GELU``, ``SiLU``, ``Softplus``,
``Sigmoid``, ``Tanh``, ``Softmax``, ``LogSoftmax``.

Mirrors ``torch/nn/modules/activation.py``: each module only stores its options and calls the
functional form in ``forward``.
"""

from __future__ import annotations

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
