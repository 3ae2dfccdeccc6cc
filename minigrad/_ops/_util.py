"""Helpers shared by the op families: operands, dtype promotion, dims, broadcasting.

Mirrors the parts of ATen every op relies on: ``c10/core/ScalarType.h`` promotion rules,
``maybe_wrap_dim`` (dimension checks) and ``infer_size`` (broadcasting errors).
"""

from __future__ import annotations

import contextlib
import numbers
import warnings

import numpy as np

from .. import _defaults
from .._dtype import BF16_NP
from .._tensor import Tensor, contiguous_strides, empty_strided
from ..autograd import grad_mode
from ..autograd.graph import _is_dense

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2}  # ("V": bfloat16, from ml_dtypes)
_PY_SCALARS = (float, int, bool)
_WRAPPED_DTYPES = {float: np.float64, int: np.int64, bool: np.bool_}


class _QuietFP:
    """``with quiet_fp():`` runs NumPy kernels without floating-point warnings (overflow,
    0/0, log(0), ...): PyTorch returns inf/nan silently and so does minigrad.

    The same as ``np.errstate(all="ignore")``, which rebuilds NumPy's error state on every
    entry (about 1 µs, as much as a small op's kernel); this sets a state built once, in the
    context variable where NumPy 2 keeps it.
    """

    __slots__ = ("_token",)

    def __enter__(self):
        self._token = _FP_STATE.set(_FP_IGNORE)

    def __exit__(self, exc_type, exc, tb):  # (named arguments: *exc would build a tuple)
        _FP_STATE.reset(self._token)


try:
    from numpy._core._ufunc_config import _extobj_contextvar as _FP_STATE

    with np.errstate(all="ignore"):
        _FP_IGNORE = _FP_STATE.get()
    quiet_fp = _QuietFP

    def quietly(kernel, *args):
        """``kernel(*args)`` (a NumPy function) under `quiet_fp`, as one call: the
        kernel of every small op runs in it, and this costs 3 k instructions where a ``with``
        block costs 5 k (the block calls two methods from C and makes a context object).
        Already quiet (the engine runs every backward so), the kernel is just called: the
        check costs less than a fifth of setting and resetting the state."""
        if _FP_STATE.get() is _FP_IGNORE:
            return kernel(*args)
        token = _FP_STATE.set(_FP_IGNORE)
        try:
            return kernel(*args)
        finally:
            _FP_STATE.reset(token)
except ImportError:  # NumPy 1.x: no context variable, plain errstate
    def quiet_fp():
        """``np.errstate(all="ignore")`` (see `_QuietFP`)."""
        return np.errstate(all="ignore")

    def quietly(kernel, *args):
        """``kernel(*args)`` under `quiet_fp`."""
        with quiet_fp():
            return kernel(*args)


@contextlib.contextmanager
def quiet_numpy():
    """`quiet_fp`, and NumPy's RuntimeWarnings of reductions over nothing ("Mean of empty
    slice", "Degrees of freedom <= 0") silenced too: PyTorch returns nan without them."""
    with quiet_fp(), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def internal_overlap(arr: np.ndarray) -> bool:
    """Several elements are one memory cell (PyTorch's ``has_internal_overlap`` is YES): a dim
    of stride 0 and size > 1, as an ``expand`` makes. Never for an empty array (PyTorch counts
    it contiguous)."""
    return arr.size > 0 and any(st == 0 and n > 1 for n, st in zip(arr.shape, arr.strides))


def normalize_dim(dim: int, ndim: int) -> int:
    """Wrap a possibly negative ``dim``; IndexError like PyTorch when out of range."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    if dim < lo or dim > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim % max(ndim, 1)


def normalize_dims(dim, ndim: int) -> tuple:
    """Normalise an int / tuple / list / None of dims to a sorted tuple (None = all dims).

    A 0-dim tensor accepts dims 0 and -1 and gives ``()``. RuntimeError for a repeated dim."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    out = tuple(sorted(normalize_dim(d, ndim) for d in dim))
    if len(set(out)) != len(out):
        dup = next(d for d in out if out.count(d) > 1)
        raise RuntimeError(f"dim {dup} appears multiple times in the list of dims")
    return out if ndim else ()  # a 0-dim tensor accepts dim 0 / -1 but has no axis to reduce


def saved_int(v: int) -> int:
    """An int64 as PyTorch exposes it in a ``_saved_*`` attribute: negative values show their
    unsigned 64-bit pattern (``x.sum(-1).grad_fn._saved_dim == (18446744073709551615,)``)."""
    return int(v) + 2**64 if v < 0 else int(v)


def saved_dims(dim) -> tuple:
    """``dim`` (int or sequence) as the tuple PyTorch saves: the user's order, see
    `saved_int`."""
    return tuple(saved_int(d) for d in ((dim,) if isinstance(dim, (int, np.integer)) else dim))


def is_scalar(x) -> bool:
    """True for Python (and NumPy) numbers, which ops treat as 'wrapped' scalars."""
    if type(x) in _PY_SCALARS:  # fast path: the ABC check below is slow
        return True
    return isinstance(x, (numbers.Number, np.number)) and not isinstance(x, Tensor)


def result_dtype(*operands) -> np.dtype:
    """PyTorch's type promotion for tensors and Python scalars.

    The highest category (bool < int < float) wins; within it, dimensioned tensors outrank
    0-dim tensors, which outrank Python scalars; a Python float alone gives the default dtype.
    """
    if len(operands) == 2:  # fast paths for the common cases of binary ops
        a, b = operands
        if isinstance(a, Tensor) and a._data.ndim:
            da = a._data.dtype
            if isinstance(b, Tensor) and b._data.ndim:
                if da == b._data.dtype:  # (dimensioned tensors are never wrapped)
                    return da
            elif da.kind in "fV" and (type(b) is float or isinstance(b, Tensor) and
                                     b._wrapped_number):
                return da  # float tensor with a Python scalar: the tensor's dtype
    arrays = [x._data for x in operands if isinstance(x, Tensor)]
    if arrays and len(arrays) == len(operands) and all(
            a.ndim and a.dtype == arrays[0].dtype for a in arrays):
        return arrays[0].dtype  # dimensioned tensors of one dtype (cat, stack): no promotion
    best = None  # (category, priority)
    dtypes: dict = {}
    for x in operands:
        if isinstance(x, Tensor) and x._wrapped_number:
            dt = x._data.dtype if x._data.dtype.kind not in "fV" else _defaults.FLOAT
            prio = 0
        elif isinstance(x, Tensor):
            dt = x._data.dtype
            prio = 2 if x.ndim > 0 else 1
        else:
            dt = np.dtype(np.bool_ if isinstance(x, (bool, np.bool_)) else
                          np.int64 if isinstance(x, (int, np.integer)) else _defaults.FLOAT)
            prio = 0
        key = (_CATEGORY[dt.kind], prio)
        dtypes.setdefault(key, []).append(dt)
        if best is None or key > best:
            best = key
    cat = best[0]
    prio = max(p for (c, p) in dtypes if c == cat)
    return np.result_type(*dtypes[(cat, prio)])


_HALF = frozenset((np.dtype(np.float16),) + ((BF16_NP,) if BF16_NP is not None else ()))
# (a set: ``dtype in _HALF`` runs in every pointwise op, and a tuple's test costs 4x more)


def sum_dtype(arr: np.ndarray):
    """The ``dtype=`` for NumPy sums of ``arr``: float32 for float16 and bfloat16, None (the
    array's own) otherwise. PyTorch's CPU kernels accumulate half-precision values in float32
    and round once; ml_dtypes adds bfloat16s in bfloat16 (and np.cumsum float16s in float16),
    whose short mantissa stops a long sum from growing (at 256 for bfloat16)."""
    return np.float32 if arr.dtype in _HALF else None


def widened(arr: np.ndarray) -> np.ndarray:
    """``arr`` as a reduction kernel should read it: a float16 or bfloat16 array as float32
    (see `sum_dtype`; the kernel casts its result back), any other array as it is."""
    return arr.astype(np.float32) if arr.dtype in _HALF else arr


def wrap_scalar(x) -> Tensor:
    """A Python number as a 0-dim "wrapped number" tensor, as PyTorch wraps scalar operands.

    Its dtype is bool, int64 or float64 (what ``_saved_other`` shows for ``x * 2``), but type
    promotion (`result_dtype`) treats it like the Python scalar it came from.
    """
    dt = _WRAPPED_DTYPES.get(type(x))
    if dt is None:
        dt = np.bool_ if isinstance(x, (bool, np.bool_)) else \
            np.int64 if isinstance(x, (int, np.integer)) else np.float64
    t = Tensor._make(np.array(x, dtype=dt))
    t._wrapped_number = True
    t._requires_grad = False  # (the class default, stored: every op taking it reads it)
    return t


def as_tensor(x, dtype: np.dtype | None = None) -> Tensor:
    """Wrap a scalar or array-like as a tensor that does not require grad; tensors pass through."""
    if isinstance(x, Tensor):
        return x
    return Tensor._make(np.asarray(x, dtype=dtype))


def cast(t: Tensor, dtype: np.dtype) -> np.ndarray:
    """``t``'s array in ``dtype`` (no copy if it already is)."""
    return t._data if t._data.dtype == dtype else t._data.astype(dtype)


def broadcast_shapes(a: tuple, b: tuple) -> tuple:
    """Broadcast two shapes; RuntimeError with PyTorch's wording when they do not match."""
    if a == b or not b:  # (the common cases: equal shapes, a Python scalar operand)
        return tuple(a)
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = [0] * n
    for i in range(n - 1, -1, -1):  # PyTorch checks from the last dim, so reports that first
        x, y = pa[i], pb[i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                               f"at non-singleton dimension {i}")
        out[i] = y if x == 1 else x
    return tuple(out)


def at_version(t: Tensor, n: int) -> Tensor:
    """``t`` (a new gradient) with its version counter moved on by ``n``: the in-place ops
    PyTorch's backward formula ran on the tensor it returns (``zeros(...).scatter_(...)``:
    2), visible as ``x.grad._version`` once AccumulateGrad takes it over."""
    t._vc.value += n
    return t


def sum_to(g: Tensor, shape: tuple) -> Tensor:
    """Reduce a broadcast gradient back to ``shape`` (sum over expanded dims), as PyTorch's
    ``at::sum_to``: ``g.sum(dims, keepdim=True)``, then a ``view`` when leading dims go
    (``g.sum()`` when ``shape`` is ``()``).
    Used by backward formulas (``g`` a float gradient)."""
    shape, have = tuple(shape), g._data.shape
    if have == shape:
        return g
    lead = len(have) - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and have[i + lead] != 1)
    if grad_mode._tls.grad_enabled:  # create_graph: record SumBackward1 / ViewBackward0
        if not shape:  # to a 0-d tensor: a full sum (SumBackward0), as at::sum_to
            return g.sum()
        if dims:
            g = g.sum(dims, keepdim=True)
        return g.reshape(shape) if g._data.shape != shape else g
    # Nothing is recorded: the same two results, made straight from the arrays (the bias
    # gradient of every linear layer comes this way)
    if dims:
        arr = g._data
        res = np.asarray(quietly(arr.sum, dims, sum_dtype(arr), None, True), dtype=arr.dtype)
        if not arr.flags.c_contiguous:  # (row-major, as PyTorch's sum: see reduction.sum)
            res = np.array(res, order="C")
        g = Tensor._make(res)
    return g._make_view(g._data.reshape(shape)) if g._data.shape != shape else g


def attach(cls, **methods) -> None:
    """Attach op functions as methods of ``Tensor`` (each op family lists its own)."""
    for name, fn in methods.items():
        setattr(cls, name, fn)


def copy_preserving(a: np.ndarray, dtype=None) -> np.ndarray:
    """A copy of ``a`` (cast to ``dtype``) laid out as PyTorch's ``clone()`` / ``to()`` in
    ``preserve_format``: see `empty_preserving`."""
    out = empty_preserving(a, dtype)
    out[...] = a
    return out


def empty_preserving(a: np.ndarray, dtype=None) -> np.ndarray:
    """An uninitialised array (of ``dtype``, default a's) laid out as PyTorch's
    ``empty_like(a, preserve_format)``: a's own strides if it is dense; otherwise dense
    strides in a's order of strides (c10's ``infer_dense_strides``)."""
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    if min(a.strides, default=0) < 0:  # (not a layout PyTorch has)
        return np.empty(a.shape, dtype)
    if _is_dense(a):
        return empty_strided(a.shape, [st // a.itemsize for st in a.strides], dtype)
    perm = dims_by_stride(a.shape, [a.strides])
    return empty_strided(a.shape, _strides_in_order(a.shape, perm), dtype)


def _strides_in_order(shape, perm, zero_as_one: bool = True) -> list:
    """Dense strides (in elements) with the dims of ``perm`` from innermost to outermost; a
    size of 0 multiplies the later strides by 1 (``infer_dense_strides``) or, with
    ``zero_as_one=False``, by 0 (TensorIterator's ``compatible_stride``)."""
    strides, step = [0] * len(shape), 1
    for d in perm:
        strides[d] = step
        step *= max(shape[d], 1) if zero_as_one else shape[d]
    return strides


def iterator_strides(shape, operands) -> list:
    """Strides (in elements) of a new result of ``shape`` computed from inputs with strides
    ``operands`` (aligned with ``shape``, 0 where an input is broadcast), as PyTorch's
    TensorIterator lays out its outputs: row-major unless the inputs' strides order the dims
    otherwise."""
    perm = dims_by_stride(shape, operands)
    if perm == list(range(len(shape)))[::-1]:
        return contiguous_strides(shape)
    return _strides_in_order(shape, perm, zero_as_one=False)


def laid_out(res, *inputs: np.ndarray, common=None, unconverted: int = 0) -> np.ndarray:
    """``res``, the new result NumPy computed elementwise from ``inputs`` (their arrays before
    any cast to the computation dtype ``common``, by default ``res``'s), laid out as PyTorch's
    TensorIterator lays out that op's output (`iterator_layout`): a copy when NumPy chose
    other strides. NumPy's ``order="K"`` follows the inputs only where they agree and falls
    back to row-major where they do not (``x.t() - x`` is row-major in NumPy; PyTorch takes
    the layout of ``x.t()``, its first operand that orders the dims). The first
    ``unconverted`` inputs keep their dtype (``where``'s condition).

    Callers test first that some input is not C-contiguous (then NumPy's result is already
    PyTorch's, and this costs nothing); an empty result keeps the layout `Tensor._make`
    gives it."""
    if not isinstance(res, np.ndarray) or not res.size:
        return res
    common = res.dtype if common is None else common
    if all(i < unconverted or not a.ndim or a.dtype == common for i, a in enumerate(inputs)) \
            and sum(1 for a in inputs if any(a.strides)) < 2:
        return res  # (one input tells the dims apart, the others are expanded numbers: as NumPy)
    want = iterator_layout(res.shape, inputs, common, unconverted)
    if want is None:
        return res if res.flags.c_contiguous else np.ascontiguousarray(res)
    size = res.itemsize
    if all(n == 1 or st == w * size for n, st, w in zip(res.shape, res.strides, want)):
        return res
    out = empty_strided(res.shape, want, res.dtype)
    out[...] = res
    return out


def empty_for(shape, dtype, *inputs: np.ndarray, common=None) -> np.ndarray:
    """An uninitialised result of ``shape`` and ``dtype`` laid out as TensorIterator lays out
    the output of an elementwise op over ``inputs`` (broadcast to ``shape``; ``common``: the
    computation dtype, by default ``dtype``), for kernels that write into ``out=``: see
    `iterator_layout`."""
    want = iterator_layout(tuple(shape), inputs, np.dtype(dtype) if common is None else common)
    if want is None:
        return np.empty(shape, dtype)
    return empty_strided(shape, want, dtype)


_CHANNELS_LAST_ORDER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}  # dims from innermost


def _channels_last(a: np.ndarray) -> bool:
    """PyTorch's ``is_contiguous(memory_format=channels_last)`` (or ``channels_last_3d``):
    dense with the channel dim innermost, then the spatial dims from the last, then the
    batch dim (dims of size 1 do not count)."""
    order = _CHANNELS_LAST_ORDER.get(a.ndim)
    if order is None:
        return False
    expected = a.itemsize
    for d in order:
        if a.shape[d] != 1:
            if a.strides[d] != expected:
                return False
            expected *= a.shape[d]
    return True


def iterator_layout(shape: tuple, inputs, common, unconverted: int = 0) -> list | None:
    """Strides (in elements) of the output PyTorch's TensorIterator allocates for an
    elementwise op of ``shape`` over ``inputs`` (NumPy arrays, broadcast to ``shape``, in the
    op's order of operands), or None for row-major strides. As ``TensorIteratorBase``:

    * fast set-up, when all inputs have one shape (0-dim ones count apart): all contiguous
      gives row-major, all channels-last gives channels-last, all dense with the same
      strides gives those strides;
    * otherwise the dims ordered by the inputs' strides (`dims_by_stride`: the first input
      that tells two dims apart decides; a broadcast dim, stride 0, tells nothing), after
      an input not in the ``common`` dtype was converted as ``.to(common)`` converts it
      (`empty_preserving`: an expanded input gets the dense strides of its order), except
      the first ``unconverted`` ones.
    """
    if any(st < 0 for a in inputs for st in a.strides):  # (not a layout PyTorch has)
        return None
    # (compute_types first: a 0-dim input is a CPU scalar, never converted)
    inputs = [empty_preserving(a, common) if a.ndim and a.dtype != common and i >= unconverted
              else a for i, a in enumerate(inputs)]
    if all(a.shape == shape for a in inputs):  # (fast_set_up)
        if all(a.flags.c_contiguous for a in inputs):
            return None
        if all(_channels_last(a) for a in inputs):
            perm = _CHANNELS_LAST_ORDER[len(shape)]
            return _strides_in_order(shape, perm, zero_as_one=False)
        first = inputs[0].strides
        if all(a.strides == first and _is_dense(a) for a in inputs):
            return [st // inputs[0].itemsize for st in first]
    operands = []
    for a in inputs:
        lead, size = len(shape) - a.ndim, a.itemsize  # (TensorIterator's compute_strides:
        operands.append([0] * lead + [  # stride 0 where broadcast; np.broadcast_to would
            0 if n == 1 and shape[lead + i] != 1 else st // size  # zero every size-1 dim)
            for i, (n, st) in enumerate(zip(a.shape, a.strides))])
    perm = dims_by_stride(shape, operands)
    if perm == list(range(len(shape)))[::-1]:
        return None
    return _strides_in_order(shape, perm, zero_as_one=False)


def dims_by_stride(shape, operands) -> list:
    """The dims, innermost first, in the order of the operands' strides: an insertion sort of
    the reversed dims (c10's ``infer_dense_strides``, TensorIterator's
    ``reorder_dimensions``), where the first operand that tells two dims apart decides."""
    perm = list(range(len(shape)))[::-1]
    for i in range(1, len(shape)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            order = _stride_order(shape, operands, perm[d0], perm[d1])
            if order < 0:
                break
            if order > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
    return perm


def _stride_order(shape, operands, d0: int, d1: int) -> int:
    """1 if dim ``d0`` goes outside ``d1`` (a larger stride, or an equal one and a larger
    size), -1 if inside, 0 when no operand tells (a stride of 0 is a broadcast: ambiguous)."""
    for st in operands:
        s0, s1 = st[d0], st[d1]
        if s0 == 0 or s1 == 0:
            continue
        if s0 != s1:
            return 1 if s0 > s1 else -1
        if shape[d0] > shape[d1]:
            return 1
    return 0
