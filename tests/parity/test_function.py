"""Custom ``autograd.Function``: node naming, slots, saved tensors, errors — vs PyTorch."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, capture_error, graph_trace, node_name, to_numpy


def _functions(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * x * x * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * x * g * ctx.k, None

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b, a * b

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2, g1 - g2

    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Cube, Two, Ident


def _leaf(lib, device, arr, requires_grad=True):
    t = lib.tensor(arr).to(device)
    return t.requires_grad_(requires_grad)


def test_custom_function_graph_and_grads(device):
    def scenario(lib, device):
        Cube, _, _ = _functions(lib)
        x = _leaf(lib, device, np.array([1.0, -2.0, 3.0], np.float32))
        y = Cube.apply(x, 2.0)
        trace = {"type": type(y.grad_fn).__name__, "name": y.grad_fn.name(),
                 "graph": graph_trace(y)}
        (y * y).sum().backward()
        trace["grad"] = to_numpy(x.grad)
        trace["value"] = to_numpy(y)
        return trace

    assert_parity(scenario, device=device)


def test_custom_function_multiple_outputs_and_slots(device):
    def scenario(lib, device):
        _, Two, _ = _functions(lib)
        a = _leaf(lib, device, np.array([1.0, 2.0], np.float32))
        b = _leaf(lib, device, np.array([3.0, 5.0], np.float32), requires_grad=False)
        s, p = Two.apply(a, b)
        trace = {"graph_s": graph_trace(s), "graph_p": graph_trace(p),
                 "nr": (s.output_nr, p.output_nr), "same_node": s.grad_fn is p.grad_fn}
        (s * 2 + p).sum().backward()
        trace["grad_a"] = to_numpy(a.grad)
        trace["b_grad"] = b.grad is None
        return trace

    assert_parity(scenario, device=device)


def test_custom_function_returning_input_is_a_view(device):
    def scenario(lib, device):
        _, _, Ident = _functions(lib)
        a = _leaf(lib, device, np.array([1.0, 2.0], np.float32))
        o = Ident.apply(a)
        trace = {"is": o is a, "base": o._base is a, "graph": graph_trace(o)}
        o.sum().backward()
        trace["grad"] = to_numpy(a.grad)
        return trace

    assert_parity(scenario, device=device)


def test_custom_function_no_grad_and_errors(device):
    def scenario(lib, device):
        Cube, _, _ = _functions(lib)

        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g, g

        class WrongShape(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g[:1]

        x = _leaf(lib, device, np.array([1.0, 2.0], np.float32))
        with lib.no_grad():
            y = Cube.apply(x, 1.0)
        plain = Cube.apply(_leaf(lib, device, np.ones(2, np.float32), False), 1.0)
        trace = {"no_grad": (y.requires_grad, y.grad_fn is None),
                 "plain": (plain.requires_grad, plain.grad_fn is None)}
        err = capture_error(lambda: Bad.apply(x).sum().backward())
        trace["count_err"] = (err[0], "returned an incorrect number of gradients" in err[1])
        err = capture_error(lambda: WrongShape.apply(x).sum().backward())
        trace["shape_err"] = (err[0], "returned an invalid gradient at index 0" in err[1])
        return trace

    assert_parity(scenario, device=device)


def test_saved_tensors_freed_after_backward():
    def scenario(lib):
        Cube, _, _ = _functions(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = Cube.apply(x, 1.0).sum()
        y.backward()
        err = capture_error(lambda: y.backward())
        return err[0], "backward through the graph a second time" in err[1]

    assert_parity(scenario)


@pytest.mark.parametrize("k", [1.0, -0.5])
def test_once_differentiable_runs(k):
    import minigrad

    class Sq(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * k

        @staticmethod
        @minigrad.autograd.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * k * x * g

    x = minigrad.tensor([1.0, 3.0], requires_grad=True)
    Sq.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * k * np.array([1.0, 3.0]))


# ------------------------------------------------------------------ ctx features
def _ctx_functions(lib):
    calls = []

    class Dirty(lib.autograd.Function):
        """Doubles ``a`` in place (marked dirty) and returns it."""

        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_dirty(a)
            a.mul_(2)
            ctx.save_for_backward(b)
            return a

        @staticmethod
        def backward(ctx, g):
            calls.append(("Dirty", ctx.needs_input_grad))
            (b,) = ctx.saved_tensors
            return g * 2, g * b

    class DirtyNotReturned(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            a.mul_(2)
            return a * 1

        @staticmethod
        def backward(ctx, g):
            return g

    class WithIndex(lib.autograd.Function):
        """Returns ``(3a, 2a, argmax)``; marks the float ``2a`` and the index as
        non-differentiable."""

        @staticmethod
        def forward(ctx, a):
            tripled, doubled, idx = a * 3, a * 2, a.argmax()
            ctx.mark_non_differentiable(doubled, idx)
            return tripled, doubled, idx

        @staticmethod
        def backward(ctx, g, g_doubled, g_idx):
            calls.append(("WithIndex", to_numpy(g_doubled), to_numpy(g_idx)))
            return g * 3

    class Pair(lib.autograd.Function):
        """``(2a, 3a)``; with materialize_grads off, an unused output's grad arrives as None."""

        materialize = True

        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(Pair.materialize)
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            calls.append(("Pair", None if g1 is None else to_numpy(g1),
                          None if g2 is None else to_numpy(g2)))
            out = 0
            if g1 is not None:
                out = out + g1 * 2
            if g2 is not None:
                out = out + g2 * 3
            return out

    class Needs(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k, c):
            calls.append(("Needs.forward", ctx.needs_input_grad))
            return a * b * k + c

        @staticmethod
        def backward(ctx, g):
            calls.append(("Needs.backward", ctx.needs_input_grad))
            return g, g, None, g

    class Saver(lib.autograd.Function):
        """exp(a), saving the input and the output."""

        @staticmethod
        def forward(ctx, a):
            out = a.exp()
            ctx.save_for_backward(a, out)
            return out

        @staticmethod
        def backward(ctx, g):
            _, out = ctx.saved_tensors
            return g * out

    return calls, Dirty, DirtyNotReturned, WithIndex, Pair, Needs, Saver


def test_mark_dirty(device):
    def scenario(lib, device):
        calls, Dirty, DirtyNotReturned, *_ = _ctx_functions(lib)
        x = _leaf(lib, device, np.array([1.0, 2.0], np.float32))
        y = _leaf(lib, device, np.array([3.0, 4.0], np.float32))
        h = x * 1
        before = h._version
        o = Dirty.apply(h, y)
        out = {"same_object": o is h, "versions": (before, h._version), "is_view": o._is_view(),
               "graph": graph_trace(o), "name": o.grad_fn.name(), "value": to_numpy(o)}
        o.sum().backward()
        out["grads"] = (to_numpy(x.grad), to_numpy(y.grad), calls)
        out["leaf"] = capture_error(lambda: Dirty.apply(x, y))
        out["leaf_no_grad_needed"] = capture_error(
            lambda: Dirty.apply(_leaf(lib, device, np.ones(2, np.float32)), y.detach()))
        plain = _leaf(lib, device, np.ones(2, np.float32), requires_grad=False)
        p = Dirty.apply(plain, y)
        out["plain_dirty"] = (p is plain, graph_trace(p), plain._version)
        out["not_returned"] = capture_error(lambda: DirtyNotReturned.apply(x * 1))
        return out

    assert_parity(scenario, device=device)


def test_mark_non_differentiable_and_materialize_grads(device):
    def scenario(lib, device):
        calls, _, _, WithIndex, Pair, *_ = _ctx_functions(lib)
        x = _leaf(lib, device, np.array([3.0, 1.0, 2.0], np.float32))
        t, d, i = WithIndex.apply(x)
        out = {"meta": [(o.requires_grad, o.is_leaf, o.grad_fn is None) for o in (t, d, i)],
               "graph": graph_trace(t)}
        t.sum().backward()
        out["grad"] = to_numpy(x.grad)
        out["use_non_diff"] = capture_error(lambda: d.sum().backward())
        for materialize in (True, False):
            Pair.materialize = materialize
            a = _leaf(lib, device, np.array([1.0, 2.0], np.float32))
            p, q = Pair.apply(a)
            p.sum().backward()
            out[f"materialize_{materialize}"] = to_numpy(a.grad)
        out["calls"] = calls
        return out

    assert_parity(scenario, device=device)


def test_needs_input_grad(device):
    def scenario(lib, device):
        calls, *_, Needs, _ = _ctx_functions(lib)
        a = _leaf(lib, device, np.ones(2, np.float32))
        b = _leaf(lib, device, np.ones(2, np.float32), requires_grad=False)
        c = a * 1
        o = Needs.apply(a, b, 2.0, c)
        graph = graph_trace(o)
        o.sum().backward()
        with lib.no_grad():
            Needs.apply(a, b, 2.0, c)
        return graph, calls, to_numpy(a.grad)

    assert_parity(scenario, device=device)


def test_saved_tensors_are_version_checked(device):
    def scenario(lib, device):
        *_, Saver = _ctx_functions(lib)
        a = _leaf(lib, device, np.ones(2, np.float32))
        out = {}
        h = a * 1
        o = Saver.apply(h)
        h.add_(1)
        out["input_modified"] = capture_error(lambda: o.sum().backward())
        h = a * 1
        o = Saver.apply(h)
        o.mul_(2)
        out["output_modified"] = capture_error(lambda: o.sum().backward())
        h = a * 1
        o = Saver.apply(h)
        saved = o.grad_fn.saved_tensors
        out["identity"] = (saved[0] is h, saved[1] is o, node_name(saved[1].grad_fn))
        o.sum().backward()
        out["after_backward"] = capture_error(lambda: o.grad_fn.saved_tensors)
        out["grad"] = to_numpy(a.grad)
        for k, v in out.items():
            if isinstance(v, tuple) and v and v[0] == "RuntimeError":
                out[k] = (v[0], v[1].replace("torch.cuda.", "torch.").replace("torch", "minigrad"))
        return out

    assert_parity(scenario, device=device)
