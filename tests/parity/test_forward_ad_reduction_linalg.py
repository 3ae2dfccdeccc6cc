"""Forward-mode AD (issue 23) of the reductions, scans, norms and linear-algebra ops: each
op's tangent (value, dtype, strides, requires_grad) against PyTorch's, and PyTorch's against
finite differences (`check_jvp`)."""

import numpy as np
import pytest

from tests.parity._forward_ad import check_jvp

R = np.random.default_rng(2313)


def _r(*shape):
    return R.standard_normal(shape)


X, V = _r(3, 4), _r(3, 4)
X3, V3 = _r(2, 3, 4), _r(2, 3, 4)
TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, 2.0], [5.0, 5.0, 5.0, 5.0]])
E, EV = np.zeros((0, 3)), np.zeros((0, 3))


# ------------------------------------------------------------------------ sums and means
@pytest.mark.parametrize("fn", [
    lambda lib, x: x.sum(),
    lambda lib, x: x.sum(-1),
    lambda lib, x: x.sum((0, -1), keepdim=True),
    lambda lib, x: x.sum([]),
    lambda lib, x: x.mean(),
    lambda lib, x: x.mean(-2),
    lambda lib, x: x.mean((1, 2), keepdim=True),
    lambda lib, x: x.transpose(0, 2).sum(0),
    lambda lib, x: x.transpose(0, 2).mean((0, 1)),
], ids=["sum", "sum_dim", "sum_dims_keep", "sum_empty_list", "mean",
        "mean_dim", "mean_dims_keep", "sum_noncontig", "mean_noncontig"])
def test_sum_mean(fn):
    check_jvp(fn, [X3], [V3])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sum_mean_dtypes_and_empty(dtype):
    check_jvp(lambda lib, x: [x.sum(0), x.sum(), x.mean(1), x.sum(-1, keepdim=True)],
              [E], [EV], dtype=dtype, rtol=1e-6, atol=1e-6)
    check_jvp(lambda lib, x: [x.sum(0), x.mean()], [X], [V], dtype=dtype, rtol=1e-5,
              atol=1e-6)


def test_sum_mean_dtype_argument():  # (float32 results: no finite-difference check)
    check_jvp(lambda lib, x: [x.sum(1, dtype=lib.float32), x.mean(dtype=lib.float32),
                              x.sum(dtype=lib.float32)], [X], [V], fd=False)


# ------------------------------------------------------------------------ max / min / amax
@pytest.mark.parametrize("fn", [
    lambda lib, x: x.max(),
    lambda lib, x: x.min(),
    lambda lib, x: list(x.max(-1)),
    lambda lib, x: list(x.min(0, keepdim=True)),
    lambda lib, x: x.amax(),
    lambda lib, x: x.amin(-1),
    lambda lib, x: x.amax((0, 1), keepdim=True),
    lambda lib, x: x.amin([]),
    lambda lib, x: x.t().amax(0),
    lambda lib, x: list(x.t().max(1)),
    lambda lib, x: x.median(),
    lambda lib, x: x.nanmedian(),
], ids=["max", "min", "max_dim", "min_dim_keep", "amax", "amin_dim", "amax_dims_keep",
        "amin_empty_list", "amax_noncontig", "max_dim_noncontig", "median", "nanmedian"])
def test_max_min_amax(fn):
    check_jvp(fn, [X], [V])


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.max(),
    lambda lib, x: x.min(),
    lambda lib, x: list(x.max(1)),
    lambda lib, x: x.amax(1),
    lambda lib, x: x.amin(0, keepdim=True),
    lambda lib, x: x.amax(),
], ids=["max", "min", "max_dim", "amax_dim", "amin_keep", "amax_all"])
def test_max_min_ties(fn):  # (not differentiable at ties: no finite differences)
    check_jvp(fn, [TIES], [V], fd=False)


def test_max_min_0dim_nan_and_empty():
    s, sv = np.array(1.5), np.array(-2.0)
    check_jvp(lambda lib, x: [*x.max(0), *x.min(-1, keepdim=True), x.amax(), x.max()],
              [s], [sv])
    nan = X.copy()
    nan[1, 2] = np.nan
    check_jvp(lambda lib, x: [x.max(), x.amax(1), *x.max(0)], [nan], [V], fd=False)
    check_jvp(lambda lib, x: [x.amax(0), *x.max(1)], [np.zeros((3, 0))], [np.zeros((3, 0))])


# ------------------------------------------------------------------------ var / std
@pytest.mark.parametrize("fn", [
    lambda lib, x: x.var(),
    lambda lib, x: x.std(),
    lambda lib, x: x.var(-1),
    lambda lib, x: x.std((0, 2), keepdim=True),
    lambda lib, x: x.var(1, correction=0),
    lambda lib, x: x.std(correction=2, keepdim=True),
    lambda lib, x: x.transpose(0, 2).std(1, unbiased=False),
    lambda lib, x: list(lib.var_mean(x, 1)),
    lambda lib, x: list(lib.std_mean(x, (0, -1), keepdim=True, correction=0)),
    lambda lib, x: list(lib.var_mean(x)),
    lambda lib, x: list(lib.std_mean(x)),
], ids=["var", "std", "var_dim", "std_dims_keep", "var_corr0", "std_corr2_keep",
        "std_noncontig", "var_mean", "std_mean_keep", "var_mean_all",
        "std_mean_all"])
def test_var_std(fn):
    check_jvp(fn, [X3], [V3])


def test_var_empty_dim_list():
    # dim=[] reduces everything but PyTorch's formula counts N = 1 (dof 0 with the default
    # correction): its tangent is not the derivative, so no finite-difference check
    check_jvp(lambda lib, x: [x.var([]), x.std([], correction=0)], [X], [V], fd=False)


def test_var_std_degenerate():  # dof <= 0 (warns), zero std, one element, 0-dim
    const = np.ones((2, 3))
    check_jvp(lambda lib, x: [x.std(1), x.std(), x.var(0)], [const], [_r(2, 3)], fd=False)
    one = np.array([[2.0]])
    check_jvp(lambda lib, x: [x.var(), x.var(0), x.std(1, correction=1), x.std()], [one],
              [np.array([[0.5]])], fd=False)
    check_jvp(lambda lib, x: [x.var(correction=0), x.std(0, correction=0)], [np.array(3.0)],
              [np.array(1.0)], fd=False)


# ------------------------------------------------------------------------ logsumexp
@pytest.mark.parametrize("fn", [
    lambda lib, x: x.logsumexp(-1),
    lambda lib, x: x.logsumexp((0, 2), keepdim=True),
    lambda lib, x: x.transpose(0, 1).logsumexp(0),
    lambda lib, x: lib.logsumexp(x, 1),
], ids=["dim", "dims_keep", "noncontig", "function"])
def test_logsumexp(fn):
    check_jvp(fn, [X3], [V3])


def test_logsumexp_empty_and_inf():
    check_jvp(lambda lib, x: [x.logsumexp(0), x.logsumexp(1)], [E], [EV])
    inf = X.copy()
    inf[0] = -np.inf
    check_jvp(lambda lib, x: [x.logsumexp(1), x.logsumexp(0)], [inf], [V], fd=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reductions_dtypes(dtype):
    check_jvp(lambda lib, x: [x.max(), x.amax(1), x.max(0)[0], x.var(1), x.std(),
                              x.logsumexp(0)], [X], [V], dtype=dtype, rtol=1e-5, atol=1e-6)


def test_reductions_no_grad_and_primal_grad():
    def fn(lib, x):
        with lib.no_grad():
            return [x.sum(1), x.mean(), x.max(), x.max(0)[0], x.amin(1), x.var(0), x.std(),
                    x.logsumexp(1)]

    check_jvp(fn, [X], [V])
    check_jvp(lambda lib, x: [x.sum(1), x.mean(), x.max(), x.max(0)[0], x.amin(1), x.var(0),
                              x.std(), x.logsumexp(1)], [X], [V], primal_grad=True)
