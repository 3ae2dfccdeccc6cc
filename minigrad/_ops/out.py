"""``out=``: the torch-namespace functions writing their result into a given tensor.

Mirrors the ``out=`` overloads of ``aten/src/ATen/native/native_functions.yaml`` and how they
behave at run time: the autograd check of the generated ``VariableType`` kernels ("functions
with out=... arguments don't support automatic differentiation"), ``at::native::resize_output``
(``aten/src/ATen/native/Resize.cpp``: an out tensor of the wrong shape is resized, with a
deprecation warning when it held elements), and each kernel's own dtype check.

One mechanism serves every function: `out_variant` wraps the out-of-place function (the one
``Tensor`` methods use, which take no ``out=``, as in PyTorch) and `write_out` runs it without
recording a graph, checks, resizes and writes ``out``, bumps its version once and returns it.
What differs between functions is data, listed in `minigrad/__init__.py` where the wrapped
names are made: the name the autograd error gives, and which dtype rule the kernel applies
(`DTYPE_RULES`: TensorIterator ops cast their result when the cast is safe, others want the
exact dtype and each says so in its own words).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import warnings

import numpy as np

from .._dtype import is_float_np
from .._tensor import Tensor
from .._type_promotion import can_cast
from ..autograd import grad_mode
from ..autograd import graph as _graph

AUTOGRAD_MSG = ("{name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad.")
RESIZE_WARNING = ("An output with one or more elements was resized since it had shape {old}, "
                  "which does not match the required output shape {new}. This behavior is "
                  "deprecated, and in a future PyTorch release outputs will not be resized unless "
                  "they have zero elements. You can explicitly reuse an out tensor t by resizing "
                  "it, inplace, to zero elements with t.resize_(0).")

def _name(d) -> str:  # "Float", "Long" (as ``ScalarType`` prints)
    return d.dtype._legacy[:-6]


def _cname(d) -> str:  # "float", "long int" (the C++ type name)
    return d.dtype._c_name


# Each rule: (result, out, first input tensor, function name) -> None, or the error to raise.
# (``clamp`` picks its rule by its bounds: see `_clamp`.)
def _cast(r, out, x, name):
    if not can_cast(r.dtype, out.dtype):
        return RuntimeError(f"result type {_name(r)} can't be cast to the desired output type "
                            f"{_name(out)}")


def _cat_cast(r, out, x, name):
    if not can_cast(r.dtype, out.dtype):
        return TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                         f"{_name(out)}")


def _same(message):
    def rule(r, out, x, name):
        if r._data.dtype != out._data.dtype:
            return RuntimeError(message.format(r=_name(r), o=_name(out), rc=_cname(r),
                                               oc=_cname(out), x=_name(x), name=name))
    return rule


def _bool_out(message):
    def rule(r, out, x, name):
        if out._data.dtype != np.bool_:
            return RuntimeError(message.format(o=_name(out), name=name))
    return rule


def _clamp(r, out, x, name, tensor_bounds=False):
    """clamp with number bounds keeps the input dtype ("found"); tensor bounds promote
    ("cast")."""
    return (_cast if tensor_bounds else DTYPE_RULES["found"])(r, out, x, name)


def _mean(r, out, x, name):
    """mean into an integer out (PyTorch's message names Float whatever the input)."""
    if not is_float_np(out._data.dtype):
        return RuntimeError(f"result type Float can't be cast to the desired output type "
                            f"{_name(out)}")


def _cumulative(r, out, x, name):
    """cumsum/cumprod (run in out's dtype): no kernel for bool."""
    if out._data.dtype == np.bool_:
        return NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')


def _float_out(r, out, x, name):
    if not is_float_np(out._data.dtype):
        return RuntimeError(f"{name}(): Expected floating point type for result tensor, but "
                            f"got: {_name(out)}")


def _diag_cast(r, out, x, name):
    """diag of a vector (``diag_embed``) checks the cast first, in its own words, before
    resizing ``out``; both kinds of input then want the exact dtype ("expected")."""
    if x.ndim == 1 and not can_cast(r.dtype, out.dtype):
        return RuntimeError(f"diag: result type {_name(r)} can't be cast to the desired out= "
                            f"type {_name(out)}")


def _diag_autograd_name(input, *args, **kwargs) -> str:
    """``diag`` runs ``diag_embed`` (a vector) or ``diagonal_copy`` (a matrix)."""
    return "aten::diag_embed" if input.ndim == 1 else "aten::diagonal_copy"


def _searchsorted(r, out, x, name):
    """searchsorted/bucketize: int64 out, or int32 with ``out_int32`` (the result's dtype)."""
    if r._data.dtype != out._data.dtype:
        flag = r._data.dtype == np.int32
        return RuntimeError("torch.searchsorted(): output tensor's dtype is wrong, it can only "
                            "be Int(int32) or Long(int64) depending on whether out_int32 flag "
                            f"is True, but we got output tensor's dtype {_name(out)} and "
                            f"out_int32 flag is {flag}")


DTYPE_RULES = {
    "cast": _cast,  # TensorIterator: computed in the promoted dtype, cast when safe
    "cat": _cat_cast,
    "found": _same("Found dtype {o} but expected {r}"),  # unary ops keeping the input dtype
    "expected": _same("Expected out tensor to have dtype {rc}, but got {oc} instead"),
    "where": _same("Expected out type to be {r} but got {o}"),
    "amax": _same("Expected the dtype for input and out to match, but got {x} for input's "
                  "dtype and {o} for out's dtype."),
    "dot": _same("result dtype {o} does not match input dtype {x}"),
    "same_scalar": _same("{name}(): self and result must have the same scalar type"),
    "nan_to_num": _same("nan_to_num: dtype of out: {o} should be same as input: {x}"),
    "logcumsumexp": _same("expected scalar_type {r} but found {o}"),
    "all_any": _bool_out("{name} only supports bool tensor for result, got: {o}"),
    "isinf_sign": _bool_out("{name} does not support non-boolean outputs."),
    "float_out": _float_out,
    "mean": _mean,
    "cumulative": _cumulative,
    "addbmm": _same("self and mat2 must have the same dtype, but got {o} and {r}"),
    "nonzero": _same("nonzero: Expected out tensor to have scalar type Long but got scalar "
                     "type{o}"),
    "diag_cast": _diag_cast,
    "searchsorted": _searchsorted,
}


def _tensors(args, kwargs) -> list:
    """The tensor arguments (a list of tensors, as ``cat`` takes, counts its elements)."""
    found = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found += [t for t in a if isinstance(t, Tensor)]
    return found


def _reduce_dtype(kwargs, out, float_only) -> dict:
    """``sum``/``prod``/``cumsum``/``mean``'s ``dtype`` from ``out`` (the reduction runs in
    it); RuntimeError when an explicit ``dtype`` differs. ``float_only``: ``mean``, which
    keeps its own dtype (and then the cast rule) for an integer out."""
    given = kwargs.get("dtype")
    if given is not None:
        from .._dtype import from_numpy_dtype, to_numpy_dtype

        if to_numpy_dtype(given) != out._data.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype "
                               f"{from_numpy_dtype(to_numpy_dtype(given))._c_name}, but got "
                               f"{_cname(out)} instead")
        return kwargs
    if float_only and not is_float_np(out._data.dtype):
        return kwargs
    return dict(kwargs, dtype=out.dtype)


def _watch_write(out: Tensor) -> None:
    """Tell ``allow_mutation_on_saved_tensors`` (when active) that ``out`` is about to be
    overwritten, so a saved tensor sharing its storage is copied first, as PyTorch's
    dispatch mode sees an ``out=`` op before its kernel runs."""
    if _graph.before_inplace is not None:
        _graph.before_inplace(out)


def write_out(fn, args, kwargs, out, *, public: str, autograd_name: str, rule: str,
              differentiable: bool = True, reduce_dtype: str | None = None,
              resize_first: bool | str = False, warn_resize: bool = True,
              stacklevel: int = 3) -> Tensor:
    """``fn(*args, **kwargs)`` written into ``out``; returns ``out`` (the same object).

    In PyTorch's order: ``out`` must be a Tensor (TypeError); with grad mode on, no argument
    of a differentiable function may require grad, ``out`` included (RuntimeError); the
    result is computed (the op's own errors); the dtype rule is applied; ``out`` is resized
    when its shape differs (UserWarning when it had elements; the new ``out`` is contiguous);
    an ``out`` whose elements share memory (expanded), or an input overlapping ``out`` in
    part, is refused; the result is written (cast to ``out``'s dtype) and ``out._version``
    goes up by one. ``out``'s own history is left as it is. ``resize_first``: the kernels
    that resize ``out`` before their dtype check (``std``, ``var``, ``mean``, ``dot``,
    ``stack``, ``cumsum``); a key of `DTYPE_RULES`: that check first, then the resize
    (``diag``).
    A resized ``out`` (not a view) takes the result's layout, as TensorIterator restrides
    it (``exp(x.t(), out=empty(0))`` is transposed too). ``warn_resize=False``: kernels that
    resize with ``resize_`` (``addbmm``), silently. ``autograd_name`` may be a function of
    the arguments (``diag``)."""
    from ._util import internal_overlap
    from .inplace import OVERLAP_MSG, _check_overlap, bump

    if not isinstance(out, Tensor):
        raise TypeError(f"{public}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if callable(autograd_name):
        autograd_name = autograd_name(*args, **kwargs)
    inputs = _tensors(args, kwargs)
    if differentiable and grad_mode.is_grad_enabled() and (out.requires_grad or (
            differentiable != "out" and any(t.requires_grad for t in inputs))):
        raise RuntimeError(AUTOGRAD_MSG.format(name=autograd_name))
    _watch_write(out)
    if reduce_dtype is not None:
        kwargs = _reduce_dtype(kwargs, out, float_only=reduce_dtype == "float")
    with grad_mode.no_grad(), _no_tangents():
        r = fn(*args, **kwargs)
    if isinstance(resize_first, str):  # a check the kernel makes before resizing
        error = DTYPE_RULES[resize_first](r, out, inputs[0] if inputs else r, public)
        if error is not None:
            raise error
    if resize_first:
        _resize_output(out, r, stacklevel + 1, warn=warn_resize)
    x = inputs[0] if inputs else r
    if rule == "clamp":
        error = _clamp(r, out, x, public, tensor_bounds=len(inputs) > 1)
    else:
        error = DTYPE_RULES[rule](r, out, x, public)
    if error is not None:
        raise error
    _resize_output(out, r, stacklevel + 1, warn=warn_resize)
    if internal_overlap(out._data):
        raise RuntimeError(OVERLAP_MSG)
    for t in inputs:
        if t._data is not out._data and np.shares_memory(t._data, out._data):
            _check_overlap(out, t)
    if out._data.size:
        from ._util import quiet_fp

        with quiet_fp():
            out._data[...] = r._data
    bump(out)
    if _graph.fw_on:
        _refuse_tangents(inputs + [out], autograd_name if differentiable == "out"
                         else autograd_name + "_out")
    if differentiable == "out":  # (PyTorch gives out the op's NotImplemented history)
        from ..autograd.graph import record
        from .pointwise_binary import NotImplemented

        record(NotImplemented, out, [t for t in inputs if t.requires_grad], autograd_name)
    return out


def _pair_expected(rv, ri, ov, oi, x, name):
    """``max``/``min``/``sort``/``topk``: each out of its result's exact dtype, values first."""
    return DTYPE_RULES["expected"](rv, ov, x, name) or DTYPE_RULES["expected"](ri, oi, x, name)


def _pair_kthvalue(rv, ri, ov, oi, x, name):
    if ov._data.dtype != rv._data.dtype:
        return RuntimeError("output values must be of same type as input")
    if oi._data.dtype != np.int64:
        return RuntimeError("output indices must be of scalar type Long")


def _pair_mode(rv, ri, ov, oi, x, name):
    for r, o, which in ((rv, ov, "values"), (ri, oi, "indices")):
        if o._data.dtype != r._data.dtype:
            return RuntimeError(f"expected scalar type '{_name(r)}' but got '{_name(o)}' for "
                                f"{which} output")


def _pair_median(rv, ri, ov, oi, x, name):
    """``median``/``nanmedian`` (both name ``median`` in the message): indices first."""
    if oi._data.dtype != np.int64:
        return RuntimeError(f"Expected tensor for argument #1 'indices' to have scalar type "
                            f"Long; but got torch.{oi.dtype._legacy} instead (while checking "
                            f"arguments for median)")
    if ov._data.dtype != rv._data.dtype:
        return RuntimeError(f"Expected tensor for 'values' to have the same type as tensor for "
                            f"argument #2 'self'; but type torch.{ov.dtype._legacy} does not "
                            f"equal torch.{x.dtype._legacy} (while checking arguments for "
                            f"median)")


# Each rule: (values, indices results, the two outs, input, function name) -> None or the error.
PAIR_RULES = {"expected": _pair_expected, "kthvalue": _pair_kthvalue, "mode": _pair_mode,
              "median": _pair_median}


def write_out_pair(fn, args, kwargs, out, *, public: str, rule: str = "expected",
                   autograd_name: str | None = None, size: int = 2, stacklevel: int = 3):
    """``fn(*args, **kwargs)`` (a ``(values, indices)`` named tuple: ``max``/``min`` over a
    dim, ``sort``, ``topk``) written into the two tensors of ``out``; returns the same named
    tuple type holding them. As `write_out`, each tensor checked for the exact dtype of its
    result (``rule``, a key of `PAIR_RULES`: each kernel words it, and orders the two checks,
    its own way), then resized (with the warning) and written; each version goes up by one.
    ``median``/``nanmedian`` over all elements have no ``out=`` pair: TypeError, as
    PyTorch's argument parser. ``size``: how many tensors (``linalg.svd``: three)."""
    from .inplace import bump

    if public in ("median", "nanmedian") and len(args) < 2 and "dim" not in kwargs:
        raise TypeError(f'{public}() missing 1 required positional arguments: "dim"')
    if not (isinstance(out, (tuple, list)) and all(isinstance(t, Tensor) for t in out)):
        raise TypeError(f"{public}(): argument 'out' must be tuple of Tensors, not "
                        f"{type(out).__name__}")
    if len(out) != size:
        raise TypeError(f"expected tuple of {size} elements but got {len(out)}")
    inputs = _tensors(args, kwargs)
    if grad_mode.is_grad_enabled() and any(t.requires_grad for t in list(out) + inputs):
        raise RuntimeError(AUTOGRAD_MSG.format(name=autograd_name or public))
    with grad_mode.no_grad(), _no_tangents():
        result = fn(*args, **kwargs)
    x = inputs[0] if inputs else result[0]
    if size == 2:
        error = PAIR_RULES[rule](result[0], result[1], out[0], out[1], x, public)
        values_fit = out[0]._data.dtype == result[0]._data.dtype
        if error is not None and values_fit and rule in ("expected", "kthvalue"):
            # (these kernels resize the values out before checking the indices one)
            if rule == "kthvalue":
                _resize_kept_values(fn, args, kwargs, out[0], result[0], stacklevel + 1)
            else:
                _resize_output(out[0], result[0], stacklevel + 1)
    else:  # (svd: each out of its result's exact dtype, in order)
        error = next(filter(None, (DTYPE_RULES[rule](r, o, x, public)
                                   for r, o in zip(result, out))), None)
    if error is not None:
        raise error
    shown = _kept_dim_shapes(fn, args, kwargs, rule)
    for r, o in zip(result, out):
        _resize_output(o, r, stacklevel + 1, shown(o, r) if shown else None)
        if o._data.size:
            o._data[...] = r._data
        bump(o)
    if _graph.fw_on:
        _refuse_tangents(inputs + list(out), (autograd_name or public) + "_out")
    return type(result)(*out)


@contextlib.contextmanager
def _no_tangents():
    """Forward AD off while an ``out=`` form computes its result (PyTorch's out kernels make
    no tangent; `_refuse_tangents` then refuses dual arguments)."""
    on = _graph.fw_on
    _graph.fw_on = False
    try:
        yield
    finally:
        _graph.fw_on = on


def _refuse_tangents(tensors, name: str) -> None:
    """Forward AD has no ``out=`` forms: PyTorch's NotImplementedError (raised once the result
    is written) when an input or ``out`` carries a tangent. ``name``: ``sin_out``, or the
    ``aten::`` name of an op without a derivative (``floor_divide``)."""
    from ..autograd.forward_ad import fw_grad

    if any(fw_grad(t) is not None for t in tensors):
        if name.startswith("aten::"):
            raise NotImplementedError(f"Trying to use forward AD with {name} that does not "
                                      "support it.")
        raise NotImplementedError(f"Trying to use forward AD with {name} that does not support "
                                  "it because it is an out= function")


def write_out_copy(fn, args, kwargs, out, *, public: str, kernel: str,
                   stacklevel: int = 3) -> Tensor:
    """The ``out=`` of a composite function (``linalg.matrix_norm``, ``linalg.norm``): the
    result is computed as without ``out`` (recording its graph), checked for ``out``'s exact
    dtype ("{kernel} expected out tensor dtype ..."), ``out`` is resized (with the warning)
    and ``out.copy_(result)`` run: so ``out`` requiring grad gets the in-place leaf error
    (after the resize) and an input requiring grad gives ``out`` a ``CopyBackwards``
    history. Returns ``out``."""
    from .inplace import copy_

    if not isinstance(out, Tensor):
        got = ", ".join([type(a).__name__ for a in args]
                        + [f"{k}={type(v).__name__}" for k, v in dict(out=out, **kwargs).items()])
        raise _invalid_out(public, got)
    r = fn(*args, **kwargs)
    if r._data.dtype != out._data.dtype:
        raise RuntimeError(f"{kernel} expected out tensor dtype {_name(r)} but got: "
                           f"{_name(out)}")
    _resize_output(out, r, stacklevel + 1)
    return copy_(out, r)


# The overloads PyTorch's argument parser lists when a composite norm gets an ``out`` that is not
# a tensor (ord as a number, or as a string).
_NORM_FORMS = {
    "linalg_matrix_norm": ("Number ord, tuple of ints dim = {-2,-1}",
                           'str ord = "fro", tuple of ints dim = {-2,-1}'),
    "linalg_norm": ("Number ord = None, tuple of ints dim = None",
                    "str ord, tuple of ints dim = None"),
}


def _invalid_out(public: str, got: str) -> TypeError:
    """PyTorch's TypeError for a composite norm's ``out`` that is not a tensor: its overloads,
    then what to pass."""
    forms = "".join(f"\n * (Tensor input, {f}, bool keepdim = False, *, torch.dtype dtype = "
                    f"None, Tensor out = None)" for f in _NORM_FORMS[public])
    return TypeError(f"{public}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:{forms}\nout= takes a Tensor (of the result's dtype; "
                     f"it is resized to the result's shape), or leave it out to get a new tensor.")


def _resize_kept_values(fn, args, kwargs, out, r, stacklevel: int) -> None:
    """``kthvalue`` resizes its values out (to the kept-dim shape, with the warning) before
    it checks the indices out's dtype: an error there leaves values resized."""
    from .resize import resize_storage

    shown = _kept_dim_shapes(fn, args, kwargs, "kthvalue")
    old, new = shown(out, r) if shown else (list(out.shape), list(r.shape))
    if old != new and out.numel() != 0:
        warnings.warn(RESIZE_WARNING.format(old=old, new=new), UserWarning,
                      stacklevel=stacklevel)
    if list(out.shape) != new:
        resize_storage(out, tuple(new))


def _kept_dim_shapes(fn, args, kwargs, rule):
    """``kthvalue``/``mode`` without ``keepdim`` resize their outs to the kept-dim shape:
    first ``out.unsqueeze_(dim)`` (``mode`` always, ``kthvalue`` when ``out`` has one dim less
    than the input), then ``resize_output`` to the shape with ``dim`` kept, then squeeze. A
    function ``(out, result) -> (old, new)``, the shapes the warning names (or None when the
    kernel resizes plainly)."""
    if rule not in ("kthvalue", "mode"):
        return None
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    a = bound.arguments
    x, keepdim = a["input"], a["keepdim"]
    d = a["dim"] % x.ndim if x.ndim else 0
    if keepdim or x.ndim == 0:
        return None

    def shapes(o, r):
        old = list(o.shape)
        if (rule == "mode" or o.ndim == x.ndim - 1) and d <= o.ndim:
            old.insert(d, 1)
        new = list(r.shape)
        new.insert(d, 1)
        return old, new

    return shapes


def _laid_out(r: Tensor) -> bool:
    """Whether ``r`` has strides other than row-major ones. NumPy's contiguity flag does not
    say: it ignores the strides of length-1 dims and of empty arrays (``nonzero``'s empty
    result has strides ``(1, 0)``)."""
    if not r._data.flags.c_contiguous:
        return True
    from .._tensor import contiguous_strides

    return min(r.shape, default=2) <= 1 and list(r.stride()) != contiguous_strides(r.shape)


def _resize_output(out: Tensor, r: Tensor, stacklevel: int, shown=None,
                   warn: bool = True) -> None:
    """PyTorch's ``resize_output``: ``out`` gets ``r``'s shape (a warning if it had elements).
    ``shown``: the ``(old, new)`` shapes the kernel resizes between, when not these two (see
    `_kept_dim_shapes`)."""
    from ._util import _is_dense, empty_preserving
    from .resize import resize_storage

    old, new = shown or (list(out.shape), list(r.shape))
    if warn and old != new and out.numel() != 0:
        warnings.warn(RESIZE_WARNING.format(old=old, new=new), UserWarning,
                      stacklevel=stacklevel)
    if tuple(out.shape) == tuple(r.shape):
        return
    if out._base is None and _laid_out(r) and _is_dense(r._data):
        out._data = empty_preserving(r._data, out._data.dtype)
    else:
        resize_storage(out, tuple(r.shape))


def _norm_out_type_error(args, kwargs, out):
    """``torch.norm(..., out=<not a tensor>)``: the TypeError of the function it dispatches
    to, ``linalg_matrix_norm`` for ``p='nuc'`` (with PyTorch's list of the arguments it passed
    on: input, ord, dim, keepdim, then out and dtype), else ``linalg_vector_norm``."""
    p = args[1] if len(args) > 1 else kwargs.get("p", "fro")
    if p == "nuc":
        dim = args[2] if len(args) > 2 else kwargs.get("dim")
        got = f"Tensor, str, {'list' if dim is None else type(dim).__name__}, bool, " \
              f"out={type(out).__name__}, dtype={type(kwargs.get('dtype')).__name__}"
        raise _invalid_out("linalg_matrix_norm", got)
    raise TypeError(f"linalg_vector_norm(): argument 'out' must be Tensor, not "
                    f"{type(out).__name__}\nout= takes a Tensor, or leave it out to get a new "
                    f"tensor.")


def _with_out_parameter(fn) -> inspect.Signature:
    """``fn``'s signature plus a keyword-only ``out=None`` (what ``help()`` and the API pages
    show for the wrapped function)."""
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
    out = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
    tail = [p for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD]
    return sig.replace(parameters=params + [out] + tail)


def out_variant(fn, autograd_name: str | None = None, rule: str = "cast", *,
                public: str | None = None, differentiable: bool = True,
                reduce_dtype: str | None = None, resize_first: bool = False,
                pair: bool | int = False, warn_resize: bool = True, copy: str | None = None):
    """``fn`` with an ``out=`` keyword (the torch-namespace form of an op; see `write_out`).

    ``autograd_name``: the op name PyTorch's autograd error gives (``torch.square`` says
    ``pow``); ``rule``: a key of `DTYPE_RULES`; ``differentiable=False`` for ops with no
    gradient (comparisons), which PyTorch does not check; ``"out"`` for ops whose gradient is
    "not implemented" (``floor_divide``), where only an ``out`` requiring grad is refused
    (and ``out`` gets the op's ``NotImplemented`` history); ``reduce_dtype``: ``"any"`` when
    the op reduces in ``out``'s dtype (``sum``), ``"float"`` when only a float ``out`` is
    (``mean``); ``pair``: the op returns ``(values, indices)`` and ``out`` is a pair of
    tensors (`write_out_pair`; ``max``/``min`` without a dim take one tensor); ``copy``:
    the function is a composite writing with ``copy_`` (`write_out_copy`; the name its dtype
    error gives).
    """
    public = public or fn.__name__
    autograd_name = autograd_name or public

    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if public == "nonzero" and kwargs.get("as_tuple"):
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        if public == "norm" and not isinstance(out, Tensor):  # (torch.norm's out goes to
            return _norm_out_type_error(args, kwargs, out)  # vector_norm or matrix_norm)
        if copy:
            return write_out_copy(fn, args, kwargs, out, public=public, kernel=copy)
        if pair and not (public in ("max", "min") and len(args) < 2 and "dim" not in kwargs):
            return write_out_pair(fn, args, kwargs, out, public=public,
                                  rule=rule if rule in PAIR_RULES else "expected",
                                  autograd_name=autograd_name, size=2 if pair is True else pair)
        return write_out(fn, args, kwargs, out, public=public, autograd_name=autograd_name,
                         rule=rule, differentiable=differentiable, reduce_dtype=reduce_dtype,
                         resize_first=resize_first, warn_resize=warn_resize)

    with_out.__signature__ = _with_out_parameter(fn)
    with_out.__doc__ = (fn.__doc__ or "") + (
        "\n\n    ``out=``: the result is written into this tensor and returned (see "
        "``minigrad._ops.out.write_out``).")
    return with_out


# The torch-namespace functions with an ``out=`` form in PyTorch, as (public name, name in
# PyTorch's autograd error, dtype rule, options of `out_variant`). Aliases are listed with
# their own public name (``clip``'s TypeError says ``clip()``, its autograd error ``clamp()``).
_NONDIFF = {"differentiable": False}
OUT_FORMS = [
    # unary ops that keep the input dtype ("found"), and those computing in a float ("cast")
    *[(n, n, "found", {}) for n in ("abs", "ceil", "floor", "round", "trunc", "frac", "neg",
                                    "sgn", "sign")],
    ("fix", "trunc", "found", {}), ("absolute", "abs", "found", {}),
    ("negative", "neg", "found", {}),
    *[(n, n, "cast", {}) for n in (
        "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "exp2",
        "expm1", "log", "log10", "log1p", "log2", "reciprocal", "rsqrt", "sigmoid", "sin",
        "sinh", "sqrt", "tan", "tanh")],
    *[("arc" + n, "a" + n, "cast", {}) for n in ("sin", "cos", "tan", "sinh", "cosh", "tanh")],
    ("square", "pow", "cast", {}), ("nan_to_num", "nan_to_num", "nan_to_num", {}),
    *[(n, n, "cast", _NONDIFF) for n in ("logical_not", "logical_and", "logical_or",
                                         "logical_xor")],
    ("isneginf", "isneginf", "isinf_sign", _NONDIFF),
    ("isposinf", "isposinf", "isinf_sign", _NONDIFF),
    # binary and ternary pointwise ops (TensorIterator: cast when safe)
    *[(n, n, "cast", {}) for n in ("add", "sub", "mul", "div", "pow", "atan2", "fmax", "fmin",
                                   "fmod", "hypot", "remainder", "maximum", "minimum", "lerp",
                                   "addcmul", "addcdiv")],
    ("arctan2", "atan2", "cast", {}), ("outer", "mul", "cast", {}),  # (ger: linalg_more.ger)
    *[(n, n, "cast", _NONDIFF) for n in ("eq", "ne", "lt", "le", "gt", "ge")],
    *[(n, a, "cast", _NONDIFF) for n, a in (("greater", "gt"), ("greater_equal", "ge"),
                                            ("less", "lt"), ("less_equal", "le"),
                                            ("not_equal", "ne"))],
    ("floor_divide", "aten::floor_divide", "cast", {"differentiable": "out"}),
    ("where", "where", "where", {}),
    *[(n, "clamp" if n == "clip" else n, "clamp", {}) for n in ("clamp", "clip", "clamp_min",
                                                                 "clamp_max")],
    # linear algebra
    *[(n, n, "expected", {}) for n in ("mm", "matmul", "bmm", "mv", "addmm", "addmv",
                                       "baddbmm")],
    ("cross", "linalg_cross", "expected", {}), ("dot", "dot", "dot", {"resize_first": True}),
    # reductions
    *[(n, n, "cast", {"reduce_dtype": "any"}) for n in ("sum", "prod")],
    *[(n, n, "cumulative", {"reduce_dtype": "any", "resize_first": True})
      for n in ("cumsum", "cumprod")],
    ("mean", "mean", "mean", {"reduce_dtype": "float", "resize_first": True}),
    ("std", "std", "cast", {"resize_first": True}), ("var", "var", "cast", {"resize_first": True}),
    ("logsumexp", "logsumexp", "float_out", {}), ("logcumsumexp", "logcumsumexp",
                                                  "logcumsumexp", {}),
    ("amax", "amax", "amax", {}), ("amin", "amin", "amax", {}),
    ("all", "all", "all_any", _NONDIFF), ("any", "any", "all_any", _NONDIFF),
    ("norm", "linalg_vector_norm", "expected", {}),
    *[(n, n, "expected", {"pair": True}) for n in ("max", "min", "sort", "topk")],
    ("kthvalue", "kthvalue", "kthvalue", {"pair": True}), ("mode", "mode", "mode", {"pair": True}),
    ("median", "median", "median", {"pair": True}),
    ("nanmedian", "nanmedian", "median", {"pair": True}),
    # joining, indexing, triangles
    ("cat", "cat", "cat", {}), ("stack", "stack", "cat", {"resize_first": True}),
    ("gather", "gather", "expected", {}), ("take_along_dim", "gather", "expected", {}),
    ("index_select", "index_select", "same_scalar", {}),
    ("masked_select", "masked_select", "same_scalar", {}),
    ("tril", "tril", "expected", {}), ("triu", "triu", "expected", {}),
    ("addbmm", "addbmm", "addbmm", {"warn_resize": False, "resize_first": True}),
    ("nonzero", "nonzero", "nonzero", _NONDIFF),
    ("msort", "sort", "expected", {}),
    ("searchsorted", "searchsorted", "searchsorted", _NONDIFF),
    ("bucketize", "bucketize", "searchsorted", _NONDIFF),
    # (out gets the NotImplemented history when the input requires grad)
    ("diag", _diag_autograd_name, "expected", {"differentiable": "out",
                                                "resize_first": "diag_cast"}),
]


# The ``torch.linalg`` functions with an ``out=`` form: (name in ``minigrad.linalg``, name in
# PyTorch's messages, name in its autograd error, dtype rule, options of `out_variant`).
LINALG_OUT_FORMS = [
    ("cross", "linalg_cross", "linalg_cross", "expected", {}),
    ("vector_norm", "linalg_vector_norm", "linalg_vector_norm", "expected", {}),
    ("svdvals", "linalg_svdvals", "_linalg_svd", "expected", {}),
    ("svd", "linalg_svd", "_linalg_svd", "expected", {"pair": 3}),
    ("matrix_norm", "linalg_matrix_norm", "", "expected", {"copy": "linalg.matrix_norm"}),
    ("norm", "linalg_norm", "", "expected", {"copy": "linalg.norm"}),
]


def add_linalg_out_forms(namespace: dict) -> None:
    """`add_out_forms` for ``minigrad.linalg``'s namespace (`LINALG_OUT_FORMS`)."""
    for name, public, autograd_name, rule, options in LINALG_OUT_FORMS:
        namespace[name] = out_variant(namespace[name], autograd_name or public, rule,
                                      public=public, **options)


def add_out_forms(namespace: dict) -> None:
    """Replace each function of `OUT_FORMS` in ``namespace`` (the ``minigrad`` module's) by
    its `out_variant`. The ``Tensor`` methods keep the plain functions."""
    for public, autograd_name, rule, options in OUT_FORMS:
        namespace[public] = out_variant(namespace[public], autograd_name, rule, public=public,
                                        **options)


ARANGE_WARNING = ("The number of elements in the out tensor of shape {old} is {n_old} which does "
                  "not match the computed number of elements {n_new}. Note that this may occur "
                  "as a result of rounding error. The out tensor will be resized to a tensor of "
                  "shape ({n_new},).")


def creation_out(public: str, out, make, dtype=None, requires_grad: bool = False, *,
                 fill: bool = True, resize_first: bool = False, stacklevel: int = 3) -> Tensor:
    """A factory's ``out=`` (``zeros``, ``arange``, ``eye`` ...): ``make(np_dtype)`` (the values,
    as an array) written into ``out`` in ``out``'s dtype; returns ``out``.

    ``out`` of another shape is resized without a warning (``arange`` warns when the number of
    elements differs, and keeps ``out``'s shape when it does not, as ``linspace``/``logspace``);
    ``_version`` goes up by one; ``out.requires_grad`` becomes the ``requires_grad`` argument.
    ``fill=False`` (``empty``): nothing is written and the version changes only when ``out``
    is resized. ``resize_first``
    (``randn``): PyTorch resizes ``out`` with ``resize_`` before anything else, so an ``out``
    requiring grad gets the resize error, as with ``empty``, and a resized ``out`` is bumped
    twice.

    Raises:
        TypeError: ``out`` is not a Tensor.
        RuntimeError: ``dtype`` given and not ``out``'s; ``out`` requires grad with grad mode
            on (``empty``: PyTorch's resize error, in any grad mode).
    """
    from .._dtype import from_numpy_dtype, to_numpy_dtype
    from .inplace import bump
    from .resize import RESIZE_GRAD_MSG, resize_storage

    if not isinstance(out, Tensor):
        raise TypeError(f"{public}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if dtype is not None and to_numpy_dtype(dtype) != out._data.dtype:
        raise RuntimeError(f"dtype {from_numpy_dtype(to_numpy_dtype(dtype))._legacy[:-6]} does "
                           f"not match dtype of out parameter ({_name(out)})")
    if not fill or resize_first:
        if out.requires_grad:
            raise RuntimeError(RESIZE_GRAD_MSG)
    elif grad_mode.is_grad_enabled() and out.requires_grad:
        raise RuntimeError(AUTOGRAD_MSG.format(name=f"aten::{public}"))
    if _graph.fw_on:
        from ..autograd.forward_ad import fw_grad

        if fw_grad(out) is not None:  # (PyTorch's errors, before anything is written)
            if not fill or resize_first:
                raise RuntimeError("cannot resize variables that has a forward grad")
            raise NotImplementedError(f"Trying to use forward AD with aten::{public} that does "
                                      "not support it.")
    arr = np.asarray(make(out._data.dtype))
    resized = tuple(out.shape) != arr.shape
    if public in ("arange", "linspace", "logspace") and out.numel() == arr.size:
        arr, resized = arr.reshape(out.shape), False
    elif public == "arange" and resized and out.numel():
        warnings.warn(ARANGE_WARNING.format(old=list(out.shape), n_old=out.numel(),
                                            n_new=arr.size), UserWarning, stacklevel=stacklevel)
    if resized:
        resize_storage(out, arr.shape)
    if fill:
        out._data[...] = arr
    if resized and resize_first:  # (randn: resize_ counts as a change of its own)
        bump(out)
    if fill or resized:
        bump(out)
    if out.requires_grad != requires_grad and out._grad_fn is None:  # (PyTorch sets the flag
        out.requires_grad_(requires_grad)  # to the argument, False by default)
    return out
