"""Custom ``autograd.Function``: node naming, slots, saved tensors, errors — vs PyTorch."""

import numpy as np
import pytest

from minigrad.parity import assert_parity, capture_error, graph_trace, to_numpy


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
