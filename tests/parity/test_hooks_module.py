"""Parity: module backward hooks (full, pre, legacy, global) — arguments, replacement values,
order, the graph they create, warnings and errors (facts §5.1, §5.6) — minigrad vs PyTorch."""

import warnings
from importlib import import_module

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, capture_error, graph_trace, to_numpy

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1)
X53 = RNG.standard_normal((5, 3)).astype(np.float32)
X453 = RNG.standard_normal((4, 5, 3)).astype(np.float32)
W23 = RNG.standard_normal((2, 3)).astype(np.float32)
B2 = RNG.standard_normal(2).astype(np.float32)


def mk(lib, device, arr, requires_grad=False):
    t = lib.tensor(arr)
    if lib is torch:
        t = t.to(device)
    return t.requires_grad_(requires_grad)


def linear(lib, device, bias=True):
    lin = lib.nn.Linear(3, 2, bias=bias)
    state = {"weight": lib.tensor(W23), "bias": lib.tensor(B2)} if bias else {
        "weight": lib.tensor(W23)}
    lin.load_state_dict(state)
    return lin.to(device) if lib is torch else lin


def mod_module(lib):
    return import_module(lib.__name__ + ".nn.modules.module")


def err(fn):
    e = capture_error(fn)
    return None if e is None else (e[0], e[1].splitlines()[0].replace("minigrad", "torch")
                                   .replace("torch.cuda.", "torch."))  # minigrad is CPU-only


def warned(fn):
    """Run ``fn``; return its result and the ``(category, first line)`` of every warning."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = fn()
    return res, [(x.category.__name__, str(x.message).splitlines()[0]) for x in w]


def arrays(ts):
    return [None if t is None else to_numpy(t) for t in ts]


@pytest.fixture(autouse=True)
def _reset_global_flags():
    """The 'full vs legacy' global flag is process-wide in PyTorch; reset it between tests."""
    yield
    for lib in (minigrad, torch):
        mm = mod_module(lib)
        if not mm._global_backward_hooks:
            mm._global_is_full_backward_hook = None


# ------------------------------------------------------------------ grad_input rules
def test_two_inputs_two_outputs_zero_fill(device):
    """§5.6: an input without grad gets a zero tensor while another input requires grad;
    an unused output gets None in grad_output."""

    def scenario(lib, device):
        class M(lib.nn.Module):
            def forward(self, a, b):
                return a * b, a + b

        log = []
        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: log.append((arrays(gi), arrays(go))))
        a = mk(lib, device, np.array([1.0, 2.0], np.float32), True)
        b = mk(lib, device, np.array([3.0, 4.0], np.float32))
        o1, o2 = m(a, b)
        graph = graph_trace(o1)
        o1.sum().backward()
        o1, o2 = m(a, b)
        (o1 + o2).sum().backward()
        return log, graph, b.grad is None, to_numpy(a.grad), o2.grad_fn is o1.grad_fn

    assert_parity(scenario, device=device)


def test_non_tensor_argument_gives_none(device):
    def scenario(lib, device):
        class M(lib.nn.Module):
            def forward(self, a, k):
                return a * k

        log = []
        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: log.append((arrays(gi), arrays(go))))
        a = mk(lib, device, np.array([1.0, 2.0], np.float32), True)
        m(a, 3).sum().backward()
        return log

    assert_parity(scenario, device=device)


def test_no_input_requires_grad_fires_at_output(device):
    def scenario(lib, device):
        lin, log = linear(lib, device), []
        lin.register_full_backward_pre_hook(lambda m, go: log.append(("pre", arrays(go))))
        lin.register_full_backward_hook(lambda m, gi, go: log.append(("full", gi, arrays(go))))
        _, w = warned(lambda: lin(mk(lib, device, X53)).sum().backward())
        lin.register_full_backward_hook(lambda m, gi, go: (gi[0],))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = err(lambda: lin(mk(lib, device, X53)).sum().backward())
        return log, w, e, to_numpy(lin.weight.grad)

    assert_parity(scenario, device=device)


def test_no_grad_mode_and_no_output_grad(device):
    """Under no_grad nothing is wrapped and no hook fires; an output that does not require grad
    (a module with no parameters, input without grad) fires nothing either."""

    def scenario(lib, device):
        lin, log = linear(lib, device), []
        lin.register_full_backward_hook(lambda m, gi, go: log.append("full"))
        with lib.no_grad():
            out = lin(mk(lib, device, X53, True))
        relu = lib.nn.ReLU()
        relu.register_full_backward_hook(lambda m, gi, go: log.append("relu"))
        r = relu(mk(lib, device, X53))
        return log, out.grad_fn is None, r.grad_fn is None, r._is_view()

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ replacing gradients
def test_pre_hook_and_full_hook_replace_gradients(device):
    """§5.6: a pre hook scales everything downstream; a full hook changes only what flows to
    the input (parameters were accumulated before it); a second hook sees the replacement."""

    def scenario(lib, device):
        out = {}
        lin = linear(lib, device)
        with lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 10,)):
            x = mk(lib, device, X53, True)
            lin(x).sum().backward()
        out["pre"] = arrays([x.grad, lin.weight.grad, lin.bias.grad])
        lin.zero_grad()
        seen = []
        h1 = lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 100,))
        h2 = lin.register_full_backward_hook(lambda m, gi, go: seen.append(arrays(gi)))
        x = mk(lib, device, X53, True)
        lin(x).sum().backward()
        out["full"] = arrays([x.grad, lin.weight.grad]) + [seen]
        h1.remove()
        h2.remove()
        out["left"] = [len(lin._backward_hooks), lin._is_full_backward_hook]
        return out

    assert_parity(scenario, device=device)


def test_hook_order_prepend_and_global(device):
    def scenario(lib, device):
        mm, lin, log = mod_module(lib), linear(lib, device), []

        def pre(tag):
            return lambda m, go: log.append("pre " + tag)

        def full(tag):
            return lambda m, gi, go: log.append("full " + tag)

        handles = [lin.register_full_backward_pre_hook(pre("A")),
                   lin.register_full_backward_pre_hook(pre("B"), prepend=True),
                   lin.register_full_backward_hook(full("A")),
                   lin.register_full_backward_hook(full("B")),
                   lin.register_full_backward_hook(full("C"), prepend=True),
                   mm.register_module_full_backward_pre_hook(pre("G")),
                   mm.register_module_full_backward_hook(full("G"))]
        try:
            lin(mk(lib, device, X53, True)).sum().backward()
        finally:
            for h in handles:
                h.remove()
        return log, [h.id - handles[0].id for h in handles]

    assert_parity(scenario, device=device)


def test_hook_lists_are_fixed_at_forward(device):
    """Hooks are collected when the module is called: removing one between forward and
    backward does not stop it for that pass, adding one does not add it."""

    def scenario(lib, device):
        lin, log = linear(lib, device), []
        h = lin.register_full_backward_hook(lambda m, gi, go: log.append("first"))
        out = lin(mk(lib, device, X53, True))
        h.remove()
        lin.register_full_backward_hook(lambda m, gi, go: log.append("late"))
        out.sum().backward()
        return log

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ error parity
BAD_HOOKS = {
    "full_len": ("full", lambda m, gi, go: (gi[0], gi[0])),
    "full_tensor": ("full", lambda m, gi, go: gi[0]),
    "full_shape": ("full", lambda m, gi, go: (gi[0][:1],)),
    "full_dtype": ("full", lambda m, gi, go: (gi[0].double(),)),
    "full_signature": ("full", lambda m, gi: None),
    "full_raises": ("full", lambda m, gi, go: 1 / 0),
    "pre_len": ("pre", lambda m, go: (go[0], go[0])),
    "pre_tensor": ("pre", lambda m, go: go[0]),
    "pre_shape": ("pre", lambda m, go: (go[0][:1],)),
    "pre_signature": ("pre", lambda go: None),
    "legacy_len": ("legacy", lambda m, gi, go: (gi[0],)),
    "legacy_shape": ("legacy", lambda m, gi, go: (gi[0], gi[1][:1], gi[2])),
    "fwd_signature": ("fwd", lambda m, args: None),
    "fwd_pre_signature": ("fwd_pre", lambda m: None),
}


@pytest.mark.parametrize("case", list(BAD_HOOKS))
def test_bad_hook_errors_and_state(device, case):
    """Wrong signatures, lengths, shapes, dtypes raise what PyTorch raises; what was
    accumulated before the error is what PyTorch has; the hook stays registered once."""

    def scenario(lib, device):
        kind, hook = BAD_HOOKS[case]
        lin = linear(lib, device)
        register = {"full": lin.register_full_backward_hook,
                    "pre": lin.register_full_backward_pre_hook,
                    "legacy": lin.register_backward_hook, "fwd": lin.register_forward_hook,
                    "fwd_pre": lin.register_forward_pre_hook}[kind]
        register(hook)
        x = mk(lib, device, X53, True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = err(lambda: lin(x).sum().backward())
        n_hooks = [len(lin._backward_hooks), len(lin._backward_pre_hooks),
                   len(lin._forward_hooks), len(lin._forward_pre_hooks)]
        return e, arrays([x.grad, lin.weight.grad, lin.bias.grad]), n_hooks

    mg, th = assert_parity(scenario, device=device)
    assert mg[0] is not None


def test_exception_in_hook_propagates_and_graph_is_freed(device):
    def scenario(lib, device):
        lin = linear(lib, device)

        def boom(m, gi, go):
            raise ValueError("boom")

        lin.register_full_backward_hook(boom)
        x = mk(lib, device, X53, True)
        out = lin(x)
        first = err(lambda: out.sum().backward())
        second = err(lambda: out.sum().backward())
        return first, second[0], "second time" in second[1], x.grad is None

    assert_parity(scenario, device=device)


def test_mixing_full_and_legacy_hooks():
    """Registration is checked before anything is stored: a refused hook leaves the dicts and
    the flag unchanged; the flag survives ``remove()``; full pre hooks mix with legacy."""

    def scenario(lib):
        out, mm = {}, mod_module(lib)
        lin = lib.nn.Linear(3, 2)
        h = lin.register_full_backward_hook(lambda *a: None)
        out["legacy_after_full"] = err(lambda: lin.register_backward_hook(lambda *a: None))
        out["state"] = [len(lin._backward_hooks), lin._is_full_backward_hook]
        h.remove()
        out["after_remove"] = err(lambda: lin.register_backward_hook(lambda *a: None))
        lin2 = lib.nn.Linear(3, 2)
        lin2.register_backward_hook(lambda *a: None)
        out["full_after_legacy"] = err(lambda: lin2.register_full_backward_hook(lambda *a: None))
        out["pre_with_legacy"] = err(lambda: lin2.register_full_backward_pre_hook(
            lambda *a: None))
        out["state2"] = [len(lin2._backward_hooks), len(lin2._backward_pre_hooks),
                         lin2._is_full_backward_hook]
        g = mm.register_module_full_backward_hook(lambda *a: None)
        out["global_legacy"] = err(lambda: mm.register_module_backward_hook(lambda *a: None))
        out["global_state"] = [len(mm._global_backward_hooks), mm._global_is_full_backward_hook]
        g.remove()
        return out

    assert_parity(scenario)


def test_global_legacy_hook(device):
    def scenario(lib, device):
        mm, log = mod_module(lib), []
        h = mm.register_module_backward_hook(
            lambda m, gi, go: log.append((type(m).__name__, [None if g is None else
                                                             tuple(g.shape) for g in gi])))
        try:
            seq = lib.nn.Sequential(linear(lib, device), lib.nn.ReLU())
            out, w = warned(lambda: seq(mk(lib, device, X53, True)))
            out.sum().backward()
            full = err(lambda: mm.register_module_full_backward_hook(lambda *a: None))
        finally:
            h.remove()
        return log, w, full, mm._global_is_full_backward_hook

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ in-place on hooked tensors
def test_inplace_on_hooked_input_or_output(device):
    def scenario(lib, device):
        nn, F = lib.nn, lib.nn.functional
        out = {}
        relu = nn.ReLU(inplace=True)
        relu.register_full_backward_hook(lambda *a: None)
        h = mk(lib, device, X53, True) * 1
        out["module_inplace"] = err(lambda: relu(h))
        block = linear(lib, device)
        block.register_full_backward_pre_hook(lambda *a: None)
        y = block(mk(lib, device, X53, True))
        out["after_block"] = err(lambda: F.relu(y, inplace=True))
        out["view"] = [y._is_view(), type(y.grad_fn).__name__]
        with lib.no_grad():
            y.mul_(2)  # allowed without grad mode
        out["no_grad_version"] = y._version

        class AddOne(nn.Module):
            def forward(self, x):
                return x.add_(1)

        m = AddOne()
        m.register_full_backward_hook(lambda *a: None)
        out["input_inplace"] = err(lambda: m(mk(lib, device, X53, True) * 1))
        return out

    assert_parity(scenario, device=device)


def test_non_tensor_output_warns(device):
    def scenario(lib, device):
        class DictOut(lib.nn.Module):
            def forward(self, x):
                return {"y": x * 2}

        m, log = DictOut(), []
        m.register_full_backward_hook(lambda *a: log.append("full"))
        out, w = warned(lambda: m(mk(lib, device, X53, True)))
        out["y"].sum().backward()
        return [(c, t.replace("minigrad", "torch")) for c, t in w], log

    mg, th = assert_parity(scenario, device=device)
    assert mg[0] and "For backward hooks to be called" in mg[0][0][1]


# ------------------------------------------------------------------ legacy hooks (§5.6 table)
LEGACY_CASES = {
    "bias_x_grad": (True, True, X53),
    "bias_x_no_grad": (True, False, X53),
    "no_bias_x_grad": (False, True, X53),
    "no_bias_x_no_grad": (False, False, X53),
    "3d_input": (True, True, X453),
}


@pytest.mark.parametrize("case", list(LEGACY_CASES))
def test_legacy_hook_sees_last_node(device, case):
    bias, rg, arr = LEGACY_CASES[case]

    def scenario(lib, device):
        lin, log = linear(lib, device, bias), []
        lin.register_backward_hook(lambda m, gi, go: log.append((arrays(gi), arrays(go))))
        x = mk(lib, device, arr, rg)
        out, w = warned(lambda: lin(x))
        out.sum().backward()
        return log, w, type(out.grad_fn).__name__

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("leaf", [True, False])
def test_legacy_hook_relu_and_sequential(device, leaf):
    def scenario(lib, device):
        log = []
        relu = lib.nn.ReLU()
        relu.register_backward_hook(lambda m, gi, go: log.append(("relu", arrays(gi),
                                                                  arrays(go))))
        x = mk(lib, device, X53[0], True)
        inp = x if leaf else x * 1
        out, w1 = warned(lambda: relu(inp))
        out.sum().backward()
        seq = lib.nn.Sequential(linear(lib, device), lib.nn.ReLU())
        seq.register_backward_hook(lambda m, gi, go: log.append(("seq", arrays(gi), arrays(go))))
        out, w2 = warned(lambda: seq(mk(lib, device, X53[:2], True)))
        out.sum().backward()
        return log, w1, w2

    assert_parity(scenario, device=device)


def test_legacy_hook_return_replaces_grad_input(device):
    def scenario(lib, device):
        lin = linear(lib, device)
        lin.register_backward_hook(lambda m, gi, go: (gi[0] * 0, gi[1] * 2, gi[2]))
        x = mk(lib, device, X53, True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lin(x).sum().backward()
        return arrays([x.grad, lin.weight.grad, lin.bias.grad])

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ utils
def test_utils_hooks_exports():
    from minigrad.autograd.graph import RemovableHandle
    from minigrad.utils import hooks

    assert hooks.RemovableHandle is RemovableHandle
    assert hooks.BackwardHookFunction._backward_cls.__name__ == "BackwardHookFunctionBackward"
    f = hooks.unserializable_hook(lambda g: g)
    t = minigrad.ones(2, requires_grad=True)
    t.register_hook(f)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        hooks.warn_if_has_hooks(t)
        t.register_hook(lambda g: g)
        hooks.warn_if_has_hooks(t)
    assert len(w) == 1 and "will not be serialized" in str(w[0].message)


def test_backward_hook_object_directly(device):
    """``BackwardHook`` used by hand, as ``Module.__call__`` uses it."""

    def scenario(lib, device):
        from importlib import import_module

        hooks = import_module(lib.__name__ + ".utils.hooks")
        lin, log = linear(lib, device), []
        bw = hooks.BackwardHook(lin, [lambda m, gi, go: log.append(("full", arrays(gi)))],
                                [lambda m, go: log.append(("pre", arrays(go)))])
        x = mk(lib, device, X53, True)
        (xin, k) = bw.setup_input_hook((x, 3))
        out = bw.setup_output_hook(lin(xin) * k)
        out.sum().backward()
        return log, graph_trace(out), k

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ forward hooks (§5.5)
def test_forward_hook_chain_and_global_kwargs(device):
    """Pre-hooks chain and the forward hook sees the modified args; a global forward hook
    can take kwargs; a global always_call hook runs (and is silenced) when forward raises."""

    def scenario(lib, device):
        mm, log = mod_module(lib), []

        class M(lib.nn.Module):
            def forward(self, x, shift=0.0):
                if shift == 99.0:
                    raise ValueError("bad shift")
                return x + shift

        m = M()
        m.register_forward_pre_hook(lambda mod, args: (args[0] * 10,))
        m.register_forward_pre_hook(lambda mod, args: log.append(("pre2", arrays(args))))
        m.register_forward_hook(lambda mod, args, out: log.append(("fwd", arrays(args),
                                                                   to_numpy(out))))
        g1 = mm.register_module_forward_hook(
            lambda mod, args, kwargs, out: log.append(("global kw", dict(kwargs))),
            with_kwargs=True)

        def boom(mod, args, out):
            raise RuntimeError("always hook failed")

        g2 = mm.register_module_forward_hook(boom, always_call=True)
        try:
            x = mk(lib, device, X53[0], True)
            r1 = err(lambda: m(x, shift=1.0))
            r2, w = warned(lambda: err(lambda: m(x, shift=99.0)))
        finally:
            g1.remove()
            g2.remove()
        return log, r1, r2, [(c, t.replace("minigrad", "torch")) for c, t in w]

    assert_parity(scenario, device=device)


def test_failing_forward_leaves_hooks_intact(device):
    """An exception in a forward pre-hook of a module with backward hooks propagates; the hooks
    stay registered exactly once and the next call works."""

    def scenario(lib, device):
        lin, log = linear(lib, device), []
        lin.register_full_backward_hook(lambda m, gi, go: log.append("full"))
        state = {"fail": True}

        def pre(m, args):
            if state["fail"]:
                raise KeyError("pre failed")

        lin.register_forward_pre_hook(pre)
        x = mk(lib, device, X53, True)
        e = err(lambda: lin(x))
        state["fail"] = False
        out = lin(x)
        out.sum().backward()
        return e, log, [len(lin._backward_hooks), len(lin._forward_pre_hooks)], \
            type(out.grad_fn).__name__
    assert_parity(scenario, device=device)
