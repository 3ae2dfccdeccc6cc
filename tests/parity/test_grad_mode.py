"""Parity: grad modes — ``no_grad``, ``enable_grad``, ``set_grad_enabled`` as context managers,
decorators and plain calls; what ops record under them; views made under ``no_grad``.

Facts doc section 7.
"""

import numpy as np

from minigrad.parity import assert_parity, node_name, to_numpy
from tests.parity.test_tensor_meta import err, mk

X = np.array([1.0, -2.0, 3.0, 0.5], dtype=np.float32)


def meta(t):
    return t.requires_grad, t.is_leaf, node_name(t.grad_fn)


def test_no_grad_context(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        out = {"outside": lib.is_grad_enabled()}
        with lib.no_grad() as ctx:
            out["ctx"] = ctx
            out["inside"] = lib.is_grad_enabled()
            out["mul"] = meta(x * 2)
            out["factory"] = meta(lib.ones(2, requires_grad=True))
            out["tensor"] = meta(lib.tensor([1.0], requires_grad=True))
            with lib.enable_grad():
                out["nested_enable"] = (lib.is_grad_enabled(), meta(x * 2))
            out["back"] = lib.is_grad_enabled()
        out["after"] = (lib.is_grad_enabled(), meta(x * 2))
        return out

    assert_parity(scenario, device=device)


def test_context_restores_after_exception():
    def scenario(lib):
        states = []
        for ctx in (lib.no_grad(), lib.set_grad_enabled(False), lib.enable_grad()):
            try:
                with ctx:
                    states.append(lib.is_grad_enabled())
                    raise ValueError("boom")
            except ValueError:
                states.append(lib.is_grad_enabled())
        return states

    assert_parity(scenario)


def test_decorators(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)

        @lib.no_grad()
        def f(t):
            return meta(t * 2), lib.is_grad_enabled()

        @lib.no_grad
        def f_bare(t):
            return meta(t * 2), lib.is_grad_enabled()

        @lib.set_grad_enabled(False)
        def g(t):
            return meta(t * 2)

        after_decorating = lib.is_grad_enabled()

        @lib.enable_grad()
        def h(t):
            return meta(t * 2)

        def gen():
            for _ in range(2):
                yield lib.is_grad_enabled()

        with lib.no_grad():
            enabled_inside = h(x)
        return {"f": f(x), "f_bare": f_bare(x), "g": g(x), "after_decorating": after_decorating,
                "h_in_no_grad": enabled_inside, "still": lib.is_grad_enabled(),
                "name": f.__name__, "generator": list(lib.no_grad()(gen)())}

    assert_parity(scenario, device=device)


def test_set_grad_enabled_plain_call_and_context(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        out = {}
        ret = lib.set_grad_enabled(False)
        out["ret_type"] = type(ret).__name__
        out["global_off"] = (lib.is_grad_enabled(), meta(x * 2))
        lib.set_grad_enabled(True)
        out["global_on"] = (lib.is_grad_enabled(), meta(x * 2))
        with lib.set_grad_enabled(False) as ctx:
            out["ctx"] = ctx
            out["ctx_off"] = meta(x * 2)
            with lib.set_grad_enabled(True):
                out["nested_on"] = meta(x * 2)
            out["restored_off"] = lib.is_grad_enabled()
        out["restored_on"] = lib.is_grad_enabled()
        with lib.no_grad():
            lib.set_grad_enabled(True)
            out["plain_call_in_no_grad"] = lib.is_grad_enabled()
        out["after_no_grad"] = lib.is_grad_enabled()
        return out

    assert_parity(scenario, device=device)


def test_views_under_no_grad(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        with lib.no_grad():
            views = {"slice": x[0:2], "view": x.view(4), "unsqueeze": x.unsqueeze(0),
                     "select": x[1], "transpose": x.view(2, 2).transpose(0, 1),
                     "expand": x.expand(2, 4)}
            others = {"mul": x * 1, "detach": x.detach(), "clone": x.clone(), "add": x + 0}
        out = {k: meta(v) + (v._is_view(),) for k, v in {**views, **others}.items()}
        v = views["slice"]
        y = (v * 3).sum()
        out["graph"] = [node_name(n) for n, _ in y.grad_fn.next_functions[0][0].next_functions]
        y.backward()
        out["x.grad"] = x.grad
        out["v.grad"] = to_numpy(v.grad)
        plain = mk(lib, device, X)
        with lib.no_grad():
            out["plain_view"] = meta(plain[0:2])
        return out

    assert_parity(scenario, device=device)


def test_backward_needs_graph_built_with_grad(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        with lib.no_grad():
            y = (x * 2).sum()
        z = (x * 2).sum()
        with lib.no_grad():
            z.backward()
        return {"no_grad_graph": err(lambda: y.backward()), "grad": to_numpy(x.grad),
                "grad_meta": meta(x.grad)}

    assert_parity(scenario, device=device)
