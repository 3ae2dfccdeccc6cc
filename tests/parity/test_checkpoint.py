"""Parity: ``utils.checkpoint`` (both variants) and ``get_rng_state``/``set_rng_state``
— minigrad vs PyTorch.

Gradients equal to those of the same model run without checkpointing; the checkpointed forward
recomputed exactly once per backward (counted); fewer saved tensors reachable from the loss
between forward and backward (counted in both libraries, and minigrad's live ``SavedTensor``
objects; for both variants, weak references to the intermediates); the
``CheckpointFunctionBackward`` node and its edges, and for ``use_reentrant=False`` the graph
identical to the one without checkpoint; dropout masks replayed by ``preserve_rng_state``;
``autograd.grad``, keyword arguments, ``context_fn``, early stop; PyTorch's warnings and errors
(``CheckpointError`` of a recomputation that does not match). Behaviours from PyTorch's
``test/test_autograd.py`` / ``test/test_utils.py`` (checkpointing) and
``torch/utils/checkpoint.py``.
"""

import gc
import warnings
import weakref

import numpy as np

from minigrad.parity import assert_parity, graph_nodes, graph_trace, to_numpy
from tests.parity.test_tensor_meta import err, mk

RNG = np.random.default_rng(2)
SIZES = [(4, 6), (6, 6), (6, 6), (6, 6), (6, 1)]
WEIGHTS = {}
for _i, (_a, _b) in enumerate(SIZES):
    WEIGHTS[f"{2 * _i}.weight"] = (RNG.standard_normal((_b, _a)) * 0.5).astype(np.float32)
    WEIGHTS[f"{2 * _i}.bias"] = (RNG.standard_normal(_b) * 0.1).astype(np.float32)
X = RNG.standard_normal((3, 4)).astype(np.float32)
V = np.array([0.5, -1.0, 2.0], dtype=np.float32)


def model(lib, device):
    """Linear/Tanh x 4 + Linear, the same weights in both libraries."""
    layers = []
    for i, (a, b) in enumerate(SIZES):
        layers.append(lib.nn.Linear(a, b))
        if i < len(SIZES) - 1:
            layers.append(lib.nn.Tanh())
    net = lib.nn.Sequential(*layers)
    state = WEIGHTS if lib.__name__ == "minigrad" else {k: lib.tensor(v) for k, v in
                                                         WEIGHTS.items()}
    net.load_state_dict(state)
    return net.to(device) if lib.__name__ == "torch" else net


def grads(net, x):
    return {n: to_numpy(p.grad) for n, p in net.named_parameters()} | {"x": to_numpy(x.grad)}


def saved_count(t) -> int:
    """Tensors saved for backward by the nodes reachable from ``t`` (``_raw_saved_*`` of the
    built-in nodes, ``saved_tensors`` of custom Function nodes)."""
    n = 0
    for node in graph_nodes([t.grad_fn]):
        if type(node).__name__.startswith("Checkpoint"):
            n += len(node.saved_tensors)  # (PyTorch also lists them as ``_raw_saved_tensors``)
        else:
            n += sum(a.startswith("_raw_saved_") for a in dir(node))
    return n


def counted(net):
    """Count the forward calls of every module of ``net`` (a forward hook each)."""
    calls = {}
    for name, m in net.named_children():
        calls[name] = 0

        def hook(mod, inp, out, name=name):
            calls[name] += 1

        m.register_forward_hook(hook)
    return calls


def middle(net):
    """Layers 2-5 of ``net`` as one function (the checkpointed block)."""
    return lambda h: net[5](net[4](net[3](net[2](h))))


def run(lib, device, checkpointed, net=None, reentrant=True):
    """Loss of ``net`` on X; the middle block checkpointed (by either variant) or not."""
    net = net or model(lib, device)
    x = mk(lib, device, X, requires_grad=True)
    h = net[1](net[0](x))
    if checkpointed:
        h = lib.utils.checkpoint.checkpoint(middle(net), h, use_reentrant=reentrant)
    else:
        h = middle(net)(h)
    return net, x, net[8](net[7](net[6](h))).pow(2).sum()


# ------------------------------------------------------------------------------ gradients
def test_same_gradients_as_without_checkpoint(device):
    def scenario(lib, device):
        net, x, loss = run(lib, device, checkpointed=False)
        loss.backward()
        plain = grads(net, x)
        net, x, loss = run(lib, device, checkpointed=True)
        graph = graph_trace(loss)
        loss.backward()
        ck = grads(net, x)
        return {"plain": plain, "checkpointed": ck, "graph": graph,
                "equal": all(np.allclose(plain[k], ck[k], rtol=1e-6, atol=1e-7) for k in plain)}

    a, _ = assert_parity(scenario, device=device)
    assert a["equal"]
    assert "CheckpointFunctionBackward" in [n for n, _ in a["graph"]]


def test_graph_of_the_checkpoint_node(device):
    """Only tensor arguments get an edge; every tensor output has the same node (one output
    slot each); a non-tensor output comes back as it is."""
    def scenario(lib, device):
        ck = lib.utils.checkpoint.checkpoint
        x = mk(lib, device, V, requires_grad=True)
        w = mk(lib, device, V * 2, requires_grad=True)
        c = mk(lib, device, V)  # no grad: an edge (None) all the same

        def fn(a, scale, b, d):
            return (a * b).sin() * scale, "tag", (a + d).cos()

        y1, tag, y2 = ck(fn, x, 3.0, w, c, use_reentrant=True)
        node = y1.grad_fn
        out = {"graph": graph_trace(y1), "tag": tag, "same_node": node is y2.grad_fn,
               "output_nr": (y1.output_nr, y2.output_nr), "name": node.name(),
               "saved": len(node.saved_tensors)}
        (y1.sum() + 2 * y2.sum()).backward()
        out["grads"] = [to_numpy(x.grad), to_numpy(w.grad)]
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------------------ recomputation
def test_forward_recomputed_once_per_backward(device):
    def scenario(lib, device):
        net = model(lib, device)
        calls = counted(net)
        trace = []
        net, x, loss = run(lib, device, checkpointed=True, net=net)
        trace.append(dict(calls))
        loss.backward(retain_graph=True)
        trace.append(dict(calls))
        loss.backward()  # a second backward recomputes again
        trace.append(dict(calls))
        return trace

    a, _ = assert_parity(scenario, device=device)
    assert [t["3"] for t in a] == [1, 2, 3] and [t["0"] for t in a] == [1, 1, 1]


def test_checkpoint_sequential(device):
    """6 modules... in 3 segments: the first two are checkpointed (recomputed in backward), the
    last is not; the gradients are those of the plain model."""
    def scenario(lib, device):
        ck = lib.utils.checkpoint
        out = {}
        for segments in (1, 3, 9):
            net = model(lib, device)
            calls = counted(net)
            x = mk(lib, device, X, requires_grad=True)
            y = ck.checkpoint_sequential(net, segments, x, use_reentrant=True)
            graph = [n for n, _ in graph_trace(y)]
            before = dict(calls)
            y.pow(2).sum().backward()
            out[segments] = {"graph": graph, "forward": before, "after": dict(calls),
                             "grads": grads(net, x)}
        net = model(lib, device)
        x = mk(lib, device, X, requires_grad=True)
        y = ck.checkpoint_sequential(list(net.children()), 2, x, use_reentrant=True)
        y.pow(2).sum().backward()
        out["list"] = grads(net, x)
        return out

    a, _ = assert_parity(scenario, device=device)
    assert a[3]["graph"].count("CheckpointFunctionBackward") == 2
    for k, g in a[3]["grads"].items():
        np.testing.assert_allclose(g, a[1]["grads"][k], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g, a["list"][k], rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------ memory
def test_fewer_saved_tensors_between_forward_and_backward(device):
    def scenario(lib, device):
        out = {}
        for checkpointed in (False, True):
            _, _, loss = run(lib, device, checkpointed)
            out[checkpointed] = {"saved": saved_count(loss),
                                 "nodes": len(graph_nodes([loss.grad_fn]))}
        return out

    a, _ = assert_parity(scenario, device=device)
    assert a[True]["saved"] < a[False]["saved"]
    assert a[True]["nodes"] < a[False]["nodes"]


def test_live_saved_tensor_objects_in_minigrad():
    """minigrad only (PyTorch's SavedVariable is C++): the SavedTensor objects alive while the
    loss waits for backward — the checkpointed block keeps one (its input), not its ops'."""
    import minigrad
    from minigrad.autograd.graph import SavedTensor

    def alive():
        gc.collect()
        return sum(type(o) is SavedTensor for o in gc.get_objects())

    base = alive()
    counts = {}
    for checkpointed in (False, True):
        _, _, loss = run(minigrad, "cpu", checkpointed)
        counts[checkpointed] = alive() - base
        assert counts[checkpointed] == saved_count(loss)
        del loss
    # the middle block (2 Linear + 2 Tanh) saves 2 + 2 + 2 tensors; checkpointed, one input
    assert counts[False] - counts[True] == 6 - 1, counts


# ------------------------------------------------------------------------------ RNG
def test_preserve_rng_state_replays_dropout(device):
    """With preserve_rng_state the recomputation draws the same dropout mask (gradients as
    without checkpointing, with the same seed); without it, another mask. After backward the
    generator is where the forward left it. Compared as facts: the two generators differ."""
    def scenario(lib, device):
        ck = lib.utils.checkpoint.checkpoint

        def fn(a):
            return lib.nn.functional.dropout(a.tanh(), 0.5) * 3

        def grad_of(mode):
            lib.manual_seed(7)
            x = mk(lib, device, np.linspace(-1, 1, 64), requires_grad=True)
            y = fn(x) if mode == "plain" else ck(fn, x, use_reentrant=True,
                                               preserve_rng_state=mode == "preserve")
            after_forward = lib.get_rng_state()
            y.sum().backward()
            untouched = bool((lib.get_rng_state() == after_forward).all())
            return to_numpy(x.grad), untouched

        plain, _ = grad_of("plain")
        kept, untouched = grad_of("preserve")
        lost, untouched_without = grad_of("no_preserve")
        return {"same_with": bool(np.array_equal(plain, kept)),
                "same_without": bool(np.array_equal(plain, lost)),
                "generator_untouched": untouched, "generator_untouched_without": untouched_without}

    a, _ = assert_parity(scenario, device=device)
    assert a == {"same_with": True, "same_without": False, "generator_untouched": True,
                 "generator_untouched_without": False}


def test_rng_state_api():
    def scenario(lib):
        lib.manual_seed(3)
        state = lib.get_rng_state()
        first = to_numpy(lib.rand(5))
        lib.set_rng_state(state)
        again = to_numpy(lib.rand(5))
        return {"dtype": str(state.dtype).split(".")[-1], "ndim": state.ndim,
                "replayed": bool(np.array_equal(first, again)),
                "not_tensor": err(lambda: lib.set_rng_state(5), "expected a", "ByteTensor"),
                "float": err(lambda: lib.set_rng_state(lib.zeros(3)), "ByteTensor"),
                "size": err(lambda: lib.set_rng_state(lib.zeros(3, dtype=lib.uint8)),
                            "of size", "size to be 3")}

    assert_parity(scenario)


# ------------------------------------------------------------------------------ warnings, errors
def caught(fn):
    """(result of fn, [(category, message)] of the warnings it emitted); ``torch`` in a
    message reads ``minigrad``."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, [(x.category.__name__, str(x.message).replace("torch", "minigrad")) for x in w]


def test_warnings_and_errors(device):
    def scenario(lib, device):
        ck = lib.utils.checkpoint
        x = mk(lib, device, V, requires_grad=True)

        def f(a):
            return a.sin() * 2

        out = {}
        y, out["missing_use_reentrant"] = caught(lambda: ck.checkpoint(f, x))
        out["default_is_reentrant"] = type(y.grad_fn).__name__
        _, out["sequential_missing"] = caught(lambda: ck.checkpoint_sequential(
            [f, f], 2, x))
        out["grad"] = err(lambda: lib.autograd.grad(
            ck.checkpoint(f, x, use_reentrant=True).sum(), x), "use_reentrant=True",
            "incompatible with .grad()")
        out["backward_inputs"] = err(lambda: ck.checkpoint(f, x, use_reentrant=True).sum()
                                     .backward(inputs=[x]), "`inputs` parameter")
        out["kwargs"] = err(lambda: ck.checkpoint(lambda a, b=1: a * b, x, use_reentrant=True,
                                                  b=2))
        out["sequential_kwargs"] = err(lambda: ck.checkpoint_sequential([f], 1, x,
                                                                        use_reentrant=True, b=2))
        out["context_fn"] = err(lambda: ck.checkpoint(f, x, use_reentrant=True,
                                                      context_fn=lambda: None))
        out["debug"] = err(lambda: ck.checkpoint(f, x, use_reentrant=True, debug=True))
        out["noop_context_fn_accepted"] = ck.checkpoint(
            f, x, use_reentrant=True, context_fn=ck.noop_context_fn).grad_fn.name()
        # no argument requires grad: a warning, and the parameters inside get nothing
        net = model(lib, device)
        plain = mk(lib, device, X)
        y, out["no_input_requires_grad"] = caught(lambda: ck.checkpoint(net, plain,
                                                                        use_reentrant=True))
        out["output_requires_grad"] = y.requires_grad
        out["backward_then"] = err(lambda: y.sum().backward(), "does not require grad")
        out["param_grads"] = [p.grad is None for p in net.parameters()]
        # the recomputed output does not require grad
        y = ck.checkpoint(lambda a: (a > 0).float(), x, use_reentrant=True)
        out["recomputed_no_grad"] = (y.requires_grad, err(lambda: y.sum().backward()))
        out["detach_variable"] = err(lambda: ck.detach_variable([x]))
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------------------ non-reentrant
def test_non_reentrant_same_gradients_and_graph(device):
    """``use_reentrant=False``: no node of its own (the graph is the one without checkpoint),
    the same gradients, by ``backward`` and by ``autograd.grad``."""
    def scenario(lib, device):
        out = {}
        for checkpointed in (False, True):
            net, x, loss = run(lib, device, checkpointed, reentrant=False)
            out[f"graph_{checkpointed}"] = graph_trace(loss)
            params = [x] + list(net.parameters())
            grads_by_grad = lib.autograd.grad(loss, params, retain_graph=True)
            loss.backward()
            out[f"grads_{checkpointed}"] = grads(net, x)
            out[f"by_grad_{checkpointed}"] = [to_numpy(g) for g in grads_by_grad]
        return out

    a, _ = assert_parity(scenario, device=device)
    assert a["graph_True"] == a["graph_False"]
    for k, v in a["grads_False"].items():
        np.testing.assert_allclose(a["grads_True"][k], v, rtol=1e-6, atol=1e-7)
    for g, p in zip(a["by_grad_True"], a["by_grad_False"]):
        np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-7)


def test_non_reentrant_recomputed_once_per_backward(device):
    """One recomputation per backward (graph task), ``autograd.grad`` included; a backward
    without ``retain_graph`` frees the placeholders: a second one raises PyTorch's error."""
    def scenario(lib, device):
        net = model(lib, device)
        calls = counted(net)
        trace = []
        net, x, loss = run(lib, device, checkpointed=True, net=net, reentrant=False)
        trace.append(dict(calls))
        loss.backward(retain_graph=True)
        trace.append(dict(calls))
        lib.autograd.grad(loss, [x], retain_graph=True)
        trace.append(dict(calls))
        loss.backward()
        trace.append(dict(calls))
        return {"calls": trace, "again": err(lambda: loss.backward(), "a second time"),
                "after": dict(calls)}

    a, _ = assert_parity(scenario, device=device)
    assert [t["3"] for t in a["calls"]] == [1, 2, 3, 4] and a["after"]["3"] == 4


def test_non_reentrant_keeps_fewer_tensors_alive(device):
    """Between forward and backward, the intermediates that the block's ops saved are not
    kept (weak references to them die), as with the reentrant variant; without checkpointing
    every one is alive."""
    def scenario(lib, device):
        out = {}
        for mode in ("plain", "non_reentrant", "reentrant"):
            refs = []

            def block(a, refs=refs):
                h = a
                for _ in range(4):
                    m = h * 1.5
                    refs.append(weakref.ref(m))  # sin saves its input m
                    h = m.sin()
                return h

            x = mk(lib, device, V, requires_grad=True)
            y = block(x) if mode == "plain" else lib.utils.checkpoint.checkpoint(
                block, x, use_reentrant=mode == "reentrant")
            loss = y.sum()
            gc.collect()
            out[mode] = sum(r() is not None for r in refs)
            loss.backward()
            out[f"grad_{mode}"] = to_numpy(x.grad)
        return out

    a, _ = assert_parity(scenario, device=device)
    assert a["plain"] == 4 and a["non_reentrant"] == 0 and a["reentrant"] == 0


def test_non_reentrant_arguments_outputs_and_rng(device):
    """Keyword arguments go to the function; nested outputs; non-tensor arguments; no argument
    requiring grad (parameters inside still get gradients, unlike the reentrant variant);
    no recording under no_grad; ``preserve_rng_state`` replays dropout."""
    def scenario(lib, device):
        ck = lib.utils.checkpoint.checkpoint
        calls = []

        def fn(a, scale, b=None, *, power=2):
            calls.append((scale, power))
            return {"y": (a * b).pow(power) * scale, "pair": (a.sin(), "tag")}

        x = mk(lib, device, V, requires_grad=True)
        w = mk(lib, device, V * 2, requires_grad=True)
        out = ck(fn, x, 3.0, b=w, power=3, use_reentrant=False)
        trace = {"graph": graph_trace(out["y"]), "tag": out["pair"][1]}
        (out["y"].sum() + out["pair"][0].sum()).backward()
        trace["grads"] = [to_numpy(x.grad), to_numpy(w.grad)]
        net = model(lib, device)
        y = ck(net, mk(lib, device, X), use_reentrant=False)
        trace["no_input_requires_grad"] = (y.requires_grad, graph_trace(y))
        y.sum().backward()
        trace["param_grad"] = to_numpy(net[0].weight.grad)
        with lib.no_grad():
            trace["no_grad"] = ck(fn, x, 1.0, b=w, use_reentrant=False)["y"].requires_grad

        def drop(a):
            return lib.nn.functional.dropout(a.tanh(), 0.5) * 3

        def grad_of(mode):
            lib.manual_seed(7)
            z = mk(lib, device, np.linspace(-1, 1, 64), requires_grad=True)
            y = drop(z) if mode == "plain" else ck(drop, z, use_reentrant=False,
                                                   preserve_rng_state=mode == "preserve")
            after_forward = lib.get_rng_state()
            y.sum().backward()
            return to_numpy(z.grad), bool((lib.get_rng_state() == after_forward).all())

        plain, _ = grad_of("plain")
        kept, untouched = grad_of("preserve")
        lost, _ = grad_of("no_preserve")
        trace["rng"] = (bool(np.array_equal(plain, kept)), bool(np.array_equal(plain, lost)),
                        untouched)
        trace["calls"] = calls
        return trace

    a, _ = assert_parity(scenario, device=device)
    assert a["rng"] == (True, False, True)


def test_non_reentrant_context_fn_and_early_stop(device):
    def scenario(lib, device):
        ck = lib.utils.checkpoint
        log = []

        class Ctx:
            def __init__(self, name):
                self.name = name

            def __enter__(self):
                log.append(("enter", self.name))

            def __exit__(self, *exc):
                log.append(("exit", self.name))

        def fn(a):
            log.append("fn")
            h = a.sin()
            log.append("after sin")
            return h.exp()

        x = mk(lib, device, V, requires_grad=True)
        y = ck.checkpoint(fn, x, use_reentrant=False,
                          context_fn=lambda: (Ctx("forward"), Ctx("recompute")))
        y.sum().backward()
        log.append("-- no early stop")
        with ck.set_checkpoint_early_stop(False):
            y = ck.checkpoint(fn, x, use_reentrant=False)
        y.sum().backward()
        return log, to_numpy(x.grad)

    assert_parity(scenario, device=device)


def test_non_reentrant_errors(device):
    """Recomputation that saves tensors of other shapes, or fewer tensors (CheckpointError, a
    RuntimeError; not with ``determinism_check="none"``), a bad ``determinism_check``, a saved
    tensor unpacked twice in one backward, an input modified in place before backward."""
    def scenario(lib, device):
        ck = lib.utils.checkpoint
        state = {"n": 0}

        def changing(a):  # the recomputation sees another shape
            state["n"] += 1
            return (a[:2] if state["n"] % 2 else a).sin().sum()

        def fewer(a):  # the recomputation saves fewer tensors
            state["n"] += 1
            return a.sin().sin().sum() if state["n"] % 2 else (a * 2).sum()

        class ReadsTwice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                (a,) = ctx.saved_tensors
                return g * 2

        x = mk(lib, device, V, requires_grad=True)
        out = {}
        state["n"] = 0
        y = ck.checkpoint(changing, x, use_reentrant=False)
        e = None
        try:
            y.backward()
        except RuntimeError as exc:
            e = exc
        out["metadata"] = (type(e).__name__, isinstance(e, RuntimeError),
                           "have different metadata than during the forward pass" in str(e),
                           "tensor at position 0" in str(e))
        state["n"] = 0
        y = ck.checkpoint(changing, x, use_reentrant=False, determinism_check="none")
        out["metadata_unchecked"] = err(lambda: y.backward())
        state["n"] = 0
        y = ck.checkpoint(fewer, x, use_reentrant=False)
        out["fewer"] = err(lambda: y.backward(), "A different number of tensors was saved",
                           "Number of tensors saved during forward: 2",
                           "Number of tensors saved during recomputation: 1")
        out["bad_check"] = err(lambda: ck.checkpoint(changing, x, use_reentrant=False,
                                                     determinism_check="strict"))
        out["debug_and_context_fn"] = err(lambda: ck.checkpoint(
            changing, x, use_reentrant=False, debug=True, context_fn=lambda: (None, None)))
        y = ck.checkpoint(lambda a: ReadsTwice.apply(a.exp()), x, use_reentrant=False)
        out["twice"] = err(lambda: y.sum().backward(), "already unpacked once")
        h = x * 1
        y = ck.checkpoint(lambda a: a.sin(), h, use_reentrant=False)
        h.add_(1)
        out["modified_input"] = err(lambda: y.sum().backward(),
                                    "modified by an inplace operation")
        out["error_class"] = issubclass(ck.CheckpointError, RuntimeError)
        return out

    assert_parity(scenario, device=device)


def test_checkpoint_sequential_non_reentrant(device):
    def scenario(lib, device):
        net = model(lib, device)
        x = mk(lib, device, X, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint_sequential(net, 3, x, use_reentrant=False)
        graph = graph_trace(y)
        y.pow(2).sum().backward()
        return graph, grads(net, x)

    assert_parity(scenario, device=device)


def test_non_tensor_arguments_and_outputs(device):
    """Non-tensors among the arguments and the outputs (returned as they are), in-place ops
    inside the checkpointed function, an input returned as-is; backward through each output,
    the freed graph's error, and the gradients of the same calls without checkpointing."""
    def scenario(lib, device):
        ck = lib.utils.checkpoint.checkpoint

        def foo(t1, t2, scale, t3):
            t4 = t1 + t2 * t3
            t5 = t1 * t2 + t3
            t4 *= scale
            t5 *= scale
            return scale, t4, None, True, t5, "bar", t1

        t1 = mk(lib, device, V, requires_grad=True)
        t2 = mk(lib, device, V[::-1].copy(), requires_grad=True)
        t3 = mk(lib, device, V * 3)
        res = ck(foo, t1, t2, 4, t3, use_reentrant=True)
        out = {"plain": [r for i, r in enumerate(res) if i not in (1, 4, 6)],
               "values": [to_numpy(res[i]) for i in (1, 4, 6)],
               "graph": graph_trace(res[6]), "same_node": res[1].grad_fn is res[6].grad_fn,
               "versions": [res[i]._version for i in (1, 4, 6)]}
        res[1].sum().backward(retain_graph=True)
        res[4].sum().backward(retain_graph=True)
        res[6].sum().backward()
        out["second_time"] = err(lambda: res[6].sum().backward(), "a second time")
        out["grads"] = [to_numpy(t1.grad), to_numpy(t2.grad)]
        t1.grad = t2.grad = None
        plain = foo(t1, t2, 4, t3)
        lib.autograd.backward([plain[1].sum(), plain[4].sum(), plain[6].sum()])
        out["plain_grads"] = [to_numpy(t1.grad), to_numpy(t2.grad)]
        # no tensor at all: the function's own results, nothing recorded (and a warning)
        out["no_tensors"] = caught(lambda: ck(foo, 1.0, 2.0, 3, 0.5, use_reentrant=True))
        # a tensor argument that does not require grad, passed through: its gradient slot is
        # None; the other output still backpropagates
        a = mk(lib, device, V, requires_grad=True)
        b = mk(lib, device, V)
        o = ck(lambda p, q: (p * 2, q), a, b, use_reentrant=True)
        out["pass_through"] = (o[1].requires_grad, o[1].grad_fn is None)
        o[0].sum().backward()
        out["pass_through_grad"] = to_numpy(a.grad)
        # only the argument that does not flow to the output requires grad
        o = ck(lambda p, q: p * 2, b, a, use_reentrant=True)
        out["wrong_argument"] = (o.requires_grad, err(lambda: o.sum().backward()))
        return out

    a, _ = assert_parity(scenario, device=device)
    for g, p in zip(a["grads"], a["plain_grads"]):
        np.testing.assert_allclose(g, p, rtol=1e-6)


def test_non_reentrant_in_place_nested_and_saved_reads(device):
    """In-place ops inside the function and an input returned as-is (the ordinary graph and
    versions), backward through each output, the freed graph's error; a read of
    ``node._saved_result`` outside backward recomputes each time; a checkpoint inside a
    checkpoint."""
    def scenario(lib, device):
        ck = lib.utils.checkpoint.checkpoint

        def foo(t1, t2, scale, t3):
            t4 = t1 + t2 * t3
            t5 = t1 * t2 + t3
            t4 *= scale
            t5 *= scale
            return scale, t4, None, True, t5, "bar", t1

        t1 = mk(lib, device, V, requires_grad=True)
        t2 = mk(lib, device, V[::-1].copy(), requires_grad=True)
        t3 = mk(lib, device, V * 3)
        res = ck(foo, t1, t2, 4, t3, use_reentrant=False)
        out = {"graph": [graph_trace(res[i]) for i in (1, 4, 6)],
               "versions": [res[i]._version for i in (1, 4, 6)], "same": res[6] is t1}
        res[1].sum().backward(retain_graph=True)
        res[4].sum().backward(retain_graph=True)
        out["grads"] = [to_numpy(t1.grad), to_numpy(t2.grad)]
        res[4].sum().backward()
        out["second"] = err(lambda: res[4].sum().backward(), "a second time")
        # reading a saved tensor outside backward recomputes
        calls = []

        def g(a):
            calls.append(1)
            return a.exp()

        y = ck(g, t1, use_reentrant=False)
        out["saved_read"] = (to_numpy(y.grad_fn._saved_result), len(calls))
        out["saved_read2"] = (to_numpy(y.grad_fn._saved_result), len(calls))
        # nested checkpoint
        y = ck(lambda a: ck(g, a.sin(), use_reentrant=False).cos(), t1, use_reentrant=False)
        t1.grad = None
        y.sum().backward()
        out["nested"] = (to_numpy(t1.grad), len(calls))
        return out

    a, _ = assert_parity(scenario, device=device)
    assert a["saved_read"][1] == 2 and a["saved_read2"][1] == 3
