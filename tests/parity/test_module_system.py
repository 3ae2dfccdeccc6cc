"""Parity of the rest of the module system: state-dict hooks, load-state-dict hooks, an
overridden ``_load_from_state_dict`` (checkpoint migration), extra state, ``nn.Buffer``,
``set_submodule``, ``call_super_init``, ``Sequential`` ``*``/``+=``/``*=``, the complete
``ParameterDict``, and the global registration hooks.

Every scenario records hook calls (kind, module class, prefix, keys, flags) in order, the
resulting state dicts and values, and the errors, on both libraries.
"""

from collections import OrderedDict

import pytest

from minigrad.parity import assert_parity, to_numpy

from .test_tensor_meta import err

torch = pytest.importorskip("torch")


def build(lib):
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(3, 2)
            self.register_buffer("count", lib.zeros(1))

        def forward(self, x):
            return self.fc(x)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = lib.nn.Linear(2, 1)

    lib.manual_seed(0)
    return Net()


def _values(sd):
    return {k: to_numpy(v) if hasattr(v, "shape") else v for k, v in sd.items()}


def _fill(lib, m, start=0.0):
    with lib.no_grad():
        for i, (_, p) in enumerate(sorted(m.state_dict(keep_vars=True).items())):
            p.copy_(lib.arange(p.numel(), dtype=p.dtype).reshape(p.shape) * 0.1 + start + i)


def test_state_dict_hooks(device):
    def scenario(lib, device):
        m = build(lib)
        _fill(lib, m)
        calls = []
        for name, mod in m.named_modules():
            mod.register_state_dict_pre_hook(
                lambda mod, prefix, keep_vars, name=name:
                calls.append(("pre", name, type(mod).__name__, prefix, keep_vars)))

            def post(mod, sd, prefix, local_metadata, name=name):
                calls.append(("post", name, prefix, list(sd), dict(local_metadata)))
                if name == "block":
                    sd[prefix + "extra"] = 7  # in place: kept
            mod.register_state_dict_post_hook(post)
        sd = m.state_dict(prefix="root.", keep_vars=True)
        out = {"calls": calls, "keys": list(sd), "meta": dict(sd._metadata)}

        def bad(mod, sd, prefix, local_metadata):
            return {}
        h = m.head.register_state_dict_post_hook(bad)
        out["bad"] = err(lambda: m.state_dict(), "state_dict post-hook must return None")
        h.remove()

        m._register_state_dict_hook(lambda mod, sd, prefix, meta: OrderedDict(only=1))
        out["private_replaces"] = list(m.state_dict())
        out["private_same_fn"] = err(lambda: m._register_state_dict_hook(post),
                                     "previously registered via register_state_dict_post_hook")
        return out

    assert_parity(scenario, device=device)


def test_load_state_dict_hooks_order_and_incompatible_keys(device):
    def scenario(lib, device):
        src = build(lib)
        _fill(lib, src, 1.0)
        m = build(lib)
        calls = []
        for name, mod in m.named_modules():
            def pre(mod, sd, prefix, local_metadata, strict, missing, unexpected, errors,
                    name=name):
                calls.append(("pre", name, type(mod).__name__, prefix, sorted(sd),
                              dict(local_metadata), strict, list(missing), list(unexpected),
                              list(errors)))
            mod.register_load_state_dict_pre_hook(pre)

            def post(mod, incompatible, name=name):
                calls.append(("post", name, list(incompatible.missing_keys),
                              list(incompatible.unexpected_keys)))
                if name == "":
                    incompatible.missing_keys.remove("block.count")  # forgive one key
                    incompatible.unexpected_keys.clear()
            mod.register_load_state_dict_post_hook(post)
        sd = src.state_dict()
        del sd["block.count"]
        sd["block.fc.old"] = lib.ones(1)
        result = m.load_state_dict(sd)
        out = {"calls": calls, "result": (list(result.missing_keys),
                                          list(result.unexpected_keys)),
               "repr": repr(result), "values": _values(m.state_dict()),
               "versions": {k: v._version for k, v in m.state_dict().items()}}
        m.head.register_load_state_dict_post_hook(lambda mod, keys: "x")
        out["returns"] = err(lambda: m.load_state_dict(sd),
                             "are not expected to return new values")
        return out

    assert_parity(scenario, device=device)


def test_overridden_load_from_state_dict_migrates_a_checkpoint(device):
    def scenario(lib, device):
        seen = []

        class Old(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.zeros(3))

        class New(lib.nn.Module):
            _version = 2

            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(lib.zeros(3))

            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs):
                seen.append((prefix, dict(local_metadata), strict, list(missing_keys),
                             list(unexpected_keys), list(error_msgs), sorted(state_dict)))
                if local_metadata.get("version", 1) < 2 and prefix + "w" in state_dict:
                    state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                              missing_keys, unexpected_keys, error_msgs)
                with lib.no_grad():
                    self.weight.mul_(2)

        old = lib.nn.Sequential(Old(), lib.nn.Linear(2, 2))
        with lib.no_grad():
            old[0].w.copy_(lib.tensor([1.0, 2.0, 3.0]))
        new = lib.nn.Sequential(New(), lib.nn.Linear(2, 2))
        result = new.load_state_dict(old.state_dict())
        out = {"seen": seen, "result": repr(result), "weight": to_numpy(new[0].weight),
               "version": new[0].weight._version, "meta": dict(new.state_dict()._metadata)}
        seen.clear()
        out["no_metadata"] = err(lambda: new.load_state_dict({"0.w": lib.ones(3)}),
                                 "Missing key(s) in state_dict: \"0.weight\", \"1.weight\"",
                                 "Unexpected key(s) in state_dict: \"0.w\"")
        out["seen_no_metadata"] = seen
        return out

    assert_parity(scenario, device=device)


def test_extra_state(device):
    def scenario(lib, device):
        class WithExtra(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(2, 2)
                self.step = 0

            def get_extra_state(self):
                return {"step": self.step}

            def set_extra_state(self, state):
                self.step = state["step"]

        a, b = WithExtra(), WithExtra()
        a.step = 5
        sd = a.state_dict()
        b.load_state_dict(sd)
        sd2 = dict(sd)
        del sd2["_extra_state"]
        plain = lib.nn.Linear(2, 2)
        return {"keys": list(sd), "extra": sd["_extra_state"], "loaded": b.step,
                "missing": err(lambda: b.load_state_dict(sd2), "\"_extra_state\""),
                "not_strict": repr(b.load_state_dict(sd2, strict=False)),
                "unexpected": err(lambda: plain.load_state_dict(
                    {**plain.state_dict(), "_extra_state": 1}), "\"_extra_state\"")}

    assert_parity(scenario, device=device)


def test_buffer(device):
    def scenario(lib, device):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = lib.nn.Buffer(lib.ones(2))
                self.b = lib.nn.Buffer(lib.zeros(3), persistent=False)
                self.c = lib.ones(1)  # a plain tensor: an ordinary attribute
                self.register_buffer("d", lib.ones(1), persistent=False)

        m = M()
        src = lib.ones(2, requires_grad=True)
        buf = lib.nn.Buffer(src)
        out = {"buffers": [n for n, _ in m.named_buffers()], "keys": list(m.state_dict()),
               "is_buffer": [isinstance(t, lib.nn.Buffer) for t in (m.a, m.c, lib.ones(1))],
               "persistent": (m.a.persistent, m.b.persistent),
               "type": type(m.a).__name__, "shares": buf._base is None and buf.requires_grad,
               "leaf": buf.is_leaf, "empty": tuple(lib.nn.Buffer().shape)}
        m.d = lib.nn.Buffer(lib.zeros(1))  # a Buffer's own persistence wins
        m.b = lib.zeros(4)  # a plain tensor keeps the name's persistence
        out["after"] = list(m.state_dict())
        out["bad"] = err(lambda: setattr(m, "a", 3), "cannot assign 'int' as buffer 'a'")
        return out

    assert_parity(scenario, device=device)


def test_set_submodule(device):
    def scenario(lib, device):
        m = build(lib)
        m.set_submodule("block.fc", lib.nn.Linear(3, 4))
        m.set_submodule("tail", lib.nn.ReLU())
        out = {"keys": list(m.state_dict()), "modules": [n for n, _ in m.named_modules()]}
        out["empty"] = err(lambda: m.set_submodule("", lib.nn.ReLU()),
                           "Cannot set the submodule without a target name!")
        out["not_module"] = err(lambda: m.set_submodule("x", 3), "is not an nn.Module, found")
        out["strict"] = err(lambda: m.set_submodule("block.new", lib.nn.ReLU(), strict=True),
                            "has no attribute `new`")
        out["parent"] = err(lambda: m.set_submodule("nope.fc", lib.nn.ReLU()),
                            "has no attribute `nope`")
        out["holds_param"] = err(lambda: m.set_submodule("block.count", lib.nn.ReLU()),
                                 "`count` is not an nn.Module")
        return out

    assert_parity(scenario, device=device)


def test_call_super_init(device):
    def scenario(lib, device):
        class Mixin:
            def __init__(self, *args, tag=None, **kwargs):
                self.tag = tag
                super().__init__(*args, **kwargs)

        class Plain(lib.nn.Module):
            pass

        class WithSuper(lib.nn.Module, Mixin):
            call_super_init = True

            def __init__(self, tag):
                super().__init__(tag=tag)

        return {"tag": WithSuper("t").tag,
                "kwargs": err(lambda: Plain(tag=1), "unexpected keyword argument 'tag'"),
                "args": err(lambda: Plain(1), "takes 1 positional argument but 2 were given")}

    assert_parity(scenario, device=device)


def test_sequential_arithmetic(device):
    def scenario(lib, device):
        a, b = lib.nn.ReLU(), lib.nn.Tanh()
        s = lib.nn.Sequential(a, b)
        twice, rtwice = s * 2, 2 * s
        out = {"mul": list(twice._modules), "rmul": list(rtwice._modules),
               "shared": twice[2] is a and twice[3] is b, "repr": repr(twice)}
        s2 = lib.nn.Sequential(a)
        s2 += lib.nn.Sequential(b, a)
        out["iadd"] = [type(x).__name__ for x in s2]
        s3 = lib.nn.Sequential(a, b)
        s3 *= 3
        out["imul"] = (list(s3._modules), s3[4] is a)
        out["slice"] = list(s3[1:5:2]._modules)
        del s3[::2]
        out["del"] = (list(s3._modules), [type(x).__name__ for x in s3])
        out["errors"] = [err(lambda: s * 0, "Non-positive multiplication factor 0"),
                         err(lambda: s * 1.5, "unsupported operand type(s) for *"),
                         err(lambda: s.__imul__(-1), "Non-positive multiplication factor -1"),
                         err(lambda: s.__iadd__([a]), "add operator supports only objects")]
        return out

    assert_parity(scenario, device=device)


def test_parameter_dict_complete(device):
    def scenario(lib, device):
        pd = lib.nn.ParameterDict(OrderedDict(b=lib.nn.Parameter(lib.ones(1)), a=lib.ones(2)))
        cp = pd.copy()
        out = {"copy_shares": cp["a"] is pd["a"], "copy_keys": list(cp),
               "reversed": list(reversed(pd)), "fromkeys": list(pd.fromkeys(["x", "y"]).keys()),
               "setdefault": tuple(pd.setdefault("c", lib.zeros(3)).shape),
               "setdefault_existing": tuple(pd.setdefault("a", lib.zeros(5)).shape)}
        k, v = pd.popitem()
        out["popitem"] = (k, tuple(v.shape), list(pd))
        other = lib.nn.ParameterDict(OrderedDict(z=lib.ones(4)))
        out["or"] = list(pd | other)
        out["ror"] = list(other.__ror__(pd))
        pd |= other
        out["ior"] = list(pd)
        out["params"] = [n for n, _ in pd.named_parameters()]
        pd.clear()
        out["clear"] = (len(pd), list(pd.named_parameters()))
        out["empty_popitem"] = err(lambda: pd.popitem(), "dictionary is empty")
        return out

    assert_parity(scenario, device=device)


def test_global_registration_hooks(device):
    def scenario(lib, device):
        mm = lib.nn.modules.module
        calls = []

        def on_param(module, name, param):
            calls.append(("param", type(module).__name__, name, tuple(param.shape)))
            if name == "bias":
                return lib.nn.Parameter(lib.zeros(param.shape))

        def on_buffer(module, name, buf):
            calls.append(("buffer", type(module).__name__, name,
                          None if buf is None else tuple(buf.shape)))

        def on_module(module, name, sub):
            calls.append(("module", type(module).__name__, name, type(sub).__name__))

        handles = [mm.register_module_parameter_registration_hook(on_param),
                   mm.register_module_buffer_registration_hook(on_buffer),
                   mm.register_module_module_registration_hook(on_module)]
        try:
            seq = lib.nn.Sequential(lib.nn.Linear(2, 3))
            seq.add_module("act", lib.nn.ReLU())
            seq.extra = lib.nn.Tanh()
            seq.register_buffer("stat", lib.ones(2))
            seq.stat = lib.zeros(2)
            seq.register_parameter("p", None)
            bias_zero = bool((to_numpy(seq[0].bias) == 0).all())
        finally:
            for h in handles:
                h.remove()
        lib.nn.Linear(1, 1)
        return {"calls": calls, "bias_replaced": bias_zero, "after_remove": len(calls)}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("assign", [False, True])
def test_rejected_load_leaves_partial_state_after_hooks_ran(device, assign):
    """The loading flow runs in full (hooks and ``_load_from_state_dict``, in order) and a load
    that ends in RuntimeError keeps what it copied, as PyTorch's: the same values, versions and
    replaced tensors in both libraries, ``assign=True`` included."""
    def scenario(lib, device):
        m = build(lib).to(device)
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.full(tuple(p.shape), float(i)))
        before = {k: (v, v._version) for k, v in m.state_dict(keep_vars=True).items()}
        calls = []
        m.register_load_state_dict_post_hook(lambda mod, keys: calls.append("post"))
        sd = {k: v + 1 for k, v in m.state_dict().items() if k != "head.bias"}
        error = None
        try:
            m.load_state_dict(sd, assign=assign)
        except RuntimeError as e:
            error = str(e).splitlines()[1].strip()
        after = m.state_dict(keep_vars=True)
        return {"error": error, "calls": calls,
                "values": {k: to_numpy(v) for k, v in after.items()},
                "replaced": {k: after[k] is not before[k][0] for k in after},
                "version_delta": {k: after[k]._version - before[k][1] for k in after
                                  if after[k] is before[k][0]}}

    assert_parity(scenario, device=device)
