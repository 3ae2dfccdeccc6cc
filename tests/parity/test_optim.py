"""Parity: ``optim.Optimizer``, ``SGD`` and ``Adam`` — minigrad vs PyTorch.

After each of three steps, every parameter, every ``.grad``, every ``_version`` and the
optimizer state equal PyTorch's (float32 tolerances). Facts doc sections 3.1 (optimizer
versions) and 6 (zero_grad, empty parameter list).
"""

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, compare, to_numpy
from tests.parity.test_tensor_meta import err, mk

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((8, 3)).astype(np.float32)
Y = RNG.standard_normal((8, 2)).astype(np.float32)
WEIGHTS = {
    "fc1.weight": RNG.standard_normal((5, 3)).astype(np.float32) * 0.5,
    "fc1.bias": RNG.standard_normal(5).astype(np.float32) * 0.1,
    "fc2.weight": RNG.standard_normal((2, 5)).astype(np.float32) * 0.5,
    "fc2.bias": RNG.standard_normal(2).astype(np.float32) * 0.1,
    "unused": np.ones(2, np.float32),
}


def mlp(lib, use_nn: bool):
    """Linear-ReLU-Linear; with ``use_nn=False`` written with plain tensor ops only. The extra
    parameter ``unused`` never gets a gradient (optimizers must skip it)."""
    nn = lib.nn

    class Affine(nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.weight = nn.Parameter(lib.zeros(o, i))
            self.bias = nn.Parameter(lib.zeros(o))

        def forward(self, x):
            return x @ self.weight.t() + self.bias

    layer = nn.Linear if use_nn else Affine

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = layer(3, 5)
            self.fc2 = layer(5, 2)
            self.unused = nn.Parameter(lib.ones(2))

        def forward(self, x):
            return self.fc2(self.fc1(x).relu())

    return MLP()


def make(lib, device, use_nn=False):
    model = mlp(lib, use_nn).to(device)
    model.load_state_dict({k: mk(lib, device, v) for k, v in WEIGHTS.items()})
    return model, mk(lib, device, X), mk(lib, device, Y)


def loss_fn(model, x, y):
    return ((model(x) - y) ** 2).mean()


def train_trace(lib, opt_name, kwargs, use_nn=False, steps=3, device="cpu"):
    model, x, y = make(lib, device, use_nn)
    opt = getattr(lib.optim, opt_name)(model.parameters(), **kwargs)
    trace = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model, x, y)
        loss.backward()
        opt.step()
        trace.append({
            "loss": loss.item(),
            "params": {n: to_numpy(p) for n, p in model.named_parameters()},
            "grads": {n: to_numpy(p.grad) for n, p in model.named_parameters()},
            "versions": {n: p._version for n, p in model.named_parameters()},
            "grad_versions": {n: None if p.grad is None else p.grad._version
                              for n, p in model.named_parameters()},
        })
    state = {n: {k: to_numpy(v) if hasattr(v, "shape") else v
                 for k, v in sorted(opt.state[p].items())}
             for n, p in model.named_parameters() if p in opt.state}
    return {"steps": trace, "state": state, "n_state": len(opt.state)}


SGD_CASES = {
    "plain": dict(lr=0.1),
    "momentum": dict(lr=0.1, momentum=0.9),
    "dampening": dict(lr=0.05, momentum=0.9, dampening=0.5),
    "nesterov": dict(lr=0.1, momentum=0.9, nesterov=True),
    "weight_decay": dict(lr=0.1, weight_decay=0.01),
    "wd_momentum": dict(lr=0.1, momentum=0.8, weight_decay=0.05),
    "nesterov_wd_maximize": dict(lr=0.01, momentum=0.5, nesterov=True, weight_decay=0.1,
                                 maximize=True),
    "default_lr": dict(),
}

ADAM_CASES = {
    "default": dict(),
    "lr": dict(lr=0.01),
    "amsgrad": dict(lr=0.01, amsgrad=True),
    "weight_decay": dict(lr=0.01, weight_decay=0.1),
    "amsgrad_wd_maximize": dict(lr=0.01, amsgrad=True, weight_decay=0.1, maximize=True),
    "betas_eps": dict(lr=0.02, betas=(0.5, 0.9), eps=1e-6),
    "decoupled": dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
}


@pytest.mark.parametrize("case", list(SGD_CASES))
def test_sgd_steps(case, device):
    assert_parity(train_trace, "SGD", SGD_CASES[case], device=device)


@pytest.mark.parametrize("case", list(ADAM_CASES))
def test_adam_steps(case, device):
    assert_parity(train_trace, "Adam", ADAM_CASES[case], device=device)


@pytest.mark.parametrize("opt_name,kwargs", [("SGD", SGD_CASES["nesterov"]),
                                             ("Adam", ADAM_CASES["amsgrad"])])
def test_steps_with_nn_linear(opt_name, kwargs, device):
    """The same MLP built from ``nn.Linear`` (fresh weights start at ``_version`` 1)."""
    assert_parity(train_trace, opt_name, kwargs, use_nn=True, device=device)


def test_sgd_on_a_parameter_larger_than_one_update_block(device):
    """SGD adds ``-lr * buf`` to a large parameter one block at a time (``add_scaled_``, so
    that the step needs no parameter-sized temporary); 280,400 elements are two whole blocks
    and a part: the values and versions are PyTorch's."""
    big = RNG.standard_normal((400, 701)).astype(np.float32)
    coef = RNG.standard_normal((400, 701)).astype(np.float32)

    def scenario(lib, device):
        p = lib.nn.Parameter(mk(lib, device, big))
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        trace = []
        for _ in range(2):
            opt.zero_grad()
            (p * mk(lib, device, coef)).sum().backward()
            opt.step()
            trace.append((to_numpy(p), p._version, to_numpy(opt.state[p]["momentum_buffer"])))
        return trace

    assert_parity(scenario, device=device)


def test_hyperparameter_validation():
    def scenario(lib):
        p = [lib.nn.Parameter(lib.ones(2))]
        SGD, Adam = lib.optim.SGD, lib.optim.Adam
        return [
            err(lambda: SGD(p, lr=-1)), err(lambda: SGD(p, lr=0.1, momentum=-0.5)),
            err(lambda: SGD(p, lr=0.1, weight_decay=-1)),
            err(lambda: SGD(p, lr=0.1, nesterov=True)),
            err(lambda: SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
            err(lambda: Adam(p, lr=-1)), err(lambda: Adam(p, eps=-1e-8)),
            err(lambda: Adam(p, betas=(1.0, 0.9))), err(lambda: Adam(p, betas=(0.9, -0.1))),
            err(lambda: Adam(p, weight_decay=-1)), err(lambda: Adam(p, betas=(0, 0.9))),
            err(lambda: SGD([], lr=0.1)), err(lambda: SGD(iter([]), lr=0.1)),
            err(lambda: SGD(p[0], lr=0.1)),
            err(lambda: SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1)),
            err(lambda: SGD([1.0], lr=0.1)),
            err(lambda: SGD([{"params": p}, {"params": p}], lr=0.1)),
            err(lambda: SGD([{"params": set(p)}], lr=0.1)),
            err(lambda: SGD(p, lr=0.1).add_param_group(p)),
        ]

    assert_parity(scenario)


def test_param_groups_repr_and_add_param_group():
    def scenario(lib):
        model = mlp(lib, False)
        opt = lib.optim.SGD([{"params": model.fc1.parameters()},
                             {"params": model.fc2.parameters(), "lr": 0.5, "momentum": 0.9}],
                            lr=0.1)
        opt.add_param_group({"params": model.unused, "nesterov": False})
        groups = [{k: v for k, v in sorted(g.items()) if k != "params"}
                  for g in opt.param_groups]
        adam = lib.optim.Adam([("a", model.fc1.weight), ("b", model.fc1.bias)], lr=0.01)
        return {"groups": groups, "sizes": [len(g["params"]) for g in opt.param_groups],
                "repr": repr(opt), "adam_repr": repr(adam),
                "names": adam.param_groups[0]["param_names"],
                "defaults": sorted(opt.defaults), "adam_defaults": sorted(adam.defaults),
                "same_objects": opt.param_groups[2]["params"][0] is model.unused}

    assert_parity(scenario)


def test_param_groups_step_with_own_lr(device):
    def scenario(lib, device):
        model, x, y = make(lib, device)
        opt = lib.optim.SGD([{"params": model.fc1.parameters(), "lr": 0.5},
                             {"params": model.fc2.parameters(), "momentum": 0.9}], lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            loss_fn(model, x, y).backward()
            opt.step()
        return {n: to_numpy(p) for n, p in model.named_parameters()}

    assert_parity(scenario, device=device)


def test_optimizer_zero_grad_modes(device):
    def scenario(lib, device):
        model, x, y = make(lib, device)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        w = model.fc1.weight
        loss_fn(model, x, y).backward()
        g = w.grad
        loss_fn(model, x, y).backward()
        out = [("accumulated", g._version, w.grad is g)]
        opt.zero_grad(set_to_none=False)
        out.append(("zeroed", w.grad is g, g._version, float(g.abs().sum()),
                    model.unused.grad is None))
        loss_fn(model, x, y).backward()
        out.append(("after zero", w.grad is g, g._version, to_numpy(g)))
        opt.zero_grad()
        out.append(("none", [p.grad is None for p in model.parameters()]))
        return out

    assert_parity(scenario, device=device)


def test_step_closure_and_no_grad_params(device):
    def scenario(lib, device):
        model, x, y = make(lib, device)
        opt = lib.optim.Adam(model.parameters(), lr=0.01)

        def closure():
            opt.zero_grad()
            loss = loss_fn(model, x, y)
            loss.backward()
            return loss

        with lib.no_grad():  # step() runs the closure with grad enabled
            loss = opt.step(closure)
        none_loss = opt.step()  # no closure: returns None, reuses the existing grads
        return {"loss": loss.item(), "none": none_loss is None,
                "params": {n: to_numpy(p) for n, p in model.named_parameters()},
                "versions": {n: p._version for n, p in model.named_parameters()},
                "step": float(opt.state[model.fc1.weight]["step"]),
                "unused_in_state": model.unused in opt.state}

    assert_parity(scenario, device=device)


def test_optimizer_state_dict_roundtrip(device):
    """state_dict structure, then a fresh optimizer loading it continues identically."""

    def scenario(lib, device):
        model, x, y = make(lib, device)
        opt = lib.optim.Adam(model.parameters(), lr=0.01, amsgrad=True)
        for _ in range(2):
            opt.zero_grad()
            loss_fn(model, x, y).backward()
            opt.step()
        sd = opt.state_dict()
        structure = {"state": {k: sorted(v) for k, v in sd["state"].items()},
                     "groups": [{k: v for k, v in sorted(g.items())} for g in
                                sd["param_groups"]]}
        opt2 = lib.optim.Adam(model.parameters(), lr=0.5)
        opt2.load_state_dict(sd)
        opt2.zero_grad()
        loss_fn(model, x, y).backward()
        opt2.step()
        return {"structure": structure, "lr": opt2.param_groups[0]["lr"],
                "params": {n: to_numpy(p) for n, p in model.named_parameters()},
                "errors": [err(lambda: opt2.load_state_dict(
                    {"state": {}, "param_groups": sd["param_groups"] * 2})),
                    err(lambda: opt2.load_state_dict(
                        {"state": {}, "param_groups": [dict(sd["param_groups"][0],
                                                            params=[0])]}))]}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("opt_name,kwargs", [("SGD", SGD_CASES["wd_momentum"]),
                                             ("Adam", ADAM_CASES["amsgrad_wd_maximize"])])
def test_resume_from_torch_optimizer_state(opt_name, kwargs):
    """Train 2 steps in torch, move model + optimizer state to minigrad, step once in both."""
    tmodel, tx, ty = make(torch, "cpu")
    topt = getattr(torch.optim, opt_name)(tmodel.parameters(), **kwargs)
    for _ in range(2):
        topt.zero_grad()
        loss_fn(tmodel, tx, ty).backward()
        topt.step()
    mmodel, mx, my = make(minigrad, "cpu")
    mmodel.load_state_dict(tmodel.state_dict())
    mopt = getattr(minigrad.optim, opt_name)(mmodel.parameters(), **kwargs)
    mopt.load_state_dict(topt.state_dict())
    for model, opt, x, y in ((tmodel, topt, tx, ty), (mmodel, mopt, mx, my)):
        opt.zero_grad()
        loss_fn(model, x, y).backward()
        opt.step()
    compare({n: to_numpy(p) for n, p in mmodel.named_parameters()},
            {n: to_numpy(p) for n, p in tmodel.named_parameters()})


def test_minigrad_optim_namespace():
    assert issubclass(minigrad.optim.SGD, minigrad.optim.Optimizer)
    assert issubclass(minigrad.optim.Adam, minigrad.optim.Optimizer)
    p = minigrad.nn.Parameter(minigrad.ones(2))
    with pytest.raises(NotImplementedError):
        minigrad.optim.Optimizer([p], {}).step()
