"""Parity: the backward engine — AccumulateGrad, next_functions, execution order, accumulation,
``gradient=``, ``retain_graph``, ``create_graph``, ``inputs=``, ``autograd.grad``, tensor and node
hooks, in-place history rewriting, deep graphs — minigrad vs PyTorch.

Facts doc sections 1.7, 1.8, 2, 4, 5.3 and 5.7.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, graph_trace, node_name, to_numpy
from tests.parity.test_tensor_meta import err, mk, warned

A = np.array([1.0, 2.0], dtype=np.float32)
B = np.array([3.0, 4.0], dtype=np.float32)
X3 = np.array([1.0, 2.0, 3.0], dtype=np.float32)
X4 = np.array([0.5, -1.0, 2.0, 1.5], dtype=np.float32)
M34 = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 4


def is_torch(lib):
    return lib.__name__ == "torch"


def all_nodes(root):
    """Every node reachable from ``root`` (a tensor or node), iteratively, in DFS order."""
    node = getattr(root, "grad_fn", root)
    seen, order, stack = set(), [], [node]
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        order.append(n)
        stack.extend(c for c, _ in reversed(n.next_functions))
    return order


def label(node, leaves):
    """Node name, with the leaf's position in ``leaves`` for AccumulateGrad nodes."""
    if hasattr(node, "variable"):
        return "Acc[" + str([i for i, t in enumerate(leaves) if t is node.variable]) + "]"
    return node.name()


def record_order(root, leaves):
    """Register a prehook on every node of the graph; return the list they append to."""
    log = []
    for n in all_nodes(root):
        n.register_prehook(lambda g, n=n: log.append(label(n, leaves)))
    return log


# ------------------------------------------------------------------ AccumulateGrad / edges
def test_accumulate_grad_node(device):
    def scenario(lib, device):
        x = mk(lib, device, X4, requires_grad=True)
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        z = x.exp()
        out = {
            "name": acc.name(), "type": node_name(acc), "variable_is_x": acc.variable is x,
            "next": acc.next_functions, "metadata": acc.metadata,
            "seq": acc._sequence_nr(),
            "reused": z.grad_fn.next_functions[0][0] is acc,
            "leaf_grad_fn": x.grad_fn, "plain_result": (mk(lib, device) * 2).grad_fn,
            "next_type": type(y.grad_fn.next_functions).__name__,
            "repr": repr(y.grad_fn).split(" object at ")[0],
        }
        return out

    assert_parity(scenario, device=device)


def test_next_functions_multi_output(device):
    def scenario(lib, device):
        x = mk(lib, device, X4, requires_grad=True)
        s = x.split(1)
        u = x.unbind(0)
        pair = x.reshape(2, 2).split([1, 1], dim=1)
        c = x.chunk(2)
        out = {}
        for key, t in {"split": s[1] + s[2], "unbind": u[2] * 1, "sizes": pair[1] * pair[0],
                       "chunk": c[1] - c[0]}.items():
            nf = t.grad_fn.next_functions
            out[key] = ([(node_name(n), nr) for n, nr in nf], nf[0][0] is nf[1][0],
                        graph_trace(t))
        (s[1] + s[2]).sum().backward()
        out["split_grad"] = to_numpy(x.grad)
        x.grad = None
        (u[0] * u[3]).backward()
        out["unbind_grad"] = to_numpy(x.grad)
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ execution order
GRAPHS = {
    "mul_plus_exp": lambda a, b, c: (a * b + c.exp()).sum(),
    "exp_plus_mul": lambda a, b, c: (c.exp() + a * b).sum(),
    "shared_leaf": lambda a, b, c: (a.exp() * a.sin()).sum(),
    "diamond": lambda a, b, c: ((a * 2).exp() * (a * 2).sin() + a * 2).sum(),
    "diamond_shared": lambda a, b, c: _diamond(a * b),
    "chains": lambda a, b, c: ((a * b).tanh() * (b - c).exp() + (c * a).sigmoid().log()).sum(),
    "split_merge": lambda a, b, c: _split_merge(a, b, c),
    "reuse_deep": lambda a, b, c: _reuse_deep(a, b),
}


def _diamond(h):
    return (h.exp() + h.sin() * h.tanh()).sum() * h.sum()


def _split_merge(a, b, c):
    p, q = (a * b).split(1)
    return (p * c[0] + q.exp() * c[1] + p * q).sum()


def _reuse_deep(a, b):
    h = a
    for _ in range(4):
        h = h * b + h.tanh()
    return h.sum()


@pytest.mark.parametrize("graph", list(GRAPHS))
def test_execution_order(graph, device):
    def scenario(lib, device):
        a = mk(lib, device, A, requires_grad=True)
        b = mk(lib, device, B, requires_grad=True)
        c = mk(lib, device, A - B, requires_grad=True)
        out = GRAPHS[graph](a, b, c)
        log = record_order(out, [a, b, c])
        out.backward()
        return {"order": log, "graph": graph_trace(out),
                "grads": [to_numpy(t.grad) for t in (a, b, c)]}

    assert_parity(scenario, device=device, rtol=1e-4, atol=1e-5)


def test_execution_order_sequence_numbers(device):
    """Nodes created later run first even when built in an unusual order."""

    def scenario(lib, device):
        a = mk(lib, device, A, requires_grad=True)
        b = mk(lib, device, B, requires_grad=True)
        late = b.exp()  # created before the left branch ...
        early = a * 3
        out = (early.sin() + late * early).sum()
        log = record_order(out, [a, b])
        out.backward()
        seqs = [n._sequence_nr() for n in all_nodes(out)]
        return log, [s - min(seqs) for s in seqs if s < 2**63]

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ accumulation, gradient=
def test_grad_accumulates_in_place(device):
    def scenario(lib, device):
        x = mk(lib, device, X3, requires_grad=True)
        w = mk(lib, device, B[[0, 1, 0]], requires_grad=True)
        y = (x * w).sum()
        y.backward(retain_graph=True)
        g = x.grad
        v1 = (x.grad._version, w.grad._version)
        y.backward(retain_graph=True)
        v2 = (x.grad._version, w.grad._version)
        y.backward()
        return {"v1": v1, "v2": v2, "v3": x.grad._version, "same": x.grad is g,
                "grad": to_numpy(x.grad), "w": to_numpy(w.grad), "grad_is_leaf": meta(x.grad)}

    assert_parity(scenario, device=device)


def meta(t):
    return t.requires_grad, t.is_leaf, node_name(t.grad_fn)


def test_gradient_argument(device):
    def scenario(lib, device):
        x = mk(lib, device, X3, requires_grad=True)
        (x * 2).backward(gradient=mk(lib, device, np.array([1, 0.1, 0.01], np.float32)))
        out = {"given": to_numpy(x.grad)}
        x.grad = None
        (x * 2)[:1].backward()  # one element, one dim: implicit ones
        out["one_element"] = to_numpy(x.grad)
        x.grad = None
        (x * x).sum().backward(mk(lib, device, np.array(2.0, np.float32)))
        out["scaled_scalar"] = to_numpy(x.grad)
        x.grad = None
        lib.autograd.backward([(x * 2).sum(), x * x], [None, mk(lib, device, X3)])
        out["several_roots"] = to_numpy(x.grad)
        x.grad = None
        s = mk(lib, device, np.array(3.0, np.float32), requires_grad=True)
        s.backward()
        out["0dim_leaf"] = (to_numpy(s.grad), s.grad.shape == ())
        y = (x * 3).sum()
        with lib.no_grad():
            y.backward()  # backward under no_grad still runs
        out["under_no_grad"] = to_numpy(x.grad)
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ retain_graph / saved tensors
def test_retain_graph_table(device):
    def scenario(lib, device):
        x = mk(lib, device, X3, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        out = {"first": to_numpy(x.grad), "second": err(lambda: y.backward())}
        x.grad = None
        y = (x * x).sum()
        steps = []
        y.backward(retain_graph=True)
        steps.append(to_numpy(x.grad))
        y.backward(retain_graph=True)
        steps.append(to_numpy(x.grad))
        y.backward()
        steps.append(to_numpy(x.grad))
        out["steps"] = steps
        out["fourth"] = err(lambda: y.backward())
        out["grad_after_error"] = to_numpy(x.grad)
        return out

    assert_parity(scenario, device=device)


def test_graphs_without_saved_tensors_rerun(device):
    def scenario(lib, device):
        x = mk(lib, device, X3, requires_grad=True)
        y = mk(lib, device, X3 * 2, requires_grad=True)
        s = (x + y).sum()
        s.backward()
        s.backward()
        t = (x - y * 2).sum()  # Mul by a scalar saves the 0-dim 'other', not an input
        t.backward()
        e = x.exp()
        e.sum().backward()
        return {"x": to_numpy(x.grad), "y": to_numpy(y.grad), "t_again": err(t.backward),
                "exp_again": err(lambda: e.sum().backward())}

    assert_parity(scenario, device=device)


def test_saved_tensors_freed(device):
    def scenario(lib, device):
        x = mk(lib, device, X3, requires_grad=True)
        w = mk(lib, device, X3 + 1, requires_grad=True)
        m = x * w
        e = x.exp()
        s = m.sum(0)
        out = {"before": (m.grad_fn._saved_self is x, m.grad_fn._saved_other is w,
                          to_numpy(e.grad_fn._saved_result),
                          e.grad_fn._raw_saved_result is e.grad_fn._raw_saved_result,
                          m.grad_fn._raw_saved_self.unpack() is x)}
        (s + e.sum()).backward(retain_graph=True)
        out["retained"] = (m.grad_fn._saved_self is x, to_numpy(e.grad_fn._saved_result))
        (s + e.sum()).backward()
        out["freed"] = [err(lambda: m.grad_fn._saved_self), err(lambda: m.grad_fn._saved_other),
                        err(lambda: e.grad_fn._saved_result),
                        err(lambda: m.grad_fn._raw_saved_self.unpack())]
        out["raw_still_there"] = type(m.grad_fn._raw_saved_self).__name__
        out["non_tensor"] = (s.grad_fn._saved_dim, s.grad_fn._saved_keepdim,
                             tuple(s.grad_fn._saved_self_sym_sizes))
        out["next_intact"] = graph_trace(s)
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ create_graph
@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_create_graph(device):
    def scenario(lib, device):
        x = mk(lib, device, X3, requires_grad=True)
        y = (x ** 3).sum()
        y.backward(create_graph=True)
        g = x.grad
        out = {"grad": to_numpy(g), "meta": meta(g), "version": g._version,
               "copy_next": [n is None for n, _ in g.grad_fn.next_functions]}
        y.backward()
        out["plain_after"] = (to_numpy(x.grad), x.grad is g, node_name(x.grad.grad_fn))
        x2 = mk(lib, device, X3, requires_grad=True)
        (x2 ** 2).sum().backward(create_graph=True)
        g2 = x2.grad
        (x2 ** 2).sum().backward(create_graph=True)
        out["second_create"] = (to_numpy(x2.grad), x2.grad is g2, node_name(x2.grad.grad_fn))
        (x2.grad * x2).sum().backward()  # differentiate the accumulated gradient
        out["grad_of_grad"] = to_numpy(x2.grad)
        x3 = mk(lib, device, X3, requires_grad=True)
        x3.sum().backward(create_graph=True)
        out["constant_grad"] = (meta(x3.grad), x3.grad._version)
        h = x3 * 2
        h.retain_grad()
        (h * h).sum().backward(create_graph=True)
        out["retained"] = (to_numpy(h.grad), meta(h.grad), h.grad._version)
        return out

    assert_parity(scenario, device=device)


def test_create_graph_warns_once_per_process():
    """Both libraries warn (UserWarning, same text) on the first ``backward(create_graph=True)``
    of a process only, and never for ``autograd.grad``; checked in fresh interpreters."""
    code = textwrap.dedent("""
        import sys, warnings
        lib = __import__(sys.argv[1])
        x = lib.ones(2, requires_grad=True)
        counts = []
        for step in range(4):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                if step == 0:
                    lib.autograd.grad((x * x).sum(), x, create_graph=True)
                else:
                    (x * x).sum().backward(create_graph=True)
            counts.append([(c.category.__name__, str(c.message).split(" (Trig")[0]) for c in w])
        print(repr(counts))
    """)
    outs = [subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True,
                           timeout=120).stdout for name in ("minigrad", "torch")]
    assert outs[0] == outs[1]
    assert "UserWarning" in outs[0] and "reference cycle" in outs[0]


HIGHER = {
    "poly": lambda x: (x ** 3 - 2 * x ** 2 + x * 5).sum(),
    "exp": lambda x: (x * 2).exp().sum(),
    "tanh": lambda x: (x * 0.5).tanh().sum(),
    "sigmoid_mul": lambda x: (x.sigmoid() * x).sum(),
    "chain": lambda x: ((x * x + 1).log() * x.exp().tanh()).sum(),
    "div_sqrt": lambda x: (x / (x * x + 1).sqrt()).sum(),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn", list(HIGHER))
def test_higher_order_grad(fn, dtype, device):
    def scenario(lib, device):
        x = mk(lib, device, X3.astype(dtype) / 2, requires_grad=True)
        y = HIGHER[fn](x)
        (g1,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = lib.autograd.grad(g2.sum(), x)
        return [to_numpy(g) for g in (g1, g2, g3)], g1.requires_grad, g3.requires_grad, \
            str(g3.dtype).split(".")[1]

    # third derivatives lose float32 digits to cancellation; float64 is compared tightly
    tol = {"float32": (1e-3, 1e-4), "float64": (1e-9, 1e-10)}[dtype]
    assert_parity(scenario, device=device, rtol=tol[0], atol=tol[1])


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_double_backward_through_backward(device):
    """``backward(create_graph=True)`` then backward of a function of ``x.grad``."""

    def scenario(lib, device):
        x = mk(lib, device, X3 / 2, requires_grad=True)
        w = mk(lib, device, X3, requires_grad=True)
        (x.tanh() * w).sum().backward(create_graph=True)
        gx = x.grad
        x.grad = None
        w.grad = None
        (gx ** 2).sum().backward()
        return to_numpy(x.grad), to_numpy(w.grad)

    assert_parity(scenario, device=device, rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------ inputs=
def test_backward_inputs(device):
    def scenario(lib, device):
        a = mk(lib, device, A, requires_grad=True)
        b = mk(lib, device, B, requires_grad=True)
        calls = []
        b.register_hook(lambda g: calls.append("b_hook"))
        b.register_post_accumulate_grad_hook(lambda t: calls.append("b_post"))
        a.register_hook(lambda g: calls.append("a_hook"))
        (a * b).sum().backward(inputs=[a])
        out = {"only_a": (to_numpy(a.grad), b.grad), "calls": list(calls)}
        a.grad = None
        (a * b).sum().backward(inputs=a)
        out["single_tensor"] = to_numpy(a.grad)
        a.grad = None
        other = mk(lib, device, A, requires_grad=True)
        (a * b).sum().backward(inputs=[a, other])
        out["unrelated"] = (to_numpy(a.grad), other.grad)
        out["empty"] = err(lambda: (a * b).sum().backward(inputs=[]))
        out["no_grad_input"] = err(lambda: (a * b).sum().backward(inputs=[mk(lib, device, A)]))
        a.grad = None
        h = a * 2
        y = (h * b).sum()
        y.backward(inputs=[h], retain_graph=True)
        out["nonleaf"] = (h.retains_grad, warned(lambda: to_numpy(h.grad)), a.grad, b.grad)
        y.backward(inputs=[h])
        out["nonleaf_again"] = to_numpy(h.grad)
        a.grad = None
        (a * a + a).sum().backward(inputs=[a])
        out["used_twice"] = to_numpy(a.grad)
        a.grad = b.grad = None
        h = a * b
        (h.exp() + b).sum().backward(inputs=[b, h])
        out["mixed"] = (to_numpy(b.grad), to_numpy(h.grad), a.grad)
        return out

    assert_parity(scenario, device=device)


def test_backward_inputs_nonleaf_runs_its_node(device):
    """``backward(inputs=[h])`` for a non-leaf ``h`` runs ``h.grad_fn`` (its hooks fire and its
    saved tensors are freed, without reaching the leaves below); ``autograd.grad`` does not."""

    def scenario(lib, device):
        x = mk(lib, device, A, requires_grad=True)
        h = x.exp()
        y = (h * 3).sum()
        calls = []
        h.grad_fn.register_prehook(lambda g: calls.append("pre"))
        h.grad_fn.register_hook(lambda gi, go: calls.append("post"))
        lib.autograd.grad(y, h, retain_graph=True)
        out = {"grad": list(calls)}
        y.backward(inputs=[h], retain_graph=True)
        out["backward"] = (list(calls), to_numpy(h.grad), x.grad)
        y.backward(inputs=[h])
        out["freed"] = err(lambda: h.grad_fn._saved_result, "second time")
        out["again"] = err(lambda: y.backward(inputs=[h]), "second time")
        return out

    assert_parity(scenario, device=device)


def test_backward_inputs_non_leaf_node_computes_no_gradient(device):
    """The grad_fn of a non-leaf in ``backward(inputs=)`` runs but computes no gradient when
    none of its edges leads to an input: a saved tensor resized by ``.data =`` since is not
    read (minigrad's formula read it: a size error); a node that raises whatever the mask
    (NotImplemented) still raises; the post hook sees None."""

    def scenario(lib, device):
        a = mk(lib, device, np.float32(1.5))
        b = mk(lib, device, A, requires_grad=True)
        y = a * b
        seen = []
        y.grad_fn.register_hook(lambda gi, go: seen.append([g is None for g in gi]))
        a.data = mk(lib, device, np.arange(5.0).astype(np.float32))
        out = {"run": err(lambda: y.backward(lib.ones_like(y), inputs=[y]))}
        out["grads"] = (to_numpy(y.grad), b.grad, seen)
        z = 3 % b
        out["not_implemented"] = err(lambda: z.backward(lib.ones_like(z), inputs=[z]))
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ autograd.grad
def test_autograd_grad(device):
    def scenario(lib, device):
        ag = lib.autograd
        x = mk(lib, device, X3, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: calls.append("post"))
        calls = []
        x.register_hook(lambda g: calls.append("hook") or g * 10)
        y = (x * x).sum()
        out = {"plain": [to_numpy(g) for g in ag.grad(y, x, retain_graph=True)]}
        out["again"] = [to_numpy(g) for g in ag.grad(y, [x])]
        out["x.grad"] = x.grad
        out["calls"] = list(calls)
        out["third"] = err(lambda: ag.grad(y, x))
        x2 = mk(lib, device, X3, requires_grad=True)
        x2.grad = mk(lib, device, X3 * 100)
        ag.grad((x2 * 2).sum(), x2)
        out["preset_untouched"] = to_numpy(x2.grad)
        h = x2 * 2
        y = (h * h).sum()
        out["nonleaf"] = [to_numpy(g) for g in ag.grad(y, [h, x2])]
        u = mk(lib, device, A, requires_grad=True)
        out["unused"] = err(lambda: ag.grad((x2 * 2).sum(), [x2, u]))
        g = ag.grad((x2 * 2).sum(), [x2, u], allow_unused=True)
        out["allow_unused"] = (to_numpy(g[0]), g[1])
        g = ag.grad((x2 * 2).sum(), [x2, u], materialize_grads=True)
        out["materialize"] = [to_numpy(t) for t in g]
        out["no_grad_input"] = err(lambda: ag.grad((x2 * 2).sum(), [mk(lib, device, A)]))
        out["non_scalar"] = err(lambda: ag.grad(x2 * 2, x2))
        out["grad_outputs"] = to_numpy(ag.grad(x2 * 2, x2, grad_outputs=lib.ones_like(x2))[0])
        out["two_outputs"] = to_numpy(ag.grad([(x2 * 2).sum(), (x2 * x2).sum()], x2)[0])
        out["result_type"] = type(g).__name__
        out["returns_leaf"] = meta(ag.grad((x2 * x2).sum(), x2)[0])
        out["output_no_grad"] = err(lambda: ag.grad(mk(lib, device, A).sum(), x2))
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ tensor hooks
def test_tensor_hooks_chain_and_removal(device):
    def scenario(lib, device):
        x = mk(lib, device, np.array([1.0], np.float32), requires_grad=True)
        log = []
        x.register_hook(lambda g: log.append(("h1", to_numpy(g), to_numpy(x.grad))) or g * 2)
        h2 = x.register_hook(lambda g: log.append(("h2", to_numpy(g))))
        x.register_hook(lambda g: log.append(("h3", to_numpy(g))) or g + 1)
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post", to_numpy(t.grad))))
        (x * 3).sum().backward()
        h2.remove()
        h2.remove()  # a second remove is harmless
        (x * 3).sum().backward()
        return log, to_numpy(x.grad)

    assert_parity(scenario, device=device)


def test_tensor_hooks_nonleaf_and_retain_grad(device):
    def scenario(lib, device):
        a = mk(lib, device, A, requires_grad=True)
        y = a * 2
        log = []
        y.register_hook(lambda g: log.append(("A", to_numpy(g))) or g * 10)
        y.retain_grad()
        y.register_hook(lambda g: log.append(("B", to_numpy(g))) or g + 1)
        (y * mk(lib, device, np.array([4.0, 8.0], np.float32))).sum().backward()
        out = {"log": log, "y.grad": to_numpy(y.grad), "a.grad": to_numpy(a.grad)}
        x = mk(lib, device, A, requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(to_numpy(g)))
        (x * 2 + x * 3).sum().backward()
        out["once_summed"] = seen
        h = x * 1
        seen2 = []
        h.register_hook(lambda g: seen2.append(to_numpy(g)))
        (h * 2 + h * 3).sum().backward()
        out["nonleaf_once"] = seen2
        return out

    assert_parity(scenario, device=device)


def test_tensor_hook_with_handle_context_and_errors(device):
    def scenario(lib, device):
        x = mk(lib, device, A, requires_grad=True)
        calls = []
        with x.register_hook(lambda g: calls.append(1)):
            (x * 1).sum().backward()
        (x * 1).sum().backward()

        def bad(g):
            return g[:1]

        x.register_hook(bad)
        return {
            "calls": calls,
            "wrong_shape": err(lambda: (x * 1).sum().backward()),
            "no_grad_tensor": err(lambda: mk(lib, device, A).register_hook(lambda g: g)),
            "post_nonleaf": err(lambda: (x * 1).register_post_accumulate_grad_hook(print)),
            "grad": to_numpy(x.grad),
        }

    assert_parity(scenario, device=device)


def test_leaf_hook_order(device):
    def scenario(lib, device):
        x = mk(lib, device, A, requires_grad=True)
        y = x * 2
        log = []
        acc = y.grad_fn.next_functions[0][0]
        x.register_hook(lambda g: log.append(("tensor_hook", to_numpy(x.grad))))
        acc.register_prehook(lambda go: log.append(("acc_pre", len(go), to_numpy(x.grad))))
        acc.register_hook(lambda gi, go: log.append(("acc_post", gi, len(go))))
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post_acc", to_numpy(t.grad))))
        y.register_hook(lambda g: log.append("y_hook"))
        y.grad_fn.register_prehook(lambda go: log.append("mul_pre"))
        y.grad_fn.register_hook(lambda gi, go: log.append(("mul_post", len(gi), len(go))))
        y.sum().backward()
        return log

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ node hooks
def test_node_hooks(device):
    def scenario(lib, device):
        x = mk(lib, device, A, requires_grad=True)
        w = mk(lib, device, B / 3, requires_grad=True)
        z = x * w
        log = []
        hp = z.grad_fn.register_prehook(lambda go: log.append(("pre", to_numpy(go[0]))) or (
            go[0] * 10,))
        z.grad_fn.register_hook(lambda gi, go: log.append(
            ("post", [to_numpy(g) for g in gi], to_numpy(go[0]))))
        z.sum().backward(retain_graph=True)
        out = {"log": log, "x": to_numpy(x.grad), "w": to_numpy(w.grad)}
        hp.remove()
        x.grad = w.grad = None
        p = x * 2  # second slot is a Python scalar: grad None
        p.grad_fn.register_hook(lambda gi, go: log.append(("slots", [g is None for g in gi])))
        p.sum().backward()
        z.grad_fn.register_hook(lambda gi, go: (lib.full_like(gi[0], 7.0), None))
        z.sum().backward()
        out["replace"] = (to_numpy(x.grad), w.grad)
        out["log2"] = log[2:]
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ in-place history rewriting
INPLACE_ON_NONLEAF = {
    "add_": lambda b, x: b.add_(1),
    "iadd": lambda b, x: b.__iadd__(1),
    "add_x": lambda b, x: b.add_(x),
    "mul_": lambda b, x: b.mul_(2),
    "imul_x": lambda b, x: b.__imul__(x),
    "sub_": lambda b, x: b.sub_(1),
    "div_": lambda b, x: b.div_(2),
    "zero_": lambda b, x: b.zero_(),
    "fill_": lambda b, x: b.fill_(3.0),
    "relu_": lambda b, x: b.relu_(),
    "sigmoid_": lambda b, x: b.sigmoid_(),
    "clamp_": lambda b, x: b.clamp_(0, 1),
    "exp_": lambda b, x: b.exp_(),
    "tanh_": lambda b, x: b.tanh_(),
    "copy_plain": lambda b, x: b.copy_(x.detach() * 3),
    "copy_grad": lambda b, x: b.copy_(x.exp()),
    "chain": lambda b, x: b.mul_(2).add_(x).relu_(),
}


@pytest.mark.parametrize("op", list(INPLACE_ON_NONLEAF))
def test_inplace_rewrites_grad_fn(op, device):
    def scenario(lib, device):
        x = mk(lib, device, M34 + 0.25, requires_grad=True)
        b = x * 1
        ret = INPLACE_ON_NONLEAF[op](b, x)
        out = {"same": ret is b, "graph": graph_trace(b), "version": (b._version, x._version),
               "meta": meta(b), "values": to_numpy(b)}
        (b * mk(lib, device, M34)).sum().backward()
        out["grad"] = to_numpy(x.grad)
        return out

    assert_parity(scenario, device=device)


def test_inplace_keeps_saved_inputs_correct(device):
    """``b.mul_(x)``: the node saves the old ``b`` (a clone), so the gradient wrt x is right;
    ``b.mul_(b.detach())`` saves a tensor that the op itself then modifies: error at backward."""

    def scenario(lib, device):
        x = mk(lib, device, X3, requires_grad=True)
        b = x * 2
        b.mul_(x)
        (b * 3).sum().backward()
        out = {"grad": to_numpy(x.grad), "b": to_numpy(b)}
        b.mul_(b.detach())
        out["self_detached"] = err(lambda: b.sum().backward())
        return out

    assert_parity(scenario, device=device)


def test_inplace_output_saved_result(device):
    """``b.exp_()`` saves its result (the modified ``b``); another in-place op on ``b`` then
    breaks Exp's backward, naming Exp (the producer of the saved output)."""

    def scenario(lib, device):
        x = mk(lib, device, X3 / 3, requires_grad=True)
        b = x * 1
        b.exp_()
        r = b.grad_fn._saved_result
        out = {"saved": (to_numpy(r), r._version, b._version, r is b, node_name(r.grad_fn))}
        b.sigmoid_()
        r = b.grad_fn._saved_result
        out["after_sigmoid"] = (r._version, node_name(r.grad_fn))
        out["error"] = err(lambda: b.sum().backward())
        c = x * 1
        c.exp_()
        c.sum().backward()
        out["grad"] = to_numpy(x.grad)
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ in-place through views
VIEW_INPLACE = {
    "setitem_scalar": lambda b, x, y: b.__setitem__(0, 5.0),
    "setitem_slice_zero": lambda b, x, y: b.__setitem__((slice(None), slice(1, None)), 0),
    "setitem_from_x": lambda b, x, y: b.__setitem__(0, x[1]),
    "setitem_tensor_plain": lambda b, x, y: b.__setitem__(1, y.detach()),
    "setitem_tensor_grad": lambda b, x, y: b.__setitem__((slice(None), 2), y[:3] * 2),
    "setitem_0dim_grad": lambda b, x, y: b.__setitem__((1, 2), y[0]),
    "setitem_full_slice": lambda b, x, y: b.__setitem__(slice(None), 5.0),
    "setitem_ellipsis_tensor": lambda b, x, y: b.__setitem__(Ellipsis, y.detach()),
    "setitem_full_grad": lambda b, x, y: b.__setitem__(slice(None), y * 3),
    "setitem_row_1x4": lambda b, x, y: b.__setitem__(1, (y * 3).unsqueeze(0)),
    "setitem_col_bcast": lambda b, x, y: b.__setitem__((slice(None), 1), y[:1] * 3),
    "setitem_mask": lambda b, x, y: b.__setitem__(b > 0, 0.0),
    "setitem_mask_values": lambda b, x, y: b.__setitem__(x > 0, y[0].expand(1, 6) * 2),
    "setitem_index_list": lambda b, x, y: b.__setitem__((slice(None), [0, 2]),
                                                        y[:3].unsqueeze(1)),
    "setitem_int_and_list": lambda b, x, y: b.__setitem__((0, [0, 3]), y[:2]),
    "setitem_pairs": lambda b, x, y: b.__setitem__(([0, 2], [1, 3]), y[:2]),
    "select_mul_": lambda b, x, y: b[0].mul_(2),
    "t_zero_": lambda b, x, y: b.t().zero_(),
    "slice_add_grad": lambda b, x, y: b[1:, :2].add_(y[:2]),
    "view_view_mul_": lambda b, x, y: b[1][1:3].mul_(y[1:3]),
    "view_exp_": lambda b, x, y: b[2].exp_(),
    "view_sigmoid_": lambda b, x, y: b[:, 1].sigmoid_(),
    "reshape_relu_": lambda b, x, y: b.view(12).relu_(),
    "view_copy_": lambda b, x, y: b[0].copy_(y),
    "view_fill_tensor": lambda b, x, y: b[1].fill_(y[3]),
}


@pytest.mark.parametrize("op", list(VIEW_INPLACE))
def test_inplace_through_view(op, device):
    """In-place on views of a non-leaf (and ``b[idx] = v``): the base's grad_fn becomes
    CopySlices (or the op itself when the index keeps the whole tensor), the view's
    AsStridedBackward0; values, versions and gradients match."""

    def scenario(lib, device):
        x = mk(lib, device, M34, requires_grad=True)
        y = mk(lib, device, X4, requires_grad=True)
        b = x * 1
        VIEW_INPLACE[op](b, x, y)
        out = {"graph": graph_trace(b), "values": to_numpy(b), "version": b._version,
               "meta": meta(b)}
        (b * mk(lib, device, M34 * 3 + 1)).sum().backward()
        out["x.grad"] = to_numpy(x.grad)
        out["y.grad"] = None if y.grad is None else to_numpy(y.grad)
        return out

    assert_parity(scenario, device=device)


def test_view_grad_fn_after_inplace(device):
    def scenario(lib, device):
        x = mk(lib, device, M34, requires_grad=True)
        w = mk(lib, device, X4, requires_grad=True)
        b = x * 1
        v, col = b[0], b[:, 1]
        col.mul_(3)
        out = {"base": graph_trace(b), "modified_view": graph_trace(col),
               "other_view": graph_trace(v), "view_meta": (meta(col), meta(v))}
        ag = col.grad_fn
        out["saved"] = (ag._saved_size, ag._saved_stride, ag._saved_storage_offset)
        b2 = x * 2
        v2 = b2[1]
        b2.add_(w)  # in place on the base itself: existing views see the new history
        out["base_inplace_view"] = graph_trace(v2)
        z = (v * w).sum() + (v2 * 2).sum() + (col * col).sum()
        z.backward()
        out["x.grad"] = to_numpy(x.grad)
        out["w.grad"] = to_numpy(w.grad)
        c = x * 1
        with lib.no_grad():
            c.add_(1)
        out["no_grad_base_change"] = [node_name(n) for n in all_nodes(c[0])]
        p = mk(lib, device, X4)
        pv = p[0:2]
        p.add_(1)
        out["plain_view"] = (meta(pv), pv._version)
        return out

    assert_parity(scenario, device=device)


def test_setitem_into_plain_tensor(device):
    def scenario(lib, device):
        x = mk(lib, device, M34, requires_grad=True)
        z = lib.zeros(3, 4)
        if is_torch(lib):
            z = z.to(device)
        other = z[2]
        z[0] = x[0]
        z[1, 1:3] = x[1, :2] * 2
        out = {"graph": graph_trace(z), "meta": meta(z), "other_view": meta(other),
               "version": z._version}
        (z * (other + 1)).sum().backward()
        out["x.grad"] = to_numpy(x.grad)
        rows = []
        h = lib.zeros(3)
        if is_torch(lib):
            h = h.to(device)
        for i in range(3):
            h[i] = x[i].sum()
        h.sum().backward()
        out["loop"] = (to_numpy(x.grad), graph_trace(h)[:3])
        rows.append(meta(h))
        out["rows"] = rows
        return out

    assert_parity(scenario, device=device)


BOOL_INDICES = ["true", "false", "mask_true", "mask_false", "ellipsis_false", "none",
                "ellipsis_none"]


@pytest.mark.parametrize("ndim,index", [(0, i) for i in BOOL_INDICES]
                         + [(1, i) for i in BOOL_INDICES + ["true_0"]])
def test_setitem_bool_scalar_and_none_indices(device, index, ndim):
    """A bool scalar index (Python bool or 0-dim bool tensor) is a new dim indexed by [0] or
    []: the write goes through CopySlices (gradient 0 where written); a bare ``False`` writes
    nothing at all (no version bump, no history). ``None`` is a new size-1 dim, also on a
    0-dim tensor."""

    def scenario(lib, device):
        x = mk(lib, device, X4[:2].astype(np.float64) if ndim else np.float64(1.5),
               requires_grad=True)
        y = x * 2
        first = y[0] if ndim else y
        idx = {"true": True, "false": False, "mask_true": first > 0, "mask_false": first > 9,
               "true_0": (True, 0), "ellipsis_false": (Ellipsis, False), "none": None,
               "ellipsis_none": (Ellipsis, None)}[index]
        y[idx] = 5.0
        out = {"graph": graph_trace(y), "version": y._version, "value": to_numpy(y.detach())}
        (y * y).sum().backward()
        out["x.grad"] = to_numpy(x.grad)
        return out

    assert_parity(scenario, device=device)


def test_second_order_through_copy_slices(device):
    """create_graph through CopySlices and AsStridedBackward0: second derivatives match."""

    def scenario(lib, device):
        x = mk(lib, device, M34.astype(np.float64), requires_grad=True)
        y = mk(lib, device, X4.astype(np.float64), requires_grad=True)
        b = x * x
        v = b[2]
        b[0] = y * y
        b[1].mul_(y)
        z = (b ** 2).sum() + (v * y).exp().sum()
        gx, gy = lib.autograd.grad(z, [x, y], create_graph=True)
        hx, hy = lib.autograd.grad((gx ** 2).sum() + (gy * y).sum(), [x, y])
        return [to_numpy(t) for t in (gx, gy, hx, hy)], graph_trace(v)

    assert_parity(scenario, device=device, rtol=1e-9, atol=1e-9)


def test_inplace_view_then_saved_check(device):
    """``h = x.exp(); h[0:2].mul_(2)`` breaks Exp's saved result: error names Exp, version 1."""

    def scenario(lib, device):
        x = mk(lib, device, X4, requires_grad=True)
        h = x.exp()
        h[0:2].mul_(2)
        out = {"error": err(lambda: h.sum().backward())}
        h2 = x * 1
        h2[0:2].mul_(2)
        h2.exp().sum().backward()
        out["grad"] = to_numpy(x.grad)
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ deep graphs
def test_deep_chain_backward():
    """100,000 chained ops backpropagate (the engine is iterative), then the graph is dropped."""
    n = 100_000
    x = minigrad.tensor([1.0], requires_grad=True)
    h = x
    for _ in range(n):
        h = -h
    h.sum().backward()
    assert x.grad.item() == 1.0  # an even number of negations
    assert len(all_nodes(h)) == n + 1  # n NegBackward0 and one AccumulateGrad
    del h


def test_deep_chain_freed_without_recursion():
    """Dropping a 100k-op graph that still holds its saved tensors (no backward ran) frees it by
    refcounting without overflowing the C stack or hitting the recursion limit."""
    code = textwrap.dedent("""
        import sys
        sys.setrecursionlimit(1000)
        import minigrad
        x = minigrad.tensor([1.0], requires_grad=True)
        h = x
        for _ in range(50_000):
            h = (-h).abs()  # AbsBackward0 saves its input: a reference to the previous tensor
        out = h.exp()  # saves its output
        del h
        del out
        print("ok")
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["ok"]


def test_backward_with_inf_and_nan_is_silent(device):
    """Gradients that become inf or nan (here a var over ``dim=[]``, whose backward counts one
    element, so divides by 0 degrees of freedom) come without warnings, as in PyTorch: the
    engine's sums and the formulas run with NumPy's floating-point warnings off."""

    def scenario(lib, device):
        x = mk(lib, device, X4[:2], requires_grad=True)
        v = x.var(dim=[], correction=1)
        (gx,), cats = warned(lambda: lib.autograd.grad(v, [x], create_graph=True))
        (ggx,), cats2 = warned(lambda: lib.autograd.grad(gx.sum(), [x]))
        return to_numpy(gx), to_numpy(ggx), cats, cats2

    assert_parity(scenario, device=device)
