"""Parity of pointwise ops: arithmetic, unary math, clamp/where/masked_fill, comparisons and
dtype promotion. Each row is ``(id, fn(lib, *leaves), *input specs)``; ``check_op`` compares
values, dtype, graph, saved attributes and gradients (random upstream gradient) with torch.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from ._opcheck import In, check_op


def C(id, fn, *specs):
    return pytest.param(fn, specs, id=id)


DTYPES = ["float32", "float64"]

ARITH = [
    C("add", lambda L, x, y: x + y, In(3, 4), In(3, 4)),
    C("add_bcast_row", lambda L, x, y: x + y, In(3, 4), In(4)),
    C("add_bcast_outer", lambda L, x, y: x + y, In(3, 1), In(1, 4)),
    C("add_bcast_3d", lambda L, x, y: x + y, In(2, 1, 4), In(3, 1)),
    C("add_scalar", lambda L, x: x + 2, In(3, 4)),
    C("radd_scalar", lambda L, x: 2 + x, In(3, 4)),
    C("add_nograd_first", lambda L, p, x: p + x, In(4, grad=False), In(3, 4)),
    C("add_nograd_second", lambda L, x, p: x + p, In(3, 4), In(3, 4, grad=False)),
    C("add_alpha", lambda L, x, y: L.add(x, y, alpha=2), In(3, 4), In(4)),
    C("add_alpha_float", lambda L, x, y: x.add(y, alpha=0.5), In(3, 4), In(3, 4)),
    C("add_0dim", lambda L, x, s: x + s, In(3, 4), In()),
    C("add_0dim_nograd", lambda L, x, s: s + x, In(3, 4), In(grad=False)),
    C("add_transposed", lambda L, x, y: x + y, In(3, 4, T=True), In(3, 4)),
    C("add_size1", lambda L, x, y: x + y, In(1, 1), In(2, 3)),
    C("sub", lambda L, x, y: x - y, In(3, 4), In(3, 4)),
    C("sub_bcast", lambda L, x, y: x - y, In(4), In(3, 4)),
    C("sub_scalar", lambda L, x: x - 2, In(3, 4)),
    C("rsub_scalar", lambda L, x: 2 - x, In(3, 4)),
    C("sub_alpha", lambda L, x, y: L.sub(x, y, alpha=3), In(3, 4), In(3, 1)),
    C("rsub_fn_alpha", lambda L, x: L.rsub(x, 1.5, alpha=2), In(3, 4)),
    C("mul", lambda L, x, y: x * y, In(3, 4), In(3, 4)),
    C("mul_bcast", lambda L, x, y: x * y, In(2, 3, 4), In(3, 1)),
    C("mul_scalar", lambda L, x: x * 2, In(3, 4)),
    C("rmul_scalar", lambda L, x: 2.5 * x, In(3, 4)),
    C("mul_nograd_other", lambda L, x, p: x * p, In(3, 4), In(4, grad=False)),
    C("mul_nograd_self", lambda L, p, x: p * x, In(4, grad=False), In(3, 4)),
    C("mul_same", lambda L, x: x * x, In(3, 4)),
    C("mul_T", lambda L, x, y: x * y, In(3, 4, T=True), In(3, 1, T=True)),
    C("div", lambda L, x, y: x / y, In(3, 4), In(3, 4, kind="pos")),
    C("div_bcast", lambda L, x, y: x / y, In(3, 4), In(4, kind="pos")),
    C("div_scalar", lambda L, x: x / 2, In(3, 4)),
    C("rdiv_scalar", lambda L, x: 2 / x, In(3, 4, kind="pos")),
    C("div_nograd_other", lambda L, x, y: x / y, In(3, 4), In(3, 4, kind="pos", grad=False)),
    C("div_nograd_self", lambda L, x, y: x / y, In(3, 4, grad=False), In(3, 4, kind="pos")),
    C("neg", lambda L, x: -x, In(3, 4)),
    C("neg_fn", lambda L, x: L.neg(x), In(2, 3, 4)),
    C("pow2", lambda L, x: x ** 2, In(3, 4)),
    C("pow_float", lambda L, x: x ** 2.5, In(3, 4, kind="pos")),
    C("pow_neg", lambda L, x: x.pow(-1), In(3, 4, kind="pos")),
    C("pow0", lambda L, x: x ** 0, In(3, 4)),
    C("pow1", lambda L, x: x ** 1, In(3, 4)),
    C("square", lambda L, x: x.square(), In(3, 4)),
    C("pow_tensor", lambda L, x, y: x ** y, In(3, 4, kind="pos"), In(3, 4)),
    C("pow_tensor_bcast", lambda L, x, y: x.pow(y), In(3, 4, kind="pos"), In(4)),
    C("pow_tensor_nograd_exp", lambda L, x, y: x ** y, In(3, 4, kind="pos"), In(4, grad=False)),
    C("pow_tensor_nograd_base", lambda L, x, y: x ** y, In(3, 4, kind="pos", grad=False),
      In(3, 4)),
    C("rpow_scalar", lambda L, x: 2 ** x, In(3, 4)),
    C("rpow_float", lambda L, x: 0.5 ** x, In(3, 4)),
    C("chain", lambda L, x, y: (x * y + x / (y * y + 1)) - y, In(3, 4), In(4)),
]

UNARY = [
    C("exp", lambda L, x: x.exp(), In(3, 4)),
    C("exp_fn_T", lambda L, x: L.exp(x), In(3, 4, T=True)),
    C("log", lambda L, x: x.log(), In(3, 4, kind="pos")),
    C("sqrt", lambda L, x: x.sqrt(), In(3, 4, kind="pos")),
    C("rsqrt", lambda L, x: x.rsqrt(), In(3, 4, kind="pos")),
    C("reciprocal", lambda L, x: x.reciprocal(), In(3, 4, kind="pos")),
    C("abs", lambda L, x: x.abs(), In(3, 4)),
    C("abs_op", lambda L, x: abs(x), In(2, 3)),
    C("tanh", lambda L, x: x.tanh(), In(3, 4)),
    C("sigmoid", lambda L, x: x.sigmoid(), In(3, 4)),
    C("sigmoid_fn", lambda L, x: L.sigmoid(x), In(5)),
    C("sigmoid_big", lambda L, x: x.sigmoid(), In(kind="fixed", values=[-100.0, -20.0, 0.0,
                                                                     20.0, 100.0])),
    C("relu", lambda L, x: x.relu(), In(3, 4)),
    C("relu_fn", lambda L, x: L.relu(x), In(2, 3, 4)),
    C("sin", lambda L, x: x.sin(), In(3, 4)),
    C("cos", lambda L, x: x.cos(), In(3, 4)),
    C("sign", lambda L, x: x.sign(), In(3, 4)),
    C("sgn", lambda L, x: L.sgn(x) * x.sgn(), In(3, 4)),
    C("round", lambda L, x: (x * 3).round(), In(3, 4)),
    C("floor", lambda L, x: x.floor(), In(3, 4)),
    C("ceil", lambda L, x: x.ceil(), In(3, 4)),
    C("unary_0dim", lambda L, x: x.exp(), In()),
    C("unary_chain", lambda L, x: x.tanh().sigmoid().exp().log(), In(2, 5)),
]

CLAMP_WHERE = [
    C("clamp", lambda L, x: x.clamp(-0.5, 0.5), In(3, 4)),
    C("clamp_min_kw", lambda L, x: x.clamp(min=0), In(3, 4)),
    C("clamp_max_kw", lambda L, x: L.clamp(x, max=0.3), In(3, 4)),
    C("clamp_int_bounds", lambda L, x: x.clamp(-1, 1), In(3, 4)),
    C("clamp_min", lambda L, x: x.clamp_min(0), In(3, 4)),
    C("clamp_ties", lambda L, x: x.clamp(0.0, 1.0), In(kind="fixed",
                                                        values=[-1.0, 0.0, 0.5, 1.0, 2.0])),
    C("maximum", lambda L, x, y: L.maximum(x, y), In(3, 4), In(3, 4)),
    C("maximum_bcast", lambda L, x, y: x.maximum(y), In(3, 4), In(4)),
    C("maximum_ties", lambda L, x, y: L.maximum(x, y), In(kind="fixed", values=[1.0, 2.0, 3.0]),
      In(kind="fixed", values=[1.0, 0.0, 3.0])),
    C("maximum_nograd", lambda L, x, y: L.maximum(x, y), In(3, 4), In(3, 4, grad=False)),
    C("minimum", lambda L, x, y: L.minimum(x, y), In(3, 4), In(3, 4)),
    C("minimum_bcast_ties", lambda L, x, y: x.minimum(y),
      In(kind="fixed", values=[[1.0, 2.0], [0.0, -1.0]]), In(kind="fixed", values=[1.0, -1.0])),
    C("where", lambda L, x, y: L.where(x > 0, x, y), In(3, 4), In(3, 4)),
    C("where_scalar", lambda L, x: L.where(x > 0, x, 0.0), In(3, 4)),
    C("where_scalar_first", lambda L, x: L.where(x > 0, 1.0, x), In(3, 4)),
    C("where_bcast", lambda L, c, x, y: L.where(c, x, y), In(3, 1, kind="bool", grad=False),
      In(4), In(3, 4)),
    C("where_nograd", lambda L, x, y: L.where(y > 0, x, y), In(3, 4, grad=False), In(3, 4)),
    C("where_method", lambda L, x, y: x.where(x < y, y), In(3, 4), In(4)),
    C("masked_fill", lambda L, x: x.masked_fill(x > 0, 0.0), In(3, 4)),
    C("masked_fill_bcast", lambda L, x, m: x.masked_fill(m, -1.0), In(3, 4),
      In(4, kind="bool", grad=False)),
    C("masked_fill_0dim_value", lambda L, x, v: x.masked_fill(x > 0, v), In(3, 4), In()),
    C("masked_fill_0dim_nograd", lambda L, x, v: x.masked_fill(x > 0, v), In(3, 4),
      In(grad=False)),
    C("masked_fill_0dim_only_value", lambda L, x, v: x.masked_fill(x > 0, v),
      In(3, 4, grad=False), In()),
]

COMPARE = [
    C("gt", lambda L, x, y: x > y, In(3, 4), In(3, 4)),
    C("lt_scalar", lambda L, x: x < 0, In(3, 4)),
    C("ge_bcast", lambda L, x, y: x >= y, In(3, 4), In(4)),
    C("le", lambda L, x, y: L.le(x, y), In(3, 4), In(3, 4)),
    C("eq", lambda L, x: x == x, In(3, 4)),
    C("ne_scalar", lambda L, x: x != 1, In(3, 4, kind="int", grad=False)),
    C("eq_int_float", lambda L, x, y: x == y, In(3, kind="int", grad=False), In(3)),
    C("logical_ops", lambda L, a, b: [a & b, a | b, a ^ b, ~a],
      In(3, 4, kind="bool", grad=False), In(3, 4, kind="bool", grad=False)),
    C("mask_float_mul", lambda L, x: (x > 0).float() * x, In(3, 4)),
    C("isnan", lambda L, x: (x / x).isnan(), In(kind="fixed", values=[0.0, 1.0, -2.0])),
]

PROMOTION = [
    C("f32_plus_f64", lambda L, x, y: x + y, In(3, dtype="float32"), In(3, dtype="float64")),
    C("f64_mul_f32", lambda L, x, y: x * y, In(2, 3, dtype="float64"), In(3, dtype="float32")),
    C("f32_plus_0dim_f64", lambda L, x, s: x + s, In(3, dtype="float32"),
      In(dtype="float64")),
    C("0dim_f32_plus_0dim_f64", lambda L, x, s: x + s, In(dtype="float32"),
      In(dtype="float64")),
    C("int_plus_float_tensor", lambda L, i, x: i + x, In(3, kind="int", grad=False), In(3)),
    C("int_times_float_scalar", lambda L, i: i * 2.5, In(3, kind="int", grad=False)),
    C("int_plus_int_scalar", lambda L, i: i + 2, In(3, kind="int", grad=False)),
    C("int32_plus_int64", lambda L, i, j: i + j, In(3, kind="int", dtype="int32", grad=False),
      In(3, kind="int", grad=False)),
    C("int32_plus_int_scalar", lambda L, i: i + 5, In(3, kind="int", dtype="int32",
                                                      grad=False)),
    C("int_div_int", lambda L, i, j: i / j, In(3, kind="fixed", values=[1, 2, 3], grad=False),
      In(3, kind="fixed", values=[2, 4, 4], grad=False)),
    C("int_0dim_plus_float", lambda L, i, x: i + x, In(kind="int", grad=False), In(3)),
    C("float_0dim_plus_int", lambda L, s, i: s + i, In(grad=False), In(3, kind="int",
                                                                       grad=False)),
    C("bool_plus_int", lambda L, b, i: b + i, In(3, kind="bool", grad=False),
      In(3, kind="int", grad=False)),
    C("bool_times_float", lambda L, b: b * 1.5, In(3, kind="bool", grad=False)),
    C("int_pow_float", lambda L, i: i ** 0.5, In(3, kind="fixed", values=[1, 4, 9], grad=False)),
    C("int_exp", lambda L, i: i.exp(), In(3, kind="int", grad=False)),
    C("int_neg_abs", lambda L, i: [-i, i.abs(), i.sign()], In(3, kind="int", grad=False)),
    C("f64_where_f32", lambda L, x, y: L.where(x > 0, x, y), In(3, dtype="float64"),
      In(3, dtype="float32")),
    C("f32_maximum_f64", lambda L, x, y: L.maximum(x, y), In(3, dtype="float32"),
      In(3, dtype="float64")),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,specs", ARITH + UNARY + CLAMP_WHERE + COMPARE)
def test_pointwise(fn, specs, dtype, device):
    check_op(fn, specs, dtype, device)


@pytest.mark.parametrize("fn,specs", PROMOTION)
def test_promotion(fn, specs, device):
    check_op(fn, specs, "float64", device, tol=dict(rtol=1e-6, atol=1e-7))


# ----------------------------------------------------------------------------- conversions
CONVERSIONS = [
    C("double", lambda L, x: x.double(), In(3, 4)),
    C("float_from_f64", lambda L, x: x.float(), In(3, 4, dtype="float64")),
    C("to_dtype", lambda L, x: x.to(L.float64), In(3, 4)),
    C("to_dtype_kw", lambda L, x: x.to(dtype=L.float64), In(3, 4)),
    C("to_other", lambda L, x, y: x.to(y), In(3, 4), In(2, dtype="float64", grad=False)),
    C("to_then_mul", lambda L, x: x.double() * 2, In(3, 4)),
    C("long_of_float", lambda L, x: x.long(), In(3, 4)),
    C("int_to_float", lambda L, i: i.float(), In(3, kind="int", grad=False)),
    C("to_T", lambda L, x: x.double(), In(3, 4, T=True)),
]


@pytest.mark.parametrize("fn,specs", CONVERSIONS)
def test_conversions(fn, specs, device):
    check_op(fn, specs, "float32", device)


@pytest.mark.parametrize("conv", ["float", "to_same", "to_device_same", "contiguous"])
def test_conversion_to_same_dtype_returns_self(libs, conv):
    """``x.float()`` on a float32 tensor, ``x.to(float32)`` and ``x.contiguous()`` on a
    contiguous tensor return the very same object in both libraries (no node)."""
    ops = {"float": lambda L, x: x.float(), "to_same": lambda L, x: x.to(L.float32),
           "to_device_same": lambda L, x: x.to("cpu"), "contiguous": lambda L, x: x.contiguous()}
    for lib in libs:
        x = lib.ones(3, requires_grad=True)
        assert ops[conv](lib, x) is x, lib.__name__


# ----------------------------------------------------------------------------- hypothesis
BINARY = {
    "add": lambda L, x, y: x + y, "sub": lambda L, x, y: x - y, "mul": lambda L, x, y: x * y,
    "div": lambda L, x, y: x / (y * y + 1), "maximum": lambda L, x, y: L.maximum(x, y),
    "pow": lambda L, x, y: (x * x + 0.5) ** y, "where": lambda L, x, y: L.where(x > y, x, y),
}


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3),
       op=st.sampled_from(sorted(BINARY)), grads=st.sampled_from([(True, True), (True, False),
                                                                   (False, True)]),
       seed=st.integers(0, 2**16))
def test_broadcasting_binary_property(shapes, op, grads, seed):
    """Random broadcastable shape pairs: values and the gradient of each input (reduced to its
    own shape) match torch."""
    (sa, sb) = shapes.input_shapes
    check_op(BINARY[op], [In(*sa, grad=grads[0]), In(*sb, grad=grads[1])], "float64",
             seed=seed)


def test_pointwise_nograd_mode(libs):
    """Under no_grad nothing is recorded; outputs are leaves that do not require grad."""
    for lib in libs:
        x = lib.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
        with lib.no_grad():
            y = (x * 2).exp() + x
        assert (y.requires_grad, y.grad_fn, y.is_leaf) == (False, None, True), lib.__name__


EDGE = [
    C("clamp_tensor_bounds", lambda L, x, lo, hi: x.clamp(lo, hi), In(3, 4), In(4, grad=False),
      In(3, 1, grad=False)),
    C("clamp_tensor_min_grad", lambda L, x, lo: L.clamp(x, min=lo), In(3, 4), In(3, 4)),
    C("clamp_tensor_max_grad", lambda L, x, hi: L.clamp(x, max=hi), In(3, 4), In(4)),
    C("clamp_tensor_crossed", lambda L, x, lo, hi: x.clamp(lo, hi),
      In(kind="fixed", values=[1.0, -1.0, 0.0, 2.0, 3.0]),
      In(kind="fixed", values=[1.0, 0.0, 0.0, 3.0, 1.0]),
      In(kind="fixed", values=[2.0, -2.0, 0.0, 1.0, 3.0])),
    C("pow_0dim_tensor_exp", lambda L, x, e: x ** e, In(3, kind="pos"), In()),
    C("pow_0dim_exp_nograd", lambda L, x, e: x.pow(e), In(3, kind="pos"), In(grad=False)),
    C("rpow_tensor_0dim_base", lambda L, b, x: b ** x, In(kind="pos", grad=False), In(3)),
    C("sqrt_negative_nan", lambda L, x: x.sqrt(), In(kind="fixed", values=[-1.0, 0.0, 4.0])),
    C("log_zero", lambda L, x: x.log(), In(kind="fixed", values=[0.0, 1.0])),
    C("div_by_zero", lambda L, x, y: x / y, In(kind="fixed", values=[1.0, -1.0, 0.0]),
      In(kind="fixed", values=[0.0, 0.0, 0.0])),
    C("abs_at_zero", lambda L, x: x.abs(), In(kind="fixed", values=[0.0, -1.0])),
    C("relu_at_zero", lambda L, x: x.relu(), In(kind="fixed", values=[0.0, -1.0, 2.0])),
    C("pow_zero_base_tensor_exp", lambda L, x, y: x ** y, In(kind="fixed", values=[0.0, 0.0, 2.0]),
      In(kind="fixed", values=[2.0, 0.0, -1.0])),
    C("where_both_scalars_grad_cond", lambda L, x: L.where(x > 0, x, x * 2), In(3, 4)),
    C("mul_empty", lambda L, x, y: x * y, In(0, 3), In(3)),
    C("sum_empty", lambda L, x: x.sum(), In(0, 3)),
]


@pytest.mark.parametrize("fn,specs", EDGE)
def test_pointwise_edge_cases(fn, specs, device):
    check_op(fn, specs, "float64", device)


SECOND_ORDER = {
    "arith": lambda L, x, y: (x * y + x.pow(3) / (y * y + 1) - 2 / (x * x + 1)).sum(),
    "unary": lambda L, x, y: (x.tanh() * y.sigmoid() + (x * x + 1).sqrt().log()).sum(),
    "reductions": lambda L, x, y: ((x.sum(-1, keepdim=True) * y).mean() + x.max(1).values.sum()
                                   + x.var(0).sum() + (x.logsumexp(1) * y.std(1)).sum()),
    "softmax": lambda L, x, y: (L.softmax(x, -1) * y).sum() + L.log_softmax(x, 0).exp().sum(),
    "views": lambda L, x, y: ((x.t().reshape(12) * y.transpose(0, 1).flatten()).sum()
                              + x[:, 1:].pow(2).sum() + x[1].pow(3).sum()),
    "matmul": lambda L, x, y: ((x @ y.t()) ** 2).sum() + (x.unsqueeze(0) @ y.mT).pow(2).sum(),
    "index": lambda L, x, y: (x[[0, 2]] * y[1:]).pow(2).sum() + x[x > 0].pow(3).sum(),
    "clamp_where": lambda L, x, y: (L.where(x > 0, x * y, y.pow(2)).clamp(-0.5, 0.5) * x).sum(),
    "cat_stack": lambda L, x, y: (L.cat([x, y], 1).pow(2)).sum() + (L.stack([x, y]) ** 3).sum(),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order(name):
    """Backward formulas are themselves differentiable: ``create_graph=True`` gradients and
    the gradients of those gradients match torch (values; the double-backward graph is not
    compared)."""
    from minigrad.parity import compare, run_both, to_numpy

    def scenario(lib):
        rng = np.random.default_rng(0)
        x, y = (lib.tensor(rng.standard_normal((3, 4)), requires_grad=True) for _ in range(2))
        gx, gy = lib.autograd.grad(SECOND_ORDER[name](lib, x, y), (x, y), create_graph=True)
        hx, hy = lib.autograd.grad((gx * gx).sum() + (gx * gy).sum(), (x, y))
        return [to_numpy(t) for t in (gx, gy, hx, hy)]

    a, b = run_both(scenario)
    compare(a, b, rtol=1e-9, atol=1e-10)


def test_alpha_cast_and_clamp_layout(device):
    """A bool result casts ``alpha`` to bool (``True + 2 * True`` is True); a rejected float
    alpha leaves an int tensor's value and version as they were; ``clamp`` with tensor bounds
    lays out its result after its inputs' strides (a transposed input gives a transposed
    result), as TensorIterator does."""
    from minigrad.parity import assert_parity, to_numpy
    from tests.parity.test_tensor_meta import err, mk

    def scenario(lib, device):
        b = mk(lib, device, np.array([True, False]))
        i = mk(lib, device, np.array([1, 2]))
        e = err(lambda: i.add_(i, alpha=0.5))
        x = mk(lib, device, np.array([[1.0, -2.0], [0.5, 3.0]], np.float32), requires_grad=True)
        bound = mk(lib, device, np.arange(4.0, dtype=np.float32).reshape(2, 2))
        c = lib.clamp(x.t(), bound - 2, bound)  # (the first input's layout decides)
        c.sum().backward()
        return (to_numpy(b.add(b, alpha=2)), e, to_numpy(i), i._version, c.stride(),
                to_numpy(c), to_numpy(x.grad))

    assert_parity(scenario, device=device)
