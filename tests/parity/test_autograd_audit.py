"""Parity: behaviours PyTorch's own ``test/test_autograd.py`` checks of saved tensors and
custom Functions that an audit (issue 18) found minigrad missing — minigrad vs PyTorch.

Our own tests of the same behaviours (read through PyTorch's tests, not copied): what a raw
``SavedTensor`` exposes (``data``, ``unpack_hook``), that it cannot be made from Python, the
argument checks of ``register_hooks``, the saved index list of advanced indexing, and the
in-place error on any view a custom Function returns. Each failed on minigrad before the fix.
"""

import numpy as np

from minigrad.parity import assert_parity, to_numpy
from tests.parity.test_tensor_meta import err, mk

A = np.array([0.5, -1.0, 2.0], dtype=np.float32)


def test_raw_saved_tensor_data_and_unpack_hook(device):
    """``SavedTensor.data``: the packed object as-is under hooks, the input itself when an
    input (leaf or not) was saved, a new tensor without history for a saved output; None once
    freed. ``unpack_hook``: the hook, or None."""
    def scenario(lib, device):
        G = lib.autograd.graph

        def pack(t):
            return ("packed", t)

        def unpack(p):
            return p[1]

        a = mk(lib, device, A, True)
        with G.saved_tensors_hooks(pack, unpack):
            b = a ** 2
        c = b.exp()
        d = c ** 2
        e = a * a
        pow_sv, exp_sv = b.grad_fn._raw_saved_self, c.grad_fn._raw_saved_result
        pow2_sv, leaf_sv = d.grad_fn._raw_saved_self, e.grad_fn._raw_saved_self
        out = {"hooked": (pow_sv.data[0], pow_sv.data[1] is a, pow_sv.unpack_hook is unpack),
               "output": (exp_sv.data is c, exp_sv.data.requires_grad, exp_sv.data.grad_fn,
                          to_numpy(exp_sv.data), exp_sv.unpack_hook),
               "input": (pow2_sv.data is c, pow2_sv.unpack_hook),
               "leaf": (leaf_sv.data is a,)}
        e.sum().backward()
        out["freed"] = (leaf_sv.data, leaf_sv.unpack_hook)
        return out

    assert_parity(scenario, device=device)


def test_saved_tensor_construction_and_register_hooks_arguments(device):
    """``SavedTensor()`` from Python is refused (RuntimeError); ``register_hooks`` wants
    exactly two callables (TypeError "incompatible function arguments"), and after a backward
    says "freed" even when hooks were set before."""
    def scenario(lib, device):
        a = mk(lib, device, A, True)
        y = a * a
        sv = y.grad_fn._raw_saved_self
        out = {"ctor": err(lambda: lib.autograd.SavedTensor(), "from Python is forbidden"),
               "one": err(lambda: sv.register_hooks(lambda x: x),
                          "incompatible function arguments"),
               "three": err(lambda: sv.register_hooks(lambda x: x, lambda x: x, lambda x: x),
                            "incompatible function arguments"),
               "ints": err(lambda: sv.register_hooks(1, 1), "incompatible function arguments")}
        sv.register_hooks(lambda x: x, lambda x: x)
        out["twice"] = err(lambda: sv.register_hooks(lambda x: x, lambda x: x),
                           "already been set")
        y.sum().backward()
        out["freed"] = err(lambda: sv.register_hooks(lambda x: x, lambda x: x),
                           "after it has been freed", "already been set")
        out["grad"] = to_numpy(a.grad)
        return out

    assert_parity(scenario, device=device)


def test_raw_saved_indices_of_advanced_indexing(device):
    """``x[:, idx]`` saves its index list as PyTorch's list of optional tensors: a None entry
    for the whole dimension (``register_hooks`` on it: "None is forbidden") and a SavedTensor
    for ``idx`` whose hooks run."""
    def scenario(lib, device):
        a = mk(lib, device, np.arange(6, dtype=np.float32).reshape(2, 3), True)
        idx = mk(lib, device, np.array([0, 2, 2]))
        o = a[:, idx]
        raw = o.grad_fn._raw_saved_indices
        saved = o.grad_fn._saved_indices
        log = []
        raw[1].register_hooks(lambda x: log.append("pack") or x,
                              lambda x: log.append("unpack") or x)
        none_hooks = err(lambda: raw[0].register_hooks(lambda x: x, lambda x: x),
                         "None is forbidden")
        o.sum().backward()
        return {"types": [type(r).__name__ for r in raw], "saved": (saved[0], to_numpy(saved[1])),
                "none_hooks": none_hooks, "log": log, "grad": to_numpy(a.grad)}

    assert_parity(scenario, device=device)


def test_in_place_on_views_a_custom_function_returns(device):
    """A view the Function made in its forward (of an input that needs no grad) is still
    "created inside a custom Function": in-place on it with a tensor that requires grad
    raises PyTorch's message (``+=`` and ``copy_``), also for one of two views when nothing was
    recorded (when recorded: the multiple-views message); a view of a multi-view op keeps its
    own message; a plain slice of a non-grad tensor may be written."""
    def scenario(lib, device):
        class ViewAs(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp.view_as(inp)

            @staticmethod
            def backward(ctx, g):
                return g

        class TwoViews(lib.autograd.Function):
            @staticmethod
            def forward(ctx, inp):
                return inp[:1], inp[1:]

            @staticmethod
            def backward(ctx, g1, g2):
                return lib.cat([g1, g2])

        b = mk(lib, device, A[:1], True)

        def add_into(view):
            view += b

        out = {"iadd": err(lambda: add_into(ViewAs.apply(mk(lib, device, A))),
                           "This view was created inside a custom Function"),
               "copy": err(lambda: ViewAs.apply(mk(lib, device, A))[:1].copy_(b),
                           "This view was created inside a custom Function"),
               "multi": err(lambda: add_into(TwoViews.apply(mk(lib, device, A))[0]),
                            "returns multiple views", "created inside a custom Function"),
               "unbind": err(lambda: mk(lib, device, A[:1]).unbind()[0].copy_(b[0]),
                             "returns multiple views")}
        plain = mk(lib, device, A)
        plain[1:2].copy_(b)
        out["plain"] = (plain.requires_grad, to_numpy(plain))
        x = mk(lib, device, A, True)
        v = ViewAs.apply(x)
        out["grad_path"] = err(lambda: add_into(v), "created inside a custom Function")
        out["multi_recorded"] = err(lambda: add_into(TwoViews.apply(x * 1)[0]),
                                    "returns multiple views", "created inside a custom Function")
        return out

    assert_parity(scenario, device=device)


def _deep_reentrant(lib):
    """A Function whose backward runs a backward of a new instance of itself, ``x`` levels
    deep (PyTorch's test of its engine's stack-overflow escape)."""

    class DeepReentrant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = x.detach().requires_grad_(True) - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            if ctx.x < 0:
                return g
            with lib.enable_grad():
                ctx.x * ctx.x  # (saves two tensors: packed if saved-tensor hooks are open)
                DeepReentrant.apply(ctx.x).sum().backward()
            return g

    return DeepReentrant


def test_deep_reentrant_backward(device):
    """Backwards nested 2000 deep inside backwards run (PyTorch moves deep ones to worker
    threads; minigrad too, every ``MAX_REENTRANT_DEPTH`` levels), carrying grad mode and the
    open saved-tensor hooks with them; a reentrant backward's nodes run before the outer
    graph's other nodes."""
    def scenario(lib, device):
        G = lib.autograd.graph
        deep = _deep_reentrant(lib)
        v = mk(lib, device, np.array(2000.0, dtype=np.float32), True)
        deep.apply(v).sum().backward()
        packed = []
        v2 = mk(lib, device, np.array(120.0, dtype=np.float32), True)
        out = deep.apply(v2).sum()
        with G.saved_tensors_hooks(lambda t: packed.append(tuple(t.shape)) or t, lambda t: t):
            out.backward()
        order = []

        class Plain(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                order.append("Plain")
                return g

        class Nested(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                with lib.enable_grad():
                    ctx.x = x.detach().requires_grad_(True) - 1
                return ctx.x.detach()

            @staticmethod
            def backward(ctx, g):
                order.append("Nested")
                if ctx.x < 0:
                    return g
                with lib.enable_grad():
                    Nested.apply(ctx.x).backward()
                return g

        a = Plain.apply(mk(lib, device, np.array(6.0, dtype=np.float32), True))
        b = Nested.apply(mk(lib, device, np.array(9.0, dtype=np.float32), True))
        (a * b).backward()
        return {"grad": to_numpy(v.grad), "packed": len(packed), "order": order}

    assert_parity(scenario, device=device)
