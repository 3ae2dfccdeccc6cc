"""Parity: ``Adamax``, ``NAdam``, ``RAdam``, ``Adadelta`` and the optimizer step hooks —
minigrad vs PyTorch.

The MLP and training loop of ``test_optim_more.py`` (float32, standard tolerances): after each
step every parameter and ``_version``, then the optimizer state (values and, on the CPU, the
``_version`` of each state tensor), the ``state_dict`` and the repr. A float64 run with given
gradients over eight steps compares to rtol 1e-9 (RAdam's rectified branch starts at step 6
with the default betas). Then state_dict round trips, resuming from a torch optimizer's state,
``foreach``/``capturable``/``differentiable`` accepted (``capturable`` fails at ``step()`` on
the CPU, as in PyTorch), ``add_param_group`` mid-training, the constructors' ValueErrors, and
``register_step_pre_hook``/``register_step_post_hook`` with the global step hooks.
"""

import importlib

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, compare, to_numpy

from .test_optim import loss_fn, make
from .test_optim_more import steps_trace
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

CASES = {
    "Adamax": {
        "default": dict(),
        "lr_wd": dict(lr=0.01, weight_decay=0.1),
        "betas_eps_maximize": dict(lr=0.05, betas=(0.5, 0.9), eps=1e-3, maximize=True),
    },
    "NAdam": {
        "default": dict(),
        "wd": dict(lr=0.01, weight_decay=0.1),
        "decoupled": dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
        "momentum_decay_maximize": dict(lr=0.02, momentum_decay=0.1, betas=(0.8, 0.9),
                                        maximize=True),
    },
    "RAdam": {
        "default": dict(),
        "wd": dict(lr=0.01, weight_decay=0.1),
        "decoupled_maximize": dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True,
                                   maximize=True),
    },
    "Adadelta": {
        "default": dict(),
        "lr_rho_eps": dict(lr=0.5, rho=0.5, eps=1e-3),
        "wd_maximize": dict(lr=0.1, weight_decay=0.1, maximize=True),
    },
}
ALL = [(name, case) for name, cases in CASES.items() for case in cases]


@pytest.mark.parametrize("opt_name,case", ALL, ids=[f"{n}-{c}" for n, c in ALL])
def test_optimizer_steps(device, opt_name, case):
    assert_parity(steps_trace, opt_name, CASES[opt_name][case], device == "cpu",
                  device=device)


def test_radam_rectified_branch_float32(device):
    """beta2 = 0.8: rho_t passes 5 at step 8, so both branches of RAdam's update run."""
    assert_parity(steps_trace, "RAdam", dict(lr=0.01, betas=(0.9, 0.8)), device == "cpu",
                  device=device, steps=10)


def float64_trace(lib, opt_name, kwargs, device, steps=8):
    """Two float64 parameters (one 2-d, one 1-d that gets no gradient at step 3) and given
    gradients: parameters, versions, state tensors and their versions after every step."""
    rng = np.random.default_rng(1)
    w0, w1 = rng.standard_normal((4, 3)), rng.standard_normal(5)
    ps = [lib.nn.Parameter(lib.tensor(w, device=device)) for w in (w0, w1)]
    opt = getattr(lib.optim, opt_name)(ps, **kwargs)
    trace = []
    for i in range(steps):
        for p, w in zip(ps, (w0, w1)):
            p.grad = lib.tensor(np.sin(w * (i + 1)) + 0.1 * i, device=device)
        if i == 3:
            ps[1].grad = None
        opt.step()
        trace.append({
            "params": [to_numpy(p) for p in ps], "versions": [p._version for p in ps],
            "state": [{k: (to_numpy(v), str(v.dtype).split(".")[-1])
                       for k, v in opt.state[p].items()} for p in ps]})
        if device == "cpu":
            trace[-1]["state_versions"] = [{k: v._version for k, v in opt.state[p].items()}
                                           for p in ps]
    return trace


F64 = [("Adamax", dict(lr=0.1, weight_decay=0.05)),
       ("NAdam", dict(lr=0.1, momentum_decay=0.05)),
       ("NAdam", dict(lr=0.1, weight_decay=0.05, decoupled_weight_decay=True, maximize=True)),
       ("RAdam", dict(lr=0.1)),
       ("RAdam", dict(lr=0.1, weight_decay=0.05, decoupled_weight_decay=True)),
       ("Adadelta", dict(lr=0.7, weight_decay=0.05, maximize=True))]


@pytest.mark.parametrize("opt_name,kwargs", F64, ids=[f"{n}-{i}" for i, (n, _) in
                                                      enumerate(F64)])
def test_float64_eight_steps(device, opt_name, kwargs):
    assert_parity(float64_trace, opt_name, kwargs, device=device, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("opt_name,kwargs", [("Adamax", dict(lr=0.01)),
                                             ("NAdam", dict(lr=0.01)),
                                             ("RAdam", dict(lr=0.01, betas=(0.9, 0.8))),
                                             ("Adadelta", dict(rho=0.7))])
def test_state_dict_round_trip(device, opt_name, kwargs):
    """Two steps, a fresh optimizer loads the state_dict, then one more step continues as the
    original would; the loaded optimizer's groups and state equal PyTorch's."""
    def scenario(lib, device):
        model, x, y = make(lib, device)
        opt = getattr(lib.optim, opt_name)(model.parameters(), **kwargs)
        for _ in range(2):
            opt.zero_grad()
            loss_fn(model, x, y).backward()
            opt.step()
        sd = opt.state_dict()
        opt2 = getattr(lib.optim, opt_name)(model.parameters(), lr=0.5)
        opt2.load_state_dict(sd)
        opt2.zero_grad()
        loss_fn(model, x, y).backward()
        opt2.step()
        sd2 = opt2.state_dict()
        return {"lr": opt2.param_groups[0]["lr"],
                "params": {n: to_numpy(p) for n, p in model.named_parameters()},
                "groups": sd2["param_groups"],
                "state": {k: {n: to_numpy(t) for n, t in v.items()}
                          for k, v in sd2["state"].items()}}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("opt_name,kwargs", [("Adamax", dict(lr=0.01)),
                                             ("NAdam", dict(lr=0.01, weight_decay=0.1)),
                                             ("RAdam", dict(lr=0.01, betas=(0.9, 0.8))),
                                             ("Adadelta", dict(lr=0.3))])
def test_resume_from_torch_optimizer_state(opt_name, kwargs):
    """Train 3 steps in torch, move model and optimizer state to minigrad, step in both."""
    tmodel, tx, ty = make(torch, "cpu")
    topt = getattr(torch.optim, opt_name)(tmodel.parameters(), **kwargs)
    for _ in range(3):
        topt.zero_grad()
        loss_fn(tmodel, tx, ty).backward()
        topt.step()
    mmodel, mx, my = make(minigrad, "cpu")
    mmodel.load_state_dict(tmodel.state_dict())
    mopt = getattr(minigrad.optim, opt_name)(mmodel.parameters(), **kwargs)
    mopt.load_state_dict(topt.state_dict())
    for _ in range(6):
        for model, opt, x, y in ((tmodel, topt, tx, ty), (mmodel, mopt, mx, my)):
            opt.zero_grad()
            loss_fn(model, x, y).backward()
            opt.step()
    compare({n: to_numpy(p) for n, p in mmodel.named_parameters()},
            {n: to_numpy(p) for n, p in tmodel.named_parameters()})


@pytest.mark.parametrize("opt_name", list(CASES))
def test_foreach_and_flags_accepted(opt_name):
    """``foreach=True`` (PyTorch's multi-tensor path on the CPU: same values to float32
    rounding, other state-tensor versions), ``capturable``/``differentiable`` stored in the
    groups as PyTorch stores them; ``fused`` is not a parameter of these optimizers."""
    assert_parity(steps_trace, opt_name, dict(foreach=True), False, device="cpu")

    def scenario(lib):
        p = [lib.nn.Parameter(lib.ones(2))]
        cls = getattr(lib.optim, opt_name)
        opt = cls(p, capturable=True, differentiable=True, foreach=False)
        return {"groups": opt.state_dict()["param_groups"],
                "fused": err(lambda: cls(p, fused=True)),
                "defaults": sorted(opt.defaults)}

    assert_parity(scenario)


def test_hyperparameter_validation():
    def scenario(lib):
        p = [lib.nn.Parameter(lib.ones(2))]
        o = lib.optim
        out = {}
        for name in ("Adamax", "NAdam", "RAdam"):
            cls = getattr(o, name)
            bad = [dict(lr=-1), dict(eps=-1e-3), dict(betas=(1.0, 0.9)), dict(betas=(0.9, -0.1)),
                   dict(weight_decay=-0.5)]
            out[name] = [err(lambda c=cls, kw=kw: c(p, **kw)) for kw in bad]
            out[name].append(err(lambda c=cls: c([])))
        out["nadam_momentum_decay"] = err(lambda: o.NAdam(p, momentum_decay=-1))
        bad = [dict(lr=-1), dict(rho=1.1), dict(rho=-0.1), dict(eps=-1), dict(weight_decay=-1)]
        out["Adadelta"] = [err(lambda kw=kw: o.Adadelta(p, **kw)) for kw in bad]
        out["rho_one_ok"] = err(lambda: o.Adadelta(p, rho=1.0))
        return out

    assert_parity(scenario)


def test_state_before_and_after_first_step():
    """No state before the first step; after it the keys in PyTorch's order, ``step`` (and
    NAdam's ``mu_product``) a float32 0-d tensor, as in the state_dict."""
    def scenario(lib):
        out = {}
        for name in CASES:
            p = lib.nn.Parameter(lib.tensor(np.arange(3, dtype=np.float64)))
            opt = getattr(lib.optim, name)([p])
            before = len(opt.state)
            p.grad = lib.ones(3, dtype=lib.float64)
            opt.step()
            out[name] = {"before": before,
                         "state": {k: (to_numpy(v), str(v.dtype).split(".")[-1],
                                       tuple(v.shape)) for k, v in opt.state[p].items()},
                         "sd_keys": {k: list(v) for k, v in opt.state_dict()["state"].items()}}
        return out

    assert_parity(scenario, rtol=1e-9, atol=1e-12)


def test_step_hooks_order_arguments_and_removal():
    """Global pre-hooks run before the optimizer's, the optimizer's post-hooks before the
    global ones; each gets ``(optimizer, args, kwargs)`` with the optimizer first in ``args``;
    a pre-hook's ``(args, kwargs)`` replaces the step's arguments (here a closure); removed
    handles stop the calls."""
    def scenario(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.Adamax([p], lr=0.1)
        calls = []

        def rec(tag):
            def hook(o, args, kwargs):
                calls.append((tag, o is opt, len(args), args[0] is opt, sorted(kwargs)))
            return hook

        def closure():
            calls.append("closure")
            p.grad = lib.full((2,), 0.5)
            return 1.5

        def add_closure(o, args, kwargs):
            calls.append("add_closure")
            return args, {"closure": closure}

        optimizer_module = importlib.import_module(lib.__name__ + ".optim.optimizer")
        handles = [optimizer_module.register_optimizer_step_pre_hook(rec("global_pre")),
                   opt.register_step_pre_hook(rec("pre1")),
                   opt.register_step_pre_hook(add_closure),
                   opt.register_step_pre_hook(rec("pre2")),
                   opt.register_step_post_hook(rec("post")),
                   optimizer_module.register_optimizer_step_post_hook(rec("global_post"))]
        try:
            loss = opt.step()
            calls.append(("loss", loss, to_numpy(p).tolist()))
            handles[0].remove()
            handles[4].remove()
            handles[2].remove()
            calls.append(("loss", opt.step(), to_numpy(p).tolist()))
            handles[2].remove()  # a second remove does nothing
        finally:
            for h in handles:
                h.remove()
        opt.step()
        calls.append(("after_removal", len(calls)))
        return calls

    assert_parity(scenario, rtol=1e-6, atol=1e-7)


def test_step_pre_hook_bad_return_value():
    def scenario(lib):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.ones(2)
        opt = lib.optim.RAdam([p])
        opt.register_step_pre_hook(lambda o, a, k: 3)
        return {"err": err(opt.step, "must return None or a tuple of (new_args, new_kwargs), "
                                      "but got 3."),
                "state": len(opt.state), "p": to_numpy(p)}

    assert_parity(scenario)


def test_step_hooks_on_every_optimizer_class_and_subclass():
    """The class's ``step`` is wrapped once (``hooked``), also for AdamW (Adam's subclass) and
    a user subclass that overrides ``step``."""
    def scenario(lib):
        out = {}

        class MySGD(lib.optim.SGD):
            def step(self, closure=None):
                out.setdefault("order", []).append("step")
                return super().step(closure)

        for name in ("SGD", "Adam", "AdamW", "NAdam", "Adadelta", MySGD):
            p = lib.nn.Parameter(lib.ones(2))
            p.grad = lib.ones(2)
            cls = name if isinstance(name, type) else getattr(lib.optim, name)
            opt = cls([p], lr=0.1)
            seen = []
            opt.register_step_pre_hook(lambda o, a, k, s=seen: s.append("pre"))
            opt.register_step_post_hook(lambda o, a, k, s=seen: s.append("post"))
            opt.step()
            out[cls.__name__] = (seen, getattr(type(opt).step, "hooked", None))
        return out

    assert_parity(scenario)


@pytest.mark.parametrize("opt_name", list(CASES))
def test_capturable_on_cpu_raises_at_step(opt_name):
    """The constructor accepts ``capturable=True``; ``step()`` then creates the state of the
    group's parameters and raises PyTorch's AssertionError (CPU tensors), changing nothing
    else; a capturable second group fails only after the first group's update."""
    def scenario(lib):
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))
        a.grad, b.grad = lib.full((2,), 0.5), lib.full((3,), 0.25)
        cls = getattr(lib.optim, opt_name)
        opt = cls([a, b], capturable=True)
        first = err(opt.step)
        opt2 = cls([{"params": [a]}, {"params": [b], "capturable": True}])
        second = err(opt2.step)
        return {"first": first, "second": second,
                "state": [{k: (to_numpy(v), v._version) for k, v in opt.state[p].items()}
                          for p in (a, b)],
                "state2": [len(opt2.state[p]) for p in (a, b)],
                "params": [(to_numpy(p), p._version) for p in (a, b)]}

    assert_parity(scenario)


@pytest.mark.parametrize("opt_name", list(CASES))
def test_add_param_group_mid_training(opt_name):
    """Two steps on fc1, ``add_param_group`` for fc2 with its own lr (the other
    hyperparameters from the defaults), two more steps: parameters, groups and state."""
    def scenario(lib):
        model, x, y = make(lib, "cpu")
        opt = getattr(lib.optim, opt_name)(model.fc1.parameters(), lr=0.05)
        for i in range(4):
            if i == 2:
                opt.add_param_group({"params": model.fc2.parameters(), "lr": 0.01})
            opt.zero_grad()
            loss_fn(model, x, y).backward()
            opt.step()
        sd = opt.state_dict()
        return {"params": {n: to_numpy(p) for n, p in model.named_parameters()},
                "groups": sd["param_groups"],
                "state": {k: {n: to_numpy(t) for n, t in v.items()}
                          for k, v in sd["state"].items()},
                "again": err(lambda: opt.add_param_group({"params": model.fc2.weight}))}

    assert_parity(scenario)


def test_state_dict_hooks():
    """State-dict pre/post hooks and load-state-dict pre/post hooks: order (``prepend``), a
    post-hook's returned dict replacing the state dict, a load pre-hook's returned dict loaded
    instead, the caller's dict left as it was, removal."""
    def scenario(lib):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.full((2,), 0.5)
        opt = lib.optim.NAdam([p], lr=0.1)
        opt.step()
        calls = []

        def post(o, sd):
            calls.append(("post", sorted(sd)))
            return {**sd, "extra": 1}

        def load_pre(o, sd):
            calls.append(("load_pre", sorted(sd), "extra" in sd))
            groups = [dict(g, lr=0.5) for g in sd["param_groups"]]
            return {"state": sd["state"], "param_groups": groups}

        hs = [opt.register_state_dict_pre_hook(lambda o: calls.append("pre1")),
              opt.register_state_dict_pre_hook(lambda o: calls.append("pre0"), prepend=True),
              opt.register_state_dict_post_hook(post),
              opt.register_state_dict_post_hook(lambda o, sd: calls.append("post0"),
                                                prepend=True),
              opt.register_load_state_dict_pre_hook(load_pre),
              opt.register_load_state_dict_pre_hook(
                  lambda o, sd: calls.append(("load_pre0", sd.pop("extra", None))),
                  prepend=True),
              opt.register_load_state_dict_post_hook(
                  lambda o: calls.append(("load_post", o.param_groups[0]["lr"])))]
        sd = opt.state_dict()
        keys_before = sorted(sd)
        opt.load_state_dict(sd)
        calls.append(("caller_dict", keys_before == sorted(sd), sorted(sd)))
        for h in hs:
            h.remove()
        sd2 = opt.state_dict()
        opt.load_state_dict(sd2)
        calls.append(("after_removal", sorted(sd2), opt.param_groups[0]["lr"], len(calls)))
        return calls

    assert_parity(scenario)


DIFFERENTIABLE = [(name, kw) for name in CASES for kw in (dict(), dict(weight_decay=0.1))]
DIFFERENTIABLE += [("NAdam", dict(weight_decay=0.1, decoupled_weight_decay=True)),
                   ("RAdam", dict(weight_decay=0.1, decoupled_weight_decay=True))]


@pytest.mark.parametrize("opt_name,kwargs", DIFFERENTIABLE,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(DIFFERENTIABLE)])
def test_differentiable_steps_with_grad_mode(opt_name, kwargs):
    """``differentiable=True``: a leaf parameter that requires grad cannot be updated in
    place (PyTorch's RuntimeError, after the state updates before it); a tensor that does not
    require grad steps as usual."""
    def scenario(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0]))
        p.grad = lib.tensor([0.5, 0.25, -1.0])
        opt = getattr(lib.optim, opt_name)([p], differentiable=True, **kwargs)
        failed = err(opt.step)
        q = lib.tensor([1.0, -2.0, 3.0])
        q.grad = lib.tensor([0.5, 0.25, -1.0])
        opt2 = getattr(lib.optim, opt_name)([q], differentiable=True, **kwargs)
        opt2.step()
        opt2.step()

        def state(o, t):
            return {k: (to_numpy(v.detach()), v._version) for k, v in o.state[t].items()}

        return {"failed": failed, "p": (to_numpy(p), p._version), "state": state(opt, p),
                "q": (to_numpy(q), q._version), "state2": state(opt2, q)}

    assert_parity(scenario)
