"""Parity of the bitwise ops (issue 19): ``bitwise_and/or/xor/not``, ``bitwise_left_shift`` and
``bitwise_right_shift`` as functions (with ``out=``), methods, in-place forms and the operators
``& | ^ ~ << >>`` (reflected and augmented): result dtypes for every pair of dtypes and for
Python numbers, values (shifts by negative and too-large amounts included), ``_version`` and
identity of the in-place forms, and the errors (float and bool kernels, casts, shapes, bad
operand types)."""

import itertools
import operator
import warnings

import numpy as np
import pytest

from minigrad.parity import compare, run_both, to_numpy

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SCALARS = {"int": 2, "neg_int": -1, "big_int": 300, "float": 2.0, "true": True}
BINARY = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]
OPERATORS = {
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "lshift": operator.lshift,
    "rshift": operator.rshift,
}


def _values(dt):
    if dt == "bool":
        return np.array([True, False, True, True])
    if dt == "uint8":
        return np.array([1, 3, 128, 255], np.uint8)
    return np.array([1, -3, 100, 7], dt)


def _error(e):
    """Type and first line of the message (PyTorch's overload lists differ in their detail)."""
    return type(e).__name__, str(e).split("\n")[0]


def _result(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the error is part of the trace
        return _error(e)
    if r is NotImplemented:
        return "NotImplemented"
    return {"dtype": str(r.dtype).split(".")[-1], "shape": tuple(r.shape), "values": to_numpy(r)}


def _tensor(L, dt):
    return L.tensor(_values(dt), dtype=getattr(L, dt))


@pytest.mark.parametrize("op", BINARY)
def test_dtype_pairs(op):
    def scenario(L):
        return [
            _result(lambda a=a, b=b: getattr(L, op)(_tensor(L, a), _tensor(L, b)))
            for a, b in itertools.product(DTYPES, DTYPES)
        ]

    compare(*run_both(scenario))


@pytest.mark.parametrize("op", BINARY)
def test_scalar_operands(op):
    def scenario(L):
        trace = []
        for dt, s in itertools.product(DTYPES, SCALARS.values()):
            x = _tensor(L, dt)
            trace.append(
                [
                    _result(lambda x=x, s=s: getattr(L, op)(x, s)),
                    _result(lambda x=x, s=s: getattr(L, op)(s, x)),
                    _result(lambda x=x, s=s: getattr(x, op)(s)),
                ]
            )
        return trace

    compare(*run_both(scenario))


def test_shift_amounts():
    """Negative amounts and amounts of at least the dtype's width: 0, or -1 for ``>>`` of a
    negative value."""

    def scenario(L):
        trace = []
        for dt in ["uint8", "int8", "int16", "int32", "int64"]:
            x = L.tensor([1, 3, 100, 127, 5, 7, 1, 1], dtype=getattr(L, dt))
            if dt != "uint8":
                x = -x
            s = L.tensor([0, 1, 7, 8, 15, 16, 63, 64], dtype=getattr(L, dt))
            cases = (
                lambda x, s: x << s,
                lambda x, s: x >> s,
                lambda x, s: x << 70,
                lambda x, s: x >> 70,
                lambda x, s: x >> -2,
                lambda x, s: x << -2,
                lambda x, s: 1 << s,
                lambda x, s: -300 >> s,
            )
            for f in cases:
                trace.append(_result(lambda f=f, x=x, s=s: f(x, s)))
        return trace

    compare(*run_both(scenario))


@pytest.mark.parametrize("sym", list(OPERATORS))
def test_operators(sym):
    """``a <op> b``, the reflected form with a number on the left, operands Python refuses
    (the methods return NotImplemented), and the 0-dim / broadcast cases."""
    fn = OPERATORS[sym]

    def scenario(L):
        x, y = L.tensor([1, 2, 12], dtype=L.int16), L.tensor([[3], [1]], dtype=L.int8)
        z = L.tensor(2)
        cases = [
            lambda: fn(x, y),
            lambda: fn(y, x),
            lambda: fn(3, x),
            lambda: fn(300, x),
            lambda: fn(True, x),
            lambda: fn(x, z),
            lambda: fn(z, x),
            lambda: fn(2.5, x),
            lambda: fn(x, 2.5),
            lambda: fn(x, "a"),
            lambda: fn(x, None),
            lambda: fn(x, [1, 2, 3]),
            lambda: fn(x, np.int64(1)),
            lambda: getattr(x, f"__{sym}__")("a"),
            lambda: getattr(x, f"__r{sym}__")(5),
            lambda: fn(L.tensor([True, False]), L.tensor([True, True])),
            lambda: fn(L.tensor([True, False]), 3),
            lambda: fn(L.ones(2, requires_grad=True), 1),
            lambda: fn(L.tensor([1, 2]), L.tensor([1, 2, 3])),
        ]
        return [_result(f) for f in cases]

    compare(*run_both(scenario))


INPLACE_CASES = {
    "i8_i8": ("int8", [1, 2, -3], lambda L: L.tensor([1, 2, 1], dtype=L.int8)),
    "i8_i64": ("int8", [1, 2, -3], lambda L: L.tensor([1, 2, 1])),
    "i64_i8": ("int64", [1, 2, -3], lambda L: L.tensor([1, 2, 1], dtype=L.int8)),
    "u8_i8": ("uint8", [1, 2, 3], lambda L: L.tensor([1, 2, 1], dtype=L.int8)),
    "i8_int": ("int8", [1, 2, -3], lambda L: 2),
    "i8_float": ("int8", [1, 2, -3], lambda L: 2.0),
    "i8_f32": ("int8", [1, 2, -3], lambda L: L.tensor([1.0, 2, 1])),
    "f32_int": ("float32", [1, 2, -3], lambda L: 2),
    "b_b": ("bool", [True, False, True], lambda L: L.tensor([True, True, False])),
    "b_i8": ("bool", [True, False, True], lambda L: L.tensor([1, 1, 0], dtype=L.int8)),
    "b_int": ("bool", [True, False, True], lambda L: 3),
    "i8_b": ("int8", [3, 2, 1], lambda L: L.tensor([True, False, True])),
    "bcast_err": ("int8", [3, 2], lambda L: L.tensor([[1, 1], [2, 2]], dtype=L.int8)),
    "shape_err": ("int8", [3, 2], lambda L: L.tensor([1, 1, 1], dtype=L.int8)),
    "str": ("int8", [3, 2], lambda L: "a"),
    "list": ("int8", [3, 2], lambda L: [1, 2]),
}


@pytest.mark.parametrize("case", list(INPLACE_CASES))
@pytest.mark.parametrize("form", BINARY + [f"__i{s}__" for s in OPERATORS])
def test_inplace(form, case):
    """``x.bitwise_and_(y)`` / ``x.__iand__(y)``: same object, ``_version`` + 1, the promoted
    result cast back to ``x``'s dtype, or PyTorch's error (leaving ``x`` as it was);
    ``__iand__`` returns NotImplemented for an operand Python should refuse."""
    dt, values, other = INPLACE_CASES[case]
    method = form + "_" if form.startswith("bitwise") else form

    def scenario(L):
        x = L.tensor(values, dtype=getattr(L, dt))
        r = _result(lambda: getattr(x, method)(other(L)))
        return {
            "result": r,
            "version": x._version,
            "x": to_numpy(x),
            "same": getattr(x, method)(other(L)) is x if isinstance(r, dict) else None,
        }

    compare(*run_both(scenario))


@pytest.mark.parametrize("sym", list(OPERATORS))
def test_augmented_assignment(sym):
    """``x <<= y`` rebinds nothing: ``x`` is the same object, one version later."""
    fn = {
        "and": operator.iand,
        "or": operator.ior,
        "xor": operator.ixor,
        "lshift": operator.ilshift,
        "rshift": operator.irshift,
    }[sym]

    def scenario(L):
        trace = []
        for other in (
            lambda: L.tensor([1, 2, 1]),
            lambda: 1,
            lambda: 1.0,
            lambda: "s",
            lambda: L.tensor([1.0, 2.0, 3.0]),
        ):
            x = L.tensor([1, 2, -3], dtype=L.int8)
            before = x
            r = _result(lambda x=x, other=other: fn(x, other()))
            trace.append([r, before._version, to_numpy(before)])
        y = L.tensor([1.0, 2.0])
        trace.append(_result(lambda: fn(y, y)))
        return trace

    compare(*run_both(scenario))


def test_inplace_views_and_autograd_checks():
    def scenario(L):
        trace = []
        x = L.tensor([1, 2, 3])
        v = x[0:2]
        v.bitwise_xor_(3)
        trace += [to_numpy(x), x._version, v._version]
        e = L.tensor([1, 2]).expand(2, 2)
        trace.append(_result(lambda: e.bitwise_or_(1)))
        a = L.arange(4)
        trace.append(_result(lambda: a[1:].bitwise_or_(a[:3])))
        w = L.ones(2, requires_grad=True)
        for f in (
            lambda: w.bitwise_and_(1),
            lambda: w.bitwise_not_(),
            lambda: w.__ilshift__(1),
            lambda: w.bitwise_left_shift_(L.ones(3)),
        ):
            trace.append(_result(f))
        trace.append(w._version)
        return trace

    compare(*run_both(scenario))


OUTS = {
    "int64": lambda L: L.empty(2, dtype=L.int64),
    "int8": lambda L: L.empty(2, dtype=L.int8),
    "float32": lambda L: L.empty(2),
    "bool": lambda L: L.empty(2, dtype=L.bool),
    "resize": lambda L: L.empty(3, dtype=L.int64),
    "empty": lambda L: L.empty(0, dtype=L.long),
}


@pytest.mark.parametrize("out", list(OUTS))
@pytest.mark.parametrize("op", BINARY)
def test_out(op, out):
    def scenario(L):
        o = OUTS[out](L)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            r = _result(lambda: getattr(L, op)(L.tensor([1, 2]), L.tensor([1, 1]), out=o))
        return {
            "result": r,
            "version": o._version,
            "same": isinstance(r, dict),
            "warned": [str(w.message)[:60] for w in seen],
        }

    compare(*run_both(scenario))


@pytest.mark.parametrize("op", BINARY)
def test_argument_errors(op):
    def scenario(L):
        f, x = getattr(L, op), L.tensor([1, 1], dtype=L.int8)
        return [
            _result(lambda: f(x, 2, out=L.empty(2, dtype=L.int8))),
            _result(lambda: f(2, x, out=L.empty(2, dtype=L.int8))),
            _result(lambda: f(x, x, out=3)),
            _result(lambda: f(2, 3)),
            _result(lambda: f(x, "a")),
            _result(lambda: getattr(x, op)("a")),
            _result(lambda: getattr(x, op)([1, 2])),
            _result(lambda: f(input=x, other=L.tensor(3))),
            _result(lambda: f(L.tensor(1.0, requires_grad=True), x)),
        ]

    compare(*run_both(scenario))


def test_bitwise_not():
    def scenario(L):
        cases = [
            lambda: L.bitwise_not(L.tensor([1, -2], dtype=L.int8)),
            lambda: L.bitwise_not(L.tensor([True, False])),
            lambda: L.bitwise_not(L.tensor([1, 200], dtype=L.uint8)),
            lambda: ~L.tensor([1, -2, 7], dtype=L.int16),
            lambda: L.tensor([1, -2], dtype=L.int32).bitwise_not(),
            lambda: L.bitwise_not(L.tensor(3)),
            lambda: L.bitwise_not(L.tensor([1.0, 2.0])),
            lambda: L.bitwise_not(L.tensor([1.0], dtype=L.float16)),
            lambda: ~L.tensor([1.0, 2.0]),
            lambda: ~L.tensor([1.0, 2.0], dtype=L.float64),
            lambda: L.bitwise_not(3),
            lambda: L.tensor([1.0]).bitwise_not_(),
            lambda: L.bitwise_not(L.tensor([1, -2]), out=L.empty(2, dtype=L.int8)),
            lambda: L.bitwise_not(L.tensor([1, -2]), out=L.empty(2)),
            lambda: L.bitwise_not(L.tensor([1, -2]), out=L.empty(2, dtype=L.int64)),
        ]
        trace = [_result(f) for f in cases]
        x = L.tensor([1, -2], dtype=L.int8)
        trace += [x.bitwise_not_() is x, x._version, to_numpy(x)]
        return trace

    compare(*run_both(scenario))


def test_named_forms():
    """Each function, method and in-place form by its own name (the tables above reach them
    through ``getattr``)."""

    def scenario(L):
        x, y = L.tensor([5, -3, 12], dtype=L.int16), L.tensor([1, 2, 3], dtype=L.int8)
        results = [
            L.bitwise_and(x, y),
            L.bitwise_or(x, y),
            L.bitwise_xor(x, y),
            L.bitwise_left_shift(x, y),
            L.bitwise_right_shift(x, y),
            L.bitwise_not(x),
            x.bitwise_and(y),
            x.bitwise_or(y),
            x.bitwise_xor(y),
            x.bitwise_left_shift(y),
            x.bitwise_right_shift(y),
            x.bitwise_not(),
        ]
        trace = [(str(r.dtype).split(".")[-1], to_numpy(r)) for r in results]
        z = x.clone()
        for r in (
            z.bitwise_and_(7),
            z.bitwise_or_(y),
            z.bitwise_xor_(3),
            z.bitwise_left_shift_(y),
            z.bitwise_right_shift_(1),
            z.bitwise_not_(),
        ):
            trace.append((r is z, z._version, to_numpy(z)))
        return trace

    compare(*run_both(scenario))
