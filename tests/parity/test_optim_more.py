"""Parity: ``AdamW``, ``RMSprop``, ``Adagrad`` (and the ``_version`` of every optimizer's state
tensors, Adam's and SGD's included) — minigrad vs PyTorch.

The MLP and the training loop of ``test_optim.py``: after each of three steps every parameter,
``.grad`` and ``_version`` equal PyTorch's; then the optimizer state (values and, on the CPU,
the ``_version`` of each state tensor: PyTorch's ``foreach`` path on CUDA updates them with
other ops), the ``state_dict`` structure and a round trip through ``load_state_dict``.
"""

import numpy as np
import pytest

import minigrad
from minigrad.parity import assert_parity, compare, to_numpy

from .test_optim import loss_fn, make
from .test_tensor_meta import err

torch = pytest.importorskip("torch")

CASES = {
    "AdamW": {
        "default": dict(),
        "lr_wd": dict(lr=0.01, weight_decay=0.1),
        "amsgrad_maximize": dict(lr=0.01, amsgrad=True, maximize=True),
        "no_wd": dict(lr=0.02, weight_decay=0.0, betas=(0.8, 0.9)),
    },
    "RMSprop": {
        "default": dict(),
        "momentum": dict(lr=0.01, momentum=0.9),
        "centered": dict(lr=0.01, centered=True),
        "centered_momentum_wd": dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1),
        "alpha_eps_maximize": dict(lr=0.005, alpha=0.9, eps=1e-4, maximize=True),
    },
    "Adagrad": {
        "default": dict(),
        "lr_decay": dict(lr=0.1, lr_decay=0.5),
        "wd_init": dict(lr=0.05, weight_decay=0.1, initial_accumulator_value=0.3),
        "eps_maximize": dict(lr=0.05, eps=1e-3, maximize=True),
    },
    "Adam": {"amsgrad_decoupled": dict(lr=0.01, amsgrad=True, weight_decay=0.1,
                                       decoupled_weight_decay=True)},
    "SGD": {"momentum": dict(lr=0.1, momentum=0.9)},
}
ALL = [(name, case) for name, cases in CASES.items() for case in cases]


def steps_trace(lib, opt_name, kwargs, on_cpu, device, steps=3):
    model, x, y = make(lib, device)
    opt = getattr(lib.optim, opt_name)(model.parameters(), **kwargs)
    trace = {"initial_state": len(opt.state), "steps": []}
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model, x, y)
        loss.backward()
        opt.step()
        trace["steps"].append({
            "loss": loss.item(),
            "params": {n: to_numpy(p) for n, p in model.named_parameters()},
            "versions": {n: p._version for n, p in model.named_parameters()}})
    names = {p: n for n, p in model.named_parameters()}
    trace["state"] = {names[p]: {k: to_numpy(v) if hasattr(v, "shape") else v
                                 for k, v in opt.state[p].items()} for p in opt.state}
    if on_cpu:
        trace["state_versions"] = {names[p]: {k: v._version for k, v in opt.state[p].items()
                                              if hasattr(v, "shape")} for p in opt.state}
    sd = opt.state_dict()
    trace["state_dict"] = {"state": {k: list(v) for k, v in sd["state"].items()},
                           "param_groups": sd["param_groups"]}
    trace["repr"] = repr(opt)
    return trace


@pytest.mark.parametrize("opt_name,case", ALL, ids=[f"{n}-{c}" for n, c in ALL])
def test_optimizer_steps(device, opt_name, case):
    assert_parity(steps_trace, opt_name, CASES[opt_name][case], device == "cpu",
                  device=device)


@pytest.mark.parametrize("opt_name,kwargs", [("AdamW", dict(lr=0.01)),
                                             ("RMSprop", dict(momentum=0.5, centered=True)),
                                             ("Adagrad", dict(lr_decay=0.1))])
def test_state_dict_round_trip(device, opt_name, kwargs):
    """Two steps, a fresh optimizer loads the state_dict (state tensors shared, as PyTorch),
    then one more step continues as the original would."""
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
        return {"lr": opt2.param_groups[0]["lr"],
                "params": {n: to_numpy(p) for n, p in model.named_parameters()},
                "groups": opt2.state_dict()["param_groups"]}

    assert_parity(scenario, device=device)


@pytest.mark.parametrize("opt_name,kwargs", [("AdamW", dict(lr=0.01, amsgrad=True)),
                                             ("RMSprop", dict(lr=0.01, momentum=0.9,
                                                              centered=True)),
                                             ("Adagrad", dict(lr=0.1, lr_decay=0.2))])
def test_resume_from_torch_optimizer_state(opt_name, kwargs):
    """Train 2 steps in torch, move model and optimizer state to minigrad, step once in both."""
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


def test_hyperparameter_validation():
    def scenario(lib):
        p = [lib.nn.Parameter(lib.ones(2))]
        o = lib.optim
        return {
            "adamw_lr": err(lambda: o.AdamW(p, lr=-1)),
            "adamw_beta": err(lambda: o.AdamW(p, betas=(1.0, 0.9))),
            "adamw_wd": err(lambda: o.AdamW(p, weight_decay=-0.1)),
            "rms_lr": err(lambda: o.RMSprop(p, lr=-1)),
            "rms_eps": err(lambda: o.RMSprop(p, eps=-1)),
            "rms_momentum": err(lambda: o.RMSprop(p, momentum=-1)),
            "rms_wd": err(lambda: o.RMSprop(p, weight_decay=-1)),
            "rms_alpha": err(lambda: o.RMSprop(p, alpha=-1)),
            "ada_lr": err(lambda: o.Adagrad(p, lr=-1)),
            "ada_decay": err(lambda: o.Adagrad(p, lr_decay=-1)),
            "ada_wd": err(lambda: o.Adagrad(p, weight_decay=-1)),
            "ada_init": err(lambda: o.Adagrad(p, initial_accumulator_value=-1)),
            "ada_eps": err(lambda: o.Adagrad(p, eps=-1)),
            "empty": err(lambda: o.RMSprop([])),
        }

    assert_parity(scenario)


def test_adagrad_state_exists_before_the_first_step():
    def scenario(lib):
        p = lib.nn.Parameter(lib.tensor(np.arange(3, dtype=np.float32)))
        opt = lib.optim.Adagrad([p], initial_accumulator_value=0.25)
        st = opt.state[p]
        return {"keys": list(st), "step": (float(st["step"]), str(st["step"].dtype).split(".")[-1]),
                "sum": to_numpy(st["sum"]), "versions": [v._version for v in st.values()],
                "sd": {k: list(v) for k, v in opt.state_dict()["state"].items()}}

    assert_parity(scenario)


def test_adamw_is_adam_with_decoupled_decay():
    assert issubclass(minigrad.optim.AdamW, minigrad.optim.Adam)
    p = minigrad.nn.Parameter(minigrad.ones(2))
    opt = minigrad.optim.AdamW([p])
    opt.__setstate__({"defaults": opt.defaults, "state": opt.state,
                      "param_groups": [dict(opt.param_groups[0], decoupled_weight_decay=False)]})
    assert opt.param_groups[0]["decoupled_weight_decay"] is True
