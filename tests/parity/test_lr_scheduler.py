"""Parity: ``optim.lr_scheduler`` — ``StepLR``, ``MultiStepLR``, ``ExponentialLR``,
``LambdaLR``, ``CosineAnnealingLR``, ``LinearLR``, ``OneCycleLR`` — minigrad vs PyTorch.

Each scenario trains the MLP of ``test_optim.py`` for a number of epochs, stepping the
optimizer and then the scheduler, and records ``get_last_lr()``, every param group's
hyperparameters (momentum and betas too, for OneCycleLR), the parameters, the scheduler's
``state_dict`` and the warnings: calling ``scheduler.step()`` before ``optimizer.step()``,
replacing ``optimizer.step``, ``get_lr()`` outside ``step()``, and the deprecated ``epoch``.
"""

import warnings

import pytest

from minigrad.parity import assert_parity, to_numpy

from .test_optim import loss_fn, make
from .test_tensor_meta import err

torch = pytest.importorskip("torch")


def _lambda(epoch):
    return 0.5 ** (epoch // 2) + 0.1 * epoch


SCHEDULERS = {
    "StepLR": ("SGD", {"lr": 0.1}, "StepLR", {"step_size": 3, "gamma": 0.5}),
    "MultiStepLR": ("SGD", {"lr": 0.1}, "MultiStepLR", {"milestones": [2, 5, 5], "gamma": 0.3}),
    "ExponentialLR": ("Adam", {"lr": 0.05}, "ExponentialLR", {"gamma": 0.8}),
    "LambdaLR": ("SGD", {"lr": 0.1, "momentum": 0.9}, "LambdaLR", {"lr_lambda": _lambda}),
    "CosineAnnealingLR": ("SGD", {"lr": 0.1}, "CosineAnnealingLR", {"T_max": 3,
                                                                      "eta_min": 0.01}),
    "LinearLR": ("Adam", {"lr": 0.02}, "LinearLR", {"start_factor": 0.25, "total_iters": 4}),
    "LinearLR_down": ("SGD", {"lr": 0.1}, "LinearLR", {"start_factor": 1.0,
                                                        "end_factor": 0.1, "total_iters": 3}),
    "OneCycleLR_sgd": ("SGD", {"lr": 0.1, "momentum": 0.9}, "OneCycleLR",
                       {"max_lr": 0.5, "total_steps": 10}),
    "OneCycleLR_adam_linear": ("Adam", {"lr": 0.01}, "OneCycleLR",
                               {"max_lr": 0.05, "epochs": 2, "steps_per_epoch": 5,
                                "anneal_strategy": "linear", "pct_start": 0.4}),
    "OneCycleLR_three_phase": ("SGD", {"lr": 0.1, "momentum": 0.9}, "OneCycleLR",
                               {"max_lr": 0.4, "total_steps": 10, "three_phase": True}),
}


def _exact(value):
    """Floats as their repr, so that the schedule is compared bit for bit."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return [_exact(v) for v in value]
    if isinstance(value, dict):
        return {k: _exact(v) for k, v in value.items()}
    return value


def _groups(opt):
    return [{k: _exact(v) for k, v in g.items() if k != "params"} for g in opt.param_groups]


def _state(sched):
    sd = sched.state_dict()
    return {k: (dict(v) if k == "milestones" else v) for k, v in sd.items()}


def schedule_trace(lib, opt_name, opt_kwargs, sched_name, sched_kwargs, device, epochs=10):
    model, x, y = make(lib, device)
    opt = getattr(lib.optim, opt_name)(model.parameters(), **opt_kwargs)
    sched = getattr(lib.optim.lr_scheduler, sched_name)(opt, **sched_kwargs)
    trace = {"initial": _exact(sched.get_last_lr()), "groups0": _groups(opt), "epochs": []}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(epochs):
            opt.zero_grad()
            loss_fn(model, x, y).backward()
            opt.step()
            sched.step()
            trace["epochs"].append({"lr": _exact(sched.get_last_lr()), "groups": _groups(opt)})
    trace["warnings"] = [str(m.message) for m in w]
    trace["params"] = {n: to_numpy(p) for n, p in model.named_parameters()}
    trace["state_dict"] = _exact(_state(sched))
    return trace


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_schedule(device, name):
    assert_parity(schedule_trace, *SCHEDULERS[name], device=device)


def test_two_param_groups_and_lambda_per_group():
    def scenario(lib):
        model, x, y = make(lib, "cpu")
        opt = lib.optim.SGD([{"params": model.fc1.parameters()},
                             {"params": model.fc2.parameters(), "lr": 0.01}], lr=0.1)
        sched = lib.optim.lr_scheduler.LambdaLR(opt, [lambda e: 0.9 ** e, lambda e: 1 + e])
        lrs = []
        for _ in range(4):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        return {"lrs": lrs, "base": sched.base_lrs, "state": _state(sched),
                "count": err(lambda: lib.optim.lr_scheduler.LambdaLR(opt, [_lambda]))}

    assert_parity(scenario)


def test_chained_schedulers_compose():
    def scenario(lib):
        model, _, _ = make(lib, "cpu")
        opt = lib.optim.SGD(model.parameters(), lr=1.0)
        s = lib.optim.lr_scheduler
        a, b = s.ExponentialLR(opt, 0.9), s.StepLR(opt, 2, 0.5)
        lrs = []
        for _ in range(6):
            opt.step()
            a.step()
            b.step()
            lrs.append((a.get_last_lr(), b.get_last_lr()))
        return lrs

    assert_parity(scenario, rtol=1e-12, atol=0)


def test_warnings_for_calling_order():
    def scenario(lib):
        s = lib.optim.lr_scheduler
        out = {}
        for case in ("before", "after", "overridden", "get_lr", "epoch"):
            model, _, _ = make(lib, "cpu")
            opt = lib.optim.SGD(model.parameters(), lr=0.1)
            sched = s.StepLR(opt, 2)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                if case == "after":
                    opt.step()
                if case == "overridden":
                    opt.step = lambda *a, **k: None
                    opt.step()
                if case == "get_lr":
                    opt.step()
                    sched.get_lr()
                if case == "epoch":
                    opt.step()
                    sched.step(5)
                else:
                    sched.step()
                sched.step()  # the second call never warns about the order
            out[case] = ([(m.category.__name__, str(m.message)[:70]) for m in w],
                         sched.get_last_lr(), sched.last_epoch)
        return out

    assert_parity(scenario, rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
                                  "LinearLR"])
def test_closed_form_with_epoch(name):
    def scenario(lib):
        model, _, _ = make(lib, "cpu")
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        kwargs = dict(SCHEDULERS[name][3])
        sched = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
        lrs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in (4, 1, 7, 7, 2):
                opt.step()
                sched.step(epoch)
                lrs.append(sched.get_last_lr())
        return lrs

    assert_parity(scenario, rtol=1e-12, atol=1e-15)


def test_state_dict_round_trip_resumes():
    """A new scheduler that loads the state_dict continues the schedule exactly."""
    def scenario(lib):
        s = lib.optim.lr_scheduler
        model, _, _ = make(lib, "cpu")
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        sched = s.CosineAnnealingLR(opt, T_max=5)
        for _ in range(3):
            opt.step()
            sched.step()
        sd = sched.state_dict()
        opt2 = lib.optim.SGD(model.parameters(), lr=0.1)
        opt2.load_state_dict(opt.state_dict())
        sched2 = s.CosineAnnealingLR(opt2, T_max=5)
        sched2.load_state_dict(sd)
        lrs = []
        for _ in range(4):
            opt2.step()
            sched2.step()
            lrs.append(sched2.get_last_lr())
        resumed = s.StepLR(opt2, 2, last_epoch=7)
        return {"sd": sd, "lrs": lrs, "resumed": (resumed.last_epoch, resumed.get_last_lr())}

    assert_parity(scenario, rtol=1e-12, atol=1e-15)


def test_scheduler_errors():
    def scenario(lib):
        s = lib.optim.lr_scheduler
        model, _, _ = make(lib, "cpu")
        p = list(model.parameters())

        def opt(**kw):
            return lib.optim.SGD(p, lr=0.1, **kw)

        def past_the_end():
            o = opt(momentum=0.9)
            sched = s.OneCycleLR(o, max_lr=1.0, total_steps=2)
            for _ in range(3):
                o.step()
                sched.step()

        return {
            "not_optimizer": err(lambda: s.StepLR(p[0], 2)),
            "resume_without_initial_lr": err(lambda: s.StepLR(opt(), 2, last_epoch=3),
                                             "param 'initial_lr' is not specified"),
            "linear_start": err(lambda: s.LinearLR(opt(), start_factor=0)),
            "linear_end": err(lambda: s.LinearLR(opt(), end_factor=1.5)),
            "onecycle_steps": err(lambda: s.OneCycleLR(opt(), 1.0)),
            "onecycle_total": err(lambda: s.OneCycleLR(opt(), 1.0, total_steps=0)),
            "onecycle_epochs": err(lambda: s.OneCycleLR(opt(), 1.0, epochs=0,
                                                        steps_per_epoch=2)),
            "onecycle_pct": err(lambda: s.OneCycleLR(opt(), 1.0, total_steps=5, pct_start=1)),
            "onecycle_anneal": err(lambda: s.OneCycleLR(opt(), 1.0, total_steps=5,
                                                        anneal_strategy="exp")),
            "onecycle_max_lr": err(lambda: s.OneCycleLR(opt(), [1.0, 2.0], total_steps=5)),
            "onecycle_no_momentum": err(lambda: s.OneCycleLR(
                lib.optim.Adagrad(p), 1.0, total_steps=5)),
            "onecycle_past_end": err(past_the_end),
        }

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_parity(scenario)
