"""Forward-AD parity of the pointwise family (issue 23): every backward node of
``_ops/pointwise.py``, ``pointwise_unary.py``, ``pointwise_binary.py``, ``scalar.py``,
``floor_divide.py``, the ternary and in-place nodes of ``inplace.py``, and the ops without a
derivative (logical, comparisons, bitwise, ``floor_divide``), against PyTorch's tangents.

Each op runs through `check_jvp` (values, tangent values/dtype/strides/requires_grad, and
PyTorch's tangent against finite differences) on plain, transposed (non-contiguous), empty,
float32, ``no_grad`` and ``primal_grad=True`` inputs; binary and ternary ops with every input
dual at once and one at a time, and with broadcasting; in-place forms on a dual tensor, on a
dual non-leaf, on a view, and on a plain tensor with a dual operand.
"""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy
from minigrad.parity import capture_error as _capture
from tests.parity._forward_ad import check_jvp

R = np.random.default_rng(2313)


def _domain(dom, shape):
    """Primal values inside an op's domain (and away from its kinks)."""
    return np.asarray(_values(dom, shape), dtype=np.float64)


def _values(dom, shape):
    if dom == "pos":
        return R.uniform(0.5, 2.0, shape)
    if dom == "unit":
        return R.uniform(-0.9, 0.9, shape)
    if dom == "gt1":
        return R.uniform(1.2, 3.0, shape)
    if dom == "away0":  # |x| in [0.5, 2]: for 1/x and signs
        return R.uniform(0.5, 2.0, shape) * R.choice([-1.0, 1.0], shape)
    return R.uniform(-2.0, 2.0, shape)


def _t(shape):
    return R.standard_normal(shape)


# ------------------------------------------------------------------------------ unary ops
# (id, method, args, domain, fd): ``x.<method>(*args)``; in-place form ``x.<method>_(*args)``
UNARY = [
    ("neg", "neg", (), "any", True),
    ("exp", "exp", (), "any", True),
    ("log", "log", (), "pos", True),
    ("sqrt", "sqrt", (), "pos", True),
    ("rsqrt", "rsqrt", (), "pos", True),
    ("abs", "abs", (), "away0", True),
    ("tanh", "tanh", (), "any", True),
    ("sigmoid", "sigmoid", (), "any", True),
    ("sin", "sin", (), "any", True),
    ("cos", "cos", (), "any", True),
    ("reciprocal", "reciprocal", (), "away0", True),
    ("sign", "sign", (), "away0", True),
    ("sgn", "sgn", (), "away0", True),
    ("round", "round", (), "any", True),
    ("round_decimals", "round", ({"decimals": 1},), "any", True),
    ("floor", "floor", (), "any", True),
    ("ceil", "ceil", (), "any", True),
    ("trunc", "trunc", (), "any", True),
    ("frac", "frac", (), "any", True),
    ("square", "square", (), "any", True),
    ("log1p", "log1p", (), "pos", True),
    ("expm1", "expm1", (), "any", True),
    ("log2", "log2", (), "pos", True),
    ("log10", "log10", (), "pos", True),
    ("exp2", "exp2", (), "any", True),
    ("tan", "tan", (), "unit", True),
    ("asin", "asin", (), "unit", True),
    ("acos", "acos", (), "unit", True),
    ("atan", "atan", (), "any", True),
    ("sinh", "sinh", (), "any", True),
    ("cosh", "cosh", (), "any", True),
    ("asinh", "asinh", (), "any", True),
    ("acosh", "acosh", (), "gt1", True),
    ("atanh", "atanh", (), "unit", True),
    ("nan_to_num", "nan_to_num", (), "any", True),
    ("clamp_both", "clamp", (-0.5, 0.5), "any", True),
    ("clamp_min_kw", "clamp", ({"min": -0.3},), "any", True),
    ("clamp_max_kw", "clamp", ({"max": 0.3},), "any", True),
    ("clamp_min", "clamp_min", (0.1,), "any", True),
    ("clamp_max", "clamp_max", (0.1,), "any", True),
    ("pow_2_5", "pow", (2.5,), "pos", True),
    ("pow_3", "pow", (3,), "any", True),
    ("pow_0", "pow", (0,), "any", True),
    ("pow_neg", "pow", (-1.5,), "pos", True),
    ("mul_number", "mul", (2.5,), "any", True),
    ("div_number", "div", (-4.0,), "any", True),
    ("add_number", "add", (3.0,), "any", True),
    ("add_number_alpha", "add", (3.0, {"alpha": 2}), "any", True),
    ("sub_number", "sub", (3.0,), "any", True),
    ("fmod_number", "fmod", (0.7,), "any", True),
    ("remainder_number", "remainder", (0.7,), "any", True),
    ("div_floor_number", "div", (0.7, {"rounding_mode": "floor"}), "any", True),
    ("div_trunc_number", "div", (0.7, {"rounding_mode": "trunc"}), "any", True),
]


def _call(x, method, args):
    pos = [a for a in args if not isinstance(a, dict)]
    kw = {k: v for a in args if isinstance(a, dict) for k, v in a.items()}
    return getattr(x, method)(*pos, **kw)


def _unary_variants():
    for name, method, args, dom, fd in UNARY:
        def plain(lib, x, method=method, args=args):
            return _call(x, method, args)

        def transposed(lib, x, method=method, args=args):
            return _call(x.t(), method, args)

        def no_grad(lib, x, method=method, args=args):
            with lib.no_grad():
                return _call(x, method, args)

        yield pytest.param(plain, [_domain(dom, (2, 3))], [_t((2, 3))], fd, {}, id=f"{name}")
        yield pytest.param(transposed, [_domain(dom, (3, 2))], [_t((3, 2))], fd, {},
                           id=f"{name}-T")
        yield pytest.param(plain, [_domain(dom, (0, 3))], [_t((0, 3))], fd, {},
                           id=f"{name}-empty")
        yield pytest.param(plain, [_domain(dom, (4,))], [_t((4,))], fd, {"dtype": "float32"},
                           id=f"{name}-f32")
        yield pytest.param(no_grad, [_domain(dom, (2, 3))], [_t((2, 3))], fd, {},
                           id=f"{name}-no_grad")
        yield pytest.param(plain, [_domain(dom, (2, 3))], [_t((2, 3))], fd,
                           {"primal_grad": True}, id=f"{name}-primal_grad")
        yield pytest.param(plain, [_domain(dom, ())], [_t(())], fd, {}, id=f"{name}-0dim")


def _tolerances(kw):
    return {"rtol": 1e-5, "atol": 1e-6} if kw.get("dtype") == "float32" else {}


@pytest.mark.parametrize("fn, primals, tangents, fd, kw", list(_unary_variants()))
def test_unary(fn, primals, tangents, fd, kw):
    check_jvp(fn, primals, tangents, fd=fd, **kw, **_tolerances(kw))


def _inplace_variants():
    import torch

    import minigrad

    for _name, method, args, dom, fd in UNARY:
        op = method + "_"
        if not (hasattr(torch.Tensor, op) and hasattr(minigrad.Tensor, op)):
            continue

        def on_dual(lib, x, op=op, args=args):  # (the dual itself: a view of a plain leaf)
            return _call(x, op, args)

        def on_non_leaf(lib, x, op=op, args=args):
            y = x * 1
            r = _call(y, op, args)
            return [y, r is y]

        def on_view(lib, x, op=op, args=args):
            y = x * 1
            _call(y[:, 1:], op, args)
            return y

        def on_view_of_plain(lib, x, op=op, args=args):  # the base gets a zero tangent first
            y = lib.ones(2, 3, dtype=x.dtype) * 0.5
            v = y[:, 1:]
            v.copy_(x[:, 1:])
            _call(v, op, args)
            return [y, v]

        def no_grad(lib, x, op=op, args=args):
            y = x * 1
            with lib.no_grad():
                _call(y, op, args)
            return y

        for variant in (on_dual, on_non_leaf, on_view, on_view_of_plain, no_grad):
            yield pytest.param(variant, [_domain(dom, (2, 3))], [_t((2, 3))], fd, {},
                               id=f"{op}-{variant.__name__}")
        yield pytest.param(on_non_leaf, [_domain(dom, (2, 3))], [_t((2, 3))], fd,
                           {"primal_grad": True}, id=f"{op}-primal_grad")


@pytest.mark.parametrize("fn, primals, tangents, fd, kw", list(_inplace_variants()))
def test_unary_inplace(fn, primals, tangents, fd, kw):
    check_jvp(fn, primals, tangents, fd=fd, **kw)


# ------------------------------------------------------------------------------ binary ops
def _ties(shape_a, shape_b):
    """Two arrays equal in some positions (after broadcasting): the tie rules of
    maximum/minimum/fmax/fmin/clamp."""
    a = R.uniform(-2, 2, shape_a)
    b = R.uniform(-2, 2, shape_b)
    bb = np.broadcast_to(b, np.broadcast_shapes(shape_a, shape_b))
    aa = np.broadcast_to(a, bb.shape).copy()
    aa.flat[::3] = bb.flat[::3]
    if aa.shape == a.shape:
        a = aa
    return a, b


def _nans(shape):
    a = R.uniform(-2, 2, shape)
    a.flat[1::4] = np.nan
    return a


# (id, fn(lib, a, b), domain of a, domain of b, fd)
BINARY = [
    ("add", lambda lib, a, b: a + b, "any", "any", True),
    ("add_alpha", lambda lib, a, b: lib.add(a, b, alpha=-1.5), "any", "any", True),
    ("sub", lambda lib, a, b: a - b, "any", "any", True),
    ("sub_alpha", lambda lib, a, b: lib.sub(a, b, alpha=2), "any", "any", True),
    ("rsub", lambda lib, a, b: lib.rsub(a, b, alpha=3), "any", "any", True),
    ("mul", lambda lib, a, b: a * b, "any", "any", True),
    ("div", lambda lib, a, b: a / b, "any", "away0", True),
    ("div_floor", lambda lib, a, b: lib.div(a, b, rounding_mode="floor"), "any", "away0", True),
    ("div_trunc", lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"), "any", "away0", True),
    ("pow", lambda lib, a, b: a ** b, "pos", "any", True),
    ("maximum", lambda lib, a, b: lib.maximum(a, b), "any", "any", True),
    ("minimum", lambda lib, a, b: lib.minimum(a, b), "any", "any", True),
    ("fmax", lambda lib, a, b: lib.fmax(a, b), "any", "any", True),
    ("fmin", lambda lib, a, b: lib.fmin(a, b), "any", "any", True),
    ("fmod", lambda lib, a, b: lib.fmod(a, b), "any", "away0", True),
    ("remainder", lambda lib, a, b: lib.remainder(a, b), "any", "away0", True),
    ("hypot", lambda lib, a, b: lib.hypot(a, b), "any", "any", True),
    ("atan2", lambda lib, a, b: lib.atan2(a, b), "any", "any", True),
    ("clamp_min_t", lambda lib, a, b: lib.clamp_min(a, b), "any", "any", True),
    ("clamp_max_t", lambda lib, a, b: lib.clamp_max(a, b), "any", "any", True),
    ("clamp_lo_t", lambda lib, a, b: lib.clamp(a, min=b), "any", "any", True),
    ("clamp_hi_t", lambda lib, a, b: lib.clamp(a, max=b), "any", "any", True),
    ("lerp_number", lambda lib, a, b: lib.lerp(a, b, 0.3), "any", "any", True),
    ("lerp_number_big", lambda lib, a, b: lib.lerp(a, b, 0.8), "any", "any", True),
    ("where", lambda lib, a, b: lib.where(a > 0, a, b), "any", "any", True),
]
BINARY_IDS = [b[0] for b in BINARY]
BINARY_INPLACE = {"add": "add_", "sub": "sub_", "mul": "mul_", "div": "div_", "pow": "pow_",
                  "fmod": "fmod_", "remainder": "remainder_", "hypot": "hypot_",
                  "atan2": "atan2_", "clamp_min_t": "clamp_min_", "clamp_max_t": "clamp_max_"}
MASKS = {"both": (True, True), "a": (True, False), "b": (False, True)}
SHAPES = {"same": ((2, 3), (2, 3)), "bcast_row": ((2, 3), (3,)), "bcast_col": ((2, 1), (2, 3)),
          "scalar_b": ((2, 3), ())}


def _binary_primals(name, shapes, da, db):
    if name in ("maximum", "minimum", "fmax", "fmin", "clamp_min_t", "clamp_max_t",
                "clamp_lo_t", "clamp_hi_t"):
        return list(_ties(*shapes))
    return [_domain(da, shapes[0]), _domain(db, shapes[1])]


def _binary_cases():
    for name, fn, da, db, fd in BINARY:
        for sname, shapes in SHAPES.items():
            for mname, mask in MASKS.items():
                primals = _binary_primals(name, shapes, da, db)
                tangents = [_t(p.shape) if m else None for p, m in zip(primals, mask)]
                # (ties: not differentiable there, finite differences are off)
                tie = name in ("maximum", "minimum", "fmax", "fmin") or "clamp" in name
                yield pytest.param(fn, primals, tangents, fd and not tie, {},
                                   id=f"{name}-{sname}-{mname}")


@pytest.mark.parametrize("fn, primals, tangents, fd, kw", list(_binary_cases()))
def test_binary(fn, primals, tangents, fd, kw):
    check_jvp(fn, primals, tangents, fd=fd, **kw)


@pytest.mark.parametrize("name", BINARY_IDS)
@pytest.mark.parametrize("variant", ["T", "empty", "f32", "no_grad", "primal_grad"])
def test_binary_variants(name, variant):
    _, fn, da, db, fd = BINARY[BINARY_IDS.index(name)]
    shape = {"T": (3, 2), "empty": (0, 3), "f32": (2, 3)}.get(variant, (2, 3))
    primals = _binary_primals(name, (shape, shape), da, db)
    tangents = [_t(shape), _t(shape)]
    kw = {"f32": {"dtype": "float32", "rtol": 1e-5, "atol": 1e-6},
          "primal_grad": {"primal_grad": True}}.get(variant, {})
    f = fn
    if variant == "T":
        def f(lib, a, b):
            return fn(lib, a.t(), b.t())
    elif variant == "no_grad":
        def f(lib, a, b):
            with lib.no_grad():
                return fn(lib, a, b)
    tie = name in ("maximum", "minimum", "fmax", "fmin") or "clamp" in name
    check_jvp(f, primals, tangents, fd=fd and not tie, **kw)


@pytest.mark.parametrize("name", sorted(BINARY_INPLACE))
@pytest.mark.parametrize("mname", list(MASKS))
@pytest.mark.parametrize("target", ["non_leaf", "view", "plain", "no_grad"])
def test_binary_inplace(name, mname, target):
    _, _, da, db, fd = BINARY[BINARY_IDS.index(name)]
    op = BINARY_INPLACE[name]
    primals = _binary_primals(name, ((2, 3), (3,)), da, db)
    mask = MASKS[mname]
    tangents = [_t(p.shape) if m else None for p, m in zip(primals, mask)]

    def fn(lib, a, b):
        if target == "plain":  # a plain tensor written with a dual operand
            y = lib.tensor(np.asarray(primals[0]), dtype=a.dtype)
        else:
            y = a * 1
        if target == "view":
            getattr(y[1:], op)(b)
        elif target == "no_grad":
            with lib.no_grad():
                getattr(y, op)(b)
        else:
            getattr(y, op)(b)
        return y

    tie = name in ("maximum", "minimum", "fmax", "fmin") or "clamp" in name
    check_jvp(fn, primals, tangents, fd=fd and not tie)


OPERATORS = {
    "iadd": lambda y, b: y.__iadd__(b), "isub": lambda y, b: y.__isub__(b),
    "imul": lambda y, b: y.__imul__(b), "itruediv": lambda y, b: y.__itruediv__(b),
    "ipow": lambda y, b: y.__ipow__(b), "imod": lambda y, b: y.__imod__(b),
    "rtruediv": lambda y, b: 2.0 / b, "rpow": lambda y, b: 2.0 ** b, "rsub": lambda y, b: 2 - b,
    "radd": lambda y, b: 2 + b, "rmul": lambda y, b: 2 * b, "neg": lambda y, b: -b,
    "pos_abs": lambda y, b: abs(b), "pow_number": lambda y, b: b ** 2,
    "rpow_zero": lambda y, b: 0.0 ** b,
}


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_operators(name):
    a, b = R.uniform(0.5, 2, (2, 3)), R.uniform(0.5, 2, (2, 3))

    def fn(lib, a, b):
        y = a * 1
        r = OPERATORS[name](y, b)
        return [y, r]

    for mask in MASKS.values():
        check_jvp(fn, [a, b], [_t(a.shape) if mask[0] else None,
                               _t(b.shape) if mask[1] else None])


# ------------------------------------------------------------------------------ ternary ops
TERNARY = [
    ("addcmul", lambda lib, s, a, b: lib.addcmul(s, a, b), ("any", "any", "any")),
    ("addcmul_value", lambda lib, s, a, b: lib.addcmul(s, a, b, value=-0.5),
     ("any", "any", "any")),
    ("addcdiv", lambda lib, s, a, b: lib.addcdiv(s, a, b), ("any", "any", "away0")),
    ("addcdiv_value", lambda lib, s, a, b: lib.addcdiv(s, a, b, value=2.5),
     ("any", "any", "away0")),
    ("lerp_tensor", lambda lib, s, e, w: lib.lerp(s, e, w), ("any", "any", "any")),
    ("clamp_tensors", lambda lib, s, lo, hi: lib.clamp(s, lo, hi), ("any", "any", "any")),
]
TERNARY_IDS = [t[0] for t in TERNARY]
TERNARY_INPLACE = {"addcmul": "addcmul_", "addcmul_value": "addcmul_", "addcdiv": "addcdiv_",
                   "addcdiv_value": "addcdiv_", "lerp_tensor": "lerp_",
                   "clamp_tensors": "clamp_"}
T_MASKS = {"all": (1, 1, 1), "s": (1, 0, 0), "1": (0, 1, 0), "2": (0, 0, 1), "s2": (1, 0, 1)}


def _ternary_primals(name, shapes, doms):
    ps = [_domain(d, s) for d, s in zip(doms, shapes)]
    if name == "clamp_tensors":  # lo < hi mostly, some crossed bounds, some ties
        lo, hi = R.uniform(-1.5, 0, shapes[1]), R.uniform(0, 1.5, shapes[2])
        hi.flat[::4] = -1.7
        s = np.broadcast_to(ps[0], np.broadcast_shapes(*shapes)).copy()
        if s.shape == ps[0].shape:
            s.flat[1::5] = np.broadcast_to(lo, s.shape).flat[1::5]
            ps[0] = s
        ps[1], ps[2] = lo, hi
    return ps


@pytest.mark.parametrize("name", TERNARY_IDS)
@pytest.mark.parametrize("mname", list(T_MASKS))
@pytest.mark.parametrize("shapes", [((2, 3),) * 3, ((2, 3), (3,), (2, 1)), ((1, 3), (2, 1), ())],
                         ids=["same", "bcast", "bcast2"])
def test_ternary(name, mname, shapes):
    _, fn, doms = TERNARY[TERNARY_IDS.index(name)]
    primals = _ternary_primals(name, shapes, doms)
    tangents = [_t(p.shape) if m else None for p, m in zip(primals, T_MASKS[mname])]
    check_jvp(fn, primals, tangents, fd=name != "clamp_tensors")


@pytest.mark.parametrize("name", TERNARY_IDS)
@pytest.mark.parametrize("variant", ["T", "empty", "f32", "no_grad", "primal_grad"])
def test_ternary_variants(name, variant):
    _, fn, doms = TERNARY[TERNARY_IDS.index(name)]
    shape = {"T": (3, 2), "empty": (0, 3)}.get(variant, (2, 3))
    primals = _ternary_primals(name, (shape,) * 3, doms)
    tangents = [_t(shape)] * 3
    kw = {"f32": {"dtype": "float32", "rtol": 1e-5, "atol": 1e-6},
          "primal_grad": {"primal_grad": True}}.get(variant, {})
    f = fn
    if variant == "T":
        def f(lib, s, a, b):
            return fn(lib, s.t(), a.t(), b.t())
    elif variant == "no_grad":
        def f(lib, s, a, b):
            with lib.no_grad():
                return fn(lib, s, a, b)
    check_jvp(f, primals, tangents, fd=name != "clamp_tensors", **kw)


@pytest.mark.parametrize("name", sorted(TERNARY_INPLACE))
@pytest.mark.parametrize("mname", list(T_MASKS))
@pytest.mark.parametrize("target", ["non_leaf", "view", "plain"])
def test_ternary_inplace(name, mname, target):
    _, _, doms = TERNARY[TERNARY_IDS.index(name)]
    op = TERNARY_INPLACE[name]
    primals = _ternary_primals(name, ((2, 3), (3,), (2, 3)), doms)
    tangents = [_t(p.shape) if m else None for p, m in zip(primals, T_MASKS[mname])]
    kw = {"value": -0.5 if "cmul" in name else 2.5} if "value" in name else {}

    def fn(lib, s, a, b):
        y = lib.tensor(np.asarray(primals[0]), dtype=s.dtype) if target == "plain" else s * 1
        z = y[1:] if target == "view" else y
        if op == "clamp_":
            z.clamp_(a, b[1:] if target == "view" else b)
        else:
            getattr(z, op)(a, b[1:] if target == "view" else b, **kw)
        return y

    check_jvp(fn, primals, tangents, fd=name != "clamp_tensors")


def test_lerp_inplace_number_weight():
    a, b = R.uniform(-2, 2, (2, 3)), R.uniform(-2, 2, (3,))
    for weight in (0.25, 0.75):
        for mask in MASKS.values():
            check_jvp(lambda lib, a, b, weight=weight: (a * 1).lerp_(b, weight), [a, b],
                      [_t(a.shape) if mask[0] else None, _t(b.shape) if mask[1] else None])


# ------------------------------------------------------------------------------ special values
@pytest.mark.parametrize("fn", [
    lambda lib, x, y: x.nan_to_num(),
    lambda lib, x, y: x.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0),
    lambda lib, x, y: lib.fmax(x, y),
    lambda lib, x, y: lib.fmin(x, y),
    lambda lib, x, y: lib.maximum(x, y),
    lambda lib, x, y: lib.minimum(x, y),
    lambda lib, x, y: lib.clamp(x, y, y + 1),
    lambda lib, x, y: x.abs(),
    lambda lib, x, y: x.clamp(-1, 1),
    lambda lib, x, y: x.sgn(),
    lambda lib, x, y: x ** 2.0,
    lambda lib, x, y: lib.atan2(x, y),
    lambda lib, x, y: lib.hypot(x, y),
    lambda lib, x, y: lib.where(x > 0, x, y),
    lambda lib, x, y: x * y,
    lambda lib, x, y: x / y,
    lambda lib, x, y: lib.fmod(x, y),
], ids=["nan_to_num", "nan_to_num_values", "fmax", "fmin", "maximum", "minimum", "clamp_t",
        "abs", "clamp", "sgn", "square", "atan2", "hypot", "where", "mul", "div", "fmod"])
@pytest.mark.parametrize("mname", list(MASKS))
def test_special_values(fn, mname):
    """NaN, infinities, signed zeros and ties against each other (one operand dual or both)."""
    x = np.array([[np.nan, np.inf, -np.inf, 0.0, 1.0], [1.0, -0.0, np.nan, 2.0, 0.0]])
    y = np.array([[1.0, np.nan, 3.0, 0.0, np.inf], [np.nan, 0.0, np.nan, 2.0, -0.0]])
    mask = MASKS[mname]
    check_jvp(fn, [x, y], [_t(x.shape) if mask[0] else None, _t(y.shape) if mask[1] else None],
              fd=False)


@pytest.mark.parametrize("fn", [
    lambda lib, b: b ** lib.tensor([[0.0, 1.0, -1.0]], dtype=b.dtype),
    lambda lib, b: lib.tensor([[0.0, 0.0, 2.0]], dtype=b.dtype) ** b,
    lambda lib, b: 0.0 ** b,
    lambda lib, b: lib.pow(0.0, b),
    lambda lib, b: lib.pow(2.5, b),
], ids=["pow_exp_special", "pow_base_zero", "rpow_zero", "pow_scalar_zero", "pow_scalar"])
def test_pow_special(fn):
    b = np.array([[0.0, 1.5, -2.0]])
    check_jvp(fn, [b], [_t(b.shape)], fd=False)


# ------------------------------------------------------------------------------ masked_fill
@pytest.mark.parametrize("mname", ["both", "a", "b"])
@pytest.mark.parametrize("shape", [(2, 3), (3,)], ids=["same", "bcast_mask"])
def test_masked_fill(mname, shape):
    x, v = R.uniform(-2, 2, (2, 3)), R.uniform(-2, 2, ())
    mask = R.uniform(size=shape) > 0.5
    tangents = [_t(x.shape) if MASKS[mname][0] else None, _t(()) if MASKS[mname][1] else None]
    check_jvp(lambda lib, x, v, m: x.masked_fill(m, v), [x, v, mask], tangents + [None])
    check_jvp(lambda lib, x, v, m: x.masked_fill(m, 1.5), [x, v, mask], tangents + [None])
    check_jvp(lambda lib, x, v, m: (x * 1).masked_fill_(m, v), [x, v, mask], tangents + [None])
    check_jvp(lambda lib, x, v, m: (x * 1).masked_fill_(m, -2.0), [x, v, mask],
              tangents + [None])

    def plain(lib, x, v, m):
        y = lib.zeros(2, 3, dtype=x.dtype)
        y.masked_fill_(m, v)
        return y

    check_jvp(plain, [x, v, mask], tangents + [None])

    def view(lib, x, v, m):
        y = x * 1
        y.t().masked_fill_(m.reshape(shape).t() if len(shape) == 2 else m.reshape(3, 1), v)
        return y

    check_jvp(view, [x, v, mask], tangents + [None])


# ------------------------------------------------------------------------------ fill, zero, copy
@pytest.mark.parametrize("mname", ["both", "a", "b"])
def test_fill_zero_copy(mname):
    x, v = R.uniform(-2, 2, (2, 3)), R.uniform(-2, 2, ())
    tangents = [_t(x.shape) if MASKS[mname][0] else None, _t(()) if MASKS[mname][1] else None]
    fns = [
        lambda lib, x, v: (x * 1).fill_(v),
        lambda lib, x, v: (x * 1).fill_(2.0),
        lambda lib, x, v: (x * 1).zero_(),
        lambda lib, x, v: lib.zeros(2, 3, dtype=x.dtype).fill_(v),
        lambda lib, x, v: (x * 1)[1].fill_(v),
        lambda lib, x, v: (x * 1).t()[1:].zero_(),
        lambda lib, x, v: (x * 1).copy_(v),
        lambda lib, x, v: lib.zeros(3, 2, dtype=x.dtype).t().copy_(x),
        lambda lib, x, v: (x * v).fill_(1.0),
    ]
    for fn in fns:
        check_jvp(fn, [x, v], tangents)
    check_jvp(lambda lib, x, v: lib.zeros(2, 3, dtype=lib.float32).copy_(x * v), [x, v],
              tangents, fd=False)  # (a float32 result: no finite differences)


# ------------------------------------------------------------------------------ setitem
SETITEMS = {
    "slice_tensor": (lambda i: (slice(None), slice(1, None)), (2, 2)),
    "int_fill": (lambda i: (0, 1), ()),
    "row": (lambda i: 1, (3,)),
    "row_bcast": (lambda i: 0, (1,)),
    "all": (lambda i: Ellipsis, (2, 3)),
    "int_array": (lambda lib: (lib.tensor([1, 0, 1]), lib.tensor([0, 2, 2])), (3,)),
    "int_array_dup": (lambda lib: (lib.tensor([1, 1]), lib.tensor([0, 0])), (2,)),
    "bool_mask": (lambda lib: lib.tensor([[True, False, True], [False, False, True]]), (3,)),
    "bool_mask_scalar": (lambda lib: lib.tensor([[True, False, True], [False, False, True]]),
                         ()),
    "mixed": (lambda lib: (slice(None), lib.tensor([2, 0])), (2, 2)),
    "step": (lambda i: (slice(None), slice(None, None, 2)), (2,)),
}


@pytest.mark.parametrize("name", sorted(SETITEMS))
@pytest.mark.parametrize("mname", ["both", "a", "b"])
@pytest.mark.parametrize("target", ["non_leaf", "plain", "no_grad", "primal_grad"])
def test_setitem(name, mname, target):
    index, vshape = SETITEMS[name]
    x, v = R.uniform(-2, 2, (2, 3)), R.uniform(-2, 2, vshape)
    tangents = [_t(x.shape) if MASKS[mname][0] else None, _t(vshape) if MASKS[mname][1] else None]

    def fn(lib, x, v):
        y = lib.zeros(2, 3, dtype=x.dtype) if target == "plain" else x * 1
        if target == "no_grad":
            with lib.no_grad():
                y[index(lib)] = v
        else:
            y[index(lib)] = v
        return y

    check_jvp(fn, [x, v], tangents, primal_grad=target == "primal_grad")


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("mname", ["both", "a", "b"])
def test_index_put_(accumulate, mname):
    x, v = R.uniform(-2, 2, (2, 3)), R.uniform(-2, 2, (3,))
    tangents = [_t(x.shape) if MASKS[mname][0] else None, _t(v.shape) if MASKS[mname][1] else None]

    def fn(lib, x, v):
        y = x * 1
        y.index_put_((lib.tensor([1, 0, 1]), lib.tensor([0, 2, 0])), v, accumulate=accumulate)
        return y

    check_jvp(fn, [x, v], tangents)


def test_setitem_number():
    x = R.uniform(-2, 2, (2, 3))
    for index in [(0, 1), (slice(None), 1), Ellipsis]:
        def fn(lib, x, index=index):
            y = x * 1
            y[index] = 2.5
            return y

        check_jvp(fn, [x], [_t(x.shape)])

    def masked(lib, x):
        y = x * 1
        y[x > 0] = 0.0
        return y

    check_jvp(masked, [x], [_t(x.shape)])


# ------------------------------------------------------------------------------ comparisons etc.
@pytest.mark.parametrize("fn", [
    lambda lib, a, b: (a * 1).eq_(b), lambda lib, a, b: (a * 1).ne_(0.5),
    lambda lib, a, b: (a * 1).lt_(b), lambda lib, a, b: (a * 1).le_(0.5),
    lambda lib, a, b: (a * 1).gt_(b), lambda lib, a, b: (a * 1).ge_(0.5),
    lambda lib, a, b: lib.zeros(2, 3, dtype=a.dtype).gt_(b),
], ids=["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "gt_plain"])
@pytest.mark.parametrize("mname", ["both", "a", "b"])
def test_compare_inplace(fn, mname):
    a, b = R.uniform(-1, 1, (2, 3)), R.uniform(-1, 1, (3,))
    mask = MASKS[mname]
    check_jvp(fn, [a, b], [_t(a.shape) if mask[0] else None, _t(b.shape) if mask[1] else None])


@pytest.mark.parametrize("fn", [
    lambda lib, a, b: [a == b, a != b, a < b, a <= b, a > b, a >= b],
    lambda lib, a, b: [lib.eq(a, 0.5), lib.isclose(a, b), a.isnan(), a.isfinite(),
                       lib.isinf(a), lib.isposinf(a), lib.isneginf(a)],
    lambda lib, a, b: [lib.logical_and(a, b), lib.logical_or(a, b), lib.logical_xor(a, b),
                       lib.logical_not(a)],
    lambda lib, a, b: [lib.greater(a, b), lib.less_equal(a, b), lib.not_equal(a, b)],
], ids=["compare", "tests", "logical", "aliases"])
def test_non_differentiable_outputs(fn):
    a, b = R.uniform(-1, 1, (2, 3)), R.uniform(-1, 1, (3,))
    for mask in MASKS.values():
        check_jvp(fn, [a, b], [_t(a.shape) if mask[0] else None,
                               _t(b.shape) if mask[1] else None], fd=False)


@pytest.mark.parametrize("op", ["logical_and_", "logical_or_", "logical_xor_", "logical_not_",
                                "eq_", "gt_"])
def test_non_differentiable_inplace_keeps_tangent(op):
    """A logical op in place on a dual tensor writes 0/1 and leaves its tangent as it was
    (PyTorch: no derivative, so no forward grad update); comparisons in place zero it."""
    a, b = R.uniform(-1, 1, (2, 3)), R.uniform(-1, 1, (2, 3))

    def fn(lib, a, b):
        fwAD = lib.autograd.forward_ad
        y = a * 1
        before = fwAD.unpack_dual(y).tangent
        args = () if op == "logical_not_" else (b,)
        getattr(y, op)(*args)
        after = fwAD.unpack_dual(y).tangent
        return [y, after is before, y._version, to_numpy(after)]

    assert_parity(lambda lib: _in_level(lib, fn, a, b))


def _in_level(lib, fn, *arrays):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        duals = [fwAD.make_dual(lib.tensor(x), lib.tensor(_TANGENT[x.shape])) for x in arrays]
        out = fn(lib, *duals)
        return [to_numpy(o) if hasattr(o, "detach") else o for o in out]


_TANGENT = {(2, 3): R.standard_normal((2, 3)), (3,): R.standard_normal(3)}


def test_bitwise_refuses_float_duals_alike():
    a = R.uniform(-1, 1, (2, 3))
    for fn in (lambda lib, a: a & a, lambda lib, a: lib.bitwise_not(a),
               lambda lib, a: a.bitwise_or(a), lambda lib, a: a << 1):
        check_jvp(fn, [a], [_t(a.shape)], fd=False)


def test_int_ops_next_to_duals():
    """Integer tensors beside dual ones: bitwise and integer arithmetic give no tangents."""
    a = R.uniform(-1, 1, (2, 3))
    i = np.array([[1, 2, 3], [4, 5, 6]])
    fns = [lambda lib, a, i: [i & 3, i | i, ~i, i ^ 5, i << 1, a * i, i // 2, i % 4],
           lambda lib, a, i: [(a > 0).logical_and(i > 2), a.sign().to(lib.int64) | i]]
    for fn in fns:
        check_jvp(fn, [a, i], [_t(a.shape), None], fd=False)


# ------------------------------------------------------------------------------ errors
def capture_error(fn):
    got = _capture(fn)
    return got and (got[0], got[1].replace("minigrad.", "torch."))


def _errors(lib):
    fwAD = lib.autograd.forward_ad
    out = {}
    with fwAD.dual_level():
        x = lib.tensor([[1.5, -2.0, 3.0]], dtype=lib.float64)
        d = fwAD.make_dual(x, lib.ones(1, 3, dtype=lib.float64))
        cases = {
            "floor_divide": lambda: d // 2,
            "floor_divide_t": lambda: lib.floor_divide(x, d),
            "floor_divide_fn": lambda: lib.floor_divide(d, d),
            "floor_divide_": lambda: (d * 1).floor_divide_(2),
            "ifloordiv": lambda: (d * 1).__ifloordiv__(x),
            "rfloordiv": lambda: 3.0 // d,
            "rmod": lambda: 2 % d,
            "asinh_": lambda: (d * 1).asinh_(),
            "acosh_": lambda: (d * 1 + 3).acosh_(),
            "atanh_": lambda: (d * 0.1).atanh_(),
            "arcsinh_": lambda: (d * 1).arcsinh_(),
            "asinh_plain": lambda: lib.zeros(1, 3, dtype=lib.float64).add_(d).asinh_(),
        }
        for name, f in cases.items():
            out[name] = capture_error(f)
    return out


def test_errors_where_pytorch_has_no_formula():
    assert_parity(_errors)


# ------------------------------------------------------------------------------ identity
def _identity(lib):
    """Which ops hand the input's tangent on as-is (PyTorch's ``result: self_t``)."""
    fwAD = lib.autograd.forward_ad
    out = {}
    with fwAD.dual_level():
        t = lib.tensor(_TANGENT[(2, 3)])
        d = fwAD.make_dual(lib.tensor(_A * 2 - 2.5), t)
        for name, f in {"frac": lambda: d.frac(), "fmod": lambda: lib.fmod(d, 0.7),
                        "remainder": lambda: d % 0.7, "add": lambda: d + 2,
                        "sub": lambda: d - 2, "mul": lambda: d * 1,
                        "sign": lambda: d.sign()}.items():
            out[name] = fwAD.unpack_dual(f()).tangent is t
    return out


def test_tangent_identity():
    assert_parity(_identity)


# ------------------------------------------------------------------------------ forward/reverse
@pytest.mark.parametrize("fn", [
    lambda lib, x: x.tanh(), lambda lib, x: x.sigmoid(), lambda lib, x: x.log2(),
    lambda lib, x: x.log10(), lambda lib, x: x.exp2(), lambda lib, x: x.asinh(),
    lambda lib, x: x.atanh(), lambda lib, x: x.pow(2.5), lambda lib, x: x.sqrt(),
    lambda lib, x: x.rsqrt(), lambda lib, x: x.log1p(), lambda lib, x: x.expm1(),
    lambda lib, x: x.tan(), lambda lib, x: x.acos(), lambda lib, x: (x + 1.5).acosh(),
    lambda lib, x: lib.atan2(x, x * x), lambda lib, x: lib.hypot(x, x.exp()),
    lambda lib, x: x.clamp(0.3, 0.6), lambda lib, x: lib.maximum(x, 1 - x),
    lambda lib, x: lib.addcdiv(x, x, x + 1, value=0.5), lambda lib, x: lib.lerp(x, x * x, x),
    lambda lib, x: x ** x, lambda lib, x: 2.0 ** x, lambda lib, x: lib.fmod(x, x + 0.3),
], ids=["tanh", "sigmoid", "log2", "log10", "exp2", "asinh", "atanh", "pow", "sqrt", "rsqrt",
        "log1p", "expm1", "tan", "acos", "acosh", "atan2", "hypot", "clamp", "maximum", "addcdiv",
        "lerp", "pow_tt", "rpow", "fmod"])
def test_forward_over_reverse(fn):
    """The tangent of a gradient (Hessian-vector product): the backward formulas' own ops
    (``tanh_backward``, the Tensor-Scalar ``MulBackward1`` ...) run on dual tensors."""
    x = R.uniform(0.1, 0.9, (2, 3))

    def hvp(lib, d):
        xr = d if d.requires_grad else d.detach().requires_grad_()  # (finite differences)
        out = fn(lib, xr)
        (g,) = lib.autograd.grad(out, xr, lib.ones_like(out), create_graph=True)
        return g

    check_jvp(hvp, [x], [_t(x.shape)], primal_grad=True, fd=True)


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.mean(), lambda lib, x: x.exp2(), lambda lib, x: x * 2.5,
    lambda lib, x: x.log2(), lambda lib, x: x.tanh(), lambda lib, x: x.sigmoid(),
    lambda lib, x: (x + 1.5).acosh(), lambda lib, x: x / 4.0,
], ids=["mean", "exp2", "mul_number", "log2", "tanh", "sigmoid", "acosh", "div_number"])
@pytest.mark.parametrize("dual_x", [False, True], ids=["plain_x", "dual_x"])
def test_dual_grad_outputs(fn, dual_x):
    """A dual ``grad_outputs`` (and a dual input or not): the backward formulas' number ops
    (``MulBackward1``, ``DivBackward1``, ``AddBackward1``, ``SubBackward1``) and the fused
    ``tanh_backward`` / ``sigmoid_backward`` carry its tangent."""
    x, v = R.uniform(0.1, 0.9, (2, 3)), R.uniform(-1, 1, (2, 3))

    def vjp(lib, x, v):
        x = x if x.requires_grad else x.detach().requires_grad_()
        out = fn(lib, x)
        (g,) = lib.autograd.grad(out, x, v.expand(out.shape) if out.ndim else v[0, 0],
                                 create_graph=True)
        return g

    check_jvp(vjp, [x, v], [_t(x.shape) if dual_x else None, _t(v.shape)],
              primal_grad=dual_x)


def _no_shared_tangents(lib):
    """A formula whose only term is an input's tangent (``p + d``, ``copy_``, ``add_``) gives
    a new tangent: an in-place op on the result leaves the input's tangent alone (PyTorch)."""
    fwAD = lib.autograd.forward_ad
    out = []
    with fwAD.dual_level():
        t = lib.tensor(_TANGENT[(2, 3)])
        d = fwAD.make_dual(lib.tensor(_A * 2 - 2.5), t)
        before = to_numpy(t).copy()
        p = lib.ones(2, 3, dtype=lib.float64)
        for make in (lambda: p + d, lambda: p - d * 1, lambda: lib.where(p > 0, d, p),
                     lambda: lib.zeros(2, 3, dtype=lib.float64).add_(d),
                     lambda: lib.zeros(2, 3, dtype=lib.float64).copy_(d),
                     lambda: lib.fmod(d, p), lambda: lib.clamp(d, min=p * -9)):
            y = make()
            out.append(fwAD.unpack_dual(y).tangent is t)
            y.mul_(2)
            out.append(bool(np.array_equal(to_numpy(t), before)))
        y = d.frac()  # (PyTorch's formula is the tangent itself: shared, written through)
        out.append(fwAD.unpack_dual(y).tangent is t)
        y.mul_(2)
        out.append(to_numpy(t))
    return out


def test_no_shared_tangents():
    assert_parity(_no_shared_tangents)


# ------------------------------------------------------------------------------ other forms
@pytest.mark.parametrize("fn", [
    lambda lib, a, b: lib.rsub(a, 2.0, alpha=3),
    lambda lib, a, b: lib.rsub(a, 2.0),
    lambda lib, a, b: lib.where(a > 0, a, 0.0),
    lambda lib, a, b: lib.where(a > 0, 1.5, b),
    lambda lib, a, b: lib.sin_(a * 1),
    lambda lib, a, b: lib.clamp_(a * 1, min=-0.5),
    lambda lib, a, b: lib.clamp_(a * 1, b, b + 1),
    lambda lib, a, b: lib.square_(a * 1),
    lambda lib, a, b: lib.nan_to_num_(a * 1),
    lambda lib, a, b: lib.frac_(a * 1),
    lambda lib, a, b: (a * 1).clip_(-0.5, 0.5),
    lambda lib, a, b: (a * 1).negative_(),
    lambda lib, a, b: (a * 1).arctan2_(b),
    lambda lib, a, b: (a * 1).true_divide_(b),
    lambda lib, a, b: (a * 1).multiply_(b),
    lambda lib, a, b: (a * 1).subtract_(b, alpha=2),
    lambda lib, a, b: lib.arctan2(a, b),
    lambda lib, a, b: lib.absolute(a),
    lambda lib, a, b: lib.fix(a),
    lambda lib, a, b: lib.negative(a),
], ids=["rsub_number_alpha", "rsub_number", "where_number_other", "where_number_self",
        "torch_sin_", "torch_clamp_", "torch_clamp_tensors", "torch_square_", "torch_nan_to_num_",
        "torch_frac_", "clip_", "negative_", "arctan2_", "true_divide_", "multiply_",
        "subtract_", "arctan2", "absolute", "fix", "negative"])
@pytest.mark.parametrize("mname", list(MASKS))
def test_other_forms(fn, mname):
    a, b = R.uniform(0.5, 2, (2, 3)) * R.choice([-1.0, 1.0], (2, 3)), R.uniform(0.5, 2, (3,))
    mask = MASKS[mname]
    check_jvp(fn, [a, b], [_t(a.shape) if mask[0] else None, _t(b.shape) if mask[1] else None])


@pytest.mark.parametrize("fn", [
    lambda lib, a, b: a * b.to(lib.float64), lambda lib, a, b: a.to(lib.float64) / b,
    lambda lib, a, b: lib.maximum(a, b.to(lib.float64)), lambda lib, a, b: a ** b.to(lib.float64),
    lambda lib, a, b: lib.where(a > 0, a, b.to(lib.float64)),
    lambda lib, a, b: lib.atan2(a, b.to(lib.float64)),
], ids=["mul", "div", "maximum", "pow", "where", "atan2"])
@pytest.mark.parametrize("mname", list(MASKS))
def test_type_promotion(fn, mname):
    """A float32 dual against a float64 one: the tangent in the promoted dtype."""
    a, b = R.uniform(0.5, 2, (2, 3)), R.uniform(0.5, 2, (2, 3))
    mask = MASKS[mname]
    check_jvp(fn, [a, b], [_t(a.shape) if mask[0] else None, _t(b.shape) if mask[1] else None],
              dtype="float32", rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda lib, a, b: a.sin(), lambda lib, a, b: a * b, lambda lib, a, b: a / b,
    lambda lib, a, b: a ** b, lambda lib, a, b: a.tanh(), lambda lib, a, b: a.sigmoid(),
    lambda lib, a, b: lib.addcdiv(a, a, b, value=0.5), lambda lib, a, b: lib.lerp(a, b, 0.3),
    lambda lib, a, b: lib.maximum(a, b), lambda lib, a, b: a.exp2() * 0.1,
    lambda lib, a, b: lib.hypot(a, b), lambda lib, a, b: (a * 1).mul_(b),
], ids=["sin", "mul", "div", "pow", "tanh", "sigmoid", "addcdiv", "lerp", "maximum", "exp2",
        "hypot", "mul_"])
def test_float16(fn):
    """Half precision: PyTorch evaluates some derivative kernels (tanh_backward, exp2's
    ln 2 product) in float32 and rounds once, minigrad in float16 step by step, so the last
    bit may differ: compared to 1e-2."""
    a, b = R.uniform(0.5, 2, (2, 3)), R.uniform(0.5, 2, (2, 3))
    check_jvp(fn, [a, b], [_t(a.shape), _t(b.shape)], dtype="float16", rtol=1e-2, atol=1e-3)


_A, _B = R.uniform(0.5, 2, (2, 3)), R.uniform(0.5, 2, (2, 3))


def _mixed_dtype_tangents(lib):
    """float64 tangents on float32 primals (and the reverse): each formula's tangent dtype."""
    fwAD = lib.autograd.forward_ad
    out = {}
    a, b = _A, _B
    ops = {"sin": lambda x, y: x.sin(), "exp": lambda x, y: x.exp(), "mul": lambda x, y: x * y,
           "div": lambda x, y: x / y, "pow": lambda x, y: x ** y, "pow_number": lambda x, y: x ** 2,
           "maximum": lambda x, y: lib.maximum(x, y), "where": lambda x, y: lib.where(x > 1, x, y),
           "clamp": lambda x, y: x.clamp(0.7, 1.5), "clamp_t": lambda x, y: lib.clamp(x, max=y),
           "atan2": lambda x, y: lib.atan2(x, y), "hypot": lambda x, y: lib.hypot(x, y),
           "addcmul": lambda x, y: lib.addcmul(x, x, y), "lerp": lambda x, y: lib.lerp(x, y, 0.4),
           "lerp_t": lambda x, y: lib.lerp(x, y, y * 0.3),
           "sign": lambda x, y: x.sign(), "frac": lambda x, y: x.frac(),
           "mul_": lambda x, y: (x * 1).mul_(y), "fill_": lambda x, y: (x * 1).fill_(y[0, 0]),
           "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "add_number": lambda x, y: x + 2,
           "fmod": lambda x, y: lib.fmod(x, y), "fmax": lambda x, y: lib.fmax(x, y),
           "addcdiv": lambda x, y: lib.addcdiv(x, y, y), "copy_": lambda x, y: (x * 1).copy_(y),
           "masked_fill": lambda x, y: x.masked_fill(x > 1, y[0, 0])}
    with fwAD.dual_level():
        for primal, tangent in (("float32", "float64"), ("float64", "float32")):
            pd, td = getattr(lib, primal), getattr(lib, tangent)
            x = fwAD.make_dual(lib.tensor(a, dtype=pd), lib.tensor(_TANGENT[(2, 3)], dtype=td))
            y = fwAD.make_dual(lib.tensor(b, dtype=pd), lib.tensor(_TANGENT[(2, 3)] * 2,
                                                                   dtype=td))
            p = lib.tensor(b, dtype=pd)  # (not dual)
            for name, f in ops.items():
                for other, o in (("dual", y), ("plain", p)):
                    try:
                        t = fwAD.unpack_dual(f(x, o)).tangent
                    except RuntimeError as e:  # (lerp: PyTorch's formula mixes the dtypes)
                        out[f"{primal}-{name}-{other}"] = str(e)
                        continue
                    out[f"{primal}-{name}-{other}"] = [str(t.dtype).split(".")[-1], to_numpy(t)]
    return out


def test_mixed_dtype_tangents():
    assert_parity(_mixed_dtype_tangents)


def _inplace_on_leaf_tangent(lib):
    """An in-place op on a dual whose tangent is a leaf that requires grad: PyTorch writes the
    primal, then refuses to write the tangent in place (the leaf error)."""
    fwAD = lib.autograd.forward_ad
    out = []
    with fwAD.dual_level():
        for f in (lambda d: d.mul_(2), lambda d: d.sin_(), lambda d: d.zero_(),
                  lambda d: d.add_(1.0)):
            t = lib.tensor(_TANGENT[(2, 3)]).requires_grad_()
            d = fwAD.make_dual(lib.tensor(_A), t)
            out.append([capture_error(lambda f=f, d=d: f(d)), to_numpy(fwAD.unpack_dual(d).primal),
                        fwAD.unpack_dual(d).tangent is t, d._version])
    return out


def test_inplace_on_leaf_tangent():
    assert_parity(_inplace_on_leaf_tangent)
