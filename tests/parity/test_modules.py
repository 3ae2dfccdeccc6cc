"""Parity: ``nn.Module`` registration, iteration, modes, forward hooks, Parameter, containers,
layers (attributes, repr, init, forward) and ``nn.init`` — minigrad vs PyTorch.

Facts doc sections 1.6, 3.1 (fresh-layer versions), 5.1, 5.5 and 6. Every scenario is written
once as a function of ``lib`` and returns plain data; classes are defined inside the scenario
so that they subclass ``lib.nn.Module``.
"""

import copy
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, graph_trace, to_numpy
from tests.parity.test_tensor_meta import err, mk

RNG = np.random.default_rng(0)
W32 = RNG.standard_normal((3, 2)).astype(np.float32)
B3 = RNG.standard_normal(3).astype(np.float32)
X52 = RNG.standard_normal((5, 2)).astype(np.float32)


def is_torch(lib):
    return lib.__name__ == "torch"


def need_functional(*names):
    """Fail clearly if ``minigrad.nn.functional`` lacks an op the test needs."""
    import minigrad.nn.functional as F

    missing = [n for n in names if not hasattr(F, n)]
    assert not missing, f"minigrad.nn.functional lacks {missing}"


def affine_cls(lib):
    """A Linear-like module written with plain tensor ops (no ``nn.functional`` needed)."""

    class Affine(lib.nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.zeros(o, i))
            self.bias = lib.nn.Parameter(lib.zeros(o))

        def forward(self, x):
            return x @ self.weight.t() + self.bias

    return Affine


def act_cls(lib):
    class Act(lib.nn.Module):
        def forward(self, x):
            return x.relu()

    return Act


def load(lib, model, arrays, device="cpu"):
    """Copy NumPy arrays into ``model`` through ``load_state_dict`` (torch tensors for torch)."""
    return model.load_state_dict({k: mk(lib, device, v) for k, v in arrays.items()})


def names(pairs):
    return [n for n, _ in pairs]


def rep(obj):
    """``repr`` with PyTorch's ``torch`` spelled ``minigrad`` (dtype and type names)."""
    return repr(obj).replace("torch", "minigrad")


# ------------------------------------------------------------------ registration
def probe_model(lib):
    nn = lib.nn

    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(2, 3)
            self.scale = nn.Parameter(lib.ones(1))
            self.register_buffer("running", lib.zeros(2))
            self.register_buffer("tmp", lib.zeros(2), persistent=False)
            self.mlist = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
            self.mdict = nn.ModuleDict({"b": nn.Linear(2, 1), "a": nn.Linear(1, 1)})
            self.plist = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(3)])
            self.pdict = nn.ParameterDict({"z": nn.Parameter(lib.ones(2)), "y": lib.zeros(3)})
            self.fc0 = nn.Linear(3, 1)
            self.register_parameter("maybe", None)
            self.register_buffer("nobuf", None)
            self.plain = lib.zeros(2)
            self.layers = [nn.Linear(2, 2)]

    return Probe()


def test_registration_probe():
    def scenario(lib):
        m = probe_model(lib)
        sd = m.state_dict()
        out = {
            "params": [(n, tuple(p.shape), type(p).__name__) for n, p in m.named_parameters()],
            "buffers": names(m.named_buffers()),
            "state_dict": list(sd),
            "state_dict_type": type(sd).__name__,
            "modules": names(m.named_modules()),
            "module_types": [type(x).__name__ for x in m.modules()],
            "children": names(m.named_children()),
            "_parameters": list(m._parameters),
            "_buffers": list(m._buffers),
            "_modules": list(m._modules),
            "non_persistent": sorted(m._non_persistent_buffers_set),
            "maybe": m.maybe is None, "nobuf": m.nobuf is None,
            "plain_in_dict": "plain" in m.__dict__, "layers_in_dict": "layers" in m.__dict__,
            "getattr_same": m.fc1 is m._modules["fc1"] and m.scale is m._parameters["scale"],
            "dir": [k in dir(m) for k in ("fc1", "scale", "running", "plain", "forward", "0")],
            "prefixed": names(m.named_parameters(prefix="net", recurse=False)),
            "nonrecursive": names(m.named_buffers(recurse=False)),
            "n_params": len(list(m.parameters())),
            "submodule": type(m.get_submodule("mdict.b")).__name__,
            "get_parameter": tuple(m.get_parameter("mlist.0.weight").shape),
            "get_self": m.get_submodule("") is m,
        }
        m.running = lib.ones(2)  # stays a buffer
        m.scale = None  # parameter entry becomes None
        m.fc0 = None
        del m.mdict
        m.extra = lib.nn.Linear(1, 1)  # registered on assignment
        m.fc1 = lib.nn.Parameter(lib.ones(1))  # replaces the module by a parameter
        out["after"] = {
            "params": names(m.named_parameters()), "buffers": names(m.named_buffers()),
            "_modules": list(m._modules), "state_dict": list(m.state_dict()),
            "running": to_numpy(m.running),
        }
        return out

    assert_parity(scenario)


def test_registration_errors():
    nn_err = [
        lambda m, lib: setattr(m, "fc1", lib.zeros(2)),
        lambda m, lib: setattr(m, "scale", lib.zeros(2)),
        lambda m, lib: setattr(m, "fc1", 3),
        lambda m, lib: m.register_buffer("fc0", lib.zeros(1)),
        lambda m, lib: m.register_buffer("a.b", lib.zeros(1)),
        lambda m, lib: m.register_buffer("", lib.zeros(1)),
        lambda m, lib: m.register_buffer("x", 3),
        lambda m, lib: m.register_buffer(3, lib.zeros(1)),
        lambda m, lib: m.register_parameter("q", lib.zeros(1)),
        lambda m, lib: m.register_parameter("q", lib.nn.Parameter(lib.zeros(1)) * 2),
        lambda m, lib: m.register_parameter("fc1", None),
        lambda m, lib: m.register_parameter("a.b", None),
        lambda m, lib: m.register_parameter("", None),
        lambda m, lib: m.add_module("a.b", lib.nn.ReLU()),
        lambda m, lib: m.add_module("", lib.nn.ReLU()),
        lambda m, lib: m.add_module("x", 3),
        lambda m, lib: m.add_module("scale", lib.nn.ReLU()),
        lambda m, lib: m.add_module(3, lib.nn.ReLU()),
        lambda m, lib: m.nothere,
        lambda m, lib: delattr(m, "nothere"),
        lambda m, lib: m.get_submodule("fc1.x"),
        lambda m, lib: m.get_submodule("scale"),
        lambda m, lib: m.get_parameter("fc1.nope"),
        lambda m, lib: m.get_parameter("running"),
        lambda m, lib: m.train("yes"),
        lambda m, lib: lib.nn.Module()(1),
        lambda m, lib: lib.nn.Module(3),
        lambda m, lib: lib.nn.Module(a=3),
        lambda m, lib: m.plist(1),
        lambda m, lib: m.pdict[3],
    ]

    def scenario(lib):
        m = probe_model(lib)
        out = [err(lambda f=f: f(m, lib)) for f in nn_err]
        # The buffer-type message differs in the type list (torch also names nn.Buffer).
        out.append(err(lambda: setattr(m, "running", 3), "cannot assign 'int' as buffer"))
        nn = lib.nn

        class Early(nn.Module):
            def __init__(self, what):
                if what == "module":
                    self.fc = nn.Linear(2, 2)
                elif what == "param":
                    self.p = nn.Parameter(lib.ones(1))
                else:
                    self.register_buffer("b", lib.ones(1))

        out += [err(lambda w=w: Early(w)) for w in ("module", "param", "buffer")]
        out.append(list(m.state_dict()) == list(probe_model(lib).state_dict()))  # unchanged
        return out

    assert_parity(scenario)


def test_shared_parameters_and_modules():
    def scenario(lib):
        nn = lib.nn

        class Shared(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(2, 2)
                self.b = nn.Linear(2, 2)
                self.b.weight = self.a.weight
                self.c = self.a

        m = Shared()
        return {
            "params": names(m.named_parameters()),
            "params_all": names(m.named_parameters(remove_duplicate=False)),
            "modules": names(m.named_modules()),
            "modules_all": names(m.named_modules(remove_duplicate=False)),
            "children": names(m.named_children()),
            "state_dict": list(m.state_dict()),
            "n": len(list(m.parameters())),
            "same": m.state_dict()["c.weight"].data_ptr() == m.a.weight.data_ptr()
            if is_torch(lib) else np.shares_memory(m.state_dict()["c.weight"]._data,
                                                   m.a.weight._data),
        }

    assert_parity(scenario)


def test_sequential_built_inside_forward(device):
    """The story from the design doc: a head built in forward() is never registered."""

    def scenario(lib, device):
        nn, Affine = lib.nn, affine_cls(lib)

        class Net(nn.Module):
            def __init__(self, assign):
                super().__init__()
                self.fc = Affine(2, 3)
                self._dbg = {}
                self.assign = assign

            def forward(self, x):
                head = nn.Sequential(Affine(3, 1))
                head.to(device)
                with lib.no_grad():
                    head[0].weight.fill_(0.5)
                if self.assign:
                    self.last_head = head
                else:
                    self._dbg["head"] = head
                return head(self.fc(x))

        out = {}
        for assign in (False, True):
            net = Net(assign).to(device)
            load(lib, net, {"fc.weight": W32, "fc.bias": B3}, device)
            before = names(net.named_parameters())
            opt = lib.optim.SGD(net.parameters(), lr=0.1)
            net(mk(lib, device, X52)).sum().backward()
            head = net.last_head if assign else net._dbg["head"]
            w_before = to_numpy(head[0].weight)
            opt.step()
            out[assign] = {
                "before": before, "after": names(net.named_parameters()),
                "head_grad": to_numpy(head[0].weight.grad),
                "head_unchanged": bool(np.array_equal(to_numpy(head[0].weight), w_before)),
                "fc_weight": to_numpy(net.fc.weight), "fc_version": net.fc.weight._version,
                "head_version": head[0].weight._version,
            }
        return out

    assert_parity(scenario, device=device)


def test_train_eval_apply_modules_order():
    def scenario(lib):
        nn = lib.nn
        m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU(), nn.Linear(2, 2)))
        visited = []
        ret = m.apply(lambda x: visited.append(type(x).__name__))
        out = {"apply": visited, "apply_returns_self": ret is m,
               "modules": [type(x).__name__ for x in m.modules()],
               "initial": [x.training for x in m.modules()]}
        out["eval_self"] = m.eval() is m
        out["after_eval"] = [x.training for x in m.modules()]
        out["child_train_self"] = m[1].train() is m[1]
        out["after_child_train"] = [x.training for x in m.modules()]
        m.train(False)
        out["train_false"] = [x.training for x in m.modules()]
        out["train_self"] = m.train() is m
        out["after_train"] = [x.training for x in m.modules()]

        class ListHolder(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = [nn.Linear(2, 2), nn.Linear(2, 2)]

        h = ListHolder().eval()
        out["plain_list"] = [h.training, [x.training for x in h.layers],
                             len(list(h.parameters())), len(h.state_dict()),
                             names(h.named_modules())]
        out["empty_sgd"] = err(lambda: lib.optim.SGD(h.parameters()))
        rg = m.requires_grad_(False)
        out["requires_grad_"] = [rg is m, [p.requires_grad for p in m.parameters()]]
        m.requires_grad_()
        out["requires_grad_back"] = [p.requires_grad for p in m.parameters()]
        return out

    assert_parity(scenario)


def test_zero_grad_modes(device):
    def scenario(lib, device):
        m = affine_cls(lib)(2, 3).to(device)
        load(lib, m, {"weight": W32, "bias": B3}, device)
        x = mk(lib, device, X52)
        out = []
        m(x).pow(2).sum().backward()
        g = m.weight.grad
        out.append(("fresh", to_numpy(g), g._version, m.weight._version))
        m(x).sum().backward()
        out.append(("accumulated", m.weight.grad is g, to_numpy(g), g._version))
        m.zero_grad(set_to_none=False)
        out.append(("zeroed", m.weight.grad is g, to_numpy(g), g._version,
                    g.requires_grad, m.bias.grad._version))
        m.zero_grad()
        out.append(("none", m.weight.grad is None, m.bias.grad is None))
        m.zero_grad(set_to_none=False)  # nothing to zero: no error
        out.append(("none again", m.weight.grad is None))
        return out

    assert_parity(scenario, device=device)


# ------------------------------------------------------------------ forward hooks
def test_forward_hook_trace_global_then_local(device):
    """Facts 5.2 (forward part): global hooks before local ones, nesting parent/children."""

    def scenario(lib, device):
        nn, Affine, Act = lib.nn, affine_cls(lib), act_cls(lib)
        from importlib import import_module

        mm = import_module(lib.__name__ + ".nn.modules.module")
        net = nn.Sequential(Affine(2, 4), Act(), Affine(4, 3)).to(device)
        qual = {mod: name or "root" for name, mod in net.named_modules()}
        log, handles = [], []

        def shapes(args):
            return [tuple(a.shape) for a in args]

        handles.append(mm.register_module_forward_pre_hook(
            lambda mod, args: log.append(("G pre", qual.get(mod), shapes(args)))))
        handles.append(mm.register_module_forward_hook(
            lambda mod, args, out: log.append(("G fwd", qual.get(mod), tuple(out.shape)))))
        try:
            for mod in net.modules():
                handles.append(mod.register_forward_pre_hook(
                    lambda mod, args: log.append(("pre", qual[mod], shapes(args)))))
                handles.append(mod.register_forward_hook(
                    lambda mod, args, out: log.append(("fwd", qual[mod], shapes(args),
                                                       tuple(out.shape)))))
            out = net(mk(lib, device, X52, requires_grad=True))
            n_calls = len(log)
            net.forward(mk(lib, device, X52))  # calling forward directly: the children's
            direct = log[n_calls:]              # __call__ runs their hooks, not the root's
        finally:
            for h in handles:
                h.remove()
        net(mk(lib, device, X52))  # every hook removed
        return {"log": log[:n_calls], "direct": direct, "after_remove": len(log) == n_calls
                + len(direct), "graph": graph_trace(out),
                "ids": [b.id - a.id for a, b in zip(handles, handles[1:])]}

    assert_parity(scenario, device=device)


def test_forward_hook_order_prepend_and_flags():
    def scenario(lib):
        m = act_cls(lib)()
        log = []

        def pre(tag):
            return lambda mod, args: log.append("pre " + tag)

        def fwd(tag):
            return lambda mod, args, *rest: log.append("fwd " + tag)

        m.register_forward_pre_hook(pre("A"))
        m.register_forward_pre_hook(pre("B"))
        m.register_forward_pre_hook(pre("C"), prepend=True)
        m.register_forward_hook(fwd("A"))
        m.register_forward_hook(fwd("B"), prepend=True)
        m.register_forward_hook(fwd("C"), always_call=True)
        m.register_forward_hook(fwd("D"), with_kwargs=True)
        m(lib.ones(2))
        return log, [len(m._forward_hooks), len(m._forward_hooks_with_kwargs),
                     len(m._forward_hooks_always_called), len(m._forward_pre_hooks)]

    assert_parity(scenario)


def test_forward_hook_return_values_and_kwargs():
    def scenario(lib):
        nn = lib.nn

        class Scale(nn.Module):
            def forward(self, x, factor=1.0, shift=0.0):
                return x * factor + shift

        out = {}
        m = Scale()
        seen = []
        h1 = m.register_forward_pre_hook(lambda mod, args: seen.append(("plain", len(args))))
        h2 = m.register_forward_pre_hook(
            lambda mod, args, kwargs: seen.append(("kw", len(args), dict(kwargs))),
            with_kwargs=True)
        h3 = m.register_forward_hook(
            lambda mod, args, kwargs, o: seen.append(("fwd kw", dict(kwargs))), with_kwargs=True)
        out["plain"] = to_numpy(m(lib.ones(2), 2.0, shift=1.0))
        out["seen"] = seen
        for h in (h1, h2, h3):
            h.remove()
            h.remove()  # second remove is harmless
        out["emptied"] = [len(m._forward_pre_hooks), len(m._forward_pre_hooks_with_kwargs),
                          len(m._forward_hooks), len(m._forward_hooks_with_kwargs)]
        # Non-tuple return replaces the single argument; a tuple replaces them all.
        with m.register_forward_pre_hook(lambda mod, args: args[0] * 10):
            out["non_tuple"] = to_numpy(m(lib.ones(2), 3.0))
        out["context_removed"] = len(m._forward_pre_hooks)
        with m.register_forward_pre_hook(lambda mod, args: (args[0] + 1, 5.0)):
            out["tuple"] = to_numpy(m(lib.ones(2), 3.0))
        with m.register_forward_pre_hook(
                lambda mod, args, kwargs: (args, {"shift": 7.0}), with_kwargs=True):
            out["new_kwargs"] = to_numpy(m(lib.ones(2), shift=1.0))
        # Forward hooks chain; the last non-None return wins.
        with m.register_forward_hook(lambda mod, args, o: o + 1), \
                m.register_forward_hook(lambda mod, args, o: o * 100), \
                m.register_forward_hook(lambda mod, args, o: None):
            out["chain"] = to_numpy(m(lib.ones(2)))
        with m.register_forward_pre_hook(lambda mod, args, kwargs: lib.zeros(2),
                                         with_kwargs=True):
            out["bad_pre"] = err(lambda: m(lib.ones(2)))
        from importlib import import_module

        mm = import_module(lib.__name__ + ".nn.modules.module")
        with mm.register_module_forward_hook(lambda mod, args, o: o - 5):
            out["global_replaces"] = to_numpy(m(lib.ones(2)))
        out["forward_direct"] = to_numpy(m.forward(lib.ones(2)))
        return out

    assert_parity(scenario)


def test_forward_hook_always_call():
    def scenario(lib):
        nn = lib.nn

        class Boom(nn.Module):
            def forward(self, x):
                return 1 / 0

        m, log = Boom(), []
        m.register_forward_pre_hook(lambda mod, args: log.append("pre"))
        m.register_forward_hook(lambda mod, args, o: log.append("normal"))
        m.register_forward_hook(lambda mod, args, o: log.append(("always", o)), always_call=True)
        m.register_forward_hook(lambda mod, args, kw, o: log.append(("always kw", kw, o)),
                                always_call=True, with_kwargs=True)

        def raiser(mod, args, o):
            raise ValueError("hook failed")

        m.register_forward_hook(raiser, always_call=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            e = err(lambda: m(lib.ones(2)))
        return log, e, [(x.category.__name__, str(x.message)) for x in w]

    assert_parity(scenario)


def test_module_used_twice_runs_hooks_per_call():
    def scenario(lib):
        nn, Affine, Act = lib.nn, affine_cls(lib), act_cls(lib)

        class Twice(nn.Module):
            def __init__(self):
                super().__init__()
                self.shared = Affine(2, 2)
                self.act = Act()

            def forward(self, x):
                return self.shared(self.act(self.shared(x)))

        net, log = Twice(), []
        net.shared.register_forward_pre_hook(lambda mod, a: log.append("pre"))
        net.shared.register_forward_hook(lambda mod, a, o: log.append("fwd"))
        net(lib.ones(3, 2))
        return log, names(net.named_parameters())

    assert_parity(scenario)


# ------------------------------------------------------------------ Parameter
def test_parameter_semantics():
    def scenario(lib):
        nn = lib.nn
        t = lib.zeros(3)
        p = nn.Parameter(t)
        out = {"init": (p._version, t._version, p.is_leaf, p.requires_grad, p.grad_fn is None)}
        t.add_(1)
        out["shares_version"] = (p._version, to_numpy(p))
        with lib.no_grad():
            p.mul_(2)
        out["shares_data"] = (to_numpy(t), t._version)
        out["repr"] = repr(nn.Parameter(lib.ones(2)))
        out["repr_nograd"] = repr(nn.Parameter(lib.ones(2), requires_grad=False))
        out["repr_empty"] = (repr(nn.Parameter()), tuple(nn.Parameter().shape))
        out["op_types"] = [type(p * 2).__name__, type(p.detach()).__name__,
                           type(p.data).__name__, type(p + p).__name__]
        q = nn.Parameter(lib.ones(2, requires_grad=True) * 2)
        out["from_nonleaf"] = (q.is_leaf, q.grad_fn is None, q.requires_grad)
        out["int"] = err(lambda: nn.Parameter(lib.ones(2, dtype=lib.int64)))
        out["int_ok"] = repr(nn.Parameter(lib.ones(2, dtype=lib.int64), requires_grad=False))
        out["not_tensor"] = err(lambda: nn.Parameter([1.0, 2.0]))
        c = copy.deepcopy(p)
        out["deepcopy"] = (type(c).__name__, c._version, c.requires_grad, to_numpy(c))
        out["isinstance"] = isinstance(p, lib.Tensor)
        with lib.no_grad():
            r = nn.Parameter(lib.ones(1))
        out["under_no_grad"] = r.requires_grad
        return out

    assert_parity(scenario)


def test_deepcopy_leaves_autograd_state_behind():
    """``copy.deepcopy`` of a leaf (and of a model) copies data, ``requires_grad``, ``.grad`` and
    the user's attributes (deeply), not the autograd state: a copy made while a graph of the
    original is alive gets its own gradients (they used to reach the original's ``.grad``), and
    hooks are not copied."""

    def scenario(lib):
        out = {}
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.note = {"tags": [1]}
        calls = []
        x.register_hook(lambda g: calls.append("x"))
        alive = (x * 2).sum()  # x's gradient accumulator exists while this graph does
        z = copy.deepcopy(x)
        (z * 3).sum().backward()
        out["leaf"] = (to_numpy(x.grad) if x.grad is not None else None, to_numpy(z.grad),
                       z.note, z.note is x.note, list(calls), z.requires_grad, z.is_leaf)
        alive.backward()
        out["original_after"] = (to_numpy(x.grad), list(calls))
        lib.manual_seed(0)
        model = lib.nn.Linear(2, 1)
        loss = model(lib.tensor([[1.0, 2.0]])).sum()
        twin = copy.deepcopy(model)
        twin(lib.tensor([[1.0, -1.0]])).sum().backward()
        out["model"] = (model.weight.grad is None, to_numpy(twin.weight.grad),
                        type(twin.weight).__name__)
        loss.backward()
        out["model_after"] = to_numpy(model.weight.grad)
        return out

    assert_parity(scenario)


# ------------------------------------------------------------------ containers
def test_sequential_container():
    def scenario(lib):
        nn = lib.nn
        s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        out = {"len": len(s), "types": [type(m).__name__ for m in s],
               "neg": type(s[-1]).__name__, "keys": list(s.state_dict())}
        sl = s[1:]
        out["slice"] = (type(sl).__name__, list(sl._modules), list(sl.state_dict()),
                        sl[0] is s[1])
        out["index_error"] = err(lambda: s[3])
        s.append(nn.Tanh())
        out["append"] = list(s._modules)
        s.insert(1, nn.Sigmoid())
        out["insert"] = [type(m).__name__ for m in s]
        s.extend([nn.Identity()])
        del s[0]
        out["del"] = (list(s._modules), [type(m).__name__ for m in s])
        popped = s.pop(0)
        out["pop"] = (type(popped).__name__, list(s._modules))
        s[0] = nn.Linear(3, 3)
        out["setitem"] = type(s[0]).__name__
        named = nn.Sequential(OrderedDict([("enc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
        out["ordered"] = (list(named.state_dict()), names(named.named_children()))
        both = named + nn.Sequential(nn.Tanh())
        out["add"] = list(both._modules)
        out["add_err"] = err(lambda: named + 3)
        out["dir_digits"] = any(k.isdigit() for k in dir(s))
        out["empty"] = (repr(nn.Sequential()), len(nn.Sequential()))
        return out

    assert_parity(scenario)


def test_module_list_and_dict():
    def scenario(lib):
        nn = lib.nn
        ml = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
        ml.append(nn.Linear(2, 1))
        ml.extend([nn.Tanh(), nn.Tanh()])
        ml.insert(1, nn.Sigmoid())
        out = {"list": [type(m).__name__ for m in ml], "keys": list(ml._modules),
               "len": len(ml), "neg": type(ml[-1]).__name__,
               "slice": (type(ml[1:3]).__name__, list(ml[1:3]._modules)),
               "params": names(ml.named_parameters()), "repr": repr(ml),
               "index_error": err(lambda: ml[10]), "extend_err": err(lambda: ml.extend(3))}
        del ml[0]
        out["del"] = list(ml._modules)
        ml2 = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])
        out["repr_repeat"] = repr(ml2)
        out["empty"] = repr(nn.ModuleList())
        out["call"] = err(lambda: ml(1))
        md = nn.ModuleDict({"b": nn.Linear(2, 2), "a": nn.ReLU()})
        md["c"] = nn.Tanh()
        md.update([("d", nn.Sigmoid())])
        out["dict"] = (list(md), list(md.keys()), [type(v).__name__ for v in md.values()],
                       "a" in md, len(md), names(md.named_parameters()), repr(md))
        out["dict_pop"] = (type(md.pop("a")).__name__, list(md))
        out["dict_update_err"] = err(lambda: md.update([("x",)]))
        return out

    assert_parity(scenario)


def test_parameter_list_and_dict():
    def scenario(lib):
        nn = lib.nn
        pl = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(2, 3, dtype=lib.float64)])
        pl.append(lib.ones(1))
        out = {"types": [type(p).__name__ for p in pl], "len": len(pl),
               "names": names(pl.named_parameters()), "repr": rep(pl),
               "slice": names(pl[1:].named_parameters()), "neg": tuple(pl[-1].shape),
               "extend_err": err(lambda: pl.extend(lib.ones(2)))}
        pd = nn.ParameterDict({"z": nn.Parameter(lib.ones(2)), "y": lib.zeros(3)})
        pd["x"] = lib.ones(1)
        out["dict"] = (list(pd), list(pd.keys()), names(pd.named_parameters()),
                       [type(v).__name__ for v in pd.values()], "y" in pd, len(pd), rep(pd))
        pd_ordered = nn.ParameterDict(OrderedDict([("z", lib.ones(1)), ("y", lib.ones(1))]))
        pd_pairs = nn.ParameterDict([("z", lib.ones(1)), ("y", lib.ones(1))])
        out["ordered"] = (list(pd_ordered), list(pd_pairs))
        del pd["z"]
        out["del"] = (list(pd), names(pd.named_parameters()), pd.get("z", "default"))
        out["pop"] = (tuple(pd.pop("y").shape), list(pd))
        out["call"] = err(lambda: pd(1))
        return out

    assert_parity(scenario)


# ------------------------------------------------------------------ layers
def all_layers(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Linear(3, 4), nn.Linear(3, 4, bias=False), nn.Conv2d(3, 8, 3),
        nn.Conv2d(3, 8, (3, 5), stride=2, padding=1, bias=False),
        nn.Conv2d(3, 8, 3, padding="same", dilation=2), nn.Conv2d(4, 8, 3, groups=2),
        nn.Conv2d(4, 8, 3, padding=(1, 2)), nn.Conv2d(2, 2, 1, padding="valid"),
        nn.ReLU(), nn.ReLU(inplace=True), nn.Sigmoid(), nn.Tanh(), nn.Softmax(dim=1),
        nn.Softmax(), nn.LogSoftmax(dim=-1), nn.LogSoftmax(), nn.MaxPool2d(2),
        nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2, return_indices=True,
                     ceil_mode=True),
        nn.AvgPool2d(2), nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True,
                                      count_include_pad=False, divisor_override=2),
        nn.Flatten(), nn.Flatten(0, 2), nn.Dropout(), nn.Dropout(0.1, inplace=True),
        nn.Identity(), nn.Identity(3, k=2), nn.CrossEntropyLoss(),
        nn.CrossEntropyLoss(weight=lib.ones(3), reduction="sum", label_smoothing=0.1),
        nn.NLLLoss(ignore_index=1), nn.MSELoss(reduction="none"))


def test_repr_of_all_layers():
    def scenario(lib):
        return rep(all_layers(lib))

    assert_parity(scenario)


LAYER_ATTRS = {
    "Linear": ["in_features", "out_features"],
    "Conv2d": ["in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
               "groups", "padding_mode", "output_padding", "transposed",
               "_reversed_padding_repeated_twice"],
    "MaxPool2d": ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"],
    "AvgPool2d": ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                  "divisor_override"],
    "Flatten": ["start_dim", "end_dim"], "Dropout": ["p", "inplace"], "ReLU": ["inplace"],
    "Softmax": ["dim"], "LogSoftmax": ["dim"],
    "CrossEntropyLoss": ["reduction", "ignore_index", "label_smoothing"],
    "NLLLoss": ["reduction", "ignore_index"], "MSELoss": ["reduction"],
}


def test_layer_attributes_params_and_versions():
    def scenario(lib):
        out = []
        for m in all_layers(lib):
            name = type(m).__name__
            attrs = {a: getattr(m, a) for a in LAYER_ATTRS.get(name, [])}
            attrs = {a: list(v) if isinstance(v, list) else v for a, v in attrs.items()}
            params = [(n, tuple(p.shape), p._version, p.requires_grad, type(p).__name__)
                      for n, p in m.named_parameters()]
            buffers = {n: None if b is None else tuple(b.shape) for n, b in m._buffers.items()}
            out.append((name, attrs, params, buffers, list(m._parameters), m.training))
        return out

    assert_parity(scenario)


def test_layer_constructor_errors():
    def scenario(lib):
        nn = lib.nn
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            legacy = nn.MSELoss(size_average=False).reduction
        return [
            err(lambda: nn.Conv2d(3, 8, 3, groups=0)),
            err(lambda: nn.Conv2d(3, 8, 3, groups=2)),
            err(lambda: nn.Conv2d(4, 6, 3, groups=4)),
            err(lambda: nn.Conv2d(3, 8, 3, padding="full")),
            err(lambda: nn.Conv2d(3, 8, 3, stride=2, padding="same")),
            err(lambda: nn.Conv2d(3, 8, 3, padding_mode="mirror"), "padding_mode must be one of"),
            err(lambda: nn.Dropout(1.5)),
            err(lambda: nn.Dropout(-0.1)),
            (legacy, [str(x.message) for x in w]),
        ]

    assert_parity(scenario)


def test_default_init_distributions():
    """Same distributions as PyTorch (values come from different RNGs): bounds and moments."""

    def scenario(lib):
        lib.manual_seed(0)
        lin, conv = lib.nn.Linear(400, 300), lib.nn.Conv2d(16, 32, 3)
        out = {}
        for name, p, fan_in in (("lin.w", lin.weight, 400), ("lin.b", lin.bias, 400),
                                ("conv.w", conv.weight, 144), ("conv.b", conv.bias, 144)):
            a = to_numpy(p).astype(np.float64)
            bound = 1 / np.sqrt(fan_in)
            out[name] = {"in_bounds": bool(np.abs(a).max() <= bound),
                         "std/bound": float(a.std() / bound) if a.size > 1000 else 0.0}
        return out

    a, b = assert_parity(scenario, rtol=0.03, atol=0.0)
    assert abs(b["lin.w"]["std/bound"] - 1 / np.sqrt(3)) < 0.01  # U(-bound, bound)


def test_nn_init_functions():
    def scenario(lib):
        init = lib.nn.init
        lib.manual_seed(0)
        out = {}
        cases = {
            "uniform_": lambda t: init.uniform_(t, -2.0, 3.0),
            "normal_": lambda t: init.normal_(t, 1.0, 2.0),
            "constant_": lambda t: init.constant_(t, 0.25),
            "ones_": init.ones_, "zeros_": init.zeros_,
            "xavier_uniform_": lambda t: init.xavier_uniform_(t, gain=2.0),
            "xavier_normal_": init.xavier_normal_,
            "kaiming_uniform_": lambda t: init.kaiming_uniform_(t, a=0.1),
            "kaiming_normal_": lambda t: init.kaiming_normal_(t, mode="fan_out",
                                                              nonlinearity="relu"),
        }
        for name, fn in cases.items():
            p = lib.nn.Parameter(lib.empty(200, 100, 3))  # requires grad: init runs in no_grad
            r = fn(p)
            a = to_numpy(p).astype(np.float64)
            out[name] = {"same_object": r is p, "version": p._version,
                         "requires_grad": p.requires_grad, "is_leaf": p.is_leaf,
                         "mean": float(a.mean()), "std": float(a.std()),
                         # extremes are a property of the bounded distributions only
                         "min": 0.0 if "normal" in name else float(a.min()),
                         "max": 0.0 if "normal" in name else float(a.max())}
        out["gain"] = [init.calculate_gain(n) for n in ("linear", "conv2d", "sigmoid", "tanh",
                                                       "relu", "leaky_relu", "selu")]
        out["gain_leaky"] = init.calculate_gain("leaky_relu", 0.2)
        out["fans"] = [init._calculate_fan_in_and_fan_out(lib.empty(*s))
                       for s in ((4, 3), (8, 3, 5, 5), (2, 7, 3))]
        out["errors"] = [err(lambda: init.calculate_gain("swish")),
                         err(lambda: init.calculate_gain("leaky_relu", "x")),
                         err(lambda: init._calculate_fan_in_and_fan_out(lib.empty(3))),
                         err(lambda: init.kaiming_uniform_(lib.empty(3, 3), mode="fan_avg"))]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            init.kaiming_uniform_(lib.empty(0, 3))
        out["zero_element"] = [str(x.message) for x in w]
        return out

    # Moments of 60 000 samples: tolerance well above the sampling error, far below any
    # formula mistake (a wrong gain or fan changes std by >= 10%).
    assert_parity(scenario, rtol=0.02, atol=0.02)


# ------------------------------------------------------------------ layer forwards (need F)
def _forward_case(lib, device, build, x, target=None, int_target=False):
    lib.manual_seed(0)
    m = build(lib.nn).to(device)
    rng = np.random.default_rng(1)  # same weights on both sides
    arrays = {k: rng.standard_normal(tuple(v.shape)).astype(np.float32) * 0.5
              for k, v in m.state_dict().items()}
    load(lib, m, arrays, device)
    xt = mk(lib, device, x, requires_grad=True)
    if target is None:
        out = m(xt)
    else:
        tt = mk(lib, device, target)
        out = m(xt, tt)
    res = out[0] if isinstance(out, tuple) else out
    res.sum().backward()
    return {"out": to_numpy(res), "graph": graph_trace(res), "x.grad": to_numpy(xt.grad),
            "grads": {n: to_numpy(p.grad) for n, p in m.named_parameters()}}


X4D = np.random.default_rng(2).standard_normal((2, 4, 6, 6)).astype(np.float32)
LOGITS = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)
TARGET = np.array([0, 2, 1, 1, 0], dtype=np.int64)

FORWARD_CASES = {
    "linear": (lambda nn: nn.Linear(2, 3), X52, None),
    "linear_nobias": (lambda nn: nn.Linear(2, 3, bias=False), X52, None),
    "conv": (lambda nn: nn.Conv2d(4, 6, 3, stride=2, padding=1), X4D, None),
    "conv_groups": (lambda nn: nn.Conv2d(4, 4, 3, groups=2, bias=False), X4D, None),
    "conv_same": (lambda nn: nn.Conv2d(4, 2, 3, padding="same", dilation=2), X4D, None),
    "mlp": (lambda nn: nn.Sequential(nn.Flatten(), nn.Linear(144, 8), nn.ReLU(),
                                     nn.Linear(8, 3), nn.LogSoftmax(dim=1)), X4D, None),
    "cnn": (lambda nn: nn.Sequential(nn.Conv2d(4, 3, 3), nn.Tanh(), nn.MaxPool2d(2),
                                     nn.AvgPool2d(2, ceil_mode=True), nn.Flatten(),
                                     nn.Sigmoid(), nn.Softmax(dim=-1), nn.Identity()), X4D, None),
    "dropout_eval": (lambda nn: nn.Sequential(nn.Dropout(0.5), nn.Linear(2, 2)).eval(), X52,
                     None),
    "cross_entropy": (lambda nn: nn.CrossEntropyLoss(), LOGITS, TARGET),
    "cross_entropy_sum": (lambda nn: nn.CrossEntropyLoss(reduction="sum", label_smoothing=0.1),
                          LOGITS, TARGET),
    "nll": (lambda nn: nn.NLLLoss(ignore_index=1), LOGITS, TARGET),
    "mse": (lambda nn: nn.MSELoss(), LOGITS, LOGITS[::-1].copy()),
}


@pytest.mark.parametrize("case", list(FORWARD_CASES))
def test_layer_forward_backward(case, device):
    need_functional("linear", "conv2d", "relu", "max_pool2d", "avg_pool2d", "dropout",
                    "cross_entropy", "nll_loss", "mse_loss", "sigmoid", "tanh", "softmax",
                    "log_softmax")
    build, x, target = FORWARD_CASES[case]
    assert_parity(lambda lib, device: _forward_case(lib, device, build, x, target),
                  device=device, rtol=2e-5, atol=2e-6)


def test_dropout_train_modes():
    need_functional("dropout")

    def scenario(lib):
        lib.manual_seed(0)
        d = lib.nn.Dropout(0.5)
        x = lib.ones(200, 50, requires_grad=True)
        y = d(x)
        kept = to_numpy(y) != 0
        same_eval = d.eval()(x) is x
        zero_p = lib.nn.Dropout(0.0)(x) is x
        return {"graph": graph_trace(y), "values": sorted(set(to_numpy(y).ravel().tolist())),
                "kept_frac": float(kept.mean()), "eval_is_input": same_eval,
                "p0_is_input": zero_p}

    assert_parity(scenario, rtol=0.05, atol=0.02)


def test_linear_matches_pytorch_module_hook_graph(device):
    """A hooked nn.Linear still gives AddmmBackward0(bias, x, TBackward0(weight))."""
    need_functional("linear")

    def scenario(lib, device):
        m = lib.nn.Linear(2, 3).to(device)
        load(lib, m, {"weight": W32, "bias": B3}, device)
        m.register_forward_hook(lambda mod, a, o: None)
        y = m(mk(lib, device, X52, requires_grad=True))
        return graph_trace(y), to_numpy(y)

    assert_parity(scenario, device=device)


def test_minigrad_nn_namespace():
    """The public names exist and are the classes users expect."""
    nn = minigrad.nn
    for name in ("Module", "Parameter", "Sequential", "ModuleList", "ModuleDict",
                 "ParameterList", "ParameterDict", "Linear", "Conv2d", "ReLU", "Sigmoid",
                 "Tanh", "Softmax", "LogSoftmax", "MaxPool2d", "AvgPool2d", "Flatten",
                 "Dropout", "Identity", "CrossEntropyLoss", "NLLLoss", "MSELoss", "init"):
        assert hasattr(nn, name), name
    assert issubclass(nn.Parameter, minigrad.Tensor)
    assert issubclass(nn.Linear, nn.Module)
    from minigrad.autograd.graph import RemovableHandle

    h = nn.Identity().register_forward_hook(lambda *a: None)
    assert isinstance(h, RemovableHandle)
