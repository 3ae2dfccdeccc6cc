"""Parity of the pointwise ops of issue 19: log1p/expm1/log2/log10/exp2, trig and hyperbolic,
trunc/frac/round(decimals), nan_to_num, isinf, clamp_min/clamp_max, fmod/remainder, hypot,
atan2, fmin/fmax, lerp, addcmul, addcdiv — values, dtype, graph, saved attributes and
gradients (``check_op``), second-order gradients, in-place variants and errors.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from minigrad.parity import compare, graph_trace, run_both, to_numpy

from ._opcheck import In, check_error, check_op, make_leaf

DTYPES = ["float32", "float64"]
_R = np.random.default_rng(5)
UNIT = _R.uniform(-0.9, 0.9, (3, 4))  # inside (-1, 1): asin, acos, atanh
ABOVE1 = _R.uniform(1.2, 3.0, (3, 4))  # acosh
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -1.5, 2.25]


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


def Z0():
    return In(kind="fixed", values=[0.0, 1.0, 0.0])


def U(**kw):
    return In(kind="fixed", values=UNIT, **kw)


UNARY = [
    C("log1p", lambda L, x: x.log1p(), In(3, 4, kind="pos")),
    C("log1p_fn_T", lambda L, x: L.log1p(x), In(3, 4, kind="pos", T=True)),
    C("expm1", lambda L, x: x.expm1(), In(3, 4)),
    C("expm1_fn", lambda L, x: L.expm1(x), In(2, 3, 4)),
    C("log2", lambda L, x: x.log2(), In(3, 4, kind="pos")),
    C("log10", lambda L, x: L.log10(x), In(3, 4, kind="pos")),
    C("exp2", lambda L, x: x.exp2(), In(3, 4)),
    C("tan", lambda L, x: x.tan(), U()),
    C("asin", lambda L, x: x.asin(), U()),
    C("acos", lambda L, x: L.acos(x), U()),
    C("atan", lambda L, x: x.atan(), In(3, 4)),
    C("arctan_alias", lambda L, x: L.arctan(x) + x.arcsin(), U()),
    C("sinh", lambda L, x: x.sinh(), In(3, 4)),
    C("cosh", lambda L, x: L.cosh(x), In(3, 4)),
    C("asinh", lambda L, x: x.asinh(), In(3, 4)),
    C("acosh", lambda L, x: x.acosh(), In(kind="fixed", values=ABOVE1)),
    C("atanh", lambda L, x: x.atanh(), U()),
    C("trunc", lambda L, x: (x * 3).trunc(), In(3, 4)),
    C("fix", lambda L, x: L.fix(x * 3), In(3, 4)),
    C("frac", lambda L, x: (x * 3).frac(), In(3, 4)),
    C("round_decimals", lambda L, x: (x * 10).round(decimals=2), In(3, 4)),
    C("round_neg_decimals", lambda L, x: L.round(x * 100, decimals=-1), In(3, 4)),
    C("round_plain", lambda L, x: L.round(x * 3), In(3, 4)),
    C("nan_to_num", lambda L, x: x.nan_to_num(), In(kind="fixed", values=SPECIAL)),
    C("nan_to_num_args", lambda L, x: L.nan_to_num(x, nan=1.0, posinf=9.0, neginf=-9.0),
      In(kind="fixed", values=SPECIAL)),
    C("isinf_family", lambda L, x: [x.isinf(), L.isposinf(x), x.isneginf(), x.isfinite()],
      In(kind="fixed", values=SPECIAL)),
    C("clamp_max", lambda L, x: x.clamp_max(0.2), In(3, 4)),
    C("clamp_max_fn", lambda L, x: L.clamp_max(x, -0.1), In(3, 4, T=True)),
    C("clamp_max_tensor", lambda L, x, m: x.clamp_max(m), In(3, 4), In(4)),
    C("clamp_min_tensor", lambda L, x, m: L.clamp_min(x, m), In(3, 4), In(3, 1)),
    C("clamp_min_tensor_bcast_self", lambda L, x, m: x.clamp_min(m), In(4), In(3, 4)),
    C("absolute_negative", lambda L, x: [L.absolute(x), x.absolute(), L.negative(x)], In(3, 4)),
    C("unary_empty", lambda L, x: [x.log1p(), x.expm1(), x.tan(), x.trunc()], In(0, 3)),
    C("unary_0dim", lambda L, x: x.sinh() + x.atan(), In()),
]

BINARY = [
    C("fmod", lambda L, x, y: x.fmod(y), In(3, 4), In(3, 4, kind="pos")),
    C("fmod_scalar", lambda L, x: L.fmod(x, 0.7), In(3, 4)),
    C("fmod_bcast", lambda L, x, y: L.fmod(x, y), In(3, 1), In(4, kind="pos")),
    C("remainder", lambda L, x, y: x.remainder(y), In(3, 4), In(3, 4, kind="pos")),
    C("remainder_scalar", lambda L, x: x.remainder(-0.6), In(3, 4)),
    C("mod_operator", lambda L, x, y: x % y, In(3, 4), In(4, kind="pos")),
    C("rmod_operator", lambda L, x: [2.5 % x, x * 1], In(3, 4, kind="pos", grad=False)),
    C("fmod_int", lambda L, i: [i.fmod(2), i.remainder(2), L.fmod(i, 2.5)],
      In(5, kind="int", grad=False)),
    C("div_rounding", lambda L, x, y: [L.div(x, y, rounding_mode="floor"),
                                       x.div(y, rounding_mode="trunc") * x,
                                       L.div(x, 2.0, rounding_mode="floor")],
      In(3, 4), In(4, kind="pos")),
    C("atan2_origin", lambda L, x, y: L.atan2(x, y), Z0(), Z0()),
    C("hypot", lambda L, x, y: x.hypot(y), In(3, 4), In(3, 4)),
    C("hypot_bcast_nograd", lambda L, x, y: L.hypot(x, y), In(2, 3, 4), In(4, grad=False)),
    C("atan2", lambda L, x, y: x.atan2(y), In(3, 4), In(3, 4)),
    C("atan2_bcast", lambda L, x, y: L.atan2(x, y), In(3, 1), In(1, 4)),
    C("arctan2_T", lambda L, x, y: L.arctan2(x, y), In(3, 4, T=True), In(3, 4)),
    C("fmax", lambda L, x, y: x.fmax(y), In(3, 4), In(3, 4)),
    C("fmin_bcast", lambda L, x, y: L.fmin(x, y), In(3, 4), In(4)),
    C("fmax_ties_nan", lambda L, x, y: L.fmax(x, y),
      In(kind="fixed", values=[1.0, 2.0, np.nan, 3.0, np.nan]),
      In(kind="fixed", values=[1.0, 0.0, 1.0, np.nan, np.nan])),
    C("fmin_ties_nan", lambda L, x, y: L.fmin(x, y),
      In(kind="fixed", values=[1.0, 2.0, np.nan, 3.0, -1.0]),
      In(kind="fixed", values=[1.0, 0.0, 1.0, np.nan, 4.0])),
    C("maximum_minimum_ties", lambda L, x, y: [L.maximum(x, y), x.minimum(y)],
      In(kind="fixed", values=[1.0, 2.0, 3.0, -1.0]),
      In(kind="fixed", values=[1.0, 0.0, 3.0, 2.0])),
    C("maximum_same_input", lambda L, x: L.maximum(x, x), In(3, 4)),
    C("lerp_scalar", lambda L, x, y: x.lerp(y, 0.3), In(3, 4), In(3, 4)),
    C("lerp_scalar_bcast", lambda L, x, y: L.lerp(x, y, 0.75), In(3, 4), In(4)),
    C("lerp_tensor", lambda L, x, y, w: L.lerp(x, y, w), In(3, 4), In(3, 4), In(4)),
    C("lerp_tensor_nograd_w", lambda L, x, y, w: x.lerp(y, w), In(3, 4), In(3, 4),
      In(3, 4, grad=False)),
    C("lerp_tensor_only_self", lambda L, x, y, w: x.lerp(y, w), In(3, 4), In(3, 4, grad=False),
      In(3, 4, grad=False)),
    C("addcdiv_only_self", lambda L, x, a, b: x.addcdiv(a, b), In(3, 4), In(3, 4, grad=False),
      In(3, 4, kind="pos", grad=False)),
    C("addcmul_only_t1", lambda L, x, a, b: x.addcmul(a, b), In(3, 4, grad=False), In(3, 4),
      In(3, 4, grad=False)),
    C("addcmul", lambda L, x, a, b: x.addcmul(a, b), In(3, 4), In(3, 4), In(3, 4)),
    C("addcmul_value_bcast", lambda L, x, a, b: L.addcmul(x, a, b, value=0.5), In(3, 4),
      In(4), In(3, 1)),
    C("addcdiv", lambda L, x, a, b: x.addcdiv(a, b, value=2), In(3, 4), In(3, 4),
      In(3, 4, kind="pos")),
    C("addcdiv_bcast_nograd", lambda L, x, a, b: L.addcdiv(x, a, b, value=-1.5), In(4),
      In(3, 4), In(3, 1, kind="pos", grad=False)),
    C("binary_empty", lambda L, x, y: [x.fmod(y), x.hypot(y), L.atan2(x, y), x.fmax(y)],
      In(0, 4), In(4, kind="pos")),
]

PROMOTION = [
    C("unary_int", lambda L, i: [i.log1p(), i.expm1(), i.exp2(), i.atan(), i.trunc()],
      In(3, kind="int", grad=False)),
    C("int_clamp_max_float", lambda L, i: i.clamp_max(0.5), In(3, kind="int", grad=False)),
    C("int_float_fmod", lambda L, i, x: L.fmod(i, x), In(3, kind="int", grad=False),
      In(3, kind="pos")),
    C("float_int_remainder", lambda L, x, i: L.remainder(x, i), In(3),
      In(3, kind="fixed", values=[1, 2, 3], grad=False)),
    C("int_int_atan2", lambda L, i, j: L.atan2(i, j), In(3, kind="int", grad=False),
      In(3, kind="int", grad=False)),
    C("f32_f64_hypot", lambda L, x, y: L.hypot(x, y), In(3, dtype="float32"),
      In(3, dtype="float64")),
    C("int_float_fmax", lambda L, i, x: L.fmax(i, x), In(3, kind="int", grad=False), In(3)),
    C("int_float_maximum", lambda L, i, x: [L.maximum(i, x), L.minimum(x, i)],
      In(3, kind="int", grad=False), In(3)),
    C("int_int_fmin", lambda L, i, j: L.fmin(i, j), In(3, kind="int", grad=False),
      In(3, kind="int", grad=False)),
    C("isclose_bcast", lambda L, x, y: [L.isclose(x, y, rtol=0.5), x.isclose(x + 1e-9),
                                        L.isclose(x, y, atol=2.0)], In(3, 4), In(4)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,specs", UNARY + BINARY)
def test_pointwise_more(fn, specs, dtype, device):
    check_op(fn, specs, dtype, device)


@pytest.mark.parametrize("fn,specs", PROMOTION)
def test_pointwise_more_promotion(fn, specs, device):
    check_op(fn, specs, "float64", device, tol=dict(rtol=1e-6, atol=1e-7))


HYPO_BINARY = {
    "fmod": lambda L, x, y: x.fmod(y * y + 0.5), "remainder": lambda L, x, y: x % (y * y + 0.5),
    "hypot": lambda L, x, y: L.hypot(x, y), "atan2": lambda L, x, y: L.atan2(x, y),
    "fmax": lambda L, x, y: L.fmax(x, y), "fmin": lambda L, x, y: x.fmin(y),
    "lerp": lambda L, x, y: x.lerp(y, 0.3), "clamp_max": lambda L, x, y: x.clamp_max(y),
    "addcmul": lambda L, x, y: x.addcmul(y, y, value=0.5),
    "addcdiv": lambda L, x, y: L.addcdiv(x, y, y * y + 1, value=2),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3),
       op=st.sampled_from(sorted(HYPO_BINARY)), grads=st.sampled_from([(True, True),
                                                                        (True, False),
                                                                        (False, True)]),
       seed=st.integers(0, 2**16))
def test_broadcasting_binary_property(shapes, op, grads, seed):
    """Random broadcastable shape pairs: values and each input's gradient match torch."""
    sa, sb = shapes.input_shapes
    check_op(HYPO_BINARY[op], [In(*sa, grad=grads[0]), In(*sb, grad=grads[1])], "float64",
             seed=seed)


# ----------------------------------------------------------------------------- second order
def second_order_scenario(lib, fn, specs, dtype="float64", seed=1):
    """First gradients with ``create_graph=True``, then the gradient of their weighted sum:
    both must match torch (values; whether each first gradient requires grad)."""
    rng = np.random.default_rng(seed)
    leaves = [make_leaf(lib, s.array(rng, dtype), s, "cpu") for s in specs]
    out = fn(lib, *leaves)
    diff = [x for x in leaves if x.requires_grad]
    w = lib.tensor(rng.standard_normal(tuple(out.shape)).astype(dtype))
    g1 = lib.autograd.grad((out * w).sum(), diff, create_graph=True, allow_unused=True)
    trace = {"g1": [None if g is None else (to_numpy(g), g.requires_grad) for g in g1]}
    used = [g for g in g1 if g is not None and g.requires_grad]
    if used:
        vs = [lib.tensor(rng.standard_normal(tuple(g.shape)).astype(dtype)) for g in used]
        total = sum((g * v).sum() for g, v in zip(used, vs))
        g2 = lib.autograd.grad(total, diff, allow_unused=True)
        trace["g2"] = [None if g is None else to_numpy(g) for g in g2]
    return trace


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       op=st.sampled_from(sorted(HYPO_BINARY)), seed=st.integers(0, 2**16))
def test_second_order_binary_property(shapes, op, seed):
    """Second-order gradients (create_graph) of the new binary ops on broadcast shapes."""
    sa, sb = shapes.input_shapes
    fn = HYPO_BINARY[op]
    a, b = run_both(second_order_scenario, lambda L, x, y: fn(L, x, y) * x,
                    [In(*sa), In(*sb)], seed=seed)
    compare(a, b, rtol=1e-8, atol=1e-10)


def _zero_dim_broadcast_scenario(lib, op):
    x = lib.tensor(np.array(0.7), requires_grad=True)
    y = lib.tensor(np.array([0.3]), requires_grad=True)
    out = (x - y * y) * x if op == "sub" else lib.addcmul(x, y, y * 1) * x
    g1 = lib.autograd.grad(out.sum(), [x, y], create_graph=True)
    return [to_numpy(g) for g in lib.autograd.grad(g1[0].sum() + g1[1].sum(), [x, y])]


@pytest.mark.parametrize("op", ["sub", "addcmul"])
def test_zero_dim_broadcast_second_order(op):
    """A one-element input broadcast against another (() against (1,)): the engine once summed
    the second backward's gradients in place into an expanded view of another gradient."""
    a, b = run_both(_zero_dim_broadcast_scenario, op)
    compare(a, b, rtol=1e-8, atol=1e-10)


SECOND = [
    C("log1p", lambda L, x: x.log1p(), In(3, 4, kind="pos")),
    C("expm1", lambda L, x: x.expm1(), In(3, 4)),
    C("log2", lambda L, x: x.log2(), In(3, 4, kind="pos")),
    C("log10", lambda L, x: x.log10(), In(3, 4, kind="pos")),
    C("exp2", lambda L, x: x.exp2(), In(3, 4)),
    C("tan", lambda L, x: x.tan(), U()),
    C("asin", lambda L, x: x.asin(), U()),
    C("acos", lambda L, x: x.acos(), U()),
    C("atan", lambda L, x: x.atan(), In(3, 4)),
    C("sinh_cosh", lambda L, x: x.sinh() * x.cosh(), In(3, 4)),
    C("asinh", lambda L, x: x.asinh(), In(3, 4)),
    C("acosh", lambda L, x: x.acosh(), In(kind="fixed", values=ABOVE1)),
    C("atanh", lambda L, x: x.atanh(), U()),
    C("frac", lambda L, x: (x * 3).frac() * x, In(3, 4)),
    C("nan_to_num", lambda L, x: x.nan_to_num() * x, In(3, 4)),
    C("clamp_max_tensor", lambda L, x, m: x.clamp_max(m) * x, In(3, 4), In(4)),
    C("fmod", lambda L, x, y: x.fmod(y) * y, In(3, 4), In(3, 4, kind="pos")),
    C("remainder", lambda L, x, y: x.remainder(y) * x, In(3, 4), In(4, kind="pos")),
    C("hypot", lambda L, x, y: x.hypot(y), In(3, 4), In(3, 4)),
    C("atan2", lambda L, x, y: x.atan2(y), In(3, 4), In(4)),
    C("fmax", lambda L, x, y: x.fmax(y) * x, In(3, 4), In(3, 4)),
    C("lerp_tensor", lambda L, x, y, w: x.lerp(y, w) * x, In(3, 4), In(3, 4), In(4)),
    C("addcmul", lambda L, x, a, b: x.addcmul(a, b, value=0.5), In(3, 4), In(4), In(3, 4)),
    C("addcdiv", lambda L, x, a, b: x.addcdiv(a, b, value=2), In(3, 4), In(3, 4),
      In(3, 4, kind="pos")),
]


@pytest.mark.parametrize("fn,specs", SECOND)
def test_second_order(fn, specs):
    a, b = run_both(second_order_scenario, fn, specs)
    compare(a, b, rtol=1e-9, atol=1e-11)


def gradient_graph_scenario(lib, fn, specs):
    """The graph of each first gradient taken with ``create_graph=True``."""
    rng = np.random.default_rng(1)
    leaves = [make_leaf(lib, s.array(rng, "float64"), s, "cpu") for s in specs]
    out = fn(lib, *leaves)
    w = lib.tensor(rng.standard_normal(tuple(out.shape)))
    g1 = lib.autograd.grad((out * w).sum(), [x for x in leaves if x.requires_grad],
                           create_graph=True)
    return [graph_trace(g) for g in g1]


# the unary formulas are PyTorch's term for term, so the gradient's graph is PyTorch's too
GRADIENT_GRAPH = [p for p in SECOND if p.id in (
    "log1p", "expm1", "log2", "log10", "exp2", "tan", "asin", "acos", "atan", "sinh_cosh",
    "asinh", "acosh", "atanh", "frac", "nan_to_num", "clamp_max_tensor", "fmod", "remainder",
    "hypot", "atan2", "fmax", "lerp_tensor", "addcmul", "addcdiv")]


@pytest.mark.parametrize("fn,specs", GRADIENT_GRAPH)
def test_gradient_graph(fn, specs):
    a, b = run_both(gradient_graph_scenario, fn, specs)
    compare(a, b)


# ----------------------------------------------------------------------------- in-place
def inplace_scenario(lib, op, kind, args):
    """``op`` applied in place to a non-leaf (history rebased), to a view of one (CopySlices)
    and to a leaf that requires grad (error); versions, node names, values and gradients."""
    rng = np.random.default_rng(3)
    base = {"pos": rng.uniform(0.5, 2.0, (3, 4)), "unit": UNIT, "above1": ABOVE1,
            "randn": rng.standard_normal((3, 4))}[kind]
    other = [lib.tensor(rng.uniform(0.5, 2.0, (3, 4)) if a == "T" else a) if isinstance(a, str)
             else a for a in args]
    leaf = lib.tensor(base, requires_grad=True)
    h = leaf * 1
    v0 = h._version
    res = getattr(h, op)(*other)
    trace = {"same": res is h, "version": (v0, h._version), "node": h.grad_fn.name(),
             "value": to_numpy(h), "graph": graph_trace(h)}
    (h * lib.tensor(rng.standard_normal((3, 4)))).sum().backward()
    trace["grad"] = to_numpy(leaf.grad)
    h2 = lib.tensor(base, requires_grad=True) * 1
    row = h2[1]
    getattr(row, op)(*[o[1] if hasattr(o, "shape") and o.ndim else o for o in other])
    trace["view"] = (h2.grad_fn.name(), row.grad_fn.name(), to_numpy(h2), h2._version)
    try:
        getattr(lib.tensor(base, requires_grad=True), op)(*other)
        trace["leaf"] = None
    except RuntimeError as e:
        trace["leaf"] = ("RuntimeError", "leaf Variable that requires grad" in str(e))
    return trace


INPLACE = [
    ("log1p_", "pos", ()), ("expm1_", "randn", ()), ("log2_", "pos", ()), ("log10_", "pos", ()),
    ("exp2_", "randn", ()), ("tan_", "unit", ()), ("asin_", "unit", ()), ("acos_", "unit", ()),
    ("atan_", "randn", ()), ("sinh_", "randn", ()), ("cosh_", "randn", ()),
    ("abs_", "randn", ()), ("absolute_", "randn", ()), ("arctan_", "randn", ()),
    ("trunc_", "randn", ()), ("fix_", "randn", ()), ("frac_", "randn", ()),
    ("round_", "randn", ()), ("nan_to_num_", "randn", ()), ("clamp_max_", "randn", (0.1,)),
    ("clamp_min_", "randn", (-0.2,)), ("clamp_max_", "randn", ("T",)),
    ("log_", "pos", ()), ("abs_", "randn", ()), ("sin_", "randn", ()), ("cos_", "randn", ()),
    ("reciprocal_", "pos", ()), ("rsqrt_", "pos", ()), ("sign_", "randn", ()),
    ("sgn_", "randn", ()), ("floor_", "randn", ()), ("ceil_", "randn", ()),
    ("square_", "randn", ()), ("negative_", "randn", ()), ("clip_", "randn", (-0.5, 0.5)),
    ("fmod_", "randn", ("T",)), ("fmod_", "randn", (0.4,)),
    ("remainder_", "randn", ("T",)), ("hypot_", "randn", ("T",)), ("atan2_", "randn", ("T",)),
    ("lerp_", "randn", ("T", 0.3)), ("addcmul_", "randn", ("T", "T")),
    ("addcdiv_", "randn", ("T", "T")), ("cumsum_", "randn", (-1,)), ("cumprod_", "randn", (0,)),
]


@pytest.mark.parametrize("op,kind,args", INPLACE,
                         ids=[f"{o}-{i}" for i, (o, _, _) in enumerate(INPLACE)])
def test_inplace(op, kind, args):
    a, b = run_both(inplace_scenario, op, kind, args)
    compare(a, b, rtol=1e-10, atol=1e-12)


def not_differentiable_scenario(lib, op):
    """``asinh_``/``acosh_``/``atanh_`` on a non-leaf (PyTorch records a node whose backward
    fails) and ``number % tensor`` (``NotImplemented``): node names, values, backward error."""
    x = lib.tensor(ABOVE1, requires_grad=True)
    h = x * 1
    out = getattr(h, op)() if op != "rmod" else 2.5 % h
    trace = {"node": out.grad_fn.name(), "value": to_numpy(out), "version": h._version}
    try:
        out.sum().backward()
    except (RuntimeError, NotImplementedError) as e:
        trace["error"] = (type(e).__name__, str(e))
    return trace


@pytest.mark.parametrize("op", ["asinh_", "acosh_", "atanh_", "arcsinh_", "rmod"])
def test_not_differentiable(op):
    a, b = run_both(not_differentiable_scenario, op)
    compare(a, b, rtol=1e-10, atol=1e-12)


def test_allclose_equal(libs):
    """``allclose``/``equal`` return Python bools as PyTorch's (broadcast, NaN, shapes)."""
    outs = []
    for lib in libs:
        a = lib.tensor([1.0, 2.0, float("nan")])
        b = lib.tensor([1.0, 2.0 + 1e-7, float("nan")])
        outs.append([lib.allclose(a, b), a.allclose(b, equal_nan=True), lib.equal(a, a),
                     lib.equal(a[:2], b[:2]), lib.equal(a[:2], a[:2]),
                     lib.allclose(a[:2], lib.tensor(1.0), atol=1.5)])
    assert outs[0] == outs[1]


def test_inplace_round_decimals_and_int_refusal(libs):
    """``round_(decimals=)`` in place; an int tensor refuses a float-valued in-place op."""
    for lib in libs:
        x = lib.tensor([1.2345, -2.5])
        x.round_(decimals=2)
        assert np.allclose(to_numpy(x), [1.23, -2.5]) and x._version == 1
        i = lib.tensor([1, 2])
        with pytest.raises(RuntimeError, match="can't be cast"):
            i.log1p_()
        assert i._version == 0


# ----------------------------------------------------------------------------- errors
ERRORS = [
    ("frac_int", lambda L, i: i.frac(), [In(3, kind="int", grad=False)], "not implemented"),
    ("round_decimals_int", lambda L, i: i.round(decimals=1), [In(3, kind="int", grad=False)],
     "not implemented for 'Long'"),
    ("trunc_bool", lambda L, b: b.trunc(), [In(3, kind="bool", grad=False)], "Bool"),
    ("hypot_number", lambda L, x: L.hypot(x, 2.0), [In(3)], "must be Tensor"),
    ("atan2_number", lambda L, x: L.atan2(x, 2.0), [In(3)], "must be Tensor"),
    ("fmod_shapes", lambda L, x, y: x.fmod(y), [In(3), In(4)], "must match the size"),
    ("clamp_max_shapes", lambda L, x, y: x.clamp_max(y), [In(2, 3), In(4)],
     "must match the size"),
    ("addcdiv_int", lambda L, x, i, j: x.addcdiv(i, j),
     [In(3), In(3, kind="int", grad=False), In(3, kind="fixed", values=[1, 2, 3], grad=False)],
     "Integer division with addcdiv is no longer supported"),
    ("hypot_int", lambda L, i: L.hypot(i, i), [In(3, kind="int", grad=False)],
     "\"hypot_cpu\" not implemented for 'Long'"),
    ("lerp_dtype", lambda L, x, y: L.lerp(x, y.double(), 0.5), [In(3), In(3)],
     "for `end` but got dtype"),
    ("fmod_int_zero", lambda L, i: i.fmod(0), [In(3, kind="int", grad=False)],
     "ZeroDivisionError"),
    # bool % bool has no kernel, whichever side the Python bool is on
    ("bool_mod_bool", lambda L, b: b % b, [In(3, kind="bool", grad=False)],
     "\"remainder_cpu\" not implemented for 'Bool'"),
    ("bool_mod_true", lambda L, b: b % True, [In(3, kind="bool", grad=False)],
     "\"remainder_cpu\" not implemented for 'Bool'"),
    ("true_mod_bool", lambda L, b: True % b, [In(3, kind="bool", grad=False)],
     "\"remainder_cpu\" not implemented for 'Bool'"),
    ("number_mod_int_zero", lambda L, i: 1 % i,
     [In(3, kind="fixed", values=[1, 0, 2], grad=False)], "ZeroDivisionError"),
]


@pytest.mark.parametrize("fn,specs,phrase", [pytest.param(*e[1:], id=e[0]) for e in ERRORS])
def test_errors(fn, specs, phrase):
    check_error(fn, specs, phrase)
