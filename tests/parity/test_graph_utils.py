"""Parity: graph utilities — ``GradientEdge`` / ``get_gradient_edge``, ``register_multi_grad_hook``,
``increment_version``, ``autograd.Variable`` and the top-level mode queries — minigrad vs
PyTorch.

The behaviours follow what PyTorch's ``test/test_autograd.py`` checks for these APIs (our own
tests of them): gradients through edges equal gradients through the tensors, a multi-grad hook
runs once per backward with what that backward computed, and so on.
"""

import warnings

import numpy as np

from minigrad.parity import assert_parity, graph_trace, node_name, to_numpy
from tests.parity.test_tensor_meta import err, mk

A = np.array([0.5, -1.0, 2.0], dtype=np.float32)
B = np.array([1.5, 0.25, -0.75], dtype=np.float32)
C = np.array([-0.5, 3.0, 1.0], dtype=np.float32)


def grads(*ts):
    return [to_numpy(t.grad) for t in ts]


# ----------------------------------------------------------------------------- gradient edges
def test_get_gradient_edge(device):
    def scenario(lib, device):
        g = lib.autograd.graph
        x = mk(lib, device, A, True)
        y = x * 2
        parts = (x * 3).unbind(0)
        e_y, e_x = g.get_gradient_edge(y), g.get_gradient_edge(x)
        e_p = g.get_gradient_edge(parts[1])
        return {
            "y": (node_name(e_y.node), e_y.output_nr, e_y.node is y.grad_fn),
            "x": (e_x.node.name(), e_x.output_nr, e_x.node is y.grad_fn.next_functions[0][0]),
            "part": (node_name(e_p.node), e_p.output_nr),
            "fields": type(e_y).__name__ + str(type(e_y)._fields),
            "tuple": (isinstance(e_y, tuple), len(e_y), e_y.ownership_token),
            "error": err(lambda: g.get_gradient_edge(mk(lib, device, A)),
                         "not possible to get the gradient edge", "does not require gradients"),
        }

    assert_parity(scenario, device=device)


def test_grad_with_gradient_edges(device):
    """Edges stand for tensors in ``autograd.grad``: as inputs (with tensors mixed in), and as
    outputs (a scalar one seeds ones; otherwise ``grad_outputs``). Two stages through an
    intermediate edge give the full gradient."""
    def scenario(lib, device):
        g = lib.autograd.graph
        x = mk(lib, device, A, True)
        y = x * 2
        z = y.exp()
        out = z.sum()
        e_y = g.get_gradient_edge(y)
        d_y, d_x = lib.autograd.grad(out, [e_y, x], retain_graph=True)
        (single,) = lib.autograd.grad(out, e_y, retain_graph=True)
        (from_edge,) = lib.autograd.grad(e_y, x, grad_outputs=d_y, retain_graph=True)
        (scalar_root,) = lib.autograd.grad(g.get_gradient_edge(out), x, retain_graph=True)
        unused = lib.autograd.grad(out, [g.get_gradient_edge(mk(lib, device, B, True) * 1)],
                                   allow_unused=True, retain_graph=True)
        non_scalar = err(lambda: lib.autograd.grad(g.get_gradient_edge(z), x),
                         "grad can be implicitly created only for scalar outputs")
        w = (x * 3).exp()
        e_w = g.get_gradient_edge(w)
        del w  # the edge keeps its node, and so the graph behind it, alive
        (after_del,) = lib.autograd.grad(e_w, x, grad_outputs=lib.ones_like(x))
        return {"d_y": to_numpy(d_y), "d_x": to_numpy(d_x), "single": to_numpy(single),
                "two_stage": to_numpy(from_edge), "scalar_root": to_numpy(scalar_root),
                "unused": [u is None for u in unused], "non_scalar": non_scalar,
                "after_del": to_numpy(after_del)}

    assert_parity(scenario, device=device)


def test_backward_inputs_gradient_edges(device):
    """``backward(inputs=[edge])``: a leaf's edge accumulates into its ``.grad``; a non-leaf's
    edge runs its node (its hooks fire, its saved tensors are freed) but stores nothing."""
    def scenario(lib, device):
        g = lib.autograd.graph
        x, w = mk(lib, device, A, True), mk(lib, device, B, True)
        y = x * w
        calls = []
        y.grad_fn.register_hook(lambda gi, go: calls.append("MulBackward0 ran"))
        out = y.exp().sum()
        out.backward(inputs=[g.get_gradient_edge(x)], retain_graph=True)
        first = grads(x, w)
        x.grad = None
        out.backward(inputs=g.get_gradient_edge(y))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (reading a non-leaf's .grad warns)
            y_grad = y.grad
        return {"first": first, "second": grads(x, w), "y_grad": y_grad, "calls": calls,
                "freed": err(lambda: y.grad_fn._saved_self, "second time")}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- multi-grad hooks
def test_multi_grad_hook_all(device):
    """``mode="all"``: once per backward, after the last gradient it computes; None for the
    tensors that backward does not reach (outside its graph, or pruned by ``inputs=``)."""
    def scenario(lib, device):
        g = lib.autograd.graph
        a, b, c = (mk(lib, device, v, True) for v in (A, B, C))
        calls = []
        order = []
        a.register_hook(lambda gr: order.append("a hook"))

        def fn(gs):
            order.append("multi")
            calls.append([to_numpy(x) for x in gs])

        h = g.register_multi_grad_hook((a, b, c), fn)
        (a * 2 + b * 3).sum().backward()
        (a * b * c).sum().backward(inputs=[a])
        s = (a * b * c).sum()
        s.backward(retain_graph=True)
        s.backward()  # a second backward of the same graph: called again
        h.remove()
        (a * b).sum().backward()  # removed: not called
        return {"calls": calls, "order": order, "handle": type(h).__name__}

    assert_parity(scenario, device=device)


def test_multi_grad_hook_all_undefined_gradient(device):
    """A custom Function that returns None for one input: that tensor's hook still runs (with
    None), so ``fn`` still runs once, with None in that slot."""
    def scenario(lib, device):
        class FirstOnly(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * 2 + b

            @staticmethod
            def backward(ctx, grad):
                return grad * 2, None

        g = lib.autograd.graph
        a, b = mk(lib, device, A, True), mk(lib, device, B, True)
        calls = []
        g.register_multi_grad_hook((a, b), lambda gs: calls.append([to_numpy(x) for x in gs]))
        FirstOnly.apply(a, b).sum().backward()
        return {"calls": calls, "grads": grads(a, b)}

    assert_parity(scenario, device=device)


def test_multi_grad_hook_all_non_leaves_and_grad(device):
    """On non-leaf tensors it also works under ``autograd.grad``; on a leaf PyTorch refuses
    there (it cannot tell whether a leaf's node runs)."""
    def scenario(lib, device):
        g = lib.autograd.graph
        a, b = mk(lib, device, A, True), mk(lib, device, B, True)
        ya, yb, yc = a * 1, b * 1, a * b
        calls = []
        g.register_multi_grad_hook((ya, yb, yc), lambda gs: calls.append(
            [to_numpy(x) for x in gs]))
        out = (ya.exp() + yc).sum()
        (ga,) = lib.autograd.grad(out, a, retain_graph=True)
        (gb,) = lib.autograd.grad(out, b)
        g.register_multi_grad_hook((a, b), lambda gs: calls.append("leaf hook"))
        leaf = err(lambda: lib.autograd.grad((a * b).sum(), a),
                   "leaf node was passed to _will_engine_execute_node")
        return {"calls": calls, "ga": to_numpy(ga), "gb": to_numpy(gb), "leaf": leaf}

    assert_parity(scenario, device=device)


def test_multi_grad_hook_any(device):
    """``mode="any"``: ``fn(grad)`` with the first gradient that arrives, once per backward;
    tensors that do not require grad are skipped."""
    def scenario(lib, device):
        g = lib.autograd.graph
        a, b = mk(lib, device, A, True), mk(lib, device, B, True)
        calls = []
        h = g.register_multi_grad_hook((a, b, mk(lib, device, C)),
                                       lambda gr: calls.append(to_numpy(gr)), mode="any")
        (a * 2 + b * 3).sum().backward()
        (b * 5).sum().backward()
        (a.exp() * b).sum().backward()
        h.remove()
        (a * 7).sum().backward()
        return {"calls": calls, "grads": grads(a, b)}

    assert_parity(scenario, device=device)


def test_multi_grad_hook_errors(device):
    def scenario(lib, device):
        g = lib.autograd.graph
        a = mk(lib, device, A, True)
        return {
            "mode": err(lambda: g.register_multi_grad_hook((a,), print, mode="some"),
                        "Expects mode to be one of", "but got some"),
            "no_grad_tensor": err(lambda: g.register_multi_grad_hook((a, mk(lib, device, B)),
                                                                     print))[0],
        }

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- versions
def test_increment_version(device):
    """One bump per tensor (a list may name one twice); views share the counter; a node that
    saved the tensor then refuses it, as after an in-place op."""
    def scenario(lib, device):
        g = lib.autograd.graph
        t = mk(lib, device, A)
        v = t[0:2]
        out = [t._version]
        g.increment_version(t)
        out.append(t._version)
        g.increment_version([t, t])
        out.append((t._version, v._version))
        g.increment_version(v)
        out.append((t._version, v._version))
        x = mk(lib, device, A, True)
        h = x * 1
        s = (h * h).sum()
        g.increment_version(h)
        with lib.inference_mode():
            inf = mk(lib, device, A)
        return {"versions": out,
                "backward": err(lambda: s.backward(), "modified by an inplace operation",
                                "is at version 1; expected version 0"),
                "inference": err(lambda: g.increment_version(inf)),  # (skipped silently)
                "inference_version": err(lambda: inf._version,
                                         "Inference tensors do not track version counter")}

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- Variable, modes
def test_variable_alias(device):
    def scenario(lib, device):
        Variable = lib.autograd.Variable
        t = mk(lib, device, A)
        x = mk(lib, device, A, True)
        y = x * 2
        v = Variable(t)
        with lib.no_grad():
            t.add_(1)  # shares the data
        leaf = Variable(t, requires_grad=True)
        cut = Variable(y)
        return {
            "isinstance": [isinstance(o, Variable) for o in (t, x, y, lib.nn.Parameter(t), 3)],
            "subclass": issubclass(lib.Tensor, Variable),
            "v": (v is t, v.requires_grad, v.is_leaf, to_numpy(v)),
            "leaf": (leaf is t, leaf.requires_grad, leaf.is_leaf, t.requires_grad),
            "cut": (cut is y, node_name(cut.grad_fn), cut.requires_grad, graph_trace(y)),
            "empty": tuple(Variable().shape),
            "not_tensor": err(lambda: Variable(3), "Variable data has to be a tensor",
                              "but got int"),
        }

    assert_parity(scenario, device=device)


def test_mode_queries(device):
    def scenario(lib, device):
        t = mk(lib, device, A)
        out = {"plain": (lib.is_inference(t), lib.is_inference_mode_enabled(),
                         lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())}
        with lib.inference_mode():
            made = mk(lib, device, A)
            out["inference"] = (lib.is_inference(made), lib.is_inference_mode_enabled())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ("Anomaly Detection has been enabled")
            with lib.autograd.detect_anomaly(check_nan=False):
                out["anomaly"] = (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())
        out["after"] = (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled(),
                        lib.is_inference(made))
        out["error"] = err(lambda: lib.is_inference(1), "must be Tensor, not int")
        return out

    assert_parity(scenario, device=device)


# ----------------------------------------------------------------------------- mutation
def test_allow_mutation_on_saved_tensors(device):
    """Inside the block, in-place ops on saved tensors (an input, an output saved as
    ``_saved_result``, a view at offset 0, ``__setitem__``) leave backward the original values;
    a tensor freed by a backward can be modified afterwards; without the block it is the
    version error."""
    def scenario(lib, device):
        g = lib.autograd.graph
        out = {}
        with g.allow_mutation_on_saved_tensors() as ctx:
            a = mk(lib, device, A, True)
            b = a.clone()
            e = b.exp()
            s = (b * b).sum() + e.sum()
            b.mul_(3)
            b.add_(1)  # a second write: the copy is made once
            e.mul_(2)
            b[0:2].mul_(5)
            b[0] = 7.0
            s.backward()
            out["grad"] = to_numpy(a.grad)
            out["b"] = to_numpy(b)
            out["ctx"] = type(ctx).__name__
            c = a.clone()
            (c * c).sum().backward()
            c.add_(1)  # saved, but freed by that backward: nothing to copy
            out["after_free"] = to_numpy(c)
        b2 = a.clone()
        s2 = (b2 * b2).sum()
        b2.mul_(3)
        out["without"] = err(lambda: s2.backward(), "modified by an inplace operation")
        return out

    assert_parity(scenario, device=device)


def test_allow_mutation_on_saved_tensors_errors(device):
    def scenario(lib, device):
        g = lib.autograd.graph
        with g.allow_mutation_on_saved_tensors():
            a = mk(lib, device, A, True)
            s = (a.clone() * a).sum()

        def nested():
            with g.allow_mutation_on_saved_tensors():
                with g.allow_mutation_on_saved_tensors():
                    pass

        def disabled():
            with g.disable_saved_tensors_hooks("no saved-tensor hooks here"):
                with g.allow_mutation_on_saved_tensors():
                    pass

        return {
            "outside": err(lambda: s.backward(), "Trying to backward outside of the "
                           "'allow_mutation_on_saved_tensors' context"),
            "nested": err(nested, "allow_mutation_on_saved_tensors contexts cannot be nested"),
            "disabled": err(disabled, "no saved-tensor hooks here"),
            "usable_after": (a * a).sum().backward() is None,
        }

    assert_parity(scenario, device=device)
