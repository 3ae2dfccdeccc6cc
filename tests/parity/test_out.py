"""Parity of ``out=`` on the torch-namespace functions (issue 19, item 3): the out tensor is
filled and returned (the same object), its ``_version`` goes up once, a wrong non-empty shape
is resized with PyTorch's UserWarning (an empty one silently), the autograd error when an
argument requires grad, each kernel's dtype rule, overlap errors, and the factories' ``out=``.

Every case runs the same code on minigrad and PyTorch and compares everything it records
(values, dtype, shape, strides, ``_version``, identity, warnings, exception type and message).
"""

import warnings

import numpy as np
import pytest

import minigrad
from minigrad._ops.out import OUT_FORMS
from minigrad.parity import compare, run_both, to_numpy

R = np.random.default_rng(19)
X = R.uniform(0.2, 0.8, (2, 3)).astype(np.float32)  # in every op's domain (log, acos ...)
Y = R.uniform(0.2, 0.8, (3,)).astype(np.float32)  # broadcast against X
SQ = R.uniform(0.2, 0.8, (3, 3)).astype(np.float32)
IDX = np.array([[0, 1, 0], [1, 0, 1]])


def _message(text: str) -> str:
    """A message without PyTorch's "(Triggered internally at ...)" suffix."""
    return text.split(" (Triggered internally")[0]


def record(L, call, out):
    """Run ``call(out)``; the outcome and the state of ``out`` afterwards, as plain data."""
    v0 = out._version if isinstance(out, L.Tensor) and not out.is_inference() else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = call(out)
            err = None
        except Exception as e:  # noqa: BLE001 - the exception is the thing compared
            r, err = None, (type(e).__name__, _message(str(e)))
    # distinct warnings (what the default filter shows: PyTorch gives some ops' resize
    # warning twice, from two places in its kernel)
    trace = {"error": err, "warnings": sorted({(w.category.__name__, _message(str(w.message)))
                                               for w in caught})}
    if isinstance(out, L.Tensor):
        trace.update(same=r is out if err is None else None,
                     bump=None if v0 is None else out._version - v0,
                     shape=list(out.shape), dtype=str(out.dtype).split(".")[-1],
                     requires_grad=out.requires_grad)
        if err is None:
            trace.update(value=to_numpy(out), stride=out.stride())
    return trace


# name -> call(L, x, out) with x a (2, 3) float leaf built from X (see `inputs`)
SAMPLES = {
    "add": lambda L, x, o: L.add(x, L.tensor(Y), alpha=2, out=o),
    "sub": lambda L, x, o: L.sub(x, L.tensor(Y), out=o),
    "mul": lambda L, x, o: L.mul(x, 3, out=o),
    "div": lambda L, x, o: L.div(x, L.tensor(Y), out=o),
    "pow": lambda L, x, o: L.pow(x, 2, out=o),
    "atan2": lambda L, x, o: L.atan2(x, L.tensor(Y), out=o),
    "arctan2": lambda L, x, o: L.arctan2(x, L.tensor(Y), out=o),
    "fmax": lambda L, x, o: L.fmax(x, L.tensor(Y), out=o),
    "fmin": lambda L, x, o: L.fmin(x, L.tensor(Y), out=o),
    "fmod": lambda L, x, o: L.fmod(x, 0.3, out=o),
    "hypot": lambda L, x, o: L.hypot(x, L.tensor(Y), out=o),
    "remainder": lambda L, x, o: L.remainder(x, 0.3, out=o),
    "maximum": lambda L, x, o: L.maximum(x, L.tensor(Y), out=o),
    "minimum": lambda L, x, o: L.minimum(x, L.tensor(Y), out=o),
    "lerp": lambda L, x, o: L.lerp(x, L.tensor(Y), 0.25, out=o),
    "addcmul": lambda L, x, o: L.addcmul(x, x, L.tensor(Y), value=2, out=o),
    "addcdiv": lambda L, x, o: L.addcdiv(x, x, L.tensor(Y), out=o),
    "outer": lambda L, x, o: L.outer(x[0], L.tensor(Y), out=o),
    "ger": lambda L, x, o: L.ger(x[0], L.tensor(Y), out=o),
    "eq": lambda L, x, o: L.eq(x, x[0], out=o),
    "ne": lambda L, x, o: L.ne(x, 0.5, out=o),
    "lt": lambda L, x, o: L.lt(x, L.tensor(Y), out=o),
    "le": lambda L, x, o: L.le(x, 0.5, out=o),
    "gt": lambda L, x, o: L.gt(x, L.tensor(Y), out=o),
    "ge": lambda L, x, o: L.ge(x, 0.5, out=o),
    "greater": lambda L, x, o: L.greater(x, L.tensor(Y), out=o),
    "greater_equal": lambda L, x, o: L.greater_equal(x, 0.5, out=o),
    "less": lambda L, x, o: L.less(x, L.tensor(Y), out=o),
    "less_equal": lambda L, x, o: L.less_equal(x, 0.5, out=o),
    "not_equal": lambda L, x, o: L.not_equal(x, x[0], out=o),
    "floor_divide": lambda L, x, o: L.floor_divide(x, L.tensor(Y) / 3, out=o),
    "where": lambda L, x, o: L.where(x > 0.5, x, L.tensor(Y), out=o),
    "clamp": lambda L, x, o: L.clamp(x, 0.3, 0.6, out=o),
    "clip": lambda L, x, o: L.clip(x, min=0.4, out=o),
    "clamp_min": lambda L, x, o: L.clamp_min(x, 0.4, out=o),
    "clamp_max": lambda L, x, o: L.clamp_max(x, 0.4, out=o),
    "mm": lambda L, x, o: L.mm(x, L.tensor(SQ), out=o),
    "matmul": lambda L, x, o: L.matmul(x, L.tensor(SQ), out=o),
    "bmm": lambda L, x, o: L.bmm(x[None], L.tensor(SQ)[None], out=o),
    "mv": lambda L, x, o: L.mv(x, L.tensor(Y), out=o),
    "addmm": lambda L, x, o: L.addmm(x, x, L.tensor(SQ), beta=0.5, out=o),
    "addmv": lambda L, x, o: L.addmv(x[0, :2], x, L.tensor(Y), out=o),
    "baddbmm": lambda L, x, o: L.baddbmm(x[None], x[None], L.tensor(SQ)[None], out=o),
    "cross": lambda L, x, o: L.cross(x, L.tensor(X[::-1].copy()), dim=1, out=o),
    "dot": lambda L, x, o: L.dot(x[0], L.tensor(Y), out=o),
    "sum": lambda L, x, o: L.sum(x, -1, out=o),
    "prod": lambda L, x, o: L.prod(x, 0, keepdim=True, out=o),
    "cumsum": lambda L, x, o: L.cumsum(x, -1, out=o),
    "cumprod": lambda L, x, o: L.cumprod(x, 0, out=o),
    "mean": lambda L, x, o: L.mean(x, (0, 1), out=o),
    "std": lambda L, x, o: L.std(x, 1, out=o),
    "var": lambda L, x, o: L.var(x, 0, keepdim=True, out=o),
    "logsumexp": lambda L, x, o: L.logsumexp(x, 1, out=o),
    "logcumsumexp": lambda L, x, o: L.logcumsumexp(x, 1, out=o),
    "amax": lambda L, x, o: L.amax(x, -1, out=o),
    "amin": lambda L, x, o: L.amin(x, 0, out=o),
    "all": lambda L, x, o: L.all(x > 0.3, 1, out=o),
    "any": lambda L, x, o: L.any(x > 0.6, 0, out=o),
    "norm": lambda L, x, o: L.norm(x, dim=1, out=o),
    "cat": lambda L, x, o: L.cat([x, L.tensor(X)], -1, out=o),
    "stack": lambda L, x, o: L.stack([x, L.tensor(X)], 1, out=o),
    "gather": lambda L, x, o: L.gather(x, 1, L.tensor(IDX), out=o),
    "take_along_dim": lambda L, x, o: L.take_along_dim(x, L.tensor(IDX), 1, out=o),
    "index_select": lambda L, x, o: L.index_select(x, 1, L.tensor([2, 0]), out=o),
    "masked_select": lambda L, x, o: L.masked_select(x, x > 0.5, out=o),
    "tril": lambda L, x, o: L.tril(x, out=o),
    "triu": lambda L, x, o: L.triu(x, 1, out=o),
    "nan_to_num": lambda L, x, o: L.nan_to_num(x / (x - x[0, 0]), out=o),
    "logical_not": lambda L, x, o: L.logical_not(x > 0.5, out=o),
    "logical_and": lambda L, x, o: L.logical_and(x > 0.5, L.tensor(Y), out=o),
    "logical_or": lambda L, x, o: L.logical_or(x - 0.5, L.tensor([0, 1, 0]), out=o),
    "logical_xor": lambda L, x, o: L.logical_xor(x > 0.4, x < 0.6, out=o),
    "isneginf": lambda L, x, o: L.isneginf(x, out=o),
    "isposinf": lambda L, x, o: L.isposinf(x, out=o),
    "square": lambda L, x, o: L.square(x, out=o),
    "addbmm": lambda L, x, o: L.addbmm(x, x[None], L.tensor(SQ)[None], alpha=2, out=o),
    "nonzero": lambda L, x, o: L.nonzero(x > 0.5, out=o),
    "diag": lambda L, x, o: L.diag(x, out=o),
    "msort": lambda L, x, o: L.msort(x, out=o),
    "searchsorted": lambda L, x, o: L.searchsorted(L.tensor(Y).sort().values, x, out=o),
    "searchsorted_int32": lambda L, x, o: L.searchsorted(L.tensor(Y).sort().values, x,
                                                         out_int32=True, out=o),
    "bucketize": lambda L, x, o: L.bucketize(x, L.tensor(Y).sort().values, right=True, out=o),
    "diag_of_a_vector": lambda L, x, o: L.diag(x[0], 1, out=o),
    "acosh": lambda L, x, o: L.acosh(x + 1, out=o),
    "arccosh": lambda L, x, o: L.arccosh(x + 1, out=o),
}
for _name, _, _rule, _ in OUT_FORMS:  # the unary ops: op(x)
    SAMPLES.setdefault(_name, (lambda n: lambda L, x, o: getattr(L, n)(x, out=o))(_name))

# out tensors: (description, make(L) -> out, grad of the input)
OUTS = {
    "fits": lambda L: None,  # an out of the result's shape and dtype (made from the result)
    "empty": lambda L: L.empty(0),
    "wrong_shape": lambda L: L.zeros(5),
    "float64": lambda L: L.empty(0, dtype=L.float64),
    "int64": lambda L: L.empty(0, dtype=L.int64),
    "bool": lambda L: L.empty(0, dtype=L.bool),
    "out_requires_grad": lambda L: L.empty(0, requires_grad=True),
    "transposed": lambda L: None,  # the result's shape, transposed strides
}


def table_scenario(L, name, out_kind, x_grad):
    call = SAMPLES[name]
    x = L.tensor(X, requires_grad=x_grad)
    plain = call(L, x.detach(), None)  # the out-of-place result: shape and dtype of a fit
    out = OUTS[out_kind](L)
    if out_kind == "fits":
        out = L.zeros(tuple(plain.shape), dtype=plain.dtype)
    elif out_kind == "transposed":
        if plain.ndim < 2:
            return None
        shape = tuple(plain.shape)
        out = L.zeros(shape[:-2] + shape[-2:][::-1], dtype=plain.dtype).transpose(-1, -2)
    return record(L, lambda o: call(L, x, o), out)


NAMES = [n for n, _, _, options in OUT_FORMS if not options.get("pair")] + [
    "diag_of_a_vector", "searchsorted_int32"]
PAIRS = [n for n, _, _, options in OUT_FORMS if options.get("pair")] + ["kthvalue_dim0",
                                                                       "mode_dim1"]


def test_every_out_form_has_a_sample():
    assert set(NAMES) <= set(SAMPLES) and set(PAIRS) <= set(PAIR_SAMPLES)
    for name, *_ in OUT_FORMS:  # and the name is a wrapped out form in minigrad's namespace
        assert getattr(minigrad, name) is not getattr(minigrad.Tensor, name, None), name


@pytest.mark.parametrize("out_kind", list(OUTS))
@pytest.mark.parametrize("name", NAMES)
def test_out_table(name, out_kind):
    a, b = run_both(table_scenario, name, out_kind, False)
    compare(a, b, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", NAMES)
def test_out_argument_requires_grad(name):
    """An input requiring grad: the autograd error (not for ops without a gradient), and
    nothing written; under no_grad the op runs and ``out`` does not require grad."""
    a, b = run_both(table_scenario, name, "fits", True)
    compare(a, b, rtol=2e-5, atol=2e-6)

    def under_no_grad(L):
        with L.no_grad():
            return table_scenario(L, name, "out_requires_grad", True)

    a, b = run_both(under_no_grad)
    compare(a, b, rtol=2e-5, atol=2e-6)


# ------------------------------------------------------------------ torch.linalg
LINALG_SAMPLES = {
    "linalg.vector_norm": lambda L, x, o: L.linalg.vector_norm(x, 1, dim=1, out=o),
    "linalg.vector_norm_dtype": lambda L, x, o: L.linalg.vector_norm(x, dtype=L.float64,
                                                                     out=o),
    "linalg.svdvals": lambda L, x, o: L.linalg.svdvals(x, out=o),
    "linalg.matrix_norm": lambda L, x, o: L.linalg.matrix_norm(x, out=o),
    "linalg.norm": lambda L, x, o: L.linalg.norm(x, out=o),
    "linalg.norm_dim": lambda L, x, o: L.linalg.norm(x, 2, dim=1, keepdim=True, out=o),
    "linalg.norm_of_a_3d_input": lambda L, x, o: L.linalg.norm(
        L.stack([x, x * 2]), dim=0, out=o),
    "linalg.cross": lambda L, x, o: L.linalg.cross(x, L.tensor(X[::-1].copy()), out=o),
}
SAMPLES.update(LINALG_SAMPLES)


def test_every_linalg_out_form_has_a_sample():
    from minigrad._ops.out import LINALG_OUT_FORMS

    for name, *_ in LINALG_OUT_FORMS:
        assert f"linalg.{name}" in LINALG_SAMPLES or name == "svd"  # (svd: its own test)
        assert getattr(minigrad.linalg, name).__wrapped__ is not None


@pytest.mark.parametrize("out_kind", list(OUTS))
@pytest.mark.parametrize("name", list(LINALG_SAMPLES))
def test_linalg_out_table(name, out_kind):
    compare(*run_both(table_scenario, name, out_kind, False), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", list(LINALG_SAMPLES))
def test_linalg_out_input_requires_grad(name):
    """vector_norm/svdvals: the autograd error. matrix_norm/norm are composites writing with
    ``copy_``: ``out`` takes a CopyBackwards history, and an ``out`` requiring grad gets the
    in-place leaf error after being resized (with the warning)."""
    def scenario(L):
        x = L.tensor(X, requires_grad=True)
        out = L.empty(0)
        t = record(L, lambda o: LINALG_SAMPLES[name](L, x, o), out)
        history = None
        if t["error"] is None:
            history = out.grad_fn.name()
            out.sum().backward()
            history = (history, to_numpy(x.grad))
        leaf = L.zeros(5, requires_grad=True)
        return t, history, record(L, lambda o: LINALG_SAMPLES[name](L, x.detach(), o), leaf)

    compare(*run_both(scenario), rtol=2e-5, atol=2e-6)


SVD_OUTS = {
    "empty": lambda L: (L.empty(0), L.empty(0), L.empty(0)),
    "wrong_shape": lambda L: (L.zeros(5), L.zeros(5), L.zeros(5)),
    "fits": lambda L: (L.zeros(2, 2), L.zeros(2), L.zeros(3, 3)),
    "float64_S": lambda L: (L.empty(0), L.empty(0, dtype=L.float64), L.empty(0)),
    "int64_Vh": lambda L: (L.empty(0), L.empty(0), L.empty(0, dtype=L.int64)),
    "U_requires_grad": lambda L: (L.empty(0, requires_grad=True), L.empty(0), L.empty(0)),
    "two": lambda L: (L.empty(0), L.empty(0)),
    "a_tensor": lambda L: L.empty(0),
}


@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("x_grad", [False, True])
@pytest.mark.parametrize("out_kind", list(SVD_OUTS))
def test_linalg_svd_out(out_kind, x_grad, full_matrices):
    """The three outs of ``linalg.svd``: filled (U and Vh laid out column by column, as
    LAPACK writes them) and returned as the named tuple; singular vectors compared up to
    sign."""
    def scenario(L):
        x = L.tensor(X, requires_grad=x_grad)
        out = SVD_OUTS[out_kind](L)
        tensors = out if isinstance(out, tuple) else (out,)
        vs = [o._version for o in tensors]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                r = L.linalg.svd(x, full_matrices=full_matrices, out=out)
            except Exception as e:  # noqa: BLE001 - compared
                return type(e).__name__, _message(str(e))
        return {"same": [a is b for a, b in zip(r, out)], "fields": [r.U is out[0],
                                                                    r.S is out[1],
                                                                    r.Vh is out[2]],
                "values": [np.abs(to_numpy(o)) for o in out],
                "strides": [o.stride() for o in out],
                "bumps": [o._version - v for o, v in zip(out, vs)],
                "warnings": sorted({_message(str(w.message)) for w in caught})}

    compare(*run_both(scenario), rtol=2e-5, atol=2e-6)


def test_linalg_out_not_a_tensor():
    def scenario(L):
        found = []
        for fn in (L.linalg.vector_norm, L.linalg.svdvals, L.linalg.matrix_norm,
                   L.linalg.norm):
            try:
                fn(L.tensor(X), out=[1])
            except TypeError as e:
                found.append(str(e).split(", but expected")[0])
        return found

    a, b = run_both(scenario)
    assert len(a) == 4
    compare(a, b)


def test_the_table_reaches_the_error_kinds():
    """The table is not vacuous: PyTorch raises the autograd error, resize warning and a
    dtype error for add (and minigrad the same, checked by the table)."""
    import torch

    t = table_scenario(torch, "add", "int64", False)
    assert t["error"] == ("RuntimeError", "result type Float can't be cast to the desired "
                                          "output type Long")
    t = table_scenario(torch, "add", "wrong_shape", False)
    assert t["warnings"][0][1].startswith("An output with one or more elements was resized")
    assert t["bump"] == 1 and t["same"]
    t = table_scenario(torch, "add", "fits", True)
    assert "don't support automatic differentiation" in t["error"][1]


# ------------------------------------------------------------------ (values, indices) outs
PAIR_SAMPLES = {
    "max": lambda L, x, o: L.max(x, 1, out=o),
    "min": lambda L, x, o: L.min(x, 0, keepdim=True, out=o),
    "sort": lambda L, x, o: L.sort(x, -1, descending=True, out=o),
    "topk": lambda L, x, o: L.topk(x, 2, out=o),
    "kthvalue": lambda L, x, o: L.kthvalue(x, 2, 1, out=o),
    "mode": lambda L, x, o: L.mode(x.round(decimals=1), 0, keepdim=True, out=o),
    "median": lambda L, x, o: L.median(x, 1, out=o),
    "nanmedian": lambda L, x, o: L.nanmedian(x, 0, out=o),
    "kthvalue_dim0": lambda L, x, o: L.kthvalue(x, 1, 0, out=o),
    "mode_dim1": lambda L, x, o: L.mode(x, 1, out=o),
}
PAIR_OUTS = {
    "empty": lambda L: (L.empty(0), L.empty(0, dtype=L.int64)),
    "wrong_shape": lambda L: (L.zeros(5), L.zeros(5, dtype=L.int64)),
    "list": lambda L: [L.empty(0), L.empty(0, dtype=L.int64)],
    "float_indices": lambda L: (L.empty(0), L.empty(0)),
    "int_values": lambda L: (L.empty(0, dtype=L.int64), L.empty(0, dtype=L.int64)),
    "float64_values": lambda L: (L.empty(0, dtype=L.float64), L.empty(0, dtype=L.int64)),
    "values_require_grad": lambda L: (L.empty(0, requires_grad=True),
                                      L.empty(0, dtype=L.int64)),
    # both wrong (which one each kernel checks first), an int32 indices out
    "both_wrong": lambda L: (L.empty(0, dtype=L.int64), L.empty(0, dtype=L.int32)),
    "int32_indices": lambda L: (L.zeros(5), L.zeros(5, dtype=L.int32)),
    "float_indices_wrong_shape": lambda L: (L.zeros(4, 4), L.zeros(5)),
    "int_values_wrong_shape": lambda L: (L.zeros(5, dtype=L.int64), L.zeros(5)),
    # kthvalue/mode resize via the kept-dim shape: the warnings name it
    "matrix": lambda L: (L.zeros(4, 4), L.zeros(4, 4, dtype=L.int64)),
    "result_shape": lambda L: (L.zeros(2), L.zeros(2, dtype=L.int64)),
}


def pair_scenario(L, name, out_kind, x_grad=False):
    x = L.tensor(X, requires_grad=x_grad)
    out = PAIR_OUTS[out_kind](L)
    vs = [o._version for o in out]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = PAIR_SAMPLES[name](L, x, out)
        except Exception as e:  # noqa: BLE001 - compared (and what was left resized)
            return (type(e).__name__, _message(str(e)), [list(o.shape) for o in out],
                    [o._version - v for o, v in zip(out, vs)],
                    sorted({_message(str(w.message)) for w in caught}))
    return {"same": [a is b for a, b in zip(r, out)], "fields": [r.values is out[0],
                                                               r.indices is out[1]],
            "values": [to_numpy(o) for o in out], "shapes": [list(o.shape) for o in out],
            "bumps": [o._version - v for o, v in zip(out, vs)],
            "warnings": sorted({_message(str(w.message)) for w in caught})}


@pytest.mark.parametrize("out_kind", list(PAIR_OUTS))
@pytest.mark.parametrize("name", PAIRS)
def test_pair_out(name, out_kind):
    compare(*run_both(pair_scenario, name, out_kind))


@pytest.mark.parametrize("name", PAIRS)
def test_pair_out_input_requires_grad(name):
    compare(*run_both(pair_scenario, name, "empty", True))


def test_pair_out_not_a_tuple():
    def scenario(L):
        found = []
        for call in (lambda: L.topk(L.tensor(X), 2, out=L.empty(0)),
                     lambda: L.sort(L.tensor(X), out=[L.empty(0)])):
            try:
                call()
            except TypeError as e:
                found.append(str(e).split(" - ")[0][:60])
        return found

    a, b = run_both(scenario)
    assert len(a) == len(b) == 2 and a[0] == b[0]


def test_median_over_everything_takes_no_out():
    def scenario(L):
        found = []
        for fn in (L.median, L.nanmedian):
            try:
                fn(L.tensor(X), out=L.empty(0))
            except TypeError as e:
                found.append(str(e))
        return found

    a, b = run_both(scenario)
    assert len(a) == 2
    compare(a, b)


def test_max_over_everything_takes_one_out():
    def scenario(L):
        o = L.zeros(3)
        r = L.max(L.tensor(X), out=o)
        return r is o, to_numpy(o), o._version

    compare(*run_both(scenario))


# ------------------------------------------------------------------ single scenarios
def _tensor_case(fn):
    return pytest.param(fn, id=fn.__name__)


def out_is_a_view_of_the_wrong_shape(L):
    base = L.zeros(6)
    out = base[1:3]
    t = record(L, lambda o: L.add(L.tensor(X), 1, out=o), out)
    return t, to_numpy(base), base._version


def out_is_the_input(L):  # a full overlap is fine
    x = L.tensor(X)
    return record(L, lambda o: L.mul(o, 2, out=o), x)


def out_overlaps_the_input_in_part(L):
    x = L.tensor(np.arange(5.0))
    return record(L, lambda o: L.add(x[:4], 1, out=o), x[1:]), to_numpy(x)


def out_is_expanded(L):
    return record(L, lambda o: L.add(L.tensor(X), 1, out=o), L.zeros(3).expand(2, 3))


def out_is_a_nonleaf_under_no_grad(L):
    w = L.tensor(X, requires_grad=True)
    h = w * 2
    with L.no_grad():
        t = record(L, lambda o: L.exp(L.tensor(X), out=o), h)
    return t, h.grad_fn.name(), h.requires_grad


def out_is_a_view_of_a_leaf_requiring_grad(L):
    w = L.zeros(2, 3, requires_grad=True)
    return record(L, lambda o: L.add(L.tensor(X), 1, out=o), w[:1])


def out_is_not_a_tensor(L):
    return record(L, lambda o: L.add(L.tensor(X), 1, out=o), [L.zeros(2, 3)])


def out_of_an_inference_tensor(L):
    with L.inference_mode():
        out = L.zeros(2, 3)
    return record(L, lambda o: L.add(L.tensor(X), 1, out=o), out)


def out_in_inference_mode(L):
    out = L.zeros(2, 3)
    with L.inference_mode():
        return record(L, lambda o: L.add(L.tensor(X), 1, out=o), out)


def sum_in_the_out_dtype(L):  # the reduction runs in out's dtype: values are cast first
    x = L.tensor([[0.5, 0.6], [1.7, 1.6]])
    return [record(L, lambda o: L.sum(x, 0, out=o), L.empty(2, dtype=L.int64)),
            record(L, lambda o: L.cumsum(x, 1, out=o), L.empty(0, dtype=L.int64)),
            record(L, lambda o: L.sum(x, 0, dtype=L.float64, out=o), L.empty(2)),
            record(L, lambda o: L.sum(x.long(), 0, out=o), L.empty(2)),
            record(L, lambda o: L.mean(x, 0, out=o), L.empty(2, dtype=L.float64)),
            record(L, lambda o: L.mean(x, 0, dtype=L.float64, out=o), L.empty(2))]


def broadcast_error_comes_before_the_dtype_error(L):
    return [record(L, lambda o: L.add(L.tensor(X), L.zeros(4), out=o), L.empty(4, dtype=L.int64)),
            record(L, lambda o: L.add(L.tensor(X), L.zeros(4), out=o),
                   L.empty(4, requires_grad=True))]


def integer_results(L):
    i = L.tensor([[1, -2], [3, 4]])
    return [record(L, lambda o: L.add(i, i, out=o), L.empty(0, dtype=L.int32)),
            record(L, lambda o: L.add(i, i, out=o), L.empty(0, dtype=L.bool)),
            record(L, lambda o: L.div(i, 2, out=o), L.empty(0, dtype=L.int64)),
            record(L, lambda o: L.abs(i, out=o), L.empty(0)),
            record(L, lambda o: L.exp(i, out=o), L.empty(0)),
            record(L, lambda o: L.eq(i, 1, out=o), L.empty(0, dtype=L.int64))]


def empty_inputs(L):
    e = L.zeros(0, 3)
    return [record(L, lambda o: L.exp(e, out=o), L.zeros(4)),
            record(L, lambda o: L.sum(e, 0, out=o), L.empty(0)),
            record(L, lambda o: L.matmul(e, L.zeros(3, 2), out=o), L.zeros(0, 2))]


def a_noncontiguous_input_lays_out_a_resized_out_like_it(L):
    xt = L.tensor(X).t()
    return [record(L, lambda o: L.exp(xt, out=o), L.empty(0)),
            record(L, lambda o: L.add(xt, 1, out=o), L.zeros(3, 2))]


def diag_out_takes_a_not_implemented_history(L):
    """diag checks only ``out`` for requires-grad; an input requiring grad gives ``out`` the
    NotImplemented node (a matrix and a vector: two kernels)."""
    x = L.tensor(X, requires_grad=True)
    found = []
    for call in (lambda o: L.diag(x, out=o), lambda o: L.diag(x[0], -1, out=o)):
        out = L.empty(0)
        t = record(L, call, out)
        found.append((t, out.grad_fn.name(), out.is_leaf))
    return found


def nonzero_out_refuses_as_tuple(L):
    return [record(L, lambda o: L.nonzero(L.tensor(X), as_tuple=True, out=o),
                   L.empty(0, dtype=L.int64)),
            record(L, lambda o: L.nonzero(L.tensor(X, requires_grad=True), out=o),
                   L.empty(0, dtype=L.int64))]  # (no gradient: no autograd check)


SCENARIOS = [_tensor_case(f) for f in (
    diag_out_takes_a_not_implemented_history, nonzero_out_refuses_as_tuple,
    out_is_a_view_of_the_wrong_shape, out_is_the_input, out_overlaps_the_input_in_part,
    out_is_expanded, out_is_a_nonleaf_under_no_grad, out_is_a_view_of_a_leaf_requiring_grad,
    out_is_not_a_tensor, out_of_an_inference_tensor, out_in_inference_mode,
    sum_in_the_out_dtype, broadcast_error_comes_before_the_dtype_error, integer_results,
    empty_inputs, a_noncontiguous_input_lays_out_a_resized_out_like_it)]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_out_scenarios(scenario):
    a, b = run_both(scenario)
    compare(a, b)


def test_tensor_methods_take_no_out():
    """As in PyTorch, ``x.add(y, out=...)`` is a TypeError: only the torch functions take it."""
    def scenario(L):
        x = L.tensor(X)
        try:
            x.add(x, out=L.empty(0))
        except TypeError:
            return "TypeError"

    a, b = run_both(scenario)
    assert a == b == "TypeError"


# ------------------------------------------------------------------ factories
FACTORIES = {
    "zeros": lambda L, o, **kw: L.zeros(2, 3, out=o, **kw),
    "ones": lambda L, o, **kw: L.ones((2, 3), out=o, **kw),
    "full": lambda L, o, **kw: L.full((2, 3), 2.5, out=o, **kw),
    "arange": lambda L, o, **kw: L.arange(0.5, 6, 1, out=o, **kw),
    "linspace": lambda L, o, **kw: L.linspace(-1, 3, 6, out=o, **kw),
    "logspace": lambda L, o, **kw: L.logspace(0, 1, 6, out=o, **kw),
    "eye": lambda L, o, **kw: L.eye(2, 3, out=o, **kw),
    "empty": lambda L, o, **kw: L.empty(2, 3, out=o, **kw),
}
RANDOM_FACTORIES = {
    "rand": lambda L, o, **kw: L.rand(2, 3, out=o, **kw),
    "randn": lambda L, o, **kw: L.randn(2, 3, out=o, **kw),
    "randint": lambda L, o, **kw: L.randint(0, 5, (2, 3), out=o, **kw),
    "randperm": lambda L, o, **kw: L.randperm(6, out=o, **kw),
    "normal": lambda L, o, **kw: L.normal(0.0, 1.0, (2, 3), out=o, **kw),
}
FACTORY_OUTS = {
    "fits": lambda L: L.full((2, 3), 7.0),
    "same_numel": lambda L: L.full((6,), 7.0),
    "other_numel": lambda L: L.full((2, 2), 7.0),
    "empty": lambda L: L.empty(0),
    "int64": lambda L: L.full((2, 3), 7, dtype=L.int64),
    "float64": lambda L: L.full((2, 3), 7.0, dtype=L.float64),
    "transposed": lambda L: L.full((3, 2), 7.0).t(),
    "requires_grad": lambda L: L.zeros(2, 3, requires_grad=True),
}


def factory_scenario(L, name, out_kind, random=False, **kw):
    make = (RANDOM_FACTORIES if random else FACTORIES)[name]
    if "dtype" in kw:  # (a dtype by name: each library its own)
        kw["dtype"] = getattr(L, kw["dtype"])
    t = record(L, lambda o: make(L, o, **kw), FACTORY_OUTS[out_kind](L))
    if name == "empty" and t["error"] is None:
        t["value"] = None  # (PyTorch leaves the memory as it was, or uninitialised)
    if random and t["error"] is None:
        t["value"] = None  # (minigrad draws from NumPy)
    return t


@pytest.mark.parametrize("out_kind", list(FACTORY_OUTS))
@pytest.mark.parametrize("name", list(FACTORIES))
def test_factory_out(name, out_kind):
    a, b = run_both(factory_scenario, name, out_kind)
    compare(a, b)


@pytest.mark.parametrize("out_kind", ["fits", "empty", "other_numel", "float64", "transposed",
                                      "int64", "requires_grad"])
@pytest.mark.parametrize("name", list(RANDOM_FACTORIES))
def test_random_factory_out(name, out_kind):
    a, b = run_both(factory_scenario, name, out_kind, random=True)
    compare(a, b)


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factory_out_dtype_and_requires_grad_arguments(name):
    a, b = run_both(factory_scenario, name, "fits", dtype="float64")
    a2, b2 = run_both(factory_scenario, name, "fits", requires_grad=True)
    compare([a, a2], [b, b2])

    def no_grad_scenario(L):
        with L.no_grad():
            return factory_scenario(L, name, "requires_grad")

    compare(*run_both(no_grad_scenario))
