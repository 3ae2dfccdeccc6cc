"""Random in-place ops ``uniform_ normal_ bernoulli_ random_ exponential_`` and the graph of
the random functions ``normal`` / ``bernoulli`` on tensors that require grad.

Mirrors ``tools/autograd/derivatives.yaml``: a random op's output does not depend smoothly on
its inputs, so every gradient it passes back is zero; but it is recorded, so an in-place
random fill of a non-leaf rewrites its history (``UniformBackward0`` ...) exactly as PyTorch
does, and a leaf that requires grad is refused. Values come from NumPy through
``generator=`` (a `minigrad.Generator`) or the default generator.
"""

from __future__ import annotations

import numpy as np

from .._generator import numpy_rng
from .._tensor import Tensor
from ..autograd.graph import Node, record
from .inplace import _apply_inplace


class _ZeroGradient(Node):
    """A random op's node: the gradient of every input is zero (of that input's shape).
    Saves nothing."""

    def __init__(self, *shapes):
        Node.__init__(self)
        self._shapes = shapes

    def backward(self, g):
        out = []
        for (fn, _), shape in zip(self.next_functions, self._shapes):
            out.append(None if fn is None else Tensor._make(np.zeros(shape, g._data.dtype)))
        return tuple(out)

    @staticmethod
    def jvp(inputs, tangents, outputs, *args):
        """dz = 0: a random result does not move with its inputs (PyTorch's tangent is
        zeros)."""
        dt = next(t for t in tangents if t is not None)._data.dtype
        return Tensor._make(np.zeros(outputs[0]._data.shape, dt))


class UniformBackward0(_ZeroGradient):
    """self.uniform_(from, to).  dz/dself = 0. Saves nothing."""


class NormalBackward0(_ZeroGradient):
    """self.normal_(mean, std).  dz/dself = 0. Saves nothing."""


class NormalBackward1(_ZeroGradient):
    """normal(mean_tensor, std_float).  dz/dmean = 0. Saves nothing."""


class NormalBackward2(_ZeroGradient):
    """normal(mean_float, std_tensor).  dz/dstd = 0. Saves nothing."""


class NormalBackward3(_ZeroGradient):
    """normal(mean_tensor, std_tensor).  dz/dmean = 0, dz/dstd = 0. Saves nothing."""


class BernoulliBackward0(_ZeroGradient):
    """bernoulli(self).  dz/dself = 0. Saves nothing."""


class BernoulliBackward1(_ZeroGradient):
    """self.bernoulli_(p_tensor).  dz/dself = 0, dz/dp = 0. Saves nothing."""


class BernoulliBackward2(_ZeroGradient):
    """self.bernoulli_(p_float).  dz/dself = 0. Saves nothing."""


class RandomBackward0(_ZeroGradient):
    """self.random_(from, to).  dz/dself = 0. Saves nothing."""


class RandomBackward1(_ZeroGradient):
    """self.random_(to).  dz/dself = 0. Saves nothing."""


class RandomBackward2(_ZeroGradient):
    """self.random_().  dz/dself = 0. Saves nothing."""


class ExponentialBackward0(_ZeroGradient):
    """self.exponential_(lambd).  dz/dself = 0. Saves nothing."""


def _fill_random(self: Tensor, values: np.ndarray, node_cls, others=()) -> Tensor:
    """Write ``values`` into self in place, recorded as ``node_cls`` (the common path)."""
    def compute():
        out = Tensor._make(values.astype(self._data.dtype))
        shapes = [self.shape] + [o.shape for o in others]
        record(node_cls, out, (self, *others), *shapes)
        return out

    return _apply_inplace(self, compute, others)


def _float_only(self: Tensor, kernel: str) -> None:
    if self._data.dtype.kind not in "fV":
        from .._tensor import _SCALAR_NAMES

        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_SCALAR_NAMES[self.dtype.name]}'")


def uniform_(self, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    """Fill with samples of U(a, b) in place (``Tensor.uniform_``); node ``UniformBackward0``
    on a non-leaf. RuntimeError when ``a > b``; NotImplementedError for an integer dtype."""
    _float_only(self, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g}"
                           f" > to={b:g}")
    rng = numpy_rng(generator, "uniform_")
    return _fill_random(self, rng.uniform(a, b, self.shape), UniformBackward0)


def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fill with samples of N(mean, std**2) in place (``Tensor.normal_``); node
    ``NormalBackward0``. RuntimeError for a negative ``std``."""
    _float_only(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    rng = numpy_rng(generator, "normal_")
    return _fill_random(self, rng.normal(mean, std, self.shape), NormalBackward0)


def bernoulli_(self, p=0.5, *, generator=None) -> Tensor:
    """Fill with 0/1 samples, 1 with probability ``p`` (a number, or a tensor broadcast to
    self) in place (``Tensor.bernoulli_``); node ``BernoulliBackward2`` (number) or
    ``BernoulliBackward1`` (tensor). RuntimeError for a probability outside [0, 1]."""
    rng = numpy_rng(generator, "bernoulli_")
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._data, self.shape)
        if np.any((probs < 0) | (probs > 1)):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        return _fill_random(self, rng.random(self.shape) < probs, BernoulliBackward1, (p,))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return _fill_random(self, rng.random(self.shape) < p, BernoulliBackward2)


_RANDOM_TOP = {"float32": 2**24, "float64": 2**53, "float16": 2**11, "int64": 2**63 - 1,
               "int32": 2**31 - 1, "uint8": 255, "bool": 1}


def random_(self, from_=None, to=None, *, generator=None) -> Tensor:
    """Fill with integers in place (``Tensor.random_``): ``random_()`` draws from
    [0, top] (top: 2**24 for float32, 2**53 for float64, the dtype's maximum for integers),
    ``random_(to)`` from [0, to), ``random_(from, to)`` from [from, to). Nodes
    ``RandomBackward2`` / ``RandomBackward1`` / ``RandomBackward0``.

    Raises:
        RuntimeError: ``from >= to``.
    """
    rng = numpy_rng(generator, "random_")
    if from_ is None:
        low, high, node = 0, _RANDOM_TOP[self.dtype.name] + 1, RandomBackward2
    elif to is None:
        low, high, node = 0, from_, RandomBackward1
    else:
        low, high, node = from_, to, RandomBackward0
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    return _fill_random(self, rng.integers(low, high, self.shape, dtype=np.int64, endpoint=False)
                        if high <= 2**63 - 1 else
                        rng.integers(low, high - 1, self.shape, dtype=np.int64, endpoint=True),
                        node)


def exponential_(self, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fill with samples of Exp(lambd) in place (``Tensor.exponential_``); node
    ``ExponentialBackward0``. RuntimeError for ``lambd <= 0``."""
    _float_only(self, "exponential_cpu")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    rng = numpy_rng(generator, "exponential_")
    return _fill_random(self, rng.exponential(1.0 / lambd, self.shape), ExponentialBackward0)


def record_normal(out: Tensor, mean, std) -> None:
    """The graph of ``normal(mean, std)`` when a tensor argument requires grad."""
    m_t, s_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if m_t and s_t:
        record(NormalBackward3, out, (mean, std), mean.shape, std.shape)
    elif m_t:
        record(NormalBackward1, out, (mean,), mean.shape)
    elif s_t:
        record(NormalBackward2, out, (std,), std.shape)


def record_bernoulli(out: Tensor, input: Tensor) -> None:  # noqa: A002
    """The graph of ``bernoulli(input)``."""
    record(BernoulliBackward0, out, (input,), input.shape)


Tensor.uniform_ = uniform_
Tensor.normal_ = normal_
Tensor.bernoulli_ = bernoulli_
Tensor.random_ = random_
Tensor.exponential_ = exponential_
