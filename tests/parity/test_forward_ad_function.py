"""Parity of forward-mode AD through custom ``autograd.Function``s with a ``jvp`` (issue 23):
when ``jvp`` is called and with what (tangents, zeros, None), ``ctx.save_for_forward`` and
``ctx.saved_tensors`` in ``jvp``, ``mark_dirty`` (the tangent modified in place),
``mark_non_differentiable``, inputs returned as-is and views (the tangent must be a view of the
input's), ``once_differentiable``, ``setup_context``, ``no_grad``, reverse over forward through
the tangent, and every error PyTorch raises for a wrong ``jvp`` (messages compared)."""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy

R = np.random.default_rng(2323)
X = R.standard_normal(3)
Y = R.standard_normal(3)
V = R.standard_normal(3)


def _err(fn):
    """``(type, message)`` of what ``fn()`` raises (library names taken out), or its result.
    Of PyTorch's internal asserts only the last sentence is kept (the rest names its C++
    source)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the error is compared
        msg = str(e).replace("minigrad", "torch")
        if "INTERNAL ASSERT FAILED" in msg:
            msg = msg.split(". ")[-1]
        return ("error", type(e).__name__, msg)


def _fn(lib, forward, jvp, backward=None, setup_context=None, **attrs):
    """A Function subclass of ``lib`` made of the given static methods."""
    body = {
        "forward": staticmethod(forward),
        "jvp": staticmethod(jvp),
        "backward": staticmethod(backward or (lambda ctx, *g: g)),
    }
    if setup_context is not None:
        body["setup_context"] = staticmethod(setup_context)
    body.update(attrs)
    return type("F", (lib.autograd.Function,), body)


def _t(lib, a):
    return lib.tensor(a, dtype=lib.float64)


def _tangent(lib, t):
    g = lib.autograd.forward_ad.unpack_dual(t).tangent
    return (
        None
        if g is None
        else {
            "value": to_numpy(g),
            "dtype": str(g.dtype).split(".")[-1],
            "shape": tuple(g.shape),
            "requires_grad": g.requires_grad,
        }
    )


def _outs(lib, r):
    """Each output's value and tangent (non-tensors as they are)."""
    rs = r if isinstance(r, tuple) else (r,)
    return [
        {"value": to_numpy(o), "tangent": _tangent(lib, o)} if hasattr(o, "detach") else o
        for o in rs
    ]


# ------------------------------------------------------------------------------ cases
def case_basic(lib):
    """jvp gets the input's tangent itself; saved_tensors are those saved for forward; the
    forward and jvp see no tangents (forward AD is off in both); grad mode is on in jvp."""
    fwAD = lib.autograd.forward_ad
    seen = {}

    def forward(ctx, a):
        seen.setdefault("fwd_tangent", fwAD.unpack_dual(a).tangent is None)
        seen.setdefault("fwd_op_tangent", fwAD.unpack_dual(a * 2).tangent is None)
        seen.setdefault("fw_after_unpack", fwAD.unpack_dual(a * 2).tangent is None)
        ctx.save_for_forward(a)
        ctx.save_for_backward(a)
        seen["a"] = a
        return a.sin()

    def jvp(ctx, ta):
        (a,) = ctx.saved_tensors
        seen.update(
            saved_is_input=a is seen["a"],
            ta_is_tangent=ta is seen["tan"],
            jvp_tangent=fwAD.unpack_dual(a).tangent is None,
            jvp_op_tangent=fwAD.unpack_dual(a * 2).tangent is None,
            grad=lib.is_grad_enabled(),
        )
        return ta * a.cos()

    F = _fn(lib, forward, jvp)
    with fwAD.dual_level():
        seen["tan"] = _t(lib, V)
        d = fwAD.make_dual(_t(lib, X), seen["tan"])
        out = _outs(lib, F.apply(d))
        out.append(_outs(lib, F.apply(_t(lib, X))))  # no tangent: jvp not called
    seen.pop("a")
    seen.pop("tan")
    return out, seen


def case_not_implemented(lib):
    fwAD = lib.autograd.forward_ad
    F = type(
        "F",
        (lib.autograd.Function,),
        {
            "forward": staticmethod(lambda ctx, a: a * 2),
            "backward": staticmethod(lambda ctx, g: g * 2),
        },
    )
    with fwAD.dual_level():
        plain = _outs(lib, F.apply(_t(lib, X)))  # (no tangent: no jvp needed)
        d = fwAD.make_dual(_t(lib, X), _t(lib, V))
        return plain, _err(lambda: F.apply(d))


def case_inputs_zeros_none(lib):
    """Tangents given to jvp: the input's, zeros for a tensor without one (None after
    set_materialize_grads(False)), None for a non-tensor argument; integer tensors get None."""
    fwAD = lib.autograd.forward_ad
    got = []

    def jvp(ctx, ta, tb, tk, ti):
        got.append([None if t is None else to_numpy(t) for t in (ta, tb, tk, ti)])
        return ta * 3

    def fwd(mat):
        def forward(ctx, a, b, k, i):
            ctx.set_materialize_grads(mat)
            return a * b * k

        return forward

    out = []
    with fwAD.dual_level():
        d = fwAD.make_dual(_t(lib, X), _t(lib, V))
        for mat in (True, False):
            F = _fn(lib, fwd(mat), jvp)
            out.append(_outs(lib, F.apply(d, _t(lib, Y), 2.0, lib.tensor([1, 2]))))
    return out, got


def case_saved_for_backward_only(lib):
    fwAD = lib.autograd.forward_ad
    seen = []

    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2

    def jvp(ctx, ta):
        seen.append(len(ctx.saved_tensors))
        return ta * 2

    def backward(ctx, g):
        seen.append(len(ctx.saved_tensors))
        return g * 2

    F = _fn(lib, forward, jvp, backward)
    with fwAD.dual_level():
        x = _t(lib, X).requires_grad_()
        y = F.apply(fwAD.make_dual(x, _t(lib, V)))
        y.backward(lib.ones_like(y))
        return _outs(lib, y), seen, to_numpy(x.grad)


def case_save_for_forward_non_tensor(lib):
    fwAD = lib.autograd.forward_ad

    def forward(ctx, a):
        ctx.save_for_forward(a, 3)
        return a * 2

    F = _fn(lib, forward, lambda ctx, ta: ta * 2)
    with fwAD.dual_level():
        return _err(lambda: F.apply(fwAD.make_dual(_t(lib, X), _t(lib, V))))


RETURNS = {
    "tuple": (lambda ctx, a: a * 2, lambda ctx, ta: (ta * 2,)),
    "float32": (lambda ctx, a: a * 2, lambda ctx, ta: (ta * 2).float()),
    "expand_view": (lambda ctx, a: a * 2, lambda ctx, ta: ta.expand(3)),
    "wrong_count": (lambda ctx, a: (a * 2, a * 3), lambda ctx, ta: ta * 2),
    "too_many": (lambda ctx, a: a * 2, lambda ctx, ta: (ta * 2, None)),
    "wrong_size": (lambda ctx, a: a * 2, lambda ctx, ta: ta[:2]),
    "broadcastable": (lambda ctx, a: a * 2, lambda ctx, ta: ta[:1]),
    "float": (lambda ctx, a: a * 2, lambda ctx, ta: 3.0),
    "list": (lambda ctx, a: a * 2, lambda ctx, ta: [ta]),
    "integer_tangent": (lambda ctx, a: a * 2, lambda ctx, ta: ta.long()),
    "int_output_given_one": (lambda ctx, a: (a * 2, a.long()), lambda ctx, ta: (ta * 2, ta)),
    "int_output_none": (lambda ctx, a: (a * 2, a.long()), lambda ctx, ta: (ta * 2, None)),
    "non_tensor_output": (lambda ctx, a: (a * 2, 3), lambda ctx, ta: (ta * 2, None)),
    "non_tensor_output_given_one": (lambda ctx, a: (a * 2, 3), lambda ctx, ta: (ta * 2, ta)),
    "non_tensor_output_count": (lambda ctx, a: (a * 2, 3), lambda ctx, ta: ta * 2),
    "transposed": (
        lambda ctx, a: a.reshape(3, 1) * a[:2],
        lambda ctx, ta: (ta.reshape(3, 1) * 0 + ta[:2]).t().contiguous().t(),
    ),
    "jvp_raises": (lambda ctx, a: a * 2, lambda ctx, ta: ta.reshape(7)),
}


def case_returns(lib, name):
    fwAD = lib.autograd.forward_ad
    F = _fn(lib, *RETURNS[name])
    with fwAD.dual_level():
        d = fwAD.make_dual(_t(lib, X), _t(lib, V))
        r = _err(lambda: F.apply(d))
        if isinstance(r, tuple) and isinstance(r[0], str):
            return r
        rs = r if isinstance(r, tuple) else (r,)
        tangents = [fwAD.unpack_dual(o).tangent if hasattr(o, "detach") else None for o in rs]
        return _outs(lib, r), [None if t is None else tuple(t.stride()) for t in tangents]


def case_returns_none(lib):
    """A differentiable output whose jvp result is None: PyTorch's internal assert."""
    fwAD = lib.autograd.forward_ad
    F = _fn(lib, lambda ctx, a: a * 2, lambda ctx, ta: None)
    with fwAD.dual_level():
        return _err(lambda: F.apply(fwAD.make_dual(_t(lib, X), _t(lib, V))))


def case_non_differentiable(lib):
    fwAD = lib.autograd.forward_ad

    def forward(ctx, a):
        o1, o2 = a * 2, a * 3
        ctx.mark_non_differentiable(o2)
        return o1, o2

    good = _fn(lib, forward, lambda ctx, ta: (ta * 2, None))
    bad = _fn(lib, forward, lambda ctx, ta: (ta * 2, ta * 3))
    with fwAD.dual_level():
        d = fwAD.make_dual(_t(lib, X), _t(lib, V))
        return _outs(lib, good.apply(d)), _err(lambda: bad.apply(d))


VIEWS = {
    "identity_view_as": (lambda ctx, a: a, lambda ctx, ta: ta.view_as(ta)),
    "identity_same_tangent": (lambda ctx, a: a, lambda ctx, ta: ta),
    "identity_new_tangent": (lambda ctx, a: a, lambda ctx, ta: ta * 5),
    "identity_none": (lambda ctx, a: a, lambda ctx, ta: None),
    "slice": (lambda ctx, a: a[:2], lambda ctx, ta: ta[:2]),
    "slice_of_clone": (lambda ctx, a: a[:2], lambda ctx, ta: ta.clone()[:2]),
    "slice_wrong_size": (lambda ctx, a: a[:2], lambda ctx, ta: ta[:1]),
    "view_reshape": (lambda ctx, a: a.view(3, 1), lambda ctx, ta: ta.view(3, 1)),
    "view_of_intermediate": (lambda ctx, a: (a * 2)[:2], lambda ctx, ta: ta[:2] * 2),
}


def case_views(lib, name):
    """A view of an input (or the input as-is) needs a view of the input's tangent."""
    fwAD = lib.autograd.forward_ad
    F = _fn(lib, *VIEWS[name])
    with fwAD.dual_level():
        tan = _t(lib, V)
        d = fwAD.make_dual(_t(lib, X), tan)
        r = _err(lambda: F.apply(d))
        if isinstance(r, tuple):
            return r
        g = fwAD.unpack_dual(r).tangent
        return _outs(lib, r), r is d, g is tan, g._base is tan


def case_view_of_dual_view(lib):
    """The input is a view of a dual tensor: the output's tangent must be a view of the same
    base as the input's tangent."""
    fwAD = lib.autograd.forward_ad
    good = _fn(lib, lambda ctx, a: a[:1], lambda ctx, ta: ta[:1])
    bad = _fn(lib, lambda ctx, a: a[:1], lambda ctx, ta: ta.clone()[:1])
    with fwAD.dual_level():
        tan = _t(lib, V)
        d = fwAD.make_dual(_t(lib, X), tan)
        v = d[:2]
        r = good.apply(v)
        return _outs(lib, r), fwAD.unpack_dual(r).tangent._base is tan, _err(lambda: bad.apply(v))


def case_identity_non_differentiable(lib):
    """An input returned as-is and marked non-differentiable: jvp must give None there."""
    fwAD = lib.autograd.forward_ad

    def forward(ctx, a, b):
        ctx.mark_non_differentiable(a)
        return a, b * 2

    good = _fn(lib, forward, lambda ctx, ta, tb: (None, tb * 2))
    bad = _fn(lib, forward, lambda ctx, ta, tb: (ta.view_as(ta), tb * 2))
    with fwAD.dual_level():
        a = fwAD.make_dual(_t(lib, X), _t(lib, V))
        b = fwAD.make_dual(_t(lib, Y), _t(lib, V))
        return _outs(lib, good.apply(a, b)), _err(lambda: bad.apply(a, b))


def case_identity_of_input_without_tangent(lib):
    """An input without a tangent returned as-is while another has one: its tangent is set as
    by an in-place op (on the returned view and the input itself)."""
    fwAD = lib.autograd.forward_ad
    F = _fn(lib, lambda ctx, a, b: (a, a * b), lambda ctx, ta, tb: (tb * 3, ta + tb))
    with fwAD.dual_level():
        a = _t(lib, X)
        r = F.apply(a, fwAD.make_dual(_t(lib, Y), _t(lib, V)))
        return _outs(lib, r), _tangent(lib, a)


def case_view_of_input_without_tangent(lib):
    """A view of an input without a tangent, given one by jvp: set as by an in-place op (the
    input gets a zero tangent around it), and PyTorch stops there: later outputs get none."""
    fwAD = lib.autograd.forward_ad

    def forward(ctx, a, b):
        return a[:2], b * 2, a * 1

    F = _fn(lib, forward, lambda ctx, ta, tb: (tb[:2] * 0 + 7, tb * 2, ta + 1))
    with fwAD.dual_level():
        a = _t(lib, X)
        d = fwAD.make_dual(_t(lib, Y), _t(lib, V))
        r = F.apply(a, d)
        return _outs(lib, r), _tangent(lib, a)


def _dirty_fwd(ctx, a):
    a.mul_(2)
    ctx.mark_dirty(a)
    return a


def _dirty_jvp(ctx, ta):
    ta.mul_(2)
    return ta


DIRTY = {
    "in_place": _dirty_jvp,
    "new_tangent": lambda ctx, ta: ta * 2,
    "modified_then_copy": lambda ctx, ta: ta.mul_(2).clone(),
    "none": lambda ctx, ta: None,
}


def case_dirty(lib, name):
    """mark_dirty: the jvp must modify the input's tangent in place and return it."""
    fwAD = lib.autograd.forward_ad
    F = _fn(lib, _dirty_fwd, DIRTY[name])
    with fwAD.dual_level():
        tan = _t(lib, V)
        d = fwAD.make_dual(_t(lib, X), tan)
        r = _err(lambda: F.apply(d))
        if isinstance(r, tuple):
            return r
        return _outs(lib, r), r is d, fwAD.unpack_dual(d).tangent is tan, tan._version


def case_dirty_input_without_tangent(lib):
    fwAD = lib.autograd.forward_ad

    def forward(ctx, a, b):
        a.mul_(b)
        ctx.mark_dirty(a)
        return a

    def jvp(ctx, ta, tb):
        ta.add_(tb)
        return ta

    F = _fn(lib, forward, jvp)
    with fwAD.dual_level():
        a = _t(lib, X)
        r = F.apply(a, fwAD.make_dual(_t(lib, Y), _t(lib, V)))
        base = _t(lib, np.concatenate([X, X]))
        view = base[:3]
        r2 = F.apply(view, fwAD.make_dual(_t(lib, Y), _t(lib, V)))
        return _outs(lib, r), _tangent(lib, a), _outs(lib, r2), _tangent(lib, base)


def case_dirty_view_of_dual(lib):
    fwAD = lib.autograd.forward_ad
    F = _fn(lib, _dirty_fwd, _dirty_jvp)
    with fwAD.dual_level():
        base = fwAD.make_dual(_t(lib, X), _t(lib, V))
        v = base[:2]
        r = F.apply(v)
        return _outs(lib, r), r is v, _tangent(lib, base)


def case_dirty_not_input(lib):
    fwAD = lib.autograd.forward_ad

    def forward(ctx, a):
        y = a * 2
        ctx.mark_dirty(y)
        return y

    F = _fn(lib, forward, lambda ctx, ta: ta * 2)
    out = []
    with fwAD.dual_level(), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out.append(_err(lambda: F.apply(fwAD.make_dual(_t(lib, X), _t(lib, V)))))
        x = _t(lib, X).requires_grad_()
        out.append(_err(lambda: F.apply(fwAD.make_dual(x.clone(), _t(lib, V)))))
        out.append([str(m.message).split(" (Triggered internally")[0] for m in w])
    return out


def case_once_differentiable(lib):
    fwAD = lib.autograd.forward_ad
    once = lib.autograd.function.once_differentiable

    @once
    def backward(ctx, g):
        return g * 2

    F = _fn(lib, lambda ctx, a: a * 2, lambda ctx, ta: ta * 2, backward)
    with fwAD.dual_level():
        x = _t(lib, X).requires_grad_()
        y = F.apply(fwAD.make_dual(x, _t(lib, V)))
        y.backward(lib.ones_like(y))
        return _outs(lib, y), to_numpy(x.grad)


def case_setup_context(lib):
    fwAD = lib.autograd.forward_ad
    seen = []

    def forward(a, k=3.0):
        return a * k

    def setup_context(ctx, inputs, output):
        a, k = inputs
        ctx.k = k
        ctx.save_for_forward(a)

    def jvp(ctx, ta, tk):
        seen.append([tk, len(ctx.saved_tensors)])
        return ta * ctx.k

    F = _fn(lib, forward, jvp, setup_context=setup_context)
    with fwAD.dual_level():
        d = fwAD.make_dual(_t(lib, X), _t(lib, V))
        return _outs(lib, F.apply(d)), _outs(lib, F.apply(d, k=4.0)), seen


def case_no_grad(lib):
    fwAD = lib.autograd.forward_ad
    seen = []

    def jvp(ctx, ta):
        seen.append(lib.is_grad_enabled())
        return ta * 2

    F = _fn(lib, lambda ctx, a: a * 2, jvp)
    with lib.no_grad(), fwAD.dual_level():
        x = _t(lib, X).requires_grad_()
        y = F.apply(fwAD.make_dual(x, _t(lib, V)))
        return _outs(lib, y), y.requires_grad, seen


def case_reverse_over_forward(lib):
    """The tangent computed in jvp from a saved primal that requires grad is differentiable:
    grad of <tangent, 1> w.r.t. x (a Hessian-vector product of sum(x*x*x))."""
    fwAD = lib.autograd.forward_ad

    def forward(ctx, a):
        ctx.save_for_forward(a)
        return a * a * a

    def jvp(ctx, ta):
        (a,) = ctx.saved_tensors
        return 3 * a * a * ta

    F = _fn(lib, forward, jvp)
    with fwAD.dual_level():
        x = _t(lib, X).requires_grad_()
        y = F.apply(fwAD.make_dual(x, _t(lib, V)))
        t = fwAD.unpack_dual(y).tangent
        (g,) = lib.autograd.grad(t.sum(), x)
        return _outs(lib, y), type(y.grad_fn).__name__, type(t.grad_fn).__name__, to_numpy(g)


def case_chain_with_ops(lib):
    """Tangents flow through ordinary ops before and after the Function."""
    fwAD = lib.autograd.forward_ad

    def forward(ctx, a, b):
        ctx.save_for_forward(a, b)
        return a * b, a + b

    def jvp(ctx, ta, tb):
        a, b = ctx.saved_tensors
        return ta * b + a * tb, ta + tb

    F = _fn(lib, forward, jvp)
    with fwAD.dual_level():
        a = fwAD.make_dual(_t(lib, X), _t(lib, V))
        b = fwAD.make_dual(_t(lib, Y), _t(lib, V[::-1].copy()))
        p, s = F.apply(a.sin(), b.exp())
        return _outs(lib, (p.tanh(), s * p))


CASES = {
    f.__name__[5:]: f
    for f in [
        case_basic,
        case_not_implemented,
        case_inputs_zeros_none,
        case_saved_for_backward_only,
        case_save_for_forward_non_tensor,
        case_returns_none,
        case_non_differentiable,
        case_view_of_dual_view,
        case_view_of_input_without_tangent,
        case_identity_non_differentiable,
        case_identity_of_input_without_tangent,
        case_dirty_input_without_tangent,
        case_dirty_view_of_dual,
        case_dirty_not_input,
        case_once_differentiable,
        case_setup_context,
        case_no_grad,
        case_reverse_over_forward,
        case_chain_with_ops,
    ]
}


@pytest.mark.parametrize("name", list(CASES))
def test_function_jvp(name):
    assert_parity(CASES[name], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(RETURNS))
def test_jvp_returns(name):
    assert_parity(case_returns, name, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(VIEWS))
def test_jvp_views(name):
    assert_parity(case_views, name, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(DIRTY))
def test_jvp_dirty(name):
    assert_parity(case_dirty, name, rtol=1e-10, atol=1e-12)


def _reverse_over_forward_view(lib):
    """Core: a view of a tangent that requires grad stays in the reverse graph (minigrad's
    node is AsStridedBackward0 where PyTorch's is the view op's own, so only gradients and
    requires_grad are compared)."""
    fwAD = lib.autograd.forward_ad
    x = _t(lib, X).requires_grad_()
    with fwAD.dual_level():
        d = fwAD.make_dual(x, _t(lib, V))
        y = (d * d).view(3, 1)[1:]
        t = fwAD.unpack_dual(y).tangent
        (g,) = lib.autograd.grad(t[1, 0], x)
        return t.requires_grad, t.grad_fn is not None, to_numpy(t), to_numpy(g)


def test_reverse_over_forward_through_a_view():
    assert_parity(_reverse_over_forward_view, rtol=1e-12, atol=1e-12)


def _forward_over_reverse_saved_output(lib):
    """Core: a node that saved its output (exp's result) gives it back with its tangent, so
    the gradient computed with create_graph inside a level has the right tangent, also when
    nothing else keeps the output alive."""
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        leaf = _t(lib, X).requires_grad_()
        d = fwAD.make_dual(leaf, _t(lib, V))
        y = _t(lib, Y).sin() * d.exp()
        (g,) = lib.autograd.grad(y, d, _t(lib, np.ones(3)), create_graph=True)
        return to_numpy(g), _tangent(lib, g)


def test_forward_over_reverse_through_a_saved_output():
    assert_parity(_forward_over_reverse_saved_output, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------ gradcheck
def _sin_fn(lib, jvp):
    def forward(ctx, a):
        ctx.save_for_forward(a)
        ctx.save_for_backward(a)
        return a.sin()

    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * a.cos()

    return _fn(lib, forward, jvp, backward)


def _good_jvp(ctx, t):
    (a,) = ctx.saved_tensors
    return t * a.cos()


GRADCHECKS = {
    "good": lambda lib, gc, x, y: gc(_sin_fn(lib, _good_jvp).apply, (x,), check_forward_ad=True),
    "good_forward_only": lambda lib, gc, x, y: gc(
        _sin_fn(lib, _good_jvp).apply, (x,), check_forward_ad=True, check_backward_ad=False
    ),
    "wrong_jvp": lambda lib, gc, x, y: gc(
        _sin_fn(lib, lambda ctx, t: t * 2).apply, (x,), check_forward_ad=True
    ),
    "wrong_jvp_no_raise": lambda lib, gc, x, y: gc(
        _sin_fn(lib, lambda ctx, t: t * 2).apply,
        (x,),
        check_forward_ad=True,
        raise_exception=False,
    ),
    "wrong_jvp_backward_only": lambda lib, gc, x, y: gc(
        _sin_fn(lib, lambda ctx, t: t * 2).apply, (x,)
    ),
    "ops_two_outputs": lambda lib, gc, x, y: gc(
        lambda a, b: (a * b, a.exp(), b.sin() - a), (x, y), check_forward_ad=True
    ),
    "one_input_requires_grad": lambda lib, gc, x, y: gc(
        lambda a, b: a.tanh() * b, (x, y.detach()), check_forward_ad=True
    ),
    "neither_mode": lambda lib, gc, x, y: gc(
        lambda a: a.sin(), (x,), check_forward_ad=False, check_backward_ad=False
    ),
}


def _gradcheck(lib, name):
    x = _t(lib, X[:2]).requires_grad_()
    y = _t(lib, Y[:2]).requires_grad_()
    return _err(lambda: GRADCHECKS[name](lib, lib.autograd.gradcheck, x, y))


@pytest.mark.parametrize("name", list(GRADCHECKS))
def test_gradcheck_forward_ad(name):
    assert_parity(_gradcheck, name)
