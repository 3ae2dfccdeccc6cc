"""Forward-mode AD (issue 23) of the reductions, scans, norms and linear-algebra ops: each
op's tangent (value, dtype, strides, requires_grad) against PyTorch's, and PyTorch's against
finite differences (`check_jvp`)."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, capture_error, to_numpy
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


# ------------------------------------------------------------------------ prod and scans
ZEROS1 = X.copy()
ZEROS1[1, 2] = 0.0
ZEROS2 = ZEROS1.copy()
ZEROS2[1, 0] = 0.0


@pytest.mark.parametrize("x", [X, ZEROS1, ZEROS2], ids=["plain", "one_zero", "two_zeros"])
def test_prod(x):
    check_jvp(lambda lib, x: [x.prod(), x.prod(1), x.prod(-2, keepdim=True), x.t().prod(0)],
              [x], [V])


def test_prod_0dim_empty_and_dtypes():
    check_jvp(lambda lib, x: [x.prod(), x.prod(0), x.prod(-1, keepdim=True)], [np.array(1.5)],
              [np.array(-2.0)])
    check_jvp(lambda lib, x: [x.prod(), x.prod(0), x.prod(1)], [E], [EV])
    check_jvp(lambda lib, x: [x.prod(), x.prod(1)], [X], [V], dtype="float32", rtol=1e-5,
              atol=1e-6)
    check_jvp(lambda lib, x: [x.prod(dtype=lib.float64), x.prod(1, dtype=lib.float64),
                              lib.cumprod(x, 1, dtype=lib.float64),
                              lib.cumsum(x, 0, dtype=lib.float64)], [ZEROS1], [V],
              dtype="float32", fd=False, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.cumsum(0),
    lambda lib, x: x.cumsum(-1),
    lambda lib, x: x.transpose(0, 2).cumsum(1),
    lambda lib, x: lib.cumsum(x, 1, dtype=lib.float64),
    lambda lib, x: x.logcumsumexp(-1),
    lambda lib, x: x.logcumsumexp(0),
    lambda lib, x: x.transpose(1, 2).logcumsumexp(1),
], ids=["cumsum0", "cumsum_neg", "cumsum_noncontig", "cumsum_dtype", "logcumsumexp_neg",
        "logcumsumexp0", "logcumsumexp_noncontig"])
def test_scans(fn):
    check_jvp(fn, [X3], [V3])


def test_scans_edge_cases():
    check_jvp(lambda lib, x: [x.cumsum(0), x.logcumsumexp(0)], [np.array(0.5)], [np.array(2.0)])
    check_jvp(lambda lib, x: [x.cumsum(0), x.cumsum(1)], [E], [EV])
    check_jvp(lambda lib, x: x.logcumsumexp(0), [E], [EV])  # (PyTorch's max over an empty dim)
    check_jvp(lambda lib, x: [x.cumsum(1), x.logcumsumexp(1)], [X], [V], dtype="float32",
              rtol=1e-5, atol=1e-6)
    check_jvp(lambda lib, x: lib.cumsum(x, 1, dtype=lib.float32), [X], [V], fd=False)

    def inplace(lib, x):
        y = x * 1
        y.cumsum_(1)
        return y

    check_jvp(inplace, [X], [V])


# ------------------------------------------------------------------------ norms
@pytest.mark.parametrize("ord", [2, 1, 0, 3, 1.5, 0.5, -1, float("inf"), -float("inf")])
def test_vector_norm(ord):
    check_jvp(lambda lib, x: [lib.linalg.vector_norm(x, ord), lib.linalg.vector_norm(x, ord, -1),
                              lib.linalg.vector_norm(x, ord, (0, 2), keepdim=True),
                              lib.linalg.vector_norm(x.transpose(0, 1), ord, 0)], [X3], [V3],
              fd=ord != 0)


def test_norms_zero_vector_ties_and_functions():
    z = X.copy()
    z[0] = 0.0
    check_jvp(lambda lib, x: [lib.linalg.vector_norm(x, o, 1) for o in (2, 1, 3, 1.5, 0.5)],
              [z], [V], fd=False)
    check_jvp(lambda lib, x: [lib.linalg.vector_norm(x, float("inf"), 1), x.norm(float("inf"))],
              [TIES], [V], fd=False)
    check_jvp(lambda lib, x: [x.norm(), x.norm(dim=1), x.norm(1, dim=0, keepdim=True),
                              lib.norm(x, 3, dim=(0, 1)), lib.linalg.norm(x),
                              lib.linalg.norm(x, dim=1), lib.linalg.matrix_norm(x)], [X], [V])
    check_jvp(lambda lib, x: [lib.linalg.vector_norm(x), lib.linalg.vector_norm(x, 1, 0)],
              [X], [V], dtype="float32", rtol=1e-5, atol=1e-6)
    check_jvp(lambda lib, x: [lib.linalg.vector_norm(x), lib.linalg.vector_norm(x, 2, 0)],
              [E], [EV], fd=False)
    check_jvp(lambda lib, x: lib.linalg.vector_norm(x, dtype=lib.float64), [X], [V],
              dtype="float32", fd=False, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------ products
A, B, C = _r(3, 4), _r(4, 5), _r(3, 5)
At, Bt, Ct = _r(3, 4), _r(4, 5), _r(3, 5)
u, w, uu = _r(4), _r(5), _r(3)
ut, wt, uut = _r(4), _r(5), _r(3)
B1, B2, B0 = _r(2, 3, 4), _r(2, 4, 5), _r(2, 3, 5)
B1t, B2t, B0t = _r(2, 3, 4), _r(2, 4, 5), _r(2, 3, 5)


@pytest.mark.parametrize("which", [(1, 1), (1, 0), (0, 1)], ids=["both", "left", "right"])
def test_mm_bmm_dot_mv(which):
    def t(v, i):
        return v if which[i] else None

    check_jvp(lambda lib, a, b: a.mm(b), [A, B], [t(At, 0), t(Bt, 1)])
    check_jvp(lambda lib, a, b: a.t().mm(b.t()), [B, C], [t(Bt, 0), t(Ct, 1)])
    check_jvp(lambda lib, a, b: lib.bmm(a, b), [B1, B2], [t(B1t, 0), t(B2t, 1)])
    check_jvp(lambda lib, a, b: lib.dot(a, b), [u, ut * 2], [t(ut, 0), t(u, 1)])
    check_jvp(lambda lib, a, b: lib.mv(a, b), [A, u], [t(At, 0), t(ut, 1)])
    check_jvp(lambda lib, a, b: lib.outer(a, b), [u, w], [t(ut, 0), t(wt, 1)])


@pytest.mark.parametrize("shapes", [
    ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)), ((2, 3, 4), (4,)),
    ((2, 3, 4), (4, 5)), ((4,), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (2, 4, 5)),
], ids=lambda s: "x".join(map(str, s[0])) + "@" + "x".join(map(str, s[1])))
def test_matmul_rank_combinations(shapes):
    a, b = _r(*shapes[0]), _r(*shapes[1])
    check_jvp(lambda lib, x, y: x @ y, [a, b], [_r(*shapes[0]), _r(*shapes[1])])
    check_jvp(lambda lib, x, y: lib.matmul(x, y), [a, b], [None, _r(*shapes[1])])
    check_jvp(lambda lib, x, y: x.matmul(y), [a, b], [_r(*shapes[0]), None], primal_grad=True)


@pytest.mark.parametrize("coef", [(1, 1), (0.5, 2.0), (0, -1)], ids=["plain", "scaled", "beta0"])
def test_addmm_family(coef):
    beta, alpha = coef
    kw = {"beta": beta, "alpha": alpha}
    check_jvp(lambda lib, s, a, b: lib.addmm(s, a, b, **kw), [C, A, B], [Ct, At, Bt])
    check_jvp(lambda lib, s, a, b: lib.addmm(s, a, b, **kw), [w, A, B], [wt, None, Bt])
    check_jvp(lambda lib, s, a, b: lib.addmv(s, a, b, **kw), [uu, A, u], [uut, At, ut])
    check_jvp(lambda lib, s, a, b: lib.addmv(s, a, b, **kw), [uu, A, u], [None, At, None])
    check_jvp(lambda lib, s, a, b: lib.baddbmm(s, a, b, **kw), [B0, B1, B2], [B0t, B1t, B2t])
    check_jvp(lambda lib, s, a, b: lib.baddbmm(s, a, b, **kw), [C, B1, B2], [Ct, None, B2t])
    check_jvp(lambda lib, s, a, b: lib.addbmm(s, a, b, **kw), [C, B1, B2], [Ct, B1t, B2t])
    check_jvp(lambda lib, s, a, b: lib.addbmm(s, a, b, **kw), [w, B1, B2], [wt, B1t, None])


def test_addmm_family_inplace_and_dtypes():
    def inplace(lib, s, a, b):
        s = s * 1
        s.addmm_(a, b, beta=0.5)
        r = s * 1
        r.baddbmm_(a.unsqueeze(0), b.unsqueeze(0), alpha=2)
        return [s, r]

    check_jvp(inplace, [C, A, B], [Ct, At, None])
    check_jvp(lambda lib, s, a, b: [lib.addmm(s, a, b), a @ b], [C, A, B], [Ct, At, Bt],
              dtype="float32", rtol=1e-5, atol=1e-6)


def test_cross():
    x, y, xt, yt = _r(2, 3), _r(2, 3), _r(2, 3), _r(2, 3)
    check_jvp(lambda lib, a, b: lib.linalg.cross(a, b), [x, y], [xt, yt])
    check_jvp(lambda lib, a, b: lib.cross(a, b, dim=-1), [x, y], [None, yt])
    check_jvp(lambda lib, a, b: lib.linalg.cross(a.t(), b.t(), dim=0), [x, y], [xt, None])
    check_jvp(lambda lib, a, b: lib.linalg.cross(a, b), [x, _r(1, 3)], [xt, _r(1, 3)])


def test_products_empty_no_grad_and_primal_grad():
    check_jvp(lambda lib, a, b: [a.mm(b), a @ b], [np.zeros((0, 4)), B], [np.zeros((0, 4)), Bt])
    check_jvp(lambda lib, a, b: a.mm(b), [np.zeros((3, 0)), np.zeros((0, 5))],
              [np.zeros((3, 0)), np.zeros((0, 5))])

    def fn(lib, a, b):
        with lib.no_grad():
            return [a.mm(b), a @ b, lib.addmm(a @ b, a, b), lib.einsum("ij,jk->ik", a, b)]

    check_jvp(fn, [A, B], [At, Bt])
    check_jvp(lambda lib, a, b: [a.mm(b), lib.addmm(a @ b, a, b, beta=2)], [A, B], [At, None],
              primal_grad=True)


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", ((3, 4), (4, 5))),
    ("bij,bjk->bik", ((2, 3, 4), (2, 4, 5))),
    ("ii->i", ((4, 4),)),
    ("ij->", ((3, 4),)),
    ("i,j->ij", ((4,), (5,))),
    ("...ij,...j->...i", ((2, 3, 4), (2, 4))),
])
def test_einsum_and_tensordot(eq, shapes):
    ps = [_r(*s) for s in shapes]
    ts = [_r(*s) for s in shapes]
    check_jvp(lambda lib, *xs: lib.einsum(eq, *xs), ps, ts)



def _reverse_over_view_of_tangent(lib):
    # the tangent of a view of a computed tensor is a view of a tangent with a history: its
    # gradient must reach the primal (core: forward_ad._view_of_tangent)
    x = lib.tensor(X, requires_grad=True)
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(x, lib.tensor(V))
        t1 = fwAD.unpack_dual((d * d).t()[1:]).tangent
        t2 = fwAD.unpack_dual((d @ d.t()).diagonal()).tangent
        dt = d.t() * d.t()  # (a tangent laid out column-major: the view's positions)
        t3 = fwAD.unpack_dual(dt[1:, ::2]).tangent
        out = [t1.requires_grad, t2.requires_grad, tuple(t3.stride())]
        (g,) = lib.autograd.grad((t1 * t1).sum() + t2.sum() + (t3 * t3).sum(), x)
    return out + [to_numpy(g)]


def test_reverse_over_forward_through_views_of_tangents():
    assert_parity(_reverse_over_view_of_tangent, rtol=1e-9, atol=1e-12)


def _reverse_over_copied_tangent(lib):
    # a tangent requiring grad in another layout than its primal is copied into the primal's
    # layout by a recorded copy_ (core: forward_ad.set_fw_grad), keeping its history
    v = lib.tensor(np.ascontiguousarray(V.T), requires_grad=True)
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(X), v.t())
        t = fwAD.unpack_dual(d).tangent
        t2 = fwAD.unpack_dual(d.sin()).tangent
        out = [t.requires_grad, t.grad_fn.name(), tuple(t.stride())]
        (g,) = lib.autograd.grad((t2 * t2).sum() + t.sum(), v)
    return out + [to_numpy(g)]


def test_reverse_over_forward_through_copied_tangent():
    assert_parity(_reverse_over_copied_tangent, rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------------ svd
def _svd_invariants(lib, a, full):
    # singular vectors are defined up to sign: compare what does not depend on it
    U, S, Vh = lib.linalg.svd(a, full_matrices=full)
    k = S.shape[-1]
    Uk, Vk = U[..., :k], Vh[..., :k, :]
    return [S, Uk @ Uk.mT, Vk.mT @ Vk, Uk * Vk.mT[..., : Uk.shape[-2], :]
            if Uk.shape[-2] <= Vk.shape[-1] else (Uk[..., : Vk.shape[-1], :] * Vk.mT),
            (Uk * S.unsqueeze(-2)) @ Vk]


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)], ids=str)
@pytest.mark.parametrize("full", [False, True], ids=["reduced", "full"])
def test_svd(shape, full):
    check_jvp(lambda lib, a: _svd_invariants(lib, a, full), [_r(*shape)], [_r(*shape)],
              rtol=1e-6, atol=1e-8)


def test_svdvals_and_spectral_norms():
    a, t = _r(2, 4, 3), _r(2, 4, 3)
    check_jvp(lambda lib, a: [lib.linalg.svdvals(a), lib.linalg.matrix_norm(a, "nuc"),
                              lib.linalg.matrix_norm(a, 2), lib.linalg.matrix_norm(a, -2),
                              lib.linalg.matrix_norm(a.transpose(0, 2), "nuc", dim=(0, 1))],
              [a], [t], rtol=1e-6, atol=1e-8)
    check_jvp(lambda lib, a: [lib.linalg.svdvals(a), lib.linalg.matrix_norm(a, "nuc")],
              [a], [t], dtype="float32", rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("x", [X3, None], ids=["plain", "zeros"])
def test_cumprod(x):
    if x is None:  # one zero in some slices, two in another, a zero first
        x = X3.copy()
        x[0, 1, 2] = 0.0
        x[1, 0, 1] = x[1, 0, 3] = 0.0
        x[1, 2, 0] = 0.0
    check_jvp(lambda lib, x: [x.cumprod(-1), x.cumprod(0), x.transpose(0, 2).cumprod(1),
                              lib.cumprod(x, 2, dtype=lib.float64)], [x], [V3])


def test_cumprod_edge_cases():
    check_jvp(lambda lib, x: [x.cumprod(0), x.cumprod(-1)], [np.array(1.5)], [np.array(-2.0)])
    check_jvp(lambda lib, x: x.cumprod(0), [np.array(0.0)], [np.array(-2.0)])
    check_jvp(lambda lib, x: [x.cumprod(0), x.cumprod(1)], [E], [EV])
    check_jvp(lambda lib, x: x.cumprod(1), [ZEROS2], [V], dtype="float32", rtol=1e-5,
              atol=1e-6)
    check_jvp(lambda lib, x: x.cumprod(1), [ZEROS2], [V], primal_grad=True)

    def inplace(lib, x):
        y = x * 1
        y.cumprod_(1)
        return y

    check_jvp(inplace, [ZEROS1], [V])


def test_linear_layers_through_the_products():  # F.linear: addmm / mm / _unsafe_view paths
    w, b = _r(5, 4), _r(5)
    check_jvp(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [A, w, b],
              [At, _r(5, 4), _r(5)])
    check_jvp(lambda lib, x, w: lib.nn.functional.linear(x, w), [B1, w], [B1t, None])
    check_jvp(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [B1, w, b],
              [None, _r(5, 4), _r(5)], primal_grad=True)


def test_trace():
    check_jvp(lambda lib, x: [x.trace(), x.t().trace(), lib.trace(x[:, :3])], [X], [V])
    check_jvp(lambda lib, x: x.trace(), [X], [V], dtype="float32", rtol=1e-5, atol=1e-6)
    check_jvp(lambda lib, x: x.trace(), [X], [V], primal_grad=True)


def _hvp(fn, primal, tangent):
    """The gradient wrt the primal of the tangent's sum (reverse over forward), per lib."""

    def run(lib):
        x = lib.tensor(primal, requires_grad=True)
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            jv = fwAD.unpack_dual(fn(lib, fwAD.make_dual(x, lib.tensor(tangent)))).tangent
        # (outside the level: the backward pass computes no tangents of its own)
        got = []
        err = capture_error(lambda: got.extend(lib.autograd.grad((jv * jv).sum(), x)))
        if err:  # (logsumexp, logcumsumexp: PyTorch's formula works in place on a saved exp)
            return [jv.requires_grad, err[0], err[1].replace("minigrad.", "torch.")]
        return [jv.requires_grad, to_numpy(got[0])]

    return run


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.sum(1) * x.mean(0).sum(),
    lambda lib, x: (x.amax(1) + x.max(0)[0].sum()) * x.sum(),
    lambda lib, x: x.var(1) + x.std(),
    lambda lib, x: x.logsumexp(1),
    lambda lib, x: x.prod(1),
    lambda lib, x: x.cumprod(1) + x.logcumsumexp(0),
    lambda lib, x: lib.linalg.vector_norm(x, 3, 1) + x.norm(),
    lambda lib, x: (x @ x.t()).diagonal() + lib.addmm(x[:, :3], x, x.t()[:, :3]).sum(),
    lambda lib, x: lib.linalg.svdvals(x),
], ids=["sum_mean", "max", "var_std", "logsumexp", "prod", "scans", "norms", "products",
        "svdvals"])
def test_reverse_over_forward(fn):
    assert_parity(_hvp(fn, X, V), rtol=1e-7, atol=1e-10)


def _mixed_dtype_tangents(lib):
    # a float64 tangent on a float32 primal: the in-place steps of logsumexp's and
    # logcumsumexp's formulas keep the primal's dtype, the others promote
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.tensor(X, dtype=lib.float32), lib.tensor(V))
        fns = [lambda: d.logsumexp(1), lambda: d.logcumsumexp(0), lambda: d.sum(1),
               lambda: d.amax(0), lambda: d.var(), lambda: d.prod(1), lambda: d.cumprod(1),
               lambda: lib.linalg.vector_norm(d), lambda: d @ d.t(), lambda: d.max(1)[0],
               lambda: lib.linalg.vector_norm(d, 1), lambda: lib.linalg.vector_norm(d, 3),
               lambda: lib.linalg.vector_norm(d, float("inf"), 1),
               lambda: lib.linalg.vector_norm(d, 0.5), lambda: d.std(1), lambda: d.mean(),
               # (products: which operand's dtype error comes first, PyTorch's term order)
               lambda: lib.addmm(d[:, :3], d, d.t()[:, :3]),
               lambda: lib.addmm(d[:, :3], d, d.t()[:, :3].detach()),
               lambda: lib.mv(d, d[0]), lambda: lib.bmm(d[None], d.t()[None]),
               lambda: lib.dot(d[0], d[1]), lambda: lib.linalg.cross(d[:, :3], d[:, 1:]),
               lambda: lib.addmv(d[:, 0], d, d[0]),
               lambda: lib.baddbmm(d[None, :, :3], d[None], d.t()[None, :, :3]),
               lambda: lib.addbmm(d[:, :3], d[None], d.t()[None, :, :3])]
        out = []
        for f in fns:
            got = []
            err = capture_error(lambda f=f, got=got: got.append(f()))
            out.append(err and (err[0], err[1].replace("minigrad.", "torch.")) or
                       str(fwAD.unpack_dual(got[0]).tangent.dtype).split(".")[-1])
        return out


def test_mixed_dtype_tangents():
    assert_parity(_mixed_dtype_tangents)


def _at_norm(lib, x, p, dim, keepdim=False):
    """``at::norm`` (node NormBackward1; what F.pairwise_distance records) on each side."""
    if lib.__name__ == "torch":
        return lib._VF.norm(x, p, dim, keepdim)
    from minigrad._ops.reduction_more import _at_norm as at_norm

    return at_norm(x, p, dim, keepdim)


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, float("inf")])
def test_at_norm(p):
    check_jvp(lambda lib, x: [_at_norm(lib, x, p, [1]), _at_norm(lib, x, p, [0], True),
                              type(_at_norm(lib, x, p, [1]).grad_fn).__name__], [X], [V],
              primal_grad=True)
