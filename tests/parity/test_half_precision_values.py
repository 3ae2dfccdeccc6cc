"""Exact float16/bfloat16 values of the ops whose PyTorch CPU kernels round in a particular way
(issue 19): ``prod`` rounds every product in the order of the vectorized reduction kernel (4
vectors of 16 lanes over a run that is contiguous in memory, in order along other dims);
``addmm``/``F.linear``/``addmv``/``baddbmm`` compute ``beta * input + alpha * product`` in
float32 and round once (``addbmm``: once per batch); ``trace``, ``softmax``, ``sigmoid``,
``silu`` compute in float32; ``log_softmax`` over the last dim keeps the sum and its log in the
input's dtype; ``logsumexp`` (a composite in PyTorch) rounds after every step; ``nll_loss``
sums in the dtype through a cascade of partial sums. The values are
compared exactly (read as float32: torch's ``.numpy()`` has no bfloat16)."""

import numpy as np
import pytest

from minigrad.parity import compare, run_both, to_numpy

pytest.importorskip("ml_dtypes")

R = np.random.default_rng(7)
P = (1 + 0.02 * R.standard_normal((3, 200))).astype(np.float32)  # products that stay near 1
P1 = (1 + 0.02 * R.standard_normal(1000)).astype(np.float32)
A = R.standard_normal((24, 40)).astype(np.float32)
B = R.standard_normal((40, 20)).astype(np.float32)
C = R.standard_normal((4, 24, 40)).astype(np.float32)
V = R.standard_normal(300).astype(np.float32)
LOGP = R.standard_normal((300, 7)).astype(np.float32)
TARGET = R.integers(0, 7, 300)
W = R.uniform(0.5, 2, 7).astype(np.float32)
LOGP4 = R.standard_normal((6, 5, 3, 4)).astype(np.float32)
TARGET4 = R.integers(0, 5, (6, 3, 4))

CASES = {
    # prod: every layout decides the order of the rounded products
    "prod_all": lambda L, h: h(P).prod(),
    "prod_long_vector": lambda L, h: h(P1).prod(),
    "prod_last_dim": lambda L, h: h(P).prod(1),
    "prod_last_dim_keepdim": lambda L, h: h(P).prod(-1, keepdim=True),
    "prod_first_dim": lambda L, h: h(P).prod(0),
    "prod_transposed": lambda L, h: h(P).t().prod(0),
    "prod_transposed_all": lambda L, h: h(P).t().prod(),
    "prod_slice_all": lambda L, h: h(P)[:, :150].prod(),
    "prod_3d": lambda L, h: h(P).reshape(3, 2, 100).prod(2),
    "prod_3d_middle": lambda L, h: h(P).reshape(3, 100, 2).prod(1),
    "prod_strided": lambda L, h: h(P1)[::3].prod(),
    "prod_expanded": lambda L, h: h(P1)[:1].expand(300).prod(),
    "prod_dtype_arg": lambda L, h: L.tensor(P1).prod(dtype=h(P1).dtype),
    # float32 accumulation, one rounding
    "addmm": lambda L, h: L.addmm(h(B[0]), h(A), h(B)),
    "addmm_beta_alpha": lambda L, h: L.addmm(h(B[0]), h(A), h(B), beta=0.5, alpha=2),
    "addmm_beta0": lambda L, h: L.addmm(h(B[0]), h(A), h(B), beta=0),
    "linear_bias": lambda L, h: L.nn.functional.linear(h(A), h(B).t(), h(B[1])),
    "linear_3d": lambda L, h: L.nn.functional.linear(h(C), h(B).t(), h(B[1])),
    "addmv": lambda L, h: L.addmv(h(A[:, 0]), h(A), h(B[:, 0]), beta=2),
    "baddbmm": lambda L, h: L.baddbmm(h(C[:, :, :20]), h(C), h(B).expand(4, 40, 20)),
    "addbmm": lambda L, h: L.addbmm(h(A[:, :20]), h(C), h(B).expand(4, 40, 20), alpha=0.5),
    "trace": lambda L, h: L.trace(h(A[:, :24])),
    "softmax": lambda L, h: L.softmax(h(V), 0),
    "softmax_last_dim": lambda L, h: L.nn.functional.softmax(h(A), dim=1),
    "log_softmax": lambda L, h: L.nn.functional.log_softmax(h(A), dim=1),
    "log_softmax_first_dim": lambda L, h: L.nn.functional.log_softmax(h(A), dim=0),
    "cross_entropy": lambda L, h: L.nn.functional.cross_entropy(
        h(A), L.tensor(np.arange(24) % 40), reduction="none"
    ),
    # nll_loss: a cascade of partial sums in the dtype
    "nll_mean": lambda L, h: L.nn.functional.nll_loss(h(LOGP), L.tensor(TARGET)),
    "nll_sum": lambda L, h: L.nn.functional.nll_loss(h(LOGP), L.tensor(TARGET), reduction="sum"),
    "nll_weight_ignore": lambda L, h: L.nn.functional.nll_loss(
        h(LOGP), L.tensor(TARGET), weight=h(W), ignore_index=3
    ),
    "nll_4d": lambda L, h: L.nn.functional.nll_loss(h(LOGP4), L.tensor(TARGET4)),
    "nll_4d_weight_ignore": lambda L, h: L.nn.functional.nll_loss(
        h(LOGP4), L.tensor(TARGET4), weight=h(W[:5]), ignore_index=1, reduction="sum"
    ),
    "cross_entropy_mean": lambda L, h: L.nn.functional.cross_entropy(h(LOGP), L.tensor(TARGET)),
    # pointwise: a Python number multiplies/divides in float32; composites round once
    "mul_number": lambda L, h: h(A) * 0.1,
    "rmul_number": lambda L, h: 0.3 * h(A),
    "div_number": lambda L, h: h(A) / 0.3,
    "imul_number": lambda L, h: h(A).mul_(0.7),
    "add_number": lambda L, h: h(A) + 0.1,
    "rsqrt": lambda L, h: h(A).abs().rsqrt(),
    "leaky_relu": lambda L, h: L.nn.functional.leaky_relu(h(A), 0.1),
    "softplus": lambda L, h: L.nn.functional.softplus(h(A), beta=2),
    "hardswish": lambda L, h: L.nn.functional.hardswish(h(A)),
    "mish": lambda L, h: L.nn.functional.mish(h(A)),
    "addcmul": lambda L, h: L.addcmul(h(A), h(A[::-1].copy()), h(A), value=0.3),
    "addcdiv": lambda L, h: L.addcdiv(h(A), h(A[::-1].copy()), h(A).abs() + 1, value=0.3),
    "avg_pool2d": lambda L, h: L.nn.functional.avg_pool2d(h(C).reshape(4, 3, 8, 40), 2),
    "avg_pool2d_pad": lambda L, h: L.nn.functional.avg_pool2d(
        h(C).reshape(4, 3, 8, 40), 3, 2, 1, count_include_pad=False
    ),
    "sigmoid": lambda L, h: h(A).sigmoid(),
    "silu": lambda L, h: L.nn.functional.silu(h(A)),
    "logsumexp": lambda L, h: h(A).logsumexp(1),
    "logsumexp_all": lambda L, h: L.logsumexp(h(A), (0, 1)),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("case", list(CASES))
def test_half_precision_values(case, dtype):
    def scenario(L):
        def h(values):
            return L.tensor(values).to(getattr(L, dtype))

        r = CASES[case](L, h)
        return str(r.dtype).split(".")[-1], to_numpy(r.float())

    compare(*run_both(scenario), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_prod_gradient(dtype):
    """The rounded forward feeds ``ProdBackward0``/``ProdBackward1`` (which save the result)."""

    def scenario(L):
        x = L.tensor(P[:, :80]).to(getattr(L, dtype)).requires_grad_()
        (x.prod() + x.prod(1).sum()).backward()
        return type(x.prod().grad_fn).__name__, to_numpy(x.grad.float())

    compare(*run_both(scenario), rtol=2e-2, atol=1e-3)


X1, W1, B8 = (R.standard_normal(s).astype(np.float32) for s in ((2, 6, 30), (8, 6, 3), (8,)))
X2, W2 = R.standard_normal((2, 6, 9, 9)).astype(np.float32), R.standard_normal((8, 6, 3, 3))
X3, W3 = R.standard_normal((1, 4, 5, 5, 5)), R.standard_normal((8, 4, 2, 2, 2))
WT = R.standard_normal((6, 8, 3, 3))
CONV = {
    "conv1d": lambda F, h: F.conv1d(h(X1), h(W1)),
    "conv1d_bias": lambda F, h: F.conv1d(h(X1), h(W1), h(B8), padding=1),
    "conv2d_bias": lambda F, h: F.conv2d(h(X2), h(W2), h(B8)),
    "conv2d_stride": lambda F, h: F.conv2d(h(X2), h(W2), stride=2),
    "conv3d_bias": lambda F, h: F.conv3d(h(X3), h(W3), h(B8)),
    "conv_transpose2d": lambda F, h: F.conv_transpose2d(h(X2), h(WT), h(B8)),
    "conv_transpose1d": lambda F, h: F.conv_transpose1d(h(X1), h(WT[:, :, 0]), h(B8)),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("case", list(CONV))
def test_half_precision_convolutions(case, dtype):
    """Convolutions keep the input's dtype (they gave float32 for bfloat16) and, as PyTorch,
    multiply and add the bias in float32, rounding once. bfloat16 values are exact; float16
    may differ by one unit in the last place where float32 sums in another order tie."""

    def scenario(L):
        def h(values):
            return L.tensor(np.asarray(values, np.float32)).to(getattr(L, dtype))

        r = CONV[case](L.nn.functional, h)
        return str(r.dtype).split(".")[-1], to_numpy(r.float())

    tol = 0 if dtype == "bfloat16" else 1e-3
    compare(*run_both(scenario), rtol=tol, atol=tol * 1e-2)
