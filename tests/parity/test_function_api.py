"""The whole custom-``Function`` API (``torch/autograd/function.py``) — minigrad vs PyTorch.

``setup_context`` style, ``apply`` with keyword arguments (placed at ``forward``'s parameters of
those names, as PyTorch's C++ ``apply``), ``ctx.needs_input_grad`` in ``forward`` /
``setup_context`` / ``backward``, ``saved_tensors`` / ``_raw_saved_tensors`` (and their hooks)
before and after backward, ``clear_saved_tensors_on_access``, ``boxed_grads_call``, the node's
class, name and repr, ``FunctionCtx``, ``InplaceFunction``, ``vjp`` as ``backward``'s alias, the
errors of ``mark_dirty`` / ``mark_non_differentiable`` / ``save_for_backward`` /
``save_for_forward`` and of misuse (``F()``, ``F()(x)``), non-tensor outputs, gradients summed
down to a broadcast input, trailing ``None`` gradients, ``once_differentiable``. The behaviours
are those ``test/test_autograd.py`` checks on these APIs; the tests are our own.
"""

import re
import warnings

import numpy as np

from minigrad.parity import assert_parity, graph_trace, node_name, to_numpy
from tests.parity.test_tensor_meta import err, mk

V = np.array([1.0, -2.0, 3.0], np.float32)


def norm(text: str) -> str:
    """``text`` with the library's name read as minigrad and addresses blanked."""
    return re.sub(r"0x[0-9a-f]+", "0x?", text.replace("torch", "minigrad"))


def warns(fn):
    """(result, [(category, normalised message)]) of ``fn()``."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [(x.category.__name__, norm(str(x.message)).split(" (Triggered internally")[0])
                 for x in w]


# ------------------------------------------------------------------ setup_context style
def test_setup_context_style(device):
    def scenario(lib, device):
        log = []

        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, k, power=2):
                log.append(("forward", lib.is_grad_enabled()))
                return x.pow(power) * k, "tag"

            @staticmethod
            def setup_context(ctx, inputs, output):
                log.append(("setup_context", type(ctx).__name__, len(inputs), inputs[2],
                            type(output).__name__, type(output[0]).__name__,
                            output[0].requires_grad, output[1], ctx.needs_input_grad,
                            lib.is_grad_enabled()))
                x, k, power = inputs
                ctx.save_for_backward(x)
                ctx.k, ctx.power = k, power

            @staticmethod
            def backward(ctx, g, g_tag):
                log.append(("backward", ctx.needs_input_grad, g_tag))
                (x,) = ctx.saved_tensors
                return g * ctx.k * ctx.power * x.pow(ctx.power - 1), None, None

        x = mk(lib, device, V, requires_grad=True)
        y, tag = Scale.apply(x, 3.0)
        out = {"tag": tag, "graph": graph_trace(y), "name": y.grad_fn.name(),
               "value": to_numpy(y)}
        y.sum().backward()
        out["grad"] = to_numpy(x.grad)
        w = mk(lib, device, V * 0.5, requires_grad=True)
        z, _ = Scale.apply(w, mk(lib, device, np.float32(2.0), requires_grad=True), 3)
        out["graph_two"] = graph_trace(z)
        with lib.no_grad():
            out["no_grad"] = Scale.apply(x, 1.0)[0].requires_grad
        out["log"] = log
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ apply(**kwargs)
def test_apply_keyword_arguments(device):
    def scenario(lib, device):
        log = []

        class Kw(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, a=1.0, b=2.0, *rest, s=1.0):
                log.append(("forward", ctx.needs_input_grad, len(rest)))
                return x * a * b * s

            @staticmethod
            def backward(ctx, g):
                log.append(("backward", ctx.needs_input_grad))
                return (g * 2,) + (g.sum(),) * (len(ctx.needs_input_grad) - 1)

        class Star(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, **options):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

        class Setup(lib.autograd.Function):
            @staticmethod
            def forward(x, k=2.0):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                log.append(("setup", len(inputs), ctx.needs_input_grad))

            @staticmethod
            def backward(ctx, g):
                return g, g.sum()

        class SetupKwOnly(Setup):
            @staticmethod
            def forward(x, k=2.0, *, s=1.0):
                return x * k * s

        x = mk(lib, device, V, requires_grad=True)
        t = mk(lib, device, np.float32(3.0), requires_grad=True)
        out = {}
        y = Kw.apply(x, a=t)  # a tensor given by keyword gets an edge
        out["by_keyword"] = (graph_trace(y), to_numpy(y))
        y.sum().backward()
        out["grads"] = (to_numpy(x.grad), to_numpy(t.grad))
        out["x="] = graph_trace(Kw.apply(x=x))
        out["in_order"] = graph_trace(Kw.apply(x, 2.0, b=t))
        out["gap"] = err(lambda: Kw.apply(x, b=t))
        out["twice"] = err(lambda: Kw.apply(x, 3.0, a=t))
        out["ctx="] = err(lambda: Kw.apply(x, ctx=1))
        out["keyword_only"] = err(lambda: Kw.apply(x, s=t))
        out["var_keyword"] = err(lambda: Star.apply(x, z=t))
        z = Setup.apply(x, k=t)
        out["setup_keyword"] = graph_trace(z)
        out["setup_default"] = graph_trace(Setup.apply(x))
        out["setup_keyword_only"] = err(lambda: SetupKwOnly.apply(x))
        out["setup_unknown"] = err(lambda: Setup.apply(x, zz=1), "unexpected keyword")
        out["log"] = log
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ needs_input_grad
def test_needs_input_grad_everywhere(device):
    def scenario(lib, device):
        log = []

        class Plain(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, n, b, i):
                log.append(("Plain.forward", ctx.needs_input_grad))
                return a * b + i

            @staticmethod
            def backward(ctx, g):
                log.append(("Plain.backward", ctx.needs_input_grad))
                return g * 2, None, None if not ctx.needs_input_grad[2] else g, None

        class Setup(lib.autograd.Function):
            @staticmethod
            def forward(a, n, b, i):
                return a * b + i

            @staticmethod
            def setup_context(ctx, inputs, output):
                log.append(("Setup.setup_context", ctx.needs_input_grad))

            @staticmethod
            def backward(ctx, g):
                log.append(("Setup.backward", ctx.needs_input_grad))
                return g, None, g, None

        a = mk(lib, device, V, requires_grad=True)
        b = mk(lib, device, V * 2)
        i = mk(lib, device, np.array([1, 2, 3]))
        for F in (Plain, Setup):
            F.apply(a, 2, b, i).sum().backward()
            F.apply(a * 1, 2, a.detach().requires_grad_(), i).sum().backward()
            with lib.no_grad():
                F.apply(a, 2, b, i)
            F.apply(b, 2, b, i)
        return log, to_numpy(a.grad)

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ saved tensors
def _saver(lib):
    class Saver(lib.autograd.Function):
        """``x * y`` saving ``(x, None, y)``."""

        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, None, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, nothing, y = ctx.saved_tensors
            return g * y, g * x

    return Saver


def test_saved_tensors_and_raw_saved_tensors(device):
    def scenario(lib, device):
        Saver = _saver(lib)
        log = []
        x = mk(lib, device, V, requires_grad=True)
        h = x * 2
        o = Saver.apply(x, h)
        node = o.grad_fn
        raw = node._raw_saved_tensors
        out = {"raw": (type(raw).__name__, [type(r).__name__ for r in raw]),
               "saved": [None if t is None else (t is x, t is h, node_name(t.grad_fn))
                         for t in node.saved_tensors]}
        out["none_hooks"] = err(lambda: raw[1].register_hooks(lambda t: t, lambda t: t))
        raw[0].register_hooks(
            lambda t: log.append(("pack", t.requires_grad, t.is_leaf, to_numpy(t))) or t * 1,
            lambda p: log.append(("unpack", to_numpy(p))) or p)
        first = node.saved_tensors[0]
        out["unpacked"] = (first is x, first.requires_grad, first.is_leaf, to_numpy(first))
        out["twice"] = err(lambda: raw[0].register_hooks(lambda t: t, lambda t: t))
        o.sum().backward(retain_graph=True)
        out["retained"] = len(node._raw_saved_tensors)
        o.sum().backward()
        out["grad"] = to_numpy(x.grad)
        out["saved_after"] = err(lambda: node.saved_tensors)
        out["raw_after"] = err(lambda: node._raw_saved_tensors)
        # (register_hooks on a SavedTensor object kept from before the backward: PyTorch 2.13
        # returns None and then fails an internal assert when the objects are freed; not tested)
        out["log"] = log
        return out

    assert_parity(scenario, device=device)


def test_saved_tensors_hooks_see_function_saves(device):
    def scenario(lib, device):
        Saver = _saver(lib)
        log = []
        x = mk(lib, device, V, requires_grad=True)
        y = mk(lib, device, V + 1)
        with lib.autograd.graph.saved_tensors_hooks(
                lambda t: log.append(("pack", to_numpy(t))) or t,
                lambda t: log.append(("unpack", to_numpy(t))) or t):
            o = Saver.apply(x, y)
        o.sum().backward()
        return log, to_numpy(x.grad)

    assert_parity(scenario, device=device)


def test_clear_saved_tensors_on_access(device):
    def scenario(lib, device):
        log = []

        class Once(lib.autograd.Function):
            clear_saved_tensors_on_access = True

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                log.append(("again", err(lambda: ctx.saved_tensors),
                            len(ctx._raw_saved_tensors)))
                return 2 * x * g

        x = mk(lib, device, V, requires_grad=True)
        out = {"flag": (lib.autograd.Function.clear_saved_tensors_on_access,
                        Once.clear_saved_tensors_on_access)}
        y = Once.apply(x)
        out["read_before"] = len(y.grad_fn.saved_tensors)
        out["then_backward"] = err(lambda: y.sum().backward())
        y = Once.apply(x)
        y.sum().backward(retain_graph=True)
        out["grad"] = to_numpy(x.grad)
        out["second_backward"] = err(lambda: y.sum().backward())
        out["log"] = log
        return out

    assert_parity(scenario, device=device)


def test_boxed_grads_call(device):
    def scenario(lib, device):
        log = []

        class Boxed(lib.autograd.Function):
            boxed_grads_call = True

            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, grads):
                log.append((type(grads).__name__, len(grads)))
                g1, g2 = grads
                grads.clear()  # (what the option is for: free them early)
                return g1 * 2 + g2 * 3

        x = mk(lib, device, V, requires_grad=True)
        p, q = Boxed.apply(x)
        (p * q).sum().backward()
        return log, to_numpy(x.grad), lib.autograd.Function.boxed_grads_call

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ the node, the classes
def test_node_class_name_and_repr(device):
    def scenario(lib, device):
        class MyFn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        F = lib.autograd.function
        x = mk(lib, device, V, requires_grad=True)
        y = MyFn.apply(x)
        node = y.grad_fn
        return {"type": type(node).__name__, "qualname": type(node).__qualname__,
                "module": norm(type(node).__module__), "name": node.name(),
                "repr": norm(repr(node)), "tensor_repr": "grad_fn=<MyFnBackward>" in repr(y),
                "backward_cls": (MyFn._backward_cls is type(node),
                                 MyFn._backward_cls.__name__),
                "forward_cls": node._forward_cls is MyFn,
                "bases": (isinstance(node, F.BackwardCFunction), isinstance(node, F.FunctionCtx)),
                "metadata": node.metadata, "next": graph_trace(y)}

    assert_parity(scenario, device=device)


def test_function_ctx_inplace_function_and_misuse(device):
    def scenario(lib, device):
        F = lib.autograd.function
        ctx_api = sorted(a for a in dir(F.FunctionCtx) if not a.startswith("_"))

        class Double(F.InplaceFunction):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = mk(lib, device, V, requires_grad=True)
        y = Double.apply(x)
        made, warned = warns(lambda: Double(inplace=True))
        out = {"ctx_api": ctx_api, "graph": graph_trace(y), "warned": warned,
               "inplace": (made.inplace, warns(F.InplaceFunction)[0].inplace),
               "subclass": issubclass(F.InplaceFunction, lib.autograd.Function)}
        out["call"] = err(lambda: made(x))
        out["forward_direct"] = err(lambda: Double.forward(x))
        return out

    assert_parity(scenario, device=device)


def test_vjp_alias_and_defaults(device):
    def scenario(lib, device):
        Function = lib.autograd.Function

        class OnlyVjp(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, g):
                return g * 5

        class Both(OnlyVjp):
            @staticmethod
            def backward(ctx, g):
                return g

        class Neither(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        class NoForward(Function):
            pass

        x = mk(lib, device, V, requires_grad=True)
        OnlyVjp.apply(x).sum().backward()
        return {"alias": Function.vjp is Function.backward, "grad": to_numpy(x.grad),
                "both": err(lambda: Both.apply(x).sum().backward()),
                "neither": err(lambda: Neither.apply(x).sum().backward()),
                "no_forward": err(lambda: NoForward.apply(x)),
                "jvp": err(lambda: Function.jvp(None, x)),
                "setup_context": err(lambda: Function.setup_context(None, (), None)),
                "vmap": err(lambda: Function.vmap(None, None, x)),
                "generate_vmap_rule": Function.generate_vmap_rule}

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ mark_dirty
def _dirty(lib):
    class Dirty(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            a.mul_(2)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Dirty


def test_mark_dirty_errors(device):
    def scenario(lib, device):
        Dirty = _dirty(lib)

        class NotAnInput(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                o = a * 2
                ctx.mark_dirty(o)
                return o

            @staticmethod
            def backward(ctx, g):
                return g * 2

        class NotATensor(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.mark_dirty(a, 3)
                return a

            @staticmethod
            def backward(ctx, g):
                return g

        class TwoOutputs(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.mark_dirty(a)
                a.add_(1)
                return a, a * 2

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 + 2 * g2

        out = {}
        x = mk(lib, device, V, requires_grad=True)
        out["view_of_leaf"] = (err(lambda: Dirty.apply(x[:2])), x._version)
        out["view_of_leaf_view"] = err(lambda: Dirty.apply(x.view(3)))
        out["leaf"] = (err(lambda: Dirty.apply(x)), x._version)
        o, warned = warns(lambda: NotAnInput.apply(x))
        out["not_an_input"] = (graph_trace(o), o._version, to_numpy(o), warned)
        with lib.no_grad():
            out["not_an_input_no_grad"] = warns(lambda: NotAnInput.apply(x)._version)
        out["not_a_tensor"] = err(lambda: NotATensor.apply(x * 1), "mark_dirty can only accept "
                                  "variables, but argument")
        with lib.no_grad():
            out["not_a_tensor_no_grad"] = err(lambda: NotATensor.apply(x * 1), "mark_dirty can "
                                              "only accept variables")
        base = x * 1
        out["two_outputs_view"] = err(lambda: TwoOutputs.apply(base[1:]),
                                      "cannot return more than one Tensor")
        h = x * 1
        p, q = TwoOutputs.apply(h)
        out["two_outputs"] = (p is h, graph_trace(p), graph_trace(q), h._version)
        return out

    assert_parity(scenario, device=device)


def test_mark_dirty_of_a_view(device):
    """The base's history is rewritten: ``CopySlices`` wrapping the Function's node."""
    def scenario(lib, device):
        Dirty = _dirty(lib)
        x = mk(lib, device, np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
        base = x * 1
        view = base[:, 1:]
        o = Dirty.apply(view)
        out = {"same": o is view, "graph_base": graph_trace(base), "graph_view": graph_trace(o),
               "versions": (base._version, view._version), "value": to_numpy(base)}
        (base * mk(lib, device, np.arange(6, dtype=np.float32).reshape(2, 3))).sum().backward()
        out["grad"] = to_numpy(x.grad)
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ mark_non_differentiable
def test_mark_non_differentiable_input_returned_as_is(device):
    def scenario(lib, device):
        class Same(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.mark_non_differentiable(a)
                return a

            @staticmethod
            def backward(ctx, g):
                return g * 2

        class NotATensor(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.mark_non_differentiable(a * 1, 3)
                return a * 3

            @staticmethod
            def backward(ctx, g):
                return g

        class NotReturned(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.mark_non_differentiable(a * 1)
                return a * 3

            @staticmethod
            def backward(ctx, g):
                return g * 3

        def meta(o, a):
            return (o is a, o._base is a, o.requires_grad, node_name(o.grad_fn), o.is_leaf,
                    o._version)

        x = mk(lib, device, V, requires_grad=True)
        h = x * 1
        z = mk(lib, device, V)
        out = {"leaf": meta(Same.apply(x), x), "non_leaf": meta(Same.apply(h), h),
               "plain": meta(Same.apply(z), z)}
        o = Same.apply(h)
        o.mul_(2)  # allowed: it does not require grad
        out["after_inplace"] = (to_numpy(h), h._version, graph_trace(h))
        out["not_a_tensor"] = err(lambda: NotATensor.apply(x), "mark_non_differentiable only "
                                  "accepts variable arguments")
        y = NotReturned.apply(x)
        y.sum().backward()
        out["not_returned"] = (graph_trace(y), to_numpy(x.grad))
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ save_for_backward / forward
def test_save_for_backward_and_forward_arguments(device):
    def scenario(lib, device):
        log = []

        def make(save, forward_save=None):
            class Saving(lib.autograd.Function):
                @staticmethod
                def forward(ctx, a):
                    ctx.save_for_backward(*save(a))
                    if forward_save is not None:
                        ctx.save_for_forward(*forward_save(a))
                    return a * 2

                @staticmethod
                def backward(ctx, g):
                    log.append([None if t is None else to_numpy(t) for t in ctx.saved_tensors])
                    return g * 2

            return Saving

        x = mk(lib, device, V, requires_grad=True)
        out = {"int": err(lambda: make(lambda a: (a, 3)).apply(x)),
               "list": err(lambda: make(lambda a: ([a],)).apply(x))}
        with lib.no_grad():
            out["list_no_grad"] = make(lambda a: ([a],)).apply(x).requires_grad
        out["list_no_requires_grad"] = make(lambda a: ([a],)).apply(x.detach()).requires_grad
        make(lambda a: (None, a, None)).apply(x).sum().backward()

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                ctx.save_for_backward(a * 3, a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                log.append([to_numpy(t) for t in ctx.saved_tensors])
                return g

        Twice.apply(x).sum().backward()
        y = make(lambda a: (), lambda a: (a, None)).apply(x)
        out["saved_for_forward_after"] = y.grad_fn.saved_for_forward  # (no forward AD: None)
        out["save_for_forward_int"] = err(lambda: make(lambda a: (), lambda a: (a, 3)).apply(x))
        out["log"] = log
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ outputs and gradients
def test_outputs_and_gradients_checked(device):
    """Non-tensor outputs (a None gradient slot each), trailing extra Nones, a gradient summed
    down to a broadcast input, a gradient of an unbroadcastable shape, a non-tensor gradient
    for a tensor input, a gradient for a non-tensor input."""
    def scenario(lib, device):
        log = []

        def make(grad_fn, outputs=lambda a: a * 2):
            class F(lib.autograd.Function):
                @staticmethod
                def forward(ctx, a, k):
                    return outputs(a)

                @staticmethod
                def backward(ctx, *grads):
                    log.append([None if g is None else to_numpy(g) for g in grads])
                    return grad_fn(*grads)

            return F

        a = mk(lib, device, V, requires_grad=True)
        col = mk(lib, device, V.reshape(3, 1)[:1], requires_grad=True)
        out = {}
        mixed = make(lambda g, s, g2: (g + g2, None),
                     lambda a: (a * 2, "label", a * 3)).apply(a, 1)
        out["mixed"] = (mixed[1], mixed[0].grad_fn is mixed[2].grad_fn,
                        (mixed[0].output_nr, mixed[2].output_nr))
        mixed[0].sum().backward()
        out["trailing"] = make(lambda g: (g, None, None, None)).apply(a, 1).sum().backward()
        g_big = mk(lib, device, np.ones((4, 1, 3), np.float32))
        make(lambda g: (g_big, None)).apply(col, 1).sum().backward()
        out["summed_down"] = to_numpy(col.grad)
        out["bad_shape"] = err(lambda: make(lambda g: (g[:2], None)).apply(a, 1).sum()
                               .backward(), "returned an invalid gradient at index 0",
                               "expected shape compatible with [3]")
        out["non_tensor_grad"] = err(lambda: make(lambda g: (1.0, None)).apply(a, 1).sum()
                                     .backward(), "expected Variable or None")
        out["grad_for_number"] = err(lambda: make(lambda g: (g, g)).apply(a, 1).sum().backward(),
                                     "returned a gradient different than None at position 2")
        out["too_few"] = err(lambda: make(lambda g: g).apply(a, 1).sum().backward(),
                             "returned an incorrect number of gradients (expected 2, got 1)")
        out["grad"] = to_numpy(a.grad)
        out["log"] = log
        return out

    assert_parity(scenario, device=device)


def test_once_differentiable_graph_and_double_backward(device):
    def scenario(lib, device):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        x = mk(lib, device, V.astype(np.float64), requires_grad=True)
        y = Sq.apply(x)
        (gx,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        out = {"gx": (to_numpy(gx), gx.requires_grad, graph_trace(gx),
                      gx.grad_fn.name() if gx.grad_fn is not None else None)}
        out["double"] = err(lambda: gx.sum().backward(), "trying to differentiate twice")
        (plain,) = lib.autograd.grad(Sq.apply(x).sum(), x)
        out["plain"] = (to_numpy(plain), plain.requires_grad)
        return out

    assert_parity(scenario, device=device)


def test_non_differentiable_gradients_and_returned_inputs(device):
    """Outputs marked non-differentiable get zeros in backward, or None with PyTorch's
    ``ctx._materialize_non_diff_grads = False``; an input returned as-is by a Function with
    several tensor outputs is refused in-place with the multi-output message (one tensor
    output, or one plus non-tensors: the custom-Function message)."""
    def scenario(lib, device):
        log = []

        class Split(lib.autograd.Function):
            materialize = True

            @staticmethod
            def forward(ctx, x):
                ctx._materialize_non_diff_grads = Split.materialize
                a, b = x * 2, x * 3
                ctx.mark_non_differentiable(b)
                return a, b

            @staticmethod
            def backward(ctx, ga, gb):
                log.append(None if gb is None else to_numpy(gb))
                return ga * 2

        def returning(outputs):
            class Ret(lib.autograd.Function):
                @staticmethod
                def forward(ctx, a, b):
                    return outputs(a, b)

                @staticmethod
                def backward(ctx, *grads):
                    return grads[0], None

            return Ret

        x = mk(lib, device, V, requires_grad=True)
        for materialize in (True, False):
            Split.materialize = materialize
            a, _ = Split.apply(x)
            a.sum().backward()
        out = {"log": log, "grad": to_numpy(x.grad)}
        for name, outputs in (("two", lambda a, b: (a, b * 2)), ("one", lambda a, b: a),
                              ("tuple_one", lambda a, b: (a,)),
                              ("with_number", lambda a, b: (a, 3))):
            h = x * 1
            res = returning(outputs).apply(h, x)
            first = res[0] if isinstance(res, tuple) else res
            out[name] = (first._base is h, err(lambda first=first: first.mul_(2)))
        return out

    assert_parity(scenario, device=device)


def test_duplicate_outputs_intermediates_and_saved_variables(device):
    """The same tensor returned twice (one object, its last output number), an input returned
    twice (two views), a saved output (its output number), a saved intermediate (no history),
    the deprecated ``saved_variables`` (a DeprecationWarning)."""
    def scenario(lib, device):
        log = []

        class Dup(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                b = a * 2
                return b, b

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 + g2

        class DupInput(Dup):
            @staticmethod
            def forward(ctx, a):
                return a, a

        class Saves(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                a1, a2, t = a * 1, a * 2, a * 3
                ctx.save_for_backward(a2, t)
                return a1, a2

            @staticmethod
            def backward(ctx, g1, g2):
                (a2, t), warned = warns(lambda: ctx.saved_variables)
                log.append((a2.output_nr, node_name(a2.grad_fn), t.requires_grad,
                            node_name(t.grad_fn), warned))
                return g1 * t

        x = mk(lib, device, V, requires_grad=True)
        b1, b2 = Dup.apply(x)
        out = {"dup": (b1 is b2, b1._base is None, b1.output_nr, graph_trace(b1))}
        (b1.sum() + 2 * b2.sum()).backward()
        out["dup_grad"] = to_numpy(x.grad)
        h = x * 1
        c1, c2 = DupInput.apply(h)
        out["dup_input"] = (c1 is c2, c1._base is h, c2._base is h, c1.output_nr,
                            c2.output_nr)
        p, _ = Saves.apply(x)
        p.sum().backward()
        out["log"] = log
        out["grad"] = to_numpy(x.grad)
        return out

    assert_parity(scenario, device=device)
