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


def edges(t):
    return [(node_name(n), nr) for n, nr in t.grad_fn.next_functions]


def test_view_requires_grad_follows_its_base(device):
    """A view without grad_fn requires grad exactly while its base does (its own flag or the
    base's), but gets a gradient accumulator only from its own flag: ops on it then point to
    an empty slot, not to an AccumulateGrad."""

    def scenario(lib, device):
        out = {}
        x = mk(lib, device, X)
        v = x[0:2]  # grad mode on, base does not require grad: no grad_fn
        x.requires_grad_(True)
        y = v * 2
        out["later_base"] = meta(v) + (y.requires_grad, edges(y))
        x = mk(lib, device, X, requires_grad=True)
        with lib.no_grad():
            v = x[0:2]
        x.requires_grad_(False)
        out["base_off"] = meta(v) + (meta(v * 2),)
        x.requires_grad_(True)
        v.requires_grad_(False)  # its own flag off: still requires grad through the base
        out["own_off"] = meta(v)
        v.requires_grad_(True)  # its own flag on: now it has an accumulator
        out["own_on"] = edges(v * 2)
        x = mk(lib, device, X)
        v1 = x[0:3]
        v1.requires_grad_(True)
        with lib.no_grad():
            v2 = v1[0]  # its base is x, which does not require grad
        out["view_of_leaf_view"] = meta(v2)
        x = mk(lib, device, X)
        leaf = mk(lib, device, X[:1], requires_grad=True)
        with lib.no_grad():
            v = x[0]
        x += leaf  # the base joins a graph in place
        with lib.no_grad():
            out["base_joined_graph"] = (v.requires_grad, meta(v.unsqueeze(0)))
        # its history cannot be rebuilt (a no_grad view): reading it raises
        out["errors"] = [err(lambda: v.is_leaf), err(lambda: v.grad_fn),
                         err(lambda: v.retain_grad())]
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


def test_nesting_and_decorated_methods(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        out = []

        class Model:
            @lib.no_grad()
            def predict(self, t):
                with lib.enable_grad():
                    inner = meta(t * 2)
                    with lib.set_grad_enabled(False):
                        innermost = meta(t * 2)
                    back = meta(t * 2)
                return inner, innermost, back, meta(t * 2)

            @lib.enable_grad()
            def train_step(self, t):
                return meta(t * 2), lib.is_grad_enabled()

        m = Model()
        out.append(m.predict(x))
        with lib.no_grad():
            out.append(m.train_step(x))
            out.append(lib.is_grad_enabled())
        with lib.no_grad(), lib.enable_grad():
            out.append(meta(x * 2))
        out.append(lib.is_grad_enabled())
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ thread-local modes
def test_grad_mode_is_thread_local():
    """Each thread has its own grad / inference mode; a new thread starts with grad on."""
    import threading

    def scenario(lib):
        seen = {}

        def worker(tag):
            seen[tag] = (lib.is_grad_enabled(), lib.is_inference_mode_enabled())
            with lib.no_grad():
                seen[tag + "_inner"] = lib.is_grad_enabled()

        def run(tag):
            t = threading.Thread(target=worker, args=(tag,))
            t.start()
            t.join()

        with lib.no_grad():
            run("in_no_grad")
            seen["main_still"] = lib.is_grad_enabled()
        with lib.inference_mode():
            run("in_inference")
        lib.set_grad_enabled(False)
        try:
            run("after_plain_call")
            seen["main_plain"] = lib.is_grad_enabled()
        finally:
            lib.set_grad_enabled(True)
        run("plain")
        return seen

    assert_parity(scenario)


# ------------------------------------------------------------------ inference mode
def test_inference_mode_tensors(device):
    """Facts §7 and §3.3: inference tensors (no version counter, no in-place outside, cannot be
    saved for backward, cannot be made to require grad outside); views of normal tensors made
    inside stay normal but cannot be modified in place later."""

    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        out = {}
        with lib.inference_mode() as ctx:
            out["ctx"] = ctx
            out["flags"] = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
            a = mk(lib, device, X)
            b = x * 2
            c = lib.ones(2, requires_grad=True)
            v = x[0:2]
            out["inside"] = {"a": (a.is_inference(), a.requires_grad),
                             "b": (b.is_inference(),) + meta(b),
                             "c": (c.is_inference(), c.requires_grad),
                             "v": (v.is_inference(), v._is_view()) + meta(v),
                             "view_of_inference": a[0:2].is_inference()}
            out["inplace_inside"] = (err(lambda: a.add_(1)), to_numpy(a))
            with lib.inference_mode(False):
                out["nested_false"] = (lib.is_inference_mode_enabled(), lib.is_grad_enabled(),
                                       meta(x * 2), (x * 2).is_inference())
            with lib.no_grad():
                out["no_grad_inside"] = lib.is_inference_mode_enabled()
            with lib.enable_grad():
                out["enable_grad_inside"] = (lib.is_grad_enabled(), (x * 2).is_inference(),
                                             (x * 2).requires_grad)
        out["outside"] = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())
        out["version"] = err(lambda: a._version)
        out["inplace"] = err(lambda: a.add_(1))
        with lib.no_grad():
            out["inplace_no_grad"] = err(lambda: a.mul_(2))
        out["setitem"] = err(lambda: a.__setitem__(0, 1.0))
        out["save"] = err(lambda: a * x)
        out["no_save"] = node_name((a + x).grad_fn)
        out["requires_grad_"] = err(lambda: a.requires_grad_())
        (c * 2).sum().backward()
        out["c_grad"] = to_numpy(c.grad)
        out["view_inplace"] = err(lambda: v.mul_(2))
        out["view_use"] = node_name((v * 2).grad_fn)
        with lib.no_grad():
            x.add_(1)
        out["view_after_base_change"] = err(lambda: v.grad_fn)
        out["results_of_inference_inputs"] = (a * 2).is_inference()
        with lib.no_grad():
            out["no_grad_tensor"] = lib.ones(1).is_inference()
        return out

    assert_parity(scenario, device=device)


def test_inference_mode_decorators():
    def scenario(lib):
        @lib.inference_mode()
        def f():
            return lib.ones(1).is_inference(), lib.is_inference_mode_enabled()

        @lib.inference_mode
        def g():
            return lib.is_inference_mode_enabled(), lib.is_grad_enabled()

        @lib.inference_mode(False)
        def h():
            return lib.is_inference_mode_enabled()

        with lib.inference_mode():
            inside = h()
        return f(), g(), inside, lib.is_inference_mode_enabled(), f.__name__

    assert_parity(scenario)
