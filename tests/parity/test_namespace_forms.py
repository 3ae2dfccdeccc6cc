"""Parity of the torch-namespace spellings of tensor ops (issue 19): the in-place functions
(``torch.sin_(x)``, ``torch.relu_(h)``, ``torch.clamp_(x, min=0)`` ...: same object, ``_version``
+ 1, history, gradients, the check of ``input``), ``torch.cosine_similarity`` /
``torch.pairwise_distance``, ``torch.linalg.cross`` / ``torch.linalg.diagonal``, and aliases that
no other parity test used (``split_with_sizes``, ``argwhere``, ``fliplr``/``flipud``,
``swapdims``/``moveaxis``/``swapaxes_``, ``msort``)."""

import numpy as np
import pytest

from minigrad.parity import compare, run_both, to_numpy

R = np.random.default_rng(19)
X = R.uniform(0.2, 0.8, (2, 3)).astype(np.float32)  # in every op's domain (acos, log ...)
V = R.uniform(0.2, 0.8, 3).astype(np.float32)
M = R.uniform(0.2, 0.8, (3, 2)).astype(np.float32)
ACOSH = (X + 1.5).astype(np.float32)
T3 = R.uniform(size=(2, 3, 4)).astype(np.float32)
X34 = R.uniform(size=(3, 4)).astype(np.float32)

# name -> (call on the tensor h, input values)
INPLACE = {
    "abs_": (lambda L, h: L.abs_(h), X),
    "acos_": (lambda L, h: L.acos_(h), X),
    "acosh_": (lambda L, h: L.acosh_(h), ACOSH),
    "addmv_": (lambda L, h: L.addmv_(h[0, :2], L.tensor(M.T), L.tensor(V), beta=2, alpha=3), X),
    "arccos_": (lambda L, h: L.arccos_(h), X),
    "arccosh_": (lambda L, h: L.arccosh_(h), ACOSH),
    "arcsin_": (lambda L, h: L.arcsin_(h), X),
    "arcsinh_": (lambda L, h: L.arcsinh_(h), X),
    "arctan_": (lambda L, h: L.arctan_(h), X),
    "arctanh_": (lambda L, h: L.arctanh_(h), X),
    "as_strided_": (lambda L, h: L.as_strided_(h, (3, 2), (1, 3)), X),
    "asin_": (lambda L, h: L.asin_(h), X),
    "asinh_": (lambda L, h: L.asinh_(h), X),
    "atan_": (lambda L, h: L.atan_(h), X),
    "atanh_": (lambda L, h: L.atanh_(h), X),
    "ceil_": (lambda L, h: L.ceil_(h), X * 3),
    "clamp_": (lambda L, h: L.clamp_(h, 0.3, 0.6), X),
    "clamp_kw": (lambda L, h: L.clamp_(h, min=0.4), X),
    "clamp_max_": (lambda L, h: L.clamp_max_(h, 0.5), X),
    "clamp_min_": (lambda L, h: L.clamp_min_(h, 0.5), X),
    "clip_": (lambda L, h: L.clip_(h, 0.3, 0.6), X),
    "cos_": (lambda L, h: L.cos_(h), X),
    "cosh_": (lambda L, h: L.cosh_(h), X),
    "detach_": (lambda L, h: L.detach_(h), X),
    "exp2_": (lambda L, h: L.exp2_(h), X),
    "exp_": (lambda L, h: L.exp_(h), X),
    "expm1_": (lambda L, h: L.expm1_(h), X),
    "fill_": (lambda L, h: L.fill_(h, 2.5), X),
    "fix_": (lambda L, h: L.fix_(h), X * 3),
    "floor_": (lambda L, h: L.floor_(h), X * 3),
    "frac_": (lambda L, h: L.frac_(h), X * 3),
    "index_put_": (lambda L, h: L.index_put_(h, (L.tensor([1, 0]),), L.tensor(5.0)), X),
    "log10_": (lambda L, h: L.log10_(h), X),
    "log1p_": (lambda L, h: L.log1p_(h), X),
    "log2_": (lambda L, h: L.log2_(h), X),
    "log_": (lambda L, h: L.log_(h), X),
    "nan_to_num_": (lambda L, h: L.nan_to_num_(h.log().log(), nan=1.0), X),
    "neg_": (lambda L, h: L.neg_(h), X),
    "negative_": (lambda L, h: L.negative_(h), X),
    "reciprocal_": (lambda L, h: L.reciprocal_(h), X),
    "relu_": (lambda L, h: L.relu_(h), X - 0.5),
    "relu_input_kw": (lambda L, h: L.relu_(input=h), X - 0.5),
    "resize_as_": (lambda L, h: L.resize_as_(h.detach(), L.zeros(3, 2)), X),
    "round_": (lambda L, h: L.round_(h), X * 3),
    "rsqrt_": (lambda L, h: L.rsqrt_(h), X),
    "sigmoid_": (lambda L, h: L.sigmoid_(h), X),
    "sin_": (lambda L, h: L.sin_(h), X),
    "sinh_": (lambda L, h: L.sinh_(h), X),
    "sqrt_": (lambda L, h: L.sqrt_(h), X),
    "square_": (lambda L, h: L.square_(h), X),
    "tan_": (lambda L, h: L.tan_(h), X),
    "tanh_": (lambda L, h: L.tanh_(h), X),
    "trunc_": (lambda L, h: L.trunc_(h), X * 3),
    "zero_": (lambda L, h: L.zero_(h), X),
}


def _error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the error is the trace
        return type(e).__name__, str(e).split("\n")[0]
    return None


@pytest.mark.parametrize("case", list(INPLACE))
def test_inplace_function(case):
    """On ``h = x * 1``: the function returns ``h`` itself, one version later, with the
    method's history; the gradient reaches ``x`` through it."""
    call, values = INPLACE[case]

    def scenario(L):
        x = L.tensor(values, requires_grad=True)
        h = x * 1
        try:
            r = call(L, h)
        except Exception as e:  # noqa: BLE001 - the error is the trace
            return type(e).__name__, str(e).split("\n")[0]
        trace = {
            "same": r is h or r._base is h,
            "version": h._version,
            "node": type(h.grad_fn).__name__ if h.grad_fn is not None else None,
            "values": to_numpy(h),
            "requires_grad": h.requires_grad,
        }
        if h.requires_grad:
            w = L.tensor(np.arange(h.numel(), dtype=np.float32).reshape(h.shape))
            trace["backward"] = _error(lambda: (h * w).sum().backward())
            trace["grad"] = to_numpy(x.grad)
        return trace

    compare(*run_both(scenario))


def test_inplace_function_on_a_leaf_and_on_non_tensors():
    def scenario(L):
        trace = [_error(lambda: L.relu_(L.ones(2, requires_grad=True)))]
        for f in (L.sin_, L.relu_, L.zero_, L.exp_, L.sigmoid_):
            trace.append(_error(lambda f=f: f(3)))
            trace.append(_error(lambda f=f: f([1.0])))
        # (clamp_/fill_ go through PyTorch's overload parser: only the type is the same)
        trace += [
            _error(lambda: L.clamp_(3, 0, 1))[0],
            _error(lambda: L.fill_(3, 1))[0],
            _error(lambda: L.sin_(L.ones(2), 1))[0],
            _error(lambda: L.sin_(L.tensor([1, 2]))),
        ]
        x = L.tensor([0.5, -1.0])
        trace += [L.sin_(x) is x, x._version, to_numpy(x)]
        return trace

    compare(*run_both(scenario))


def test_cosine_similarity_and_pairwise_distance_in_torch():
    def scenario(L):
        a = L.tensor(X, requires_grad=True)
        b = L.tensor(X[::-1].copy())
        c = L.cosine_similarity(a, b, 1, 1e-8)
        d = L.pairwise_distance(a, b, p=1.5, keepdim=True)
        (c.sum() + d.sum()).backward()
        return [
            to_numpy(c),
            to_numpy(d),
            type(c.grad_fn).__name__,
            type(d.grad_fn).__name__,
            to_numpy(a.grad),
            L.cosine_similarity is L.nn.functional.cosine_similarity,
        ]

    compare(*run_both(scenario))


def test_linalg_cross_and_diagonal():
    def scenario(L):
        a = L.tensor(X, requires_grad=True)
        b = L.tensor(X[::-1].copy())
        c = L.linalg.cross(a, b)
        c0 = L.linalg.cross(a.t(), b.t(), dim=0)
        t3 = L.tensor(T3, requires_grad=True)
        d = L.linalg.diagonal(t3)
        d1 = L.linalg.diagonal(t3, offset=1, dim1=0, dim2=2)
        (c.sum() + c0.sum() + d.sum() + d1.sum()).backward()
        trace = [
            to_numpy(c),
            to_numpy(c0),
            to_numpy(d),
            to_numpy(d1),
            d._is_view(),
            [type(t.grad_fn).__name__ for t in (c, c0, d, d1)],
            to_numpy(a.grad),
            to_numpy(t3.grad),
        ]
        for f in (
            lambda: L.linalg.cross(L.ones(3, 2), L.ones(3, 2)),
            lambda: L.linalg.cross(L.ones(3), L.ones(3, dtype=L.float64)),
            lambda: L.linalg.cross(L.ones(1, 3), L.ones(3)),
            lambda: L.cross(L.ones(3, 2), L.ones(3, 2), dim=-1),
            lambda: L.linalg.diagonal(t3, 1),
        ):
            trace.append(_error(f))
        return trace

    # (no torch.cross without dim here: PyTorch warns about it once per process, and
    # test_ops_linalg_more.py checks that warning)
    compare(*run_both(scenario))


def test_aliases():
    def scenario(L):
        x = L.tensor(X34, requires_grad=True)
        outs = [
            *L.split_with_sizes(x, [1, 2]),
            *x.split_with_sizes([3, 1], dim=1),
            L.fliplr(x),
            L.flipud(x),
            x.flipud(),
            L.swapdims(x, 0, 1),
            x.swapdims(1, 0),
            x.moveaxis(0, 1),
            L.moveaxis(x, 1, 0),
            L.msort(x),
            x.msort(),
        ]
        loss = sum((o * L.arange(o.numel()).reshape(o.shape)).sum() for o in outs)
        loss.backward()
        h = x * 1
        s = h.swapaxes_(0, 1)
        m = L.tensor([[0.0, 1.5], [2.0, 0.0]])
        return [
            [to_numpy(o) for o in outs],
            [type(o.grad_fn).__name__ for o in outs],
            to_numpy(x.grad),
            s is h,
            tuple(h.shape),
            h._version,
            type(h.grad_fn).__name__,
            to_numpy(m.argwhere()),
            to_numpy(L.argwhere(m)),
        ]

    compare(*run_both(scenario))
