"""Parity of ``torch.func``'s transforms for functions of tensors (issue 23): ``grad``,
``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` and
``functional_call`` — values, structure (tuples, lists, dicts), ``requires_grad`` of the
results (detached unless they depend on the caller's graph), composition (``grad(grad)``,
``jacrev(jacrev)``, ``jacfwd(jacrev)``, ``jacrev(jacfwd)``), and PyTorch's error messages;
also against hand-derived Jacobians so a wrong result on both sides cannot pass."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy

R = np.random.default_rng(1923)
X = R.standard_normal(3)
Y = R.standard_normal(3)
V = R.standard_normal(3)
M = R.standard_normal((2, 3))


def _t(lib, a, **kw):
    return lib.tensor(a, dtype=lib.float64, **kw)


def _data(x):
    """Results as plain data: tensors as (value, dtype, requires_grad), trees kept."""
    if hasattr(x, "detach"):
        return (to_numpy(x), str(x.dtype).split(".")[-1], x.requires_grad)
    if isinstance(x, dict):
        return {k: _data(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return type(x)(_data(v) for v in x)
    if callable(x):
        return "function"
    return x


def _run(fn):
    try:
        return _data(fn())
    except Exception as e:  # noqa: BLE001 - the error is compared
        return ("error", type(e).__name__, str(e).replace("minigrad", "torch"))


def _f(a):
    return (a.sin() * a)[0] + (a * a)[2]


CASES = {
    # grad / grad_and_value
    "grad": lambda lib, F: F.grad(_f)(_t(lib, X)),
    "grad_argnums_tuple": lambda lib, F: F.grad(lambda a, b: (a * b.exp())[1], argnums=(0, 1))(
        _t(lib, X), _t(lib, Y)
    ),
    "grad_argnums_negative": lambda lib, F: F.grad(lambda a, b: (a * b)[0], argnums=-1)(
        _t(lib, X), _t(lib, Y)
    ),
    "grad_dict": lambda lib, F: F.grad(lambda d: (d["a"] * d["b"])[0])(
        {"a": _t(lib, X), "b": _t(lib, Y)}
    ),
    "grad_list_kwargs": lambda lib, F: F.grad(lambda xs, k=1.0: (xs[0] * xs[1] * k)[2])(
        [_t(lib, X), _t(lib, Y)], k=3.0
    ),
    "grad_has_aux": lambda lib, F: F.grad(lambda a: ((a * a)[0], {"s": a.sin()}), has_aux=True)(
        _t(lib, X)
    ),
    "grad_and_value": lambda lib, F: F.grad_and_value(_f)(_t(lib, X)),
    "grad_and_value_aux": lambda lib, F: F.grad_and_value(lambda a: ((a * a)[0], a), has_aux=True)(
        _t(lib, X)
    ),
    "grad_independent": lambda lib, F: F.grad(lambda a: (_t(lib, Y) * 2)[0])(_t(lib, X)),
    "grad_integer_output": lambda lib, F: F.grad(lambda a: a.long()[0])(_t(lib, X)),
    "grad_of_grad": lambda lib, F: F.grad(lambda a: F.grad(_f)(a)[0])(_t(lib, X)),
    "grad_input_requires_grad": lambda lib, F: F.grad(lambda a: (a * a)[0])(
        _t(lib, X, requires_grad=True)
    ),
    "grad_captured_requires_grad": lambda lib, F: _captured(lib, F),
    "grad_no_grad_mode": lambda lib, F: _no_grad(
        lib, lambda: F.grad(lambda a: (a * a)[0])(_t(lib, X, requires_grad=True))
    ),
    "grad_not_scalar": lambda lib, F: F.grad(lambda a: a.sin())(_t(lib, X)),
    "grad_not_tensor": lambda lib, F: F.grad(lambda a: 3.0)(_t(lib, X)),
    "grad_aux_not_pair": lambda lib, F: F.grad(lambda a: a[0], has_aux=True)(_t(lib, X)),
    "grad_aux_triple": lambda lib, F: F.grad(lambda a: (a[0], a, 5), has_aux=True)(_t(lib, X)),
    "grad_and_value_tuple_output": lambda lib, F: F.grad_and_value(lambda a: (a[0], a))(_t(lib, X)),
    "grad_argnum_too_big": lambda lib, F: F.grad(_f, argnums=1)(_t(lib, X)),
    "grad_argnums_float": lambda lib, F: F.grad(_f, argnums=1.5)(_t(lib, X)),
    "grad_argnums_empty": lambda lib, F: F.grad(_f, argnums=())(_t(lib, X)),
    "grad_argnums_repeated": lambda lib, F: F.grad(lambda a, b: (a * b)[0], argnums=(0, 0))(
        _t(lib, X), _t(lib, Y)
    ),
    "grad_keyword_only": lambda lib, F: F.grad(lambda a: a[0])(a=_t(lib, X)),
    "grad_integer_input": lambda lib, F: F.grad(lambda a: a[0])(lib.tensor([1, 2])),
    "grad_float_input": lambda lib, F: F.grad(lambda a: a[0])(3.0),
    # vjp
    "vjp": lambda lib, F: _vjp(lib, F, lambda a, b: a * b.sin(), _t(lib, X), _t(lib, Y)),
    "vjp_tree_output": lambda lib, F: _vjp(
        lib, F, lambda a: {"p": a * 2, "q": [a.exp()]}, _t(lib, X), cts={"p": 1, "q": [2]}
    ),
    "vjp_has_aux": lambda lib, F: F.vjp(lambda a: (a * 2, a.sin()), _t(lib, X), has_aux=True),
    "vjp_aux_not_pair": lambda lib, F: F.vjp(lambda a: a * 2, _t(lib, X), has_aux=True),
    "vjp_not_tensor": lambda lib, F: F.vjp(lambda a: 3, _t(lib, X)),
    "vjp_wrong_structure": lambda lib, F: F.vjp(lambda a: a * 2, _t(lib, X))[1]((_t(lib, V),)),
    "vjp_wrong_shape": lambda lib, F: F.vjp(lambda a: a * 2, _t(lib, X))[1](_t(lib, V[:2])),
    "vjp_called_twice": lambda lib, F: _twice(lib, F),
    # jvp
    "jvp": lambda lib, F: F.jvp(
        lambda a, b: a.sin() * b, (_t(lib, X), _t(lib, Y)), (_t(lib, V), _t(lib, V * 2))
    ),
    "jvp_tree": lambda lib, F: F.jvp(
        lambda d: [d["a"].exp(), d["a"] * d["b"]],
        ({"a": _t(lib, X), "b": _t(lib, Y)},),
        ({"a": _t(lib, V), "b": _t(lib, V)},),
    ),
    "jvp_has_aux": lambda lib, F: F.jvp(
        lambda a: (a.sin(), a * 2), (_t(lib, X),), (_t(lib, V),), has_aux=True
    ),
    "jvp_independent_output": lambda lib, F: F.jvp(
        lambda a: (a.sin(), _t(lib, Y)), (_t(lib, X),), (_t(lib, V),)
    ),
    "jvp_float32_tangent": lambda lib, F: F.jvp(
        lambda a: a.sin(), (_t(lib, X),), (lib.tensor(V, dtype=lib.float32),)
    ),
    "jvp_strict": lambda lib, F: F.jvp(
        lambda a: a.tanh(), (_t(lib, X),), (_t(lib, V),), strict=True
    ),
    "jvp_primals_not_tuple": lambda lib, F: F.jvp(lambda a: a.sin(), _t(lib, X), _t(lib, V)),
    "jvp_tangents_count": lambda lib, F: F.jvp(
        lambda a: a.sin(), (_t(lib, X),), (_t(lib, V), _t(lib, V))
    ),
    "jvp_tangents_list": lambda lib, F: F.jvp(lambda a: a.sin(), (_t(lib, X),), [_t(lib, V)]),
    "jvp_tangent_size": lambda lib, F: F.jvp(lambda a: a.sin(), (_t(lib, X),), (_t(lib, V[:2]),)),
    "jvp_empty": lambda lib, F: F.jvp(lambda: 1, (), ()),
    "jvp_non_tensor_primal": lambda lib, F: F.jvp(lambda a: a, (3.0,), (_t(lib, V),)),
    "jvp_returns_float": lambda lib, F: F.jvp(lambda a: 3.0, (_t(lib, X),), (_t(lib, V),)),
    "jvp_aux_not_pair": lambda lib, F: F.jvp(
        lambda a: a * 2, (_t(lib, X),), (_t(lib, V),), has_aux=True
    ),
    "jvp_integer_primal": lambda lib, F: F.jvp(
        lambda a: a * 2, (lib.tensor([1, 2]),), (lib.tensor([1, 2]),)
    ),
    "grad_in_dual_level": lambda lib, F: _dual_in(lib, F.grad(_f)),
    "jacrev_in_dual_level": lambda lib, F: _dual_in(lib, F.jacrev(lambda a: a.exp() * a)),
    "vjp_in_dual_level": lambda lib, F: _dual_in(
        lib, lambda a: F.vjp(lambda b: b.sin() * b, a)[1](_t(lib, Y))
    ),
    "jvp_inside_dual_level": lambda lib, F: _in_level(
        lib, lambda: F.jvp(lambda a: a.sin(), (_t(lib, X),), (_t(lib, V),))
    ),
    "jvp_primal_requires_grad": lambda lib, F: _jvp_rg(lib, F),
    "vjp_float32_cotangent": lambda lib, F: F.vjp(lambda a: a * 2, _t(lib, X))[1](
        lib.tensor(V, dtype=lib.float32)
    ),
    "jvp_custom_function": lambda lib, F: F.jvp(
        lambda a: _cube_fn(lib).apply(a).sin(), (_t(lib, X),), (_t(lib, V),)
    ),
    "jacfwd_custom_function": lambda lib, F: F.jacfwd(_cube_fn(lib).apply)(_t(lib, X)),
    "jacrev_custom_function": lambda lib, F: F.jacrev(_cube_fn(lib).apply)(_t(lib, X)),
    "hessian_custom_function": lambda lib, F: F.hessian(_cube_fn(lib).apply)(_t(lib, X)),
    "jacfwd_custom_function_no_vmap_rule": lambda lib, F: F.jacfwd(
        _cube_fn(lib, vmap_rule=False).apply
    )(_t(lib, X)),
    "jacrev_custom_function_no_vmap_rule": lambda lib, F: F.jacrev(
        _cube_fn(lib, vmap_rule=False).apply
    )(_t(lib, X)),
    "grad_custom_function_old_style": lambda lib, F: F.grad(
        lambda a: _cube_fn(lib, setup=False).apply(a)[0]
    )(_t(lib, X)),
    "jvp_custom_function_old_style": lambda lib, F: F.jvp(
        _cube_fn(lib, setup=False).apply, (_t(lib, X),), (_t(lib, V),)
    ),
    "custom_function_old_style_after_transform": lambda lib, F: (
        F.grad(lambda a: a[0])(_t(lib, X)),
        _cube_fn(lib, setup=False).apply(_t(lib, X)),
    ),
    # jacobians
    "jacrev": lambda lib, F: F.jacrev(lambda a: a.sin() * a)(_t(lib, X)),
    "jacfwd": lambda lib, F: F.jacfwd(lambda a: a.sin() * a)(_t(lib, X)),
    "jacrev_2d": lambda lib, F: F.jacrev(lambda m: m.exp() * m)(_t(lib, M)),
    "jacfwd_2d": lambda lib, F: F.jacfwd(lambda m: m.exp() * m)(_t(lib, M)),
    "jacrev_argnums": lambda lib, F: F.jacrev(lambda a, b: a.sin() * b, argnums=(0, 1))(
        _t(lib, X), _t(lib, Y)
    ),
    "jacfwd_argnums": lambda lib, F: F.jacfwd(lambda a, b: a.sin() * b, argnums=(0, 1))(
        _t(lib, X), _t(lib, Y)
    ),
    "jacfwd_argnum_1": lambda lib, F: F.jacfwd(lambda a, b: a.sin() * b, argnums=1)(
        _t(lib, X), _t(lib, Y)
    ),
    "jacrev_tree_output": lambda lib, F: F.jacrev(lambda a: {"o": a * 2, "p": [a.sin()]})(
        _t(lib, X)
    ),
    "jacfwd_tree_output": lambda lib, F: F.jacfwd(lambda a: {"o": a * 2, "p": [a.sin()]})(
        _t(lib, X)
    ),
    "jacrev_has_aux": lambda lib, F: F.jacrev(lambda a: (a.sin(), a * 2), has_aux=True)(_t(lib, X)),
    "jacfwd_has_aux": lambda lib, F: F.jacfwd(lambda a: (a.sin(), a * 2), has_aux=True)(_t(lib, X)),
    "jacrev_scalar_output": lambda lib, F: F.jacrev(_f)(_t(lib, X)),
    "jacfwd_scalar_output": lambda lib, F: F.jacfwd(_f)(_t(lib, X)),
    "jacrev_requires_grad": lambda lib, F: [
        F.jacrev(lambda a: a * 2)(_t(lib, X)).requires_grad,
        F.jacrev(lambda a: a * a)(_t(lib, X, requires_grad=True)).requires_grad,
    ],
    "jacrev_of_jacrev": lambda lib, F: F.jacrev(F.jacrev(lambda a: a.sin() * a))(_t(lib, X)),
    "jacrev_of_jacfwd": lambda lib, F: F.jacrev(F.jacfwd(lambda a: a.sin() * a))(_t(lib, X)),
    "hessian": lambda lib, F: F.hessian(lambda a: a.sin() * a)(_t(lib, X)),
    "hessian_scalar": lambda lib, F: F.hessian(_f)(_t(lib, X)),
    "hessian_sum": lambda lib, F: F.hessian(lambda m: (m.exp() * m).sum())(_t(lib, M)),
    "grad_and_value_sum": lambda lib, F: F.grad_and_value(lambda m: (m.sin() @ m.t()).sum())(
        _t(lib, M)
    ),
    "jacfwd_of_jacfwd_sum": lambda lib, F: F.jacfwd(F.jacfwd(lambda a: (a.sin() * a).sum()))(
        _t(lib, X)
    ),
    "hessian_argnums": lambda lib, F: F.hessian(lambda a, b: a.sin() * b.exp(), argnums=1)(
        _t(lib, X), _t(lib, Y)
    ),
    "jacfwd_of_jacfwd": lambda lib, F: F.jacfwd(F.jacfwd(lambda a: a.sin() * a))(_t(lib, X)),
    "jvp_of_jvp": lambda lib, F: F.jvp(
        lambda a: F.jvp(lambda b: b.sin() * b, (a,), (_t(lib, V),))[1], (_t(lib, X),), (_t(lib, Y),)
    ),
    "jacfwd_of_jacfwd_requires_grad": lambda lib, F: F.jacfwd(F.jacfwd(lambda a: a.exp() * a))(
        _t(lib, X, requires_grad=True)
    ),
    "hessian_requires_grad": lambda lib, F: F.hessian(lambda a: a.sin() * a)(
        _t(lib, X, requires_grad=True)
    ),
    "jacrev_not_tensor": lambda lib, F: F.jacrev(lambda a: 3.0)(_t(lib, X)),
    "jacfwd_not_tensor": lambda lib, F: F.jacfwd(lambda a: 3.0)(_t(lib, X)),
    "jacfwd_argnum_too_big": lambda lib, F: F.jacfwd(lambda a: a, argnums=2)(_t(lib, X)),
    "jacrev_integer_output": lambda lib, F: F.jacrev(lambda a: a.long())(_t(lib, X)),
    "jacfwd_integer_output": lambda lib, F: F.jacfwd(lambda a: a.long())(_t(lib, X)),
    "jacfwd_integer_input": lambda lib, F: F.jacfwd(lambda a: a * 2)(lib.tensor([1, 2])),
    "jacrev_integer_input": lambda lib, F: F.jacrev(lambda a: a * 2)(lib.tensor([1, 2])),
    "jacrev_aux_not_pair": lambda lib, F: F.jacrev(lambda a: a * 2, has_aux=True)(_t(lib, X)),
    "jacfwd_aux_not_pair": lambda lib, F: F.jacfwd(lambda a: a * 2, has_aux=True)(_t(lib, X)),
}


def _cube_fn(lib, setup=True, vmap_rule=True):
    """A custom Function with forward (jvp) and reverse (backward) formulas; in the
    ``setup_context`` style that transforms need (or the old style, which they refuse)."""

    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 3 * a * a * g

    def jvp(ctx, t):
        (a,) = ctx.saved_tensors
        return 3 * a * a * t

    if not setup:

        def forward(ctx, a):
            ctx.save_for_forward(a)
            ctx.save_for_backward(a)
            return a * a * a

        body = {"forward": staticmethod(forward)}
    else:

        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(inputs[0])
            ctx.save_for_backward(inputs[0])

        body = {
            "forward": staticmethod(lambda a: a * a * a),
            "setup_context": staticmethod(setup_context),
        }
    body.update(
        backward=staticmethod(backward), jvp=staticmethod(jvp), generate_vmap_rule=vmap_rule
    )
    return type("Cube", (lib.autograd.Function,), body)


def _captured(lib, F):
    """A tensor of the caller's graph captured by the function: the gradient stays
    differentiable with respect to it."""
    w = _t(lib, Y, requires_grad=True)
    g = F.grad(lambda a: (a * w).sin()[0])(_t(lib, X))
    (gw,) = lib.autograd.grad(g[0], w)
    return g, gw


def _no_grad(lib, fn):
    with lib.no_grad():
        return fn()


def _dual_in(lib, fn):
    """``fn`` applied to a dual tensor in a level: the result and its tangent (a reverse
    transform inside forward mode)."""
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        out = fn(fwAD.make_dual(_t(lib, X), _t(lib, V)))
        leaves = out if isinstance(out, tuple) else (out,)
        return out, [fwAD.unpack_dual(o).tangent for o in leaves]


def _in_level(lib, fn):
    with lib.autograd.forward_ad.dual_level():
        return fn()


def _vjp(lib, F, fn, *primals, cts=None):
    out, vjp_fn = F.vjp(fn, *primals)
    if cts is None:
        return out, vjp_fn(_t(lib, V))
    leaves = {"p": _t(lib, V), "q": [_t(lib, V * 3)]}
    return out, vjp_fn(leaves)


def _twice(lib, F):
    out, vjp_fn = F.vjp(lambda a: a.exp() * a, _t(lib, X))
    return vjp_fn(_t(lib, V)), vjp_fn(_t(lib, V * 2))


def _jvp_rg(lib, F):
    x = _t(lib, X, requires_grad=True)
    out, t = F.jvp(lambda a: a * a, (x,), (_t(lib, V),))
    (g,) = lib.autograd.grad(t[0], x)
    return out, t, g


def _scenario(lib, name):
    return _run(lambda: CASES[name](lib, lib.func))


@pytest.mark.parametrize("name", list(CASES))
def test_func(name):
    assert_parity(_scenario, name, rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------------------ exact values
def _hand(lib):
    """The results checked against hand-derived derivatives of f(a) = sin(a) * a."""
    F = lib.func
    x = _t(lib, X)
    d1 = np.cos(X) * X + np.sin(X)
    d2 = -np.sin(X) * X + 2 * np.cos(X)
    return {
        "jacrev": to_numpy(F.jacrev(lambda a: a.sin() * a)(x)) - np.diag(d1),
        "jacfwd": to_numpy(F.jacfwd(lambda a: a.sin() * a)(x)) - np.diag(d1),
        "hessian": to_numpy(F.hessian(lambda a: a.sin() * a)(x))
        - np.einsum("ij,jk->ijk", np.eye(3), np.diag(d2)),
        "jvp": to_numpy(F.jvp(lambda a: a.sin() * a, (x,), (_t(lib, V),))[1]) - d1 * V,
    }


def test_against_hand_derivatives():
    import minigrad

    for key, diff in _hand(minigrad).items():
        np.testing.assert_allclose(diff, 0, atol=1e-12, err_msg=key)


# ------------------------------------------------------------------------------ functional_call
def _module_call(lib):
    lib.manual_seed(0)
    lin = lib.nn.Linear(3, 2).double()
    with lib.no_grad():
        lin.weight.copy_(_t(lib, M[::-1].copy()))
        lin.bias.copy_(_t(lib, np.array([0.5, 0.25])))
    x = _t(lib, M)
    w = _t(lib, np.arange(6.0).reshape(2, 3))
    b = _t(lib, np.array([1.0, -1.0]))
    out = {
        "both": lib.func.functional_call(lin, {"weight": w, "bias": b}, (x,)),
        "one_arg": lib.func.functional_call(lin, {"weight": w}, x),
        "dicts": lib.func.functional_call(lin, ({"weight": w}, {"bias": b}), args=(x,)),
        "restored": [lin.weight is lin._parameters["weight"], type(lin.weight).__name__],
    }
    out["strict"] = _run(lambda: lib.func.functional_call(lin, {"weight": w}, (x,), strict=True))
    out["duplicate"] = _run(
        lambda: lib.func.functional_call(lin, ({"weight": w}, {"weight": w}), (x,))
    )
    # gradient through the given parameters (the usual functional training step)
    wr = w.clone().requires_grad_()
    (gw,) = lib.autograd.grad(lib.func.functional_call(lin, {"weight": wr}, (x,))[1, 0], wr)
    out["grad"] = gw
    out["func_grad"] = lib.func.grad(lambda p: lib.func.functional_call(lin, p, (x,))[0, 1])(
        {"weight": w, "bias": b}
    )
    return _data(out)


def test_functional_call():
    assert_parity(_module_call, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------ autograd.functional
def _fm(lib, fn, inputs, **kw):
    AF = lib.autograd.functional
    return AF.jacobian(fn, inputs, strategy="forward-mode", vectorize=True, **kw)


FUNCTIONAL = {
    "jacobian_forward": lambda lib: _fm(lib, lambda a: a.sin() * a, _t(lib, X)),
    "jacobian_forward_2d": lambda lib: _fm(lib, lambda m: m.exp() * m, _t(lib, M)),
    "jacobian_forward_tuples": lambda lib: _fm(
        lib, lambda a, b: (a * b, a.exp()), (_t(lib, X), _t(lib, Y))
    ),
    "jacobian_forward_independent": lambda lib: _fm(lib, lambda a: _t(lib, X) * 2, _t(lib, Y)),
    "jacobian_forward_view_output": lambda lib: _fm(lib, lambda a: (a * 2)[0], _t(lib, Y)),
    "jacobian_forward_requires_grad": lambda lib: _fm(
        lib, lambda a: a.sin(), _t(lib, X, requires_grad=True)
    ),
    "jacobian_forward_float32": lambda lib: _fm(
        lib, lambda a: a.sin() * a, lib.tensor(X, dtype=lib.float32)
    ),
    "jacobian_forward_not_vectorized": lambda lib: lib.autograd.functional.jacobian(
        lambda a: a.sin(), _t(lib, X), strategy="forward-mode"
    ),
    "jacobian_forward_create_graph": lambda lib: _fm(
        lib, lambda a: a.sin(), _t(lib, X), create_graph=True
    ),
    "jacobian_forward_strict": lambda lib: _fm(lib, lambda a: a.sin(), _t(lib, X), strict=True),
    "jacobian_forward_float_output": lambda lib: _fm(lib, lambda a: 3.0, _t(lib, X)),
    "jacobian_forward_in_dual_level": lambda lib: _in_level(
        lib, lambda: _fm(lib, lambda a: a.sin(), _t(lib, X))
    ),
    "jacobian_reverse_vectorized": lambda lib: lib.autograd.functional.jacobian(
        lambda a, b: (a * b, a.exp()), (_t(lib, X), _t(lib, Y)), vectorize=True
    ),
    "hessian_forward_over_reverse": lambda lib: lib.autograd.functional.hessian(
        lambda a: (a.sin() * a)[1] + (a * a)[0],
        _t(lib, X),
        vectorize=True,
        outer_jacobian_strategy="forward-mode",
    ),
    "hessian_forward_over_reverse_tuple": lambda lib: lib.autograd.functional.hessian(
        lambda a, b: (a.sin() * b.exp())[2],
        (_t(lib, X), _t(lib, Y)),
        vectorize=True,
        outer_jacobian_strategy="forward-mode",
    ),
    "hessian_forward_over_reverse_sum": lambda lib: lib.autograd.functional.hessian(
        lambda a: (a.sin() * a).sum(),
        _t(lib, M),
        vectorize=True,
        outer_jacobian_strategy="forward-mode",
    ),
    "jacobian_forward_sum_mm": lambda lib: _fm(lib, lambda m: (m @ m.t()).sum(1), _t(lib, M)),
    "hessian_forward_not_vectorized": lambda lib: lib.autograd.functional.hessian(
        lambda a: (a.sin() * a)[1], _t(lib, X), outer_jacobian_strategy="forward-mode"
    ),
    "hessian_forward_create_graph": lambda lib: lib.autograd.functional.hessian(
        lambda a: (a.sin() * a)[1],
        _t(lib, X),
        vectorize=True,
        create_graph=True,
        outer_jacobian_strategy="forward-mode",
    ),
}


@pytest.mark.parametrize("name", list(FUNCTIONAL))
def test_autograd_functional_forward_mode(name):
    assert_parity(lambda lib: _run(lambda: FUNCTIONAL[name](lib)), rtol=1e-9, atol=1e-12)
