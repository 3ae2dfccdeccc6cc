"""Parity: behaviours found by the correctness review of engine, views, grad-mode objects and
attribute assignment (each failed on the code before the fix; see the commit that added it).

Engine: a node whose incoming gradients are all undefined still runs (its saved tensors are
unpacked); hooks of sibling outputs run per tensor; a pre-hook's tuple does not stop
``AccumulateGrad`` from stealing the gradient. Tensor state: ``.data =`` / ``.grad =`` checks,
``numpy()`` under ``no_grad``, ``detach_()`` of a saved tensor, in-place on a view made to require
grad. Grad modes: a stored ``set_grad_enabled`` object. Modules: ``_apply`` on gradients.
Anomaly mode under a warnings filter of ``"error"``.
"""

import warnings

import numpy as np
import pytest

from minigrad.parity import assert_parity, node_name, to_numpy
from tests.parity.test_tensor_meta import err, mk

X = np.array([1.0, -2.0, 3.0, 0.5], dtype=np.float32)


def value(t):
    """A tensor's values as a NumPy array (None stays None)."""
    return None if t is None else to_numpy(t)


class _PassNone:
    """Builds, per library, a custom Function whose backward returns None: the node before it
    then gets only undefined gradients."""

    @staticmethod
    def make(lib):
        class PassNone(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a.clone()

            @staticmethod
            def backward(ctx, g):
                return None

        return PassNone


# ------------------------------------------------------------------ engine
@pytest.mark.parametrize("case", ["second_backward", "modified_saved", "hooks_still_run"])
def test_node_with_only_undefined_gradients_still_runs(case, device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        y = x * x  # MulBackward0 saves x twice; it gets only None from PassNone's node
        log = []
        y.grad_fn.register_prehook(lambda go: log.append(("pre", [g is None for g in go])))
        y.grad_fn.register_hook(lambda gi, go: log.append(
            ("post", [g is None for g in gi], [g is None for g in go])))
        z = _PassNone.make(lib).apply(y)
        out = {}
        if case == "second_backward":
            z.sum().backward()
            out["second"] = err(lambda: z.sum().backward(), "a second time")
        elif case == "modified_saved":
            with lib.no_grad():
                x.mul_(2)
            out["modified"] = err(lambda: z.sum().backward(), "modified by an inplace")
        else:
            z.sum().backward(retain_graph=True)
            z.sum().backward()
        out["log"] = log
        out["grad"] = value(x.grad)
        return out

    assert_parity(scenario, device=device)


def test_sibling_output_hooks_run_per_tensor(device):
    def scenario(lib, device):
        log = []
        x = mk(lib, device, X, requires_grad=True)
        a, b, c, d = (x * 2).unbind()
        b.register_hook(lambda g: log.append("b1"))
        a.register_hook(lambda g: log.append("a1"))
        h = c.register_hook(lambda g: log.append("c1"))
        b.register_hook(lambda g: log.append("b2"))
        d.register_hook(lambda g: log.append("d1"))
        a.register_hook(lambda g: log.append("a2"))
        h.remove()  # c keeps its place among the hooked tensors
        c.register_hook(lambda g: log.append("c2"))
        p, q = x.split(2)
        q.register_hook(lambda g: log.append("q1"))
        p.register_hook(lambda g: log.append("p1"))
        q.register_hook(lambda g: g * 3)  # replaces q's gradient for q's later hooks only
        q.register_hook(lambda g: log.append(("q2", to_numpy(g).tolist())))
        (a + b + c + d + p.sum() + q.sum()).backward()
        return log, value(x.grad)

    assert_parity(scenario, device=device)


def test_hooks_after_in_place_go_to_the_new_node(device):
    def scenario(lib, device):
        log = []
        x = mk(lib, device, X, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: log.append(("old", to_numpy(g).tolist())))
        y.mul_(3)
        y.register_hook(lambda g: log.append(("new", to_numpy(g).tolist())))
        y.sum().backward()
        return log, value(x.grad)

    assert_parity(scenario, device=device)


def test_prehook_tuple_does_not_stop_accumulate_grad_stealing(device):
    def scenario(lib, device):
        log = []
        x = mk(lib, device, X, requires_grad=True)

        def scale_grad(t):  # changes .grad in place; the node's post-hook sees it if stolen
            t.grad.mul_(10)

        x.register_post_accumulate_grad_hook(scale_grad)
        acc = (x * 1).grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: (go[0] * 2,))
        acc.register_hook(lambda gi, go: log.append(to_numpy(go[0]).tolist()))
        (x * 3).sum().backward()
        return log, value(x.grad), x.grad._version

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ tensor state
def test_data_assignment_checks(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        out = {
            "int": err(lambda: setattr(x, "data", lib.tensor([1, 2])), "must be floating point"),
            "list": err(lambda: setattr(x, "data", [1.0, 2.0])),
            "ndarray": err(lambda: setattr(x, "data", np.ones(2, np.float32))),
        }
        out["unchanged"] = (str(x.dtype).split(".")[1], x.requires_grad, x._version,
                            value(x))
        acc = (x * 1).grad_fn.next_functions[0][0]
        x.data = mk(lib, device, np.ones(3, np.float32))  # same dtype: the accumulator stays
        out["same_dtype_acc"] = (x * 1).grad_fn.next_functions[0][0] is acc
        x.data = mk(lib, device, np.ones(3, np.float64))  # a new dtype: a new accumulator
        out["new_dtype_acc"] = (x * 1).grad_fn.next_functions[0][0] is acc
        out["after"] = (str(x.dtype).split(".")[1], x._version, tuple(x.shape))
        i = lib.tensor([1, 2])
        i.data = mk(lib, device, X)  # a tensor that does not require grad may change kind
        out["int_to_float"] = str(i.dtype).split(".")[1]
        return out

    assert_parity(scenario, device=device)


def test_grad_assignment_of_itself(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        out = {"self": err(lambda: setattr(x, "grad", x), "its own grad")}
        out["none_after"] = x.grad is None
        x.grad = x.detach()  # another tensor on the same storage is fine
        out["detached"] = value(x.grad)
        return out

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference"])
def test_numpy_of_tensor_that_requires_grad(mode, device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True).cpu()
        ctx = {"grad": lib.enable_grad, "no_grad": lib.no_grad,
               "inference": lib.inference_mode}[mode]
        with ctx():
            out = err(lambda: x.numpy(), "requires grad")
            arr = x.numpy() if out is None else None
        return out, None if arr is None else arr.copy()

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("saved", ["input", "input_twice", "output", "leaf"])
def test_detach_in_place_of_a_saved_tensor(saved, device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        y = x * 2
        if saved == "input":
            z = y * 3 + y.sin()  # SinBackward0 saves y (a non-leaf input)
        elif saved == "input_twice":
            z = y * y
        elif saved == "output":
            y = x.exp()
            z = y * 1  # ExpBackward0 saves its result y
        else:
            z = x.sin()  # a leaf input
            y = x
        if saved == "leaf":
            out = {"detach_": err(lambda: y.detach_())}
        else:
            y.detach_()
            out = {}
        out["backward"] = err(lambda: z.sum().backward(), "detached in-place", "second time")
        out["grad"] = value(x.grad)
        out["y"] = (y.requires_grad, y.is_leaf)
        return out

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("base_requires_grad", [False, True])
def test_in_place_on_a_view_made_to_require_grad(base_requires_grad, device):
    def scenario(lib, device):
        base = mk(lib, device, X, requires_grad=base_requires_grad)
        out = {}
        if base_requires_grad:
            v = base[:2]
        else:
            v = base[:2]
            v.requires_grad_()
        out["mul_"] = err(lambda: v.mul_(2), "view of a leaf", "a leaf Variable")
        out["state"] = (v.requires_grad, v.is_leaf, v._version, base._version)
        with lib.no_grad():
            v.mul_(2)  # allowed without grad mode
        out["no_grad"] = (v._version, value(base.detach()))
        w = mk(lib, device, X[:2], requires_grad=True)
        plain = mk(lib, device, X)[:2]  # a view that does not require grad
        plain.copy_(w)  # gets history through its base: not refused
        out["copy_into_plain_view"] = (plain.requires_grad, node_name(plain.grad_fn))
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ grad-mode objects
def test_stored_set_grad_enabled_object():
    def scenario(lib):
        states = []
        lib.set_grad_enabled(True)
        cm = lib.set_grad_enabled(False)  # takes effect now ...
        states.append(lib.is_grad_enabled())
        lib.set_grad_enabled(True)
        with cm:  # ... and again each time it is entered
            states.append(lib.is_grad_enabled())
        states.append(lib.is_grad_enabled())
        with cm:
            with cm:
                states.append(lib.is_grad_enabled())
            states.append(lib.is_grad_enabled())
        states.append(lib.is_grad_enabled())
        on = lib.set_grad_enabled(True)
        with lib.no_grad():
            with on:
                states.append(lib.is_grad_enabled())
            states.append(lib.is_grad_enabled())  # restored to the mode at construction
        lib.set_grad_enabled(True)
        return states

    assert_parity(scenario)


# ------------------------------------------------------------------ modules
@pytest.mark.parametrize("fn", ["mul_", "double", "zero_"])
def test_module_apply_runs_on_grads_without_grad_mode(fn, device):
    def scenario(lib, device):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        m.weight.data = mk(lib, device, np.arange(6, dtype=np.float32).reshape(2, 3))
        m.bias.grad = mk(lib, device, np.ones(2, np.float32), requires_grad=True)
        x = mk(lib, device, np.ones((1, 3), np.float32))
        m(x).sum().backward()
        weight, grad = m.weight, m.weight.grad
        f = {"mul_": lambda t: t.mul_(2), "double": lambda t: t.double(),
             "zero_": lambda t: t.zero_()}[fn]
        m._apply(f)
        return {"same_objects": (m.weight is weight, m.weight.grad is grad),
                "weight": value(m.weight.detach()), "grad": value(m.weight.grad),
                "bias_grad": (value(m.bias.grad.detach()), m.bias.grad.requires_grad),
                "dtype": str(m.weight.dtype).split(".")[1],
                "versions": (m.weight._version, m.weight.grad._version)}

    assert_parity(scenario, device=device)


def test_module_apply_without_recurse(device):
    def scenario(lib, device):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2))
        m.register_parameter("scale", lib.nn.Parameter(mk(lib, device, X[:1])))
        m._apply(lambda t: t.double(), recurse=False)
        return str(m.scale.dtype).split(".")[1], str(m[0].weight.dtype).split(".")[1]

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ anomaly mode
@pytest.mark.parametrize("failure", ["modified", "nan"])
def test_anomaly_mode_error_under_warnings_as_errors(failure, device, capfd):
    def scenario(lib, device):
        x = mk(lib, device, np.array([0.0, 1.0], np.float32), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            anomaly = lib.autograd.detect_anomaly()
        with anomaly:
            if failure == "modified":
                y = x.exp()
                z = y * 2
                y.add_(1)
            else:
                z = x.sqrt() * 0  # 0 * inf: SqrtBackward0 returns nan
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                return err(lambda: z.sum().backward(), "modified by an inplace",
                           "returned nan values")

    assert_parity(scenario, device=device)
    captured = capfd.readouterr()
    assert captured.err.count("Error detected in") >= 2  # printed by both libraries


# ------------------------------------------------------------------ found by the review's probes
def test_requires_grad_attribute_setter_and_deleters(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        y = x * 2
        out = {
            "nonleaf_true": err(lambda: setattr(y, "requires_grad", True)),
            "nonleaf_false": err(lambda: setattr(y, "requires_grad", False)),
            "nonleaf_method_true": err(lambda: y.requires_grad_(True)),
            "not_bool": err(lambda: setattr(x, "requires_grad", 1)),
            "del_requires_grad": err(lambda: delattr(x, "requires_grad")),
            "del_data": err(lambda: delattr(x, "data")),
        }
        y.sum().backward()
        del x.grad  # as x.grad = None
        out["grad_after_del"] = x.grad is None
        out["state"] = (x.requires_grad, y.requires_grad, x.is_leaf)
        return out

    assert_parity(scenario, device=device)


def test_pickle_of_tensors(device):
    import pickle

    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        (x * 2).sum().backward()  # x now has a gradient accumulator (held weakly) and a .grad
        x.note = {"epoch": 3}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            c = pickle.loads(pickle.dumps(x))
            hooked = mk(lib, device, X, requires_grad=True)
            hooked.register_hook(_double)
            h = pickle.loads(pickle.dumps(hooked))
        y = pickle.loads(pickle.dumps(x * 3))  # a non-leaf comes back a leaf
        p = pickle.loads(pickle.dumps(lib.nn.Parameter(mk(lib, device, X))))
        return {"copy": (value(c.detach()), c.requires_grad, c.grad is None, c._version,
                         c.note, c.is_leaf),
                "warnings": [(x.category.__name__, "will not be serialized" in str(x.message))
                             for x in w],
                "hooked": (h.requires_grad, value(h.detach())),
                "nonleaf": (y.requires_grad, y.is_leaf, y.grad_fn is None),
                "param": (type(p).__name__, p.requires_grad, p._version)}

    assert_parity(scenario, device=device)


def _double(g):  # (a module-level hook: pickle warns about it, but could pickle it too)
    return g * 2


def test_deepcopy_versions_and_shared_storage(device):
    import copy

    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        x.grad = mk(lib, device, np.ones(4, np.float32))
        c = copy.deepcopy(x)
        base = mk(lib, device, X)
        view = base[1:3]
        cb, cv = copy.deepcopy([base, view])
        cv.add_(10)  # the copies share their memory, as the originals do
        p = copy.deepcopy(lib.nn.Parameter(mk(lib, device, X)))
        return {"leaf": (c._version, c.grad._version, value(c.grad), c.requires_grad),
                "shared": (value(cb), value(cv), cv._base is None, cb._version, cv._version),
                "originals": value(base), "param": (p._version, p.requires_grad)}

    assert_parity(scenario, device=device)


def test_grad_mode_decorating_a_class_and_non_bool_modes():
    def scenario(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")

            @lib.no_grad()
            class Made:
                def __init__(self):
                    self.enabled = lib.is_grad_enabled()

        out = {"warned": [x.category.__name__ for x in w], "inside": Made().enabled,
               "after": lib.is_grad_enabled()}
        for bad in (0, None, "yes"):
            out[repr(bad)] = err(lambda bad=bad: lib.set_grad_enabled(bad))
        out["unchanged"] = lib.is_grad_enabled()
        return out

    assert_parity(scenario)


def test_data_of_another_shape_then_backward(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        y = x * 3  # the graph records x's shape (4,)
        x.data = mk(lib, device, np.array(1.5, np.float32))  # x is 0-dim now
        y.sum().backward()
        return tuple(x.shape), value(x.grad), tuple(x.grad.shape)

    assert_parity(scenario, device=device)


def test_detach_inside_inference_mode_of_a_normal_tensor(device):
    def scenario(lib, device):
        x = mk(lib, device, X, requires_grad=True)
        with lib.inference_mode():
            d = x.detach()
            made = lib.ones(2)
        return d.is_inference(), d._version, d.requires_grad, made.is_inference()

    assert_parity(scenario, device=device)


def test_data_assignment_between_inference_and_normal_is_a_deliberate_difference():
    """``x.data = t`` where one of the two is an inference tensor: PyTorch accepts it and leaves
    a tensor whose kind comes from ``t`` and whose version counter is ``x``'s, a state its later
    ops treat inconsistently; minigrad refuses it (a deliberate difference, docs/concepts/
    versions.md). The PyTorch half checks the inconsistency the refusal avoids, so this test
    tells when a PyTorch release changes it."""
    import torch

    import minigrad

    def pair(lib):
        with lib.inference_mode():
            inf = lib.tensor(X)
        return lib.tensor(X, requires_grad=True), inf, lib.tensor(X)

    w, inf, normal = pair(torch)
    w.data = inf  # accepted: w now says it is an inference tensor, yet its _version reads 0
    assert (w.is_inference(), w._version) == (True, 0)
    with pytest.raises(RuntimeError, match="does not require grad"):  # requires_grad is lost
        (w * w).sum().backward()
    inf.data = normal  # the other way: a "normal" tensor without a version counter
    assert not inf.is_inference()
    with pytest.raises(RuntimeError, match="do not track version counter"):
        _ = inf._version

    w, inf, normal = pair(minigrad)
    for x, t in ((w, inf), (inf, normal)):
        before = (x.is_inference(), to_numpy(x).copy())
        with pytest.raises(RuntimeError, match="refuses `.data =` between an inference"):
            x.data = t
        assert (x.is_inference(), to_numpy(x).tolist()) == (before[0], before[1].tolist())
    w.data = inf.clone()  # the way out the message gives: a normal copy
    assert not w.is_inference() and w.requires_grad


@pytest.mark.parametrize("new_shape", [(3,), (2, 2, 2), (1, 2)])
def test_data_of_another_shape_with_the_old_accumulator_alive(device, new_shape):
    """``x.data =`` of another shape while a graph from before keeps ``x``'s AccumulateGrad:
    a new graph's gradient is checked against the accumulator's recorded shape, then (unless it
    passes PyTorch's layout check and is taken as it comes) broadcast into the leaf's new shape
    by ``clone_obey_contract``, which raises when it cannot."""
    def scenario(lib, device):
        out = {}
        for which in ("new_graph", "old_graph"):
            x = mk(lib, device, np.ones((2, 2), np.float32), requires_grad=True)
            a = x * 1
            x.data = mk(lib, device, np.arange(np.prod(new_shape), dtype=np.float32)
                        .reshape(new_shape))
            loss = (x * 2).sum() if which == "new_graph" else (a * 2).sum()
            out[which] = err(loss.backward)
            out[which + "_grad"] = value(x.grad)
        return out

    assert_parity(scenario, device=device)
