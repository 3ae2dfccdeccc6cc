"""Parity: the second part of the issue-18 audit against PyTorch's own tests — the functional
API (``test/autograd/test_functional.py``), gradient edges, multi-grad hooks and
``allow_mutation_on_saved_tensors`` (``test/test_autograd.py``) — minigrad vs PyTorch.

Our own scenarios of the behaviours those tests check (read, not copied): the argument errors
and ``strict=True`` errors of every function of ``torch.autograd.functional``, what a result
looks like (shapes, dtypes, whether it has history) with tuple inputs and outputs, under
``no_grad`` and with ``create_graph``; a two-step backward through a ``GradientEdge`` with its
shape/dtype errors; the calls a multi-grad hook sees in both modes; the copies
``allow_mutation_on_saved_tensors`` makes and drops. ``test_allow_mutation_out_variant``
failed on minigrad before its fix (an ``out=`` write was not seen, so backward used the
overwritten value).
"""

import gc

import numpy as np
import pytest

from minigrad.parity import assert_parity, to_numpy
from tests.parity.test_tensor_meta import err, mk

V4 = np.array([0.3, -0.7, 1.2, 0.5], dtype=np.float32)
V5 = np.array([0.9, 0.1, -0.4, 0.6, 0.2], dtype=np.float32)
M44 = np.linspace(-1.0, 1.0, 16, dtype=np.float32).reshape(4, 4)
M22 = np.array([[0.2, 0.4], [0.6, 0.8]], dtype=np.float64)


def desc(x):
    """A result of the functional API as plain data: per tensor its values, dtype and whether
    it has a grad_fn; tuples kept nested."""
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, [desc(e) for e in x])
    return (to_numpy(x), str(x.dtype).split(".")[-1], x.grad_fn is not None)


def caught(fn, *phrases):
    """``desc(fn())``, or the error's type and phrase flags."""
    try:
        return desc(fn())
    except Exception:  # noqa: BLE001
        return err(fn, *phrases)


# ----------------------------------------------------------------------------- functional API
def _narrow3(a):
    return 3 * a.narrow(0, 0, 3)


def _narrow3_and_str(a):
    return 3 * a.narrow(0, 0, 3), "bar"


def _detached(a):
    return a.detach()


def _disconnected(a):
    # requires grad, but has no path back to the input
    return a.long().float().requires_grad_().clone()


@pytest.mark.parametrize("api", ["vjp", "jvp"])
def test_functional_vjp_jvp_argument_and_strict_errors(device, api):
    """Inputs that are not tensors, an output that is not a tensor, v missing for a non-scalar,
    v of the wrong count or size; ``strict=True``: an output without grad, an output
    independent of the input, a jacobian independent of the input under ``create_graph``;
    with ``strict=False`` the same calls give zeros (or v itself for a clone)."""
    def scenario(lib, device):
        F = getattr(lib.autograd.functional, api)
        inp, v = mk(lib, device, V4), mk(lib, device, V4)
        v3 = v.narrow(0, 0, 3) if api == "vjp" else v
        out = {
            "inp": caught(lambda: F(_narrow3, (inp, 2), v3), f"inputs given to {api} must"),
            "outp": caught(lambda: F(_narrow3_and_str, inp, v3), f"given to {api} must"),
            "v_none": caught(lambda: F(_narrow3, inp), "The vector v can only be None"),
            "v_two": caught(lambda: F(_narrow3, inp, (v, v)), "should contain a single Tensor"),
            "v_size": caught(lambda: F(_narrow3, inp, v[:2]), "v has invalid size"),
            "ok": caught(lambda: F(_narrow3, inp, v3)),
        }
        for name, fn in (("detached", _detached), ("disconnected", _disconnected)):
            out[name] = caught(lambda fn=fn: F(fn, inp, v, strict=True),
                               "does not require gradients", "is independent of input 0")
            out[name + "_lax"] = caught(lambda fn=fn: F(fn, inp, v))
        leaf = mk(lib, device, V4, True)
        out["linear"] = caught(lambda: F(lambda a: a.clone(), leaf, v, create_graph=True,
                                         strict=True), "jacobian of the user-provided function")
        out["linear_lax"] = caught(lambda: F(lambda a: a.clone(), leaf, v, create_graph=True))
        return out

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("api", ["vjp", "jvp"])
def test_functional_vjp_jvp_outputs(device, api):
    """Tuple inputs and outputs (a list of inputs is refused), scalar outputs with and without
    v, a 0-d input, ``no_grad`` around the call (no history, unless ``create_graph``), and
    ``create_graph`` results that can be differentiated again (their gradients compared)."""
    def scenario(lib, device):
        F = getattr(lib.autograd.functional, api)
        x2, y2 = mk(lib, device, V4[:2]), mk(lib, device, V5[:2])
        e = mk(lib, device, np.array([1.0, 0.0], dtype=np.float32))
        m = mk(lib, device, M44)
        out = {
            "tuple": desc(F(lambda x, y: (2 * x + 3 * y, x + y), (x2, y2), (e, e))),
            "list_in": caught(lambda: F(lambda x, y: 2 * x + 3 * y, [x2, y2],
                                        e if api == "vjp" else (e, e)), "has type <class 'list'>"),
            "scalar": caught(lambda: F(lambda x: x.sum(), m, None if api == "vjp" else m)),
            "zero_d": caught(lambda: F(lambda x: x.unsqueeze(0).repeat(4),
                                       mk(lib, device, np.float32(0.7)))),
        }
        ones = mk(lib, device, np.ones(4 if api == "vjp" else (4, 4), dtype=np.float32))
        with lib.no_grad():
            out["no_grad"] = desc(F(lambda x: x.sum(dim=1), m, ones))
            out["no_grad_cg"] = desc(F(lambda x: x.sum(dim=1), m.detach().requires_grad_(),
                                       ones.detach().requires_grad_(), create_graph=True))
        x = mk(lib, device, M22[0], True)
        y = mk(lib, device, M22[1], True)
        v = (mk(lib, device, np.array([1.0, 0.0]), True),
             mk(lib, device, np.array([0.5, 2.0]), True))
        val, grad = F(lambda a, b: (2 * a + 3 * b, a * b), (x.cos(), y), v, create_graph=True)
        total = (val[0].exp() + val[1].exp() + grad[0].exp() + grad[1].exp()).sum()
        out["second_order"] = desc(lib.autograd.grad(total, (x, y) + v))
        return out

    assert_parity(scenario, device=device)


def test_functional_jacobian(device):
    """``jacobian``: its argument errors, the strict errors (and zeros without strict), strict
    with vectorize refused, tuple inputs/outputs, ``no_grad`` with and without
    ``create_graph``, a scalar output and a 0-d input, a bad ``strategy``, forward-mode without
    vectorize, and the gradient of a ``create_graph`` Jacobian."""
    def scenario(lib, device):
        J = lib.autograd.functional.jacobian
        inp = mk(lib, device, V4)
        m = mk(lib, device, M44)
        out = {
            "inp": caught(lambda: J(_narrow3, (inp, 2)), "inputs given to jacobian must"),
            "outp": caught(lambda: J(_narrow3_and_str, inp), "given to jacobian must"),
            "ok": caught(lambda: J(_narrow3, inp)),
            "tuple": caught(lambda: J(lambda a, b: (b, 3 * a.narrow(0, 0, 3)),
                                      (inp, mk(lib, device, V5)))),
            "strict_vec": caught(lambda: J(lambda x: x, inp, strict=True, vectorize=True),
                                 "not supported together"),
            "identity": caught(lambda: J(lambda x: x.clone(), inp)),
            "tuple_in": caught(lambda: J(lambda x, y: (x + y.exp()).sum(dim=1), (m, m * 2))),
            "scalar": caught(lambda: J(lambda x: x.sum(), m)),
            "zero_d": caught(lambda: J(lambda x: x.unsqueeze(0).repeat(4),
                                       mk(lib, device, np.float32(0.7)))),
            "strategy": caught(lambda: J(lambda x: x.clone(), inp, strategy="foo"),
                               "Expected strategy to be either"),
            "forward_novec": caught(lambda: J(lambda x: x.clone(), inp, strategy="forward-mode"),
                                    "vectorized=True"),
        }
        for name, fn in (("detached", _detached), ("disconnected", _disconnected)):
            out[name] = caught(lambda fn=fn: J(fn, inp, strict=True),
                               "does not require gradients", "is independent of input 0")
            out[name + "_lax"] = caught(lambda fn=fn: J(fn, inp))
        leaf = mk(lib, device, V4, True)
        out["linear"] = caught(lambda: J(lambda a: a.clone(), leaf, create_graph=True,
                                         strict=True), "jacobian of the user-provided function")
        out["linear_lax"] = caught(lambda: J(lambda a: a.clone(), leaf, create_graph=True))
        with lib.no_grad():
            out["no_grad"] = desc(J(lambda x: x.exp().sum(dim=1), m))
            out["no_grad_cg"] = desc(J(lambda x: x.exp().sum(dim=1), m, create_graph=True))
        x = mk(lib, device, M22, True)
        y = mk(lib, device, M22[::-1].copy(), True)
        jac = J(lambda a, b: (a + b).exp().sum(dim=1), (x.cos(), y), create_graph=True)
        out["second_order"] = desc(lib.autograd.grad((jac[0].cos().sum() + jac[1].sum()),
                                                     (x, y)))
        return out

    assert_parity(scenario, device=device)


def _exp3(a):
    return 3 * a.narrow(0, 0, 3).exp().sum()


@pytest.mark.parametrize("api", ["hessian", "vhp", "hvp"])
def test_functional_hessian_vhp_hvp(device, api):
    """``hessian``/``vhp``/``hvp``: a non-tensor input or output, a non-scalar output, a tuple
    output, v of the wrong size or type; strict: no grad, disconnected output, a linear
    function (jacobian independent of the input), with vectorize; tuple inputs, 0-d input
    with v omitted, a one-element (1, 1, 1) output, ``no_grad``, and second-order gradients of
    a ``create_graph`` result."""
    def scenario(lib, device):
        F = getattr(lib.autograd.functional, api)
        inp = mk(lib, device, V4)
        vs = () if api == "hessian" else (mk(lib, device, V4[::-1].copy()),)

        def call(fn, x, *more, **kw):
            return F(fn, x, *(more if api != "hessian" else ()), **kw)

        out = {
            "inp": caught(lambda: F(_exp3, (inp, 2), *vs), f"inputs given to {api} must"),
            "outp": caught(lambda: F(_narrow3_and_str, inp, *vs), f"given to {api} must"),
            "non_scalar": caught(lambda: F(_narrow3, inp, *vs), "should contain a single element"),
            "tuple_out": caught(lambda: F(lambda a: (_exp3(a), _exp3(a)), inp, *vs),
                                "should return a single Tensor"),
            "ok": caught(lambda: F(_exp3, inp, *vs)),
            "two": caught(lambda: call(lambda a, b: (3 * b.narrow(0, 0, 3) * a.narrow(0, 0, 3))
                                       .sum(), (inp, mk(lib, device, V5)),
                                       (inp, mk(lib, device, V5)))),
            "strict_vec": caught(lambda: F(lambda x: (x ** 3).sum(), inp, *vs, strict=True,
                                           vectorize=True), "not supported together"),
            "zero_d_no_v": caught(lambda: F(lambda x: x.exp().sum(),
                                            mk(lib, device, np.float32(0.7)))),
            "one_element": caught(lambda: call(lambda x: x.exp().sum().view(1, 1, 1),
                                               mk(lib, device, M44), mk(lib, device, M44))),
        }
        if api != "hessian":
            out["v_size"] = caught(lambda: F(_exp3, inp, mk(lib, device, V5)), "v has invalid size")
            out["v_type"] = caught(lambda: F(_exp3, inp, (inp, 2)), f"The v given to {api} must")
        for name, fn in (("detached", lambda a: a.detach().sum()),
                         ("disconnected", lambda a: _disconnected(a).sum()),
                         ("linear", lambda a: (3 * a).sum())):
            out[name] = caught(lambda fn=fn: F(fn, inp, *vs, strict=True),
                               "does not require gradients", "is independent of input 0",
                               "with respect to input 0 is")
            out[name + "_lax"] = caught(lambda fn=fn: F(fn, inp, *vs))
        sq = mk(lib, device, M22.astype(np.float32))
        with lib.no_grad():
            out["no_grad"] = desc(call(lambda x: x.pow(3).sum(), sq, sq))
            out["no_grad_cg"] = desc(call(lambda x: x.pow(3).sum(), sq, sq, create_graph=True))
        x = mk(lib, device, M22, True)
        y = mk(lib, device, M22 + 1, True)
        v = (mk(lib, device, np.ones((2, 2)), True), mk(lib, device, M22 * 2, True))
        res = call(lambda a, b: (a + b).pow(3).sum(), (x.cos(), y), v, create_graph=True)
        flat = [t for part in res for t in (part if isinstance(part, tuple) else (part,))]
        total = sum(t.cos().sum() for t in flat)
        wrt = (x, y) + (v if api != "hessian" else ())
        out["second_order"] = desc(lib.autograd.grad(total, wrt, allow_unused=True,
                                                     materialize_grads=True))
        return out

    assert_parity(scenario, device=device)


def test_functional_results_agree_with_each_other(device):
    """jvp = J v and vjp = v J; hvp = H v and vhp = v H, each API against PyTorch."""
    def scenario(lib, device):
        F = lib.autograd.functional
        inp, v = mk(lib, device, V4), mk(lib, device, V4[::-1].copy())

        def cube(x):
            return x ** 3 + x.sum()

        jac = F.jacobian(cube, inp)
        hes = F.hessian(_exp3, inp)
        return {"jvp": (to_numpy(F.jvp(cube, inp, v)[1]), to_numpy(jac @ v)),
                "vjp": (to_numpy(F.vjp(cube, inp, v)[1]), to_numpy(v @ jac)),
                "hvp": (to_numpy(F.hvp(_exp3, inp, v)[1]), to_numpy(hes @ v)),
                "vhp": (to_numpy(F.vhp(_exp3, inp, v)[1]), to_numpy(v @ hes))}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- gradient edges
def test_gradient_edge_as_output(device):
    """A ``GradientEdge`` as the output of ``autograd.grad``/``backward``: two-step backward
    equals one step; implicit grad only for a scalar; wrong shape / dtype of grad_outputs;
    a tuple of edges and edges mixed with tensors; an edge still usable after its tensor is
    gone (C++ and Python nodes)."""
    def scenario(lib, device):
        G = lib.autograd.graph
        x = mk(lib, device, np.array([1.0, 2.0], dtype=np.float32), True)

        def fn(reduce=True):
            tmp = x.sin().cos()
            if reduce:
                tmp = tmp.sum()
            return tmp.exp().clone().sin().sum(), G.get_gradient_edge(tmp)

        out, edge = fn()
        (tmp_grad,) = lib.autograd.grad(out, (edge,))
        (x_grad,) = lib.autograd.grad(edge, (x,), grad_outputs=(tmp_grad,))
        res = {"two_step": (to_numpy(tmp_grad), to_numpy(x_grad)),
               "one_step": to_numpy(lib.autograd.grad(fn()[0], (x,))[0]),
               "implicit": err(lambda: lib.autograd.grad(fn(False)[1], (x,)),
                               "grad can be implicitly created only for scalar output"),
               "implicit_scalar": to_numpy(lib.autograd.grad(fn()[1], (x,))[0]),
               "shape": err(lambda: lib.autograd.grad(
                   fn()[1], (x,), grad_outputs=mk(lib, device, V4)), "Mismatch in shape"),
               "dtype": err(lambda: lib.autograd.grad(
                   fn()[1], (x,), grad_outputs=mk(lib, device, np.float64(1.0))),
                   "required to have the same dtype"),
               "backward_shape": err(lambda: lib.autograd.backward(
                   fn()[1], inputs=(x,), grad_tensors=mk(lib, device, V4)), "Mismatch in shape")}
        out, edge = fn()
        lib.autograd.backward(edge, retain_graph=True)
        res["backward"] = to_numpy(x.grad)
        x.grad = None
        lib.autograd.backward((edge,), retain_graph=True)
        res["backward_tuple"] = to_numpy(x.grad)
        (_, e1), (o2, _) = fn(), fn()
        res["mixed_grad"] = to_numpy(lib.autograd.grad((e1, o2), (x,), retain_graph=True)[0])
        x.grad = None
        lib.autograd.backward((e1, o2))
        res["mixed_backward"] = to_numpy(x.grad)

        class Clone(lib.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t.clone()

            @staticmethod
            def backward(ctx, g):
                return g.clone()

        leaf = mk(lib, device, np.array([0.25], dtype=np.float32), True)
        inner = leaf.clone()
        for make in (lambda: inner.clone(), lambda: Clone.apply(inner)):
            t = make()
            edge = G.get_gradient_edge(t)
            lib.autograd.backward(edge)
            del t
            lib.autograd.backward(edge)
        res["owned"] = to_numpy(leaf.grad)
        return res

    assert_parity(scenario, device=device)


def test_gradient_edge_fields_and_inputs(device):
    """``get_gradient_edge``: its node (AccumulateGrad for a leaf) and output_nr, a tuple of
    two, the error for a tensor without grad; an edge of one of several outputs, a
    hand-made ``GradientEdge`` as an input, ``materialize_grads`` with an edge, an unused
    edge (error, or None with allow_unused)."""
    def scenario(lib, device):
        G = lib.autograd.graph
        x = mk(lib, device, np.array([1.0, 2.0], dtype=np.float32), True)
        y = x * 2
        e, el = G.get_gradient_edge(y), G.get_gradient_edge(x)
        a, b = x.unbind()
        eb = G.get_gradient_edge(b)
        h = x * 2
        other = mk(lib, device, np.array([1.0, 2.0], dtype=np.float32), True) * 2
        return {"fields": (type(e).__name__, type(e.node).__name__, e.output_nr,
                           type(el.node).__name__, el.node is y.grad_fn.next_functions[0][0],
                           isinstance(e, tuple), len(e)),
                "no_grad": err(lambda: G.get_gradient_edge(mk(lib, device, V4))),
                "multi": (eb.output_nr, type(eb.node).__name__,
                          to_numpy(lib.autograd.grad(a * 2 + b * 3, eb)[0])),
                "made": to_numpy(lib.autograd.grad(h.sin().sum(), [G.GradientEdge(
                    h.grad_fn, h.output_nr)], retain_graph=True)[0]),
                "materialize": err(lambda: lib.autograd.grad(
                    h.sin().sum(), [G.get_gradient_edge(h)], materialize_grads=True)),
                "unused": err(lambda: lib.autograd.grad((x * 3).sum(),
                                                        [G.get_gradient_edge(other)])),
                "unused_ok": lib.autograd.grad((x * 3).sum(), [G.get_gradient_edge(other)],
                                               allow_unused=True)}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- multi-grad hooks
def _four(lib, device):
    a = mk(lib, device, np.array([1.0, 2.0], dtype=np.float32), True)
    b = mk(lib, device, np.array([3.0, 4.0], dtype=np.float32), True)
    return a, b, a * b, a * b


def test_multi_grad_hook_all(device):
    """mode="all": one call per backward with a slot per tensor (None where not computed or
    not needed for ``inputs=``), via ``backward`` and ``grad``; the handle removes it; a list
    works (``autograd.grad`` with a leaf among the tensors is refused, as in PyTorch); the
    hook's return value is ignored; it runs after the tensor hooks it waits for;
    several outputs of one node; a repeated tensor; an error raised in it propagates;
    ``create_graph`` grads; a tensor without grad and a bad mode are refused."""
    def scenario(lib, device):
        G = lib.autograd.graph
        log = []

        def record(grads):
            log.append([None if g is None else to_numpy(g) for g in grads])
            return grads  # ignored

        a, b, c, d = _four(lib, device)
        G.register_multi_grad_hook((a, b, c, d), record)
        c.sum().backward(retain_graph=True)
        c.sum().backward(inputs=(a,), retain_graph=True)
        leaf_in_grad = err(lambda: lib.autograd.grad(c.sum(), (b,), retain_graph=True),
                           "A leaf node was passed to _will_engine_execute_node")
        (c + d).sum().backward(retain_graph=True)
        res = {"grads": (to_numpy(a.grad), to_numpy(b.grad)), "leaf_in_grad": leaf_in_grad}
        a, b, c, d = _four(lib, device)
        handle = G.register_multi_grad_hook([a, b], record)
        c.sum().backward(retain_graph=True)
        handle.remove()
        c.sum().backward()
        res["handle"] = type(handle).__name__
        x = mk(lib, device, np.array([1.0, 2.0, 3.0], dtype=np.float32), True)
        p, q, r = x.unbind()
        G.register_multi_grad_hook((p, q, r), record)
        (p * 2 + r * 3).backward()
        a, b, c, d = _four(lib, device)
        G.register_multi_grad_hook((c, c, a), record)
        c.sum().backward()
        order = []
        a, b, c, d = _four(lib, device)
        c.register_hook(lambda g: order.append("c"))
        G.register_multi_grad_hook((c, a), lambda gs: order.append("multi"))
        a.register_hook(lambda g: order.append("a"))
        (c * 2).sum().backward()
        a, b, c, d = _four(lib, device)
        e = c * 3
        G.register_multi_grad_hook((c, e), lambda gs: order.append([g.requires_grad
                                                                    for g in gs]))
        lib.autograd.grad((e ** 2).sum(), (c,), create_graph=True)

        def boom(grads):
            raise ValueError("boom from the hook")

        a, b, c, d = _four(lib, device)
        G.register_multi_grad_hook((a, b), boom)
        res.update(log=log, order=order,
                   raised=err(lambda: c.sum().backward(), "boom from the hook"),
                   no_grad=err(lambda: G.register_multi_grad_hook((a, mk(lib, device, V4)),
                                                                  record)),
                   mode=err(lambda: G.register_multi_grad_hook((a, b), record, mode="foo")))
        return res

    assert_parity(scenario, device=device)


def test_multi_grad_hook_any(device):
    """mode="any": called once per backward with the first gradient computed (a tensor, not a
    list), through ``backward``, ``backward(inputs=)`` and ``grad``; its return value does not
    change any gradient; a repeated tensor still gives one call."""
    def scenario(lib, device):
        G = lib.autograd.graph
        log = []
        a, b, c, d = _four(lib, device)
        G.register_multi_grad_hook((a, b, c, d), lambda g: log.append(
            (type(g).__name__, to_numpy(g))), mode="any")
        c.sum().backward(retain_graph=True)
        d.sum().backward(inputs=(b,), retain_graph=True)
        lib.autograd.grad((c * 5).sum(), (a,), retain_graph=True)
        grads = (to_numpy(a.grad), to_numpy(b.grad))
        a, b, c, d = _four(lib, device)
        G.register_multi_grad_hook((a, b), lambda g: g * 100, mode="any")
        c.sum().backward()
        a2, b2, c2, d2 = _four(lib, device)
        G.register_multi_grad_hook((c2, c2), lambda g: log.append(to_numpy(g)), mode="any")
        c2.sum().backward()
        return {"log": log, "grads": grads, "unchanged": (to_numpy(a.grad), to_numpy(b.grad))}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- mutation on saved
A23 = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], dtype=np.float32)


def _ncloned(ctx):
    return len(list(ctx.cloned.items()))


def test_allow_mutation_basic_views_and_double_backward(device):
    """In-place on a saved tensor (or on a view of it, or a saved view's base): refused
    without the block, gradients of the unmodified values inside it, nothing left cloned;
    double backward inside the block."""
    def scenario(lib, device):
        AM = lib.autograd.graph.allow_mutation_on_saved_tensors

        def direct(a):
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            out.backward()
            return to_numpy(a.grad)

        def through_view(a):
            b = a.clone()
            out = (b ** 2).sum()
            b.view_as(b).sin_()
            out.backward()
            return to_numpy(a.grad)

        res = {}
        for name, fn in (("direct", direct), ("view", through_view)):
            res[name + "_outside"] = err(lambda fn=fn: fn(mk(lib, device, A23, True)),
                                         "modified by an inplace operation")
            with AM() as ctx:
                res[name] = (fn(mk(lib, device, A23, True)), _ncloned(ctx), type(ctx).__name__)
        with AM() as ctx:
            a = mk(lib, device, A23, True)
            b = a.clone()
            out = b ** 2
            b[:1].mul_(10)
            out.sum().backward()
            res["base_saved"] = (to_numpy(a.grad), _ncloned(ctx))
            a2 = mk(lib, device, A23, True)
            b2 = a2.clone()
            out2 = (b2[:] ** 2).sum()
            b2 *= 2
            out2.backward()
            res["view_saved"] = to_numpy(a2.grad)
            a3 = mk(lib, device, A23, True)
            b3 = a3.clone()
            out3 = (b3 ** 2).sum()
            b3.sin_()
            (da,) = lib.autograd.grad(out3, a3, create_graph=True)
            (d2a,) = lib.autograd.grad(da.sum(), a3)
            res["double"] = (to_numpy(da), to_numpy(d2a), _ncloned(ctx))
        return res

    assert_parity(scenario, device=device)


def test_allow_mutation_clone_bookkeeping(device):
    """How many copies the block holds: none when the saved tensor was freed by a backward
    before the write; one per (tensor, version) saved, dropped when the graphs holding it
    go; the map of saved tensors has one entry after one save."""
    def scenario(lib, device):
        AM = lib.autograd.graph.allow_mutation_on_saved_tensors
        counts = []
        with AM() as ctx:
            a = mk(lib, device, A23, True).clone()
            out = (a ** 2).sum()
            counts += [len(list(ctx.tid_to_weakhandle.items())), _ncloned(ctx)]
            out.backward()
            a.sin_()
            counts.append(_ncloned(ctx))
            out = (a ** 2).sum()
            a.sin_()
            counts.append(_ncloned(ctx))
            del out
            gc.collect()
            counts.append(_ncloned(ctx))
            b, c = a ** 2, a ** 2
            a.sin_()
            counts.append(_ncloned(ctx))
            del b, c
            gc.collect()
            counts.append(_ncloned(ctx))
            b = a ** 2
            a.sin_()
            c = a ** 2
            a.sin_()
            counts.append(_ncloned(ctx))
            del b
            gc.collect()
            counts.append(_ncloned(ctx))
            del c
            gc.collect()
            counts.append(_ncloned(ctx))
        return counts

    assert_parity(scenario, device=device)


def test_allow_mutation_out_variant(device):
    """A saved tensor overwritten through ``out=`` (``sin(c, out=b)``) is copied first, so
    backward sees the value it saved (minigrad used the new one). (Two-tensor ``out=``, as of
    ``max(..., dim, out=)``, raises a KeyError inside PyTorch's mode: not compared.)"""
    def scenario(lib, device):
        AM = lib.autograd.graph.allow_mutation_on_saved_tensors
        with AM() as ctx:
            a = mk(lib, device, np.array([1.5], dtype=np.float32), True)
            b = mk(lib, device, np.array([1.0], dtype=np.float32))
            out = a * b
            counts = [len(list(ctx.tid_to_weakhandle.items()))]
            lib.sin(mk(lib, device, np.array([2.0], dtype=np.float32)), out=b)
            counts.append(_ncloned(ctx))
            out.backward()
            counts.append(_ncloned(ctx))
        return {"counts": counts, "grad": to_numpy(a.grad), "b": to_numpy(b)}

    assert_parity(scenario, device=device)


def test_allow_mutation_errors(device):
    """Backward of a graph recorded in a block, run after it (or in another block):
    AssertionError; nesting: RuntimeError, and a later block works."""
    def scenario(lib, device):
        AM = lib.autograd.graph.allow_mutation_on_saved_tensors
        with AM():
            out = (mk(lib, device, A23, True) ** 2).sum()
        after = err(out.backward, "Trying to backward outside of the "
                                  "'allow_mutation_on_saved_tensors' context")
        with AM():
            out = (mk(lib, device, A23, True) ** 2).sum()
        with AM():
            other = err(out.backward, "Trying to backward outside of the "
                                      "'allow_mutation_on_saved_tensors' context")

        def nest():
            with AM(), AM():
                pass

        nested = err(nest, "allow_mutation_on_saved_tensors contexts cannot be nested")
        with AM():
            a = mk(lib, device, A23, True)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            out.backward()
        return {"after": after, "other": other, "nested": nested, "later": to_numpy(a.grad)}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- increment_version
def test_increment_version_arguments(device):
    """``increment_version``: a tensor (float with grad, or int), a list or generator of
    tensors, an inference tensor (skipped, no error) inside and outside inference mode; a
    bump makes backward through a node that saved the tensor fail; RuntimeError for a
    non-iterable or a non-tensor element (tensors before it already bumped)."""
    def scenario(lib, device):
        inc = lib.autograd.graph.increment_version
        a = mk(lib, device, V4, True)
        i = mk(lib, device, np.array([1, 2]))
        inc(a)
        inc(i)
        inc([a, i])
        inc(t for t in (a,))
        with lib.inference_mode():
            inf = lib.ones(2)
            inc(inf)
        inc(inf)
        b = mk(lib, device, V4, True).clone()
        z = (b * b).sum()
        inc(b)
        first = mk(lib, device, V4)
        return {"versions": (a._version, i._version),
                "saved": err(z.backward, "modified by an inplace operation"),
                "int": err(lambda: inc(3)), "none": err(lambda: inc(None)),
                "str": err(lambda: inc("ab")),
                "mixed": err(lambda: inc([first, 2])), "first_bumped": first._version}

    assert_parity(scenario, device=device)


def test_node_metadata_is_a_plain_read_only_dict(device):
    """``Node.metadata``: a plain ``dict`` (minigrad gave a dict subclass), the same object on
    each access, its own per node (AccumulateGrad and a custom Function's node too); assigning
    it raises PyTorch's AttributeError "not writable"."""
    def scenario(lib, device):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = mk(lib, device, V4, True)
        y = x * 2
        y.grad_fn.metadata["note"] = "mine"
        nodes = (y.grad_fn, y.grad_fn.next_functions[0][0], Twice.apply(x).grad_fn)

        def assign():
            y.grad_fn.metadata = {}

        return {"types": [type(n.metadata).__name__ for n in nodes],
                "contents": [dict(n.metadata) for n in nodes],
                "same": y.grad_fn.metadata is y.grad_fn.metadata,
                "assign": err(assign)}

    assert_parity(scenario, device=device)
