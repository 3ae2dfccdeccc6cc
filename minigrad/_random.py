"""Random factories: ``rand``, ``randn``, ``randint``, ``randperm``, their ``*_like``,
``normal``, ``bernoulli``, ``multinomial``.

Mirrors the random functions of ``torch/_torch_docs.py`` (signatures, dtypes, errors). Values
come from NumPy through a `minigrad.Generator` (``generator=``, else the default generator),
so they differ from PyTorch's; shapes, dtypes, ``requires_grad`` and the distributions are
PyTorch's. Floating results follow the default dtype.
"""

from __future__ import annotations

import numpy as np

from ._creation import _finish, _like_dtype, _np_dtype, _shape, like
from ._device import check_device
from ._generator import numpy_rng
from ._ops.out import creation_out
from ._tensor import Tensor


def _float_only(name: str, dt: np.dtype) -> None:
    if dt.kind not in "fV":
        from ._tensor import _SCALAR_NAMES

        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{_SCALAR_NAMES[np.dtype(dt).name]}'")


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False) -> Tensor:
    """Standard normal samples of shape ``size`` (``torch.randn``).

    Raises NotImplementedError for an integer ``dtype``, as PyTorch."""
    check_device(device)
    dt = _np_dtype(dtype)
    _float_only("normal_kernel_cpu", dt)
    rng = numpy_rng(generator, "randn")
    if out is not None:  # (randn resizes out first: the resize error for one requiring grad)
        _float_only("normal_kernel_cpu", out._data.dtype)
        return creation_out("randn", out, lambda d: rng.standard_normal(_shape(size)).astype(d),
                            dtype, requires_grad, resize_first=True)
    return _finish(rng.standard_normal(_shape(size)).astype(dt), requires_grad)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False) -> Tensor:
    """Uniform samples in ``[0, 1)`` of shape ``size`` (``torch.rand``)."""
    check_device(device)
    dt = _np_dtype(dtype)
    _float_only("check_uniform_bounds", dt)
    rng = numpy_rng(generator, "rand")
    if out is not None:
        _float_only("check_uniform_bounds", out._data.dtype)
        return creation_out("rand", out, lambda d: rng.random(_shape(size)).astype(d), dtype,
                            requires_grad)
    return _finish(rng.random(_shape(size)).astype(dt), requires_grad)


def randint(low, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False) -> Tensor:
    """Integers in ``[low, high)`` (``torch.randint``); int64 unless ``dtype`` is given.
    Called as ``randint(high, size)`` or ``randint(low, high, size)``.

    Raises RuntimeError when ``low >= high``, or requires_grad with an integer dtype."""
    check_device(device)
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    elif high is None:
        raise TypeError("randint() missing required argument 'size'")
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    rng = numpy_rng(generator, "randint")
    arr = rng.integers(low, high, size=_shape((size,)))
    if out is not None:
        return creation_out("randint", out, arr.astype, dtype, requires_grad)
    return _finish(arr.astype(_np_dtype(dtype, np.int64)), requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False) -> Tensor:
    """A random permutation of ``0..n-1`` (``torch.randperm``); int64 unless ``dtype``."""
    check_device(device)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    rng = numpy_rng(generator, "randperm")
    if out is not None:
        return creation_out("randperm", out, rng.permutation(int(n)).astype, dtype,
                            requires_grad)
    return _finish(rng.permutation(int(n)).astype(_np_dtype(dtype, np.int64)), requires_grad)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None) -> Tensor:
    """Normal samples with ``input``'s shape, dtype and layout (``torch.randn_like``)."""
    dt = _np_dtype(_like_dtype(input, dtype))
    _float_only("normal_kernel_cpu", dt)
    values = numpy_rng(generator, "randn_like").standard_normal(tuple(input.shape))
    return like(input, dtype, memory_format, device, requires_grad, values)


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None) -> Tensor:
    """Uniform samples with ``input``'s shape, dtype and layout (``torch.rand_like``)."""
    dt = _np_dtype(_like_dtype(input, dtype))
    _float_only("check_uniform_bounds", dt)
    values = numpy_rng(generator, "rand_like").random(tuple(input.shape))
    return like(input, dtype, memory_format, device, requires_grad, values)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None) -> Tensor:
    """Integers in ``[low, high)`` with ``input``'s shape, dtype and layout
    (``torch.randint_like(input, high)`` or ``(input, low, high)``)."""
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    values = numpy_rng(generator, "randint_like").integers(low, high, tuple(input.shape))
    return like(input, dtype, memory_format, device, requires_grad, values)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False) -> Tensor:
    """Normal samples (``torch.normal``): ``normal(mean_tensor, std_tensor)`` (broadcast),
    ``normal(mean_tensor, std=1.0)``, ``normal(mean, std_tensor)``, or
    ``normal(mean, std, size)`` of floats. Tensor arguments that require grad are recorded
    (``NormalBackward1/2/3``, zero gradients, as PyTorch).

    Raises:
        RuntimeError: a negative ``std``; shapes that do not broadcast.
    """
    rng = numpy_rng(generator, "normal")
    m_t, s_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not m_t and not s_t:
        if size is None:
            raise TypeError("normal() missing required argument 'size'")
        check_device(device)
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        if out is not None:
            _float_only("normal_kernel_cpu", out._data.dtype)
            return creation_out("normal", out, rng.normal(mean, std, _shape((size,))).astype,
                                dtype, requires_grad)
        dt = _np_dtype(dtype)
        return _finish(rng.normal(mean, std, _shape((size,))).astype(dt), requires_grad)
    m = mean._data if m_t else mean
    s = std._data if s_t else std
    if np.any(np.asarray(s) < 0):
        found = np.asarray(s).min()
        raise RuntimeError(f"normal expects std >= 0.0, but found std {found:g}")
    from ._ops._util import broadcast_shapes

    shape = broadcast_shapes(tuple(np.shape(m)), tuple(np.shape(s)))
    dt = (mean if m_t else std)._data.dtype
    out = Tensor._make((m + s * rng.standard_normal(shape)).astype(dt))
    from ._ops.random import record_normal

    record_normal(out, mean, std)
    return out


def bernoulli(input, p=None, *, generator=None, out=None) -> Tensor:
    """0/1 samples with probabilities ``input`` (or the number ``p``) (``torch.bernoulli``);
    ``input``'s shape and dtype; ``BernoulliBackward0`` (a zero gradient) when ``input``
    requires grad. With a number ``p``, not recorded (PyTorch's node there is "NotImplemented").

    Raises:
        RuntimeError: probabilities outside ``[0, 1]``.
        NotImplementedError: an integer ``input``.
    """
    rng = numpy_rng(generator, "bernoulli")
    dt = input._data.dtype
    if p is not None:
        probs = np.full(input.shape, p)
    else:
        _float_only("bernoulli_tensor_cpu_p_", dt)
        probs = input._data
    if np.any((probs < 0) | (probs > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    out = Tensor._make((rng.random(input.shape) < probs).astype(dt))
    if p is None:
        from ._ops.random import record_bernoulli

        record_bernoulli(out, input)
    return out


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None) -> Tensor:
    """Indices drawn from the rows of ``input`` (non-negative weights, 1-D or 2-D)
    (``torch.multinomial``); int64 of shape ``(num_samples,)`` or ``(rows, num_samples)``.

    Raises:
        RuntimeError: not 1-D or 2-D, an integer dtype, ``num_samples <= 0``, more samples
            than categories without ``replacement``, negative / inf / nan weights, or a row
            summing to zero.
    """
    rng = numpy_rng(generator, "multinomial")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input._data.dtype.kind not in "fV":
        from ._tensor import _SCALAR_NAMES

        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{_SCALAR_NAMES[input.dtype.name]}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    rows = input._data.reshape(-1, input.shape[-1]).astype(np.float64)
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if not np.all(np.isfinite(rows)) or np.any(rows < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = rows.sum(axis=1)
    if np.any(sums <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    out_rows = []
    for row, total in zip(rows, sums):
        probs = row / total
        if not replacement and np.count_nonzero(probs) < num_samples:
            # every category of non-zero weight (in a weighted random order), then
            # zero-weight ones in a random order, as PyTorch then draws them last
            nonzero = np.count_nonzero(probs)
            first = rng.choice(len(probs), nonzero, replace=False, p=probs).tolist()
            zeros = rng.permutation(np.flatnonzero(probs == 0)).tolist()
            out_rows.append(first + zeros[:num_samples - nonzero])
        else:
            out_rows.append(rng.choice(len(probs), num_samples, replace=replacement, p=probs))
    arr = np.asarray(out_rows, dtype=np.int64).reshape(input.shape[:-1] + (num_samples,))
    return Tensor._make(arr)


def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__, method.__doc__ = fn.__name__, fn.__doc__
    return method


Tensor.bernoulli = _method(bernoulli)
Tensor.multinomial = _method(multinomial)
